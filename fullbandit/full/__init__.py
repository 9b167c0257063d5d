"""Algorithms for full-bandit feedback: each pull reveals only the sum of the members' rewards.

The registry of every algorithm, with its tags, is :mod:`fullbandit.core.registry`.
"""

from fullbandit.full.exhaustive import Exhaustive
from fullbandit.full.icb import ICB
from fullbandit.full.phased import PhasedSwap
from fullbandit.full.safoa import SAFOA, SAFOA_HEURISTIC
from fullbandit.full.saqm import SAQM
from fullbandit.full.static import StaticFullBandit
from fullbandit.full.swap import SwapBound

#: The registered full-bandit algorithms (:data:`fullbandit.core.registry.BUILTIN` loads them by name).
ALGORITHMS = (SAQM, SAFOA, SAFOA_HEURISTIC, ICB, Exhaustive, SwapBound, PhasedSwap)

__all__ = ["ALGORITHMS", "Exhaustive", "ICB", "PhasedSwap", "SAFOA", "SAFOA_HEURISTIC", "SAQM", "StaticFullBandit",
           "SwapBound"]
