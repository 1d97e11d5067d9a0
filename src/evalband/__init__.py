"""evalband: honest error bars for machine-learning evaluation results.

The public API is curated here; modules with a leading underscore are private. The flow is one-way:
readers (:func:`read`, :func:`load_example`) -> :class:`ResultsTable` -> estimators (:func:`estimate`,
:func:`bootstrap`) -> comparisons and rankings (:func:`compare`, :func:`rank`, tests over tasks) -> report.
Heavier parts are imported on first use, so ``import evalband`` stays quick.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first access)
_LAZY = {
    # reading and the results table
    "InputError": "evalband._validate", "ConfidenceInterval": "evalband.estimation.confidence",
    # the user errors (what the command line prints as one line): every one is public
    "ArgumentError": "evalband._validate", "ArgumentTypeError": "evalband._validate",
    "MissingExtraError": "evalband._validate",
    "Counts": "evalband.data.table", "ResultsTable": "evalband.data.table", "TaskData": "evalband.data.table",
    "read": "evalband.io", "load_example": "evalband.io",
    # the selection layer
    "select": "evalband.selection", "Selection": "evalband.selection",
    # compute once, render many
    "analyze": "evalband.analysis", "Analysis": "evalband.analysis",
    # per-task estimators
    "estimate": "evalband.estimation",
    "TaskEstimates": "evalband.estimation",
    "proportion_interval": "evalband.estimation", "mean_interval": "evalband.estimation",
    "cluster_interval": "evalband.estimation", "trial_interval": "evalband.estimation",
    "trial_variance": "evalband.estimation", "TrialVariance": "evalband.estimation",
    "pass_at_k": "evalband.estimation", "pass_hat_k": "evalband.estimation", "passk": "evalband.estimation",
    "PassKResult": "evalband.estimation",
    # bootstrap engine and aggregates
    "bootstrap": "evalband.resample", "bootstrap_items": "evalband.resample", "Replicates": "evalband.resample",
    "interval": "evalband.resample", "get_aggregate": "evalband.aggregate",
    # comparisons and rankings
    "compare": "evalband.comparison", "rank": "evalband.ranking",
    "Comparison": "evalband.comparison", "adjust_p_values": "evalband.comparison",
    "paired_difference": "evalband.comparison", "mcnemar_exact": "evalband.comparison",
    "paired_permutation_test": "evalband.comparison", "Ranking": "evalband.ranking",
    # tests over tasks
    "run_test": "evalband.tasks", "friedman": "evalband.tasks", "nemenyi": "evalband.tasks",
    "signed_rank_tests": "evalband.tasks", "rm_anova": "evalband.tasks", "bayes_signed_rank": "evalband.tasks",
    "performance_profile": "evalband.tasks",
    # Bayesian models
    "beta_binomial": "evalband.bayes", "BayesResult": "evalband.bayes", "logistic": "evalband.bayes",
    "prior_sensitivity": "evalband.bayes", "compare_with_bootstrap": "evalband.bayes",
    # preference leaderboards (pairwise battles)
    "arena": "evalband.preferences", "ArenaResult": "evalband.preferences", "BattleTable": "evalband.preferences",
    "read_battles": "evalband.io.battles",
    # cost, latency and the quality-cost frontier
    "frontier": "evalband.costs", "FrontierResult": "evalband.costs", "CostTable": "evalband.data.costs",
    # latent abilities (sparse leaderboards) and item diagnostics
    "ability": "evalband.latent", "items": "evalband.latent", "AbilityResult": "evalband.latent",
    "ItemsResult": "evalband.latent",
    # evaluation on a subset of a benchmark's items (evalband.subset.choose / estimate)
    "Subset": "evalband.subset", "SubsetChoice": "evalband.subset", "SubsetEstimate": "evalband.subset",
    "SubsetDecision": "evalband.subset",
    # task weights
    "weight_sensitivity": "evalband.weights", "WeightSensitivity": "evalband.weights",
    # planning
    "plan_comparison": "evalband.plan", "plan_from_pilot": "evalband.plan", "solve_power": "evalband.plan",
    "design_effect": "evalband.plan", "recommend_trials": "evalband.plan",
    "SequentialComparison": "evalband.plan", "betting_confidence_sequence": "evalband.plan",
    "release_gate": "evalband.plan",
}

__all__ = ["__version__", *_LAZY]


#: subpackages and modules reachable as attributes (``evalband.bayes.beta_binomial``), imported on first access
_SUBMODULES = frozenset({
    "aggregate", "analysis", "bayes", "comparison", "costs", "display", "estimation", "facets", "io", "judges",
    "latent", "plan", "preferences", "ranking", "report", "resample", "selection", "tasks", "weights", "cli", "data",
    "subset",
})


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        if name in _SUBMODULES:
            return importlib.import_module(f"evalband.{name}")
        raise AttributeError(f"module 'evalband' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)


from ._moved import install as _install_moved  # noqa: E402  (old module paths, one release)

_install_moved()
