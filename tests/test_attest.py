"""``fullbandit bench NAME --attest``: committed results brought up to today's code only when a rerun of one
replicate per grid point gives the same rows (:mod:`fullbandit.experiments.attest`)."""

from __future__ import annotations

import json
from functools import partial

import pandas as pd
import pytest
from experiment_factories import saqm, two_level_instance

from fullbandit.experiments import Factory, Grid, run_grid
from fullbandit.experiments.attest import AttestationRefused, attest
from fullbandit.experiments.code_record import code_record, stale_modules
from fullbandit.experiments.provenance import current
from fullbandit.experiments.suite import Suite

STALE = {"fullbandit.full.saqm": "0" * 64}  # a record written before a change to a module of the suite


def changed_saqm(problem, seed, **parameters):
    """SAQM with another epsilon behind the same factory options: it stands for a change to what the code computes."""
    return saqm(problem, seed, **{**parameters, "epsilon": 0.5})


def tiny_grid(runs: int, epsilon: float = 0.0, make=saqm) -> Grid:
    # Two grid points (n = 4, 6) and `runs` seeds each.
    return Grid({"saqm": Factory(partial(make, epsilon=epsilon))},
                {"two-level": Factory(two_level_instance, {"n": [4, 6], "separation": [0.8]})}, seeds=runs)


def tiny_suite(epsilon: float = 0.0, make=saqm) -> Suite:
    return Suite("tiny", "a test suite", partial(tiny_grid, epsilon=epsilon, make=make), lambda frame, path: None, 3)


@pytest.fixture
def committed(tmp_path):
    results, record = tmp_path / "tiny.csv", tmp_path / "tiny.code.json"
    run_grid(tiny_grid(3), out=results, progress=False)
    record.write_text(json.dumps({**code_record(tiny_suite()), "modules": STALE, "runs_of": current().columns()}))
    return results, record


def test_equal_replicates_bring_the_record_up_to_today_s_code_and_say_so(committed):
    results, record = committed
    before = results.read_bytes()
    attestation = attest(tiny_suite(), results, record)
    assert attestation.changed == ("fullbandit.full.saqm",) and attestation.compared == 2 and attestation.runs == 3
    written = json.loads(record.read_text())
    assert stale_modules(written, tiny_suite()) == [] and written["runs"] == 3
    assert written["runs_of"] == current().columns()  # the runs keep the code that made them
    [entry] = written["attestations"]
    assert entry["changed"] == ["fullbandit.full.saqm"] and entry["compared"] == 2
    assert results.read_bytes() == before  # the committed runs are not touched
    assert attest(tiny_suite(), results, record).changed == ()  # now current: nothing to attest


def test_a_change_to_what_the_suite_computes_is_refused_and_changes_nothing(committed):
    results, record = committed
    before = results.read_bytes(), record.read_bytes()
    with pytest.raises(AttestationRefused, match=r"tiny: 2 of the 2 rerun rows differ .*pulls.*--fresh"):
        attest(tiny_suite(make=changed_saqm), results, record)  # another epsilon inside: other stopping times
    assert (results.read_bytes(), record.read_bytes()) == before
    # another fixed option of the factory is another grid: its cells have other keys
    with pytest.raises(AttestationRefused, match=r"tiny: no run count tried .* builds a grid of exactly the committed"):
        attest(tiny_suite(epsilon=0.5), results, record)
    assert (results.read_bytes(), record.read_bytes()) == before


def test_rows_holding_timings_never_attest(committed):
    results, record = committed
    text = results.read_text().splitlines()
    results.write_text("\n".join([text[0] + ",seconds", *(line + ",0.5" for line in text[1:])]) + "\n")
    with pytest.raises(AttestationRefused, match="timings"):
        attest(tiny_suite(), results, record)


def test_rows_of_another_grid_are_not_attested(committed):
    results, record = committed
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:-1]) + "\n")  # one run missing: no run count builds these cells
    with pytest.raises(AttestationRefused, match="builds a grid of exactly the committed cells"):
        attest(tiny_suite(), results, record)


def test_bench_attest_needs_committed_runs_and_takes_no_run_options(tmp_path, capsys):
    from fullbandit.cli.main import main

    assert main(["bench", "kuroki-table2", "--attest", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "kuroki-table2.csv does not exist" in capsys.readouterr().err
    assert main(["bench", "kuroki-table2", "--attest", "--fresh", "--out", str(tmp_path)]) == 2
    assert "not with --fresh" in capsys.readouterr().err


def test_a_suite_run_in_batches_is_rebuilt_with_the_runs_of_one_grid_point():
    # A batch is named by its index only ("split"): grids of 1 and of 1,000 runs have the same cells, and only
    # the committed rows say which one made them (2 batches of 500 runs here). Rebuilt with 1 run, every
    # compared row would differ.
    from fullbandit.experiments.attest import _runs

    def batched_grid(runs: int) -> Grid:
        return Grid({"saqm": Factory(saqm)}, {"two-level": Factory(two_level_instance, {"split": [0, 1]})}, seeds=1)

    suite = Suite("batched", "a test suite", batched_grid, lambda frame, path: None, 3)
    keys = [cell.key for cell in batched_grid(1).cells()]
    committed = pd.DataFrame({"key": keys, "seed": [0, 0], "split": [0, 1], "runs": [500, 500]})
    assert _runs(suite, committed, {}) == 1000


def test_the_run_count_of_a_suite_whose_algorithms_run_different_batches_is_the_record_s():
    # zhou-fig1 runs LUCB 2 a point and the others 100, in batches of 50: the rows' average (80) builds the same
    # cells as 100 but batches of 40, so an attestation from it compared batches of different sizes.
    import json
    from pathlib import Path

    from fullbandit.experiments.attest import _runs
    from fullbandit.experiments.store import read_results
    from fullbandit.experiments.suites import get_suite

    results = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    committed = read_results(results / "zhou-fig1.csv")
    record = json.loads((results / "zhou-fig1.code.json").read_text())
    assert record["runs"] == 100
    assert _runs(get_suite("zhou-fig1"), committed, record) == 100
    # The rows alone once misled (80): a batch was named by its index only. The keys now name the factories' fixed
    # options, the batch sizes among them, so only the grid of 100 runs has exactly these cells.
    assert _runs(get_suite("zhou-fig1"), committed, {}) == 100
    assert {cell.key for cell in get_suite("zhou-fig1").build(80).cells()}.isdisjoint(committed["key"])


def test_real_numbers_may_differ_in_their_last_bits_and_nothing_else_may():
    from fullbandit.experiments.attest import FLOAT_TOLERANCE, _differences

    committed = pd.DataFrame({"key": ["a", "b", "c"], "pulls": [1151, 10, 7], "regret": [0.0758556712996108, 0.5, 0.0],
                              "answer": ["(0, 1)", "(1, 2)", "(0, 2)"], "wall_time": [1.0, 2.0, 3.0]})
    last_bits = committed.assign(regret=[0.0758556712996109, 0.5 * (1 + FLOAT_TOLERANCE / 2), 1e-15],
                                 wall_time=[9.0, 9.0, 9.0])
    assert _differences(committed, last_bits, {"a", "b", "c"}) == []
    for column, values in (("pulls", [1270, 10, 7]), ("regret", [0.0758, 0.5, 0.0]), ("answer", ["(0, 2)"] * 3)):
        changed = committed.assign(**{column: values})
        assert _differences(committed, changed, {"a", "b", "c"})[0].startswith(f"a: {column} ")
