"""Names of a package imported on first use (PEP 562), so that using one imports only its module.

A ``fullbandit session`` command replays one algorithm: with lazy names, it imports that
algorithm's module and not every other with its dependencies (networkx, scipy).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(namespace: dict[str, Any], exports: Mapping[str, tuple[str, ...]],
               collections: Mapping[str, tuple[str, ...]] | None = None
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package whose globals are ``namespace``.

    ``exports`` maps a module to the names it defines (each imported from there when first
    asked for); ``collections`` maps a name to the exported names it gathers, as a tuple (a
    package's ``ALGORITHMS``). A name once looked up is kept in ``namespace``, so later
    look-ups do not come back here.

    Examples
    --------
    >>> space = {"__name__": "demo", "__all__": ["sqrt", "BOTH"]}
    >>> getattr_, dir_ = lazy_names(space, {"math": ("sqrt", "pi")}, {"BOTH": ("sqrt", "pi")})
    >>> getattr_("sqrt")(4.0), getattr_("BOTH")[1] > 3, "sqrt" in space
    (2.0, True, True)
    >>> getattr_("cos")
    Traceback (most recent call last):
    ...
    AttributeError: module 'demo' has no attribute 'cos'
    """
    homes = {name: module for module, names in exports.items() for name in names}
    gathered = dict(collections or {})

    def __getattr__(name: str) -> Any:
        if name in gathered:
            value: Any = tuple(__getattr__(member) for member in gathered[name])
        elif name in homes:
            value = getattr(importlib.import_module(homes[name]), name)
        else:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
