"""``evalband passk``: pass@k (any of k samples correct) and pass^k (all k correct) per model and task."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ._common import (LOG_INPUT, ConfidenceOpt, FormatOpt, InputOptions, emit, errors, parse_confidence, parse_list,
                      reads_input)
from .._validate import ArgumentError

KOpt = Annotated[str, typer.Option("--k", "-k", help="Comma-separated k values, e.g. 1,5,10 (each at most the"
                                   " number of samples per item).")]


@reads_input(after={"fmt": f"source shape model_col task_col item_col score_col trial_col models tasks weights"
                           f" drop_cols {LOG_INPUT}"})
def passk(
    k: KOpt = "1",
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    *,
    inputs: InputOptions,
):
    """pass@k and pass^k per model and task, averaged over items, with standard errors across items.

    The input needs several 0/1 samples per item: an item-level table with a trial column (e.g. tau-bench
    rewards: --item-col task_id --score-col reward).
    """
    from ..estimation import passk as passk_estimate
    from ..report.format import FORMATS, render

    with errors():
        if fmt not in FORMATS:
            raise ArgumentError(f"`--format` must be one of {', '.join(FORMATS)}; got {fmt!r}.")
        ks = parse_list(k, cast=int, name="--k")
        if not ks:
            raise ArgumentError("`--k` must list at least one value, e.g. --k 1,5,10.")
        result = passk_estimate(inputs.selection(), k=ks, confidence_level=parse_confidence(confidence))
        frame = result.to_frame().drop(columns="method")
        notes = list(result.notes) + [f"{result.pass_at_k.confidence_level:.1%} t intervals over items;"
                                      " pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k), per item then"
                                      " averaged"]
        if fmt in ("table", "markdown"):
            emit(render(frame, fmt, notes=notes))
        else:
            emit(render(frame, fmt))
            for note in notes:
                sys.stderr.write(f"note: {note}\n") if fmt != "latex" else emit(f"% note: {note}")
