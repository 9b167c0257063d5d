"""Experimental design: supports spanning ``R^n`` and their conditioning, proportions over them
(uniform, G- and XY-optimal), rounding and the tracking rule that turns proportions into pulls.
"""
