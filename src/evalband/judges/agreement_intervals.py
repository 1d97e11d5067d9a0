"""Intervals of agreement coefficients: one shared bootstrap over units (or clusters) for every coefficient of a
call, and the small-sample rules (coefficients from too few units withheld, shares of agreement from few units
widened to contain Wilson's interval, no interval where the replicates never vary).

Used by :func:`evalband.judges.agreement` and the judge-versus-reference analysis
(:func:`evalband.judges.judge_reference`), which share the replicates through :data:`UNIT_KEY`.
"""

from __future__ import annotations

import numpy as np

from .._random import name_key
from ..display.notes import NoteKind
from ..estimation.edges import degenerate, edge_intervals, implied_se
from ..resample.units import jackknife_sums, replicate_sums, summarize

__all__ = ["FLOOR_UNITS", "MIN_UNITS", "PROPORTIONS", "UNIT_KEY", "evaluate", "intervals_of"]

#: the random stream key of the bootstrap over units (shared by agreement and the reference analysis)
UNIT_KEY = (name_key("judges:units"),)


def evaluate(coefs, table, *, entropy, n_resamples: int, method: str, confidence_level: float):
    """Observed values, replicates, jackknife values and intervals of a list of coefficients (one shared set of
    unit draws)."""
    widths = [c.columns.shape[1] for c in coefs]
    x = np.concatenate([c.columns for c in coefs], axis=1)
    edges = np.concatenate([[0], np.cumsum(widths)])
    groups = table.cluster_code
    n_groups = len(table.cluster_labels) if groups is not None else None
    total = x.sum(axis=0)
    reps = replicate_sums(x, entropy=entropy, key=UNIT_KEY, n_resamples=n_resamples, groups=groups,
                          n_groups=n_groups)
    jack = jackknife_sums(x, groups, n_groups) if method == "bca" else None
    obs = np.empty(len(coefs))
    samples = np.empty((n_resamples, len(coefs)))
    jk = None if jack is None else np.empty((jack.shape[0], len(coefs)))
    with np.errstate(invalid="ignore", divide="ignore"):
        for k, c in enumerate(coefs):
            sl = slice(edges[k], edges[k + 1])
            obs[k] = c.finish(total[sl])
            samples[:, k] = c.finish(reps[:, sl])
            if jk is not None:
                jk[:, k] = c.finish(jack[:, sl])
    units = _resampled_units(coefs, groups)
    obs, low, high, se, undefined, notes = intervals_of(coefs, obs, samples, units, jackknife=jk, method=method,
                                                        confidence_level=confidence_level,
                                                        unit="clusters" if groups is not None else "units")
    return obs, samples, low, high, se, undefined, notes


NOTE_WITHHELD_FROM_FEWER_THAN = NoteKind(
    'judges.withheld-from-fewer-than', 'excluded',
    '{value}: withheld, from fewer than {min_units} shared {unit} (a coefficient of agreement needs at least '
    '{min_units} units rated by the raters it compares)')
NOTE_FROM_FEWER_THAN_UNITS = NoteKind(
    'judges.from-fewer-than-units', 'caveat',
    "{value}: from fewer than {floor_units} units, widened to contain Wilson's interval of the share of agreeing "
    "units (for AC1 through its chance correction), which the bootstrap of a share from few units falls short of")
NOTE_EVERY_UNIT_AGREES_SO = NoteKind(
    'judges.every-unit-agrees-so', 'info',
    "{value}: every unit agrees, so every bootstrap replicate is the same; the interval shown is Wilson's on the "
    "units (a valid bound for a share of agreement)")
NOTE_NO_INTERVAL_EVERY_BOOTSTRAP = NoteKind(
    'judges.no-interval-every-bootstrap', 'caveat',
    "{value}: no interval (every bootstrap replicate is the same: the units all agree, so the bootstrap says "
    "nothing about the coefficient's uncertainty)")


