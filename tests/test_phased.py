"""PhasedSwap: (epsilon, delta)-PAC on hard Bernoulli teams (with a negative control that must
fail), accept/reject decisions, restarts, pulls set aside, saved state, and what adaptivity buys.

Hard instances (from :mod:`test_swap_pac`): ``competitors`` (every single swap loses
``epsilon (1 + 1e-3)``), ``ties`` (``k + 1`` arms tied across the boundary), and ``far``: the
competitors instance plus arms far below (mean 0.1), which PhasedSwap rejects early and
then restarts on the rest, so the error of a wrong rejection or of a wrong restart shows.
Error tolerances are binomial quantiles at level 0.2% for an error rate of delta.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from swap_directions import swap_directions
from test_swap_pac import EPSILON, errors, hard_means, tolerance

import fullbandit as fb
from fullbandit.core import registry
from fullbandit.full import PhasedSwap
from fullbandit.util.validation import InvalidParameterError


def far_means(kind: str, n: int = 12, k: int = 2) -> np.ndarray:
    """``competitors`` on ``k + 2`` arms, the other ``n - k - 2`` arms at 0.1."""
    near = hard_means("competitors", k + 2, k)
    return np.concatenate([near, np.full(n - k - 2, 0.1)])


def phases_used(means, k: int, runs: int, delta: float = 0.1) -> list[int]:
    counts = []
    for seed in range(runs):
        environment = fb.BernoulliTeam(means, seed=seed)
        result = fb.run(PhasedSwap(fb.TopK(len(means), k), epsilon=EPSILON, delta=delta, seed=seed), environment,
                        progress=False)
        counts.append(result.constants["phase"])
    return counts


@pytest.mark.slow
def test_far_instance_makes_phased_restart():
    # The instance the PAC tests rely on to exercise the restarts really restarts.
    assert max(phases_used(far_means("far"), 2, runs=5)) >= 2


@pytest.mark.slow
def test_smoke_pac_on_hard_instances():
    # 30 runs at delta = 0.1 (10 per instance): more than 9 errors has probability below 0.2%.
    count, _ = errors(("competitors", "ties"), 6, 2, 20, delta=0.1, name="phased")
    far, _ = errors("far", 12, 2, 10, delta=0.1, name="phased", means=far_means)
    assert count + far <= tolerance(30, 0.1)


def test_smoke_negative_control_fails():
    # A quarter of the radius errs in most runs on the competitors instance.
    count, _ = errors("competitors", 6, 2, 30, delta=0.1, name="phased", radius_factor=0.25)
    assert count > tolerance(30, 0.1)


@pytest.mark.slow
@pytest.mark.parametrize("kind, n, k", [("competitors", 6, 2), ("ties", 6, 2), ("competitors", 20, 1),
                                        ("ties", 12, 3), ("far", 12, 2)])
def test_pac_on_hard_instances_over_300_runs(kind, n, k):
    means = far_means if kind == "far" else None
    count, pulls = errors(kind, n, k, 300, delta=0.1, base_seed=11, name="phased", means=means)
    print(f"phased {kind} n={n} k={k}: {count} errors in 300 runs (delta = 0.1), {pulls:.0f} pulls on average")
    assert count <= tolerance(300, 0.1)


@pytest.mark.slow
def test_negative_control_fails_over_300_runs():
    count, pulls = errors("far", 12, 2, 300, delta=0.1, radius_factor=1 / 3, base_seed=11, name="phased",
                          means=far_means)
    print(f"phased radius / 3 on far: {count} errors in 300 runs (delta = 0.1), {pulls:.0f} pulls on average")
    assert count > tolerance(300, 0.1)


def test_decisions_are_right_and_stop_when_everything_is_decided():
    # epsilon = 0 on well-separated means: the run ends by deciding every arm (gap bound 0),
    # and every accept is a top-k arm, every reject is not.
    means = np.array([1.0, 0.9, 0.1, 0.0, 0.05, 0.15])
    for seed in range(5):
        algorithm = PhasedSwap(fb.TopK(6, 2), epsilon=0.0, delta=0.05, seed=seed)
        decided: dict[str, set] = {"accept": set(), "reject": set()}

        def remember(check, decided=decided):
            for key in decided:
                decided[key].update(check.details.get(key, []))

        result = fb.run(algorithm, fb.GaussianSum(means, sigma=0.3, seed=seed), progress=False, on_check=remember)
        assert result.answer == (0, 1) and result.certified and result.gap_bound == 0.0
        assert decided["accept"] <= {0, 1} and not decided["reject"] & {0, 1}
        assert result.constants["accepted"] + result.constants["rejected"] >= 4


def test_decisions_are_state_not_diagnostics():
    # The accept/reject decisions are committed from the algorithm's own state: a check whose reported
    # details lose them (as any report may) runs the same pulls, and the public state holds them.
    class Reticent(PhasedSwap):
        def _evaluate(self):
            check = super()._evaluate()
            check.details = {key: value for key, value in check.details.items() if key not in ("accept", "reject")}
            return check

    means = far_means("far", 12, 2)
    runs = {}
    for cls in (PhasedSwap, Reticent):
        algorithm = cls(fb.TopK(12, 2), epsilon=EPSILON, delta=0.1, seed=3)
        decided: list[int] = []
        result = fb.run(algorithm, fb.BernoulliTeam(means, seed=3), progress=False,
                        on_check=lambda check, decided=decided: decided.extend(check.details.get("accept", [])
                                                                                + check.details.get("reject", [])))
        runs[cls] = (result.pulls, result.answer, result.constants["phase"], algorithm.accepted, algorithm.rejected)
        if cls is PhasedSwap:
            assert sorted(decided) == sorted(algorithm.accepted + algorithm.rejected)  # the details report them
    assert runs[Reticent] == runs[PhasedSwap]
    assert runs[PhasedSwap][2] >= 2 and len(runs[PhasedSwap][4]) >= 8  # it rejected the far arms and restarted


@pytest.mark.slow
def test_adaptivity_pays_where_most_arms_are_far_from_the_boundary():
    # 4 arms near the top, 36 far below: deciding the far arms and re-designing around the
    # rest needs fewer pulls than the best static rule (same seeds, Gaussian noise). Measured:
    # about 3x fewer at n = 60 (15.6k against 49.1k pulls, 3 seeds).
    rng = np.random.default_rng(0)
    means = np.concatenate([[1.0, 0.9, 0.8, 0.7], rng.uniform(0.0, 0.3, 36)])
    pulls = {}
    for name in ("phased", "swap"):
        pulls[name] = np.mean([fb.run(registry.build(name, fb.TopK(40, 3), delta=0.05, seed=seed),
                                      fb.GaussianSum(means, sigma=0.5, seed=seed), progress=False).pulls
                               for seed in range(2)])
    assert pulls["phased"] < 0.6 * pulls["swap"]


def _drive_to_second_phase(seed: int = 3):
    """Drive until phase 2 starts, with one pull of phase 1 handed out after the check that ends it
    was due and still outstanding (held) at the restart."""
    means = far_means("far", 12, 2)
    algorithm = PhasedSwap(fb.TopK(12, 2), epsilon=EPSILON, delta=0.1, noise_scale=np.sqrt(2) / 2, seed=seed)
    environment = fb.BernoulliTeam(means, seed=seed)
    held = None
    while algorithm.constants()["phase"] < 2 and not algorithm.done:
        if held is not None:  # the check it followed kept phase 1: tell it after all
            algorithm.tell(held, environment.pull(held.arms))
            held = None
        pull = algorithm.ask()
        if algorithm._design.pulls + 1 == algorithm._next_check:  # this pull's tell makes the check
            held = algorithm.ask()
        algorithm.tell(pull, environment.pull(pull.arms))
    return algorithm, environment, held


def test_a_pull_of_an_ended_phase_is_set_aside():
    algorithm, environment, held = _drive_to_second_phase()
    assert algorithm.constants()["phase"] == 2 and held is not None
    before = algorithm.constants()["pulls_set_aside"]
    told = algorithm.n_pulls
    algorithm.tell(held, environment.pull(held.arms))
    assert algorithm.n_pulls == told + 1
    assert algorithm.constants()["pulls_set_aside"] == before + 1


def test_save_and_load_in_the_second_phase_resume_exactly(tmp_path):
    algorithm, environment, held = _drive_to_second_phase()
    algorithm.abandon(held)
    path = tmp_path / "phased.json"
    algorithm.save(path)
    copy = fb.load(path)
    means = environment.means
    finals = [fb.run(run, fb.BernoulliTeam(means, seed=5), progress=False) for run in (algorithm, copy)]
    assert finals[0].answer == finals[1].answer and finals[0].pulls == finals[1].pulls
    assert finals[0].constants["phase"] == finals[1].constants["phase"] >= 2


def test_edited_phase_state_is_refused(tmp_path):
    algorithm, _, held = _drive_to_second_phase()
    algorithm.abandon(held)
    path = tmp_path / "phased.json"
    algorithm.save(path)
    import json
    state = json.loads(path.read_text())
    for field, value in (("told", state["summary"]["told"] + 1), ("stop_reason", "stopping rule"),
                         ("checks", 0)):
        edited = {**state, "summary": {**state["summary"], field: value}}
        path.write_text(json.dumps(edited))
        with pytest.raises(fb.StateError, match=f"{path}: field 'summary.{field}'"):
            fb.load(path)


@pytest.mark.parametrize("value", [0.0, 1.5, -1.0])
def test_restart_ratio_is_validated(value):
    algorithm = PhasedSwap(fb.TopK(5, 2), restart_ratio=value, noise_scale=1.0)
    with pytest.raises(InvalidParameterError, match="restart_ratio"):
        algorithm.setup()


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(3, 7).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n - 1), st.integers(0, 2**32 - 1))))
def test_decisions_and_gap_bound_hold_for_every_theta_in_the_events(case):
    # On any theta of the confidence events (pair directions at C, m-swaps at C_m), every
    # accepted arm is in every top-k of theta, no rejected arm is in any, and the gap of the
    # answer is at most the reported bound: the claims of the PhasedSwap proof, checked
    # against enumeration of the directions and of the teams.
    from fullbandit.linalg.least_squares import LeastSquaresEstimate
    n, k, seed = case
    rng = np.random.default_rng(seed)
    algorithm = PhasedSwap(fb.TopK(n, k), epsilon=0.0, noise_scale=1.0, seed=seed).setup()
    support = [tuple(sorted(rng.choice(n, size=k, replace=False))) for _ in range(4 * n)]
    design = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        design[row, list(arm)] = 1.0
    gram = design.T @ (rng.integers(1, 20, len(support))[:, None] * design) + 1e-6 * np.eye(n)
    Q = np.linalg.inv(gram)
    Q = (Q + Q.T) / 2
    theta_hat = rng.normal(0.0, 0.5, n) * rng.choice([0.1, 1.0])
    radius = float(rng.uniform(0.1, 3.0))
    m_max = min(k, n - k)
    graded = [radius * float(rng.uniform(1.0, 1.5)) for _ in range(m_max)]
    accept, reject, bound, answer, _ = algorithm._decide(LeastSquaresEstimate(theta_hat, gram, Q, 1), radius, graded)
    scale = {1: radius}
    directions = [(m, y) for m in range(1, m_max + 1) for y in swap_directions(n, m)]
    for _ in range(20):
        shift = rng.normal(0.0, 1.0, n) * rng.uniform(0.01, 1.0)
        worst = max(abs(y @ shift) / (min(scale.get(m, math.inf), graded[m - 1]) * math.sqrt(y @ Q @ y))
                    for m, y in directions)
        theta = theta_hat + shift / max(worst, 1.0) * rng.uniform(0.5, 1.0)
        order = np.sort(theta)[::-1]
        for i in accept:
            assert np.sum(theta >= theta[i]) <= k  # i itself and at most k - 1 others
        for j in reject:
            assert np.sum(theta > theta[j]) >= k
        best_value = order[:k].sum()
        assert best_value - theta[list(answer)].sum() <= bound + 1e-9


def test_the_phase_spectrum_bounds_every_kept_block():
    # Past EXACT_SPECTRUM_LIMIT kept arms a check reads lambda_max(P Q P) of the whole phase: it must bound the
    # kept block's own (centred on the block), for any positive definite Q and any block.
    from fullbandit.linalg.spectrum import centred_lambda_max

    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(3, 25))
        x = rng.normal(size=(n + 5, n))
        Q = np.linalg.inv(x.T @ x)
        kept = np.sort(rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False))
        assert centred_lambda_max(Q[np.ix_(kept, kept)]) <= centred_lambda_max(Q) * (1 + 1e-12)


def test_a_check_past_the_exact_spectrum_limit_is_no_sharper(monkeypatch):
    import fullbandit.full.phased as phased

    means = np.r_[1.0, 0.95, 0.9, np.linspace(0.0, 0.8, 9)]
    algorithm = PhasedSwap(fb.TopK(12, 3), epsilon=0.0, seed=1).setup(noise_scale=0.3)
    environment = fb.GaussianSum(means, sigma=0.3, seed=2)
    while not (algorithm.accepted or algorithm.rejected):
        pull = algorithm.ask(max_count=1 << 30)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
    exact = algorithm.stopping_check()
    monkeypatch.setattr(phased, "EXACT_SPECTRUM_LIMIT", 0)
    bounded = algorithm.stopping_check()
    assert bounded.answer == exact.answer and bounded.gap_bound >= exact.gap_bound
