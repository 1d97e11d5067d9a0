"""evalband: honest error bars for machine-learning evaluation results.

The public API is curated here; modules with a leading underscore are private. The flow is one-way:
readers (:func:`read`, :func:`load_example`) -> :class:`ResultsTable` -> estimators (:func:`estimate`,
:func:`bootstrap`) -> comparisons and rankings (:func:`compare`, :func:`rank`, tests over tasks) -> report.
Heavier parts are imported on first use, so ``import evalband`` stays quick.
"""

from __future__ import annotations

import importlib

from ._validate import InputError
from .examples import load_example
from .io import read
from .results import ConfidenceInterval
from .table import Counts, ResultsTable, TaskData

# These functions share their names with their subpackages: bind them now, or the first import of the
# subpackage would leave the module, not the function, at ``evalband.<name>``.
from .compare import compare  # noqa: E402
from .estimate import estimate  # noqa: E402
from .rank import rank  # noqa: E402

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first access)
_LAZY = {
    # per-task estimators
    "TaskEstimates": "evalband.estimate",
    "proportion_interval": "evalband.estimate", "mean_interval": "evalband.estimate",
    "cluster_interval": "evalband.estimate", "trial_interval": "evalband.estimate",
    "trial_variance": "evalband.estimate", "TrialVariance": "evalband.estimate",
    "pass_at_k": "evalband.estimate", "pass_hat_k": "evalband.estimate", "passk": "evalband.estimate",
    "PassKResult": "evalband.estimate",
    # bootstrap engine and aggregates
    "bootstrap": "evalband.resample", "bootstrap_items": "evalband.resample", "Replicates": "evalband.resample",
    "interval": "evalband.resample", "get_aggregate": "evalband.aggregate",
    # comparisons and rankings
    "Comparison": "evalband.compare", "adjust_pvalues": "evalband.compare",
    "paired_difference": "evalband.compare", "mcnemar_exact": "evalband.compare",
    "paired_permutation_test": "evalband.compare", "Ranking": "evalband.rank",
    # tests over tasks
    "run_test": "evalband.tasks", "friedman": "evalband.tasks", "nemenyi": "evalband.tasks",
    "signed_rank_tests": "evalband.tasks", "rm_anova": "evalband.tasks", "bayes_signed_rank": "evalband.tasks",
    "performance_profile": "evalband.tasks",
    # Bayesian models
    "beta_binomial": "evalband.bayes", "BayesResult": "evalband.bayes", "logistic": "evalband.bayes",
    "prior_sensitivity": "evalband.bayes", "compare_with_bootstrap": "evalband.bayes",
    # task weights
    "weight_sensitivity": "evalband.weights", "WeightSensitivity": "evalband.weights",
    # planning
    "plan_comparison": "evalband.plan", "plan_from_pilot": "evalband.plan", "solve_power": "evalband.plan",
    "design_effect": "evalband.plan", "recommend_trials": "evalband.plan",
    "SequentialComparison": "evalband.plan", "betting_confidence_sequence": "evalband.plan",
    "release_gate": "evalband.plan",
}

__all__ = ["ConfidenceInterval", "Counts", "InputError", "ResultsTable", "TaskData", "load_example", "read",
           "compare", "estimate", "rank",
           "__version__", *_LAZY]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'evalband' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
