"""Performance profiles (Agarwal et al. 2021, rliable): the fraction of runs or tasks scoring above each tau.

A performance profile shows the whole distribution of (normalized) scores instead of one aggregate: for each
threshold tau, the fraction of runs scoring above tau (run-score distribution, each task weighted equally), or
the fraction of tasks whose mean over runs is above tau (average-score distribution). Bands come from a
bootstrap stratified over tasks: runs are resampled with replacement within each task, as in rliable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, as_generator, check_choice, check_confidence_level, check_positive_int
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["PerformanceProfile", "performance_profile", "run_scores"]

KINDS = ("runs", "tasks")
#: entries per vectorized bootstrap block (replicates x models x tasks x runs), to bound memory
_BLOCK = 2_000_000


@displayed


@dataclass(frozen=True, repr=False)
class PerformanceProfile:
    """Fraction of runs (or tasks) above each threshold, with pointwise bootstrap bands.

    Attributes
    ----------
    models, tasks : tuple of str
    taus : numpy.ndarray, shape (n_taus,)
    profile, low, high : numpy.ndarray, shape (n_models, n_taus)
        The observed fraction and the ends of its percentile bootstrap interval at each tau.
    kind : {'runs', 'tasks'}
    n_runs : numpy.ndarray of int, shape (n_models, n_tasks)
        Runs behind each model and task.
    n_resamples : int
    confidence_level : float
    resampling : str
        How the bands were made.
    seed : int or None
        The integer seed given, if any (for reports).
    notes : tuple of str
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    taus: np.ndarray
    profile: np.ndarray
    low: np.ndarray
    high: np.ndarray
    kind: str
    n_runs: np.ndarray
    n_resamples: int
    confidence_level: float
    resampling: str
    seed: int | None = None
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """Tidy: model, tau, fraction, low, high (fractions, not percent)."""
        m, k = np.meshgrid(np.arange(len(self.models)), np.arange(self.taus.size), indexing="ij")
        return pd.DataFrame({"model": np.asarray(self.models, dtype=object)[m.ravel()],
                             "tau": self.taus[k.ravel()], "fraction": self.profile.ravel(),
                             "low": self.low.ravel(), "high": self.high.ravel()})


def _as_runs(runs, models, tasks):
    """-> (x (M, R, T) NaN-padded, models, tasks)."""
    if isinstance(runs, dict):
        names = list(runs)
        arrays = [np.asarray(runs[n], dtype=float) for n in names]
        for n, a in zip(names, arrays):
            if a.ndim != 2:
                raise ArgumentError(f"`runs[{n!r}]` must be 2-D (runs x tasks); got shape {a.shape}.")
        n_t = {a.shape[1] for a in arrays}
        if len(n_t) != 1:
            raise ArgumentError(f"`runs`: every model needs the same number of tasks; got {sorted(n_t)}.")
        r_max = max(a.shape[0] for a in arrays)
        x = np.full((len(arrays), r_max, n_t.pop()), np.nan)
        for i, a in enumerate(arrays):
            x[i, : a.shape[0]] = a
        models = names if models is None else list(models)
    else:
        x = np.asarray(runs, dtype=float)
        if x.ndim != 3:
            raise ArgumentError(f"`runs` must be a dict of (runs x tasks) arrays or a (models x runs x tasks) array;"
                             f" got shape {x.shape}.")
        models = [f"model {i}" for i in range(x.shape[0])] if models is None else list(models)
    tasks = [f"task {j}" for j in range(x.shape[2])] if tasks is None else list(tasks)
    if len(models) != x.shape[0] or len(tasks) != x.shape[2]:
        raise ArgumentError(words('`{arg:models}`/`{arg:tasks}`: {n_models} and {n_tasks} names for runs shaped {shape} (models x runs x tasks).', n_models=len(models), n_tasks=len(tasks), shape=x.shape))
    if np.isinf(x).any():
        raise ArgumentError("`runs` holds an infinite score.")
    return x, tuple(map(str, models)), tuple(map(str, tasks))


