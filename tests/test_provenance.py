"""Every result says which code produced it, and a results file never mixes code versions unless asked.

The commit is checked against git itself, in temporary repositories; the versions against
the imported libraries; the refusals leave the file byte for byte as it was.
"""

import csv
import importlib.metadata
import io
import json
import os
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy
from experiment_factories import saqm, two_level_instance

import fullbandit
from fullbandit.cli.main import main
from fullbandit.experiments import Factory, Grid, run_grid
from fullbandit.experiments import provenance as provenance_module
from fullbandit.experiments.provenance import CODE_COLUMNS, PROVENANCE_COLUMNS, current, source_commit, versions_in
from fullbandit.experiments.resume import ResumeRefused
from fullbandit.experiments.store import ResultStore, read_results
from fullbandit.experiments.suites import get_suite
from fullbandit.util.png import add_png_text
from fullbandit.util.validation import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="needs git")


# --- the commit, from git ------------------------------------------------------------------------


def _git(folder: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments], cwd=folder,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A git repository with one commit: a package ``pkg`` (two modules) and a results folder."""
    repository = tmp_path / "repository"
    (repository / "pkg").mkdir(parents=True)
    (repository / "pkg" / "__init__.py").write_text("VERSION = 1\n")
    (repository / "pkg" / "module.py").write_text("def f():\n    return 1\n")
    (repository / "results").mkdir()
    (repository / "results" / "runs.csv").write_text("key\n")
    _git(repository, "init", "-q")
    _git(repository, "add", ".")
    _git(repository, "commit", "-q", "-m", "first")
    return repository


@needs_git
def test_the_commit_is_heads_and_changes_to_the_package_mark_it(checkout):
    package = checkout / "pkg"
    head = _git(checkout, "rev-parse", "HEAD")
    assert source_commit(package) == head
    # Untracked files and changes outside the package (results, documents) leave the code as committed.
    (package / "scratch.py").write_text("x = 1\n")
    (checkout / "results" / "runs.csv").write_text("key\na\n")
    assert source_commit(package) == head
    (package / "module.py").write_text("def f():\n    return 2\n")
    one_change = source_commit(package)
    assert re.fullmatch(re.escape(head) + r"-dirty\.[0-9a-f]{8}", one_change)
    (package / "module.py").write_text("def f():\n    return 3\n")
    other_change = source_commit(package)
    assert other_change.startswith(head + "-dirty.") and other_change != one_change  # other code, other mark
    (package / "module.py").write_text("def f():\n    return 2\n")
    assert source_commit(package) == one_change  # the same changes, the same mark
    _git(checkout, "add", "pkg/module.py")
    assert source_commit(package) == one_change  # staged is still uncommitted
    _git(checkout, "commit", "-q", "-m", "second")
    assert source_commit(package) == _git(checkout, "rev-parse", "HEAD") != head
    (package / "module.py").unlink()
    assert source_commit(package).startswith(_git(checkout, "rev-parse", "HEAD") + "-dirty.")


@needs_git
def test_no_commit_outside_a_checkout_or_for_an_untracked_package(tmp_path, checkout):
    assert source_commit(tmp_path) is None  # not a repository
    copy = checkout / "installed" / "pkg"  # a copy lying inside a checkout, never added to it
    shutil.copytree(checkout / "pkg", copy)
    assert source_commit(copy) is None


@needs_git
def test_the_commit_is_the_packages_own_whatever_git_is_pointed_at(checkout, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # e.g. set by a git hook running the grid
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert source_commit(checkout / "pkg") == subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True,
        env={name: value for name, value in os.environ.items() if not name.startswith("GIT_")}).stdout.strip()


@needs_git
def test_without_git_there_is_no_commit_and_no_error(checkout, monkeypatch):
    monkeypatch.setenv("PATH", "")
    assert source_commit(checkout / "pkg") is None


def test_the_version_is_computed_once_per_process(monkeypatch):
    calls = []
    original = provenance_module._git

    def counting(*arguments):
        calls.append(arguments)
        return original(*arguments)
    monkeypatch.setattr(provenance_module, "_git", counting)
    current.cache_clear()
    try:
        first = current()
        asked = len(calls)
        assert asked >= 1  # git was asked (and answered, or not)
        assert all(current() is first for _ in range(3)) and len(calls) == asked
    finally:
        current.cache_clear()


# --- rows -------------------------------------------------------------------------------------------


def _expected_commit() -> str | None:
    """The commit of the checkout fullbandit is imported from, found with git directly."""
    package = Path(fullbandit.__file__).resolve().parent
    if GIT is None:
        return None
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "__init__.py"], cwd=package,
                             capture_output=True)
    if tracked.returncode != 0:
        return None
    head = _git(package, "rev-parse", "HEAD")
    changed = _git(package, "status", "--porcelain", "--untracked-files=no", "--", ".")
    return head + "-dirty." if changed else head


def _grid(seeds: int = 2, instance=two_level_instance) -> Grid:
    return Grid({"saqm": Factory(saqm)}, {"two-level": Factory(instance, {"n": [4, 5], "separation": [0.4]})},
                seeds=seeds)


def test_every_row_records_the_code_that_produced_it(tmp_path):
    before = datetime.now(UTC).replace(microsecond=0)
    frame = run_grid(_grid(), out=tmp_path / "runs.csv", progress=False)
    after = datetime.now(UTC)
    stored = read_results(tmp_path / "runs.csv")
    for rows in (frame, stored):
        assert (rows["fullbandit_version"] == fullbandit.__version__).all()
        assert (rows["numpy_version"] == np.__version__).all()
        assert (rows["scipy_version"] == scipy.__version__).all()
        assert (rows["cvxpy_version"] == importlib.metadata.version("cvxpy")).all()
        expected = _expected_commit()
        if expected is None:
            assert rows["fullbandit_commit"].isna().all()
        elif expected.endswith("-dirty."):
            assert rows["fullbandit_commit"].str.fullmatch(re.escape(expected) + "[0-9a-f]{8}").all()
        else:
            assert (rows["fullbandit_commit"] == expected).all()
        finished = pd.to_datetime(rows["finished_at"])
        assert ((finished >= before) & (finished <= after)).all()
    # The provenance columns close the header, after the run's own.
    assert next(csv.reader(open(tmp_path / "runs.csv")))[-len(PROVENANCE_COLUMNS):] == list(PROVENANCE_COLUMNS)


def test_a_swept_parameter_may_not_take_a_provenance_columns_name():
    grid = Grid({"saqm": Factory(saqm, {"numpy_version": [1]})},
                {"two-level": Factory(two_level_instance, {"n": [4], "separation": [0.4]})})
    with pytest.raises(InvalidParameterError, match=r"\['numpy_version'\] are used twice"):
        run_grid(grid, progress=False)


# --- resuming -----------------------------------------------------------------------------------------


def _rewrite(path: Path, change) -> None:
    """Apply ``change(row)`` (a dict by column, changed in place) to every data row of the CSV ``path``."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
        header = list(rows[0]) if rows else next(csv.reader(open(path)))
    for row in rows:
        change(row)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buffer.getvalue())


