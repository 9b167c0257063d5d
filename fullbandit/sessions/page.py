"""The status page of a live session and its plot: what a campaign owner keeps open in a browser.

* :class:`CheckTrail`: every stopping check of the run, ``(pulls, gap_bound, epsilon)``, kept up
  to date *incrementally* from the store's journal. The journal holds the asks and tells, not
  the checks, so the trail replays the journal once (the first time it is asked) on an
  algorithm of its own, and afterwards applies only the events appended since, whoever wrote
  them (this server or another process). A trail that nobody looks at costs nothing.
* :func:`plot_svg`: the gap bound (log scale) against epsilon over the pulls, as SVG.
* :func:`status_page`: the HTML page: styled inline (no external assets), readable values
  (``"not yet"``, ``"∞"``, never raw JSON), and a small inline script that fetches ``status``
  and ``plot.svg`` beside the page every :data:`REFRESH_SECONDS` and updates the numbers and
  the plot. The script finds those endpoints from the page's own address, so the page works
  under ``/`` and under ``/campaigns/{name}/`` alike; it marks the document
  ``data-rendered="ok"`` after each refresh that succeeded and sets ``data-error`` (with the
  message) when one failed.
* :class:`PageCache`: the page and plot bytes of one store, rebuilt only when the journal's
  last event (its ``seq`` and digest, which chains every event before it) moved.

The stopping statistic is the one each algorithm states (e.g. Kuroki et al., 2020, the gap
bound of the empirical best team against epsilon); the page only draws it.

Examples
--------
>>> svg = plot_svg([(10, 2.0, 0.1), (20, 0.5, 0.1), (30, 0.08, 0.1)])
>>> svg.startswith("<svg") and svg.count("<polyline") == 2 and ">pulls</text>" in svg
True
>>> readable(None), readable("inf"), readable(1234567), readable(0.000123456)
('not yet', '∞', '1,234,567', '0.0001235')
"""

from __future__ import annotations

import html
import json
import math
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.sessions import store as store_module
from fullbandit.sessions.replay import apply_event, build_algorithm
from fullbandit.sessions.session import Session

#: The most points drawn in the plot (the checks are thinned evenly beyond this, the last kept).
MAX_POINTS = 500
#: Seconds between two refreshes of the open page.
REFRESH_SECONDS = 5
#: The page waits for the plot's first replay up to this many journal events (beyond: the plot comes later).
WAIT_EVENTS = 5_000


def journal_key(connection: sqlite3.Connection, path: Path) -> tuple[int, str]:
    """``(seq, digest)`` of the journal's last event (the meta row's digest for an empty journal): two indexed reads."""
    seq = store_module.last_seq(connection)
    return seq, store_module.digest_at(connection, path, seq)


