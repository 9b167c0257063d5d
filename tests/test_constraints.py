"""Partition matroids from a worker table's column: the library function and ``solve --workers``."""

import doctest
import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import fullbandit as fb
from fullbandit.cli.main import main
from fullbandit.datasets import groups as constraints
from fullbandit.datasets import load_dataset
from fullbandit.datasets.groups import partition_matroid_from_column
from fullbandit.problems.classes import PartitionMatroid
from fullbandit.util.validation import InvalidParameterError

IDS = ["a", "b", "c", "d", "e"]


def table():
    # Rows in another order than IDS, an extra worker "z" not among the arms.
    return pd.DataFrame({"worker": ["e", "z", "c", "a", "b", "d"],
                         "country": ["jp", "us", "fr", "fr", "jp", "fr"]})


def test_groups_follow_first_appearance_along_the_worker_ids():
    problem, labels = partition_matroid_from_column(IDS, table(), "country", k=3, at_most=2)
    assert problem == PartitionMatroid((0, 1, 0, 0, 1), (2, 2), 3)
    assert labels == ("fr", "jp")


def test_capacities_per_label_and_from_a_csv_file(tmp_path):
    path = tmp_path / "workers.csv"
    table().rename(columns={"worker": "id"}).to_csv(path, index=False)
    problem, labels = partition_matroid_from_column(IDS, path, "country", k=2, capacities={"jp": 2, "fr": 1},
                                                    id_column="id")
    assert (problem.groups, problem.capacities, labels) == ((0, 1, 0, 0, 1), (1, 2), ("fr", "jp"))
    assert problem.best([0.9, 0.1, 0.8, 0.7, 0.2]) == (0, 4)  # one fr at most: a, then the best jp


def test_missing_worker_is_named(tmp_path):
    path = tmp_path / "workers.csv"
    table()[table().worker != "c"].to_csv(path, index=False)
    with pytest.raises(InvalidParameterError, match=r"workers\.csv: 1 of 5 workers missing .*'c'"):
        partition_matroid_from_column(IDS, path, "country", k=2, at_most=1)


def test_duplicate_worker_is_named_with_its_lines(tmp_path):
    path = tmp_path / "workers.csv"
    pd.concat([table(), table().iloc[[3]]]).to_csv(path, index=False)
    with pytest.raises(InvalidParameterError, match=r"worker 'a' appears 2 times \(line 5, line 8\)"):
        partition_matroid_from_column(IDS, path, "country", k=2, at_most=1)


def test_unknown_and_unnamed_capacity_labels_are_refused():
    with pytest.raises(InvalidParameterError, match=r"capacities names 'de', not a group of column 'country'"):
        partition_matroid_from_column(IDS, table(), "country", k=2, capacities={"fr": 1, "jp": 1, "de": 1})
    with pytest.raises(InvalidParameterError, match=r"no cap for group 'jp'"):
        partition_matroid_from_column(IDS, table(), "country", k=2, capacities={"fr": 1})


def test_unreachable_k_is_refused_with_the_room_per_group():
    with pytest.raises(InvalidParameterError, match=r"k=4 is unreachable.*at most 3 .*fr: 2, jp: 1"):
        partition_matroid_from_column(IDS, table(), "country", k=4, capacities={"fr": 2, "jp": 1})


def test_other_refusals_name_the_problem():
    with pytest.raises(InvalidParameterError, match="exactly one of at_most"):
        partition_matroid_from_column(IDS, table(), "country", k=2)
    with pytest.raises(InvalidParameterError, match="column 'team' is missing"):
        partition_matroid_from_column(IDS, table(), "team", k=2, at_most=1)
    blank = table()
    blank.loc[2, "country"] = ""
    with pytest.raises(InvalidParameterError, match=r"row 3, column 'country': empty group of worker 'c'"):
        partition_matroid_from_column(IDS, blank, "country", k=2, at_most=1)


