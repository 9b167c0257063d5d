"""Algorithms for full-bandit feedback: each pull reveals only the sum of the members' rewards."""

from functools import partial

from fullbandit.full.exhaustive import Exhaustive
from fullbandit.full.icb import ICB
from fullbandit.full.safoa import SAFOA
from fullbandit.full.saqm import SAQM
from fullbandit.full.static import StaticFullBandit

#: Algorithms by the name the command line and the experiment runner use.
ALGORITHMS = {
    "saqm": SAQM,
    "safoa": partial(SAFOA, mode="heuristic"),
    "safoa-certified": partial(SAFOA, mode="certified"),
    "icb": ICB,
    "exhaustive": Exhaustive,
}

__all__ = ["ALGORITHMS", "Exhaustive", "ICB", "SAFOA", "SAQM", "StaticFullBandit"]
