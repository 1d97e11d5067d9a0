"""``evalband compare``: every pairwise difference of an aggregate, with intervals, p-values and verdicts."""

from __future__ import annotations

from typing import Annotated

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, SchedulerOpt, ThreadsOpt, SeedOpt,
                      WideOpt, errors, executor_for, output_format, parse_confidence, reads_input, resolve_seed,
                      show, FixedOpt, parse_fixed, NResamplesOpt, n_resamples_for)
from ._common import ATTRIBUTION, POINTS, SEED_REPLICATES
from ._judges import PpiOpt, ppi_line, ppi_records
from .._validate import ArgumentError
from ..display.notes import NoteKind

AggregateOpt = Annotated[str, typer.Option(
    "--aggregate", help="Aggregate over tasks: mean, geometric, harmonic, minmax, mean-rank, win-rate, median, iqm,"
                        " binned-rank:WIDTH, optimality-gap:GAMMA, chance-normalized:CHANCE,"
                        " probability-of-improvement:BASELINE (comma-separated for several).")]
ResamplingOpt = Annotated[str, typer.Option(
    "--resampling", help="paired (same items for every model; item data) or independent; summary data are"
                         " always resampled independently (binomially). Default: auto.")]
IntervalOpt = Annotated[str, typer.Option("--interval", help="Bootstrap interval: percentile, basic or bca.")]
CorrectionOpt = Annotated[str, typer.Option(
    "--correction", help="Multiple comparisons: none, bonferroni, holm, bh (Benjamini-Hochberg) or max-t"
                         " (simultaneous bootstrap intervals).")]
MarginOpt = Annotated[str, typer.Option(
    "--margin", help="Practical margin for verdicts, on the score scale (0.01 or '1%' = one point): 'A better'"
                     " needs the whole interval beyond it, 'equivalent' the whole interval within it; otherwise the"
                     " reading says what is decided (e.g. better, but not by more than the margin).")]


def parse_margin(text) -> float:
    text = str(text).strip()
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise ArgumentError(f"`--margin` must be a number such as 0.01 or '1%'; got {text!r}.") from None


def row_scales(frame, scales):
    """Each row's display multiplier from its aggregate (points for accuracy-like aggregates of proportions, 1 for
    rank-based aggregates and unbounded scores): ``--aggregate mean,mean-rank`` shows each on its own scale."""
    return frame["aggregate"].map(dict(scales)).fillna(1.0).to_numpy(dtype=float)


def points_note(scales) -> str | None:
    """The note saying which values are in points (human formats only)."""
    hundred = [a for a, s in scales if s == 100.0]
    if not hundred:
        return None
    rest = [a for a, s in scales if s != 100.0]
    if not rest:
        return POINTS()
    return NOTE_POINTS_AND_OWN_SCALE(hundred=", ".join(hundred), rest=", ".join(rest),
                                     its="its" if len(rest) == 1 else "their")


NOTE_POINTS_AND_OWN_SCALE = NoteKind("cli.points-and-own-scale", "info",
                                     "{hundred} in points (x100); {rest} on {its} own scale; JSON and CSV give fractions")


#: pairs above which the default table shows only neighbours in the ranking and undecided pairs
FULL_TABLE_PAIRS = 45
#: readings printed by default (undecided pairs and neighbours first)
READINGS_SHOWN = 10
#: rows of the default table at most (a leaderboard of hundreds of models has thousands of open pairs): the
#: neighbours and open pairs of the models at the top of the ranking
ROWS_SHOWN = 60


def pairs_shown(pc, order, *, all_pairs: bool):
    """Rows of the pairwise table to show: all (few pairs, or ``--all-pairs``), else neighbours in the ranking
    and the pairs not yet decided, from the top of the ranking down, at most :data:`ROWS_SHOWN`."""
    import numpy as np

    n = len(pc.verdict)
    if all_pairs or n <= FULL_TABLE_PAIRS:
        return np.arange(n)
    rows = np.flatnonzero(_neighbours(pc, order) | (np.asarray(pc.verdict) == "not yet decided"))
    if rows.size <= ROWS_SHOWN:
        return rows
    pos = np.empty(len(order), dtype=int)
    pos[np.asarray(order)] = np.arange(len(order))
    top = np.lexsort((pos[np.asarray(pc.index_b)[rows]], pos[np.asarray(pc.index_a)[rows]]))
    return np.sort(rows[top[:ROWS_SHOWN]])


