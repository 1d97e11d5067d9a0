"""``evalband report``: one self-contained HTML report (or Markdown, or LaTeX tables) of an evaluation."""

from __future__ import annotations

import dataclasses
import os
import shlex
import time
from typing import Annotated, Optional

import typer

from ._common import (LOG_INPUT, SEED_HELP, ConfidenceOpt, FixedOpt, InputOptions, NResamplesOpt, SchedulerOpt,
                      ThreadsOpt, errors, executor_for, parse_confidence, parse_fixed, parse_list, reads_input)
from ._judges import PpiOpt
from .._validate import ArgumentError

OutputOpt = Annotated[str, typer.Option("--output", "-o", help="File to write (report.html, report.md, ...).")]
ReportFormatOpt = Annotated[Optional[str], typer.Option("--format", "-f", help="html (one self-contained file),"
                                                        " markdown, or latex (tables for a paper). Default: from"
                                                        " the -o suffix (.md markdown, .tex latex), else html.",
                                                        show_default=False)]
FiguresOpt = Annotated[Optional[str], typer.Option("--figures", help="Also save every figure in this folder.",
                                                   show_default=False)]
FigureFormatOpt = Annotated[str, typer.Option("--figure-format", help="Formats of saved figures: png, svg or"
                                              " png,svg.")]
ReportSeedOpt = Annotated[int, typer.Option("--seed", help=SEED_HELP)]
AggregateOpt = Annotated[str, typer.Option("--aggregate", help="Aggregate over tasks: mean, geometric, minmax,"
                                           " mean-rank, ... (evalband.aggregate.AGGREGATES).")]
BayesOpt = Annotated[bool, typer.Option("--bayes/--no-bayes", help="Add Beta-Binomial credible intervals (0/1"
                                        " scores or counts).")]
SectionsOpt = Annotated[Optional[str], typer.Option(
    "--sections", help="Sections shown only when asked, comma-separated: items (item diagnostics of item-level"
                       " results: flagged items sorted by flag, each task's information). Data with missing cells"
                       " get the sparse-leaderboard section without asking.", show_default=False)]
ForceOpt = Annotated[bool, typer.Option("--force", help="Write -o through a symbolic link, and overwrite figure"
                                        " files already in --figures (an input file is never overwritten).")]

_FORMATS = {"html": "html", "markdown": "markdown", "md": "markdown", "latex": "latex", "tex": "latex"}
#: -o suffix -> the format it implies (other suffixes imply nothing: html unless --format says otherwise).
_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".html": "html", ".htm": "html"}


@reads_input(after={"fixed": "facets", "bayes": "models tasks weights drop_cols accuracy_scale source shape model_col task_col item_col score_col"
                             f" trial_col cluster group_col unbounded count_rule {LOG_INPUT}", "ppi": "human_col"})
def report(
    output: OutputOpt = "report.html",
    fmt: ReportFormatOpt = None,
    figures: FiguresOpt = None,
    figure_format: FigureFormatOpt = "png,svg",
    seed: ReportSeedOpt = 0,
    n_resamples: NResamplesOpt = None,
    confidence: ConfidenceOpt = "0.95",
    aggregate: AggregateOpt = "mean",
    fixed: FixedOpt = None,
    bayes: BayesOpt = True,
    ppi: PpiOpt = "ppi++",
    sections: SectionsOpt = None,
    scheduler: SchedulerOpt = None,
    threads: ThreadsOpt = None,
    force: ForceOpt = False,
    *,
    inputs: InputOptions,
):
    """Write a report: data summary, findings in plain words, tables, plots, task-weight maps, methods and the
    command that reproduces it.

    A file of cell scores (model, task, score; no items or counts, e.g. --example epoch) gets what such data
    support: the data summary and the sparse leaderboard (latent abilities, coverage, held-out check).
    The HTML file works offline (inline CSS and images, no scripts). Example:
    evalband report --example vtab -o report.html
    """
    from .. import _files
    from ..io.folders import input_files
    from .._validate import check_confidence_level
    from ..analysis.extensions import check_sections
    from ..report import build_report, write_report

    with errors(sections="--sections"), executor_for(scheduler, threads):
        started = time.perf_counter()
        kind = report_format(fmt, output)
        fig_formats = tuple(f.lower() for f in parse_list(figure_format, name="figure-format"))
        bad = [f for f in fig_formats if f not in ("png", "svg")]
        if bad or not fig_formats:
            raise ArgumentError(f"`--figure-format` must list png and/or svg; got {figure_format!r}.")
        if inputs.source == "ratings":
            raise ArgumentError("`--source ratings`: a report analyses results (models scored on items); for raters'"
                                " ratings run evalband agreement FILE (its --format markdown gives the tables)")
        level = check_confidence_level(parse_confidence(confidence))
        asked = check_sections(sections)
        check_output(output, figures)  # before the 10-20 s of computing, not after
        read = input_files(inputs.path, inputs.baselines, inputs.models, inputs.tasks, inputs.weights)
        _files.check_output(output, inputs=read, force=force)  # never over an input, nor through a link unasked
        command = _command(inputs, output, kind, figures, fig_formats, seed, n_resamples, confidence, aggregate,
                           bayes, fixed, ppi, asked)
        from .ability import latent_input

        cells, choose = latent_input(inputs) if _cell_scores(inputs) else (None, None)
        if cells is not None:  # one score per model and task: the sparse leaderboard, what those data support
            from ..analysis.latent import cell_scores_ability
            from ..report.sections.sparse import cell_scores_report

            fit = cell_scores_ability(cells, n_resamples=n_resamples, confidence_level=level, rng=seed, **choose)
            rep = cell_scores_report(fit, seed=seed, command=command)
        else:
            sel = inputs.selection(battles=True)  # pairwise battles make a preference report
            rep = build_report(sel, aggregate=aggregate, n_resamples=n_resamples, confidence_level=level, rng=seed,
                               bayes=bayes, command=command, fixed=parse_fixed(fixed), ppi=ppi, sections=asked)
        write_report(rep, output, format=kind, figures_dir=figures, figure_formats=fig_formats, force=force,
                     inputs=read)
        size = os.path.getsize(output)
        n = len(rep.figures)
        if kind == "html":
            held = f", {n} figure{'s' * (n != 1)} embedded"
        elif figures:
            held = f", {n} figure{'s' * (n != 1)} {'linked' if kind == 'markdown' else 'saved'}"
        else:
            held = (f"; {n} figure{'s are' if n != 1 else ' is'} not in it: add --figures DIR to save them"
                    if n else "")
        typer.echo(f"evalband: wrote {output} ({size / 1024:,.0f} KiB{held}) in "
                   f"{time.perf_counter() - started:.1f} s" + (f"; figures in {figures}" if figures else ""),
                   err=True)


