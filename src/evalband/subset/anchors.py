"""Anchor points (tinyBenchmarks): items that represent clusters of the reference models' response patterns, and
the point estimates made from them, which come with **no valid interval**.

tinyBenchmarks (Polo et al. 2024) clusters the items by the vector of the reference models' scores on each item
(k-means), evaluates a new model on the item nearest each cluster's centre (the anchor) and estimates the full
score as the anchors' scores weighted by their clusters' sizes ('anchor points'), or through an IRT model fitted
on the reference models, the new model's ability fitted on the anchors ('anchor IRT', their p-IRT). The anchors
are not drawn at random, so no design-based variance exists for these estimates; their error depends on how well
the reference models' patterns describe the new model, which no interval computed from the anchors can check.
:func:`evalband.subset.choose` therefore offers anchors only beside a probability sample, and the estimates are
printed with "no valid interval".

References
----------
Polo, F. M., Weber, L., Choshen, L., Sun, Y., Xu, G. and Yurochkin, M. (2024). tinyBenchmarks: evaluating LLMs
with fewer examples. ICML 2024. arXiv:2402.14992.
Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of careful seeding. SODA 2007.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["anchor_points", "anchor_estimates", "ANCHOR_METHODS", "NO_INTERVAL"]

#: the point estimates made from anchors
ANCHOR_METHODS = ("anchor points", "anchor IRT")
#: how they are shown where an interval would be
NO_INTERVAL = "no valid interval"
#: Lloyd iterations of the k-means
MAX_ITER = 50


def _patterns(scores: np.ndarray) -> np.ndarray:
    """Items x reference models, a missing score filled with the item's mean over the other models."""
    with np.errstate(invalid="ignore"):
        fill = np.nanmean(scores, axis=0)
    fill = np.where(np.isfinite(fill), fill, 0.5)
    return np.where(np.isfinite(scores), scores, fill[None, :]).T


def _sq_dist(X, x2, C):
    return np.maximum(x2[:, None] - 2.0 * (X @ C.T) + np.sum(C * C, axis=1)[None, :], 0.0)


