"""``evalband plan``: items (and trials) needed to detect a difference, and what an evaluation can detect now.

From typed numbers::

    evalband plan --baseline 0.74 --effect 0.04 --correlation 0.5 --n 120

or from pilot results (variances, correlation, clustering and output noise estimated)::

    evalband plan results.csv --effect 0.03 --models A,B
"""

from __future__ import annotations

import math
from typing import Annotated, Optional

import typer

from ._common import LOG_INPUT, InputOptions, emit, emit_json, errors, parse_confidence, parse_list, reads_input
from .._validate import ArgumentError
from ..display.notes import NoteKind

_F = Optional[float]
EffectOpt = Annotated[_F, typer.Option("--effect", help="Difference to detect, as a fraction (0.04 = 4 points).",
                                       show_default=False)]
BaselineOpt = Annotated[_F, typer.Option("--baseline", help="Typed numbers, 0/1 scores: model B's proportion;"
                                         " model A scores baseline + effect.", show_default=False)]
CorrOpt = Annotated[_F, typer.Option("--correlation", help="Per-item correlation of the two models' scores"
                                     " (paired). With a summary file: the correlation to assume.",
                                     show_default=False)]
VarDiffOpt = Annotated[_F, typer.Option("--variance-difference", help="Per-item variance of the difference A - B"
                                        " on one trial, instead of --baseline/--sd with --correlation.",
                                        show_default=False)]
SdOpt = Annotated[_F, typer.Option("--sd", help="Continuous scores: per-item standard deviation of model A"
                                   " (and B unless --sd-b).", show_default=False)]
SdBOpt = Annotated[_F, typer.Option("--sd-b", help="Continuous scores: per-item sd of model B.", show_default=False)]
NOpt = Annotated[Optional[int], typer.Option("--n", help="Items per model now: SE, interval, MDE and power are"
                                             " given at this n.", show_default=False)]
PowerOpt = Annotated[float, typer.Option("--power", help="Requested power.")]
AlphaOpt = Annotated[float, typer.Option("--alpha", help="Family-wise significance level.")]
AltOpt = Annotated[str, typer.Option("--alternative", help="two-sided, greater (A better) or less.")]
UnpairedOpt = Annotated[bool, typer.Option("--unpaired", help="Each model on its own items (n per model).")]
ScoresOpt = Annotated[str, typer.Option("--scores", help="Typed numbers: binary (0/1) or continuous.")]
MethodOpt = Annotated[str, typer.Option("--method", help="t (noncentral t, exact for normal scores) or normal"
                                        " (the (z + z)^2 approximation).")]
ConfOpt = Annotated[Optional[str], typer.Option("--confidence", help="Level of the reported interval (default"
                                                " 1 - alpha).", show_default=False)]
ClusterSizeOpt = Annotated[_F, typer.Option("--cluster-size", help="Mean items per cluster (passage, document).",
                                            show_default=False)]
IccOpt = Annotated[_F, typer.Option("--icc", help="Intra-cluster correlation of the per-item differences.",
                                    show_default=False)]
CvOpt = Annotated[float, typer.Option("--cluster-cv", help="Coefficient of variation of cluster sizes (0 ="
                                      " equal sizes).")]
TrialsOpt = Annotated[Optional[int], typer.Option("--trials", help="Planned trials per item (default 1, or the"
                                                  " pilot's).", show_default=False)]
OutVarOpt = Annotated[_F, typer.Option("--output-variance", help="Within-item variance of one model's single-"
                                       "trial score (the part trials average away).", show_default=False)]
CostOpt = Annotated[_F, typer.Option("--cost-ratio", help="Cost of a new item relative to one more trial, for"
                                     " the recommended number of trials.", show_default=False)]
CompOpt = Annotated[int, typer.Option("--comparisons", help="Number of comparisons planned at family-wise"
                                      " --alpha.")]
MultOpt = Annotated[str, typer.Option("--multiplicity", help="bonferroni, holm (planned at alpha/m) or none.")]
PlanFormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output: table, markdown or json.")]
TargetSeOpt = Annotated[_F, typer.Option("--target-se", help="With a results file that has facets (prompt, judge,"
                                         " ...): the standard error of each model's mean to reach; lists the"
                                         " designs (items, facet levels, trials per cell) that reach it, cheapest"
                                         " first (a D-study from the file's variance components).",
                                         show_default=False)]
