"""The lowest layer: argument validation, atomic JSON files, BLAS threads and subset enumeration.

Nothing here knows about bandits; every other layer may use it.
"""