class CheckTrail:
    """The stopping checks of the run in the store of ``session``, brought up to date on demand.

    :meth:`points` reads the journal's last ``seq`` and digest in one read transaction of
    ``session``; when the trail's own algorithm has seen events up to an event the journal
    still holds with the same digest, only the events after it are read (digests checked) and
    applied; otherwise (first use, or a journal that was replaced) the journal is replayed from
    its start. Thread-safe: one update at a time.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "crowd.db"
    >>> session = Session.start(path, algorithm="icb", n=4, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=1)
    >>> trail = CheckTrail(session)
    >>> trail.points()[1]                      # no stopping check yet
    []
    >>> for _ in range(12):
    ...     [pull] = session.next()
    ...     _ = session.record(pull.id, 1.0)
    >>> key, points = trail.points()
    >>> key[0], [pulls for pulls, _, _ in points][:2]       # 24 journal events; checks after pull 6 and 12
    (24, [6, 12])
    >>> session.close()
    """

    def __init__(self, session: Session):
        self.session = session
        self._lock = threading.Lock()
        self._algorithm: Algorithm | None = None
        self._key: tuple[int, str] = (-1, "")
        self._points: list[tuple[int, float, float]] = []
        self._seen: StoppingCheck | None = None
        self._background: threading.Thread | None = None

    @property
    def built(self) -> bool:
        """Whether the journal was replayed once already (later updates apply only the new events)."""
        return self._algorithm is not None

    def key(self) -> tuple[int, str]:
        """The journal's last ``(seq, digest)`` now (two indexed reads)."""
        with self.session.reading() as connection:
            return journal_key(connection, self.session.path)

    def build_in_background(self) -> None:
        """Start the first replay in a thread of its own (once), so that nobody waits for it but the plot."""
        with self._lock:
            if self._background is not None or self._algorithm is not None:
                return
            self._background = threading.Thread(target=self._build_quietly, name="check trail", daemon=True)
            self._background.start()

    def _build_quietly(self) -> None:
        try:
            self.points()
        except Exception:  # noqa: BLE001 - the next plot request replays again and answers the error
            pass
        finally:
            self._background = None

    def points(self) -> tuple[tuple[int, str], list[tuple[int, float, float]]]:
        """``(key, points)``: the journal's last ``(seq, digest)`` and the checks up to it (:func:`thinned`)."""
        with self._lock:
            try:
                self._advance()
            except BaseException:
                self._algorithm = None  # half-applied: rebuilt from the journal's start next time
                raise
            return self._key, thinned(self._points)

    def _advance(self) -> None:
        session, path = self.session, self.session.path
        with session.reading() as connection:  # key and events from one state of the journal
            key = journal_key(connection, path)
            if self._algorithm is not None and key == self._key:
                return
            seq, digest = self._key
            if self._algorithm is None or seq > key[0] or store_module.digest_at(connection, path, seq) != digest:
                self._algorithm, self._points, self._seen, seq = build_algorithm(session.created, path), [], None, 0
            events = store_module.events(connection, path, seq)
        algorithm = self._algorithm
        for event in events:  # outside the read transaction: the session's other callers go on meanwhile
            apply_event(algorithm, event, path)
            check = algorithm.last_check
            if check is None or check is self._seen:
                continue
            self._seen = check
            if math.isfinite(check.gap_bound) and (not self._points or self._points[-1][0] != check.pulls):
                self._points.append((int(check.pulls), float(check.gap_bound), float(check.epsilon)))
        self._key = key


def thinned(points: list[tuple[int, float, float]], most: int = MAX_POINTS) -> list[tuple[int, float, float]]:
    """At most ``most`` of ``points``, evenly spread, the last one kept.

    >>> [p[0] for p in thinned([(i, 1.0, 0.1) for i in range(10)], most=4)]
    [0, 3, 6, 9]
    """
    if len(points) <= most:
        return list(points)
    step = (len(points) - 1) / (most - 1)
    return [points[round(i * step)] for i in range(most)]


# --- readable values ----------------------------------------------------------------------------------------------
def readable(value, digits: int = 4) -> str:
    """A status value as a person reads it: ``None`` -> "not yet", ``"inf"`` -> "∞", numbers grouped or rounded."""
    if value is None:
        return "not yet"
    if isinstance(value, str):
        return {"inf": "∞", "-inf": "-∞", "nan": "not a number"}.get(value, value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if value == int(value) and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:.{digits}g}"
    if isinstance(value, list | tuple):
        return ", ".join(readable(item, digits) for item in value) or "none"
    return str(value)


# --- the plot -----------------------------------------------------------------------------------------------------
def _nice_step(span: float, most: int) -> float:
    """The smallest of 1, 2, 5 times a power of ten that cuts ``span`` into at most ``most`` steps."""
    raw = span / max(most, 1)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _log_ticks(low: float, high: float) -> list[float]:
    """Tick values (not logarithms) inside ``[10**low, 10**high]``: whole decades, or 1-2-5 steps within few decades."""
    decades = range(math.floor(low), math.ceil(high) + 1)
    mantissas = (1,) if high - low >= 2 else (1, 2, 5)
    ticks = [m * 10.0 ** e for e in decades for m in mantissas if low <= math.log10(m * 10.0 ** e) <= high]
    if len(ticks) < 2:  # less than a 1-2-5 step: two values at the ends, rounded
        ticks = [float(f"{10 ** (low + (high - low) * 0.1):.2g}"), float(f"{10 ** (high - (high - low) * 0.1):.2g}")]
    return ticks


