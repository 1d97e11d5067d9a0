"""Prediction-powered inference on a results table: human-scale means per model and task, and paired model
differences with verdicts.

The table's ``score`` is the judge's score on every row and its measure column ``human`` the human label where
there is one (NaN elsewhere; ``evalband.read(..., human_col=...)``). :func:`ppi_estimate` gives every model's
PPI (PPI++ by default) estimate per task with the labelled-only interval beside it; :func:`ppi_compare` gives every
pair of models' difference on the same items (same judge), with ``evalband.comparison``'s verdict words and
multiplicity control.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import ArgumentTypeError, InputError, check_choice, check_confidence_level
from ..selection.judgements import check_ppi, ppi_rule_note
from .confidence import ConfidenceInterval
from ..data.table import COVERAGE_UNSHARED
from ..display.numbers import format_estimate
from ..display.reprs import html_head, titled_repr
from .ppi import PPI_METHODS, ppi_mean, ppi_notes
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["PPIEstimates", "ppi_estimate", "PPI_CORRECTIONS", "estimate_human_scale"]

#: multiplicity corrections of :func:`ppi_compare` (max-t needs replicates; the PPI intervals are analytic)
PPI_CORRECTIONS = ("none", "bonferroni", "holm", "bh")


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class PPIEstimates:
    """PPI estimates of the human-scale mean of every model on every task.

    Attributes
    ----------
    models, tasks : tuple of str
    estimate, se : numpy.ndarray, shape (n_models, n_tasks)
        The estimate and its small-sample standard error (:func:`~evalband.judges.ppi_mean`).
    ci : ConfidenceInterval
        Arrays (n_models, n_tasks) at ``confidence_level``: t intervals ``estimate -/+ t_df se``.
    df : numpy.ndarray, shape (n_models, n_tasks)
        Their degrees of freedom (labelled items minus 2 for PPI++, minus 1 otherwise; labelled clusters minus 1).
    se_asymptotic : numpy.ndarray, shape (n_models, n_tasks)
        ``ppi_py.ppi_mean_ci``'s standard error (variances over n).
    lam, n_labelled, n_unlabelled, ess, gain : numpy.ndarray, shape (n_models, n_tasks)
        lambda used, human-labelled and unlabelled items, effective sample size ``n * var_labelled / var_ppi``
        and its ratio to ``n``.
    labelled_estimate, labelled_se : numpy.ndarray
        The human labels alone (lambda = 0), for reference.
    labelled_ci : ConfidenceInterval
    judge_mean : numpy.ndarray
        The judge's mean over all items, taken at face value.
    n_clusters : numpy.ndarray of float, shape (n_tasks,)
        Clusters per task (NaN without clusters).
    method : str
    confidence_level : float
    alternative : str
    notes : tuple of str
    """

    models: tuple
    tasks: tuple
    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    lam: np.ndarray
    n_labelled: np.ndarray
    n_unlabelled: np.ndarray
    ess: np.ndarray
    gain: np.ndarray
    labelled_estimate: np.ndarray
    labelled_se: np.ndarray
    labelled_ci: ConfidenceInterval
    judge_mean: np.ndarray
    n_clusters: np.ndarray
    method: str
    confidence_level: float
    alternative: str = "two-sided"
    notes: tuple = ()
    scale: float = 100.0
    """Display multiplier of differences: 100 (points) for scores in [0, 1], 1 for unbounded scores."""
    _per_task: tuple = field(default=(), repr=False)  # (PPIMean, onehot or None) per task, for ppi_compare
    df: np.ndarray | None = None
    se_asymptotic: np.ndarray | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per model and task: estimate, se, ci_low, ci_high, n_labelled, n_unlabelled, lambda, ess, ..."""
        m, t = len(self.models), len(self.tasks)
        cols = {
            "model": np.repeat(self.models, t), "task": np.tile(self.tasks, m),
            "estimate": self.estimate.ravel(), "se": self.se.ravel(),
            "ci_low": np.ravel(self.ci.low), "ci_high": np.ravel(self.ci.high),
            "df": np.full(m * t, np.nan) if self.df is None else np.ravel(self.df),
            "se_asymptotic": np.full(m * t, np.nan) if self.se_asymptotic is None else np.ravel(self.se_asymptotic),
            "n_labelled": self.n_labelled.ravel(), "n_unlabelled": self.n_unlabelled.ravel(),
            "lambda": self.lam.ravel(), "ess": self.ess.ravel(), "gain": self.gain.ravel(),
            "labelled_estimate": self.labelled_estimate.ravel(), "labelled_se": self.labelled_se.ravel(),
            "labelled_ci_low": np.ravel(self.labelled_ci.low), "labelled_ci_high": np.ravel(self.labelled_ci.high),
            "judge_mean": self.judge_mean.ravel(), "n_clusters": np.tile(self.n_clusters, m),
        }
        frame = pd.DataFrame(cols)
        frame["method"] = self.method
        frame["confidence_level"] = self.confidence_level
        return frame

    def __repr__(self) -> str:
        lines = []
        for i, mdl in enumerate(self.models[:8]):
            for j, task in enumerate(self.tasks[:3]):
                s = self.se[i, j]
                lines.append(f"{mdl} / {task}: {format_estimate(self.estimate[i, j], s)} ({format_estimate(self.ci.low[i, j], s)},"
                             f" {format_estimate(self.ci.high[i, j], s)}), n={self.n_labelled[i, j]:,} labelled +"
                             f" {self.n_unlabelled[i, j]:,}, lambda {self.lam[i, j]:.2f}, ess {self.ess[i, j]:,.0f}")
        if len(self.models) * len(self.tasks) > len(lines):
            lines.append("... see .to_frame()")
        title = (f"PPIEstimates({self.method}, {len(self.models)} models x {len(self.tasks)} tasks,"
                 f" {100 * self.confidence_level:.4g}% intervals)")
        return titled_repr(title, lines, self.notes)

    def _repr_html_(self) -> str:
        return html_head(self.to_frame())


