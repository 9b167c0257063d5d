"""Feige-Peleg-Kortsarz (method="fpk"): the three procedures, their choice, and the proof of the ratio.

What every oracle must do (k distinct vertices, their weight, the proven ratio, both entry
points, validation) is in test_dks_conformance.py.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dks_references import EXACT_KINDS, dks_instances, naive_optimum, naive_weight

from fullbandit.dks import densest_k_subgraph_matrix, fpk_procedures, proven_fpk_ratio
from fullbandit.dks.feige_peleg_kortsarz import PROCEDURES
from fullbandit.util.validation import InvalidParameterError


def fpk(W, k) -> list[int]:
    return list(densest_k_subgraph_matrix(W, k, method="fpk").vertices)


def into(W, x, members):
    return sum(W[x][s] for s in members if s != x)


def naive_procedures(W, k):
    """The three procedures as documented, in exact arithmetic (ties: lowest index)."""
    n = len(W)
    h, h2 = (k + 1) // 2, k // 2
    # procedure 1: heaviest edges whose endpoints fit, then lowest-index fill-up by weight into S
    edges = sorted((-W[i][j], i, j) for i in range(n) for j in range(i + 1, n) if W[i][j] > 0)
    S = set()
    for _, i, j in edges:
        if len(S | {i, j}) <= k:
            S |= {i, j}
    while len(S) < k:
        S.add(min((x for x in range(n) if x not in S), key=lambda x: (-into(W, x, S), x)))
    one = sorted(S)
    # procedure 2
    degree = [into(W, v, range(n)) for v in range(n)]
    H = sorted(range(n), key=lambda v: (-degree[v], v))[:h]
    C = sorted((x for x in range(n) if x not in H), key=lambda x: (-into(W, x, H), x))[:h2]
    two = sorted(H + C)
    # procedure 3
    W2 = [[sum(W[v][u] * W[u][w] for u in range(n)) for w in range(n)] for v in range(n)]
    proposals = []
    for v in range(n):
        P = sorted(range(n), key=lambda w: (-W2[v][w], w))[:h]
        B = sorted((x for x in range(n) if x not in P), key=lambda x: (-into(W, x, P), x))[:h2]
        proposals.append(sorted(P + B))
    three = max(proposals, key=lambda s: naive_weight(W, s))  # max returns the first maximum
    return {"heaviest_edges": one, "highest_degrees": two, "two_walks": three}


def naive_fpk(W, k):
    proposals = list(naive_procedures(W, k).values())
    return max(proposals, key=lambda s: naive_weight(W, s))


def assert_k_subset(chosen, n, k):
    chosen = np.asarray(chosen)
    assert chosen.dtype.kind == "i"
    assert len(chosen) == k == len(set(chosen.tolist()))
    assert chosen.tolist() == sorted(chosen.tolist()) and all(0 <= v < n for v in chosen.tolist())


def procedure_1_bound(n, k):
    """The proof's bound for procedure 1 alone, recomputed independently."""
    if k == 1 or k == n:
        return Fraction(1)
    return max(Fraction(2, k * (k - 1)), Fraction(1, k if k % 2 == 0 else k + 1))


def procedure_2_bound(n, k):
    if k == 1 or k == n:
        return Fraction(1)
    h, h2 = (k + 1) // 2, k // 2
    return min(Fraction(1, 2), Fraction(h2, n - h)) * Fraction(2 * h, k)


# --- the procedures -----------------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(dks_instances(max_n=8, kinds=EXACT_KINDS))
def test_procedures_and_their_choice_match_naive_reference(instance):
    # exact arithmetic: the documented rules, ties to the lowest index, nothing else
    W, k = instance
    expected = naive_procedures(W, k)
    got = fpk_procedures(W, k)
    assert list(got) == list(PROCEDURES) == list(expected)
    for name in PROCEDURES:
        assert got[name].tolist() == expected[name], name
    assert fpk(W, k) == naive_fpk(W, k)


@settings(max_examples=60, deadline=None)
@given(dks_instances())
def test_fpk_is_the_heaviest_proposal_and_each_procedure_keeps_its_half_of_the_proof(instance):
    W, k = instance
    n = W.shape[0]
    chosen = fpk(W, k)
    weight = naive_weight(W, chosen)
    procedures = fpk_procedures(W, k)
    slack = 1e-12 * max(weight, 1.0)
    for name, proposal in procedures.items():
        assert_k_subset(proposal, n, k)
        assert weight >= naive_weight(W, proposal) - slack, name
    assert any(chosen == proposal.tolist() for proposal in procedures.values())
    _, opt = naive_optimum(W, k)
    one = naive_weight(W, procedures["heaviest_edges"])
    two = naive_weight(W, procedures["highest_degrees"])
    assert one >= float(procedure_1_bound(n, k)) * opt * (1 - 1e-12) - 1e-12
    assert two >= float(procedure_2_bound(n, k)) * opt * (1 - 1e-12) - 1e-12


