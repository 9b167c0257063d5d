"""The time-uniform radius (fullbandit.linalg.time_uniform) and where the algorithms may use it.

Coverage is checked on the process the proof is about: a sum of independent standard normal
increments, one per pass, must stay below ``C_p sqrt(p)`` at every pass with probability at
least ``1 - delta``. 6,000 paths of 1,024 passes at ``delta = 0.2``: the crossing count must
stay below the count a rate of ``delta`` exceeds with probability 0.001 (we measured 11.7%;
the stitched boundary it replaced, 2.6%; the mixture at 0.9x, 19%, and with its weights
summing to 3 instead of 1, 42%: red). Negative controls that must cross far more often than
``delta``: the radius halved (65% of paths), and the fixed-time radius
``sqrt(2 log(1 / delta))`` used at every pass (36%: what a radius uniform over nothing gives).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import fullbandit as fb
from fullbandit.core import registry
from fullbandit.linalg.radius import confidence_radius
from fullbandit.linalg.time_uniform import (
    CORE_MASS,
    CORE_SLOPES,
    ZETA_OF_TAIL_POWER,
    boundary_root,
    mixture_grid,
    time_uniform_radius,
)
from fullbandit.util.validation import InvalidParameterError

PATHS, PASSES, DELTA = 6000, 1024, 0.2


def _crossing_rate(radii: np.ndarray, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    walks = np.cumsum(rng.standard_normal((PATHS, PASSES)).astype(np.float32), axis=1)
    return float(np.any(walks > radii * np.sqrt(np.arange(1, PASSES + 1)), axis=1).mean())


def _radii(delta: float = DELTA) -> np.ndarray:
    return np.array([time_uniform_radius(p, delta, 1.0, 1) for p in range(1, PASSES + 1)])


def test_the_mixture_boundary_holds_at_every_pass_at_once():
    tolerance = stats.binom.isf(0.001, PATHS, DELTA) / PATHS
    assert _crossing_rate(_radii()) <= tolerance


@pytest.mark.parametrize("control", ["halved", "fixed-time"])
def test_negative_controls_cross_more_often_than_delta(control):
    radii = _radii() / 2 if control == "halved" else np.full(PASSES, math.sqrt(2 * math.log(1 / DELTA)))
    assert _crossing_rate(radii) > 1.5 * DELTA


def _stitched_line(passes: int, delta: float, n_events: int) -> float:
    """The stitched boundary this radius replaced (Howard et al. 2021, epochs of doubling length)."""
    k = passes.bit_length() - 1
    middle = math.sqrt(2 ** k * (2 ** (k + 1) - 1))
    level = math.log(n_events * ZETA_OF_TAIL_POWER * (k + 1) ** 1.4 / delta)
    return math.sqrt(level / 2) * (math.sqrt(passes / middle) + math.sqrt(middle / passes))


def test_the_mixture_weights_sum_to_one():
    from scipy.special import zeta

    assert ZETA_OF_TAIL_POWER == pytest.approx(float(zeta(1.4, 1)), rel=1e-15)
    slopes, log_weights = mixture_grid(math.log(33 / 0.05), 1 << 40)
    weights = np.exp(log_weights)
    assert weights[:CORE_SLOPES].sum() == pytest.approx(CORE_MASS, rel=1e-12)
    tail = weights[CORE_SLOPES:]
    assert tail[0] == pytest.approx((1 - CORE_MASS) / float(zeta(1.4, 1)), rel=1e-12)
    # The tail's whole mass is (1 - CORE_MASS): the grid's share plus zeta's remainder past it.
    beyond = float(zeta(1.4, tail.size + 1)) * (1 - CORE_MASS) / float(zeta(1.4, 1))
    assert tail.sum() + beyond == pytest.approx(1 - CORE_MASS, rel=1e-12)
    assert np.all(np.diff(slopes) < 0)  # tuned to later and later passes


@pytest.mark.parametrize("passes", [1, 2, 7, 64, 1000, 1 << 20])
def test_the_root_is_where_the_mixture_reaches_the_level(passes):
    level = math.log(2 * 33 / 0.05)
    slopes, log_weights = mixture_grid(level, passes)
    root = boundary_root(passes, level)

    def log_mixture(value):
        return float(np.logaddexp.reduce(log_weights + slopes * value - slopes ** 2 * passes / 2))

    assert log_mixture(root) >= level  # from above: the radius is never below the theorem's
    assert log_mixture(root * (1 - 1e-9)) < level  # and no looser than the rounding
    # Each term is at most s^2 / (2 p) (weights below one): no mixture beats the fixed-time bound.
    assert root >= math.sqrt(2 * passes * level)


@pytest.mark.parametrize("delta", [1e-9, 1e-6, 0.05, 0.2])
@pytest.mark.parametrize("n_events", [1, 33, 10 ** 6, 10 ** 12])
def test_the_mixture_pays_less_than_the_stitched_line(delta, n_events):
    passes = list(range(2, 200)) + [1 << i for i in range(8, 17)]
    ratios = np.array([time_uniform_radius(p, delta, 1.0, n_events) / _stitched_line(p, delta, n_events)
                       for p in passes]) ** 2
    assert ratios.max() <= 1.011  # never more than 1.1% above it from the second pass on
    at_32 = ratios[passes.index(32)]
    assert at_32 <= (0.84 if (delta, n_events) == (0.05, 33) else 0.96)  # and well below it where stops fall


def test_the_radius_scales_and_is_reached_through_confidence_radius():
    assert time_uniform_radius(50, 0.05, 3.0, 7) == pytest.approx(3 * time_uniform_radius(50, 0.05, 1.0, 7))
    assert time_uniform_radius(50, 0.05, 1.0, 8) > time_uniform_radius(50, 0.05, 1.0, 7)
    # Two-sided over N directions is one-sided over 2 N events.
    assert confidence_radius(100, 0.05, 1.0, 9, "time-uniform", passes=5) == time_uniform_radius(5, 0.05, 1.0, 18)
    with pytest.raises(InvalidParameterError, match="passes="):
        confidence_radius(100, 0.05, 1.0, 9, "time-uniform")
    with pytest.raises(InvalidParameterError, match="passes"):
        time_uniform_radius(0, 0.05, 1.0, 9)


def test_auto_takes_the_time_uniform_radius_only_where_the_design_repeats():
    problem = fb.TopK(6, 2)
    uniform = registry.build("swap", problem, noise_scale=1.0, seed=0).setup()
    assert uniform.constants()["confidence"] == "time-uniform"
    optimal = registry.build("swap", problem, noise_scale=1.0, seed=0, allocation="g-optimal").setup()
    assert optimal.constants()["confidence"] == "stitched"
    with pytest.raises(InvalidParameterError, match="allocation='uniform'"):
        registry.build("swap", problem, noise_scale=1.0, seed=0, allocation="g-optimal",
                       confidence="time-uniform").setup()
    prior = fb.PriorObservations.from_accuracies([0.75] * 6, answers=[4] * 6)
    for name in ("swap", "phased"):
        with_prior = registry.build(name, problem, noise_scale=1.0, seed=0).setup(prior=prior)
        assert with_prior.constants()["confidence"] == "stitched"
        explicit = registry.build(name, problem, noise_scale=1.0, seed=0, confidence="time-uniform")
        with pytest.raises(InvalidParameterError, match="prior"):
            explicit.setup(prior=prior)
        assert not explicit.is_set_up  # a refused setup changes nothing


@pytest.mark.parametrize("name", ["swap", "phased"])
def test_no_certificate_between_whole_passes(name):
    environment = fb.GaussianSum([1.0, 0.98, 0.97, 0.96, 0.95, 0.0], sigma=1.0, seed=1)
    algorithm = registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=2)
    support = len(algorithm.setup(noise_scale=1.0).design.support)
    result = fb.run(registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=2, budget=support + 1), environment,
                    progress=False)
    assert result.pulls == support + 1 and result.stop_reason == "budget exhausted"
    assert result.gap_bound == math.inf and not result.certified


def test_a_session_between_whole_passes_reports_its_last_certified_check(tmp_path):
    from fullbandit.sessions import Session

    workers = [f"w{i}" for i in range(6)]
    session = Session.start(tmp_path / "s.db", algorithm="swap", workers=workers, k=2, epsilon=0.05,
                            noise_scale=1.0, seed=3)
    crowd = fb.GaussianSum([1.0, 0.98, 0.97, 0.96, 0.95, 0.0], sigma=1.0, seed=1)
    between = []  # statuses taken between two whole passes, after the first check
    for _ in range(200):
        for pull in session.next(count=1):
            session.record(pull.id, float(crowd.pull(pull.arms, count=pull.count)))
        status = session.status()
        if status["bound_pulls"] < status["pulls"]:
            between.append(status)
    assert len(between) > 100 and not between[-1]["done"]
    pass_size = min(status["bound_pulls"] for status in between)  # the first check: one whole pass
    for status in between:
        assert isinstance(status["gap_bound"], float) and status["best_team"] is not None
        assert status["bound_pulls"] % pass_size == 0  # a certified check, at a whole pass
    session.close()
