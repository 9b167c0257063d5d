"""Module-level factories for the experiment-runner tests (worker processes must import them)."""

import os

import numpy as np

import fullbandit as fb
from fullbandit.experiments import Instance


def two_level_instance(rng, n, separation, sigma=0.3):
    means = np.linspace(0.0, 0.2, n)
    means[-1] += separation
    return Instance(fb.TopK(n, 1), fb.GaussianSum(rng.permutation(means), sigma=sigma, seed=rng),
                    {"top_mean": float(means.max())})


def saqm(problem, seed, epsilon=0.0):
    return fb.SAQM(problem, epsilon=epsilon, seed=seed)


def failing_instance(rng, n, separation, fail_flag):
    """While the file ``fail_flag`` exists, raises on the 6th call: simulates a crash mid-grid."""
    if os.path.exists(fail_flag):
        with open(fail_flag, "a+") as handle:
            handle.seek(0)
            calls = len(handle.read()) + 1
            handle.write("x")
        if calls == 6:
            raise RuntimeError("simulated crash")
    return two_level_instance(rng, n, separation)


def regret_metric(result, instance):
    return {"simple_regret": result.gap, "double_pulls": 2 * result.pulls}