@settings(max_examples=40, deadline=None)
@given(dks_instances(max_n=12), st.sampled_from([sp.csr_array, sp.csc_array, sp.coo_array, sp.csr_matrix]))
def test_dense_and_sparse_procedures_agree(instance, fmt):
    W, k = instance
    sparse_procedures = fpk_procedures(fmt(W), k)
    for name, proposal in fpk_procedures(W, k).items():
        assert sparse_procedures[name].tolist() == proposal.tolist(), name


def test_sparse_path_with_many_vertices_matches_dense():
    # procedure 3 of the dense path works in column blocks: shrink nothing, but cross several vertices
    rng = np.random.default_rng(11)
    n = 300
    W = sp.random(n, n, density=0.02, random_state=rng, data_rvs=lambda size: rng.integers(1, 9, size) / 8.0)
    W = sp.csr_array(sp.triu(W, 1))
    W = W + W.T
    dense = W.toarray()
    for k in (1, 7, 300):
        chosen = fpk(W, k)
        assert chosen == fpk(dense, k)
        assert_k_subset(chosen, n, k)


@pytest.mark.slow
def test_sparse_path_scales_without_densifying():
    # 10,000 vertices: a dense path would need 0.8 GB per matrix; this must be quick
    rng = np.random.default_rng(12)
    n = 10_000
    W = sp.random(n, n, density=4e-4, random_state=rng, format="csr")
    W = sp.csr_array(sp.triu(W, 1))
    W = W + W.T
    result = densest_k_subgraph_matrix(W, 5, method="fpk")
    assert_k_subset(list(result.vertices), n, 5)
    assert result.weight >= W.max() - 1e-12  # the heaviest edge alone is a proposal


def test_decimal_ties_go_to_lowest_index():
    # degrees: vertex 0 has 0.3; vertex 1 has 0.1 + 0.2 = 0.30000000000000004 in floating
    # point, a tie in exact arithmetic: H must be {0} (lowest index), not {1}.
    W = np.zeros((5, 5))
    for i, j, w in [(0, 4, 0.3), (1, 2, 0.1), (1, 3, 0.2)]:
        W[i, j] = W[j, i] = w
    assert W[1].sum() > W[0].sum()  # the rounding that must not decide
    assert fpk_procedures(W, 2)["highest_degrees"].tolist() == [0, 4]
    assert fpk_procedures(sp.csr_array(W), 2)["highest_degrees"].tolist() == [0, 4]


def test_uniform_and_empty_graphs_tie_to_lowest_indices():
    for n, k in [(6, 1), (6, 3), (7, 4), (5, 5)]:
        for W in (np.zeros((n, n)), np.ones((n, n)) - np.eye(n)):
            for proposal in fpk_procedures(W, k).values():
                assert proposal.tolist() == list(range(k))
            assert fpk(W, k) == list(range(k))
            assert fpk(sp.csr_array(W), k) == list(range(k))


def test_procedure_1_takes_heaviest_edges_and_fills_with_lowest_indices():
    # edges 3-4 (5.0) and 1-5 (4.0) fill k = 4; for k = 5 no edge fits any more (both
    # remaining edges have two new endpoints or lie elsewhere) and vertex 0 completes it
    W = np.zeros((8, 8))
    for i, j, w in [(3, 4, 5.0), (1, 5, 4.0), (6, 7, 3.0), (0, 2, 0.0)]:
        W[i, j] = W[j, i] = w
    assert fpk_procedures(W, 4)["heaviest_edges"].tolist() == [1, 3, 4, 5]
    assert fpk_procedures(W, 5)["heaviest_edges"].tolist() == [0, 1, 3, 4, 5]
    assert fpk_procedures(W, 6)["heaviest_edges"].tolist() == [1, 3, 4, 5, 6, 7]
    # at k - 1 vertices only an edge with one endpoint inside fits: the heaviest such one
    W[4, 2] = W[2, 4] = 1.0
    assert fpk_procedures(W, 5)["heaviest_edges"].tolist() == [1, 2, 3, 4, 5]


