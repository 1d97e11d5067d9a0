"""Aggregates across tasks: weighted, normalized, rank-based and rliable's metrics.

Every aggregate is a function of a score matrix whose last two axes are (models, tasks) and returns (..., models),
so it applies to observed per-task statistics (M, T) and to bootstrap replicates (B, M, T) alike.
"""

from . import rliable
from ._weights import parse_weights, resolve_weights, weights_and_notes
from .core import AGGREGATES, Aggregate, get_aggregate
from .ranks import binned_task_ranks, task_ranks, task_win_rates

__all__ = ["get_aggregate", "Aggregate", "AGGREGATES", "resolve_weights", "weights_and_notes", "parse_weights", "task_ranks", "binned_task_ranks",
           "task_win_rates", "rliable"]
