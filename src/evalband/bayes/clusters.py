"""Clustered items in the Beta-Binomial model: design effects per (model, task) and effective counts.

The Beta-Binomial likelihood treats a task's items as independent Bernoulli trials. When items come in clusters
(passages, documents, sub-sources) answers within a cluster are correlated and a task's accuracy varies more than
the binomial ``p (1 - p) / n``: by the design effect ``deff = var_clustered / var_independent``, about
``1 + (m - 1) icc`` for clusters of size m (Kish 1965). The Rao & Scott (1992) adjustment divides each count and
size by its design effect, ``(y / deff, n / deff)``: the binomial variance of the effective counts is then the
cluster-robust variance, and any binomial method (here the Beta-Binomial hierarchy) can be applied to them.

The design effects come from :func:`evalband.estimation.estimate` with ``method='cluster'`` (the CR1 cluster-robust
variance over the independent-items variance, per model and task, each model on its own items).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.table import Counts
from .._validate import ArgumentError
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import concat, words

__all__ = ["CLUSTER_MODES", "DesignEffects", "design_effects", "effective_counts", "ignored_clusters_warning",
           "width_factor"]

#: values of ``clusters=`` in :func:`evalband.bayes.beta_binomial`
CLUSTER_MODES = ("ignore", "effective")


@displayed


@dataclass(frozen=True, repr=False)
class DesignEffects:
    """Design effects of clustered items, per model and task.

    Attributes
    ----------
    models, tasks : tuple of str
    n : numpy.ndarray, shape (M, T)
        Items behind each (model, task) count.
    n_clusters : numpy.ndarray, shape (M, T)
        Clusters among them.
    icc : numpy.ndarray, shape (M, T)
        ANOVA estimate of the intra-cluster correlation (can be negative; NaN where undefined).
    design_effect : numpy.ndarray, shape (M, T)
        Estimated design effect: the CR1 cluster-robust variance of the task mean over the independent-items
        variance ``s**2 / n``. NaN where undefined (every answer the same, or a single cluster).
    used : numpy.ndarray, shape (M, T)
        The factor the effective counts divide by: ``max(design_effect, 1)``; where it is undefined, the task's
        median over the other models (at least 1), or 1 when no model has one.
    notes : tuple of str
    """

    models: tuple
    tasks: tuple
    n: np.ndarray
    n_clusters: np.ndarray
    icc: np.ndarray
    design_effect: np.ndarray
    used: np.ndarray
    notes: tuple = ()

    @property
    def n_effective(self) -> np.ndarray:
        """(M, T) effective sizes ``n / used``."""
        return self.n / self.used

    def task_median(self) -> np.ndarray:
        """(T,) median over models of the factor used."""
        return np.median(self.used, axis=0)

    def to_frame(self) -> pd.DataFrame:
        """One row per (model, task): n, n_clusters, icc, design_effect, used, n_effective."""
        m, t = len(self.models), len(self.tasks)
        return pd.DataFrame({
            "model": np.repeat(np.asarray(self.models, dtype=object), t),
            "task": np.tile(np.asarray(self.tasks, dtype=object), m),
            "n": self.n.ravel(), "n_clusters": self.n_clusters.ravel(), "icc": self.icc.ravel(),
            "design_effect": self.design_effect.ravel(), "used": self.used.ravel(),
            "n_effective": self.n_effective.ravel(),
        })


NOTE_MODEL_TASK_CELL_S = NoteKind(
    'bayes.model-task-cell-s', 'info',
    "{value} (model, task) cell(s) have no design effect of their own (every answer the same, or a single "
    "cluster): the task's median over the other models is used")


def design_effects(data, *, models=None, tasks=None) -> DesignEffects:
    """Per-(model, task) design effects of an item-level table with a cluster column.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame or path
        Item-level scores with clusters (anything :func:`evalband.select` accepts).
    models, tasks : sequence of str, optional
        Restrict the analysis.

    Returns
    -------
    DesignEffects

    Notes
    -----
    The design effect of each cell is the one :func:`evalband.estimation.estimate` reports with
    ``method='cluster'``: the CR1 variance ``G/(G-1) sum_g S_g**2 / n**2`` over ``s**2 / n``. Rao & Scott (1992)
    divide by ``p (1 - p) / n`` instead of ``s**2 / n``, a factor ``(n - 1) / n`` apart. An estimated design effect
    below 1 (a negative intra-cluster correlation, which evaluation clusters such as passages or sources rarely
    have, or noise) is raised to 1, so effective counts never claim more information than independent items. With
    few clusters (fewer than about 30) the estimate is rough, and below 10 it can be far off.

    References
    ----------
    Kish, L. (1965). Survey Sampling. Wiley, section 5.4 (the design effect).
    Rao, J. N. K. & Scott, A. J. (1992). A simple method for the analysis of clustered binary data. Biometrics
    48(2), 577-585.
    """
    from ..estimation import estimate
    from ..selection import select

    table = select(data).table
    if table.level != "item" or not table.has_clusters:
        raise ArgumentError("design effects need item-level data with a cluster column (--cluster COL);"
                         f" {table.source} has {'no cluster column' if table.level == 'item' else 'summary counts'}.")
    if models is not None or tasks is not None:
        table = table.select(models=models, tasks=tasks)
    with warnings.catch_warnings(record=True) as caught:  # the few-clusters warning becomes a note here
        warnings.simplefilter("always")
        est = estimate(table, method="cluster", cluster=True, ppi="none")  # the clustering of the scores as read
    deff = np.asarray(est.extras["design_effect"], dtype=np.float64)
    used = np.maximum(deff, 1.0)
    undefined = np.isnan(used)
    notes = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    if undefined.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a task where no model has one: all-NaN median
            task_median = np.nanmedian(np.where(undefined, np.nan, used), axis=0)
        fill = np.broadcast_to(np.where(np.isnan(task_median), 1.0, task_median), used.shape)
        used = np.where(undefined, fill, used)
        notes.append(NOTE_MODEL_TASK_CELL_S(value=int(undefined.sum())))
    n = np.asarray(est.n, dtype=np.float64)
    return DesignEffects(tuple(est.models), tuple(est.tasks), n,
                         np.asarray(est.extras["n_clusters"], dtype=np.float64),
                         np.asarray(est.extras["icc"], dtype=np.float64), deff, used, tuple(notes))


def effective_counts(counts: Counts, effects: DesignEffects) -> Counts:
    """Rao-Scott effective counts ``(correct / deff, n / deff)`` (fractional; the accuracy is unchanged)."""
    if (tuple(counts.models), tuple(counts.tasks)) != (tuple(effects.models), tuple(effects.tasks)):
        raise ArgumentError("`effects` were computed for other models or tasks than `counts` holds.")
    return Counts(counts.models, counts.tasks, counts.correct / effects.used, counts.n / effects.used)


def summarize_by_task(effects: DesignEffects, *, limit: int = 8) -> str:
    """'law 5.2 (23 clusters), ...': each task's median design effect over models, largest first."""
    med = effects.task_median()
    clusters = np.median(effects.n_clusters, axis=0)
    order = np.argsort(-med, kind="stable")
    parts = [f"{effects.tasks[j]} {med[j]:.2g} ({int(clusters[j])} clusters)" for j in order[:limit]]
    more = len(order) - limit
    return ", ".join(parts) + (f" and {more} more task(s) up to {med[order[limit]]:.2g}" if more > 0 else "")


