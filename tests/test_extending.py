"""Adding an algorithm the documented way: one module and one registry line each (``examples/extending/``).

``star_icb.py`` (full-bandit feedback: ICB over a support of its own, through the hook
:meth:`fullbandit.full.static.StaticFullBandit.design_support`) and ``elimination.py`` (per-arm
feedback: round-robin successive elimination on :class:`fullbandit.semi.base.PerArmConfidenceRounds`)
end with their registry line. Importing them is all it takes: the conformance suite,
:func:`fullbandit.run`, an experiment grid and the command line (``solve``, ``session start``,
``plan``) then find them by name. The tests also check that each example does what its
docstring claims (and can fail: a negative control), and that the hook's contract holds for
any subclass.
"""

from __future__ import annotations

import ast
import importlib
import io
import json
import math
import sys
from contextlib import redirect_stdout
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from test_frontends import solve_option, solve_parameters, valid_texts
from test_swap_pac import tolerance

import fullbandit as fb
from fullbandit.cli.main import main
from fullbandit.core import registry
from fullbandit.core.algorithm import ProtocolError
from fullbandit.core.conformance import check_algorithm
from fullbandit.experiments import Factory, Grid, Instance, run_grid
from fullbandit.linalg.least_squares import SingularDesignError
from fullbandit.util.validation import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]
#: registry name -> module (``python -m pytest`` from the repository root puts it on ``sys.path``).
EXAMPLES = {"star-icb": "examples.extending.star_icb", "rr-elimination": "examples.extending.elimination"}
MEANS = [0.9, 0.8, 0.3, 0.25, 0.2, 0.1, 0.05, 0.0]


@pytest.fixture(scope="module")
def examples():
    """Import the two modules (their last line registers them), and forget both afterwards."""
    modules = {name: importlib.import_module(module) for name, module in EXAMPLES.items()}
    yield modules
    for name, module in EXAMPLES.items():
        registry.unregister(name)
        sys.modules.pop(module, None)


def environment(name: str, seed: int, means=MEANS, sigma: float = 0.3):
    if registry.get(name).feedback == "semi":
        return fb.GaussianArms(means, sigma=sigma, feedback="semi", seed=seed)
    return fb.GaussianSum(means, sigma=sigma, seed=seed)


# --- one module, one registry line -------------------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_is_one_module_ending_with_its_registry_line_and_using_public_names_only(name):
    path = ROOT / (EXAMPLES[name].replace(".", "/") + ".py")
    tree = ast.parse(path.read_text())
    classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    assert len(classes) == 1
    assert ast.unparse(tree.body[-1]) == f"register({classes[0]})"
    imported = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names if (node.module or "").startswith("fullbandit")]
    assert imported and not [pair for pair in imported if any(part.startswith("_") for part in
                                                              (*pair[0].split("."), pair[1]))]
    docstring = ast.get_docstring(tree.body[[isinstance(n, ast.ClassDef) for n in tree.body].index(True)])
    assert "example" in docstring.lower() and "certified" in docstring and "References" in docstring


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_conformance_suite_passes(examples, name):
    check_algorithm(name)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_registry_reads_the_tags_from_the_class(examples, name):
    spec = registry.get(name)
    assert spec.guarantee == "certified" and spec.setting == "fixed-confidence"
    assert spec.feedback == ("semi" if name == "rr-elimination" else "full")
    assert name in registry.names(feedback=spec.feedback, problem=fb.TopK(8, 2))
    assert "support" not in spec.options and {"epsilon", "delta", "noise_scale", "budget", "seed"} <= set(spec.options)


@pytest.mark.parametrize("name", EXAMPLES)
def test_run_finds_the_best_team_and_certifies_it(examples, name):
    for seed in range(3):
        result = fb.run(registry.build(name, fb.TopK(8, 2), epsilon=0.05, seed=seed), environment(name, seed),
                        progress=False)
        assert result.answer == (0, 1) and result.certified and str(result.stop_reason) == "stopping rule"
        assert result.gap_bound <= 0.05


def _full(rng):
    return Instance(fb.TopK(len(MEANS), 2), fb.GaussianSum(MEANS, sigma=0.3, seed=rng))


def _semi(rng):
    return Instance(fb.TopK(len(MEANS), 2), fb.GaussianArms(MEANS, sigma=0.3, feedback="semi", seed=rng))


