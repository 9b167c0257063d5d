"""The endpoints of the session service, as one table: the router and the OpenAPI description both read it.

Each :class:`Endpoint` holds its route, method, handler, the JSON Schema of its request body
and of its answer, an example request and the refusals it may answer. The router
(:mod:`fullbandit.sessions.http`) matches a path against :func:`route_table`, and the OpenAPI
document (:mod:`fullbandit.sessions.openapi`) is generated from the same table, so that a
route cannot be served without being described, nor described without being served.

A campaign's endpoint is served at ``/campaigns/{name}`` followed by its route (the page at
``/campaigns/{name}/``), and at the bare route too when the server serves exactly one store.

Request bodies are JSON objects, read by the checks below (which name the field and what it
must be); a refused request changes nothing.

Examples
--------
>>> sorted(route_table(bare=True))[:4]
['/', '/abandon', '/campaigns', '/campaigns/{name}/']
>>> [endpoint.method for endpoint in route_table(bare=False)["/campaigns/{name}/record"].values()]
['POST']
"""

from __future__ import annotations

import io
import json
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fullbandit.core.algorithm import WaitingForRewards
from fullbandit.sessions.campaigns import NAME_PATTERN, NAME_RULE, Campaign, Campaigns
from fullbandit.sessions.openapi import describe
from fullbandit.sessions.session import MAX_COUNT, RecordConflict

#: The fields of ``POST /start``: :meth:`Session.start`'s arguments (``parameters``: the algorithm's, by name).
START_FIELDS = ("algorithm", "n", "workers", "k", "threshold", "groups", "at_most", "parameters", "reward_range",
                "seed")
#: The path prefix of a campaign's endpoints.
CAMPAIGNS = "/campaigns"


class BadRequest(Exception):
    """A refused request: ``status``, a message naming the problem, extra response ``headers`` and answer fields."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}
        self.extra = extra


@dataclass(frozen=True)
class Reply:
    """An answer: status, content type, body bytes, extra headers."""

    status: int
    content_type: str
    data: bytes
    headers: dict[str, str] = field(default_factory=dict)


def json_reply(value: Any, status: int = 200) -> Reply:
    return Reply(status, "application/json", json.dumps(value).encode())


@dataclass(frozen=True)
class Call:
    """What a handler is given: the server's ``campaigns``, the campaign ``name`` the path names (``None`` for
    a server endpoint), the raw ``body``, and whether a token guards the server (``secured``)."""

    campaigns: Campaigns
    name: str | None
    body: bytes
    secured: bool = False

    @property
    def campaign(self) -> Campaign:
        assert self.name is not None, "a server endpoint has no campaign"
        return self.campaigns.get(self.name)


@dataclass(frozen=True)
class Endpoint:
    """One endpoint: ``route`` (bare: ``"/next"``), ``method``, whether it belongs to a ``campaign`` (or to the
    server), ``summary``, ``handler``, the JSON Schemas of its ``request`` body and of its JSON ``answer``, the
    ``media`` type of its answer, an ``example`` request body, and the ``refusals`` ``(status, when)`` it answers."""

    route: str
    method: str
    campaign: bool
    summary: str
    handler: Callable[[Call], Reply]
    request: dict | None = None
    answer: dict | None = None
    media: str = "application/json"
    example: dict | None = None
    refusals: tuple[tuple[int, str], ...] = ()


# --- reading a body -----------------------------------------------------------------------------------------------
def _refuse_constant(name: str):
    raise ValueError(f"{name} is not allowed (rewards must be finite)")


def parse_body(raw: bytes) -> dict:
    """The JSON object of a request body (``{}`` for an empty one); refused (400) otherwise."""
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


def check_fields(body: dict, required: set[str], optional: set[str] | None = None) -> None:
    missing = sorted(required - body.keys())
    if missing:
        raise BadRequest(400, f"missing field(s): {', '.join(missing)}")
    unknown = sorted(body.keys() - required - (optional or set()))
    if unknown:
        raise BadRequest(400, f"unknown field(s): {', '.join(unknown)}; the fields are "
                              f"{', '.join(sorted(required | (optional or set())))}")


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def integer(body: dict, name: str) -> int:
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(400, f"{name}={value!r} must be an integer")
    return value


def reward_value(value):
    """The ``reward`` field: a finite number, or a non-empty list of them (semi feedback)."""
    if _is_number(value):
        rewards = [value]
    elif isinstance(value, list) and value and all(_is_number(item) for item in value):
        rewards = value
    else:
        raise BadRequest(400, f"reward={value!r} must be a number (or a list of numbers for semi feedback)")
    if not all(math.isfinite(item) for item in rewards):
        raise BadRequest(400, f"reward={value!r} must be finite")
    return value


def pull_answer(pull, workers: list[str]) -> dict:
    return {"pull": pull.id, "arms": list(pull.arms), "workers": [workers[i] for i in pull.arms], "count": pull.count}


# --- the handlers -------------------------------------------------------------------------------------------------
def start(call: Call) -> Reply:
    """``POST /start``: create the campaign's store from the body (:data:`START_FIELDS`), as :meth:`Session.start`."""
    body = parse_body(call.body)
    check_fields(body, {"algorithm"}, set(START_FIELDS))
    arguments = {name: body[name] for name in START_FIELDS if name in body}
    if not isinstance(arguments["algorithm"], str):
        raise BadRequest(400, f"algorithm={arguments['algorithm']!r} must be a string, a registered algorithm's name")
    if "parameters" in arguments and not isinstance(arguments["parameters"], dict):
        raise BadRequest(400, f"parameters must be a JSON object of the algorithm's parameters by name, got "
                              f"{arguments['parameters']!r}")
    assert call.name is not None
    session = call.campaigns.start(call.name, arguments).session
    return json_reply({"ok": True, "store": str(session.path), "algorithm": session.created["algorithm"],
                       "parameters": session.created["parameters"]})


