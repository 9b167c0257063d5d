"""Live sessions that finish: abandoned pulls, idempotent records, the cheap status, one Session
shared by threads, and version 2 stores still opening.

Every refusal is checked to leave the store's rows as they were; every replayed state is
compared with an algorithm driven directly through the same asks, tells and abandons.
"""

import json
import sqlite3
import threading

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.cli.main import main
from fullbandit.core import registry
from fullbandit.core.algorithm import ProtocolError
from fullbandit.sessions import RecordConflict, Session, store
from fullbandit.sessions import session as session_module

ICB = dict(algorithm="icb", n=5, k=2, epsilon=0.0001, delta=0.1, noise_scale=0.2, seed=7)  # never stops here


def rows(path):
    """Every row of every table (to compare a store before and after a refused call)."""
    with sqlite3.connect(path) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in sorted(tables)}


def direct():
    return registry.build("icb", fb.TopK(5, 2), epsilon=0.0001, delta=0.1, noise_scale=0.2, seed=7)


def reward(pull):
    return 0.25 * (pull.id % 4)


# --- abandon ---------------------------------------------------------------------------------

def test_an_abandoned_pull_s_team_is_handed_out_again_as_the_algorithm_does_directly(tmp_path):
    session = Session.start(tmp_path / "s.db", **ICB)
    first, second, third = session.next(count=3)
    assert session.record(second.id, reward(second))  # held: waits for the first
    assert session.status()["waiting"] == [second.id]
    assert session.abandon(first.id) is True
    status = session.status()
    assert (status["pulls"], status["waiting"], status["abandoned"], status["outstanding_ids"]) == (1, [], 1, [2])
    session.record(third.id, reward(third))
    algorithm = direct()
    a, b, c = (algorithm.ask() for _ in range(3))
    algorithm.tell(b, reward(b))
    algorithm.abandon(a)
    algorithm.tell(c, reward(c))
    again = session.next(count=12)
    assert again == [algorithm.ask() for _ in range(12)]
    assert first.arms in [pull.arms for pull in again]  # the static design hands the team out again
    session.close()
    with Session.open(tmp_path / "s.db") as reopened:  # replayed from the journal, abandon included
        assert reopened.outstanding() == again
        assert reopened.next() == [algorithm.ask()]
        assert reopened.status()["abandoned"] == 1


def test_abandon_is_idempotent_and_refuses_recorded_and_unknown_pulls(tmp_path):
    path = tmp_path / "s.db"
    session = Session.start(path, **ICB)
    first, second = session.next(count=2)
    session.record(second.id, 1.0)
    assert session.abandon(first.id) is True
    before = rows(path)
    assert session.abandon(first.id) is False  # a retry: nothing written
    for pull, message in [(second.id, "pull=1 is already recorded .*cannot be abandoned"),
                          (7, "pull=7 was never handed out")]:
        with pytest.raises(ProtocolError, match=message):
            session.abandon(pull)
    with pytest.raises(ProtocolError, match="pull=0 was abandoned: it takes no reward, and its team is handed out "
                                            "again as a new pull"):
        session.record(first.id, 1.0)
    with pytest.raises(fb.InvalidParameterError, match="pull=-1"):
        session.abandon(-1)
    assert rows(path) == before
    session.close()


# --- idempotent record -----------------------------------------------------------------------

def test_a_retried_record_is_answered_already_recorded_and_another_reward_is_a_conflict(tmp_path):
    path = tmp_path / "s.db"
    session = Session.start(path, **ICB)
    [pull] = session.next()
    assert session.record(pull.id, 0.1 + 0.2) is True
    before = rows(path)
    for same in [0.30000000000000004, np.float64(0.1 + 0.2)]:  # equal after the JSON round trip
        assert session.record(pull.id, same) is False
    with pytest.raises(RecordConflict, match=r"pull=0 is already recorded with reward 0.30000000000000004, not 0.3"):
        session.record(pull.id, 0.3)
    with pytest.raises(fb.InvalidParameterError, match="reward"):  # malformed: refused as such
        session.record(pull.id, float("nan"))
    assert rows(path) == before
    assert issubclass(RecordConflict, ProtocolError)
    session.close()


def test_a_semi_feedback_retry_compares_the_list(tmp_path):
    session = Session.start(tmp_path / "l.db", algorithm="lucb", n=4, k=2, epsilon=0.5, delta=0.1,
                            reward_range=(0, 1), seed=1)
    [pull] = session.next()
    assert session.record(pull.id, [1]) is True
    assert session.record(pull.id, [1.0]) is False
    with pytest.raises(RecordConflict, match=r"already recorded with reward \[1.0\], not \[0.0\]"):
        session.record(pull.id, [0.0])
    session.close()


