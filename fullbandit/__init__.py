"""fullbandit: find the best team when each trial shows only the team's summed reward.

Reference implementation of Kuroki, Xu, Miyauchi, Honda, Sugiyama, "Polynomial-time
algorithms for multiple-arm identification with full-bandit feedback", Neural
Computation 32(9), 2020, with its baselines.

The names below are imported on first use (PEP 562), so ``import fullbandit`` is quick
and the ``fullbandit`` command can turn a Ctrl-C during start-up into a clean exit.
"""


# First of all, Ctrl-C is held while the package initialises: the ``fullbandit`` command imports this
# package before its own code can catch anything (fullbandit.cli.launch tells the whole story). Nothing here
# may come before this block; the names below are prefixed with ``_`` and stay private.
try:
    _held: list[int] = []  # the SIGINTs that arrived while held

    def _hold(signum, frame) -> None:
        _held.append(signum)

    import signal as _signal

    _previous = _signal.getsignal(_signal.SIGINT)
    if _previous is _signal.default_int_handler:  # not when SIGINT is ignored or handled by the program
        _signal.signal(_signal.SIGINT, _hold)
    else:
        _previous = None
except KeyboardInterrupt:  # before the hold was in place
    _held, _previous = [2], None
except ValueError:  # imported outside the main thread: signals are the main thread's business
    _previous = None

import importlib  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)

from fullbandit.util.version import __version__  # noqa: E402

# Where each public name lives, by layer (the folders are the layers: util < problems, environments < linalg
# < design, dks < core < full, semi < analysis, datasets < experiments, sessions < cli; tests/test_layers.py
# checks the order). Every registered algorithm is here, full-bandit and per-arm alike.
_EXPORTS = {
    "fullbandit.util.validation": ("InvalidParameterError",),
    "fullbandit.util.state": ("StateError",),
    "fullbandit.util.blas": ("set_blas_threads",),
    "fullbandit.problems.classes": ("DecisionClass", "TopK", "PartitionMatroid", "Thresholding"),
    "fullbandit.environments.models": ("Environment", "GaussianSum", "GaussianArms", "BernoulliTeam", "Replay",
                                       "Categorical", "SparseReplay"),
    "fullbandit.linalg.radius": ("confidence_radius",),
    "fullbandit.linalg.least_squares": ("SingularDesignError",),
    "fullbandit.core.algorithm": ("Algorithm", "Pull", "StoppingCheck", "ProtocolError", "WaitingForRewards"),
    "fullbandit.core.params": ("Interval", "Options", "Instance"),
    "fullbandit.core.result": ("StopReason", "Result"),
    "fullbandit.core.priors": ("PriorObservations",),
    "fullbandit.core.loop": ("run",),
    "fullbandit.core.registry": ("AlgorithmSpec", "register"),
    "fullbandit.core.conformance": ("check_algorithm",),
    "fullbandit.full": ("SAQM", "SAFOA", "ICB", "Exhaustive", "SwapBound", "PhasedSwap", "StaticFullBandit"),
    "fullbandit.semi": ("PerArmRounds", "PerArmConfidenceRounds", "SAR", "NSAR", "Uniform", "OptMAI", "AdaptiveTopK",
                        "AdaptiveTopKBudget", "LUCB", "CLUCB", "ATLUCB", "LSA", "APT", "UCBE", "OptKG",
                        "ThresholdUniform"),
    "fullbandit.analysis.sample_complexity": ("lower_bound", "LowerBound"),
    "fullbandit.analysis.planning": ("plan",),
    "fullbandit.datasets": ("load_dataset", "load_long", "load_vote_counts"),
    "fullbandit.datasets.instances": ("team_environment",),
}
_MODULES = {"registry": "fullbandit.core.registry", "datasets": "fullbandit.datasets",
            "experiments": "fullbandit.experiments", "sessions": "fullbandit.sessions"}
_HOMES = {name: home for home, names in _EXPORTS.items() for name in names}

