"""``evalband items``: item diagnostics for a benchmark maintainer: per item the 2PL difficulty and
discrimination with intervals, the item-total correlation and flags in words (likely wrong answer key, saturated,
near-duplicate response pattern), flagged items first; per task where on the ability scale it discriminates.

A thin layer over :func:`evalband.items` on item-level results (``model, task, item, score``; models may have
answered different items).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ._common import (emit_json, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, NResamplesOpt, SeedOpt, WideOpt, errors, output_format, parse_confidence, reads_input, resolve_seed, show,
                      n_resamples_for)
from ..display.notes import NoteKind

ItemModelOpt = Annotated[str, typer.Option(
    "--model", help="Item response model: 2pl (a difficulty and a discrimination per item) or rasch (every"
                    " discrimination 1).")]
FlaggedOpt = Annotated[bool, typer.Option("--flagged", help="Show only the flagged items (every item in JSON and"
                                                           " CSV).")]
TaskTableOpt = Annotated[bool, typer.Option(
    "--task-table", help="Also show each task's information summary (always in JSON).")]

#: the items' columns: the contract's JSON fields first
ITEM_COLUMNS = ("task", "item", "difficulty", "difficulty_ci_low", "difficulty_ci_high", "discrimination",
                "discrimination_ci_low", "discrimination_ci_high", "item_total", "p_correct", "n_models",
                "information", "flag")


NOTE_ITEMS_FLAGGED_FLAGGED_SHOWS = NoteKind('cli.items-flagged-flagged-shows', 'caveat',
                                             '{n_shown:,} of {n_frame:,} items flagged (--flagged shows only them)')


@reads_input("path example models tasks", after={"fmt": TABLE_INPUT})
def items(
    model: ItemModelOpt = "2pl",
    flagged: FlaggedOpt = False,
    task_table: TaskTableOpt = False,
    n_resamples: NResamplesOpt = None,
    seed: SeedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Item diagnostics (item-level FILE): 2PL difficulty and discrimination with intervals, item-total
    correlation and flags, flagged items first.

    Flags: negative discrimination (a likely wrong answer key when its whole interval is below 0), saturated
    (every model right or every model wrong: no information at these abilities), near-duplicate response
    patterns. Intervals from the observed information; --n-resamples draws of the abilities give their ranks.

    A saturated item has no difficulty estimate (its fit rests on the prior): the table shows its difficulty as
    "> x" (every model wrong: above the highest ability measured) or "< x" (every model right: below the lowest);
    JSON and CSV give difficulty and discrimination null, difficulty_bound "above" or "below", and x as
    difficulty_ci_low or difficulty_ci_high (the other end null).
    """
    with errors(model="--model", n_draws="--n-resamples"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        from ..display import json_records, to_json
        from ..latent import items as run
        from ..latent.diagnostics import flag_rank

        result = run(inputs.selection(weights=False), model=model, confidence_level=parse_confidence(confidence),
                     n_draws=n_resamples_for("refit", n_resamples), rng=seed)
        frame = result.to_frame()
        frame = frame[[c for c in ITEM_COLUMNS if c in frame.columns]
                      + [c for c in frame.columns if c not in ITEM_COLUMNS]]
        tasks = result.tasks_frame()
        notes = [result.headline(), *result.notes, seed_text]
        if fmt == "json":
            emit_json(to_json(frame, latent_model=result.model, confidence_level=result.confidence_level,
                              converged=bool(result.converged), tasks=json_records(tasks),
                              abilities=json_records(result.abilities_frame())), notes)
            return
        if fmt == "csv":
            show(frame, fmt, notes=notes)
            return
        shown = frame[frame["flag"] != ""] if flagged else frame
        # flagged items first, the likely wrong keys at the top (the order of the report's items section)
        shown = shown.iloc[sorted(range(len(shown)), key=lambda i: flag_rank(shown["flag"].iloc[i]))]
        if flagged:
            notes.append(NOTE_ITEMS_FLAGGED_FLAGGED_SHOWS(n_shown=len(shown), n_frame=len(frame)))
        # a saturated item's difficulty reads '> x' / '< x' in its interval column (difficulty_bound in JSON and CSV)
        # (the level heads the interval columns: 'difficulty 95% CI')
        shown = shown.drop(columns=[c for c in ("difficulty_bound",) if c in shown.columns])
        show(shown, fmt, notes=() if task_table else notes, title="items", se_col=None,
             value_cols=("difficulty", "difficulty_ci_low", "difficulty_ci_high", "discrimination",
                         "discrimination_ci_low", "discrimination_ci_high", "item_total", "p_correct",
                         "information"))
        if task_table:
            show(tasks, fmt, notes=notes, title="tasks", se_col=None, value_cols=())
