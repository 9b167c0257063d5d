"""An HTTP service over live session stores, on the standard library only (``fullbandit session serve``).

This module frames requests and routes them; the rest lives beside it:
:mod:`~fullbandit.sessions.campaigns` (the sessions a server keeps open),
:mod:`~fullbandit.sessions.endpoints` (the route table and the handlers),
:mod:`~fullbandit.sessions.page` (status page and plot), :mod:`~fullbandit.sessions.openapi`
(``GET /openapi.json``, generated from the route table).

Routes (:data:`fullbandit.sessions.endpoints.ENDPOINTS`; JSON in and out unless stated):

=========================  ===================================  =============================================
``POST /start``            the creation parameters              ``{"ok", "store", "algorithm", "parameters"}``
``POST /next``             ``{"count": n}`` (default 1)         ``{"pulls": [{"pull", "arms", "workers",
                                                                "count"}]}``, up to ``n``; 409 ``waiting``
``POST /record``           ``{"pull": id, "reward": r}``        ``{"ok", "pull", "recorded": true}``; a retry
                                                                ``"recorded": false, "already_recorded":
                                                                true``; another reward: 409 ``conflict``
``POST /abandon``          ``{"pull": id}``                     ``{"ok", "pull", "abandoned": bool}``
``GET /outstanding``                                            ``{"pulls": [...]}``: every outstanding pull
``GET /status``                                                 :meth:`Session.status`
``GET /export``                                                 the observations, CSV
``GET /``, ``/plot.svg``                                        the status page (HTML), its plot (SVG)
``GET /campaigns``                                              ``{"campaigns": [{"name", "url", "started",
                                                                "algorithm", "pulls", "done"}]}``
``GET /openapi.json``                                           the OpenAPI 3.1 description
=========================  ===================================  =============================================

Every campaign endpoint is served at ``/campaigns/{name}/...`` (``name``: the store's file stem;
the page at ``/campaigns/{name}/``), and at the bare route as well when the server serves
exactly one store. ``reward`` is a number, or one per member for semi feedback (a number
for a one-member pull).

The server opens each store once (at start, or at ``POST /start``) and keeps its
:class:`~fullbandit.sessions.Session` for every request, so a record is a tell and a commit;
other processes may write to the same store meanwhile (the session sees their events).
Every write commits before it is answered.

A refused request gets a 4xx status and ``{"error": message}`` (plus ``"waiting": true`` or
``"conflict": true`` for those two refusals) and changes nothing: a malformed body, a
missing or mistyped field, a campaign name outside :data:`~fullbandit.sessions.campaigns.NAME_RULE`
-> 400; no such route or campaign -> 404; a method the route does not take (any method,
known or not) -> 405 with ``Allow``; a pull never handed out, already recorded, a stopped
session -> 409; a damaged store -> 500 with the store's message; a request arriving while
the server stops -> 503. ``OPTIONS`` is answered 204 with ``Allow``.

CORS is off unless origins are given (``--cors-origin``): a preflight from a listed origin gets
``Access-Control-Allow-Origin`` (that origin), ``-Methods``, ``-Headers`` (``Content-Type,
Authorization``) and ``-Max-Age``; every answer to a listed origin carries
``Access-Control-Allow-Origin``; another origin gets no CORS header.

Connections are HTTP/1.1 keep-alive: a body is framed by ``Content-Length`` or
``Transfer-Encoding: chunked`` (decoded), every request gets exactly one response, in order
(pipelined requests included), and a request whose framing cannot be trusted (a bad
length, a malformed chunk, a body too large or cut short) is answered and its connection
closed, the response saying ``Connection: close``. An idle connection is closed after
:data:`IDLE_TIMEOUT` seconds.

The server binds to ``127.0.0.1`` by default; any other host requires a token, and when a
token is set every request but ``OPTIONS`` must carry ``Authorization: Bearer TOKEN`` (401
otherwise). A browser cannot send that header, so a read of ``?token=TOKEN`` (e.g. the status
page, ``/?token=TOKEN``) is answered 303 to the same address without it and sets a cookie
(:data:`PAGE_COOKIE`, ``HttpOnly``, ``SameSite=Strict``, a digest of the token) that lets the
browser's reads in (GET and HEAD only: writes still need the header). :func:`serve` stops
cleanly on SIGTERM or Ctrl-C: it stops accepting, lets the
requests in flight finish, closes every session, and returns.

Examples
--------
>>> import json, tempfile, threading, pathlib, urllib.request
>>> from fullbandit.sessions import Session
>>> path = pathlib.Path(tempfile.mkdtemp()) / "crowd.db"
>>> Session.start(path, algorithm="icb", n=4, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=1).close()
>>> server = make_server(path, port=0)              # port 0: any free port
>>> thread = threading.Thread(target=server.serve_forever, daemon=True)
>>> thread.start()
>>> url = f"http://127.0.0.1:{server.server_address[1]}"
>>> def post(route, body):
...     request = urllib.request.Request(url + route, data=json.dumps(body).encode(), method="POST")
...     with urllib.request.urlopen(request, timeout=10) as response:
...         return json.load(response)
>>> [pull] = post("/next", {"count": 1})["pulls"]
>>> post("/record", {"pull": pull["pull"], "reward": 1.2})
{'ok': True, 'pull': 0, 'recorded': True}
>>> with urllib.request.urlopen(url + "/campaigns/crowd/status", timeout=10) as response:
...     json.load(response)["pulls"]
1
>>> server.shutdown(); server.server_close()        # drains the requests in flight, closes the session
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode

from fullbandit.core.algorithm import ProtocolError
from fullbandit.sessions.campaigns import Campaigns, NoSuchCampaign
from fullbandit.sessions.endpoints import BadRequest, Call, Endpoint, Reply, match, route_table
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError

#: The largest request body read, in bytes (a body is a few numbers).
MAX_BODY = 1 << 20
#: The longest chunk-size or trailer line of a chunked body, and the most trailer lines.
MAX_LINE = 1024
MAX_TRAILERS = 64
#: Seconds a connection may stay silent (between requests, or within one) before it is closed.
IDLE_TIMEOUT = 30
#: Seconds a stopping server waits for the requests in flight (each is bounded by IDLE_TIMEOUT reads).
DRAIN_TIMEOUT = 3 * IDLE_TIMEOUT
#: A request method: an HTTP token (RFC 9110, section 5.6.2).
METHOD = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: What a CORS preflight may ask to send, and how long a browser may keep the answer (seconds).
CORS_HEADERS = "Content-Type, Authorization"
#: The cookie that lets a browser read the pages of a server with a token (set by ``GET /?token=TOKEN``).
PAGE_COOKIE = "fullbandit_page"
#: The requests the page's cookie authorises: reads only (a write needs the header, so no other site's form can).
READS = ("GET", "HEAD")


def page_key(token: str) -> str:
    """The page cookie's value for ``token``: derived from it (the cookie never holds the token itself)."""
    return hmac.new(token.encode(), b"fullbandit status page", "sha256").hexdigest()
