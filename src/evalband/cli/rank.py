"""``evalband rank``: each model's aggregate with its interval, rank distribution, rank intervals, P(best), tiers.

The command is a thin layer over :func:`evalband.ranking.rank`: options are read by :func:`rank`, the library is
called in :func:`_run` and the frame rendered by ``emit_frame``. Further ranking tests (e.g. Friedman) can add an
option here and a branch in ``_run`` without touching the rest.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import (LOG_INPUT, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, SchedulerOpt, ThreadsOpt, SeedOpt,
                      WideOpt, errors, executor_for, output_format, parse_confidence, reads_input, resolve_seed, show,
                      FixedOpt, parse_fixed, NResamplesOpt, n_resamples_for)
from ._common import ATTRIBUTION, SEED_REPLICATES
from .compare import (AggregateOpt, CorrectionOpt, IntervalOpt, MarginOpt, ResamplingOpt,
                      parse_margin, points_note, row_scales)
from ._judges import PpiOpt, ppi_columns, ppi_records
from .ability import MissingOpt
from .._validate import ArgumentError
from ..display.notes import NoteKind

TestOpt = Annotated[Optional[str], typer.Option(
    "--test", help="Test over tasks (tasks as the sample) instead of the bootstrap ranking: friedman (with"
                   " Nemenyi CD), wilcoxon or sign (Holm), bayes-signed-rank, rm-anova.", show_default=False)]
ControlOpt = Annotated[Optional[str], typer.Option(
    "--control", help="With --test wilcoxon/sign/bayes-signed-rank: compare this model with each other one"
                      " (default all pairs).", show_default=False)]
RopeOpt = Annotated[float, typer.Option(
    "--rope", help="With --test bayes-signed-rank: half-width of the region of practical equivalence, in score"
                   " units (0.01 = one point).")]


@reads_input("path example models tasks drop_cols accuracy_scale",
             after={"aggregate": "weights", "fixed": "facets", "ppi": "human_col", "fmt": f"cluster {TABLE_INPUT}",
                    "rope": LOG_INPUT})


def rank(
    aggregate: AggregateOpt = "mean",
    ppi: PpiOpt = "ppi++",
    resampling: ResamplingOpt = "auto",
    n_resamples: NResamplesOpt = None,
    seed: SeedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    interval: IntervalOpt = "percentile",
    correction: CorrectionOpt = "max-t",
    margin: MarginOpt = "0",
    fixed: FixedOpt = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    test: TestOpt = None,
    control: ControlOpt = None,
    rope: RopeOpt = 0.0,
    missing: MissingOpt = "drop",
    scheduler: SchedulerOpt = None,
    threads: ThreadsOpt = None,
    *,
    inputs: InputOptions,
):
    """Rank models with uncertainty: estimate and interval, mean rank, rank intervals, P(best) and tiers.

    rank_low/rank_high are each model's bootstrap percentile rank interval (one model at a time);
    rank_sim_low/rank_sim_high hold for all models at once, from simultaneous pairwise intervals chosen by
    --correction (max-t by default; bonferroni and holm also hold jointly). Tiers group models that no such
    interval separates (by more than --margin).
    """
    with errors(method="--interval"), executor_for(scheduler, threads):  # the bootstrap interval `method`
        fmt = output_format(fmt, wide)
        missing = str(missing).strip().lower()
        if missing not in ("drop", "common", "ability"):
            raise ArgumentError(f"`--missing` must be one of drop, common, ability; got {missing!r}.")
        if missing != "drop" and test is not None:
            raise ArgumentError("`--missing` applies to the bootstrap ranking; tests over tasks (--test) need every"
                                " model on every task")
        if missing == "ability":
            return _run_ability(inputs, fmt=fmt, n_resamples=n_resamples, seed=seed, confidence=confidence,
                                correction=correction)
        if test is not None:
            sel = inputs.selection()
            if ppi != "none" and getattr(sel.table, "level", None) == "item" and "human" in sel.table.measures:
                raise ArgumentError("`--test` treats the judge's per-task scores as they are; with human labels use"
                                    " the bootstrap ranking (of the human-scale means), or --ppi none")
            if inputs.weights is not None:
                raise ArgumentError("`--weights` does not apply to --test: tests over tasks treat the tasks as the"
                                 " sample, each task counting once")
            return _run_task_test(sel, test=test, control=control, rope=rope,
                                  confidence=confidence, seed=seed, fmt=fmt)
        options = dict(aggregate=aggregate, resampling=resampling, n_resamples=n_resamples, seed=seed,
                       confidence=confidence, interval=interval, correction=correction, margin=margin,
                       fixed=parse_fixed(fixed), ppi=ppi, missing=missing)
        frame, notes, scales, cells = _run(inputs.selection(trials="average"), **options)  # item means only
        if fmt in ("csv", "json"):
            from ..display import to_json

            show(frame, fmt, notes=notes, json=to_json(frame, ppi=cells) if cells and fmt == "json" else None)
            return
        shown = frame[[c for c in ("aggregate", "model", "estimate", "se", "ci_low", "ci_high", "rank",
                                   "rank_mean", "rank_low", "rank_high", "rank_sim_low", "rank_sim_high",
                                   "wins", "losses", "n_tasks", "p_best", "tier", "confidence_level")
                       if c in frame.columns]]
        if frame["p_best"].isna().all():  # ranks from pairs (--missing common): no P(best)
            shown = shown.drop(columns=["p_best"])
        shown = ppi_columns(shown, cells)  # human labels, one task: lambda, n_labelled, effective n per model
        points = points_note(scales)
        show(shown, fmt, notes=([points] if points else []) + notes, scale=row_scales(shown, scales))


def _run_ability(inputs, *, fmt, n_resamples, seed, confidence, correction):
    """--missing ability: the latent abilities as the ranking (every measured cell counts)."""
    from .ability import ability_rank_frame, latent_ranking

    result, notes = latent_ranking(inputs, n_resamples=n_resamples, seed=seed, confidence=confidence,
                                   correction="auto", simultaneous=correction)
    frame = ability_rank_frame(result)
    if fmt in ("csv", "json"):
        show(frame, fmt, notes=notes)
        return
    shown = frame[[c for c in ("aggregate", "model", "estimate", "se", "ci_low", "ci_high", "rank", "rank_mean",
                               "rank_low", "rank_high", "rank_sim_low", "rank_sim_high", "p_best", "tier", "n_tasks",
                               "flag", "confidence_level") if c in frame.columns]]  # the level heads the CI
    show(shown, fmt, notes=notes)


NOTE_INTERVALS_RANK_CI_BOOTSTRAP = NoteKind(
    'cli.intervals-rank-ci-bootstrap', 'info',
    "{value} intervals; rank CI: bootstrap percentile interval of each model's rank; sim. rank CI: simultaneous "
    "({correction}) rank intervals, holding for all models at once; rank 1 is best")


def _run(sel, *, aggregate, resampling, n_resamples, seed, confidence, interval, correction, margin, fixed=None,
         ppi="ppi++", missing="drop"):
    """Call the library on the selection; return (frame, notes, [(aggregate, display scale)], PPI records or
    None)."""
    from ..display import format_level
    from ..ranking import rank as rank_models

    table = sel.table
    seed, seed_text = resolve_seed(seed)
    result = rank_models(sel, aggregate=aggregate, resampling=resampling,
                         n_resamples=n_resamples_for("average", n_resamples), method=interval,
                         confidence_level=parse_confidence(confidence), simultaneous=correction,
                         margin=parse_margin(margin), rng=seed, fixed=fixed, ppi=ppi, missing=missing)
    frame = result.to_frame()
    notes = list(result.notes)
    level = result.rankings[0].confidence_level
    if hasattr(result.rankings[0], "rank_ci"):  # (ranks from pairs, --missing common, say theirs in a note)
        notes.append(NOTE_INTERVALS_RANK_CI_BOOTSTRAP(value=format_level(level), correction=correction))
    notes.append(SEED_REPLICATES(seed_text=seed_text, n_resamples=result.replicates.n_resamples))
    if table.attribution:
        notes.append(ATTRIBUTION(attribution=table.attribution))
    return frame, notes, [(r.aggregate, r.scale) for r in result.rankings], ppi_records(result.replicates)


NOTE_POINTS_X100_JSON_CSV = NoteKind('cli.points-x100-json-csv', 'info',
                                      '{value} in points (x100); JSON and CSV give fractions')


def _run_task_test(sel, *, test, control, rope, confidence, seed, fmt):
    """--test: a test over tasks from evalband.tasks; the pairwise table, with the summary as notes."""
    from ..display import scale_for, to_json
    from ..tasks import run_test

    table = sel.table
    seed, seed_text = resolve_seed(seed)
    result = run_test(sel, test=test, control=control, rope=rope, confidence_level=parse_confidence(confidence),
                      rng=seed)
    scale = scale_for(table.score_kind)
    notes = result.summary_notes(scale=scale if fmt not in ("csv", "json") else 1.0)
    if result.test == "bayes-signed-rank" or getattr(result.omnibus, "exact_method", "") == "monte-carlo":
        notes.append(seed_text)
    if table.attribution:
        notes.append(ATTRIBUTION(attribution=table.attribution))
    frame = result.to_frame()
    # the primary result (the omnibus test, the critical difference) is part of the JSON, beside the pairs
    records = frame
    if fmt == "json" and "significant" in frame.columns and result.test != "friedman":
        records = frame.assign(reject=frame["significant"])  # alias: the JSON field of these tests before 'significant'
    if fmt not in ("csv", "json"):  # human formats: the verdict words of every command, the ROPE in the notes
        frame = frame.rename(columns={"decision": "verdict"})
        frame = frame.drop(columns=[c for c in ("significant", "rope") if c in frame.columns and "verdict" in frame])
    # differences on the score scale (wilcoxon, sign): points for proportions, one decimal (no SE to set digits)
    shown = [c for c in ("median_difference", "difference", "low", "high") if c in frame.columns]
    if result.test == "friedman":
        shown = []  # differences of mean ranks
    value_cols = {c: (0.01 if scale == 100 else None, scale) for c in shown}
    if value_cols and scale == 100:
        notes.append(NOTE_POINTS_X100_JSON_CSV(value=', '.join(shown)))
    show(frame, fmt, notes=notes, value_cols=value_cols,
         json=to_json(records, **result.to_dict()) if fmt == "json" else None)
