"""The session service beyond one store: several campaigns per server, its OpenAPI description (checked against a
live server), and the status page and plot a campaign owner reads."""

import json
import re

import pytest
from http_helpers import answer, call, fill, new_store, running

from fullbandit.sessions import Session
from fullbandit.sessions.endpoints import ENDPOINTS, route_table
from fullbandit.sessions.http import make_server
from fullbandit.sessions.page import plot_svg, status_page
from fullbandit.util.validation import InvalidParameterError


# --- several campaigns --------------------------------------------------------------------------------------------
def test_several_stores_are_campaigns_by_name_and_the_bare_routes_need_exactly_one(tmp_path):
    first, second = new_store(tmp_path, "first"), new_store(tmp_path, "second", seed=8)
    fill(second, 4)
    with running([first, second]) as url:
        status, listed = answer(url + "/campaigns")
        assert status == 200 and listed == {"campaigns": [
            {"name": "first", "url": "/campaigns/first/", "started": True, "algorithm": "icb", "pulls": 0,
             "done": False},
            {"name": "second", "url": "/campaigns/second/", "started": True, "algorithm": "icb", "pulls": 4,
             "done": False}]}
        [pull] = answer(url + "/campaigns/first/next", "POST", {})[1]["pulls"]
        assert answer(url + "/campaigns/first/record", "POST", {"pull": pull["pull"], "reward": 1.0})[0] == 200
        assert answer(url + "/campaigns/second/status")[1]["pulls"] == 4  # the other store is untouched
        assert answer(url + "/campaigns/first/status")[1]["pulls"] == 1
        status, body = answer(url + "/status")  # two stores: no bare routes
        assert status == 404 and "/openapi.json" in body["error"]
        assert call(url + "/campaigns/first/")[0] == 200 and call(url + "/campaigns/second/plot.svg")[0] == 200
    with Session.open(first) as session:
        assert session.status()["pulls"] == 1
    with pytest.raises(InvalidParameterError, match="two stores named 'first'"):
        make_server([first, tmp_path / "other" / "first.db"], port=0)
    odd = tmp_path / "odd name.db"
    first.rename(odd)
    with pytest.raises(InvalidParameterError, match="letters, digits, '-' or '_'"):
        make_server([odd], port=0)


def test_a_folder_serves_its_stores_and_new_campaigns_start_in_it(tmp_path):
    folder = tmp_path / "campaigns"
    folder.mkdir()
    new_store(folder, "pilot")
    with running(folder=folder, new=True) as url:
        assert [c["name"] for c in answer(url + "/campaigns")[1]["campaigns"]] == ["pilot"]
        status, body = answer(url + "/campaigns/main/status")
        assert status == 404 and "POST /campaigns/main/start" in body["error"]
        status, body = answer(url + "/campaigns/main/start", "POST", {"algorithm": "icb", "n": 4, "k": 2,
                                                                       "parameters": {"noise_scale": 0.5}})
        assert status == 200 and body["store"] == str(folder / "main.db") and body["algorithm"] == "icb"
        assert answer(url + "/campaigns/main/start", "POST", {"algorithm": "icb", "n": 4, "k": 2})[0] == 409
        status, body = answer(url + "/campaigns/a.b/start", "POST", {"algorithm": "icb", "n": 4, "k": 2})
        assert status == 400 and "letters, digits, '-' or '_'" in body["error"]
        assert not (folder / "a.b.db").exists()
        status, body = answer(url + "/campaigns/bad/start", "POST", {"algorithm": "icb", "n": 4, "k": 2})
        assert status == 400 and "noise" in body["error"] and not (folder / "bad.db").exists()
        new_store(folder, "later")  # created by another process while the server runs
        assert [c["name"] for c in answer(url + "/campaigns")[1]["campaigns"]] == ["later", "main", "pilot"]
        assert answer(url + "/campaigns/later/next", "POST", {})[0] == 200
        assert answer(url + "/next", "POST", {})[0] == 404  # a folder: campaigns by name only
    with Session.open(folder / "main.db") as session:
        assert session.created["parameters"]["noise_scale"] == 0.5


