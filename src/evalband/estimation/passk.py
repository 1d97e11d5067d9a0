"""pass@k (can the system ever solve it?) and pass^k (does it solve it every time?) from repeated samples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, InputError, check_confidence_level, check_positive_int
from .confidence import ConfidenceInterval
from .mean import _interval
from .result import WEIGHTED, Estimate
from ..display.reprs import displayed
from .._words import words

__all__ = ["pass_at_k", "pass_hat_k", "passk_interval", "passk", "PassKResult", "PASSK_METRICS"]

PASSK_METRICS = ("pass@k", "pass^k")


def _counts(n, c) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(n)
    c = np.asarray(c)
    n, c = np.broadcast_arrays(n, c)
    if np.any(n != np.floor(n)) or np.any(c != np.floor(c)) or np.any(c < 0) or np.any(c > n):
        raise ArgumentError("`n` and `c` must be integers with 0 <= c <= n.")
    return n.astype(np.int64), c.astype(np.int64)


def _check_k(n: np.ndarray, k: int, items) -> None:
    short = np.flatnonzero(np.ravel(n) < k)
    if short.size:
        pos = short[0]
        label = f"item '{np.ravel(items)[pos]}'" if items is not None else f"item at position {pos}"
        raise ArgumentError(words('`{arg:k}` = {k} exceeds the number of samples of {label} (n = {value}; {size} item{value2} with n < k); pass@k and pass^k need n >= k samples per item.', k=k, label=label, value=int(np.ravel(n)[pos]), size=short.size, value2='s' if short.size > 1 else ''))


def pass_at_k(n, c, k: int, *, items=None) -> np.ndarray:
    """Unbiased pass@k of each item: ``1 - C(n - c, k) / C(n, k)``, in the numerically stable product form.

    Parameters
    ----------
    n, c : array_like of int
        Samples drawn and samples correct, per item (broadcast together).
    k : int
        Attempts; must not exceed any ``n`` (the error names the item).
    items : array_like, optional
        Item labels for error messages.

    Notes
    -----
    Computed as ``1 - prod_{j = n-c+1}^{n} (1 - k / j)`` (1 when ``n - c < k``), Chen et al. (2021), Fig. 3:
    binomial coefficients overflow for moderate n, the product does not.

    References
    ----------
    Chen, M. et al. (2021). Evaluating Large Language Models Trained on Code. arXiv:2107.03374.

    Examples
    --------
    >>> import evalband as eb
    >>> eb.pass_at_k(n=4, c=2, k=2)
    array(0.83333333)
    """
    k = check_positive_int(k, "k")
    n, c = _counts(n, c)
    _check_k(n, k, items)
    if n.size == 0:
        return np.zeros(n.shape)
    j = np.arange(1, int(n.max()) + 1, dtype=np.float64)
    inside = (j >= (n - c + 1)[..., None]) & (j <= n[..., None])
    factors = np.where(inside, 1.0 - k / j, 1.0)
    return np.where(n - c < k, 1.0, 1.0 - np.prod(factors, axis=-1))


def pass_hat_k(n, c, k: int, *, items=None) -> np.ndarray:
    """Unbiased pass^k of each item: ``C(c, k) / C(n, k)``, the chance that k samples drawn without replacement
    are all correct (Yao et al. 2024), as ``prod_{i<k} (c - i) / (n - i)``.

    References
    ----------
    Yao, S., Shinn, N., Razavi, P. & Narasimhan, K. (2024). tau-bench: A Benchmark for Tool-Agent-User
    Interaction in Real-World Domains. arXiv:2406.12045.

    Examples
    --------
    >>> import evalband as eb
    >>> eb.pass_hat_k(n=4, c=2, k=2)
    array(0.16666667)
    """
    k = check_positive_int(k, "k")
    n, c = _counts(n, c)
    _check_k(n, k, items)
    i = np.arange(k, dtype=np.float64)
    factors = (c[..., None] - i) / (n[..., None] - i)
    return np.where(c >= k, np.prod(factors, axis=-1), 0.0)


def passk_interval(n, c, k: int, *, metric: str = "pass@k", axis: int = -1, confidence_level=0.95,
                   items=None) -> Estimate:
    """pass@k or pass^k per item, averaged over items, with the standard error across items.

    Parameters
    ----------
    n, c : array_like of int
        Samples and correct samples per item, items along ``axis``. Items with ``n = 0`` are missing.
    k : int
    metric : {'pass@k', 'pass^k'}
    confidence_level : float or str

    Returns
    -------
    Estimate
        Mean over items, SE = sd / sqrt(items), t interval on items - 1 df clipped to [0, 1].

    Notes
    -----
    Each item's value is unbiased for that item's probability, so the average is unbiased for the benchmark
    score; the standard error treats items as the independent units and includes the sampling noise of the
    per-item values. The interval is a CLT interval and is rough with few items or values piled at 0 or 1.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.estimation import passk_interval
    >>> n = np.array([10, 10, 10, 10, 10])
    >>> c = np.array([9, 2, 0, 5, 10])
    >>> est = passk_interval(n, c, 3)
    >>> round(float(est.estimate), 3), round(float(est.se), 3)
    (0.69, 0.193)
    >>> round(float(est.ci.low), 3), round(float(est.ci.high), 3)
    (0.154, 1.0)
    >>> round(float(passk_interval(n, c, 3, metric="pass^k").estimate), 3)
    0.357
    """
    level = check_confidence_level(confidence_level)
    if metric not in PASSK_METRICS:
        raise ArgumentError(words('`{arg:metric}` must be one of {value}; got {metric!r}.', value=', '.join(map(repr, PASSK_METRICS)), metric=metric))
    n, c = _counts(n, c)
    n = np.moveaxis(n, axis, -1)
    c = np.moveaxis(c, axis, -1)
    have = n > 0
    safe_n = np.where(have, n, k)  # missing items get a harmless placeholder, then NaN
    safe_c = np.where(have, c, 0)
    if items is not None:
        _check_k(np.where(have, n, k), k, np.broadcast_to(np.asarray(items), n.shape))
    fn = pass_at_k if metric == "pass@k" else pass_hat_k
    values = np.where(have, fn(safe_n, safe_c, k), np.nan)
    m = have.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(m > 0, np.nansum(values, axis=-1) / m, np.nan)
        dev = np.where(have, values - mean[..., None], 0.0)
        se = np.sqrt(np.where(m > 1, np.sum(dev * dev, axis=-1) / (m - 1), np.nan) / m)
    est = _interval(mean, se, m, np.where(m > 1, m - 1, np.nan), metric, level)
    ci = ConfidenceInterval(np.clip(est.ci.low, 0.0, 1.0), np.clip(est.ci.high, 0.0, 1.0))
    return Estimate(est.estimate, est.se, ci, est.n, metric, level, est.df)


@displayed
@dataclass(frozen=True, repr=False)
class PassKResult:
    """pass@k and pass^k of every model and task for several k.

    Attributes
    ----------
    models, tasks : tuple of str
    k : tuple of int
    pass_at_k, pass_hat_k : Estimate
        Arrays shaped (n_models, n_tasks, n_k).
    samples : numpy.ndarray, shape (n_models, n_tasks)
        Smallest number of samples of an item in each cell (k cannot exceed it).
    notes : tuple of str
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    k: tuple[int, ...]
    pass_at_k: Estimate
    pass_hat_k: Estimate
    samples: np.ndarray
    notes: tuple[str, ...] = ()
    weights: np.ndarray | None = None

    def weighted(self, metric: str = "pass@k") -> Estimate | None:
        """With task weights, each model's weighted mean over tasks for every k, shape (n_models, n_k)
        (:func:`evalband.estimation.weighted_mean`); None without weights."""
        if self.weights is None:
            return None
        from .tasks import weighted_mean

        est = self.pass_at_k if metric == "pass@k" else self.pass_hat_k
        parts = [weighted_mean(est.estimate[:, :, j], est.se[:, :, j], self.weights, n=est.n[:, :, j],
                               confidence_level=est.confidence_level) for j in range(len(self.k))]
        stack = lambda f: np.stack([f(p) for p in parts], axis=-1)
        return Estimate(stack(lambda p: p.estimate), stack(lambda p: p.se),
                        ConfidenceInterval(stack(lambda p: p.ci.low), stack(lambda p: p.ci.high)),
                        stack(lambda p: p.n), metric, est.confidence_level, notes=parts[0].notes)

    def to_frame(self) -> pd.DataFrame:
        """One row per model, task, k and metric: estimate, se, ci_low, ci_high, n (items), method (= metric);
        with task weights also a task ``'(weighted)'`` per model, k and metric."""
        m, t, kk = len(self.models), len(self.tasks), len(self.k)
        frames = []
        tasks = self.tasks
        for name, est in (("pass@k", self.pass_at_k), ("pass^k", self.pass_hat_k)):
            frames.append(pd.DataFrame({
                "model": np.repeat(self.models, t * kk), "task": np.tile(np.repeat(self.tasks, kk), m),
                "k": np.tile(self.k, m * t), "metric": est.method, "estimate": est.estimate.ravel(),
                "se": est.se.ravel(), "ci_low": np.ravel(est.ci.low), "ci_high": np.ravel(est.ci.high),
                "n": est.n.ravel(),
            }))
            w = self.weighted(name)
            if w is not None:
                frames.append(pd.DataFrame({
                    "model": np.repeat(self.models, kk), "task": WEIGHTED, "k": np.tile(self.k, m),
                    "metric": name, "estimate": w.estimate.ravel(), "se": w.se.ravel(),
                    "ci_low": np.ravel(w.ci.low), "ci_high": np.ravel(w.ci.high), "n": w.n.ravel()}))
        if self.weights is not None:
            tasks = (*self.tasks, WEIGHTED)
        frame = pd.concat(frames, ignore_index=True)
        order = np.lexsort((frame["metric"].to_numpy() == "pass^k", frame["k"].to_numpy(),
                            pd.Categorical(frame["task"], categories=tasks).codes,
                            pd.Categorical(frame["model"], categories=self.models).codes))
        frame = frame.iloc[order].reset_index(drop=True)
        frame["method"] = frame["metric"]
        return frame


