"""The decision table for one pair of models (seed 001): quality difference with its verdict, cost ratio, latency
difference, each with an interval, and one plain sentence. An inconclusive quality difference may still come with
a clear decision on cost."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, check_choice, check_confidence_level
from ..comparison import pairwise_differences
from ..comparison.verdict import MIN_UNITS, check_margin
from ..display import (format_difference, format_level, format_short, format_signed, format_value, margin_text,
                       withheld_text)
from ..estimation.confidence import ConfidenceInterval
from ._inputs import QUALITY_METHODS, resolve_inputs
from .latency import quantile_name
from .differences import pair_difference, pair_ratio
from ..display.reprs import displayed
from .._words import words

__all__ = ["Decision", "decision", "cost_words", "quality_words", "latency_words"]


def _pair(models):
    names = [m.strip() for m in models.split(",")] if isinstance(models, str) else list(models or ())
    if len(names) != 2 or names[0] == names[1]:
        raise ArgumentError(words('`{arg:models}` must name two different models (A, B); got {models!r}.', models=models))
    return tuple(map(str, names))


def quality_words(a, b, d, se, low, high, verdict, *, level, scale, margin, detail=None) -> str:
    """'quality not yet decided (+4.0 points, 95% CI -3.6 to +11.6)', 'A better in quality (...)', ...

    ``detail`` (``PairwiseComparison.verdict_detail``) says what a margin leaves decided when the verdict is
    'not yet decided'.
    """
    text, dg = format_difference(d, se if np.isfinite(se) and se > 0 else abs(high - low) / 4, scale=scale)
    unit = " points" if scale == 100 else ""
    inner = (f"{text}{unit}, {format_level(level)} CI {format_signed(low * scale, dg)} to"
             f" {format_signed(high * scale, dg)}")
    if verdict == "A better":
        return f"{a} better in quality ({inner})"
    if verdict == "B better":
        return f"{b} better in quality ({inner})"
    if verdict == "equivalent":
        return f"quality equivalent within the {margin_text(margin, scale=scale)} ({inner})"
    if margin > 0 and detail and detail != verdict:
        return f"quality {detail} ({inner})"
    return f"quality not yet decided ({inner})"


def cost_words(a, b, ratio, low, high, *, level, measure="cost", withheld: str = "") -> str:
    """'B costs 38% less per item (95% CI 30% to 45%)', or 'cost not yet decided (...)' when the ratio's interval
    contains 1 (or ``withheld`` says why no verdict is given)."""
    lvl = format_level(level)
    if not np.isfinite(ratio):
        return f"{measure} ratio undefined ({a} has a mean {measure} of 0)"
    if withheld:
        return f"{measure} not yet decided ({b}'s {measure} is {format_short(ratio)} times {a}'s; {withheld})"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{b}'s {measure} is {format_short(ratio)} times {a}'s (no interval)"
    verb = "costs" if measure == "cost" else f"has a {measure}"
    _, dg = format_difference(ratio - 1, (high - low) / 4 if high > low else 0.01, scale=100)
    dg = min(dg, 1)

    def pct(v):
        return format_value(abs(v) * 100, dg) + "%"

    if high < 1:
        return f"{b} {verb} {pct(1 - ratio)} less per item ({lvl} CI {pct(1 - high)} to {pct(1 - low)})"
    if low > 1:
        return f"{b} {verb} {pct(ratio - 1)} more per item ({lvl} CI {pct(low - 1)} to {pct(high - 1)})"
    way = "less" if ratio < 1 else "more"
    return (f"{measure} not yet decided ({b} {verb} {pct(ratio - 1)} {way} per item, {lvl} CI {pct(1 - low)} less"
            f" to {pct(high - 1)} more)")


def latency_words(a, b, d, se, low, high, *, level, what="median latency", withheld: str = "") -> str:
    """'A's median latency is 0.42 lower (95% CI 0.31 to 0.55)', or 'median latency not yet decided (...)'."""
    _, dg = format_difference(d, se if np.isfinite(se) and se > 0 else abs(high - low) / 4, scale=1.0)
    lvl = format_level(level)
    if withheld:
        return f"{what} not yet decided ({a} - {b} {format_signed(d, dg)}; {withheld})"

    def v(x):
        return format_value(x, dg)

    if high < 0:
        return f"{a}'s {what} is {v(-d)} lower ({lvl} CI {v(-high)} to {v(-low)})"
    if low > 0:
        return f"{b}'s {what} is {v(d)} lower ({lvl} CI {v(low)} to {v(high)})"
    return (f"{what} not yet decided ({a} - {b} {format_signed(d, dg)}, {lvl} CI {format_signed(low, dg)} to"
            f" {format_signed(high, dg)})")


