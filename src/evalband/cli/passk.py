"""``evalband passk``: pass@k (any of k samples correct) and pass^k (all k correct) per model and task."""

from __future__ import annotations

from typing import Annotated

import typer

from ._common import (POINTS, LOG_INPUT, ConfidenceOpt, FormatOpt, InputOptions, WideOpt, errors, output_format,
                      parse_confidence, parse_list, reads_input, show)
from .._validate import ArgumentError
from ..display.notes import NoteKind

KOpt = Annotated[str, typer.Option("--k", "-k", help="Comma-separated k values, e.g. 1,5,10 (each at most the"
                                   " number of samples per item).")]


NOTE_PASSK_INTERVALS = NoteKind('cli.passk-intervals', 'info',
                                '{value} t intervals over items; pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k), per item then averaged')


@reads_input(after={"fmt": f"source shape model_col task_col item_col score_col trial_col models tasks weights"
                           f" drop_cols {LOG_INPUT}"})
def passk(
    k: KOpt = "1",
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """pass@k and pass^k per model and task, averaged over items, with standard errors across items.

    The input needs several 0/1 samples per item: an item-level table with a trial column (e.g. tau-bench
    rewards: --item-col task_id --score-col reward).
    """
    from ..display import format_level
    from ..estimation import passk as passk_estimate

    with errors():
        fmt = output_format(fmt, wide)
        ks = parse_list(k, cast=int, name="--k")
        if not ks:
            raise ArgumentError("`--k` must list at least one value, e.g. --k 1,5,10.")
        result = passk_estimate(inputs.selection(), k=ks, confidence_level=parse_confidence(confidence))
        frame = result.to_frame().drop(columns="method")
        level = result.pass_at_k.confidence_level
        notes = list(result.notes) + [NOTE_PASSK_INTERVALS(value=format_level(level))]
        if fmt not in ("csv", "json"):
            notes.insert(0, POINTS())
            frame = frame.assign(confidence_level=level)
        show(frame, fmt, notes=notes, scale=100.0)
