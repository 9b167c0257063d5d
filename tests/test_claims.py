"""The headline claims table (experiments/claims.py): its rules, and that the committed page carries it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from fullbandit.experiments import claims
from fullbandit.experiments.claims import CLAIMS, headline_claims, runs_by_algorithm

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
VERDICTS = {"holds", "partly", "does not", "open"}


@pytest.mark.parametrize(("hits", "total", "most", "verdict"), [
    (5, 5, False, "holds"), (4, 5, False, "partly"), (0, 5, False, "does not"), (0, 0, False, "open"),
    (4, 6, True, "holds"), (3, 6, True, "partly")])
def test_a_share_of_points_gives_its_verdict(hits, total, most, verdict):
    assert claims._share_verdict(hits, total, most=most) == verdict


def test_runs_per_point_count_seeds_or_add_up_batches():
    rows = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "seed": [0, 1, 0, 0]})
    assert runs_by_algorithm(rows) == {"a": 2, "b": 1}
    batches = pd.DataFrame({"algorithm": ["a"] * 4 + ["b"] * 4, "split": [0, 1, 0, 1] * 2, "K": [1, 1, 2, 2] * 2,
                            "runs": [25, 25, 25, 25, 1, 1, 1, 1]})
    assert runs_by_algorithm(batches) == {"a": 50, "b": 2}


def test_few_runs_leave_an_ordering_open_and_say_what_it_would_be():
    frame = pd.DataFrame({"algorithm": ["a", "b"] * 3, "seed": [0, 0, 1, 1, 2, 2]})
    verdict = claims._few_runs(frame, "holds", "a beats b", 100)
    assert verdict.verdict == "open" and "would be 'holds'" in verdict.note and "a 3" in verdict.note
    many = pd.DataFrame({"algorithm": ["a"] * 10, "seed": range(10)})
    assert claims._few_runs(many, "holds", "x", 100).verdict == "holds"


def test_table2_ordering_comes_back_only_under_the_readings():
    table = pd.DataFrame({"ours saqm/icb": [3.0, 1.6], "paper saqm/icb": [1.4, 0.8],
                          "readings saqm/icb": [1.6, 0.6]}, index=["it", "science"])
    frame = pd.DataFrame({"instance": ["it", "science"], "n": [36, 111]})
    original = claims._table2
    try:
        claims._table2 = lambda _: table
        assert claims._kuroki_large_n(frame).verdict == "partly"
        claims._table2 = lambda _: table.assign(**{"readings saqm/icb": [1.6, 1.2]})
        assert claims._kuroki_large_n(frame).verdict == "does not"
        claims._table2 = lambda _: table.assign(**{"ours saqm/icb": [3.0, 0.9]})
        assert claims._kuroki_large_n(frame).verdict == "holds"
    finally:
        claims._table2 = original


@pytest.mark.slow  # reads every committed suite; tests/test_results_current.py checks the page in the default run
@pytest.mark.skipif(not RESULTS.exists(), reason="no committed results (an installed copy has none)")
def test_every_claim_is_checked_with_a_verdict_and_a_reason_when_it_does_not_hold():
    table = headline_claims(RESULTS)
    assert len(table) == len(CLAIMS)  # every suite a claim reads has committed results
    assert set(table["verdict"]) <= VERDICTS
    unexplained = table[table["verdict"].isin(["does not", "open"]) & (table["note"] == "")]
    assert unexplained.empty, unexplained[["paper", "claim"]].to_string()
    page = (ROOT / "docs" / "REPRODUCTION.md").read_text()
    assert page.index("## The papers' headline claims") < page.index("## Table 2")
