"""Runs and best-of-n: the spread across training runs (seeds, checkpoints) and what reporting the best one costs.

Reporting the best of n runs instead of a pre-specified aggregate (the mean over runs, or one run fixed in
advance) inflates the reported score by ``E[max of n runs] - E[one run]``; this module estimates that inflation
from the runs a table holds, with an interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import gammaln, ndtr

from .._distributions import chi2_isf, chi2_ppf
from .._random import block_generator, name_key, run_entropy
from .._validate import ArgumentError, as_generator, check_confidence_level, check_positive_int
from ..selection.facet_design import facet_design
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["RunSpread", "expected_best", "normal_max_factor", "run_spread"]

_KEY_RUNS = 0x52554E


def normal_max_factor(n) -> np.ndarray:
    """``E[max of n independent standard normals]`` (0 for n = 1, 0.5642 for 2, 1.1630 for 5).

    Examples
    --------
    >>> from evalband.facets import normal_max_factor
    >>> normal_max_factor([1, 2, 5]).round(4)
    array([0.    , 0.5642, 1.163 ])
    """
    n = np.atleast_1d(np.asarray(n, dtype=np.float64))
    x = np.linspace(-12, 12, 24001)
    pdf = np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
    cdf = ndtr(x)
    dens = n[:, None] * pdf[None] * cdf[None] ** (n[:, None] - 1)
    return np.trapezoid(x[None] * dens, x, axis=1)


def _order_weights(r: np.ndarray, n: int, size: int) -> np.ndarray:
    """Weights ``C(j-1, n-1) / C(r, n)`` of the j-th smallest of r values (j = 1..size), 0 beyond r or if n > r."""
    j = np.arange(1, size + 1, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        logw = (gammaln(j) - gammaln(n) - gammaln(j - n + 1)) - (gammaln(r + 1) - gammaln(n + 1) - gammaln(r - n + 1))
    w = np.where((j >= n) & (j <= r) & (r >= n), np.exp(logw), 0.0)
    return w


def expected_best(values, n: int) -> np.ndarray:
    """Unbiased estimate of ``E[max of n runs]`` from the runs observed, along the last axis (NaN = no run).

    Parameters
    ----------
    values : array_like, shape (..., R)
        Run scores, NaN-padded where a row has fewer runs.
    n : int

    Returns
    -------
    numpy.ndarray, shape (...)
        The average of the maximum over every subset of n of the row's runs (a U-statistic: the weights
        ``C(j-1, n-1) / C(r, n)`` on the ordered values); NaN where a row has fewer than n runs.

    Examples
    --------
    >>> from evalband.facets import expected_best
    >>> round(float(expected_best([1.0, 2.0, 3.0], 2)), 6)   # max over the pairs (1,2), (1,3), (2,3)
    2.666667
    """
    x = np.asarray(values, dtype=np.float64)
    n = check_positive_int(n, "n")
    srt = np.sort(x, axis=-1)  # NaN last
    r = (~np.isnan(x)).sum(axis=-1)
    w = _order_weights(r, n, x.shape[-1])
    out = np.nansum(np.where(w > 0, srt, 0.0) * w, axis=-1)
    return np.where(r >= n, out, np.nan)


@displayed


@dataclass(frozen=True, repr=False)
class RunSpread:
    """Spread across runs and the inflation of best-of-n reporting, per model and task.

    Attributes
    ----------
    frame : pandas.DataFrame
        Per model, task and n: runs, mean, sd (across runs), best_of_n (unbiased E[max of n runs]), inflation
        (best_of_n - mean), ci_low, ci_high (the inflation scaled by the chi-square interval of the run spread),
        boot_low, boot_high (percentile bootstrap over runs; under-covers with few runs), inflation_normal
        (``sd * e_n`` under normal runs), normal_low, normal_high (from the chi-square interval of the sd), level
        ('run' when runs are crossed with items, 'item' when nested: then values are per item, averaged).
    confidence_level : float
    n_resamples : int
    notes : tuple of str
    """

    frame: pd.DataFrame
    confidence_level: float
    n_resamples: int
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def __repr__(self) -> str:
        f = self.frame
        lines = [(f"RunSpread: {f['model'].nunique()} model(s) x {f['task'].nunique()} task(s), n ="
                  f" {', '.join(map(str, sorted(f['n'].unique())))}")]
        for r in f[f["n"] == f["n"].max()].head(6).itertuples():
            lines.append(f"  {r.model} / {r.task}: {r.runs} runs, mean {r.mean:.4g}, sd {r.sd:.2g}; best of {r.n}"
                         f" inflates by {r.inflation:.2g} ({self.confidence_level:.0%} CI {r.ci_low:.2g} to"
                         f" {r.ci_high:.2g})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return self.frame.head(20).to_html(index=False)


NOTE_TASK_SINGLE_RUN_NO = NoteKind('facets.task-single-run-no', 'info',
                                    "task '{task}': a single run; no spread to report")
NOTE_ONLY_RUNS_BEST_MORE = NoteKind('facets.only-runs-best-more', 'caveat',
                                     '{m} / {task}: only {value} runs; best of more than that is not estimated (NaN)')


def run_spread(data, *, run: str = "run", n=(1, 2, 3, 5, 10), nested: bool | None = None, models=None, tasks=None,
               confidence_level=0.95, n_resamples: int = 2000, rng=None) -> RunSpread:
    """The spread across runs and the expected inflation of reporting the best of n runs.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with a run facet (training seed, checkpoint).
    run : str
        The facet column holding the run.
    n : int or sequence of int
        Numbers of runs the best is picked from.
    nested : bool or None
        True: run labels are numbered within each item (each game trained on its own, as in Atari 100k), so the
        best run is picked per item and the inflation averaged over items; False: each run is scored on every
        item and the best run is the one with the best mean. None: nested when the labels are nested in items.
    models, tasks : sequence of str, optional
    confidence_level : float or str
    n_resamples : int
        Bootstrap replicates over runs for the interval of the inflation.
    rng : None, int, SeedSequence, BitGenerator or Generator

    Returns
    -------
    RunSpread

    Notes
    -----
    With r runs of scores ``x_(1) <= ... <= x_(r)``, ``sum_j C(j-1, n-1) / C(r, n) x_(j)`` is the unbiased
    estimate of the expected maximum of n runs (the average over all n-subsets); subtracting the mean gives the
    inflation of best-of-n reporting over the pre-specified aggregate, whose expectation is that of one run. The
    inflation is proportional to the spread of the runs (``sd * e_n`` for normal runs, with ``e_n = E[max of n
    standard normals]``, :func:`normal_max_factor`; 1.163 for n = 5), so its interval scales the estimate by the
    chi-square interval of the spread on the runs' degrees of freedom (pooled over items when runs are nested).
    In a simulation of normal runs (best of 3, 200 datasets) it covered 0.925, 0.94 and 0.94 with 5, 10 and 30
    runs, the normal-theory interval 0.955, 0.945, 0.945, while the percentile bootstrap over runs (``boot_low``,
    ``boot_high``) covered only 0.67, 0.835 and 0.90: a spread estimated from few runs is too small, as with
    few clusters.

    References
    ----------
    Dodge, J. et al. (2019). Show your work: improved reporting of experimental results. EMNLP (expected
    validation performance of the best of n).
    Agarwal, R. et al. (2021). Deep reinforcement learning at the edge of the statistical precipice. NeurIPS.
    Madaan, L. et al. (2024). Quantifying variance in evaluation benchmarks. arXiv:2406.10229.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import run_spread
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": np.tile(range(20), 8), "run": np.repeat(range(8), 20),
    ...                    "score": rng.random(160)})
    >>> rs = run_spread(df, n=(1, 4), rng=0)
    >>> abs(float(rs.to_frame()["inflation"].iloc[0])) < 1e-12   # best of 1 is one run: no inflation
    True
    """
    level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    ns = [check_positive_int(k, "n") for k in ([n] if np.isscalar(n) else n)]
    from ..selection.facet_design import facet_table

    table = facet_table(data, [run])
    if run not in table.facets:
        raise ArgumentError(f"`run`: {run!r} is not a facet column of the table; its facets are"
                         f" {', '.join(map(repr, table.facets)) or '(none)'}.")
    design = facet_design(table, facets=[run], models=models, tasks=tasks)
    entropy = run_entropy(as_generator(rng))
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    rows, notes = [], list(design.notes)
    for d in design.designs:
        if run not in d.factors:
            notes.append(NOTE_TASK_SINGLE_RUN_NO(task=d.task))
            continue
        a = d.factors.index(run)
        is_nested = (0 in d.parents[a]) if nested is None else bool(nested)
        means = d.cell_means()  # (M, C)
        item, lev = d.codes[:, 0], d.codes[:, a]
        if is_nested:
            # per item: its runs' scores (cells are item x run), NaN-padded
            order = np.lexsort((lev, item))
            pos = np.empty(d.n_cells, dtype=np.int64)
            starts = np.searchsorted(item[order], item[order], side="left")
            pos[order] = np.arange(d.n_cells) - starts
            width = int(pos.max()) + 1
            vals = np.full((d.n_models, d.n_items, width), np.nan)
            vals[:, item, pos] = means
        else:
            n_l = len(d.levels[a])
            tot = np.zeros((d.n_models, n_l))
            cnt = np.zeros(n_l)
            np.add.at(tot, (slice(None), lev), np.nan_to_num(means))
            np.add.at(cnt, lev, 1.0)
            vals = (tot / cnt)[:, None, :]  # (M, 1, R): each run's mean over items
        for k, m in enumerate(d.models):
            x = vals[k]  # (rows, R)
            r = (~np.isnan(x)).sum(axis=1)
            mean = np.nanmean(x, axis=1)
            sd = np.nanstd(x, axis=1, ddof=1)
            gen = block_generator(entropy, (_KEY_RUNS, name_key(d.task), name_key(m)))
            idx = gen.integers(0, 2 ** 31, size=(n_resamples,) + x.shape) % np.maximum(r, 1)[None, :, None]
            # resample each row's own runs with replacement (a NaN-padded row draws among its r runs)
            pick = np.sort(x, axis=1)[np.arange(x.shape[0])[None, :, None], idx]
            pick = np.where(np.arange(x.shape[1])[None, None, :] < r[None, :, None], pick, np.nan)
            boot_mean = np.nanmean(pick, axis=2)
            for nn in ns:
                best = expected_best(x, nn)
                infl = best - mean
                b_infl = expected_best(pick, nn) - boot_mean  # (B, rows)
                e_n = float(normal_max_factor(nn)[0])
                sd_lo = sd * np.sqrt((r - 1) / chi2_isf(lo_q, np.maximum(r - 1, 1)))
                sd_hi = sd * np.sqrt((r - 1) / chi2_ppf(lo_q, np.maximum(r - 1, 1)))
                boot = np.nanquantile(np.nanmean(b_infl, axis=1), [lo_q, hi_q]) if np.isfinite(infl).all() \
                    else (np.nan, np.nan)
                # the interval: the chi-square interval of the spread (pooled over items) scaling the estimate
                dfp = float(np.maximum(r - 1, 0).sum())
                rel = (np.sqrt(dfp / chi2_isf(lo_q, dfp)), np.sqrt(dfp / chi2_ppf(lo_q, dfp))) if dfp > 0 \
                    else (np.nan, np.nan)
                est = float(np.mean(infl))
                rows.append({"model": m, "task": d.task, "n": nn, "level": "item" if is_nested else "run",
                             "runs": int(np.median(r)), "mean": float(mean.mean()), "sd": float(np.nanmean(sd)),
                             "best_of_n": float(np.mean(best)), "inflation": est,
                             "ci_low": est * rel[0], "ci_high": est * rel[1],
                             "boot_low": float(boot[0]), "boot_high": float(boot[1]),
                             "inflation_normal": float(np.nanmean(sd) * e_n),
                             "normal_low": float(np.nanmean(sd_lo) * e_n),
                             "normal_high": float(np.nanmean(sd_hi) * e_n)})
            if (r < max(ns)).any():
                notes.append(NOTE_ONLY_RUNS_BEST_MORE(m=m, task=d.task, value=int(r.min())))
    return RunSpread(pd.DataFrame(rows), level, n_resamples, tuple(dict.fromkeys(notes)))
