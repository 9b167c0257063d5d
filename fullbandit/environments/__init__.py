"""Reward models: what a pull of a super-arm returns, as the team's sum (full-bandit) or per member (semi-bandit).

The models live in :mod:`fullbandit.environments.models`; this package re-exports them.
"""

from fullbandit.environments.models import (
    BernoulliTeam,
    Categorical,
    Environment,
    GaussianArms,
    GaussianSum,
    JointReplay,
    Replay,
    SparseReplay,
)

__all__ = ["BernoulliTeam", "Categorical", "Environment", "GaussianArms", "GaussianSum", "JointReplay", "Replay",
           "SparseReplay"]