def next_pulls(call: Call) -> Reply:
    body = parse_body(call.body)
    check_fields(body, set(), {"count"})
    count = integer(body, "count") if "count" in body else 1
    session = call.campaign.session
    try:
        pulls = session.next(count)
    except WaitingForRewards as error:
        raise BadRequest(409, str(error), waiting=True) from None
    workers = session.created["workers"]
    return json_reply({"pulls": [pull_answer(pull, workers) for pull in pulls]})


def record(call: Call) -> Reply:
    body = parse_body(call.body)
    check_fields(body, {"pull", "reward"})
    pull, reward = integer(body, "pull"), reward_value(body["reward"])
    session = call.campaign.session
    if _is_number(reward) and session.feedback == "semi" and len(session.pull(pull).arms) == 1:
        reward = [reward]  # a one-member pull of per-arm feedback: its one reward as a number
    try:
        recorded = session.record(pull, reward)
    except RecordConflict as error:
        raise BadRequest(409, str(error), conflict=True) from None
    if recorded is False:  # an idempotent retry: that pull holds this reward already, nothing written
        return json_reply({"ok": True, "pull": pull, "recorded": False, "already_recorded": True})
    return json_reply({"ok": True, "pull": pull, "recorded": True})


def abandon(call: Call) -> Reply:
    body = parse_body(call.body)
    check_fields(body, {"pull"})
    pull = integer(body, "pull")
    abandoned = call.campaign.session.abandon(pull)
    return json_reply({"ok": True, "pull": pull, "abandoned": bool(abandoned)})


def outstanding(call: Call) -> Reply:
    session = call.campaign.session
    workers = session.created["workers"]
    return json_reply({"pulls": [pull_answer(pull, workers) for pull in session.outstanding()]})


def status(call: Call) -> Reply:
    return json_reply(call.campaign.session.status())


def export(call: Call) -> Reply:
    text = io.StringIO()
    call.campaign.session.write_csv(text)
    return Reply(200, "text/csv; charset=utf-8", text.getvalue().encode())


def page(call: Call) -> Reply:
    return Reply(200, "text/html; charset=utf-8", call.campaign.pages.get(wait=False).page)


def plot(call: Call) -> Reply:
    return Reply(200, "image/svg+xml", call.campaign.pages.get().svg)


def campaigns(call: Call) -> Reply:
    listed = []
    for campaign in call.campaigns.list():
        entry: dict[str, Any] = {"name": campaign.name, "url": f"{CAMPAIGNS}/{campaign.name}/",
                                 "started": campaign.started, "algorithm": None, "pulls": 0, "done": False}
        if campaign.started:
            current = campaign.session.status()
            entry.update(algorithm=current["algorithm"], pulls=current["pulls"], done=current["done"])
        listed.append(entry)
    return json_reply({"campaigns": listed})


def openapi(call: Call) -> Reply:
    document = describe(route_table(call.campaigns.bare), secured=call.secured, name_pattern=NAME_PATTERN.pattern)
    return json_reply(document)


