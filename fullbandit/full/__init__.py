"""Algorithms for full-bandit feedback: each pull reveals only the sum of the members' rewards.

The registry of every algorithm, with its tags, is :mod:`fullbandit.core.registry`.

The names below are imported on first use (PEP 562): a program that uses one algorithm -- a
``fullbandit session`` command replaying its store -- imports that algorithm's module only, not
every other with its dependencies (networkx, scipy).
"""

from fullbandit.util.lazy import lazy_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)

#: Where each name of this package lives.
_EXPORTS = {
    "fullbandit.full.exhaustive": ("Exhaustive",),
    "fullbandit.full.icb": ("ICB",),
    "fullbandit.full.phased": ("PhasedSwap",),
    "fullbandit.full.safoa": ("SAFOA", "SAFOA_HEURISTIC"),
    "fullbandit.full.saqm": ("SAQM",),
    "fullbandit.full.static": ("StaticFullBandit",),
    "fullbandit.full.swap": ("SwapBound",),
}
_HOMES = {name: home for home, names in _EXPORTS.items() for name in names}
#: The registered full-bandit algorithms, by name: ``ALGORITHMS`` holds them
#: (:data:`fullbandit.core.registry.BUILTIN` loads it by name).
_ALGORITHMS = ("SAQM", "SAFOA", "SAFOA_HEURISTIC", "ICB", "Exhaustive", "SwapBound", "PhasedSwap")

__all__ = ["ALGORITHMS", "Exhaustive", "ICB", "PhasedSwap", "SAFOA", "SAFOA_HEURISTIC", "SAQM", "StaticFullBandit",
           "SwapBound"]

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from fullbandit.core.registry import AlgorithmSpec
    from fullbandit.full.exhaustive import Exhaustive
    from fullbandit.full.icb import ICB
    from fullbandit.full.phased import PhasedSwap
    from fullbandit.full.safoa import SAFOA, SAFOA_HEURISTIC
    from fullbandit.full.saqm import SAQM
    from fullbandit.full.static import StaticFullBandit
    from fullbandit.full.swap import SwapBound

    ALGORITHMS: tuple[type | AlgorithmSpec, ...]


__getattr__, __dir__ = lazy_names(globals(), _EXPORTS, {"ALGORITHMS": _ALGORITHMS})
