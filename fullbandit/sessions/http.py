"""An HTTP interface to a session store, on the standard library only (``fullbandit session serve``).

Endpoints (JSON in and out unless stated):

* ``POST /start`` with the creation parameters (:data:`START_FIELDS`: ``algorithm``, ``n`` or
  ``workers``, the question's ``k``, ``threshold`` or ``groups`` and ``at_most``, the algorithm's
  ``parameters`` by name, ``reward_range``, ``seed``) -> ``{"ok": true, "store", "algorithm",
  "parameters"}``: creates the store, for a server started on a store that does not exist yet
  (``make_server(..., new=True)``, ``fullbandit session serve STORE --new``), exactly as
  :meth:`Session.start` does: any registered algorithm, every parameter its class declares
  settable, each left to the class's default when not given, and one it does not take refused
  naming those it takes (400); a store that exists already -> 409;
* ``POST /next`` with ``{"count": n}`` (``count`` defaults to 1) -> ``{"pulls": [{"pull", "arms",
  "workers", "count"}, ...]}``;
* ``POST /record`` with ``{"pull": id, "reward": r}`` (``r`` a number, or one per member for semi
  feedback) -> ``{"ok": true, "pull": id}``;
* ``GET /status`` -> :meth:`Session.status`; ``GET /export`` -> the observations as CSV;
* ``GET /`` -> an HTML page with the status and an inline SVG plot of the stopping statistic
  (``gap_bound``) against epsilon over the observations; ``GET /plot.svg`` -> that plot alone.

Every request opens the store afresh through :class:`Session` (its writes take SQLite's
write lock), so several server threads and command-line processes can share one store.
The page and the plot replay the whole journal (every stopping check is a point), so the
server keeps them (:class:`PageCache`) keyed on the journal's last event, its ``seq`` and
digest (which chains every event before it): while no observation or pull is added, from
this server or any other process, a page load reads those two values and nothing else.
A refused request gets a 4xx status and ``{"error": message}`` and changes nothing:
a malformed body, a missing or mistyped field -> 400; a method the endpoint does not take
-> 405 with an ``Allow`` header; a pull never handed out or already recorded -> 409; a
damaged store -> 500 with the store's message.

Connections are HTTP/1.1 keep-alive: a body is framed by ``Content-Length`` or
``Transfer-Encoding: chunked`` (decoded), every request gets exactly one response, in order
(pipelined requests included), and a request whose framing cannot be trusted (a bad
length, a malformed chunk, a body too large or cut short) is answered and its connection
closed, the response saying ``Connection: close``. An idle connection is closed after
:data:`IDLE_TIMEOUT` seconds.

The server binds to ``127.0.0.1`` by default; any other host requires a token, and when a
token is set every request must carry ``Authorization: Bearer TOKEN`` (401 otherwise).

Examples
--------
>>> import json, tempfile, threading, pathlib, urllib.request
>>> from fullbandit.sessions import Session
>>> from fullbandit.sessions.http import make_server
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
>>> post("/record", {"pull": pull["pull"], "reward": 1.2})["ok"]
True
>>> with urllib.request.urlopen(url + "/status", timeout=10) as response:
...     json.load(response)["pulls"]
1
>>> server.shutdown(); server.server_close()
"""

from __future__ import annotations

import hmac
import html
import io
import ipaddress
import json
import math
import numbers
import re
import sqlite3
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fullbandit.core.algorithm import ProtocolError
from fullbandit.sessions import store as store_module
from fullbandit.sessions.session import Session, apply_event, build_algorithm
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError

#: The largest request body read, in bytes (a body is a few numbers).
MAX_BODY = 1 << 20
#: The longest chunk-size or trailer line of a chunked body, and the most trailer lines.
MAX_LINE = 1024
MAX_TRAILERS = 64
#: Seconds a connection may stay silent (between requests, or within one) before it is closed.
IDLE_TIMEOUT = 30
#: The fields of ``POST /start``: :meth:`Session.start`'s arguments (``parameters``: the algorithm's, by name).
START_FIELDS = ("algorithm", "n", "workers", "k", "threshold", "groups", "at_most", "parameters", "reward_range",
                "seed")