UnitCostOpt = Annotated[Optional[str], typer.Option("--cost", help="D-study: cost per item, per facet level and"
                                                    " per scored trial, e.g. item=1,prompt=5,trial=0.2 (designs"
                                                    " sorted by cost).", show_default=False)]

_SHOWN = ("effect", "n", "se_difference", "ci_low", "ci_high", "n_required", "clusters_required", "mde",
          "power_at_n", "variance_difference", "design_effect", "effective_n", "trials", "recommended_trials",
          "n_required_recommended_trials", "alpha_per_comparison")



#: the units of plan's human tables
NOTE_PLAN_UNITS = NoteKind("cli.plan-units", "info", "differences {scale}; n = items per model")
NOTE_PREDICTED_SE_POINTS = NoteKind("cli.plan-predicted-se-points", "info",
                                    "predicted_se in points (x100); --format json gives fractions")


@reads_input(after={"multiplicity": "models", "cost": "facets",
                    "fmt": "tasks weights drop_cols cluster source shape model_col task_col"
                           f" item_col score_col trial_col unbounded count_rule {LOG_INPUT}"})



def plan(
    effect: EffectOpt = None,
    baseline: BaselineOpt = None,
    correlation: CorrOpt = None,
    variance_difference: VarDiffOpt = None,
    sd: SdOpt = None,
    sd_b: SdBOpt = None,
    n: NOpt = None,
    power: PowerOpt = 0.8,
    alpha: AlphaOpt = 0.05,
    alternative: AltOpt = "two-sided",
    unpaired: UnpairedOpt = False,
    scores: ScoresOpt = "binary",
    method: MethodOpt = "t",
    confidence: ConfOpt = None,
    cluster_size: ClusterSizeOpt = None,
    icc: IccOpt = None,
    cluster_cv: CvOpt = 0.0,
    trials: TrialsOpt = None,
    output_variance: OutVarOpt = None,
    cost_ratio: CostOpt = None,
    comparisons: CompOpt = 1,
    multiplicity: MultOpt = "bonferroni",
    target_se: TargetSeOpt = None,
    cost: UnitCostOpt = None,
    fmt: PlanFormatOpt = "table",
    *,
    inputs: InputOptions,
):
    """Power, sample size and minimum detectable effect for comparing two models.

    Answers, in one sentence each, how many items (and trials) are needed to detect --effect, and what the
    evaluation can detect now (MDE at --n, or at the results file's item count). Differences are fractions.
    With a results file that has facets (prompt templates, judges, seeds) and --target-se (or --effect), lists
    the designs of items, facet levels and trials per cell that reach it, cheapest first (D-study).
    """
    from ..plan import plan_comparison

    with errors():
        if fmt not in ("table", "markdown", "json"):
            raise ArgumentError(f"`--format` must be one of 'table', 'markdown', 'json'; got {fmt!r}.")
        if target_se is not None or cost is not None:
            if inputs.path is None and inputs.example is None:
                raise ArgumentError("--target-se and --cost plan a design from a results file with facets; give the"
                                    " file")
            return _dstudy(inputs, target_se=target_se, effect=effect, power=power, alpha=alpha, cost=cost,
                           fmt=fmt)
        if effect is None:
            raise ArgumentError("give --effect, the difference to detect as a fraction (e.g. 0.03)")
        from .._validate import check_probability

        alpha = check_probability(alpha, "alpha")  # the test's level is 1 - alpha (the library's keyword)
        common = dict(power=power, confidence_level=round(1 - alpha, 12), alternative=alternative, method=method,
                      interval_level=parse_confidence(confidence), cost_ratio=cost_ratio, n_comparisons=comparisons,
                      multiplicity=multiplicity)
        if inputs.path is not None or inputs.example is not None:
            typed = {"--baseline": baseline, "--variance-difference": variance_difference, "--sd": sd,
                     "--n": n, "--cluster-size": cluster_size, "--icc": icc, "--output-variance": output_variance}
            given = [k for k, v in typed.items() if v is not None] + (["--unpaired"] if unpaired else [])
            if given:
                raise ArgumentError(f"{', '.join(given)} are estimated from the results file; drop them or drop the"
                                 " file")
            from ..plan import plan_from_pilot

            sel = inputs.selection()
            table = sel.table
            result = plan_from_pilot(sel, effect=effect, models=parse_list(inputs.models, name="models"),
                                     correlation=correlation, trials=trials, **common)
            header = f"Plan from {table.source}: {result.inputs['pilot']['model_a']} vs" \
                     f" {result.inputs['pilot']['model_b']}"
        else:
            for option, what, value in (("--models", "models", inputs.models), ("--tasks", "tasks", inputs.tasks),
                                        ("--weights", "task weights", inputs.weights)):
                if value is not None:
                    raise ArgumentError(f"{option} chooses {what} from a results file; none was given")
            sources = {k: "given" for k, v in dict(baseline=baseline, correlation=correlation,
                                                   variance_difference=variance_difference, sd_a=sd, sd_b=sd_b,
                                                   cluster_size=cluster_size, icc=icc,
                                                   output_variance=output_variance).items() if v is not None}
            result = plan_comparison(effect=effect, baseline=baseline, correlation=correlation,
                                     variance_difference=variance_difference, sd_a=sd, sd_b=sd_b, n=n,
                                     paired=not unpaired, score_kind=scores, cluster_size=cluster_size, icc=icc,
                                     cluster_cv=cluster_cv, trials=1 if trials is None else trials,
                                     output_variance=output_variance, sources=sources, **common)
            header = "Plan from typed numbers"
        if fmt == "json":  # the notes as records (in command-line words)
            from ..display import json_dumps

            out = result.to_dict()
            out.pop("notes", None)
            emit_json(json_dumps(out), result.notes)
            return
        emit(_text(result, header, fmt))


