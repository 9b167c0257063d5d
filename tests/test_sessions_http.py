"""The HTTP interface to a session store (issue 12): the same operations as the library, refused
requests change nothing, a token guards every request when set, and only loopback is open by default.
The server keeps each store's session open: a request never reopens (nor replays) the store."""

import io
import json
import threading

import numpy as np
import pytest
from http_helpers import (
    MEANS,
    answer,
    call,
    chunked,
    exchange,
    fill,
    new_store,
    raw_connection,
    read_response,
    request,
    running,
)

from fullbandit.cli.main import main
from fullbandit.sessions import Session
from fullbandit.sessions import http as http_module
from fullbandit.sessions import page as page_module
from fullbandit.sessions.http import make_server


def export_text(path):
    text = io.StringIO()
    with Session.open(path) as session:
        session.write_csv(text)
    return text.getvalue()


def state(path):
    """What a refused request must leave unchanged: the observations and the status."""
    with Session.open(path) as session:
        return export_text(path), session.status()


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
                status, body = answer(url + "/record", "POST", {"pull": pull["pull"], "reward": reward})
                assert (status, body) == (200, {"ok": True, "pull": pull["pull"], "recorded": True})
        assert rounds > 5
        status, body = answer(url + "/next", "POST", {"count": 1})  # the rule has fired: no more pulls
        assert status == 409 and "stopped" in body["error"] and "waiting" not in body
        status, served = answer(url + "/status")
        assert status == 200
        status, kind, csv_text = call(url + "/export")
        assert status == 200 and kind.startswith("text/csv")
    with Session.open(path) as session:
        assert served == json.loads(json.dumps(session.status()))
    assert served["done"] and served["outstanding"] == 0 and served["pulls"] == rounds + 1
    lines = csv_text.decode().splitlines()
    assert lines[0].startswith("observation,pull") and len(lines) == served["pulls"] + 1


def test_a_retried_record_is_answered_and_another_reward_is_a_conflict(tmp_path):
    path = new_store(tmp_path)
    with running(path) as url:
        [pull] = answer(url + "/next", "POST", {})[1]["pulls"]
        first = answer(url + "/record", "POST", {"pull": pull["pull"], "reward": 1.25})
        again = answer(url + "/record", "POST", {"pull": pull["pull"], "reward": 1.25})
        other = answer(url + "/record", "POST", {"pull": pull["pull"], "reward": 1.5})
    assert first == (200, {"ok": True, "pull": 0, "recorded": True})
    assert again == (200, {"ok": True, "pull": 0, "recorded": False, "already_recorded": True})
    assert other[0] == 409 and other[1]["conflict"] is True and "1.25" in other[1]["error"]
    assert export_text(path).count("\n") == 2  # the header and one observation


def test_abandon_gives_a_pull_back_and_outstanding_lists_every_pull(tmp_path):
    path = new_store(tmp_path, n=None, workers=["ada", "bo", "cy", "di", "ed"])
    with running(path) as url:
        status, body = answer(url + "/next", "POST", {"count": 3})
        pulls = body["pulls"]
        assert status == 200 and [p["pull"] for p in pulls] == [0, 1, 2]
        assert answer(url + "/outstanding") == (200, {"pulls": pulls})
        assert answer(url + "/abandon", "POST", {"pull": 1}) == (200, {"ok": True, "pull": 1, "abandoned": True})
        assert answer(url + "/abandon", "POST", {"pull": 1}) == (200, {"ok": True, "pull": 1, "abandoned": False})
        assert answer(url + "/outstanding")[1]["pulls"] == [pulls[0], pulls[2]]
        assert pulls[0]["workers"] == [["ada", "bo", "cy", "di", "ed"][a] for a in pulls[0]["arms"]]
        status, body = answer(url + "/record", "POST", {"pull": 1, "reward": 1.0})
        assert status == 409 and "abandoned" in body["error"]
        assert answer(url + "/record", "POST", {"pull": 0, "reward": 1.0})[0] == 200
        status, body = answer(url + "/abandon", "POST", {"pull": 0})
        assert status == 409 and "recorded" in body["error"]
        status, body = answer(url + "/abandon", "POST", {"pull": 99})
        assert status == 409 and "never handed out" in body["error"]
        served = answer(url + "/status")[1]
    assert (served["outstanding"], served["outstanding_ids"], served["abandoned"]) == (1, [2], 1)
    with Session.open(path) as session:
        assert [pull.id for pull in session.outstanding()] == [2]


