"""The human tables of this package's results (the frontier, the decision) for :func:`evalband.display.render`;
their reprs are :func:`evalband.display.reprs.titled_repr`."""

from __future__ import annotations

import numpy as np
import pandas as pd


__all__ = ["frontier_table", "decision_table"]

# ---------------------------------------------------------------------------------------------- human tables
def frontier_table(result, *, wide: bool = False):
    """``(frame, value_cols, title)`` of a FrontierResult for :func:`evalband.display.render`: one row per model,
    cheapest first; quality (in points for proportions) and mean cost each with its interval, latency median and
    p95 (with intervals when ``wide``), each with the digits its own standard error sets; 'frontier' says whether
    the model is on the point frontier and by whom it is dominated with confidence."""
    from ..display import format_level

    order = np.argsort(np.asarray(result.cost.estimate, dtype=float), kind="stable")
    frame = {"model": [result.models[i] for i in order]}
    value_cols = {}

    def add(name, values, se, scale, low=None, high=None):
        frame[name] = np.asarray(values, dtype=float)[order]
        cols = [name]
        if low is not None:
            frame[f"{name} CI_low"] = np.asarray(low, dtype=float)[order]
            frame[f"{name} CI_high"] = np.asarray(high, dtype=float)[order]
            cols += [f"{name} CI_low", f"{name} CI_high"]
        for col in cols:
            value_cols[col] = (np.asarray(se, dtype=float)[order], scale)

    add("quality", result.quality, result.quality_se, result.scale, result.quality_ci.low, result.quality_ci.high)
    measure = result.cost.measure
    add(measure, result.cost.estimate, result.cost.se, 1.0, result.cost.ci.low, result.cost.ci.high)
    lat = result.latency
    if lat is not None:
        from .latency import quantile_name

        for k, q in enumerate(lat.quantiles):
            ends = (np.asarray(lat.ci.low)[:, k], np.asarray(lat.ci.high)[:, k]) if wide else (None, None)
            add(quantile_name(q), lat.estimate[:, k], lat.se[:, k], 1.0, *ends)

    def status(i):
        text = "yes" if result.on_frontier[i] else "no"
        by = result.dominated_by[i]
        return f"{text}: dominated by {', '.join(by)}" if by else text

    frame["frontier"] = [status(i) for i in order]
    unit = ", points" if result.scale == 100 else ""
    title = (f"quality ({result.aggregate}{unit}) and mean {measure} per item, {format_level(result.confidence_level)}"
             " CI" + (f"; {lat.measure} {' and '.join(map(quantile_name, lat.quantiles))}" if lat is not None
                      else ""))
    return pd.DataFrame(frame), value_cols, title


def decision_table(dec):
    """``(frame, value_cols, title)`` of a Decision: one row per measure with A's and B's values, the comparison
    (``A - B`` or ``B / A``), its interval and verdict; each number with the digits of its own spread."""
    frame = dec.to_frame()
    n = len(frame)
    comp_se, value_se = np.full(n, np.nan), np.full(n, np.nan)
    known = dec.value_se or {}
    for k, measure in enumerate(frame["measure"]):
        if measure == "quality":
            comp_se[k] = float(dec.quality.se[0])
            if known.get("quality") is not None:
                value_se[k] = float(np.max(known["quality"]))
        elif str(measure).startswith("latency"):
            comp_se[k] = float(dec.latency_difference[k - 3][1])
            if known.get("latency") is not None:
                value_se[k] = float(np.max(known["latency"][:, k - 3]))
        else:  # cost ratio and difference: a quarter of the interval's width (about one SE)
            width = float(frame["ci_high"].iloc[k] - frame["ci_low"].iloc[k])
            comp_se[k] = width / 4 if np.isfinite(width) and width > 0 else abs(float(frame["estimate"].iloc[k])) / 100
            if known.get("cost") is not None:
                value_se[k] = float(np.max(known["cost"]))
    value_se = np.where(np.isnan(value_se), comp_se, value_se)
    scale = np.where(frame["measure"] == "quality", dec.scale, 1.0)
    frame = frame.rename(columns={"model_a": "A", "model_b": "B"})
    value_cols = {"A": (value_se, scale), "B": (value_se, scale),
                  **{c: (comp_se, scale) for c in ("estimate", "ci_low", "ci_high")}}
    shown = frame[["measure", "A", "B", "comparison", "estimate", "ci_low", "ci_high", "verdict", "confidence_level"]]
    return shown, value_cols, f"decision: A = {dec.model_a}, B = {dec.model_b}"