def _same_feedback(algorithm: str, instance: str) -> bool:
    return (algorithm == "rr-elimination") == (instance == "semi")


def test_a_grid_runs_them_by_name(examples):
    grid = Grid({name: name for name in EXAMPLES}, {"full": Factory(partial(_full)), "semi": Factory(partial(_semi))},
                seeds=2, pairs=_same_feedback)
    frame = run_grid(grid, backend="sequential", progress=False)
    assert sorted(frame["algorithm"]) == ["rr-elimination"] * 2 + ["star-icb"] * 2
    assert frame["correct"].all() and set(frame["stop_reason"]) == {"stopping rule"}


def _cli(arguments: list[str]) -> tuple[int, str]:
    output = io.StringIO()
    with redirect_stdout(output):
        code = main(arguments)
    return code, output.getvalue()


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_command_line_finds_them(examples, name, tmp_path):
    code, output = _cli(["solve", "--algorithm", name, "--k", "2", "--epsilon", "1", "--no-progress", "--json"])
    solved = json.loads(output)
    assert code == 0 and solved["inputs"]["algorithm"] == name and solved["guarantee"] == "certified"
    store = tmp_path / "session.db"
    code, _ = _cli(["session", "start", "--n", "6", "--k", "2", "--algorithm", name, "--epsilon", "0.1", "--delta",
                    "0.05", "--noise-scale", "0.5", "--seed", "1", str(store)])
    assert code == 0 and store.exists()
    code, output = _cli(["plan", "--accuracies", "0.9,0.8,0.4,0.3,0.2", "--k", "2", "--epsilon", "0.5", "--runs", "1",
                         "--algorithms", name, "--json"])
    assert code == 0 and [row["algorithm"] for row in json.loads(output)["rows"]] == [name]


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_parameter_of_an_example_is_settable_from_the_command_line(examples, name):
    """The generated options reach a newly registered class too: each parameter, each declared form."""
    spec = registry.get(name)
    cases = [(option, text, value) for option in spec.options if option != "seed"
             for form in spec.constraints(option) for text, value in valid_texts(form, spec.defaults().get(option))]
    assert {option for option, _, _ in cases} == set(spec.options) - {"seed"}
    for option, text, value in cases:
        _, parameters = solve_parameters(["--algorithm", name, f"{solve_option(option)}={text}"])
        assert parameters[option] == value and set(parameters) <= {option, "epsilon"}, option  # epsilon: the question's


# --- the full-bandit example and the support hook ------------------------------------------------------

def test_the_star_is_a_basis_of_n_members(examples):
    star = examples["star-icb"].StarICB
    assert star(fb.TopK(5, 2), noise_scale=1.0).support_arms == ((0, 1), (1, 2), (1, 3), (1, 4), (0, 2))
    for n, k in [(2, 1), (6, 1), (6, 5), (9, 4), (30, 7)]:
        algorithm = star(fb.TopK(n, k), noise_scale=1.0)
        support = algorithm.support_arms
        matrix = np.zeros((len(support), n))
        for row, arm in enumerate(support):
            assert len(arm) == k
            matrix[row, list(arm)] = 1.0
        assert len(support) == n == len(set(support)) and np.linalg.matrix_rank(matrix) == n
        assert algorithm.constants()["support"] == "custom"


class _Given(fb.ICB):
    """ICB whose hook returns ``members`` (set on the subclass)."""

    members: list = []

    def design_support(self, rng):
        return self.members


@pytest.mark.parametrize("members, error, words", [
    ([(0, 1), (1, 2), (2, 3), (0, 3)], SingularDesignError, "rank 3"),  # an even cycle: rank n - 1
    ([(0, 1), (0, 2), (0, 3), (1, 2), (2, 1)], InvalidParameterError, "repeat"),
    ([(0, 1), (0, 2), (0, 3), (1, 2, 3)], InvalidParameterError, "support member"),
])
def test_the_hook_s_support_is_checked_before_any_pull(members, error, words):
    algorithm = type("Bad", (_Given,), {"members": members})(fb.TopK(4, 2), noise_scale=1.0)
    with pytest.raises(error, match=words):
        algorithm.ask()
    assert not algorithm.is_set_up


