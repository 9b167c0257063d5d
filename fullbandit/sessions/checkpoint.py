"""Checkpoints of a live session: the algorithm's working state after journal event ``seq``, so an
open replays only the events after it.

A checkpoint is a cache, never the truth: it is used only when it was written by this very
code (:func:`code_fingerprint`: fullbandit's source, Python's and numpy's versions) and its
digest binds it to the journal event it follows and to the meta row; otherwise it is ignored
and the journal is replayed from its start. ``Session.open(path, verify="full")`` replays the
whole journal and refuses a store whose checkpoint disagrees with that replay.

The state is a pickle, read back by :class:`_AlgorithmUnpickler`, which builds nothing but the
types an algorithm's state is made of (fullbandit's own classes from the packages that hold
algorithms, numpy arrays, dtypes, ufuncs and random generators, and a few containers of the
standard library): a store from elsewhere cannot name a function to call. Algorithms of other
packages (registered through entry points) are not checkpointed: their code is not in the
fingerprint, and they replay their journal as before.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import io
import pickle
import sys
from pathlib import Path

import numpy as np

from fullbandit.core.algorithm import Algorithm

#: The packages of fullbandit whose classes a checkpointed algorithm is made of.
ALGORITHM_PACKAGES = ("core", "full", "semi", "design", "linalg", "problems", "dks", "util")
# The functions numpy's and the standard library's pickles call to rebuild their objects
# (module, name); both spellings of numpy's core package (numpy 1: numpy.core, numpy 2: numpy._core).
_REBUILDERS = {
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy.random._pickle", "__generator_ctor"), ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__randomstate_ctor"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("array", "_array_reconstructor"),
}
_STANDARD_TYPES = {
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"), ("builtins", "slice"),
    ("builtins", "range"), ("builtins", "bytearray"), ("collections", "deque"), ("collections", "OrderedDict"),
    ("collections", "defaultdict"), ("collections", "Counter"), ("array", "array"), ("functools", "partial"),
}


@functools.cache
def code_fingerprint() -> str:
    """The code a checkpoint must have been written by: a digest of fullbandit's source, Python's and numpy's versions.

    A pickle holds an object's attributes, not its code: read by other code (another
    fullbandit, even an edited working copy) the same attributes may mean something else.
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"python {sys.version_info[:2]} numpy {np.__version__}".encode())
    for source in sorted(root.rglob("*.py")):
        digest.update(source.relative_to(root).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def can_checkpoint(algorithm: Algorithm) -> bool:
    """Whether ``algorithm``'s class is fullbandit's own (covered by :func:`code_fingerprint`)."""
    return _is_algorithm_module(type(algorithm).__module__)


def dumps(algorithm: Algorithm) -> bytes | None:
    """The pickled state of ``algorithm``, or ``None`` when it holds something that cannot be pickled."""
    try:
        return pickle.dumps(algorithm, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


def loads(blob: bytes) -> Algorithm:
    """The algorithm pickled in ``blob``, built by :class:`_AlgorithmUnpickler` only.

    Raises
    ------
    pickle.UnpicklingError
        If the pickle names anything but the types an algorithm's state is made of, is
        damaged, or is not an :class:`~fullbandit.core.algorithm.Algorithm`.
    """
    try:
        algorithm = _AlgorithmUnpickler(io.BytesIO(blob)).load()
    except pickle.UnpicklingError:
        raise
    except Exception as error:  # a damaged pickle fails in many ways: all are "not a checkpoint"
        raise pickle.UnpicklingError(f"damaged checkpoint: {type(error).__name__}: {error}") from None
    if not isinstance(algorithm, Algorithm):
        raise pickle.UnpicklingError(f"a checkpoint holds an algorithm, not {type(algorithm).__name__}")
    return algorithm


class _AlgorithmUnpickler(pickle.Unpickler):
    """Builds only fullbandit's classes (of :data:`ALGORITHM_PACKAGES`), numpy's arrays, dtypes, scalars, ufuncs
    and generators, and a few standard containers; refuses any other global (a function a forged pickle could
    call, or a class whose construction touches files, such as ``numpy.memmap``)."""

    def find_class(self, module: str, name: str):
        if (module, name) in _REBUILDERS or (module, name) in _STANDARD_TYPES:
            return super().find_class(module, name)
        if "." not in name and (_is_algorithm_module(module) or module in ("numpy", "numpy.random")
                                or module.startswith("numpy.random.")):
            found = getattr(importlib.import_module(module), name, None)
            if module != "numpy" and isinstance(found, type) or found in (np.dtype, np.ndarray) \
                    or isinstance(found, np.ufunc) or isinstance(found, type) and issubclass(found, np.generic):
                return found
        raise pickle.UnpicklingError(f"a checkpoint may not name {module}.{name}")


def _is_algorithm_module(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 2 and parts[0] == "fullbandit" and parts[1] in ALGORITHM_PACKAGES