def capped(pc, order) -> bool:
    """Whether the default table leaves out neighbours or open pairs (more than :data:`ROWS_SHOWN` of them)."""
    import numpy as np

    return int((_neighbours(pc, order) | (np.asarray(pc.verdict) == "not yet decided")).sum()) > ROWS_SHOWN


def _neighbours(pc, order):
    """Whether each pair joins two models next to each other in ``order``."""
    import numpy as np

    pos = np.empty(len(order), dtype=int)
    pos[np.asarray(order)] = np.arange(len(order))
    return np.abs(pos[np.asarray(pc.index_a)] - pos[np.asarray(pc.index_b)]) == 1


def readings_shown(pc, order, *, verbose: bool) -> list[str]:
    """The readings worth printing: every one with ``--verbose``; else undecided neighbours, other undecided
    pairs, then decided neighbours, at most :data:`READINGS_SHOWN`."""
    import numpy as np

    readings = list(pc.readings)
    if verbose:
        return readings
    open_ = np.asarray(pc.verdict) == "not yet decided"
    near = _neighbours(pc, order)
    ranked = [k for group in (open_ & near, open_ & ~near, ~open_ & near) for k in np.flatnonzero(group)]
    return [readings[k] for k in ranked[:READINGS_SHOWN]]


NOTE_PAIRS_SHOWN = NoteKind('cli.pairs-shown', 'info',
                            '{statistic}: {value:,} of {value2:,} pairs shown (neighbours in the ranking and pairs not yet decided{top}); --all-pairs shows every pair, JSON has them all')


@reads_input("path example models tasks drop_cols accuracy_scale",
             after={"aggregate": "weights", "fixed": "facets", "ppi": "human_col",
                    "fmt": f"cluster {TABLE_INPUT} {LOG_INPUT}"})


