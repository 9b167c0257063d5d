"""A whole live campaign over HTTP, as a crowd platform runs it, with the server killed mid-way.

The campaign: five workers of the embedded IT quiz (Li et al., CIKM 2017), the best pair
wanted (k = 2, ``phased``, epsilon 0.5 on the pair's summed accuracy), each pull answered by
the team's real graded answers to one question drawn for that pull (members answer the same
question), with the reward range [0, 2] declared. The platform hands out pulls in batches and
records them; after about a third of the campaign the server is killed (SIGKILL) while a
record is in flight, and a new server is started on the same store. The platform then asks
for the outstanding pulls and records them again (a record that had been committed before
the kill answers "already recorded"), and carries on to the stopping rule.

What must hold: nothing lost or duplicated, and the same run as the library's. A pull's reward
depends only on its id, and the platform records every pull before asking for more, so the
library driven the same way makes exactly the same journal: the same pulls, the same
observations, the same answer after the same number of pulls.
"""

from __future__ import annotations

import csv
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fullbandit.datasets.quiz import load_dataset
from fullbandit.sessions import Session

ROOT = Path(__file__).resolve().parent.parent
WORKERS = ("worker1", "worker15", "worker22", "worker36", "worker33")
START = {"algorithm": "phased", "k": 2, "parameters": {"epsilon": 0.5, "delta": 0.05}, "reward_range": [0, 2],
         "seed": 3}
BATCH = 10
MAX_PULLS = 5000  # the library stops after about 500: far beyond, the campaign is stuck (a pull never recorded)


def answers() -> tuple[np.ndarray, list[str]]:
    data = load_dataset("it")
    columns = [data.worker_ids.index(worker) for worker in WORKERS]
    return data.correct[:, columns], list(WORKERS)


def reward(correct: np.ndarray, pull_id: int, arms) -> float:
    """The team's reward for pull ``pull_id``: its members' graded answers to one question drawn for that pull."""
    question = np.random.default_rng([2026, pull_id]).integers(correct.shape[0])
    return float(correct[question, list(arms)].sum())


class Server:
    """``fullbandit session serve STORE --port 0`` in its own process, and its port."""

    def __init__(self, store: Path, *, new: bool = False):
        # The request log goes to a file: a pipe nobody reads would fill and block the server.
        self.log = store.with_suffix(".log").open("a")
        self.process = subprocess.Popen([sys.executable, "-m", "fullbandit", "session", "serve", str(store),
                                         "--port", "0", *(["--new"] if new else [])], cwd=ROOT,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)},
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline() if self.process.stdout else ""
        assert "http://" in line, (line, store.with_suffix(".log").read_text())
        self.port = int(line.split("http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])

    def call(self, method: str, route: str, body=None) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, route, body=None if body is None else json.dumps(body),
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    def kill_during_record(self, pull_id: int, value: float) -> None:
        """Send a whole ``POST /record`` and SIGKILL the server before reading its answer."""
        body = json.dumps({"pull": pull_id, "reward": value}).encode()
        with socket.create_connection(("127.0.0.1", self.port), timeout=120) as connection:
            connection.sendall(b"POST /record HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=60)
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)
        if self.process.stdout:
            self.process.stdout.close()
        self.log.close()


def drive_http(store: Path, correct: np.ndarray) -> None:
    """The platform: a new store started over HTTP, batches of pulls, each recorded; the server killed once,
    mid-record, and restarted on the store."""
    server = Server(store, new=True)
    status, answer = server.call("POST", "/start", {"workers": list(WORKERS), **START})
    assert status == 200, answer
    killed = False
    try:
        while True:
            status, answer = server.call("POST", "/next", {"count": BATCH})
            assert status != 200 or answer["pulls"][0]["pull"] < MAX_PULLS, "the campaign does not end"
            if status == 409 and "stopped" in answer["error"]:
                break
            assert status == 200, answer
            for pull in answer["pulls"]:
                value = reward(correct, pull["pull"], pull["arms"])
                if not killed and pull["pull"] >= 150:
                    killed = True
                    server.kill_during_record(pull["pull"], value)
                    server = Server(store)
                    recover(server, correct)
                    break  # the rest of this batch is outstanding: recover() recorded it
                status, answer = server.call("POST", "/record", {"pull": pull["pull"], "reward": value})
                assert status == 200 and answer["recorded"], answer
        assert killed
    finally:
        server.close()


def recover(server: Server, correct: np.ndarray) -> None:
    """After a restart: record every outstanding pull (the killed record may have been committed or not)."""
    status, answer = server.call("GET", "/outstanding")
    assert status == 200, answer
    for pull in answer["pulls"]:
        status, answer = server.call("POST", "/record", {"pull": pull["pull"],
                                                         "reward": reward(correct, pull["pull"], pull["arms"])})
        assert status == 200, answer


def drive_library(store: Path, correct: np.ndarray) -> dict:
    with Session.start(store, workers=list(WORKERS), **START) as session:
        while not session.status()["done"]:
            for pull in session.next(count=BATCH):
                assert session.record(pull.id, reward(correct, pull.id, pull.arms))
        return session.status()


def observations(store: Path, folder: Path) -> list[tuple]:
    out = folder / f"{store.stem}.csv"
    with Session.open(store) as session:
        session.export(out)
    with open(out, newline="") as handle:
        return [(row["pull"], row["arms"], row["count"], row["reward"]) for row in csv.DictReader(handle)]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_campaign_over_http_survives_a_killed_server_and_matches_the_library(tmp_path):
    correct, _ = answers()
    served, local = tmp_path / "served.db", tmp_path / "local.db"
    drive_http(served, correct)
    expected = drive_library(local, correct)
    with Session.open(served) as session:
        status = session.status()
    assert status["done"] and status["rule_fired"], status
    assert (status["pulls"], status["best_workers"]) == (expected["pulls"], expected["best_workers"])
    assert status["best_workers"] == ["worker1", "worker15"]  # the two most accurate of the five
    assert observations(served, tmp_path) == observations(local, tmp_path)
    assert status["outstanding"] == 0

