"""Prediction-powered inference as a replicate set: the one rule for results with human labels.

**The rule.** When the selected item-level table carries human labels (the measure ``human``: a column named
``human``, or the one named by ``human_col=`` / ``--human-col``, holding the human label where there is one), every
analysis over it targets the *human-scale* quantity: ``evalband.estimate`` gives PPI++ estimates (analytic, equal
to ``ppi_py.ppi_mean_ci``), and the bootstrap engine (so ``compare``, ``rank``, ``analyze`` and the report) draws
the replicates of each model's PPI estimate instead of its judge mean. ``ppi='classic'`` takes lambda = 1,
``ppi='labelled'`` lambda = 0 (the labels alone), ``ppi='none'`` the judge's scores at face value (labels
ignored, said in a note). Summary counts carry no labels; asking for them is an error.

**The replicates.** Per task, each model's estimate ``lambda * mean_unlabelled(f) + mean_labelled(y - lambda f)``
depends on the items only through four sums (labelled count, labelled residuals ``y - lambda f``, unlabelled
count, unlabelled ``lambda f``), so it is a :class:`~evalband.resample.Statistic` of summed item columns, and the
engine's paired (clustered) bootstrap applies unchanged: the same items for every model, whole clusters when
there are clusters. lambda is each model's PPI++ value on the data (:func:`~evalband.judges.ppi_mean`), held
fixed across replicates as the PPI variance formulas hold it. Items are those of every model on the task (a
model's columns are zero on items it lacks), so models scored on different items (pairwise games) are resampled
together, and a game shared by two models keeps their correlation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from .._validate import InputError
from .columns import ItemColumns
from .replicates import Replicates
from .statistics import Statistic
from ..display.reprs import displayed
from ..selection.judgements import FEW_LABELS, MIN_LABELS, PPI_CHOICES, check_ppi, ppi_method, ppi_rule_note, uses_ppi  # noqa: F401
from ..display.notes import NoteKind
from .._words import words

__all__ = ["PPI_CHOICES", "check_ppi", "uses_ppi", "ppi_method", "PPIReplicates", "ppi_replicates",
           "ppi_rule_note", "MIN_LABELS"]


@displayed


@dataclass(frozen=True, repr=False)
class PPIReplicates(Replicates):
    """Bootstrap replicates of every model's PPI estimate per task (a :class:`~evalband.resample.Replicates`).

    ``statistic`` is the PPI method ('ppi++', 'classic' or 'labelled'); ``ppi`` holds the analytic
    :class:`~evalband.judges.PPIEstimates` of the same cells (lambda, n_labelled, n_unlabelled, effective sample
    size, the labelled-only interval); ``n_units`` counts the items (clusters) resampled per task.
    """

    ppi: object = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        b, m, t = self.replicates.shape
        return (f"PPIReplicates({self.statistic}; {self.resampling} resampling of {self.unit}s: {b:,} replicates x"
                f" {m} models x {t} tasks; seed {self.seed})")


def _finish(sums, total):
    lab, res, unl, fun = (sums[..., k] for k in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        lab_part = res / lab
        unl_part = np.where(unl > 0, fun / np.where(unl > 0, unl, 1.0), 0.0)
    return lab_part + unl_part


def _columns(cols):
    return np.stack([np.asarray(cols[c], dtype=np.float64) for c in ("lab", "res", "unl", "fun")], axis=-1)


def ppi_statistic(method: str) -> Statistic:
    """The PPI estimate as a statistic of four summed item columns (``lab``, ``res``, ``unl``, ``fun``)."""
    return Statistic(method, ("lab", "res", "unl", "fun"), _columns, _finish)


NOTE_PPI_REPLICATES_EVERY_TASK = NoteKind(
    'resample.ppi-replicates-every-task', 'info',
    "PPI replicates: every {unit} of a task is resampled for every model at once (zero for a model on items it "
    "lacks), with each model's lambda held fixed")
NOTE_FEWER_THAN_HUMAN_LABELS = NoteKind(
    'resample.fewer-than-human-labels', 'caveat',
    'fewer than {few_labels} human labels on a task for {value}{value2}: their bootstrap intervals rest on so few '
    'labels that they cover less than they say (about 0.8 for a 95% interval at 20 labels); the t interval of '
    '`summarize` (labelled items minus one degrees of freedom) is the small-sample one; label more items to firm '
    'them up')
NOTE_REPLICATES_DREW_NONE_SOME = NoteKind(
    'resample.replicates-drew-none-some', 'caveat',
    "{value:,} of {n_resamples:,} replicates drew none of some model's labelled items (most often {value2}: "
    "{value3:,}); such a model keeps its observed estimate there, which understates the uncertainty of models "
    "with very few labels")


def ppi_replicates(data, *, ppi="ppi++", resampling: str = "auto", n_resamples: int = 10_000, rng=None,
                   models=None, tasks=None, cluster=None, progress=None, executor=None,
                   chunk_size: int | None = None) -> PPIReplicates:
    """Bootstrap replicates of each model's prediction-powered estimate on each task.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with human labels (anything :func:`evalband.select` accepts).
    ppi : {'ppi++', 'classic', 'labelled'}
    resampling : {'auto', 'paired', 'independent'}
        'auto' and 'paired' draw the same items for every model (every item of the task; a model's columns are
        zero on items it lacks); 'independent' draws each model's items on their own.
    n_resamples, rng, models, tasks, cluster, progress, executor, chunk_size
        As for :func:`evalband.resample.bootstrap`, which draws the replicates.

    Returns
    -------
    PPIReplicates

    Notes
    -----
    The observed values equal :func:`evalband.judges.ppi_estimate`'s estimates (the same lambda, the same items).
    With lambda held fixed each replicate is the PPI estimate recomputed on the resampled items, a ratio of sums
    because the numbers of labelled and unlabelled items drawn vary; its bootstrap variance approaches the
    analytic PPI variance (``lambda^2 var(f)/N + var(y - lambda f)/n``) as items grow, which
    ``tests/resample/test_ppi.py`` checks. Labels must be missing completely at random (a uniform random
    sample of the items), as for every PPI interval.

    References
    ----------
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered inference.
    arXiv:2311.01453.
    Boyeau, P., Angelopoulos, A. N., Yosef, N., Malik, J. & Jordan, M. I. (2024). AutoEval done right: using
    synthetic data for model evaluation. arXiv:2403.07008.

    Examples
    --------
    >>> from evalband.resample.ppi import ppi_replicates
    >>> reps = ppi_replicates("judged.csv", n_resamples=2000, rng=0)     # doctest: +SKIP
    >>> reps.observed, reps.ppi.lam                                      # doctest: +SKIP
    """
    from .engine import bootstrap
    from ..estimation.ppi_table import _task_matrices, ppi_estimate

    method = check_ppi(ppi)
    if method == "none":
        raise InputError(words("{arg:ppi='none'} takes the judge's scores at face value: use evalband.resample.bootstrap"))
    from ..selection.judgements import labelled_results

    table = labelled_results(data, models=models, tasks=tasks)
    if cluster is True and not table.has_clusters:
        raise InputError(words('{arg:cluster=True}, but the data have no cluster column'), source=table.source)
    use_clusters = table.has_clusters and cluster is not False
    est = ppi_estimate(table, method=method, cluster=use_clusters)
    few = np.argwhere(est.n_labelled < MIN_LABELS)
    if few.size:
        i, t = few[0]
        raise InputError(words("model '{value}' has {value2} human label(s) on task '{value3}': PPI needs at least {min_labels} per model and task (label more items, leave the model out with `{arg:models}`, or use {arg:ppi='none'} for the judge's scores at face value)", value=est.models[i], value2=int(est.n_labelled[i, t]), value3=est.tasks[t], min_labels=MIN_LABELS), source=table.source)
    data_cols, clusters = {}, ({} if use_clusters else None)
    for t, task in enumerate(est.tasks):
        judge, human, codes = _task_matrices(table, task, est.models, use_clusters)
        present = np.isfinite(judge)
        lab = present & np.isfinite(human)
        unl = present & ~lab
        lam = est.lam[:, t][:, None]
        f = np.where(present, judge, 0.0)
        y = np.where(lab, human, 0.0)
        data_cols[task] = {"lab": lab.astype(np.float64), "res": np.where(lab, y - lam * f, 0.0),
                           "unl": unl.astype(np.float64), "fun": np.where(unl, lam * f, 0.0)}
        if use_clusters:
            clusters[task] = codes
    cols = ItemColumns(est.models, est.tasks, data_cols, clusters, table.task_groups, (), table.source)
    if resampling == "auto":
        resampling = "paired"
    reps = bootstrap(cols, statistic=ppi_statistic(method), resampling=resampling, n_resamples=n_resamples,
                     rng=rng, cluster=cluster, progress=progress, executor=executor, chunk_size=chunk_size)
    n_rows = len(table.data)
    n_lab_rows = int(np.isfinite(table.data["human"].to_numpy(dtype=np.float64)).sum())
    notes = [ppi_rule_note(method, n_lab_rows, n_rows)]
    notes.append(NOTE_PPI_REPLICATES_EVERY_TASK(unit=reps.unit))
    few = [f"{m} ({int(k)})" for m, k in zip(est.models, est.n_labelled.min(axis=1)) if k < FEW_LABELS]
    if few:  # percentile intervals of PPI replicates from 20 labels cover 0.77-0.82 (tests/judges)
        notes.append(NOTE_FEWER_THAN_HUMAN_LABELS(few_labels=FEW_LABELS, value=', '.join(few[:6]),
                                                  value2=' and more' if len(few) > 6 else ''))
    notes += [n for n in est.notes if n not in table.notes]
    notes += [n for n in reps.notes if n not in table.notes]
    values = {f.name: getattr(reps, f.name) for f in fields(Replicates)}
    empty = np.isnan(reps.replicates) & np.isfinite(reps.observed)[None]
    if empty.any():  # a replicate that drew none of a model's labelled items has no PPI estimate
        draws = np.where(empty, reps.observed[None], reps.replicates)
        counts = empty.sum(axis=0)
        worst = np.unravel_index(np.argmax(counts), counts.shape)
        notes.append(NOTE_REPLICATES_DREW_NONE_SOME(value=int(empty.any(axis=(1, 2)).sum()), n_resamples=n_resamples, value2=est.models[worst[0]], value3=int(counts[worst])))
        values["replicates"] = draws
    values.update(notes=tuple(dict.fromkeys(notes)), seed=reps.seed)
    return PPIReplicates(**values, ppi=est)


