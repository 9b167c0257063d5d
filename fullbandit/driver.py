"""The simulation driver: a loop over ask / pull / tell, and nothing else."""

from __future__ import annotations

import time

from tqdm.auto import tqdm

from fullbandit._validation import InvalidParameterError
from fullbandit.result import Result

_PROGRESS_EVERY = 4096  # pulls between progress-bar refreshes (a refresh costs far more than a pull)


def run(algorithm, environment, *, progress: bool | None = None) -> Result:
    """Run ``algorithm`` against a simulated ``environment`` until it stops.

    The loop is exactly what a real experiment does with the ask/tell protocol:
    ``arm = algorithm.ask(); reward = environment.pull(arm); algorithm.tell(arm, reward)``.

    Parameters
    ----------
    algorithm
        An ask/tell algorithm, e.g. :class:`fullbandit.SAQM`. If its ``noise_scale`` is
        ``None`` it is set to the environment's declared scale for this feedback kind.
    environment : fullbandit.environments.Environment
        Its ``feedback`` must match what the algorithm learns from.
    progress : bool, optional
        Show a progress bar (pulls, rate, and the stopping statistic against its
        threshold). ``None`` (default) shows it only once a run has lasted two seconds.

    Returns
    -------
    Result
        With the truth filled in (best super-arm, gap, epsilon-optimality) from the
        environment's means.
    """
    problem = algorithm.problem
    if environment.n != problem.n:
        raise InvalidParameterError(f"environment has n={environment.n} arms but the problem has n={problem.n}")
    expected_feedback = getattr(algorithm, "feedback", "full")
    if environment.feedback != expected_feedback:
        raise InvalidParameterError(
            f"environment.feedback={environment.feedback!r} but {algorithm.name} learns from "
            f"{expected_feedback!r} feedback")
    noise_source = "given"
    if algorithm.noise_scale is None:
        algorithm.noise_scale = environment.noise_scale(problem.k)
        noise_source = f"declared by {type(environment).__name__}"
    start = time.perf_counter()
    # No total: the pulls a run needs are unknown in advance (the budget is only a cap).
    # The postfix shows the stopping statistic closing in on its threshold instead.
    bar = tqdm(initial=algorithm.n_pulls, unit=" pulls", unit_scale=True, delay=0.0 if progress else 2.0,
               disable=progress is False, leave=False, dynamic_ncols=True)
    try:
        since_refresh = 0
        while not algorithm.done:
            arm = algorithm.ask()
            algorithm.tell(arm, environment.pull(arm))
            since_refresh += 1
            if since_refresh == _PROGRESS_EVERY:
                bar.update(since_refresh)
                since_refresh = 0
                last = getattr(algorithm, "last_check", None)
                if last is not None:
                    bar.set_postfix(statistic=f"{last.statistic:.4g}", threshold=f"{last.threshold:.4g}",
                                    refresh=False)
    finally:
        bar.close()
    wall_time = time.perf_counter() - start
    partial = algorithm.result()
    best = problem.best(environment.means)
    gap = problem.gap(partial.answer, environment.means)
    labels = None if environment.labels is None else tuple(environment.labels[i] for i in partial.answer)
    return Result(algorithm=partial.algorithm, answer=partial.answer, pulls=partial.pulls,
                  stop_reason=partial.stop_reason,
                  constants={**partial.constants, "noise_scale_source": noise_source},
                  wall_time=wall_time, checks=partial.checks, best=best, gap=gap,
                  epsilon_optimal=problem.is_optimal(partial.answer, environment.means) or gap <= algorithm.epsilon, labels=labels)
