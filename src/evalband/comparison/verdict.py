"""Verdicts against a practical margin (the rule); the sentences that read them live in
:mod:`evalband.display.words` (re-exported here).

A verdict is read from the interval of the **difference** (corrected for multiplicity when asked), never from
whether two per-model intervals overlap: two 95% intervals can overlap while the difference is clearly non-zero.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..display.words import (format_difference, margin_text, reading, verdict_detail,  # noqa: F401
                             withheld_text)
from .._validate import ArgumentError, ArgumentTypeError
from .p_values import p_floor
from .._words import words

__all__ = ["VERDICTS", "verdict", "check_margin", "reading", "format_difference", "withhold", "MIN_UNITS",
           "MIN_DISCORDANT", "verdict_detail", "margin_text", "withheld_text"]

#: the four verdicts, from the point of view of the pair (model_a, model_b)
VERDICTS = ("A better", "B better", "equivalent", "not yet decided")

#: fewest resampling units (items, or clusters when clusters are resampled) behind a difference for a bootstrap
#: (or t) verdict; see :func:`withhold`
MIN_UNITS = 10
#: binary paired scores on one task with fewer discordant items than this get the exact McNemar p-value and verdict
MIN_DISCORDANT = 10


def check_margin(margin, *, scale: float | None = None) -> float:
    """``margin`` as a float >= 0 (on the scale of the statistic, fractions for accuracies).

    With ``scale=100`` (a statistic of proportions, shown in points) a margin of 1 or more is refused: it is at
    least the whole range of a difference of proportions, so every pair would be 'equivalent'; it is almost always
    points written where a fraction was meant (2 for 2 points instead of 0.02).
    """
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise ArgumentTypeError(words('`{arg:margin}` must be a number >= 0; got {margin!r}.', margin=margin))
    margin = float(margin)
    if not (margin >= 0 and math.isfinite(margin)):
        raise ArgumentError(words('`{arg:margin}` must be a finite number >= 0; got {margin!r}.', margin=margin))
    if scale == 100.0 and margin >= 1:
        raise ArgumentError(words("`{arg:margin}` {margin:g} is at least the whole range of a difference of proportions (1 = 100 points), so every pair would be equivalent; write it as a fraction ({value:g} for {margin:g} points) or as a percent ('{margin:g}%' on the command line).", margin=margin, value=margin / 100))
    return margin


def verdict(low, high, *, margin: float = 0.0, higher_is_better: bool = True) -> np.ndarray:
    """Verdict of each pair from its interval for ``A - B``.

    Parameters
    ----------
    low, high : array_like
        Interval ends for the difference ``A - B`` (same shape).
    margin : float
        Smallest difference that matters, on the scale of the statistic (0.01 = one point of accuracy).
    higher_is_better : bool
        False for statistics where lower is better (mean rank, optimality gap).

    Returns
    -------
    numpy.ndarray of str
        ``'A better'`` when the whole interval lies beyond ``+margin`` (in the better direction), ``'B better'``
        when it lies beyond ``-margin``, ``'equivalent'`` when it lies strictly inside ``(-margin, margin)``, and
        ``'not yet decided'`` when it crosses ``+margin`` or ``-margin``.

    Notes
    -----
    The rule is that of a pre-registered threshold: an interval that crosses the threshold is "not yet decided"
    (Miller 2024; seed 001). With ``margin = 0`` a pair is decided as soon as its interval excludes zero, and
    'equivalent' cannot occur. Equivalence from a two-sided ``1 - 2 alpha`` interval inside the margin is the
    two one-sided tests (TOST) procedure (Schuirmann 1987); from a ``1 - alpha`` interval it is conservative.

    Examples
    --------
    >>> from evalband.comparison import verdict
    >>> low = [0.02, -0.01, -0.06, -0.004]
    >>> high = [0.05, 0.03, -0.02, 0.006]
    >>> list(verdict(low, high, margin=0.01))
    ['A better', 'not yet decided', 'B better', 'equivalent']
    """
    margin = check_margin(margin)
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    if not higher_is_better:
        lo, hi = -hi, -lo
    # bounds within rounding error of the threshold count as touching it (e.g. 1e-16 from a sum of ranks)
    eps = 1e-12 * np.maximum(1.0, np.maximum(np.abs(np.nan_to_num(lo, posinf=0, neginf=0)),
                                             np.abs(np.nan_to_num(hi, posinf=0, neginf=0))))
    out = np.full(np.broadcast(lo, hi).shape, VERDICTS[3], dtype=object)
    out[np.broadcast_to(lo > margin + eps, out.shape)] = VERDICTS[0]
    out[np.broadcast_to(hi < -margin - eps, out.shape)] = VERDICTS[1]
    inside = (lo > -margin + eps) & (hi < margin - eps)
    out[np.broadcast_to(inside, out.shape)] = VERDICTS[2]
    return out


def withhold(verdicts, low, high, se, n_units=None, *, min_units: int = MIN_UNITS, n_resamples=None,
             significance=None):
    """Withhold verdicts the bootstrap cannot support: too few resampling units or a degenerate distribution.

    Parameters
    ----------
    verdicts : array_like of str, shape (P,)
    low, high, se : array_like, shape (P,)
        Interval ends and bootstrap standard deviation of each difference.
    n_units : int or array_like, optional
        Resampling units (items or clusters) behind each difference; None when unknown.
    min_units : int
    n_resamples, significance : optional
        Replicates behind the intervals and the (corrected) significance level they decide at: when the smallest
        bootstrap p-value, ``2 / (n_resamples + 1)``, exceeds the significance level, no verdict can be supported
        (10 replicates cannot decide at 5%: their smallest p-value is 0.18), basis 'too few replicates'.

    Returns
    -------
    verdicts : numpy.ndarray of str
        'not yet decided' where withheld, the input elsewhere.
    basis : numpy.ndarray of str
        'bootstrap', 'too few units', 'degenerate interval' or 'too few replicates'.

    Notes
    -----
    With fewer than ``min_units`` (10) units the bootstrap distribution of a mean takes few distinct values and
    percentile intervals undercover badly (Efron & Tibshirani 1993, section 13.7; the bootstrap is a large-sample
    method); with 1 to 3 units it is degenerate whenever the units agree: 3 items that A gets right and B wrong
    give the interval (100, 100) points, although the exact McNemar (sign) test gives p = 2 x 0.5^3 = 0.25, and no
    exact two-sided test at 5% can reject with fewer than 6 discordant items. An interval of zero width (or
    replicates without spread) says only that every resampled unit agrees, not that the difference is known, so
    it decides nothing either. 10 is the smallest count at which a sign test can reach p < 0.002 and at which the
    percentile interval's coverage is within a few points of nominal for bounded scores.
    """
    out = np.array(verdicts, dtype=object, copy=True)
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    sd = np.asarray(se, dtype=np.float64)
    scale = np.maximum(1.0, np.maximum(np.abs(np.nan_to_num(lo, posinf=0, neginf=0)),
                                       np.abs(np.nan_to_num(hi, posinf=0, neginf=0))))
    degenerate = (np.isfinite(lo) & np.isfinite(hi) & (hi - lo <= 1e-12 * scale)) | (sd == 0)
    basis = np.full(out.shape, "bootstrap", dtype=object)
    basis[np.broadcast_to(degenerate, out.shape)] = "degenerate interval"
    if n_units is not None:
        few = np.broadcast_to(np.asarray(n_units, dtype=np.float64) < min_units, out.shape)
        basis[few] = "too few units"
    if n_resamples is not None and significance is not None and p_floor(n_resamples) > significance:
        basis[...] = "too few replicates"
    withheld = basis != "bootstrap"
    out[withheld] = VERDICTS[3]
    return out, basis