CORS_MAX_AGE = 600
#: An origin as ``--cors-origin`` takes it: scheme, host and optional port, nothing else.
ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-\[\]:]+")


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_origins(origins: Iterable[str]) -> tuple[str, ...]:
    """The ``--cors-origin`` values, each ``scheme://host[:port]`` (no path, no ``*``); refused naming the option.

    >>> check_origins(["https://crowd.example.org", "http://localhost:3000"])
    ('https://crowd.example.org', 'http://localhost:3000')
    """
    checked = []
    for origin in origins:
        if not isinstance(origin, str) or not ORIGIN.fullmatch(origin):
            raise InvalidParameterError(f"--cors-origin {origin!r} is not an origin: give scheme://host[:port] "
                                        "exactly as the browser sends it (e.g. https://crowd.example.org), no path, "
                                        "no '*'")
        checked.append(origin)
    return tuple(checked)


class SessionServer(ThreadingHTTPServer):
    """A threading HTTP server over ``campaigns`` (see :func:`make_server`).

    :meth:`server_close` stops cleanly: it closes the listening socket, refuses (503) any
    request that begins afterwards, waits for those in flight, then closes every session.
    """

    daemon_threads = True
    block_on_close = False  # server_close waits for requests, not for idle keep-alive connections

    def __init__(self, address, campaigns: Campaigns, token: str | None, quiet: bool,
                 cors_origins: Sequence[str] = ()):
        self.campaigns = campaigns
        self.token = token
        self.quiet = quiet
        self.cors_origins = frozenset(cors_origins)
        self.routes = route_table(campaigns.bare)
        self._flight = threading.Condition()
        self._in_flight = 0
        self._stopping = False
        self._closed = False
        self.closed_sessions = 0  # how many sessions server_close closed
        super().__init__(address, Handler)

    @property
    def store(self) -> Path:
        """The store of a server that serves exactly one."""
        return self.campaigns.only().path

    @property
    def in_flight(self) -> int:
        """How many requests are running now."""
        with self._flight:
            return self._in_flight

    @contextmanager
    def request_in_flight(self):
        """Count one request while it runs; yields ``False`` (and counts nothing) once the server is stopping."""
        with self._flight:
            admitted = not self._stopping
            if admitted:
                self._in_flight += 1
        try:
            yield admitted
        finally:
            if admitted:
                with self._flight:
                    self._in_flight -= 1
                    self._flight.notify_all()

    def server_close(self) -> None:
        """Stop accepting, let the requests in flight finish (at most :data:`DRAIN_TIMEOUT` s), close every session."""
        super().server_close()
        with self._flight:
            self._stopping = True
            self._flight.wait_for(lambda: self._in_flight == 0, timeout=DRAIN_TIMEOUT)
            if self._closed:
                return
            self._closed = True
        self.closed_sessions = self.campaigns.close()


