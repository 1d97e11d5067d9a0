"""Verdicts against a practical margin, and the one-sentence reading of a comparison.

A verdict is read from the interval of the **difference** (corrected for multiplicity when asked), never from
whether two per-model intervals overlap: two 95% intervals can overlap while the difference is clearly non-zero.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from .._validate import ArgumentError, ArgumentTypeError

__all__ = ["VERDICTS", "verdict", "check_margin", "reading", "format_difference", "withhold", "MIN_UNITS",
           "MIN_DISCORDANT", "verdict_detail", "margin_text"]

#: the four verdicts, from the point of view of the pair (model_a, model_b)
VERDICTS = ("A better", "B better", "equivalent", "not yet decided")

#: fewest resampling units (items, or clusters when clusters are resampled) behind a difference for a bootstrap
#: (or t) verdict; see :func:`withhold`
MIN_UNITS = 10
#: binary paired scores on one task with fewer discordant items than this get the exact McNemar p-value and verdict
MIN_DISCORDANT = 10


def check_margin(margin) -> float:
    """``margin`` as a float >= 0 (on the scale of the statistic, fractions for accuracies)."""
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise ArgumentTypeError(f"`margin` must be a number >= 0; got {margin!r}.")
    margin = float(margin)
    if not (margin >= 0 and math.isfinite(margin)):
        raise ArgumentError(f"`margin` must be a finite number >= 0; got {margin!r}.")
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


def margin_text(margin: float, *, scale: float = 100.0) -> str:
    """``'1-point margin'`` (accuracy-like statistics, ``scale`` 100) or ``'margin of 0.5'`` (other scales)."""
    if scale == 100.0:
        value = f"{margin * scale:.4g}"
        return f"{value}-point margin"
    return f"margin of {margin * scale:.4g}"


def verdict_detail(verdict_: str, low: float, high: float, *, margin: float = 0.0, higher_is_better: bool = True,
                   model_a: str = "A", model_b: str = "B", scale: float = 100.0) -> str:
    """What is and is not decided about one pair, in words (the end of its reading).

    With ``margin = 0`` this is the verdict itself, with the better model named ('A better'). With a margin it
    also says what the interval does settle when the verdict is 'not yet decided', e.g. an interval (0.93, 1.67)
    points against a 1-point margin: ``"not yet decided: A better, but not decidedly by more than the 1-point
    margin"`` (the interval excludes 0 but not the margin); an interval (-0.5, 1.5): ``"not yet decided: B is not
    better by more than the 1-point margin"`` (B's advantage, if any, is within the margin; A's is open).

    Parameters
    ----------
    verdict_ : str
        One of :data:`VERDICTS`, as :func:`verdict` gave it for this interval (a withheld verdict, see
        :func:`withhold`, should be passed with ``margin=0`` so that nothing is read from its interval).
    low, high : float
        The interval of ``A - B``.
    margin, higher_is_better, scale
        As for :func:`verdict`; ``scale`` only formats the margin.
    """
    margin = check_margin(margin)
    named = {"A better": f"{model_a} better", "B better": f"{model_b} better"}
    word = named.get(verdict_, verdict_)
    if margin == 0 or verdict_ not in VERDICTS:
        return word
    m = margin_text(margin, scale=scale)
    if verdict_ in ("A better", "B better"):
        return f"{word} by more than the {m}"
    lo, hi = float(low), float(high)
    if not higher_is_better:
        lo, hi = -hi, -lo
    eps = 1e-12 * max(1.0, abs(lo) if math.isfinite(lo) else 0.0, abs(hi) if math.isfinite(hi) else 0.0)
    if verdict_ == "equivalent":
        if lo > eps or hi < -eps:
            return f"equivalent: {model_a if lo > eps else model_b} better, but by less than the {m}"
        return f"equivalent: the difference lies within the {m}"
    if lo > eps:
        return f"{verdict_}: {model_a} better, but not decidedly by more than the {m}"
    if hi < -eps:
        return f"{verdict_}: {model_b} better, but not decidedly by more than the {m}"
    if lo > -margin + eps:
        return f"{verdict_}: {model_b} is not better by more than the {m}"
    if hi < margin - eps:
        return f"{verdict_}: {model_a} is not better by more than the {m}"
    return verdict_


def withhold(verdicts, low, high, se, n_units=None, *, min_units: int = MIN_UNITS):
    """Withhold verdicts the bootstrap cannot support: too few resampling units or a degenerate distribution.

    Parameters
    ----------
    verdicts : array_like of str, shape (P,)
    low, high, se : array_like, shape (P,)
        Interval ends and bootstrap standard deviation of each difference.
    n_units : int or array_like, optional
        Resampling units (items or clusters) behind each difference; None when unknown.
    min_units : int

    Returns
    -------
    verdicts : numpy.ndarray of str
        'not yet decided' where withheld, the input elsewhere.
    basis : numpy.ndarray of str
        'bootstrap', 'too few units' or 'degenerate interval'.

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
    withheld = basis != "bootstrap"
    out[withheld] = VERDICTS[3]
    return out, basis


def withheld_text(basis: str, n_units=None, *, unit: str = "items") -> str:
    """Reading suffix saying why a verdict was withheld ('' for 'bootstrap')."""
    if basis == "too few units":
        n = "" if n_units is None or not np.isfinite(n_units) else f"only {int(n_units)} {unit}: "
        return (f"({n}too few for a bootstrap verdict; at least {MIN_UNITS} are needed)")
    if basis == "degenerate interval":
        return "(the bootstrap distribution is degenerate (zero width): it cannot support a verdict)"
    return ""


def _decimals(se, scale: float) -> int:
    """Decimals showing the standard error to two significant figures (at most 4)."""
    if se is None or not np.isfinite(se) or se <= 0:
        return 1
    d = 1 - int(math.floor(math.log10(abs(se * scale))))
    return int(min(max(d, 0), 4))


def format_difference(value: float, se: float, *, scale: float = 100.0) -> tuple[str, int]:
    """Signed difference as text with digits from its standard error, and the digits used."""
    d = _decimals(se, scale)
    return f"{value * scale:+.{d}f}", d


def reading(model_a: str, model_b: str, difference: float, low: float, high: float, verdict_: str, *,
            se: float = float("nan"), confidence_level: float = 0.95, scale: float = 100.0,
            unit: str = "points", label: str = "CI", extra: str = "", detail: str | None = None) -> str:
    """One sentence for one pair, e.g. ``"A vs B: +0.3 points, 95% CI (-0.1, 0.8); not yet decided"``.

    ``verdict_`` 'A better'/'B better' is written with the model's name. Digits follow the standard error.
    ``detail`` (from :func:`verdict_detail`, which says what a margin leaves decided) replaces the verdict words.
    """
    text, d = format_difference(difference, se if np.isfinite(se) else abs(high - low) / 4, scale=scale)
    unit_text = f" {unit}" if unit else ""
    lvl = f"{100 * confidence_level:.4g}%"
    lo = "-inf" if not np.isfinite(low) else f"{low * scale:.{d}f}"
    hi = "inf" if not np.isfinite(high) else f"{high * scale:.{d}f}"
    word = detail if detail else {"A better": f"{model_a} better", "B better": f"{model_b} better"}.get(verdict_,
                                                                                                     verdict_)
    out = f"{model_a} vs {model_b}: {text}{unit_text}, {lvl} {label} ({lo}, {hi}); {word}"
    return out + (f" {extra}" if extra else "")
