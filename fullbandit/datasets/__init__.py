"""Crowdsourcing data sets for best-team identification.

The six quiz data sets of Li, Baba and Kashima (CIKM 2017), used in Table 2 of
Kuroki et al. (Neural Computation, 2020), ship as small correctness tables; see
:mod:`fullbandit.datasets.quiz`. The synthetic instances of the five papers the project
implements are in :mod:`fullbandit.datasets.synthetic`. Vote-count tables (ratings per item,
as categorical arms) load with :mod:`fullbandit.datasets.votes`. A user's own answers (long
``task,worker,label`` tables with gold, or wide quiz files) load with
:mod:`fullbandit.datasets.crowd`.
"""

from fullbandit.datasets.crowd import CrowdDataWarning, CrowdTable, load_long, load_wide
from fullbandit.datasets.quiz import DATASETS, QuizData, dataset_info, load_dataset, load_quiz
from fullbandit.datasets.synthetic import SYNTHETIC_INSTANCES, SyntheticInstance, make_instance
from fullbandit.datasets.votes import VoteCounts, load_caption559, load_vote_counts

__all__ = ["DATASETS", "QuizData", "dataset_info", "load_dataset", "load_quiz",
           "SYNTHETIC_INSTANCES", "SyntheticInstance", "make_instance",
           "VoteCounts", "load_vote_counts", "load_caption559",
           "CrowdTable", "CrowdDataWarning", "load_long", "load_wide"]
