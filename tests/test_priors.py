"""Prior observations: what they add to the estimate, who takes them, what they refuse, and that they persist."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.core.algorithm import ProtocolError
from fullbandit.core.journal import canonical_digest
from fullbandit.core.priors import PriorObservations, round_index
from fullbandit.datasets import CrowdTable
from fullbandit.linalg.radius import confidence_radius
from fullbandit.linalg.static_design import StaticDesign
from fullbandit.semi import LUCB, SAR
from fullbandit.util.state import StateError
from fullbandit.util.validation import InvalidParameterError

FULL_TAKERS = ("icb", "saqm", "safoa", "swap", "exhaustive", "phased")
SEMI_TAKERS = ("lucb", "clucb-pac")


def _prior(means, answers, seed=0) -> PriorObservations:
    """Real draws: ``answers`` graded answers per worker from Bernoulli(means)."""
    rng = np.random.default_rng(seed)
    counts = np.full(len(means), answers)
    return PriorObservations.from_accuracies(rng.binomial(counts, means) / counts, counts)


def test_estimate_with_prior_is_least_squares_over_every_observation():
    rng = np.random.default_rng(3)
    n, k = 6, 3
    support = [tuple(sorted(rng.choice(n, k, replace=False))) for _ in range(10)]
    support = list(dict.fromkeys(support))
    design = StaticDesign(n, support)
    rows, rewards = [], []
    for _ in range(40):
        member = int(rng.integers(len(support)))
        reward = float(rng.normal(1.0, 1.0))
        design.record(member, reward)
        rows.append(support[member])
        rewards.append(reward)
    prior_rows = [(0,), (1, 2), (5,)]
    prior_rewards = [[0.5, 1.0], [1.5], [0.0, 1.0, 1.0]]
    design.add_prior(prior_rows, [len(r) for r in prior_rewards], [sum(r) for r in prior_rewards])
    for row, values in zip(prior_rows, prior_rewards, strict=True):
        rows += [row] * len(values)
        rewards += values
    matrix = np.zeros((len(rows), n))
    for i, row in enumerate(rows):
        matrix[i, list(row)] = 1.0
    expected = np.linalg.lstsq(matrix, np.array(rewards), rcond=None)[0]
    estimate = design.estimate()
    np.testing.assert_allclose(estimate.theta, expected, atol=1e-10)
    np.testing.assert_allclose(estimate.gram, matrix.T @ matrix)
    assert estimate.pulls == 40 and design.prior_pulls == 6


def test_round_index_shifts_the_union_by_one():
    prior = PriorObservations.from_accuracies([1.0, 0.0], answers=[2, 2])
    algorithm = fb.ICB(fb.TopK(2, 1), noise_scale=0.5, seed=0).setup(prior=prior)
    plain = fb.ICB(fb.TopK(2, 1), noise_scale=0.5, seed=0).setup()
    assert algorithm.radius(7) == plain.radius(8) == confidence_radius(8, 0.05, 0.5, 2)
    assert round_index(0, prior) == 1


@pytest.mark.parametrize("name", FULL_TAKERS)
def test_a_large_prior_makes_full_bandit_algorithms_stop_sooner(name):
    means = [0.9, 0.8, 0.45, 0.4, 0.3, 0.2]
    prior = _prior(means, 4000)
    pulls = {}
    for label, given in (("without", None), ("with", prior)):
        algorithm = fb.registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=1)
        result = fb.run(algorithm, fb.BernoulliTeam(means, seed=2), prior=given, progress=False)
        assert result.stop_reason == "stopping rule" and result.answer == (0, 1)
        pulls[label] = result.pulls
        assert result.constants.get("prior_observations") == (None if given is None else 24000)
    assert pulls["with"] < pulls["without"] / 2


@pytest.mark.slow
@pytest.mark.parametrize("name", SEMI_TAKERS)
def test_a_large_prior_makes_per_arm_confidence_algorithms_stop_sooner(name):
    means = [0.9, 0.8, 0.45, 0.4, 0.3, 0.2]
    prior = _prior(means, 4000)
    pulls = []
    for given in (None, prior):
        algorithm = fb.registry.build(name, fb.TopK(6, 2), epsilon=0.05, seed=1)
        result = fb.run(algorithm, fb.BernoulliTeam(means, feedback="semi", seed=2), prior=given, progress=False)
        assert result.answer == (0, 1)
        pulls.append(result.pulls)
    assert pulls[1] < pulls[0] / 2


def test_per_arm_prior_enters_the_means_but_not_the_sample_count():
    algorithm = LUCB(fb.TopK(3, 1), noise_scale=0.5).setup(
        prior=PriorObservations.from_accuracies([0.5, 1.0, 0.0], answers=[4, 2, 2]))
    pull = algorithm.ask(max_count=10)
    algorithm.tell(pull, [1.0, 0.0, 0.0])
    samples, sums = algorithm.evidence()
    assert algorithm.n_pulls == 3 and algorithm.samples.tolist() == [1, 1, 1]
    assert samples.tolist() == [5, 3, 3] and sums.tolist() == [3.0, 2.0, 0.0]


def test_refusals_name_the_reason_and_leave_the_algorithm_as_it_was():
    team_prior = PriorObservations(4, [(0, 1, 2)], [3], [2.0])  # scale sqrt(3)/2
    cases = [
        (fb.ICB(fb.TopK(4, 2), noise_scale=0.5), team_prior, "noise_scale"),
        (fb.ICB(fb.TopK(4, 2), confidence="bernstein", reward_range=(0, 2)),
         PriorObservations.from_accuracies([1.0] * 4, [1] * 4), "confidence='tight'"),
        (LUCB(fb.TopK(4, 2), noise_scale=1.0), team_prior, "single arms only"),
        (SAR(fb.TopK(4, 2), budget=100), PriorObservations.from_accuracies([1.0] * 4, [1] * 4),
         "does not take prior observations"),
    ]
    for algorithm, prior, words in cases:
        with pytest.raises(InvalidParameterError, match=words):
            algorithm.setup(prior=prior)
        assert not algorithm.is_set_up
        algorithm.setup()  # still usable without
    with pytest.raises(InvalidParameterError, match="n=5"):
        fb.ICB(fb.TopK(5, 2), noise_scale=1.0).setup(prior=team_prior)
    with pytest.raises(TypeError, match="PriorObservations"):
        fb.ICB(fb.TopK(4, 2), noise_scale=1.0).setup(prior={"arms": [[0]]})
    algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0).setup()
    with pytest.raises(ProtocolError, match="first setup"):
        algorithm.setup(prior=team_prior)


@pytest.mark.parametrize("name", ["icb", "phased", "lucb"])
def test_a_saved_run_with_a_prior_resumes_exactly(name, tmp_path):
    means = [0.9, 0.7, 0.5, 0.4, 0.3]
    feedback = "semi" if name == "lucb" else "full"
    prior = _prior(means, 30, seed=5)

    def fresh():
        algorithm = fb.registry.build(name, fb.TopK(5, 2), epsilon=0.1, noise_scale=1.0, seed=4)
        return algorithm.setup(prior=prior)

    environment = fb.BernoulliTeam(means, feedback=feedback, seed=6)
    whole, half = fresh(), fresh()
    rewards = []
    for _ in range(60):
        pull = whole.ask(max_count=3)
        reward = environment.pull(pull.arms, count=pull.count)
        rewards.append(reward)
        whole.tell(pull, reward)
    for reward in rewards[:30]:
        half.tell(half.ask(max_count=3), reward)
    path = tmp_path / "state.json"
    half.save(path)
    resumed = type(half).load(path)
    assert resumed.prior is not None and resumed.prior.to_dict() == prior.to_dict()
    for reward in rewards[30:]:
        resumed.tell(resumed.ask(max_count=3), reward)
    assert resumed.stopping_check().gap_bound == whole.stopping_check().gap_bound
    assert resumed.get_state()["summary"] == whole.get_state()["summary"]
    assert resumed.result().as_dict() | {"wall_time": None} == whole.result().as_dict() | {"wall_time": None}


def test_a_state_whose_prior_was_edited_is_refused():
    algorithm = fb.ICB(fb.TopK(4, 2), noise_scale=1.0, seed=0).setup(
        prior=PriorObservations.from_accuracies([1.0, 0.5, 0.5, 0.0], answers=[2, 2, 2, 2]))
    state = algorithm.get_state()
    state["header"]["setup"]["prior"]["counts"][0] = 0
    with pytest.raises(StateError, match="field 'header' was changed"):
        fb.ICB.from_state(state)
    # With its digest recomputed too, the replayed setup refuses the prior as a setup would.
    state["digests"]["header"] = canonical_digest(state["header"])
    with pytest.raises(StateError, match="field 'header.setup'.*counts"):
        fb.ICB.from_state(state)
    state["header"]["setup"]["prior"]["counts"][0] = 2
    state["header"]["setup"]["prior"]["noise_scale"] = 5.0
    state["digests"]["header"] = canonical_digest(state["header"])
    with pytest.raises(StateError, match="field 'header.setup'.*noise_scale"):
        fb.ICB.from_state(state)


def test_prior_validation_names_the_argument():
    with pytest.raises(InvalidParameterError, match=r"arms\[1\]"):
        PriorObservations(3, [(0,), (3,)], [1, 1], [1.0, 0.0])
    with pytest.raises(InvalidParameterError, match="distinct"):
        PriorObservations(3, [(0, 1), (1, 0)], [1, 1], [1.0, 0.0])
    with pytest.raises(InvalidParameterError, match="counts"):
        PriorObservations(3, [(0,)], [0], [0.0])
    with pytest.raises(InvalidParameterError, match="reward_sums"):
        PriorObservations(3, [(0,)], [1], [math.nan])
    with pytest.raises(InvalidParameterError, match="whole number"):
        PriorObservations.from_accuracies([0.5], answers=[3])
    with pytest.raises(InvalidParameterError, match="answers"):
        PriorObservations.from_accuracies([0.5], answers=[-2])
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        PriorObservations.from_accuracies([1.5], answers=[2])


def test_prior_from_a_crowd_table_counts_each_graded_answer():
    nan = float("nan")
    table = CrowdTable(("a", "b", "c"), ("q1", "q2", "q3"), [[1, 0, nan], [1, 1, nan], [0, nan, 1]])
    prior = PriorObservations.from_table(table)
    assert prior.arms == ((0,), (1,), (2,))
    assert prior.counts.tolist() == [3, 2, 1] and prior.reward_sums.tolist() == [2.0, 1.0, 1.0]
    assert prior.noise_scale == 0.5 and prior.singletons
    reordered = PriorObservations.from_table(table, workers=["c", "z", "a"])
    assert reordered.n == 3 and reordered.arms == ((0,), (2,))
    assert reordered.counts.tolist() == [1, 3] and reordered.reward_sums.tolist() == [1.0, 2.0]


def test_prior_from_pulls_sums_each_team():
    prior = PriorObservations.from_pulls(4, [(2, 0), (0, 2), (1, 3)], [1.0, 2.0, 0.5])
    assert prior.arms == ((0, 2), (1, 3)) and prior.counts.tolist() == [2, 1]
    assert prior.reward_sums.tolist() == [3.0, 0.5] and prior.noise_scale == math.sqrt(2) / 2


def _coverage(prior_counts, answers_behind, runs=4000, seed=11):
    """How often ICB's confidence event (every arm within ``C ||e_i||_{A^-1}``) holds on a prior-only estimate.

    ``answers_behind`` draws per worker are real; ``prior_counts`` is what the prior claims. A prior
    that claims more answers than were drawn (accuracies passed off as many observations) is the
    negative control.
    """
    means = np.array([0.55, 0.5, 0.45, 0.5])
    n, rng, delta = len(means), np.random.default_rng(seed), 0.2
    algorithm = fb.ICB(fb.TopK(n, 1), delta=delta, noise_scale=0.5, support="cyclic", seed=0)
    radius = algorithm.setup(prior=PriorObservations.from_accuracies(np.ones(n), [1] * n)).radius(0)
    held = 0
    for _ in range(runs):
        accuracy = rng.binomial(answers_behind, means) / answers_behind
        design = StaticDesign(n, algorithm.support_arms)
        design.add_prior([(i,) for i in range(n)], [prior_counts] * n, accuracy * prior_counts)
        estimate = design.estimate()
        widths = np.sqrt(np.diag(estimate.gram_inverse))
        held += bool(np.all(np.abs(estimate.theta - means) <= radius * widths))
    return held / runs


@pytest.mark.slow
def test_prior_only_confidence_event_holds_and_fails_when_counts_are_inflated():
    # 4000 runs each; the event must hold in at least 1 - delta = 0.8 of them (it is conservative: ~1.0).
    assert _coverage(prior_counts=40, answers_behind=40) >= 0.8
    # Negative control: 4 real answers claimed as 40 (accuracies counted as ten times the evidence).
    assert _coverage(prior_counts=40, answers_behind=4) < 0.8


def _pac_errors(real_answers, claimed_answers, runs):
    """Wrong answers of ICB (epsilon = 0, delta = 0.1) over ``runs`` seeded runs on a gap of 0.02, with a prior
    of ``real_answers`` real draws per worker passed off as ``claimed_answers``."""
    means = np.array([0.7, 0.62, 0.6, 0.4, 0.3])  # best pair (0, 1); (0, 2) is 0.02 behind
    errors = 0
    for run in range(runs):
        prior_seed, algorithm_seed, environment_seed = np.random.SeedSequence([7, run]).spawn(3)
        drawn = np.random.default_rng(prior_seed).binomial(real_answers, means) / real_answers
        prior = PriorObservations.from_accuracies(np.round(drawn * claimed_answers) / claimed_answers,
                                                  np.full(len(means), claimed_answers))
        result = fb.run(fb.ICB(fb.TopK(5, 2), epsilon=0.0, delta=0.1, seed=algorithm_seed),
                        fb.BernoulliTeam(means, seed=environment_seed), prior=prior, progress=False)
        errors += result.answer != (0, 1)
    return errors


@pytest.mark.slow
def test_icb_with_a_real_prior_errs_at_most_delta_and_an_inflated_prior_does_not():
    # 300 runs: the error rate must stay below delta = 0.1 plus three standard errors (0.152).
    assert _pac_errors(500, 500, runs=300) / 300 <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / 300)
    # Negative control: 20 real answers passed off as 20000 make the prior decide alone (about 4 in 10 wrong).
    assert _pac_errors(20, 20_000, runs=100) / 100 > 0.2


def _drive(session, environment, limit=20_000):
    """Pull and record until the algorithm stops (``next`` is then refused)."""
    for _ in range(limit):
        try:
            (pull,) = session.next()
        except ProtocolError:
            break
        session.record(pull.id, environment.pull(pull.arms))
    return session.status()


def test_a_session_started_with_earlier_answers_matches_run_with_the_same_prior(tmp_path, capsys):
    from fullbandit.cli.main import main
    from fullbandit.sessions import Session

    workers = ["w0", "w1", "w2", "w3", "w4"]
    means = [0.9, 0.8, 0.4, 0.3, 0.2]
    (tmp_path / "workers.txt").write_text("\n".join(workers) + "\n")
    rng = np.random.default_rng(0)
    lines = ["task,worker,label"]
    for worker, mean in zip(["w3", "w0", "w1", "w2", "w4", "stranger"], [*means, 0.5], strict=False):
        lines += [f"q{q},{worker},{q % 2 if rng.random() < mean else 1 - q % 2}" for q in range(30)]
    (tmp_path / "answers.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "gold.csv").write_text("task,true_label\n" + "".join(f"q{q},{q % 2}\n" for q in range(30)))
    store = str(tmp_path / "s.db")
    start = ["session", "start", store, "--workers", str(tmp_path / "workers.txt"), "--k", "2", "--algorithm", "icb",
             "--epsilon", "0.5", "--delta", "0.1", "--noise-scale", "0.8", "--seed", "3"]
    assert main([*start, "--prior-answers", str(tmp_path / "answers.csv"), "--prior-gold",
                 str(tmp_path / "gold.csv")]) == 0
    with Session.open(store) as session:
        status = _drive(session, fb.BernoulliTeam(means, seed=9))
        session.export(tmp_path / "export.csv")
    table = fb.datasets.load_long(tmp_path / "answers.csv", tmp_path / "gold.csv")
    prior = PriorObservations.from_table(table, workers=workers)
    assert status["prior_observations"] == 150  # the stranger's 30 answers are not this campaign's
    algorithm = fb.registry.build("icb", fb.TopK(5, 2), epsilon=0.5, delta=0.1, noise_scale=0.8, seed=3)
    expected = fb.run(algorithm, fb.BernoulliTeam(means, seed=9), prior=prior, blocks=False, progress=False)
    assert (tuple(status["best_team"]), status["pulls"]) == (expected.answer, expected.pulls)
    assert status["gap_bound"] == pytest.approx(expected.gap_bound)

    # A second campaign counts the first one's exported pulls as its prior.
    second = str(tmp_path / "t.db")
    assert main([*start[:2], second, *start[3:], "--prior-pulls", str(tmp_path / "export.csv")]) == 0
    with Session.open(second) as session:
        assert session.status()["prior_observations"] == expected.pulls


def test_session_start_refuses_a_prior_without_changing_anything(tmp_path, capsys):
    from fullbandit.cli.main import main

    (tmp_path / "answers.csv").write_text("task,worker,label,true_label\nq1,a,1,1\n")
    store = tmp_path / "s.db"
    base = ["session", "start", str(store), "--n", "3", "--k", "1", "--algorithm", "icb", "--epsilon", "0.1",
            "--delta", "0.1", "--noise-scale", "0.5"]
    assert main([*base, "--prior-answers", str(tmp_path / "answers.csv")]) == 2
    assert "none of its workers" in capsys.readouterr().err and not store.exists()
    assert main([*base, "--prior-gold", str(tmp_path / "answers.csv")]) == 2
    assert "--prior-gold needs --prior-answers" in capsys.readouterr().err and not store.exists()
    (tmp_path / "answers.csv").write_text("task,worker,label,true_label\nq1,0,1,1\n")
    sar = [*base[:8], "adaptive-topk", *base[9:]]
    assert main([*sar, "--prior-answers", str(tmp_path / "answers.csv")]) == 2
    assert "does not take prior observations" in capsys.readouterr().err and not store.exists()


def _batch(path, tasks, skills, rng):
    """A long CSV of answers with a true_label column: each worker right with its skill."""
    lines = ["task,worker,label,true_label"]
    for task in tasks:
        truth = rng.choice(["A", "B"])
        lines += [f"{task},{w},{truth if rng.random() < p else 'AB'.replace(truth, '')},{truth}"
                  for w, p in skills.items()]
    path.write_text("\n".join(lines) + "\n")


def test_solve_with_a_prior_batch_counts_it_and_refuses_shared_tasks(tmp_path, capsys):
    import json as json_module

    from fullbandit.cli.main import main

    rng = np.random.default_rng(1)
    skills = {"ann": 0.9, "bob": 0.85, "cat": 0.5, "dan": 0.3}
    _batch(tmp_path / "now.csv", [f"t{i}" for i in range(40)], skills, rng)
    _batch(tmp_path / "old.csv", [f"o{i}" for i in range(25)], {**skills, "zed": 0.7}, rng)
    base = ["solve", "--data", str(tmp_path / "now.csv"), "--k", "2", "--algorithm", "icb", "--epsilon", "0.3",
            "--no-progress", "--json"]
    runs = {}
    for label, extra in (("cold", []), ("warm", ["--prior-answers", str(tmp_path / "old.csv")])):
        assert main([*base, *extra]) == 0
        runs[label] = json_module.loads(capsys.readouterr().out)
    assert runs["warm"]["constants"]["prior_observations"] == 100  # zed is not a worker of --data
    assert runs["warm"]["answer"] == runs["cold"]["answer"] == [0, 1]
    assert runs["warm"]["pulls"] < runs["cold"]["pulls"]
    # The campaign's own answers cannot also be its prior.
    assert main([*base, "--prior-answers", str(tmp_path / "now.csv")]) == 2
    assert "shares 40 task(s) with --data" in capsys.readouterr().err
    assert main(["solve", "--prior-answers", str(tmp_path / "old.csv"), "--k", "2"]) == 2
    assert "applies only with --data" in capsys.readouterr().err


def test_takes_prior_is_declared_by_exactly_the_classes_that_count_a_prior():
    from fullbandit.core.algorithm import Algorithm

    declared = {spec.name for spec in fb.registry.specs() if spec.cls.takes_prior}
    implemented = {spec.name for spec in fb.registry.specs() if spec.cls._absorb_prior is not Algorithm._absorb_prior}
    assert declared == implemented
    assert {"icb", "phased", "lucb", "clucb-pac"} <= declared and not {"sar", "apt", "adaptive-topk"} & declared
    prior = PriorObservations.from_accuracies([1.0] * 4, [1] * 4)
    for spec in fb.registry.specs():  # every other refuses a prior by its declaration, naming it
        if not spec.cls.takes_prior:
            algorithm = fb.registry.build(spec.name, fb.Thresholding(4, 0.5) if fb.Thresholding in
                                          spec.decision_classes else fb.TopK(4, 2))
            with pytest.raises(InvalidParameterError, match="takes_prior = False"):
                algorithm.setup(prior=prior)
            assert not algorithm.is_set_up


def test_solve_refuses_a_prior_for_an_algorithm_that_takes_none_naming_those_that_do(tmp_path, capsys):
    from fullbandit.cli.main import main

    (tmp_path / "answers.csv").write_text("task,worker,label,true_label\nq1,a,1,1\nq1,b,0,1\nq1,c,1,1\n")
    (tmp_path / "earlier.csv").write_text("task,worker,label,true_label\nq0,a,1,1\n")
    assert main(["solve", "--data", str(tmp_path / "answers.csv"), "--prior-answers", str(tmp_path / "earlier.csv"),
                 "--algorithm", "sar", "--k", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--prior-answers: --algorithm sar does not take prior observations; the algorithms that do: clucb-pac" in err
    assert main(["solve", "--list"]) == 0
    header, *lines = capsys.readouterr().out.splitlines()
    column = header.index("prior")
    rows = {line.split()[0]: line[column:].split()[0] for line in lines}
    assert rows["icb"] == "yes" and rows["sar"] == "no"