def make_server(stores=None, host: str = "127.0.0.1", port: int = 8765, token: str | None = None, *,
                folder=None, quiet: bool = True, new: bool = False, cors_origins: Iterable[str] = ()) -> SessionServer:
    """A server bound to ``host:port`` (``port=0``: any free port) for the session stores ``stores``.

    ``stores``: one path, or a sequence of them; or ``folder``: every ``*.db`` store in it.
    ``new=True``: each store given does not exist yet (refused if it does) and ``POST /start``
    creates it; with ``folder``, ``POST /campaigns/{name}/start`` creates ``folder/{name}.db``.
    Every existing store is opened now and kept open. ``cors_origins``: the origins a browser
    may call from (CORS off when empty).

    Refuses (:class:`InvalidParameterError`) a host other than a loopback address without a
    ``token``, an empty token, a bad origin, and a store that cannot be opened
    (:class:`StateError`), before listening.
    """
    if token is not None and not token.strip():
        raise InvalidParameterError("--token must not be empty")
    if not is_loopback(host) and token is None:
        raise InvalidParameterError(f"--host {host} is not a loopback address: serving beyond this machine "
                                    "requires a token (--token TOKEN or FULLBANDIT_TOKEN)")
    origins = check_origins(cors_origins)
    paths = [] if stores is None else [stores] if isinstance(stores, str | Path) else list(stores)
    campaigns = Campaigns(paths, folder=folder, new=new)
    try:
        return SessionServer((host, port), campaigns, token, quiet, origins)
    except (OSError, OverflowError) as error:  # OverflowError: a port outside 0..65535
        campaigns.close()
        raise InvalidParameterError(f"cannot listen on {host}:{port}: {getattr(error, 'strerror', None) or error}") \
            from None


