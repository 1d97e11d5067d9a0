"""Intervals at the edges: no zero-width interval and no standard error of 0 is shown as a result.

An interval of zero width (or a standard error of 0) says only that every unit scored the same, not that the
score is known. :func:`edge_intervals` is the rule for the analytic intervals of :func:`evalband.estimate`
(t, normal, cluster-robust and trial intervals, and the plug-in standard error of a proportion at 0 or 1); the
bootstrap intervals get the same rule, and more, in :mod:`evalband.resample.floors`:

* a mean of scores in [0, 1] at 0 or 1 (every item wrong, or every item right) gets Wilson's interval on its
  items, a valid bound (a score in [0, 1] has mean at most the share of items above 0, and at least the share at
  1), and the standard error that interval implies, ``(high - low) / (2 z)``;
* any other zero-width interval is withheld (NaN), and a note says why.
"""

from __future__ import annotations

import numpy as np

from .._distributions import norm_ppf
from .proportion import wilson_bounds
from ..display.notes import NoteKind

__all__ = ["degenerate", "edge_intervals", "edge_notes", "implied_se"]


def degenerate(low, high, se=None) -> np.ndarray:
    """Finite intervals of zero width (to rounding), or standard errors of exactly 0."""
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    scale = np.maximum(1.0, np.maximum(np.abs(np.nan_to_num(lo, posinf=0, neginf=0)),
                                       np.abs(np.nan_to_num(hi, posinf=0, neginf=0))))
    with np.errstate(invalid="ignore"):
        flat = np.isfinite(lo) & np.isfinite(hi) & (hi - lo <= 1e-12 * scale)
    if se is not None:
        flat = flat | (np.asarray(se, dtype=np.float64) == 0)
    return flat


def implied_se(low, high, confidence_level: float) -> np.ndarray:
    """The standard error a two-sided interval implies, ``(high - low) / (2 z)``."""
    z = float(norm_ppf(0.5 + confidence_level / 2))
    return (np.asarray(high, dtype=np.float64) - np.asarray(low, dtype=np.float64)) / (2 * z)


def edge_intervals(estimate, se, low, high, n, *, bounded: bool, confidence_level: float):
    """The rule of this module on arrays of any one shape.

    Parameters
    ----------
    estimate, se, low, high : array_like
    n : array_like
        Units (items) behind each estimate.
    bounded : bool
        Whether the scores lie in [0, 1] (0/1 scores included).
    confidence_level : float

    Returns
    -------
    (low, high, se, bounded_cells, withheld_cells)
        New arrays; the two masks say where Wilson's interval was put in and where the interval was withheld.

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi, se, at_edge, gone = edge_intervals([0.0, 0.5], [0.0, 0.0], [0.0, 0.5], [0.0, 0.5], [10, 10],
    ...                                            bounded=True, confidence_level=0.95)
    >>> np.round(hi, 3), bool(gone[1])
    (array([0.278,   nan]), True)
    """
    est = np.asarray(estimate, dtype=np.float64)
    lo = np.array(low, dtype=np.float64, copy=True)
    hi = np.array(high, dtype=np.float64, copy=True)
    sd = np.array(se, dtype=np.float64, copy=True)
    n = np.asarray(n, dtype=np.float64)
    flat = degenerate(lo, hi, sd) & np.isfinite(est)
    at_edge = flat & bounded & (n > 0) & ((est <= 0) | (est >= 1))
    if at_edge.any():
        z = float(norm_ppf(0.5 + confidence_level / 2))
        wl, wh = wilson_bounds(est, np.where(n > 0, n, 1.0), -z), wilson_bounds(est, np.where(n > 0, n, 1.0), z)
        lo = np.where(at_edge, np.fmin(lo, wl), lo)
        hi = np.where(at_edge, np.fmax(hi, wh), hi)
        sd = np.where(at_edge, np.fmax(np.nan_to_num(sd), (wh - wl) / (2 * z)), sd)
    gone = flat & ~at_edge
    lo[gone] = hi[gone] = sd[gone] = np.nan
    return lo, hi, sd, at_edge, gone


NOTE_AT_EDGE_WILSON = NoteKind(
    "estimation.at-edge-wilson", "caveat", "{at_edge} estimate(s) at 0 or 1 (every item scored alike): the {method}"
    " interval has zero width there, so the Wilson interval on the items is shown (a valid bound for scores in"
    " [0, 1]), with the standard error it implies")
NOTE_NO_INTERVAL_ALIKE = NoteKind(
    "estimation.no-interval-alike", "caveat", "{gone} estimate(s) without an interval: every item scored the same"
    " (and not at 0 or 1), so the data say nothing about their uncertainty; the interval and standard error are"
    " left empty")


def edge_notes(at_edge: int, gone: int, *, method: str) -> list[str]:
    """The notes of :func:`edge_intervals` for ``at_edge`` and ``gone`` cells."""
    out = []
    if at_edge:
        out.append(NOTE_AT_EDGE_WILSON(at_edge=at_edge, method=method))
    if gone:
        out.append(NOTE_NO_INTERVAL_ALIKE(gone=gone))
    return out

