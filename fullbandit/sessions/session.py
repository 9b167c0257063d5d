"""A live team search stored in SQLite: hand out pulls, record rewards, survive crashes.

The journal is the truth. Every operation brings the algorithm up to the journal's last
event under SQLite's write lock, applies the new ask, tell or abandon to that state *first*,
and only then appends the row in the same transaction: a call the algorithm refuses leaves no
trace, and two processes never build on the same stale state.

The journal holds what a saved run's record holds (:mod:`fullbandit.core.journal`): the registry
name, parameters and seed (``meta``), then every ask, tell and abandon, replayed through the same
functions (:func:`fullbandit.core.journal.replay_ask`, :func:`~fullbandit.core.journal.replay_tell`,
:meth:`fullbandit.core.algorithm.Algorithm.abandon`). No copy of the algorithm's working state is
kept: a process that opens the store builds the algorithm and replays the journal (one pass that
also checks every digest), so every process computes the same run bit for bit.

A pull that will never be answered (a worker who left, a timeout) is given back with
:meth:`Session.abandon`: its team returns to the design and is handed out again later as a
new pull. The rule that keeps the guarantee: whether a pull is abandoned must not depend on
its answer, which is never seen. Rewards are recorded in the order the pulls were handed out
(:meth:`fullbandit.core.algorithm.Algorithm.tell` explains why), so the recorded data stay
those of pulls chosen without reading their rewards; abandoning a pull *because* of its
answer (say, dropping the answers that look wrong) would select the data by their values,
which no confidence bound covers.

Retries are safe: recording a pull again with the same reward, or abandoning it again,
answers ``False`` and writes nothing (a client that lost the answer to its request may send
it again); a different reward for a recorded pull is a :class:`RecordConflict`.

One :class:`Session` may be shared by threads (an HTTP server keeps one per store): every
operation holds the session's lock, and writes of other processes are seen as before.

Bringing the algorithm up to date is cheap: a :class:`Session` keeps the algorithm it
replayed, keyed on the ``seq`` and digest of the last event it had seen. When the journal
still holds that event with that digest (the digest chains every event before it), only
the events appended since (by other processes) are replayed; otherwise, and after any
failed operation, it is rebuilt from the journal's start. A ``record`` then costs the
digests of the new events, the tell and the fsynced commit (``benchmarks/bench_sessions.py``);
``status`` brings the kept algorithm up to date the same way, in a read transaction.

Examples
--------
>>> import tempfile, pathlib
>>> from fullbandit.sessions import Session
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> session = Session.start(folder / "crowd.db", algorithm="icb", n=5, k=2, epsilon=0.1, delta=0.05,
...                         noise_scale=0.2, seed=1)
>>> first, second = session.next(count=2)          # two teams out at once
>>> session.record(second.id, 1.7)                  # told in any order
True
>>> session.record(first.id, 0.4)
True
>>> session.record(first.id, 0.4)                   # a retry: already recorded, nothing written
False
>>> third = session.next()[0]
>>> session.abandon(third.id)                       # never answered: its team is handed out again
True
>>> status = session.status()
>>> status["pulls"], status["outstanding"], status["abandoned"], status["stop_reason"]
(2, 0, 1, 'running')
>>> session.record(first.id, 0.5)
Traceback (most recent call last):
...
fullbandit.sessions.session.RecordConflict: pull=0 is already recorded with reward 0.4, not 0.5: nothing recorded
>>> session.close()
"""

from __future__ import annotations

import csv
import json
import math
import numbers
import os
import pickle
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm, ProtocolError, Pull, WaitingForRewards
from fullbandit.core.journal import ABANDON
from fullbandit.core.priors import PriorObservations
from fullbandit.core.result import STOPPING_RULE
from fullbandit.core.rewards import check_reward
from fullbandit.full.static import RANGE_TOLERANCE
from fullbandit.sessions import checkpoint, store
from fullbandit.sessions.creation import session_parameters, session_problem, worker_names
from fullbandit.sessions.replay import apply_event, build_algorithm, next_pulls
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError, check_reward_range

#: The most pulls one ``next`` hands out (a guard against a typo such as ``--count 1000000``).
MAX_COUNT = 10_000
#: How :meth:`Session.open` checks the journal: from the checkpoint on, or all of it (and the checkpoint against it).
VERIFY_MODES = ("resume", "full")
#: A checkpoint is written once this many events followed the last one ...
CHECKPOINT_EVERY = 1000
#: ... and this fraction of the journal (1/50): an open replays at most max(1000, 2%) of its events.
CHECKPOINT_SPACING = 50
#: How long writing a checkpoint after an open waits for another process's write lock (ms).
CHECKPOINT_WAIT_MS = 100
#: How many outstanding pull ids :meth:`Session.status` lists (the oldest; :meth:`Session.outstanding` has all).
OUTSTANDING_IDS = 20


