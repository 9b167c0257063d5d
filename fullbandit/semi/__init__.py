"""Algorithms for per-arm (semi-bandit) feedback: every member's reward is seen.

The registry of every algorithm, with its tags, is :mod:`fullbandit.registry`.
"""

from fullbandit.semi.base import PerArmRounds
from fullbandit.semi.optmai import OptMAI
from fullbandit.semi.sar import SAR, Uniform

__all__ = ["OptMAI", "PerArmRounds", "SAR", "Uniform"]
