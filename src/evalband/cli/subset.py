"""``evalband subset``: evaluate a new model on a random subset of a benchmark's items.

``subset next REFERENCE [NEW] --target-se 0.01 | --against MODEL`` runs the evaluation in a seeded random order
and says when to stop. ``subset choose REFERENCE --budget 200 -o items.csv`` draws the items (``task, item, inclusion_prob``, with the
stratum and the order to evaluate them in); ``subset estimate REFERENCE NEW [--items items.csv]`` gives the new
model's full-benchmark score, design-based and prediction-assisted, with intervals. A thin layer over
:mod:`evalband.subset`.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Optional

import typer

from ._common import (emit_json, ConfidenceOpt, FormatOpt, InputOptions, SeedOpt, WideOpt, errors, note_lines,
                      output_format, parse_confidence, reads_input, resolve_seed, show)
from .compare import MarginOpt, parse_margin
from ..display.notes import NoteKind

BudgetOpt = Annotated[int, typer.Option("--budget", help="Items to draw.")]
MethodOpt = Annotated[str, typer.Option(
    "--method", help="random (a simple random sample), stratified (tasks x reference-difficulty bins, Neyman"
                     " allocation from the reference models' variance) or anchors (tinyBenchmarks' anchor points"
                     " beside a simple random sample; the anchors' estimates have no valid interval).")]
AnchorsOpt = Annotated[Optional[int], typer.Option(
    "--anchors", help="With --method anchors: the anchor points (default half the budget; the random sample has the"
                      " rest).")]
BinsOpt = Annotated[Optional[int], typer.Option("--bins", help="Difficulty bins per task of the stratified design"
                                                               " (default: up to 4 that the budget allows).")]
OutputOpt = Annotated[Optional[str], typer.Option("--output", "-o", help="CSV file to write the chosen items to"
                                                                         " (default: print them).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Write -o through a symbolic link.")]
NewArg = Annotated[Optional[str], typer.Argument(
    metavar="NEW", help="Item-level results of the new model(s) on the items evaluated.", show_default=False)]
ItemsOpt = Annotated[Optional[str], typer.Option(
    "--items", help="The items file `subset choose` wrote (task, item, inclusion_prob[, stratum]); default: the"
                    " evaluated items taken as a simple random sample.")]
AgainstOpt = Annotated[Optional[str], typer.Option(
    "--against", help="A reference model: also estimate each new model's difference from it, with a verdict.")]
#: the estimate's columns: the contract's JSON fields first
ESTIMATE_FIELDS = ("model", "method", "estimate", "ci_low", "ci_high", "se", "n_evaluated", "n_items", "effective_n",
                   "df", "confidence_level")


NOTE_ITEMS_WRITTEN = NoteKind('cli.subset-items-written', 'info', '{value:,} items written to {output}')


@reads_input("path example models tasks")
def choose(
    budget: BudgetOpt = 200,
    method: MethodOpt = "random",
    bins: BinsOpt = None,
    anchors: AnchorsOpt = None,
    seed: SeedOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Draw BUDGET items of the benchmark in REFERENCE (item-level results of earlier models) at random, each with
    its inclusion probability: task, item, inclusion_prob, stratum, order (evaluate them in this order)."""
    with errors(n_bins="--bins", n_anchors="--anchors"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        from ..subset import choose as run

        result = run(inputs.selection(weights=False), budget, method=method, n_bins=bins, n_anchors=anchors,
                     rng=seed)
        frame = result.to_frame()
        notes = [result.headline(), *result.notes, seed_text]
        if output is not None:
            from .._files import check_output, write_atomic
            from ..display import to_csv
            from ..io.folders import input_files

            target = check_output(output, inputs=input_files(inputs.path), force=force, what="the items file")
            write_atomic(target, to_csv(frame))
            note_lines([*notes, NOTE_ITEMS_WRITTEN(value=len(frame), output=output)])
            return
        show(frame, fmt, notes=notes, title="items", se_col=None,
             value_cols=("inclusion_prob", "anchor_weight") if "anchor_weight" in frame else ("inclusion_prob",))


@reads_input("path example models tasks")
def estimate(
    new: NewArg = None,
    items: ItemsOpt = None,
    against: AgainstOpt = None,
    margin: MarginOpt = "0",
    confidence: ConfidenceOpt = "0.95",
    seed: SeedOpt = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """The full-benchmark score of the model(s) in NEW, evaluated on a random subset of the items of REFERENCE:
    design-based and prediction-assisted estimates with intervals, the items evaluated and effective_n (the items
    a simple random sample would need for the same standard error)."""
    with errors(confidence_level="--confidence", against="--against"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        from ..display import json_records, to_json
        from ..subset import estimate as run

        if new is None and inputs.example is not None and inputs.path is not None:  # --example REFERENCE and NEW
            new, inputs = inputs.path, dataclasses.replace(inputs, path=None)
        if new is None:
            from .._validate import ArgumentError
            raise ArgumentError("`subset estimate` needs REFERENCE (or --example) and NEW, the new model's results.")
        reference = inputs.selection(weights=False)
        new_table = dataclasses.replace(inputs, path=new, example=None, models=None, tasks=None).read()
        result = run(reference, new_table, items=items, against=against, margin=parse_margin(margin),
                     confidence_level=parse_confidence(confidence), rng=seed)
        frame = result.to_frame()
        frame = frame[[c for c in ESTIMATE_FIELDS if c in frame.columns]]
        diffs = result.differences_frame()
        anchor_est = result.anchors_frame()
        notes = [result.headline(), *result.notes, seed_text]
        if fmt == "json":
            extra = {} if diffs is None else {"differences": json_records(diffs)}
            if anchor_est is not None:
                extra["anchor_estimates"] = json_records(anchor_est)
            emit_json(to_json(frame, design=result.design, **extra), notes)
            return
        if fmt == "csv":
            show(frame, fmt, notes=notes)
            for extra_frame in (diffs, anchor_est):
                if extra_frame is not None:
                    show(extra_frame, fmt)
            return
        last = "anchors" if anchor_est is not None else "diffs" if diffs is not None else "frame"
        show(frame, fmt, notes=notes if last == "frame" else (), title="full-benchmark score",
             value_cols=("estimate", "se", "ci_low", "ci_high"))
        if diffs is not None:
            show(diffs, fmt, notes=notes if last == "diffs" else (), title=f"difference from {against}",
                 value_cols=("difference", "se", "ci_low", "ci_high"))
        if anchor_est is not None:  # point estimates beside the design-based ones, said to have no interval
            show(anchor_est, fmt, notes=notes, title="anchor point estimates (tinyBenchmarks)",
                 se_col=None, value_cols=("estimate",))


TargetSeOpt = Annotated[Optional[float], typer.Option(
    "--target-se", help="Stop when the prediction-assisted standard error is at most this (0.01 = one point).")]
BatchOpt = Annotated[int, typer.Option("--batch", help="Items per look.")]
NextOutputOpt = Annotated[Optional[str], typer.Option("--output", "-o", help="CSV file to write the next items to"
                                                                             " (default: print them).")]


NOTE_NO_RESULTS_YET = NoteKind('cli.subset-no-results-yet', 'info',
                               'no results yet: the first items to evaluate')


NOTE_ITEMS_NEXT = NoteKind('cli.subset-items-next', 'info',
                           '{value} items next')


@reads_input("path example models tasks")
def next_(
    new: NewArg = None,
    target_se: TargetSeOpt = None,
    against: AgainstOpt = None,
    margin: MarginOpt = "0",
    batch: BatchOpt = 20,
    confidence: ConfidenceOpt = "0.95",
    seed: SeedOpt = None,
    output: NextOutputOpt = None,
    force: ForceOpt = False,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Evaluate until decided: the items of REFERENCE in an order the seed fixes; given the results so far in NEW
    (the first items of that order; none yet: give no NEW), say whether to stop (--target-se reached, or the
    difference from --against decided by an anytime-valid confidence sequence, so looking after every batch is
    allowed) and which items to run next. Keep the same --seed at every look."""
    with errors(confidence_level="--confidence", target_se="--target-se", against="--against"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        from ..subset import Subset

        if new is None and inputs.example is not None and inputs.path is not None:
            new, inputs = inputs.path, dataclasses.replace(inputs, path=None)
        run = Subset(inputs.selection(weights=False), target_se=target_se, against=against,
                     margin=parse_margin(margin), batch=batch, confidence_level=parse_confidence(confidence),
                     rng=seed)
        if new is None:
            frame, notes = run.next_items(), [NOTE_NO_RESULTS_YET(), seed_text]
        else:
            decision = run.update(dataclasses.replace(inputs, path=new, example=None, models=None, tasks=None).read())
            if fmt == "json":
                from ..display import json_records, to_json

                emit_json(to_json(decision.to_frame(), next_items=json_records(decision.next_items)),
                          [decision.headline(), seed_text])
                return
            show(decision.to_frame(), fmt, notes=[decision.headline()], title="decision",
                 value_cols=("estimate", "se", "ci_low", "ci_high"))
            frame, notes = decision.next_items, [NOTE_ITEMS_NEXT(value=len(decision.next_items)), seed_text]
        if output is not None:
            from .._files import check_output, write_atomic
            from ..display import to_csv
            from ..io.folders import input_files

            target = check_output(output, inputs=input_files(inputs.path), force=force, what="the items file")
            write_atomic(target, to_csv(frame))
            note_lines([*notes, NOTE_ITEMS_WRITTEN(value=len(frame), output=output)])
            return
        show(frame, fmt, notes=notes, title="next items", se_col=None, value_cols=())


#: the command group (registered in :data:`evalband.cli.main.COMMANDS`)
subset = typer.Typer(name="subset", help="Evaluate on a random subset of a benchmark's items: choose the items,"
                                         " estimate the full-benchmark score with a valid interval.",
                     no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                     rich_markup_mode=None, context_settings={"max_content_width": 120})
subset.command("choose")(choose)
subset.command("estimate")(estimate)
subset.command("next")(next_)