# --- schemas ------------------------------------------------------------------------------------------------------
_ID = {"type": "integer", "minimum": 0}
_NUMBERS = {"type": "array", "items": {"type": "number"}, "minItems": 1}
PULL = {"type": "object", "required": ["pull", "arms", "workers", "count"], "additionalProperties": False,
        "properties": {"pull": _ID, "arms": {"type": "array", "items": _ID},
                       "workers": {"type": "array", "items": {"type": "string"}},
                       "count": {"type": "integer", "minimum": 1}}}
PULLS = {"type": "object", "required": ["pulls"], "additionalProperties": False,
         "properties": {"pulls": {"type": "array", "items": PULL}}}
STATUS = {"type": "object", "required": ["store", "algorithm", "pulls", "outstanding", "done", "stop_reason"],
          "properties": {
              "store": {"type": "string"}, "algorithm": {"type": "string"}, "pulls": _ID,
              "outstanding": {"type": "integer", "minimum": 0, "description": "how many pulls are out"},
              "outstanding_ids": {"type": "array", "items": _ID, "description": "the 20 oldest outstanding pulls"},
              "abandoned": {"type": "integer", "minimum": 0}, "waiting": {"type": "array", "items": _ID},
              "best_team": {"type": ["array", "null"], "items": _ID},
              "best_workers": {"type": ["array", "null"], "items": {"type": "string"}},
              "gap_bound": {"type": ["number", "string", "null"], "description": "a number, \"inf\", or null"},
              "bound_pulls": {"type": "integer", "minimum": 0,
                              "description": "the recorded pulls the gap bound and best team were computed from"},
              "epsilon": {"type": ["number", "null"]}, "rule_fired": {"type": "boolean"},
              "done": {"type": "boolean"}, "stop_reason": {"type": "string"},
              "pulls_needed": {"type": ["integer", "null"], "description": "a rough estimate"},
              "budget_left": {"type": ["integer", "null"], "description": "fixed-budget algorithms; null otherwise"},
              "prior_observations": _ID}}
START = {"type": "object", "required": ["algorithm"], "additionalProperties": False, "properties": {
    "algorithm": {"type": "string", "description": "a registered algorithm (`fullbandit solve --list`)"},
    "n": {"type": "integer", "minimum": 2}, "workers": {"type": "array", "items": {"type": "string"}, "minItems": 2},
    "k": {"type": "integer", "minimum": 1}, "threshold": {"type": "number"},
    "groups": {"type": "array", "items": {"type": ["string", "null"]}}, "at_most": {"type": "integer", "minimum": 0},
    "parameters": {"type": "object", "description": "the algorithm's parameters by name"},
    "reward_range": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
    "seed": {"type": "integer", "minimum": 0}}}
STARTED = {"type": "object", "required": ["ok", "store", "algorithm", "parameters"], "additionalProperties": False,
           "properties": {"ok": {"const": True}, "store": {"type": "string"}, "algorithm": {"type": "string"},
                          "parameters": {"type": "object"}}}
NEXT = {"type": "object", "additionalProperties": False,
        "properties": {"count": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT, "default": 1}}}
RECORD = {"type": "object", "required": ["pull", "reward"], "additionalProperties": False, "properties": {
    "pull": _ID, "reward": {"anyOf": [{"type": "number"}, _NUMBERS],
                            "description": "the team's reward; semi feedback: one per member (a number for one)"}}}
RECORDED = {"type": "object", "required": ["ok", "pull", "recorded"], "additionalProperties": False, "properties": {
    "ok": {"const": True}, "pull": _ID, "recorded": {"type": "boolean"}, "already_recorded": {"const": True}}}
ABANDON = {"type": "object", "required": ["pull"], "additionalProperties": False, "properties": {"pull": _ID}}
ABANDONED = {"type": "object", "required": ["ok", "pull", "abandoned"], "additionalProperties": False,
             "properties": {"ok": {"const": True}, "pull": _ID, "abandoned": {"type": "boolean"}}}
CAMPAIGN_LIST = {"type": "object", "required": ["campaigns"], "additionalProperties": False, "properties": {
    "campaigns": {"type": "array", "items": {
        "type": "object", "required": ["name", "url", "started", "algorithm", "pulls", "done"],
        "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "url": {"type": "string"}, "started": {"type": "boolean"},
                       "algorithm": {"type": ["string", "null"]}, "pulls": _ID, "done": {"type": "boolean"}}}}}}
DOCUMENT = {"type": "object", "required": ["openapi", "info", "paths"]}

_BODY = (400, "a malformed body, a missing, unknown or mistyped field")
_SESSION = (409, "no session yet (POST /start first)")
_DAMAGED = (500, "the store cannot be read (its message)")

