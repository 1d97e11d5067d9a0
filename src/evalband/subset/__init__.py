"""Evaluate a new model on a random subset of a benchmark's items and estimate its full-benchmark score with a
valid interval (issue 25).

:func:`choose` draws the items (simple random, or stratified by task and reference difficulty with Neyman
allocation), each with its inclusion probability. :func:`estimate` gives the design-based estimate of the new
model's mean over every item (stratified / simple random with the finite-population correction) and the
prediction-assisted one (a regression estimator on the new model's predicted score on every item, made from the
reference models and corrected on the random sample), with the effective sample size the prediction bought, and
the paired difference from a reference model with compare's verdict words. :class:`Subset` runs the evaluation
in a seeded random order and says after each batch whether to stop (target SE reached, or the difference decided
by an anytime-valid confidence sequence).
"""

from .choose import METHODS, SubsetChoice, choose
from .estimate import SubsetEstimate, estimate
from .sequential import Subset, SubsetDecision

__all__ = ["METHODS", "Subset", "SubsetChoice", "SubsetDecision", "SubsetEstimate", "choose", "estimate"]
