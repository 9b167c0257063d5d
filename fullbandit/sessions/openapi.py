"""The OpenAPI 3.1 description of the session service (``GET /openapi.json``), made from its route table.

:func:`describe` takes the table the router routes with
(:func:`fullbandit.sessions.endpoints.route_table`: route -> method -> endpoint) and writes one
path item per route: its operation, request body (JSON Schema and an example), the answer of
each status (the JSON Schema of a JSON answer, or the media type), and the error shape every
refusal shares (``{"error": message}``, with ``waiting`` or ``conflict`` set to ``true`` for
those two refusals). When a token guards the server, every operation requires bearer
authentication. Nothing here lists an endpoint of its own: the document cannot drift from
what is served.

Examples
--------
>>> from types import SimpleNamespace as Endpoint
>>> status = Endpoint(route="/status", method="GET", campaign=True, summary="The status", request=None,
...                   answer={"type": "object"}, media="application/json", example=None, refusals=())
>>> document = describe({"/status": {"GET": status}}, secured=True, name_pattern="[a-z]+")
>>> document["openapi"], list(document["paths"]), sorted(document["paths"]["/status"]["get"]["responses"])
('3.1.0', ['/status'], ['200', '401', '404', '405', '503'])
>>> document["security"]
[{'bearer': []}]
"""

from __future__ import annotations

from typing import Any

from fullbandit.sessions.store import FORMAT

#: The shape of every refusal.
ERROR = {"type": "object", "required": ["error"], "properties": {
    "error": {"type": "string", "description": "what was refused and why, naming the field or value"},
    "waiting": {"const": True, "description": "POST /next: outstanding pulls must be recorded or abandoned first"},
    "conflict": {"const": True, "description": "POST /record: the pull holds another reward already"}}}
#: Refusals any route may answer, besides its own.
COMMON = ((404, "no such route or campaign"), (405, "a method the route does not take (see the Allow header)"))
#: Refusals of any request with a body.
FRAMING = ((400, "a campaign name outside the allowed characters, or a body whose framing cannot be trusted"),
           (413, "a body larger than the server reads"))


def _error(description: str) -> dict:
    error = {"$ref": "#/components/schemas/Error"}
    return {"description": description, "content": {"application/json": {"schema": error}}}


def _operation(route: str, endpoint: Any, secured: bool, name_pattern: str) -> dict:
    operation: dict[str, Any] = {"operationId": f"{endpoint.method.lower()} {route}", "summary": endpoint.summary,
                                 "tags": ["campaign" if endpoint.campaign else "server"]}
    if "{name}" in route:
        operation["parameters"] = [{"name": "name", "in": "path", "required": True,
                                    "description": "the campaign: its store's file stem",
                                    "schema": {"type": "string", "pattern": f"^{name_pattern}$"}}]
    if endpoint.request is not None:
        content: dict[str, Any] = {"schema": endpoint.request}
        if endpoint.example is not None:
            content["example"] = endpoint.example
        operation["requestBody"] = {"required": bool(endpoint.request.get("required")),
                                    "content": {"application/json": content}}
    success: dict[str, Any] = {"description": "done"}
    success["content"] = {endpoint.media: {"schema": endpoint.answer} if endpoint.answer is not None else {}}
    responses: dict[str, Any] = {"200": success}
    refusals = list(endpoint.refusals) + list(COMMON)
    if endpoint.request is not None or "{name}" in route:
        refusals += list(FRAMING)
    if secured:
        refusals.append((401, "a missing or wrong bearer token"))
    refusals.append((503, "the server is stopping"))
    for status, when in sorted(refusals, key=lambda refusal: refusal[0]):
        key = str(status)
        if key in responses:
            responses[key]["description"] += f"; {when}"
        else:
            responses[key] = _error(when)
    operation["responses"] = responses
    return operation


def describe(table: dict[str, dict[str, Any]], *, secured: bool, name_pattern: str) -> dict:
    """The OpenAPI 3.1 document of the routes in ``table`` (route -> method -> endpoint), in its order.

    ``secured``: a token guards every request (bearer authentication on every operation).
    ``name_pattern``: the regular expression a campaign name matches (the ``{name}`` parameter).
    """
    paths: dict[str, dict] = {}
    for route, endpoints in table.items():
        paths[route] = {method.lower(): _operation(route, endpoint, secured, name_pattern)
                        for method, endpoint in endpoints.items()}
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "fullbandit session service",
                 "description": "Live best-team identification campaigns with full-bandit feedback: hand out teams, "
                                "record their rewards, watch the stopping statistic. Stores: " + FORMAT + ".",
                 "version": "1"},
        "paths": paths,
        "components": {"schemas": {"Error": ERROR}},
    }
    if secured:
        document["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        document["security"] = [{"bearer": []}]
    return document