#: Every endpoint, in the order a campaign uses them (the OpenAPI document lists them so).
ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("/start", "POST", True, "Create the campaign's session store (a server started with --new)", start,
             START, STARTED, example={"algorithm": "icb", "workers": ["ada", "bo", "cy", "di", "ed"], "k": 2,
                                      "parameters": {"epsilon": 0.5, "delta": 0.1}, "reward_range": [0, 2],
                                      "seed": 1},
             refusals=(_BODY, (409, "the store exists already, or the server was not started with --new"))),
    Endpoint("/next", "POST", True, "Hand out up to count pulls (teams to try); fewer when the algorithm must wait",
             next_pulls, NEXT, PULLS, example={"count": 2},
             refusals=(_BODY, (409, "the session stopped, or it waits for outstanding pulls to be recorded or "
                                    "abandoned (waiting: true)"), _DAMAGED)),
    Endpoint("/record", "POST", True, "Record the observed reward of a pull (a retry with the same reward is "
                                      "answered recorded: false)", record, RECORD, RECORDED,
             example={"pull": 0, "reward": 1.5},
             refusals=(_BODY, (409, "a pull never handed out or abandoned, the session stopped, or another reward "
                                    "already recorded for it (conflict: true)"), _DAMAGED)),
    Endpoint("/abandon", "POST", True, "Give back an outstanding pull that will not be answered; its team is handed "
                                       "out again later", abandon, ABANDON, ABANDONED, example={"pull": 1},
             refusals=(_BODY, (409, "a pull never handed out, or already recorded"), _DAMAGED)),
    Endpoint("/outstanding", "GET", True, "Every outstanding pull, oldest first", outstanding, answer=PULLS,
             refusals=(_SESSION, _DAMAGED)),
    Endpoint("/status", "GET", True, "Pulls, outstanding and abandoned counts, best team, gap bound against epsilon",
             status, answer=STATUS, refusals=(_SESSION, _DAMAGED)),
    Endpoint("/export", "GET", True, "The observations as CSV", export, media="text/csv",
             refusals=(_SESSION, _DAMAGED)),
    Endpoint("/", "GET", True, "The status page (HTML, refreshes itself)", page, media="text/html",
             refusals=(_SESSION, _DAMAGED)),
    Endpoint("/plot.svg", "GET", True, "The gap bound against epsilon over the pulls (SVG)", plot,
             media="image/svg+xml", refusals=(_SESSION, _DAMAGED)),
    Endpoint("/campaigns", "GET", False, "The campaigns served", campaigns, answer=CAMPAIGN_LIST),
    Endpoint("/openapi.json", "GET", False, "This description (OpenAPI 3.1)", openapi, answer=DOCUMENT),
)


def campaign_route(route: str) -> str:
    """The route of a campaign's endpoint under ``/campaigns/{name}`` (the page: ``/campaigns/{name}/``)."""
    return f"{CAMPAIGNS}/{{name}}{route}"


def route_table(bare: bool) -> dict[str, dict[str, Endpoint]]:
    """Every route served, each with its endpoints by method: server routes, ``/campaigns/{name}/...``, and the bare
    routes of a campaign when the server serves exactly one store (``bare``)."""
    table: dict[str, dict[str, Endpoint]] = {}
    for endpoint in ENDPOINTS:
        routes = [campaign_route(endpoint.route)] + ([endpoint.route] if bare else []) if endpoint.campaign else \
            [endpoint.route]
        for route in routes:
            table.setdefault(route, {})[endpoint.method] = endpoint
    return table


def match(table: dict[str, dict[str, Endpoint]], path: str) -> tuple[str, str | None] | None:
    """``(route, campaign name or None)`` of the request path ``path`` in ``table``, or ``None``: no such route.

    >>> table = route_table(bare=True)
    >>> match(table, "/status"), match(table, "/campaigns/pilot/status"), match(table, "/campaigns/x/nowhere")
    (('/status', None), ('/campaigns/{name}/status', 'pilot'), None)
    """
    if path in table:
        return path, None
    prefix = CAMPAIGNS + "/"
    if path.startswith(prefix):
        name, slash, rest = path[len(prefix):].partition("/")
        route = campaign_route(slash + rest)
        if route in table:
            return route, name
    return None


__all__ = ["CAMPAIGNS", "ENDPOINTS", "NAME_RULE", "START_FIELDS", "BadRequest", "Call", "Endpoint", "Reply",
           "match", "route_table"]
