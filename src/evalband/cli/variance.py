"""``evalband variance``: where the variance comes from (items, prompts, judges, seeds, runs), per model and pair.

    evalband variance results.csv --facets prompt --format json
"""

from __future__ import annotations

from typing import Annotated

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FixedOpt, FormatOpt, InputOptions, SeedOpt, WideOpt,
                      emit, emit_json, errors, output_format, parse_confidence, parse_fixed, reads_input,
                      resolve_seed, NResamplesOpt, n_resamples_for)
from ._common import ATTRIBUTION
from ..display.notes import NoteKind
DifferencesOpt = Annotated[bool, typer.Option("--differences/--no-differences", help="Also show the components"
                                              " of every pair's difference (JSON always has them).")]


NOTE_SEED_PIVOTAL_DRAWS = NoteKind('cli.seed-pivotal-draws', 'info',
                                   '{seed_text}, {n_resamples:,} pivotal draws per model and task')


@reads_input(after={"fixed": "facets models tasks", "fmt": f"cluster {TABLE_INPUT} drop_cols {LOG_INPUT}"})


def variance(
    fixed: FixedOpt = None,
    n_resamples: NResamplesOpt = None,
    confidence: ConfidenceOpt = "0.95",
    seed: SeedOpt = None,
    differences: DifferencesOpt = False,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Variance components per model (and pair): items, each facet, their interactions and trials; each one's share
    of the variance of the mean, with intervals; the standard error of the mean with the facets random (new
    prompts, judges, seeds) and fixed (the ones used); G coefficients; with a `run` facet, the spread across runs
    and the inflation of reporting the best of n runs.

    Estimation: expected mean squares for balanced designs, REML for unbalanced ones. Facets default to the
    columns named prompt, template, judge, run or harness; --facets names others (trials are always nested).
    """
    from ..display import json_dumps, json_records
    from ..facets import facet_summary

    with errors():
        fmt = output_format(fmt, wide)
        sel = inputs.selection(weights=False)
        seed, seed_text = resolve_seed(seed)
        result = facet_summary(sel, fixed=parse_fixed(fixed) or (), n_resamples=n_resamples_for("refit", n_resamples),
                               confidence_level=parse_confidence(confidence), rng=seed)
        vc = result.components
        notes = list(result.notes) + [NOTE_SEED_PIVOTAL_DRAWS(seed_text=seed_text, n_resamples=vc.n_resamples)]
        if sel.table.attribution:
            notes.append(ATTRIBUTION(attribution=sel.table.attribution))
        if fmt == "json":
            emit_json(json_dumps(_json(result, json_records)), notes)
            return
        emit(_human(result, fmt, notes, differences=differences, scale=_scale(sel.table)))


def _scale(table) -> float:
    from ..display import scale_for

    return scale_for(table.score_kind)


def _se_dict(row, facets) -> dict:
    out = {"random": row["se_random"], "fixed": row["se_fixed"]}
    if len(facets) > 1:
        out.update({f"fixed_{f}": row[f"se_fixed_{f}"] for f in facets})
    return out


def _json(result, json_records) -> dict:
    """Per model (and pair) and task: estimate, se random and fixed, df, G coefficients and the components."""
    vc = result.components
    comp, pairs = vc.to_frame(), vc.difference_frame()
    entries = []
    for _, row in result.se_frame().iterrows():
        rows = comp[(comp["model"] == row["model"]) & (comp["task"] == row["task"])].drop(columns=["model", "task"])
        entries.append({"model": row["model"], "task": row["task"], "estimate": row["estimate"],
                        "se": _se_dict(row, vc.facets), "df": {"random": row["df_random"], "fixed": row["df_fixed"]},
                        "g_relative": row["g_relative"], "g_absolute": row["g_absolute"],
                        "components": json_records(rows)})
    diffs = []
    for _, row in result.difference_se_frame().iterrows():
        rows = pairs[(pairs["model_a"] == row["model_a"]) & (pairs["model_b"] == row["model_b"])
                     & (pairs["task"] == row["task"])].drop(columns=["model_a", "model_b", "task"])
        diffs.append({"model_a": row["model_a"], "model_b": row["model_b"], "task": row["task"],
                      "estimate": row["estimate"], "se": _se_dict(row, vc.facets),
                      "df": {"random": row["df_random"], "fixed": row["df_fixed"]}, "components": json_records(rows)})
    out = {"facets": list(vc.facets), "fixed": list(vc.fixed), "confidence_level": vc.confidence_level,
           "method": dict(vc.method), "models": entries, "differences": diffs,
           "plan": {"target_se": result.target_se,
                    "designs": json_records(result.plan.to_frame()) if result.plan is not None else []}}
    if result.runs is not None:
        out["runs"] = json_records(result.runs.to_frame())
    return out


def _components_display(frame, keys, confidence_level):
    """Components as standard deviations (points for proportions) with intervals, and their shares."""
    import numpy as np

    f = frame.copy()
    shown = f[keys + ["component", "levels"]].copy()
    shown["sd"] = np.sqrt(f["variance"].to_numpy(float))
    shown["ci_low"] = np.sqrt(f["ci_low"].to_numpy(float))
    shown["ci_high"] = np.sqrt(f["ci_high"].to_numpy(float))
    shown["share"] = f["share"]
    shown["share_ci_low"] = f["share_low"]
    shown["share_ci_high"] = f["share_high"]
    shown["method"] = f["method"]
    shown["confidence_level"] = confidence_level
    return shown


def _human(result, fmt, notes, *, differences: bool, scale: float) -> str:
    from ..display import format_level, render

    vc = result.components
    level = format_level(vc.confidence_level)
    unit = "points" if scale == 100 else "score units"
    parts = [render(_components_display(vc.to_frame(), ["model", "task"], vc.confidence_level), fmt,
                    value_cols=("sd", "ci_low", "ci_high"), se_col="sd", scale=scale,
                    title=f"Variance components (sd in {unit}; share of the variance of the mean)")]
    if differences and len(vc.models) > 1:
        parts.append(render(_components_display(vc.difference_frame(), ["model_a", "model_b", "task"],
                                                vc.confidence_level), fmt,
                            value_cols=("sd", "ci_low", "ci_high"), se_col="sd", scale=scale,
                            title="Components of each pair's difference (model_a - model_b)"))
    se = result.se_frame()
    se_cols = [c for c in se.columns if c.startswith("se_")]
    parts.append(render(se.drop(columns=["df_fixed"]), fmt, value_cols=("estimate", *se_cols), se_col="se_random",
                        scale=scale, title=f"Standard error of the mean: facets ({', '.join(vc.facets)}) random"
                                           " (new levels) and fixed (the levels used)"))
    if len(vc.models) > 1:
        d = result.difference_se_frame()
        d_cols = [c for c in d.columns if c.startswith("se_")]
        parts.append(render(d.drop(columns=["df_fixed", "g_relative", "g_absolute"]), fmt,
                            value_cols=("estimate", *d_cols), se_col="se_random", scale=scale,
                            title="Differences (model_a - model_b): standard errors random and fixed"))
    if result.runs is not None:
        runs = result.runs.to_frame()
        cols = ["model", "task", "n", "runs", "mean", "sd", "best_of_n", "inflation", "ci_low", "ci_high"]
        parts.append(render(runs[[c for c in cols if c in runs.columns]], fmt,
                            value_cols=("mean", "sd", "best_of_n", "inflation", "ci_low", "ci_high"), se_col="sd",
                            scale=scale, title=f"Runs: spread and the inflation of reporting the best of n runs"
                                               f" ({level} intervals)"))
    more = list(notes)
    if scale == 100:
        more.insert(0, "values in points (x100; sd of a component in points); JSON gives fractions and variances")
    more.append("G coefficients: g_relative (E rho^2) and g_absolute (Phi) of item scores averaged over the facet"
                " levels and trials used")
    parts[-1] = parts[-1].rstrip("\n")
    text = "\n\n".join(p.rstrip("\n") for p in parts)
    return render_notes(text, more, fmt)


def render_notes(text: str, notes, fmt: str) -> str:
    """The tables, then the notes once (as the display module prints them below a table)."""
    from ..display import md_escape, terminal_width, wrap_notes

    notes = list(dict.fromkeys(notes))
    if fmt == "markdown":
        return text + "\n\n" + "\n".join(f"- {md_escape(n)}" for n in notes) + "\n"
    if fmt == "latex":
        from ..display import latex_escape

        return text + "\n" + "\n".join(f"% note: {latex_escape(n, ligatures=False)}" for n in notes) + "\n"
    return text + "\n" + "\n".join(wrap_notes(notes, terminal_width())) + "\n"