def width_factor(effects: DesignEffects, counts: Counts, weights) -> np.ndarray:
    """(M,) how many times too narrow an interval of the weighted mean over tasks is when clusters are ignored:
    ``sqrt(sum_j w_j**2 v_j deff_j / sum_j w_j**2 v_j)`` with the binomial variances ``v_j = p (1 - p) / n``."""
    p = counts.correct / counts.n
    wv = np.asarray(weights, dtype=np.float64) ** 2 * p * (1 - p) / counts.n
    total = wv.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, np.sqrt((wv * effects.used).sum(axis=1) / total), np.nan)


def ignored_clusters_warning(effects: DesignEffects, factor=None, *, chosen: bool = False) -> str:
    """The warning of a fit that treats clustered items as independent, with the design effects measured and,
    given ``factor`` from :func:`width_factor`, how much too narrow the weighted mean's intervals are; ``chosen``:
    the note of a user who asked for it (``clusters='ignore'``)."""
    head = words("clusters ignored ({arg:clusters='ignore'}):") if chosen else "clusters ignored:"
    text = concat(head, " items within a cluster are correlated, so these intervals are too narrow by about"
            " the design effect (a task's variance; its width by the square root). Design effect per task, median"
            f" over models: {summarize_by_task(effects)}.")
    if factor is not None and np.isfinite(factor).any():
        text = concat(text, f" The intervals of the mean over tasks are about {np.nanmedian(factor):.2g}x too narrow (median"
                 f" over models; up to {np.nanmax(factor):.2g}x).")
    return concat(text, words(" Use {arg:clusters='effective'}{py: (--clusters effective)}, --model logistic"
                              " (cluster effects) or the cluster bootstrap (compare, rank)"))
