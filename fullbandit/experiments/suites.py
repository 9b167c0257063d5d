"""The named benchmark suites of ``fullbandit bench``: each builds a grid and draws its figure.

Every reproduction module declares its own suites (its ``SUITES``, made with
:class:`~fullbandit.experiments.suite.Suite`); this catalogue imports those modules and
gathers their suites by name, so the dependency runs one way. Factories are module-level
functions so that cells can travel to other processes.
"""

from __future__ import annotations

from fullbandit.experiments import (
    chen,
    chen_budget,
    dks_suite,
    efficiency,
    feedback_cost,
    kuroki_approximation,
    kuroki_samples,
    saqm_support,
    shahrampour,
    tao,
    zhou,
)

# What the examples build their own grids and suites from, importable from the catalogue too.
from fullbandit.experiments.planted_gap import planted_gap_instance
from fullbandit.experiments.saqm_support import saqm_factory
from fullbandit.experiments.suite import Suite, summarize_identification
from fullbandit.util.validation import check_choice

__all__ = ["SUITES", "Suite", "get_suite", "planted_gap_instance", "saqm_factory", "summarize_identification"]

#: Every suite by name, in the order ``fullbandit bench --list`` shows them.
SUITES: dict[str, Suite] = {
    suite.name: suite
    for module in (saqm_support, dks_suite, kuroki_samples, kuroki_approximation, efficiency, zhou, chen,
                   chen_budget,
                   feedback_cost, tao, shahrampour)
    for suite in module.SUITES}


def get_suite(name: str) -> Suite:
    """The suite called ``name`` (see :data:`SUITES`).

    >>> get_suite("kuroki-table2").default_runs
    3
    """
    return SUITES[check_choice("suite", name, tuple(SUITES))]