def passk(data, *, k=(1,), confidence_level=0.95, models=None, tasks=None, weights=None,
          group_weights=None) -> PassKResult:
    """pass@k and pass^k of each model and task of an item-level table with repeated trials.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame or path
        Item level, binary (0/1) scores, with a trial column (each trial is one sample); anything
        :func:`evalband.select` accepts.
    k : int or sequence of int
        The k values; each must not exceed any item's number of samples (the error names the item).
    confidence_level : float or str
    models, tasks, weights, group_weights : optional
        The selection (:func:`evalband.select`); with weights, :meth:`PassKResult.weighted` and the
        ``'(weighted)'`` rows give each model's weighted mean over tasks.

    Returns
    -------
    PassKResult

    Notes
    -----
    Per item, then averaged over items (every item weighs the same), with standard errors across items (see
    :func:`passk_interval`). Each model is scored on its own items.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"model": "m", "task": "t", "item": np.repeat([1, 2, 3], 4),
    ...                       "trial": np.tile(range(4), 3), "score": [1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1]})
    >>> res = eb.passk(eb.read(frame), k=[1, 2])
    >>> res.to_frame()[["k", "metric", "estimate"]].round(3)
       k  metric  estimate
    0  1  pass@k     0.583
    1  1  pass^k     0.583
    2  2  pass@k     0.667
    3  2  pass^k     0.500
    """
    from ..selection import select
    from ._cells import task_arrays

    sel = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    table = sel.table
    level = check_confidence_level(confidence_level)
    ks = (k,) if np.ndim(k) == 0 else tuple(k)
    if not ks:
        raise ArgumentError(words('`{arg:k}` must name at least one value.'))
    ks = tuple(dict.fromkeys(check_positive_int(v, "k") for v in ks))  # a repeated k once, not twice
    if table.level != "item" or not table.has_trials:
        raise InputError("pass@k needs item-level data with several samples per item (a trial column, e.g."
                         " --trial-col trial)", source=table.source)
    table.require_trial_rows("pass@k")
    if not table.is_binary:
        raise InputError(f"pass@k needs 0/1 scores; these are {table.score_kind}", source=table.source)
    arrays = list(task_arrays(table))
    n_m, n_t = len(table.models), len(arrays)
    shape = (n_m, n_t, len(ks))
    est = {metric: {f: np.full(shape, np.nan) for f in ("estimate", "se", "low", "high", "df")}
           for metric in PASSK_METRICS}
    items_n = np.zeros(shape, dtype=np.int64)
    samples = np.zeros((n_m, n_t), dtype=np.int64)
    for t, arr in enumerate(arrays):
        n = arr.trials
        c = np.nansum(arr.trial_scores, axis=-1).astype(np.int64)
        samples[:, t] = np.where((n > 0).any(axis=1), np.where(n > 0, n, np.iinfo(np.int64).max).min(axis=1), 0)
        short = (n > 0) & (n < max(ks))
        if short.any():
            i_m, pos = np.argwhere(short)[0]
            raise InputError(f"k = {max(ks)} exceeds the {int(n[i_m, pos])} sample(s) of item '{arr.items[pos]}'"
                             f" of model '{table.models[i_m]}', task '{arr.task}' ({int(short.sum())} such"
                             f" item{'s' if short.sum() > 1 else ''})", source=table.source)
        for j, kv in enumerate(ks):
            for metric in PASSK_METRICS:
                e = passk_interval(n, c, kv, metric=metric, confidence_level=level)
                d = est[metric]
                d["estimate"][:, t, j], d["se"][:, t, j] = e.estimate, e.se
                d["low"][:, t, j], d["high"][:, t, j], d["df"][:, t, j] = e.ci.low, e.ci.high, e.df
                items_n[:, t, j] = e.n
    from .edges import edge_intervals, edge_notes

    results, at_edge, gone = {}, 0, 0
    for metric, d in est.items():  # no zero-width interval: Wilson's on the items at 0 or 1, else none
        lo, hi, se, a, g = edge_intervals(d["estimate"], d["se"], d["low"], d["high"], items_n, bounded=True,
                                          confidence_level=level)
        at_edge, gone = at_edge + int(a.sum()), gone + int(g.sum())
        results[metric] = Estimate(d["estimate"], se, ConfidenceInterval(lo, hi), items_n.copy(), metric, level,
                                   d["df"])
    notes = (*sel.all_notes, *edge_notes(at_edge, gone, method="t"))
    return PassKResult(tuple(table.models), tuple(a.task for a in arrays), ks, results["pass@k"],
                       results["pass^k"], samples, notes, sel.weights)