def test_next_answers_waiting_when_the_algorithm_hands_out_nothing(tmp_path):
    path = tmp_path / "rounds.db"  # LUCB samples every arm once, then waits for those rewards to plan
    Session.start(path, algorithm="lucb", n=4, k=2, reward_range=[0, 1], seed=1).close()
    with running(path) as url:
        status, body = answer(url + "/next", "POST", {"count": 50})
        assert status == 200 and len(body["pulls"]) == 4  # fewer than asked: one round
        status, body = answer(url + "/next", "POST", {"count": 1})
        assert status == 409 and body["waiting"] is True and "4 pull(s) outstanding" in body["error"]
        for pull in answer(url + "/outstanding")[1]["pulls"]:
            assert answer(url + "/record", "POST", {"pull": pull["pull"], "reward": 0.5})[0] == 200
        assert answer(url + "/next", "POST", {"count": 1})[0] == 200  # recorded: it plans again


def test_a_one_member_pull_of_per_arm_feedback_takes_a_bare_number(tmp_path):
    path = tmp_path / "arms.db"
    Session.start(path, algorithm="lucb", n=4, k=2, reward_range=[0, 1], seed=1).close()
    with running(path) as url:
        pulls = answer(url + "/next", "POST", {"count": 2})[1]["pulls"]
        assert [len(pull["arms"]) for pull in pulls] == [1, 1]
        assert answer(url + "/record", "POST", {"pull": 0, "reward": 1})[1]["recorded"] is True
        assert answer(url + "/record", "POST", {"pull": 1, "reward": [0.5]})[1]["recorded"] is True
        assert answer(url + "/record", "POST", {"pull": 0, "reward": [1.0]})[1]["already_recorded"] is True
        status, body = answer(url + "/record", "POST", {"pull": 9, "reward": 1})
        assert status == 409 and "never handed out" in body["error"]
    rows = [line.split(",") for line in export_text(path).splitlines()[1:]]
    assert [(row[1], row[5]) for row in rows] == [("0", "[1.0]"), ("1", "[0.5]")]


def test_page_and_plot(tmp_path):
    path = new_store(tmp_path)
    fill(path, 30)
    with running(path) as url:
        status, kind, data = call(url + "/")
        assert status == 200 and kind.startswith("text/html")
        page = data.decode()
        assert "<svg" in page and "Gap bound" in page and page.count("<polyline") == 2
        status, kind, data = call(url + "/plot.svg")
        assert status == 200 and kind == "image/svg+xml"
        assert data.decode().count("<polyline") == 2
        assert call(url + "/campaigns/s/")[2] == page.encode()  # the same page under the campaign's route


def test_the_page_of_a_long_journal_does_not_wait_for_the_plot(tmp_path, monkeypatch):
    path = new_store(tmp_path)
    fill(path, 30)
    monkeypatch.setattr(page_module, "WAIT_EVENTS", 10)  # 60 events: "long"
    with running(path) as url:
        page = call(url + "/")[2].decode()
        assert "The plot is being prepared: the journal's 60 events" in page and "<polyline" not in page
        assert '<span data-field="pulls">30</span>' in page  # the numbers do not wait
        assert call(url + "/plot.svg")[2].count(b"<polyline") == 2  # waits for the replay (background or its own)
        assert call(url + "/")[2].count(b"<polyline") == 2


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
    ("/record", b'{"pull": 1, "reward": 2.0}', 409, "already recorded"),
    ("/abandon", b'{"pull": 1}', 409, "recorded"),
    ("/abandon", b'{"pull": 99}', 409, "never handed out"),
    ("/abandon", b'{"pull": "1"}', 400, "integer"),
    ("/abandon", b'{}', 400, "pull"),
    ("/next", b'{"count": 0}', 400, "count"),
    ("/next", b'{"count": 2.5}', 400, "count"),
    ("/next", b'{"count": 100000}', 400, "count"),
    ("/next", b'{"cout": 2}', 400, "cout"),
    ("/next", b"\xff\xfe", 400, "UTF-8"),
    ("/campaigns/../next", b'{}', 400, "letters, digits, '-' or '_'"),
    ("/campaigns/x.y/next", b'{}', 400, "letters, digits, '-' or '_'"),
    ("/campaigns/other/next", b'{}', 404, "no campaign 'other'"),
]