def _kmeans(X: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Lloyd's k-means with k-means++ seeding; returns each row's cluster (0..k'-1, empty clusters dropped)."""
    n = len(X)
    x2 = np.sum(X * X, axis=1)
    centres = np.empty((k, X.shape[1]))
    centres[0] = X[rng.integers(n)]
    closest = _sq_dist(X, x2, centres[:1])[:, 0]
    for j in range(1, k):
        total = closest.sum()
        i = rng.choice(n, p=closest / total) if total > 0 else rng.integers(n)
        centres[j] = X[i]
        closest = np.minimum(closest, _sq_dist(X, x2, centres[j:j + 1])[:, 0])
    label = np.full(n, -1)
    for _ in range(MAX_ITER):
        new = np.argmin(_sq_dist(X, x2, centres), axis=1)
        if np.array_equal(new, label):
            break
        label = new
        counts = np.bincount(label, minlength=k)
        sums = np.zeros_like(centres)
        np.add.at(sums, label, X)
        filled = counts > 0
        centres[filled] = sums[filled] / counts[filled, None]
    _, label = np.unique(label, return_inverse=True)
    return label


def anchor_points(scores: np.ndarray, n_anchors: int, *, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Anchor items: k-means on the reference models' response patterns, the item nearest each centre.

    Parameters
    ----------
    scores : ndarray, shape (M, N)
        Reference models' scores (NaN where missing).
    n_anchors : int
        Clusters (anchors); fewer when items share patterns (a cluster left empty is dropped).
    rng : numpy.random.Generator
        Seeds the k-means++ start.

    Returns
    -------
    (positions, weights)
        The anchor items (positions in the benchmark, sorted) and their weights (the share of the benchmark's
        items in their cluster; they sum to 1).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.subset.anchors import anchor_points
    >>> rng = np.random.default_rng(0)
    >>> scores = (rng.random((8, 300)) < np.linspace(0.2, 0.9, 300)).astype(float)
    >>> pos, w = anchor_points(scores, 20, rng=rng)
    >>> len(pos), round(float(w.sum()), 12)
    (20, 1.0)
    """
    X = _patterns(np.asarray(scores, dtype=np.float64))
    n = len(X)
    k = int(min(n_anchors, n))
    label = _kmeans(X, k, rng)
    K = int(label.max()) + 1
    counts = np.bincount(label, minlength=K)
    sums = np.zeros((K, X.shape[1]))
    np.add.at(sums, label, X)
    centres = sums / counts[:, None]
    d = _sq_dist(X, np.sum(X * X, axis=1), centres)
    d = np.where(label[:, None] == np.arange(K)[None, :], d, np.inf)  # each item to its own centre only
    pos = np.argmin(d, axis=0)
    order = np.argsort(pos)
    return pos[order], (counts / n)[order]


def _ability(y, a, d, prior_sd=3.0, iters=100):
    """MAP ability of one model from its scores ``y`` on items with 2PL parameters (a, d) (Newton in one
    dimension, prior N(0, prior_sd^2))."""
    theta = 0.0
    for _ in range(iters):
        p = expit(a * theta + d)
        grad = np.sum(a * (y - p)) - theta / prior_sd ** 2
        hess = -np.sum(a * a * p * (1 - p)) - 1 / prior_sd ** 2
        step = grad / hess
        theta -= step
        if abs(step) < 1e-10:
            break
    return theta


def anchor_estimates(scores: np.ndarray, positions: np.ndarray, weights: np.ndarray, y: np.ndarray, *,
                     irt=None) -> dict:
    """tinyBenchmarks-style point estimates of a new model's mean over every item, from its anchor scores.

    Parameters
    ----------
    scores : ndarray, shape (M, N)
        Reference models' scores (for the IRT estimate).
    positions, weights : ndarray
        The anchors and their weights (:func:`anchor_points`).
    y : ndarray
        The new model's scores on the anchors.
    irt : tuple (a, d) or None
        2PL discriminations and intercepts of every item fitted on the reference models
        (:func:`evalband.latent.irt_fit.fit_irt`); None: fitted here when the scores are in [0, 1].

    Returns
    -------
    dict
        ``{'anchor points': sum_k w_k y_k, 'anchor IRT': (sum of y over the anchors + sum of the IRT
        probabilities over the other items) / N}`` (the IRT one only for scores in [0, 1]). Point estimates:
        no interval is valid for them.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.subset.anchors import anchor_estimates
    >>> scores = np.array([[1., 0, 1, 1], [0, 0, 1, 1], [1, 1, 1, 0]])
    >>> anchor_estimates(scores, np.array([0, 2]), np.array([0.5, 0.5]), np.array([1., 0]))["anchor points"]
    0.5
    """
    positions = np.asarray(positions, dtype=np.int64)
    y = np.asarray(y, dtype=np.float64)
    out = {"anchor points": float(np.asarray(weights, dtype=np.float64) @ y)}
    scores = np.asarray(scores, dtype=np.float64)
    finite = scores[np.isfinite(scores)]
    if finite.size and finite.min() >= 0 and finite.max() <= 1 and y.min() >= 0 and y.max() <= 1:
        if irt is None:
            irt = fit_reference_irt(scores)
        a, d = irt
        theta = _ability(y, a[positions], d[positions])
        p = expit(a * theta + d)
        p[positions] = y
        out["anchor IRT"] = float(p.mean())
    return out


def fit_reference_irt(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2PL items (discrimination ``a``, intercept ``d``) fitted on the reference models' scores in [0, 1]."""
    from ..latent.irt_fit import fit_irt

    obs = np.isfinite(scores)
    fit = fit_irt(np.where(obs, scores, 0.0), obs, np.zeros(scores.shape[1], dtype=np.int64), 1)
    return fit.a, fit.d
