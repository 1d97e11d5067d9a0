"""Online Elo ratings, and FastChat's seeded "bootstrap Elo" (online Elo on resampled, reshuffled battles).

Online Elo processes battles one at a time: with ratings ``R_a``, ``R_b``, the expected score of A is
``E = 1 / (1 + base^((R_b - R_a) / scale))`` and both ratings move by ``k (y - E)`` in opposite directions. The
result depends on the **order** of the battles and on ``k``: the same battles in another order give other
ratings, and recent battles weigh more. FastChat's bootstrap Elo averages the order out: each replicate resamples
the battles (here whole clusters), puts them in a random order and runs online Elo; the median over replicates is
the rating and the replicates' quantiles its interval. The Bradley-Terry maximum-likelihood fit does not depend on
the order at all and is the better default (Chatbot Arena moved to it in December 2023).

The sequential update is a loop over battles, compiled with numba when it is installed (``evalband[fast]``) and
otherwise vectorized over replicates, one battle position at a time; both give the same numbers.
"""

from __future__ import annotations

import numpy as np
from .._validate import ArgumentError, MissingExtraError
from .._words import words

__all__ = ["online_elo", "bootstrap_elo", "expand_weights", "ELO_INITIAL", "ELO_SCALE", "ELO_BASE"]

ELO_INITIAL = 1000.0
ELO_SCALE = 400.0
ELO_BASE = 10.0

_KERNEL = None  # the compiled kernel; False when numba is not installed (numba is imported on first use)


def _kernel():
    global _KERNEL
    if _KERNEL is None:
        try:  # pragma: no cover - depends on the environment
            import numba as _numba
        except ImportError:  # pragma: no cover
            _KERNEL = False
            return None

        @_numba.njit(cache=True, nogil=True)
        def run(a, b, y, seq, starts, k, initial, scale, base, out):  # pragma: no cover - compiled
            for r in range(starts.size - 1):
                ratings = out[r]
                for m in range(ratings.size):
                    ratings[m] = initial
                for t in range(starts[r], starts[r + 1]):
                    i = seq[t]
                    ia = a[i]
                    ib = b[i]
                    expected = 1.0 / (1.0 + base ** ((ratings[ib] - ratings[ia]) / scale))
                    delta = k * (y[i] - expected)
                    ratings[ia] += delta
                    ratings[ib] -= delta

        _KERNEL = run
    return _KERNEL or None


def _run_numpy(a, b, y, seq, starts, k, initial, scale, base, out):
    """Same as the compiled kernel: one battle position at a time, vectorized over the replicates."""
    c = starts.size - 1
    lengths = np.diff(starts)
    out[:] = initial
    if lengths.max(initial=0) == 0:
        return
    rows_all = np.arange(c)
    for t in range(int(lengths.max())):
        live = rows_all[lengths > t]
        i = seq[starts[live] + t]
        ia, ib = a[i], b[i]
        expected = 1.0 / (1.0 + base ** ((out[live, ib] - out[live, ia]) / scale))
        delta = k * (y[i] - expected)
        out[live, ia] += delta
        out[live, ib] -= delta


def _run(a, b, y, seq, starts, n_models, k, initial, scale, base, backend="auto"):
    out = np.empty((starts.size - 1, n_models))
    args = (np.ascontiguousarray(a, dtype=np.int64), np.ascontiguousarray(b, dtype=np.int64),
            np.ascontiguousarray(y, dtype=np.float64), np.ascontiguousarray(seq, dtype=np.int64),
            np.ascontiguousarray(starts, dtype=np.int64), float(k), float(initial), float(scale), float(base), out)
    kernel = _kernel() if backend in ("auto", "numba") else None
    if backend == "numba" and kernel is None:
        raise MissingExtraError("the compiled Elo kernel needs numba: pip install 'evalband[fast]'")
    (kernel or _run_numpy)(*args)
    return out


def expand_weights(weight) -> np.ndarray:
    """Repetitions of each battle for Elo: integer weights are repeated votes (as FastChat duplicates Arena-Hard's
    strong votes); other weights are refused."""
    w = np.asarray(weight, dtype=np.float64)
    reps = np.rint(w)
    if not np.allclose(w, reps) or (reps < 1).any():
        raise ArgumentError(words("online Elo needs whole-number battle weights (a weight of 3 = the vote repeated three times); these battles have fractional weights: use {arg:model='bt'}."))
    return reps.astype(np.int64)