def test_procedure_3_uses_two_walks():
    # a 4-cycle 0-1-2-3 of weight 1 plus a pendant heavy edge 4-5 of weight 1.5 attached
    # to vertex 0 by weight 0.25: from v = 2, the two-walk weights favour 0 and 2 (via 1
    # and 3), and the best vertices into {0, 2} are 1 and 3: the 4-cycle.
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 0, 1.0), (4, 5, 1.5), (0, 4, 0.25)]:
        W[i, j] = W[j, i] = w
    assert fpk_procedures(W, 4)["two_walks"].tolist() == [0, 1, 2, 3]
    assert naive_procedures(W, 4)["two_walks"] == [0, 1, 2, 3]
    assert fpk(W, 4) == [0, 1, 2, 3]


def test_fpk_picks_the_heaviest_procedure():
    # heavy matching far from a light clique: procedure 1 loses to the clique
    n, k = 10, 4
    W = np.zeros((n, n))
    W[:4, :4] = 1.0
    np.fill_diagonal(W, 0.0)
    for i in (4, 6, 8):
        W[i, i + 1] = W[i + 1, i] = 1.5
    procedures = fpk_procedures(W, k)
    assert procedures["heaviest_edges"].tolist() == [4, 5, 6, 7]
    assert naive_weight(W, procedures["heaviest_edges"]) == 3.0
    assert fpk(W, k) == [0, 1, 2, 3] and naive_optimum(W, k)[1] == 6.0


def test_fpk_procedures_is_a_validating_front_door():
    with pytest.raises(InvalidParameterError, match=r"W must be symmetric"):
        fpk_procedures(np.array([[0.0, 1.0], [2.0, 0.0]]), 1)
    with pytest.raises(InvalidParameterError, match=r"k=3 must satisfy 1 <= k <= 2"):
        fpk_procedures(sp.csr_array(np.ones((2, 2))), 3)


# --- the proven ratio ----------------------------------------------------------------------

def test_proven_ratio_closed_form():
    for n in range(1, 40):
        for k in range(1, n + 1):
            expected = max(procedure_1_bound(n, k), procedure_2_bound(n, k))
            ratio = proven_fpk_ratio(n, k)
            assert ratio == pytest.approx(float(expected), rel=1e-15)
            if 2 <= k < n:
                assert ratio >= 1 / (k + 1)
    assert proven_fpk_ratio(10, 2) == 1.0  # the heaviest edge is optimal
    assert proven_fpk_ratio(10, 3) == pytest.approx(1 / 3)
    assert proven_fpk_ratio(10, 8) == 0.5  # procedure 2: H and C of 4, a = 4 / 6
    assert proven_fpk_ratio(1000, 20) == pytest.approx(1 / 20)


@pytest.mark.parametrize("n, k, error", [(0, 1, InvalidParameterError), (3, 0, InvalidParameterError),
                                         (3, 4, InvalidParameterError), (3.0, 1, TypeError), (3, 1.5, TypeError)])
def test_proven_ratio_validation(n, k, error):
    with pytest.raises(error):
        proven_fpk_ratio(n, k)


def planted_instances():
    """Adversarial shapes for the two halves of the proof."""
    yield "matching-vs-clique", 10, 4, [(i, j, 1.0) for i, j in itertools.combinations(range(4), 2)] + \
        [(4, 5, 1.01), (6, 7, 1.01), (8, 9, 1.01)]
    yield "star-vs-clique", 9, 4, [(0, j, 1.4) for j in range(1, 5)] + \
        [(i, j, 1.0) for i, j in itertools.combinations(range(5, 9), 2)]
    yield "hubs-outside-clique", 12, 6, [(h, j, 0.9) for h in (0, 1) for j in range(2, 6)] + \
        [(i, j, 1.0) for i, j in itertools.combinations(range(6, 12), 2)]


@pytest.mark.parametrize("name, n, k, edges", list(planted_instances()))
def test_each_procedure_keeps_its_bound_on_adversarial_instances(name, n, k, edges):
    W = np.zeros((n, n))
    for i, j, w in edges:
        W[i, j] = W[j, i] = w
    _, opt = naive_optimum(W, k)
    proposals = fpk_procedures(W, k)
    assert naive_weight(W, proposals["heaviest_edges"]) >= float(procedure_1_bound(n, k)) * opt - 1e-12
    assert naive_weight(W, proposals["highest_degrees"]) >= float(procedure_2_bound(n, k)) * opt - 1e-12
