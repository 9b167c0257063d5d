"""Algorithms for per-arm (semi-bandit) feedback: every member's reward is seen.

The registry of every algorithm, with its tags, is :mod:`fullbandit.core.registry`.

The names below are imported on first use (PEP 562): a program that uses one algorithm -- a
``fullbandit session`` command replaying its store -- imports that algorithm's module only, not
every other with its dependencies (scipy).
"""

from fullbandit.util.lazy import lazy_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)

#: Where each name of this package lives.
_EXPORTS = {
    "fullbandit.semi.adaptive_topk": ("AdaptiveTopK", "AdaptiveTopKBudget", "exchange_level", "hardness"),
    "fullbandit.semi.at_lucb": ("ATLUCB",),
    "fullbandit.semi.base": ("PerArmConfidenceRounds", "PerArmRounds"),
    "fullbandit.semi.lucb": ("CLUCB", "LUCB"),
    "fullbandit.semi.optmai": ("OptMAI",),
    "fullbandit.semi.sar": ("NSAR", "SAR", "Uniform"),
    "fullbandit.semi.thresholding": ("APT", "LSA", "UCBE", "OptKG", "ThresholdUniform", "threshold_hardness"),
}
_HOMES = {name: home for home, names in _EXPORTS.items() for name in names}
#: The registered per-arm algorithms, by name: ``ALGORITHMS`` holds them
#: (:data:`fullbandit.core.registry.BUILTIN` loads it by name).
_ALGORITHMS = ("Uniform", "SAR", "NSAR", "OptMAI", "AdaptiveTopK", "AdaptiveTopKBudget", "LUCB", "CLUCB", "LSA", "APT",
               "UCBE", "OptKG", "ThresholdUniform", "ATLUCB")

__all__ = ["ALGORITHMS", "APT", "ATLUCB", "CLUCB", "LSA", "LUCB", "NSAR", "UCBE", "AdaptiveTopK", "AdaptiveTopKBudget",
           "OptKG", "OptMAI", "PerArmConfidenceRounds", "PerArmRounds", "SAR", "ThresholdUniform", "Uniform",
           "exchange_level", "hardness", "threshold_hardness"]

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from fullbandit.semi.adaptive_topk import AdaptiveTopK, AdaptiveTopKBudget, exchange_level, hardness
    from fullbandit.semi.at_lucb import ATLUCB
    from fullbandit.semi.base import PerArmConfidenceRounds, PerArmRounds
    from fullbandit.semi.lucb import CLUCB, LUCB
    from fullbandit.semi.optmai import OptMAI
    from fullbandit.semi.sar import NSAR, SAR, Uniform
    from fullbandit.semi.thresholding import APT, LSA, UCBE, OptKG, ThresholdUniform, threshold_hardness

    ALGORITHMS: tuple[type, ...]


__getattr__, __dir__ = lazy_names(globals(), _EXPORTS, {"ALGORITHMS": _ALGORITHMS})
