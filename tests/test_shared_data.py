"""The data folder of the raw files fullbandit does not ship: FULLBANDIT_DATA, ``fullbandit --data-dir``, the default.

Each setting is shown to move where the loaders look by a tiny file in the folder's layout
(``rte/rte_labels.csv``, ``caption559/counts.csv``) in a temporary folder; a folder without the
file gives an error naming the path tried and both settings.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fullbandit.cli.main import main
from fullbandit.datasets.rte import RTE_LABELS, load_rte_labels
from fullbandit.datasets.shared_data import DATA_OPTION, DATA_VARIABLE, SHARED_DATA, data_folder
from fullbandit.datasets.votes import CAPTION559_RAW, load_caption559

ROOT = Path(__file__).resolve().parents[1]


def _tiny_data(folder: Path) -> Path:
    """Two workers' RTE labels and three captions' counts, where the loaders look inside a data folder."""
    (folder / RTE_LABELS).parent.mkdir(parents=True)
    (folder / RTE_LABELS).write_text("task,worker,label,gold\n1,w1,1,1\n1,w2,0,1\n2,w1,0,0\n")
    (folder / CAPTION559_RAW).parent.mkdir(parents=True)
    (folder / CAPTION559_RAW).write_text("rank,votes,not_funny,somewhat_funny,funny\n1,4,1,1,2\n2,3,3,0,0\n"
                                         "3,2,0,2,0\n")
    return folder


def _assert_loaded_from_tiny_data() -> None:
    labels = load_rte_labels()
    assert labels.worker_ids == ("w1", "w2") and labels.n_correct.tolist() == [2, 0]
    votes = load_caption559()
    assert votes.ids == ("1", "2", "3") and votes.votes.tolist() == [4, 3, 2]


@pytest.fixture
def unset(monkeypatch):
    """No FULLBANDIT_DATA during the test, and the caller's value (if any) back afterwards."""
    monkeypatch.setenv(DATA_VARIABLE, "")  # recorded by monkeypatch, so that what a test sets is undone
    monkeypatch.delenv(DATA_VARIABLE)


def test_the_default_is_the_folder_beside_the_checkout(unset):
    assert SHARED_DATA == ROOT.parent.resolve() / "shared" / "data"
    assert data_folder() == SHARED_DATA


def test_the_variable_moves_where_the_loaders_look_when_they_are_called(unset, monkeypatch, tmp_path):
    folder = _tiny_data(tmp_path / "data")
    monkeypatch.setenv(DATA_VARIABLE, str(folder))  # after the loaders' modules were imported
    assert data_folder() == folder
    _assert_loaded_from_tiny_data()


def test_the_option_moves_where_the_loaders_look_for_the_command_and_its_processes(unset, tmp_path, capsys):
    folder = _tiny_data(tmp_path / "data")
    assert main([DATA_OPTION, str(folder), "bench", "--list"]) == 0
    assert "shahrampour-fig3" in capsys.readouterr().out
    # Set for the rest of the process and, through the environment, for the processes it starts.
    assert os.environ[DATA_VARIABLE] == str(folder.resolve())
    _assert_loaded_from_tiny_data()


def test_the_option_refuses_a_path_that_is_no_folder(unset, tmp_path, capsys):
    assert main([DATA_OPTION, str(tmp_path / "nowhere"), "bench", "--list"]) == 2
    assert f"{DATA_OPTION}='{tmp_path / 'nowhere'}' is not a folder" in capsys.readouterr().err
    assert DATA_VARIABLE not in os.environ


@pytest.mark.parametrize("load, relative", [(load_rte_labels, RTE_LABELS), (load_caption559, CAPTION559_RAW)])
def test_a_folder_without_the_file_names_the_path_tried_and_both_settings(unset, monkeypatch, tmp_path, load,
                                                                          relative):
    monkeypatch.setenv(DATA_VARIABLE, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError) as error:
        load()
    message = str(error.value)
    assert f"not at {tmp_path / 'missing' / relative} (the data folder {tmp_path / 'missing'}, from " \
           f"{DATA_VARIABLE};" in message
    assert DATA_VARIABLE in message and DATA_OPTION in message


def test_without_the_variable_the_error_says_the_default_was_used(unset, monkeypatch, tmp_path):
    monkeypatch.setattr("fullbandit.datasets.shared_data.SHARED_DATA", tmp_path)
    with pytest.raises(FileNotFoundError, match=f"the default beside a source checkout, as {DATA_VARIABLE} is "
                                                f"not set; .*{DATA_OPTION}"):
        load_caption559()


def test_an_explicit_path_is_read_whatever_the_settings(monkeypatch, tmp_path):
    folder = _tiny_data(tmp_path / "data")
    monkeypatch.setenv(DATA_VARIABLE, str(tmp_path / "elsewhere"))
    assert load_caption559(folder / CAPTION559_RAW).n_arms == 3
    with pytest.raises(FileNotFoundError) as error:
        load_caption559(tmp_path / "no.csv")
    assert f"not at {tmp_path / 'no.csv'}. fullbandit does not ship them" in str(error.value)
