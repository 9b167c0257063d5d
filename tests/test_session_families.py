"""Every registered algorithm runs as a live session: start, next (rounds crossed), record, stop, status, export.

Parametrised over :func:`fullbandit.core.registry.specs`, so an algorithm registered later is
covered without a change here. Workers are Bernoulli with the means :data:`MEANS`; every reward
comes from one seeded generator, drawn in the order the pulls are handed out (so the order they
are recorded in does not change them); about every other batch is recorded youngest first (the
younger ones are then held and recorded in handing-out order,
:meth:`fullbandit.core.algorithm.Algorithm.tell`), and answers that come after the stop are refused
(late).
``next(count=3)`` crosses the rounds of the per-arm round-based algorithms (LUCB, SAR, OptMAI, ...:
they plan a round from the whole of the previous one) and the end of a fixed budget.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from fullbandit.cli.main import main
from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm, ProtocolError, Pull, WaitingForRewards
from fullbandit.problems.classes import PartitionMatroid, Thresholding, TopK
from fullbandit.semi import PerArmRounds
from fullbandit.semi.sequential import SequentialPerArm
from fullbandit.sessions import Session

MEANS = (0.9, 0.7, 0.5, 0.3, 0.1, 0.6)
GROUPS = ("a", "a", "b", "b", "c", "c")  # the matroid case: at most one worker of each group per team
LIMIT = 60  # pulls handed out before a fixed-confidence run that has not stopped is left (CPU budget)
COUNT = 3  # pulls asked for at once
#: One representative of each family: (registry name, the question's arguments beyond n and seed).
FAMILIES = {
    "full feedback, fixed confidence": ("phased", {"k": 2}),
    "per-arm feedback, fixed confidence": ("lucb", {"k": 2}),
    "fixed budget": ("sar", {"k": 2}),
    "thresholding": ("apt", {"threshold": 0.5}),
    "partition matroid": ("icb", {"k": 2, "groups": GROUPS, "at_most": 1}),
}


def round_based(spec: registry.AlgorithmSpec) -> bool:
    """Whether ``spec`` plans per-arm rounds from the whole previous round (and so makes ``next`` wait)."""
    return issubclass(spec.cls, PerArmRounds) and not issubclass(spec.cls, SequentialPerArm)


def limit(spec: registry.AlgorithmSpec, arguments: dict) -> int:
    """Pulls to hand out at most: a fixed-budget run goes to its end, another stops at :data:`LIMIT`."""
    return arguments["parameters"]["budget"] + COUNT if "budget" in arguments["parameters"] else LIMIT


def question(spec: registry.AlgorithmSpec, n: int = 5, **asked) -> dict:
    """``Session.start``'s arguments for ``spec`` on ``n`` workers: the question, the range and small parameters.

    A fixed-budget algorithm gets the least budget its schedule accepts (at least 20) rounded up
    to 1 more than a multiple of :data:`COUNT`, so the last ``next`` asks past the budget; a
    fixed-confidence one a tolerance it may reach within :data:`LIMIT` pulls.
    """
    if not asked:
        asked = {"threshold": 0.5} if Thresholding in spec.decision_classes else {"k": 2}
    k = asked.get("k", 1)
    low_high = (0.0, 1.0) if spec.feedback == "semi" else (0.0, float(k))
    parameters: dict = {}
    if spec.cls.setting == "fixed-budget" and "budget" in spec.options:
        algorithm = registry.build(spec.name, decision_class(n, asked))
        floor = algorithm.minimum_budget(0.5) if isinstance(algorithm, PerArmRounds) else 1
        budget = max(floor, 20)
        parameters["budget"] = budget + (1 - budget) % COUNT
    elif "epsilon" in spec.options:
        parameters.update(epsilon=1.5, delta=0.1)  # loose: phased stops (with late answers) within 2 * LIMIT
    return {"n": n, **asked, "reward_range": low_high, "parameters": parameters}


def decision_class(n: int, asked: dict):
    """The decision class the session builds from the question ``asked`` (built here directly)."""
    if "threshold" in asked:
        return Thresholding(n, asked["threshold"])
    if "groups" in asked:
        labels = sorted(set(asked["groups"]))
        return PartitionMatroid(groups=tuple(labels.index(g) for g in asked["groups"]),
                                capacities=(asked["at_most"],) * len(labels), k=asked["k"])
    return TopK(n, asked["k"])


def draw(rng: np.random.Generator, feedback: str, arms, count: int) -> float | list[float]:
    """The reward of a pull of ``arms``: each member's successes over ``count`` trials (summed for full feedback)."""
    successes = rng.binomial(count, np.asarray(MEANS)[list(arms)]).astype(float)
    return float(successes.sum()) if feedback == "full" else successes.tolist()


