"""Task-weight sensitivity: which model is significantly best under every weighting of the task groups.

Tasks are grouped (VTAB: natural, specialized, structured). A weighting ``w`` (non-negative, summing to one)
scores model ``m`` by ``S_m(w) = sum_g w_g * mean_{t in g} Y_mt``. At each ``w`` of a fine grid the model with the
highest ``S`` is *significantly best* when its lead over the runner-up exceeds ``z`` standard errors of their
difference; otherwise the point is *undecided*. Two groups give a line of weights, three a triangle (simplex),
more groups a Dirichlet sample of weights summarised by the share of weight space each model wins.

Because ``S(w)`` is linear in ``w``, its variance is a quadratic form ``w' C w`` in the (model, group) covariance
``C`` of the group means. ``C`` comes from the paired bootstrap replicates when they exist (the correlation between
models is then measured), from the plug-in covariance of paired item-level scores, or, for per-task summaries,
from binomial variances with an assumed correlation between models.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import ArgumentError, as_generator, check_choice, check_positive_int
from ._grid import dirichlet_points, line_grid, simplex_lattice
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["weight_sensitivity", "best_model_map", "WeightSensitivity", "Z_PRESETS", "group_covariance"]

#: Thresholds of Longjohn, Gopalan & Casleton (2025): the lead must exceed ``z`` standard errors computed as if
#: the two models were independent; ``z = 2`` assumes independence, ``z = 1.4`` (about ``2 * sqrt(1 - 0.5)``)
#: allows for a moderate positive correlation (0.5) between the two models' scores.
Z_PRESETS = {"independent": 2.0, "correlated": 1.4}

_METHODS = ("auto", "bootstrap", "analytic")


@displayed


@dataclass(frozen=True, repr=False)
class WeightSensitivity:
    """The best model, and whether it is significantly best, at each point of the weight simplex.

    Attributes
    ----------
    models, groups : tuple of str
    weights : numpy.ndarray, shape (P, G)
        The weightings evaluated (rows sum to one).
    scores : numpy.ndarray, shape (P, M)
        Weighted aggregate of each model at each weighting.
    best, runner_up : numpy.ndarray of int, shape (P,)
        Indices (into ``models``) of the highest and second-highest model.
    lead, se : numpy.ndarray, shape (P,)
        ``scores[best] - scores[runner_up]`` and the standard error of that difference.
    correlation : numpy.ndarray, shape (P,)
        Correlation between the two models' aggregates: measured (paired data) or assumed.
    decided : numpy.ndarray of bool, shape (P,)
        ``lead > z * se``: the best model is significantly best here.
    z : float
    layout : {'line', 'simplex', 'sampled'}
    se_source : {'bootstrap', 'plug-in', 'binomial'}
    correlation_source : {'measured', 'assumed'}
    resolution : int or None
        Grid resolution (line and simplex); None for sampled weights.
    notes : tuple of str
    """

    #: print(result) and the notebook: the lead of the best model (points for accuracies) beside its SE
    __display__ = {"value_cols": ("lead", "se")}

    models: tuple[str, ...]
    groups: tuple[str, ...]
    weights: np.ndarray
    scores: np.ndarray
    best: np.ndarray
    runner_up: np.ndarray
    lead: np.ndarray
    se: np.ndarray
    correlation: np.ndarray
    decided: np.ndarray
    z: float
    layout: str
    se_source: str
    correlation_source: str
    resolution: int | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def winner(self) -> np.ndarray:
        """Index of the significantly best model at each point, -1 where undecided."""
        return np.where(self.decided, self.best, -1)

    def shares(self) -> pd.DataFrame:
        """Share of the weight points at which each model is significantly best, plus 'undecided'.

        For sampled (Dirichlet) weights the share estimates a fraction of the simplex's volume; ``share_se`` is
        its Monte Carlo standard error. For grids it is the fraction of grid points (``share_se`` is NaN).
        """
        P = len(self.best)
        counts = np.bincount(self.winner + 1, minlength=len(self.models) + 1)
        names = ["undecided", *self.models]
        share = counts / P
        se = np.sqrt(share * (1 - share) / P) if self.layout == "sampled" else np.full(len(share), np.nan)
        frame = pd.DataFrame({"model": names, "share": share, "share_se": se, "points": counts})
        order = [0] + list(1 + np.argsort(-counts[1:], kind="stable"))
        return frame.iloc[order[1:] + order[:1]].reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        """One row per weighting: the weights, best model, runner-up, lead, its SE and the verdict."""
        models = np.asarray(self.models, dtype=object)
        frame = pd.DataFrame(self.weights, columns=[f"w_{g}" for g in self.groups])
        frame["best"] = models[self.best]
        frame["runner_up"] = models[self.runner_up]
        frame["lead"] = self.lead
        frame["se"] = self.se
        frame["correlation"] = self.correlation
        frame["decided"] = self.decided
        frame["winner"] = np.where(self.decided, models[self.best], None)
        return frame

    def nearest(self, weights) -> int:
        """Index of the evaluated weighting closest to ``weights`` (given in group order)."""
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(self.groups),):
            raise ArgumentError(words('`{arg:weights}` must have one entry per group ({n_groups}); got shape {shape}.', n_groups=len(self.groups), shape=w.shape))
        return int(np.argmin(((self.weights - w / w.sum()) ** 2).sum(axis=1)))


# ---------------------------------------------------------------------------------------------- array core
def best_model_map(group_scores, group_cov, weights, *, z: float):
    """Best model, runner-up, lead, its SE and the verdict at each weighting (vectorized over weightings).

    Parameters
    ----------
    group_scores : array, shape (M, G)
        Each model's mean score in each task group.
    group_cov : array, shape (M, G, M, G)
        Covariance of the group means: ``group_cov[a, g, b, h] = Cov(Y_ag, Y_bh)``.
    weights : array, shape (P, G)
    z : float

    Returns
    -------
    dict of arrays: scores (P, M), best, runner_up, lead, se, correlation, decided (each (P,)).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.weights import best_model_map, group_covariance, line_grid
    >>> group_scores = np.array([[0.80, 0.60], [0.72, 0.70]])
    >>> task_cov = np.array([[[4e-4, 2e-4], [2e-4, 4e-4]]] * 2)
    >>> cov = group_covariance(task_cov, np.eye(2))
    >>> out = best_model_map(group_scores, cov, line_grid(4), z=1.96)
    >>> out["best"], out["decided"]
    (array([0, 0, 1, 1, 1]), array([ True,  True, False,  True,  True]))
    >>> np.round(out["lead"], 3)
    array([0.08 , 0.035, 0.01 , 0.055, 0.1  ])
    """
    Y = np.asarray(group_scores, dtype=np.float64)
    C = np.asarray(group_cov, dtype=np.float64)
    W = np.asarray(weights, dtype=np.float64)
    scores = W @ Y.T                                            # (P, M)
    top2 = np.argsort(-scores, axis=1, kind="stable")[:, :2]
    a, b = top2[:, 0], top2[:, 1]
    rows = np.arange(len(W))
    lead = scores[rows, a] - scores[rows, b]
    # Var(S_a - S_b) = w' (C_aa + C_bb - C_ab - C_ba) w, gathered per weighting as (P, G, G) blocks
    Caa, Cbb, Cab = C[a, :, a, :], C[b, :, b, :], C[a, :, b, :]
    quad = lambda M: np.einsum("pg,pgh,ph->p", W, M, W)
    va, vb, cab = quad(Caa), quad(Cbb), quad(Cab)
    var = np.maximum(va + vb - 2.0 * cab, 0.0)
    se = np.sqrt(var)
    denom = np.sqrt(va * vb)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.where(denom > 0, cab / np.where(denom > 0, denom, 1.0), np.nan)
    decided = lead > z * se
    return dict(scores=scores, best=a, runner_up=b, lead=lead, se=se, correlation=corr, decided=decided)


def group_covariance(task_cov, membership):
    """Covariance of group means from per-task covariances between models.

    Parameters
    ----------
    task_cov : array, shape (T, M, M)
        ``Cov(Y_at, Y_bt)`` for each task; tasks are independent of each other (separate test sets).
    membership : array, shape (T, G)
        Task weights within each group (columns sum to one; equal weights give group means).

    Returns
    -------
    numpy.ndarray, shape (M, G, M, G)

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.weights import group_covariance
    >>> task_cov = np.array([[[4e-4, 2e-4], [2e-4, 4e-4]]] * 3)
    >>> membership = np.array([[0.5, 0.0], [0.5, 0.0], [0.0, 1.0]])
    >>> cov = group_covariance(task_cov, membership)
    >>> cov.shape
    (2, 2, 2, 2)
    >>> cov[0, :, 0, :]
    array([[0.0002, 0.    ],
           [0.    , 0.0004]])
    """
    A = np.asarray(membership, dtype=np.float64)
    # Cov(sum_t A_tg Y_at, sum_s A_sh Y_bs) = sum_t A_tg A_th Cov_t(a, b)   (tasks independent)
    return np.einsum("tg,th,tab->agbh", A, A, np.asarray(task_cov, dtype=np.float64))


# ---------------------------------------------------------------------------------------------- front end
NOTE_NO_TASK_GROUPS_EACH = NoteKind('weights.no-task-groups-each', 'info',
                                     'no task groups: each task is its own group')
NOTE_CORRELATION_BETWEEN_MODELS_ASSUMED = NoteKind('weights.correlation-between-models-assumed', 'caveat',
                                                    'correlation between models assumed to be {rho:g}')
NOTE_WEIGHTS_OVER_TASK_EVERY = NoteKind(
    'weights.weights-over-task-every', 'excluded',
    'the weights are over the {n_tasks} task{value} every model has ({n_lacking} of {total} left out; select '
    'models with evalband.select(data, {arg:models=...}) to keep them)')
NOTE_Z_ALLOWS_CORRELATION_SE = NoteKind(
    'weights.z-allows-correlation-se', 'info',
    'z = 1.4 allows for a correlation the SE already measures; z = 2 is the matching threshold')


NOTE_CORRELATION_MEASURED = NoteKind("weights.correlation-measured", "info",
                                     "correlation between models measured from paired {units}")


def weight_sensitivity(data, *, groups=None, z="independent", correlation=None, method="auto",
                       resolution=None, n_points=20_000, n_resamples=2_000, rng=None) -> WeightSensitivity:
    """Map which model is significantly best over all weightings of the task groups.

    Parameters
    ----------
    data : ResultsTable, Replicates, DataFrame or path
        Per-task results. A :class:`~evalband.resample.Replicates` from ``evalband.resample.bootstrap`` gives the
        covariance from its replicates (shared with every other result computed from it). A DataFrame or path
        goes through :func:`evalband.read`, as in ``estimate``, ``compare`` and ``rank``. Tasks some model lacks
        (or, at item level, on which the models share no item) are left out with a note, as in ``compare``.
    groups : dict, optional
        Task -> group. Default: the table's groups; without groups each task is its own group.
    z : {'independent', 'correlated'} or float
        Threshold in standard errors of the difference. The presets are Longjohn et al.'s: 2 (independence) and
        1.4 (moderate positive correlation, with the SE computed as if independent).
    correlation : float in [-1, 1], optional
        Assumed correlation between two models' scores on the same task. Default: measured from paired
        replicates or paired items; 0 (independence) for per-task summaries.
    method : {'auto', 'bootstrap', 'analytic'}
        'bootstrap' needs item-level data or Replicates; 'analytic' uses the plug-in covariance of paired item
        scores (cluster-robust when the table has clusters) or binomial variances ``p (1 - p) / n``.
        'auto': bootstrap for Replicates and item-level tables, analytic for summaries.
    resolution : int, optional
        Grid steps along each weight: default 200 for two groups, 90 for three (4,186 points).
    n_points : int
        Dirichlet-sampled weightings for more than three groups.
    n_resamples : int
        Bootstrap replicates when a table must be resampled.
    rng : optional
        Seed or Generator (Dirichlet sampling and resampling).

    Returns
    -------
    WeightSensitivity

    Notes
    -----
    The verdict at each point is a ``z``-standard-error rule between the top two models, not a simultaneous
    test over all weightings or all models: a coloured region says "at these weights the leader's margin is
    large relative to its noise", as in Longjohn et al. (2025, Sec. 5). Ignoring a positive correlation between
    models (same test items) overstates the SE of their difference; the 1.4 preset allows for it when it cannot
    be measured. Groups are treated as independent (different test sets).

    References
    ----------
    R. Longjohn, G. Gopalan, E. Casleton (2025). Statistical Uncertainty Quantification for Aggregate
    Performance Metrics in Machine Learning Benchmarks. arXiv:2501.04234.

    Examples
    --------
    >>> import evalband as eb
    >>> ws = eb.weight_sensitivity(eb.load_example("vtab"), n_points=500, n_resamples=100, rng=0)
    >>> type(ws).__name__
    'WeightSensitivity'
    """

    method = check_choice(method, _METHODS, "method")
    z_value = _check_z(z)
    rho = None if correlation is None else _check_correlation(correlation)
    gen = as_generator(rng)
    notes = []

    from ..resample import ReplicateSet
    from ..selection import select

    if isinstance(data, ReplicateSet):
        is_table = False
    else:  # tasks some model lacks are left out with a note, as in compare and rank
        sel = select(data)
        table = sel.table
        if len(table.models) < 2:
            raise ArgumentError(f"`data` must hold at least two models; got {len(table.models)}.")
        paired = table.level == "item" and table.paired_items
        sel = sel.complete_tasks(shared_items=paired, independent=not paired)
        data = sel.table
        is_table = True
        if sel.left_out.lacking:
            lacking = sel.left_out.lacking
            total = len(lacking) + len(sel.tasks)
            notes.extend(sel.left_out.lacking_notes(total)[:-1])
            notes.append(NOTE_WEIGHTS_OVER_TASK_EVERY(n_tasks=len(sel.tasks), value='s' if len(sel.tasks) != 1 else '', n_lacking=len(lacking), total=total))
    if len(data.models) < 2:
        raise ArgumentError(f"`data` must hold at least two models; got {len(data.models)}.")
    tasks = tuple(data.tasks)
    models = tuple(data.models)
    mapping = groups if groups is not None else data.task_groups
    if mapping is None:
        mapping = {t: t for t in tasks}
        notes.append(NOTE_NO_TASK_GROUPS_EACH())
    missing = [t for t in tasks if t not in mapping]
    if missing:
        raise ArgumentError(f"`groups` lacks task(s) {', '.join(map(repr, missing[:5]))}.")
    group_names = tuple(dict.fromkeys(str(mapping[t]) for t in tasks))
    G = len(group_names)
    if G < 2:
        raise ArgumentError(f"weight sensitivity needs at least two task groups; got {G} ({group_names[0]!r}).")
    membership = np.zeros((len(tasks), G))
    for k, t in enumerate(tasks):
        membership[k, group_names.index(str(mapping[t]))] = 1.0
    membership /= membership.sum(axis=0, keepdims=True)

    if is_table and (method == "bootstrap" or (method == "auto" and data.level == "item")):
        from ..resample import bootstrap

        data = bootstrap(data, n_resamples=n_resamples, rng=gen)
        is_table = False
    if is_table:
        observed, task_cov, se_source, measured = _analytic_task_cov(data, models, tasks, rho)
        group_cov = None
    else:
        if method == "analytic":
            raise ArgumentError(words("`{arg:method='analytic'}` needs a ResultsTable; Replicates carry bootstrap replicates."))
        observed = np.asarray(data.observed, dtype=np.float64)
        reps = np.asarray(data.replicates, dtype=np.float64)
        measured = data.resampling == "paired"
        se_source = "bootstrap"
        if measured and rho is None:
            # the covariance of the (B, M, G) group-mean replicates: exactly the spread of (B, M, P) aggregates
            group_cov = _replicate_cov(reps @ membership)
        else:
            task_cov, group_cov = _replicate_task_var(reps), None
    if rho is None and not measured:
        rho = 0.0
    if rho is not None:
        group_cov = group_covariance(_impose_correlation(task_cov, rho), membership)
        notes.append(NOTE_CORRELATION_BETWEEN_MODELS_ASSUMED(rho=rho))
    else:
        if group_cov is None:
            group_cov = group_covariance(task_cov, membership)
        notes.append(NOTE_CORRELATION_MEASURED(
            units="bootstrap replicates" if se_source == "bootstrap" else "items"))
        if isinstance(z, str) and z.strip().lower() == "correlated":
            notes.append(NOTE_Z_ALLOWS_CORRELATION_SE())

    group_scores = observed @ membership                       # (M, G)
    if G == 2:
        resolution = check_positive_int(200 if resolution is None else resolution, "resolution")
        W, layout = line_grid(resolution), "line"
    elif G == 3:
        resolution = check_positive_int(90 if resolution is None else resolution, "resolution")
        W, layout = simplex_lattice(resolution), "simplex"
    else:
        n_points = check_positive_int(n_points, "n_points")
        W, layout, resolution = dirichlet_points(n_points, G, gen), "sampled", None
    out = best_model_map(group_scores, group_cov, W, z=z_value)
    return WeightSensitivity(models, group_names, W, out["scores"], out["best"], out["runner_up"], out["lead"],
                             out["se"], out["correlation"], out["decided"], z_value, layout, se_source,
                             "assumed" if rho is not None else "measured", resolution,
                             tuple(notes) + tuple(data.notes))


def _check_z(z) -> float:
    if isinstance(z, str):
        key = z.strip().lower()
        if key not in Z_PRESETS:
            raise ArgumentError(f"`z` must be a positive number or one of {', '.join(map(repr, Z_PRESETS))};"
                             f" got {z!r}.")
        return Z_PRESETS[key]
    if isinstance(z, bool) or not isinstance(z, numbers.Real) or not np.isfinite(z) or z < 0:
        raise ArgumentError(f"`z` must be a non-negative number or a preset name; got {z!r}.")
    return float(z)


def _check_correlation(rho) -> float:
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not -1 <= float(rho) <= 1:
        raise ArgumentError(f"`correlation` must be a number in [-1, 1]; got {rho!r}.")
    return float(rho)


def _impose_correlation(task_cov, rho):
    """Keep each model's variance, replace covariances between models by ``rho * sd_a * sd_b``."""
    sd = np.sqrt(np.maximum(np.diagonal(task_cov, axis1=1, axis2=2), 0.0))       # (T, M)
    out = rho * sd[:, :, None] * sd[:, None, :]
    idx = np.arange(sd.shape[1])
    out[:, idx, idx] = sd ** 2
    return out


