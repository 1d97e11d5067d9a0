"""``evalband ability``: latent abilities of models measured on different tasks (a sparse leaderboard), on one
scale, with intervals, ranks, rank intervals and P(best); per-task difficulty and slope; predictions of the cells
not measured (``--predict``) and the held-out check (``--holdout``).

A thin layer over :func:`evalband.ability`: FILE (or ``--example``) is a results table (item level, or summary
counts) read by :func:`evalband.select`, or a file of cell scores (``model, task, score`` in [0, 1], no counts)
read by :func:`evalband.selection.cell_scores.cell_scores_input`; the tables come from the result's frames.
"""

from __future__ import annotations

import re
from typing import Annotated, Optional

import dataclasses

import typer

from ._common import (ATTRIBUTION, emit_json, TABLE_INPUT, ConfidenceOpt, FormatOpt, InputOptions, NResamplesOpt, SeedOpt, WideOpt, errors, output_format, parse_confidence, reads_input, resolve_seed, show,
                      n_resamples_for)
from .compare import CorrectionOpt
from .._validate import ArgumentError
from ..display.layout import HUMAN_FORMATS
from ..display.notes import NoteKind

LatentModelOpt = Annotated[str, typer.Option(
    "--model", help="Latent-ability model: sigmoid (score = sigmoid(slope_t (ability - difficulty_t)), a slope per"
                    " task; Epoch AI's benchmark stitching), rasch (every slope 1) or 2pl (item data: the 2PL model"
                    " on every response; on summary data the same as sigmoid).")]
AnchorOpt = Annotated[Optional[str], typer.Option(
    "--anchor", help="Fix the scale by one task instead of standardizing the abilities: TASK (difficulty 0, slope"
                     " 1, as Epoch anchors Winogrande), task=TASK, or task=TASK,difficulty=D,slope=S.",
    show_default=False)]
LossOpt = Annotated[str, typer.Option(
    "--loss", help="Likelihood of a cell's score: auto (binomial with counts, else fraction), binomial, fraction"
                   " (quasi-binomial on scores) or least-squares (Epoch's fit.py).")]
UncertaintyOpt = Annotated[str, typer.Option(
    "--uncertainty", help="auto, bootstrap (refits of data resampled at the level it was sampled) or information"
                          " (draws from the normal approximation at the fit; faster on large item sets).")]
PredictOpt = Annotated[bool, typer.Option(
    "--predict", help="Also predict every cell not measured, with a predictive interval (parameter uncertainty"
                      " plus the cells' noise). CSV gives the predictions only; JSON adds them as 'predictions'.")]
HoldoutOpt = Annotated[Optional[float], typer.Option(
    "--holdout", help="Refit without this share of the measured cells (e.g. 0.1) and report the coverage of their"
                      " predictive intervals and the error of the predictions: the model check to read before"
                      " trusting the abilities.", show_default=False)]
TasksTableOpt = Annotated[bool, typer.Option(
    "--task-table", help="Also show each task's difficulty and slope with intervals (always in JSON).")]
PairsOpt = Annotated[bool, typer.Option(
    "--pairs", help="Also show every pair's ability difference with interval and verdict (--correction; in JSON"
                    " as 'pairs').")]

_ANCHOR = re.compile(r"^task=(?P<task>.+?)(?:,difficulty=(?P<d>[^,=]+))?(?:,slope=(?P<s>[^,=]+))?$", re.S)


def parse_anchor(text):
    """``--anchor`` text -> the library's ``anchor``: a task name, or a mapping (task, difficulty, slope)."""
    if text is None:
        return None
    text = str(text).strip()
    if not text:
        raise ArgumentError("`--anchor` is empty; give a task name (or task=TASK,difficulty=D,slope=S)")
    m = _ANCHOR.match(text)
    if m is None:
        return text
    out = {"task": m["task"]}
    for key, group in (("difficulty", "d"), ("slope", "s")):
        if m[group] is not None:
            try:
                out[key] = float(m[group])
            except ValueError:
                raise ArgumentError(f"`--anchor` {key} must be a number; got {m[group]!r}") from None
    return out


def latent_input(inputs: InputOptions):
    """What the latent-ability model reads: the frame of a file (or example) of cell scores, else the selection
    of the results table (--models, --tasks through :func:`evalband.select`)."""
    from ..selection.cell_scores import cell_scores_input

    data = f"example:{inputs.example}" if inputs.example is not None else inputs.path
    from .._lists import split_names

    drop = None if inputs.drop_cols is None else split_names(inputs.drop_cols, name="--drop-cols")
    frame = cell_scores_input(data, model_col=inputs.model_col, task_col=inputs.task_col,
                              item_col=inputs.item_col, score_col=inputs.score_col,
                              drop_cols=drop) if data is not None else None
    if frame is None:  # every model in the fit (one scale), --models chooses the ones reported (latent.ability)
        if inputs.models is None:
            return inputs.selection(weights=False), None
        from .._lists import split_names

        every = dataclasses.replace(inputs, models=None).selection(weights=False)
        return every, dict(models=split_names(inputs.models, name="models"))
    if inputs.weights is not None:
        raise ArgumentError("`--weights` does not apply to latent abilities: every measured cell informs the fit")
    from .._lists import split_names

    models = None if inputs.models is None else split_names(inputs.models, name="models")
    tasks = None if inputs.tasks is None else split_names(inputs.tasks, name="tasks")
    return frame, dict(models=models, tasks=tasks)