#: The endpoints and the method each takes.
ROUTES = {"/start": "POST", "/next": "POST", "/record": "POST", "/status": "GET", "/export": "GET", "/": "GET",
          "/plot.svg": "GET"}
#: The most points drawn in the plot (the checks are thinned evenly beyond this).
MAX_POINTS = 500


class BadRequest(Exception):
    """A refused request: ``status``, a message naming the problem, and extra response ``headers``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


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


class SessionServer(ThreadingHTTPServer):
    """A threading HTTP server over the session store ``store`` (see :func:`make_server`)."""

    daemon_threads = True

    def __init__(self, address, store: Path, token: str | None, quiet: bool, new: bool = False):
        self.store = store
        self.new = new
        self.starting = threading.Lock()  # one POST /start at a time: the second finds the store
        self.token = token
        self.quiet = quiet
        self.pages = PageCache(store)
        super().__init__(address, Handler)


def make_server(store, host: str = "127.0.0.1", port: int = 8765, token: str | None = None, *,
                quiet: bool = True, new: bool = False) -> SessionServer:
    """A server bound to ``host:port`` (``port=0``: any free port) for the existing store ``store``.

    ``new=True``: ``store`` does not exist yet (refused if it does), and ``POST /start``
    creates it; until then every other endpoint answers 409.

    Refuses (:class:`InvalidParameterError`) a host other than a loopback address without a
    ``token``, an empty token, and a store that cannot be opened (:class:`StateError`).
    """
    path = Path(store)
    if token is not None and not token.strip():
        raise InvalidParameterError("--token must not be empty")
    if not is_loopback(host) and token is None:
        raise InvalidParameterError(f"--host {host} is not a loopback address: serving beyond this machine "
                                    "requires a token (--token TOKEN or FULLBANDIT_TOKEN)")
    if new:
        if path.exists():
            raise InvalidParameterError(f"{path} exists already: serve it without --new, or choose a new path")
    else:
        Session.open(path).close()  # refuse a missing or damaged store before listening
    try:
        return SessionServer((host, port), path, token, quiet, new)
    except (OSError, OverflowError) as error:  # OverflowError: a port outside 0..65535
        raise InvalidParameterError(f"cannot listen on {host}:{port}: {getattr(error, 'strerror', None) or error}") \
            from None


def serve(store, host: str = "127.0.0.1", port: int = 8765, token: str | None = None, *, new: bool = False) -> None:
    """Serve the store until interrupted (Ctrl-C); ``new``: a store ``POST /start`` creates (:func:`make_server`)."""
    server = make_server(store, host, port, token, quiet=False, new=new)
    try:
        shown = f"[{host}]" if ":" in host else host
        print(f"serving {store} on http://{shown}:{server.server_address[1]}/ (Ctrl-C to stop)", flush=True)
        server.serve_forever()
    finally:
        server.server_close()


# --- request handling ---------------------------------------------------------------------
def _refuse_constant(name: str):
    raise ValueError(f"{name} is not allowed (rewards must be finite)")


def _parse_body(raw: bytes) -> dict:
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise BadRequest(400, "the body is not UTF-8 text") from None
    except ValueError as error:
        raise BadRequest(400, f"the body is not valid JSON: {error}") from None
    if not isinstance(body, dict):
        raise BadRequest(400, f"the body must be a JSON object, not {type(body).__name__}")
    return body


def _check_fields(body: dict, required: set[str], optional: set[str] | None = None) -> None:
    missing = sorted(required - body.keys())
    if missing:
        raise BadRequest(400, f"missing field(s): {', '.join(missing)}")
    unknown = sorted(body.keys() - required - (optional or set()))
    if unknown:
        raise BadRequest(400, f"unknown field(s): {', '.join(unknown)}")


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _integer(body: dict, name: str) -> int:
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(400, f"{name}={value!r} must be an integer")
    return value


def _reward(value):
    if _is_number(value):
        rewards = [value]
    elif isinstance(value, list) and value and all(_is_number(item) for item in value):
        rewards = value
    else:
        raise BadRequest(400, f"reward={value!r} must be a number (or a list of numbers for semi feedback)")
    if not all(math.isfinite(item) for item in rewards):
        raise BadRequest(400, f"reward={value!r} must be finite")
    return value


def start_session(store: Path, body: dict) -> dict:
    """``POST /start``: create the session store ``store`` from a JSON ``body`` (:data:`START_FIELDS`).

    The body's values are JSON, so they need no reading: :meth:`Session.start` checks each
    against the chosen algorithm's declarations, before the file exists. Returns the answer:
    the store, the algorithm's registry name and the parameters given.
    """
    _check_fields(body, {"algorithm"}, set(START_FIELDS))
    arguments = {name: body[name] for name in START_FIELDS if name in body}
    if not isinstance(arguments["algorithm"], str):
        raise BadRequest(400, f"algorithm={arguments['algorithm']!r} must be a string, a registered algorithm's name")
    if "parameters" in arguments and not isinstance(arguments["parameters"], dict):
        raise BadRequest(400, f"parameters must be a JSON object of the algorithm's parameters by name, got "
                              f"{arguments['parameters']!r}")
    if store.exists():
        raise ProtocolError(f"session store {store} exists already: it was started; see GET /status")
    with Session.start(store, **arguments) as session:
        return {"ok": True, "store": str(store), "algorithm": session.created["algorithm"],
                "parameters": session.created["parameters"]}


class Handler(BaseHTTPRequestHandler):
    """One request: authorise, route, answer JSON (or CSV, HTML, SVG)."""

    server: SessionServer
    server_version = "fullbandit-session"
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT  # a silent client must not hold a server thread forever

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if not self.server.quiet:
            super().log_message(format, *args)

    def _dispatch(self) -> None:
        self._handle(self.command)

    # Every standard method is routed, so that a method an endpoint does not take gets 405 and
    # Allow; an unknown method gets the base class's 501, in JSON (send_error).
    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_TRACE = do_CONNECT = _dispatch

    def _handle(self, method: str) -> None:
        try:
            body = self._read_body()
            self._authorise()
            route = self.path.split("?", 1)[0]
            if route not in ROUTES:
                raise BadRequest(404, f"no such endpoint {route!r}; try {', '.join(sorted(ROUTES))}")
            if ROUTES[route] != method:
                raise BadRequest(405, f"{route} takes {ROUTES[route]}, not {method}", {"Allow": ROUTES[route]})
            self._route(route, body)
        except BadRequest as error:
            self._json(error.status, {"error": str(error)}, error.headers)
        except StateError as error:  # before InvalidParameterError: a subclass
            self._json(500, {"error": str(error)})
        except ProtocolError as error:
            self._json(409, {"error": str(error)})
        except (InvalidParameterError, TypeError) as error:
            self._json(400, {"error": str(error)})
        except Exception as error:  # noqa: BLE001 - a request must not kill the server
            self._json(500, {"error": f"internal error: {type(error).__name__}: {error}"})

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's refusals (a malformed request line or header, an unknown method) in JSON."""
        self.close_connection = True  # the request was not understood: where the next one starts is unknown
        self._json(code, {"error": message or HTTPStatus(code).phrase})

    # --- the request body ------------------------------------------------------------------
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

    def _authorise(self) -> None:
        token = self.server.token
        if token is None:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
            raise BadRequest(401, "missing or wrong token: send the header 'Authorization: Bearer TOKEN'")

    def _route(self, route: str, raw: bytes) -> None:
        if route == "/start":
            if not self.server.new:
                raise BadRequest(409, f"this server serves the existing session store {self.server.store}; start a "
                                      "server with --new (a store that does not exist yet) to start one")
            body = _parse_body(raw)
            with self.server.starting:
                answer = start_session(self.server.store, body)
            self._json(200, answer)
            return
        if self.server.new and not self.server.store.exists():
            raise BadRequest(409, f"no session at {self.server.store} yet: POST /start first")
        if route == "/next":
            body = _parse_body(raw)
            _check_fields(body, set(), {"count"})
            count = _integer(body, "count") if "count" in body else 1
            with Session.open(self.server.store) as session:
                pulls = session.next(count)
                workers = session.created["workers"]
            self._json(200, {"pulls": [{"pull": p.id, "arms": list(p.arms), "workers": [workers[i] for i in p.arms],
                                        "count": p.count} for p in pulls]})
        elif route == "/record":
            body = _parse_body(raw)
            _check_fields(body, {"pull", "reward"})
            pull, reward = _integer(body, "pull"), _reward(body["reward"])
            with Session.open(self.server.store) as session:
                session.record(pull, reward)
            self._json(200, {"ok": True, "pull": pull})
        elif route == "/status":
            with Session.open(self.server.store) as session:
                self._json(200, session.status())
        elif route == "/export":
            self._send(200, "text/csv; charset=utf-8", export_text(self.server.store).encode())
        elif route == "/plot.svg":
            self._send(200, "image/svg+xml", self.server.pages.get().svg)
        else:
            self._send(200, "text/html; charset=utf-8", self.server.pages.get().page)

    def _json(self, status: int, value, headers: dict[str, str] | None = None) -> None:
        self._send(status, "application/json", json.dumps(value).encode(), headers)

    def _send(self, status: int, content_type: str, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status, HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else None)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="fullbandit"')
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:  # the client must not send another request on this connection
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":  # a response to HEAD has headers only
            self.wfile.write(data)