def drive(hand_out, record, feedback: str, rng: np.random.Generator, *, limit: int = LIMIT, cross: bool = False,
          waits=None):
    """Ask ``hand_out()`` for :data:`COUNT` pulls at a time and ``record`` their rewards until stopped or ``limit``
    (and, with ``cross``, past ``limit`` until a hand-out came back short: the end of a round).

    ``hand_out`` raises ``ProtocolError`` ("has stopped") once the run is over; a record refused
    because the run stopped meanwhile is a late answer. ``waits(pulls)`` is called after a short
    hand-out, with those pulls still outstanding. Returns the pulls handed out, the
    ``(pull, reward)`` recorded, the late pulls and the number of short hand-outs.
    """
    handed: list[Pull] = []
    recorded: list[tuple[Pull, float | list[float]]] = []
    late: list[Pull] = []
    short = 0
    while (len(handed) < limit or (cross and not short)) and len(handed) < 20 * LIMIT:  # a round ends before
        try:
            pulls = hand_out()
        except WaitingForRewards:
            raise AssertionError("nothing is outstanding, yet the algorithm waits") from None
        except ProtocolError as stopped:
            assert "has stopped" in str(stopped)
            break
        assert 1 <= len(pulls) <= COUNT
        handed += pulls
        if len(pulls) < COUNT:
            short += 1
            if waits is not None:
                waits(pulls)
        rewards = [draw(rng, feedback, pull.arms, pull.count) for pull in pulls]
        batch = list(zip(pulls, rewards, strict=True))
        for pull, reward in reversed(batch) if len(handed) % 2 else batch:
            try:
                record(pull, reward)
            except ProtocolError as stopped:
                assert "has stopped" in str(stopped)
                late.append(pull)
                continue
            recorded.append((pull, reward))
    return handed, recorded, late, short


def exported_rows(path) -> list[tuple]:
    with open(path, newline="") as handle:
        return [(int(row["pull"]), tuple(int(arm) for arm in row["arms"].split()), int(row["count"]),
                 json.loads(row["reward"])) for row in csv.DictReader(handle)]


@pytest.mark.slow
@pytest.mark.parametrize("name", registry.names())
def test_every_registered_algorithm_runs_live_from_start_to_export(tmp_path, name):
    spec = registry.get(name)
    arguments = question(spec)
    session = Session.start(tmp_path / "s.db", algorithm=name, seed=1, **arguments)

    def waits(pulls):  # a short hand-out: the algorithm waits, and a refused next writes nothing
        with pytest.raises(WaitingForRewards, match=rf"{len(pulls)} pull\(s\) outstanding"):
            session.next(count=COUNT)

    handed, recorded, late, short = drive(lambda: session.next(count=COUNT), lambda p, r: session.record(p.id, r),
                                          spec.feedback, np.random.default_rng(7), limit=limit(spec, arguments),
                                          cross=round_based(spec), waits=waits)
    assert [pull.id for pull in handed] == list(range(len(handed)))  # a refused ask took no id
    # A session hands a per-arm algorithm one sample at a time, a full-feedback one a team of k = 2.
    assert {(len(pull.arms), pull.count) for pull in handed} == {(1 if spec.feedback == "semi" else 2, 1)}
    if round_based(spec) or spec.cls.setting == "fixed-budget":
        assert short, "next(count=3) never crossed a round or the end of the budget"
    status = session.status()
    if spec.cls.setting == "fixed-budget":
        assert status["done"] and status["stop_reason"] == "budget exhausted"
    else:
        assert status["done"] or len(handed) >= LIMIT
    assert status["done"] or not late
    counted = [pull for pull, _ in recorded if pull.id not in status["waiting"]]
    assert status["pulls"] == sum(pull.count * (len(pull.arms) if spec.feedback == "semi" else 1) for pull in counted)
    with Session.open(tmp_path / "s.db") as again:  # the journal replays to the same state
        assert again.status() == status
    assert session.export(tmp_path / "out.csv") == len(recorded)
    assert exported_rows(tmp_path / "out.csv") == [(p.id, p.arms, p.count, reward) for p, reward in recorded]
    session.close()