def serve(stores=None, host: str = "127.0.0.1", port: int = 8765, token: str | None = None, *, folder=None,
          new: bool = False, cors_origins: Iterable[str] = (), out=None) -> None:
    """Serve until SIGTERM or Ctrl-C, then stop cleanly (:meth:`SessionServer.server_close`) and print one line.

    The arguments are :func:`make_server`'s. The first line printed (on ``out``, default
    stdout) gives the address, the last says the server stopped.
    """
    out = out if out is not None else sys.stdout
    server = make_server(stores, host, port, token, folder=folder, quiet=False, new=new, cors_origins=cors_origins)
    stopping = threading.Event()

    def stop(signum, frame) -> None:
        # serve_forever runs in this (the main) thread: shutdown() waits for it, so it is called from another one.
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    handled = (signal.SIGTERM, signal.SIGINT)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {number: signal.signal(number, stop) for number in handled}
    try:
        shown = f"[{host}]" if ":" in host else host
        served = ", ".join(campaign.name for campaign in server.campaigns.list()) or "none yet"
        address = f"http://{shown}:{server.server_address[1]}/"
        print(f"serving {served} on {address} (Ctrl-C or SIGTERM to stop)", file=out, flush=True)
        if token is not None:
            print(f"in a browser, open {address}?token=TOKEN once (a cookie then lets the page in)", file=out,
                  flush=True)
        server.serve_forever()
    finally:
        if stopping.is_set():
            print(f"stopping: {server.in_flight} request(s) in flight", file=sys.stderr, flush=True)
        server.server_close()
        for number, handler in previous.items():
            signal.signal(number, handler)
    print(f"stopped: every request answered, {server.closed_sessions} session(s) closed", file=out, flush=True)


