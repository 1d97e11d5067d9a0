"""Inter-rater agreement with bootstrap intervals over units: Krippendorff's alpha, Fleiss' and Cohen's kappa,
percent agreement and Gwet's AC1.

Main entry point: :func:`agreement`. Every coefficient is a function of sums over units of a few per-unit columns
(``evalband.judges._coefficients``), so one matrix product of unit draw counts gives every replicate of every
coefficient at once; the coefficients of one call share their replicates (paired), and so does the judge-versus-
reference analysis when ``reference`` is given.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, ArgumentTypeError, as_generator, check_choice, check_confidence_level,
                         check_positive_int, no_other_keywords,
                         renamed)
from ..estimation.confidence import ConfidenceInterval
from . import _coefficients as coef
# the intervals (UNIT_KEY and intervals_of stay importable from here)
from .agreement_intervals import MIN_UNITS, UNIT_KEY, evaluate, intervals_of  # noqa: F401
from ..display.numbers import format_estimate
from ..display.reprs import html_head, titled_repr
from ..resample.units import INTERVAL_METHODS
from .._random import run_entropy
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["AgreementResult", "agreement", "STATISTICS", "UNIT_KEY"]

#: the coefficients :func:`agreement` reports (Cohen's kappa once per rater pair and weighting)
STATISTICS = ("krippendorff_alpha", "fleiss_kappa", "percent_agreement", "gwet_ac1", "cohen_kappa")
KAPPA_WEIGHTS = ("auto", "none", "linear", "quadratic")
#: categorical coefficients (kappa, AC1, percent agreement) are computed only up to this many distinct values
MAX_CATEGORIES = 20
#: with pairs='auto', Cohen's kappa is given for every pair of raters up to this many raters
MAX_AUTO_RATERS = 10
#: fewer resampling units than this get a note: the bootstrap interval is then rough
FEW_UNITS = 30


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class AgreementResult:
    """Agreement coefficients with bootstrap intervals over units.

    Attributes
    ----------
    statistic : tuple of str
        One entry per row: 'krippendorff_alpha', 'fleiss_kappa', 'percent_agreement', 'gwet_ac1', or
        'cohen_kappa' (and '_linear' / '_quadratic' weighted versions) for a pair of raters.
    rater_a, rater_b : tuple of str
        The pair of a Cohen's kappa row ('' for the coefficients over all raters).
    estimate, se : numpy.ndarray
        The coefficient and its bootstrap standard deviation.
    ci : ConfidenceInterval
    n_units : numpy.ndarray of int
        Units behind each coefficient (pairable units, complete units for Fleiss, units both raters rated).
    undefined : numpy.ndarray of int
        Replicates on which a coefficient was undefined (left out of its interval; counted in ``notes``).
    level : str
    n_raters, n_ratings, n_resamples : int
    n_clusters : int or None
        Clusters resampled whole, when the ratings have clusters.
    confidence_level : float
    method : str
        Bootstrap interval method.
    seed : int or None
    samples : numpy.ndarray, shape (n_resamples, n_rows)
        The bootstrap replicates of every row (one shared set of unit draws).
    reference : ReferenceResult or None
        Each judge against the reference rater, when ``reference`` was given.
    notes : tuple of str
    """

    #: coefficients and rates as fractions, as `evalband agreement` prints them (a kappa is no share of items)
    __display__ = {"scale": 1.0}

    statistic: tuple
    rater_a: tuple
    rater_b: tuple
    estimate: np.ndarray
    se: np.ndarray
    ci: ConfidenceInterval
    n_units: np.ndarray
    undefined: np.ndarray
    level: str
    n_raters: int
    n_ratings: int
    n_resamples: int
    confidence_level: float
    method: str
    n_clusters: int | None = None
    seed: int | None = None
    samples: np.ndarray | None = field(default=None, repr=False)
    reference: object = None
    notes: tuple = ()

    def _row(self, name: str) -> int:
        try:
            return self.statistic.index(name)
        except ValueError:
            raise KeyError(f"no {name!r} in this result; have {sorted(set(self.statistic))}") from None

    @property
    def krippendorff_alpha(self) -> float:
        """Krippendorff's alpha (the headline coefficient)."""
        return float(self.estimate[self._row("krippendorff_alpha")])

    @property
    def alpha_ci(self) -> ConfidenceInterval:
        """The interval of Krippendorff's alpha."""
        k = self._row("krippendorff_alpha")
        return ConfidenceInterval(float(self.ci.low[k]), float(self.ci.high[k]))

    def to_frame(self) -> pd.DataFrame:
        """One row per coefficient: statistic, rater_a, rater_b, estimate, se, ci_low, ci_high, n_units, ..."""
        return pd.DataFrame({
            "statistic": list(self.statistic), "rater_a": list(self.rater_a), "rater_b": list(self.rater_b),
            "estimate": self.estimate, "se": self.se, "ci_low": np.asarray(self.ci.low, dtype=float),
            "ci_high": np.asarray(self.ci.high, dtype=float), "n_units": self.n_units,
            "undefined_replicates": self.undefined, "level": self.level,
            "confidence_level": self.confidence_level, "method": self.method,
        })

    def __repr__(self) -> str:
        lines = []
        for name in ("krippendorff_alpha", "fleiss_kappa", "percent_agreement", "gwet_ac1"):
            if name in self.statistic:
                k = self.statistic.index(name)
                s = self.se[k]
                lines.append(f"{name}: {format_estimate(self.estimate[k], s)}  {100 * self.confidence_level:.4g}% CI"
                             f" ({format_estimate(self.ci.low[k], s)}, {format_estimate(self.ci.high[k], s)}), {self.n_units[k]:,} units")
        n_pairs = sum(1 for s in self.statistic if s.startswith("cohen_kappa"))
        if n_pairs:
            lines.append(f"cohen_kappa: {n_pairs} rows (rater pairs x weights); see .to_frame()")
        if self.reference is not None:
            lines.append(f"reference: {self.reference.reference!r}, {len(self.reference.judges)} judge(s);"
                         " see .reference")
        title = (f"AgreementResult(level {self.level!r}, {self.n_raters:,} raters, {self.n_ratings:,} ratings,"
                 f" {self.n_resamples:,} bootstrap replicates)")
        return titled_repr(title, lines, self.notes)

    def _repr_html_(self) -> str:
        return html_head(self.to_frame())