def test_a_retry_is_answered_after_the_session_stopped_and_an_outstanding_pull_can_be_abandoned(tmp_path):
    path = tmp_path / "s.db"
    session = Session.start(path, **{**ICB, "epsilon": 1.0})
    means = [0.9, 0.8, 0.3, 0.2, 0.1]
    recorded, left = [], []
    while not session.status()["done"]:
        for pull in session.next(count=3):  # the rule fires on a record with younger pulls still out
            if session.status()["done"]:
                left.append(pull)
            else:
                session.record(pull.id, sum(means[a] for a in pull.arms))
                recorded.append(pull)
    status = session.status()
    assert status["rule_fired"] and status["pulls_needed"] == 0 and left
    last = recorded[-1]
    assert session.record(last.id, sum(means[a] for a in last.arms)) is False
    with pytest.raises(RecordConflict):
        session.record(last.id, 0.0)
    with pytest.raises(ProtocolError, match="has stopped"):
        session.record(left[0].id, 1.0)
    assert session.abandon(left[0].id) is True  # a worker gone after the stop: changes nothing else
    after = session.status()
    assert after["abandoned"] == 1 and after["outstanding"] == status["outstanding"] - 1
    assert {key: value for key, value in after.items() if key not in ("abandoned", "outstanding", "outstanding_ids")} \
        == {key: value for key, value in status.items() if key not in ("abandoned", "outstanding", "outstanding_ids")}
    session.close()
    with Session.open(path) as reopened:
        assert reopened.status() == after


# --- status ---------------------------------------------------------------------------------

def test_status_counts_outstanding_pulls_and_lists_the_oldest_ids(tmp_path):
    session = Session.start(tmp_path / "s.db", **ICB)
    pulls = session.next(count=30)
    for pull in pulls[:3]:
        session.record(pull.id, reward(pull))
    session.abandon(5)
    status = session.status()
    assert status["outstanding"] == 26 and status["abandoned"] == 1
    assert status["outstanding_ids"] == [3, 4, *range(6, 24)]  # the 20 oldest
    assert [pull.id for pull in session.outstanding()] == [3, 4, *range(6, 30)]
    assert status["budget_left"] is None and status["pulls"] == 3
    # Before a finite gap bound there is no estimate; after, the 1/sqrt(pulls) extrapolation.
    assert status["pulls_needed"] is None and status["gap_bound"] == "inf"
    for pull in session.outstanding():
        session.record(pull.id, reward(pull))
    status = session.status()
    gap, epsilon, pulls = status["gap_bound"], status["epsilon"], status["pulls"]
    assert isinstance(gap, float) and pulls == 29
    assert status["pulls_needed"] == int(np.ceil(pulls * ((gap / epsilon) ** 2 - 1))) > 0
    session.close()


def test_a_fixed_budget_session_reports_the_budget_left_instead(tmp_path):
    session = Session.start(tmp_path / "a.db", algorithm="apt", n=4, threshold=0.5, reward_range=(0, 1),
                            parameters={"budget": 20}, seed=1)
    for _ in range(3):
        [pull] = session.next()
        session.record(pull.id, [1.0])
    status = session.status()
    assert (status["pulls_needed"], status["budget_left"], status["pulls"]) == (None, 17, 3)
    session.close()


def test_pulls_needed_estimate():
    estimate = session_module.pulls_needed
    assert estimate(100, 0.3, 0.1, fired=False, done=False) == 800
    assert estimate(100, 0.05, 0.1, fired=False, done=False) == 0  # below epsilon: the next check
    assert estimate(100, 0.3, 0.1, fired=True, done=True) == 0
    assert estimate(100, 0.3, 0.1, fired=False, done=True) is None  # stopped by its budget
    assert estimate(100, 1e300, 1e-300, fired=False, done=False) is None  # overflow: no estimate
    assert estimate(100, 0.3, 0.0, fired=False, done=False) is None
    assert estimate(0, 0.3, 0.1, fired=False, done=False) is None


# --- what operations read ----------------------------------------------------------------------