def _tick_label(value: float) -> str:
    if 1e-3 <= value < 1e5:
        return f"{value:g}"
    return f"1e{round(math.log10(value))}" if math.isclose(value, 10 ** round(math.log10(value))) else f"{value:.0e}"


def plot_svg(points: list[tuple[int, float, float]], width: int = 720, height: int = 340) -> str:
    """An SVG plot of the gap bound (log scale) and epsilon against the pulls, from ``(pulls, gap_bound, epsilon)``.

    One set of y tick labels on the left with the axis title ("gap bound (log scale)"), x
    ticks under the data with the title "pulls", the legend above the data area (never over
    the curves), and the y range padded so that neither line runs along the frame.

    >>> "no stopping check yet" in plot_svg([])
    True
    """
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="gap bound against epsilon over the pulls" '
            'font-family="system-ui, sans-serif" font-size="12" fill="#333">')
    if not points:
        return (head + f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="#777">'
                "no stopping check yet</text></svg>")
    left, right, top, bottom = 74, 18, 44, 46  # the legend sits in the top margin, the x ticks in the bottom one
    xs = [p[0] for p in points]
    logs = [math.log10(v) for p in points for v in p[1:] if v > 0]
    low, high = (min(logs), max(logs)) if logs else (-1.0, 0.0)
    pad = max((high - low) * 0.08, 0.05)  # at least an eighth of a decade above and below: no line on the frame
    low, high = low - pad, high + pad
    x0, x1 = min(xs), max(xs)
    if x0 == x1:
        x0, x1 = x0 - 1, x1 + 1
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(value: float) -> float:
        return left + (value - x0) / (x1 - x0) * plot_w

    def y(value: float) -> float:
        value = max(value, 10 ** low)  # a bound of 0 (or below) is drawn on the floor
        return top + (high - math.log10(value)) / (high - low) * plot_h

    def line(index: int, css: str, colour: str, dash: str = "") -> str:
        coords = " ".join(f"{x(p[0]):.1f},{y(p[index]):.1f}" for p in points)
        return (f'<polyline class="{css}" fill="none" stroke="{colour}" stroke-width="2"{dash} '
                f'stroke-linejoin="round" points="{coords}"/>')

    parts = [head, f'<rect class="frame" x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fff" '
             'stroke="#bbb"/>', '<g class="yticks" text-anchor="end">']
    for tick in _log_ticks(low, high):
        ty = y(tick)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#eee"/>'
                     f'<text x="{left - 6}" y="{ty + 4:.1f}">{_tick_label(tick)}</text>')
    parts.append('</g><g class="xticks" text-anchor="middle">')
    step = _nice_step(x1 - x0, 6)
    tick = math.ceil(x0 / step) * step
    while tick <= x1:
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top + plot_h}" y2="{top + plot_h + 4}" '
                     f'stroke="#999"/><text x="{x(tick):.1f}" y="{top + plot_h + 17}">{int(tick):,}</text>')
        tick += step
    middle_y = top + plot_h / 2
    parts += ["</g>",
              f'<text class="xtitle" x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">pulls</text>',
              f'<text class="ytitle" x="16" y="{middle_y}" text-anchor="middle" '
              f'transform="rotate(-90 16 {middle_y})">gap bound (log scale)</text>',
              line(2, "epsilon", "#d62728", ' stroke-dasharray="6 4"'), line(1, "gap", "#1f77b4"),
              f'<g class="legend" transform="translate({left},{top - 26})">'
              '<line x1="0" x2="22" y1="8" y2="8" stroke="#1f77b4" stroke-width="2"/>'
              '<text x="28" y="12">gap bound</text>'
              '<line x1="118" x2="140" y1="8" y2="8" stroke="#d62728" stroke-width="2" stroke-dasharray="6 4"/>'
              '<text x="146" y="12">epsilon (stop at or below)</text></g>', "</svg>"]
    return "".join(parts)


