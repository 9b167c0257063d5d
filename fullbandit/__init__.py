"""fullbandit: find the best team when each trial shows only the team's summed reward.

Reference implementation of Kuroki, Xu, Miyauchi, Honda, Sugiyama, "Polynomial-time
algorithms for multiple-arm identification with full-bandit feedback", Neural
Computation 32(9), 2020, with its baselines.

The names below are imported on first use (PEP 562), so ``import fullbandit`` is quick
and the ``fullbandit`` command can turn a Ctrl-C during start-up into a clean exit.
"""


# First of all, Ctrl-C is held while the package initialises: the ``fullbandit`` command imports this
# package before its own code can catch anything (fullbandit._launch tells the whole story). Nothing here
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
__version__ = "0.1.0"  # as in pyproject.toml (tests/test_launch.py checks); the command prefers the installed metadata

_HOMES = {
    "run": "fullbandit.driver",
    "registry": None,  # a sub-module
    "lower_bound": "fullbandit.lower_bound", "LowerBound": "fullbandit.lower_bound",
    "Algorithm": "fullbandit.base", "Pull": "fullbandit.base", "StoppingCheck": "fullbandit.base",
    "ProtocolError": "fullbandit.base",
    "StopReason": "fullbandit.result", "Result": "fullbandit.result",
    "SAQM": "fullbandit.full", "SAFOA": "fullbandit.full", "ICB": "fullbandit.full", "Exhaustive": "fullbandit.full",
    "SwapBound": "fullbandit.full", "PhasedSwap": "fullbandit.full",
    "TopK": "fullbandit.problem", "PartitionMatroid": "fullbandit.problem", "Thresholding": "fullbandit.problem",
    "DecisionClass": "fullbandit.problem",
    "Environment": "fullbandit.environments", "GaussianSum": "fullbandit.environments",
    "GaussianArms": "fullbandit.environments", "BernoulliTeam": "fullbandit.environments",
    "Replay": "fullbandit.environments", "Categorical": "fullbandit.environments",
    "SparseReplay": "fullbandit.environments",
    "confidence_radius": "fullbandit.estimation", "SingularDesignError": "fullbandit.estimation",
    "InvalidParameterError": "fullbandit._validation",
    "StateError": "fullbandit.state",
}

__all__ = [
    "run", "load", "registry", "lower_bound", "LowerBound", "Algorithm", "Pull", "StoppingCheck", "StopReason",
    "SAQM", "SAFOA", "ICB", "Exhaustive", "SwapBound", "PhasedSwap", "TopK", "PartitionMatroid", "Thresholding",
    "DecisionClass",
    "Result", "Environment", "GaussianSum", "GaussianArms", "BernoulliTeam", "Replay", "Categorical", "SparseReplay",
    "confidence_radius",
    "InvalidParameterError", "SingularDesignError", "ProtocolError", "StateError", "__version__",
]

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from fullbandit import registry
    from fullbandit._validation import InvalidParameterError
    from fullbandit.base import Algorithm, ProtocolError, Pull, StoppingCheck
    from fullbandit.driver import run
    from fullbandit.environments import (
        BernoulliTeam,
        Categorical,
        Environment,
        GaussianArms,
        GaussianSum,
        Replay,
        SparseReplay,
    )
    from fullbandit.estimation import SingularDesignError, confidence_radius
    from fullbandit.full import ICB, SAFOA, SAQM, Exhaustive, PhasedSwap, SwapBound
    from fullbandit.lower_bound import LowerBound, lower_bound
    from fullbandit.problem import DecisionClass, PartitionMatroid, Thresholding, TopK
    from fullbandit.result import Result, StopReason
    from fullbandit.state import StateError

    load = Algorithm.load


def __getattr__(name: str):
    if name == "load":
        value = __getattr__("Algorithm").load
    elif name in _HOMES:
        home = _HOMES[name]
        value = importlib.import_module(f"fullbandit.{name}") if home is None else getattr(
            importlib.import_module(home), name)
    else:
        raise AttributeError(f"module 'fullbandit' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_SHADOWED = {"lower_bound"}  # public functions named like the sub-module that defines them


class _Package(types.ModuleType):
    """This package's module type: importing a sub-module does not hide the public function of its name.

    Python binds ``fullbandit.lower_bound`` to the sub-module whenever the sub-module is
    first imported; with the names loaded lazily that would replace the function
    ``fullbandit.lower_bound`` for good. The binding is skipped; ``__getattr__`` then
    gives the function.
    """

    def __setattr__(self, name: str, value) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _starting_the_command() -> bool:
    """Whether this import is the start of the ``fullbandit`` command, not of a program that uses the library.

    The command is started by a script whose top level imports ``fullbandit._launch`` (the console
    script pip writes, ``python -c``) or by ``python -m fullbandit``; either way this package is
    imported on the way, and the frames above this one show it.
    """
    frame: types.FrameType | None = sys._getframe(2)  # 0: here, 1: this package's module code
    launcher = False
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(("importlib._bootstrap", "_frozen_importlib")):
            if frame.f_code.co_name == "_find_and_load":
                launcher = launcher or frame.f_locals.get("name") in ("fullbandit._launch", "fullbandit.__main__")
            frame = frame.f_back
            continue
        if module == "runpy":  # python -m fullbandit
            return frame.f_locals.get("mod_name") == "fullbandit.__main__"
        return launcher and frame.f_code.co_name == "<module>" and module == "__main__"
    return False


# The hold ends: the command's start-up takes over (it ends the command at once on Ctrl-C, with its
# one line and status 130), or a Ctrl-C held for a program using the library reaches it now.
if _starting_the_command():
    from fullbandit._launch import take_over

    take_over(_previous, _held)
elif _previous is not None:
    _signal.signal(_signal.SIGINT, _previous)
    if _held:
        _signal.raise_signal(_signal.SIGINT)
elif _held:
    raise KeyboardInterrupt