def _cell_scores(inputs) -> bool:
    """Whether the input is a file (or bundled example) of cell scores: model, task, score, no items or counts."""
    from ..selection.cell_scores import cell_scores_input

    data = f"example:{inputs.example}" if inputs.example is not None else inputs.path
    return data is not None and cell_scores_input(
        data, model_col=inputs.model_col, task_col=inputs.task_col, item_col=inputs.item_col,
        score_col=inputs.score_col) is not None


def report_format(fmt, output) -> str:
    """The report's format: ``--format`` when given, else the one the ``-o`` suffix implies (.md/.markdown
    markdown, .tex latex, .html/.htm html; any other suffix html). A ``--format`` that the suffix clearly
    contradicts (``-f html -o report.md``) is an error rather than a file whose name lies about its content."""
    implied = _SUFFIXES.get(os.path.splitext(os.fspath(output))[1].lower())
    if fmt is None:
        return implied or "html"
    if fmt.lower() not in _FORMATS:
        raise ArgumentError(f"`--format` must be html, markdown or latex; got {fmt!r}.")
    kind = _FORMATS[fmt.lower()]
    if implied is not None and implied != kind:
        raise ArgumentError(f"`--format {fmt}` writes {kind}, but -o {output} names a {implied} file; change the -o"
                         " suffix, or leave --format out to follow it")
    return kind


def check_output(output, figures=None) -> None:
    """Fail fast (OSError, one line) when the report or the figures could not be written.

    ``output`` must not be a folder and its folder must exist and be writable (an existing file must be writable
    too); ``figures`` must be a writable folder, or a path whose nearest existing parent is a writable folder.
    """
    out = os.path.abspath(os.fspath(output))
    if os.path.isdir(out):
        raise OSError(f"cannot write the report to {output}: Is a directory; give a file name, e.g. -o "
                      f"{os.path.join(output, 'report.html')}")
    folder = os.path.dirname(out)
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise OSError(f"cannot write the report to {output}: the folder {folder} {what}")
    if os.path.exists(out) and not os.access(out, os.W_OK):
        raise OSError(f"cannot write the report to {output}: the file is not writable")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(f"cannot write the report to {output}: the folder {folder} is not writable")
    if figures is None:
        return
    fig = os.path.abspath(os.fspath(figures))
    if os.path.exists(fig) and not os.path.isdir(fig):
        raise OSError(f"cannot save figures in {figures}: it is a file, not a folder")
    parent = fig
    while not os.path.exists(parent):  # the folder (and missing parents) will be created
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise OSError(f"cannot save figures in {figures}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OSError(f"cannot save figures in {figures}: the folder {parent} is not writable")


#: Input options the reproducing command does not repeat as ``--name value`` (PATH or --example come first).
_NOT_REPRODUCED = ("path", "example")


def _command(inputs, output, kind, figures, fig_formats, seed, n_resamples, confidence, aggregate, bayes,
             fixed=None, ppi="ppi++", sections=()) -> str:
    """The command line that reproduces this report (only options that differ from the defaults, plus the seed)."""
    q = shlex.quote
    path, example = inputs.path, inputs.example
    parts = ["evalband", "report", q(path) if path is not None else f"--example {q(example)}", f"-o {q(output)}"]
    if kind != (_SUFFIXES.get(os.path.splitext(os.fspath(output))[1].lower()) or "html"):
        parts.append(f"--format {kind}")  # only when the -o suffix does not imply it
    if figures:
        parts.append(f"--figures {q(figures)}")
        if fig_formats != ("png", "svg"):
            parts.append(f"--figure-format {','.join(fig_formats)}")
    parts.append(f"--seed {seed}")
    if n_resamples is not None:
        parts.append(f"--n-resamples {n_resamples}")
    if str(confidence) != "0.95":
        parts.append(f"--confidence {q(str(confidence))}")
    if aggregate != "mean":
        parts.append(f"--aggregate {q(aggregate)}")
    if fixed is not None:
        parts.append(f"--fixed {q(fixed)}")
    if not bayes:
        parts.append("--no-bayes")
    if ppi != "ppi++":
        parts.append(f"--ppi {q(ppi)}")
    if sections:
        parts.append(f"--sections {q(','.join(sections))}")
    names = [f.name for f in dataclasses.fields(inputs) if f.name not in _NOT_REPRODUCED]
    for key, value in inputs.changed(*names).items():  # every input option given (--models, --metric, ...)
        flag = "--" + key.strip("_").replace("_", "-")
        parts.append(flag if value is True else f"{flag} {q(str(value))}")
    return " ".join(parts)