# --- export, checks, plot, page ----------------------------------------------------------------
def export_text(store) -> str:
    """The observations of ``store`` as CSV text (:meth:`Session.write_csv`)."""
    text = io.StringIO()
    with Session.open(store) as session:
        session.write_csv(text)
    return text.getvalue()


def checks(session: Session) -> list[tuple[int, float, float]]:
    """``(observations, gap_bound, epsilon)`` of each stopping check the journal's replay made.

    Non-finite statistics are left out; at most :data:`MAX_POINTS`, thinned evenly (the last kept).
    """
    with session.reading() as connection:
        return _replay_checks(session, connection)[1]


def _replay_checks(session: Session, connection: sqlite3.Connection):
    """``(algorithm, points)``: the journal replayed from the start, and the points of :func:`checks`.

    Inside the caller's read transaction (``connection`` from :meth:`Session.reading`).
    """
    path = session.path
    algorithm = build_algorithm(session.created, path)
    points: list[tuple[int, float, float]] = []
    for event in store_module.events(connection, path):
        apply_event(algorithm, event, path)
        check = algorithm.last_check
        if event.is_pull or check is None or not math.isfinite(check.gap_bound):
            continue
        if not points or points[-1][0] != check.pulls:
            points.append((check.pulls, float(check.gap_bound), float(check.epsilon)))
    if len(points) > MAX_POINTS:
        step = len(points) / MAX_POINTS
        points = [points[int(i * step)] for i in range(MAX_POINTS - 1)] + [points[-1]]
    return algorithm, points


