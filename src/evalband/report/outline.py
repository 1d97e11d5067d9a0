"""The outline of a report: its sections in reading order, each a :class:`~evalband.report.section.Section`
(title, anchor, one sentence saying what it shows, findings, tables of display strings, figures, notes).

The HTML, Markdown and LaTeX renderers lay out this one list alike, with a table of contents at the top; the
capability sections a report gained (:meth:`Report.add_section`) take their place after the core ones. Methods,
references and the reproducing command close every report (the renderer writes them from the report).
"""

from __future__ import annotations

from ..display import format_level
from .section import Section, Table
from .tables import (bayes_table, cd_groups_table, coverage_table, pairs_table, passk_table, ranking_table,
                     summary_table, task_table, weights_table)

__all__ = ["outline", "MAX_PAIRS_SHOWN", "slug"]

#: more pairs than this: the pairwise section shows neighbours in the ranking, all pairs folded below
MAX_PAIRS_SHOWN = 45


def slug(title: str) -> str:
    """The anchor GitHub and most Markdown renderers give a heading: lower case, punctuation dropped, spaces to
    hyphens (``'Scores and ranks'`` -> ``'scores-and-ranks'``)."""
    import re

    text = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return re.sub(r" ", "-", text)


def _figures(report, *keys):
    figs = {f.key: f for f in report.figures}
    return tuple(figs[k] for k in keys if k in figs)


def _data(report) -> Section:
    notes = list(report.notes) + [n for n in report.analysis_notes if n not in report.notes]
    coverage = () if report.coverage is None or report.coverage.empty else (
        Table("Coverage per model", coverage_table(report), key="coverage", folded=True),)
    return Section("data", "Data", report.description, text=(report.attribution,) if report.attribution else (),
                   tables=coverage, notes=tuple(notes))


def outline(report) -> list[Section]:
    """The sections of ``report`` in reading order (core sections, then the capability sections)."""
    level = format_level(report.reproduce["confidence_level"])
    aggregate = report.reproduce["aggregate"]
    unit = " (points)" if report.scale == 100 else ""
    out = []
    if report.findings:
        out.append(Section("findings", "Findings", "What the data say, in plain words; every number comes with its"
                           f" {level} interval.", findings=tuple(report.findings)))
    out.append(_data(report))
    if report.kind in ("preference", "cells"):  # battles, cell scores: their own sections say everything
        return out + list(report.sections)
    if report.kind == "summary":
        out.append(Section("scores", "Scores", f"Each model's {aggregate} over its own tasks with its {level}"
                           " interval; the models are not compared.", text=(report.summary_reason,),
                           tables=(Table(f"{aggregate} over tasks{unit}", summary_table(report), key="scores"),),
                           figures=_figures(report, "forest")))
        out.append(_tasks(report, level, unit))
        if report.passk is not None:
            out.append(_passk(report))
        return out + list(report.sections)
    out.append(Section("scores", "Scores and ranks", f"Each model's {aggregate} over tasks with its {level}"
                       " interval, the ranks it plausibly holds and its chance of being best.",
                       tables=(Table(f"{aggregate} over tasks{unit}, best first", ranking_table(report),
                                     key="ranking"),),
                       figures=_figures(report, "forest", "ranks")))
    out.append(_pairs(report, level))
    out.append(_tasks(report, level, unit))
    weights = weights_table(report)
    weight_figs = tuple(f for f in report.figures if f.key.startswith("weights-"))
    if weights is not None or weight_figs:
        out.append(Section(
            "weights", "Task weights", "Whether the best model depends on how much each group of tasks counts.",
            text=("Each map scores every model by a weighted mean of its task-group means, under many weightings of"
                  " the groups, and colours the weightings where one model is significantly best.",),
            figures=weight_figs,
            tables=() if weights is None else (Table("Share of the weightings where each model is significantly"
                                                     " best", weights, key="weights"),)))
    if _figures(report, "cd"):
        groups = cd_groups_table(getattr(report, "tests", None))
        out.append(Section(
            "cd", "Tasks as the sample", "The models ranked within each task, treating the tasks rather than the"
            " items as the sample (Demšar 2006).", figures=_figures(report, "cd"),
            tables=() if groups is None else (Table("Groups of models whose mean ranks do not differ"
                                                    " significantly", groups, key="cd-groups", folded=True),)))
    bayes = bayes_table(report)
    if bayes is not None:
        out.append(Section("bayes", "Bayesian intervals", "A Bayesian hierarchical model's credible intervals"
                           " beside the bootstrap intervals: where both agree, the conclusion does not rest on one"
                           " method.", figures=_figures(report, "bayes"),
                           tables=(Table(f"Posterior of each model's {aggregate}{unit}", bayes, key="bayes"),)))
    if report.passk is not None or _figures(report, "passk"):
        out.append(_passk(report))
    return out + list(report.sections)


def _pairs(report, level) -> Section:
    n = len(report.pairs)
    tables = []
    if n <= MAX_PAIRS_SHOWN:
        tables.append(Table(f"All {n} pairs", pairs_table(report), key="pairs"))
    else:
        tables.append(Table("Neighbouring models in the ranking", pairs_table(report, adjacent_only=True),
                            key="pairs-adjacent"))
        tables.append(Table(f"All {n} pairs", pairs_table(report), key="pairs", folded=True))
    return Section("pairs", "Pairwise comparisons", f"The difference between two models with the {level} interval"
                   " of the difference itself; a pair is decided when that interval excludes zero.",
                   tables=tuple(tables), figures=_figures(report, "pairs"))


def _tasks(report, level, unit) -> Section:
    return Section("tasks", "Per task", f"Every model's score on every task, with its {level} interval.",
                   figures=_figures(report, "tasks"),
                   tables=(Table(f"Per-task scores{unit}", task_table(report), key="tasks", folded=True),))


def _passk(report) -> Section:
    table = passk_table(report)
    return Section("passk", "pass@k and pass^k", "pass@k is the chance that at least one of k attempts succeeds;"
                   " pass^k the chance that all k succeed (consistency).", figures=_figures(report, "passk",
                                                                                           "passhatk"),
                   tables=() if table is None else (Table("pass@k and pass^k (points)", table, key="passk"),))
