"""Predicted scores of cells (measured or not) with predictive intervals, and the held-out check.

A cell's predictive distribution combines the uncertainty of the parameters (one draw per bootstrap replicate
of the abilities, difficulties and slopes) with the spread of a cell around the fitted surface: the replicate's
predicted score plus ``sqrt(V(p))`` times a Pearson residual drawn from the fit's pooled residuals. For counts
``V(p) = p (1 - p) / n``, so the binomial noise of ``n`` items is there, and so is whatever extra spread the
cells show beyond it (the residuals carry both); a cell not measured takes its task's median ``n``. For scores
without counts ``V`` is the loss's variance function.

The held-out check refits the model without a random share of the measured cells and asks how often their
measured scores fall inside their predictive intervals (the coverage, which should be near the confidence
level) and how far the predictions are (root-mean-square and mean absolute error), beside the error of
predicting each held-out cell by its task's mean measured score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ..display.reprs import displayed
from ..resample.engine import thread_count
from .cells import components
from .resampling import cell_streams, variance_function

__all__ = ["predictive_intervals", "choose_holdout", "HoldoutCheck", "holdout_summary"]

#: cells whose (B,) draws are formed at once
_CHUNK = 4096


def predictive_intervals(params, samples, model, task, *, n, residuals, loss: str, confidence_level: float,
                         entropy, models, tasks):
    """Point prediction and predictive interval of the cells (``model``, ``task`` codes).

    ``params`` is the full-data fit ``(C, D, beta)``, ``samples`` the replicates' ``(C, D, beta)`` (B, .);
    ``n`` the items behind each cell (None for scores). Returns ``(predicted, low, high)``."""
    C, D, beta = params
    Cs, Ds, Bs = samples
    point = expit(np.exp(beta[task]) * (C[model] - D[task]))
    k = model.size
    low, high = np.empty(k), np.empty(k)
    alpha = 1.0 - confidence_level

    def chunk(sl):
        m, t = model[sl], task[sl]
        p = expit(np.exp(Bs[:, t]) * (Cs[:, m] - Ds[:, t]))
        idx = np.empty(p.shape, dtype=np.int64)
        for j, gen in enumerate(cell_streams(entropy, "predict", models, tasks, m, t)):
            idx[:, j] = gen.integers(0, residuals.size, size=p.shape[0])
        nn = None if n is None else n[sl]
        y = np.clip(p + np.sqrt(variance_function(p, loss, nn)) * residuals[idx], 0.0, 1.0)
        low[sl], high[sl] = np.quantile(y, [alpha / 2, 1 - alpha / 2], axis=0)  # one partition for both ends

    chunks = [slice(lo, min(lo + _CHUNK, k)) for lo in range(0, k, _CHUNK)]
    threads = min(thread_count(), len(chunks))
    if threads > 1:  # each chunk's cells draw from their own streams: the same numbers on any thread
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads, thread_name_prefix="evalband-predict") as pool:
            list(pool.map(chunk, chunks))
    else:
        for sl in chunks:
            chunk(sl)
    return point, low, high


def choose_holdout(cells, fraction: float, entropy) -> tuple[np.ndarray, int]:
    """The cells held out: a random ``fraction`` of the measured cells (by a uniform draw keyed by each cell's
    model and task), skipping a cell whose removal would leave its model or task with no cell or split the
    model x task graph. Returns ``(mask, skipped)``."""
    u = np.array([gen.random() for gen in cell_streams(entropy, "holdout", cells.models, cells.tasks,
                                                       cells.model, cells.task)])
    target = int(round(fraction * cells.n_cells))
    left_m = np.bincount(cells.model, minlength=len(cells.models))
    left_t = np.bincount(cells.task, minlength=len(cells.tasks))
    mask = np.zeros(cells.n_cells, dtype=bool)
    skipped = 0
    picked = []
    for c in np.argsort(u, kind="stable").tolist():
        if len(picked) >= target:
            break
        m, t = cells.model[c], cells.task[c]
        if left_m[m] < 2 or left_t[t] < 2:
            skipped += 1
            continue
        mask[c] = True
        picked.append(c)
        left_m[m] -= 1
        left_t[t] -= 1
    while picked:  # rarely: the picks split the graph; give back the last ones until it is whole
        keep = ~mask
        k = components(cells.model[keep], cells.task[keep], len(cells.models), len(cells.tasks))[0]
        if k == 1:
            break
        mask[picked.pop()] = False
        skipped += 1
    return mask, skipped


@displayed
@dataclass(frozen=True, repr=False)
class HoldoutCheck:
    """The held-out check of a latent-ability fit.

    Attributes
    ----------
    fraction : float
        Share of measured cells asked to be held out.
    n_cells : int
        Cells held out (and predicted from a refit without them).
    skipped : int
        Cells passed over because holding them out would leave a model or task unmeasured or split the graph.
    coverage : float
        Share of held-out cells whose measured score lies in its predictive interval.
    coverage_ci : tuple of float
        Clopper-Pearson interval of the coverage (the cells are few: judge it with its interval).
    p_value : float
        Two-sided binomial test of coverage = confidence level.
    rmse, mae : float
        Root-mean-square and mean absolute error of the predicted scores (fractions).
    baseline_rmse : float
        The RMSE of predicting each held-out cell by its task's mean measured score (what the model should beat).
    confidence_level : float
    cells : pandas.DataFrame
        One row per held-out cell: model, task, observed, predicted, pi_low, pi_high, covered.
    """

    fraction: float
    n_cells: int
    skipped: int
    coverage: float
    coverage_ci: tuple
    p_value: float
    rmse: float
    mae: float
    baseline_rmse: float
    confidence_level: float
    cells: object

    def to_frame(self):
        return self.cells.copy()

    def headline(self) -> str:
        return (f"held-out check: {self.n_cells} cells, coverage {self.coverage:.1%} of"
                f" {self.confidence_level:.0%} predictive intervals (binomial test p = {self.p_value:.2g}),"
                f" RMSE {self.rmse:.3f} (task means: {self.baseline_rmse:.3f})")


def holdout_summary(cells, mask, predicted, low, high, *, fraction, skipped, confidence_level):
    """The :class:`HoldoutCheck` from the held-out cells' predictions."""
    import pandas as pd
    from scipy.stats import binomtest

    y = cells.y[mask]
    covered = (low <= y) & (y <= high)
    k, n = int(covered.sum()), int(mask.sum())
    test = binomtest(k, n, confidence_level) if n else None
    ci = test.proportion_ci(method="exact") if test is not None else None
    t = cells.task[mask]
    train = ~mask
    means = np.bincount(cells.task[train], weights=cells.y[train], minlength=len(cells.tasks)) / np.maximum(
        np.bincount(cells.task[train], minlength=len(cells.tasks)), 1)
    err = predicted - y
    frame = pd.DataFrame({"model": [cells.models[m] for m in cells.model[mask]],
                          "task": [cells.tasks[x] for x in t], "observed": y, "predicted": predicted,
                          "pi_low": low, "pi_high": high, "covered": covered})
    nan = float("nan")
    return HoldoutCheck(float(fraction), n, int(skipped), k / n if n else nan,
                        (float(ci.low), float(ci.high)) if ci is not None else (nan, nan),
                        float(test.pvalue) if test is not None else nan,
                        float(np.sqrt(np.mean(err ** 2))) if n else nan, float(np.mean(np.abs(err))) if n else nan,
                        float(np.sqrt(np.mean((means[t] - y) ** 2))) if n else nan, float(confidence_level), frame)
