"""Algorithms for per-arm (semi-bandit) feedback: every member's reward is seen.

The registry of every algorithm, with its tags, is :mod:`fullbandit.core.registry`.
"""

from fullbandit.semi.adaptive_topk import AdaptiveTopK, AdaptiveTopKBudget, exchange_level, hardness
from fullbandit.semi.at_lucb import ATLUCB
from fullbandit.semi.base import PerArmConfidenceRounds, PerArmRounds
from fullbandit.semi.lucb import CLUCB, LUCB
from fullbandit.semi.optmai import OptMAI
from fullbandit.semi.sar import NSAR, SAR, Uniform
from fullbandit.semi.thresholding import APT, LSA, UCBE, OptKG, ThresholdUniform, threshold_hardness

#: The registered per-arm algorithms (:data:`fullbandit.core.registry.BUILTIN` loads them by name).
ALGORITHMS = (Uniform, SAR, NSAR, OptMAI, AdaptiveTopK, AdaptiveTopKBudget, LUCB, CLUCB, LSA, APT, UCBE, OptKG,
              ThresholdUniform, ATLUCB)

__all__ = ["ALGORITHMS", "APT", "ATLUCB", "CLUCB", "LSA", "LUCB", "NSAR", "UCBE", "AdaptiveTopK", "AdaptiveTopKBudget",
           "OptKG", "OptMAI", "PerArmConfidenceRounds", "PerArmRounds", "SAR", "ThresholdUniform", "Uniform",
           "exchange_level", "hardness", "threshold_hardness"]
