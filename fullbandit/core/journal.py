"""The record of a run: how its algorithm was made, and every ask, tell and abandon, in order.

The record is the one truth of a run. :meth:`fullbandit.core.algorithm.Algorithm.save` writes it and
:meth:`~fullbandit.core.algorithm.Algorithm.load` *replays* it: a new algorithm is built from the
header (class, parameters, the seed that reproduces the run, what :meth:`setup` was
offered) and every recorded call is made again through the public ask/tell methods. A
resumed run is therefore the same run by construction, on any machine: nothing is
restored from a copy of floating-point working state whose last bits could depend on a
memory layout or a BLAS build. A live session (:mod:`fullbandit.sessions`) journals the
same calls in SQLite and replays them with the same functions (:func:`replay_ask`,
:func:`replay_tell`).

The calls are kept compactly (a byte per call, one integer, and the rewards), about 26
bytes per pull of a full-bandit campaign, so every run can be saved at any moment.

Examples
--------
>>> import fullbandit as fb
>>> algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0, seed=3)
>>> pull = algorithm.ask()
>>> algorithm.tell(pull, 1.5)
>>> algorithm.journal.to_dict()   # an ask (max_count 1), then a tell of pull 0 with its reward
{'calls': 'at', 'ints': [1, 0], 'reals': [1.5]}

How many rewards a tell holds (one per pull, per member, or per block) is known to the
algorithm that replays it, not to the journal, which therefore offers no per-call view.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from typing import Any, Protocol

import numpy as np

from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError


class Replayable(Protocol):
    """What a replay calls: the public methods of :class:`fullbandit.core.algorithm.Algorithm` (which records
    into a :class:`Journal`, so the journal names them structurally rather than importing the class)."""

    @property
    def feedback(self) -> str: ...

    @property
    def journal(self) -> Journal: ...

    def ask(self, max_count: int = ...) -> Any: ...

    def ask_blocks(self, *args: Any, **kwargs: Any) -> Any: ...

    def tell(self, *args: Any, **kwargs: Any) -> None: ...

    def tell_blocks(self, *args: Any, **kwargs: Any) -> None: ...

    def abandon(self, *args: Any, **kwargs: Any) -> None: ...

    def outstanding_pull(self, pull_id: int) -> Any: ...

    def outstanding_blocks(self, blocks_id: int) -> Any: ...

# One byte per call; a tell with squares has its own code so that the reals can be read back.
ASK, ASK_BLOCKS, TELL, TELL_SQUARES, TELL_BLOCKS, TELL_BLOCKS_SQUARES, ABANDON, ABANDON_BLOCKS = b"aAtsTSxX"
_NAMES = {ASK: "ask", ASK_BLOCKS: "ask_blocks", TELL: "tell", TELL_SQUARES: "tell", TELL_BLOCKS: "tell_blocks",
          TELL_BLOCKS_SQUARES: "tell_blocks", ABANDON: "abandon", ABANDON_BLOCKS: "abandon_blocks"}


class Journal:
    """Every call that changed an algorithm since its setup, in order (compact; append-only).

    ``codes`` holds a byte per call, ``ints`` its integer (``max_count`` for an ask, the
    pull's or blocks' id otherwise) and ``reals`` the told rewards, then their squares
    when told: one value per pull (full feedback), per member (semi), or per block.
    """

    __slots__ = ("codes", "ints", "reals")

    def __init__(self) -> None:
        self.codes = bytearray()
        self.ints = array("q")
        self.reals = array("d")

    def __len__(self) -> int:
        return len(self.codes)

    def ask(self, max_count: int, *, blocks: bool = False) -> None:
        self.codes.append(ASK_BLOCKS if blocks else ASK)
        self.ints.append(max_count)

    def tell(self, pull_id: int, values, squares, *, blocks: bool = False) -> None:
        if blocks:
            self.codes.append(TELL_BLOCKS if squares is None else TELL_BLOCKS_SQUARES)
        else:
            self.codes.append(TELL if squares is None else TELL_SQUARES)
        self.ints.append(pull_id)
        if type(values) is float:  # a team's reward: what _extend does, without the call
            self.reals.append(values)
        else:
            _extend(self.reals, values)
        if squares is not None:
            _extend(self.reals, squares)

    def abandon(self, pull_id: int, *, blocks: bool = False) -> None:
        self.codes.append(ABANDON_BLOCKS if blocks else ABANDON)
        self.ints.append(pull_id)

    def to_dict(self) -> dict:
        return {"calls": self.codes.decode("ascii"), "ints": self.ints.tolist(), "reals": self.reals.tolist()}

    @classmethod
    def from_dict(cls, data, source: str) -> Journal:
        """A journal from :meth:`to_dict`'s output, refusing malformed fields (naming them)."""
        if not isinstance(data, dict):
            raise StateError(f"{source}: field 'journal' is not an object")
        calls, ints, reals = data.get("calls"), data.get("ints"), data.get("reals")
        if not isinstance(calls, str) or not set(calls.encode("ascii", "replace")) <= set(_NAMES):
            raise StateError(f"{source}: field 'journal.calls' must be a string of the call codes "
                             f"{bytes(sorted(_NAMES)).decode()!r}")
        if not isinstance(ints, list) or len(ints) != len(calls) \
                or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 62 for v in ints):
            raise StateError(f"{source}: field 'journal.ints' must hold one non-negative integer per call "
                             f"({len(calls)})")
        if not isinstance(reals, list) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                  for v in reals):
            raise StateError(f"{source}: field 'journal.reals' must hold only numbers")
        journal = cls()
        journal.codes = bytearray(calls.encode("ascii"))
        journal.ints = array("q", ints)
        journal.reals = array("d", [float(v) for v in reals])
        return journal

    def digest(self) -> str:
        """SHA-256 of the calls, integers and the exact bits of the reals."""
        hasher = hashlib.sha256(bytes(self.codes))
        hasher.update(np.asarray(self.ints, dtype="<i8").tobytes())
        hasher.update(np.asarray(self.reals, dtype="<f8").tobytes())
        return hasher.hexdigest()

    def replay(self, algorithm: Replayable, source: str) -> None:
        """Make every recorded call again on ``algorithm`` (freshly built and set up as recorded).

        A call the replayed algorithm refuses, or one that does not fit it (a tell of a pull
        it never handed out, too few rewards), is a :class:`StateError` naming ``source`` and
        the call's position.
        """
        reals = _Reader(self.reals)
        for position, (code, value) in enumerate(zip(self.codes, self.ints, strict=True)):
            where = f"{source}: field 'journal', call {position} ({_NAMES[code]})"
            try:
                if code == ASK:
                    replay_ask(algorithm, value)
                elif code == ASK_BLOCKS:
                    if algorithm.ask_blocks(value) is None:
                        raise InvalidParameterError("the algorithm hands out no blocks")
                elif code in (TELL, TELL_SQUARES):
                    size = _reward_size(algorithm, value)
                    rewards = reals.take(size, where)
                    squares = reals.take(size, where) if code == TELL_SQUARES else None
                    replay_tell(algorithm, value, rewards if algorithm.feedback == "semi" else rewards[0],
                                None if squares is None else squares if algorithm.feedback == "semi" else squares[0])
                elif code in (TELL_BLOCKS, TELL_BLOCKS_SQUARES):
                    blocks = _outstanding_blocks(algorithm, value)
                    rewards = reals.take(len(blocks.arms), where)
                    squares = reals.take(len(blocks.arms), where) if code == TELL_BLOCKS_SQUARES else None
                    algorithm.tell_blocks(blocks, rewards, sums_of_squares=squares)
                elif code == ABANDON:
                    algorithm.abandon(_outstanding_pull(algorithm, value))
                else:
                    algorithm.abandon(_outstanding_blocks(algorithm, value))
            except (InvalidParameterError, TypeError) as error:
                if isinstance(error, StateError):
                    raise
                raise StateError(f"{where} cannot be replayed: {error}") from None
        if reals.left:
            raise StateError(f"{source}: field 'journal.reals' holds {reals.left} value(s) that no call reads")


