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
    """``resolution + 1`` evenly spaced weights (1 - t, t), t from 0 to 1, shape (P, 2).

    Examples
    --------
    >>> from evalband.weights import line_grid
    >>> line_grid(4)
    array([[1.  , 0.  ],
           [0.75, 0.25],
           [0.5 , 0.5 ],
           [0.25, 0.75],
           [0.  , 1.  ]])
    """
    t = np.linspace(0.0, 1.0, resolution + 1)
    return np.column_stack([1.0 - t, t])


def simplex_lattice(resolution: int) -> np.ndarray:
    """All weights (i, j, k) / resolution with i + j + k = resolution, shape ((r+1)(r+2)/2, 3).

    The lattice includes the three vertices and the edges; neighbouring points are ``1 / resolution`` apart in
    each weight. Points are ordered by the third weight, then the second.

    Examples
    --------
    >>> from evalband.weights import simplex_lattice
    >>> simplex_lattice(2)
    array([[1. , 0. , 0. ],
           [0.5, 0.5, 0. ],
           [0. , 1. , 0. ],
           [0.5, 0. , 0.5],
           [0. , 0.5, 0.5],
           [0. , 0. , 1. ]])
    """
    r = resolution
    k, j = np.triu_indices(r + 1)          # 0 <= k <= j <= r  ->  use j' = j - k as the second weight
    j = j - k
    # reorder to (k ascending, j ascending) so rows of the triangle run bottom to top
    i = r - j - k
    order = np.lexsort((j, k))
    return np.column_stack([i[order], j[order], k[order]]).astype(np.float64) / r


def dirichlet_points(n_points: int, n_groups: int, rng: np.random.Generator) -> np.ndarray:
    """``n_points`` weights drawn uniformly over the simplex (Dirichlet(1, ..., 1)), shape (P, G).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.weights import dirichlet_points
    >>> points = dirichlet_points(3, 3, np.random.default_rng(0))
    >>> np.round(points, 3)
    array([[0.395, 0.593, 0.012],
           [0.001, 0.252, 0.747],
           [0.159, 0.178, 0.663]])
    >>> points.sum(axis=1)
    array([1., 1., 1.])
    """
    return rng.dirichlet(np.ones(n_groups), size=n_points)


def barycentric_to_xy(weights: np.ndarray) -> np.ndarray:
    """Map (P, 3) weights to (P, 2) points of the equilateral triangle :data:`SIMPLEX_CORNERS`.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.weights import barycentric_to_xy
    >>> np.round(barycentric_to_xy([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1 / 3, 1 / 3, 1 / 3]]), 3)
    array([[0.   , 0.   ],
           [1.   , 0.   ],
           [0.5  , 0.866],
           [0.5  , 0.289]])
    """
    return np.asarray(weights, dtype=np.float64) @ SIMPLEX_CORNERS
