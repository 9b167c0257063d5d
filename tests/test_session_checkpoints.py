"""Checkpoints: an open that starts from the store's checkpoint reaches what a whole replay reaches.

Every registered algorithm is driven as a command-line campaign would drive it (each call a
fresh :meth:`Session.open`, checkpoints every few events), and must hand out exactly the pulls,
and end with exactly the status, of the same campaign driven in one process with no checkpoint.
A checkpoint that is edited, written by other code, or a forged pickle is never trusted; one
forged with recomputed digests is caught by ``verify="full"``; and an edited journal row that
the resumed open does not read is refused by the export and by ``verify="full"``.
"""

from __future__ import annotations

import pickle
import sqlite3

import numpy as np
import pytest
from test_session_families import COUNT, drive, limit, question, round_based

from fullbandit.cli.main import main
from fullbandit.core import registry
from fullbandit.sessions import Session, checkpoint, store
from fullbandit.sessions import session as session_module
from fullbandit.util.state import StateError


@pytest.fixture
def often(monkeypatch):
    """Checkpoints every 4 events (the spacing cap lifted): a short campaign resumes from many."""
    monkeypatch.setattr(session_module, "CHECKPOINT_EVERY", 4)
    monkeypatch.setattr(session_module, "CHECKPOINT_SPACING", 10**9)


def resumed_count(monkeypatch) -> list[int]:
    """Counts the opens that started from a stored checkpoint (the seqs they started after)."""
    used: list[int] = []
    stored = Session._stored_checkpoint

    def counting(self):
        kept = stored(self)
        if kept is not None:
            used.append(kept[1])
        return kept

    monkeypatch.setattr(Session, "_stored_checkpoint", counting)
    return used


def campaign(path, name: str, *, reopen: bool):
    """Drive ``name`` on a new store at ``path`` (the families' campaign); ``reopen``: each call opens it anew."""
    spec = registry.get(name)
    arguments = question(spec)
    Session.start(path, algorithm=name, seed=1, **arguments).close()
    kept = None if reopen else Session.open(path)

    def call(operation):
        if kept is not None:
            return operation(kept)
        with Session.open(path) as session:
            return operation(session)

    handed, recorded, late, _ = drive(lambda: call(lambda s: s.next(count=COUNT)),
                                      lambda p, r: call(lambda s: s.record(p.id, r)), spec.feedback,
                                      np.random.default_rng(7), limit=limit(spec, arguments), cross=round_based(spec))
    status = call(lambda s: s.status())
    if kept is not None:
        kept.close()
    del status["store"]
    return handed, recorded, late, status


@pytest.mark.slow
@pytest.mark.parametrize("name", registry.names())
def test_every_algorithm_resumed_from_checkpoints_runs_as_one_replay(tmp_path, monkeypatch, name):
    monkeypatch.setattr(session_module, "CHECKPOINT_EVERY", 10**9)  # the reference: no checkpoint at all
    expected = campaign(tmp_path / "whole.db", name, reopen=False)
    assert store.read_checkpoint(store.connect(tmp_path / "whole.db")) is None
    monkeypatch.setattr(session_module, "CHECKPOINT_EVERY", 4)
    monkeypatch.setattr(session_module, "CHECKPOINT_SPACING", 10**9)
    used = resumed_count(monkeypatch)
    assert campaign(tmp_path / "resumed.db", name, reopen=True) == expected
    # Most opens started from a checkpoint (the first ones have none yet), at many points of the run.
    assert len(set(used)) >= 5, f"{name}: resumed from {sorted(set(used))} only"
    with Session.open(tmp_path / "resumed.db", verify="full") as verified:
        assert verified.checked_checkpoint is not None


def test_a_checkpoint_of_other_code_or_edited_is_ignored_and_the_journal_decides(tmp_path, monkeypatch, often):
    path = tmp_path / "s.db"
    used = resumed_count(monkeypatch)
    with Session.start(path, algorithm="icb", n=5, k=2, epsilon=0.01, delta=0.05, noise_scale=1.0, seed=0) as s:
        for pull in s.next(count=12):
            s.record(pull.id, 1.0 + 0.1 * pull.id)
        status = s.status()
    with Session.open(path) as s:
        assert s.status() == status and used  # started from the checkpoint
    used.clear()
    connection = sqlite3.connect(path)
    # Edited state bytes (the binding no longer matches), then another code's fingerprint.
    state = connection.execute("SELECT state FROM checkpoints").fetchone()[0]
    flipped = state[:-10] + bytes([state[-10] ^ 1]) + state[-9:]  # one bit of one float of the state
    for edit, values in (("UPDATE checkpoints SET state = ?", (flipped,)), ("UPDATE checkpoints SET code = ?",
                                                                             ("other",))):
        with connection:
            connection.execute(edit, values)
        monkeypatch.setattr(session_module, "CHECKPOINT_EVERY", 10**9)  # the open must not rewrite it
        with Session.open(path) as s:
            assert s.status() == status and not used  # replayed from the journal's start
    assert checkpoint.code_fingerprint() != "other"