def _table(data, models, tasks):
    from ..selection.judgements import labelled_results

    return labelled_results(data, models=models, tasks=tasks)


def _task_matrices(table, task, models, use_clusters: bool):
    """One task's (n_models, n_items) judge scores and human labels over every item of the task (NaN where a
    model lacks the item, or the item has no label), and the items' cluster codes. An item with several rows has
    the mean of its scores and of its labels."""
    d = table.data
    sub = d.loc[d["task"] == task]
    grouped = sub.groupby(["model", "item"], observed=True)
    score = grouped["score"].mean().unstack()
    human = grouped["human"].mean().unstack().reindex(index=score.index, columns=score.columns)
    score, human = score.reindex(index=list(models)), human.reindex(index=list(models))
    clusters = None
    if use_clusters:
        first = sub.drop_duplicates("item").set_index("item")["cluster"]
        clusters = pd.factorize(first.reindex(score.columns).astype(str))[0]
    return score.to_numpy(dtype=np.float64), human.to_numpy(dtype=np.float64), clusters


NOTE_ITEMS_SEVERAL_ROWS_TRIALS = NoteKind(
    'estimation.items-several-rows-trials', 'info',
    "items with several rows (trials, facets): each item's judge score is the mean of its rows, its human label "
    "the mean of the labels given")
NOTE_MODELS_SCORED_DIFFERENT_ITEMS = NoteKind(
    'estimation.models-scored-different-items', 'info',
    '{task}: models scored on different items ({value}{value2} lack some): each model is estimated on its own '
    'items; differences sum the influence of every item (zero where a model lacks it)')
NOTE_INTERVAL_END_S_REACHED = NoteKind(
    'estimation.interval-end-s-reached', 'caveat',
    '{past} interval end(s) reached past [0, 1], the range of the human labels, and are shown clipped to it '
    '(with few labels the t interval is wide)')


