"""Task-weight sensitivity: which model is significantly best under each weighting of the task groups.

``weight_sensitivity(table_or_replicates)`` evaluates a line (two groups), a triangular grid over the simplex
(three groups) or Dirichlet-sampled weights (more groups); plots live in ``evalband.report.plots``.
"""

from ._grid import SIMPLEX_CORNERS, barycentric_to_xy, dirichlet_points, line_grid, simplex_lattice
from .sensitivity import Z_PRESETS, WeightSensitivity, best_model_map, group_covariance, weight_sensitivity

__all__ = [
    "weight_sensitivity",
    "WeightSensitivity",
    "best_model_map",
    "group_covariance",
    "Z_PRESETS",
    "line_grid",
    "simplex_lattice",
    "dirichlet_points",
    "barycentric_to_xy",
    "SIMPLEX_CORNERS",
]
