"""The design rank of a partition matroid (PartitionMatroid.design_rank, require_spanning_design) against
brute force: every basis enumerated, numpy's matrix_rank of their indicators; and the refusal before any pull."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fullbandit as fb
from fullbandit import InvalidParameterError
from fullbandit.problems.classes import PartitionMatroid


def bases(groups, caps, k):
    """Every k-subset with at most caps[g] members of group g, by enumeration."""
    return [team for team in itertools.combinations(range(len(groups)), k)
            if all(sum(groups[i] == g for i in team) <= cap for g, cap in enumerate(caps))]


def brute_rank(groups, caps, k) -> tuple[int, int]:
    """``(rank of the bases' indicator matrix, number of bases)``."""
    teams = bases(groups, caps, k)
    matrix = np.zeros((len(teams), len(groups)))
    for row, team in enumerate(teams):
        matrix[row, list(team)] = 1.0
    return (int(np.linalg.matrix_rank(matrix)) if teams else 0), len(teams)


def instances(max_groups=3, max_size=3, max_cap=3):
    """Every constructible instance with up to ``max_groups`` groups of 1..max_size arms and caps 0..max_cap."""
    for n_groups in range(1, max_groups + 1):
        for sizes in itertools.product(range(1, max_size + 1), repeat=n_groups):
            groups = tuple(g for g, size in enumerate(sizes) for _ in range(size))
            if len(groups) < 2:
                continue
            for caps in itertools.product(range(max_cap + 1), repeat=n_groups):
                room = sum(min(c, s) for c, s in zip(caps, sizes, strict=True))
                for k in range(1, min(room, len(groups) - 1) + 1):
                    yield groups, caps, k


def check(groups, caps, k) -> None:
    problem = PartitionMatroid(groups, caps, k)
    rank, count = brute_rank(groups, caps, k)
    assert problem.size == count
    assert problem.design_rank == rank, (groups, caps, k)
    # The stated criterion: full rank iff one group, or every cap >= 1 and the caps (up to sizes) sum past k.
    sizes = [groups.count(g) for g in range(len(caps))]
    criterion = len(caps) == 1 or (min(caps) >= 1 and sum(min(c, s) for c, s in zip(caps, sizes, strict=True)) > k)
    assert (rank == len(groups)) == criterion, (groups, caps, k)
    if rank == len(groups):
        problem.require_spanning_design()
    else:
        with pytest.raises(InvalidParameterError, match="only one feasible team" if count == 1 else "rank"):
            problem.require_spanning_design()


@pytest.mark.slow
def test_design_rank_equals_the_rank_of_every_basis_on_a_grid_of_small_instances():
    seen = 0
    for groups, caps, k in instances():
        check(groups, caps, k)
        seen += 1
    assert seen > 2000  # the grid is not empty by mistake


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=4), st.data())
def test_design_rank_equals_brute_force_on_random_larger_instances(sizes, data):
    groups = tuple(g for g, size in enumerate(sizes) for _ in range(size))
    caps = tuple(data.draw(st.integers(0, size + 1)) for size in sizes)
    room = sum(min(c, s) for c, s in zip(caps, sizes, strict=True))
    if min(room, len(groups) - 1) < 1:
        return
    k = data.draw(st.integers(1, min(room, len(groups) - 1)))
    check(groups, caps, k)


def test_a_capacity_for_a_group_without_arms_changes_nothing():
    # Group 1 has no arms: it is no coordinate of R^n, and the two real groups still span.
    assert PartitionMatroid((0, 0, 2, 2), (1, 5, 2), 2).design_rank == 4
    assert PartitionMatroid((0, 0, 2, 2), (1, 5, 1), 2).design_rank == 3


def test_messages_name_the_groups_sizes_caps_and_the_change():
    with pytest.raises(InvalidParameterError) as raised:
        PartitionMatroid((0, 0, 0, 1, 1), (2, 1), 3).require_spanning_design(["fr", "jp"])
    message = str(raised.value)
    assert "fr: 3 arms, cap 2; jp: 2 arms, cap 1" in message and "sum to k=3" in message
    assert "exactly 2 of fr, 1 of jp" in message and "rank 4 < n=5" in message
    assert "Raise a cap so that they sum to more than k, or lower k below 3" in message
    with pytest.raises(InvalidParameterError, match=r"group 0: 2 arms, cap 1; group 1: 3 arms, cap 0: group 1 has "
                                                    r"cap 0, so its arms are never on a team"):
        PartitionMatroid((0, 0, 1, 1, 1), (1, 0), 1).require_spanning_design()
    with pytest.raises(InvalidParameterError, match=r"leave only one feasible team of k=3 \(0, 1, 2\): there is "
                                                    r"nothing to search"):
        PartitionMatroid((0, 0, 1, 2, 2), (2, 1, 0), 3).require_spanning_design()


def test_full_bandit_algorithms_refuse_before_any_pull():
    problem = PartitionMatroid((0, 0, 1, 1, 2, 2), (1, 1, 1), 3)  # caps sum to k
    environment = fb.GaussianSum([0.9, 0.8, 0.3, 0.2, 0.6, 0.1], sigma=0.2, seed=3)
    for name in ("icb", "exhaustive"):
        with pytest.raises(InvalidParameterError, match=r"sum to k=3.*rank 4 < n=6"):
            fb.registry.build(name, problem, epsilon=0.1)
        algorithm = fb.registry.get(name).cls(problem, epsilon=0.1, seed=0)
        with pytest.raises(InvalidParameterError, match=r"sum to k=3.*rank 4 < n=6"):
            fb.run(algorithm, environment, progress=False)
        assert not algorithm.is_set_up
        by_hand = fb.registry.get(name).cls(problem, epsilon=0.1, noise_scale=0.2, seed=0)
        with pytest.raises(InvalidParameterError, match=r"sum to k=3.*rank 4 < n=6"):
            by_hand.ask()  # ask/tell without run: refused at setup, naming the groups
        assert not by_hand.is_set_up
    # A semi-bandit algorithm is not refused by the registry for a problem it could take: none takes a matroid.
    assert all(spec.feedback == "full" for spec in fb.registry.specs() if spec.supports(problem))