def compare(
    aggregate: AggregateOpt = "mean",
    ppi: PpiOpt = "ppi++",
    resampling: ResamplingOpt = "auto",
    n_resamples: NResamplesOpt = None,
    seed: SeedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    interval: IntervalOpt = "percentile",
    correction: CorrectionOpt = "none",
    margin: MarginOpt = "0",
    fixed: FixedOpt = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    all_pairs: Annotated[bool, typer.Option("--all-pairs", help="Show every pair (by default, with more than 45"
                                            " pairs, the table shows neighbours in the ranking and the pairs not"
                                            " yet decided).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="A one-sentence reading of every pair (by"
                                          " default only where it adds something; JSON always has them).")] = False,
    missing: Annotated[str, typer.Option(
        "--missing", help="Tasks some model has no result on: drop (leave them out, the default), common (each"
                          " pair on the tasks both have; n_tasks per pair) or ability (differences of latent"
                          " abilities from every cell: evalband ability).")] = "drop",
    scheduler: SchedulerOpt = None,
    threads: ThreadsOpt = None,
    *,
    inputs: InputOptions,
):
    """Every pair of models: difference of the aggregate, bootstrap interval, p-value and verdict.

    Differences, intervals and verdicts are computed on the difference itself (paired for item-level data),
    never from overlapping per-model intervals. JSON and CSV keep fractions at full precision; the table shows
    points. Summary data (per-task accuracy and n) have no pairing: the verdict is also given for an assumed
    between-model correlation from 0 to 0.5.
    """
    import numpy as np

    from ..comparison import compare as compare_models

    with errors(method="--interval"), executor_for(scheduler, threads):  # the bootstrap interval `method`
        fmt = output_format(fmt, wide)
        missing = str(missing).strip().lower()
        if missing not in ("drop", "common", "ability"):
            raise ArgumentError(f"`--missing` must be one of drop, common, ability; got {missing!r}.")
        if missing == "ability":
            return _compare_abilities(inputs, fmt=fmt, n_resamples=n_resamples, seed=seed, confidence=confidence,
                                      correction=correction)
        sel = inputs.selection(trials="average")  # the comparison reads each item's mean over its trials
        table = sel.table
        seed, seed_text = resolve_seed(seed)
        result = compare_models(sel, aggregate=aggregate, resampling=resampling,
                                n_resamples=n_resamples_for("average", n_resamples),
                                method=interval, confidence_level=parse_confidence(confidence),
                                correction=correction, margin=parse_margin(margin), per_task=False, rng=seed,
                                fixed=parse_fixed(fixed), ppi=ppi, missing=missing)
        notes = list(result.notes)
        notes.append(SEED_REPLICATES(seed_text=seed_text, n_resamples=result.replicates.n_resamples))
        if table.attribution:
            notes.append(ATTRIBUTION(attribution=table.attribution))
        value_cols = ("difference", "se", "ci_low", "ci_high")
        frame = result.to_frame()
        if fmt in ("csv", "json"):
            from ..display import to_json

            cells = ppi_records(result.replicates)  # human labels: lambda, n_labelled, ... of each model
            show(frame, fmt, notes=notes, json=to_json(frame, ppi=cells) if cells and fmt == "json" else None)
            return
        scales = [(p.statistic, p.scale) for p in result.aggregates]
        parts, readings = [], []
        values = result.aggregate_values or (None,) * len(result.aggregates)  # pairs on shared items: no model values
        for pc, av in zip(result.aggregates, values):
            order = np.arange(len(result.models)) if av is None else \
                np.argsort(-av.observed if av.higher_is_better else av.observed, kind="stable")
            rows = pairs_shown(pc, order, all_pairs=all_pairs)
            part = pc.to_frame().iloc[rows]
            if result.pair_tasks is not None:  # --missing common: the tasks each pair was compared on
                part = part.assign(n_tasks=result.pair_tasks[np.asarray(pc.index_a)[rows], np.asarray(pc.index_b)[rows]])
            parts.append(part)
            readings += readings_shown(pc, order, verbose=verbose) + [pc.decided_text()]
            if len(rows) < len(pc.verdict):
                top = " from the top of the ranking" if capped(pc, order) else ""
                readings.append(NOTE_PAIRS_SHOWN(statistic=pc.statistic, value=len(rows), value2=len(pc.verdict), top=top))
        import pandas as pd

        shown = pd.concat(parts, ignore_index=True)
        shown = shown[[c for c in ("aggregate", "model_a", "model_b", "difference", "se", "ci_low", "ci_high",
                                   "p_value", "p_adjusted", "verdict", "confidence_level", "interval_level",
                                   "correction") if c in shown.columns]
                      + (["n_units"] if result.on_shared_items else [])  # each pair on its own items: the count
                      + (["n_tasks"] if "n_tasks" in shown.columns else [])]  # --missing common: its tasks
        if (shown["p_adjusted"] == shown["p_value"]).all():
            shown = shown.drop(columns="p_adjusted")  # no correction: the same numbers twice
        points = points_note(scales)
        line = ppi_line(ppi_records(result.replicates))
        if line:
            notes.insert(0, line)
        floor = result.p_floor  # two-sided bootstrap p-values
        show(shown, fmt, notes=readings + ([points] if points else []) + notes, value_cols=value_cols,
             scale=row_scales(shown, scales), p_floor=floor)


def _compare_abilities(inputs, *, fmt, n_resamples, seed, confidence, correction):
    """--missing ability: every pair's difference of latent abilities (every measured cell counts)."""
    from .ability import latent_ranking

    result, notes = latent_ranking(inputs, n_resamples=n_resamples, seed=seed, confidence=confidence,
                                   correction=correction, simultaneous="max-t")
    frame = result.comparisons_frame()
    frame = frame.drop(columns=[c for c in ("aggregate", "statistic") if c in frame.columns])
    frame.insert(0, "aggregate", "ability")
    if fmt in ("csv", "json"):
        show(frame, fmt, notes=notes)
        return
    shown = frame[[c for c in ("aggregate", "model_a", "model_b", "difference", "se", "ci_low", "ci_high",
                               "p_value", "p_adjusted", "verdict", "n_units") if c in frame.columns]]
    if (shown["p_adjusted"] == shown["p_value"]).all():
        shown = shown.drop(columns="p_adjusted")
    show(shown, fmt, notes=notes, value_cols=("difference", "se", "ci_low", "ci_high"))