#: plan quantities that are differences on the score's scale (shown in points for proportions)
_DIFFERENCES = ("effect", "se_difference", "ci_low", "ci_high", "mde")


def _fmt(key: str, v, *, scale: float, decimals: int) -> str:
    """One plan quantity as text (the display module's rules: digits from the standard error, points for
    proportions, counts as integers)."""
    from ..display import format_short, format_signed, format_value

    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "unreachable"
    if key in ("n", "n_required", "trials", "recommended_trials", "n_required_recommended_trials",
               "clusters_required"):
        return f"{int(math.ceil(v)):,}"
    if key in ("power_at_n",):
        from ..display import format_percent

        return format_percent(v)  # as the sentence above the table says it
    if key in _DIFFERENCES:
        text = (format_signed if key in ("ci_low", "ci_high") else format_value)(v * scale, decimals)
        return text + (" points" if scale == 100 else "")
    return format_short(v) if key in ("design_effect", "effective_n", "alpha_per_comparison") else f"{v:.4g}"


def _text(result, header: str, fmt: str) -> str:
    from ..display import decimals_for, format_signed, format_value, text_table

    d = result.to_dict()
    binary = result.inputs.get("score_kind", "binary") in ("binary", "bounded")
    scale = 100.0 if binary else 1.0
    se = result.se_difference * scale
    decimals = decimals_for(se) if math.isfinite(se) and se > 0 else (1 if binary else 3)
    rows = [(k, _fmt(k, getattr(result, k), scale=scale, decimals=decimals)) for k in _SHOWN]
    src = result.inputs.get("sources", {})
    for k in ("baseline", "correlation", "sd_a", "sd_b", "cluster_size", "icc", "cluster_cv", "output_variance"):
        if d.get(k) is not None:
            rows.append((f"{k} ({src.get(k, 'given')})", f"{d[k]:.4g}"))
    pilot = result.inputs.get("pilot")
    if pilot:
        for k in ("mean_a", "mean_b", "difference", "se_difference", "correlation", "output_variance_a",
                  "output_variance_b", "design_effect_observed"):
            v = pilot.get(k)
            if v is not None and v == v:
                if k in ("mean_a", "mean_b", "difference", "se_difference"):  # the unit rule: points for proportions
                    pse = pilot.get("se_difference")
                    digits = decimals_for(pse * scale) if pse and pse == pse and pse > 0 else decimals
                    text = (format_signed if k == "difference" else format_value)(v * scale, digits)
                    rows.append((f"pilot {k}", text + (" points" if scale == 100 else "")))
                else:
                    rows.append((f"pilot {k}", f"{v:.4g}"))
        for k in ("n", "trials", "n_clusters"):
            rows.append((f"pilot {k}", f"{pilot[k]:,}"))
    notes = list(result.notes)
    notes.append(NOTE_PLAN_UNITS(scale="in points (0.04 = 4 points); --format json gives fractions" if binary else
                                 "on the score's own scale"))
    import textwrap

    from ..display import terminal_width

    width = terminal_width()
    parts = [header, "", *textwrap.wrap(result.sentence_required, width), *textwrap.wrap(result.sentence_detectable,
                                                                                        width), ""]
    parts.append(text_table(["quantity", "value"], rows, fmt, notes=notes))
    if result.inputs.get("output_variance") and result.trial_table is not None:
        from ..display import render

        parts.append(render(result.trial_table, fmt, value_cols=(), se_col=None,
                            title="Repeated trials: variance per item and items required"))
    return "\n".join(parts)