NOTE_NOTE = NoteKind('cli.note', 'info',
                      '{seed_text}, {n_resamples:,} {value}')


@reads_input("path example models tasks", after={"fmt": TABLE_INPUT})
def ability(
    model: LatentModelOpt = "sigmoid",
    anchor: AnchorOpt = None,
    loss: LossOpt = "auto",
    uncertainty: UncertaintyOpt = "auto",
    predict: PredictOpt = False,
    holdout: HoldoutOpt = None,
    task_table: TasksTableOpt = False,
    pairs: PairsOpt = False,
    correction: CorrectionOpt = "auto",
    n_resamples: NResamplesOpt = None,
    seed: SeedOpt = None,
    confidence: ConfidenceOpt = "0.95",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    *,
    inputs: InputOptions,
):
    """Latent abilities for a sparse leaderboard: models measured on different tasks put on one scale.

    Per model the ability with its interval, rank, marginal rank interval (rank_low/rank_high; simultaneous in
    rank_sim_low/rank_sim_high), P(best) and the tasks it was measured on, with weak identification named in
    words. FILE holds summary counts (model, task, n, correct), item-level results, or one score in [0, 1] per
    measured cell (model, task, score). The model x task graph must be connected. --example epoch is Epoch AI's
    benchmarking hub (179 models, 38 benchmarks, 18% of cells measured).
    """
    with errors(anchor="--anchor", holdout="--holdout", loss="--loss", uncertainty="--uncertainty",
                correction="--correction", model="--model", n_resamples="--n-resamples"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        from ..latent import ability as run

        data, choose = latent_input(inputs)
        result = run(data, model=model, anchor=parse_anchor(anchor), loss=loss, uncertainty=uncertainty,
                     n_resamples=n_resamples_for("refit", n_resamples), confidence_level=parse_confidence(confidence),
                     correction=correction, holdout=holdout, rng=seed, **(choose or {}))
        notes = [result.headline()] + [n for n in result.notes if not n.startswith("held-out check")]
        notes.append(NOTE_NOTE(seed_text=seed_text, n_resamples=result.n_resamples, value=_replicate_word(result)))
        if result.attribution:
            notes.append(ATTRIBUTION(attribution=result.attribution))
        _print(result, fmt, notes, predict=predict, task_table=task_table, pairs=pairs)


MissingOpt = Annotated[str, typer.Option(
    "--missing", help="Tasks some model has no result on: drop (leave them out, the default), common (each pair"
                      " of models on the tasks both have; n_tasks per pair) or ability (ranks and differences from"
                      " the latent-ability model on every cell: evalband ability).")]


NOTE_MISSING_ABILITY = NoteKind('cli.missing-ability', 'info',
                                '--missing ability: every measured cell counts; ranks and differences of latent abilities ({model} model: score = sigmoid(slope_t (ability - difficulty_t)); evalband ability shows the fit, its predictions and --holdout check)')


def latent_ranking(inputs: InputOptions, *, n_resamples, seed, confidence, correction: str, simultaneous: str):
    """``--missing ability`` of rank and compare: the latent-ability fit of FILE (sigmoid model, default scale)
    and the notes that say so. Returns ``(result, notes)``."""
    from ..latent import ability as run

    seed, seed_text = resolve_seed(seed)
    data, choose = latent_input(inputs)
    result = run(data, n_resamples=n_resamples_for("refit", n_resamples),
                 confidence_level=parse_confidence(confidence), correction=correction, simultaneous=simultaneous,
                 rng=seed, **(choose or {}))
    notes = [NOTE_MISSING_ABILITY(model=result.model), *result.notes,
             NOTE_NOTE(seed_text=seed_text, n_resamples=result.n_resamples, value=_replicate_word(result))]
    if result.attribution:
        notes.append(ATTRIBUTION(attribution=result.attribution))
    return result, notes


def ability_rank_frame(result):
    """The abilities as ``rank``'s frame (aggregate 'ability', estimate = ability)."""
    frame = result.to_frame().rename(columns={"ability": "estimate"})
    frame.insert(0, "aggregate", "ability")
    return frame


def _replicate_word(result) -> str:
    return "bootstrap refits" if result.uncertainty == "bootstrap" else "draws"


#: the abilities' columns: the contract's JSON fields first
ABILITY_COLUMNS = ("model", "ability", "se", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "rank_sim_low",
                   "rank_sim_high", "p_best", "tier", "n_tasks", "flag", "confidence_level")
PREDICTION_COLUMNS = ("model", "task", "predicted", "pi_low", "pi_high", "n")


def holdout_fields(check) -> dict:
    """The held-out check as JSON fields (``holdout_coverage`` and the held-out error)."""
    if check is None:
        return {}
    return {"holdout_coverage": check.coverage, "holdout_coverage_ci": list(check.coverage_ci),
            "holdout_p_value": check.p_value, "holdout_rmse": check.rmse, "holdout_mae": check.mae,
            "holdout_baseline_rmse": check.baseline_rmse, "holdout_cells": check.n_cells,
            "holdout_skipped": check.skipped, "holdout_fraction": check.fraction}


NOTE_PREDICTIONS_POINTS = NoteKind('cli.predictions-in-points', 'info',
                                   'predicted scores and predictive intervals in points (x100)')


def _print(result, fmt, notes, *, predict, task_table, pairs):
    import math
    from statistics import NormalDist

    from ..display import json_records, to_json

    frame = result.to_frame()
    frame = frame[[c for c in ABILITY_COLUMNS if c in frame.columns]]
    tasks = result.tasks_frame()
    preds = result.predictions()[list(PREDICTION_COLUMNS)] if predict else None
    comparisons = result.comparisons_frame() if pairs else None
    check = result.holdout
    if fmt == "json":
        extra = {"latent_model": result.model, "loss": result.loss, "identification": result.identification,
                 "uncertainty": result.uncertainty, "n_resamples": result.n_resamples,
                 "confidence_level": result.confidence_level, "dispersion":
                     result.dispersion if math.isfinite(result.dispersion) else None,
                 **holdout_fields(check), "tasks": json_records(tasks)}
        if preds is not None:
            extra["predictions"] = json_records(preds)
        if comparisons is not None:
            extra["pairs"] = json_records(comparisons)
        if check is not None:
            extra["holdout"] = json_records(check.to_frame())
        emit_json(to_json(frame, **extra), notes)
        return
    if fmt == "csv":
        show(preds if preds is not None else frame, fmt, notes=notes)
        return
    value = ("ability", "ci_low", "ci_high")
    shown = frame.drop(columns=[c for c in ("tier",) if c in frame.columns])  # the level heads the CI column
    if fmt == "table":  # simultaneous rank intervals in table-wide and the other formats
        shown = shown.drop(columns=["rank_sim_low", "rank_sim_high"])
    last = not (task_table or preds is not None or comparisons is not None or check is not None)
    show(shown, fmt, notes=notes if last else (), value_cols=value, se_col="se", title="abilities")
    def width_digits(frame, low, high, columns, scale=1.0):
        """Digits of each column from its interval's width (the SE a normal interval of that width has, as the
        digit rule reads an SE), without showing that quantity as a column."""
        z = 2 * float(NormalDist().inv_cdf(0.5 + result.confidence_level / 2))
        se = ((frame[high] - frame[low]) / z).to_numpy(dtype=float)
        return {c: (se, scale) for c in columns}

    if task_table:
        last = not (preds is not None or comparisons is not None or check is not None)
        digits = {**width_digits(tasks, "difficulty_low", "difficulty_high",
                                 ("difficulty", "difficulty_low", "difficulty_high")),
                  **width_digits(tasks, "slope_low", "slope_high", ("slope", "slope_low", "slope_high"))}
        show(tasks, fmt, notes=notes if last else (), value_cols=digits, se_col=None, title="tasks")
    if comparisons is not None:
        last = not (preds is not None or check is not None)
        show(comparisons, fmt, notes=notes if last else (), title="pairs")
    if check is not None:
        held = check.to_frame().assign(confidence_level=result.confidence_level)  # the level heads the PI
        if fmt in HUMAN_FORMATS:  # words for readers; True/False stay in CSV and JSON
            held["covered"] = held["covered"].map({True: "yes", False: "no"})
        show(held, fmt, notes=notes if preds is None else (),
             title=check.headline().replace("held-out check", "held-out cells"),
             value_cols=width_digits(held, "pi_low", "pi_high", ("observed", "predicted", "pi_low", "pi_high"),
                                     100.0), se_col=None)
    if preds is not None:
        shown = preds.assign(confidence_level=result.confidence_level)
        show(shown, fmt, notes=notes + [NOTE_PREDICTIONS_POINTS()],
             value_cols=width_digits(shown, "pi_low", "pi_high", ("predicted", "pi_low", "pi_high"), 100.0),
             se_col=None, title="predictions of the cells not measured")
