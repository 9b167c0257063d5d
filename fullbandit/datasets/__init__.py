"""Crowdsourcing data sets for best-team identification.

The six quiz data sets of Li, Baba and Kashima (CIKM 2017), used in Table 2 of
Kuroki et al. (Neural Computation, 2020), ship as small correctness tables; see
:mod:`fullbandit.datasets.quiz`.
"""

from fullbandit.datasets.quiz import DATASETS, QuizData, dataset_info, load_dataset, load_quiz

__all__ = ["DATASETS", "QuizData", "dataset_info", "load_dataset", "load_quiz"]