def _pairs_of(table, pairs) -> list[tuple[int, int]]:
    r = table.n_raters
    if pairs is None or (isinstance(pairs, str) and pairs.lower() == "none"):
        return []
    if isinstance(pairs, str):
        key = check_choice(pairs, ("auto", "all"), "pairs")
        if key == "auto" and r > MAX_AUTO_RATERS:
            return []
        return [(a, b) for a in range(r) for b in range(a + 1, r)]
    out = []
    for p in pairs:
        if isinstance(p, str) or len(p) != 2:
            raise ArgumentTypeError(f"`pairs` must be 'auto', 'all', None or a list of (rater, rater) pairs; got {p!r}.")
        a, b = (str(x) for x in p)
        for x in (a, b):
            if x not in table.raters:
                raise ArgumentError(f"`pairs`: unknown rater {x!r}; available: {', '.join(map(repr, table.raters[:12]))}.")
        out.append((table.raters.index(a), table.raters.index(b)))
    return out


def _weights_list(level: str, kappa_weights) -> list:
    if isinstance(kappa_weights, str):
        key = check_choice(kappa_weights, KAPPA_WEIGHTS, "kappa_weights")
        if key == "auto":
            return [None] if level == "nominal" else [None, "linear", "quadratic"]
        return [None if key == "none" else key]
    out = []
    for w in kappa_weights:
        key = check_choice(w if w is not None else "none", KAPPA_WEIGHTS[1:], "kappa_weights")
        out.append(None if key == "none" else key)
    return out


def _fleiss_raters(table) -> int:
    m = np.bincount(table.unit_code, minlength=table.n_units)
    sizes, freq = np.unique(m[m >= 2], return_counts=True)
    if sizes.size == 0:
        return 0
    return int(sizes[np.flatnonzero(freq == freq.max())[-1]])