def test_the_hook_s_support_is_what_is_pulled_and_the_default_is_unchanged():
    # Overriding the hook with the default's own result changes nothing: same support, same pulls.
    class Same(fb.ICB):
        def design_support(self, rng):
            return super().design_support(rng)

    results = [fb.run(cls(fb.TopK(9, 3), epsilon=0.1, seed=4), fb.GaussianSum(np.linspace(1, 0, 9), sigma=0.3, seed=5),
                      progress=False) for cls in (fb.ICB, Same)]
    assert results[0].pulls == results[1].pulls and results[0].answer == results[1].answer
    assert results[0].constants["support"] == "auto" and results[1].constants["support"] == "custom"
    # And the support it returns is the one the design pulls (in the base's order of members).
    given = type("Given", (_Given,), {"members": [(2, 3), (0, 1), (1, 2), (0, 2)]})(fb.TopK(4, 2), noise_scale=1.0)
    pulled = {given.ask(max_count=1).arms for _ in range(4)}
    assert given.support_arms == ((2, 3), (0, 1), (1, 2), (0, 2)) and pulled == set(given.support_arms)


def test_the_hook_reads_the_resolved_noise_scale_and_reward_range():
    seen = {}

    class Reads(fb.ICB):
        def design_support(self, rng):
            seen.update(scale=self.noise_scale_in_use, range=self.reward_range_in_use)
            return super().design_support(rng)

    with pytest.raises(ProtocolError, match="setup"):
        _ = Reads(fb.TopK(5, 2)).noise_scale_in_use
    team = fb.BernoulliTeam([0.9, 0.8, 0.3, 0.2, 0.1], seed=0)
    fb.run(Reads(fb.TopK(5, 2), epsilon=0.5, confidence="bernstein", seed=0), team, progress=False)
    assert seen == {"scale": team.noise_scale(2), "range": (0.0, 2.0)}  # what run offered: the team's
    Reads(fb.TopK(5, 2), confidence="bernstein", reward_range=(0, 2)).setup()
    assert seen == {"scale": 1.0, "range": (0.0, 2.0)}  # nothing offered: the parameter, and its half-width


# --- the per-arm example ------------------------------------------------------------------------------

def test_the_elimination_radius_is_the_union_over_arms_and_sample_counts(examples):
    algorithm = examples["rr-elimination"].RoundRobinElimination(fb.TopK(5, 2), delta=0.1, noise_scale=0.5).setup()
    for u in (1, 7, 100):
        expected = 0.5 * math.sqrt(2 * math.log(math.pi ** 2 * 5 * u * u / 0.3) / u)
        assert float(algorithm.radius(u)) == pytest.approx(expected, rel=1e-12)
    # The levels sum to delta: 6 delta / (pi^2 n u^2) over n arms and u >= 1.
    assert sum(6 * 0.1 / (math.pi ** 2 * 5 * u * u) for u in range(1, 200_000)) * 5 == pytest.approx(0.1, rel=1e-5)


def test_the_elimination_stops_sampling_the_arms_it_has_decided(examples):
    algorithm = examples["rr-elimination"].RoundRobinElimination(fb.TopK(8, 2), seed=0)
    result = fb.run(algorithm, environment("rr-elimination", 0), progress=False)
    assert result.answer == (0, 1) and result.certified
    samples = algorithm.samples
    assert samples[1] == samples[2] == samples.max()  # the critical arms (0.8 and 0.3) are sampled every round
    assert samples[4:].mean() < 0.6 * samples.max()  # the arms far below the boundary leave early


def _errors(examples, radius_factor: float, runs: int) -> int:
    means = [0.9] + [0.5] * 7
    errors = 0
    for seed in range(runs):
        algorithm = examples["rr-elimination"].RoundRobinElimination(fb.TopK(8, 1), delta=0.1,
                                                                     noise_scale=0.5 * radius_factor, seed=seed)
        errors += fb.run(algorithm, fb.GaussianArms(means, sigma=0.5, feedback="semi", seed=seed),
                         progress=False).answer != (0,)
    return errors


@pytest.mark.slow
def test_the_elimination_is_pac_and_a_tenth_of_its_radius_is_not(examples):
    assert _errors(examples, 1.0, 15) <= tolerance(15, 0.1)
    assert _errors(examples, 0.1, 40) > tolerance(40, 0.1)  # the negative control: the check can fail
