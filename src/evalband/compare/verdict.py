"""Verdicts against a practical margin, and the one-sentence reading of a comparison.

A verdict is read from the interval of the **difference** (corrected for multiplicity when asked), never from
whether two per-model intervals overlap: two 95% intervals can overlap while the difference is clearly non-zero.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["VERDICTS", "verdict", "check_margin", "reading", "format_difference"]

#: the four verdicts, from the point of view of the pair (model_a, model_b)
VERDICTS = ("A better", "B better", "equivalent", "not yet decided")


def check_margin(margin) -> float:
    """``margin`` as a float >= 0 (on the scale of the statistic, fractions for accuracies)."""
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise TypeError(f"`margin` must be a number >= 0; got {margin!r}.")
    margin = float(margin)
    if not (margin >= 0 and math.isfinite(margin)):
        raise ValueError(f"`margin` must be a finite number >= 0; got {margin!r}.")
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
            unit: str = "points", label: str = "CI", extra: str = "") -> str:
    """One sentence for one pair, e.g. ``"A vs B: +0.3 points, 95% CI (-0.1, 0.8); not yet decided"``.

    ``verdict_`` 'A better'/'B better' is written with the model's name. Digits follow the standard error.
    """
    text, d = format_difference(difference, se if np.isfinite(se) else abs(high - low) / 4, scale=scale)
    unit_text = f" {unit}" if unit else ""
    lvl = f"{100 * confidence_level:.4g}%"
    lo = "-inf" if not np.isfinite(low) else f"{low * scale:.{d}f}"
    hi = "inf" if not np.isfinite(high) else f"{high * scale:.{d}f}"
    word = {"A better": f"{model_a} better", "B better": f"{model_b} better"}.get(verdict_, verdict_)
    out = f"{model_a} vs {model_b}: {text}{unit_text}, {lvl} {label} ({lo}, {hi}); {word}"
    return out + (f" {extra}" if extra else "")
