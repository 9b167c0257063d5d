"""Decision classes: which super-arms (teams) may be chosen, and the linear maximisation over them.

The classes live in :mod:`fullbandit.problems.classes`; this package re-exports them.
"""

from fullbandit.problems.classes import (
    DecisionClass,
    PartitionMatroid,
    SuperArm,
    Thresholding,
    TopK,
    decision_class_from_dict,
)

__all__ = ["DecisionClass", "PartitionMatroid", "SuperArm", "Thresholding", "TopK", "decision_class_from_dict"]
