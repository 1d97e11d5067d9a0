"""Win rates: against a baseline (AlpacaEval, Arena-Hard), on average against all others, and length-controlled.

* **Against a baseline**: each battle of model m against the baseline gives m's preference ``p`` in [0, 1] (1 = m
  won, 0.5 = tie or a balanced weighted preference). AlpacaEval's win rate is the mean of ``p`` (its ``preference
  - 1`` with preferences in [1, 2]) and its standard error the standard error of that mean,
  ``sd(p, ddof=1) / sqrt(n)``, which treats the instructions as independent and the judge as fixed.
* **Average win rate** (HELM's mean win rate applied to head-to-head results; evalica's ``average_win_rate``):
  for each opponent j, the share of battles model i won against j (a tie counting half), averaged over the
  opponents i met.
* **Length-controlled win rate**: AlpacaEval's ``length_controlled_v1`` is :mod:`~evalband.preferences.lc_glm`;
  here the minimal GLM, ``lc_glm='length-only'``: per model, a logistic GLM of the preference on an intercept and
  ``tanh(length difference / its standard deviation)``; the win rate predicted at no length difference.

Their uncertainty comes from the cluster bootstrap of :mod:`~evalband.resample.battles` (questions
resampled whole, so two models judged on the same questions against the same baseline are compared pairwise);
replicates are computed from sums per (unit, model), vectorized over replicates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..data.battle_counts import group_rows
from scipy.special import expit
from ..display.reprs import displayed

__all__ = ["BaselineWinRates", "baseline_win_rates", "average_win_rate", "average_win_rate_replicates",
           "length_controlled_win_rates"]


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class BaselineWinRates:
    """Each model's battles against one baseline, as sums per resampling unit.

    Attributes
    ----------
    baseline : int
        Position of the baseline model.
    win_rate, se, n : numpy.ndarray, shape (M,)
        Mean preference, AlpacaEval's standard error and the (weighted) number of battles against the baseline;
        the baseline itself has 0.5, 0, 0.
    keep : numpy.ndarray of bool, shape (n_battles,)
        Battles involving the baseline.
    model : numpy.ndarray of int
        The non-baseline model of each kept battle.
    preference : numpy.ndarray
        Its preference (probability that the model beat the baseline).
    weight : numpy.ndarray
    unit_n, unit_s : scipy.sparse.csr_matrix, shape (K, M)
        Per unit: weight of battles, and weight x preference.
    """

    baseline: int
    win_rate: np.ndarray
    se: np.ndarray
    n: np.ndarray
    keep: np.ndarray
    model: np.ndarray
    preference: np.ndarray
    weight: np.ndarray
    unit_n: sparse.csr_matrix
    unit_s: sparse.csr_matrix
    unit_codes: np.ndarray

    def replicates(self, counts) -> np.ndarray:
        """Win rates of a block of replicates: ``counts`` (c, K) -> (c, M); NaN where a model has no battle."""
        w = np.asarray(counts, dtype=np.float64)
        n = np.asarray((self.unit_n.T @ w.T).T)
        s = np.asarray((self.unit_s.T @ w.T).T)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = s / n
        out[:, self.baseline] = 0.5
        return out

    def jackknife(self) -> np.ndarray:
        """Exact delete-one-unit win rates, (K, M) (for BCa)."""
        n_tot = np.asarray(self.unit_n.sum(axis=0)).ravel()
        s_tot = np.asarray(self.unit_s.sum(axis=0)).ravel()
        with np.errstate(invalid="ignore", divide="ignore"):
            out = (s_tot[None, :] - self.unit_s.toarray()) / (n_tot[None, :] - self.unit_n.toarray())
        out[:, self.baseline] = 0.5
        return out


def baseline_win_rates(model_a, model_b, outcome, weight, units, n_models: int, baseline: int, *,
                       count=None) -> BaselineWinRates:
    """Win rates against ``baseline`` with AlpacaEval's standard errors, and their sums per unit.

    Parameters
    ----------
    model_a, model_b, outcome, weight : array_like, shape (n,)
        The battles (positions, probability that A wins, weights).
    units : Units
    n_models, baseline : int
    count : array_like of int, shape (n,), optional
        How many battles each row stands for (counted battles, :class:`~evalband.data.battle_counts.BattleCounts`).

    Returns
    -------
    BaselineWinRates

    Notes
    -----
    Weights are frequency weights (a weight of 3 counts the battle three times, as Arena-Hard's strong votes):
    the standard error is then that of the mean of the repeated preferences. AlpacaEval's standard error treats
    the battles as independent draws; with several battles per question, or when comparing two models on the
    same questions, the cluster bootstrap's interval is the honest one.

    References
    ----------
    Li, X. et al. (2023). AlpacaEval: an automatic evaluator of instruction-following models.
    github.com/tatsu-lab/alpaca_eval (``metrics/helpers.py``: ``win_rate = mean``, ``standard_error = sem``).

    Examples
    --------
    Model 1 against baseline 0 on three questions: preferences 1, 0.5 and 0.

    >>> from evalband.preferences import BattleTable, resampling_units
    >>> t = BattleTable.build(["m", "base", "m"], ["base", "m", "base"], [1.0, 0.5, 0.0])
    >>> wr = baseline_win_rates(t.model_a, t.model_b, t.outcome, t.weight, resampling_units(t), 2, 0)
    >>> float(wr.win_rate[1]), float(wr.se[1])
    (0.5, 0.28867513459481287)
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    y = np.asarray(outcome, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    keep = (a == baseline) | (b == baseline)
    model = np.where(a[keep] == baseline, b[keep], a[keep])
    pref = np.where(a[keep] == baseline, 1.0 - y[keep], y[keep])
    c = np.ones(a.size, dtype=np.int64) if count is None else np.asarray(count, dtype=np.int64)
    m = int(n_models)
    # the sums over distinct (model, preference, weight) with their counts, in their sorted order: the same
    # numbers whatever the order of the battles and whether they come one by one or counted
    (gm, gp, gw), gc = group_rows([model, pref, w[keep]], c[keep])
    mass = gc * gw
    n = np.bincount(gm, weights=mass, minlength=m)
    s = np.bincount(gm, weights=mass * gp, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = s / n
        dev = np.bincount(gm, weights=mass * (gp - rate[gm]) ** 2, minlength=m)
        se = np.sqrt(dev / (n - 1.0) / n)
    wk = w[keep] * c[keep]
    se = np.where(n > 1, se, np.nan)
    rate[baseline], se[baseline], n[baseline] = 0.5, 0.0, 0.0
    k_units = units.n_units
    codes = units.codes[keep]
    unit_n = sparse.csr_matrix((wk, (codes, model)), shape=(k_units, m))
    unit_s = sparse.csr_matrix((wk * pref, (codes, model)), shape=(k_units, m))
    return BaselineWinRates(int(baseline), rate, se, n, keep, model, pref, wk, unit_n, unit_s, codes)


def _pair_maps(pair_i, pair_j, n_models):
    p = len(pair_i)
    ai = sparse.csr_matrix((np.ones(p), (np.arange(p), pair_i)), shape=(p, n_models))
    aj = sparse.csr_matrix((np.ones(p), (np.arange(p), pair_j)), shape=(p, n_models))
    return ai, aj


def average_win_rate_replicates(n, s, pair_i, pair_j, n_models: int) -> np.ndarray:
    """Average win rate from pair sums: ``n``, ``s`` (c, P) (weight, and weight x outcome of ``pair_i``) -> (c, M).

    For each pair that met, ``s / n`` is the share won by ``pair_i``; each model's average over the opponents it
    met (NaN for a model that met none).
    """
    n = np.atleast_2d(np.asarray(n, dtype=np.float64))
    s = np.atleast_2d(np.asarray(s, dtype=np.float64))
    ai, aj = _pair_maps(pair_i, pair_j, n_models)
    valid = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(valid, s / np.where(valid, n, 1.0), 0.0)
    v = valid.astype(np.float64)
    total = np.asarray((ai.T @ (rate * v).T).T) + np.asarray((aj.T @ ((1.0 - rate) * v).T).T)
    count = np.asarray(((ai + aj).T @ v.T).T)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)


def average_win_rate(n, s, pair_i, pair_j, n_models: int) -> np.ndarray:
    """Average win rate of each model from the totals ``n``, ``s`` (P,).

    Examples
    --------
    >>> average_win_rate([4.0], [3.0], [0], [1], 2)
    array([0.75, 0.25])
    """
    return average_win_rate_replicates(n, s, pair_i, pair_j, n_models)[0]


def _lc_fit(model, pref, z, wts, n_models, alpha0, *, ridge=1e-6, tol=1e-10, max_iter=100):
    """Newton fit of ``logit P = alpha_m + beta_m z`` per model, for each row of weights ``wts`` (c, n)."""
    c = wts.shape[0]
    onehot = sparse.csr_matrix((np.ones(model.size), (np.arange(model.size), model)),
                               shape=(model.size, n_models))
    alpha = np.broadcast_to(alpha0, (c, n_models)).copy()
    beta = np.zeros((c, n_models))
    for _ in range(max_iter):
        eta = alpha[:, model] + beta[:, model] * z[None, :]
        p = expit(eta)
        r = wts * (pref[None, :] - p)
        v = wts * p * (1.0 - p)

        def per_model(x):
            return np.asarray((onehot.T @ x.T).T)

        g0 = per_model(r) - ridge * alpha
        g1 = per_model(r * z) - ridge * beta
        h00 = per_model(v) + ridge
        h01 = per_model(v * z)
        h11 = per_model(v * z * z) + ridge
        det = h00 * h11 - h01 ** 2
        d0 = (h11 * g0 - h01 * g1) / det
        d1 = (h00 * g1 - h01 * g0) / det
        big = np.maximum(np.abs(d0), np.abs(d1))
        s = np.minimum(1.0, 2.0 / np.maximum(big, 1e-300))
        alpha += s * d0
        beta += s * d1
        if np.nanmax(big) < tol:
            break
    return alpha, beta


def length_controlled_win_rates(wr: BaselineWinRates, length_difference, n_models: int, *, counts=None,
                                scale=None):
    """Length-controlled win rates: per model, ``logit P(model beats baseline) = alpha + beta tanh(delta / sd)``.

    Parameters
    ----------
    wr : BaselineWinRates
    length_difference : array_like, shape (n_kept,)
        Length of the model's answer minus the baseline's, for each kept battle.
    counts : array_like (c, K), optional
        Unit counts of a block of replicates (None: the data).
    scale : array_like (M,), optional
        Each model's ``sd`` of the length difference (computed on the data when None, ddof 1 as AlpacaEval).

    Returns
    -------
    lc : numpy.ndarray, shape (c, M)
        ``sigma(alpha)``: the win rate predicted at equal lengths (0.5 for the baseline).
    beta : numpy.ndarray, shape (c, M)
        The length coefficients (logits per unit of ``tanh``).
    scale : numpy.ndarray, shape (M,)

    Notes
    -----
    This is the minimal GLM, ``lc_glm='length-only'``: AlpacaEval's ``length_controlled_v1``
    (:mod:`~evalband.preferences.lc_glm`, the default of ``arena``) also has an instruction-difficulty term, no
    intercept, an L1 penalty and is regularized toward gamed baselines; this one keeps only the length term and
    the model's intercept, so its values differ from the published LC win rates. AlpacaEval reports no uncertainty for the GLM's fit (its standard error is that of the raw win
    rate); here the GLM is refitted on every bootstrap replicate, so the interval includes it.

    References
    ----------
    Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. (2024). Length-controlled AlpacaEval: a simple way to
    debias automatic evaluators. arXiv:2404.04475.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.preferences import (BattleTable, baseline_win_rates, length_controlled_win_rates,
    ...                                   resampling_units)
    >>> t = BattleTable.build(["m"] * 8, ["base"] * 8, [1, 1, 1, 0, 1, 0, 1, 0.0])
    >>> base = t.models.index("base")
    >>> wr = baseline_win_rates(t.model_a, t.model_b, t.outcome, t.weight, resampling_units(t), t.n_models, base)
    >>> length_difference = [300, 250, -40, 200, 120, -100, 80, 60]
    >>> lc, beta, scale = length_controlled_win_rates(wr, length_difference, t.n_models)
    >>> t.models, wr.win_rate.round(3)
    (('base', 'm'), array([0.5  , 0.625]))
    >>> lc.round(3), beta.round(3)
    (array([[0.5  , 0.512]]), array([[0.   , 1.122]]))
    """
    delta = np.asarray(length_difference, dtype=np.float64)
    model = wr.model
    if scale is None:
        n = np.bincount(model, minlength=n_models).astype(float)
        mean = np.bincount(model, weights=delta, minlength=n_models) / np.maximum(n, 1)
        var = np.bincount(model, weights=(delta - mean[model]) ** 2, minlength=n_models) / np.maximum(n - 1, 1)
        scale = np.sqrt(var)
    scale = np.asarray(scale, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(scale[model] > 0, np.tanh(delta / np.where(scale[model] > 0, scale[model], 1.0)), 0.0)
    if counts is None:
        wts = wr.weight[None, :]
    else:
        wts = np.asarray(counts, dtype=np.float64)[:, wr.unit_codes] * wr.weight[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        start = np.log(np.clip(wr.win_rate, 1e-3, 1 - 1e-3)) - np.log1p(-np.clip(wr.win_rate, 1e-3, 1 - 1e-3))
    alpha, beta = _lc_fit(model, wr.preference, z, wts, n_models, np.nan_to_num(start))
    lc = expit(alpha)
    present = np.bincount(model, minlength=n_models) > 0
    lc[:, ~present] = np.nan
    lc[:, wr.baseline] = 0.5
    beta[:, wr.baseline] = 0.0
    return lc, beta, scale

