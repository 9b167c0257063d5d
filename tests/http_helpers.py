"""Helpers of the HTTP service's tests: a server on an ephemeral port, requests through urllib and raw sockets."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager

import numpy as np

from fullbandit.sessions import Session
from fullbandit.sessions.http import make_server

MEANS = [0.9, 0.8, 0.3, 0.2, 0.1]


def new_store(tmp_path, name="s", **overrides):
    """An ICB session store of five workers, teams of two, at ``tmp_path / f"{name}.db"``."""
    path = tmp_path / f"{name}.db"
    arguments = dict(algorithm="icb", n=5, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=7)
    Session.start(path, **{**arguments, **overrides}).close()
    return path


def fill(path, observations, *, seed=0):
    """Record ``observations`` pulls of ``path`` (team sums of :data:`MEANS` and a little noise), one at a time."""
    rng = np.random.default_rng(seed)
    with Session.open(path) as session:
        for _ in range(observations):
            [pull] = session.next()
            session.record(pull.id, float(sum(MEANS[a] for a in pull.arms) + rng.normal(0, 0.2)))


@contextmanager
def running(stores=None, **options):
    """A server on an ephemeral loopback port (``make_server``'s options), stopped cleanly on the way out."""
    server = make_server(stores, host="127.0.0.1", port=0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def call(url, method="GET", body=None, raw=None, token=None, headers=()):
    """``(status, content type, body bytes)`` of one request (an HTTP error is returned, not raised)."""
    status, response_headers, data = exchange(url, method, body, raw, token, headers)
    return status, response_headers.get("Content-Type"), data


def exchange(url, method="GET", body=None, raw=None, token=None, headers=()):
    """``(status, headers, body bytes)`` of one request."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in headers:
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read()


def answer(url, method="GET", body=None, **options):
    """``(status, JSON body)`` of one request."""
    status, _, data = call(url, method, body, **options)
    return status, json.loads(data)


# --- raw sockets --------------------------------------------------------------------------------------------------
@contextmanager
def raw_connection(url):
    """A socket to the server at ``url`` and a buffered reader of its responses (30 s timeout on each read)."""
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=30) as sock:
        with sock.makefile("rb") as stream:
            yield sock, stream


def read_response(stream, head=False):
    """``(status, headers with lower-case names, body)`` of the next response on ``stream``."""
    status_line = stream.readline()
    assert status_line.startswith(b"HTTP/1.1 "), status_line
    headers = {}
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = b"" if head else stream.read(int(headers["content-length"]))
    return int(status_line.split()[1]), headers, body


def request(method, route, body=b"", headers=()):
    lines = [f"{method} {route} HTTP/1.1", "Host: 127.0.0.1", *headers]
    if body and not any(header.lower().startswith("transfer-encoding") for header in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def chunked(*chunks):
    return b"".join(b"%x;ext=1\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\nX-Trailer: 1\r\n\r\n"
