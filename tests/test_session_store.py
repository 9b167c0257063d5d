"""The session store's digests are those of ``json.dumps`` byte for byte (written faster), and the
tracking shortcut used when a session plans one pull at a time allocates what ``advance`` would."""

import hashlib
import json
import random

import numpy as np
import pytest

from fullbandit.design.tracking import Tracker
from fullbandit.sessions import store

ODD_FLOATS = [1e-7, 1e22, 1e16, -0.0, 0.0, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, -2.5, 1700000000.123456,
              float("inf"), float("-inf"), float("nan"), 123456789012345678.0]
ODD_TEXT = ["", "plain", 'quote " and back\\slash', "tab\tnew\nline\r\x00\x1f\x7f", "é ü ß", "日本語", "🙂 emoji",
            "\ud800 lone surrogate", "[0, 1, 2]", "</script>", "\u2028\u2029"]


def reference(previous, *fields):
    """The digest as the previous release computed it."""
    return hashlib.sha256(json.dumps([previous, *fields], separators=(",", ":")).encode()).hexdigest()


def test_the_row_digests_are_those_of_json_dumps():
    rng = random.Random(0)
    previous = store.GENESIS
    for _ in range(3000):
        seq, pull, count = rng.randrange(1 << 40), rng.randrange(1 << 62), rng.randrange(1, 100)
        at = rng.choice(ODD_FLOATS + [rng.uniform(-1e9, 1e9), rng.random() * 10 ** rng.randint(-30, 30)])
        text = rng.choice(ODD_TEXT + [json.dumps(sorted(rng.sample(range(1000), 5))), repr(rng.gauss(0, 1))])
        assert store.pull_digest(previous, seq, pull, text, count, at) == \
            reference(previous, "pull", seq, pull, text, count, at)
        assert store.observation_digest(previous, seq, pull, text, at) == \
            reference(previous, "observation", seq, pull, text, at)
        assert store.abandon_digest(previous, seq, pull, at) == reference(previous, "abandon", seq, pull, at)
        previous = rng.choice([store.abandon_digest(previous, seq, pull, at), text])  # odd previous text too


@pytest.mark.parametrize("fields", [
    ("meta", "fullbandit-session", 3, '{"a": [1, 2.5, null]}'),
    (True, False, None, [1, "x", 2.5], {"b": 1}, -(1 << 70), 1.5),
    (np.float64(0.1), ),  # a float subclass: json.dumps's own writing
])
def test_chain_is_json_dumps_for_any_json_value(fields):
    assert store.chain("p", *fields) == reference("p", *fields)


def test_the_meta_digest_of_a_known_store_is_unchanged():
    # Computed by the previous release (json.dumps): a store written then must still open.
    assert store.meta_digest("fullbandit-session", 2, "{}") == reference(store.GENESIS, "meta", "fullbandit-session",
                                                                          2, "{}")


@pytest.mark.parametrize("weights", [[1.0] * 7, [0.2] * 40, [1.0] * 300, [2.0, 1.0, 1.0]])
def test_tracking_allocates_what_advance_would_in_any_steps(weights):
    rng = random.Random(1)
    tracker, stepped = Tracker(weights), Tracker(weights)
    total = 0
    for _ in range(60):
        total += rng.choice([0, 1, 1, 2, 3, len(weights) // 8, len(weights), 3 * len(weights) + 1])
        tracker.allocate(total)
        while stepped.counts.sum() < total:
            stepped.advance()
        assert tracker.counts.tolist() == stepped.counts.tolist()
        assert tracker.peek() == stepped.peek()
