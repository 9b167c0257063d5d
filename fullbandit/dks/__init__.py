"""Densest-k-subgraph (DkS) oracles: networkx front ends and matrix fast paths.

Every oracle takes a weighted undirected graph (or a symmetric non-negative weight
matrix, dense or scipy sparse) and ``k`` and returns ``k`` vertices; :data:`ORACLES`
lists those Algorithm 1 of Kuroki et al. (2020) can call by name, each with the
approximation ratio it provably reaches. :func:`bound` gives certified upper bounds, so
any answer gets a certified ratio; :func:`exact` solves small and moderate instances.
"""

from fullbandit.dks._graph import induced_weight
from fullbandit.dks.bounds import bound, bound_matrix, certified_ratio
from fullbandit.dks.optimum import ExactResult, brute_force_matrix, exact, milp_matrix
from fullbandit.dks.feige_peleg_kortsarz import fpk, fpk_matrix, fpk_procedures, proven_fpk_ratio
from fullbandit.dks.swaps import local_search, local_search_matrix
from fullbandit.dks.peeling import greedy_peeling, peel_dense, peel_sparse, proven_peeling_ratio
from fullbandit.dks.registry import ORACLES, Oracle, get_oracle

__all__ = ["greedy_peeling", "peel_dense", "peel_sparse", "proven_peeling_ratio", "fpk", "fpk_matrix",
           "fpk_procedures", "proven_fpk_ratio", "local_search", "local_search_matrix", "induced_weight",
           "ORACLES", "Oracle", "get_oracle", "bound", "bound_matrix", "certified_ratio", "exact",
           "ExactResult", "brute_force_matrix", "milp_matrix"]
