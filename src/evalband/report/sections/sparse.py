"""The report's "Sparse leaderboard" section (registered in :data:`evalband.report.sections.SECTIONS` as 'sparse'):
when some model was not run on some task, every measured cell put to use by the latent-ability model, read from
an :class:`~evalband.latent.AbilityResult` (:func:`evalband.analysis.latent.sparse_extension`): the abilities'
forest with intervals, the coverage map of which model was measured where, the held-out check of the predictive
intervals (coverage and error), the ability table and the tasks' difficulties and slopes. It computes no
statistic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...display import (decimals_for, format_interval, format_level, format_p, format_percent,
                        format_rank_interval, format_signed, format_value)
from ...display.notes import NoteKind
from ..section import Section, Table

__all__ = ["sparse_section", "ability_rows", "holdout_rows", "cell_scores_report"]

#: an ability table longer than this is folded (the forest shows every model)
FOLD_ROWS = 40

_REFERENCES = (
    ("Epoch AI (2025). A Rosetta Stone for AI benchmarks (benchmark stitching). epoch-research/benchmark-stitching.",
     "https://github.com/epoch-research/benchmark-stitching"),
    ("Birnbaum, A. (1968). Some latent trait models and their use in inferring an examinee's ability. In Lord, F. M."
     " & Novick, M. R., Statistical Theories of Mental Test Scores. Addison-Wesley.", None),
    ("Klein, M., Wright, T. & Wieczorek, J. (2020). A joint confidence region for an overall ranking of"
     " populations. JRSS C 69, 589-606.", None),
)


def _digits(se) -> int:
    se = float(se)
    return decimals_for(se) if np.isfinite(se) and se > 0 else 2


def ability_rows(result) -> pd.DataFrame:
    """The abilities as display strings, best first (digits from each ability's standard error)."""
    level = f"{format_level(result.confidence_level)} CI"
    rows = []
    for x in result.to_frame().itertuples():
        d = _digits(x.se)
        rows.append({"rank": str(int(x.rank)), "model": str(x.model), "ability": format_value(float(x.ability), d),
                     level: format_interval(float(x.ci_low), float(x.ci_high), d),
                     "rank interval": format_rank_interval(x.rank_low, x.rank_high),
                     "P(best)": format_percent(x.p_best), "tasks": f"{int(x.n_tasks):,}", "flag": str(x.flag)})
    out = pd.DataFrame(rows)
    return out.drop(columns="flag") if (out["flag"] == "").all() else out


def _task_rows(result) -> pd.DataFrame:
    level = format_level(result.confidence_level)
    rows = []
    for x in result.tasks_frame().itertuples():
        dd = _digits((x.difficulty_high - x.difficulty_low) / 4)
        ds = _digits((x.slope_high - x.slope_low) / 4)
        rows.append({"task": str(x.task), "difficulty": format_value(float(x.difficulty), dd),
                     f"difficulty {level} CI": format_interval(float(x.difficulty_low), float(x.difficulty_high), dd),
                     "slope": format_value(float(x.slope), ds),
                     f"slope {level} CI": format_interval(float(x.slope_low), float(x.slope_high), ds),
                     "models": f"{int(x.n_models):,}", "flag": str(x.flag)})
    out = pd.DataFrame(rows)
    return out.drop(columns="flag") if (out["flag"] == "").all() else out


def holdout_rows(check, scale: float = 100.0) -> pd.DataFrame:
    """The held-out check as one row of display strings: cells, coverage with its exact interval, the binomial
    test, the errors of the predictions beside those of the tasks' means."""
    unit = " (points)" if scale == 100 else ""
    d = 1 if scale == 100 else 3
    return pd.DataFrame([{
        "cells held out": f"{check.n_cells:,}",
        f"coverage of {format_level(check.confidence_level)} predictive intervals":
            f"{format_percent(check.coverage)} ({format_percent(check.coverage_ci[0])}–"
            f"{format_percent(check.coverage_ci[1])})",
        "binomial test p": format_p(check.p_value),
        f"RMSE{unit}": format_value(check.rmse * scale, d), f"MAE{unit}": format_value(check.mae * scale, d),
        f"RMSE of the task means{unit}": format_value(check.baseline_rmse * scale, d)}])


def _adjacent_pairs(result, order) -> pd.DataFrame | None:
    frame = result.comparisons_frame()
    if frame.empty:
        return None
    pos = {result.models[k]: i for i, k in enumerate(order)}
    keep = np.array([abs(pos[a] - pos[b]) == 1 for a, b in zip(frame["model_a"], frame["model_b"])], dtype=bool)
    rows = []
    for x in frame.loc[keep].itertuples():
        d = _digits(x.se)
        rows.append({"model A": str(x.model_a), "model B": str(x.model_b),
                     "A − B": format_signed(float(x.difference), d),
                     "CI": format_interval(float(x.ci_low), float(x.ci_high), d, signed=True),
                     "verdict": str(x.verdict)})
    if not rows:
        return None
    rows.sort(key=lambda r: min(pos[r["model A"]], pos[r["model B"]]))
    return pd.DataFrame(rows)


def _findings(result, analysis, order, scale) -> list:
    level = format_level(result.confidence_level)
    cells = result.cells
    M, T = len(result.models), len(result.tasks)
    measured = int(cells["measured"].sum())
    out = []
    lacking = analysis.selection.left_out.lacking if analysis is not None else {}
    used = ""
    if analysis is not None and analysis.kind == "comparison" and lacking:
        gone = analysis.selection.left_out.cells_left_out(len(analysis.selection.models))
        kept = len(analysis.selection.tasks)
        used = (f" The comparison above uses the {kept} task{'s' if kept != 1 else ''} every model has and leaves"
                f" out {len(lacking)} task{'s' if len(lacking) != 1 else ''} ({gone:,} measured cells); this section"
                " uses every measured cell.")
    elif analysis is not None and analysis.kind == "summary":
        used = " The models share no task, so only this model can compare them."
    out.append(f"{measured:,} of {M * T:,} model-task cells were measured ({format_percent(measured / (M * T))})."
               + used)
    r = result.ranking
    best = int(order[0])
    d = _digits(r.se[best])
    out.append(f"{result.models[best]} has the highest ability, {format_value(float(result.ability[best]), d)}"
               f" ({level} interval {format_interval(float(r.ci.low[best]), float(r.ci.high[best]), d)}), with"
               f" P(best) {format_percent(r.p_best[best])} and ranks"
               f" {format_rank_interval(r.rank_ci.low[best], r.rank_ci.high[best])} plausible.")
    comp = result.comparisons_frame()
    if not comp.empty:
        decided = int(comp["verdict"].isin(("A better", "B better")).sum())
        out.append(f"{decided:,} of {len(comp):,} pairs of models differ in ability with confidence"
                   f" ({comp['correction'].iloc[0]} correction over the pairs).")
    check = result.holdout
    if check is not None and check.n_cells:
        low_cov = check.p_value < 0.05 and check.coverage < check.confidence_level
        high_cov = check.p_value < 0.05 and check.coverage > check.confidence_level
        verdict = ("the predictive intervals are too narrow for these data: read the abilities' intervals as a"
                   " lower bound on their uncertainty" if low_cov else
                   "the predictive intervals are wider than needed" if high_cov else
                   "consistent with the stated level")
        unit = " points" if scale == 100 else ""
        d = 1 if scale == 100 else 3
        out.append(f"Held-out check: {check.n_cells:,} measured cells left out of a refit; {format_percent(check.coverage)}"
                   f" of them fell inside their {format_level(check.confidence_level)} predictive intervals (binomial"
                   f" test p = {format_p(check.p_value)}: {verdict}). The predictions miss by"
                   f" {format_value(check.rmse * scale, d)}{unit} (RMSE), against"
                   f" {format_value(check.baseline_rmse * scale, d)}{unit} for each task's mean score.")
    weak_m = sum(1 for f in result.model_flags if f)
    weak_t = sum(1 for f in result.task_flags if f)
    if weak_m or weak_t:
        parts = [f"{weak_m} model{'s' if weak_m != 1 else ''}" if weak_m else "",
                 f"{weak_t} task{'s' if weak_t != 1 else ''}" if weak_t else ""]
        out.append(f"Weakly identified: {' and '.join(p for p in parts if p)} (measured on one task or model, or"
                   " saturated; named in the tables' flag columns).")
    return out


def _matrices(result):
    """The measured scores (M, T), NaN where not measured, and the held-out cells (M, T) or None."""
    M, T = len(result.models), len(result.tasks)
    observed = result.cells["observed"].to_numpy(dtype=float).reshape(M, T)  # rows model by model (cells frame)
    held = None
    if result.holdout is not None and result.holdout.n_cells:
        mi = {m: k for k, m in enumerate(result.models)}
        ti = {t: k for k, t in enumerate(result.tasks)}
        held = np.zeros((M, T), dtype=bool)
        h = result.holdout.cells
        held[[mi[m] for m in h["model"]], [ti[t] for t in h["task"]]] = True
    return observed, held


def sparse_section(result, analysis=None) -> Section | None:
    """The "Sparse leaderboard" section from an AbilityResult (module doc)."""
    from ..build import Figure
    from ..plots import forest_plot
    from ..plots.latent import coverage_map, holdout_plot

    r = result.ranking
    order = np.lexsort((r.rank_mean, r.rank))
    level = format_level(result.confidence_level)
    scale = 100.0 if result.data_kind in ("counts", "items") else 1.0
    what = {"sigmoid": "score = sigmoid(slope × (ability − difficulty)), a curve per task",
            "rasch": "score = sigmoid(ability − difficulty), every slope 1",
            "2pl": "the 2PL model of every item response"}[result.model]
    figures = [Figure("sparse-abilities", "Latent abilities with their intervals",
                      f"Dots: each model's latent ability ({result.identification}). Bars: {level} bootstrap"
                      " intervals. Every measured cell counts, whichever tasks a model was run on; best at the top.",
                      forest_plot(result.models, result.ability, r.ci, None, scale=1.0, xlabel="latent ability",
                                  confidence_level=result.confidence_level, order=order).figure)]
    observed, held = _matrices(result)
    figures.append(Figure("sparse-coverage", "Which model was measured on which task",
                          "Each row a model (highest ability at the top), each column a task; a coloured cell was"
                          " measured (colour: its score), a blank one was not"
                          + (", a ringed one was held out for the model check." if held is not None else "."),
                          coverage_map(result.models, result.tasks, observed, held_out=held, order=order,
                                       scale=scale).figure))
    tables = [Table(f"Latent abilities, best first ({level} intervals, marginal rank intervals)",
                    ability_rows(result), key="sparse-abilities", folded=len(result.models) > FOLD_ROWS)]
    check = result.holdout
    if check is not None and check.n_cells:
        c = check.cells
        figures.append(Figure("sparse-holdout", "Held-out check of the predictions",
                              f"Each of the {check.n_cells:,} held-out cells: its measured score against the"
                              " prediction of a refit without it, with the predictive interval as a bar; orange:"
                              " the interval misses the measured score.",
                              holdout_plot(c["observed"], c["predicted"], c["pi_low"], c["pi_high"], c["covered"],
                                           scale=scale, confidence_level=check.confidence_level).figure))
        tables.append(Table("Held-out check: coverage of the predictive intervals and error of the predictions",
                            holdout_rows(check, scale), key="sparse-holdout"))
    pairs = _adjacent_pairs(result, order)
    if pairs is not None:
        tables.append(Table("Neighbouring models in the ability ranking: difference of abilities", pairs,
                            key="sparse-pairs", folded=True))
    tables.append(Table("Tasks: difficulty and slope, easiest first", _task_rows(result), key="sparse-tasks",
                        folded=True))
    share = f"{check.fraction:.0%}" if check is not None else "a share"
    methods = (
        f"Latent-ability model ({what}) fitted to every measured model-task cell by regularized maximum likelihood"
        f" (MAP under weak Gaussian priors), loss {result.loss}; {result.identification}.",
        "Uncertainty from " + (f"{result.n_resamples:,} bootstrap refits at the level the data were sampled"
                               if result.uncertainty == "bootstrap" else
                               f"{result.n_resamples:,} draws from the observed information")
        + "; ranks, rank intervals and P(best) from the same replicates; pairwise differences with max-t"
          " simultaneous intervals.",
        f"Held-out check: a random {share} of the measured cells (never a model's or task's last) left out, the"
        " model refitted, and the share of their measured scores inside their predictive intervals (parameter"
        " uncertainty plus the cells' noise) compared with the stated level by a binomial test.",
    )
    return Section("sparse", "Sparse leaderboard",
                   "Not every model was run on every task: a latent-ability model puts every measured cell to use,"
                   " placing all models on one scale with intervals, and checks itself on cells held out.",
                   findings=tuple(_findings(result, analysis, order, scale)), tables=tuple(tables),
                   figures=tuple(figures), methods=methods, references=_REFERENCES, notes=tuple(result.notes))


NOTE_CELL_SCORES_REPORT = NoteKind(
    "report.cell-scores-only", "info",
    "one score per model and task, without items or counts: the report shows what such data support, the sparse"
    " leaderboard (latent abilities, coverage, held-out check); {sections} need item-level results (model, task,"
    " item, score) or counts (n, correct)")
#: the sections of a report that cell scores cannot give, and why
NEEDS_ITEMS = ("scores and ranks with bootstrap intervals", "pairwise comparisons", "per-task intervals",
               "Bayesian intervals", "task weights", "item diagnostics")


def cell_scores_report(result, *, seed: int, command=None, timestamp=None):
    """The :class:`~evalband.report.build.Report` of cell scores (one score per model and task, no items or counts):
    the data summary and the "Sparse leaderboard" section of the :class:`~evalband.latent.AbilityResult`
    ``result`` (fitted with its held-out check), with a note naming the sections that need item-level data.
    Renders only."""
    import platform

    import evalband

    from ..build import Report, _stamp, report_title

    cells = result.cells
    M, T = len(result.models), len(result.tasks)
    measured = int(cells["measured"].sum())
    source = str(getattr(result, "source", None) or "cell scores")
    note = NOTE_CELL_SCORES_REPORT(sections=", ".join(NEEDS_ITEMS))
    per_model = cells.groupby("model", sort=False)["measured"].sum()
    spread = f"{int(per_model.min())}–{int(per_model.max())}" if per_model.min() != per_model.max() else \
        f"{int(per_model.min())}"
    description = (f"{measured:,} measured scores of {M} models on {T} tasks ({format_percent(measured / (M * T))}"
                   f" of the cells; {spread} tasks per model), one score in [0, 1] per model and task, without items"
                   " or counts.")
    reproduce = {"command": command or "(API call: evalband.report.build_report)", "seed": int(seed),
                 "evalband": evalband.__version__, "n_resamples": result.n_resamples,
                 "confidence_level": result.confidence_level, "aggregate": "latent ability",
                 "python": platform.python_version(), "numpy": np.__version__}
    report = Report(
        title=report_title(source), source=source, description=description, notes=(note,),
        attribution=getattr(result, "attribution", None), coverage=pd.DataFrame(), ranking=result.to_frame(),
        pairs=pd.DataFrame(), per_task=pd.DataFrame(), weights=None, bayes=None, findings=[], methods=[],
        references=[], figures=[], reproduce=reproduce, timestamp=_stamp(timestamp),
        sections_skipped=[f"{s}: needs item-level results or counts." for s in NEEDS_ITEMS], scale=1.0,
        kind="cells")
    report.add_section(sparse_section(result))
    return report