def ppi_estimate(data, *, method: str = "ppi++", confidence_level=0.95, alternative: str = "two-sided",
                 cluster: bool | None = None, models=None, tasks=None) -> PPIEstimates:
    """Prediction-powered estimates of every model's human-scale score on every task.

    Parameters
    ----------
    data : ResultsTable, path or DataFrame
        Item-level results whose ``score`` is the judge's score on every row and whose measure ``human`` holds
        the human label where there is one (anything :func:`evalband.read` accepts; map the label column with
        ``read(..., human_col=...)``).
    method : {'ppi++', 'classic', 'labelled'}
        PPI++ (power-tuned lambda, default), classic PPI (lambda = 1), or the labels alone (lambda = 0).
    confidence_level : float or str
    alternative : {'two-sided', 'less', 'greater'}
    cluster : bool, optional
        None: cluster-robust when the table has clusters; False: items as independent; True: require clusters.
    models, tasks : sequence of str, optional

    Returns
    -------
    PPIEstimates
        ``.to_frame()``: model, task, estimate, se, ci_low, ci_high, n_labelled, n_unlabelled, lambda, ess, gain,
        the labelled-only estimate and interval, and the judge's own mean.

    Notes
    -----
    Each model is estimated on its items of the task; when every model has every item (a test set) the
    estimates are paired, and :func:`ppi_compare` keeps the pairing through the items' influence terms (models
    scored on different items, as in pairwise battles, are handled alike: an item a model lacks counts zero for
    it). An item with several rows (trials, facets) has the mean of its judge scores and of its human labels.
    The estimate targets the mean human label over the model's items; it is valid when the labelled items are a
    random sample of them (see
    :func:`evalband.judges.ppi_mean`, whose numbers these are, equal to ``ppi_py.ppi_mean_ci``'s without
    clusters).

    References
    ----------
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered inference.
    arXiv:2311.01453.
    Dorner, F. E., Nastl, V. Y. & Hardt, M. (2024). Limits to scalable evaluation at the frontier: LLM as judge
    won't beat twice the data. arXiv:2410.13341.

    Examples
    --------
    >>> import evalband as eb
    >>> from evalband.judges import ppi_estimate
    >>> table = eb.read("judged.csv", human_col="human_label")     # doctest: +SKIP
    >>> ppi_estimate(table).to_frame()[["model", "estimate", "ci_low", "ci_high", "lambda", "ess"]]  # doctest: +SKIP
    """
    method = check_choice(method, PPI_METHODS, "method")
    level = check_confidence_level(confidence_level)
    if cluster not in (None, True, False):
        raise ArgumentTypeError(words('`{arg:cluster}` must be None, True or False; got {cluster!r}.', cluster=cluster))
    table = _table(data, models, tasks)
    if cluster is True and not table.has_clusters:
        raise InputError(words('{arg:cluster=True} but the table has no cluster column'), source=table.source)
    use_clusters = table.has_clusters and cluster is not False
    models_, tasks_ = table.models, table.tasks
    shape = (len(models_), len(tasks_))
    out = {k: np.full(shape, np.nan) for k in ("estimate", "se", "low", "high", "lam", "ess", "gain", "lab_est",
                                               "lab_se", "lab_low", "lab_high", "judge", "df", "se_asym")}
    n_lab = np.zeros(shape, dtype=np.int64)
    n_unl = np.zeros(shape, dtype=np.int64)
    n_clusters = np.full(len(tasks_), np.nan)
    # nothing is left out here (every model keeps all of its items), so the table's note saying that paired
    # analyses leave unshared items out does not apply
    notes = [n for n in table.notes if getattr(n, "code", None) != COVERAGE_UNSHARED.code]
    if table.has_trials or table.facets:
        notes.append(NOTE_ITEMS_SEVERAL_ROWS_TRIALS())
    per_task = []
    for t, task in enumerate(tasks_):
        judge, human, clusters = _task_matrices(table, task, models_, use_clusters)
        lacking = [mdl for mdl, row in zip(models_, judge) if np.isnan(row).any()]
        if lacking and len(models_) > 1:
            notes.append(NOTE_MODELS_SCORED_DIFFERENT_ITEMS(task=task, value=', '.join(lacking[:4]), value2=' ...' if len(lacking) > 4 else ''))
        res = ppi_mean(judge, human, method=method, confidence_level=level, alternative=alternative,
                       clusters=clusters)
        for key, val in (("estimate", res.estimate), ("se", res.se), ("low", res.ci.low), ("high", res.ci.high),
                         ("lam", res.lam), ("ess", res.ess), ("gain", res.gain),
                         ("lab_est", res.labelled_estimate), ("lab_se", res.labelled_se),
                         ("lab_low", res.labelled_ci.low), ("lab_high", res.labelled_ci.high),
                         ("judge", res.judge_mean), ("df", res.df), ("se_asym", res.se_asymptotic)):
            out[key][:, t] = val
        n_lab[:, t], n_unl[:, t] = res.n_labelled, res.n_unlabelled
        if res.n_clusters is not None:
            n_clusters[t] = res.n_clusters
        onehot = None
        if clusters is not None:
            onehot = np.zeros((clusters.size, res.n_clusters))
            onehot[np.arange(clusters.size), np.unique(clusters, return_inverse=True)[1]] = 1.0
        per_task.append((res, onehot))
        notes += ppi_notes(models_, res, where=task if len(tasks_) > 1 else "")
    labels = table.data["human"].to_numpy(dtype=np.float64)
    labels = labels[np.isfinite(labels)]
    if labels.size and labels.min() >= 0 and labels.max() <= 1:  # a mean of labels in [0, 1] lies in [0, 1]
        ends = [out[k] for k in ("low", "high", "lab_low", "lab_high")]
        past = int(sum(np.sum((e < 0) | (e > 1)) for e in ends))
        if past:
            for k in ("low", "high", "lab_low", "lab_high"):
                out[k] = np.clip(out[k], 0.0, 1.0)
            notes.append(NOTE_INTERVAL_END_S_REACHED(past=past))
    return PPIEstimates(models_, tasks_, out["estimate"], out["se"], ConfidenceInterval(out["low"], out["high"]),
                        out["lam"], n_lab, n_unl, out["ess"], out["gain"], out["lab_est"], out["lab_se"],
                        ConfidenceInterval(out["lab_low"], out["lab_high"]), out["judge"], n_clusters, method, level,
                        alternative, tuple(notes), 1.0 if table.score_kind == "unbounded" else 100.0,
                        tuple(per_task), out["df"], out["se_asym"])


