"""The committed results are today's: every suite CSV ``docs/REPRODUCTION.md`` is written from came whole from
one version of the code, that code is today's (``fullbandit.experiments.code_record``: documentation may change,
what the code does may not), and the page itself is what ``benchmarks/report.py`` writes from them.

When a change to the code makes a suite's results stale, this fails naming the suite, the modules that changed
and the commands that bring the results up to date (a rerun, or an attestation: ``fullbandit.experiments.attest``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from fullbandit.experiments.code_record import code_record, module_digest, stale_modules, suite_modules
from fullbandit.experiments.provenance import versions_in
from fullbandit.experiments.store import read_results
from fullbandit.experiments.suites import get_suite

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _report():
    spec = importlib.util.spec_from_file_location("report", ROOT / "benchmarks" / "report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REPORT = _report()
SECTIONS = [name for name, _ in REPORT.SECTIONS]


@pytest.mark.parametrize("name", SECTIONS)
def test_the_committed_results_of_each_suite_are_those_of_today_s_code(name):
    rerun = (f"rerun `fullbandit bench {name} --fresh --jobs 2 --out benchmarks/results` (or, for a change that "
             f"leaves its rows as they were, `fullbandit bench {name} --attest --jobs 2 --out benchmarks/results`), "
             "then `python benchmarks/report.py`")
    record_path = RESULTS / f"{name}.code.json"
    assert (RESULTS / f"{name}.csv").exists(), f"{name}: no results; {rerun}"
    assert record_path.exists(), f"{name}: its results carry no code record (written before records were); {rerun}"
    record = json.loads(record_path.read_text())
    runs = read_results(RESULTS / f"{name}.csv")
    duplicated = int(runs["key"].duplicated().sum())
    assert not duplicated, f"{name}: {duplicated} runs are stored twice (two writers at once?); {rerun}"
    groups = versions_in(runs)
    assert len(groups) == 1 and groups[0].version.columns() == record["runs_of"], (
        f"{name}: its runs come from {len(groups)} code version(s), not all from the one its code record names; "
        f"{rerun}")
    stale = stale_modules(record, get_suite(name))
    assert not stale, f"{name}: the code of {', '.join(stale)} changed since its results were written; {rerun}"


def test_the_reproduction_page_is_written_from_the_committed_results(tmp_path):
    REPORT.main(["--results", str(RESULTS), "--out", str(tmp_path / "page.md")])
    assert (tmp_path / "page.md").read_text() == (ROOT / "docs" / "REPRODUCTION.md").read_text(), (
        "docs/REPRODUCTION.md is not what the committed results give: run `python benchmarks/report.py`")


def test_a_change_to_what_the_code_does_makes_results_stale_and_documentation_does_not(monkeypatch):
    suite = get_suite("kuroki-table2")
    record = code_record(suite)
    assert stale_modules(record, suite) == []
    assert {"fullbandit.experiments.kuroki_samples", "fullbandit.full.icb", "fullbandit.core.algorithm"} \
        <= set(record["modules"])  # its own module, an algorithm named in the registry, the protocol
    assert not [name for name in suite_modules(suite) if name.startswith(("fullbandit.cli", "fullbandit.sessions"))]
    edited = {**record, "modules": {**record["modules"], "fullbandit.full.icb": "0" * 64}}
    assert stale_modules(edited, suite) == ["fullbandit.full.icb"]
    fewer = {**record, "modules": {k: v for k, v in record["modules"].items() if k != "fullbandit.full.swap"}}
    assert stale_modules(fewer, suite) == ["fullbandit.full.swap"]  # code the suite now depends on, new to it
    assert module_digest("fullbandit.no_such_module") == "missing"
