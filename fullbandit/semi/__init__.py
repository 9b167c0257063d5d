"""Algorithms for per-arm (semi-bandit) feedback: every member's reward is seen.

The registry of every algorithm, with its tags, is :mod:`fullbandit.registry`.
"""

from fullbandit.semi.adaptive_topk import AdaptiveTopK, AdaptiveTopKBudget, exchange_level, hardness
from fullbandit.semi.base import PerArmRounds

__all__ = ["AdaptiveTopK", "AdaptiveTopKBudget", "PerArmRounds", "exchange_level", "hardness"]
