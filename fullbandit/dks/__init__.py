"""Densest-k-subgraph (DkS) oracles: networkx front ends and matrix fast paths.

Every oracle takes a graph (or a symmetric non-negative weight matrix) and ``k`` and
returns ``k`` vertices; :data:`ORACLES` lists those Algorithm 1 of Kuroki et al. (2020)
can call by name, each with the approximation ratio it provably reaches.
"""

from fullbandit.dks._graph import induced_weight
from fullbandit.dks.peeling import greedy_peeling, peel_dense, proven_peeling_ratio
from fullbandit.dks.registry import ORACLES, Oracle, get_oracle

__all__ = ["greedy_peeling", "peel_dense", "proven_peeling_ratio", "induced_weight",
           "ORACLES", "Oracle", "get_oracle"]
