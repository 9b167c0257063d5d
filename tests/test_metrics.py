"""The semi-bandit metrics against brute force over every chosen set."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fullbandit.analysis.metrics import aggregate_regret, failure_rate, precision, sample_summary
from fullbandit.util.validation import InvalidParameterError


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 5, 5, 7, 10]), min_size=2, max_size=7), st.data())
def test_regret_and_precision_against_brute_force(means, data):
    # Integer means (many ties): team values compare exactly.
    means = np.array(means, dtype=float)
    n = means.size
    K = data.draw(st.integers(1, n - 1))
    values = {team: means[list(team)].sum() for team in itertools.combinations(range(n), K)}
    best = max(values.values())
    for team, value in values.items():
        regret = aggregate_regret(means, team)
        assert regret == pytest.approx((best - value) / K, abs=1e-12)
        # Precision 1 exactly for the optimal teams (ties included), and below 1 otherwise.
        assert (precision(means, team) == 1.0) == (value == best)
        # |T intersect [K]| / K with the top-K set [K] that overlaps T most.
        overlap = max(len(set(team) & set(t)) for t, v in values.items() if v == best)
        assert precision(means, team) == overlap / K


def test_failure_rate_and_sample_summary():
    assert failure_rate([0.0, 0.5, 0.5, 0.01], epsilon=0.01) == 0.5
    summary = sample_summary(np.arange(1, 101))
    assert summary == {"max": 100.0, "mean": 50.5, "median": 50.5, "p90": pytest.approx(90.1)}


@pytest.mark.parametrize("chosen", [(), (0, 0), (5,), (-1,)])
def test_bad_chosen_sets_are_refused_naming_the_argument(chosen):
    with pytest.raises(InvalidParameterError, match="chosen"):
        aggregate_regret([0.5, 0.4, 0.3], chosen)
