"""Algorithms for full-bandit feedback: each pull reveals only the sum of the members' rewards."""

from fullbandit.full.saqm import SAQM
from fullbandit.full.static import StaticFullBandit

__all__ = ["SAQM", "StaticFullBandit"]