def test_a_forged_pickle_cannot_call_a_function(tmp_path):
    target = tmp_path / "touched"

    class Payload:
        def __reduce__(self):
            return (open, (str(target), "w"))

    class Memmap:
        def __reduce__(self):
            return (np.memmap, (str(target), np.uint8, "w+", 0, (4,)))

    for forged in (Payload(), Memmap(), print):
        with pytest.raises(pickle.UnpicklingError, match="may not name"):
            checkpoint.loads(pickle.dumps(forged))
    assert not target.exists()
    with pytest.raises(pickle.UnpicklingError, match="holds an algorithm"):
        checkpoint.loads(pickle.dumps({"an": np.arange(3)}))
    with pytest.raises(pickle.UnpicklingError):
        checkpoint.loads(b"\x80\x05not a pickle")


def test_a_forged_checkpoint_with_recomputed_digests_is_caught_by_verify_full(tmp_path, often, capsys):
    path = tmp_path / "s.db"
    with Session.start(path, algorithm="phased", n=6, k=2, epsilon=0.01, delta=0.05, noise_scale=1.0, seed=0) as s:
        for pull in s.next(count=10):
            s.record(pull.id, 1.0)
        early = checkpoint.dumps(s._current())  # the state after 20 events
        for pull in s.next(count=10):
            s.record(pull.id, 1.0 + 0.5 * (pull.id % 3))
        status = s.status()
    connection = store.connect(path)
    seq, digest = store.read_head(connection, path)
    connection.execute("BEGIN IMMEDIATE")  # the forger's checkpoint: the early state, bound to the last event
    store.write_checkpoint(connection, store.digest_at(connection, path, 0), seq, digest,
                           checkpoint.code_fingerprint(), early)
    connection.execute("COMMIT")
    with Session.open(path) as s:  # a forger who recomputes the digests is trusted by a resumed open ...
        assert s.status() != status
    with pytest.raises(StateError, match="checkpoint .* disagrees with the replay of the journal"):
        Session.open(path, verify="full")  # ... not by a whole replay
    assert main(["session", "verify", str(path)]) == 2
    assert "disagrees" in capsys.readouterr().err
    connection.execute("DELETE FROM checkpoints")  # what the message says to do
    assert main(["session", "verify", str(path)]) == 0
    assert "no checkpoint" in capsys.readouterr().out
    with Session.open(path) as s:
        assert s.status() == status


def test_an_edited_row_before_the_checkpoint_is_refused_by_export_and_verify(tmp_path, often):
    path = tmp_path / "s.db"
    with Session.start(path, algorithm="icb", n=5, k=2, epsilon=0.01, delta=0.05, noise_scale=1.0, seed=0) as s:
        for pull in s.next(count=12):
            s.record(pull.id, 1.0)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE observations SET reward = '1.5' WHERE pull = 0")
    with Session.open(path) as s:  # the resumed open reads no row before its checkpoint
        with pytest.raises(StateError, match="journal event .* was changed"):
            s.export(tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()
    with pytest.raises(StateError, match="was changed after it was recorded"):
        Session.open(path, verify="full")


def test_verify_must_be_a_mode(tmp_path):
    path = tmp_path / "s.db"
    Session.start(path, algorithm="icb", n=4, k=2, noise_scale=1.0, seed=0).close()
    with pytest.raises(ValueError, match=r"verify='all' must be one of 'resume', 'full'"):
        Session.open(path, verify="all")


def test_a_long_replay_leaves_a_checkpoint_and_the_next_open_starts_there(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    monkeypatch.setattr(session_module, "CHECKPOINT_EVERY", 10**9)
    with Session.start(path, algorithm="icb", n=5, k=2, epsilon=0.01, delta=0.05, noise_scale=1.0, seed=0) as s:
        for pull in s.next(count=30):
            s.record(pull.id, 1.0)
    monkeypatch.setattr(session_module, "CHECKPOINT_EVERY", 8)
    used = resumed_count(monkeypatch)
    Session.open(path).close()  # 60 events replayed: a checkpoint written after the open
    assert store.read_checkpoint(store.connect(path)).seq == 60 and not used
    Session.open(path).close()
    assert used == [60]
