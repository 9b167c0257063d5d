"""Densest-k-subgraph (DkS): one front end over several oracles, certified bounds, exact solvers.

:func:`densest_k_subgraph` (a networkx graph) and :func:`densest_k_subgraph_matrix` (a
weight matrix, dense or scipy sparse) choose ``k`` vertices of large induced weight with
one of the oracles of :data:`ORACLES`, each with the approximation ratio it provably
reaches (Algorithm 1 of Kuroki et al. (2020) calls them by name). :func:`bound` gives
certified upper bounds, so any answer gets a certified ratio; :func:`exact` solves small
and moderate instances. Every weight matrix passes :func:`check_weight_matrix` once.
"""

from fullbandit.dks.bounds import bound, bound_matrix, certified_ratio
from fullbandit.dks.densest import ORACLES, DenseSubgraph, densest_k_subgraph, densest_k_subgraph_matrix, get_oracle
from fullbandit.dks.feige_peleg_kortsarz import fpk_procedures, proven_fpk_ratio
from fullbandit.dks.optimum import ExactResult, brute_force_matrix, exact, milp_matrix
from fullbandit.dks.oracle import Oracle
from fullbandit.dks.peeling import proven_peeling_ratio
from fullbandit.dks.swaps import local_search, local_search_matrix
from fullbandit.dks.weights import WeightMatrix, check_weight_matrix, induced_weight

__all__ = ["densest_k_subgraph", "densest_k_subgraph_matrix", "DenseSubgraph", "ORACLES", "Oracle", "get_oracle",
           "WeightMatrix", "check_weight_matrix", "induced_weight", "proven_peeling_ratio", "proven_fpk_ratio",
           "fpk_procedures", "local_search", "local_search_matrix", "bound", "bound_matrix", "certified_ratio",
           "exact", "ExactResult", "brute_force_matrix", "milp_matrix"]