def ask_up_to(algorithm: Algorithm, count: int) -> list:
    """What ``Session.next(count)`` hands out, asked of the algorithm itself: one pull at a time until it waits."""
    if algorithm.done:
        raise ProtocolError("the algorithm has stopped")
    pulls = []
    for _ in range(count):
        try:
            pulls.append(algorithm.ask(max_count=1))
        except WaitingForRewards:
            if not pulls:
                raise
            break
    return pulls


def tell_unless_stopped(algorithm: Algorithm, pull, reward) -> None:
    if algorithm.done:
        raise ProtocolError("the algorithm has stopped")
    algorithm.tell(pull, reward)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_session_reaches_what_the_algorithm_driven_directly_reaches(tmp_path, family):
    name, asked = FAMILIES[family]
    spec = registry.get(name)
    arguments = question(spec, n=len(GROUPS) if "groups" in asked else 5, **asked)
    session = Session.start(tmp_path / "s.db", algorithm=name, seed=3, **arguments)
    live = drive(lambda: session.next(count=COUNT), lambda p, r: session.record(p.id, r), spec.feedback,
                 np.random.default_rng(11), limit=2 * limit(spec, arguments))
    low, high = arguments["reward_range"]
    algorithm = registry.build(name, decision_class(arguments["n"], asked), seed=3, **arguments["parameters"])
    algorithm.setup(noise_scale=(high - low) / 2, reward_range=(low, high))  # what a session offers
    direct = drive(lambda: ask_up_to(algorithm, COUNT), lambda p, r: tell_unless_stopped(algorithm, p, r),
                   spec.feedback, np.random.default_rng(11), limit=2 * limit(spec, arguments))
    assert live == direct  # the same pulls, rewards recorded, late answers and short hand-outs
    status, result = session.status(), algorithm.result()
    assert status["best_team"] == list(result.answer)
    assert (status["pulls"], status["stop_reason"], status["done"]) == (result.pulls, str(result.stop_reason),
                                                                        algorithm.done)
    assert status["gap_bound"] == result.gap_bound or not np.isfinite(result.gap_bound)
    session.close()


