"""Linear algebra of a static design: exact incidence Grams, ``A^-1`` and its spectrum, least
squares and the confidence radius ``C_t``.
"""
