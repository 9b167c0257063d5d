"""The HTTP interface to a session store (issue 12): the same operations as the library, refused
requests change nothing, a token guards every request when set, and only loopback is open by default."""

import json
import socket
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager

import numpy as np
import pytest

from fullbandit.cli.main import main
from fullbandit.sessions import Session
from fullbandit.sessions import http as http_module
from fullbandit.sessions.http import export_text, make_server

MEANS = [0.9, 0.8, 0.3, 0.2, 0.1]


def new_store(tmp_path):
    path = tmp_path / "s.db"
    Session.start(path, algorithm="icb", n=5, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=7).close()
    return path


@contextmanager
def running(path, token=None):
    """A server on an ephemeral loopback port, shut down on the way out."""
    server = make_server(path, host="127.0.0.1", port=0, token=token)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def call(url, method="GET", body=None, raw=None, token=None):
    """``(status, content type, body bytes)`` of one request (an HTTP error is returned, not raised)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read()


def test_campaign_through_http_matches_the_library(tmp_path):
    path = new_store(tmp_path)
    rng = np.random.default_rng(3)
    with running(path) as url:
        rounds = 0
        while rounds < 100 and not json.loads(call(url + "/status")[2])["done"]:  # bounded
            rounds += 1
            count = 2 if rounds == 1 else 1  # two pulls out at once first, told in reverse order
            status, kind, data = call(url + "/next", "POST", {"count": count})
            assert (status, kind) == (200, "application/json"), data
            pulls = json.loads(data)["pulls"]
            assert len(pulls) == count and all(p["workers"] == [str(a) for a in p["arms"]] for p in pulls)
            for pull in reversed(pulls):
                reward = float(sum(MEANS[a] for a in pull["arms"]) + rng.normal(0, 0.2))
                status, _, data = call(url + "/record", "POST", {"pull": pull["pull"], "reward": reward})
                assert (status, json.loads(data)) == (200, {"ok": True, "pull": pull["pull"]})
        assert rounds > 5
        status, _, data = call(url + "/next", "POST", {"count": 1})  # the rule has fired: no more pulls
        assert status == 409 and "stopped" in json.loads(data)["error"]
        status, _, data = call(url + "/status")
        assert status == 200
        served = json.loads(data)
        status, kind, csv_text = call(url + "/export")
        assert status == 200 and kind.startswith("text/csv")
    with Session.open(path) as session:
        assert served == json.loads(json.dumps(session.status()))
    assert served["done"] and served["outstanding"] == 0 and served["pulls"] == rounds + 1
    lines = csv_text.decode().splitlines()
    assert lines[0].startswith("observation,pull") and len(lines) == served["pulls"] + 1


def test_page_and_plot(tmp_path):
    path = new_store(tmp_path)
    with Session.open(path) as session:
        for _ in range(30):
            [pull] = session.next()
            session.record(pull.id, sum(MEANS[a] for a in pull.arms))
    with running(path) as url:
        status, kind, data = call(url + "/")
        assert status == 200 and kind.startswith("text/html")
        page = data.decode()
        assert "<svg" in page and "gap_bound" in page and "<polyline" in page
        status, kind, data = call(url + "/plot.svg")
        assert status == 200 and kind == "image/svg+xml"
        assert data.decode().count("<polyline") == 2


def test_page_of_an_empty_store(tmp_path):
    with running(new_store(tmp_path)) as url:
        status, kind, data = call(url + "/")
        assert status == 200 and "no stopping check yet" in data.decode()


BAD = [  # (route, raw body, expected status, a word of the message)
    ("/record", b"{not json", 400, "JSON"),
    ("/record", b"[1, 2]", 400, "object"),
    ("/record", b'{"reward": 1.0}', 400, "pull"),
    ("/record", b'{"pull": 0}', 400, "reward"),
    ("/record", b'{"pull": "0", "reward": 1.0}', 400, "integer"),
    ("/record", b'{"pull": true, "reward": 1.0}', 400, "integer"),
    ("/record", b'{"pull": 0, "reward": "high"}', 400, "reward"),
    ("/record", b'{"pull": 0, "reward": NaN}', 400, "NaN"),
    ("/record", b'{"pull": 0, "reward": Infinity}', 400, "Infinity"),
    ("/record", b'{"pull": 0, "reward": 1e999}', 400, "finite"),
    ("/record", b'{"pull": 0, "reward": [1.0, 0.5]}', 400, "reward"),
    ("/record", b'{"pull": 0, "reward": 1.0, "extra": 1}', 400, "extra"),
    ("/record", b'{"pull": -1, "reward": 1.0}', 400, "pull"),
    ("/record", b'{"pull": 99, "reward": 1.0}', 409, "never handed out"),
    ("/record", b'{"pull": 1, "reward": 2.0}', 409, "already recorded"),  # 1.0 again: a retry, answered 200
    ("/next", b'{"count": 0}', 400, "count"),
    ("/next", b'{"count": 2.5}', 400, "count"),
    ("/next", b'{"count": 100000}', 400, "count"),
    ("/next", b'{"cout": 2}', 400, "cout"),
    ("/next", b"\xff\xfe", 400, "UTF-8"),
]


def test_bad_requests_are_refused_and_change_nothing(tmp_path):
    path = new_store(tmp_path)
    with Session.open(path) as session:  # pull 0 outstanding, pull 1 recorded
        first, second = session.next(2)
        session.record(second.id, 1.0)
    before = export_text(path), Session.open(path).status()
    with running(path) as url:
        for route, raw, expected, word in BAD:
            status, kind, data = call(url + route, "POST", raw=raw)
            assert (status, kind) == (expected, "application/json"), (route, raw, data)
            message = json.loads(data)["error"]
            assert word.lower() in message.lower(), (raw, message)
            assert (export_text(path), Session.open(path).status()) == before, raw
        assert call(url + "/nowhere")[0] == 404
        assert call(url + "/status", "POST", {})[0] == 405
        assert call(url + "/next")[0] == 405
    assert Session.open(path).status()["outstanding_ids"] == [first.id]


def test_damaged_store_is_a_server_error(tmp_path):
    path = new_store(tmp_path)
    with running(path) as url:
        path.write_bytes(b"not a database at all" * 100)
        status, kind, data = call(url + "/status")
        assert status == 500 and kind == "application/json" and "s.db" in json.loads(data)["error"]


def test_token_is_required_when_set(tmp_path):
    path = new_store(tmp_path)
    with running(path, token="s3cret") as url:
        for route, method, body in [("/status", "GET", None), ("/next", "POST", {"count": 1}),
                                    ("/export", "GET", None), ("/", "GET", None)]:
            assert call(url + route, method, body)[0] == 401
            assert call(url + route, method, body, token="wrong")[0] == 401
        assert Session.open(path).status()["outstanding"] == 0  # the refused /next handed out nothing
        status, _, data = call(url + "/next", "POST", {"count": 1}, token="s3cret")
        assert status == 200 and len(json.loads(data)["pulls"]) == 1
        assert call(url + "/status", token="s3cret")[0] == 200


def test_non_local_host_needs_a_token(tmp_path, capsys, monkeypatch):
    path = new_store(tmp_path)

    def never_listen(*args, **kwargs):  # a regression must fail here, not listen beyond loopback or hang
        raise AssertionError(f"the server would listen on {args[0]}")

    monkeypatch.setattr(http_module, "SessionServer", never_listen)
    assert main(["session", "serve", str(path), "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "token" in capsys.readouterr().err
    with pytest.raises(ValueError, match="token"):
        make_server(path, host="192.0.2.1", port=0)
    with pytest.raises(ValueError, match="empty"):
        make_server(path, port=0, token="  ")
    assert main(["session", "serve", str(tmp_path / "missing.db"), "--port", "0"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_concurrent_clients_lose_nothing(tmp_path):
    path = tmp_path / "c.db"
    Session.start(path, algorithm="icb", n=5, k=2, epsilon=0.001, delta=0.1, noise_scale=0.2, seed=7).close()
    failures = []

    def client(url):
        for _ in range(5):
            status, _, data = call(url + "/next", "POST", {"count": 1})
            [pull] = json.loads(data)["pulls"] if status == 200 else [None]
            if pull is None:
                failures.append(data)
                return
            status, _, data = call(url + "/record", "POST", {"pull": pull["pull"], "reward": 1.0})
            if status != 200:
                failures.append(data)

    with running(path) as url:
        threads = [threading.Thread(target=client, args=(url,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert not any(thread.is_alive() for thread in threads)
    assert failures == []
    status = Session.open(path).status()
    assert status["pulls"] == 20 and status["outstanding"] == 0
    assert len(export_text(path).splitlines()) == 21


def test_the_page_is_rebuilt_only_when_the_journal_changes(tmp_path, monkeypatch):
    path = new_store(tmp_path)
    with Session.open(path) as session:
        for _ in range(30):
            [pull] = session.next()
            session.record(pull.id, sum(MEANS[a] for a in pull.arms))
    opened = []
    real_open = Session.open.__func__
    monkeypatch.setattr(Session, "open", classmethod(lambda cls, p: opened.append(p) or real_open(cls, p)))
    with running(path) as url:
        first = call(url + "/")
        assert first[0] == 200 and "<th>pulls</th><td>30</td>" in first[2].decode()
        assert len(opened) == 2  # make_server's check, then the one rebuild
        for route in ("/", "/plot.svg", "/"):
            call(url + route)
        assert len(opened) == 2  # nothing recorded: served from the cache without opening the store
        assert call(url + "/")[2] == first[2]
        # A pull handed out changes the journal: the page is rebuilt (it shows the pull outstanding).
        status, _, data = call(url + "/next", "POST", {"count": 1})
        [pull] = json.loads(data)["pulls"]
        page = call(url + "/")[2].decode()
        assert f"<th>outstanding_ids</th><td>[{pull['pull']}]</td>" in page and "<th>pulls</th><td>30</td>" in page
        # A record from another process (the library here) invalidates the page as well.
        with real_open(Session, path) as other:
            other.record(pull["pull"], sum(MEANS[a] for a in pull["arms"]))
        opened.clear()
        page = call(url + "/")[2].decode()
        assert len(opened) == 1 and "<th>pulls</th><td>31</td>" in page and "<th>outstanding</th><td>0</td>" in page
        # The plot came with the same rebuild: it is the fresh replay's (a record adds a point only when it
        # brings a stopping check due, so the picture itself may be unchanged).
        served = call(url + "/plot.svg")[2]
        assert len(opened) == 1 and served == http_module.PageCache(path)._build().svg
    with Session.open(path) as session:  # the cached page is what a fresh replay reports
        status = session.status()
    assert f"<th>pulls</th><td>{status['pulls']}</td>" in page
    assert f"<th>gap_bound</th><td>{json.dumps(status['gap_bound'])}</td>" in page


def test_the_page_of_a_damaged_store_is_an_error_even_after_it_was_cached(tmp_path):
    path = new_store(tmp_path)
    with running(path) as url:
        assert call(url + "/")[0] == 200
        path.write_bytes(b"not a database at all" * 100)
        status, kind, data = call(url + "/")
        assert status == 500 and kind == "application/json" and "s.db" in json.loads(data)["error"]


# --- framing, methods and connections, on raw sockets --------------------------------------------
@contextmanager
def raw_connection(url):
    """A socket to the server at ``url`` and a buffered reader of its responses (10 s timeout on each read)."""
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=10) as sock:
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


def test_pipelined_requests_on_one_connection_each_get_one_response_in_order(tmp_path):
    path = new_store(tmp_path)
    requests = [request("GET", "/status"),
                request("GET", "/status", b'{"ignored": true}'),  # a body on a GET is read, not taken as a request
                request("POST", "/next", b'{"count": 1}'),
                request("POST", "/record", chunked(b'{"pull": 0, ', b'"reward": 1.0}'),
                        ["Transfer-Encoding: chunked"]),
                request("GET", "/nowhere"),
                request("GET", "/status", headers=["Connection: close"])]
    with running(path) as url, raw_connection(url) as (sock, stream):
        sock.sendall(b"".join(requests))  # back to back: the server must frame them itself
        answers = [read_response(stream) for _ in requests]
        assert stream.read() == b""  # then the connection closes: no response more
    assert [status for status, _, _ in answers] == [200, 200, 200, 200, 404, 200]
    assert json.loads(answers[2][2])["pulls"][0]["pull"] == 0
    assert json.loads(answers[3][2]) == {"ok": True, "pull": 0}
    assert json.loads(answers[-1][2])["pulls"] == 1 and answers[-1][1]["connection"] == "close"
    assert all("connection" not in headers for _, headers, _ in answers[:-1])


@pytest.mark.parametrize("length, status, word", [("-5", 400, "Content-Length '-5'"), ("abc", 400, "Content-Length"),
                                                  ("+5", 400, "Content-Length"), (str(2 << 20), 413, "at most")])
def test_a_bad_content_length_is_refused_and_the_connection_closed(tmp_path, length, status, word):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request("POST", "/next", headers=[f"Content-Length: {length}"]) + b'{"count": 1}')
        answer = read_response(stream)
        assert stream.read() == b""
    assert (answer[0], answer[1]["connection"], answer[1]["content-type"]) == (status, "close", "application/json")
    assert word in json.loads(answer[2])["error"]
    assert Session.open(tmp_path / "s.db").status()["outstanding"] == 0


@pytest.mark.parametrize("body, headers, status, word", [
    (b"4\r\n{}\r\n0\r\n\r\n", ["Transfer-Encoding: chunked"], 400, "longer than its size line"),
    (b"zz\r\n{}\r\n0\r\n\r\n", ["Transfer-Encoding: chunked"], 400, "not hexadecimal"),
    (b"-2\r\n{}\r\n0\r\n\r\n", ["Transfer-Encoding: chunked"], 400, "not hexadecimal"),
    (b"2\r\n{}\r\n0\r\n\r\n", ["Transfer-Encoding: gzip"], 501, "gzip"),
    (b"2\r\n{}\r\n0\r\n\r\n", ["Transfer-Encoding: chunked", "Content-Length: 12"], 400, "both"),
])
def test_a_malformed_chunked_body_is_refused_and_the_connection_closed(tmp_path, body, headers, status, word):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request("POST", "/next", body, headers))
        answer = read_response(stream)
        assert stream.read() == b""
    assert answer[0] == status and answer[1]["connection"] == "close"
    assert word in json.loads(answer[2])["error"]
    assert Session.open(tmp_path / "s.db").status()["outstanding"] == 0


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS"])
@pytest.mark.parametrize("route, allowed", [("/status", "GET"), ("/record", "POST")])
def test_another_method_is_405_with_allow(tmp_path, method, route, allowed):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request(method, route, b"{}") + request("GET", "/status", headers=["Connection: close"]))
        status, headers, body = read_response(stream)
        assert read_response(stream)[0] == 200  # the connection is still in step
    assert (status, headers["allow"], headers["content-type"]) == (405, allowed, "application/json")
    assert json.loads(body)["error"] == f"{route} takes {allowed}, not {method}"


def test_head_is_405_without_a_body_and_an_unknown_method_is_501_in_json(tmp_path):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request("HEAD", "/status") + request("BREW", "/status"))
        status, headers, _ = read_response(stream, head=True)
        assert (status, headers["allow"]) == (405, "GET")
        status, headers, body = read_response(stream)
        assert stream.read() == b""
    assert (status, headers["content-type"], headers["connection"]) == (501, "application/json", "close")
    assert "BREW" in json.loads(body)["error"]


@pytest.mark.parametrize("port, word", [("70000", "70000 is not a port number (0 to 65535)"),
                                        ("-1", "-1 is not a port number"), ("http", "'http' is not an integer")])
def test_serve_refuses_a_port_outside_0_to_65535_as_a_usage_error(tmp_path, capsys, port, word):
    with pytest.raises(SystemExit) as exit_status:
        main(["session", "serve", str(new_store(tmp_path)), f"--port={port}"])
    assert exit_status.value.code == 2
    assert f"argument --port: {word}" in capsys.readouterr().err