def run_scores(table, *, models=None, tasks=None, run: str = "auto"):
    """Run-level scores from an item-level :class:`~evalband.data.table.ResultsTable`.

    Parameters
    ----------
    run : {'auto', 'item', 'trial'}
        What a run is: 'item' (rliable score files, read by ``evalband.io``, hold one item per run), 'trial'
        (each run's score on a task is its mean over the task's items), or 'auto': 'trial' when the table has
        trials, else 'item'.

    Returns
    -------
    (runs, models, tasks)
        ``runs`` shaped (n_models, max_runs, n_tasks), NaN where a model has fewer runs.

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> from evalband.tasks import run_scores
    >>> df = pd.DataFrame({"model": ["A"] * 4 + ["B"] * 4, "task": "t1", "item": ["x", "x", "y", "y"] * 2,
    ...                    "trial": [0, 1] * 4, "score": [1, 0, 1, 1, 0, 0, 1, 0]})
    >>> runs, models, tasks = run_scores(eb.read(df))
    >>> runs.shape, models, tasks
    ((2, 2, 1), ('A', 'B'), ('t1',))
    >>> runs[:, :, 0]
    array([[1. , 0.5],
           [0.5, 0. ]])
    """
    from .._validate import check_names

    if table.level != "item":
        raise ArgumentError("`table`: run-level scores need an item-level table (runs as items or trials).")
    run = check_choice(run, ("auto", "item", "trial"), "run")
    if run == "auto":
        run = "trial" if table.has_trials else "item"
    models = check_names(models, table.models, "models")
    tasks = check_names(tasks, table.tasks, "tasks")
    d = table.data
    d = d.loc[d["model"].isin(models) & d["task"].isin(tasks)]
    if run == "trial":
        table.require_trial_rows("a run per trial")
        per = d.groupby(["model", "task", "trial"], observed=True)["score"].mean()
        ri = per.index.get_level_values("trial").to_numpy()
    else:
        per = d.groupby(["model", "task", "item"], observed=True)["score"].mean()
        # runs numbered within each (model, task) in order of appearance
        ri = per.groupby(level=["model", "task"], observed=True).cumcount().to_numpy()
    x = np.full((len(models), int(ri.max()) + 1, len(tasks)), np.nan)
    mi = pd.Categorical(per.index.get_level_values("model"), categories=models).codes
    ti = pd.Categorical(per.index.get_level_values("task"), categories=tasks).codes
    x[mi, ri, ti] = per.to_numpy()
    return x, tuple(models), tuple(tasks)


NOTE_MODELS_HAVE_DIFFERENT_NUMBERS = NoteKind('tasks.models-have-different-numbers', 'info',
                                               'models have different numbers of runs ({value} to {value2} per task)')


