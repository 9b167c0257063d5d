"""Two readings of constants Kuroki et al. (2020) lost, as labelled variants for Table 2.

The main seed paper lost its formulas (``docs/ALGORITHMS.md`` reconstructs them). Two of the
constants that decide how long ICB and SAQM sample admit more than one defensible reading;
the library's defaults take the tighter valid one. To show how far Table 2's SAQM/ICB ratios
move with the reading, ``kuroki-table2`` runs these two beside the defaults:

:class:`ICBSuperArmUnion` (``"icb[super-arm union]"``, certified)
    ICB's radius ``C_t`` with its union bound over all ``C(n, k)`` super-arms, a literal
    reading of Appendix A, Lemma 1 (which states the confidence event for every super-arm),
    instead of the ``n`` directions ``e_i`` its per-arm intervals need. A union over more
    events still covers the ones used, so the guarantee holds; the run is only longer.
:class:`SAQMRatioOne` (``"saqm[ratio one]"``, heuristic)
    SAQM's width ``U_t^2`` taken as the oracle's QP value ``Z_t`` itself, as if the
    densest-k-subgraph oracle were exact (approximation ratio 1), instead of ``Z_t`` divided
    by the proven ratio of Theorem 1 or the certified bounds of
    :func:`fullbandit.full.qp.certified_bounds`. ``Z_t`` is a *lower* bound of the maximum,
    so the stopping rule may stop before it is proven: tagged heuristic (``guarantee``), and
    its error rate is what the runs measure.

Neither is registered: they are readings for a reproduction, not rules to choose. Build them
with :func:`reading`.
"""

from __future__ import annotations

import math

from fullbandit.full.icb import ICB
from fullbandit.full.saqm import SAQM
from fullbandit.linalg.least_squares import LeastSquaresEstimate


class ICBSuperArmUnion(ICB):
    """ICB with the union bound of ``C_t`` over the ``C(n, k)`` super-arms (Kuroki et al. 2020, Appendix A,
    Lemma 1 read literally); certified, looser than :class:`fullbandit.full.icb.ICB`.

    Examples
    --------
    >>> import fullbandit as fb
    >>> ICBSuperArmUnion(fb.TopK(6, 3))._n_directions(), fb.ICB(fb.TopK(6, 3))._n_directions()
    (20, 6)
    """

    def label(self) -> str:
        return "icb[super-arm union]"

    def _n_directions(self) -> int:
        return self.problem.size


class SAQMRatioOne(SAQM):
    """SAQM with the width ``U_t = sqrt(Z_t)``: the oracle's QP value read as the exact maximum (Kuroki et
    al. 2020, Algorithm 2 with ratio 1 in Theorem 1). Heuristic: ``Z_t`` bounds the maximum from below.

    Takes :class:`fullbandit.full.saqm.SAQM`'s parameters; ``width_bound`` has no effect (the width
    is always ``sqrt(Z_t)``).

    Examples
    --------
    >>> import fullbandit as fb
    >>> algorithm = SAQMRatioOne(fb.TopK(5, 2), epsilon=0.1, seed=0)
    >>> algorithm.guarantee, algorithm.label()
    ('heuristic', 'saqm[ratio one]')
    """

    @property
    def guarantee(self) -> str:
        return "heuristic" if super().guarantee == "certified" else super().guarantee

    def label(self) -> str:
        return "saqm[ratio one]"

    def _rule(self, estimate: LeastSquaresEstimate, radius: float):
        _, best, details = super()._rule(estimate, radius)
        width = math.sqrt(details["Z_t"])
        return 2.0 * radius * width - details["empirical_gap"], best, {**details, "U_t": width,
                                                                      "bound_used": "ratio one"}


#: Label -> class of the readings (their labels in ``kuroki-table2``).
READINGS = {"icb[super-arm union]": ICBSuperArmUnion, "saqm[ratio one]": SAQMRatioOne}


def reading(problem, seed, *, label: str, **options):
    """The reading ``label`` of :data:`READINGS` for ``problem`` (a grid's algorithm factory)."""
    return READINGS[label](problem, seed=seed, **options)