class RecordConflict(ProtocolError):
    """A reward for a pull already recorded with another reward (nothing recorded).

    A pull takes one reward: a retried request with the same reward is answered "already
    recorded" (:meth:`Session.record` returns ``False``); a different one is this error,
    naming both rewards.
    """


class Session:
    """A live session over the SQLite store at ``path``; create with :meth:`start`, reopen with :meth:`open`.

    Thread-safe: every operation holds the session's lock while it uses the connection or
    the algorithm the session keeps.
    """

    def __init__(self, path: Path, connection: sqlite3.Connection, created: dict):
        self.path = path
        self._connection = connection
        self.created = created
        # The algorithm after the journal's events up to (seq, digest), or None: rebuild it.
        self._state: tuple[Algorithm, int, str] | None = None
        # Held by every operation on the connection or the kept algorithm (reentrant: export calls write_csv).
        self._lock = threading.RLock()
        # The seq of the store's checkpoint this session read or wrote (0: none usable).
        self._checkpoint_seq = 0
        #: After ``open(verify="full")``: the event the checkpoint found to agree with the replay follows (None: none).
        self.checked_checkpoint: int | None = None

    # --- creation and opening -----------------------------------------------------------
    @classmethod
    def start(cls, path, *, algorithm: str, k: int | None = None, n: int | None = None, workers=None,
              threshold: float | None = None, groups=None, at_most: int | None = None, epsilon=None, delta=None,
              reward_range=None, noise_scale=None, seed: int | None = None, prior: PriorObservations | None = None,
              parameters: Mapping[str, Any] | None = None) -> Session:
        """Create a session store at ``path`` (which must not exist) and open it.

        Any registered algorithm can run a session: the question's arguments follow its
        declared decision classes, and its parameters are those its class declares, each
        left to the class's default unless given.

        Parameters
        ----------
        algorithm : str
            A registry name (``fullbandit solve --list``), e.g. ``"icb"``, or an algorithm class's
            name (``"OptKG"``).
        k : int, optional
            Team size; required, except for a thresholding algorithm (which takes none). Give
            either ``n`` (workers named ``"0"``, ``"1"``, ...) or ``workers`` (a sequence of
            distinct names).
        threshold : float, optional
            For a thresholding algorithm (required; refused for the others): classify every
            worker as at or above it, or below it. Within ``reward_range`` when one is given.
        groups, at_most : sequence of str and int, optional
            Group caps, for an algorithm that declares partition matroids: ``groups[i]`` is the
            group label of worker ``i`` and a team holds at most ``at_most`` workers per group
            (:func:`fullbandit.datasets.groups.partition_matroid_from_column`'s rules).
        epsilon, delta : float, optional
            Shorthands for ``parameters={"epsilon": ..., "delta": ...}``.
        parameters : mapping, optional
            The algorithm's parameters by name (as JSON values: a pair is a list), each checked
            against the class's declared constraints before the file exists; one the class
            does not take is refused naming those it takes, and every one not given takes the
            class's default. Not ``problem`` (the question's arguments) nor ``seed``.
        reward_range : (float, float), optional
            The range of one observed reward: the team's (full feedback) or each member's
            (semi feedback, e.g. ``lucb``), the algorithms' own meaning of the range. Offered to
            the algorithm as its range and, when ``noise_scale`` is not given, as the noise
            scale ``(high - low) / 2``; :meth:`record` refuses rewards outside it.
        noise_scale : float, optional
            The sub-Gaussian scale of one observed reward (the algorithm's parameter).
        seed : int, optional
            Seed of the algorithm; drawn at random (and stored) when ``None``, since the
            journal is replayed from it.
        prior : fullbandit.core.priors.PriorObservations, optional
            Earlier real observations of these workers (in the order of ``workers``), stored
            with the session and counted by the algorithm before its first pull (see
            :mod:`fullbandit.core.priors`); refused, before the file exists, by an algorithm that
            cannot take them.
        """
        path = Path(path)
        if path.exists():
            raise StateError(f"session store {path} already exists: open it, or choose another path")
        names = worker_names(n, workers)
        if seed is None:
            seed = secrets.randbits(32)
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise InvalidParameterError(f"seed={seed!r} must be a non-negative integer")
        spec = registry.get(algorithm)
        given = session_parameters(spec, parameters, epsilon=epsilon, delta=delta, noise_scale=noise_scale)
        offered_range = None if reward_range is None else list(check_reward_range("reward_range", reward_range))
        problem = session_problem(spec, names, k=k, threshold=threshold, groups=groups, at_most=at_most,
                                  reward_range=offered_range)
        if given.get("noise_scale") is None and reward_range is None and "noise_scale" in spec.options:
            raise InvalidParameterError(f"{spec.name} needs the scale of the rewards: give noise_scale "
                                        "(--noise-scale) or reward_range (--reward-range LOW HIGH)")
        created = {"algorithm": spec.name, "parameters": given, "seed": int(seed),
                   "problem": problem.to_dict(), "workers": names,
                   "offered": {"reward_range": offered_range,
                               "noise_scale": None if offered_range is None else
                               (offered_range[1] - offered_range[0]) / 2}}
        if prior is not None:
            if not isinstance(prior, PriorObservations):
                raise TypeError(f"prior must be a fullbandit.core.priors.PriorObservations, got {type(prior).__name__}")
            if not spec.cls.takes_prior:
                takers = [other.name for other in registry.specs() if other.cls.takes_prior]
                raise InvalidParameterError(f"{spec.name} does not take prior observations (its class declares "
                                            f"takes_prior = False); the algorithms that do: {', '.join(takers)}")
            created["prior"] = prior.to_dict()
        build_algorithm(created, path, stored=False)  # validate everything before the file exists
        store.create(path, created)
        return cls.open(path)

    @classmethod
    def open(cls, path, *, verify: str = "resume") -> Session:
        """Open an existing store, refusing (:class:`StateError`, nothing written) a damaged or edited one.

        ``verify="resume"`` (the default) starts from the store's checkpoint when it has a usable
        one (:mod:`fullbandit.sessions.checkpoint`: written by this very code, bound to its
        journal event and to the meta row): the digests of that event and of every event after
        it are checked (and the journal's end against its head) as the algorithm replays them,
        so the cost is that of the events since the checkpoint. Without a usable checkpoint the
        whole journal is checked and replayed.

        ``verify="full"`` checks every digest and replays the whole journal whatever the
        checkpoint, then refuses a store whose checkpoint disagrees with that replay (its
        record, its next pulls): what ``fullbandit session verify`` runs. The export checks
        every digest too.
        """
        if verify not in VERIFY_MODES:
            raise InvalidParameterError(f"verify={verify!r} must be one of {', '.join(map(repr, VERIFY_MODES))}")
        path = Path(path)
        connection = store.connect(path)
        try:
            created = store.check_file(connection, path)
            session = cls(path, connection, created)
            connection.execute("BEGIN")
            try:
                if verify == "full":
                    session._state = session._replay()  # from the start: every digest of the journal
                    session.checked_checkpoint = session._check_checkpoint(session._state)
                else:
                    session._state = session._replay(session._stored_checkpoint())
            finally:
                connection.execute("ROLLBACK")
            session._checkpoint_after_open()
        except BaseException:
            connection.close()
            raise
        return session

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """One read transaction on the store: whatever is read inside sees the same journal.

        Writers (another process recording) wait or go on beside it; nothing read inside
        can mix two states of the store. Yields the connection to read with; the session's
        lock is held until the block ends.
        """
        with self._lock:
            self._connection.execute("BEGIN")
            try:
                yield self._connection
            finally:
                self._connection.execute("ROLLBACK")

    def close(self) -> None:
        with self._lock:
            self._state = None
            self._connection.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- operations ---------------------------------------------------------------------
    @property
    def feedback(self) -> str:
        """``"full"`` (one reward per pull: the team's) or ``"semi"`` (one reward per member)."""
        return registry.get(self.created["algorithm"]).feedback

    def pull(self, pull_id: int) -> Pull:
        """The pull ``pull_id`` as it was handed out (recorded or not); refused if it never was."""
        _check_pull_id(pull_id)
        with self._lock:
            row = self._connection.execute("SELECT arms, count FROM pulls WHERE id = ?", (int(pull_id),)).fetchone()
        if row is None:
            raise ProtocolError(f"pull={pull_id} was never handed out (see `fullbandit session next`)")
        return Pull(int(pull_id), tuple(json.loads(row[0])), int(row[1]))

    def next(self, count: int = 1) -> list[Pull]:
        """Hand out up to ``count`` pulls (teams to try, for parallel work), each journalled before it is returned.

        Fewer than ``count`` when the algorithm cannot plan more before some outstanding pulls
        are recorded or abandoned (it raised :class:`~fullbandit.core.algorithm.WaitingForRewards`
        after at least one pull): a round-based per-arm algorithm (``lucb``, ``sar``, ...)
        plans its next round from every sample of the current one, and a fixed-budget one
        whose whole budget is out gets back only what is abandoned. Nothing is journalled for
        the asks it refused; ask again once rewards are recorded.

        Raises
        ------
        WaitingForRewards
            When not one pull can be handed out: the message names how many pulls are
            outstanding, whose recording (or abandoning) lets the algorithm plan the next
            round. Nothing is written.
        ProtocolError
            When the session has stopped (nothing is written).
        InvalidParameterError
            When ``count`` is not an integer from 1 to :data:`MAX_COUNT`.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from fullbandit.sessions import Session
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "rounds.db"
        >>> session = Session.start(path, algorithm="sar", n=3, k=1, reward_range=(0, 1), parameters={"budget": 6},
        ...                         seed=0)
        >>> [pull.arms for pull in session.next(count=5)]   # SAR's first phase: one sample of each worker
        [(0,), (1,), (2,)]
        >>> session.next()
        Traceback (most recent call last):
        ...
        fullbandit.core.algorithm.WaitingForRewards: ...3 pull(s) outstanding (0, 1, 2)...
        >>> for pull_id, reward in ((0, 1.0), (1, 0.0), (2, 0.5)):
        ...     session.record(pull_id, [reward])
        True
        True
        True
        >>> [pull.arms for pull in session.next(count=5)]   # the next phase, planned from the first
        [(0,), (2,)]
        >>> session.close()
        """
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or not 1 <= count <= MAX_COUNT:
            raise InvalidParameterError(f"count={count!r} must be an integer from 1 to {MAX_COUNT}")
        refusals: list[WaitingForRewards] = []

        def hand_out(algorithm: Algorithm, seq: int, digest: str) -> tuple[list[Pull], int, str]:
            if algorithm.done:
                raise self._stopped(algorithm, "hands out no more pulls")
            pulls = []
            for _ in range(int(count)):
                try:
                    pulls.append(algorithm.ask(max_count=1))
                except WaitingForRewards as waiting:  # refused and unchanged: hand out what is planned
                    if not pulls:
                        out = [pull.id for pull in algorithm.pending]
                        shown = ", ".join(map(str, out[:10])) + (", ..." if len(out) > 10 else "")
                        refusals.append(WaitingForRewards(
                            f"session {self.path} cannot hand out a pull yet: {len(out)} pull(s) outstanding "
                            f"({shown}); recording (or abandoning) them lets {self.created['algorithm']} plan the "
                            f"next round. The algorithm: {waiting}"))
                    break
            now = time.time()
            for pull in pulls:
                seq += 1
                digest = store.append_pull(self._connection, seq, digest, pull.id, json.dumps(list(pull.arms)),
                                           pull.count, now)
            return pulls, seq, digest

        # A refusal of every ask wrote nothing and left the algorithm as it was: it is raised only
        # after the (empty) commit, so the replayed algorithm is kept for the next call (a client
        # polling `next` while workers answer does not rebuild the journal each time).
        pulls = self._write(hand_out)
        if refusals:
            raise refusals[0]
        return pulls

    def record(self, pull_id: int, reward) -> bool:
        """Record the observed ``reward`` of pull ``pull_id`` (one number; one per member for semi feedback).

        Returns ``True`` when recorded now, ``False`` when the pull is already recorded with
        this reward (a retried request: nothing is written; answered so even after the
        session stopped). "This reward": equal to the recorded one after the JSON round
        trip the journal applies (floats; for semi feedback the list).

        Refused (and nothing written): a pull never handed out; a pull already recorded with
        another reward (:class:`RecordConflict`, naming both); an abandoned pull (its team is
        handed out again as a new pull); a stopped session; a reward outside the session's
        reward range (per member for semi feedback, times the pull's count), or one the
        algorithm refuses (text, NaN, infinite, wrong length).
        """
        _check_pull_id(pull_id)

        def tell(algorithm: Algorithm, seq: int, digest: str) -> tuple[bool, int, str]:
            handle = algorithm.outstanding_pull(pull_id)
            if handle is None:  # recorded, abandoned or never handed out: nothing to write
                self._check_answered(pull_id, reward)
                return False, seq, digest
            if algorithm.done:
                raise self._stopped(algorithm, f"takes no more rewards (pull {pull_id} is not recorded)")
            self._check_range(handle, reward)
            algorithm.tell(handle, reward)  # refuses a bad reward before anything is written
            text = json.dumps(_plain(reward), allow_nan=False)
            digest = store.append_observation(self._connection, seq + 1, digest, handle.id, text, time.time())
            return True, seq + 1, digest

        return self._write(tell)

    def abandon(self, pull_id: int) -> bool:
        """Give back the outstanding pull ``pull_id``, which will never be answered (a worker left, a timeout).

        The pull returns to the design, so the algorithm hands its team out again later as a
        new pull; rewards told for younger pulls that waited for it are then recorded
        (:meth:`fullbandit.core.algorithm.Algorithm.abandon`). Journalled, so every process
        replays it. Returns ``True`` when abandoned now, ``False`` when the pull was already
        abandoned (a retry: nothing written). Allowed after the session stopped (it changes
        nothing then but the outstanding pulls).

        Whether a pull is abandoned must not depend on its answer (which is never seen):
        abandon on a rule that reads no reward (a deadline, a worker gone). The guarantee then
        holds as for pulls told in any order: the recorded data stay those of pulls chosen
        without reading their rewards, recorded in handing-out order (the reasoning of
        :meth:`fullbandit.core.algorithm.Algorithm.tell`). Dropping answers that look wrong
        would select the data by their values, which no confidence bound covers.

        Refused (:class:`ProtocolError`, nothing written): a pull never handed out, or one
        already recorded.
        """
        _check_pull_id(pull_id)

        def give_back(algorithm: Algorithm, seq: int, digest: str) -> tuple[bool, int, str]:
            handle = algorithm.outstanding_pull(pull_id)
            if handle is None:
                recorded, abandoned = self._answer_of(pull_id)
                if abandoned:
                    return False, seq, digest
                if recorded is not None:
                    raise ProtocolError(f"pull={pull_id} is already recorded (reward {recorded}): a recorded pull "
                                        "cannot be abandoned")
                self.pull(pull_id)  # refuses a pull never handed out
                raise ProtocolError(f"pull={pull_id} is not outstanding")
            algorithm.abandon(handle)  # before the row: a refusal leaves no trace
            digest = store.append_abandon(self._connection, seq + 1, digest, handle.id, time.time())
            return True, seq + 1, digest

        return self._write(give_back)

    def _answer_of(self, pull_id: int) -> tuple[str | None, bool]:
        """``(recorded reward JSON or None, abandoned)`` of pull ``pull_id``, read from the store (two index reads)."""
        row = self._connection.execute("SELECT reward FROM observations WHERE pull = ?", (int(pull_id),)).fetchone()
        if row is not None:
            return str(row[0]), False
        abandoned = store.has_abandons(self._connection) and self._connection.execute(
            "SELECT 1 FROM abandons WHERE pull = ?", (int(pull_id),)).fetchone() is not None
        return None, abandoned

    def _check_answered(self, pull_id: int, reward) -> None:
        """Accept a retried record of a recorded pull with its reward; refuse any other record of a pull not out."""
        recorded, abandoned = self._answer_of(pull_id)
        if abandoned:
            raise ProtocolError(f"pull={pull_id} was abandoned: it takes no reward, and its team is handed out again "
                                "as a new pull (see next)")
        pull = self.pull(pull_id)  # refuses a pull never handed out
        if recorded is None:
            raise ProtocolError(f"pull={pull_id} is not outstanding")
        value = _plain(check_reward(self.feedback, reward, pull.arms))  # refuses a malformed reward as such
        if value != json.loads(recorded):
            raise RecordConflict(f"pull={pull_id} is already recorded with reward {recorded}, not "
                                 f"{json.dumps(value)}: nothing recorded")
    def _check_range(self, pull: Pull, reward) -> None:
        """Refuse a finite reward outside the offered range (the algorithm refuses malformed ones)."""
        range_ = self.created["offered"]["reward_range"]
        if range_ is None:
            return
        # The range bounds one observation; a pull of count c reports the sum of c of them.
        low, high = (pull.count * bound for bound in range_)
        slack = RANGE_TOLERANCE * pull.count * max(abs(low), abs(high))
        if self.feedback == "full":
            values = [reward]
        elif isinstance(reward, list | tuple | np.ndarray) and len(reward) == len(pull.arms):
            values = list(reward)
        else:
            return  # malformed: the algorithm's tell names the problem
        workers = self.created["workers"]
        for arm, value in zip(pull.arms, values, strict=False):
            if isinstance(value, numbers.Real) and math.isfinite(value) and not low - slack <= value <= high + slack:
                whose = f"worker {workers[arm]}'s reward" if self.feedback == "semi" else "reward"
                scope = "each member's reward: semi feedback" if self.feedback == "semi" else "the team's reward"
                where = f"the session's reward range {list(range_)}"
                if pull.count > 1:
                    where = f"[{low!r}, {high!r}], {where} times the pull's count {pull.count}"
                raise InvalidParameterError(f"{whose} {value!r} of pull {pull.id} is outside {where} (the range of "
                                            f"{scope}); nothing recorded")

    def _stopped(self, algorithm: Algorithm, refusal: str) -> ProtocolError:
        """The refusal of an operation on a stopped session: why it stopped, and where its outcome is."""
        result = algorithm.result()
        why = (f"the stopping rule fired after {algorithm.n_pulls} pulls (gap bound {result.gap_bound:.6g} <= epsilon "
               f"{result.epsilon:g})" if algorithm.stop_reason == STOPPING_RULE and result.epsilon is not None
               else f"{algorithm.stop_reason} after {algorithm.n_pulls} pulls")
        return ProtocolError(f"session {self.path} has stopped: {why}; it {refusal}. See its answer with "
                             "`fullbandit session status` and its observations with `fullbandit session export`")

    def status(self) -> dict:
        """Pulls recorded, outstanding and abandoned, the current best team, the stopping statistic and the stop reason.

        Brings the kept algorithm up to the journal's end (the events appended since the last
        operation, in a read transaction), never replaying it from its start; the keys are
        :meth:`status_of`'s.
        """
        with self._lock:  # the kept algorithm is read under the lock too: another thread's write changes it
            return self.status_of(self._current())

    def outstanding(self) -> list[Pull]:
        """Every pull handed out and neither recorded nor abandoned, oldest first."""
        with self._lock:
            return list(self._current().pending)

    def _current(self) -> Algorithm:
        """The kept algorithm brought up to the journal's end in a read transaction (rebuilt only if it is gone)."""
        with self._lock:
            kept, self._state = self._state, None  # kept again once up to date: a failure leaves none
            self._connection.execute("BEGIN")
            try:
                state = self._replay(kept)
            finally:
                self._connection.execute("ROLLBACK")
            self._state = state
            return state[0]

    def status_of(self, algorithm: Algorithm) -> dict:
        """What :meth:`status` reports, for ``algorithm`` replayed from this store's journal.

        ``pulls``: recorded (in the algorithm's units: team pulls, or single-arm samples for
        semi feedback); ``outstanding``: how many pulls are out (neither recorded nor
        abandoned), ``outstanding_ids`` the oldest :data:`OUTSTANDING_IDS` of their ids
        (:meth:`outstanding` lists all); ``waiting``: ids recorded early, waiting for an older
        pull; ``abandoned``: pulls given back. ``pulls_needed`` is an *estimate* of the pulls
        still to record before the stopping rule fires, assuming the gap bound shrinks like
        ``1 / sqrt(pulls)``: ``ceil(pulls * ((gap_bound / epsilon) ** 2 - 1))``, 0 once the rule
        fired, ``None`` while no finite gap bound is known, once stopped otherwise, and for a
        fixed-budget algorithm, whose ``budget_left`` (budget minus pulls) says when it ends
        (``None`` for the others).

        ``gap_bound`` and ``best_team`` are those of the data recorded so far where the rule
        can bound them there; where it cannot (a time-uniform bound between two whole passes
        of the design) they are those of the last stopping check, which remain certified for
        the data it read, and ``bound_pulls`` says after how many recorded pulls they were
        computed (``pulls`` otherwise).
        """
        result = algorithm.result()
        workers = self.created["workers"]
        team, gap_bound, bound_pulls = result.answer, result.gap_bound, algorithm.n_pulls
        last = algorithm.last_check
        if gap_bound is not None and not math.isfinite(gap_bound) and last is not None \
                and math.isfinite(last.gap_bound) and last.answer is not None:
            team, gap_bound, bound_pulls = last.answer, last.gap_bound, int(last.pulls)
        answer = None if team is None else list(team)
        pending = algorithm.pending
        fired = algorithm.stop_reason == STOPPING_RULE
        fixed_budget = algorithm.setting == "fixed-budget"
        return {"store": str(self.path), "algorithm": self.created["algorithm"], "pulls": algorithm.n_pulls,
                "outstanding": len(pending), "outstanding_ids": [pull.id for pull in pending[:OUTSTANDING_IDS]],
                "waiting": list(algorithm.held), "abandoned": algorithm.journal.codes.count(ABANDON),
                "best_team": answer,
                "best_workers": None if answer is None else [workers[i] for i in answer],
                "gap_bound": gap_bound if gap_bound is None or math.isfinite(gap_bound) else str(gap_bound),
                "bound_pulls": bound_pulls,
                "epsilon": result.epsilon, "rule_fired": fired,
                "pulls_needed": None if fixed_budget else pulls_needed(
                    bound_pulls, gap_bound, result.epsilon, fired=fired, done=algorithm.done),
                "budget_left": max(algorithm.budget - algorithm.n_pulls, 0) if fixed_budget else None,
                "done": algorithm.done, "stop_reason": str(algorithm.stop_reason),
                "prior_observations": 0 if algorithm.prior is None else algorithm.prior.n_observations}

    def export(self, csv_path, *, name: str = "csv_path") -> int:
        """Write the observations as CSV (:meth:`write_csv`) to the file ``csv_path``; return their number.

        The file is written whole or not at all (a new file beside it, renamed over it). Refused
        (:class:`InvalidParameterError` naming ``name``, e.g. ``"--out"``; nothing written): the
        store itself or one of its SQLite companion files, a folder, a path that cannot be written.
        """
        target = Path(csv_path)
        self._refuse_own_file(target, name)
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            with open(temporary, "x", newline="") as handle:
                count = self.write_csv(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except OSError as error:
            raise InvalidParameterError(f"{name} {target}: cannot write the export there "
                                        f"({error.strerror or error})") from None
        finally:
            temporary.unlink(missing_ok=True)  # gone already after the rename
        return count

    def write_csv(self, handle) -> int:
        """Write the observations as CSV to the text file ``handle`` (one row each, oldest first); return how many.

        Checks every digest of the journal first (whatever the open checked): an edited row is
        refused (:class:`StateError`), never exported.
        """
        workers = self.created["workers"]
        with self.reading() as connection:
            store.events(connection, self.path)  # every digest checked: the rows written are the journal's
            rows = connection.execute(
                "SELECT o.seq, o.pull, p.arms, p.count, o.reward, o.recorded_at FROM observations o "
                "JOIN pulls p ON p.id = o.pull ORDER BY o.seq").fetchall()
        writer = csv.writer(handle)
        writer.writerow(["observation", "pull", "arms", "workers", "count", "reward", "recorded_at"])
        for number, (_, pull, arms, count, reward, at) in enumerate(rows, start=1):
            members = json.loads(arms)
            writer.writerow([number, pull, " ".join(map(str, members)), ";".join(workers[i] for i in members),
                             count, reward, f"{at:.6f}"])
        return len(rows)

    def _refuse_own_file(self, target: Path, name: str) -> None:
        """Refuse ``target`` when it is the store or its WAL, shared-memory or rollback journal."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            own = self.path.with_name(self.path.name + suffix)
            if target.resolve() == own.resolve() or _same_existing_file(target, own):
                what = "the session store itself" if not suffix else f"the session store's {suffix} file"
                raise InvalidParameterError(f"{name} {target} is {what}: the export would overwrite the journal; "
                                            "give another file")

    # --- the journal --------------------------------------------------------------------
    def _write(self, operation):
        """Run ``operation(algorithm, seq, digest)`` under the write lock and commit, or roll back on any error."""
        with self._lock:  # one operation at a time on the connection and the kept algorithm
            connection = self._connection
            # Taken, not read: the operation changes the algorithm, which may then match no committed
            # journal; it is kept again only once the commit has returned.
            kept, self._state = self._state, None
            connection.execute("BEGIN IMMEDIATE")  # the lock is taken before the state is read
            try:
                algorithm, seq, digest = self._replay(kept)
                value, new_seq, new_digest = operation(algorithm, seq, digest)
                checkpointed = self._checkpoint(algorithm, new_seq, new_digest)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            self._state = (algorithm, new_seq, new_digest)
            self._checkpoint_seq = checkpointed or self._checkpoint_seq
            return value

    # --- checkpoints (fullbandit.sessions.checkpoint) -------------------------------------
    def _stored_checkpoint(self) -> tuple[Algorithm, int, str] | None:
        """The store's checkpoint as a kept state ``(algorithm, seq, digest)``, or ``None`` when it has no usable one.

        Usable: written by this code (:func:`~fullbandit.sessions.checkpoint.code_fingerprint`), its
        event still in the journal with its digest, its binding to that event and the meta row
        intact, and its pickle readable by the restricted unpickler. Anything else is ignored
        (the journal is replayed from its start, which checks every digest).
        """
        connection = self._connection
        stored = store.read_checkpoint(connection)
        if stored is None or stored.code != checkpoint.code_fingerprint() or not 0 < stored.seq <= \
                store.last_seq(connection):
            return None
        meta = store.digest_at(connection, self.path, 0)
        if store.digest_at(connection, self.path, stored.seq) != stored.digest or stored.binding != \
                store.checkpoint_binding(meta, stored.seq, stored.digest, stored.code, stored.state):
            return None
        try:
            algorithm = checkpoint.loads(stored.state)
        except pickle.UnpicklingError:
            return None
        self._checkpoint_seq = stored.seq
        return algorithm, stored.seq, stored.digest

    def _checkpoint(self, algorithm: Algorithm, seq: int, digest: str) -> int | None:
        """Store ``algorithm`` (after event ``seq``) as the checkpoint when enough events followed the last one.

        In the caller's write transaction; returns ``seq`` when written. Every
        :data:`CHECKPOINT_EVERY` events, and never more often than every ``seq //``
        :data:`CHECKPOINT_SPACING` events: the state grows with the journal (its record), so the
        bytes written per event stay bounded while an open replays at most that many events.
        """
        if seq - self._checkpoint_seq < max(CHECKPOINT_EVERY, seq // CHECKPOINT_SPACING) \
                or not checkpoint.can_checkpoint(algorithm):
            return None
        state = checkpoint.dumps(algorithm)
        if state is None:
            return None
        store.write_checkpoint(self._connection, store.digest_at(self._connection, self.path, 0), seq, digest,
                               checkpoint.code_fingerprint(), state)
        return seq

    def _checkpoint_after_open(self) -> None:
        """Write a checkpoint when the open replayed many events (a store without one, or after an upgrade).

        Skipped, silently, when another process holds the write lock for more than
        :data:`CHECKPOINT_WAIT_MS` or the file cannot be written: it is only a cache.
        """
        if self._state is None or not self._state[1] - self._checkpoint_seq >= CHECKPOINT_EVERY:
            return
        algorithm, seq, digest = self._state
        connection = self._connection
        try:
            connection.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:
            return
        finally:
            connection.execute(f"PRAGMA busy_timeout={store.BUSY_TIMEOUT_MS}")
        try:
            # Only while the journal still holds that event: the checkpoint follows a journal event.
            written = self._checkpoint(algorithm, seq, digest) if seq <= store.last_seq(connection) and \
                store.digest_at(connection, self.path, seq) == digest else None
            connection.execute("COMMIT")
        except sqlite3.Error:
            connection.execute("ROLLBACK")
            return
        self._checkpoint_seq = written or self._checkpoint_seq

    def _check_checkpoint(self, replayed: tuple[Algorithm, int, str]) -> int | None:
        """Refuse (:class:`StateError`) a store whose usable checkpoint, brought up to the journal's end,
        disagrees with ``replayed``, the algorithm replayed from the journal's start: its record or its next pulls.

        Returns the checkpoint's ``seq`` (``None``: no usable checkpoint).
        """
        resumed = self._stored_checkpoint()
        if resumed is None:
            return None
        seq = resumed[1]
        resumed = self._replay(resumed)
        resumed_state = resumed[0].get_state()  # once: a state holds the whole record
        fields = [(name, value, resumed_state.get(name)) for name, value in replayed[0].get_state().items()]
        fields.append(("next pulls", next_pulls(replayed[0]), next_pulls(resumed[0])))
        for name, expected, found in fields:
            if expected != found:
                raise StateError(f"session store {self.path}: its checkpoint (the algorithm after event {seq}) "
                                 f"disagrees with the replay of the journal in {name!r}: the file was edited or "
                                 "written by a faulty fullbandit. The checkpoint is only a cache: delete it "
                                 f"(sqlite3 {self.path} 'DELETE FROM checkpoints') and the journal decides")
        return seq

    def _replay(self, kept: tuple[Algorithm, int, str] | None = None) -> tuple[Algorithm, int, str]:
        """The algorithm after every journal event, the last event's ``seq`` and digest (inside a transaction).

        ``kept``: an algorithm already replayed up to event ``seq`` with digest ``digest``; it
        is brought up to date (and changed in place) when the journal still holds that event,
        unchanged, and the journal is replayed from its start otherwise. The digests of every
        event replayed (and of the kept one's own row) are checked, and the journal's end
        against its head; :meth:`open` checks every row. Only the rows of the events replayed
        are read (and the kept one's), so bringing a kept algorithm up to date costs O(new events).
        """
        connection, path = self._connection, self.path
        last = store.last_seq(connection)
        if kept is not None and kept[1] <= last and store.digest_at(connection, path, kept[1]) == kept[2]:
            algorithm, after = kept[0], kept[1]
        else:
            algorithm, after = build_algorithm(self.created, path), 0
        seq, digest = after, store.digest_at(connection, path, after)
        # From the kept algorithm's last event on, so that event's own row is checked too.
        for event in store.events(connection, path, max(after - 1, 0)):
            if event.seq > after:
                apply_event(algorithm, event, path)
                seq, digest = event.seq, event.digest
        return algorithm, seq, digest


def pulls_needed(pulls: int, gap_bound: float | None, epsilon: float | None, *, fired: bool,
                 done: bool) -> int | None:
    """A rough estimate of the pulls still to record before the stopping rule fires (``None``: none).

    Extrapolates as if the gap bound shrank like ``1 / sqrt(pulls)`` (the confidence widths of
    a fixed design do, up to logarithmic factors: Soare et al. 2014; Kuroki et al. 2020,
    section 4): after ``pulls * (gap_bound / epsilon) ** 2`` pulls it would reach ``epsilon``.
    Only an estimate: the gap bound also moves with the estimated gaps, and an adaptive
    algorithm's design changes as it goes. 0 once the rule fired; ``None`` without a finite gap
    bound, with ``epsilon`` 0, before the first pull, or once stopped for another reason.

    >>> from fullbandit.sessions.session import pulls_needed
    >>> pulls_needed(100, 0.2, 0.1, fired=False, done=False)   # twice epsilon: four times the pulls
    300
    >>> pulls_needed(100, float("inf"), 0.1, fired=False, done=False) is None
    True
    """
    if fired:
        return 0
    if done or pulls <= 0 or gap_bound is None or epsilon is None or not epsilon > 0 \
            or not math.isfinite(gap_bound):
        return None
    try:
        estimate = pulls * ((gap_bound / epsilon) ** 2 - 1.0)
    except OverflowError:
        return None
    return max(math.ceil(estimate), 0) if math.isfinite(estimate) else None


def _same_existing_file(first: Path, second: Path) -> bool:
    """Whether both exist and are one file (hard links, or paths :meth:`Path.resolve` cannot unify)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def _check_pull_id(pull_id) -> None:
    if isinstance(pull_id, bool) or not isinstance(pull_id, numbers.Integral) or pull_id < 0:
        raise InvalidParameterError(f"pull={pull_id!r} must be a non-negative integer (an id from next)")


def _plain(reward):
    """The reward as JSON values (the algorithm has already accepted it: finite reals)."""
    if isinstance(reward, numbers.Real):
        return float(reward)
    return [float(value) for value in reward]