NOTE_DISTINCT_VALUES_FLEISS_COHEN = NoteKind(
    'judges.distinct-values-fleiss-cohen', 'excluded',
    "{n_categories} distinct values: Fleiss' and Cohen's kappa, percent agreement and Gwet's AC1 treat values as "
    "categories and are left out above {max_categories}; Krippendorff's alpha uses the level's distances")
NOTE_RATERS_COHEN_S_KAPPA = NoteKind(
    'judges.raters-cohen-s-kappa', 'excluded',
    "{n_raters} raters: Cohen's kappa per pair left out ({n_pairs:,} pairs); name pairs with pairs=, or compare "
    "judges with a reference ({arg:reference=})")
NOTE_FLEISS_KAPPA_NEEDS_SAME = NoteKind(
    'judges.fleiss-kappa-needs-same', 'excluded',
    "Fleiss' kappa needs the same number of ratings per unit: it uses the {n_units:,} units rated exactly "
    "{m_full} times; {left:,} pairable units with other counts are left out (Krippendorff's alpha uses them all)")


def coefficients(table, *, pairs="auto", kappa_weights="auto") -> tuple[list, list]:
    """The :class:`~evalband.judges._coefficients.Coefficient` list of a ratings table, and notes."""
    notes = []
    counts = table.counts
    out = [coef.alpha(counts, table.level, table.values)]
    if table.n_categories > MAX_CATEGORIES:
        notes.append(NOTE_DISTINCT_VALUES_FLEISS_COHEN(n_categories=table.n_categories, max_categories=MAX_CATEGORIES))
        return out, notes
    m_full = _fleiss_raters(table)
    if m_full >= 2:
        fl = coef.fleiss(counts, m_full)
        out.append(fl)
        left = int((np.bincount(table.unit_code, minlength=table.n_units) >= 2).sum()) - fl.n_units
        if left:
            notes.append(NOTE_FLEISS_KAPPA_NEEDS_SAME(n_units=fl.n_units, m_full=m_full, left=left))
    out += [coef.percent_agreement(counts), coef.gwet_ac1(counts)]
    idx = _pairs_of(table, pairs)
    if isinstance(pairs, str) and pairs.lower() == "auto" and table.n_raters > MAX_AUTO_RATERS:
        n_pairs = table.n_raters * (table.n_raters - 1) // 2
        notes.append(NOTE_RATERS_COHEN_S_KAPPA(n_raters=table.n_raters, n_pairs=n_pairs))
    weights = _weights_list(table.level, kappa_weights)
    by_value = table.level in ("interval", "ratio")
    for a, b in idx:
        for w in weights:
            wm = coef.kappa_weights(table.n_categories, w, table.values if by_value and w else None)
            name = "cohen_kappa" if w is None else f"cohen_kappa_{w}"
            out.append(coef.cohen(table.matrix, a, b, wm, name=name, rater_a=table.raters[a],
                                  rater_b=table.raters[b]))
    return out, notes


def _paradox_note(table, names, obs) -> list[str]:
    """Kappa's paradox (Feinstein & Cicchetti 1990): high agreement, low kappa, when one category dominates."""
    d = dict(zip(names, obs))
    pa, ac1 = d.get("percent_agreement"), d.get("gwet_ac1")
    kappa = d.get("fleiss_kappa", d.get("krippendorff_alpha"))
    if pa is None or ac1 is None or kappa is None or not np.isfinite(kappa):
        return []
    share = np.bincount(table.value_code, minlength=table.n_categories) / table.n_ratings
    top = int(np.argmax(share))
    if share[top] >= 0.75 and pa - kappa >= 0.3:
        return [f"kappa paradox: raters agree on {pa:.0%} of pairs of ratings, yet kappa is {kappa:.2f}, because"
                f" {share[top]:.0%} of ratings are '{table.categories[top]}' and chance agreement is high; Gwet's AC1"
                f" ({ac1:.2f}) is less sensitive to such skew (Feinstein & Cicchetti 1990; Gwet 2008)"]
    return []


