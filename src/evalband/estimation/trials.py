"""Repeated trials: average within item first, standard error across items, and the split of the variance
into a between-item part and a within-item (output) part."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, check_choice, check_confidence_level, check_probability
from .cluster import cluster_interval
from .mean import MEAN_METHODS, mean_interval
from .result import Estimate
from ..display.reprs import displayed
from ..display.notes import NoteKind
from ..data.trial_means import score_quantum, sums_exact
from .._words import words

__all__ = ["trial_interval", "trial_variance", "variance_from_sums", "TrialVariance", "DEFAULT_KS"]

#: Trial counts shown by :meth:`TrialVariance.to_frame`.
DEFAULT_KS = (1, 2, 4, 8, 16, 32)
#: Starts of the notes :func:`trial_interval` adds (``estimate`` merges them over tasks into one note each).
NEGATIVE_NOTE = "between-item variance estimated below 0"
NO_K_NOTE = "k_enough is empty (NaN)"


@displayed


@dataclass(frozen=True, repr=False)
class TrialVariance:
    """Between-item and within-item (output) variance of repeated-trial scores, elementwise over cells.

    Attributes
    ----------
    var_between : numpy.ndarray
        Unbiased estimate of the variance of the items' true mean scores (can be slightly negative by chance).
    var_within : numpy.ndarray
        Unbiased estimate of the average variance of one trial's score around its item's mean (output noise);
        NaN when no item has two trials.
    n_items : numpy.ndarray
        Items with at least one trial.
    mean_trials : numpy.ndarray
        Average number of trials per item.
    """

    var_between: np.ndarray
    var_within: np.ndarray
    n_items: np.ndarray
    mean_trials: np.ndarray

    def total_variance(self, k) -> np.ndarray:
        """Variance of one item's k-trial mean, ``var_between + var_within / k`` (negative parts set to 0);
        divide by the number of items for the variance of the overall mean."""
        k = np.asarray(k, dtype=np.float64)
        return np.maximum(self.var_between, 0.0) + np.maximum(self.var_within, 0.0) / k

    def reduction(self, k) -> np.ndarray:
        """Share of the one-trial variance removed by averaging ``k`` trials per item:
        ``1 - total_variance(k) / total_variance(1)``. Its limit as k grows is the output share of the variance."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 - self.total_variance(k) / self.total_variance(1)

    def k_enough(self, *, tolerance: float = 0.1) -> np.ndarray:
        """The number of trials beyond which more trials stop paying.

        The smallest k at which output noise is at most ``tolerance`` of the remaining variance,
        ``(var_within / k) / (var_between + var_within / k) <= tolerance``: more trials can then remove at most that
        share. 1 when there is no output noise. NaN ('no such k') when the between-item variance is estimated at
        or below 0 while there is output noise: all the measured variance is then output noise, so no number of
        trials is 'enough' by this rule (each trial helps about as much as another item); :func:`trial_interval`
        says so in a note. NaN also when a component cannot be estimated.
        """
        tol = check_probability(tolerance, "tolerance")
        vb = np.maximum(self.var_between, 0.0)
        vw = np.maximum(self.var_within, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = vw * (1.0 - tol) / (tol * vb)
            k = np.where(vw <= 0, 1.0, np.where(vb <= 0, np.nan, np.maximum(np.ceil(raw - 1e-12), 1.0)))
        return np.where(np.isnan(self.var_within) | np.isnan(self.var_between), np.nan, k)

    def to_frame(self, ks=DEFAULT_KS) -> pd.DataFrame:
        """Flattened cells x ``ks``: k, total variance per item, variance of the overall mean, reduction."""
        rows = []
        n = np.ravel(self.n_items).astype(float)
        for k in ks:
            tv = np.ravel(self.total_variance(k))
            rows.append(pd.DataFrame({"cell": np.arange(len(tv)), "k": int(k), "item_variance": tv,
                                      "variance_of_mean": tv / n, "reduction": np.ravel(self.reduction(k))}))
        return pd.concat(rows, ignore_index=True).sort_values(["cell", "k"], kind="stable").reset_index(drop=True)


def trial_variance(trial_scores) -> TrialVariance:
    """Split the variance of repeated-trial scores into between-item and within-item parts.

    Parameters
    ----------
    trial_scores : array_like, shape (..., n_items, max_trials)
        Scores of each trial, NaN-padded where an item has fewer trials (unequal counts are allowed); an item
        with no trial at all is a missing item.

    Returns
    -------
    TrialVariance

    Notes
    -----
    Item i has k_i trials with mean ybar_i and sample variance s_i^2 (ddof = 1). The within-item variance is the
    average of s_i^2 over items with k_i >= 2, unbiased for the mean output variance. The sample variance of
    the item means over-states the between-item variance by the output noise left in each mean:
    E[var(ybar_i)] = var_between + mean_i(sigma_i^2 / k_i). The estimator subtracts the unbiased
    ``mean_i(s_i^2 / k_i)`` (the one-way ANOVA / U-statistic correction; items with one trial use the pooled
    within-item variance), so output noise does not inflate the item variance. It is unbiased, hence can fall
    below 0 when the items barely differ.

    With k trials per item the variance of the overall mean is ``(var_between + var_within / k) / n``: trials
    help until the item variance dominates (Miller 2024, section on resampling). When var_within is twice
    var_between (e.g. 0/1 scores with item success rates uniform on [0, 1]), two trials remove a third of the
    variance, four a half, and no number more than two thirds.

    Where every sum of an item's scores is exact in any order (:func:`evalband.data.trial_means.sums_exact`:
    0/1, integer or quarter scores), s_i^2 is computed from the item's count, sum and sum of squares
    (:func:`variance_from_sums`, the same bits as from a table of averaged trials or a cluster's sums);
    otherwise from each trial's deviation from its item's mean.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations.
    arXiv:2411.00640.
    Searle, S. R., Casella, G. & McCulloch, C. E. (1992). Variance Components. Wiley, ch. 3.

    Examples
    --------
    >>> import evalband as eb
    >>> tv = eb.trial_variance([[1, 0, 1], [1, 1, 1], [0, 0, 1], [1, 0, 0]])
    >>> round(float(tv.var_between), 4), round(float(tv.var_within), 4)
    (0.0185, 0.25)
    """
    x = np.asarray(trial_scores, dtype=np.float64)
    if x.ndim < 2:
        raise ArgumentError(f"`trial_scores` must have shape (..., n_items, max_trials); got shape {x.shape}.")
    sums = exact_sums(x)
    if sums is not None:
        return variance_from_sums(*sums)
    valid = ~np.isnan(x)
    k = valid.sum(axis=-1).astype(np.float64)
    has = k > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ybar = np.where(has, np.nansum(x, axis=-1) / k, np.nan)
        resid = np.where(valid, x - ybar[..., None], 0.0)
        s2 = np.where(k > 1, np.sum(resid * resid, axis=-1) / (k - 1), np.nan)
    return _components(k, ybar, s2)


def exact_sums(x: np.ndarray):
    """``(count, sum, sum of squares)`` of each item's trials (NaN-padded ``x``) when every such sum is exact in
    any order (:func:`evalband.data.trial_means.sums_exact`: the sums a table of averaged trials holds), else None."""
    valid = ~np.isnan(x)
    if not sums_exact(*score_quantum(x[valid]), x.shape[-1]):
        return None
    return valid.sum(axis=-1), np.nansum(x, axis=-1), np.nansum(x * x, axis=-1)


#: products of integers-in-units up to which int64 holds ``k * sumsq - sum**2`` (beyond: Python integers)
_INT64_ROOM = 2.0 ** 62


def _within(k: np.ndarray, total: np.ndarray, sumsq: np.ndarray) -> np.ndarray:
    """Each item's sample variance ``(sumsq - sum**2 / k) / (k - 1)`` (NaN below two trials) from exact sums: in
    units of the largest power of two q dividing every sum (and q**2 every sum of squares) the sums are integers,
    so ``k * sumsq - sum**2`` is an exact integer, rounded once to a float and once by the division; the same
    bits whatever the order of the trials (the rows of one machine or the sums of a cluster)."""
    e = min(score_quantum(total)[0], score_quantum(sumsq)[0] // 2)
    kf = k.astype(np.float64)
    if e >= 1100:  # every sum 0: every trial 0
        return np.where(k > 1, 0.0, np.nan)
    s_units, q_units = np.ldexp(total, -e), np.ldexp(sumsq, -2 * e)
    big = float(np.max(np.abs(s_units), initial=0.0)) ** 2 >= _INT64_ROOM or \
        float(np.max(kf, initial=0.0)) * float(np.max(q_units, initial=0.0)) >= _INT64_ROOM
    if big:  # beyond int64: Python integers (exact, slower)
        num = (k.astype(object) * q_units.astype(np.int64).astype(object)
               - s_units.astype(np.int64).astype(object) ** 2).astype(np.float64)
    else:
        si = s_units.astype(np.int64)
        num = (k.astype(np.int64) * q_units.astype(np.int64) - si * si).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(k > 1, np.ldexp(num, 2 * e) / (kf * (kf - 1.0)), np.nan)


def variance_from_sums(count, total, sumsq) -> TrialVariance:
    """:func:`trial_variance` from each item's trial count, sum and sum of squares, shape (..., n_items), when
    the sums are exact (a table of averaged trials, :mod:`evalband.data.trial_means`): the same numbers, to the
    last bit, as from the trials themselves.

    Examples
    --------
    >>> import numpy as np
    >>> tv = variance_from_sums(np.array([3, 3, 3, 3]), np.array([2., 3., 1., 1.]), np.array([2., 3., 1., 1.]))
    >>> round(float(tv.var_between), 4), round(float(tv.var_within), 4)
    (0.0185, 0.25)
    """
    k = np.asarray(count)
    total, sumsq = np.asarray(total, dtype=np.float64), np.asarray(sumsq, dtype=np.float64)
    kf = k.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ybar = np.where(kf > 0, total / kf, np.nan)
    return _components(kf, ybar, _within(k, total, sumsq))


def _components(k: np.ndarray, ybar: np.ndarray, s2: np.ndarray) -> TrialVariance:
    """The variance components from each item's trial count ``k`` (float), mean ``ybar`` and sample variance
    ``s2`` (NaN below two trials)."""
    has = k > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        multi = k > 1
        n_multi = multi.sum(axis=-1)
        var_within = np.where(n_multi > 0, np.nansum(np.where(multi, s2, 0.0), axis=-1) / n_multi, np.nan)
        n = has.sum(axis=-1).astype(np.float64)
        grand = np.where(n > 0, np.nansum(np.where(has, ybar, 0.0), axis=-1) / n, np.nan)
        dev = np.where(has, ybar - grand[..., None], 0.0)
        var_means = np.where(n > 1, np.sum(dev * dev, axis=-1) / (n - 1), np.nan)
        noise = np.where(multi, s2 / k, np.where(has, var_within[..., None] / k, 0.0))
        correction = np.sum(np.where(has, noise, 0.0), axis=-1) / n
        var_between = var_means - correction
        mean_trials = np.where(n > 0, k.sum(axis=-1) / n, np.nan)
    return TrialVariance(var_between, var_within, n.astype(np.int64), mean_trials)


NOTE_CELL_S_UNBIASED_METHOD = NoteKind(
    'estimation.variance-negative-cells', 'info',
    NEGATIVE_NOTE + ' in {negative} cell(s) (the unbiased method-of-moments estimate can be negative when items '
    'barely differ): var_between is shown as 0, the unbiased value is var_between_raw')
NOTE_CELL_S_MEASURED_VARIANCE = NoteKind(
    'estimation.k-enough-empty-cells', 'info',
    NO_K_NOTE + ' in {no_k} cell(s): the measured variance there is all output noise, so no number of trials is '
    'enough by the tolerance rule; each more trial helps about as much as another item')


def trial_interval(trial_scores=None, *, method: str = "t", confidence_level=0.95, clusters=None,
                   tolerance: float = 0.1, sums=None) -> Estimate:
    """Mean score over items with repeated trials: average within item, standard error across items.

    Parameters
    ----------
    trial_scores : array_like, shape (..., n_items, max_trials)
        NaN-padded trial scores (unequal trial counts allowed; an all-NaN item is missing).
    method : {'t', 'normal', 'cluster'}
        Interval of the item means: t or normal CLT interval (:func:`mean_interval`), or cluster-robust CR1
        (:func:`cluster_interval`, needs ``clusters``).
    confidence_level : float or str
    clusters : array_like of int, shape (n_items,), optional
    tolerance : float
        For ``k_enough``, see :meth:`TrialVariance.k_enough`.
    sums : tuple of three array_like, shape (..., n_items), optional
        Instead of ``trial_scores``: each item's trial count, sum and sum of squares, exact (the columns of a table
        of averaged trials, :mod:`evalband.data.trial_means`); the same numbers as from the trials
        (:func:`variance_from_sums`).

    Returns
    -------
    Estimate
        Over the item means (each item weighs the same whatever its trial count), with ``extras``
        ``mean_trials``, ``var_between`` (clipped at 0), ``var_between_raw`` (the unbiased estimate, which can be
        negative), ``var_within`` and ``k_enough`` from :func:`trial_variance`.

    Notes
    -----
    Averaging within an item before taking the standard error across items treats the items, not the trials,
    as the independent units: trials of one item share its difficulty, so counting them as separate items would
    understate the standard error. The standard error across item means already contains the output noise left
    after averaging, so it needs no correction; the decomposition says how much more trials would help.

    The method-of-moments (ANOVA) estimate of the between-item variance is unbiased but can be negative when the
    items barely differ relative to the output noise; a variance cannot be, so the reported ``var_between`` is
    clipped at 0 (the unbiased value stays in ``var_between_raw``) and a note counts the cells. Clipping makes the
    reported component biased upward slightly; averaging unbiased estimates across studies should use the raw
    values (Searle, Casella & McCulloch 1992, section 3.5). Where it is clipped ``k_enough`` is NaN (no number of
    trials is 'enough'), with a note.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
    Searle, S. R., Casella, G. & McCulloch, C. E. (1992). Variance Components. Wiley, ch. 3.

    Examples
    --------
    >>> import evalband as eb
    >>> est = eb.trial_interval([[1, 0, 1], [1, 1, 1], [0, 0, 1], [1, 0, 0]])
    >>> est.to_frame()[["estimate", "se", "ci_low", "ci_high"]].round(4)
       estimate      se  ci_low  ci_high
    0    0.5833  0.1596  0.0755   1.0912
    """
    check_confidence_level(confidence_level)
    method = check_choice(method, MEAN_METHODS + ("cluster",), "method")
    if sums is not None:  # each item's trials as their exact count, sum and sum of squares
        if trial_scores is not None:
            raise ArgumentError("give `trial_scores` or `sums`, not both")
        # (in the layout the trials' sums have: the sums over items below then run in the same order)
        k, total, sumsq = (np.asarray(a) for a in sums)
        with np.errstate(invalid="ignore", divide="ignore"):
            item_means = np.where(k > 0, total / k, np.nan)
        tv = variance_from_sums(k, total, sumsq)
    else:
        x = np.asarray(trial_scores, dtype=np.float64)
        if x.ndim < 2:
            raise ArgumentError(f"`trial_scores` must have shape (..., n_items, max_trials); got shape {x.shape}.")
        k = np.sum(~np.isnan(x), axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            item_means = np.where(k > 0, np.nansum(x, axis=-1) / k, np.nan)
        tv = trial_variance(x)
    if method == "cluster":
        if clusters is None:
            raise ArgumentError(words("`{arg:clusters}` must be given with {arg:method='cluster'}."))
        est = cluster_interval(item_means, clusters, confidence_level=confidence_level)
    else:
        if clusters is not None:
            raise ArgumentError(words("`{arg:clusters}` applies only with {arg:method='cluster'}; got {arg:method={method!r}.}", method=method))
        est = mean_interval(item_means, method=method, confidence_level=confidence_level)
    extras = dict(est.extras)
    k_enough = tv.k_enough(tolerance=tolerance)
    extras.update(mean_trials=tv.mean_trials, var_between=np.maximum(tv.var_between, 0.0),
                  var_between_raw=tv.var_between, var_within=tv.var_within, k_enough=k_enough)
    notes = list(est.notes)
    negative = np.sum(tv.var_between < 0)
    if negative:
        notes.append(NOTE_CELL_S_UNBIASED_METHOD(negative=int(negative)))
    no_k = np.sum(np.isnan(k_enough) & (tv.var_between <= 0) & (tv.var_within > 0))
    if no_k:
        notes.append(NOTE_CELL_S_MEASURED_VARIANCE(no_k=int(no_k)))
    return Estimate(est.estimate, est.se, est.ci, est.n, est.method, est.confidence_level, est.df, extras,
                    tuple(notes))