def performance_profile(runs, models=None, tasks=None, *, taus=None, kind: str = "runs",
                        n_resamples: int = 2000, confidence_level=0.95, rng=None, replicates=None,
                        resampler: str = "auto") -> PerformanceProfile:
    """Performance profiles with stratified-bootstrap bands.

    Parameters
    ----------
    runs : dict or array_like
        ``{model: array (n_runs, n_tasks)}`` (rliable's convention; models may have different numbers of runs),
        or an array (n_models, n_runs, n_tasks) with NaN for missing runs (see :func:`run_scores`). Scores should
        be normalized so that one tau means the same on every task (e.g. human-normalized).
    models, tasks : sequence of str, optional
    taus : array_like, optional
        Thresholds; default 101 points from the lowest to the highest score.
    kind : {'runs', 'tasks'}
        'runs': fraction of runs with score > tau, averaged over tasks (each task weighted equally).
        'tasks': fraction of tasks whose mean score over runs is > tau.
    n_resamples : int, default 2000
    confidence_level : float, default 0.95
        Pointwise percentile intervals.
    rng : None, int or numpy.random.Generator
    replicates : evalband.resample.Replicates, optional
        For ``kind='tasks'``: use the engine's replicates of the per-task means, shape (B, M, T), instead of
        resampling here (``runs`` is then ignored except for labels).
    resampler : {'auto', 'engine', 'builtin'}
        'engine': the bootstrap engine's stratified item bootstrap (:func:`evalband.resample.bootstrap_items`,
        runs resampled independently per model and task); 'builtin': the same scheme drawn here as counts per
        run (faster for many thresholds); 'auto': the engine when it is installed, else builtin.

    Returns
    -------
    PerformanceProfile

    Notes
    -----
    The bootstrap resamples runs within each task independently (stratified over tasks), which treats the tasks
    as fixed and the runs as the random part; it does not resample tasks. Profiles are step functions; the bands
    are pointwise, not simultaneous over tau. A profile that lies above another everywhere is "stochastically
    dominant" (Agarwal et al. 2021, section 4).

    References
    ----------
    Agarwal, R., Schwarzer, M., Castro, P. S., Courville, A. & Bellemare, M. G. (2021). Deep reinforcement
    learning at the edge of the statistical precipice. NeurIPS 34.
    Dolan, E. D. & More, J. J. (2002). Benchmarking optimization software with performance profiles. Math.
    Program. 91, 201-213.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> runs = {"a": rng.uniform(0.4, 0.9, (5, 8)), "b": rng.uniform(0.3, 0.8, (5, 8))}
    >>> prof = eb.performance_profile(runs, taus=[0.5, 0.7], n_resamples=100, rng=0)
    >>> prof.to_frame()[["model", "tau"]].drop_duplicates().shape
    (4, 2)
    """
    kind = check_choice(kind, KINDS, "kind")
    level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    seed = int(rng) if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    notes = []
    if replicates is not None:
        if kind != "tasks":
            raise ArgumentError("`replicates` (per-task means) can only make the 'tasks' profile; use kind='tasks'.")
        reps = np.asarray(replicates.replicates, dtype=float)
        obs = np.asarray(replicates.observed, dtype=float)
        models_t, tasks_t = tuple(replicates.models), tuple(replicates.tasks)
        taus = _taus(taus, obs)
        profile = (obs[..., None] > taus).mean(axis=-2)
        boot = (reps[..., None] > taus).mean(axis=-2)
        n_runs = np.asarray(getattr(replicates, "n_units", np.zeros(len(tasks_t))), dtype=np.int64)
        n_runs = np.broadcast_to(n_runs, obs.shape).copy()
        resampling = f"engine replicates ({getattr(replicates, 'resampling', '?')}, {reps.shape[0]} resamples)"
        n_resamples = reps.shape[0]
        seed = getattr(replicates, "seed", seed)
        models, tasks = models_t, tasks_t
    else:
        x, models, tasks = _as_runs(runs, models, tasks)
        have = ~np.isnan(x)
        n_runs = have.sum(axis=1)  # (M, T)
        if (n_runs == 0).any():
            bad = np.argwhere(n_runs == 0)[0]
            raise ArgumentError(f"`runs`: model {models[bad[0]]!r} has no run on task {tasks[bad[1]]!r}.")
        taus = _taus(taus, x[have])
        ind = np.where(have[..., None], x[..., None] > taus, False).astype(np.float64)  # (M, R, T, K)
        xz = np.where(have, x, 0.0)
        if kind == "runs":
            profile = (ind.sum(axis=1) / n_runs[..., None]).mean(axis=1)  # (M, K)
        else:
            means = xz.sum(axis=1) / n_runs
            profile = (means[..., None] > taus).mean(axis=1)
        resampler = check_choice(resampler, ("auto", "engine", "builtin"), "resampler")
        engine = None
        if resampler != "builtin":
            try:
                from ..resample import bootstrap_items as engine
            except ImportError:
                if resampler == "engine":
                    raise
        if engine is not None:
            boot = _engine_bootstrap(engine, x, models, tasks, taus, kind, n_resamples, gen)
            where = "evalband.resample.bootstrap_items"
        else:
            boot = _bootstrap(xz, ind, have, n_runs, taus, kind, n_resamples, gen)
            where = "evalband.tasks builtin"
        resampling = (f"stratified bootstrap over tasks: runs resampled within each task, {n_resamples}"
                      f" resamples ({where})")
        if len(set(n_runs.ravel().tolist())) > 1:
            notes.append(NOTE_MODELS_HAVE_DIFFERENT_NUMBERS(value=n_runs.min(), value2=n_runs.max()))
    alpha = 1 - level
    low, high = np.quantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    return PerformanceProfile(models, tasks, taus, profile, low, high, kind, n_runs, int(n_resamples), level,
                              resampling, seed, tuple(notes))