def online_elo(model_a, model_b, outcome, n_models: int, *, k: float = 4.0, initial: float = ELO_INITIAL,
               scale: float = ELO_SCALE, base: float = ELO_BASE, weight=None, backend: str = "auto") -> np.ndarray:
    """Online Elo ratings after processing the battles in the order given.

    Parameters
    ----------
    model_a, model_b : array_like of int, shape (n,)
        Model positions.
    outcome : array_like of float, shape (n,)
        Score of A (1 win, 0.5 tie, 0 loss, or a fraction).
    n_models : int
    k : float
        The K-factor (FastChat and evalica use 4).
    initial, scale, base : float
        Starting rating and the logistic scale: ``E = 1 / (1 + base^((R_b - R_a) / scale))``.
    weight : array_like of int, optional
        A weight w repeats the battle w times in a row.

    Returns
    -------
    numpy.ndarray, shape (M,)

    Notes
    -----
    Order matters: the same battles in another order give other ratings, and with a small ``k`` the ratings may
    not have converged. evalica's ``elo`` and FastChat's ``compute_elo`` give the same numbers.

    References
    ----------
    Elo, A. E. (1978). The Rating of Chessplayers, Past and Present. Arco.
    Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human preference.
    ICML. arXiv:2403.04132.

    Examples
    --------
    >>> online_elo([0, 0], [1, 1], [1.0, 1.0], 2).round(3)
    array([1003.977,  996.023])
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    y = np.asarray(outcome, dtype=np.float64)
    seq = np.arange(a.size)
    if weight is not None:
        seq = np.repeat(seq, expand_weights(weight))
    return _run(a, b, y, seq, np.array([0, seq.size]), int(n_models), k, initial, scale, base, backend)[0]


def bootstrap_elo(model_a, model_b, outcome, n_models: int, units, boot, *, k: float = 4.0,
                  initial: float = ELO_INITIAL, scale: float = ELO_SCALE, base: float = ELO_BASE, weight=None,
                  canonical=None, backend: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """FastChat's bootstrap Elo with clusters kept whole: online Elo on each replicate's battles in random order.

    Parameters
    ----------
    model_a, model_b, outcome, n_models, k, initial, scale, base, weight
        As for :func:`online_elo`.
    units : Units
        Resampling unit of each battle (:func:`~evalband.resample.battles.resampling_units`).
    boot : ClusterBootstrap
        The replicate counts; the random order of block b comes from its own stream ``(key, b, 'elo-order')``.
    canonical : array of int, optional
        Content-based order of the battles (:meth:`BattleTable.canonical_order`), so that the replicates do not
        depend on the order of the rows.

    Returns
    -------
    samples : numpy.ndarray, shape (B, M)
        Online Elo of every replicate.
    absent : numpy.ndarray of int, shape (M,)
        Replicates in which each model had no battle (it then keeps the initial rating).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.preferences import BattleTable, ClusterBootstrap, bootstrap_elo, resampling_units
    >>> t = BattleTable.build(["x", "x", "y", "x", "z", "y"], ["y", "z", "z", "y", "x", "x"],
    ...                       [1.0, 1.0, 0.5, 1.0, 0.0, 0.0])
    >>> units = resampling_units(t)
    >>> boot = ClusterBootstrap(units, 200, (0,))
    >>> samples, absent = bootstrap_elo(t.model_a, t.model_b, t.outcome, t.n_models, units, boot)
    >>> t.models, samples.shape
    (('x', 'y', 'z'), (200, 3))
    >>> np.median(samples, axis=0).round(1)
    array([1009.8,  994.1,  996. ])
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    y = np.asarray(outcome, dtype=np.float64)
    n = a.size
    can = np.arange(n) if canonical is None else np.asarray(canonical, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[can] = np.arange(n)
    by_unit = np.lexsort((rank, units.codes))  # battles grouped by unit, content order within a unit
    unit_of = units.codes[by_unit]
    reps = np.ones(n, dtype=np.int64) if weight is None else expand_weights(weight)
    out = np.empty((boot.n_resamples, int(n_models)))
    absent = np.zeros(int(n_models), dtype=np.int64)
    for start, counts in boot.blocks():
        c = counts.shape[0]
        mult = counts[:, unit_of].astype(np.int64) * reps[by_unit][None, :]  # (c, n)
        flat = np.repeat(np.tile(by_unit, c), mult.ravel())
        rep_id = np.repeat(np.repeat(np.arange(c), n), mult.ravel())
        keys = boot.generator(start // boot.block, "elo-order").random(flat.size)
        order = np.lexsort((keys, rep_id))
        seq = flat[order]
        starts = np.concatenate([[0], np.cumsum(mult.sum(axis=1))])
        out[start:start + c] = _run(a, b, y, seq, starts, int(n_models), k, initial, scale, base, backend)
        played = np.zeros((c, int(n_models)), dtype=bool)
        rows = np.repeat(np.arange(c), n)
        hit = mult.ravel() > 0
        played[rows[hit], np.tile(a[by_unit], c)[hit]] = True
        played[rows[hit], np.tile(b[by_unit], c)[hit]] = True
        absent += (~played).sum(axis=0)
    return out, absent
