"""The version of this source tree (the installed distribution's metadata is the command's first choice)."""

__version__ = "0.1.0"  # as in pyproject.toml (tests/test_launch.py checks)
