"""Front ends build algorithms from the algorithms' declarations: ``solve``, ``session start``, ``plan`` and the
HTTP service offer every parameter, pass no default of their own (but the question's epsilon), and reach
third-party algorithms registered through the ``fullbandit.algorithms`` entry point group."""

import json
import os
import subprocess
import sys
import textwrap
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from fullbandit.analysis.tolerance import default_epsilon
from fullbandit.cli import options as options_module
from fullbandit.cli import solve
from fullbandit.cli.main import build_parser, main
from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm
from fullbandit.core.params import REWARD_RANGE, SUPERARMS, Instance, Interval, Options, validate_parameters
from fullbandit.problems.classes import Thresholding, TopK
from fullbandit.sessions import Session
from fullbandit.sessions.http import make_server
from fullbandit.util.validation import InvalidParameterError

REPO = Path(__file__).resolve().parent.parent
NAMES = registry.names()


def question(spec) -> list[str]:
    """The question's options of a session or a solve for ``spec``: a threshold, or a team of 2."""
    return ["--threshold", "0.5"] if Thresholding in spec.decision_classes else ["--k", "2"]


def problem_of(spec):
    return Thresholding(6, 0.5) if Thresholding in spec.decision_classes else TopK(6, 2)


#: The means a solve's question is asked on here (its default epsilon is derived from them).
MEANS = [0.9, 0.8, 0.5, 0.4, 0.3, 0.2]


def solve_parameters(argv: list[str]) -> tuple[registry.AlgorithmSpec, dict]:
    """The parameters ``fullbandit solve ARGV`` passes to its algorithm on :data:`MEANS` (parsed as the console
    parses them)."""
    args = build_parser().parse_args(["solve", *argv])
    spec = registry.get(args.algorithm)
    args.k = solve.team_size(spec, None if Thresholding in spec.decision_classes else 2)
    solve.question_tolerance(args, spec, problem_of(spec), MEANS)
    return spec, solve.algorithm_parameters(spec, args)


def solve_option(name: str) -> str:
    """The option string of parameter ``name`` in ``fullbandit solve`` (``--param-NAME`` where solve has its own)."""
    return build_parser().parse_args(["solve"]).algorithm_options.option(name)


def stored(algorithm: Algorithm) -> dict:
    """The built algorithm's parameters but the problem and the seed."""
    return {name: value for name, value in algorithm.get_params().items() if name not in ("problem", "seed")}


def class_defaults(spec) -> dict:
    """What the class's signature gives every parameter but the seed, with the entry's fixed ones."""
    return {**{name: value for name, value in spec.defaults().items() if name != "seed"}, **spec.fixed}


# --- the same defaults from the command line as from the library -----------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_solve_passes_the_class_defaults_but_the_question_s_epsilon(name):
    spec, parameters = solve_parameters(["--algorithm", name])
    assert set(parameters) <= {"epsilon"}
    built = stored(spec.build(problem_of(spec), seed=0, **parameters))
    differing = {key for key, value in class_defaults(spec).items() if built[key] != value}
    assert set(built) == set(class_defaults(spec))
    # The question's epsilon is a tolerance on a team: a thresholding algorithm's (a precision per arm) is its own.
    team_epsilon = "epsilon" in spec.options and Thresholding not in spec.decision_classes
    assert differing == ({"epsilon"} if team_epsilon else set())
    if team_epsilon:
        assert built["epsilon"] == pytest.approx(default_epsilon(MEANS, 2)) == pytest.approx(0.2 * (1.7 - 2 * 3.1 / 6))


def test_epsilon_is_the_only_parameter_whose_solve_default_differs_from_any_class_s():
    differing = set()
    for name in NAMES:
        spec, parameters = solve_parameters(["--algorithm", name])
        differing |= {key for key, value in parameters.items() if value != spec.defaults()[key]}
    assert differing == {"epsilon"}
    assert solve.QUESTION.keys() == {"epsilon"}


@pytest.mark.parametrize("name", NAMES)
def test_session_start_passes_exactly_the_class_defaults(name, tmp_path):
    spec = registry.get(name)
    path = tmp_path / "s.db"
    assert main(["session", "start", str(path), "--n", "6", "--algorithm", name, *question(spec),
                 "--reward-range", "0", "1", "--seed", "3"]) == 0
    with Session.open(path) as session:
        assert session.created["parameters"] == {}
        created = session.created
    built = registry.build(created["algorithm"], problem_of(spec), **created["parameters"])
    assert stored(built) == class_defaults(spec)