def _taus(taus, values):
    if taus is None:
        lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
        return np.linspace(lo, hi, 101)
    taus = np.asarray(taus, dtype=float).ravel()
    if taus.size == 0 or not np.isfinite(taus).all():
        raise ArgumentError("`taus` must be a non-empty sequence of finite thresholds.")
    return taus


def _bootstrap(xz, ind, have, n_runs, taus, kind, n_resamples, gen):
    """(B, M, K) profiles on resamples of runs within each (model, task), tallied as counts per run."""
    m, r, t = xz.shape
    block = max(1, _BLOCK // (m * r * t))
    out = np.empty((n_resamples, m, taus.size))
    ind_t = np.moveaxis(ind, 1, 2)  # (M, T, R, K)
    x_t = np.moveaxis(xz, 1, 2)  # (M, T, R)
    real = np.arange(r)[None, None, :] < n_runs[:, :, None]  # (M, T, R): draws that exist
    for start in range(0, n_resamples, block):  # memory blocks, each one vectorized draw
        stop = min(n_resamples, start + block)
        b = stop - start
        # n_runs[m, t] draws with replacement among the real runs of (m, t), tallied per run
        pick = (gen.random((b, m, t, r)) * n_runs[None, :, :, None]).astype(np.int64)
        cell = np.arange(b * m * t).reshape(b, m, t, 1) * r
        flat = (cell + pick)[:, real] if not real.all() else cell + pick
        counts = np.bincount(flat.ravel(), minlength=b * m * t * r).reshape(b, m, t, r)
        w = counts / n_runs[None, :, :, None]
        if kind == "runs":
            # per model one matrix product over (task, run): (b, T R) @ (T R, K)
            wm = np.moveaxis(w, 1, 0).reshape(m, b, t * r)
            out[start:stop] = np.moveaxis(wm @ ind_t.reshape(m, t * r, -1), 0, 1) / t
        else:
            means = np.einsum("bmtr,mtr->bmt", w, x_t, optimize=True)
            out[start:stop] = (means[..., None] > taus).mean(axis=2)
    return out


def _engine_bootstrap(engine, x, models, tasks, taus, kind, n_resamples, gen):
    """(B, M, K) profiles from the engine's item bootstrap (scores passed as rliable's mapping, NaN-padded)."""
    def statistic(scores):  # (C, M, T, n), NaN where a model has fewer runs
        have = ~np.isnan(scores)
        n = have.sum(axis=-1)
        if kind == "tasks":
            means = np.where(have, scores, 0.0).sum(axis=-1) / n
            return (means[..., None] > taus).mean(axis=-2)
        out = np.empty(scores.shape[:2] + (taus.size,))
        for k, tau in enumerate(taus):  # thresholds, not replicates: keeps memory at one (C, M, T, n) array
            out[..., k] = ((scores > tau).sum(axis=-1) / n).mean(axis=-1)
        return out

    reps = engine({m: x[i] for i, m in enumerate(models)}, statistic, resampling="independent",
                  n_resamples=n_resamples, rng=gen, tasks=tasks)
    return np.asarray(reps.replicates)
