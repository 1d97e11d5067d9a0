"""Tests that treat tasks as the sample (Demsar 2006; Benavoli et al. 2017; Agarwal et al. 2021).

Each model gets one score per task (:func:`score_matrix`); the tests then ask how models compare across tasks:

* :func:`friedman` (with Iman-Davenport, an exact permutation p-value for few tasks; Skillings-Mack for missing
  cells) and :func:`nemenyi` (critical
  difference, cliques);
* :func:`signed_rank_tests`: Wilcoxon signed-rank or sign tests against a control or all pairs, Holm-corrected;
* :func:`rm_anova`: repeated-measures ANOVA with Mauchly / Greenhouse-Geisser / Shapiro-Wilk checks and Tukey HSD;
* :func:`bayes_signed_rank`: Bayesian signed-rank test with a region of practical equivalence, and
  :func:`hierarchical_bayes` over per-task item-level differences (bayes extra: NumPyro);
* :func:`performance_profile`: rliable performance profiles with stratified-bootstrap bands;
* :func:`run_test`: one call for the command line.
"""

from ._matrix import ScoreMatrix, as_score_matrix, complete_cases, rank_matrix, score_matrix
from .anova import RMAnovaResult, greenhouse_geisser, mauchly, rm_anova
from .bayes_hierarchical import hierarchical_bayes, task_differences
from .bayes_signedrank import (BayesSignedRankResult, BayesSignedRankTests, bayes_signed_rank,
                               bayes_signed_rank_tests)
from .friedman import FriedmanResult, friedman
from .posthoc import NemenyiResult, cliques_from_significance, nemenyi
from .friedman_exact import PermutationPValue, friedman_permutation_p_value
from .profiles import PerformanceProfile, performance_profile, run_scores
from .run import TESTS, TaskTestResult, run_test
from .signedrank import SignedRankResult, signed_rank_tests

__all__ = [
    "ScoreMatrix", "as_score_matrix", "complete_cases", "rank_matrix", "score_matrix",
    "RMAnovaResult", "greenhouse_geisser", "mauchly", "rm_anova",
    "BayesSignedRankResult", "BayesSignedRankTests", "bayes_signed_rank", "bayes_signed_rank_tests",
    "hierarchical_bayes", "task_differences",
    "FriedmanResult", "NemenyiResult", "cliques_from_significance", "friedman", "nemenyi",
    "PermutationPValue", "friedman_permutation_p_value",
    "PerformanceProfile", "performance_profile", "run_scores",
    "TESTS", "TaskTestResult", "run_test",
    "SignedRankResult", "signed_rank_tests",
]
