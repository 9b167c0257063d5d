"""Algorithms for full-bandit feedback: each pull reveals only the sum of the members' rewards."""

from fullbandit.full.saqm import SAQM
from fullbandit.full.static import StaticFullBandit

#: Algorithms by the name the command line and the experiment runner use.
ALGORITHMS = {"saqm": SAQM}

__all__ = ["ALGORITHMS", "SAQM", "StaticFullBandit"]
