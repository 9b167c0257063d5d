"""The dks benchmark suite: rows, references and ratios."""

from functools import partial

import numpy as np
import pytest

from fullbandit.dks import ORACLES
from fullbandit.experiments import Factory, Grid, dks_suite, run_grid
from fullbandit.experiments.dks_suite import (
    DKS_EVALUATION,
    REFERENCE,
    graph_instance,
    oracle_factory,
    ratios,
    summarize_dks,
)


def _grid():
    algorithms = {name: Factory(partial(oracle_factory, oracle=name)) for name in [*ORACLES, REFERENCE]}
    instances = {"karate": Factory(partial(graph_instance, graph="karate"), {"k": [4]}),
                 "gnp": Factory(partial(graph_instance, graph="gnp", n=20, p=0.3), {"k": [5]})}
    return Grid(algorithms, instances, seeds=2, evaluation=DKS_EVALUATION)


def test_reference_is_exact_on_small_graphs_and_ratios_are_at_most_one(monkeypatch):
    # C(20, 5) = 15504 subsets of the gnp graph go to brute force, C(34, 4) = 46376 of karate to the MILP
    monkeypatch.setattr(dks_suite, "BRUTE_FORCE_UP_TO", 20_000)
    frame = run_grid(_grid(), progress=False)
    reference = frame[frame["algorithm"] == REFERENCE]
    assert reference["optimal"].all()
    assert dict(zip(reference["instance"], reference["method"], strict=True)) == {"karate": "milp",
                                                                                 "gnp": "brute-force"}
    table = ratios(frame)
    assert len(table) == len(ORACLES) * 2 * 2
    assert (table["ratio"] <= 1 + 1e-12).all() and (table["ratio"] > 0).all()
    assert (table["ratio_kind"] == "exact").all()
    # the +swap variants never end below the oracle they start from
    pivot = table.pivot_table(index=["instance", "k", "seed"], columns="algorithm", values="weight")
    assert (pivot["peeling+swap"] >= pivot["peeling"] - 1e-12).all()
    assert (pivot["fpk+swap"] >= pivot["fpk"] - 1e-12).all()
    summary = summarize_dks(frame)
    assert summary.loc["peeling", "worst_ratio"] == pytest.approx(table[table.algorithm == "peeling"].ratio.min())
    assert np.isclose(summary["exact_ratios"], 4).all()
