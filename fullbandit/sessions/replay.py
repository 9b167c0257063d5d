"""Rebuilding a session's algorithm from its store: the algorithm its creation parameters make,
each journal event replayed on it, and what it would hand out next (to compare two rebuilds).

:class:`fullbandit.sessions.Session` replays with these; so does the status page's trail
(:mod:`fullbandit.sessions.page`).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm, ProtocolError, Pull
from fullbandit.core.journal import replay_ask, replay_tell
from fullbandit.core.priors import PriorObservations
from fullbandit.problems.classes import decision_class_from_dict
from fullbandit.sessions import store
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError


def build_algorithm(created: dict, path: Path, *, stored: bool = True) -> Algorithm:
    """A fresh, set-up algorithm from a session's creation parameters, before any event.

    ``created``: the ``created`` attribute of a :class:`fullbandit.sessions.Session`.

    ``stored``: the parameters were read from the store at ``path``, so malformed ones raise
    :class:`StateError` naming it; otherwise they are the caller's own arguments, whose error
    is raised as it is.
    """
    try:
        problem = decision_class_from_dict(created["problem"])
        algorithm = registry.build(created["algorithm"], problem, seed=created["seed"], **created["parameters"])
        offered = created["offered"]
        range_ = offered["reward_range"]
        prior = created.get("prior")
        algorithm.setup(noise_scale=offered["noise_scale"], reward_range=None if range_ is None else tuple(range_),
                        prior=None if prior is None else PriorObservations.from_dict(prior))
    except (KeyError, TypeError, InvalidParameterError) as error:
        if not stored:
            raise  # the caller's own arguments: their message names the argument
        raise StateError(f"session store {path}: creation parameters are malformed ({error})") from None
    return algorithm


def next_pulls(algorithm: Algorithm, count: int = 3) -> list:
    """The next ``count`` pulls ``algorithm`` would hand out (asked of a copy; what a refusal says, if it refuses)."""
    trial = copy.deepcopy(algorithm)
    pulls: list = []
    for _ in range(count):
        try:
            pulls.append(None if trial.done else trial.ask(max_count=1))
        except ProtocolError as refusal:
            pulls.append(str(refusal))
            break
    return pulls


def apply_event(algorithm: Algorithm, event: store.Event, path: Path) -> None:
    """Replay one journal event of the store at ``path`` on ``algorithm``: an ask (checked), a tell or an abandon.

    An ask must hand out the pull the journal holds; a tell gives the recorded observation;
    an abandon gives back the pull (:meth:`fullbandit.core.algorithm.Algorithm.abandon`).

    Raises
    ------
    StateError
        If the event cannot be replayed, or the algorithm asks for another pull than the journal holds
        (the store was edited or written by another version).
    """
    kind = event.kind
    if kind == store.PULL:
        try:
            pull = replay_ask(algorithm, event.count or 1)
        except (ValueError, TypeError, InvalidParameterError) as error:
            raise StateError(f"session store {path}: journal event {event.seq} (pull {event.pull}) cannot be "
                             f"replayed: {error}") from None
        # The text next() wrote for these arms: equal text is equal arms, read without parsing the JSON.
        if pull.id == event.pull and pull.count == event.count and _arms_text(pull.arms) == event.arms:
            return
        _check_replayed_pull(pull, event, path)
    elif kind == store.OBSERVATION:
        try:
            replay_tell(algorithm, event.pull, _reward_value(event.reward or ""))
        except (ValueError, TypeError, InvalidParameterError) as error:
            raise StateError(f"session store {path}: journal event {event.seq}: the observation {event.reward!r} of "
                             f"pull {event.pull} cannot be replayed: {error}") from None
    else:
        pull = algorithm.outstanding_pull(event.pull)
        if pull is None:
            raise StateError(f"session store {path}: journal event {event.seq}: the abandon of pull {event.pull} "
                             "cannot be replayed: that pull is not outstanding at that point")
        algorithm.abandon(pull)


def _check_replayed_pull(pull: Pull, event: store.Event, path: Path) -> None:
    """Refuse a journal pull ``event`` that is not the ``pull`` the replay asked (its arms compared as JSON values)."""
    where = f"session store {path}: journal event {event.seq}"
    try:
        arms = tuple(json.loads(event.arms or ""))
    except (ValueError, TypeError) as error:
        raise StateError(f"{where} (pull {event.pull}) cannot be replayed: {error}") from None
    if pull != Pull(event.pull, arms, event.count or 0):
        raise StateError(f"{where}: the journal's pull {event.pull} is arms={arms} count={event.count}, but the "
                         f"algorithm replayed from the journal asks {pull}: the store was edited or written by "
                         "another version")


@functools.lru_cache(maxsize=1 << 14)  # a design hands out few distinct teams, each many times
def _arms_text(arms) -> str:
    """``json.dumps(list(arms))`` for integer arms (what :meth:`fullbandit.sessions.Session.next` journals)."""
    return "[" + ", ".join(map(str, arms)) + "]"


# A JSON number alone (RFC 8259): json.loads gives float(text), or int(text) without a fraction or exponent.
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def _reward_value(text: str):
    """``json.loads(text)`` of a journalled reward, a plain number read without the JSON decoder."""
    match = _JSON_NUMBER.fullmatch(text)
    if match is None:
        return json.loads(text)  # a list (semi feedback), or anything else: as the decoder reads it
    return float(text) if match.lastindex else int(text)  # a fraction or an exponent matched (group 1 or 2)