def intervals_of(coefs, obs, samples, units, *, jackknife=None, method: str = "percentile",
                 confidence_level: float = 0.95, unit: str = "units"):
    """The intervals of agreement coefficients from their replicates, with the small-sample rules.

    Each interval is the expanded bootstrap interval on the coefficient's resampling units ``units``
    (:func:`~evalband.resample.units.summarize`); shares of agreeing units and AC1 from fewer than
    :data:`FLOOR_UNITS` independent units (no clusters) are widened to contain Wilson's interval
    (:func:`_wilson_floor`); a coefficient from
    fewer than :data:`MIN_UNITS` units is withheld, and one whose replicates never vary has no interval (a share
    at 0 or 1 gets Wilson's). Returns ``(obs, low, high, se, undefined, notes)``.
    """
    obs = np.array(obs, dtype=np.float64, copy=True)
    few = units < MIN_UNITS
    obs[few] = np.nan  # a coefficient from fewer than 2 units is withheld (it says nothing about agreement)
    low, high, se, undefined = summarize(obs, samples, jackknife=jackknife, method=method,
                                         confidence_level=confidence_level, n_units=units)
    notes = []
    if few.any():
        notes.append(NOTE_WITHHELD_FROM_FEWER_THAN(value=_labels(coefs, few), min_units=MIN_UNITS, unit=unit))
    share = np.array([c.name in PROPORTIONS for c in coefs])
    lo, hi, sd, at_edge, gone = edge_intervals(obs, se, low, high, units, bounded=True,
                                               confidence_level=confidence_level)
    low, high, se = np.where(share, lo, low), np.where(share, hi, high), np.where(share, sd, se)
    if unit == "units":  # (Wilson's interval is for independent units; clusters keep the expanded interval alone)
        low, high, floored = _wilson_floor(coefs, obs, low, high, units, confidence_level)
    else:
        floored = np.zeros(len(coefs), dtype=bool)
    se = np.where(floored, np.fmax(np.nan_to_num(se), implied_se(low, high, confidence_level)), se)
    if floored.any():
        notes.append(NOTE_FROM_FEWER_THAN_UNITS(value=_labels(coefs, floored), floor_units=FLOOR_UNITS))
    flat = degenerate(low, high, se) & np.isfinite(obs)
    low, high, se = (np.where(flat, np.nan, x) for x in (low, high, se))
    if (at_edge & share).any():
        notes.append(NOTE_EVERY_UNIT_AGREES_SO(value=_labels(coefs, at_edge & share)))
    if flat.any():
        notes.append(NOTE_NO_INTERVAL_EVERY_BOOTSTRAP(value=_labels(coefs, flat)))
    return obs, low, high, se, undefined, notes


#: coefficients that are shares of units (a mean of per-unit values in [0, 1]): at 0 or 1 they get Wilson's bound
PROPORTIONS = ("percent_agreement", "accuracy")
#: below this many units, shares of agreement (and AC1, affine in one) are widened to contain Wilson's interval
FLOOR_UNITS = 30


def _wilson_floor(coefs, obs, low, high, units, level):
    """Shares of agreeing units from fewer than FLOOR_UNITS units: the union of the bootstrap interval and
    Wilson's; Gwet's AC1, ``(p_a - p_e) / (1 - p_e)``, affine in the share p_a at the observed chance agreement
    p_e, the union with the image of p_a's Wilson interval (a mean of per-unit shares in [0, 1] has variance at
    most a proportion's, so Wilson's interval is conservative for it)."""
    from scipy.special import ndtri

    from ..estimation.proportion import wilson_bounds

    z = float(ndtri(0.5 + level / 2))
    low, high = low.copy(), high.copy()
    floored = np.zeros(len(coefs), dtype=bool)
    for k, c in enumerate(coefs):
        if not (np.isfinite(obs[k]) and MIN_UNITS <= units[k] < FLOOR_UNITS):
            continue
        if c.name in PROPORTIONS:
            p, image = obs[k], (lambda x: x)
        elif c.name == "gwet_ac1":
            tot = np.asarray(c.columns).sum(axis=0)
            q = tot.size - 3
            p = tot[0] / tot[1]
            pi = tot[2:2 + q] / tot[-1]
            pe = float((pi * (1 - pi)).sum() / (q - 1)) if q > 1 else np.nan
            if not (np.isfinite(pe) and pe < 1):
                continue
            image = (lambda x, pe=pe: (x - pe) / (1 - pe))
        else:
            continue
        wl, wh = image(wilson_bounds(p, units[k], -z)), image(wilson_bounds(p, units[k], z))
        new_lo = np.fmin(low[k], wl) if np.isfinite(low[k]) else wl
        new_hi = np.fmax(high[k], wh) if np.isfinite(high[k]) else wh
        floored[k] = new_lo < low[k] - 1e-12 or new_hi > high[k] + 1e-12 or not np.isfinite(low[k])
        low[k], high[k] = new_lo, new_hi
    return low, high, floored
#: fewest units (clusters) behind a coefficient; fewer give no estimate
MIN_UNITS = 2


def _resampled_units(coefs, groups) -> np.ndarray:
    """Resampling units behind each coefficient: the units (or clusters) where its columns are not all 0."""
    out = np.empty(len(coefs))
    for k, c in enumerate(coefs):
        used = np.any(np.asarray(c.columns) != 0, axis=1)
        out[k] = used.sum() if groups is None else np.unique(np.asarray(groups)[used]).size
    return out


def _labels(coefs, mask) -> str:
    names = [c.name + (f" ({c.rater_a}, {c.rater_b})" if c.rater_b else f" ({c.rater_a})" if c.rater_a else "")
             for c, m in zip(coefs, mask) if m]
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
