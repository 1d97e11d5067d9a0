"""Win rates at 0 or 1 and win rates from few battles: the house rule of :mod:`evalband.estimation.edges`.

A model that won (or lost) every one of its battles has a win rate of 1 (or 0), AlpacaEval's standard error
``sd / sqrt(n)`` is 0 there, and every bootstrap replicate is the same: a point interval, rank interval 1-1 and
P(best) 100% from two battles. The rule here, for win rates against a baseline and average win rates (each
battle's preference is in [0, 1]):

* such a win rate gets Wilson's interval on its effective number of battles (Kish's ``(sum w)^2 / sum w^2``: the
  battles when unweighted), a valid bound for a mean of scores in [0, 1] at 0 or 1 (as
  :func:`evalband.estimation.edges.edge_intervals`); its bootstrap replicates are replaced by draws of Wilson's
  confidence distribution (:func:`evalband.resample.floors.wilson_draws`, the floor of aggregates over tasks), so
  the rank intervals, P(best) and pairwise comparisons rest on that interval rather than on a constant;
* its standard error is left empty (AlpacaEval's is 0, which says only that the battles agree);
* the baseline's win rate against itself is 0.5 by definition: no standard error and no interval;
* a note names the models with fewer than :data:`~evalband.resample.floors.MIN_ITEMS` (effective) battles.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..display.notes import NoteKind
from ..resample.floors import MIN_ITEMS, wilson_draws

__all__ = ["EdgeWinRates", "edge_win_rates", "effective_battles"]

NOTE_WIN_RATE_AT_EDGE = NoteKind(
    "preferences.win-rate-at-edge", "caveat",
    "win rate of {value} at 0 or 1 (won or lost every battle): every bootstrap replicate is the same, so the"
    " interval is Wilson's on the effective number of battles, the ranks, P(best) and pairwise comparisons use"
    " draws of its confidence distribution, and no standard error is shown (AlpacaEval's is 0 there)")
NOTE_FEW_BATTLES = NoteKind(
    "preferences.few-battles", "caveat",
    "few battles (fewer than {min_battles}) behind the win rate of {value}: their intervals, rank intervals and"
    " P(best) rest on few battles and the bootstrap's ends are rough there")
NOTE_BASELINE_IS_REFERENCE = NoteKind(
    "preferences.baseline-is-reference", "info",
    "{value!r} is the baseline: its win rate against itself is 0.5 by definition, so it has no standard error and"
    " no interval")


def _names(models, mask, counts) -> str:
    idx = np.flatnonzero(mask)
    shown = ", ".join(f"{models[i]} ({counts[i]:.3g})" for i in idx[:6])
    return shown + (f" and {idx.size - 6} more" if idx.size > 6 else "")


def effective_battles(table, baseline=None) -> np.ndarray:
    """Kish's effective number of battles behind each model's win rate (against ``baseline``, or all).

    Examples
    --------
    >>> from evalband.preferences import BattleTable
    >>> t = BattleTable.build(["m", "base", "m"], ["base", "m", "o"], [1.0, 0.5, 0.0])
    >>> effective_battles(t, t.models.index("base")).tolist()
    [0.0, 2.0, 0.0]
    """
    a = np.asarray(table.model_a, dtype=np.int64)
    b = np.asarray(table.model_b, dtype=np.int64)
    w = np.asarray(table.weight, dtype=np.float64)
    c = np.asarray(getattr(table, "count", None) if getattr(table, "count", None) is not None else np.ones(a.size),
                   dtype=np.float64)
    m = table.n_models
    if baseline is None:
        who, ww, cc = np.concatenate([a, b]), np.concatenate([w, w]), np.concatenate([c, c])
    else:
        keep = (a == baseline) | (b == baseline)
        who, ww, cc = np.where(a[keep] == baseline, b[keep], a[keep]), w[keep], c[keep]
        keep_self = who != baseline
        who, ww, cc = who[keep_self], ww[keep_self], cc[keep_self]
    s1 = np.bincount(who, weights=ww * cc, minlength=m)
    s2 = np.bincount(who, weights=ww * ww * cc, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s2 > 0, s1 * s1 / np.where(s2 > 0, s2, 1.0), 0.0)


@dataclass(frozen=True)
class EdgeWinRates:
    """What :func:`edge_win_rates` changed: the replicates, the cells at 0 or 1, and the notes."""

    samples: np.ndarray
    at_edge: np.ndarray
    n_eff: np.ndarray
    notes: tuple

    def apply(self, ranking, rating, base_pos, level):
        """``ranking`` with Wilson's interval and no standard error for the win rates at 0 or 1 (BCa included:
        their replicates are its draws), and no interval for the baseline, the reference."""
        from .._distributions import norm_ppf
        from ..estimation.confidence import ConfidenceInterval
        from ..estimation.proportion import wilson_bounds

        low, high = np.array(ranking.ci.low, dtype=float), np.array(ranking.ci.high, dtype=float)
        se = np.array(ranking.se, dtype=float)
        if self.at_edge.any():
            z = float(norm_ppf(0.5 + level / 2))
            at, n = self.at_edge, np.where(self.n_eff > 0, self.n_eff, 1.0)
            low = np.where(at, wilson_bounds(rating, n, -z), low)
            high = np.where(at, wilson_bounds(rating, n, z), high)
            se = np.where(at, np.nan, se)
        if base_pos is not None:
            low[base_pos] = high[base_pos] = se[base_pos] = np.nan
        return replace(ranking, ci=ConfidenceInterval(low, high), se=se)


def edge_win_rates(table, observed, samples, baseline=None) -> EdgeWinRates:
    """The rule of this module on win rates ``observed`` (M,) and their replicates ``samples`` (B, M).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.preferences import BattleTable
    >>> t = BattleTable.build(["m", "m", "o"], ["base", "base", "base"], [1.0, 1.0, 0.5])
    >>> e = edge_win_rates(t, np.array([0.5, 1.0, 0.5]), np.tile([0.5, 1.0, 0.5], (200, 1)), t.models.index("base"))
    >>> e.at_edge.tolist(), bool(np.quantile(e.samples[:, 1], 0.025) < 0.5)
    ([False, True, False], True)
    """
    rate = np.asarray(observed, dtype=np.float64)
    n_eff = effective_battles(table, baseline)
    models = list(table.models)
    with np.errstate(invalid="ignore"):
        at_edge = np.isfinite(rate) & (n_eff > 0) & ((rate <= 0) | (rate >= 1))
    if baseline is not None:
        at_edge[baseline] = False
    out = np.array(samples, dtype=np.float64, copy=True)
    notes = []
    if at_edge.any():
        idx = np.flatnonzero(at_edge)
        out[:, idx] = wilson_draws(rate[idx], n_eff[idx], [models[i] for i in idx], ["win rate"] * idx.size,
                                    out.shape[0])
        notes.append(NOTE_WIN_RATE_AT_EDGE(value=_names(models, at_edge, n_eff)))
    few = (n_eff > 0) & (n_eff < MIN_ITEMS)
    if baseline is not None:
        few[baseline] = False
    if few.any():
        notes.append(NOTE_FEW_BATTLES(min_battles=MIN_ITEMS, value=_names(models, few, n_eff)))
    if baseline is not None:
        notes.append(NOTE_BASELINE_IS_REFERENCE(value=models[baseline]))
    return EdgeWinRates(out, at_edge, n_eff, tuple(notes))