# --- request handling ---------------------------------------------------------------------------------------------
class Handler(BaseHTTPRequestHandler):
    """One request: frame, authorise, route, answer (JSON, or CSV, HTML, SVG)."""

    server: SessionServer
    server_version = "fullbandit-session"
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT  # a silent client must not hold a server thread forever
    # TCP_NODELAY: an answer is written as headers then body; with Nagle's algorithm the body
    # waits for the client's delayed ACK of the headers, 40 ms on a kept-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if not self.server.quiet:
            super().log_message(format, *args)

    def handle_one_request(self) -> None:
        """The base class's, but any method is routed (405 with Allow, never 501) and counted while it runs.

        A request counts as in flight from its request line on (before ``100 Continue`` is
        sent): a stopping server answers every request it counted.
        """
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline = self.request_version = self.command = ""
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            with self.server.request_in_flight() as admitted:
                if not self.parse_request():  # it answered (send_error below)
                    return
                if admitted:
                    self._handle(self.command)
                else:  # the server is stopping; the body is not read, so the connection ends here
                    self.close_connection = True
                    self._json(503, {"error": "the server is stopping: send the request again once it is back"})
            self.wfile.flush()
        except TimeoutError as error:
            self.log_error("Request timed out: %r", error)
            self.close_connection = True

    def _handle(self, method: str) -> None:
        try:
            if not METHOD.fullmatch(method):
                self.close_connection = True
                raise BadRequest(400, f"{method!r} is not a request method")
            body = self._read_body()
            path = self.path.split("?", 1)[0]
            found = match(self.server.routes, path)
            if found is None:
                raise BadRequest(404, f"no such endpoint {path!r}; try GET /openapi.json for the routes")
            route, name = found
            endpoints = self.server.routes[route]
            allow = ", ".join([*endpoints, "OPTIONS"])
            if method == "OPTIONS":
                self._options(endpoints, allow)
                return
            if self._token_in_query(method):
                return
            self._authorise(method)
            endpoint = endpoints.get(method)
            if endpoint is None:
                takes = " or ".join(endpoints)
                raise BadRequest(405, f"{route} takes {takes}, not {method}", {"Allow": allow})
            self._answer(self._call(endpoint, name, body))
        except BadRequest as error:
            self._json(error.status, {"error": str(error), **error.extra}, error.headers)
        except NoSuchCampaign as error:
            self._json(404, {"error": str(error)})
        except StateError as error:  # before InvalidParameterError: a subclass
            self._json(500, {"error": str(error)})
        except ProtocolError as error:
            self._json(409, {"error": str(error)})
        except (InvalidParameterError, TypeError) as error:
            self._json(400, {"error": str(error)})
        except Exception as error:  # noqa: BLE001 - a request must not kill the server
            self._json(500, {"error": f"internal error: {type(error).__name__}: {error}"})

    def _call(self, endpoint: Endpoint, name: str | None, body: bytes) -> Reply:
        campaigns = self.server.campaigns
        if endpoint.campaign and name is None:  # a bare route: the one store served
            name = campaigns.only().name
        try:
            return endpoint.handler(Call(campaigns, name, body, secured=self.server.token is not None))
        except sqlite3.DatabaseError as error:  # the file was damaged under the open session
            where = f"session store {campaigns.get(name).path}" if name is not None else "a session store"
            raise StateError(f"{where} cannot be read: {error}") from None

    def _options(self, endpoints: dict[str, Endpoint], allow: str) -> None:
        """``OPTIONS``: 204 with ``Allow``; a CORS preflight from a listed origin gets the CORS answer too."""
        headers = {"Allow": allow}
        origin = self.headers.get("Origin")
        if origin in self.server.cors_origins and self.headers.get("Access-Control-Request-Method"):
            headers.update({"Access-Control-Allow-Methods": allow, "Access-Control-Allow-Headers": CORS_HEADERS,
                            "Access-Control-Max-Age": str(CORS_MAX_AGE)})
        self._send(204, None, b"", headers)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's refusals (a malformed request line or header) in JSON."""
        self.close_connection = True  # the request was not understood: where the next one starts is unknown
        self._json(code, {"error": message or HTTPStatus(code).phrase})

    # --- the request body -----------------------------------------------------------------------------------------
    def _read_body(self) -> bytes:
        """The request body, framed by Content-Length or chunked; the connection is closed on any doubt."""
        try:
            return self._framed_body()
        except BadRequest:
            self.close_connection = True  # the rest of the stream cannot be trusted to start a request
            raise
        except TimeoutError:
            self.close_connection = True
            raise BadRequest(408, f"the body did not arrive within {IDLE_TIMEOUT} s") from None

    def _framed_body(self) -> bytes:
        lengths = self.headers.get_all("Content-Length") or []
        codings = self.headers.get_all("Transfer-Encoding")
        if codings:
            if lengths:
                raise BadRequest(400, "a request must not carry both Transfer-Encoding and Content-Length")
            coding = ", ".join(codings)  # repeated headers: one list of codings
            if coding.strip().lower() != "chunked":
                raise BadRequest(501, f"Transfer-Encoding {coding!r} is not supported: send the body with "
                                      "Content-Length or Transfer-Encoding: chunked")
            return self._read_chunked()
        if not lengths:
            return b""
        if len(set(lengths)) > 1 or not re.fullmatch(r"[0-9]{1,20}", lengths[0].strip()):
            raise BadRequest(400, f"Content-Length {', '.join(lengths)!r} is not one non-negative integer")
        size = int(lengths[0])
        if size > MAX_BODY:
            raise BadRequest(413, f"the body must be at most {MAX_BODY} bytes (Content-Length is {size})")
        return self._read_exactly(size)

    def _read_exactly(self, size: int) -> bytes:
        data = self.rfile.read(size)
        if len(data) != size:
            raise BadRequest(400, f"the body ended after {len(data)} of {size} bytes")
        return data

    def _read_chunked(self) -> bytes:
        """A ``Transfer-Encoding: chunked`` body, decoded; its trailer lines are read and ignored."""
        body = bytearray()
        while True:
            line = self._read_line("chunk size")
            size_text = line.split(b";", 1)[0].strip()  # ";...": a chunk extension, ignored
            if not re.fullmatch(rb"[0-9A-Fa-f]{1,16}", size_text):
                raise BadRequest(400, f"the chunked body has a chunk size line {line!r} that is not hexadecimal")
            size = int(size_text, 16)
            if size == 0:
                break
            if len(body) + size > MAX_BODY:
                raise BadRequest(413, f"the body must be at most {MAX_BODY} bytes")
            body += self._read_exactly(size)
            if self._read_exactly(2) != b"\r\n":
                raise BadRequest(400, "a chunk of the chunked body is longer than its size line says")
        for _ in range(MAX_TRAILERS):
            if self._read_line("trailer") in (b"\r\n", b"\n"):
                return bytes(body)
        raise BadRequest(400, f"the chunked body has more than {MAX_TRAILERS} trailer lines")

    def _read_line(self, what: str) -> bytes:
        line = self.rfile.readline(MAX_LINE + 1)
        if not line.endswith(b"\n"):
            raise BadRequest(400, f"the chunked body ended or ran over {MAX_LINE} bytes within a {what} line")
        return line

    def _authorise(self, method: str) -> None:
        """Refuse (401) a request without the token: the ``Authorization`` header, or for a read the page's cookie."""
        token = self.server.token
        if token is None:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode()):
            return
        if method in READS and hmac.compare_digest(self._page_cookie().encode(), page_key(token).encode()):
            return
        raise BadRequest(401, "missing or wrong token: send the header 'Authorization: Bearer TOKEN' (in a browser, "
                              "open the page once as /?token=TOKEN)")

    def _page_cookie(self) -> str:
        cookies = SimpleCookie()
        try:
            cookies.load(self.headers.get("Cookie", ""))
        except CookieError:
            return ""
        morsel = cookies.get(PAGE_COOKIE)
        return "" if morsel is None else morsel.value

    def _token_in_query(self, method: str) -> bool:
        """A read of ``?token=TOKEN`` (a browser cannot send the header): answered 303 to the same address without
        it, setting the page's cookie, so the status page and its refreshes are let in. ``True`` when answered."""
        token = self.server.token
        path, _, query = self.path.partition("?")
        given = parse_qs(query).get("token")
        if token is None or method not in READS or not given:
            return False
        if not hmac.compare_digest(given[-1].encode(), token.encode()):
            raise BadRequest(401, "wrong token in the address (?token=...)")
        rest = urlencode([(name, value) for name, value in parse_qsl(query) if name != "token"])
        cookie = f"{PAGE_COOKIE}={page_key(token)}; Path=/; HttpOnly; SameSite=Strict"
        self._send(303, None, b"", {"Location": path + ("?" + rest if rest else ""), "Set-Cookie": cookie})
        return True

    # --- answers --------------------------------------------------------------------------------------------------
    def _answer(self, reply: Reply) -> None:
        self._send(reply.status, reply.content_type, reply.data, reply.headers)

    def _json(self, status: int, value, headers: dict[str, str] | None = None) -> None:
        self._send(status, "application/json", json.dumps(value).encode(), headers)

    def _send(self, status: int, content_type: str | None, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status, HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else None)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="fullbandit"')
        if self.server.cors_origins:
            self.send_header("Vary", "Origin")  # the answer depends on the origin: caches must keep them apart
            origin = getattr(self, "headers", None) and self.headers.get("Origin")
            if origin in self.server.cors_origins:
                self.send_header("Access-Control-Allow-Origin", origin)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:  # the client must not send another request on this connection
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":  # a response to HEAD has headers only
            self.wfile.write(data)


__all__ = ["IDLE_TIMEOUT", "MAX_BODY", "Handler", "SessionServer", "is_loopback", "make_server", "serve"]