def test_bad_requests_are_refused_and_change_nothing(tmp_path):
    path = new_store(tmp_path)
    with Session.open(path) as session:  # pull 0 outstanding, pull 1 recorded
        first, second = session.next(2)
        session.record(second.id, 1.0)
    before = state(path)
    with running(path) as url:
        for route, raw, expected, word in BAD:
            status, kind, data = call(url + route, "POST", raw=raw)
            assert (status, kind) == (expected, "application/json"), (route, raw, data)
            message = json.loads(data)["error"]
            assert word.lower() in message.lower(), (raw, message)
            assert state(path) == before, raw
        assert call(url + "/nowhere")[0] == 404
        assert call(url + "/status", "POST", {})[0] == 405
        assert call(url + "/next")[0] == 405
    with Session.open(path) as session:
        assert session.status()["outstanding_ids"] == [first.id]


def test_damaged_store_is_a_server_error(tmp_path):
    path = new_store(tmp_path)
    with running(path) as url:
        assert call(url + "/")[0] == 200  # the page is kept
        path.write_bytes(b"not a database at all" * 100)
        for route in ("/status", "/"):
            status, kind, data = call(url + route)
            assert status == 500 and kind == "application/json" and "s.db" in json.loads(data)["error"], route


def test_token_is_required_when_set(tmp_path):
    path = new_store(tmp_path)
    with running(path, token="s3cret") as url:
        for route, method, body in [("/status", "GET", None), ("/next", "POST", {"count": 1}),
                                    ("/export", "GET", None), ("/", "GET", None), ("/campaigns", "GET", None),
                                    ("/openapi.json", "GET", None), ("/abandon", "POST", {"pull": 0})]:
            assert call(url + route, method, body)[0] == 401
            assert call(url + route, method, body, token="wrong")[0] == 401
        with Session.open(path) as session:
            assert session.status()["outstanding"] == 0  # the refused /next handed out nothing
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
    assert main(["session", "serve", "--port", "0"]) == 2
    assert "give at least one session store, or --folder DIR" in capsys.readouterr().err
    assert main(["session", "serve", str(path), "--cors-origin", "*", "--port", "0"]) == 2
    assert "--cors-origin '*' is not an origin" in capsys.readouterr().err


def test_concurrent_clients_lose_nothing(tmp_path):
    path = tmp_path / "c.db"
    Session.start(path, algorithm="icb", n=5, k=2, epsilon=0.001, delta=0.1, noise_scale=0.2, seed=7).close()
    failures = []
    start = threading.Barrier(4)

    def client(url):
        start.wait()
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
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads)
    assert failures == []
    with Session.open(path) as session:
        status = session.status()
    assert status["pulls"] == 20 and status["outstanding"] == 0
    assert len(export_text(path).splitlines()) == 21