@displayed
@dataclass(frozen=True, repr=False)
class Decision:
    """Quality, cost and latency of two models side by side, each comparison with an interval.

    Attributes
    ----------
    model_a, model_b : str
    quality : PairwiseComparison
        The difference ``A - B`` of the quality with its interval, p-value and verdict ('A better', 'B better',
        'equivalent', 'not yet decided').
    quality_values : numpy.ndarray, shape (2,)
    cost_values : numpy.ndarray, shape (2,)
        Mean cost per item of A and B.
    cost_ratio : float
        ``cost_B / cost_A``.
    cost_ratio_ci : ConfidenceInterval
    cost_difference : float
        ``cost_A - cost_B``.
    cost_difference_ci : ConfidenceInterval
    cost_p_value : float
        Two-sided p-value of equal mean costs.
    latency_values : numpy.ndarray or None, shape (2, Q)
    latency_difference : numpy.ndarray or None, shape (Q, 4)
        Per latency quantile: ``A - B``, its SD, and the interval ends.
    latency_quantiles : tuple of float
    sentence : str
        One plain sentence, e.g. "quality not yet decided (+4.0 points, 95% CI -3.6 to +11.6); B costs 38% less
        per item (95% CI 30% to 45%)".
    confidence_level, margin, scale : float
    cost_measure : str
    paired : bool
        Whether quality and cost come from the same item draws.
    notes : tuple of str
    value_se : dict or None
        Standard errors of A's and B's values ('quality', 'cost': (2,); 'latency': (2, Q)), for display digits.
    withheld : str
        Why no verdict on cost and latency is given ('' when they are read from their intervals): fewer than
        10 resampling units cannot support a bootstrap verdict (as for quality).
    """

    model_a: str
    model_b: str
    quality: object
    quality_values: np.ndarray
    cost_values: np.ndarray
    cost_ratio: float
    cost_ratio_ci: ConfidenceInterval
    cost_difference: float
    cost_difference_ci: ConfidenceInterval
    cost_p_value: float
    latency_values: np.ndarray | None
    latency_difference: np.ndarray | None
    latency_quantiles: tuple
    sentence: str
    confidence_level: float
    margin: float
    scale: float
    cost_measure: str = "cost"
    paired: bool = True
    notes: tuple = ()
    value_se: dict | None = None
    withheld: str = ""

    def to_frame(self) -> pd.DataFrame:
        """Seed 001's table: one row per measure with A's and B's value, the comparison (``A - B`` or
        ``B / A``), its interval and what it decides. Full precision; fractions, not percent."""
        q = self.quality
        rows = [dict(measure="quality", model_a=self.quality_values[0], model_b=self.quality_values[1],
                     comparison="A - B", estimate=float(q.difference[0]), ci_low=float(q.ci.low[0]),
                     ci_high=float(q.ci.high[0]), verdict=str(q.verdict[0]))]
        r_lo, r_hi = self.cost_ratio_ci
        cheaper = ("not yet decided" if self.withheld else "B cheaper" if r_hi < 1 else "A cheaper" if r_lo > 1
                   else "not yet decided")
        rows.append(dict(measure=self.cost_measure, model_a=self.cost_values[0], model_b=self.cost_values[1],
                         comparison="B / A", estimate=self.cost_ratio, ci_low=r_lo, ci_high=r_hi, verdict=cheaper))
        d_lo, d_hi = self.cost_difference_ci
        rows.append(dict(measure=self.cost_measure, model_a=self.cost_values[0], model_b=self.cost_values[1],
                         comparison="A - B", estimate=self.cost_difference, ci_low=d_lo, ci_high=d_hi,
                         verdict=cheaper))
        if self.latency_values is not None:
            for k, qv in enumerate(self.latency_quantiles):
                d, _, lo, hi = self.latency_difference[k]
                rows.append(dict(measure=f"latency {quantile_name(qv)}", model_a=self.latency_values[0, k],
                                 model_b=self.latency_values[1, k], comparison="A - B", estimate=d, ci_low=lo,
                                 ci_high=hi, verdict="not yet decided" if self.withheld else "B faster" if lo > 0
                                 else "A faster" if hi < 0 else "not yet decided"))
        frame = pd.DataFrame(rows)
        frame.insert(1, "a", self.model_a)
        frame.insert(2, "b", self.model_b)
        frame["confidence_level"] = self.confidence_level
        return frame

    def __repr__(self) -> str:
        return f"Decision: {self.model_a} (A) vs {self.model_b} (B)\n  {self.sentence}"

    def display_table(self):
        """``(frame, value_cols, title)`` for :func:`evalband.display.render`: one row per measure, each with the
        digits its own spread sets (quality in points for proportions)."""
        from ._display import decision_table

        return decision_table(self)


