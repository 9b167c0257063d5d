"""Deprecated location: use :mod:`fullbandit.enumeration` (kept until the DkS package switches)."""

from fullbandit.enumeration import ENUMERATION_LIMIT, indicator_rows, subset_chunks

__all__ = ["ENUMERATION_LIMIT", "indicator_rows", "subset_chunks"]
