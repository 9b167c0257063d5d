"""One runner for every benchmark and reproduction: seeded grids, three backends,
resumable tidy results, and the plots the papers use."""

from fullbandit.experiments.backends import WorkerLostError
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.grid import Cell, Factory, Grid
from fullbandit.experiments.runner import BACKENDS, run_cell, run_grid

__all__ = ["Cell", "Factory", "Grid", "Instance", "BACKENDS", "WorkerLostError", "run_cell", "run_grid"]