def _decision_str(dec) -> str:
    from ..display import render

    frame, value_cols, title = dec.display_table()
    return render(frame, "table", value_cols=value_cols, title=title, notes=[dec.sentence]).rstrip("\n")


Decision.__str__ = _decision_str  # after display.displayed, which gives a plain to_frame() table


def decision(data=None, *, models, cost="cost", latency=None, quality=None, aggregate="mean", weights=None,
             group_weights=None, margin: float = 0.0, tasks=None, n_resamples: int = 2000, confidence_level=0.95,
             method: str = "percentile", cost_method: str = "bca", cluster=None, aggregate_options=None,
             rng=None) -> Decision:
    """The decision table for a pair (A, B): quality difference and verdict, cost ratio, latency difference.

    Parameters
    ----------
    data : ResultsTable, path or DataFrame, optional
        Results with per-row ``cost`` (and ``latency``) columns; may be omitted when ``quality`` and per-model
        ``cost`` are given.
    models : (str, str) or 'A,B'
        Model A and model B; differences are ``A - B`` and the cost ratio ``B / A``.
    cost, latency, quality, aggregate, weights, group_weights, tasks, n_resamples, cost_method, cluster,
    aggregate_options, rng
        As for :func:`evalband.costs.frontier`; ``quality`` as a pair holds the two models' columns, in order.
    margin : float
        Smallest quality difference that matters (0.01 = one point): the verdict is 'A better' only when the
        whole interval lies above +margin, 'equivalent' when it lies inside (-margin, margin).
    confidence_level : float or str
    method : {'percentile', 'basic', 'bca'}
        Bootstrap interval method of the quality difference.

    Returns
    -------
    Decision

    Notes
    -----
    Each comparison is read from the interval of the difference (or ratio), never from overlapping per-model
    intervals. Quality and cost come from the same item draws on the items both models have, so the two are
    paired; the cost ratio's interval is BCa by default (costs are skewed). No multiplicity correction is made
    for the two or three measures: each interval holds at ``confidence_level`` on its own.

    References
    ----------
    Miller, E. (2024). Adding error bars to evals: a statistical approach to language model evaluations.
    arXiv:2411.00640.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> gen = np.random.default_rng(3)
    >>> rows = [dict(model=m, task="t", item=i, score=float(gen.random() < p), cost=c * (1 + i % 7))
    ...         for m, p, c in [("A", 0.78, 1.0), ("B", 0.74, 0.62)] for i in range(120)]
    >>> print(decision(pd.DataFrame(rows), models="A,B", n_resamples=1000, rng=1).sentence)
    quality not yet decided (+6.7 points, 95% CI -2.5 to +16.7); B costs 38.0% less per item (95% CI 38.0% to 38.0%)
    """
    a, b = _pair(models)
    level = check_confidence_level(confidence_level)
    margin = check_margin(margin)
    method = check_choice(method, QUALITY_METHODS, "method")
    q, costs, lat, notes, paired = resolve_inputs(
        data, cost=cost, latency=latency, quality=quality, aggregate=aggregate, weights=weights,
        group_weights=group_weights, aggregate_options=aggregate_options, models=[a, b], tasks=tasks,
        n_resamples=n_resamples, method=method, cost_method=cost_method, confidence_level=level, cluster=cluster,
        rng=rng)
    return decision_from(q, costs, lat, (a, b), margin=margin, method=method, confidence_level=level, notes=notes,
                         paired=paired)


