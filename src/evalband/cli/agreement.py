"""``evalband agreement``: how much raters (judges, humans) agree, with bootstrap intervals; each judge against a
reference; position and length bias of pairwise judges where the file has the columns for them."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import ConfidenceOpt, FormatOpt, SeedOpt, WideOpt, check_input_path, errors, output_format, \
    parse_confidence, parse_list, resolve_seed, show, note_text, \
    NResamplesOpt, n_resamples_for
from ..display.notes import NoteKind

RatingsPathArg = Annotated[str, typer.Argument(help="Ratings file (CSV, TSV, JSON Lines, Parquet) or - for standard"
                                               " input: long (unit, rater, value) or wide (one column per rater).",
                                               show_default=False)]
UnitColOpt = Annotated[str, typer.Option("--unit-col", help="Column of the rated unit (an item, or a pair of"
                                         " answers for pairwise judgements).")]
RaterColOpt = Annotated[str, typer.Option("--rater-col", help="Long shape: column of the rater.")]
ValueColOpt = Annotated[str, typer.Option("--value-col", help="Long shape: column of the rating.")]
RatingShapeOpt = Annotated[str, typer.Option("--shape", help="long (one row per unit and rater) or wide (one row"
                                             " per unit, one column per rater).")]
LevelOpt = Annotated[str, typer.Option("--level", help="Level of measurement: auto (detected, said in a note),"
                                       " nominal, ordinal, interval or ratio.")]
RatingClusterOpt = Annotated[Optional[str], typer.Option("--cluster", help="Column naming each unit's cluster"
                                                         " (prompt, passage): whole clusters are resampled.",
                                                         show_default=False)]
RatersOpt = Annotated[Optional[str], typer.Option("--raters", help="Comma-separated raters to keep (wide shape:"
                                                  " the rater columns).", show_default=False)]
ReferenceOpt = Annotated[Optional[str], typer.Option("--reference", help="Judge the other raters against this one"
                                                     " (e.g. human), or against the 'majority' (or 'mean') of the"
                                                     " raters not listed in --judges.", show_default=False)]
JudgesOpt = Annotated[Optional[str], typer.Option("--judges", help="With --reference: the raters judged (default"
                                                  " every other rater).", show_default=False)]

#: display names of the coefficients
NAMES = {"krippendorff_alpha": "Krippendorff's alpha", "fleiss_kappa": "Fleiss' kappa",
         "percent_agreement": "percent agreement", "gwet_ac1": "Gwet's AC1", "cohen_kappa": "Cohen's kappa",
         "cohen_kappa_linear": "Cohen's kappa (linear)", "cohen_kappa_quadratic": "Cohen's kappa (quadratic)",
         "accuracy": "accuracy", "mean_bias": "mean bias (judge - reference)",
         "mean_absolute_error": "mean absolute error"}
_VALUES = ("estimate", "se", "ci_low", "ci_high")
BIAS_NAMES = {"first_position_win_rate": "first-position win rate", "position_consistency": "same answer both orders",
              "first_position_vs_reference": "minus the reference, same games"}


NOTE_BOOTSTRAP_REPLICATES_OVER_INTERVALS = NoteKind(
    'cli.bootstrap-replicates-over-intervals', 'info',
    '{seed_text}, {n_resamples:,} bootstrap replicates over {value}; {method} intervals')
NOTE_JUDGES_ERRORS_WORTH_INDEPENDENT = NoteKind(
    'cli.judges-errors-worth-independent', 'info',
    "the {n_judges} judges' errors are worth {effective_judges:.2f} independent judges ({value}); error "
    "correlations in the JSON")


def agreement(
    path: RatingsPathArg,
    unit_col: UnitColOpt = "unit",
    rater_col: RaterColOpt = "rater",
    value_col: ValueColOpt = "value",
    shape: RatingShapeOpt = "long",
    level: LevelOpt = "auto",
    cluster: RatingClusterOpt = None,
    raters: RatersOpt = None,
    reference: ReferenceOpt = None,
    judges: JudgesOpt = None,
    n_resamples: NResamplesOpt = None,
    confidence: ConfidenceOpt = "0.95",
    seed: SeedOpt = None,
    fmt: FormatOpt = "table",
    wide: WideOpt = False,
):
    """Agreement between raters: Krippendorff's alpha, Fleiss' kappa, Cohen's kappa per pair, percent agreement
    and Gwet's AC1, each with a seeded bootstrap interval over units (whole clusters with --cluster).

    With --reference, each judge against it: accuracy, kappa, mean bias (numeric ratings) with intervals, the
    confusion matrix, the correlation of the judges' errors and the effective number of independent judges.
    Files of pairwise judgements with 'left' and 'right' columns (the answers in the order shown) also get each
    judge's position bias. JSON: krippendorff_alpha, ci_low, ci_high and the records. Example:
    evalband agreement codings.csv --level nominal --seed 1
    """
    with errors():
        check_input_path(path)  # before the heavy imports
    import numpy as np

    from ..display import json_dumps, json_records
    from ..judges import agreement as agree
    from ..selection import select

    with errors(n_resamples="--n-resamples", cluster="--cluster", reference="--reference", level="--level", measurement="--level",
                shape="--shape", unit_col="--unit-col", rater_col="--rater-col", value_col="--value-col"):
        fmt = output_format(fmt, wide)
        seed, seed_text = resolve_seed(seed)
        sel = select(path, source="ratings", unit_col=unit_col, rater_col=rater_col, value_col=value_col,
                     shape=shape, measurement=level, cluster_col=cluster, raters=parse_list(raters, name="raters"))
        res = agree(sel, measurement=level, reference=reference, judges=parse_list(judges, name="judges"),
                    n_resamples=n_resamples_for("refit", n_resamples), confidence_level=parse_confidence(confidence),
                    rng=seed)
        # the library's notes in this command's words (level= -> --level, reference= -> --reference)
        notes = [note_text(n, {"level": "--level", "measurement": "--level", "reference": "--reference", "cluster_col": "--cluster",
                                 "judges": "--judges", "raters": "--raters"}) for n in res.notes]
        notes.append(NOTE_BOOTSTRAP_REPLICATES_OVER_INTERVALS(seed_text=seed_text, n_resamples=res.n_resamples, value='clusters' if res.n_clusters else 'units', method=res.method))
        bias = _position_bias(path, shape, rater_col, value_col, cluster, reference, judges, res, seed, notes)
        coef = res.to_frame()
        ref = res.reference
        if fmt == "json":
            k = res.statistic.index("krippendorff_alpha")
            out = {"krippendorff_alpha": float(res.estimate[k]), "ci_low": float(res.ci.low[k]),
                   "ci_high": float(res.ci.high[k]), "level": res.level, "n_raters": res.n_raters,
                   "n_units": int(res.n_units[k]), "n_ratings": res.n_ratings,
                   "confidence_level": res.confidence_level, "seed": seed, "records": json_records(coef)}
            if ref is not None:
                out["reference"] = {"reference": ref.reference, "records": json_records(ref.to_frame()),
                                    "confusion": {j: {str(r): {str(c): int(v) for c, v in row.items()}
                                                      for r, row in m.iterrows()} for j, m in ref.confusion.items()},
                                    "error_correlation": json_records(ref.error_correlation),
                                    "effective_judges": ref.effective_judges,
                                    "effective_judges_ci_low": ref.effective_judges_ci.low,
                                    "effective_judges_ci_high": ref.effective_judges_ci.high}
            if bias is not None:
                out["position_bias"] = json_records(bias.to_frame())
            from ._common import emit_json

            emit_json(json_dumps(out), notes)
            return
        if fmt == "csv":
            import pandas as pd

            parts = [coef.assign(section="agreement")]
            if ref is not None:
                parts.append(ref.to_frame().rename(columns={"judge": "rater_a"}).assign(
                    rater_b=ref.reference, section="reference"))
            if bias is not None:
                parts.append(bias.to_frame().assign(section="position_bias"))
            show(pd.concat(parts, ignore_index=True), fmt, notes=notes)
            return
        shown = coef.assign(statistic=coef["statistic"].map(NAMES).fillna(coef["statistic"]))
        pairs = shown["rater_a"] != ""
        shown.insert(1, "raters", np.where(pairs, shown["rater_a"] + " / " + shown["rater_b"], "all"))
        shown = shown[["statistic", "raters", *_VALUES, "n_units", "confidence_level"]]
        tables = [(shown, f"agreement of {res.n_raters} raters on {res.n_ratings:,} ratings (level {res.level})")]
        if ref is not None:
            rf = ref.to_frame()
            rf = rf.assign(statistic=rf["statistic"].map(NAMES).fillna(rf["statistic"]))
            tables.append((rf[["judge", "statistic", *_VALUES, "n_units"]].assign(
                confidence_level=ref.confidence_level), f"each judge against {ref.reference}"))
            if len(ref.judges) > 1:
                notes.append(NOTE_JUDGES_ERRORS_WORTH_INDEPENDENT(n_judges=len(ref.judges), effective_judges=ref.effective_judges, value=_ci(ref.effective_judges_ci)))
        if bias is not None:
            bf = bias.to_frame()
            bf = bf.assign(statistic=bf["statistic"].map(BIAS_NAMES).fillna(bf["statistic"]))
            tables.append((bf[[c for c in ("judge", "statistic", "design", *_VALUES, "n_units")
                               if c in bf.columns]].assign(confidence_level=bias.confidence_level),
                           "position bias (first answer's win rate; 0.5 = none)"))
        for k, (frame_k, title) in enumerate(tables):
            last = k == len(tables) - 1
            show(frame_k, fmt, title=title, notes=notes if last and ref is None else ())
        if ref is not None:
            for judge, matrix in ref.confusion.items():
                cm = matrix.reset_index()
                cm.columns = [f"{ref.reference} \\ {judge}", *map(str, matrix.columns)]
                show(cm, fmt, value_cols=(), se_col=None, title=f"confusion: {judge} against {ref.reference}",
                     notes=notes if judge == list(ref.confusion)[-1] else ())


def _ci(ci) -> str:
    return f"CI {float(ci.low):.2f} to {float(ci.high):.2f}"


NOTE_POSITION_BIAS_RATERS_JUDGEMENTS = NoteKind(
    'cli.position-bias-raters-judgements', 'info',
    "position bias: the {n_raters} raters' judgements pooled (name the judges to separate with --judges)")


def _position_bias(path, shape, rater_col, value_col, cluster, reference, judges, res, seed, notes):
    """Each judge's position bias when the file holds pairwise judgements in shown order ('left' and 'right'
    columns, verdicts 'left' / 'right' / 'tie'); None otherwise (and for standard input, read once already)."""
    from ..io.tabular import load_frame
    from ..judges import position_bias

    if shape != "long" or path == "-" or not _has_positions(path):
        return None
    frame = load_frame(path)[0]
    if value_col not in frame.columns or rater_col not in frame.columns:
        return None
    values = set(frame[value_col].dropna().astype(str).str.lower())
    if not values or not values <= {"left", "right", "tie"}:
        return None
    import numpy as np

    rater = frame[rater_col].astype(str)
    chosen = parse_list(judges, name="judges") if judges else None
    ref = None
    if chosen:  # the judges named; the others pooled as the crowd (the reference when it is their consensus)
        if reference in ("majority", "mean"):
            who, ref = np.where(rater.isin(chosen), rater, "crowd"), "crowd"
        elif reference is not None:
            keep = rater.isin([*chosen, reference])
            frame, rater = frame.loc[keep], rater.loc[keep]
            who, ref = rater.to_numpy(), reference
        else:
            who = np.where(rater.isin(chosen), rater, "other raters")
    elif res.n_raters <= 10:
        who = rater.to_numpy()
        ref = reference if reference in set(rater) else None
    else:
        who = np.full(len(frame), "all raters", dtype=object)
        notes.append(NOTE_POSITION_BIAS_RATERS_JUDGEMENTS(n_raters=res.n_raters))
    data = frame.assign(_judge=who)
    result = position_bias(data, first_col="left", second_col="right", winner_col=value_col, item_col=cluster,
                           judge_col="_judge", reference=ref, cluster_col=cluster, n_resamples=res.n_resamples,
                           confidence_level=res.confidence_level, rng=seed)
    notes.extend(n for n in result.notes if n not in notes)
    return result


def _has_positions(path) -> bool:
    """Whether a CSV or TSV file's header names 'left' and 'right' columns (read from its first line only)."""
    import csv
    import os

    if not str(path).lower().endswith((".csv", ".tsv")) or not os.path.isfile(path):
        return False
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        header = next(csv.reader(fh, delimiter="\t" if str(path).lower().endswith(".tsv") else ","), [])
    return {"left", "right"} <= {h.strip() for h in header}
