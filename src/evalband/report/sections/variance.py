"""The report section "Where the variance comes from" (facets): built from a :class:`~evalband.facets.FacetSummary`
(:func:`evalband.analysis.variance.variance_extension`), computing nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...display import decimals_for, format_level, format_percent, format_value, scale_for
from ..build import Figure
from ..section import Section, Table

__all__ = ["variance_section"]

#: model-task rows shown in the findings and the figure
_ROWS = 12


def _num(v, se, scale) -> str:
    if v is None or not np.isfinite(v):
        return "-"
    d = decimals_for(abs(se * scale)) if se and np.isfinite(se) and se > 0 else 2
    return format_value(float(v) * scale, d)


def variance_section(result, analysis) -> Section | None:
    """"Where the variance comes from": stacked shares of the components with intervals, standard errors with the
    facets random and fixed, the D-study designs, and (with a run facet) the inflation of best-of-n reporting."""
    vc = result.components
    table = analysis.table
    scale = scale_for(table.score_kind)
    unit = " points" if scale == 100 else ""
    level = format_level(vc.confidence_level)
    facets = ", ".join(vc.facets)
    comp = vc.to_frame()
    se = result.se_frame()
    findings = []
    for r in se.head(_ROWS).itertuples():
        rows = comp[(comp["model"] == r.model) & (comp["task"] == r.task)]
        top = rows.sort_values("share", ascending=False).iloc[0]
        where = "" if len(vc.tasks) == 1 else f" on {r.task}"
        findings.append(f"{r.model}{where}: the standard error of its mean is {_num(r.se_random, r.se_random, scale)}"
                        f"{unit} when the {facets} levels are a sample of those that could have been used, and"
                        f" {_num(r.se_fixed, r.se_random, scale)}{unit} when they are taken as fixed; the largest"
                        f" part ({format_percent(top['share'])}) comes from {top['component']}.")
    plan = result.plan
    if plan is not None and len(plan.designs):
        best = plan.best
        sizes = ", ".join(f"{int(best[k]):,} {k.rstrip('s')}{'s' if int(best[k]) != 1 else ''}"
                          + (" per cell" if k == "trials" else "") for k in plan.factors)
        findings.append(f"To reach a standard error of {_num(plan.target_se, plan.target_se, scale)}{unit} (half the"
                        f" largest today) the design with the fewest responses has {sizes} (predicted"
                        f" {_num(best['predicted_se'], plan.target_se, scale)}{unit}).")
    if result.runs is not None:
        rf = result.runs.to_frame()
        top_n = rf[rf["n"] == rf["n"].max()]
        for r in top_n.head(4).itertuples():
            findings.append(f"{r.model}: reporting the best of {r.n} runs instead of their mean inflates the score"
                            f" by {_num(r.inflation, r.sd / 4 if r.sd else 0, scale)}{unit} ({level} interval"
                            f" {_num(r.ci_low, r.sd / 4 if r.sd else 0, scale)} to"
                            f" {_num(r.ci_high, r.sd / 4 if r.sd else 0, scale)}).")
    within = " (in points)" if scale == 100 else ""
    tables = [Table(f"Variance components (standard deviations{within}, {level} intervals) and their shares of the"
                    " variance of the mean", _components_table(comp, scale, level), "variance-components"),
              Table(f"Standard error of each model's mean{within}: {facets} random (generalizing to new levels) and"
                    " fixed (the levels used)", _se_table(se, vc.facets, scale), "variance-se")]
    if plan is not None and len(plan.designs):
        tables.append(Table(f"D-study: designs that reach a standard error of"
                            f" {_num(plan.target_se, plan.target_se, scale)}{unit}, fewest responses first",
                            _plan_table(plan.to_frame().head(10), plan.target_se, scale), "variance-plan"))
    if result.runs is not None:
        tables.append(Table(f"Runs: spread and best-of-n inflation{within} ({level} intervals)",
                            _runs_table(result.runs.to_frame(), scale), "variance-runs"))
    figures = []
    shown = comp[comp[["model", "task"]].apply(tuple, axis=1).isin(list(dict.fromkeys(
        zip(comp["model"], comp["task"])))[:_ROWS])]
    from ..plots.variance import variance_shares_plot

    ax = variance_shares_plot(shown)
    figures.append(Figure("variance-shares", "Where the variance comes from",
                          f"Each bar is a model's variance of the mean, split into its components; whiskers are"
                          f" {level} intervals of each share.", ax.figure))
    methods = (f"Variance components of the random-effects design (items, {facets}, their interactions and trials"
               " nested in cells): expected mean squares for balanced designs with generalized confidence intervals,"
               " REML for unbalanced ones (methods per task: "
               + ", ".join(f"{t} {m}" for t, m in vc.method.items()) + ").",
               "Shares are of the variance of the reported mean; the standard errors with the facets random add"
               " their terms, with them fixed leave them out (Brennan 2001). Intervals elsewhere in this report"
               " already treat the facets as random unless --fixed was given.")
    refs = (("Brennan, R. L. (2001). Generalizability Theory. Springer.", None),
            ("Owen, A. B. (2007). The pigeonhole bootstrap. Annals of Applied Statistics 1(2), 386-411.", None),
            ("Madaan, L. et al. (2024). Quantifying variance in evaluation benchmarks. arXiv:2406.10229.",
             "https://arxiv.org/abs/2406.10229"))
    return Section("variance", "Where the variance comes from",
                   f"How much of each model's uncertainty comes from the items, from the {facets} used and from"
                   " repeated trials, and which designs would shrink it.", tuple(findings), tuple(tables),
                   tuple(figures), methods, refs, tuple(result.notes))


def _components_table(comp, scale, level) -> pd.DataFrame:
    rows = []
    for r in comp.itertuples():
        sd, lo, hi = (np.sqrt(max(x, 0.0)) for x in (r.variance, r.ci_low, r.ci_high))
        d = decimals_for(sd * scale) if sd > 0 else 1
        rows.append({"model": r.model, "task": r.task, "component": r.component, "levels": f"{int(r.levels):,}",
                     "sd": format_value(sd * scale, d), f"{level} CI": f"({format_value(lo * scale, d)},"
                                                                         f" {format_value(hi * scale, d)})",
                     "share": format_percent(r.share),
                     "share CI": f"({format_percent(r.share_low)}, {format_percent(r.share_high)})"})
    out = pd.DataFrame(rows)
    return out.drop(columns="task") if comp["task"].nunique() == 1 else out


def _se_table(se, facets, scale) -> pd.DataFrame:
    rows = []
    for r in se.to_dict("records"):
        row = {"model": r["model"], "task": r["task"], "estimate": _num(r["estimate"], r["se_random"], scale),
               "se (random)": _num(r["se_random"], r["se_random"], scale),
               "se (fixed)": _num(r["se_fixed"], r["se_random"], scale),
               "df (random)": f"{r['df_random']:.3g}", "G": f"{r['g_relative']:.2f}"}
        if len(facets) > 1:
            for f in facets:
                row[f"se ({f} fixed)"] = _num(r[f"se_fixed_{f}"], r["se_random"], scale)
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.drop(columns="task") if se["task"].nunique() == 1 else out


def _plan_table(frame, target, scale) -> pd.DataFrame:
    out = frame.copy()
    out["predicted_se"] = [_num(v, target / 10, scale) for v in frame["predicted_se"]]
    for c in out.columns:
        if c != "predicted_se":
            out[c] = [f"{v:,.0f}" if float(v).is_integer() else f"{v:,.4g}" for v in frame[c]]
    return out


def _runs_table(frame, scale) -> pd.DataFrame:
    rows = []
    for r in frame.itertuples():
        s = r.sd / 4 if r.sd and np.isfinite(r.sd) else 0.0
        rows.append({"model": r.model, "task": r.task, "best of": f"{int(r.n)}", "runs": f"{int(r.runs)}",
                     "mean": _num(r.mean, s, scale), "sd": _num(r.sd, s, scale),
                     "inflation": _num(r.inflation, s, scale),
                     "interval": f"({_num(r.ci_low, s, scale)}, {_num(r.ci_high, s, scale)})"})
    return pd.DataFrame(rows)