def replay_ask(algorithm: Replayable, max_count: int):
    """Ask again as recorded; the pull handed out."""
    return algorithm.ask(max_count)


def replay_tell(algorithm: Replayable, pull_id: int, reward, sum_of_squares=None) -> None:
    """Tell the outstanding pull ``pull_id`` again as recorded (refused if it is not outstanding)."""
    algorithm.tell(_outstanding_pull(algorithm, pull_id), reward, sum_of_squares=sum_of_squares)


def _outstanding_pull(algorithm: Replayable, pull_id: int):
    pull = algorithm.outstanding_pull(pull_id)
    if pull is None:
        raise InvalidParameterError(f"pull {pull_id} is not outstanding at that point")
    return pull


def _outstanding_blocks(algorithm: Replayable, blocks_id: int):
    blocks = algorithm.outstanding_blocks(blocks_id)
    if blocks is None:
        raise InvalidParameterError(f"blocks {blocks_id} are not outstanding at that point")
    return blocks


def _reward_size(algorithm: Replayable, pull_id: int) -> int:
    return 1 if algorithm.feedback == "full" else len(_outstanding_pull(algorithm, pull_id).arms)


def _extend(reals: array, values) -> None:
    if isinstance(values, float):
        reals.append(values)
    else:
        reals.extend(np.asarray(values, dtype=float).tolist())


class _Reader:
    """Reads the journal's reals in order."""

    def __init__(self, reals: array):
        self.reals = reals
        self.at = 0

    def take(self, size: int, where: str) -> np.ndarray:
        if self.at + size > len(self.reals):
            raise StateError(f"{where}: field 'journal.reals' ends early")
        values = np.frombuffer(self.reals, dtype=float, count=size, offset=self.at * 8).copy()
        self.at += size
        return values

    @property
    def left(self) -> int:
        return len(self.reals) - self.at


def canonical_digest(data: Any) -> str:
    """SHA-256 of ``data`` as canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
