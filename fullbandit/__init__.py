"""fullbandit: find the best team when each trial shows only the team's summed reward.

Reference implementation of Kuroki, Xu, Miyauchi, Honda, Sugiyama, "Polynomial-time
algorithms for multiple-arm identification with full-bandit feedback", Neural
Computation 32(9), 2020, with its baselines.
"""

from fullbandit._validation import InvalidParameterError
from fullbandit.driver import run
from fullbandit.environments import BernoulliTeam, Environment, GaussianSum, Replay
from fullbandit.estimation import SingularDesignError, confidence_radius
from fullbandit.full import SAFOA, SAQM, Exhaustive, ICB
from fullbandit.problem import DecisionClass, PartitionMatroid, TopK
from fullbandit.result import Result

__version__ = "0.1.0"

__all__ = ["run", "SAQM", "SAFOA", "ICB", "Exhaustive", "TopK", "PartitionMatroid", "DecisionClass", "Result", "Environment", "GaussianSum", "BernoulliTeam", "Replay",
           "confidence_radius", "InvalidParameterError", "SingularDesignError", "__version__"]
