"""fullbandit: find the best team when each trial shows only the team's summed reward.

Reference implementation of Kuroki, Xu, Miyauchi, Honda, Sugiyama, "Polynomial-time
algorithms for multiple-arm identification with full-bandit feedback", Neural
Computation 32(9), 2020, with its baselines.

The names below are imported on first use (PEP 562), so ``import fullbandit`` is quick
and the ``fullbandit`` command can turn a Ctrl-C during start-up into a clean exit.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

try:
    __version__ = version("fullbandit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

_HOMES = {
    "run": "fullbandit.driver",
    "registry": None,  # a sub-module
    "lower_bound": "fullbandit.lower_bound", "LowerBound": "fullbandit.lower_bound",
    "Algorithm": "fullbandit.base", "Pull": "fullbandit.base", "StoppingCheck": "fullbandit.base",
    "ProtocolError": "fullbandit.base",
    "StopReason": "fullbandit.result", "Result": "fullbandit.result",
    "SAQM": "fullbandit.full", "SAFOA": "fullbandit.full", "ICB": "fullbandit.full", "Exhaustive": "fullbandit.full",
    "SwapBound": "fullbandit.full", "PhasedSwap": "fullbandit.full",
    "TopK": "fullbandit.problem", "PartitionMatroid": "fullbandit.problem", "Thresholding": "fullbandit.problem",
    "DecisionClass": "fullbandit.problem",
    "Environment": "fullbandit.environments", "GaussianSum": "fullbandit.environments",
    "GaussianArms": "fullbandit.environments", "BernoulliTeam": "fullbandit.environments",
    "Replay": "fullbandit.environments", "Categorical": "fullbandit.environments",
    "SparseReplay": "fullbandit.environments",
    "confidence_radius": "fullbandit.estimation", "SingularDesignError": "fullbandit.estimation",
    "InvalidParameterError": "fullbandit._validation",
    "StateError": "fullbandit.state",
}

__all__ = [
    "run", "load", "registry", "lower_bound", "LowerBound", "Algorithm", "Pull", "StoppingCheck", "StopReason",
    "SAQM", "SAFOA", "ICB", "Exhaustive", "SwapBound", "PhasedSwap", "TopK", "PartitionMatroid", "Thresholding",
    "DecisionClass",
    "Result", "Environment", "GaussianSum", "GaussianArms", "BernoulliTeam", "Replay", "Categorical", "SparseReplay",
    "confidence_radius",
    "InvalidParameterError", "SingularDesignError", "ProtocolError", "StateError", "__version__",
]

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from fullbandit import registry
    from fullbandit._validation import InvalidParameterError
    from fullbandit.base import Algorithm, ProtocolError, Pull, StoppingCheck
    from fullbandit.driver import run
    from fullbandit.environments import (
        BernoulliTeam,
        Categorical,
        Environment,
        GaussianArms,
        GaussianSum,
        Replay,
        SparseReplay,
    )
    from fullbandit.estimation import SingularDesignError, confidence_radius
    from fullbandit.full import ICB, SAFOA, SAQM, Exhaustive, PhasedSwap, SwapBound
    from fullbandit.lower_bound import LowerBound, lower_bound
    from fullbandit.problem import DecisionClass, PartitionMatroid, Thresholding, TopK
    from fullbandit.result import Result, StopReason
    from fullbandit.state import StateError

    load = Algorithm.load


def __getattr__(name: str):
    if name == "load":
        value = __getattr__("Algorithm").load
    elif name in _HOMES:
        home = _HOMES[name]
        value = importlib.import_module(f"fullbandit.{name}") if home is None else getattr(
            importlib.import_module(home), name)
    else:
        raise AttributeError(f"module 'fullbandit' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_SHADOWED = {"lower_bound"}  # public functions named like the sub-module that defines them


class _Package(types.ModuleType):
    """This package's module type: importing a sub-module does not hide the public function of its name.

    Python binds ``fullbandit.lower_bound`` to the sub-module whenever the sub-module is
    first imported; with the names loaded lazily that would replace the function
    ``fullbandit.lower_bound`` for good. The binding is skipped; ``__getattr__`` then
    gives the function.
    """

    def __setattr__(self, name: str, value) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
