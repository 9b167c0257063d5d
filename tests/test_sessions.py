"""Live sessions (issue 12): the journal in SQLite is the truth, refused commands leave no trace,
tampered stores are refused, kills and concurrent writers lose nothing."""

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fullbandit as fb
from fullbandit.cli.main import main
from fullbandit.core import registry
from fullbandit.sessions import Session, store
from fullbandit.util.state import StateError

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
MEANS = [0.9, 0.8, 0.3, 0.2, 0.1]
START = ["--n", "5", "--k", "2", "--algorithm", "icb", "--epsilon", "0.1", "--delta", "0.1",
         "--noise-scale", "0.2", "--seed", "7"]


def journal(path):
    """The journal rows and the meta row, read without the library (to compare before/after)."""
    with sqlite3.connect(path) as connection:
        return [connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                for table in ("meta", "pulls", "observations")]


def new_session(tmp_path, name="s.db", **kwargs):
    options = dict(algorithm="icb", n=5, k=2, epsilon=0.1, delta=0.1, noise_scale=0.2, seed=7) | kwargs
    return Session.start(tmp_path / name, **options)


@pytest.mark.slow
def test_cli_session_reaches_the_same_answer_and_pull_count_as_run(tmp_path, capsys):
    path = str(tmp_path / "s.db")
    assert main(["session", "start", path, *START]) == 0
    environment = fb.GaussianSum(MEANS, sigma=0.2, seed=11)
    for _ in range(5000):
        capsys.readouterr()
        assert main(["session", "status", path, "--json"]) == 0
        if json.loads(capsys.readouterr().out)["done"]:
            break
        assert main(["session", "next", path, "--json"]) == 0
        (pull,) = json.loads(capsys.readouterr().out)
        reward = environment.pull(tuple(pull["arms"]))
        assert main(["session", "record", path, "--pull", str(pull["pull"]), "--reward", repr(reward)]) == 0
    capsys.readouterr()
    assert main(["session", "status", path, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    algorithm = registry.build("icb", fb.TopK(5, 2), epsilon=0.1, delta=0.1, noise_scale=0.2, seed=7)
    expected = fb.run(algorithm, fb.GaussianSum(MEANS, sigma=0.2, seed=11), blocks=False, progress=False)
    assert status["rule_fired"] and status["stop_reason"] == "stopping rule"
    assert (tuple(status["best_team"]), status["pulls"]) == (expected.answer, expected.pulls)
    assert status["gap_bound"] == pytest.approx(expected.gap_bound)
    out = tmp_path / "obs.csv"
    assert main(["session", "export", path, "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == expected.pulls + 1


def test_several_pulls_out_at_once_recorded_in_another_order(tmp_path):
    session = new_session(tmp_path)
    pulls = session.next(count=4)
    assert [p.id for p in pulls] == [0, 1, 2, 3]
    for pull in reversed(pulls):
        session.record(pull.id, 1.0)
        session.close()
        session = Session.open(tmp_path / "s.db")  # each record survives a reopen
    status = session.status()
    assert status["pulls"] == 4 and status["outstanding"] == 0 and status["outstanding_ids"] == []
    # The same asks and tells on one algorithm directly give the same state.
    algorithm = registry.build("icb", fb.TopK(5, 2), epsilon=0.1, delta=0.1, noise_scale=0.2, seed=7)
    direct = [algorithm.ask() for _ in range(4)]
    assert direct == pulls
    for pull in reversed(direct):
        algorithm.tell(pull, 1.0)
    assert session.next()[0] == algorithm.ask()


@pytest.mark.parametrize("pull, reward", [(99, 1.0), (0, 1.0), (1, float("nan")), (1, "abc"), (1, [1.0, 2.0])])
def test_a_refused_record_changes_nothing(tmp_path, pull, reward):
    session = new_session(tmp_path)
    session.next(count=2)
    session.record(0, 0.5)
    before = journal(tmp_path / "s.db")
    with pytest.raises((fb.InvalidParameterError, TypeError)):
        session.record(pull, reward)
    assert journal(tmp_path / "s.db") == before


@pytest.mark.parametrize("reward", ["abc", "nan", "inf"])
def test_a_refused_cli_record_exits_2_and_changes_nothing(tmp_path, reward, capsys):
    session = new_session(tmp_path)
    session.next()
    before = journal(tmp_path / "s.db")
    assert main(["session", "record", str(tmp_path / "s.db"), "--pull", "0", "--reward", reward]) == 2
    assert "--reward" in capsys.readouterr().err
    assert journal(tmp_path / "s.db") == before


def test_a_refused_next_or_start_changes_nothing(tmp_path):
    session = new_session(tmp_path)
    before = journal(tmp_path / "s.db")
    with pytest.raises(fb.InvalidParameterError, match="count"):
        session.next(count=0)
    assert journal(tmp_path / "s.db") == before
    with pytest.raises(fb.InvalidParameterError, match="epsilon"):
        new_session(tmp_path, name="t.db", epsilon=-1.0)
    assert not (tmp_path / "t.db").exists()


def _recorded_store(tmp_path, records=8):
    session = new_session(tmp_path, epsilon=0.0001)  # never stops within these records
    for pull in session.next(count=records):
        session.record(pull.id, 0.25 * (pull.id % 4))
    session.close()
    return tmp_path / "s.db"


def _edit(path, sql, *args):
    with sqlite3.connect(path) as connection:
        connection.execute(sql, args)
    sqlite3.connect(path).close()


def _rechain(path):
    """Recompute every digest and the head, as a careful forger would: only the replay can tell then."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT seq, id, arms, count, NULL, asked_at FROM pulls UNION ALL "
                                  "SELECT seq, pull, NULL, NULL, reward, recorded_at FROM observations "
                                  "ORDER BY 1").fetchall()
        format_name, version, created = connection.execute("SELECT format, version, created FROM meta").fetchone()
        previous = store.meta_digest(format_name, version, created)
        connection.execute("UPDATE meta SET digest = ?", (previous,))
        seq = 0
        for seq, pull, arms, count, reward, at in rows:
            if reward is None:
                previous = store.pull_digest(previous, seq, pull, arms, count, at)
                connection.execute("UPDATE pulls SET digest = ? WHERE seq = ?", (previous, seq))
            else:
                previous = store.observation_digest(previous, seq, pull, reward, at)
                connection.execute("UPDATE observations SET digest = ? WHERE seq = ?", (previous, seq))
        connection.execute("UPDATE head SET seq = ?, digest = ?", (seq, previous))


TAMPERING = {
    "reward to text": ("UPDATE observations SET reward = 'abc' WHERE pull = 3", "changed after"),
    "reward to another number": ("UPDATE observations SET reward = '9.0' WHERE pull = 3", "changed after"),
    "arms": ("UPDATE pulls SET arms = '[0, 1]' WHERE id = 2", "changed after"),
    "schema version": ("UPDATE meta SET version = 99", "schema version 99"),
    "format": ("UPDATE meta SET format = 'other'", "format"),
    "creation parameters": ("UPDATE meta SET created = json_set(created, '$.parameters.delta', 7)",
                            "meta 'created' .* was changed"),
    "meta digest": ("UPDATE meta SET digest = ?", "meta 'created' .* was changed"),
    "a deleted event": ("DELETE FROM pulls WHERE id = 0", "event 1 is missing"),
    # A hash chain cannot see a cut end: the head (last seq and digest) can.
    "the last event deleted": ("DELETE FROM observations WHERE seq = 16", "journal event 16 missing"),
    "the last events deleted": ("DELETE FROM observations WHERE seq > 12", "journal events 13 to 16 missing"),
    "the head moved back": ("UPDATE head SET seq = 15, digest = (SELECT digest FROM observations WHERE seq = 15)",
                            "journal event 16 added after the end that table head records"),
    "the head's digest": ("UPDATE head SET digest = ?", "the end of the journal was replaced"),
    "the head deleted": ("DELETE FROM head", "table head holds 0 rows"),
}


@pytest.mark.parametrize("name", TAMPERING)
def test_a_store_edited_by_hand_is_refused_naming_the_file_and_left_as_it_is(tmp_path, name):
    path = _recorded_store(tmp_path)
    sql, message = TAMPERING[name]
    _edit(path, sql, *(["0" * 64] if "?" in sql else []))
    content = path.read_bytes()
    with pytest.raises(StateError, match=message) as error:
        Session.open(path)
    assert str(path) in str(error.value)
    assert path.read_bytes() == content


@pytest.mark.parametrize("records", [0, 8])
@pytest.mark.parametrize("field, value", [("$.parameters.epsilon", 50), ("$.offered.reward_range", "[0, 0.02]"),
                                          ("$.seed", 8), ("$.workers[0]", "eve")])
def test_an_edited_creation_parameter_is_refused_naming_meta(tmp_path, records, field, value):
    session = new_session(tmp_path, epsilon=0.5, noise_scale=None, reward_range=(0, 3))
    for pull in session.next(count=records) if records else []:
        session.record(pull.id, 1.5)
    session.close()
    path = tmp_path / "s.db"
    if isinstance(value, str) and value.startswith("["):
        _edit(path, "UPDATE meta SET created = json_set(created, ?, json(?))", field, value)
    else:
        _edit(path, "UPDATE meta SET created = json_set(created, ?, ?)", field, value)
    with pytest.raises(StateError, match="meta 'created'") as error:
        Session.open(path)
    assert str(path) in str(error.value)
    # Even with the meta digest recomputed, every journal digest (or the head, when there is no event) breaks.
    with sqlite3.connect(path) as connection:
        format_name, version, created = connection.execute("SELECT format, version, created FROM meta").fetchone()
        connection.execute("UPDATE meta SET digest = ?", (store.meta_digest(format_name, version, created),))
    with pytest.raises(StateError, match="event 1 .*or the meta row .* was changed" if records else
                       r"the meta row \(meta 'created'\) or table head was changed"):
        Session.open(path)


def test_a_store_of_schema_version_1_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as connection:  # the version 1 layout: no meta digest, no head
        connection.execute("CREATE TABLE meta (format TEXT NOT NULL, version INTEGER NOT NULL, created TEXT NOT NULL)")
        for table in ("pulls", "observations", "snapshot"):
            connection.execute(f"CREATE TABLE {table} (seq INTEGER)")
        connection.execute("INSERT INTO meta VALUES (?, 1, '{}')", (store.FORMAT,))
    with pytest.raises(StateError, match=r"schema version 1; this fullbandit reads versions 2 to 3 only \(older"):
        Session.open(path)


def test_appends_move_the_head_with_them(tmp_path):
    path = _recorded_store(tmp_path, records=3)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT seq, digest FROM head").fetchall() == \
            connection.execute("SELECT seq, digest FROM observations WHERE seq = 6").fetchall()
    with Session.open(path) as session:  # a refused operation leaves the head where it was
        with pytest.raises(fb.InvalidParameterError):
            session.record(0, 1.0)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT seq FROM head").fetchone() == (6,)


@pytest.mark.parametrize("sql, message", [
    ("UPDATE meta SET created = json_set(created, '$.parameters.delta', 7)", "creation parameters are malformed"),
    ("UPDATE pulls SET arms = '[0, 1]' WHERE id = 2", "algorithm replayed from the journal asks"),
    ("UPDATE observations SET reward = '\"abc\"' WHERE pull = 3", "cannot be replayed"),
    ("UPDATE observations SET reward = 'NaN' WHERE pull = 3", "cannot be replayed"),
])
def test_a_forged_store_with_recomputed_digests_is_refused_by_the_replay(tmp_path, sql, message):
    path = _recorded_store(tmp_path)
    _edit(path, sql)
    _rechain(path)
    with pytest.raises(StateError, match=message):
        Session.open(path)


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.1])
def test_a_truncated_store_is_refused(tmp_path, keep):
    path = _recorded_store(tmp_path, records=200)
    content = path.read_bytes()
    path.write_bytes(content[: int(len(content) * keep)])
    truncated = path.read_bytes()
    with pytest.raises(StateError, match=str(path)):
        Session.open(path)
    assert path.read_bytes() == truncated


def test_a_missing_or_foreign_file_is_refused(tmp_path):
    with pytest.raises(StateError, match="does not exist"):
        Session.open(tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()
    (tmp_path / "text.db").write_text("hello " * 1000)
    with pytest.raises(StateError, match="text.db"):
        Session.open(tmp_path / "text.db")


def test_a_store_keeps_no_copy_of_the_algorithm_state(tmp_path):
    """The journal is the only truth: there is no snapshot to disagree with it."""
    path = _recorded_store(tmp_path, records=60)
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == set(store.TABLES) and "snapshot" not in tables


# --- rewards the session refuses, and a stopped session ------------------------------------
def _ranged(tmp_path, algorithm="icb", reward_range=(0, 3)):
    session = new_session(tmp_path, algorithm=algorithm, epsilon=0.5, noise_scale=None, reward_range=reward_range)
    return session, tmp_path / "s.db"


@pytest.mark.parametrize("reward", [7, -2, 3.001, -1e-3])
def test_a_reward_outside_the_range_is_refused_naming_it_the_pull_and_the_range(tmp_path, reward, capsys):
    session, path = _ranged(tmp_path)
    first, second = session.next(count=2)
    before = journal(path)
    with pytest.raises(fb.InvalidParameterError, match=rf"reward {reward} of pull 0 is outside the session's "
                                                       r"reward range \[0.0, 3.0\] \(the range of the team's reward"):
        session.record(first.id, reward)
    assert journal(path) == before
    assert main(["session", "record", str(path), "--pull", "1", "--reward", str(reward)]) == 2
    assert "of pull 1 is outside the session's reward range [0.0, 3.0]" in capsys.readouterr().err
    assert journal(path) == before
    session.record(first.id, 0.0)  # the bounds themselves are in the range
    session.record(second.id, 3.0)
    session.close()


def test_a_semi_feedback_reward_range_bounds_each_member(tmp_path):
    session, path = _ranged(tmp_path, algorithm="lucb", reward_range=(0, 1))
    [pull] = session.next()
    (arm,) = pull.arms
    before = journal(path)
    with pytest.raises(fb.InvalidParameterError, match=rf"worker {arm}'s reward 7 of pull 0 is outside the session's "
                                                       r"reward range \[0.0, 1.0\] \(the range of each member's"):
        session.record(pull.id, [7])
    assert journal(path) == before
    session.record(pull.id, [1.0])
    session.close()


def test_a_pull_s_count_multiplies_the_range(tmp_path):
    session, _ = _ranged(tmp_path)
    block = fb.Pull(0, (0, 1), count=3)  # sessions hand out single pulls; a block sums count rewards
    session._check_range(block, 9.0)
    with pytest.raises(fb.InvalidParameterError, match=r"outside \[0.0, 9.0\], the session's reward range \[0.0, 3.0\] "
                                                       "times the pull's count 3"):
        session._check_range(block, 9.5)
    session.close()


def _finished_store(tmp_path):
    session = new_session(tmp_path, epsilon=1.0)
    for _ in range(1000):  # bounded: the rule fires after about 10 pulls
        if session.status()["done"]:
            break
        [pull] = session.next()
        session.record(pull.id, sum(MEANS[a] for a in pull.arms))
    assert session.status()["stop_reason"] == "stopping rule"
    session.close()
    return tmp_path / "s.db"


def test_next_on_a_stopped_session_says_why_and_where_the_outcome_is(tmp_path, capsys):
    path = _finished_store(tmp_path)
    before = journal(path)
    assert main(["session", "next", str(path)]) == 2
    error = capsys.readouterr().err
    assert f"session {path} has stopped: the stopping rule fired after" in error
    assert "`fullbandit session status`" in error and "`fullbandit session export`" in error
    assert "result()" not in error
    assert journal(path) == before


# --- command-line rewards and exports ---------------------------------------------------------
LUCB = ["--n", "4", "--k", "2", "--algorithm", "lucb", "--epsilon", "0.5", "--delta", "0.1",
        "--reward-range", "0", "1", "--seed", "1"]


def _lucb_pull(tmp_path, capsys):
    path = str(tmp_path / "l.db")
    assert main(["session", "start", path, *LUCB]) == 0
    capsys.readouterr()
    assert main(["session", "next", path, "--json"]) == 0
    (pull,) = json.loads(capsys.readouterr().out)
    return path, pull


@pytest.mark.parametrize("text", ["1", "1.0", "[1]", " [1.0] "])
def test_a_lucb_session_records_a_single_arm_reward_from_the_cli(tmp_path, text, capsys):
    path, pull = _lucb_pull(tmp_path, capsys)
    assert main(["session", "record", path, "--pull", str(pull["pull"]), "--reward", text]) == 0
    assert [json.loads(row[2]) for row in journal(path)[2]] == [[1.0]]


@pytest.mark.parametrize("text", ["1,0.5", "[1, 0.5]", "[]", "abc", "[true]", "nan", "[1e999]"])
def test_a_lucb_cli_reward_of_another_form_is_refused_saying_what_the_pull_takes(tmp_path, text, capsys):
    path, pull = _lucb_pull(tmp_path, capsys)
    before = journal(path)
    assert main(["session", "record", path, "--pull", str(pull["pull"]), "--reward", text]) == 2
    (worker,) = pull["workers"]
    assert (f"--reward={text!r} does not fit pull {pull['pull']}: give one finite number, worker {worker}'s "
            "observed reward (semi feedback), e.g. --reward 1") in capsys.readouterr().err
    assert journal(path) == before


def test_cli_reward_forms_for_teams():
    from fullbandit.cli.session import parse_reward
    from fullbandit.core.algorithm import Pull
    workers = ["ann", "bob", "cy", "dee"]
    three = Pull(4, (0, 2, 3))
    assert parse_reward("1,0.5,0", three, "semi", workers) == parse_reward("[1, 0.5, 0]", three, "semi", workers) \
        == [1.0, 0.5, 0.0]
    expected = r"--reward='1' does not fit pull 4: give 3 finite numbers, one per member in the order ann, cy, dee"
    with pytest.raises(fb.InvalidParameterError, match=expected + r" .*e.g. --reward 1,0.5,0.5"):
        parse_reward("1", three, "semi", workers)
    assert parse_reward("1.5", Pull(0, (0, 1)), "full", workers) == 1.5
    with pytest.raises(fb.InvalidParameterError, match="give one finite number, the observed reward of the team ann"):
        parse_reward("1,0.5", Pull(0, (0, 1)), "full", workers)


def test_export_refuses_the_store_itself_by_any_path(tmp_path, capsys):
    path = _recorded_store(tmp_path)
    before = journal(path)
    os.link(path, tmp_path / "hard.db")
    (tmp_path / "link.db").symlink_to(path)
    for out in [path, tmp_path / "." / "s.db", tmp_path / "link.db", tmp_path / "hard.db", f"{path}-wal"]:
        assert main(["session", "export", str(path), "--out", str(out)]) == 2
        assert f"--out {out} is the session store" in capsys.readouterr().err
    assert journal(path) == before
    with Session.open(path) as session:
        assert session.status()["pulls"] == 8


def test_export_to_a_path_it_cannot_write_is_a_clean_error_naming_out(tmp_path, capsys):
    path = _recorded_store(tmp_path)
    for out in [tmp_path, tmp_path / "missing" / "obs.csv"]:
        assert main(["session", "export", str(path), "--out", str(out)]) == 2
        error = capsys.readouterr().err
        assert error.startswith(f"fullbandit: error: --out {out}: cannot write the export there (") and \
            "Traceback" not in error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]


def test_a_failed_export_leaves_the_old_file_and_no_partial_one(tmp_path, monkeypatch, capsys):
    path = _recorded_store(tmp_path)
    out = tmp_path / "obs.csv"
    assert main(["session", "export", str(path), "--out", str(out)]) == 0
    good = out.read_text()
    assert len(good.splitlines()) == 9

    def disk_full(self, handle):
        handle.write("observation,pull\n1,")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Session, "write_csv", disk_full)
    assert main(["session", "export", str(path), "--out", str(out)]) == 2
    assert f"--out {out}: cannot write the export there (No space left on device)" in capsys.readouterr().err
    assert out.read_text() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["obs.csv", "s.db"]


# --- kills and concurrency --------------------------------------------------------------
RECORDER = """
import sys
from fullbandit.sessions import Session
path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with Session.open(path) as session:
    for pull in range(first, last):
        session.record(pull, 0.001 * pull)
        print(pull, flush=True)  # only after record returned: the test's list of committed records
"""


def _recorder(path, first, last):
    return subprocess.Popen([sys.executable, "-c", RECORDER, str(path), str(first), str(last)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kill_loop(tmp_path, kills):
    session = new_session(tmp_path, epsilon=0.0001)  # never stops within this test
    total = 300 * kills
    session.next(count=total)
    session.close()
    path = tmp_path / "s.db"
    rng = random.Random(0)
    confirmed: set[int] = set()
    first, killed_mid_loop = 0, 0
    for _ in range(kills):
        process = _recorder(path, first, total)
        assert process.stdout is not None
        line = process.stdout.readline()  # the loop is running: kill it at a random point within it
        time.sleep(rng.uniform(0.0, 0.05))
        process.send_signal(signal.SIGKILL)
        out, _ = process.communicate()
        done = [int(number) for number in (line + out).split()]
        killed_mid_loop += bool(done) and done[-1] < total - 1
        confirmed |= set(done)
        with Session.open(path) as reopened:  # consistent after every kill
            outstanding = {pull.id for pull in reopened.outstanding()}
        recorded = set(range(total)) - outstanding
        assert confirmed <= recorded  # every record that returned is in the journal
        assert recorded == set(range(len(recorded)))  # and nothing else: one process, in order
        first = len(recorded)
    rows = journal(path)[2]
    assert all(json.loads(row[2]) == pytest.approx(0.001 * row[1]) for row in rows)
    assert killed_mid_loop == kills


@pytest.mark.slow
def test_kill_9_during_record_loses_no_committed_observation(tmp_path):
    _kill_loop(tmp_path, kills=3)


@pytest.mark.slow
def test_kill_9_during_record_many_times(tmp_path):
    _kill_loop(tmp_path, kills=30)


def _concurrent(tmp_path, processes, each):
    session = new_session(tmp_path, epsilon=0.0001)
    session.next(count=processes * each)
    session.close()
    path = tmp_path / "s.db"
    workers = [_recorder(path, i * each, (i + 1) * each) for i in range(processes)]
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        assert len(out.split()) == each
    with Session.open(path) as reopened:
        status = reopened.status()
    assert status["pulls"] == processes * each and status["outstanding"] == 0
    assert sorted(row[1] for row in journal(path)[2]) == list(range(processes * each))


@pytest.mark.slow
def test_8_processes_recording_concurrently_lose_nothing(tmp_path):
    _concurrent(tmp_path, processes=8, each=10)


@pytest.mark.slow
def test_8_processes_recording_concurrently_many_records(tmp_path):
    _concurrent(tmp_path, processes=8, each=100)


def test_store_file_copy_is_a_valid_store(tmp_path):
    path = _recorded_store(tmp_path)
    shutil.copy(path, tmp_path / "copy.db")
    with Session.open(tmp_path / "copy.db") as session:
        assert session.status()["pulls"] == 8


def test_cli_workers_file_names_the_team_and_refusals_exit_2_without_change(tmp_path, capsys):
    names = tmp_path / "workers.txt"
    names.write_text("ann\nbob\n\ncy\ndee\n")
    path = str(tmp_path / "s.db")
    assert main(["session", "start", path, "--workers", str(names), "--k", "2", "--algorithm", "icb",
                 "--epsilon", "0.1", "--delta", "0.1", "--reward-range", "0", "2", "--seed", "1"]) == 0
    assert main(["session", "start", path, "--n", "4", "--k", "2", "--algorithm", "icb",
                 "--epsilon", "0.1", "--delta", "0.1"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["session", "next", path, "--json"]) == 0
    (pull,) = json.loads(capsys.readouterr().out)
    assert pull["workers"] == [["ann", "bob", "cy", "dee"][i] for i in pull["arms"]]
    before = journal(path)
    assert main(["session", "next", path, "--count", "0"]) == 2
    assert main(["session", "record", path, "--pull", "5", "--reward", "1"]) == 2
    assert "never handed out" in capsys.readouterr().err
    assert journal(path) == before
    with Session.open(path) as session:  # the offered range sets the noise scale (2 - 0) / 2
        assert session.created["offered"] == {"reward_range": [0.0, 2.0], "noise_scale": 1.0}


# --- the algorithm a session keeps between operations --------------------------------------

def _direct(records):
    """The same asks and tells on one algorithm, without any store: what every replay must equal."""
    algorithm = registry.build("icb", fb.TopK(5, 2), epsilon=0.0001, delta=0.1, noise_scale=0.2, seed=7)
    pulls = [algorithm.ask() for _ in range(records)]
    for pull in pulls:
        algorithm.tell(pull, 0.25 * (pull.id % 4))
    return algorithm


def test_records_reuse_the_kept_algorithm_without_rebuilding_it(tmp_path, monkeypatch):
    from fullbandit.core.algorithm import Algorithm
    from fullbandit.sessions import session as session_module
    session = new_session(tmp_path, epsilon=0.0001)
    session.next(count=120)
    rebuilds = []
    monkeypatch.setattr(session_module, "build_algorithm", lambda *a, **k: rebuilds.append("build"))
    monkeypatch.setattr(Algorithm, "from_state", classmethod(lambda *a, **k: rebuilds.append("record")))
    for pull in range(120):
        session.record(pull, 0.25 * (pull % 4))
    assert rebuilds == []
    monkeypatch.undo()
    session.close()
    with Session.open(tmp_path / "s.db") as reopened:  # the journal replayed afresh gives the same state
        assert reopened.next()[0] == _direct(120).ask()


def test_two_sessions_on_one_store_take_in_each_other_s_records(tmp_path):
    first = new_session(tmp_path, epsilon=0.0001)
    first.next(count=40)
    second = Session.open(tmp_path / "s.db")
    for pull in range(40):  # alternate: each one's kept algorithm is one record behind the other's
        (first if pull % 2 else second).record(pull, 0.25 * (pull % 4))
    with pytest.raises(fb.ProtocolError, match="pull=3 is already recorded"):
        second.record(3, 1.0)  # recorded by the other session
    expected = _direct(40).ask()
    assert first.next()[0] == expected
    assert second.next()[0].id == expected.id + 1  # took in the other's pull too
    first.close()
    second.close()


def test_a_refused_record_drops_the_kept_algorithm_and_the_next_one_is_exact(tmp_path):
    session = new_session(tmp_path, epsilon=0.0001)
    session.next(count=10)
    for pull in range(5):
        session.record(pull, 0.25 * (pull % 4))
    with pytest.raises(fb.InvalidParameterError):
        session.record(5, float("nan"))
    assert session._state is None  # rebuilt from the store on the next operation
    for pull in range(5, 10):
        session.record(pull, 0.25 * (pull % 4))
    assert session.next()[0] == _direct(10).ask()
    session.close()


def test_a_kept_algorithm_is_not_used_once_its_last_event_changed_in_the_store(tmp_path):
    path = _recorded_store(tmp_path, records=8)
    session = Session.open(path)
    # The store goes back to an earlier state under the session (say, restored from a backup, head
    # included): its kept algorithm, which has seen pull 7 recorded, must not be built upon.
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM observations WHERE pull = 7")
        connection.execute("UPDATE head SET seq = 15, digest = (SELECT digest FROM observations WHERE seq = 15)")
    session.record(7, 1.75)  # refused as "already recorded" if the kept algorithm were used
    with Session.open(path) as fresh:
        assert fresh.status() == session.status() and fresh.status()["outstanding"] == 0
    assert json.loads(journal(path)[2][-1][2]) == 1.75
    # And a journal edited under a kept algorithm is refused, not built upon.
    session.next()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE pulls SET count = 2 WHERE id = 8")
    before = journal(path)
    with pytest.raises(StateError, match=r"journal event 17 \(pull of pull 8\) was changed after it was recorded"):
        session.record(8, 1.0)
    assert journal(path) == before
    session.close()
