"""``evalband gate``: a release gate for CI pipelines (paired non-inferiority of a candidate run).

Exit codes: 0 pass (non-inferior within the margin), 1 fail (a decided regression beyond the margin),
3 undecided (the output says how many more items would decide it), 2 usage or input error.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Optional

import typer

from ._common import (ConfidenceOpt, InputOptions, check_input_path, emit, emit_json, errors, note_lines, parse_confidence,
                      parse_list, reads_input)
from .compare import parse_margin
from .._validate import ArgumentError

BaselineArg = Annotated[str, typer.Argument(help="Baseline results file (or log folder).", show_default=False)]
CandidateArg = Annotated[str, typer.Argument(help="Candidate results file (or log folder), same items.",
                                             show_default=False)]
MetricGateOpt = Annotated[Optional[str], typer.Option(
    "--metric", help="The per-item score to compare: a column of a results table (default 'score'), or a"
                     " harness log's metric.", show_default=False)]
MarginOpt = Annotated[str, typer.Option("--margin", help="Largest acceptable drop, on the score scale (0.01 or"
                                        " '1%' = one point).")]
GateMethodOpt = Annotated[str, typer.Option("--method", help="t (paired t; cluster-robust with clusters) or"
                                            " betting (anytime-valid: safe to re-run as items accumulate).")]
ModelOpt = Annotated[Optional[str], typer.Option("--model", "--models", help="Model to take when a file holds"
                                                 " several: NAME for both, or BASELINE,CANDIDATE.",
                                                 show_default=False)]
GateFormatOpt = Annotated[str, typer.Option("--format", "-f", help="Output: line (one line) or json.")]
GateSeedOpt = Annotated[int, typer.Option("--seed", help="--method betting: seed of the order in which items are"
                                          " taken (a permutation of the canonically sorted items); default 0, as in"
                                          " every command.")]


def _tabular(path: str, source: str) -> bool:
    from ..io.tabular import TABULAR_SUFFIXES

    if source != "auto":
        return source in ("csv", "tsv", "parquet", "jsonl", "json", "table")
    return any(s.lower() in TABULAR_SUFFIXES for s in Path(path).suffixes[-2:])  # also x.csv.gz


@reads_input("", after={"fmt": "tasks drop_cols cluster source shape model_col task_col item_col score_col trial_col"
                             " group_col unbounded"})


def gate(
    baseline: BaselineArg,
    candidate: CandidateArg,
    metric: MetricGateOpt = None,
    margin: MarginOpt = "0.01",
    confidence: ConfidenceOpt = "0.95",
    method: GateMethodOpt = "t",
    model: ModelOpt = None,
    fmt: GateFormatOpt = "line",
    seed: GateSeedOpt = 0,
    *,
    inputs: InputOptions,
):
    """Compare a candidate run with a baseline run on the same items; exit 0 pass, 1 fail, 3 undecided.

    Pass: the interval for candidate - baseline lies above -margin (non-inferior). Fail: it lies below -margin
    (a decided regression). Undecided: it contains -margin; the line says how many more items would decide it.
    Exit code 2 means a usage or input error.
    """
    with errors():
        for path in (baseline, candidate):
            check_input_path(path)  # before the heavy imports
    from ..plan import release_gate

    with errors():
        if fmt not in ("line", "json"):
            raise ArgumentError(f"`--format` must be 'line' or 'json'; got {fmt!r}.")
        if metric is not None and inputs.score_col != "score":
            raise ArgumentError("give the score column once: --score-col or --metric")
        tables = []
        for path in (baseline, candidate):
            # --metric is a column of a results table, or a harness log's metric
            score = {} if metric is None else {"score_col" if _tabular(path, inputs.source) else "metric": metric}
            tables.append(dataclasses.replace(inputs, path=path, **score).read())
        chosen = parse_list(model, name="model")
        result = release_gate(tables[0], tables[1], margin=parse_margin(margin), confidence_level=parse_confidence(confidence),
                              method=method, models=chosen, tasks=parse_list(inputs.tasks, name="tasks"), rng=seed)
        # below the line, on stderr: the means, what was left out, assumed, which estimator
        if fmt == "json":  # the notes as records (in command-line words), and on stderr
            from ..display import json_dumps

            out = result.to_dict()
            out.pop("notes", None)
            emit_json(json_dumps(out), [result.means_text, *result.notes])
        else:
            emit(result.message)
            note_lines([result.means_text, *result.notes])
    raise typer.Exit(result.exit_code)