def parse_costs(text) -> dict | None:
    """``item=1,prompt=5,trial=0.2`` -> ``{'item': 1.0, 'prompt': 5.0, 'trial': 0.2}``."""
    if text is None:
        return None
    out = {}
    for part in parse_list(text, name="--cost"):
        name, sep, value = part.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not sep or not name.strip() or not number >= 0:
            raise ArgumentError(f"`--cost` must be unit=cost pairs such as item=1,prompt=5,trial=0.2; got {part!r}.")
        out[name.strip()] = number
    return out


NOTE_DESIGNS_REACH_TARGET_FIRST = NoteKind(
    'cli.designs-reach-target-first', 'info',
    '{n_frame} designs reach the target; the first 20 are shown (--format json lists all)')


def _dstudy(inputs, *, target_se, effect, power, alpha, cost, fmt):
    """--target-se (or --effect) with facets: the D-study designs, cheapest first."""
    from ..display import json_dumps, json_records, render, scale_for
    from ..facets import plan_design, variance_components

    if target_se is None and effect is None:
        raise ArgumentError("give --target-se (the standard error to reach) or --effect with the results file")
    sel = inputs.selection(weights=False)
    table = sel.table
    if not table.facets:
        raise ArgumentError("--target-se plans items, facet levels and trials: the file has no facet column (name"
                            " them with --facets prompt,...); for items and trials alone use --effect")
    vc = variance_components(sel, n_resamples=100, rng=0, differences=effect is not None)
    plan = plan_design(vc, target_se=target_se if effect is None else None, effect=effect, power=power,
                       confidence_level=1 - alpha, cost=parse_costs(cost))
    frame = plan.to_frame()
    pilot = ", ".join(f"{len(d.levels[k]):,} {f}{'s' if len(d.levels[k]) != 1 else ''}"
                      for d in vc.design.designs[:1] for k, f in enumerate(d.factors))
    se_now = float(max(vc.se_random.max(), 0.0))
    scale = scale_for(table.score_kind)  # the unit rule: points for proportions (fractions in JSON)
    now = se_now * (scale if fmt != "json" else 1.0)
    now_text = f"{now:.2g}" + (" points" if scale == 100 and fmt != "json" else "")
    notes = list(plan.notes) + [f"pilot ({table.source}): {pilot}; largest standard error of a model's mean now"
                                f" {now_text} with facets random; designs judged by {plan.basis}",
                                "item = items in total, a facet = its levels, trials = per cell; predicted_se"
                                " assumes a balanced design from the same populations as the pilot"]
    if fmt == "json":
        emit_json(json_dumps({"target_se": plan.target_se, "effect": plan.effect, "power": plan.power,
                              "basis": plan.basis, "se_now": se_now, "designs": json_records(frame)}), notes)
        return
    value = plan.target_se * scale
    target_text = f"{value:.3g}" + ((" point" if value == 1 else " points") if scale == 100 else "")
    head = (f"Designs that reach a standard error of {target_text}"
            + (f" (an effect of {effect:g} at power {power:g})" if effect is not None else "")
            + (", cheapest first" if cost else ", fewest responses first"))
    shown = frame.head(20)
    if len(frame) > 20:
        notes.append(NOTE_DESIGNS_REACH_TARGET_FIRST(n_frame=len(frame)))
    if scale == 100:
        notes.insert(0, NOTE_PREDICTED_SE_POINTS())
    emit(render(shown, fmt, value_cols=("predicted_se",), se_col=None, scale=scale, title=head,
                notes=notes))
