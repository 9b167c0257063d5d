"""Frozen reference implementations: the exactness oracles of the tests (and the "before" of the benchmarks).

Each module is an earlier, slow, plainly written version of code the package has since
optimised, kept so that tests can check the package still returns exactly what it returned:

* :mod:`reference.checks`: the stopping checks and builds of the static full-bandit algorithms
  and of PhasedSwap before issue 13 (``tests/test_check_exactness.py``);
* :mod:`reference.dks`: the densest-k-subgraph conversion, peeling and Feige-Peleg-Kortsarz
  procedures before issue 13 (``tests/test_dks_speed_paths.py``).

They live with the tests and use only the public API of :mod:`fullbandit` (no ``_``-prefixed
name, no private attribute of an algorithm), so that an oracle cannot silently follow the
internals it is the reference for. The tests import them as ``reference.<module>`` (pytest puts
``tests/`` on ``sys.path``, as it does for every helper module there); the benchmarks add
``tests/`` to their path to time them.
"""
