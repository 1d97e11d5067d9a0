"""The report of pairwise battles: a preference leaderboard (:class:`~evalband.preferences.ArenaResult`) as report
sections: the ratings with their intervals, the predicted win probabilities, the rank distributions and, when
fitted, the style coefficients; findings in plain words, methods and references. Nothing here computes a
statistic: every number is read from the result, and rounded by :mod:`evalband.display`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..display import (decimals_for, format_interval, format_percent, format_rank_interval, format_signed,
                       format_value)
from .section import Section, Table

__all__ = ["arena_section", "preference_report", "PAIRS_SHOWN"]

#: a table of every pair up to this many pairs; else the neighbours in the ranking
PAIRS_SHOWN = 45

_REFERENCES = {
    "bt": ("R. A. Bradley, M. E. Terry (1952). Rank analysis of incomplete block designs: I. The method of paired "
           "comparisons. Biometrika 39, 324-345.", None),
    "arena": ("W.-L. Chiang et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human "
              "preference. ICML. arXiv:2403.04132.", "https://arxiv.org/abs/2403.04132"),
    "cluster": ("C. A. Field, A. H. Welsh (2007). Bootstrapping clustered data. JRSS B 69, 369-390.", None),
    "hard": ("T. Li et al. (2024). From crowdsourced data to high-quality benchmarks: Arena-Hard and BenchBuilder. "
             "arXiv:2406.11939.", "https://arxiv.org/abs/2406.11939"),
    "rao-kupper": ("P. V. Rao, L. L. Kupper (1967). Ties in paired-comparison experiments: a generalization of "
                   "the Bradley-Terry model. JASA 62, 194-204.", None),
    "davidson": ("R. R. Davidson (1970). On extending the Bradley-Terry model to accommodate ties in paired "
                 "comparison experiments. JASA 65, 317-328.", None),
    "lc": ("Y. Dubois et al. (2024). Length-controlled AlpacaEval: a simple way to debias automatic evaluators. "
           "arXiv:2404.04475.", "https://arxiv.org/abs/2404.04475"),
    "ranks": ("M. Klein, T. Wright, J. Wieczorek (2020). A joint confidence region for an overall ranking of "
              "populations. JRSS C 69, 589-606.", None),
}


def _digits(se, scale) -> int:
    return decimals_for(abs(float(se)) * scale) if np.isfinite(se) and se > 0 else 1


def _value(x, d, scale) -> str:
    return format_value(float(x) * scale, d)


def _ci(lo, hi, d, scale) -> str:
    return format_interval(float(lo) * scale, float(hi) * scale, d)


def _unit(res) -> str:
    if res.method == "win-rate":
        return "win rate (points)"
    return {"elo": "rating (Elo points)", "logit": "rating (logits)", "prob": "strength (points of 100)"}[res.scale]


def _order(res, frame) -> np.ndarray:
    return np.array([res.models.index(m) for m in frame["model"]])


def rating_rows(res, frame) -> pd.DataFrame:
    """The leaderboard as display strings, best first."""
    scale = res.display_scale
    level = f"{res.confidence_level:.0%} CI"
    rows = []
    for _, x in frame.iterrows():
        d = _digits(x["se_bootstrap"] if "se_bootstrap" in frame else x["se"], scale)
        row = {"rank": str(int(x["rank"])), "model": str(x["model"]), _unit(res): _value(x["rating"], d, scale),
               level: _ci(x["ci_low"], x["ci_high"], d, scale),
               "rank interval": format_rank_interval(x["rank_low"], x["rank_high"]),
               "P(best)": format_percent(x["p_best"]), "tier": str(int(x["tier"])),
               "battles": f"{int(x['n_battles']):,}", "wins": f"{int(x['n_wins']):,}",
               "ties": f"{int(x['n_ties']):,}"}
        if res.rating_raw is not None:
            row["without style control"] = (f"{_value(x['rating_raw'], d, scale)} "
                                            f"{_ci(x['ci_low_raw'], x['ci_high_raw'], d, scale)}")
        rows.append(row)
    return pd.DataFrame(rows)


def pair_rows(res, pairs, keep) -> pd.DataFrame:
    """Pairs as display strings: the difference with its interval, the verdict, P(A beats B)."""
    scale = res.display_scale
    rows = []
    for _, x in pairs.loc[keep].iterrows():
        d = _digits(x["se"], scale)
        row = {"model A": str(x["model_a"]), "model B": str(x["model_b"]),
               "A − B": format_signed(float(x["difference"]) * scale, d),
               "CI": format_interval(float(x["ci_low"]) * scale, float(x["ci_high"]) * scale, d, signed=True),
               "verdict": str(x["verdict"])}
        if "win_probability" in pairs:
            row["P(A beats B)"] = (f"{format_value(100 * x['win_probability'], 0)}% "
                                   f"({format_value(100 * x['win_probability_low'], 0)}–"
                                   f"{format_value(100 * x['win_probability_high'], 0)}%)")
        rows.append(row)
    return pd.DataFrame(rows)


def _neighbours(frame, pairs) -> np.ndarray:
    pos = {m: k for k, m in enumerate(frame["model"])}
    return np.array([abs(pos[a] - pos[b]) == 1 for a, b in zip(pairs["model_a"], pairs["model_b"])], dtype=bool)


def arena_section(res, analysis) -> Section:
    """The leaderboard section: ratings forest and table, the pairs that matter, in plain words."""
    from . import plots
    from ._build import Figure

    frame = res.to_frame()
    order = _order(res, frame)
    level = res.confidence_level
    readings = res.readings()
    figures = [Figure("arena-ratings", "Ratings with their intervals",
                      f"Dots: {_unit(res)}. Bars: {level:.0%} bootstrap percentile intervals"
                      f" ({_resampled(res)}); the ranking's best model is at the top.",
                      plots.forest_plot(res.models, res.rating, res.ranking.ci, None, scale=res.display_scale,
                                        xlabel=_unit(res), confidence_level=level, order=order).figure)]
    pairs = res.pairwise(correction="max-t")
    keep = np.ones(len(pairs), dtype=bool) if len(pairs) <= PAIRS_SHOWN else _neighbours(frame, pairs)
    which = "every pair" if keep.all() else "neighbours in the ranking"
    tables = (Table(f"The leaderboard, best first: {_unit(res)} with {level:.0%} intervals, rank intervals"
                    " (bootstrap percentile of each model's rank), P(best) and tiers.", rating_rows(res, frame),
                    key="ratings"),
              Table(f"Pairs ({which}): the difference of the two ratings with its simultaneous (max-t) interval,"
                    " which holds for all pairs at once, the verdict, and the predicted probability that A beats B"
                    " (a tie counting half).",
                    pair_rows(res, pairs, keep), key="pairs"))
    return Section("arena", "Preference leaderboard",
                   f"{_what(res)} of {len(res.models)} models from {res.n_battles:,} battles, with intervals from"
                   f" one bootstrap ({_resampled(res)}).",
                   findings=tuple(r for r in readings[3:] if " vs " in r),
                   tables=tables, figures=tuple(figures))


def _what(res) -> str:
    from ..preferences.result import METHOD_NAMES

    if res.method == "win-rate":
        return "Win rates" + (f" against {res.baseline}" if res.baseline else " averaged over opponents")
    return f"{METHOD_NAMES[res.method]} ratings" + (" with style control" if res.style is not None else "")


def _resampled(res) -> str:
    if res.cluster:
        return f"{res.n_units:,} {res.unit_name} resampled whole, {res.n_resamples:,} replicates"
    return f"battles resampled independently, {res.n_resamples:,} replicates"


def win_section(res) -> Section | None:
    """The matrix of predicted win probabilities."""
    if res.win_probability is None:
        return None
    from ._build import Figure
    from .plot_preferences import win_probability_matrix

    frame = res.to_frame()
    order = _order(res, frame)
    ci = res.win_probability_ci
    ax = win_probability_matrix(res.models, res.win_probability, ci.low, ci.high, order=order)
    fig = Figure("arena-win-probability", "Predicted win probabilities",
                 "Cell: the fitted model's probability that the row model beats the column model (a tie counting"
                 f" half), in percent. Coloured where its {res.confidence_level:.0%} bootstrap interval excludes"
                 " 50%; grey where it does not.", ax.figure)
    tables = ()
    if len(res.models) <= 12:
        names = list(frame["model"])
        cells = {b: [("" if a == b else f"{format_value(100 * res.win_probability[i, j], 0)}% "
                      f"({format_value(100 * ci.low[i, j], 0)}–{format_value(100 * ci.high[i, j], 0)})")
                     for a, i in zip(names, order)] for b, j in zip(names, order)}
        tables = (Table("P(row beats column), percent, with its interval.",
                        pd.DataFrame({"model": names, **cells}), key="win-probability"),)
    return Section("arena-win", "Who beats whom",
                   "The fitted model's predicted probability that one model beats another, from the same"
                   " replicates as the ratings.", tables=tables, figures=(fig,))


def rank_section(res) -> Section:
    from . import plots
    from ._build import Figure

    r = res.ranking
    ax = plots.rank_distribution_plot(res.models, r.distribution, r.rank_ci)
    fig = Figure("arena-ranks", "Rank distributions",
                 "Share of bootstrap replicates in which each model takes each rank; orange bars:"
                 f" {res.confidence_level:.0%} rank intervals; ticks: mean rank.", ax.figure)
    top = int((r.tier == 1).sum())
    return Section("arena-ranks", "Ranks and their uncertainty",
                   "How sure the ranking is: each model's rank in every bootstrap replicate.",
                   findings=(f"{top} of {len(res.models)} models are in the top tier: no simultaneous"
                             f" ({r.simultaneous}) interval separates them from the leader or from each other's"
                             " tier.",), figures=(fig,))


def style_section(res) -> Section | None:
    """The style coefficients and the ratings with and without style control."""
    if res.style is None:
        return None
    from . import plots
    from ._build import Figure

    lvl = f"{res.confidence_level:.0%} CI"
    coef = pd.DataFrame({"feature": res.style["feature"].astype(str),
                         "coefficient": [format_signed(c, decimals_for(s)) for c, s in
                                         zip(res.style["coefficient"], res.style["se"])],
                         lvl: [format_interval(lo, hi, decimals_for(s), signed=True) for lo, hi, s in
                               zip(res.style["ci_low"], res.style["ci_high"], res.style["se"])],
                         "SE": [format_value(s, decimals_for(s) + 1) for s in res.style["se"]]})
    frame = res.to_frame()
    order = _order(res, frame)
    ax = plots.interval_comparison_plot(res.models, {"style-controlled": res.ranking.ci,
                                                     "without style control": res.rating_raw_ci},
                                        {"style-controlled": res.rating, "without style control": res.rating_raw},
                                        scale=res.display_scale, xlabel=_unit(res), order=order)
    fig = Figure("arena-style", "Ratings with and without style control",
                 f"{res.confidence_level:.0%} bootstrap intervals of each model's rating with the style"
                 " differences held at zero, beside the plain fit (the same replicates).", ax.figure)
    findings = tuple(r for r in res.readings() if r.startswith("style "))
    return Section("arena-style", "Style control",
                   "How much answer style (length, markdown) sways the judgments, and the ratings once it is held"
                   " fixed.", findings=findings,
                   tables=(Table("Style coefficients: log-odds of winning per standard deviation of the normalized"
                                 " style difference.", coef, key="style"),), figures=(fig,))


def _methods(res) -> list[str]:
    from ..preferences.result import METHOD_NAMES

    out = []
    if res.method == "win-rate":
        out.append("Win rate: the mean preference for the model over its battles" +
                   (f" against {res.baseline} (AlpacaEval's definition; a tie is one half)" if res.baseline else
                    " averaged over its opponents (HELM's mean win rate)") + ".")
    else:
        ties = {"half": "a tie counts as half a win for each side (as evalica and FastChat)",
                "drop": "ties are left out", "rao-kupper": "ties follow the Rao-Kupper model",
                "davidson": "ties follow Davidson's model"}[res.ties]
        out.append(f"{METHOD_NAMES[res.method]}: exact maximum likelihood (Newton's method); {ties}. Ratings on the"
                   f" {res.scale} scale" + (" (400/ln 10 Elo points per logit)" if res.scale == "elo" else "") + ".")
    if res.style is not None:
        out.append("Style control: a contextual Bradley-Terry model with the normalized style differences as"
                   " covariates (Chatbot Arena's style control); ratings are the model strengths with the style"
                   " differences at zero.")
    out.append(f"Uncertainty: {res.n_resamples:,} bootstrap replicates, " +
               (f"resampling whole {res.unit_name} (battles on one question are not independent)" if res.cluster
                else "resampling battles as if independent") +
               f"; {res.confidence_level:.0%} {res.interval} intervals. Ranks, rank intervals, P(best), tiers, pairwise"
               " verdicts and win probabilities all come from the same replicates.")
    out.append("Pairs: the difference of two ratings with a simultaneous (max-t) bootstrap interval, holding for"
               " all pairs at once; 'A better' when it excludes zero, 'not yet decided' otherwise. Separability counts"
               " the pairs whose own (pointwise) interval excludes zero, so it is at least the share decided.")
    return out


def _references(res) -> list:
    keys = ["bt", "arena", "cluster", "ranks"]
    if res.method in ("rao-kupper", "davidson"):
        keys.insert(1, res.method)
    if res.baseline or res.method == "win-rate":
        keys.append("hard")
    if res.length_control:
        keys.append("lc")
    return [_REFERENCES[k] for k in keys]


def _description(table) -> str:
    labels = "; ".join(f"{len(set(map(str, v))):,} {k}{'s' if k != 'judge' else 's'}" for k, v in table.labels.items())
    features = f"; style features: {', '.join(sorted(table.features))}" if table.features else ""
    return (f"{table.n_battles:,} pairwise battles among {table.n_models} models ({int(table.tie.sum()):,} ties)"
            + (f"; {labels}" if labels else "") + features + ".")


def preference_report(a, *, command, timestamp):
    """The :class:`~evalband.report._build.Report` of an analysis of kind 'preference' (module doc)."""
    from ._build import Report, _reproduce, _stamp, report_title
    from .sections import sections_for

    res = a.preference
    table = a.selection.table
    readings = res.readings()
    findings = [readings[0], *readings[1:3], *(r for r in readings[3:] if r.startswith(("style ", "tie ")))]
    report = Report(
        title=report_title(table.source).replace("evalband report", "evalband preference report"),
        source=str(table.source),
        description=_description(table), notes=tuple(res.notes), attribution=None, coverage=pd.DataFrame(),
        ranking=res.to_frame(), pairs=res.pairwise(correction="max-t"), per_task=pd.DataFrame(), weights=None,
        bayes=None, findings=findings, methods=_methods(res), references=_references(res), figures=[],
        reproduce=_reproduce(a, command), timestamp=_stamp(timestamp),
        sections_skipped=[f"{s}: {why}." for s, why in a.skipped],
        analysis_notes=tuple(n for n in a.notes if n not in res.notes), scale=float(res.display_scale),
        kind="preference")
    for section in [*sections_for(a), win_section(res), rank_section(res), style_section(res)]:
        if section is not None:
            report.add_section(section)
    return report
