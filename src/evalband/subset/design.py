"""Probability samples of a benchmark's items and the design-based estimators of its mean.

Everything here is NumPy on arrays indexed by item: strata, Neyman allocation, the stratified (and simple random,
one stratum) estimator of the population mean with its finite-population correction and Satterthwaite degrees of
freedom (Cochran 1977, ch. 5), and the combined regression estimator that uses a prediction known on every item
(Cochran 1977, sec. 7.8; Sarndal, Swensson and Wretman 1992, ch. 6: the GREG estimator), which stays
design-consistent however poor the prediction is.
"""

from __future__ import annotations

import numpy as np

from .._validate import ArgumentError
from .._words import words

__all__ = ["difficulty_strata", "neyman_allocation", "draw", "stratified_mean", "regression_mean"]


def difficulty_strata(task_codes: np.ndarray, difficulty: np.ndarray, n_bins: int) -> np.ndarray:
    """Stratum of each item: its task crossed with the quantile bin (``n_bins`` per task) of its difficulty.

    Items tied in difficulty stay in one bin; an empty bin is dropped. Returns codes 0..H-1 (task-major order).
    """
    task_codes = np.asarray(task_codes, dtype=np.int64)
    difficulty = np.asarray(difficulty, dtype=np.float64)
    out = np.empty(len(task_codes), dtype=np.int64)
    h = 0
    for t in np.unique(task_codes):
        idx = np.flatnonzero(task_codes == t)
        d = difficulty[idx]
        if n_bins > 1:
            edges = np.unique(np.quantile(d, np.linspace(0, 1, n_bins + 1)[1:-1]))
            bins = np.searchsorted(edges, d, side="right")
        else:
            bins = np.zeros(len(idx), dtype=np.int64)
        _, codes = np.unique(bins, return_inverse=True)
        out[idx] = h + codes
        h += codes.max() + 1
    return out


def neyman_allocation(sizes: np.ndarray, sds: np.ndarray, budget: int, *, minimum: int = 2) -> np.ndarray:
    """Items per stratum: proportional to ``N_h S_h`` (Neyman), at least ``minimum`` (so each stratum's variance
    can be estimated) and at most ``N_h``, summing to ``budget`` (largest remainders)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    floor = np.minimum(sizes, minimum)
    if budget < floor.sum():
        raise ArgumentError(words("`budget` {budget} is below {value}, the {minimum} items per stratum the {n_sizes} strata need; use fewer strata or {arg:method='random'}.", budget=budget, value=int(floor.sum()), minimum=minimum, n_sizes=len(sizes)))
    if budget > sizes.sum():
        raise ArgumentError(f"`budget` {budget} exceeds the {int(sizes.sum())} items of the benchmark.")
    weight = sizes * np.maximum(np.asarray(sds, dtype=np.float64), 1e-9)
    ideal = np.zeros(len(sizes))
    fixed = np.zeros(len(sizes), dtype=bool)
    for _ in range(2 * len(sizes) + 1):  # proportional to N_h S_h; strata pinned at their floor or size, repeat
        free = ~fixed
        if not free.any():
            break
        ideal[free] = (budget - ideal[fixed].sum()) * weight[free] / weight[free].sum()
        over = free & (ideal > sizes)
        under = free & (ideal < floor)
        if not (over.any() or under.any()):
            break
        ideal[over], ideal[under] = sizes[over], floor[under]
        fixed |= over | under
    n = np.clip(np.floor(ideal + 1e-9).astype(np.int64), floor, sizes)
    frac = ideal - np.floor(ideal + 1e-9)
    for i in np.argsort(-frac, kind="stable"):  # largest remainders
        if n.sum() >= budget:
            break
        if n[i] < sizes[i]:
            n[i] += 1
    while n.sum() < budget:
        i = int(np.argmax(np.where(n < sizes, weight / (n + 1), -1.0)))
        n[i] += 1
    while n.sum() > budget:
        i = int(np.argmax(np.where(n > floor, n / np.maximum(weight, 1e-12), -1.0)))
        n[i] -= 1
    return n


def draw(strata: np.ndarray, n_h: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Indices of a stratified simple random sample without replacement (``n_h`` items from stratum h), in a
    random order (the order to evaluate them in)."""
    picked = []
    for h, k in enumerate(n_h):
        idx = np.flatnonzero(strata == h)
        picked.append(rng.choice(idx, size=int(k), replace=False))
    out = np.concatenate(picked) if picked else np.empty(0, dtype=np.int64)
    return out[rng.permutation(len(out))]


def _strata_sizes(strata, N_h):
    H = len(N_h)
    n_h = np.bincount(strata, minlength=H)
    if np.any(n_h > N_h):
        raise ArgumentError("a stratum has more evaluated items than items in the benchmark.")
    return n_h


