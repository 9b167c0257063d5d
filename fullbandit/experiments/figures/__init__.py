"""The suites' own figures: presentation only.

A suite module declares its grid, its metrics and its summary; the figure that draws its
rows lives here, so that redrawing in a new style (colours, legends, formats) leaves the
suite's committed results current (:data:`fullbandit.experiments.code_record.PRESENTATION`).
A suite module imports its figure functions; a figure module reads what it needs of its
suite module (its summary, its algorithm order) inside its functions, so neither import
waits for the other.
"""
