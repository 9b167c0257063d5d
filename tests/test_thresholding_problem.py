"""The thresholding decision class and its loss, against enumeration of every subset."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fullbandit.analysis.metrics import misclassified
from fullbandit.problems.classes import Thresholding, decision_class_from_dict
from fullbandit.util.validation import InvalidParameterError

# Means on a grid of quarters around the threshold 0.5: exact sums, and arms exactly at it.
quarter_means = st.integers(min_value=1, max_value=7).flatmap(
    lambda n: st.lists(st.integers(0, 4).map(lambda q: q / 4), min_size=n, max_size=n))


def every_subset(n):
    for size in range(n + 1):
        yield from itertools.combinations(range(n), size)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(quarter_means)
def test_best_maximises_the_shifted_sum_over_every_subset(means):
    problem = Thresholding(len(means), 0.5)
    values = {subset: sum(means[i] - 0.5 for i in subset) for subset in every_subset(len(means))}
    top = max(values.values())
    best = problem.best(means)
    assert values[best] == top
    # The decision of the papers: every arm at or above the threshold is declared above.
    assert best == tuple(i for i, mean in enumerate(means) if mean >= 0.5)
    for subset, value in values.items():
        assert problem.value(subset, means) == pytest.approx(value)
        assert problem.gap(subset, means) == pytest.approx(top - value, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(quarter_means, st.data())
def test_misclassified_counts_the_arms_on_the_wrong_side(means, data):
    n = len(means)
    above = data.draw(st.sets(st.integers(0, n - 1)))
    truth = [mean >= 0.5 for mean in means]
    expected = sum((i in above) != truth[i] for i in range(n))
    assert misclassified(means, above, threshold=0.5) == expected
    # Within the indifference zone nothing counts; outside it, the same count.
    zone = 0.25
    expected_zone = sum((i in above and means[i] < 0.5 - zone) or (i not in above and means[i] >= 0.5 + zone)
                        for i in range(n))
    assert misclassified(means, above, threshold=0.5, epsilon=zone) == expected_zone


def test_is_optimal_accepts_either_side_for_an_arm_exactly_at_the_threshold():
    problem = Thresholding(3, 0.5)
    means = [0.5, 0.9, 0.1]
    assert problem.is_optimal((0, 1), means) and problem.is_optimal((1,), means)
    assert not problem.is_optimal((0,), means)
    # The papers' loss is stricter: an arm at the threshold must be declared above.
    assert misclassified(means, (1,), threshold=0.5) == 1


def test_round_trip_and_size():
    problem = Thresholding(4, 0.25)
    assert decision_class_from_dict(json.loads(json.dumps(problem.to_dict()))) == problem
    assert problem.size == 16 and problem.k == 1
    member = problem.random_member(np.random.default_rng(0))
    assert problem.check_super_arm(member) == member


@pytest.mark.parametrize("arms, message", [((0, 0), "distinct"), ((4,), "0..3"), ((-1,), "0..3")])
def test_bad_decisions_are_refused_with_the_argument_named(arms, message):
    with pytest.raises(InvalidParameterError, match=message):
        Thresholding(4, 0.5).check_super_arm(arms, name="above")


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), "0.5", True, None])
def test_bad_thresholds_are_refused(threshold):
    with pytest.raises(InvalidParameterError, match="threshold"):
        Thresholding(4, threshold)


def test_misclassified_refuses_bad_arms_and_tolerances():
    with pytest.raises(InvalidParameterError, match="above"):
        misclassified([0.1, 0.9], (2,), threshold=0.5)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        misclassified([0.1, 0.9], (1,), threshold=0.5, epsilon=-0.1)
