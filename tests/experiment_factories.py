"""Module-level factories for the experiment-runner tests (worker processes must import them)."""

import os
import time

import numpy as np

import fullbandit as fb
from fullbandit.experiments import Instance

#: The columns of a row that depend on when and how fast it ran, not on what it computed.
RUN_TIME_COLUMNS = ["wall_time", "finished_at"]


def comparable_rows(frame):
    """``frame`` without :data:`RUN_TIME_COLUMNS`: what two backends must agree on exactly."""
    return frame.drop(columns=RUN_TIME_COLUMNS).reset_index(drop=True)


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


def logged_instance(rng, n, run, log, gate=None, gated_from=None):
    """Appends ``run`` and this process's id to the file ``log``, then, from run ``gated_from`` on,
    waits for the file ``gate`` to exist (the test's signal) before building the instance."""
    with open(log, "a") as handle:  # one short appended line per execution
        handle.write(f"{run} {os.getpid()}\n")
    if gated_from is not None and run >= gated_from:
        while not os.path.exists(gate):
            time.sleep(0.01)  # polls the test's signal file
    return two_level_instance(rng, n, 0.3)
