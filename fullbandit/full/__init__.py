"""Algorithms for full-bandit feedback: each pull reveals only the sum of the members' rewards.

The registry of every algorithm, with its tags, is :mod:`fullbandit.registry`.
"""

from fullbandit.full.exhaustive import Exhaustive
from fullbandit.full.icb import ICB
from fullbandit.full.phased import PhasedSwap
from fullbandit.full.safoa import SAFOA
from fullbandit.full.saqm import SAQM
from fullbandit.full.static import StaticFullBandit
from fullbandit.full.swap import SwapBound

__all__ = ["Exhaustive", "ICB", "PhasedSwap", "SAFOA", "SAQM", "StaticFullBandit", "SwapBound"]