def _without_provenance(path: Path) -> None:
    """Turn ``path`` into a file as written before results recorded their provenance."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.drop(columns=list(PROVENANCE_COLUMNS)).to_csv(path, index=False, lineterminator="\n")


def _counting_instance(calls):
    def instance(rng, n, separation):
        calls.append(n)
        return two_level_instance(rng, n, separation)
    return instance


def _refused(path: Path, capsys, **options) -> str:
    """Resuming into ``path`` is refused before any run, leaving it byte for byte; the message."""
    before = path.read_bytes()
    calls = []
    with pytest.raises(ResumeRefused) as error:
        run_grid(_grid(3, _counting_instance(calls)), out=path, progress=False, **options)
    assert calls == [] and path.read_bytes() == before
    assert "taken from" not in capsys.readouterr().err
    return str(error.value)


def test_resuming_with_the_same_code_takes_the_runs_and_says_so(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    first = run_grid(_grid(2), out=out, progress=False)
    assert capsys.readouterr().err == ""  # nothing taken: nothing said
    calls = []
    resumed = run_grid(_grid(3, _counting_instance(calls)), out=out, progress=False)
    assert sorted(calls) == [4, 5]  # only the two new runs were made
    assert len(resumed) == 6 and set(first["key"]) < set(resumed["key"])
    day = first["finished_at"].min()[:10]
    assert capsys.readouterr().err == (
        f"4 of 6 runs taken from {out} ({current().label()}, written {day}), not recomputed; "
        "fresh=True (fullbandit bench --fresh) recomputes them\n")
    run_grid(_grid(1), out=out, progress=False)  # runs of other seeds in the file are kept, not counted
    assert capsys.readouterr().err.startswith(f"2 of 2 runs taken from {out} (")


def test_a_file_of_another_commit_is_refused_naming_both(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    run_grid(_grid(2), out=out, progress=False)
    _rewrite(out, lambda row: row.update(fullbandit_commit="0123456789ab" + "0" * 28))
    with open(out, "a") as handle:
        handle.write("a line cut off by a kill")  # left as it is too: the file is not touched
    message = _refused(out, capsys)
    assert message.startswith(f"out={str(out)!r} holds runs of other code than this (another commit): 4 runs of "
                              f"fullbandit {fullbandit.__version__}, commit 0123456789ab, numpy {np.__version__}")
    assert f". This is {current().label(dependencies=True)}. Nothing was run and the file is unchanged." in message
    assert "pass fresh=True (fullbandit bench --fresh)" in message
    assert "pass mix_versions=True (fullbandit bench --mix-versions)" in message


def test_a_file_of_other_library_versions_is_refused(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    run_grid(_grid(2), out=out, progress=False)
    _rewrite(out, lambda row: row.update(cvxpy_version="0.4.11"))
    assert "(another cvxpy): 4 runs of" in _refused(out, capsys)


def test_a_file_mixing_versions_is_refused_even_if_it_holds_this_ones(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    run_grid(_grid(2), out=out, progress=False)
    _rewrite(out, lambda row: row.update(fullbandit_version="0.0.1") if row["seed"] == "0" else None)
    message = _refused(out, capsys)
    assert "2 runs of fullbandit 0.0.1" in message and f"2 runs of {current().label()}" in message


def test_mix_versions_takes_the_runs_of_other_code_and_adds_this_codes(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    run_grid(_grid(2), out=out, progress=False)
    _rewrite(out, lambda row: row.update(fullbandit_version="0.0.1"))
    old = out.read_bytes()
    calls = []
    frame = run_grid(_grid(3, _counting_instance(calls)), out=out, mix_versions=True, progress=False)
    assert sorted(calls) == [4, 5]
    assert out.read_bytes().startswith(old)  # the old rows as they were, the new ones after them
    assert sorted(frame["fullbandit_version"]) == ["0.0.1"] * 4 + [fullbandit.__version__] * 2
    assert capsys.readouterr().err.startswith(f"4 of 6 runs taken from {out} (fullbandit 0.0.1, ")
    _refused(out, capsys)  # still a file of two versions: mixing more takes asking again


def test_fresh_deletes_the_runs_and_makes_them_all(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    run_grid(_grid(2), out=out, progress=False)
    _rewrite(out, lambda row: row.update(fullbandit_version="0.0.1", pulls="1"))
    calls = []
    frame = run_grid(_grid(3, _counting_instance(calls)), out=out, fresh=True, progress=False)
    assert sorted(calls) == [4, 4, 4, 5, 5, 5]
    assert (frame["fullbandit_version"] == fullbandit.__version__).all() and (frame["pulls"] > 1).all()
    assert len(read_results(out)) == 6 and capsys.readouterr().err == ""


def test_fresh_replaces_a_file_of_another_grid_which_otherwise_is_refused(tmp_path):
    out = tmp_path / "runs.csv"
    ResultStore(out, ["key", "something", "else"])
    with pytest.raises(InvalidParameterError,
                       match=r"different grid .*or start it anew: fresh=True \(fullbandit bench --fresh\)"):
        run_grid(_grid(1), out=out, progress=False)
    assert len(run_grid(_grid(1), out=out, fresh=True, progress=False)) == 2


@pytest.mark.parametrize("options, message", [
    (dict(fresh=True), r"fresh=True needs out="),
    (dict(mix_versions=True), r"mix_versions=True needs out="),
    (dict(fresh=True, mix_versions=True, out="x.csv"), r"fresh=True deletes the rows in out=, mix_versions=True keeps"),
    (dict(fresh="yes", out="x.csv"), r"fresh must be True or False, got 'yes'"),
])
def test_contradictory_or_pointless_resume_options_are_refused(tmp_path, monkeypatch, options, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidParameterError, match=message):
        run_grid(_grid(1), progress=False, **options)
    assert not (tmp_path / "x.csv").exists()


# --- files written before results recorded their provenance ----------------------------------------------


def test_a_file_from_before_provenance_is_read_with_empty_provenance(tmp_path):
    out = tmp_path / "runs.csv"
    complete = run_grid(_grid(2), out=out, progress=False)
    _without_provenance(out)
    for frame in (read_results(out), ResultStore(out, list(pd.read_csv(out, nrows=0).columns)).read()):
        assert frame["pulls"].tolist() == complete["pulls"].tolist()
        assert frame["answer"].tolist() == complete["answer"].tolist()  # teams stay text
    assert "fullbandit_version" not in read_results(out)  # read as it is
    opened = ResultStore(out, [*pd.read_csv(out, nrows=0).columns, *PROVENANCE_COLUMNS])
    assert opened.read()[list(PROVENANCE_COLUMNS)].isna().all().all()
    assert opened.finished_keys() == set(complete["key"])


def test_resuming_into_a_file_from_before_provenance_counts_as_another_version(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    run_grid(_grid(2), out=out, progress=False)
    _without_provenance(out)
    message = _refused(out, capsys)
    assert message.startswith(f"out={str(out)!r} holds runs of other code than this: 4 runs of an unrecorded "
                              "version, written before results recorded their version. This is ")


def test_mixing_into_a_file_from_before_provenance_adds_the_columns_once_a_run_is_added(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    complete = run_grid(_grid(2), out=out, progress=False)
    _without_provenance(out)
    legacy = out.read_bytes()
    # Every run already there: nothing to add, so the file stays as it is.
    frame = run_grid(_grid(2), out=out, mix_versions=True, progress=False)
    assert out.read_bytes() == legacy and frame["fullbandit_version"].isna().all()
    assert frame["pulls"].tolist() == complete["pulls"].tolist()
    assert capsys.readouterr().err.startswith(f"4 of 4 runs taken from {out} (an unrecorded version, written before")
    run_grid(_grid(3), out=out, mix_versions=True, progress=False)
    header, *rows = list(csv.reader(open(out)))
    assert header == [*pd.read_csv(io.BytesIO(legacy), nrows=0).columns, *PROVENANCE_COLUMNS]
    old_rows = list(csv.reader(io.StringIO(legacy.decode())))[1:]
    assert [row[:-len(PROVENANCE_COLUMNS)] for row in rows[:4]] == old_rows  # the old rows, values unchanged
    assert all(row[-len(PROVENANCE_COLUMNS):] == [""] * len(PROVENANCE_COLUMNS) for row in rows[:4])
    assert [row[header.index("fullbandit_version")] for row in rows[4:]] == [fullbandit.__version__] * 2
    assert not list(tmp_path.glob(".*upgrading"))  # no leftover of the rewrite


def test_a_failed_rewrite_of_a_file_from_before_provenance_leaves_it_as_it_was(tmp_path, monkeypatch):
    from fullbandit.experiments import store as store_module
    out = tmp_path / "runs.csv"
    run_grid(_grid(1), out=out, progress=False)
    _without_provenance(out)
    legacy = out.read_bytes()
    store = ResultStore(out, [*pd.read_csv(out, nrows=0).columns, *PROVENANCE_COLUMNS])

    def full_disk(source, target):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(store_module.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        store.append({"key": "new", "metrics": {}})
    assert out.read_bytes() == legacy and sorted(path.name for path in tmp_path.iterdir()) == ["runs.csv"]


@pytest.mark.slow
def test_the_committed_results_still_load():
    folder = ROOT / "benchmarks" / "results"
    if not folder.is_dir():
        pytest.skip("a source checkout's benchmarks/results")
    from fullbandit.experiments.suites import SUITES
    for name, suite in SUITES.items():
        path = folder / f"{name}.csv"
        if path.exists():
            frame = read_results(path)
            assert len(frame) and frame["key"].is_unique, name
            assert len(suite.summarize(frame)), name


# --- fullbandit bench ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_bench_on_the_committed_table2_in_a_clone_says_where_its_runs_come_from(tmp_path, capsys):
    committed = ROOT / "benchmarks" / "results" / "kuroki-table2.csv"
    if not committed.exists():
        pytest.skip("a source checkout's benchmarks/results")
    shutil.copy(committed, tmp_path)
    out = tmp_path / "kuroki-table2.csv"
    command = ["bench", "kuroki-table2", "--out", str(tmp_path), "--no-progress"]
    [written] = versions_in(read_results(committed))  # the committed runs come from one version of the code
    count = len(get_suite("kuroki-table2").build(3).cells())  # the suite's grid at its default runs
    assert written.runs == count and written.version != current()  # a clone is never at the commit that ran them
    assert main(command) == 2  # not taken silently
    error = capsys.readouterr().err
    assert "holds runs of other code than this" in error and f"{count} runs of {written.version.label(True)}" in error
    assert out.read_bytes() == committed.read_bytes()
    assert main([*command, "--mix-versions"]) == 0  # asked for: the old table, saying so
    captured = capsys.readouterr()
    assert captured.err == (f"{count} of {count} runs taken from {out} ({written.describe()}), not recomputed; "
                            "fresh=True (fullbandit bench --fresh) recomputes them\n")
    assert f"runs of {written.describe()}" in captured.out.splitlines()[-1]
    assert out.read_bytes() == committed.read_bytes()  # nothing added, so nothing rewritten


def _tiny_suite():
    from fullbandit.experiments.saqm_support import support_plot
    from fullbandit.experiments.suite import Suite
    return Suite("tiny", "a fast suite for tests", lambda runs: _grid(runs), support_plot, default_runs=2)


@pytest.fixture
def tiny(monkeypatch):
    from fullbandit.experiments import suites
    monkeypatch.setitem(suites.SUITES, "tiny", _tiny_suite())


def _bench(folder, *options) -> int:
    return main(["bench", "tiny", "--runs", "2", "--out", str(folder), "--no-progress", *options])


@pytest.mark.slow
def test_bench_says_which_runs_it_took_and_refuses_other_code(tmp_path, capsys, tiny):
    assert _bench(tmp_path) == 0
    out = capsys.readouterr()
    assert out.err == "" and out.out.endswith(f"(sequential backend; runs of {current().label()}, written "
                                              f"{datetime.now(UTC).date()})\n")
    assert _bench(tmp_path) == 0
    assert capsys.readouterr().err.startswith(f"4 of 4 runs taken from {tmp_path / 'tiny.csv'} (fullbandit ")
    _rewrite(tmp_path / "tiny.csv", lambda row: row.update(fullbandit_version="0.0.1"))
    before = (tmp_path / "tiny.csv").read_bytes()
    assert _bench(tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fullbandit: error: out={str(tmp_path / 'tiny.csv')!r} holds runs of other code than "
                          "this (another fullbandit)") and "(fullbandit bench --mix-versions)" in err
    assert (tmp_path / "tiny.csv").read_bytes() == before
    assert _bench(tmp_path, "--mix-versions") == 0
    assert "runs of fullbandit 0.0.1" in capsys.readouterr().out
    assert _bench(tmp_path, "--fresh") == 0
    assert set(read_results(tmp_path / "tiny.csv")["fullbandit_version"]) == {fullbandit.__version__}


def test_bench_takes_fresh_or_mix_versions_not_both(tmp_path, capsys, tiny):
    with pytest.raises(SystemExit):
        _bench(tmp_path, "--fresh", "--mix-versions")
    assert "not allowed with argument" in capsys.readouterr().err
    assert not (tmp_path / "tiny.csv").exists()


@pytest.mark.slow
def test_the_figure_names_the_code_behind_its_runs(tmp_path, capsys, tiny):
    from PIL import Image
    assert _bench(tmp_path) == 0
    _rewrite(tmp_path / "tiny.csv",
             lambda row: row.update(fullbandit_commit="f" * 40) if row["seed"] == "0" else None)
    assert _bench(tmp_path, "--mix-versions") == 0
    image = Image.open(tmp_path / "tiny.png")
    record = json.loads(image.text["fullbandit provenance"])
    assert record["drawn_by"] == current().columns()
    runs = {entry["fullbandit_commit"]: entry for entry in record["runs"]}
    assert set(runs) == {"f" * 40, current().commit} and runs["f" * 40]["runs"] == 2
    stored = read_results(tmp_path / "tiny.csv")
    mine = stored[stored["fullbandit_commit"] != "f" * 40]
    assert runs[current().commit]["first_finished"] == mine["finished_at"].min()
    assert {key: runs["f" * 40][key] for key in CODE_COLUMNS if key != "fullbandit_commit"} == {
        key: value for key, value in current().columns().items() if key != "fullbandit_commit"}


# --- text in a PNG --------------------------------------------------------------------------------------


def test_png_text_leaves_the_image_and_refuses_what_is_not_a_png(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image
    path = tmp_path / "figure.png"
    figure, axes = plt.subplots(figsize=(2, 2))
    axes.plot([0, 1], [1, 0])
    figure.savefig(path)
    plt.close(figure)
    pixels = np.asarray(Image.open(path)).copy()
    before = path.read_bytes()
    add_png_text(path, "fullbandit provenance", json.dumps({"a": "é"}))
    Image.open(path).verify()  # every chunk's checksum
    after = Image.open(path)
    assert after.text["fullbandit provenance"] == '{"a": "\\u00e9"}' and (np.asarray(after) == pixels).all()
    assert path.read_bytes().startswith(before[:-12])  # the image's own chunks, untouched
    for keyword in ("", " lead", "x" * 80, "two  spaces"):
        with pytest.raises(InvalidParameterError, match="keyword="):
            add_png_text(path, keyword, "text")
    with pytest.raises(InvalidParameterError, match="Latin-1"):
        add_png_text(path, "k", "\u20ac")
    text = tmp_path / "not.png"
    text.write_text("not an image")
    with pytest.raises(InvalidParameterError, match="not a PNG file"):
        add_png_text(text, "k", "v")
    assert text.read_text() == "not an image"
