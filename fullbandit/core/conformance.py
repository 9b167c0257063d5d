"""The conformance suite every algorithm must pass (the model is scikit-learn's
``estimator_checks``).

Each check takes an :class:`fullbandit.core.registry.AlgorithmSpec` and raises
``AssertionError`` (or the algorithm's own error) when the algorithm breaks a contract of
:mod:`fullbandit.core.algorithm`: the constructor only stores, ask/tell and :func:`fullbandit.run`
agree bit for bit, same seed same run, save and resume at any point give the identical
run, the budget is respected exactly, every invalid parameter is refused with a message
naming it, ask/tell misuse is refused and changes nothing, corrupted state files are
refused, ``result()`` works before any pull and after a budget too small to identify.

Use it for an algorithm of your own::

    import pytest
    from fullbandit.core.conformance import CHECKS

    @pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
    def test_my_algorithm(check):
        check(my_spec)
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm, ProtocolError
from fullbandit.core.loop import run, simulate_round
from fullbandit.core.params import Options, invalid_value
from fullbandit.core.registry import AlgorithmSpec
from fullbandit.environments.models import BernoulliTeam, Environment, GaussianArms, GaussianSum
from fullbandit.linalg.radius import RANGE_CONFIDENCES
from fullbandit.problems.classes import PartitionMatroid, Thresholding, TopK
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError

#: An easy instance with a clear best pair: arms 0 and 1.
THETA = np.array([0.9, 0.8, 0.3, 0.25, 0.2, 0.1])
SIGMA = 0.3
EPSILON = 0.1
#: Three tied best arms for k = 2: with epsilon = 0 no fixed-confidence rule can stop.
TIED = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])


def _problem(spec: AlgorithmSpec | None = None) -> TopK | Thresholding:
    """The pair ``(0, 1)`` to find: the top 2 of ``THETA``, or (for a thresholding algorithm) its arms above 1/2."""
    top = TopK(len(THETA), 2)
    if spec is None or spec.supports(top):
        return top
    return Thresholding(len(THETA), 0.5)


def _parameters(spec: AlgorithmSpec, **overrides) -> dict:
    """Small, fast settings for the parameters the algorithm has."""
    # A fixed-budget algorithm runs to its budget: 300 samples (50 per arm) keep the checks quick.
    budget = {"budget": 300} if spec.setting == "fixed-budget" else {}
    wanted = {"epsilon": EPSILON, "seed": 7, "noise_scale": SIGMA, "support": "random", **budget, **overrides}
    return {name: value for name, value in wanted.items() if name in spec.options}


def _make(spec: AlgorithmSpec, problem=None, **overrides) -> Algorithm:
    return spec.build(problem or _problem(spec), **_parameters(spec, **overrides))


def _environment(spec: AlgorithmSpec, means=THETA, seed: int = 11) -> Environment:
    # Per-arm algorithms pull batches of any size: their arms' noise must not depend on it.
    if spec.feedback == "semi":
        return GaussianArms(means, sigma=SIGMA, feedback="semi", seed=seed)
    return GaussianSum(means, sigma=SIGMA, feedback=spec.feedback, seed=seed)


def _drive(algorithm: Algorithm, environment, *, max_count: int, until: int | None = None) -> None:
    """The loop of :func:`fullbandit.run` (optionally stopping once ``until`` pulls are told)."""
    while not algorithm.done and (until is None or algorithm.n_pulls < until):
        simulate_round(algorithm, environment, max_count)


def _comparable(result) -> dict:
    data = result.as_dict()
    for name in ("wall_time", "best", "gap", "epsilon_optimal", "labels"):
        data.pop(name)
    data["constants"].pop("noise_scale_source", None)
    return data


def check_constructor_only_stores(spec: AlgorithmSpec) -> None:
    """The constructor stores every parameter verbatim under its own name, and nothing else."""
    problem = _problem(spec)
    parameters = _parameters(spec)
    algorithm = spec.build(problem, **parameters)
    stored = algorithm.get_params()
    assert set(stored) == set(type(algorithm).parameter_names()), "get_params must list every parameter"
    for name, value in {**spec.fixed, **parameters, "problem": problem}.items():
        assert stored[name] is value, f"parameter {name} was not stored verbatim"
    extra = set(vars(algorithm)) - set(stored)
    assert not extra, f"the constructor set attributes that are not parameters: {sorted(extra)}"
    assert type(algorithm).__name__ in repr(algorithm)


def check_run_equals_ask_tell(spec: AlgorithmSpec) -> None:
    """``run`` is the ask/tell loop: the same seeds give the same result, bit for bit."""
    by_run = run(_make(spec), _environment(spec), progress=False)
    algorithm, environment = _make(spec), _environment(spec)
    algorithm.setup(noise_scale=environment.noise_scale(algorithm.problem.k))
    _drive(algorithm, environment, max_count=1 << 30)
    assert _comparable(algorithm.result()) == _comparable(by_run)
    assert by_run.answer is not None and by_run.pulls > 0


def check_same_seed_same_run(spec: AlgorithmSpec) -> None:
    """Same seeds, same run: with blocks and with single pulls."""
    for blocks in (True, False):
        first = run(_make(spec), _environment(spec), progress=False, blocks=blocks)
        second = run(_make(spec), _environment(spec), progress=False, blocks=blocks)
        assert _comparable(first) == _comparable(second), f"two runs differ (blocks={blocks})"


def check_run_does_not_write_parameters(spec: AlgorithmSpec) -> None:
    """Work never writes a parameter (``run`` takes the noise scale without storing it)."""
    algorithm = _make(spec, noise_scale=None)
    before = {name: value for name, value in algorithm.get_params().items()}
    run(algorithm, _environment(spec), progress=False)
    after = algorithm.get_params()
    assert after.keys() == before.keys() and all(after[name] is before[name] for name in before), \
        "a parameter changed during the run"


def check_save_and_resume_is_identical(spec: AlgorithmSpec) -> None:
    """Saved at any point (even with pulls outstanding) and resumed, the run is unchanged."""
    reference, environment = _make(spec), _environment(spec)
    _drive(reference, environment, max_count=1)
    total = reference.n_pulls
    for fraction in (0.0, 0.3, 0.7):
        algorithm, environment = _make(spec), _environment(spec)
        _drive(algorithm, environment, max_count=1, until=int(fraction * total))
        outstanding = algorithm.ask() if not algorithm.done else None
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "state.json"
            algorithm.save(path)
            resumed = Algorithm.load(path)
        assert type(resumed) is type(algorithm) and resumed.get_state() == algorithm.get_state()
        if outstanding is not None:
            resumed.tell(outstanding, environment.pull(outstanding.arms))
        _drive(resumed, environment, max_count=1)
        assert _comparable(resumed.result()) == _comparable(reference.result()), \
            f"resuming at {fraction:.0%} of the run changed it"


def check_budget_is_respected_exactly(spec: AlgorithmSpec) -> None:
    """On ties no rule may stop: the run ends at the budget exactly, with no claim."""
    budget = 157
    for max_count in (1 << 30, 1):
        algorithm, environment = _make(spec, epsilon=0.0, budget=budget), _environment(spec, TIED)
        algorithm.setup()
        for _ in range(budget):  # at most one ask per pull: a run past its budget fails here, not hangs
            if algorithm.done:
                break
            pull = algorithm.ask(max_count)
            algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
        result = algorithm.result()
        assert algorithm.done, f"still running after {algorithm.n_pulls} pulls with budget={budget}"
        assert result.pulls == budget, f"{result.pulls} pulls for budget={budget} (max_count={max_count})"
        assert result.stop_reason == "budget exhausted" and not result.certified


def check_small_budget_ends_cleanly(spec: AlgorithmSpec) -> None:
    """A budget too small to identify the means ends the run with a result, not an exception.

    The budget is 2, or the least the algorithm's schedule accepts (``minimum_budget``, e.g.
    one sample of every arm for a fixed-budget per-arm algorithm); one less is refused,
    naming ``budget``, before any pull and with the algorithm left not set up.
    """
    environment = _environment(spec)
    floor = getattr(_make(spec), "minimum_budget", lambda noise_scale: 1)(environment.noise_scale(2))
    budget = max(2, floor)
    if floor > 1:
        refused = _make(spec, budget=floor - 1)
        try:
            run(refused, environment, progress=False)
        except InvalidParameterError as error:
            assert "budget" in str(error), f"the error for budget={floor - 1} does not name it: {error}"
            assert not refused.is_set_up and refused.n_pulls == 0
        else:
            raise AssertionError(f"budget={floor - 1}, below minimum_budget={floor}, was accepted")
    result = run(_make(spec, budget=budget), environment, progress=False)
    # A schedule's rounding may leave a sample of its floor unspent (SAR's), never one of 2.
    spent = result.pulls == budget if floor == 1 else 0 < result.pulls <= budget
    assert spent and result.stop_reason == "budget exhausted" and not result.certified


def check_result_before_any_pull(spec: AlgorithmSpec) -> None:
    """``result()`` before any pull reports a running algorithm with no claim."""
    result = _make(spec).result()
    assert result.pulls == 0 and result.stop_reason == "running" and not result.certified
    assert result.gap_bound == math.inf or result.gap_bound > EPSILON


def check_invalid_parameters_are_refused(spec: AlgorithmSpec) -> None:
    """Every declared parameter, given an invalid value, is refused with a message naming it."""
    constraints = spec.cls.parameter_constraints
    missing = set(spec.cls.parameter_names()) - {"problem"} - set(constraints)
    assert not missing, f"parameters without declared constraints: {sorted(missing)}"
    for name in spec.options:
        bad = invalid_value(constraints[name])
        algorithm = spec.build(_problem(spec), **{**_parameters(spec), name: bad})
        try:
            algorithm.ask()
        except (ValueError, TypeError) as error:
            assert name in str(error), f"the error for {name}={bad!r} does not name it: {error}"
            assert getattr(algorithm, name) is bad, "a refused parameter was changed"
            assert not algorithm.is_set_up, "a refused setup left a half-built algorithm"
        else:
            raise AssertionError(f"{name}={bad!r} was accepted")


def _refused(algorithm: Algorithm, what: str, call: Callable, errors=(ValueError, TypeError)) -> None:
    before = json.dumps(algorithm.get_state(), sort_keys=True)
    try:
        call()
    except errors:
        pass
    else:
        raise AssertionError(f"{what} was accepted")
    assert json.dumps(algorithm.get_state(), sort_keys=True) == before, "a refused call changed the record"
    # The record holds only accepted calls: a refused call that changed the working state anyway would
    # make the live algorithm differ from its replay.
    replayed = Algorithm.from_state(algorithm.get_state())
    assert _comparable(replayed.result()) == _comparable(algorithm.result()), "a refused call changed the state"


def check_protocol_misuse_is_refused(spec: AlgorithmSpec) -> None:
    """Double tells, unasked arms, bad rewards and tells after the stop are refused and change nothing."""
    algorithm, environment = _make(spec), _environment(spec)
    first, second = algorithm.ask(), algorithm.ask()
    reward = environment.pull(second.arms)
    algorithm.tell(second, reward)  # pulls may be told in any order
    good = environment.pull(first.arms)
    bad_rewards = [float("nan"), float("inf"), "1.0", True, None]
    if spec.feedback == "semi":
        # One number too many (a per-arm algorithm may hand out a single arm: one number is then right).
        bad_rewards += [np.ones(len(first.arms) + 1), [float("nan")] * len(first.arms)]
    for bad in bad_rewards:
        _refused(algorithm, f"a reward of {bad!r}", lambda bad=bad: algorithm.tell(first, bad))
    _refused(algorithm, "a second tell of one pull", lambda: algorithm.tell(second, reward))
    unasked = next(a for a in ((0, 1), (2, 3), (4, 5)) if a != first.arms)
    _refused(algorithm, f"a tell of the unasked {unasked}", lambda: algorithm.tell(unasked, good))
    _refused(algorithm, "fractional arm ids", lambda: algorithm.tell((0.5, 1), good))
    _refused(algorithm, "a string of arms", lambda: algorithm.tell("01", good))
    _refused(algorithm, "max_count=0", lambda: algorithm.ask(0))
    algorithm.tell(tuple(reversed(first.arms)), good)  # by its arms, members in any order
    assert not algorithm.pending
    _drive(algorithm, environment, max_count=1 << 30)
    pulls = algorithm.n_pulls
    try:
        algorithm.tell(first.arms, good)
    except ProtocolError:
        pass
    else:
        raise AssertionError("a tell after the stop was accepted")
    try:
        algorithm.ask()
    except ProtocolError:
        pass
    else:
        raise AssertionError("an ask after the stop was accepted")
    assert algorithm.n_pulls == pulls


def check_corrupted_state_is_refused(spec: AlgorithmSpec) -> None:
    """A truncated, edited or foreign record is refused with an error naming the file and the field."""
    algorithm, environment = _make(spec), _environment(spec)
    _drive(algorithm, environment, max_count=1, until=20)
    algorithm.ask()  # a pull outstanding: the record holds it too
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.json"
        algorithm.save(path)
        text = path.read_text()
        state = json.loads(text)
        header, journal, summary = state["header"], state["journal"], state["summary"]
        edited_reals = [*journal["reals"][:-1], journal["reals"][-1] + 1.0]
        variants = {
            "truncated": (text[: len(text) // 2], "truncated"),
            "foreign": (json.dumps({"hello": 1}), "format"),
            "not an object": ("[1, 2]", "top level"),
            "version edited": (json.dumps({**state, "version": -1}), "version"),
            "stop reason edited": (json.dumps({**state, "summary": {**summary, "stop_reason": "stopping rule"}}),
                                   "summary.stop_reason"),
            "pulls edited": (json.dumps({**state, "summary": {**summary, "told": summary["told"] + 1}}),
                             "summary.told"),
            "class edited": (json.dumps({**state, "header": {**header, "class": "Nonexistent"}}), "header"),
            "parameters edited": (json.dumps({**state, "header": {**header, "parameters": {
                **header["parameters"], "budget": 0}}}), "header"),
            "a reward edited": (json.dumps({**state, "journal": {**journal, "reals": edited_reals}}), "journal"),
            "the last call cut": (json.dumps({**state, "journal": {**journal, "calls": journal["calls"][:-1],
                                                                   "ints": journal["ints"][:-1]}}), "journal"),
        }
        for what, (content, field) in variants.items():
            path.write_text(content)
            try:
                Algorithm.load(path)
            except StateError as error:
                assert str(path) in str(error), f"the error for a {what} file does not name it: {error}"
                assert field in str(error), f"the error for a {what} file does not name {field!r}: {error}"
            else:
                raise AssertionError(f"a {what} state file was accepted")


def check_partition_matroid(spec: AlgorithmSpec) -> None:
    """An algorithm tagged to support partition matroids returns a member of the class."""
    problem = PartitionMatroid(groups=(0, 0, 0, 1, 1, 1), capacities=(1, 2), k=2)
    if not spec.supports(problem):
        return
    result = run(_make(spec, problem=problem), _environment(spec), progress=False)
    assert result.answer == problem.check_super_arm(result.answer)
    assert result.answer == problem.best(THETA), f"{result.answer} is not the best basis {problem.best(THETA)}"


def check_every_option_value_runs(spec: AlgorithmSpec) -> None:
    """Each allowed value of each string option, one at a time, gives a run that ends with the best pair.

    A confidence option that needs bounded rewards (``RANGE_CONFIDENCES``) must refuse the
    Gaussian environment (unbounded) with an error naming ``confidence`` and
    ``reward_range``, and runs on Bernoulli members with the same means (range declared).
    """
    for name in spec.options:
        for constraint in spec.cls.parameter_constraints[name]:
            if not isinstance(constraint, Options):
                continue
            for value in sorted(constraint.values):
                if name == "support" and value == "cyclic":
                    continue  # needs gcd(n, k) = 1, which the check's instance (6, 2) does not have
                if name == "confidence" and value in RANGE_CONFIDENCES:
                    _check_needs_bounded_rewards(spec, value)
                    continue
                result = run(_make(spec, **{name: value}), _environment(spec), progress=False)
                assert result.answer == (0, 1), f"{name}={value!r}: answer {result.answer}"


def _check_needs_bounded_rewards(spec: AlgorithmSpec, value: str) -> None:
    algorithm = _make(spec, confidence=value)
    try:
        run(algorithm, _environment(spec), progress=False)
    except ValueError as error:
        assert "confidence" in str(error) and "reward_range" in str(error), \
            f"the error for confidence={value!r} with unbounded rewards does not name the parameters: {error}"
        assert not algorithm.is_set_up, "a refused setup left a half-built algorithm"
    else:
        raise AssertionError(f"confidence={value!r} ran on unbounded (Gaussian) rewards")
    bounded = BernoulliTeam(THETA, feedback=spec.feedback, seed=11)
    result = run(_make(spec, confidence=value, noise_scale=None), bounded, progress=False)
    assert result.answer == (0, 1), f"confidence={value!r}: answer {result.answer} on Bernoulli members"


def check_easy_instance(spec: AlgorithmSpec) -> None:
    """On an instance with a wide gap the run ends with the best pair."""
    result = run(_make(spec), _environment(spec), progress=False)
    assert result.answer == (0, 1), f"answer {result.answer} on an easy instance"
    if spec.setting == "fixed-confidence":
        assert result.stop_reason == "stopping rule" and result.gap_bound <= EPSILON


#: Every check, in the order the conformance suite runs them.
CHECKS: tuple[Callable[[AlgorithmSpec], None], ...] = (
    check_constructor_only_stores, check_run_equals_ask_tell, check_same_seed_same_run,
    check_run_does_not_write_parameters, check_save_and_resume_is_identical, check_budget_is_respected_exactly,
    check_small_budget_ends_cleanly, check_result_before_any_pull, check_invalid_parameters_are_refused,
    check_protocol_misuse_is_refused, check_corrupted_state_is_refused, check_partition_matroid,
    check_every_option_value_runs, check_easy_instance,
)


def check_algorithm(spec: AlgorithmSpec | str) -> None:
    """Run every check of :data:`CHECKS` on ``spec`` (an entry or a registered name); the first failure raises.

    The way to test a new algorithm: register it, then ``check_algorithm("my-algorithm")``.
    """
    if isinstance(spec, str):
        spec = registry.get(spec)
    for check in CHECKS:
        check(spec)
