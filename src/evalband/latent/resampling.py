"""Bootstrap replicates of a sparse model x task matrix, at the level the data were sampled, and their refits.

* **counts** (``n`` items per cell): each cell's count is redrawn ``Binomial(n, correct / n)``, which is the
  nonparametric bootstrap of the cell's items (exchangeable within the cell). The tasks and the design (which
  model was run where) stay fixed: the abilities are abilities on these benchmarks, uncertain through their
  items.
* **items** (item-level responses): items are resampled with replacement within each task, the same items for
  every model (paired), and the cells recounted.
* **scores** (no counts): nothing says how a cell's score was sampled, so the honest unit is the cell's deviation
  from the fit. The replicates are a residual bootstrap with the variance function of the loss: ``y* = p + sqrt(V(p))
  e*``, with ``e*`` drawn from the pooled, centred Pearson residuals, each divided by ``sqrt(1 - h)`` for its
  leverage ``h`` (the fit bends towards a cell of a model measured on few tasks), and clipped to [0, 1]. Pooling (rather than each cell keeping its own residual, as a wild
  bootstrap would) is what gives a model seen on one benchmark, whose residual is 0 by construction, its honest
  uncertainty. It treats the cells' deviations as exchangeable noise around the fitted sigmoid surface.

Every draw comes from a stream keyed by names (:mod:`evalband._random`): one per cell (its model and task) or
per task (items), so the replicates do not depend on the order of the rows, nor on the other models' cells.
Each replicate is refitted from the full-data fit (a warm start), in batches of replicates solved together.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .._blas import single_threaded_blas
from .._random import block_generator, name_key
from ..resample.engine import thread_count
from . import sigmoid_fit as sf

__all__ = ["cell_streams", "replicate_scores", "pearson_residuals", "refit", "variance_function", "item_weights"]

_PURPOSES = {"bootstrap": 1, "predict": 2, "holdout": 3, "items": 4, "draws": 5}


def cell_streams(entropy, purpose: str, models, tasks, model, task):
    """One Generator per cell, keyed by the purpose and the cell's model and task names."""
    mk = [name_key(m) for m in models]
    tk = [name_key(t) for t in tasks]
    p = _PURPOSES[purpose]
    return [block_generator(entropy, (p, mk[m], tk[t])) for m, t in zip(model.tolist(), task.tolist())]


def variance_function(p, loss: str, n=None):
    """The variance of a cell's score the loss assumes, up to the dispersion."""
    if loss == "least-squares":
        return np.ones_like(p)
    v = p * (1.0 - p)
    return v if n is None else v / n


def pearson_residuals(y, p, loss: str, n=None, leverage=None) -> np.ndarray:
    """Centred Pearson residuals ``(y - p) / sqrt(V(p) (1 - h))``, with ``h`` the cells' leverages."""
    v = np.maximum(variance_function(p, loss, n), 1e-12)
    if leverage is not None:
        v = v * (1.0 - leverage)
    e = (y - p) / np.sqrt(v)
    return e - e.mean()


def replicate_scores(cells, p, *, kind: str, loss: str, n_resamples: int, entropy, residuals=None):
    """The (B, N) replicate scores (and (B, N) counts for items) of the cells.

    ``p`` is the fitted probability of each cell; ``residuals`` the pooled Pearson residuals (scores)."""
    b = n_resamples
    if kind == "counts":
        out = np.empty((b, cells.n_cells))
        n = cells.n.astype(np.int64)
        for c, gen in enumerate(cell_streams(entropy, "bootstrap", cells.models, cells.tasks, cells.model,
                                             cells.task)):
            out[:, c] = gen.binomial(n[c], cells.y[c], size=b)
        return out / cells.n, None
    if kind == "scores":
        idx = np.empty((b, cells.n_cells), dtype=np.int64)
        for c, gen in enumerate(cell_streams(entropy, "bootstrap", cells.models, cells.tasks, cells.model,
                                             cells.task)):
            idx[:, c] = gen.integers(0, residuals.size, size=b)
        sd = np.sqrt(variance_function(p, loss))
        return np.clip(p + sd * residuals[idx], 0.0, 1.0), None
    raise ValueError(kind)


def item_weights(responses, n_resamples: int, entropy, start: int = 0) -> np.ndarray:
    """(B, I) multiplicities of the items in replicates ``start .. start + B - 1``: items resampled with
    replacement within each task (the same items for every model), one stream per task and replicate."""
    w = np.zeros((n_resamples, responses.item_task.size))
    bounds = np.searchsorted(responses.item_task, np.arange(len(responses.tasks) + 1))
    p = _PURPOSES["items"]
    for t, task in enumerate(responses.tasks):
        lo, hi = int(bounds[t]), int(bounds[t + 1])
        k = name_key(task)
        for r in range(n_resamples):  # one stream per (task, replicate): batches never change the draws
            draw = block_generator(entropy, (p, k, start + r)).integers(lo, hi, size=hi - lo)
            w[r] += np.bincount(draw, minlength=w.shape[1])
    return w


def _batch_size(d) -> int:
    """Replicates solved together: the (R, M, 2T) Schur blocks kept near 16 MB."""
    k = d.n_tasks * (2 if d.slopes else 1)
    return int(max(1, min(256, (1 << 21) // max(1, d.n_models * k))))


#: a bootstrap refit stops when a step moves no standardized ability or difficulty by more than this: the moves
#: left are along the scale (location and spread, pinned only by the priors) that the refit discards when it
#: standardizes; on 500 models x 60 tasks such a refit is within 1e-3 of the fully converged one (under 1% of
#: the abilities' bootstrap SE) after about 6 steps instead of 35 (benchmarks/ability.py)
REFIT_SCALE_TOL = 1e-4


def refit(d, y, w, *, loss: str, prior: dict, start, track=None):
    """Refit every replicate (rows of ``y``, ``w``) from ``start`` (the full-data fit), on the standardized
    scale, to :data:`REFIT_SCALE_TOL`. Returns ``(C, D, beta, converged)`` with replicates as rows."""
    b = y.shape[0]
    size = _batch_size(d)
    C = np.empty((b, d.n_models))
    D = np.empty((b, d.n_tasks))
    beta = np.empty((b, d.n_tasks))
    conv = np.empty(b, dtype=bool)
    batches = [slice(k, min(k + size, b)) for k in range(0, b, size)]

    def one(sl):
        wb = w[sl] if np.ndim(w) == 2 else w
        c, dd, bb, ok = sf.fit(d, y[sl], wb, loss=loss, prior=prior, start=start, scale_tol=REFIT_SCALE_TOL)
        C[sl], D[sl], beta[sl] = sf.standardize(c, dd, bb, scale=d.slopes)
        conv[sl] = ok
        return sl

    threads = min(thread_count(), len(batches))
    with contextlib.ExitStack() as stack:
        # batches on threads of their own (NumPy's array work runs outside the GIL), each product on one BLAS
        # thread (BLAS threads on top of them oversubscribe the cores, see evalband._blas); a replicate's refit is
        # the same whichever thread runs it and whatever else runs beside it, so the numbers do not change
        stack.enter_context(single_threaded_blas())
        mapper = map
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            mapper = stack.enter_context(ThreadPoolExecutor(threads, thread_name_prefix="evalband-refit")).map
        done = mapper(one, batches)
        for _ in (done if track is None else track(iter(done), len(batches))):
            pass
    return C, D, beta, conv
