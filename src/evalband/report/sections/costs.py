"""The report's cost section (registered in :data:`evalband.report.sections.SECTIONS` as 'costs'): the
quality-cost plot, the frontier table and the findings in plain words, read from a
:class:`evalband.analysis.costs.CostAnalysis`. It computes no statistic."""

from __future__ import annotations

from ...display import display_frame, format_level
from ..section import Section, Table

__all__ = ["cost_section"]

_REFERENCES = (
    ("Kapoor, S., Stroebl, B., Siegel, Z. S., Nadgir, N. & Narayanan, A. (2024). AI agents that matter.",
     "https://arxiv.org/abs/2407.01502"),
    ("Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling. Technometrics 24, 295-300.",
     None),
    ("Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171-185.", None),
)


def cost_section(result, analysis=None):
    """The cost section of a report from a CostAnalysis (None when there is nothing to show)."""
    from ..build import Figure
    from ..plots.frontier import frontier_plot

    fr = result.frontier
    level = fr.confidence_level
    frame, value_cols, title = fr.display_table(wide=True)
    shown, _ = display_frame(frame, value_cols=value_cols, keep=("model", "frontier"))
    tables = [Table(f"{title[0].upper()}{title[1:]}", shown, key="frontier")]
    findings = list(fr.readings())
    if result.decision is not None:
        findings.append(f"{result.leader} (best quality) against {result.rival}, its cheapest rival on the frontier:"
                        f" {result.decision.sentence}")
        dframe, dcols, dtitle = result.decision.display_table()
        shown, _ = display_frame(dframe, value_cols=dcols, keep=("measure", "comparison", "verdict"))
        tables.append(Table(f"{dtitle[0].upper()}{dtitle[1:]}", shown, key="decision"))
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