NOTE_UNDEFINED_REPLICATES_NO_SPREAD = NoteKind(
    'judges.undefined-replicates-no-spread', 'excluded',
    '{label}: undefined on {value:,} of {n_resamples:,} replicates (no spread in the resampled ratings), left '
    'out of its interval')
NOTE_ONLY_BOOTSTRAP_INTERVALS_SMALL = NoteKind(
    'judges.only-bootstrap-intervals-small', 'caveat',
    'only {n_res_units} {value}: the bootstrap intervals are the small-sample (expanded) ones, as wide as a t '
    'interval on that many units (Hesterberg 2015); with fewer than about {few_units} they remain approximate')


def agreement(data, *, unit_col: str = "unit", rater_col: str = "rater", value_col: str = "value",
              shape: str = "long", measurement: str = "auto", categories=None, cluster: str | None = None,
              raters=None, pairs="auto", kappa_weights="auto", reference=None, judges=None,
              n_resamples: int = 2000, method: str = "percentile", confidence_level=0.95,
              rng=None, **deprecated) -> AgreementResult:
    """Agreement between raters, with a seeded bootstrap interval over units for every coefficient.

    Parameters
    ----------
    data : Selection, RatingsTable, pandas.DataFrame or path
        Ratings, long (``unit, rater, value``) or wide (one row per unit, one column per rater): a selection
        ``evalband.select(path, source='ratings', ...)`` made, or anything it reads.
    unit_col, rater_col, value_col, shape, categories, raters
        How to read ``data`` (see :func:`evalband.io.ratings.read_ratings`); ignored for a RatingsTable or a
        Selection.
    measurement : {'auto', 'nominal', 'ordinal', 'interval', 'ratio'}
        Level of measurement (``level=`` before 0.2, deprecated); 'auto' detects it and says so in ``notes``.
    cluster : str, optional
        Column naming each unit's cluster (prompt, passage, ...): whole clusters are resampled.
    pairs : 'auto', 'all', None or list of (rater, rater)
        Rater pairs for Cohen's kappa; 'auto' is every pair up to 10 raters.
    kappa_weights : 'auto', 'none', 'linear', 'quadratic' or a list of them
        Weights of Cohen's kappa; 'auto' is unweighted for nominal data and all three otherwise.
    reference : str, optional
        A rater to judge the others against (e.g. 'human'), or 'majority' / 'mean' for the consensus of the
        raters not named in ``judges``; see :func:`evalband.judges.judge_reference`. The result's
        ``reference`` holds it, drawn from the same bootstrap replicates.
    judges : sequence of str, optional
        The raters judged against the reference (default: every rater but the reference).
    n_resamples : int
    method : {'percentile', 'basic', 'bca'}
    confidence_level : float or str
    rng : seed or Generator
        Same seed, same numbers, whatever the order of the rows.

    Returns
    -------
    AgreementResult
        ``.krippendorff_alpha``, ``.alpha_ci`` and ``.to_frame()`` with one row per coefficient.

    Notes
    -----
    Krippendorff's alpha handles any number of raters, missing ratings and the four levels (its distances
    between values follow the level); it is the coefficient to report when ratings are missing. Fleiss' kappa
    needs the same number of ratings per unit (the units with the most common number are used, and the others
    counted in ``notes``). Cohen's kappa is per pair of raters, on the units both rated; its weighted versions
    count near misses of ordinal ratings as partial agreement. Percent agreement ignores chance; kappa-type
    coefficients can be paradoxically low when one category dominates (Feinstein & Cicchetti 1990), which Gwet's
    AC1 is designed to withstand; a note says when this happens.

    The bootstrap resamples units (or whole clusters of units) with replacement, keeping each unit's ratings
    together; it assumes units (clusters) are independent draws from the population of units, and describes
    the sampling of units, not of raters. Each interval is the small-sample (expanded) bootstrap interval of
    Hesterberg (2015): taken at the level at which it is as wide as a t interval on the coefficient's units
    (0.974 for a 95% interval from 15 units, 0.954 from 100), because the plain percentile interval under-covers
    with few units (0.91 for alpha and AC1 at 15 units, 0.95 with the expansion; ``tests/judges/
    test_agreement_coverage.py``). Below 30 units (clusters) a note says the intervals remain approximate.
    Replicates on which a coefficient is undefined (all resampled ratings equal) are left out of its interval
    and counted. A coefficient from fewer than 2 units is withheld; a coefficient whose replicates never vary
    (every unit agrees) has no interval, except percent agreement, which then gets Wilson's interval on the
    units.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for Communication.
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychol. Bull. 76(5), 378-382.
    Cohen, J. (1968). Weighted kappa. Psychol. Bull. 70(4), 213-220.
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high agreement.
    Br. J. Math. Stat. Psychol. 61(1), 29-48.
    Feinstein, A. R. & Cicchetti, D. V. (1990). High agreement but low kappa. J. Clin. Epidemiol. 43(6), 543-549.
    Hayes, A. F. & Krippendorff, K. (2007). Answering the call for a standard reliability measure for coding
    data. Communication Methods and Measures 1(1), 77-89.
    Hesterberg, T. C. (2015). What teachers should know about the bootstrap. Am. Stat. 69(4), 371-386.

    Examples
    --------
    >>> import evalband.judges as ej
    >>> res = ej.agreement("codings_long.csv", measurement="nominal", rng=0)   # doctest: +SKIP
    >>> round(res.krippendorff_alpha, 3)                                  # doctest: +SKIP
    0.743
    """
    from ..selection.judgements import ratings_of

    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    measurement = renamed(deprecated, old="level", new="measurement", function="agreement", value=measurement,
                          default="auto")
    no_other_keywords(deprecated, "agreement")
    gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    method = check_choice(method, INTERVAL_METHODS, "method")
    confidence_level = check_confidence_level(confidence_level)
    table = ratings_of(data, unit_col=unit_col, rater_col=rater_col, value_col=value_col, shape=shape,
                       level=measurement, categories=categories, cluster_col=cluster, raters=raters)
    entropy = run_entropy(gen)
    coefs, notes = coefficients(table, pairs=pairs, kappa_weights=kappa_weights)
    notes = list(table.notes) + notes
    obs, samples, low, high, se, undefined, more = evaluate(coefs, table, entropy=entropy,
                                                            n_resamples=n_resamples, method=method,
                                                            confidence_level=confidence_level)
    notes += more
    names = tuple(c.name for c in coefs)
    for k in np.flatnonzero((undefined > 0) & np.isfinite(obs)):  # (a withheld coefficient has its own note)
        label = names[k] + (f" ({coefs[k].rater_a}, {coefs[k].rater_b})" if coefs[k].rater_a else "")
        notes.append(NOTE_UNDEFINED_REPLICATES_NO_SPREAD(label=label, value=int(undefined[k]), n_resamples=n_resamples))
    n_clusters = len(table.cluster_labels) if table.has_clusters else None
    n_res_units = n_clusters if n_clusters is not None else table.n_units
    if MIN_UNITS <= n_res_units < FEW_UNITS:
        notes.append(NOTE_ONLY_BOOTSTRAP_INTERVALS_SMALL(n_res_units=n_res_units, value='clusters' if n_clusters else 'units', few_units=FEW_UNITS))
    notes += _paradox_note(table, names, obs)
    ref = None
    if reference is not None:
        from .reference import _judge_reference

        ref = _judge_reference(table, reference=reference, judges=judges, entropy=entropy, seed=seed,
                               n_resamples=n_resamples, method=method, confidence_level=confidence_level)
    return AgreementResult(names, tuple(c.rater_a for c in coefs), tuple(c.rater_b for c in coefs), obs, se,
                           ConfidenceInterval(low, high), np.array([c.n_units for c in coefs]), undefined,
                           table.level, table.n_raters, table.n_ratings, n_resamples, confidence_level, method,
                           n_clusters, seed, samples, ref, tuple(notes))
