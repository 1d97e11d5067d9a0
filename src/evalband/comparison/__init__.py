"""Pairwise comparisons: differences of any aggregate and per task, tests, multiplicity control, verdicts.

Main entry point: :func:`compare`. The array-level tools it is built from are public too:
:func:`pairwise_differences` (bootstrap intervals and p-values of all pairs from one replicate set),
:func:`paired_difference` (analytic paired standard error and between-model correlation), :func:`mcnemar_exact`,
:func:`paired_permutation_test`, :func:`adjust_pvalues` (Bonferroni, Holm, Benjamini-Hochberg),
:func:`max_t_intervals` (simultaneous bootstrap intervals), :func:`verdict` and :func:`correlated_replicates`
(assumed between-model correlation for summary data).
"""

from .comparison import Comparison, compare
from .pairwise import PairwiseComparison, pairwise_differences
from .exact import McNemarResult, mcnemar_exact
from .multiplicity import CORRECTIONS, SimultaneousIntervals, adjust_pvalues, max_t_intervals
from .paired import PairedDifference, paired_difference
from .permutation import PermutationResult, paired_permutation_test
from .pvalues import bootstrap_pvalue
from .sensitivity import DEFAULT_CORRELATIONS, correlated_replicates, difference_variance
from .verdict import VERDICTS, verdict

__all__ = [
    "CORRECTIONS", "Comparison", "DEFAULT_CORRELATIONS", "McNemarResult", "PairedDifference",
    "PairwiseComparison", "PermutationResult", "SimultaneousIntervals", "VERDICTS", "adjust_pvalues",
    "bootstrap_pvalue", "compare", "correlated_replicates", "difference_variance", "mcnemar_exact",
    "max_t_intervals", "paired_difference", "paired_permutation_test", "pairwise_differences", "verdict",
]
