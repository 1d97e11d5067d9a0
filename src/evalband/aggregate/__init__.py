"""Aggregates across tasks: weighted, normalized, rank-based and rliable's metrics.

Every aggregate is a function of a score matrix whose last two axes are (models, tasks) and returns (..., models),
so it applies to observed per-task statistics (M, T) and to bootstrap replicates (B, M, T) alike;
:func:`evaluate_aggregates` evaluates aggregates on one replicate set. Task weights follow the selection layer's
one rule (:mod:`evalband.selection`).
"""

from . import rliable
from ..selection.weights import parse_weights, resolve_weights, weights_and_notes
from .core import AGGREGATES, PARAMETER_SYNTAX, PARAMETERS, Aggregate, get_aggregate, parse_parameter
from .ranks import binned_task_ranks, task_ranks, task_win_rates
from .values import AggregateValues, aggregate_notes, aggregate_specs, evaluate_aggregates, linear_weights

__all__ = ["get_aggregate", "Aggregate", "AGGREGATES", "PARAMETERS", "PARAMETER_SYNTAX", "parse_parameter",
           "resolve_weights", "weights_and_notes", "parse_weights", "task_ranks", "binned_task_ranks",
           "task_win_rates", "rliable", "AggregateValues", "evaluate_aggregates", "aggregate_specs",
           "aggregate_notes", "linear_weights"]
