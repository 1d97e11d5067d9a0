"""Pairwise comparisons: differences of any aggregate and per task, tests, multiplicity control, verdicts.

Main entry point: :func:`compare`. The array-level tools it is built from are public too:
:func:`pairwise_differences` (bootstrap intervals and p-values of all pairs from one replicate set),
:func:`paired_difference` (analytic paired standard error and between-model correlation), :func:`mcnemar_exact`,
:func:`paired_permutation_test`, :func:`adjust_p_values` (Bonferroni, Holm, Benjamini-Hochberg),
:func:`max_t_intervals` (simultaneous bootstrap intervals), :func:`verdict` and :func:`correlated_replicates`
(assumed between-model correlation for summary data).
"""

from .comparison import Comparison, compare
from .pairwise import PairwiseComparison, pairwise_differences
from .exact import McNemarResult, mcnemar_exact
from .multiplicity import CORRECTIONS, SimultaneousIntervals, adjust_p_values, max_t_intervals
from .paired import PairedDifference, paired_difference
from .permutation import PermutationResult, paired_permutation_test
from .p_values import bootstrap_p_value
from .sensitivity import DEFAULT_CORRELATIONS, correlated_replicates, difference_variance
from .verdict import VERDICTS, verdict

__all__ = [
    "CORRECTIONS", "Comparison", "DEFAULT_CORRELATIONS", "McNemarResult", "PairedDifference",
    "PairwiseComparison", "PermutationResult", "SimultaneousIntervals", "VERDICTS", "adjust_p_values",
    "bootstrap_p_value", "compare", "correlated_replicates", "difference_variance", "mcnemar_exact",
    "max_t_intervals", "paired_difference", "paired_permutation_test", "pairwise_differences", "verdict",
]
