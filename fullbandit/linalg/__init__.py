"""Linear algebra of a static design: exact incidence Grams, ``A^-1`` and its spectrum, the
design's counts and sums, least squares and the confidence radius ``C_t``.
"""