def stratified_mean(y: np.ndarray, strata: np.ndarray, N_h: np.ndarray) -> tuple[float, float, float]:
    """Stratified estimator of the population mean from a stratified simple random sample.

    ``y`` and ``strata`` are the evaluated items' scores and stratum codes; ``N_h`` every stratum's size in the
    population (strata with no evaluated item are refused: their mean cannot be estimated). Returns
    ``(estimate, variance, df)`` with the finite-population correction ``1 - n_h/N_h`` and Satterthwaite's
    degrees of freedom. One stratum is the simple random sample: ``var = (1 - n/N) s^2 / n``, ``df = n - 1``.
    """
    y = np.asarray(y, dtype=np.float64)
    strata = np.asarray(strata, dtype=np.int64)
    N_h = np.asarray(N_h, dtype=np.float64)
    n_h = _strata_sizes(strata, N_h)
    if np.any(n_h == 0):
        raise ArgumentError(f"{int((n_h == 0).sum())} stratum(s) have no evaluated item; their mean cannot be"
                            " estimated.")
    W = N_h / N_h.sum()
    sums = np.bincount(strata, weights=y, minlength=len(N_h))
    mean_h = sums / n_h
    dev = y - mean_h[strata]
    ss = np.bincount(strata, weights=dev * dev, minlength=len(N_h))
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = np.where(n_h > 1, ss / (n_h - 1), 0.0)
        g = W ** 2 * (1 - n_h / N_h) / n_h
    est = float(W @ mean_h)
    var = float(g @ s2)
    return est, var, _satterthwaite(g * s2, n_h - 1)


def _satterthwaite(parts, df_h) -> float:
    parts = np.asarray(parts, dtype=np.float64)
    keep = df_h > 0
    den = np.sum(parts[keep] ** 2 / df_h[keep])
    if den <= 0:
        return float(max(int(np.sum(df_h)), 1))
    return float(parts.sum() ** 2 / den)


def regression_mean(y: np.ndarray, f_sample: np.ndarray, strata: np.ndarray, N_h: np.ndarray,
                    F_h, *, n_fitted: int = 0) -> tuple[float, float, float, np.ndarray | float]:
    """Combined regression estimator of the population mean with predictions (controls) known on every item.

    ``f_sample`` is the prediction on the evaluated items, shape (n,) or (n, k) for ``k`` controls; ``F_h`` its
    mean over every item of each stratum, shape (H,) / (H, k), or over the whole benchmark, a scalar / (k,).
    ``estimate = sum_h W_h ybar_h + b' (Fbar - sum_h W_h fbar_h)`` with the slopes ``b`` that minimize the
    estimated variance (the within-stratum covariances of y and f, weighted as the variance weights each stratum);
    the variance is that of the stratified mean of the residuals ``e = y - b' f``. With ``b = 0`` it is the design
    estimator, so a useless prediction costs only the degrees of freedom of the slopes. ``n_fitted`` is the number
    of further parameters fitted on the evaluated items to make ``f`` (taken from the degrees of freedom and
    inflating the residual variance by ``(n - H) / (n - H - k - n_fitted)``). Returns
    ``(estimate, variance, df, slope)`` (the slope a float for one control, an array for several).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.subset.design import regression_mean
    >>> y = np.array([1., 0, 1, 1, 0, 1, 0, 1, 1, 0])
    >>> f = np.array([.9, .2, .7, .8, .1, .6, .3, .9, .8, .4])
    >>> est, var, df, b = regression_mean(y, f, np.zeros(10, dtype=int), np.array([100.]), 0.6)
    >>> # by hand: b = cov(y, f) / var(f) = 1.598, ybar + b (0.6 - fbar) = 0.6 + 1.598 (0.6 - 0.57)
    >>> round(est, 4), round(b, 4)
    (0.6479, 1.598)
    """
    y = np.asarray(y, dtype=np.float64)
    f = np.asarray(f_sample, dtype=np.float64)
    one = f.ndim == 1
    f = f.reshape(len(y), -1)
    k = f.shape[1]
    strata = np.asarray(strata, dtype=np.int64)
    N_h = np.asarray(N_h, dtype=np.float64)
    H = len(N_h)
    n_h = _strata_sizes(strata, N_h)
    W = N_h / N_h.sum()
    F = np.asarray(F_h, dtype=np.float64)
    if F.ndim == 2 or (k == 1 and F.ndim == 1 and F.size == H):  # per stratum
        F = W @ F.reshape(H, k)
    else:  # over the whole benchmark
        F = F.reshape(k)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(n_h > 1, W ** 2 * (1 - n_h / N_h) / n_h / np.maximum(n_h - 1, 1), 0.0)
        ybar = np.bincount(strata, weights=y, minlength=H) / n_h
        fbar = np.stack([np.bincount(strata, weights=f[:, j], minlength=H) for j in range(k)], axis=1) / n_h[:, None]
    ybar, fbar = np.where(n_h > 0, ybar, 0.0), np.where(n_h[:, None] > 0, fbar, 0.0)
    dy, dfc = y - ybar[strata], f - fbar[strata]
    wdf = dfc * g[strata][:, None]
    sff = wdf.T @ dfc
    sfy = wdf.T @ dy
    b = np.linalg.lstsq(sff, sfy, rcond=1e-12)[0] if np.any(sff) else np.zeros(k)
    est = float(W @ ybar + (F - W @ fbar) @ b)
    e = dy - dfc @ b
    ss = np.bincount(strata, weights=e * e, minlength=H)
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = np.where(n_h > 1, ss / (n_h - 1), 0.0)
        parts = np.where(n_h > 0, W ** 2 * (1 - n_h / N_h) / n_h * s2, 0.0)
    n, used = int(n_h.sum()), int((n_h > 0).sum())
    lost = k + int(n_fitted)
    resid_df = n - used - lost
    if resid_df < 1:
        raise ArgumentError(f"{n} evaluated items in {used} strata leave no degree of freedom for a"
                            f" prediction-assisted estimate with {lost} fitted parameters.")
    inflate = (n - used) / resid_df
    df = _satterthwaite(parts, n_h - 1) * resid_df / max(n - used, 1)
    return est, float(parts.sum() * inflate), max(df, 1.0), (float(b[0]) if one else b)
