"""Every evalband plot (matplotlib; install with ``pip install 'evalband[report]'``).

Each function takes the computed numbers (arrays, or a result such as ``WeightSensitivity``), an optional
``ax=None`` and returns the Axes it drew on; without ``ax`` it draws on a new figure sized for its labels. Models
are sorted (best first), colours are colour-blind-safe (Okabe-Ito, Tol, cividis, PuOr), and
:func:`save_figure` writes PNG or SVG with no timestamp, so the same numbers give the same bytes.

===========================  ===================================================================
forest_plot                  per-model aggregates with 95% and 83.4% intervals
headline_plot                the forest plot beside each model's difference from the leader
interval_comparison_plot     Bayesian vs bootstrap (or any) intervals side by side
task_heatmap                 per-task scores with interval half-widths
pairwise_matrix              pairwise differences, grey where undecided
rank_distribution_plot       probability of each rank, with rank intervals
pass_at_k_plot               pass@k curves with bands
weight_sensitivity_plot      simplex map / weight line / shares (evalband.weights)
===========================  ===================================================================
"""

from __future__ import annotations

from .style import OKABE_ITO, categorical_colors, figure_bytes, save_figure
from .intervals import forest_plot, headline_plot, interval_comparison_plot, narrow_intervals
from .matrices import pairwise_matrix, task_heatmap
from .ranks import pass_at_k_plot, rank_distribution_plot
from .weights import simplex_map, weight_line_plot, weight_sensitivity_plot, weight_shares_plot

__all__ = [
    "forest_plot",
    "headline_plot",
    "narrow_intervals",
    "interval_comparison_plot",
    "task_heatmap",
    "pairwise_matrix",
    "rank_distribution_plot",
    "pass_at_k_plot",
    "weight_sensitivity_plot",
    "simplex_map",
    "weight_line_plot",
    "weight_shares_plot",
    "save_figure",
    "figure_bytes",
    "categorical_colors",
    "OKABE_ITO",
]