def test_the_store_is_opened_once_and_the_page_replays_only_new_events(tmp_path, monkeypatch):
    path = new_store(tmp_path)
    fill(path, 30)
    opened, built, replayed = [], [], []
    real_open, real_build, real_events = Session.open.__func__, page_module.build_algorithm, page_module.store_module
    monkeypatch.setattr(Session, "open", classmethod(lambda cls, p: opened.append(p) or real_open(cls, p)))
    monkeypatch.setattr(page_module, "build_algorithm", lambda *a, **k: built.append(1) or real_build(*a, **k))

    class CountingStore:  # the journal reads of the page's trail: how many events each brought
        def __getattr__(self, name):
            return getattr(real_events, name)

        @staticmethod
        def events(connection, where, after=0):
            found = real_events.events(connection, where, after)
            replayed.append(len(found))
            return found

    monkeypatch.setattr(page_module, "store_module", CountingStore())
    with running(path) as url:
        first = call(url + "/")[2]
        assert b'<span data-field="pulls">30</span>' in first
        assert (len(opened), built, replayed) == (1, [1], [60])  # the server's one open; one replay for the plot
        for route in ("/", "/plot.svg", "/", "/status"):
            assert call(url + route)[0] == 200
        assert call(url + "/")[2] == first and replayed == [60]  # nothing moved: the page is kept, nothing read
        for _ in range(3):  # records through the server: each a tell and a commit, no open, no replay
            [pull] = answer(url + "/next", "POST", {})[1]["pulls"]
            assert answer(url + "/record", "POST", {"pull": pull["pull"], "reward": 1.0})[0] == 200
        with real_open(Session, path) as other:  # a record from another process is seen as well
            [pull] = other.next()
            other.record(pull.id, 1.0)
        page = call(url + "/")[2]
        assert b'<span data-field="pulls">34</span>' in page
        assert (len(opened), built, replayed) == (1, [1], [60, 8])  # only the 8 events appended since
        served = call(url + "/plot.svg")[2]
    with real_open(Session, path) as session:  # the trail kept up to date draws what a fresh replay draws
        assert served == page_module.plot_svg(page_module.CheckTrail(session).points()[1]).encode()


# --- framing, methods and connections, on raw sockets --------------------------------------------
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
    assert json.loads(answers[3][2]) == {"ok": True, "pull": 0, "recorded": True}
    assert json.loads(answers[-1][2])["pulls"] == 1 and answers[-1][1]["connection"] == "close"
    assert all("connection" not in headers for _, headers, _ in answers[:-1])


@pytest.mark.parametrize("length, status, word", [("-5", 400, "Content-Length '-5'"), ("abc", 400, "Content-Length"),
                                                  ("+5", 400, "Content-Length"), (str(2 << 20), 413, "at most")])
def test_a_bad_content_length_is_refused_and_the_connection_closed(tmp_path, length, status, word):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request("POST", "/next", headers=[f"Content-Length: {length}"]) + b'{"count": 1}')
        answer_ = read_response(stream)
        assert stream.read() == b""
    assert (answer_[0], answer_[1]["connection"], answer_[1]["content-type"]) == (status, "close", "application/json")
    assert word in json.loads(answer_[2])["error"]
    with Session.open(tmp_path / "s.db") as session:
        assert session.status()["outstanding"] == 0


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
        answer_ = read_response(stream)
        assert stream.read() == b""
    assert answer_[0] == status and answer_[1]["connection"] == "close"
    assert word in json.loads(answer_[2])["error"]
    with Session.open(tmp_path / "s.db") as session:
        assert session.status()["outstanding"] == 0


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "BREW"])
@pytest.mark.parametrize("route, allowed", [("/status", "GET"), ("/record", "POST"),
                                            ("/campaigns/s/abandon", "POST"), ("/campaigns", "GET")])
def test_another_method_is_405_with_allow_in_json(tmp_path, method, route, allowed):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request(method, route, b"{}") + request("GET", "/status", headers=["Connection: close"]))
        status, headers, body = read_response(stream)
        assert read_response(stream)[0] == 200  # the connection is still in step
    assert (status, headers["allow"], headers["content-type"]) == (405, f"{allowed}, OPTIONS", "application/json")
    assert json.loads(body)["error"].endswith(f"takes {allowed}, not {method}")