@dataclass(frozen=True)
class Page:
    """The status page and the plot of a store, as of the journal's last event ``key = (seq, digest)``."""

    key: tuple[int, str]
    status: dict
    points: list
    page: bytes
    svg: bytes


def journal_key(connection: sqlite3.Connection, path: Path) -> tuple[int, str]:
    """``(seq, digest)`` of the journal's last event (``(0, GENESIS)`` for an empty journal): two indexed reads."""
    seq = store_module.last_seq(connection)
    return seq, store_module.digest_at(connection, path, seq)


class PageCache:
    """The last :class:`Page` built for the store at ``path``, rebuilt only when the journal has grown or changed.

    :meth:`get` reads the journal's last ``seq`` and digest; when they are those of the
    kept page it returns it (no replay, no integrity check: the page shows what the last
    verified rebuild showed). Otherwise it opens the store through :class:`Session`
    (which checks the file and every digest), replays the journal once for both the
    status and the plot, and keeps the result. A store that cannot be read is never
    answered from the cache: the rebuild reports it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "crowd.db"
    >>> session = Session.start(path, algorithm="icb", n=4, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=1)
    >>> cache = PageCache(path)
    >>> first = cache.get()
    >>> cache.get() is first                      # nothing recorded since: the same page
    True
    >>> [pull] = session.next()
    >>> session.record(pull.id, 1.0)
    >>> page = cache.get()
    >>> page is first, page.status["pulls"]
    (False, 1)
    >>> session.close()
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._page: Page | None = None

    def get(self) -> Page:
        key = self._current_key()
        with self._lock:
            page = self._page
        if page is not None and key == page.key:
            return page
        page = self._build()
        with self._lock:  # two threads may rebuild at once; either page is right for its key
            self._page = page
        return page

    def _current_key(self) -> tuple[int, str] | None:
        try:
            connection = store_module.connect(self.path)
        except StateError:
            return None
        try:
            connection.execute("BEGIN")
            try:
                return journal_key(connection, self.path)
            finally:
                connection.execute("ROLLBACK")
        except (sqlite3.DatabaseError, StateError):
            return None  # the rebuild opens the store and says what is wrong with it
        finally:
            connection.close()

    def _build(self) -> Page:
        with Session.open(self.path) as session:
            with session.reading() as connection:  # one read transaction: key, status and plot agree
                key = journal_key(connection, self.path)
                algorithm, points = _replay_checks(session, connection)
                status = session.status_of(algorithm)
        return Page(key, status, points, status_page(status, points).encode(), plot_svg(points).encode())


def plot_svg(points: list[tuple[int, float, float]], width: int = 640, height: int = 320) -> str:
    """An SVG line plot of ``gap_bound`` (log scale) and epsilon against the observations.

    >>> svg = plot_svg([(10, 2.0, 0.1), (20, 0.5, 0.1), (30, 0.08, 0.1)])
    >>> svg.startswith("<svg") and svg.count("<polyline") == 2
    True
    >>> "no stopping check yet" in plot_svg([])
    True
    """
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">')
    if not points:
        return (head + f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no stopping check yet'
                "</text></svg>")
    left, right, top, bottom = 60, 20, 20, 40
    xs = [p[0] for p in points]
    values = [v for p in points for v in p[1:] if v > 0]
    low = math.log10(min(values)) if values else -1.0
    high = math.log10(max(values)) if values else 0.0
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    x0, x1 = min(xs), max(xs)
    span = x1 - x0 or 1

    def x(value: float) -> float:
        return left + (value - x0) / span * (width - left - right)

    def y(value: float) -> float:
        value = max(value, 10 ** low)  # a bound of 0 (or below) is drawn on the floor
        return top + (high - math.log10(value)) / (high - low) * (height - top - bottom)

    def line(index: int, colour: str, dash: str = "") -> str:
        coords = " ".join(f"{x(p[0]):.1f},{y(p[index]):.1f}" for p in points)
        return f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{coords}"/>'

    parts = [head, f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
             'fill="none" stroke="#999"/>']
    for exponent in range(math.floor(low), math.ceil(high) + 1):
        if low <= exponent <= high:
            parts.append(f'<text x="{left - 6}" y="{y(10 ** exponent) + 4:.1f}" text-anchor="end">1e{exponent}</text>')
    parts += [f'<text x="{left}" y="{height - 20}">{x0}</text>',
              f'<text x="{width - right}" y="{height - 20}" text-anchor="end">{x1}</text>',
              f'<text x="{(left + width - right) / 2}" y="{height - 5}" text-anchor="middle">observations</text>',
              line(1, "#1f77b4"), line(2, "#d62728", ' stroke-dasharray="6 4"'),
              f'<text x="{left + 8}" y="{top + 14}" fill="#1f77b4">gap_bound</text>',
              f'<text x="{left + 90}" y="{top + 14}" fill="#d62728">epsilon</text>', "</svg>"]
    return "".join(parts)


def status_page(status: dict, points: list[tuple[int, float, float]]) -> str:
    """The HTML status page: the status as a table and the plot (every value escaped)."""
    rows = "".join(f"<tr><th>{html.escape(str(key))}</th><td>{html.escape(json.dumps(value))}</td></tr>"
                   for key, value in status.items())
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>fullbandit session</title></head><body>"
            f"<h1>fullbandit session</h1><table>{rows}</table>"
            f"<h2>Stopping statistic against epsilon</h2>{plot_svg(points)}</body></html>")

