"""Per-(model, task) estimates: proportions, means, cluster-robust means, repeated trials, pass@k and pass^k.

Array cores (vectorized over models) and one table-level entry, :func:`estimate`.
"""

from __future__ import annotations

from .cluster import cluster_interval
from .mean import MEAN_METHODS, mean_interval
from .passk import PassKResult, pass_at_k, pass_hat_k, passk, passk_interval
from .proportion import PROPORTION_METHODS, proportion_interval
from .result import POOLED, Estimate, TaskEstimates
from .tasks import METHODS, estimate, weighted_mean
from .trials import TrialVariance, trial_interval, trial_variance

__all__ = [
    "weighted_mean",
    "Estimate", "TaskEstimates", "POOLED", "METHODS", "MEAN_METHODS", "PROPORTION_METHODS",
    "estimate", "proportion_interval", "mean_interval", "cluster_interval", "trial_interval", "trial_variance",
    "TrialVariance", "pass_at_k", "pass_hat_k", "passk_interval", "passk", "PassKResult",
]