def cli(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_runs_from_the_command_line(tmp_path, capsys, family):
    name, asked = FAMILIES[family]
    spec = registry.get(name)
    arguments = question(spec, n=len(GROUPS) if "groups" in asked else 5, **asked)
    store = tmp_path / "s.db"
    options = ["--algorithm", name, "--seed", 5, "--reward-range", *arguments["reward_range"]]
    if "groups" in asked:
        table = tmp_path / "workers.csv"
        table.write_text("worker,group\n" + "".join(f"w{i},{g}\n" for i, g in enumerate(GROUPS)))
        options += ["--workers", table, "--group-column", "group", "--at-most", asked["at_most"], "--k", asked["k"]]
    else:
        options += ["--n", arguments["n"]]
        options += ["--threshold", asked["threshold"]] if "threshold" in asked else ["--k", asked["k"]]
    parameters = dict(arguments["parameters"])
    if "budget" in parameters:
        parameters["budget"] = arguments["n"] + 5  # small: a few command lines to the end (SAR's floor is n + 1)
    for parameter, value in parameters.items():
        options += ["--" + parameter.replace("_", "-"), value]
    assert cli(capsys, "session", "start", store, *options)[0] == 0
    rng, recorded, stopped = np.random.default_rng(2), [], False
    for _ in range(6 if spec.cls.setting == "fixed-budget" else 3):  # to the end of a small budget
        status, out, err = cli(capsys, "session", "next", store, "--count", COUNT, "--json")
        if status == 2:
            assert "has stopped" in err
            stopped = True
            break
        assert status == 0
        pulls = json.loads(out)
        assert 1 <= len(pulls) <= COUNT
        assert ("handed out" in err) == (len(pulls) < COUNT)  # a short hand-out says why, on stderr only
        if len(pulls) < COUNT:
            assert f"{len(pulls)} of the {COUNT} pulls" in err
            status, _, err = cli(capsys, "session", "next", store)
            assert status == 2 and "outstanding" in err and "plan the next round" in err
        for pull in pulls:
            reward = draw(rng, spec.feedback, pull["arms"], pull["count"])
            text = repr(reward) if spec.feedback == "full" else ",".join(map(repr, reward))
            assert cli(capsys, "session", "record", store, "--pull", pull["pull"], "--reward", text)[0] == 0
            recorded.append((pull["pull"], tuple(pull["arms"]), pull["count"], reward))
    status, out, _ = cli(capsys, "session", "status", store, "--json")
    report = json.loads(out)
    assert status == 0 and report["pulls"] > 0 and report["algorithm"] == name
    if spec.cls.setting == "fixed-budget":
        assert stopped and report["done"] and report["stop_reason"] == "budget exhausted"
    if "groups" in asked:  # every team holds at most one worker of a group
        assert all(len({GROUPS[arm] for arm in arms}) == len(arms) for _, arms, _, _ in recorded)
    assert cli(capsys, "session", "export", store, "--out", tmp_path / "out.csv")[0] == 0
    assert exported_rows(tmp_path / "out.csv") == recorded


ROUND_BASED = [spec.name for spec in registry.specs() if round_based(spec)]


@pytest.mark.parametrize("name", ROUND_BASED)
def test_an_abandoned_sample_goes_back_into_its_round(name):
    # At the algorithm level (Algorithm.abandon), as a session replays an abandon.
    spec = registry.get(name)
    arguments = question(spec)
    algorithm = registry.build(name, TopK(5, 2), seed=0, **arguments["parameters"]).setup(noise_scale=0.5,
                                                                                          reward_range=(0, 1))
    pulls = []
    while True:  # the whole first round, one sample at a time
        try:
            pulls.append(algorithm.ask(max_count=1))
        except WaitingForRewards:
            break
    given_back = pulls[len(pulls) // 2]
    algorithm.abandon(given_back)
    again = algorithm.ask(max_count=1)  # the round's missing sample, under a new id
    assert (again.arms, again.id) == (given_back.arms, pulls[-1].id + 1)
    with pytest.raises(WaitingForRewards, match="is handed out|are handed out"):
        algorithm.ask(max_count=1)
    planned = np.bincount([arm for pull in pulls for arm in pull.arms], minlength=5)
    rng = np.random.default_rng(0)
    for pull in [*pulls, again]:
        if pull is not given_back:
            algorithm.tell(pull, draw(rng, "semi", pull.arms, pull.count))
    assert algorithm.samples.tolist() == planned.tolist() and algorithm.n_checks == 1  # the round, evaluated once
    assert algorithm.done or algorithm.ask(max_count=1).id == again.id + 1  # the next round is planned


@pytest.mark.parametrize("name", ROUND_BASED)
def test_a_per_arm_block_records_each_member_s_sum(name):
    spec = registry.get(name)
    algorithm = registry.build(name, TopK(5, 2), seed=0, **question(spec)["parameters"]).setup(noise_scale=0.5,
                                                                                               reward_range=(0, 1))
    block = algorithm.ask(max_count=1 << 20)  # as many samples as the round allows, in one pull
    algorithm.abandon(block)
    again = algorithm.ask(max_count=1 << 20)
    assert (again.arms, again.count) == (block.arms, block.count)
    reward = draw(np.random.default_rng(1), "semi", again.arms, again.count)
    algorithm.tell(again, reward)
    assert len(again.arms) > 1  # several members (and several samples each where the round asks for them)
    assert algorithm.samples[list(again.arms)].tolist() == [again.count] * len(again.arms)
    assert algorithm.sums[list(again.arms)].tolist() == reward