def decision_from(q, costs, lat, models, *, margin: float = 0.0, method: str = "percentile", confidence_level=0.95,
                  notes=(), paired: bool = True) -> Decision:
    """The decision table of :func:`decision` from quality draws, costs and latencies already made (one draw for a
    frontier and its decisions: :meth:`FrontierResult.decision`).

    Parameters
    ----------
    q : Quality
    costs : CostEstimates
    lat : LatencyEstimates or None
    models : (str, str) or 'A,B'
    margin, method, confidence_level
        As for :func:`decision`.
    notes : sequence of str
    paired : bool
        Whether quality and cost come from the same draws.

    Returns
    -------
    Decision

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.costs import costs_from_replicates, decision_from, joint_from_arrays, quality_from_replicates
    >>> rng = np.random.default_rng(0)
    >>> scores = {"t": (rng.random((2, 200)) < [[0.80], [0.72]]).astype(float)}
    >>> costs = {"t": np.array([[2.0], [0.5]]) * rng.uniform(0.5, 1.5, (2, 200))}
    >>> joint = joint_from_arrays(["A", "B"], scores, costs, n_resamples=200, rng=0)
    >>> q = quality_from_replicates(joint.quality)
    >>> d = decision_from(q, costs_from_replicates(joint, method="percentile"), None, "A,B")
    >>> print(d.sentence)
    quality not yet decided (+3.5 points, 95% CI -4.5 to +13.0); B costs 75.5% less per item (95% CI 74.2% to 76.7%)
    """
    a, b = _pair(models)
    level = check_confidence_level(confidence_level)
    margin = check_margin(margin)
    method = check_choice(method, QUALITY_METHODS, "method")
    for name in (a, b):
        if name not in q.models:
            raise ArgumentError(words('`{arg:models}`: unknown {name!r}; the quality has {value}.', name=name, value=', '.join(map(repr, q.models))))
    idx = [q.models.index(a), q.models.index(b)]
    jack = None if q.jackknife is None else q.jackknife[:, idx]
    pair = pairwise_differences(q.observed[idx], q.samples[:, idx], (a, b), statistic=q.name, method=method,
                                confidence_level=level, margin=margin, scale=q.scale,
                                unit="points" if q.scale == 100 else "", higher_is_better=q.higher_is_better,
                                jackknife=jack, jackknife_strata=q.jackknife_strata, order=[0, 1],
                                n_units=q.n_units)
    withheld = ""
    n_units = q.n_units if q.n_units is not None else np.inf
    if costs.bootstrap:
        n_units = min(n_units, float(np.nanmin(costs.n_items)))
    if n_units < MIN_UNITS:
        withheld = withheld_text("too few units", n_units, unit="resampling units", min_units=MIN_UNITS)[1:-1]
    ca, cb = costs.index(a), costs.index(b)
    d, _, d_lo, d_hi, p = pair_difference(costs, [ca], [cb])
    r, r_lo, r_hi = pair_ratio(costs, [ca], [cb])
    parts = [quality_words(a, b, pair.difference[0], pair.se[0], pair.ci.low[0], pair.ci.high[0], pair.verdict[0],
                           level=level, scale=q.scale, margin=margin, detail=pair.verdict_detail[0]),
             cost_words(a, b, float(r[0]), float(r_lo[0]), float(r_hi[0]), level=level, measure=costs.measure,
                        withheld=withheld)]
    lat_values = lat_diff = None
    qs = ()
    if lat is not None:
        la, lb = lat.models.index(a), lat.models.index(b)
        lat_values = lat.estimate[[la, lb]]
        qs = lat.quantiles
        lat_diff = np.array([lat.difference(a, b, qv) for qv in qs])
        if 0.5 in qs:
            k = qs.index(0.5)
            parts.append(latency_words(a, b, *lat_diff[k], level=level, what=f"median {lat.measure}",
                                       withheld=withheld))
    sentence = "; ".join(parts)
    return Decision(a, b, pair, q.observed[idx], costs.estimate[[ca, cb]], float(r[0]),
                    ConfidenceInterval(float(r_lo[0]), float(r_hi[0])), float(d[0]),
                    ConfidenceInterval(float(d_lo[0]), float(d_hi[0])), float(p[0]), lat_values, lat_diff, qs,
                    sentence, level, margin, q.scale, costs.measure, paired, tuple(notes),
                    {"quality": q.samples[:, idx].std(axis=0, ddof=1), "cost": costs.se[[ca, cb]],
                     "latency": None if lat is None else lat.se[[la, lb]]}, withheld)
