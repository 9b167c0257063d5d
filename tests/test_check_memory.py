"""What a stopping check of the static full-bandit algorithms allocates and keeps (issue 13: peak memory).

At ``n = 1000`` an ``n x n`` float64 matrix is 8 MB, so the peak of a run is a count of such
matrices alive at once. Measured here with ``tracemalloc`` (numpy's arrays are traced) at a
small ``n``, in units of ``n^2`` floats:

* at whole passes an estimate does not hold ``A = q X^T X`` (formed when read, equal to
  :meth:`StaticDesign.gram`), and the check an algorithm keeps as its last lets its ``A^-1``
  go (formed again, bit for bit, when read): a finished check leaves no ``n x n`` array behind;
* a steady check (whole passes, the support's factorisation cached) of SAQM and SA-FOA needs
  ``A^-1`` and the DkS weights (validated in place): well under the six matrices it took before.
"""

from __future__ import annotations

import copy
import pickle
import tracemalloc

import numpy as np
import pytest

import fullbandit as fb

N, K = 200, 20
MATRIX = 8 * N * N  # bytes of one n x n float64 matrix


def _after_first_check(name: str, options: dict | None = None):
    common = dict(epsilon=0.0, support="random", budget=10**12, stop_on_rule=False, seed=0, **(options or {}))
    algorithm = {"saqm": fb.SAQM, "safoa": fb.SAFOA, "icb": fb.ICB}[name.split("-")[0]](
        fb.TopK(N, K), **({"mode": "heuristic"} if name.endswith("heuristic") else {}), **common)
    algorithm.setup(noise_scale=1.0)
    environment = fb.GaussianSum(np.linspace(0.0, 1.0, N), sigma=1.0, seed=1)
    while algorithm.n_checks == 0:
        blocks = algorithm.ask_blocks()
        algorithm.tell_blocks(blocks, environment.pull_blocks(blocks.arms, blocks.counts))
    return algorithm


def test_a_whole_pass_estimate_forms_its_gram_matrix_when_read():
    algorithm = _after_first_check("icb")
    design = algorithm._design
    assert design.counts.min() == design.counts.max() > 0  # whole passes
    tracemalloc.start()
    try:
        estimate = design.estimate()
        held = tracemalloc.get_traced_memory()[0]
        gram = estimate.gram
        assert tracemalloc.get_traced_memory()[0] - held >= MATRIX  # formed now, not before
    finally:
        tracemalloc.stop()
    assert held < 1.5 * MATRIX  # A^-1 only
    np.testing.assert_array_equal(gram, design.gram())
    assert estimate.gram is not gram


@pytest.mark.parametrize("name", ["saqm", "safoa", "safoa-heuristic", "icb"])
def test_the_kept_check_re_forms_its_inverse_bit_for_bit(name):
    algorithm = _after_first_check(name)
    kept, fresh = algorithm.last_check.estimate, algorithm.stopping_check().estimate
    assert kept.gram_inverse is not kept.gram_inverse  # not held: formed on each read
    np.testing.assert_array_equal(kept.gram_inverse, fresh.gram_inverse)
    np.testing.assert_array_equal(kept.theta, fresh.theta)


def test_estimates_pickle_and_copy_with_what_they_hold_or_re_form():
    algorithm = _after_first_check("saqm")
    for estimate in (algorithm.last_check.estimate, algorithm.stopping_check().estimate):  # released, held
        for twin in (pickle.loads(pickle.dumps(estimate)), copy.deepcopy(estimate), copy.copy(estimate)):
            for part in ("theta", "gram", "gram_inverse"):
                np.testing.assert_array_equal(getattr(twin, part), getattr(estimate, part))
            assert twin.pulls == estimate.pulls
            with pytest.raises(AttributeError, match="read-only"):
                twin.pulls = 0


def test_an_inverse_that_cannot_be_re_formed_is_kept():
    algorithm = _after_first_check("saqm")
    algorithm._design.record(0, 1.0)  # an unfinished pass: A factorised afresh
    estimate = algorithm.stopping_check().estimate
    inverse = estimate.gram_inverse
    estimate.release_inverse()
    assert estimate.gram_inverse is inverse


@pytest.mark.parametrize("name", ["saqm", "safoa", "safoa-heuristic"])
def test_a_steady_check_peaks_at_a_few_matrices_and_keeps_none(name):
    algorithm = _after_first_check(name)
    algorithm.stopping_check()  # the support's spectrum is cached from here on
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        check = algorithm.stopping_check()
        now, peak = tracemalloc.get_traced_memory()
        del check
        left = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert peak - before <= 4.5 * MATRIX  # A^-1, the weights, tiles of the symmetry test (6 matrices before)
    assert now - before >= MATRIX  # the returned check holds its A^-1 ...
    assert left - before < 0.1 * MATRIX  # ... and nothing else stays
