"""The report's cost section (registered in :data:`evalband.report.sections.SECTIONS` as 'costs'): the
quality-cost plot, the frontier table and the findings in plain words, read from a
:class:`evalband.costs.analysis.CostAnalysis`. It computes no statistic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..display import decimals_for, format_level, format_value
from .section import Section, Table

__all__ = ["cost_section"]

_REFERENCES = (
    ("Kapoor, S., Stroebl, B., Siegel, Z. S., Nadgir, N. & Narayanan, A. (2024). AI agents that matter.",
     "https://arxiv.org/abs/2407.01502"),
    ("Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling. Technometrics 24, 295-300.",
     None),
    ("Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.", None),
)


def _strings(frame: pd.DataFrame, value_cols: dict, level: float) -> pd.DataFrame:
    """Display strings of a ``display_table()`` frame: each value with the decimals its SE sets (after its scale),
    each ``X CI_low`` / ``X CI_high`` pair merged into ``X 95% CI``."""
    def column(c):
        se, scale = value_cols[c]
        se = frame[se].to_numpy(dtype=float) if isinstance(se, str) else np.broadcast_to(
            np.asarray(se, dtype=float), (len(frame),))
        scale = np.broadcast_to(np.asarray(scale, dtype=float), (len(frame),))
        return [format_value(v * k, decimals_for(abs(s * k)) if s == s and s != 0 else 1)
                for v, s, k in zip(frame[c].to_numpy(dtype=float), se, scale)]

    out = {}
    for c in frame.columns:
        if c.endswith(" CI_high"):
            continue
        if c.endswith(" CI_low"):
            stem = c[: -len(" CI_low")]
            out[f"{stem} {format_level(level)} CI"] = [f"({a}, {b})"
                                                      for a, b in zip(column(c), column(f"{stem} CI_high"))]
        elif c in value_cols:
            out[c] = column(c)
        else:
            out[c] = [str(v) for v in frame[c]]
    return pd.DataFrame(out)


def cost_section(result, analysis=None):
    """The cost section of a report from a CostAnalysis (None when there is nothing to show)."""
    from ._build import Figure
    from .plot_frontier import frontier_plot

    fr = result.frontier
    level = fr.confidence_level
    frame, value_cols, title = fr.display_table(wide=True)
    tables = [Table(title[0].upper() + title[1:], _strings(frame, value_cols, level), key="frontier")]
    findings = list(fr.readings())
    if result.decision is not None:
        findings.append(f"{result.leader} (best quality) against {result.rival}, its cheapest rival on the frontier:"
                        f" {result.decision.sentence}")
        dframe, dcols, dtitle = result.decision.display_table()
        ends = {"ci_low": "estimate CI_low", "ci_high": "estimate CI_high"}
        dframe = dframe.drop(columns=["confidence_level"]).rename(columns=ends)
        dcols = {ends.get(c, c): v for c, v in dcols.items()}
        tables.append(Table(dtitle[0].upper() + dtitle[1:], _strings(dframe, dcols, level), key="decision"))
    ax = frontier_plot(fr)
    points = " (points)" if fr.scale == 100 else ""
    figure = Figure("frontier", "Quality against cost",
                    f"Quality{points} against mean {fr.cost.measure} per item (log scale), {format_level(level)}"
                    " intervals on both axes; the line joins the models on the frontier; grey hollow marks are"
                    " dominated with confidence.", ax.figure)
    methods = (
        f"Quality and mean {fr.cost.measure} per item come from the same bootstrap draws of the items, so every"
        " comparison involving both is paired; cost intervals are BCa (costs are skewed), latency quantiles"
        " percentile intervals.",
        "A model is dominated with confidence when another is decidedly at least as good in quality (within the"
        " margin) and decidedly cheaper: both one-sided tests reject (intersection-union), with Holm's correction"
        " over the ordered pairs.",
    )
    return Section("costs", "Cost and quality",
                   "Each model's quality against what it costs per item, with intervals on both, the models no other"
                   " beats on both (the frontier), and those another model beats on both with confidence.",
                   findings=tuple(findings), tables=tuple(tables), figures=(figure,), methods=methods,
                   references=_REFERENCES, notes=tuple(fr.notes))
