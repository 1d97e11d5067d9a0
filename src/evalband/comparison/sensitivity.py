"""Comparisons without pairing: an assumed between-model correlation and how verdicts move with it.

Summary-level results (per-task accuracy and test-set size) carry no information on how two models' errors
co-occur, so the bootstrap resamples each model independently, which is right only if the models' per-item
scores are uncorrelated. Real models are usually positively correlated (they fail on the same hard items), which
makes the true variance of a difference smaller. Two tools show what an assumed correlation ``rho`` changes:

* :func:`correlated_replicates`: replicates whose per-task values keep each model's bootstrap variance but have
  correlation ``rho`` between models within a task (a common Gaussian factor added to the independent binomial
  replicates). Any aggregate, difference or rank can be computed on them, and at ``rho = 0`` they are the
  independent replicates themselves.
* :func:`difference_variance`: the analytic variance of a weighted-mean difference at correlation ``rho``,
  ``sum_t w_t^2 (v_At + v_Bt - 2 rho sqrt(v_At v_Bt))`` with binomial variances ``v = p (1 - p) / n``.

Seed 000, section 5.3 recommends exactly this sensitivity analysis (correlation from 0 to 0.5).
"""

from __future__ import annotations

import numpy as np

from .._validate import ArgumentError, check_probability

__all__ = ["DEFAULT_CORRELATIONS", "correlated_replicates", "difference_variance", "describe_sweep"]

#: the correlations swept for summary-level input
DEFAULT_CORRELATIONS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)


def correlated_replicates(observed, replicates, correlation: float, *, rng) -> np.ndarray:
    """Replicates with an assumed between-model correlation within each task.

    Parameters
    ----------
    observed : array_like, shape (M, T)
    replicates : array_like, shape (B, M, T)
        Independent (binomial) replicates.
    correlation : float in [0, 1)
        Assumed correlation between any two models' estimates on the same task.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (B, M, T)
        ``observed + sqrt(1 - rho) (R - observed) + sqrt(rho) sd Z`` with ``sd`` each model-task bootstrap
        standard deviation and ``Z`` (B, T) standard normal shared by all models.

    Notes
    -----
    Each model's per-task variance is unchanged and any two models' covariance within a task becomes
    ``rho sd_A sd_B``; tasks stay independent. The shared factor is Gaussian, so at ``rho > 0`` the replicates
    are partly a normal approximation; with test sets of hundreds of items the binomial is close to normal.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.comparison import correlated_replicates
    >>> rng = np.random.default_rng(0)
    >>> observed = np.array([[0.80, 0.60], [0.78, 0.55]])
    >>> replicates = rng.binomial(200, observed, size=(200, 2, 2)) / 200
    >>> joint = correlated_replicates(observed, replicates, 0.5, rng=rng)
    >>> joint.shape
    (200, 2, 2)
    >>> round(float(np.corrcoef(joint[:, 0, 0], joint[:, 1, 0])[0, 1]), 2)
    0.54
    """
    rho = check_probability(correlation, "correlation", open_interval=False)
    if rho >= 1:
        raise ArgumentError(f"`correlation` must be below 1; got {correlation!r}.")
    obs = np.asarray(observed, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    if rho == 0:
        return reps
    sd = reps.std(axis=0)
    z = rng.standard_normal((reps.shape[0], reps.shape[2]))
    return obs + np.sqrt(1.0 - rho) * (reps - obs) + np.sqrt(rho) * sd[None] * z[:, None, :]


def difference_variance(p_a, p_b, n, weights_a, weights_b, correlation: float) -> np.ndarray:
    """Analytic variance of ``sum_t w_At p_At - sum_t w_Bt p_Bt`` at an assumed correlation.

    Parameters
    ----------
    p_a, p_b : array_like, shape (..., T)
        Per-task accuracies.
    n : array_like, shape (T,)
        Test-set sizes.
    weights_a, weights_b : array_like, shape (..., T)
        Aggregate weights (usually equal for both models).
    correlation : float

    Examples
    --------
    >>> from evalband.comparison import difference_variance
    >>> p_a, p_b, n = [0.80, 0.60], [0.78, 0.55], [200, 500]
    >>> w = [0.5, 0.5]
    >>> round(float(difference_variance(p_a, p_b, n, w, w, 0.0)), 6)
    0.000658
    >>> round(float(difference_variance(p_a, p_b, n, w, w, 0.5)), 6)
    0.000329
    """
    va = np.asarray(p_a) * (1 - np.asarray(p_a)) / np.asarray(n)
    vb = np.asarray(p_b) * (1 - np.asarray(p_b)) / np.asarray(n)
    wa = np.asarray(weights_a)
    wb = np.asarray(weights_b)
    return (wa ** 2 * va + wb ** 2 * vb - 2 * correlation * wa * wb * np.sqrt(va * vb)).sum(-1)


def describe_sweep(correlations, verdicts) -> str:
    """'not yet decided at 0-0.2, A better at 0.3-0.5' (runs of equal verdicts)."""
    parts = []
    start = 0
    for k in range(1, len(verdicts) + 1):
        if k == len(verdicts) or verdicts[k] != verdicts[start]:
            lo, hi = correlations[start], correlations[k - 1]
            span = f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"
            parts.append(f"{verdicts[start]} at {span}")
            start = k
    return ", ".join(parts)
