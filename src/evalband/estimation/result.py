"""Result objects of the per-(model, task) estimators.

:class:`Estimate` is what the array cores return (any shape, usually ``(n_models,)``); :class:`TaskEstimates` is
what :func:`evalband.estimation.estimate` returns for a whole table, shaped ``(n_models, n_tasks)``, with each
model's pooled estimate beside it. Both are frozen and never rounded; ``.to_frame()`` gives tidy pandas frames
with fractions, not percent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .confidence import ConfidenceInterval
from ..display.reprs import displayed

__all__ = ["Estimate", "TaskEstimates", "POOLED", "WEIGHTED"]

#: Task label of the pooled rows in :meth:`TaskEstimates.to_frame` (``pooled=True``).
POOLED = "(pooled)"
#: Task label of the weighted-mean rows (when the selection has task weights).
WEIGHTED = "(weighted)"


@displayed
@dataclass(frozen=True, repr=False)
class Estimate:
    """An estimate with its standard error and confidence interval, elementwise over an array of cells.

    Attributes
    ----------
    estimate, se : numpy.ndarray
        Point estimate and standard error (NaN where a cell has no data).
    ci : ConfidenceInterval
        Interval ends, arrays of the same shape.
    n : numpy.ndarray
        Number of independent units behind each estimate (items, or test-set size at summary level).
    method : str
        The interval method that produced it.
    confidence_level : float
    df : numpy.ndarray or None
        Degrees of freedom of a t interval (None for normal and exact intervals).
    extras : dict of str to numpy.ndarray
        Method-specific quantities of the same shape (``n_clusters``, ``icc``, ``design_effect``,
        ``var_between``, ``var_within``, ...).
    notes : tuple of str
        Warnings and caveats (too few clusters, ...), one sentence each.
    """

    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    n: np.ndarray
    method: str
    confidence_level: float
    df: np.ndarray | None = None
    extras: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per cell (flattened in C order): estimate, se, ci_low, ci_high, n, method, extras."""
        cols = {
            "estimate": np.ravel(self.estimate),
            "se": np.ravel(self.se),
            "ci_low": np.ravel(self.ci.low),
            "ci_high": np.ravel(self.ci.high),
            "n": np.ravel(self.n),
        }
        size = len(cols["estimate"])
        cols["method"] = np.repeat(self.method, size)
        if self.df is not None:
            cols["df"] = np.ravel(np.broadcast_to(self.df, np.shape(self.estimate)))
        for key, value in self.extras.items():
            cols[key] = np.ravel(np.broadcast_to(value, np.shape(self.estimate)))
        return pd.DataFrame(cols)


@displayed
@dataclass(frozen=True, repr=False)
class TaskEstimates:
    """Per-(model, task) estimates of a whole results table, plus each model's pooled estimate.

    Attributes
    ----------
    models, tasks : tuple of str
    estimate, se : numpy.ndarray, shape (n_models, n_tasks)
        NaN where a model has no result for a task (counted in ``notes``).
    ci : ConfidenceInterval
        Arrays of shape (n_models, n_tasks).
    n : numpy.ndarray, shape (n_models, n_tasks)
        Items (item level; each model on its own items) or test-set size (summary level).
    method : str
        The method used ('auto' resolved).
    confidence_level : float
    extras : dict of str to numpy.ndarray
        Arrays of shape (n_models, n_tasks): ``df`` for t intervals; ``n_clusters``, ``icc``, ``design_effect``
        for the cluster-robust method; ``mean_trials``, ``var_between`` (clipped at 0), ``var_between_raw``
        (unbiased, can be negative), ``var_within``, ``k_enough`` with repeated trials; ``ci_low_raw`` and
        ``ci_high_raw`` when a t / cluster interval of [0, 1] scores was clipped to that range.
    pooled : Estimate
        Each model's pooled estimate, shape (n_models,): the micro average over all its items in all tasks
        (every item weighs the same, so it is not the mean of the task means), or at summary level the pooled
        proportion sum(correct) / sum(n).
    weighted : Estimate or None
        With task weights (``weights=`` / ``group_weights=``), each model's weighted mean over tasks, shape
        (n_models,) (:func:`evalband.estimation.weighted_mean`).
    notes : tuple of str
        What was assumed, left out or warned about (the table's notes first).
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    n: np.ndarray
    method: str
    confidence_level: float
    extras: dict = field(default_factory=dict)
    pooled: Estimate | None = None
    notes: tuple[str, ...] = ()
    weighted: Estimate | None = None

    def to_frame(self, *, pooled: bool = False) -> pd.DataFrame:
        """Tidy frame: model, task, estimate, se, ci_low, ci_high, n, method, then the extras.

        Parameters
        ----------
        pooled : bool
            Also append one row per model with task ``"(pooled)"`` holding its pooled estimate (and, with task
            weights, one with task ``"(weighted)"`` holding its weighted mean), after that model's task rows.
        """
        n_m, n_t = len(self.models), len(self.tasks)
        frame = pd.DataFrame({
            "model": np.repeat(self.models, n_t),
            "task": np.tile(self.tasks, n_m),
            "estimate": self.estimate.ravel(),
            "se": self.se.ravel(),
            "ci_low": np.ravel(self.ci.low),
            "ci_high": np.ravel(self.ci.high),
            "n": self.n.ravel(),
            "method": np.repeat(self.method, n_m * n_t),
        })
        for key, value in self.extras.items():
            frame[key] = np.ravel(value)
        if not pooled or self.pooled is None:
            return frame
        parts, keys, subs = [frame], [np.repeat(np.arange(n_m), n_t)], [np.tile(np.arange(n_t), n_m)]
        for k, (label, p) in enumerate(((POOLED, self.pooled), (WEIGHTED, self.weighted))):
            if p is None:
                continue
            rows = pd.DataFrame({
                "model": list(self.models), "task": label, "estimate": p.estimate, "se": p.se,
                "ci_low": p.ci.low, "ci_high": p.ci.high, "n": p.n, "method": p.method,
            })
            if p.df is not None and "df" in frame.columns:
                rows["df"] = p.df
            for key, value in p.extras.items():
                if key in frame.columns:
                    rows[key] = value
            parts.append(rows)
            keys.append(np.arange(n_m))
            subs.append(np.full(n_m, n_t + k))
        both = pd.concat(parts, ignore_index=True)
        order = np.lexsort((np.concatenate(subs), np.concatenate(keys)))
        return both.iloc[order].reset_index(drop=True)

    def trial_variance(self):
        """With repeated trials, the between-item / within-item split of every cell as a
        :class:`~evalband.estimation.TrialVariance` (arrays (n_models, n_tasks)), whose ``reduction(k)``,
        ``k_enough()`` and ``to_frame(ks)`` say how much more trials would help; None without trials."""
        from .trials import TrialVariance

        if "var_within" not in self.extras:
            return None
        between = self.extras.get("var_between_raw", self.extras["var_between"])  # the unbiased estimate
        return TrialVariance(between, self.extras["var_within"], self.n, self.extras["mean_trials"])

    def __getitem__(self, model: str) -> pd.DataFrame:
        """The rows of one model (``result['gpt-4o']``)."""
        frame = self.to_frame()
        return frame.loc[frame["model"] == model].reset_index(drop=True)