def test_docstring_examples_run():
    failures, attempted = doctest.testmod(constraints, verbose=False, report=False)
    assert attempted > 0 and failures == 0


# ---- solve --workers --group-column --at-most ------------------------------------------------------------------

def capped_it_table(path):
    """``it``'s four most accurate workers all in group "top", the others alternating "x"/"y"."""
    data = load_dataset("it")
    top = set(np.argsort(-data.accuracies, kind="stable")[:4].tolist())
    groups = ["top" if i in top else "xy"[i % 2] for i in range(data.n_workers)]
    pd.DataFrame({"worker": data.worker_ids, "team": groups}).iloc[::-1].to_csv(path, index=False)
    return data, groups


def brute_force_best_value(accuracies, groups, cap, k):
    best = -np.inf
    for team in itertools.combinations(range(len(groups)), k):
        counts = Counter(groups[i] for i in team)
        if max(counts.values()) <= cap:
            best = max(best, accuracies[list(team)].sum())
    return best


def test_icb_team_on_an_embedded_data_set_respects_the_caps_and_is_the_best_basis(tmp_path, capsys):
    path = tmp_path / "workers.csv"
    data, groups = capped_it_table(path)
    assert main(["solve", "--dataset", "it", "--algorithm", "icb", "--k", "3", "--workers", str(path),
                 "--group-column", "team", "--at-most", "2", "--no-progress", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    team = result["answer"]
    assert result["groups"] == [groups[i] for i in team]
    assert max(Counter(result["groups"]).values()) <= 2
    assert result["inputs"]["at_most"] == 2 and result["inputs"]["group_column"] == "team"
    problem, labels = partition_matroid_from_column(data.worker_ids, path, "team", k=3, at_most=2)
    accuracies = data.accuracies
    unconstrained = np.sort(accuracies)[-3:].sum()
    best = brute_force_best_value(accuracies, groups, 2, 3)
    assert best < unconstrained - 1e-9  # the caps bind: the three most accurate are all "top"
    assert accuracies[list(problem.best(accuracies))].sum() == pytest.approx(best)
    assert accuracies[team].sum() == pytest.approx(best)
    assert result["gap"] == pytest.approx(0)


def test_solve_prints_every_member_with_its_group(tmp_path, capsys):
    path = tmp_path / "workers.csv"
    data, groups = capped_it_table(path)
    assert main(["solve", "--dataset", "it", "--algorithm", "icb", "--k", "3", "--workers", str(path),
                 "--group-column", "team", "--at-most", "2", "--epsilon", "1.0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    line = out.split("\nteam          ")[1].splitlines()[0].strip()
    members = [item.rsplit(" (", 1) for item in line.split(", ")]
    index = {w: i for i, w in enumerate(data.worker_ids)}
    assert len(members) == 3 and all(groups[index[w]] == g.rstrip(")") for w, g in members)


def write_long(tmp_path, accuracies, n_tasks=40, seed=1):
    """A long answers file and a gold file: worker ``w<i>`` right on a fraction ``accuracies[i]`` of tasks."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, accuracy in enumerate(accuracies):
        right = rng.permutation(n_tasks) < round(accuracy * n_tasks)
        rows += [(f"t{t}", f"w{i}", "yes" if right[t] else "no") for t in range(n_tasks)]
    pd.DataFrame(rows, columns=["task", "worker", "label"]).to_csv(tmp_path / "answers.csv", index=False)
    pd.DataFrame({"task": [f"t{t}" for t in range(n_tasks)], "true_label": "yes"}).to_csv(
        tmp_path / "gold.csv", index=False)
    return str(tmp_path / "answers.csv"), str(tmp_path / "gold.csv")


def test_group_caps_on_the_users_own_files(tmp_path, capsys):
    answers, gold = write_long(tmp_path, [0.9, 0.85, 0.8, 0.3, 0.25, 0.2])
    workers = tmp_path / "workers.csv"
    pd.DataFrame({"worker": [f"w{i}" for i in range(6)], "country": ["fr"] * 3 + ["jp"] * 3}).to_csv(
        workers, index=False)
    assert main(["solve", "--data", answers, "--gold", gold, "--algorithm", "icb", "--k", "3", "--epsilon", "0.2",
                 "--workers", str(workers), "--group-column", "country", "--at-most", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "best team     w0 (fr), w1 (fr), w3 (jp) (the simulation's truth)" in out  # not w2: at most 2 from fr
    assert "\nteam          w0 (fr), w1 (fr), w3 (jp)\n" in out


@pytest.mark.parametrize("given, missing", [
    (["--workers", "w.csv"], "--group-column, --at-most are missing"),
    (["--workers", "w.csv", "--group-column", "team"], "--at-most is missing"),
    (["--at-most", "2"], "--workers, --group-column are missing"),
])
def test_incomplete_group_options_are_refused(given, missing, capsys):
    assert main(["solve", "--algorithm", "icb", "--k", "3", "--no-progress", *given]) == 2
    err = capsys.readouterr().err
    assert "--workers, --group-column and --at-most go together" in err and missing in err


def test_an_algorithm_without_matroid_support_is_refused_listing_those_with(tmp_path, capsys):
    path = tmp_path / "workers.csv"
    capped_it_table(path)
    assert main(["solve", "--algorithm", "phased", "--k", "3", "--workers", str(path), "--group-column", "team",
                 "--at-most", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--algorithm phased does not support group caps" in err
    assert "algorithms that do: exhaustive, icb" in err


def test_cli_refusals_from_the_workers_file_name_the_problem(tmp_path, capsys):
    path = tmp_path / "workers.csv"
    data, groups = capped_it_table(path)
    frame = pd.read_csv(path)
    frame[frame.worker != "worker7"].to_csv(path, index=False)
    base = ["solve", "--algorithm", "icb", "--workers", str(path), "--group-column", "team", "--no-progress"]
    assert main([*base, "--k", "3", "--at-most", "2"]) == 2
    assert "1 of 36 workers missing from column 'worker': 'worker7'" in capsys.readouterr().err
    capped_it_table(path)
    assert main([*base, "--k", "30", "--at-most", "2"]) == 2
    assert "k=30 is unreachable" in capsys.readouterr().err
    assert main([*base[:4], str(tmp_path / "nope.csv"), *base[5:], "--k", "3", "--at-most", "2"]) == 2
    assert "not found" in capsys.readouterr().err


def test_caps_summing_to_k_are_refused_before_any_pull_naming_groups_sizes_and_caps(tmp_path, capsys, monkeypatch):
    path = tmp_path / "workers.csv"
    data, groups = capped_it_table(path)
    sizes = {label: groups.count(label) for label in ("top", "x", "y")}
    pulls = []
    monkeypatch.setattr(fb.Environment, "pull", lambda self, *a, **k: pulls.append(a) or 0.0)
    # Three groups with cap 2 and k = 6: every team holds exactly 2 of each group.
    assert main(["solve", "--algorithm", "icb", "--k", "6", "--workers", str(path), "--group-column", "team",
                 "--at-most", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    order = sorted(sizes, key=lambda label: groups.index(label))  # group indices follow the arms' order
    table = "; ".join(f"{label}: {sizes[label]} arms, cap 2" for label in order)
    assert f"group caps {table}: counted up to each group's size, the caps sum to k=6" in err
    assert f"exactly {', '.join(f'2 of {label}' for label in order)}" in err
    assert f"rank {1 + sum(s - 1 for s in sizes.values())} < n=36" in err and "lower k below 6" in err
    assert pulls == []
    # One more seat for the same caps spans R^n (caps sum to 6 > 5) and runs.
    assert main(["solve", "--algorithm", "icb", "--k", "5", "--workers", str(path), "--group-column", "team",
                 "--at-most", "2", "--no-progress", "--epsilon", "1.0"]) == 0
