"""``evalband arena``: a preference leaderboard (Bradley-Terry, Elo, win rates) from pairwise battles, with
intervals from a seeded bootstrap that resamples whole questions.

A thin layer over :func:`evalband.arena`: the options are parsed here, the library reads and selects the battles
(once) and computes everything; the frame is printed by :func:`evalband.cli._common.show`.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import (ConfidenceOpt, FormatOpt, ModelsOpt, SchedulerOpt, SeedOpt, WideOpt, check_input_path, errors,
                      executor_for, output_format,
                      parse_confidence, parse_list, resolve_seed, show, note_text,
                      NResamplesOpt, n_resamples_for)
from ._common import SEED_REPLICATES
from .compare import CorrectionOpt, points_note
from .._validate import ArgumentError
from ..display.notes import NoteKind

BattlesArg = Annotated[str, typer.Argument(
    help="Battles: a CSV/TSV/JSONL/Parquet table (model_a, model_b, winner; or left, right, winner), a Chatbot"
         " Arena clean battles JSON, Arena-Hard judgment JSONL files (a file or their folder), AlpacaEval"
         " annotations.json files (a file or their folder), or - for a table on standard input.",
    show_default=False)]
MethodOpt = Annotated[str, typer.Option(
    "--model", "--method", help="bt (Bradley-Terry maximum likelihood), elo (bootstrap online Elo; order matters), rao-kupper"
                     " or davidson (Bradley-Terry with a tie model), win-rate (against --baseline, or averaged over"
                     " opponents).")]
BaselineOpt = Annotated[Optional[str], typer.Option(
    "--baseline", help="Reference model: win rates against it (AlpacaEval, Arena-Hard); with a rating method, adds"
                       " the predicted win rate against it. Also the baseline of Arena-Hard judgment files.",
    show_default=False)]
TiesOpt = Annotated[str, typer.Option(
    "--ties", help="half (a tie is half a win for each side, as evalica and FastChat), drop (left out, counted),"
                   " rao-kupper or davidson (a tie model with its own parameter).")]
ScaleOpt = Annotated[str, typer.Option(
    "--scale", help="elo (400/ln 10 points per logit, mean 1000 or --anchor), logit (log-strengths, mean 0) or"
                    " prob (strengths summing to 1, as evalica prints). Win rates are fractions.")]
AnchorOpt = Annotated[Optional[str], typer.Option(
    "--anchor", help="Fix one model's rating, e.g. 'gpt-4=1000' (its interval is then a point).",
    show_default=False)]
ClusterOpt = Annotated[str, typer.Option(
    "--cluster", help="Resampling unit: auto (whole questions when the battles name them, else battles), none"
                      " (battles as if independent), question, judge, or a column of the file holding"
                      " clusters.")]
StyleOpt = Annotated[Optional[str], typer.Option(
    "--style", help="Style control, comma-separated features: length, markdown (header, list and bold counts),"
                    " NAME for columns NAME_a/NAME_b, or a column of differences A - B.", show_default=False)]
LengthControlOpt = Annotated[bool, typer.Option(
    "--length-control", help="With --model win-rate and --baseline: the length-controlled win rate by --lc-glm"
                             " (needs a length feature), its interval from the bootstrap; se is its bootstrap"
                             " SE (JSON: se and se_lc; the raw win rate's: win_rate_se).")]
LcGlmOpt = Annotated[str, typer.Option(
    "--lc-glm", help="The length-control GLM: length_controlled_v1 (AlpacaEval's: instruction difficulty,"
                     " regularization toward the gamed baselines, L1 penalty by cross-validation) or length-only"
                     " (an intercept and a length slope per model; not AlpacaEval's values).")]
LcReferenceOpt = Annotated[Optional[str], typer.Option(
    "--lc-reference", help="AlpacaEval's df_gamed.csv (Hugging Face dataset tatsu-lab/alpaca_eval): the"
                           " instruction difficulties and gamed baselines length_controlled_v1 uses; without it"
                           " the difficulties are estimated and the regularization left out (with notes).",
    show_default=False)]
DifficultyOpt = Annotated[Optional[str], typer.Option(
    "--instruction-difficulty", help="A CSV of instruction (or AlpacaEval index) and difficulty, e.g. AlpacaEval's"
                                     " instruction_difficulty.csv (default: from --lc-reference, else estimated).",
    show_default=False)]
KOpt = Annotated[float, typer.Option("--k", help="Elo's K-factor (--model elo).")]
SourceOpt = Annotated[str, typer.Option(
    "--source", help="Input kind: auto (detected), battles (a column layout), fastchat, arena-hard or"
                     " alpaca-eval.")]
PairsOpt = Annotated[bool, typer.Option(
    "--pairs", help="Print the pairs instead of the leaderboard: rating difference with interval, p-value"
                    " (--correction), compare's verdict, and the predicted probability that A beats B (for win"
                    " rates against a baseline: the paired difference of the two win rates).")]


def _column(flag: str, role: str):
    return Annotated[Optional[str], typer.Option(flag, help=f"Column holding {role} (found by name when not"
                                                 " given).", show_default=False)]


ModelACol = _column("--model-a-col", "model A (default model_a or left)")
ModelBCol = _column("--model-b-col", "model B (default model_b or right)")
WinnerCol = _column("--winner-col", "the winner (model_a/model_b/tie, a/b, left/right, a model's name, or P(A wins)"
                    " in [0, 1])")
QuestionCol = _column("--question-col", "the question or prompt (default question_id, question, prompt_id, prompt"
                      " or uid)")
JudgeCol = _column("--judge-col", "the judge (default judge, worker or annotator)")
TurnCol = _column("--turn-col", "the turn")
WeightCol = _column("--weight-col", "a positive weight per battle (default weight)")

#: library argument -> the option that sets it, for the library's messages
_OPTIONS = {"model": "--model", "ties": "--ties", "baseline": "--baseline", "scale": "--scale", "anchor": "--anchor",
            "cluster": "--cluster", "style": "--style", "length_control": "--length-control", "k": "--k",
            "lc_glm": "--lc-glm", "lc_reference": "--lc-reference", "instruction_difficulty": "--instruction-difficulty",
            "source": "--source", "model_a_col": "--model-a-col", "model_b_col": "--model-b-col",
            "winner_col": "--winner-col", "question_col": "--question-col", "judge_col": "--judge-col",
            "turn_col": "--turn-col", "weight_col": "--weight-col", "style_cols": "--style"}
#: JSON fields, in the issue's order (win rates add win_rate and se, and the interval of a length-controlled one)
FIELDS = ("model", "rating", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "p_best", "n_battles", "n_wins",
          "n_ties")
#: values of --cluster that are not a file's column (arena()'s label names and their aliases)
_LABELS = ("auto", "none", "question", "judge", "cluster", "turn", "question_id", "prompt", "questions", "worker",
           "annotator", "judges")
#: pairs above which the pairs table shows only neighbours in the ranking
PAIRS_SHOWN = 45


def arena(
    path: BattlesArg,
    method: MethodOpt = "bt",
    baseline: BaselineOpt = None,
    ties: TiesOpt = "half",
    scale: ScaleOpt = "elo",
    anchor: AnchorOpt = None,
    cluster: ClusterOpt = "auto",
    style: StyleOpt = None,
    length_control: LengthControlOpt = False,
    lc_glm: LcGlmOpt = "length_controlled_v1",
    lc_reference: LcReferenceOpt = None,
    instruction_difficulty: DifficultyOpt = None,
    k: KOpt = 4.0,
    n_resamples: NResamplesOpt = None,
    confidence: ConfidenceOpt = "0.95",
    seed: SeedOpt = None,
    models: ModelsOpt = None,
    pairs: PairsOpt = False,
    correction: CorrectionOpt = "max-t",
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
    battle_source: SourceOpt = "auto",  # --source (battles have no tasks: this command has no --tasks)
    model_a_col: ModelACol = None,
    model_b_col: ModelBCol = None,
    winner_col: WinnerCol = None,
    question_col: QuestionCol = None,
    judge_col: JudgeCol = None,
    turn_col: TurnCol = None,
    weight_col: WeightCol = None,
    scheduler: SchedulerOpt = None,
):
    """Rank models from pairwise battles: rating with interval, rank interval, P(best), battles won and tied.

    Intervals come from one seeded bootstrap that resamples whole questions when the battles name them (battles
    on one prompt are not independent); --cluster none resamples battles as FastChat and Arena-Hard do. Ranks,
    rank intervals, P(best) and --pairs come from the same replicates. JSON has one record per model (model,
    rating, ci_low, ci_high, rank, rank_low, rank_high, p_best, n_battles, n_wins, n_ties; win rates add win_rate
    and se, the rating's standard error; --length-control adds lc_win_rate, se_lc, win_rate_se (AlpacaEval's, of
    the raw win rate), win_rate_ci_low, win_rate_ci_high and lc_glm); CSV has every column. Example:
    evalband arena crowd-comparisons.csv --scale logit --seed 1
    """
    with errors():
        check_input_path(path)  # before the heavy imports
    from ..preferences import arena as run_arena

    with errors(**_OPTIONS), executor_for(scheduler) as executor:  # sharded battles are counted on its cluster
        fmt = output_format(fmt, wide)
        columns = dict(model_a_col=model_a_col, model_b_col=model_b_col, winner_col=winner_col,
                       question_col=question_col, judge_col=judge_col, turn_col=turn_col, weight_col=weight_col)
        read_options = {key: value for key, value in columns.items() if value is not None}
        if executor is not None:
            read_options["executor"] = executor
        unit = _cluster(cluster, read_options)
        names = parse_list(style, name="--style") if style is not None else None
        if names is not None:
            if not names:
                raise ArgumentError("`--style` is empty; give feature names (or leave the option out)")
            read_options["style_cols"] = [n for n in names if n != "markdown"]
        seed, seed_text = resolve_seed(seed)
        result = run_arena(path, model=method, ties=ties, baseline=baseline, scale=scale, anchor=anchor,
                           cluster=unit, style=names, length_control=length_control, lc_glm=lc_glm,
                           lc_reference=lc_reference, instruction_difficulty=instruction_difficulty or "auto", k=k,
                           n_resamples=n_resamples_for("refit", n_resamples),
                           confidence_level=parse_confidence(confidence), rng=seed,
                           models=parse_list(models, name="models"), source=battle_source, **read_options)
        # the library's notes in this command's words (cluster='judge' -> --cluster judge)
        notes = [note_text(n, _OPTIONS) for n in result.notes] + [SEED_REPLICATES(seed_text=seed_text, n_resamples=result.n_resamples)]
        if pairs:
            return _pairs(result, fmt, correction, notes)
        _leaderboard(result, fmt, notes)


def _cluster(cluster: str, read_options: dict) -> str:
    """--cluster: a label (or 'auto' / 'none') as it is; a column of the file is read as the cluster labels."""
    text = str(cluster).strip()
    if text.lower() in _LABELS:
        return text
    if text == read_options.get("question_col"):
        return "question"
    if text == read_options.get("judge_col"):
        return "judge"
    read_options["cluster_col"] = text
    return "cluster"


def _statistic(result) -> str:
    if result.method != "win-rate":
        return "rating"
    return "lc_win_rate" if result.length_control else "win_rate"


def _leaderboard(result, fmt: str, notes: list) -> None:
    frame = result.to_frame()
    readings = result.readings()
    lead = readings[1:3]  # the leader and the separability, in words
    style = _style_frame(result)
    if fmt == "json":
        fields = list(FIELDS)
        if result.method == "win-rate":
            fields += ["win_rate", "se"]
            if result.length_control:  # se is the rating's (the LC win rate's, bootstrap); the raw one's beside
                fields += ["lc_win_rate", "se_lc", "win_rate_se", "win_rate_ci_low", "win_rate_ci_high", "lc_glm"]
        if result.rating_raw is not None:  # style control: the note names rating_raw, the fit without style
            fields += ["rating_raw", "ci_low_raw", "ci_high_raw"]
        if style is None:
            show(frame[fields], fmt, notes=lead + notes)
        else:  # style control: its coefficients beside the records (an object, as other commands' extras)
            from ..display import json_records, to_json

            show(frame[fields], fmt, notes=lead + notes, json=to_json(frame[fields], style=json_records(style)))
        return
    if fmt == "csv":
        show(frame, fmt, notes=lead + notes)
        return
    name = _statistic(result)
    cols = ["model", "rating", "se", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "p_best", "n_battles",
            "confidence_level"]
    if fmt == "table-wide":
        cols = list(frame.columns)
    shown = frame[cols]
    if result.method == "win-rate":
        shown = shown.drop(columns=[c for c in ("win_rate", "lc_win_rate") if c in shown and c != "rating"])
        shown = shown.rename(columns={"rating": name})
    value_cols = (name, "se", "ci_low", "ci_high")
    if fmt == "table-wide":
        value_cols += tuple(c for c in shown.columns if c.startswith(("rating_", "ci_", "se_", "win_rate",
                                                                      "predicted_win_rate")))
    extra = [_unit_note(result)]
    points = points_note([(name, result.display_scale)])
    if points:
        extra.append(points)
    if style is not None:  # the style coefficients, with their intervals, below the leaderboard
        from ._common import emit
        from ..display import render

        emit(render(shown, fmt, value_cols=value_cols, scale=result.display_scale, title=_title(result)).rstrip("\n")
             + "\n")
        extra.append("style coefficients: log-odds of A winning per SD of the normalized style difference"
                     " A - B, with bootstrap intervals; the ratings above are style-controlled")
        show(style, fmt, notes=lead + extra + notes, value_cols=("coefficient", "se", "ci_low", "ci_high"),
             title="style coefficients")
        return
    show(shown, fmt, notes=lead + extra + notes, value_cols=value_cols, scale=result.display_scale,
         title=_title(result))


def _style_frame(result):
    """The style coefficients (feature, coefficient, se, interval) with their confidence level, or None without
    --style."""
    style = getattr(result, "style", None)
    if style is None or len(style) == 0:
        return None
    cols = [c for c in ("feature", "coefficient", "se", "ci_low", "ci_high") if c in style.columns]
    return style[cols].assign(confidence_level=result.confidence_level).reset_index(drop=True)


def _title(result) -> str:
    from ..preferences.result import METHOD_NAMES

    if result.method == "win-rate":
        what = "length-controlled win rate" if result.length_control else "win rate"
        return f"{what} against {result.baseline}" if result.baseline else f"{what} averaged over opponents"
    return f"{METHOD_NAMES[result.method]} ratings ({result.scale} scale)"


NOTE_ARENA_UNITS = NoteKind('cli.arena-units', 'info',
                            "{what}; rank CI: each model's bootstrap rank interval (1 = best); P(best): share of replicates in which it ranks first; {cluster}")


def _unit_note(result) -> str:
    cluster = (f"{result.n_units:,} {result.unit_name} resampled whole" if result.cluster else
               f"{result.n_units:,} battles resampled independently")
    if result.method == "win-rate":
        what = "win rates are fractions shown in points"
    elif result.scale == "elo":
        anchored = f"{result.models[result.anchor[0]]} = {result.anchor[1]:g}" if result.anchor else "mean 1000"
        what = f"ratings in Elo points (400/ln 10 per logit, {anchored})"
    elif result.scale == "logit":
        what = "ratings are log-strengths (logits, mean 0)"
    else:
        what = "ratings are strengths summing to 1, shown in points"
    return (NOTE_ARENA_UNITS(what=what, cluster=cluster))


NOTE_ARENA_PAIRS_SHOWN = NoteKind('cli.arena-pairs-shown', 'info',
                                  '{value} of {value2:,} pairs shown (neighbours in the ranking); JSON and CSV have them all; --models narrows the battles to some models')


NOTE_WIN_PROBABILITY = NoteKind('cli.win-probability-column', 'info',
                                'P(A wins): predicted probability that model_a beats model_b (a tie counting half), with its bootstrap interval')


def _pairs(result, fmt: str, correction: str, notes: list) -> None:
    import numpy as np

    from .compare import _neighbours

    comp = result.comparison(correction=correction)
    frame = result.pairwise(correction=correction)
    if fmt in ("csv", "json"):
        show(frame, fmt, notes=[comp.decided_text()] + notes)
        return
    order = np.array([result.models.index(m) for m in result.to_frame()["model"]])
    rows = np.arange(len(frame))
    readings = []
    if len(frame) > PAIRS_SHOWN:
        rows = np.flatnonzero(_neighbours(comp, order))
        readings.append(NOTE_ARENA_PAIRS_SHOWN(value=len(rows), value2=len(frame)))
    readings = [comp.readings[i] for i in rows[:10]] + [comp.decided_text()] + readings
    cols = ["model_a", "model_b", "difference", "se", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict",
            "win_probability", "win_probability_low", "win_probability_high", "confidence_level",
            "interval_level", "correction"]  # the interval's header says its level and correction
    shown = frame.iloc[rows][[c for c in cols if c in frame.columns]]
    if fmt != "table-wide" and (shown["p_adjusted"] == shown["p_value"]).all():
        shown = shown.drop(columns="p_adjusted")
    if "win_probability" in shown:  # headed P(A wins), as in every table (evalband.display.HEADERS)
        readings.append(NOTE_WIN_PROBABILITY())
    points = points_note([(comp.statistic, result.display_scale)])
    from ..comparison.p_values import p_floor

    floor = p_floor(result.n_resamples)  # two-sided bootstrap p-values
    show(shown, fmt, notes=readings + ([points] if points else []) + notes,
         value_cols=("difference", "se", "ci_low", "ci_high"), scale=result.display_scale, p_floor=floor)