def test_head_is_405_without_a_body_and_options_is_204_with_allow(tmp_path):
    with running(new_store(tmp_path)) as url, raw_connection(url) as (sock, stream):
        sock.sendall(request("HEAD", "/status") + request("OPTIONS", "/record") + request("OPTIONS", "/nowhere")
                     + request("GET", "/status", headers=["X-Long: " + "a" * 70000]))  # answered, then closed
        status, headers, _ = read_response(stream, head=True)
        assert (status, headers["allow"]) == (405, "GET, OPTIONS")
        status, headers, body = read_response(stream)
        assert (status, headers["allow"], body) == (204, "POST, OPTIONS", b"")
        assert "access-control-allow-origin" not in headers  # CORS is off by default
        assert read_response(stream)[0] == 404
        status, headers, body = read_response(stream)
        assert stream.read() == b""
    assert (status, headers["content-type"], headers["connection"]) == (431, "application/json", "close")
    assert "too long" in json.loads(body)["error"]


def test_a_request_after_the_server_stopped_is_503_on_a_kept_alive_connection(tmp_path):
    path = new_store(tmp_path)
    server = make_server(path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with raw_connection(url) as (sock, stream):
        sock.sendall(request("GET", "/status"))
        assert read_response(stream)[0] == 200
        server.shutdown()
        server.server_close()  # returns once nothing is in flight: the sessions are closed now
        sock.sendall(request("POST", "/next", b'{"count": 1}'))
        status, headers, body = read_response(stream)
        assert stream.read() == b""
    assert (status, headers["connection"]) == (503, "close") and "stopping" in json.loads(body)["error"]
    assert server.closed_sessions == 1
    with Session.open(path) as session:
        assert session.status()["outstanding"] == 0  # nothing handed out


@pytest.mark.parametrize("port, word", [("70000", "70000 is not a port number (0 to 65535)"),
                                        ("-1", "-1 is not a port number"), ("http", "'http' is not an integer")])
def test_serve_refuses_a_port_outside_0_to_65535_as_a_usage_error(tmp_path, capsys, port, word):
    with pytest.raises(SystemExit) as exit_status:
        main(["session", "serve", str(new_store(tmp_path)), f"--port={port}"])
    assert exit_status.value.code == 2
    assert f"argument --port: {word}" in capsys.readouterr().err


def test_cors_answers_listed_origins_only(tmp_path):
    path = new_store(tmp_path)
    listed, other = "https://crowd.example.org", "https://evil.example.com"
    preflight = [("Origin", listed), ("Access-Control-Request-Method", "POST"),
                 ("Access-Control-Request-Headers", "content-type, authorization")]
    with running(path, cors_origins=[listed, "http://localhost:3000"], token="t") as url:
        status, headers, body = exchange(url + "/campaigns/s/record", "OPTIONS", headers=preflight)
        assert (status, body) == (204, b"")  # a preflight carries no token: answered all the same
        assert headers["Access-Control-Allow-Origin"] == listed and "Origin" in headers["Vary"]
        assert headers["Access-Control-Allow-Methods"] == "POST, OPTIONS"
        assert headers["Access-Control-Allow-Headers"] == "Content-Type, Authorization"
        assert int(headers["Access-Control-Max-Age"]) > 0
        status, headers, _ = exchange(url + "/status", token="t", headers=[("Origin", listed)])
        assert status == 200 and headers["Access-Control-Allow-Origin"] == listed
        status, headers, _ = exchange(url + "/status", headers=[("Origin", listed)])  # refusals too: readable
        assert status == 401 and headers["Access-Control-Allow-Origin"] == listed
        for method, extra in (("OPTIONS", preflight[1:]), ("GET", ())):
            status, headers, _ = exchange(url + "/status", method, token="t", headers=[("Origin", other), *extra])
            assert status in (200, 204) and not [name for name in headers if name.lower().startswith("access-control")]
    with running(path) as url:  # off by default
        status, headers, _ = exchange(url + "/status", "OPTIONS", headers=preflight)
        assert status == 204 and not [name for name in headers if name.lower().startswith("access-control")]