NOTE_TASK_WEIGHTS_DO_NOT = NoteKind(
    'estimation.task-weights-do-not', 'caveat',
    'task weights do not change the per-task PPI estimates (compare and rank weigh them)')


def estimate_human_scale(sel, *, ppi="ppi++", method: str = "auto", confidence_level=0.95, cluster=None):
    """:func:`evalband.estimate` on results with human labels: :func:`~evalband.judges.ppi_estimate` of the
    selection, with the rule's note first (a :class:`~evalband.judges.PPIEstimates`)."""
    from dataclasses import replace

    from .._validate import ArgumentError

    ppi = check_ppi(ppi)
    if method not in ("auto", ppi):
        raise ArgumentError(words("`{arg:method}` {method!r} would estimate the judge's scores; with human labels the estimate is prediction-powered (`{arg:ppi=}` 'ppi++', 'classic' or 'labelled'), or give {arg:ppi='none'} for the judge's scores at face value.", method=method))
    est = ppi_estimate(sel, method=ppi, confidence_level=confidence_level, cluster=cluster)
    table = sel.table
    n_lab = int(np.isfinite(table.data["human"].to_numpy(dtype=np.float64)).sum())
    notes = [ppi_rule_note(ppi, n_lab, len(table.data)), *est.notes, *sel.notes]
    if sel.weights is not None:
        notes.append(NOTE_TASK_WEIGHTS_DO_NOT())
    return replace(est, notes=tuple(dict.fromkeys(notes)))