__all__ = [
    "APT", "ATLUCB", "AdaptiveTopK", "AdaptiveTopKBudget", "Algorithm", "AlgorithmSpec", "BernoulliTeam", "CLUCB",
    "Categorical", "DecisionClass", "Environment", "Exhaustive", "GaussianArms", "GaussianSum", "ICB", "Instance",
    "Interval", "InvalidParameterError", "LSA", "LUCB", "LowerBound", "NSAR", "OptKG", "OptMAI", "Options",
    "PartitionMatroid", "PerArmConfidenceRounds", "PerArmRounds", "PhasedSwap", "PriorObservations", "ProtocolError",
    "Pull", "Replay",
    "Result", "SAFOA", "SAQM", "SAR", "SingularDesignError", "SparseReplay", "StateError", "StaticFullBandit",
    "StopReason", "StoppingCheck", "SwapBound", "ThresholdUniform", "Thresholding", "TopK", "UCBE", "Uniform",
    "WaitingForRewards", "__version__", "check_algorithm", "confidence_radius", "datasets", "experiments", "load",
    "load_dataset", "load_long", "load_vote_counts", "lower_bound", "plan", "register", "registry", "run", "sessions",
    "set_blas_threads", "team_environment",
]

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from fullbandit import datasets, experiments, sessions
    from fullbandit.analysis.planning import plan
    from fullbandit.analysis.sample_complexity import LowerBound, lower_bound
    from fullbandit.core import registry
    from fullbandit.core.algorithm import Algorithm, ProtocolError, Pull, StoppingCheck, WaitingForRewards
    from fullbandit.core.conformance import check_algorithm
    from fullbandit.core.loop import run
    from fullbandit.core.params import Instance, Interval, Options
    from fullbandit.core.priors import PriorObservations
    from fullbandit.core.registry import AlgorithmSpec, register
    from fullbandit.core.result import Result, StopReason
    from fullbandit.datasets import load_dataset, load_long, load_vote_counts
    from fullbandit.datasets.instances import team_environment
    from fullbandit.environments.models import (
        BernoulliTeam,
        Categorical,
        Environment,
        GaussianArms,
        GaussianSum,
        Replay,
        SparseReplay,
    )
    from fullbandit.full import ICB, SAFOA, SAQM, Exhaustive, PhasedSwap, StaticFullBandit, SwapBound
    from fullbandit.linalg.least_squares import SingularDesignError
    from fullbandit.linalg.radius import confidence_radius
    from fullbandit.problems.classes import DecisionClass, PartitionMatroid, Thresholding, TopK
    from fullbandit.semi import (
        APT,
        ATLUCB,
        CLUCB,
        LSA,
        LUCB,
        NSAR,
        SAR,
        UCBE,
        AdaptiveTopK,
        AdaptiveTopKBudget,
        OptKG,
        OptMAI,
        PerArmConfidenceRounds,
        PerArmRounds,
        ThresholdUniform,
        Uniform,
    )
    from fullbandit.util.blas import set_blas_threads
    from fullbandit.util.state import StateError
    from fullbandit.util.validation import InvalidParameterError

    load = Algorithm.load


def __getattr__(name: str):
    if name == "load":
        value = __getattr__("Algorithm").load
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module 'fullbandit' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _starting_the_command() -> bool:
    """Whether this import is the start of the ``fullbandit`` command, not of a program that uses the library.

    The command is started by a script whose top level imports ``fullbandit.cli.launch`` (the console
    script pip writes, ``python -c``) or by ``python -m fullbandit``; either way this package is
    imported on the way, and the frames above this one show it.
    """
    frame: types.FrameType | None = sys._getframe(2)  # 0: here, 1: this package's module code
    launcher = False
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(("importlib._bootstrap", "_frozen_importlib")):
            if frame.f_code.co_name == "_find_and_load":
                launcher = launcher or frame.f_locals.get("name") in ("fullbandit.cli.launch", "fullbandit.__main__")
            frame = frame.f_back
            continue
        if module == "runpy":  # python -m fullbandit
            return frame.f_locals.get("mod_name") == "fullbandit.__main__"
        return launcher and frame.f_code.co_name == "<module>" and module == "__main__"
    return False


# The hold ends: the command's start-up takes over (it ends the command at once on Ctrl-C, with its
# one line and status 130), or a Ctrl-C held for a program using the library reaches it now.
if _starting_the_command():
    from fullbandit.cli.launch import take_over

    take_over(_previous, _held)
elif _previous is not None:
    _signal.signal(_signal.SIGINT, _previous)
    if _held:
        _signal.raise_signal(_signal.SIGINT)
elif _held:
    raise KeyboardInterrupt
