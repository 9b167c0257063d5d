"""Algorithms for per-arm (semi-bandit) feedback: every member's reward is seen.

The registry of every algorithm, with its tags, is :mod:`fullbandit.registry`.
"""

from fullbandit.semi.base import PerArmRounds
from fullbandit.semi.lucb import CLUCB, LUCB

__all__ = ["PerArmRounds", "LUCB", "CLUCB"]