def test_a_new_store_waits_for_start_under_both_routes(tmp_path):
    path = tmp_path / "fresh.db"
    with running(path, new=True) as url:
        listed = answer(url + "/campaigns")[1]["campaigns"]
        assert listed == [{"name": "fresh", "url": "/campaigns/fresh/", "started": False, "algorithm": None,
                           "pulls": 0, "done": False}]
        status, body = answer(url + "/campaigns/fresh/status")
        assert status == 409 and "POST /start first" in body["error"]
        assert answer(url + "/campaigns/fresh/start", "POST", {"algorithm": "icb", "n": 4, "k": 2,
                                                               "parameters": {"noise_scale": 0.5}})[0] == 200
        assert answer(url + "/start", "POST", {"algorithm": "icb", "n": 4, "k": 2})[0] == 409
        assert answer(url + "/status")[1]["pulls"] == 0


# --- the OpenAPI description --------------------------------------------------------------------------------------
def conforms(value, schema, where="answer"):
    """Refuse ``value`` (AssertionError naming where) outside ``schema``: the JSON Schema keywords the service uses."""
    types = schema.get("type")
    if types is not None:
        names = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
        allowed = [types] if isinstance(types, str) else types
        number = isinstance(value, int | float) and not isinstance(value, bool)
        fits = [name for name in allowed if (name == "integer" and number and isinstance(value, int))
                or (name == "number" and number) or (name in names and isinstance(value, names[name]))]
        assert fits, f"{where}: {value!r} is not {types}"
    if "const" in schema:
        assert value == schema["const"], f"{where}: {value!r} is not {schema['const']!r}"
    if "anyOf" in schema:
        assert any(_fits(value, option, where) for option in schema["anyOf"]), f"{where}: {value!r} fits no option"
    if isinstance(value, int | float) and not isinstance(value, bool):
        assert value >= schema.get("minimum", value) and value <= schema.get("maximum", value), f"{where}: {value}"
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            assert name in value, f"{where}: {name!r} missing"
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                conforms(item, properties[name], f"{where}.{name}")
            else:
                assert schema.get("additionalProperties", True) is not False, f"{where}: {name!r} is not described"
    if isinstance(value, list):
        assert schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)), f"{where}: length"
        for index, item in enumerate(value):
            conforms(item, schema.get("items", {}), f"{where}[{index}]")


def _fits(value, schema, where):
    try:
        conforms(value, schema, where)
    except AssertionError:
        return False
    return True


def test_the_schema_checker_refuses_what_it_should():  # the checker below is trusted only if it can fail
    schema = next(e for e in ENDPOINTS if e.route == "/record").answer
    conforms({"ok": True, "pull": 3, "recorded": True}, schema)
    for wrong in ({"ok": True, "pull": "3", "recorded": True}, {"ok": True, "recorded": True},
                  {"ok": True, "pull": 3, "recorded": True, "extra": 1}, {"ok": False, "pull": 3, "recorded": True}):
        with pytest.raises(AssertionError):
            conforms(wrong, schema)


SERVER_ROUTES = ("/campaigns", "/openapi.json")


