"""``fullbandit session serve`` as a real process: SIGTERM stops it cleanly (the request in flight is answered and
kept, every session closed, exit status 0, one line), and a kill -9 loses nothing that was answered."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from http_helpers import answer, new_store, raw_connection, read_response, request, running

from fullbandit.sessions import Session

ROOT = Path(__file__).resolve().parents[1]


def start_server(*stores):
    """``fullbandit session serve STORES --port 0`` in a new process, and its URL (read from its first line)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "fullbandit", "session", "serve", *map(str, stores), "--port",
                                "0"], cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    line = process.stdout.readline()  # blocks until the server listens (or the process ended)
    assert line.startswith("serving "), (line, process.stderr.read() if process.poll() is not None else "")
    return process, line.split(" on ", 1)[1].split("/ ", 1)[0]


def test_sigterm_answers_the_request_in_flight_closes_the_sessions_and_exits_0(tmp_path):
    first, second = new_store(tmp_path, "first"), new_store(tmp_path, "second")
    process, url = start_server(first, second)
    try:
        pulls = answer(url + "/campaigns/first/next", "POST", {"count": 3})[1]["pulls"]
        assert answer(url + "/campaigns/first/record", "POST", {"pull": 0, "reward": 1.0})[0] == 200
        body = json.dumps({"pull": pulls[1]["pull"], "reward": 2.5}).encode()
        with raw_connection(url) as (sock, stream):
            # The head of a record, its body held back: the server answers "100 Continue" once it counts the
            # request as in flight; SIGTERM then comes while the request waits for its body.
            sock.sendall(request("POST", "/campaigns/first/record",
                                 headers=["Expect: 100-continue", f"Content-Length: {len(body)}"]))
            assert stream.readline().startswith(b"HTTP/1.1 100")
            assert stream.readline() == b"\r\n"
            process.send_signal(signal.SIGTERM)
            for line in process.stderr:  # the server's log (stderr) says when it stopped accepting
                if line.startswith("stopping:"):
                    assert line.strip() == "stopping: 1 request(s) in flight"
                    break
            sock.sendall(body)
            status, _, data = read_response(stream)
            assert (status, json.loads(data)) == (200, {"ok": True, "pull": 1, "recorded": True})
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert out.strip() == "stopped: every request answered, 2 session(s) closed"
    with Session.open(first) as session:  # every digest checked: the journal is whole
        status = session.status()
        assert (status["pulls"], status["outstanding_ids"]) == (2, [2])
        assert [pull.id for pull in session.outstanding()] == [2]
    with Session.open(second) as session:
        assert session.status()["pulls"] == 0


def test_a_kill_9_mid_campaign_loses_no_answered_record(tmp_path):
    path = new_store(tmp_path, "campaign")
    process, url = start_server(path)
    answered = []
    try:
        pulls = answer(url + "/next", "POST", {"count": 8})[1]["pulls"]
        for pull in pulls[:5]:
            status, body = answer(url + "/record", "POST", {"pull": pull["pull"], "reward": 1.0 + pull["pull"]})
            assert status == 200 and body["recorded"] is True
            answered.append(pull["pull"])
        process.send_signal(signal.SIGKILL)  # no clean-up of any kind
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL
    with running(path) as url:  # restarted on the same store: it opens (every digest checked) and goes on
        status = answer(url + "/status")[1]
        assert (status["pulls"], status["outstanding"]) == (5, 3)
        assert [p["pull"] for p in answer(url + "/outstanding")[1]["pulls"]] == [5, 6, 7]
        assert answer(url + "/record", "POST", {"pull": 4, "reward": 5.0})[1]["already_recorded"] is True
        assert answer(url + "/record", "POST", {"pull": 5, "reward": 1.0})[1]["recorded"] is True
    with Session.open(path) as session:
        assert session.status()["pulls"] == 6
