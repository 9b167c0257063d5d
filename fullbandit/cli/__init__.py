"""The ``fullbandit`` command: ``solve``, ``plan``, ``session``, ``bench`` and ``dks``.

The top layer. :mod:`fullbandit.cli.launch` is the console script (a clean exit on Ctrl-C from
the first instruction), :mod:`fullbandit.cli.main` the argument parser, one module per sub-command.
Kept empty so that the console script starts before anything heavy is imported.
"""
