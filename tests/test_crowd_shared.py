"""The wide-format loader on the six shared quiz data sets agrees with the embedded tables derived from them."""

import warnings

import numpy as np
import pytest

from fullbandit.datasets import load_dataset
from fullbandit.datasets.crowd import CrowdDataWarning, load_wide
from fullbandit.datasets.shared_data import data_folder

QUIZ = data_folder() / "quiz"
FOLDERS = {"ITMANAGE": "it", "MEDICINE": "medicine", "CHINESE": "chinese", "POKEMON": "pokemon",
           "ENGLISH": "english", "SCIENCE": "science"}


@pytest.mark.skipif(not QUIZ.is_dir(), reason="the shared quiz data (quiz/ in FULLBANDIT_DATA, else in "
                                              "../shared/data beside the repository) are not on this machine")
@pytest.mark.parametrize("folder", FOLDERS)
def test_load_wide_on_the_shared_quiz_data_matches_the_embedded_table(folder):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CrowdDataWarning)
        table = load_wide(QUIZ / folder / "answer.csv", QUIZ / folder / "truth.csv")
    embedded = load_dataset(FOLDERS[folder])
    assert table.worker_ids == tuple(embedded.worker_ids)
    assert table.n_tasks == embedded.n_questions and bool(table.answered.all())  # every worker answered everything
    np.testing.assert_allclose(table.accuracies, embedded.accuracies, rtol=0, atol=1e-15)
    # Only Pokemon has answers outside the gold labels ('C'), graded wrong and counted in a warning.
    messages = [str(w.message) for w in caught]
    assert (folder == "POKEMON") == any("no true label" in m for m in messages)