def run_examples(url, document, under_campaigns, name, token=None):
    """Send every documented campaign request (bare routes, or those under ``/campaigns/{name}``) in the document's
    order, each with its example body, and check that each answer is one the document lists, as described; then
    the server's own routes. Returns how many requests were sent."""
    sent = 0
    for route, item in document["paths"].items():
        if route in SERVER_ROUTES or route.startswith("/campaigns/{name}") != under_campaigns:
            continue
        for method, operation in item.items():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            body = None if content is None else content["example"]
            if content is not None:
                conforms(body, content["schema"], f"the example of {method} {route}")
            status, kind, data = call(url + route.replace("{name}", name), method.upper(), body, token=token)
            assert str(status) in operation["responses"], (route, status, data)
            assert status == 200, (route, data)  # in this order every example succeeds
            [(media, described)] = operation["responses"]["200"]["content"].items()
            assert kind.split(";")[0] == media, route
            if "schema" in described:
                conforms(json.loads(data), described["schema"], f"{method} {route}")
            sent += 1
    for route in SERVER_ROUTES:
        status, kind, data = call(url + route, token=token)
        schema = document["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert (status, kind) == (200, "application/json")
        conforms(json.loads(data), schema, route)
        sent += 1
    return sent


def test_openapi_describes_exactly_the_routes_and_its_examples_are_answered_as_described(tmp_path):
    campaign_endpoints = [endpoint for endpoint in ENDPOINTS if endpoint.campaign]
    with running(tmp_path / "bare.db", new=True, token="t0k") as url:
        status, document = answer(url + "/openapi.json", token="t0k")
        assert status == 200 and document["openapi"].startswith("3.1")
        assert list(document["paths"]) == list(route_table(bare=True))  # what the handler routes with
        assert set(document["paths"]) == set(SERVER_ROUTES) | {
            route for e in campaign_endpoints for route in (e.route, "/campaigns/{name}" + e.route)}
        assert document["security"] == [{"bearer": []}]
        assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
        for route, item in document["paths"].items():
            for method, operation in item.items():
                assert list(route_table(bare=True)[route]) == [method.upper()]
                error = operation["responses"]["401"]["content"]["application/json"]["schema"]
                assert error == {"$ref": "#/components/schemas/Error"}
        assert all(e.example is not None for e in ENDPOINTS if e.request is not None)
        # The examples in order, to a fresh store through the bare routes: start, next, record, abandon, ...
        assert run_examples(url, document, False, "bare", token="t0k") == len(ENDPOINTS)
    with running(tmp_path / "named.db", new=True) as url:  # and to another through the campaign routes
        document = answer(url + "/openapi.json")[1]
        assert "security" not in document and "401" not in document["paths"]["/status"]["get"]["responses"]
        assert run_examples(url, document, True, "named") == len(ENDPOINTS)
    folder = tmp_path / "folder"
    folder.mkdir()
    with running(folder=folder, new=True) as url:
        assert list(answer(url + "/openapi.json")[1]["paths"]) == list(route_table(bare=False))
        assert not [route for route in route_table(bare=False) if not route.startswith("/campaigns")
                    and route not in SERVER_ROUTES]


# --- the page and the plot ----------------------------------------------------------------------------------------
def numbers(svg, css):
    """The y coordinates of the polyline of class ``css`` in ``svg``."""
    [points] = re.findall(rf'<polyline class="{css}"[^>]* points="([^"]+)"', svg)
    return [float(pair.split(",")[1]) for pair in points.split()]


@pytest.mark.parametrize("points", [
    [(10, 2.0, 0.1), (20, 0.5, 0.1), (30, 0.1, 0.1)],         # the bound ends on epsilon: the lowest value
    [(100, 0.3, 0.3), (200, 0.3, 0.3)],                       # flat, equal: no span at all
    [(5, 1e6, 1e-3), (10_000, 1e-4, 1e-3)],                   # ten decades
])
def test_the_plot_has_one_axis_of_ticks_titles_and_a_legend_off_the_data(points):
    svg = plot_svg(points)
    frame = re.search(r'<rect class="frame" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    left, top, width, height = map(float, frame.groups())
    for y in numbers(svg, "epsilon") + numbers(svg, "gap"):
        assert top + 2 < y < top + height - 2  # padded: no line runs along the frame
    labels = re.findall(r"<text[^>]*>([^<]+)</text>", re.search(r'<g class="yticks".*?</g>', svg).group(0))
    assert len(labels) >= 2 and len(set(labels)) == len(labels)  # one set of y tick labels, none twice
    assert svg.count('class="yticks"') == 1 and ">pulls</text>" in svg and ">gap bound (log scale)</text>" in svg
    legend = re.search(r'<g class="legend" transform="translate\(([\d.]+),([\d.]+)\)"', svg)
    assert float(legend.group(2)) + 16 <= top  # the legend's two lines of 16 px sit above the data area
    assert svg.count("<polyline") == 2


def test_the_page_reads_as_text_not_json():
    status = {"store": "/x/s.db", "algorithm": "icb", "pulls": 1234, "outstanding": 3, "outstanding_ids": [1, 2, 3],
              "abandoned": 0, "waiting": [], "best_team": None, "best_workers": None, "gap_bound": "inf",
              "epsilon": 0.1, "rule_fired": False, "done": False, "stop_reason": "running", "pulls_needed": None,
              "budget_left": None, "prior_observations": 0}
    page = status_page(status, [], "pilot")
    text = re.sub(r"<script>.*?</script>|<style>.*?</style>|<[^>]+>", " ", page, flags=re.S)
    assert "1,234" in text and "∞" in text and "not yet" in text and "estimate" in text
    assert not re.search(r'null|"icb"|\binf\b|\[|\{', text), text
    page = status_page({**status, "best_workers": ["ada", "<bo>"], "budget_left": 17, "done": True,
                        "stop_reason": "budget exhausted"}, [], "pilot")
    assert "<li>ada</li><li>&lt;bo&gt;</li>" in page and "Budget left" in page and "budget exhausted" in page
    assert "Pulls still needed" not in page


def test_answers_leave_without_waiting_for_the_clients_delayed_ack(tmp_path, monkeypatch):
    """TCP_NODELAY on every connection: an answer is written as headers, then body, and with Nagle's algorithm
    the body would wait for the client's delayed ACK of the headers (40 ms a record on a kept-alive connection,
    measured by benchmarks/bench_sessions.py)."""
    import socket

    from fullbandit.sessions.http import Handler

    seen = []
    setup = Handler.setup

    def recording_setup(self):
        setup(self)
        seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    monkeypatch.setattr(Handler, "setup", recording_setup)
    with running(new_store(tmp_path)) as url:
        assert call(url + "/status")[0] == 200
    assert seen and all(seen), seen


# --- a server with a token, seen from a browser -------------------------------------------------------------------
def test_a_token_in_the_address_lets_a_browser_read_the_pages_by_cookie_never_write(tmp_path):
    import http.client

    path = new_store(tmp_path, "pilot")
    fill(path, 3)
    with running(path, token="s3cret") as url:
        host, port = url.rsplit("/", 1)[-1].split(":")

        def raw(method, target, headers=None, body=None):
            connection = http.client.HTTPConnection(host, int(port), timeout=30)  # follows no redirect
            try:
                connection.request(method, target, body=body, headers=headers or {})
                response = connection.getresponse()
                return response.status, dict(response.getheaders()), response.read()
            finally:
                connection.close()

        assert raw("GET", "/")[0] == 401
        status, _, data = raw("GET", "/?token=wrong")
        assert status == 401 and b"wrong token" in data
        status, headers, _ = raw("GET", "/plot.svg?width=600&token=s3cret")
        assert status == 303 and headers["Location"] == "/plot.svg?width=600"
        cookie = headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "s3cret" not in cookie
        pair = {"Cookie": cookie.split(";", 1)[0]}
        status, headers, page = raw("GET", "/", pair)
        assert status == 200 and headers["Content-Type"].startswith("text/html") and b"pilot" in page
        assert raw("GET", "/status", pair)[0] == 200  # the page's own refresh
        forged = {"Cookie": "fullbandit_page=" + "0" * 64}
        assert raw("GET", "/status", forged)[0] == 401
        # A write needs the header: no other site's form can record with the browser's cookie.
        body = json.dumps({"count": 1}).encode()
        assert raw("POST", "/next", {**pair, "Content-Type": "application/json"}, body)[0] == 401
        assert raw("POST", "/next?token=s3cret", {"Content-Type": "application/json"}, body)[0] == 401
    with Session.open(path) as session:
        assert session.status()["outstanding"] == 0  # nothing was handed out