def _replicate_cov(group_reps):
    """(M, G, M, G) covariance across replicates of (B, M, G) group means."""
    B, M, G = group_reps.shape
    flat = group_reps.reshape(B, M * G)
    centred = flat - flat.mean(axis=0)
    return (centred.T @ centred / (B - 1)).reshape(M, G, M, G)


def _replicate_task_var(reps):
    """(T, M, M) diagonal covariances: each model's replicate variance per task, nothing between models."""
    var = reps.var(axis=0, ddof=1)                                                # (M, T)
    out = np.zeros((var.shape[1], var.shape[0], var.shape[0]))
    idx = np.arange(var.shape[0])
    out[:, idx, idx] = var.T
    return out


def _analytic_task_cov(table, models, tasks, rho):
    """Observed (M, T) means and (T, M, M) plug-in covariances of the task means."""
    if table.level == "summary":
        counts = table.counts(models=models, tasks=tasks)
        p = counts.accuracy
        var = p * (1 - p) / counts.n                                              # (M, T)
        cov = np.zeros((len(tasks), len(models), len(models)))
        idx = np.arange(len(models))
        cov[:, idx, idx] = var.T
        return p, cov, "binomial", False
    observed = np.empty((len(models), len(tasks)))
    cov = np.empty((len(tasks), len(models), len(models)))
    for k, t in enumerate(tasks):            # one task at a time: each has its own common items
        td = table.task_data(t, models=models)
        x = td.scores
        n = x.shape[1]
        observed[:, k] = x.mean(axis=1)
        xc = x - observed[:, k:k + 1]
        if td.clusters is not None:
            sums = np.zeros((len(models), td.n_clusters))
            np.add.at(sums.T, td.clusters, xc.T)
            cov[k] = sums @ sums.T / n ** 2
        else:
            cov[k] = xc @ xc.T / n ** 2
    return observed, cov, "plug-in", True