# --- the page -----------------------------------------------------------------------------------------------------
_STYLE = """
:root{color-scheme:light;--ink:#1d2430;--muted:#5b6575;--line:#dde2ea;--card:#fff;--bg:#f4f6f9;--accent:#1f77b4}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header{background:#1d2430;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:21px;font-weight:600}
header p{margin:4px 0 0;color:#c4ccd8;font-size:13px}
main{max-width:1100px;margin:0 auto;padding:20px 28px 40px}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:12px;font-weight:600;
background:#2e7d32;color:#fff}
.badge.stopped{background:#6a1b9a}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin-bottom:18px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.card .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .value{font-size:24px;font-weight:600;margin-top:2px;font-variant-numeric:tabular-nums}
.card .note{color:var(--muted);font-size:12px}
section.panel{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;
margin-bottom:18px}
section.panel h2{margin:0 0 10px;font-size:16px}
ul.team{margin:0;padding-left:22px;columns:3 180px}
ul.team li{padding:2px 0;font-weight:500}
#plot svg{width:100%;height:auto;max-width:760px}
#plot .note{color:var(--muted)}
table.details{border-collapse:collapse;font-size:13px}
table.details th{text-align:left;color:var(--muted);font-weight:500;padding:3px 18px 3px 0}
table.details td{padding:3px 0;font-variant-numeric:tabular-nums}
footer{color:var(--muted);font-size:12px}
.error{color:#b71c1c}
"""

#: The page's script: every few seconds, ``status`` and (when the journal moved) ``plot.svg`` beside the page.
_SCRIPT = """
(function () {
  "use strict";
  var root = document.documentElement;
  var base = location.pathname.replace(/\\/+$/, "");
  var shown = null;
  function readable(value) {
    if (value === null || value === undefined) return "not yet";
    if (typeof value === "string") return value === "inf" ? "\\u221e" : value === "-inf" ? "-\\u221e" : value;
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "number") {
      if (Number.isInteger(value) && Math.abs(value) < 1e15) return value.toLocaleString("en-US");
      return String(Number(value.toPrecision(4)));
    }
    if (Array.isArray(value)) return value.length ? value.map(readable).join(", ") : "none";
    return String(value);
  }
  function set(name, text) {
    var nodes = document.querySelectorAll('[data-field="' + name + '"]');
    for (var i = 0; i < nodes.length; i++) nodes[i].textContent = text;
  }
  function render(status) {
    var fields = FIELDS;
    for (var i = 0; i < fields.length; i++) set(fields[i], readable(status[fields[i]]));
    set("stop_reason", status.done ? "stopped: " + status.stop_reason : "running");
    var badge = document.getElementById("state");
    badge.className = status.done ? "badge stopped" : "badge";
    var team = document.getElementById("team");
    team.textContent = "";
    var names = status.best_workers || [];
    var shownNames = names.length ? names : ["not yet"];
    for (var j = 0; j < shownNames.length; j++) {
      var item = document.createElement("li");
      item.textContent = shownNames[j];
      team.appendChild(item);
    }
    set("updated", new Date().toLocaleTimeString());
  }
  function refresh() {
    fetch(base + "/status", {cache: "no-store"}).then(function (response) {
      if (!response.ok) throw new Error("GET " + base + "/status answered " + response.status);
      return response.json();
    }).then(function (status) {
      render(status);
      var moved = [status.pulls, status.outstanding, status.abandoned].join("/");
      if (moved === shown) return null;
      return fetch(base + "/plot.svg", {cache: "no-store"}).then(function (response) {
        if (!response.ok) throw new Error("GET " + base + "/plot.svg answered " + response.status);
        return response.text();
      }).then(function (svg) { document.getElementById("plot").innerHTML = svg; shown = moved; });
    }).then(function () {
      root.setAttribute("data-rendered", "ok");
      root.removeAttribute("data-error");
      set("problem", "");
    }).catch(function (error) {
      root.setAttribute("data-error", String(error && error.message || error));
      set("problem", "could not refresh: " + String(error && error.message || error));
    }).then(function () { setTimeout(refresh, REFRESH_MS); });
  }
  window.addEventListener("error", function (event) { root.setAttribute("data-error", String(event.message)); });
  refresh();
})();
"""

