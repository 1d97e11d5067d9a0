"""``evalband frontier``: quality against cost per model, the Pareto frontier, who is dominated with confidence,
the decision table for a pair and the cheapest model decidedly above a quality level.

A thin layer over :func:`evalband.costs.frontier`: the results (or battles) are selected by the library's
:func:`evalband.select`, a per-model cost file (``--costs``) is read with ``source='costs'``, and the tables come
from the result's ``display_table()``.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Optional

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, SeedOpt, WideOpt, emit, emit_json, errors,
                      note_lines, output_format, parse_confidence, parse_list, reads_input, resolve_seed)
from ._common import ATTRIBUTION, SEED_REPLICATES
from .compare import AggregateOpt, MarginOpt, parse_margin
from ._common import NResamplesOpt, n_resamples_for
from .._validate import ArgumentError
from ..display.notes import NoteKind

MinQualityOpt = Annotated[Optional[str], typer.Option(
    "--min-quality", help="Also name the cheapest model whose quality is decidedly above this level, on the"
                          " quality's scale (0.7 or '70%' = 70 points of accuracy; a rating for battles).",
    show_default=False)]
CostsOpt = Annotated[Optional[str], typer.Option(
    "--costs", help="Per-model costs in a file of their own: one row per model (model, cost and se, or sd and n;"
                    " neither: exact prices) or one row per response (model, item or prompt, cost and / or"
                    " latency). --cost-col and --latency-col name its columns.", show_default=False)]
CostsModelColOpt = Annotated[str, typer.Option("--costs-model-col", help="--costs file: the model column.")]
CostsItemColOpt = Annotated[Optional[str], typer.Option(
    "--costs-item-col", help="--costs file: what each response answered (default item, question_id, question,"
                             " prompt_id or prompt, when present).", show_default=False)]
PairOpt = Annotated[Optional[str], typer.Option(
    "--pair", help="The decision table for two models of the frontier, A,B (default: with two --models, those)."
                   " With battles, all battles stay in the ratings.", show_default=False)]
RatingOpt = Annotated[str, typer.Option(
    "--rating", help="Battles: the arena rating used as quality: bt (Bradley-Terry, Elo scale), rao-kupper,"
                     " davidson, elo or win-rate.")]

#: options that make a file a results table (the battle reader takes none of them)
_RESULTS_OPTIONS = ("shape", "model_col", "task_col", "item_col", "score_col", "trial_col", "group_col", "unbounded",
                    "count_rule", "drop_cols", "accuracy_scale", "metric", "filter_", "split", "baselines",
                    "human_col", "facets", "cluster")


NOTE_QUALITY_POINTS_X100_JSON = NoteKind('cli.quality-points-x100-json', 'info',
                                          'quality in points (x100); JSON and CSV give fractions')


@reads_input("path example models tasks",
             after={"aggregate": "weights", "costs_item_col": "cost_col latency_col",
                    "fmt": f"{TABLE_INPUT} cluster", "rating": LOG_INPUT})


def frontier(
    aggregate: AggregateOpt = "mean",
    margin: MarginOpt = "0",
    min_quality: MinQualityOpt = None,
    pair: PairOpt = None,
    costs: CostsOpt = None,
    costs_model_col: CostsModelColOpt = "model",
    costs_item_col: CostsItemColOpt = None,
    n_resamples: NResamplesOpt = None,
    seed: SeedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    rating: RatingOpt = "bt",
    *,
    inputs: InputOptions,
):
    """Quality against cost: per model the quality and the mean cost per item with intervals (BCa for costs),
    latency median and p95, the Pareto frontier, and which models are dominated with confidence (decidedly no
    worse, within --margin, and decidedly cheaper; Holm over the ordered pairs) and by which.

    With two --models (or --pair A,B) also the decision table of the pair (quality difference and verdict, cost
    ratio, latency difference) and its plain sentence; with --min-quality the cheapest model decidedly above that
    level.
    FILE holds item-level results with a cost column (--cost-col), or pairwise battles (quality = their arena
    rating) with per-battle columns COST_a / COST_b or a --costs file.
    """
    with errors(cost="--cost-col", latency="--latency-col", min_quality="--min-quality", quality="--min-quality"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        level = parse_confidence(confidence)
        sel, cost, latency = _inputs(inputs, costs, costs_model_col, costs_item_col)
        from ..data.battles import BattleTable
        from ..costs import frontier as run

        battles = isinstance(sel.table, BattleTable)
        # the replicate rule: re-averaged scores, or arena ratings refitted in every replicate
        n_resamples = n_resamples_for("refit" if battles else "average", n_resamples)
        if not battles and rating != "bt":
            raise ArgumentError("`--rating` applies to pairwise battles; FILE holds results (use --aggregate)")
        result = run(sel, cost=cost, latency=latency, aggregate=aggregate, margin=parse_margin(margin),
                     min_quality=_level(min_quality), n_resamples=n_resamples, confidence_level=level, rng=seed,
                     arena_options={"model": rating} if battles else None)
        chosen = parse_list(pair, name="pair") if pair is not None else parse_list(inputs.models, name="models")
        if pair is not None and len(chosen) != 2:
            raise ArgumentError(f"`--pair` must name two models, A,B; got {pair!r}")
        decision = result.decision(*chosen) if chosen is not None and len(chosen) == 2 else None
        notes = list(result.readings()) + ([decision.sentence] if decision is not None else [])
        if result.scale == 100 and fmt not in ("csv", "json"):
            notes.append(NOTE_QUALITY_POINTS_X100_JSON())
        notes += [n for n in result.notes if n not in notes]
        notes.append(SEED_REPLICATES(seed_text=seed_text, n_resamples=n_resamples))
        attribution = getattr(sel.table, "attribution", None)
        if attribution:
            notes.append(ATTRIBUTION(attribution=attribution))
        _print(result, decision, fmt, notes)


def _level(text):
    """``--min-quality`` text -> a number ('70%' -> 0.7); None stays None."""
    if text is None:
        return None
    text = str(text).strip()
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise ArgumentError(f"`--min-quality` must be a number such as 0.7 or '70%'; got {text!r}.") from None


def _inputs(inputs: InputOptions, costs, costs_model_col, costs_item_col):
    """``(selection, cost, latency)`` for the library: the selection of FILE (results or battles), and the cost and
    latency it should use (measure names, or the cost table of --costs)."""
    from ..io import BATTLE_SOURCES
    from ..io.battles import looks_like_battles
    from ..selection import select

    cost_col, latency_col = inputs.cost_col, inputs.latency_col
    per_model = None
    if costs is not None:
        per_model = select(costs, source="costs", model_col=costs_model_col, item_col=costs_item_col,
                           cost_col=cost_col, latency_col=latency_col)
        inputs = dataclasses.replace(inputs, cost_col=None, latency_col=None)  # their columns are --costs' columns
    source = inputs.source
    path = inputs.path
    is_battles = source in BATTLE_SOURCES or (
        source == "auto" and path not in (None, "-") and inputs.example is None
        and not inputs.changed(*_RESULTS_OPTIONS) and looks_like_battles(path))
    models = parse_list(inputs.models, name="models")
    if is_battles:
        if inputs.tasks is not None or inputs.weights is not None:
            raise ArgumentError("battles have models, not tasks or weights: `--tasks` and `--weights` apply to"
                                " results")
        sel = select(path, models=models, source=source if source != "auto" else "auto")
        if per_model is not None:
            return sel, per_model.table, None  # the cost file's latency when it has one
        return sel, cost_col or "cost", latency_col
    sel = inputs.selection()
    if per_model is not None:
        return sel, per_model.table, False
    measures = getattr(sel.table, "measures", ())
    if "cost" not in measures:
        named = f"no column '{cost_col}'" if cost_col else "no 'cost' column"
        raise ArgumentError(f"{inputs.path or inputs.example}: {named} to read costs from; name the column with"
                            " --cost-col COLUMN, or give per-model costs with --costs FILE")
    return sel, "cost", "latency" if "latency" in measures else False


def _print(result, pair, fmt, notes):
    from ..display import json_dumps, json_records, render, to_csv, to_json

    frame = result.to_frame()
    if fmt in ("csv", "json"):
        if fmt == "csv":
            frame = frame.assign(dominated_by=[";".join(d) for d in frame["dominated_by"]])
            emit(to_csv(frame))
        elif pair is None and result.reach is None:
            emit_json(to_json(frame), notes)
            return
        else:
            extra = {}
            if pair is not None:
                extra["decision"] = {"model_a": pair.model_a, "model_b": pair.model_b, "sentence": pair.sentence,
                                     "rows": pair.to_frame().to_dict(orient="records")}
            if result.reach is not None:
                r = result.reach
                extra["reach"] = {"min_quality": r.min_quality, "cheapest": r.cheapest,
                                  "qualified": list(r.qualified), "sentence": r.sentence}
            emit_json(json_dumps({**extra, "records": json_records(frame)}), notes)
            return
        note_lines(notes)
        return
    shown, value_cols, title = result.display_table(wide=fmt != "table")
    keep = ("model", "frontier")
    if pair is None:
        emit(render(shown, fmt, value_cols=value_cols, title=title, notes=notes, keep=keep))
        return
    emit(render(shown, fmt, value_cols=value_cols, title=title, keep=keep))
    table, value_cols, title = pair.display_table()
    emit(render(table, fmt, value_cols=value_cols, title=title, notes=notes))
