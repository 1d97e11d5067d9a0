"""The bootstrap engine: stratified by task, paired across models, clusters resampled whole.

For each task the engine draws bootstrap indices of items (or clusters), counts how often each unit was drawn,
and multiplies the count matrix into the per-unit sufficient sums of every model at once (one BLAS product per
task and block). No Python loop runs over replicates or items; the loops are over tasks and blocks of replicates.
"""

from __future__ import annotations

import contextlib
import numbers
from dataclasses import dataclass

import numpy as np

from .._validate import (ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice, check_names,
                         check_positive_int)
from ._kernels import block_generator, block_size, draw_counts, name_key
from .._blas import single_threaded_blas
from .._progress import track
from .._random import run_entropy
from .columns import ItemColumns
# where the work runs (use_executor, use_threads, available_cores and thread_count stay importable from here)
from .execution import available_cores, default_executor, split_work, thread_count, use_executor, use_threads
from .replicates import CountUnits, Replicates, TaskUnits
from .statistics import get_statistic
from ..display.notes import NoteKind
from .._words import words

__all__ = ["bootstrap", "RESAMPLING", "available_cores", "thread_count", "use_executor", "use_threads"]

RESAMPLING = ("auto", "paired", "independent", "binomial")
#: replicates per block for binomial draws (cheap: one number per model and replicate)
MAX_SUMMARY_BLOCK = 10_000


@dataclass(frozen=True)


class _Spec:
    """Everything one worker needs for one task (picklable, for process or Dask executors)."""

    index: int
    key: int
    entropy: tuple
    mode: str
    n_resamples: int
    block: int
    n_models: int
    X2: np.ndarray | None = None          # paired: (K, M*k)
    X: np.ndarray | tuple | None = None   # independent: (M, K, k), or one (K_m, k) array per model
    sizes: np.ndarray | tuple | None = None  # (K,) (or one per model) or None when every unit is one item
    finish: object = None
    model_keys: tuple = ()
    correct: np.ndarray | None = None     # binomial: (M,)
    n: np.ndarray | None = None           # binomial: (M,)
    dtype: object = np.float64            # float32 when every weighted sum is an integer below 2**24 (exact)


def _block(spec: _Spec, b: int, buffer=None) -> np.ndarray:
    c = min(spec.block, spec.n_resamples - b * spec.block)
    if spec.mode == "paired":
        k_units = spec.X2.shape[0]
        gen = block_generator(spec.entropy, (spec.key, b))
        w = draw_counts(gen, k_units, c, spec.dtype, buffer=buffer)
        sums = (w @ spec.X2).astype(np.float64).reshape(c, spec.n_models, -1)
        total = np.full(c, float(k_units)) if spec.sizes is None else (w @ spec.sizes).astype(np.float64)
        return spec.finish(sums, total[:, None])
    out = np.empty((c, spec.n_models))
    for m, mkey in enumerate(spec.model_keys):
        gen = block_generator(spec.entropy, (spec.key, b, mkey))
        if spec.mode == "binomial":
            out[:, m] = gen.binomial(spec.n[m], spec.correct[m] / spec.n[m], size=c) / spec.n[m]
            continue
        xm = spec.X[m]
        sizes = spec.sizes[m] if isinstance(spec.sizes, tuple) else spec.sizes
        w = draw_counts(gen, xm.shape[0], c, spec.dtype, buffer=buffer)
        total = np.full(c, float(xm.shape[0])) if sizes is None else (w @ sizes).astype(np.float64)
        out[:, m] = spec.finish((w @ xm).astype(np.float64)[:, None, :], total[:, None])[:, 0]
    return out


def _run_job(job) -> tuple[int, int, np.ndarray]:
    """Worker: replicates of blocks ``[b0, b1)`` of one task -> (task index, first replicate, (c, M) values)."""
    spec, b0, b1 = job
    buffer = None
    if spec.mode != "binomial":
        units = spec.X2.shape[0] if spec.mode == "paired" else max(x.shape[0] for x in spec.X)
        buffer = np.empty(min(spec.block, spec.n_resamples) * units, dtype=spec.dtype)
    vals = np.concatenate([_block(spec, b, buffer) for b in range(b0, b1)], axis=0)
    return spec.index, b0 * spec.block, vals