#: The status fields the page shows by name (each in the elements marked ``data-field="name"``).
FIELDS = ("algorithm", "pulls", "outstanding", "abandoned", "pulls_needed", "budget_left", "gap_bound", "epsilon",
          "bound_pulls", "prior_observations")


def status_page(status: dict, points: list[tuple[int, float, float]] | None, title: str, *,
                pending: int | None = None) -> str:
    """The HTML status page of a session: ``status`` (:meth:`Session.status`) and its ``points``, every value escaped.

    ``title`` names the campaign. The numbers and the plot are those of the status given;
    the inline script refreshes them from the server every :data:`REFRESH_SECONDS`.
    ``points=None``: the plot is being prepared (``pending``: the events being replayed for it).

    >>> page = status_page({"pulls": 3, "gap_bound": "inf", "best_workers": ["ada", "bo"], "done": False}, [], "c")
    >>> "<li>ada</li>" in page and "∞" in page and ">null<" not in page
    True
    """
    def field(name: str) -> str:
        return f'<span data-field="{name}">{html.escape(readable(status.get(name)))}</span>'

    def card(label: str, name: str, note: str = "", hidden: bool = False) -> str:
        style = ' style="display:none"' if hidden else ""
        return (f'<div class="card" id="card-{name}"{style}><div class="label">{html.escape(label)}</div>'
                f'<div class="value">{field(name)}</div><div class="note">{note}</div></div>')

    done = bool(status.get("done"))
    names = status.get("best_workers") or []
    team = "".join(f"<li>{html.escape(str(name))}</li>" for name in names) or "<li>not yet</li>"
    fixed_budget = status.get("budget_left") is not None
    cards = "".join([
        card("Pulls recorded", "pulls"),
        card("Outstanding", "outstanding", "handed out, no reward yet"),
        card("Abandoned", "abandoned", "given back; their teams are handed out again"),
        card("Budget left", "budget_left", "fixed-budget: the run ends when it is spent") if fixed_budget else
        card("Pulls still needed", "pulls_needed", "an estimate: the gap bound taken to shrink like 1/&radic;pulls"),
        card("Gap bound", "gap_bound", f"against &epsilon; = {field('epsilon')}: the campaign stops at or below it; "
             f"from the first {field('bound_pulls')} recorded pulls (the last stopping check)"),
    ])
    state = "stopped: " + str(status.get("stop_reason")) if done else "running"
    plot = plot_svg(points) if points is not None else (
        f'<p class="note">The plot is being prepared: the journal\'s {readable(pending)} events are replayed once '
        "for it (the numbers above are current).</p>")
    script = (_SCRIPT.replace("FIELDS", json.dumps(FIELDS)).replace("REFRESH_MS", str(REFRESH_SECONDS * 1000)))
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}: fullbandit campaign</title><style>{_STYLE}</style></head><body>"
            f"<header><h1>Campaign {html.escape(title)}</h1><p>{field('algorithm')} &middot; "
            f"<span id=\"state\" class=\"badge{' stopped' if done else ''}\"><span data-field=\"stop_reason\">"
            f"{html.escape(state)}</span></span> &middot; updated <span data-field=\"updated\">at load</span> "
            f"<span class=\"error\" data-field=\"problem\"></span></p></header><main>"
            f"<div class=\"cards\">{cards}</div>"
            f"<section class=\"panel\"><h2>Best team so far</h2><ul class=\"team\" id=\"team\">{team}</ul></section>"
            f"<section class=\"panel\"><h2>Gap bound against &epsilon; over the pulls</h2>"
            f"<div id=\"plot\">{plot}</div></section>"
            f"<section class=\"panel\"><h2>Details</h2><table class=\"details\">"
            f"<tr><th>algorithm</th><td>{field('algorithm')}</td></tr>"
            f"<tr><th>prior observations</th><td>{field('prior_observations')}</td></tr>"
            f"<tr><th>store</th><td>{html.escape(str(status.get('store', '')))}</td></tr></table></section>"
            f"<footer>Refreshed every {REFRESH_SECONDS} s from <code>status</code> and <code>plot.svg</code>; "
            "values are those of the session's journal.</footer>"
            f"</main><script>{script}</script></body></html>")