def test_plan_passes_the_class_defaults_but_its_epsilon_and_budget(built, capsys):
    assert main(["plan", "--accuracies", "0.9,0.8,0.5,0.4,0.3,0.2", "--k", "2", "--runs", "1", "--budget", "30",
                 "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert {algorithm.name for algorithm in built} >= {"icb", "phased", "lucb"}
    for algorithm in built:
        spec = registry.get(type(algorithm).__name__) if not algorithm.guarantee == "heuristic" else \
            registry.get("safoa-heuristic")
        expected = {**class_defaults(spec), "epsilon": default_epsilon([0.9, 0.8, 0.5, 0.4, 0.3, 0.2], 2), "budget": 30}
        assert stored(algorithm) == expected, spec.name
    assert output["delta"] == 0.05 and output["parameters"] == {}


def test_plan_passes_an_option_to_every_planned_algorithm_that_takes_it(built, capsys):
    plan = ["plan", "--accuracies", "0.9,0.8,0.5,0.4,0.3,0.2", "--k", "2", "--runs", "1", "--budget", "30", "--json"]
    assert main([*plan, "--algorithms", "ICB,phased", "--restart-ratio", "0.3", "--delta", "0.1"]) == 0
    output = json.loads(capsys.readouterr().out)
    icb, phased = built
    assert (icb.name, phased.name) == ("icb", "phased") and phased.restart_ratio == 0.3
    assert icb.delta == phased.delta == 0.1 == output["delta"] and output["parameters"] == {"restart_ratio": 0.3}
    assert main([*plan, "--confidence", "bernstein"]) == 2
    assert ("--confidence=bernstein must be one of auto, stitched, tight, time-uniform for --algorithm phased"
            in capsys.readouterr().err)
    assert main([*plan, "--p", "1"]) == 2
    assert "--p applies to none of the algorithms" in capsys.readouterr().err


# --- every parameter settable --------------------------------------------------------------------------------------
def valid_texts(form, default):
    """``(text, value)`` pairs of valid values of ``form`` other than ``default``."""
    if form is None:
        return [] if default is None else [("none", None)]
    if isinstance(form, Options):
        return [(value, value) for value in sorted(form.values) if value != default][:1]
    if isinstance(form, Instance) and bool in form.types:
        return [(str(not default).lower(), not default)]
    if form is REWARD_RANGE:
        return [("-1,2.5", (-1.0, 2.5))]
    if form is SUPERARMS:
        return [("[[0,1],[1,2],[2,3]]", ((0, 1), (1, 2), (2, 3)))]
    assert isinstance(form, Interval), form
    low, high = form.low, form.high
    if form.kind is int:
        pool = [(default + 1) if isinstance(default, int) else 2, (low or 0) + 1, (low or 0) + 2, 7]
    elif low is not None and high is not None:
        pool = [low + (high - low) * 0.37, low + (high - low) * 0.61]
    elif low is not None:
        pool = [low + 0.37, low + 1.5]
    elif high is not None:
        pool = [high - 0.37]
    else:
        pool = [-0.75, 0.37]
    value = next(v for v in pool if form.accepts(v) and v != default)
    return [(repr(value), value)]


SETTABLE = [(spec.name, name, text, value)
            for spec in registry.specs() for name in spec.options if name != "seed"
            for form in spec.constraints(name) for text, value in valid_texts(form, spec.defaults().get(name))]


def test_every_declared_form_of_every_parameter_has_a_case():
    covered = {(spec, name) for spec, name, _, _ in SETTABLE}
    assert covered == {(spec.name, name) for spec in registry.specs() for name in spec.options if name != "seed"}


@pytest.mark.slow
@pytest.mark.parametrize("algorithm, name, text, value", SETTABLE)
def test_every_parameter_can_be_set_from_the_command_line(algorithm, name, text, value):
    option = f"{options_module.flag(name)}={text}"  # "=": a text such as -1,2.5 is no option
    # solve's own --reward-range LOW HIGH is a session's declaration: the parameter is --param-reward-range there
    spec, parameters = solve_parameters(["--algorithm", algorithm, f"{solve_option(name)}={text}"])
    assert parameters[name] == value and type(parameters[name]) is type(value)
    built = spec.build(problem_of(spec), seed=0, **parameters)
    assert built.get_params()[name] == value
    validate_parameters(spec.cls.parameter_constraints, stored(built), owner=spec.name)  # a valid value
    if name != "reward_range":  # a session's own --reward-range LOW HIGH is offered to the algorithm as its range
        session_args = build_parser().parse_args(["session", "start", "s.db", "--n", "6", "--algorithm", algorithm,
                                                  option])
        assert session_args.algorithm_options.parameters(spec, session_args)[name] == value


def test_an_option_an_algorithm_does_not_take_is_refused_naming_its_options(capsys, tmp_path):
    assert main(["solve", "--algorithm", "nsar", "--restart-ratio", "0.3", "--no-progress"]) == 2
    assert "--restart-ratio does not apply to --algorithm nsar; its options are --budget, --p, --seed" in \
        capsys.readouterr().err
    path = tmp_path / "never.db"
    assert main(["session", "start", str(path), "--n", "4", "--k", "2", "--algorithm", "sar", "--delta", "0.1"]) == 2
    assert "--delta does not apply to --algorithm sar; its options are --budget, --seed" in capsys.readouterr().err
    assert not path.exists()


def test_algorithm_accepts_class_names_and_lists_registry_names(capsys):
    spec, parameters = solve_parameters(["--algorithm", "OptKG", "--a", "2"])
    assert spec.name == "opt-kg" and parameters == {"a": 2.0}
    with pytest.raises(SystemExit):
        main(["solve", "--algorithm", "NoSuchThing"])
    err = capsys.readouterr().err
    assert "'NoSuchThing' is not a registered algorithm" in err and "opt-kg" in err


def test_help_of_a_generated_option_says_what_it_takes_and_who_takes_it(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--restart-ratio FLOAT a float in (0, 1]. For phased (default: 0.5)" in text
    assert "--p FLOAT a float in (0, 2]. For nsar (default: 1)" in text
    assert "0.01 (adaptive-topk-budget)" in text  # --delta's defaults, per algorithm


def test_a_parameter_named_like_a_command_option_gets_a_prefixed_option():
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", help="the command's own")
    options = options_module.add_algorithm_options(parser)
    assert options.flags["budget"] == "--param-budget" and options.flags["delta"] == "--delta"
    args = parser.parse_args(["--budget", "own", "--param-budget", "12"])
    assert args.budget == "own" and options.parameters(registry.get("sar"), args) == {"budget": 12}


# --- any registered algorithm starts a session ----------------------------------------------------------------------
def test_a_fixed_budget_session_runs_to_its_budget_through_the_cli(tmp_path, capsys):
    path = str(tmp_path / "sar.db")
    assert main(["session", "start", path, "--n", "4", "--k", "2", "--algorithm", "sar", "--budget", "12",
                 "--reward-range", "0", "1", "--seed", "1"]) == 0
    means = [0.9, 0.7, 0.2, 0.1]
    for pull in range(12):
        capsys.readouterr()
        assert main(["session", "next", path, "--json"]) == 0
        (handed,) = json.loads(capsys.readouterr().out)
        assert len(handed["arms"]) == 1  # per-arm: one member, one reward
        assert main(["session", "record", path, "--pull", str(pull), "--reward", str(means[handed["arms"][0]])]) == 0
    capsys.readouterr()
    assert main(["session", "status", path, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["pulls"] == 12 and status["stop_reason"] == "budget exhausted" and status["best_team"] == [0, 1]
    assert main(["session", "export", path, "--out", str(tmp_path / "sar.csv")]) == 0
    assert len((tmp_path / "sar.csv").read_text().splitlines()) == 13
    assert main(["session", "next", path]) == 2
    assert "budget exhausted after 12 pulls" in capsys.readouterr().err


def test_a_thresholding_session_classifies_the_workers_through_the_cli(tmp_path, capsys):
    path = str(tmp_path / "apt.db")
    assert main(["session", "start", path, "--n", "4", "--algorithm", "apt", "--threshold", "0.5", "--budget", "16",
                 "--reward-range", "0", "1", "--seed", "1"]) == 0
    means = [0.9, 0.2, 0.7, 0.1]
    for pull in range(16):
        capsys.readouterr()
        main(["session", "next", path, "--json"])
        (handed,) = json.loads(capsys.readouterr().out)
        assert main(["session", "record", path, "--pull", str(pull), "--reward", str(means[handed["arms"][0]])]) == 0
    capsys.readouterr()
    assert main(["session", "status", path, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["best_team"] == [0, 2] and status["done"]
    with Session.open(path) as session:
        assert session.created["problem"] == {"class": "Thresholding", "n": 4, "threshold": 0.5}
    assert main(["session", "export", path, "--out", str(tmp_path / "apt.csv")]) == 0
    assert len((tmp_path / "apt.csv").read_text().splitlines()) == 17


def test_a_group_capped_session_from_a_worker_table(tmp_path, capsys):
    table = tmp_path / "workers.csv"
    table.write_text("worker,country\nann,fr\nbob,fr\ncy,jp\ndee,jp\neve,de\nfay,de\n")
    path = str(tmp_path / "m.db")
    start = ["session", "start", path, "--workers", str(table), "--k", "2", "--reward-range", "0", "2"]
    assert main([*start, "--group-column", "country", "--at-most", "1", "--algorithm", "icb"]) == 0
    with Session.open(path) as session:
        assert session.created["workers"] == ["ann", "bob", "cy", "dee", "eve", "fay"]
        assert session.created["problem"] == {"class": "PartitionMatroid", "groups": [0, 0, 1, 1, 2, 2],
                                              "capacities": [1, 1, 1], "k": 2}
        for pull in session.next(count=20):
            assert len({session.created["problem"]["groups"][arm] for arm in pull.arms}) == 2  # one per country
    other = str(tmp_path / "other.db")
    start[2] = other
    assert main([*start, "--group-column", "country", "--at-most", "1", "--algorithm", "phased"]) == 2
    assert "phased does not take group caps (a partition matroid); the algorithms that do: exhaustive, icb" in \
        capsys.readouterr().err
    assert main([*start, "--group-column", "country", "--algorithm", "icb"]) == 2
    assert "--group-column and --at-most go together" in capsys.readouterr().err
    assert not Path(other).exists()


@pytest.mark.parametrize("extra, message", [
    (["--algorithm", "apt", "--k", "2", "--threshold", "0.5"], "k (--k) does not apply to apt"),
    (["--algorithm", "apt"], "apt classifies every worker against a threshold: give threshold (--threshold)"),
    (["--algorithm", "apt", "--threshold", "1.5"], "threshold=1.5 must lie in the session's reward range [0.0, 1.0]"),
    (["--algorithm", "icb", "--k", "2", "--threshold", "0.5"], "threshold (--threshold) applies to the thresholding"),
    (["--algorithm", "icb"], "icb picks a team: give its size k (--k)"),
    (["--algorithm", "sar", "--k", "2", "--prior-pulls", "missing.csv"],
     "--prior-pulls: --algorithm sar does not take prior observations; the algorithms that do: clucb-pac"),
    (["--algorithm", "phased", "--k", "2", "--restart-ratio", "1.5"], "--restart-ratio=1.5 must be a float in (0, 1]"),
])
def test_a_session_question_that_does_not_fit_the_algorithm_is_refused(tmp_path, extra, message, capsys):
    path = tmp_path / "s.db"
    assert main(["session", "start", str(path), "--n", "4", "--reward-range", "0", "1", *extra]) == 2
    assert message in capsys.readouterr().err
    assert not path.exists()


def test_session_start_in_the_library_takes_parameters_by_name(tmp_path):
    with Session.start(tmp_path / "a.db", algorithm="NSAR", n=5, k=2, parameters={"p": 0.5, "budget": 40}) as session:
        assert session.created["algorithm"] == "nsar" and session.created["parameters"] == {"p": 0.5, "budget": 40}
    with pytest.raises(InvalidParameterError, match="nsar takes no parameter 'delta'; its parameters are "
                                                             "budget, p, seed"):
        Session.start(tmp_path / "b.db", algorithm="nsar", n=5, k=2, parameters={"delta": 0.1})
    with pytest.raises(InvalidParameterError, match="delta is given twice"):
        Session.start(tmp_path / "b.db", algorithm="icb", n=5, k=2, delta=0.1, parameters={"delta": 0.1})
    with pytest.raises(InvalidParameterError, match="p=3"):
        Session.start(tmp_path / "b.db", algorithm="nsar", n=5, k=2, parameters={"p": 3})
    with pytest.raises(InvalidParameterError, match="groups must hold one group label per worker"):
        Session.start(tmp_path / "b.db", algorithm="icb", n=4, k=2, groups=["fr", "jp"], at_most=1, noise_scale=1.0)
    with pytest.raises(InvalidParameterError, match="cap 1: counted up to each group's size, the caps sum to k=2"):
        Session.start(tmp_path / "b.db", algorithm="icb", n=4, k=2, groups=["fr", "fr", "jp", "jp"], at_most=1,
                      noise_scale=1.0)
    assert not (tmp_path / "b.db").exists()
    with Session.start(tmp_path / "c.db", algorithm="exhaustive", workers=["a", "b", "c", "d", "e"], k=2,
                       groups=["x", "y", "z", "y", "x"], at_most=1, noise_scale=1.0) as session:
        assert session.created["problem"] == {"class": "PartitionMatroid", "groups": [0, 1, 2, 1, 0],
                                              "capacities": [1, 1, 1], "k": 2}


# --- the HTTP service starts sessions the same way ----------------------------------------------------------------
def _post(url, route, body):
    request = urllib.request.Request(url + route, data=json.dumps(body).encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


def test_the_http_service_starts_any_algorithm_from_a_json_body(tmp_path):
    path = tmp_path / "new.db"
    server = make_server(path, port=0, new=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert _post(url, "/next", {})[0] == 409  # nothing to hand out yet
        status, answer = _post(url, "/start", {"algorithm": "apt", "n": 4, "threshold": 0.5,
                                               "parameters": {"budget": 500, "delta": 0.1}})
        assert status == 400 and "apt takes no parameter 'delta'; its parameters are epsilon, budget, seed" in \
            answer["error"]
        status, answer = _post(url, "/start", {"algorithm": "apt", "n": 4, "threshold": 0.5,
                                               "parameters": {"budget": 0}})
        assert status == 400 and "budget=0" in answer["error"] and not path.exists()
        status, answer = _post(url, "/start", {"algorithm": "OptKG", "n": 4, "threshold": 0.5, "seed": 2,
                                               "parameters": {"budget": 8, "a": 2}, "reward_range": [0, 1]})
        assert status == 200 and answer["algorithm"] == "opt-kg" and answer["parameters"] == {"budget": 8, "a": 2}
        assert _post(url, "/start", {"algorithm": "apt", "n": 4, "threshold": 0.5})[0] == 409
        status, answer = _post(url, "/next", {"count": 1})
        assert status == 200 and len(answer["pulls"][0]["arms"]) == 1
        assert _post(url, "/record", {"pull": 0, "reward": [1.0]})[0] == 200  # per-arm: one reward per member
    finally:
        server.shutdown()
        server.server_close()
    with Session.open(path) as session:
        assert session.status()["pulls"] == 1
        assert session.created["parameters"] == {"budget": 8, "a": 2}
        assert session.created["offered"]["reward_range"] == [0.0, 1.0]


def test_start_is_refused_by_a_server_of_an_existing_store(tmp_path, capsys):
    path = tmp_path / "s.db"
    Session.start(path, algorithm="sar", n=4, k=2).close()
    with pytest.raises(InvalidParameterError, match="exists already"):
        make_server(path, port=0, new=True)
    assert main(["session", "serve", str(path), "--new", "--port", "0"]) == 2
    assert "exists already: serve it without --new" in capsys.readouterr().err
    server = make_server(path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        status, answer = _post(f"http://127.0.0.1:{server.server_address[1]}", "/start", {"algorithm": "sar"})
        assert status == 409 and "--new" in answer["error"]
    finally:
        server.shutdown()
        server.server_close()


# --- third-party algorithms reach every front end ------------------------------------------------------------------
PLUGIN = '''
from fullbandit.core.params import Interval
from fullbandit.full import ICB


class SpreadICB(ICB):
    """ICB with one more declared parameter (a test plug-in)."""

    name = "spread-icb"
    summary = "A test plug-in: ICB with a declared spread"
    parameter_constraints = {**ICB.parameter_constraints, "spread": [Interval(float, 0, None, closed="neither")]}

    def __init__(self, problem, *, spread: float = 1.0, epsilon: float = 0.0, delta: float = 0.05, noise_scale=None,
                 reward_range=None, confidence: str = "tight", support="auto", support_size=None,
                 allocation: str = "uniform", budget: int = 10_000_000, check_growth: float = 0.05,
                 stop_on_rule: bool = True, seed=None):
        super().__init__(problem, epsilon=epsilon, delta=delta, noise_scale=noise_scale, reward_range=reward_range,
                         confidence=confidence, support=support, support_size=support_size, allocation=allocation,
                         budget=budget, check_growth=check_growth, stop_on_rule=stop_on_rule, seed=seed)
        self.spread = spread
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """A folder holding a minimal installed distribution whose entry point registers ``spread-icb``."""
    folder = tmp_path_factory.mktemp("plugin")
    (folder / "fb_test_plugin.py").write_text(textwrap.dedent(PLUGIN))
    info = folder / "fbtestplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fbtestplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[fullbandit.algorithms]\nspread-icb = fb_test_plugin:SpreadICB\n")
    return folder


def console(plugin, *argv, cwd=None):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), str(REPO)])}
    return subprocess.run([sys.executable, "-m", "fullbandit", *argv], capture_output=True, text=True, timeout=300,
                          env=environment, cwd=cwd)


@pytest.mark.slow
def test_a_third_party_algorithm_reaches_solve_session_and_plan(plugin, tmp_path):
    listed = console(plugin, "solve", "--help")
    assert listed.returncode == 0, listed.stderr
    text = " ".join(listed.stdout.split())
    assert "spread-icb" in text and "--spread FLOAT a finite float > 0. For spread-icb (default: 1)" in text

    solved = console(plugin, "solve", "--algorithm", "spread-icb", "--spread", "2.5", "--k", "2", "--epsilon", "1.0",
                     "--budget", "500", "--no-progress", "--json")
    assert solved.returncode == 0, solved.stderr
    output = json.loads(solved.stdout)
    assert output["inputs"]["algorithm"] == "spread-icb"
    assert output["inputs"]["parameters"] == {"epsilon": 1.0, "spread": 2.5, "budget": 500}
    assert output["parameters"]["spread"] == 2.5

    by_class = console(plugin, "solve", "--algorithm", "SpreadICB", "--spread", "0", "--no-progress")
    assert by_class.returncode == 2 and "--spread=0 must be a finite float > 0 for --algorithm spread-icb" in \
        by_class.stderr
    refused = console(plugin, "solve", "--algorithm", "phased", "--spread", "2", "--no-progress")
    assert refused.returncode == 2 and "--spread does not apply to --algorithm phased" in refused.stderr

    store = tmp_path / "s.db"
    started = console(plugin, "session", "start", str(store), "--n", "5", "--k", "2", "--algorithm", "spread-icb",
                      "--spread", "3", "--reward-range", "0", "2", "--seed", "1")
    assert started.returncode == 0, started.stderr
    handed = console(plugin, "session", "next", str(store), "--json")
    assert handed.returncode == 0, handed.stderr
    recorded = console(plugin, "session", "record", str(store), "--pull", "0", "--reward", "1.5")
    assert recorded.returncode == 0, recorded.stderr
    status = console(plugin, "session", "status", str(store), "--json")
    assert json.loads(status.stdout)["algorithm"] == "spread-icb" and json.loads(status.stdout)["pulls"] == 1

    planned = console(plugin, "plan", "--accuracies", "0.9,0.8,0.3,0.2", "--k", "2", "--runs", "1", "--budget", "60",
                      "--algorithms", "spread-icb,icb", "--spread", "2", "--json")
    assert planned.returncode == 0, planned.stderr
    output = json.loads(planned.stdout)
    assert [row["algorithm"] for row in output["rows"]] == ["spread-icb", "icb"]
    assert output["parameters"] == {"spread": 2.0}


def test_an_entry_registered_from_user_code_is_an_algorithm_of_the_command_line(capsys):
    spec = registry.register(registry.AlgorithmSpec("nsar-late", registry.get("nsar").cls, {"p": 2.0}))
    try:
        assert main(["solve", "--algorithm", "nsar-late", "--budget", "3000", "--k", "3", "--no-progress",
                     "--json"]) == 0
        output = json.loads(capsys.readouterr().out)
        assert output["inputs"]["parameters"] == {"budget": 3000} and output["parameters"]["p"] == 2.0
        assert main(["solve", "--algorithm", "nsar-late", "--p", "1", "--no-progress"]) == 2
        assert "--p is fixed to 2 by --algorithm nsar-late; choose --algorithm nsar to set it" in \
            capsys.readouterr().err
    finally:
        registry.unregister(spec.name)


def test_the_budget_option_says_what_it_counts(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    full, semi = len(registry.names(feedback="full")), len(registry.names(feedback="semi"))
    assert f"it counts samples ({semi} algorithms) or pulls ({full} algorithms)" in text