def _exact_dtype(u: TaskUnits):
    """float32 when every weighted sum is an integer below 2**24 (so float32 products are exact, like float64)."""
    x = u.X
    if not np.all(np.isfinite(x)) or not np.array_equal(x, np.round(x)):
        return np.float64
    bound = max(float(np.abs(x).max(initial=0.0)), float(u.sizes.max(initial=0.0))) * u.n_units
    return np.float32 if bound < 2**24 else np.float64


def _units_from_columns(task, cols, stat, codes):
    missing = [c for c in stat.requires if c not in cols]
    if missing:
        raise InputError(f"task '{task}': statistic '{stat.name}' needs column(s) {', '.join(map(repr, missing))};"
                         f" found {', '.join(map(repr, cols))}")
    x = np.asarray(stat.columns({c: cols[c] for c in stat.requires}), dtype=np.float64)
    if x.ndim != 3:
        raise ArgumentError(f"statistic '{stat.name}': columns() must return (n_models, n_items, k); got {x.shape}.")
    if codes is None:
        return TaskUnits(task, x, np.ones(x.shape[1]), stat.finish)
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu":
        _, codes = np.unique(codes, return_inverse=True)
    k = int(codes.max()) + 1
    xc = np.zeros((k, x.shape[0], x.shape[2]))
    np.add.at(xc, codes, np.moveaxis(x, 1, 0))
    return TaskUnits(task, np.ascontiguousarray(np.moveaxis(xc, 0, 1)), np.bincount(codes, minlength=k)
                     .astype(np.float64), stat.finish)


def _virtual_units(task, correct, n, stat):
    """Summary counts as virtual 0/1 units (ones first), for the jackknife only, never materialized (memory does
    not grow with n); None if sizes differ."""
    if not np.all(n == n[0]):
        return None
    return CountUnits(task, np.asarray(correct, dtype=np.int64), int(n[0]), stat.finish)


NOTE_SUMMARY_COUNTS_RESAMPLED_BINOMIAL = NoteKind(
    'resample.summary-counts-resampled-binomial', 'caveat',
    "summary counts resampled by a binomial draw per model and task (equivalent to resampling each model's 0/1 "
    "items); models are necessarily treated as independent, which overstates the uncertainty of differences "
    "between models that share test items")
NOTE_JACKKNIFE_BCA_UNAVAILABLE_TEST = NoteKind(
    'resample.jackknife-bca-unavailable-test', 'caveat',
    'jackknife (for BCa) unavailable: test-set sizes differ between models within a task')
NOTE_CLUSTERS_IGNORED_CLUSTER_FALSE = NoteKind(
    'resample.clusters-ignored-cluster-false', 'excluded',
    'clusters ignored (cluster=False): items resampled as if independent, which understates the uncertainty when '
    'items within a cluster are correlated')
NOTE_REPEATED_TRIALS_STAY_THEIR = NoteKind(
    'resample.repeated-trials-stay-their', 'info',
    'repeated trials stay with their item: items are resampled with their trial average')
NOTE_INDEPENDENT_RESAMPLING_EACH_MODEL = NoteKind(
    'resample.independent-resampling-each-model', 'caveat',
    'independent resampling: each model resampled on all of its own items in {n_ragged} task(s) where models '
    'have different items; jackknife (for BCa) unavailable there')
NOTE_SOME_TASKS_HAVE_FEW = NoteKind(
    'resample.some-tasks-have-few', 'caveat',
    'some tasks have few clusters (as few as {value}): the cluster bootstrap understates uncertainty with fewer '
    'than about 20 clusters')