@dataclass(frozen=True)
class Page:
    """The status page and the plot of a store, as of the journal's last event ``key = (seq, digest)``.

    ``plotted``: the page holds the plot (else it says the plot is being prepared, and ``svg`` is empty).
    """

    key: tuple[int, str]
    status: dict
    page: bytes
    svg: bytes
    plotted: bool = True


class PageCache:
    """The :class:`Page` of the session kept open by a server, rebuilt only when its journal moved.

    :meth:`get` brings the :class:`CheckTrail` up to date (two indexed reads when nothing
    moved) and rebuilds the page and the plot only when the journal's last ``(seq, digest)``
    differs from the kept page's. No store is ever reopened: the session stays open.

    The trail's first replay costs what opening the store costs (seconds for a long journal),
    so ``get(wait=False)`` (the page) does not wait for it when the journal holds more than
    :data:`WAIT_EVENTS` events: the replay runs in the background and the page says the plot
    is being prepared; its script then fetches ``plot.svg``, which waits.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "crowd.db"
    >>> session = Session.start(path, algorithm="icb", n=4, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=1)
    >>> cache = PageCache(session, "crowd")
    >>> first = cache.get()
    >>> cache.get() is first                      # nothing recorded since: the same page
    True
    >>> [pull] = session.next()
    >>> _ = session.record(pull.id, 1.0)
    >>> page = cache.get()
    >>> page is first, page.status["pulls"]
    (False, 1)
    >>> session.close()
    """

    def __init__(self, session: Session, title: str, status: Callable[[], dict] | None = None):
        self.session = session
        self.title = title
        self.trail = CheckTrail(session)
        self._status = status or session.status
        self._lock = threading.Lock()  # guards _page only: a page is never built while holding it
        self._page: Page | None = None

    def get(self, wait: bool = True) -> Page:
        """The page and plot of the journal as it is now; ``wait=False``: see the class."""
        if not wait and not self.trail.built:
            key = self.trail.key()
            if key[0] > WAIT_EVENTS:
                self.trail.build_in_background()
                return self._kept(key, plotted=False) or self._keep(key, None)
        key, points = self.trail.points()
        return self._kept(key, plotted=True) or self._keep(key, points)

    def _kept(self, key: tuple[int, str], plotted: bool) -> Page | None:
        with self._lock:
            page = self._page
        return page if page is not None and page.key == key and page.plotted == plotted else None

    def _keep(self, key: tuple[int, str], points: list[tuple[int, float, float]] | None) -> Page:
        status = self._status()
        pending = None if points is not None else key[0]
        page = Page(key, status, status_page(status, points, self.title, pending=pending).encode(),
                    b"" if points is None else plot_svg(points).encode(), points is not None)
        with self._lock:  # two threads may build the page of one key at once: either is right
            self._page = page
        return page
