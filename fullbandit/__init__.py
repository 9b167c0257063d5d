"""fullbandit: find the best team when each trial shows only the team's summed reward.

Reference implementation of Kuroki, Xu, Miyauchi, Honda, Sugiyama, "Polynomial-time
algorithms for multiple-arm identification with full-bandit feedback", Neural
Computation 32(9), 2020, with its baselines.
"""

from importlib.metadata import PackageNotFoundError, version

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

try:
    __version__ = version("fullbandit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

load = Algorithm.load

__all__ = [
    "run", "load", "registry", "lower_bound", "LowerBound", "Algorithm", "Pull", "StoppingCheck", "StopReason",
    "SAQM", "SAFOA", "ICB", "Exhaustive", "SwapBound", "PhasedSwap", "TopK", "PartitionMatroid", "Thresholding",
    "DecisionClass",
    "Result", "Environment", "GaussianSum", "GaussianArms", "BernoulliTeam", "Replay", "Categorical", "SparseReplay",
    "confidence_radius",
    "InvalidParameterError", "SingularDesignError", "ProtocolError", "StateError", "__version__",
]