def bootstrap(data, *, statistic="mean", resampling: str = "auto", n_resamples: int = 10_000, rng=None,
              models=None, tasks=None, cluster=None, progress=None, executor=None,
              chunk_size: int | None = None, ppi: str = "ppi++", threads: int | None = None) -> Replicates:
    """Bootstrap every model's per-task statistic, stratified by task and paired across models.

    Parameters
    ----------
    data : Selection, ResultsTable, ItemColumns, path or DataFrame
        Item-level or summary-level results (anything :func:`evalband.select` accepts), or an
        :class:`ItemColumns` for statistics that need several columns per item.
    statistic : str or Statistic
        'mean' (default; accuracy for 0/1 scores), 'f1', 'macro-f1', or a :class:`Statistic` built from
        per-item sufficient columns.
    resampling : {'auto', 'paired', 'independent', 'binomial'}
        'paired' (default for item data): the same item (cluster) indices for every model, within each task.
        'independent': each model resampled on its own (what analyses without item-level data amount to).
        'binomial' (the only choice, and the default, for summary data): a binomial draw of each model's correct
        count per task, which equals resampling a 0/1 vector of that model's items; necessarily independent.
    n_resamples : int
        Number of bootstrap replicates B.
    rng : None, int, SeedSequence, BitGenerator or Generator
        Turned into one Generator, from which the run's entropy is drawn once. Same seed, same numbers.
    models, tasks : sequence of str or comma-separated str, optional
        Restrict the analysis (in the order given).
    cluster : bool or None
        None: resample whole clusters within a task when the data have clusters; False: resample items even so;
        True: require clusters.
    progress : bool or None
        None: a progress bar on stderr when the run takes more than about a second and stderr is a terminal.
    executor : object with ``map(fn, iterable)``, optional
        Runs the blocks of work (e.g. ``concurrent.futures.ThreadPoolExecutor``, a process pool, or a Dask
        client's executor); results do not depend on it. Default: the one set by :func:`use_executor`, if any,
        else a pool of ``threads`` threads.
    chunk_size : int, optional
        Replicates per unit of work handed to the executor (rounded up to whole random blocks). Default: one
        unit per task without an executor, one block per unit with one. Results do not depend on it.
    threads : int, optional
        Threads that draw the blocks when no executor is given (the count kernel and the matrix products release
        the GIL). Default: the number set by :func:`use_threads`, else every core this process may use
        (:func:`available_cores`); 1 runs in the calling thread. Results do not depend on it. While the blocks
        are drawn, the BLAS library runs on one thread (the engine's threads already use the cores; limits are
        restored afterwards, see :func:`evalband._blas.single_threaded_blas`).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels (the measure ``human``) and the 'mean' statistic: the replicates
        are those of each model's prediction-powered estimate of the human-scale mean
        (:func:`evalband.resample.ppi.ppi_replicates`; PPI++ by default, 'classic' lambda = 1,
        'labelled' the labels alone); 'none' resamples the judge's scores at face value. Ignored without labels.

    Returns
    -------
    Replicates
        ``observed`` (M, T), ``replicates`` (B, M, T), and what was assumed in ``notes``.

    Notes
    -----
    Resampling items within each task (stratification) keeps each task's test-set size fixed, as in the data.
    Paired resampling keeps the between-model correlation of item scores, which makes differences between models
    precise; treating models as independent when they share items overstates the uncertainty of differences
    (Miller 2024). Items are assumed independent within a task; when they come in clusters (passages, sources,
    templates) whole clusters are resampled, and a cluster replicate's statistic uses the items drawn
    (a ratio estimator for item means). Repeated trials stay attached to their item: items are resampled with
    their trial average. With few clusters (< ~20 per task) the bootstrap understates the uncertainty.

    Random numbers: each task (and block of replicates, and model under 'independent'/'binomial') draws from
    its own stream, ``SFC64(SeedSequence(entropy, spawn_key=(crc32(task), block[, crc32(model)])))``, with a
    block size fixed by the number of units, so results do not depend on ``chunk_size``, ``executor``, on the
    order of models, or on which other tasks are analysed.

    References
    ----------
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application, section 3.8 (clusters). CUP.
    Miller, E. (2024). Adding error bars to evals: a statistical approach to language model evaluations.
    arXiv:2411.00640.
    Longjohn, R., Gopalan, G. & Casleton, E. (2025). Statistical uncertainty quantification for aggregate
    performance metrics in machine learning benchmarks. arXiv:2501.04234.

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("mmlu-pro")
    >>> reps = eb.bootstrap(table, n_resamples=200, rng=0, progress=False)
    >>> reps.n_resamples, len(reps.models)
    (200, 29)
    """
    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    resampling = check_choice(resampling, RESAMPLING, "resampling")
    stat = get_statistic(statistic)
    if chunk_size is not None:
        chunk_size = check_positive_int(chunk_size, "chunk_size")
    if cluster not in (None, True, False):
        raise ArgumentTypeError(words('`{arg:cluster}` must be None, True or False; got {cluster!r}.', cluster=cluster))
    if executor is None:
        executor = default_executor()
    if executor is not None and not callable(getattr(executor, "map", None)):
        raise ArgumentTypeError("`executor` must have a map(fn, iterable) method (e.g. a concurrent.futures executor).")
    n_threads = thread_count(threads) if executor is None else 1

    if not isinstance(data, ItemColumns):
        from .ppi import ppi_replicates
        from ..selection.judgements import uses_ppi
        from ..selection import select

        data = select(data, models=models, tasks=tasks).table
        if stat.name == "mean" and uses_ppi(data, ppi):  # the one rule for human labels (judges.ppi_replicates)
            return ppi_replicates(data, ppi=ppi, resampling=resampling, n_resamples=n_resamples, rng=gen if
                                  seed is None else seed, cluster=cluster, progress=progress, executor=executor,
                                  chunk_size=chunk_size)
        model_names, task_names = data.models, data.tasks
    else:
        model_names = tuple(check_names(models, data.models, "models"))
        task_names = tuple(check_names(tasks, data.tasks, "tasks"))
    n_m, n_t = len(model_names), len(task_names)
    notes = list(data.notes)
    entropy = run_entropy(gen)
    keys = [name_key(t) for t in task_names]
    if len(set(keys)) < n_t:  # a CRC-32 collision between task names: fall back to positions
        keys = list(range(n_t))
    model_keys = [name_key(m) for m in model_names]
    if len(set(model_keys)) < n_m:
        model_keys = list(range(n_m))

    units: list[TaskUnits | None] = []
    specs: list[_Spec] = []
    cell_n = np.zeros((n_m, n_t))  # items behind each (model, task) mean, for the floor of intervals (floors.py)
    if data.level == "summary":
        if resampling == "paired":
            raise InputError(words("paired resampling needs item-level data; summary counts can only be resampled independently ({arg:resampling='binomial'})"), source=data.source)
        if stat.name != "mean":
            raise InputError(f"statistic '{stat.name}' needs item-level data", source=data.source)
        resampling, unit = "binomial", "item"
        counts = data.counts(models=list(model_names), tasks=list(task_names))
        n_units = counts.n.max(axis=0).astype(np.int64)
        cell_n = np.asarray(counts.n, dtype=np.float64)
        notes.append(NOTE_SUMMARY_COUNTS_RESAMPLED_BINOMIAL())
        for t in range(n_t):
            units.append(_virtual_units(task_names[t], counts.correct[:, t], counts.n[:, t], stat))
            specs.append(_Spec(t, keys[t], entropy, "binomial", n_resamples, MAX_SUMMARY_BLOCK, n_m,
                               model_keys=tuple(model_keys), correct=counts.correct[:, t], n=counts.n[:, t]))
        if any(u is None for u in units):
            notes.append(NOTE_JACKKNIFE_BCA_UNAVAILABLE_TEST())
            units = None
    else:
        if resampling == "binomial":
            raise ArgumentError(words("`{arg:resampling='binomial'}` is for summary counts; use 'paired' or 'independent' for item-level data."))
        paired_items = data.paired_items
        if resampling == "auto":
            resampling = "paired" if paired_items else "independent"
        elif resampling == "paired" and not paired_items:
            raise InputError(words("items are not the same across models here (e.g. runs of independent seeds), so they cannot be paired; use {arg:resampling='independent'}"), source=data.source)
        has_clusters = data.has_clusters
        if cluster is True and not has_clusters:
            raise InputError(words('{arg:cluster=True}, but the data have no cluster column'), source=data.source)
        use_clusters = has_clusters and cluster is not False
        unit = "cluster" if use_clusters else "item"
        if has_clusters and not use_clusters:
            notes.append(NOTE_CLUSTERS_IGNORED_CLUSTER_FALSE())
        if data.has_trials:
            notes.append(NOTE_REPEATED_TRIALS_STAY_THEIR())
        ragged, ragged_observed = [], {}
        for t, task in enumerate(task_names):
            if isinstance(data, ItemColumns):
                cols = data.data[task]
                idx = [data.models.index(m) for m in model_names]
                cols = {k: (np.asarray(v)[idx] if np.ndim(v) == 2 else np.asarray(v)) for k, v in cols.items()}
                codes = data.clusters[task] if use_clusters else None
            else:
                try:
                    td = data.task_data(task, models=list(model_names))
                except InputError as exc:  # no item shared by every model: only independent resampling goes on
                    if resampling != "independent" or len(model_names) < 2 or "share no item" not in str(exc):
                        raise
                    td = None
                if td is not None:
                    cols = {"score": td.scores}
                    codes = td.clusters if use_clusters else None
                if resampling == "independent" and (td is None or any(td.left_out.values())):
                    # each model on all of its own items, not only on those every model has
                    own = [_units_from_columns(task, {"score": d.scores}, stat,
                                               d.clusters if use_clusters else None)
                           for d in (data.task_data(task, models=[m]) for m in model_names)]
                    ragged.append(task)
                    ragged_observed[t] = np.array([o.observed()[0] for o in own])
                    cell_n[:, t] = [o.sizes.sum() for o in own]
                    dtype = np.float64
                    specs.append(_Spec(t, keys[t], entropy, "independent", n_resamples,
                                       block_size(max(o.n_units for o in own)), n_m,
                                       X=tuple(np.ascontiguousarray(o.X[0]) for o in own),
                                       sizes=(tuple(o.sizes for o in own) if use_clusters
                                              and all(o.sizes is not None for o in own) else None),
                                       finish=stat.finish, model_keys=tuple(model_keys), dtype=dtype))
                    # the units every model shares (for n_units); with none shared, the smallest model's own
                    units.append(_units_from_columns(task, cols, stat, codes) if td is not None
                                 else min(own, key=lambda o: o.n_units))
                    continue
            u = _units_from_columns(task, cols, stat, codes)
            units.append(u)
            cell_n[:, t] = u.sizes.sum()
            dtype = _exact_dtype(u)
            sizes = None if codes is None else u.sizes.astype(dtype)
            if resampling == "paired":
                x2 = np.ascontiguousarray(np.moveaxis(u.X, 1, 0).reshape(u.n_units, -1), dtype=dtype)
                specs.append(_Spec(t, keys[t], entropy, "paired", n_resamples, block_size(u.n_units), n_m,
                                   X2=x2, sizes=sizes, finish=stat.finish, dtype=dtype))
            else:
                specs.append(_Spec(t, keys[t], entropy, "independent", n_resamples, block_size(u.n_units), n_m,
                                   X=np.ascontiguousarray(u.X, dtype=dtype), sizes=sizes, finish=stat.finish,
                                   model_keys=tuple(model_keys), dtype=dtype))
        n_units = np.array([u.n_units for u in units], dtype=np.int64)
        if ragged:
            notes.append(NOTE_INDEPENDENT_RESAMPLING_EACH_MODEL(n_ragged=len(ragged)))
        if use_clusters and n_units.min() < 20:
            notes.append(NOTE_SOME_TASKS_HAVE_FEW(value=int(n_units.min())))

    observed = np.empty((n_m, n_t))
    if units is not None:
        for t, u in enumerate(units):
            observed[:, t] = u.observed()
        if data.level != "summary" and ragged:
            for t, values in ragged_observed.items():
                observed[:, t] = values
            units = None
    else:
        observed = (counts.correct / counts.n)[:, :]

    jobs = split_work(specs, n_resamples, chunk_size, executor is not None, n_threads)
    out = np.empty((n_resamples, n_m, n_t))
    with contextlib.ExitStack() as stack:
        # the workers' products on one BLAS thread each: the engine's own threads already use every core, and
        # BLAS threads on top of them oversubscribe the cores (3-4x slower on two cores; issue 27)
        stack.enter_context(single_threaded_blas())
        if executor is None and n_threads > 1 and len(jobs) > 1:
            from concurrent.futures import ThreadPoolExecutor

            executor = stack.enter_context(ThreadPoolExecutor(min(n_threads, len(jobs)),
                                                              thread_name_prefix="evalband-bootstrap"))
        mapper = map if executor is None else executor.map
        for t, start, vals in track(iter(mapper(_run_job, jobs)), len(jobs), progress=progress):
            out[start:start + vals.shape[0], :, t] = vals

    cells = None
    if stat.name == "mean" and not isinstance(data, ItemColumns) and data.score_kind in ("binary", "bounded"):
        from .floors import CellCounts

        cells = CellCounts(cell_n, binary=data.score_kind == "binary")
    return Replicates(model_names, task_names, observed, out, resampling, unit, n_resamples, n_units,
                      data.task_groups, seed, tuple(notes), stat.name,
                      tuple(units) if units is not None else None, entropy, cells)