def test_operations_read_only_the_events_appended_since_the_kept_state(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    session = Session.start(path, **ICB)
    for pull in session.next(count=40):
        session.record(pull.id, reward(pull))  # 80 events
    other = Session.open(path)
    [pull] = other.next()
    other.record(pull.id, 1.0)  # two events the first session has not seen
    read, built = [], []
    events = store.events
    monkeypatch.setattr(store, "events", lambda connection, where, after=0: read.append(after) or
                        events(connection, where, after))
    monkeypatch.setattr(session_module, "build_algorithm", lambda *a, **k: built.append(a))
    session.status()
    assert read == [79]  # the kept event 80 itself, then the two new ones
    session.outstanding()
    [pull] = session.next()
    session.abandon(pull.id)
    session.record(0, reward(fb.Pull(0, ())))  # a retry
    assert read == [79, 81, 81, 82, 83] and built == []
    session.close()
    other.close()


def test_open_reads_and_checks_the_journal_once(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    with Session.start(path, **ICB) as session:
        for pull in session.next(count=10):
            session.record(pull.id, reward(pull))
    calls = []
    events = store.events
    monkeypatch.setattr(store, "events", lambda *a, **k: calls.append(a) or events(*a, **k))
    with Session.open(path) as reopened:
        assert reopened.status()["pulls"] == 10
    assert len(calls) == 2 and calls[0][2:] in [(), (0,)]  # the open's one pass from the start, the status's tail


# --- one Session shared by threads -----------------------------------------------------------

def test_threads_sharing_one_session_and_another_session_lose_nothing(tmp_path):
    path = tmp_path / "s.db"
    shared = Session.start(path, **ICB)
    pulls = shared.next(count=48)
    second = Session.open(path)
    threads = 6
    barrier = threading.Barrier(threads + 1)
    answers: dict[int, list[bool]] = {}
    errors = []

    def work(index, session):
        try:
            barrier.wait(timeout=60)
            for pull in pulls[index::threads + 1]:
                # Two records of the same pull: exactly one is recorded, the other a retry.
                answers[pull.id] = [session.record(pull.id, reward(pull)), session.record(pull.id, reward(pull))]
                session.status()
        except Exception as error:  # reported by the main thread
            errors.append(error)

    workers = [threading.Thread(target=work, args=(i, shared)) for i in range(threads)]
    workers.append(threading.Thread(target=work, args=(threads, second)))
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert errors == [] and not any(worker.is_alive() for worker in workers)
    assert sorted(answers) == list(range(48)) and all(answer == [True, False] for answer in answers.values())
    algorithm = direct()
    for pull in [algorithm.ask() for _ in range(48)]:
        algorithm.tell(pull, reward(pull))
    expected = algorithm.ask()
    with Session.open(path) as fresh:
        assert fresh.status() == shared.status() == second.status()
        assert shared.status()["pulls"] == 48
        assert fresh.next() == [expected]
    shared.close()
    second.close()


# --- a version 2 store (written by the previous release) ----------------------------------------

V2_SCHEMA = """
CREATE TABLE meta (format TEXT NOT NULL, version INTEGER NOT NULL, created TEXT NOT NULL, digest TEXT NOT NULL) STRICT;
CREATE TABLE head (seq INTEGER NOT NULL, digest TEXT NOT NULL) STRICT;
CREATE TABLE pulls (seq INTEGER NOT NULL UNIQUE, id INTEGER PRIMARY KEY, arms TEXT NOT NULL,
                    count INTEGER NOT NULL, asked_at REAL NOT NULL, digest TEXT NOT NULL) STRICT;
CREATE TABLE observations (seq INTEGER NOT NULL UNIQUE, pull INTEGER NOT NULL UNIQUE REFERENCES pulls(id),
                           reward TEXT NOT NULL, recorded_at REAL NOT NULL, digest TEXT NOT NULL) STRICT
"""


def v2_store(tmp_path, records=6):
    """A version 2 store as the previous release wrote it: its schema, meta version 2, the same chain."""
    with Session.start(tmp_path / "model.db", **ICB) as model:
        created = json.dumps(model.created, allow_nan=False)
    path = tmp_path / "v2.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    for statement in V2_SCHEMA.split(";"):
        connection.execute(statement)
    digest = store.meta_digest(store.FORMAT, 2, created)
    connection.execute("BEGIN")
    connection.execute("INSERT INTO meta VALUES (?, 2, ?, ?)", (store.FORMAT, created, digest))
    connection.execute("INSERT INTO head VALUES (0, ?)", (digest,))
    algorithm, seq = direct(), 0
    for pull in [algorithm.ask() for _ in range(records)]:
        seq += 1
        digest = store.pull_digest(digest, seq, pull.id, json.dumps(list(pull.arms)), 1, 1700000000.0 + seq)
        connection.execute("INSERT INTO pulls VALUES (?, ?, ?, 1, ?, ?)",
                           (seq, pull.id, json.dumps(list(pull.arms)), 1700000000.0 + seq, digest))
    for pull in range(records - 2):  # the last two stay outstanding
        seq += 1
        digest = store.observation_digest(digest, seq, pull, "0.5", 1700000000.0 + seq)
        connection.execute("INSERT INTO observations VALUES (?, ?, '0.5', ?, ?)",
                           (seq, pull, 1700000000.0 + seq, digest))
    connection.execute("UPDATE head SET seq = ?, digest = ?", (seq, digest))
    connection.execute("COMMIT")
    connection.close()
    return path


def test_a_version_2_store_opens_records_and_abandons(tmp_path):
    path = v2_store(tmp_path)
    with Session.open(path) as session:
        status = session.status()
        assert (status["pulls"], status["outstanding"], status["abandoned"]) == (4, 2, 0)
        assert "abandons" not in rows(path)
        assert session.record(4, 0.5) is True and session.record(4, 0.5) is False
        assert session.abandon(5) is True  # creates the table, in the abandon's transaction
        assert session.abandon(5) is False
        [again] = session.next()
    with Session.open(path) as reopened:
        assert reopened.status()["abandoned"] == 1 and reopened.outstanding() == [again]
    tables = rows(path)
    assert tables["meta"][0][1] == 2 and len(tables["abandons"]) == 1  # still version 2: its digest covers it
    algorithm = direct()
    pulls = [algorithm.ask() for _ in range(6)]
    for pull in pulls[:5]:
        algorithm.tell(pull, 0.5)
    algorithm.abandon(pulls[5])
    assert again == algorithm.ask()


def test_a_refused_first_abandon_in_a_version_2_store_creates_no_table(tmp_path):
    path = v2_store(tmp_path)
    before = rows(path)
    with Session.open(path) as session:
        with pytest.raises(ProtocolError, match="already recorded"):
            session.abandon(0)
        with pytest.raises(ProtocolError, match="never handed out"):
            session.abandon(99)
    assert rows(path) == before


def test_a_new_store_is_version_3_with_the_abandons_table(tmp_path):
    with Session.start(tmp_path / "s.db", **ICB):
        pass
    tables = rows(tmp_path / "s.db")
    assert tables["meta"][0][1] == store.SCHEMA_VERSION == 3 and tables["abandons"] == []
    with sqlite3.connect(tmp_path / "s.db") as connection:
        connection.execute("DROP TABLE abandons")
    with pytest.raises(fb.StateError, match=r"table\(s\) \['abandons'\] missing"):
        Session.open(tmp_path / "s.db")


def test_an_edited_abandon_is_refused(tmp_path):
    path = tmp_path / "s.db"
    with Session.start(path, **ICB) as session:
        first, second = session.next(count=2)
        session.abandon(first.id)
        session.record(second.id, 1.0)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE abandons SET pull = 1")
    with pytest.raises(fb.StateError, match=r"journal event 3 \(abandon of pull 1\) was changed after it was "
                                            "recorded"):
        Session.open(path)


# --- command line ---------------------------------------------------------------------------------

def test_cli_abandon_and_record_retries(tmp_path, capsys):
    path = tmp_path / "s.db"
    with Session.start(path, **ICB) as session:
        session.next(count=2)
    store_ = str(path)
    capsys.readouterr()
    assert main(["session", "abandon", store_, "--pull", "0"]) == 0
    assert main(["session", "abandon", store_, "--pull", "0"]) == 0
    assert main(["session", "record", store_, "--pull", "1", "--reward", "1.5"]) == 0
    assert main(["session", "record", store_, "--pull", "1", "--reward", "1.50"]) == 0
    assert capsys.readouterr().out.splitlines() == ["abandoned pull 0", "pull 0 was already abandoned",
                                                    "recorded pull 1", "pull 1 was already recorded with this reward"]
    before = rows(path)
    assert main(["session", "record", store_, "--pull", "1", "--reward", "2"]) == 2
    assert "pull=1 is already recorded with reward 1.5, not 2.0" in capsys.readouterr().err
    assert main(["session", "abandon", store_, "--pull", "1"]) == 2
    assert "pull=1 is already recorded" in capsys.readouterr().err
    assert main(["session", "record", store_, "--pull", "0", "--reward", "1"]) == 2
    assert "pull=0 was abandoned" in capsys.readouterr().err
    assert rows(path) == before

