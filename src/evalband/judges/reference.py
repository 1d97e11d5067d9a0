"""Judges against a reference rater: accuracy, kappa, confusion matrix, mean bias, and how correlated the judges'
errors are (the effective number of independent judges).

The reference is one rater (a human expert), or the consensus of a crowd: the majority value of the crowd's
ratings of each unit, or (numeric ratings) their mean. Every statistic is a function of sums over units, so it
gets a bootstrap interval over units (whole clusters when given) from the same draws as :func:`agreement`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, ArgumentTypeError, as_generator, check_choice, check_confidence_level,
                         check_positive_int, no_other_keywords,
                         renamed)
from ..estimation.confidence import ConfidenceInterval
from . import _coefficients as coef
from ._coefficients import Coefficient
from ..display.numbers import format_estimate
from ..display.reprs import html_head, titled_repr
from ..resample.units import INTERVAL_METHODS
from .._random import run_entropy
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["ReferenceResult", "judge_reference", "CONSENSUS"]

#: consensus references built from a crowd of raters
CONSENSUS = ("majority", "mean")


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class ReferenceResult:
    """Each judge against a reference.

    Attributes
    ----------
    reference : str
        The reference rater, or 'majority' / 'mean' of the crowd.
    judges : tuple of str
    crowd : tuple of str
        The raters behind a consensus reference (empty for a single rater).
    statistics : pandas.DataFrame
        judge, statistic ('accuracy', 'cohen_kappa', 'cohen_kappa_quadratic', 'mean_bias', 'mean_absolute_error'),
        estimate, se, ci_low, ci_high, n_units.
    confusion : dict of str to pandas.DataFrame
        Per judge, counts of units by reference value (rows) and judge value (columns).
    error_correlation : pandas.DataFrame
        judge_a, judge_b, estimate, se, ci_low, ci_high, n_units: Pearson correlation of the two judges' errors
        (judge minus reference for numeric ratings, 1 where the judge misses the reference for nominal ones)
        over the units both judged.
    effective_judges : float
        ``J^2 / sum_jk rho_jk``: how many independent judges the J judges' errors are worth.
    effective_judges_ci : ConfidenceInterval
    confidence_level : float
    notes : tuple of str
    """

    #: coefficients and rates as fractions, as `evalband agreement` prints them (a kappa is no share of items)
    __display__ = {"scale": 1.0}

    reference: str
    judges: tuple
    crowd: tuple
    statistics: pd.DataFrame
    confusion: dict
    error_correlation: pd.DataFrame
    effective_judges: float
    effective_judges_ci: ConfidenceInterval
    confidence_level: float
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """The per-judge statistics (one row per judge and statistic)."""
        return self.statistics.copy()

    def __repr__(self) -> str:
        lines = []
        for _, r in self.statistics.iterrows():
            lines.append(f"{r['judge']} {r['statistic']}: {format_estimate(r['estimate'], r['se'])} ({format_estimate(r['ci_low'], r['se'])},"
                         f" {format_estimate(r['ci_high'], r['se'])}), {int(r['n_units']):,} units")
        if len(self.judges) > 1:
            lines.append(f"effective independent judges: {self.effective_judges:.2f} of {len(self.judges)}")
        return titled_repr(f"ReferenceResult(reference {self.reference!r}, {len(self.judges)} judge(s))", lines[:20],
                          self.notes)

    def _repr_html_(self) -> str:
        return html_head(self.statistics)


def _consensus(table, crowd_idx, how: str):
    """Per-unit consensus of the crowd: majority value code (-1 on ties or no rating), or the mean value."""
    member = np.isin(table.rater_code, crowd_idx)
    counts = np.zeros((table.n_units, table.n_categories))
    np.add.at(counts, (table.unit_code[member], table.value_code[member]), 1.0)
    size = counts.sum(axis=1)
    if how == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            return (counts @ table.values) / size, size, 0
    top = counts.max(axis=1)
    ties = (counts == top[:, None]).sum(axis=1) > 1
    code = np.where((size > 0) & ~ties, counts.argmax(axis=1), -1)
    return code, size, int(((size > 0) & ties).sum())


def _mean_of(name, value, mask, judge):
    cols = np.column_stack([np.where(mask, value, 0.0), mask.astype(float)])

    def finish(s):
        with np.errstate(invalid="ignore", divide="ignore"):
            return s[..., 0] / s[..., 1]
    return Coefficient(name, cols, finish, int(mask.sum()), judge)


def _correlation(ea, eb, mask, a, b):
    x, y = np.where(mask, ea, 0.0), np.where(mask, eb, 0.0)
    cols = np.column_stack([mask.astype(float), x, y, x * x, y * y, x * y])

    def finish(s):
        n = s[..., 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            sxx = s[..., 3] - s[..., 1] ** 2 / n
            syy = s[..., 4] - s[..., 2] ** 2 / n
            sxy = s[..., 5] - s[..., 1] * s[..., 2] / n
            return sxy / np.sqrt(sxx * syy)
    return Coefficient("error_correlation", cols, finish, int(mask.sum()), a, b)


def _effective(corrs, n_judges):
    cols = np.concatenate([c.columns for c in corrs], axis=1)

    def finish(s):
        total = float(n_judges)
        for k, c in enumerate(corrs):
            total = total + 2.0 * np.nan_to_num(c.finish(s[..., 6 * k:6 * k + 6]))
        return n_judges ** 2 / total
    return Coefficient("effective_judges", cols, finish, max(c.n_units for c in corrs))


NOTE_REFERENCE_CROWD_S_RATERS = NoteKind(
    'judges.reference-crowd-s-raters', 'info',
    "reference: the crowd's {reference} of {n_crowd} raters ({per_unit:.1f} ratings per unit on average)")
NOTE_UNITS_WHERE_CROWD_S = NoteKind(
    'judges.units-where-crowd-s', 'excluded',
    "{ties:,} units where the crowd's majority is tied have no reference and are left out")
NOTE_NO_UNIT_RATED_BOTH = NoteKind('judges.no-unit-rated-both', 'info',
                                    '{j}: no unit rated by both the judge and the reference')


def _judge_reference(table, *, reference, judges=None, crowd=None, entropy, seed=None, n_resamples=2000,
                     method="percentile", confidence_level=0.95) -> ReferenceResult:
    from .agreement_intervals import evaluate

    notes = []
    raters = table.raters
    if not isinstance(reference, str):
        raise ArgumentTypeError(words("`{arg:reference}` must be a rater's name, 'majority' or 'mean'; got {reference!r}.", reference=reference))
    if judges is not None:
        judges = [judges] if isinstance(judges, str) else list(judges)
        bad = [j for j in judges if j not in raters]
        if bad:
            raise ArgumentError(words('`{arg:judges}`: unknown {value}; available: {value2}.', value=', '.join(map(repr, bad)), value2=', '.join(map(repr, raters[:12]))))
    if reference in CONSENSUS and reference not in raters:
        if crowd is None:
            if judges is None:
                raise ArgumentError(words('`{arg:reference={reference!r}}` needs `{arg:judges}` (the raters judged against the crowd) or `crowd` (the raters forming it).', reference=reference))
            crowd = [r for r in raters if r not in judges]
        crowd = [crowd] if isinstance(crowd, str) else list(crowd)
        if judges is None:
            judges = [r for r in raters if r not in crowd]
        if not crowd or not judges:
            raise ArgumentError(words('`{arg:reference}`: the crowd and the judges must both be non-empty.'))
        if reference == "mean" and not table.numeric:
            raise ArgumentError(words("`{arg:reference='mean'}` needs numeric ratings; use 'majority' for categories."))
        ref, size, ties = _consensus(table, [raters.index(r) for r in crowd], reference)
        have = size > 0
        per_unit = float(size[have].mean())
        notes.append(NOTE_REFERENCE_CROWD_S_RATERS(reference=reference, n_crowd=len(crowd), per_unit=per_unit))
        if ties:
            notes.append(NOTE_UNITS_WHERE_CROWD_S(ties=ties))
        numeric_ref = reference == "mean"
    else:
        if reference not in raters:
            raise ArgumentError(words("`{arg:reference}`: unknown rater {reference!r}; available: {value} (or 'majority' / 'mean' of a crowd).", reference=reference, value=', '.join(map(repr, raters[:12]))))
        crowd = []
        ref = table.matrix[raters.index(reference)]
        judges = [r for r in raters if r != reference] if judges is None else judges
        numeric_ref = False
    judges = [j for j in judges if j != reference]
    if not judges:
        raise ArgumentError(words('`{arg:judges}`: no judge to compare with the reference.'))
    vals = table.values
    ref_ok = np.isfinite(ref) if numeric_ref else ref >= 0
    ref_val = ref if numeric_ref else (vals[np.maximum(ref, 0)] if table.numeric else None)
    coefs, errors = [], {}
    for j in judges:
        jc = table.matrix[raters.index(j)]
        both = (jc >= 0) & ref_ok
        if not both.any():
            notes.append(NOTE_NO_UNIT_RATED_BOTH(j=j))
        if not numeric_ref:
            coefs.append(_mean_of("accuracy", (jc == ref).astype(float), both, j))
            pair = np.vstack([jc, np.where(ref_ok, ref, -1)])
            weights = [None] if table.level == "nominal" else [None, "quadratic"]
            for w in weights:
                wm = coef.kappa_weights(table.n_categories, w)
                coefs.append(coef.cohen(pair, 0, 1, wm, name="cohen_kappa" if w is None else f"cohen_kappa_{w}",
                                        rater_a=j))
        if table.numeric and table.level != "nominal":
            diff = np.where(both, vals[np.maximum(jc, 0)] - np.where(ref_ok, ref_val, 0.0), 0.0)
            coefs.append(_mean_of("mean_bias", diff, both, j))
            coefs.append(_mean_of("mean_absolute_error", np.abs(diff), both, j))
            errors[j] = (diff, both)
        else:
            errors[j] = ((jc != ref).astype(float), both)
    corrs = [_correlation(errors[a][0], errors[b][0], errors[a][1] & errors[b][1], a, b)
             for i, a in enumerate(judges) for b in judges[i + 1:]]
    all_coefs = coefs + corrs + ([_effective(corrs, len(judges))] if corrs else [])
    obs, samples, low, high, se, undefined, more = evaluate(all_coefs, table, entropy=entropy,
                                                            n_resamples=n_resamples, method=method,
                                                            confidence_level=confidence_level)
    notes += [n for n in more if n not in notes]
    rows = [{"judge": c.rater_a, "statistic": c.name, "estimate": obs[k], "se": se[k], "ci_low": low[k],
             "ci_high": high[k], "n_units": c.n_units, "undefined_replicates": int(undefined[k])}
            for k, c in enumerate(coefs)]
    stats = pd.DataFrame(rows, columns=["judge", "statistic", "estimate", "se", "ci_low", "ci_high", "n_units",
                                        "undefined_replicates"])
    stats["reference"] = reference
    stats["confidence_level"] = confidence_level
    off = len(coefs)
    corr_frame = pd.DataFrame([{"judge_a": c.rater_a, "judge_b": c.rater_b, "estimate": obs[off + k], "se": se[off + k],
                                "ci_low": low[off + k], "ci_high": high[off + k], "n_units": c.n_units}
                               for k, c in enumerate(corrs)],
                              columns=["judge_a", "judge_b", "estimate", "se", "ci_low", "ci_high", "n_units"])
    if corrs:
        n_eff, eff_ci = float(obs[-1]), ConfidenceInterval(float(low[-1]), float(high[-1]))
    else:
        n_eff, eff_ci = 1.0, ConfidenceInterval(np.nan, np.nan)
    confusion = {}
    if not numeric_ref:
        cats = list(table.categories)
        for j in judges:
            jc = table.matrix[raters.index(j)]
            both = (jc >= 0) & ref_ok
            counts = np.zeros((len(cats), len(cats)), dtype=np.int64)
            np.add.at(counts, (ref[both], jc[both]), 1)
            confusion[j] = pd.DataFrame(counts, index=pd.Index(cats, name=f"reference: {reference}"),
                                        columns=pd.Index(cats, name=f"judge: {j}"))
    return ReferenceResult(reference, tuple(judges), tuple(crowd), stats, confusion, corr_frame, n_eff, eff_ci,
                           confidence_level, tuple(notes))


def judge_reference(data, *, reference: str, judges=None, crowd=None, unit_col: str = "unit",
                    rater_col: str = "rater", value_col: str = "value", shape: str = "long",
                    measurement: str = "auto", categories=None, cluster: str | None = None, n_resamples: int = 2000,
                    method: str = "percentile", confidence_level=0.95, rng=None, **deprecated) -> ReferenceResult:
    """Each judge against a reference rater, with bootstrap intervals over units.

    Parameters
    ----------
    data : RatingsTable, pandas.DataFrame or path
        Ratings (see :func:`evalband.io.ratings.read_ratings` for ``unit_col``, ``rater_col``, ``value_col``,
        ``shape``, ``measurement`` (``level=`` before 0.2, deprecated), ``categories``).
    reference : str
        The reference rater's name (e.g. 'human'), or 'majority' (the most common value of the crowd's ratings
        of each unit; units where it is tied are left out and counted) or 'mean' (numeric ratings: their mean).
    judges : sequence of str, optional
        The raters judged (default: every rater but the reference, or but the crowd).
    crowd : sequence of str, optional
        The raters forming a consensus reference (default: every rater not in ``judges``).
    cluster : str, optional
        Column naming each unit's cluster; whole clusters are resampled.
    n_resamples, method, confidence_level, rng
        As for :func:`evalband.judges.agreement`.

    Returns
    -------
    ReferenceResult
        Per judge: accuracy (share of units where it gives the reference's value), Cohen's kappa with the
        reference (and quadratic-weighted for ordered ratings), mean bias (judge minus reference) and mean absolute
        error for numeric ratings, a confusion matrix; the correlation of the judges' errors and the effective
        number of independent judges.

    Notes
    -----
    Accuracy and kappa against a crowd majority measure agreement with a noisy reference: a perfect judge scores
    below 1 when the crowd is small. Errors of two judges are positively correlated when they fail on the same
    units (shared blind spots); averaging J judges whose errors correlate at rho on average is then worth only
    ``J / (1 + (J - 1) rho)`` independent judges (the design effect of an equicorrelated mean; Kish 1965), which is
    ``J^2 / sum_jk rho_jk`` with the pairwise correlations.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educ. Psychol. Meas. 20(1), 37-46.
    Kish, L. (1965). Survey Sampling. Wiley.

    Examples
    --------
    >>> from evalband.judges import judge_reference
    >>> res = judge_reference("ratings.csv", reference="human", rng=0)        # doctest: +SKIP
    >>> res.to_frame()[["judge", "statistic", "estimate", "ci_low", "ci_high"]]  # doctest: +SKIP
    """
    from ..selection.judgements import ratings_of

    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    method = check_choice(method, INTERVAL_METHODS, "method")
    confidence_level = check_confidence_level(confidence_level)
    measurement = renamed(deprecated, old="level", new="measurement", function="judge_reference",
                          value=measurement, default="auto")
    no_other_keywords(deprecated, "judge_reference")
    table = ratings_of(data, unit_col=unit_col, rater_col=rater_col, value_col=value_col, shape=shape,
                       level=measurement,
                       categories=categories, cluster_col=cluster)
    res = _judge_reference(table, reference=reference, judges=judges, crowd=crowd, entropy=run_entropy(gen),
                           seed=seed, n_resamples=n_resamples, method=method, confidence_level=confidence_level)
    return ReferenceResult(res.reference, res.judges, res.crowd, res.statistics, res.confusion,
                           res.error_correlation, res.effective_judges, res.effective_judges_ci, res.confidence_level,
                           tuple(table.notes) + res.notes)
