"""Predictions of a new model's score on every item of the benchmark from the reference models.

Two features per item: the logit of the reference models' mean score (the item's easiness) and the logit of the
mean score of the ``k`` reference models that agree most with the new model on the items it was evaluated on (its
nearest reference models). A logistic regression (scores in [0, 1]; least squares otherwise) of the new model's
evaluated scores on them gives the prediction on every item. The prediction is only an auxiliary variable: the
estimator that uses it (:func:`evalband.subset.design.regression_mean`) is corrected on the random sample, so a
poor prediction widens the interval, it does not bias it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["predict_scores", "cross_fitted", "N_FITTED"]

#: parameters fitted on the evaluated items (intercept and two slopes)
N_FITTED = 3
#: nearest reference models averaged in the second feature
K_NEAREST = 5


def _logit(p, n):
    p = (np.asarray(p, dtype=np.float64) * n + 0.5) / (n + 1.0)  # shrunk away from 0 and 1
    return np.log(p) - np.log1p(-p)


def _features(scores, positions, y, bounded, k):
    M = scores.shape[0]
    answered = np.isfinite(scores)
    n_ref = answered.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore"):
        mean_all = np.nanmean(scores, axis=0)
    fill = np.nanmean(mean_all) if np.isfinite(mean_all).any() else 0.5
    mean_all = np.where(np.isfinite(mean_all), mean_all, fill)
    sub = scores[:, positions]
    with np.errstate(invalid="ignore"):
        dist = np.nanmean((sub - y[None, :]) ** 2, axis=1)
    dist = np.where(np.isfinite(dist), dist, np.inf)
    near = np.argsort(dist, kind="stable")[:min(k, M)]
    with np.errstate(invalid="ignore"):
        mean_near = np.nanmean(scores[near], axis=0)
    mean_near = np.where(np.isfinite(mean_near), mean_near, mean_all)
    if bounded:
        return np.column_stack([_logit(mean_all, n_ref), _logit(mean_near, np.isfinite(scores[near]).sum(0))])
    return np.column_stack([mean_all, mean_near])


def _logistic(X, y, ridge=1e-3, iters=50):
    beta = np.zeros(X.shape[1])
    pen = ridge * np.eye(X.shape[1])
    pen[0, 0] = 0.0
    for _ in range(iters):
        p = expit(X @ beta)
        w = np.maximum(p * (1 - p), 1e-9)
        grad = X.T @ (y - p) - pen @ beta
        hess = (X * w[:, None]).T @ X + pen
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta


def predict_scores(scores: np.ndarray, positions: np.ndarray, y: np.ndarray, *, bounded: bool,
                   k: int = K_NEAREST) -> np.ndarray:
    """The new model's predicted score on every item.

    Parameters
    ----------
    scores : ndarray, shape (M, N)
        Reference models' scores (NaN where missing).
    positions : ndarray of int, shape (n,)
        The evaluated items.
    y : ndarray, shape (n,)
        The new model's scores on them.
    bounded : bool
        Scores in [0, 1]: logistic regression; else least squares.

    Returns
    -------
    ndarray, shape (N,)
    """
    X = np.column_stack([np.ones(scores.shape[1]), _features(scores, positions, y, bounded, k)])
    Xs = X[positions]
    if bounded:
        return expit(X @ _logistic(Xs, y))
    beta = np.linalg.lstsq(Xs, y, rcond=None)[0]
    return X @ beta


#: folds of the cross-fitted predictions
N_FOLDS = 10


def cross_fitted(scores: np.ndarray, positions: np.ndarray, y: np.ndarray, *, bounded: bool,
                 rng: np.random.Generator, n_folds: int = N_FOLDS) -> tuple[np.ndarray, float, np.ndarray]:
    """Cross-fitted predictions (Zrnic and Candes 2024, cross-prediction-powered inference).

    The evaluated items are split at random into ``n_folds`` folds; each fold's items are predicted by the model
    fitted (nearest reference models included) on the other folds, so no evaluated score predicts itself.

    Returns
    -------
    (f_sample, f_mean, f_all)
        The out-of-fold prediction of each evaluated item, the mean over folds of each fold model's mean
        prediction over every item, and the prediction on every item of the model fitted on all evaluated items
        (for the calibration table).
    """
    n = len(positions)
    k = max(2, min(n_folds, n // 5))
    fold = rng.permutation(np.arange(n) % k)
    f_sample = np.empty(n)
    means = np.empty(k)
    for j in range(k):
        out = fold == j
        f = predict_scores(scores, positions[~out], y[~out], bounded=bounded)
        f_sample[out] = f[positions[out]]
        means[j] = f.mean()
    return f_sample, float(means.mean()), predict_scores(scores, positions, y, bounded=bounded)
