"""Points of the weight simplex: a line for two groups, a triangular lattice for three, Dirichlet draws beyond.

Pure NumPy, no statistics: each function returns a (P, G) array of non-negative weights summing to one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["line_grid", "simplex_lattice", "dirichlet_points", "barycentric_to_xy", "SIMPLEX_CORNERS"]

#: Cartesian corners of the unit equilateral triangle used to draw three-group weights: group 1 at the bottom
#: left, group 2 at the bottom right, group 3 at the top.
SIMPLEX_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3.0) / 2.0]])


def line_grid(resolution: int) -> np.ndarray:
    """``resolution + 1`` evenly spaced weights (1 - t, t), t from 0 to 1, shape (P, 2)."""
    t = np.linspace(0.0, 1.0, resolution + 1)
    return np.column_stack([1.0 - t, t])


def simplex_lattice(resolution: int) -> np.ndarray:
    """All weights (i, j, k) / resolution with i + j + k = resolution, shape ((r+1)(r+2)/2, 3).

    The lattice includes the three vertices and the edges; neighbouring points are ``1 / resolution`` apart in
    each weight. Points are ordered by the third weight, then the second.
    """
    r = resolution
    k, j = np.triu_indices(r + 1)          # 0 <= k <= j <= r  ->  use j' = j - k as the second weight
    j = j - k
    # reorder to (k ascending, j ascending) so rows of the triangle run bottom to top
    i = r - j - k
    order = np.lexsort((j, k))
    return np.column_stack([i[order], j[order], k[order]]).astype(np.float64) / r


def dirichlet_points(n_points: int, n_groups: int, rng: np.random.Generator) -> np.ndarray:
    """``n_points`` weights drawn uniformly over the simplex (Dirichlet(1, ..., 1)), shape (P, G)."""
    return rng.dirichlet(np.ones(n_groups), size=n_points)


def barycentric_to_xy(weights: np.ndarray) -> np.ndarray:
    """Map (P, 3) weights to (P, 2) points of the equilateral triangle :data:`SIMPLEX_CORNERS`."""
    return np.asarray(weights, dtype=np.float64) @ SIMPLEX_CORNERS
