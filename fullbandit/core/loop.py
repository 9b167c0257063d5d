"""The simulation driver: a loop over ask / pull / tell, and nothing else."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from tqdm.auto import tqdm

from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.core.result import TIME_LIMIT, Result
from fullbandit.util.validation import InvalidParameterError

#: Largest block of identical pulls the driver accepts at once (a static design hands out
#: every pull up to its next stopping check in a few blocks).
BLOCK_LIMIT = 1 << 30
_REFRESH_SECONDS = 0.5  # progress-bar refresh period (a refresh costs far more than a pull)


def run(algorithm: Algorithm, environment, *, progress: bool | None = None, blocks: bool = True,
        on_check: Callable[[StoppingCheck], None] | None = None, time_limit: float | None = None,
        prior=None) -> Result:
    """Run ``algorithm`` against a simulated ``environment`` until it stops.

    The loop is exactly what a real experiment does with the ask/tell protocol::

        pull = algorithm.ask(max_count=...)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))

    With ``blocks=True`` and an algorithm whose pulls are fixed in advance (a static design),
    every pull up to the next stopping check is asked for, drawn and told at once
    (:func:`simulate_round`)::

        blocks = algorithm.ask_blocks()
        algorithm.tell_blocks(blocks, environment.pull_blocks(blocks.arms, blocks.counts))

    For an algorithm that estimates the rewards' variances (``needs_square_sums``, e.g.
    ``confidence="bernstein"``) a block is drawn with its sum of squares and told with it::

        total, squares = environment.pull_moments(pull.arms, count=pull.count)
        algorithm.tell(pull, total, sum_of_squares=squares)

    Parameters
    ----------
    algorithm : fullbandit.core.algorithm.Algorithm
        E.g. :class:`fullbandit.SAQM`. If its ``noise_scale`` parameter is ``None``, the
        environment's declared scale for this feedback kind is used, and likewise its
        declared reward range for a ``reward_range`` parameter that is ``None`` (the
        parameters are not written).
    environment : fullbandit.environments.models.Environment
        Its ``feedback`` must match what the algorithm learns from.
    progress : bool, optional
        Show a progress bar (pulls, rate, and the stopping diagnostic: the certified
        bound on the answer's gap against epsilon). ``None`` (default) shows it only once
        a run has lasted two seconds.
    blocks : bool
        Let the algorithm hand out blocks of identical pulls (told with their summed
        reward). ``False`` makes every pull a single one (as a live campaign does).
    on_check : callable, optional
        Called with each new :class:`fullbandit.core.algorithm.StoppingCheck` (its ``estimate``
        included): the hook for experiments that look inside a run.
    time_limit : float, optional
        Seconds of wall clock: once they have passed, no further pull is asked for and the
        result's stop reason is ``"time limit"`` (checked between pulls, so a block under
        way is finished). The algorithm is left running: ``run`` again to go on.
    prior : fullbandit.core.priors.PriorObservations, optional
        Earlier real observations the algorithm counts before its first pull
        (:meth:`fullbandit.core.algorithm.Algorithm.setup`); only for an algorithm not yet set up.

    Returns
    -------
    Result
        With the truth filled in (best super-arm, gap, epsilon-optimality) from the
        environment's means.

    Examples
    --------
    >>> import fullbandit as fb
    >>> environment = fb.GaussianSum([0.9, 0.8, 0.3, 0.2, 0.1], sigma=0.2, seed=1)
    >>> result = fb.run(fb.ICB(fb.TopK(5, 2), epsilon=0.1, seed=2), environment, progress=False)
    >>> result.answer, result.certified, result.gap_bound <= 0.1
    ((0, 1), True, True)

    Replayed answers (all members answer the same question, so only the range bound
    ``R = k/2`` holds): the variance-adaptive radius reads the range ``(0, k)`` the replay
    declares, and accurate workers' scores vary little:

    >>> import numpy as np
    >>> answers = np.zeros((50, 5), dtype=int)                # 50 questions, 5 workers
    >>> for worker, right in enumerate([49, 46, 44, 3, 1]):
    ...     answers[:right, worker] = 1
    >>> runs = {confidence: fb.run(fb.ICB(fb.TopK(5, 2), epsilon=0.02, seed=0, confidence=confidence),
    ...                            fb.Replay(answers, seed=0), progress=False)
    ...         for confidence in ("tight", "stitched", "bernstein")}
    >>> runs["bernstein"].answer, runs["bernstein"].certified
    ((0, 1), True)
    >>> runs["bernstein"].pulls < runs["stitched"].pulls < runs["tight"].pulls
    True
    """
    if not isinstance(algorithm, Algorithm):
        raise TypeError(f"algorithm must be a fullbandit Algorithm, got {type(algorithm).__name__}")
    problem = algorithm.problem
    if environment.n != problem.n:
        raise InvalidParameterError(f"environment has n={environment.n} arms but the problem has n={problem.n}")
    if environment.feedback != algorithm.feedback:
        raise InvalidParameterError(
            f"environment.feedback={environment.feedback!r} but {algorithm.label()} learns from "
            f"{algorithm.feedback!r} feedback")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not math.isfinite(time_limit) or time_limit <= 0):
        raise InvalidParameterError(f"time_limit={time_limit!r} must be a positive number of seconds (or None)")
    noise_source = "given" if getattr(algorithm, "noise_scale", None) is not None \
        else f"declared by {type(environment).__name__}"
    algorithm.setup(noise_scale=environment.noise_scale(problem.k), reward_range=environment.reward_range(problem.k),
                    prior=prior)
    max_count = BLOCK_LIMIT if blocks else 1
    start = time.perf_counter()
    # No total: the pulls a run needs are unknown in advance (the budget is only a cap).
    bar = tqdm(initial=algorithm.n_pulls, unit=" pulls", unit_scale=True, delay=0.0 if progress else 2.0,
               disable=progress is False, leave=False, dynamic_ncols=True)
    try:
        shown_pulls, shown_at, checks = algorithm.n_pulls, start, algorithm.n_checks
        deadline = None if time_limit is None else start + time_limit
        while not algorithm.done and (deadline is None or time.perf_counter() < deadline):
            simulate_round(algorithm, environment, max_count)
            if algorithm.n_checks != checks:
                checks = algorithm.n_checks
                last = algorithm.last_check
                if on_check is not None and last is not None:
                    on_check(last)
                now = time.perf_counter()
                if now - shown_at >= _REFRESH_SECONDS and last is not None:
                    bar.update(algorithm.n_pulls - shown_pulls)
                    shown_pulls, shown_at = algorithm.n_pulls, now
                    bar.set_postfix(gap_bound=f"{last.gap_bound:.4g}", epsilon=f"{last.epsilon:.4g}", refresh=False)
    finally:
        bar.close()
    wall_time = time.perf_counter() - start
    partial = algorithm.result()
    answer = partial.answer
    best = problem.best(environment.means)
    gap = None if answer is None else problem.gap(answer, environment.means)
    epsilon = partial.epsilon if partial.epsilon is not None else 0.0
    epsilon_optimal = None if answer is None else bool(
        problem.is_optimal(answer, environment.means) or (gap is not None and gap <= epsilon))
    labels = None if environment.labels is None or answer is None else tuple(environment.labels[i] for i in answer)
    stop_reason = partial.stop_reason if algorithm.done else TIME_LIMIT
    return Result(algorithm=partial.algorithm, answer=answer, pulls=partial.pulls, stop_reason=stop_reason,
                  guarantee=partial.guarantee, gap_bound=partial.gap_bound, epsilon=partial.epsilon,
                  constants={**partial.constants, "noise_scale_source": noise_source},
                  parameters=partial.parameters, wall_time=wall_time, checks=partial.checks, best=best, gap=gap,
                  epsilon_optimal=epsilon_optimal, labels=labels)


def simulate_round(algorithm: Algorithm, environment, max_count: int) -> None:
    """One round of a simulation: every pull up to the next check at once, or one pull (or block).

    When ``max_count > 1``, the feedback is full and the algorithm hands out blocks
    (:meth:`fullbandit.core.algorithm.Algorithm.ask_blocks`), its blocks up to the next stopping check
    are drawn in one call (:meth:`fullbandit.environments.models.Environment.pull_blocks`) and told
    at once; otherwise one :meth:`~fullbandit.core.algorithm.Algorithm.ask` / pull / tell. With
    :attr:`~fullbandit.core.algorithm.Algorithm.needs_square_sums` the sums of squares are drawn and told too.

    Examples
    --------
    >>> import fullbandit as fb
    >>> algorithm = fb.ICB(fb.TopK(5, 2), noise_scale=1.0, seed=0, support="cyclic")
    >>> environment = fb.GaussianSum([0.9, 0.8, 0.3, 0.2, 0.1], seed=1)
    >>> simulate_round(algorithm, environment, max_count=1 << 30)    # the first pass, then the first check
    >>> algorithm.n_pulls, algorithm.n_checks
    (5, 1)
    >>> simulate_round(algorithm, environment, max_count=1)          # one pull
    >>> algorithm.n_pulls
    6
    """
    squares = algorithm.needs_square_sums
    if max_count > 1 and environment.feedback == "full" and algorithm.hands_out_blocks:
        blocks = algorithm.ask_blocks(max_count)
        if blocks is not None:
            if squares:
                totals, square_sums = environment.pull_blocks(blocks.arms, blocks.counts, moments=True)
                algorithm.tell_blocks(blocks, totals, sums_of_squares=square_sums)
            else:
                algorithm.tell_blocks(blocks, environment.pull_blocks(blocks.arms, blocks.counts))
            return
    pull = algorithm.ask(max_count)
    if squares:
        total, square_sum = environment.pull_moments(pull.arms, count=pull.count)
        algorithm.tell(pull, total, sum_of_squares=square_sum)
    else:
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
