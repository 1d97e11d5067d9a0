"""Render a :class:`~evalband.report.build.Report` as one self-contained HTML file, as Markdown, or as LaTeX
tables for papers.

The HTML works offline: CSS is inline, figures are inline base64 PNG, there is no script and nothing is fetched.
Every name that comes from the user's files (models, tasks, groups, notes, the source) is HTML-escaped, so a model
called ``<script>alert(1)</script>`` is shown as text. Apart from the one line holding the timestamp, the same data
and seed give the same bytes (figures are saved without metadata).
"""

from __future__ import annotations

import base64
import os
import re

import pandas as pd

from .._files import check_figures, check_output, write_atomic
from .plots.style import figure_bytes
from .outline import outline, slug
from ..display import format_level, html_escape, latex_escape, md_escape, one_line
from .._validate import ArgumentError

__all__ = ["render_html", "render_markdown", "render_latex", "save_figures", "write_report"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1b1b1b;
max-width:1100px;margin:0 auto;padding:1.2rem 1.5rem 3rem;line-height:1.45;background:#fff}
h1{font-size:1.55rem;margin:.2rem 0 .3rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:2px solid #e4e4e4;
padding-bottom:.2rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}
p.meta{color:#555;font-size:.85rem;margin:.1rem 0}
ul.findings li{margin:.35rem 0}
table{border-collapse:collapse;font-size:.82rem;margin:.6rem 0;font-variant-numeric:tabular-nums}
th,td{padding:.22rem .55rem;border-bottom:1px solid #e6e6e6;text-align:right;vertical-align:top}
th{background:#f3f5f8;font-weight:600}td.t,th.t{text-align:left}
tr:nth-child(even) td{background:#fafbfc}
.v-dec{color:#004e8a;font-weight:600}.v-open{color:#6b6b6b}
figure{margin:1rem 0 1.6rem}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.82rem;color:#444;max-width:900px}
details{margin:.5rem 0}summary{cursor:pointer;color:#004e8a}
code,pre{background:#f5f5f5;border-radius:3px;font-size:.85rem}pre{padding:.6rem;overflow-x:auto;
white-space:pre-wrap}
.note{font-size:.85rem;color:#444}p.intro{color:#333;font-style:italic;margin:.2rem 0 .6rem}
p.caption{font-size:.85rem;color:#333;margin:.8rem 0 0;font-weight:600}
nav.toc{background:#f6f8fa;border:1px solid #e4e4e4;border-radius:4px;padding:.5rem 1rem;margin:1rem 0;
font-size:.9rem}nav.toc ol{margin:.3rem 0;padding-left:1.4rem;columns:2}
"""


esc = html_escape  # every user-supplied name and sentence passes through it


def prose(text) -> str:
    """A sentence as HTML: escaped, with `code` spans (option names, `--wide`) as <code> (the backticks are the
    sentence's own markup, written by evalband; a name's backtick is escaped text inside the span)."""
    return re.sub(r"`([^`<>]+)`", r"<code>\1</code>", esc(text))


# ---------------------------------------------------------------------------------------------- HTML
_TEXT_COLUMNS = {"model", "model A", "model B", "task", "verdict", "threshold", "verdict by assumed correlation",
                 "models (mean rank)", "component", "rater", "judge"}
_DECIDED = ("A better", "B better")


def _html_table(frame: pd.DataFrame) -> str:
    if frame is None or frame.empty:
        return "<p class='note'>(nothing to show)</p>"
    text = [c in _TEXT_COLUMNS or not any(ch.isdigit() for ch in "".join(map(str, frame[c]))) for c in frame.columns]
    cls = dict(zip(frame.columns, (' class="t"' if t else "" for t in text)))
    head = "".join(f"<th{cls[c]}>{esc(c)}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for c, v in zip(frame.columns, row):
            extra = cls[c]
            if c == "verdict":
                extra = ' class="t v-dec"' if v in _DECIDED else ' class="t v-open"'
            cells.append(f"<td{extra}>{esc(v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>\n<thead><tr>" + head + "</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody></table>"


def _img(fig, images=None) -> str:
    png = (images or {}).get(fig.key) or figure_bytes(fig.figure, "png")
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure id="fig-{esc(fig.key)}"><img alt="{esc(fig.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption><b>{esc(fig.title)}.</b> {esc(fig.caption)}</figcaption></figure>")


def _html_section(sec, images) -> list:
    parts = [f'<section id="{esc(sec.key)}"><h2>{esc(sec.title)}</h2>', f'<p class="intro">{prose(sec.intro)}</p>']
    parts += [f"<p>{prose(t)}</p>" for t in sec.text if t]
    if sec.findings:
        parts.append("<ul class='findings'>" + "".join(f"<li>{prose(x)}</li>" for x in sec.findings) + "</ul>")
    for t in (t for t in sec.tables if not t.folded):
        parts.append(f"<p class='caption'>{esc(t.caption)}</p>" + _html_table(t.frame))
    parts += [_img(f, images) for f in sec.figures]
    for t in (t for t in sec.tables if t.folded):
        parts.append(f"<details><summary>{esc(t.caption)}</summary>{_html_table(t.frame)}</details>")
    if sec.notes:
        heading = "Assumed, converted or left out" if sec.key == "data" else "Notes"
        parts.append(f"<h3>{heading}</h3><ul class='note'>" + "".join(f"<li>{prose(n)}</li>" for n in sec.notes)
                     + "</ul>")
    parts.append("</section>")
    return parts


def _closing(report) -> tuple[list, list]:
    """Methods and references of the report and of its capability sections, each once."""
    methods = list(dict.fromkeys([*report.methods, *(m for sec in report.sections for m in sec.methods)]))
    references = list(dict.fromkeys([*report.references, *(r for sec in report.sections for r in sec.references)]))
    return methods, references


def _reproduce_text(report) -> str:
    r = report.reproduce
    return (f"seed {r['seed']}; evalband {r['evalband']}; {r['n_resamples']:,} bootstrap replicates; confidence level"
            f" {r['confidence_level']:g}; aggregate {r['aggregate']}; Python {r['python']}, NumPy {r['numpy']}. The"
            " same command and seed give the same numbers and figures.")


def render_html(report, *, images: dict | None = None) -> str:
    """The report as one HTML document (a string); ``images`` (key -> PNG bytes) reuses rendered figures.

    Examples
    --------
    >>> import re
    >>> import pandas as pd
    >>> from evalband.report import build_report, render_html
    >>> df = pd.DataFrame({"model": ["A"] * 20 + ["B"] * 20, "task": "qa", "item": list(range(20)) * 2,
    ...                    "score": [1] * 16 + [0] * 4 + [1] * 11 + [0] * 9})
    >>> rep = build_report(df, n_resamples=200, rng=0, bayes=False)
    >>> page = render_html(rep)
    >>> page.splitlines()[0]
    '<!DOCTYPE html>'
    >>> re.findall("<h2>(.*?)</h2>", page)
    ['Findings', 'Data', 'Scores and ranks', 'Pairwise comparisons', 'Per task', 'Methods', 'Reproduce']
    """
    sections = outline(report)
    r = report.reproduce
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{esc(report.title)}</title>", f"<style>{_CSS}</style></head><body>",
             f"<h1>{esc(report.title)}</h1>",
             f'<p class="meta">evalband {esc(r["evalband"])}, seed {r["seed"]}, {r["n_resamples"]:,} bootstrap'
             " replicates</p>", f'<p class="meta" id="generated">Generated {esc(report.timestamp)}</p>']
    toc = [(s.key, s.title) for s in sections] + [("methods", "Methods"), ("reproduce", "Reproduce")]
    parts.append("<nav class='toc'><b>Contents</b><ol>" + "".join(f'<li><a href="#{esc(k)}">{esc(t)}</a></li>'
                                                                  for k, t in toc) + "</ol></nav>")
    for sec in sections:
        parts += _html_section(sec, images)
    methods, references = _closing(report)
    parts.append('<section id="methods"><h2>Methods</h2><p class="intro">How every number in this report was'
                 " computed.</p><ul>" + "".join(f"<li>{prose(m)}</li>" for m in methods) + "</ul>")
    if report.sections_skipped:
        parts.append("<h3>Not shown</h3><ul>" + "".join(f"<li>{prose(s)}</li>" for s in report.sections_skipped)
                     + "</ul>")
    parts.append("<h3>References</h3><ol>" + "".join(
        f"<li>{esc(text)}" + (f' <a href="{esc(url)}">{esc(url)}</a>' if url else "") + "</li>"
        for text, url in references) + "</ol></section>")
    parts.append('<section id="reproduce"><h2>Reproduce</h2><p class="intro">The command that wrote this report.'
                 f"</p><pre><code>{esc(r['command'])}</code></pre><p class='note'>{esc(_reproduce_text(report))}"
                 "</p></section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------- Markdown
def _md_table(frame) -> str:
    if frame is None or frame.empty:
        return "(nothing to show)\n"
    cell = lambda v: md_escape(v, block=False)  # noqa: E731
    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |", "|" + "|".join("---" for _ in frame.columns)
             + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _md_figure(f, figure_paths) -> list:
    if f.key not in figure_paths:
        return []
    alt = md_escape(f.title, block=False).replace("]", "\\]")
    return [f"![{alt}]({figure_paths[f.key]})", "", f"*{md_escape(f.title, block=False)}.*"
            f" {md_escape(f.caption, block=False)}", ""]


def render_markdown(report, *, figure_paths: dict | None = None) -> str:
    """The report as Markdown; ``figure_paths`` (key -> relative path) links saved figures. Without them the
    report says how many figures there are and how to get them.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.report import build_report, render_markdown
    >>> df = pd.DataFrame({"model": ["A"] * 20 + ["B"] * 20, "task": "qa", "item": list(range(20)) * 2,
    ...                    "score": [1] * 16 + [0] * 4 + [1] * 11 + [0] * 9})
    >>> rep = build_report(df, n_resamples=200, rng=0, bayes=False)
    >>> md = render_markdown(rep)
    >>> [line[3:] for line in md.splitlines() if line.startswith("## ")]
    ['Findings', 'Data', 'Scores and ranks', 'Pairwise comparisons', 'Per task', 'Methods', 'Reproduce']
    """
    figure_paths = figure_paths or {}
    sections = outline(report)
    r = report.reproduce
    out = [f"# {md_escape(report.title, block=False)}", "",
           f"evalband {r['evalband']}, seed {r['seed']}, {r['n_resamples']:,} bootstrap replicates  ",
           f"Generated {report.timestamp}", ""]
    n_figures = len(report.figures)
    if n_figures and not figure_paths:
        out += [f"*This report has {n_figures} figure{'s' if n_figures != 1 else ''}: write it as HTML, or add"
                " `--figures DIR` to save them beside this file and link them here.*", ""]
    toc = [s.title for s in sections] + ["Methods", "Reproduce"]
    out += ["**Contents:** " + " · ".join(f"[{md_escape(t, block=False)}](#{slug(t)})" for t in toc), ""]
    for sec in sections:
        out += [f"## {md_escape(sec.title, block=False)}", "", md_escape(sec.intro), ""]
        out += [x for t in sec.text if t for x in (md_escape(t), "")]
        out += [f"- {md_escape(x)}" for x in sec.findings] + ([""] if sec.findings else [])
        for t in (t for t in sec.tables if not t.folded):
            out += [f"*{md_escape(t.caption, block=False)}*", "", _md_table(t.frame)]
        for f in sec.figures:
            out += _md_figure(f, figure_paths)
        for t in (t for t in sec.tables if t.folded):  # long reference tables: folded where Markdown renders HTML
            out += [f"<details><summary>{esc(t.caption)}</summary>", "", _md_table(t.frame), "</details>", ""]
        out += [f"- {md_escape(n)}" for n in sec.notes] + ([""] if sec.notes else [])
    methods, references = _closing(report)
    out += ["## Methods", "", "How every number in this report was computed.", ""]
    out += [f"- {md_escape(m)}" for m in methods] + [""]
    if report.sections_skipped:
        out += ["Not shown:", ""] + [f"- {md_escape(s)}" for s in report.sections_skipped] + [""]
    out += ["References:", ""] + [f"{k}. {md_escape(text)}" + (f" <{url}>" if url else "")
                                  for k, (text, url) in enumerate(references, start=1)]
    command = str(r["command"]).replace("\n", " ")
    fence = "`" * max(3, 1 + max((len(x) for x in re.findall("`+", command)), default=0))
    out += ["", "## Reproduce", "", fence, command, fence, "", md_escape(_reproduce_text(report)), ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- LaTeX
def _latex_table(frame, caption: str, label: str) -> str:
    text = [c in _TEXT_COLUMNS or not any(ch.isdigit() for ch in "".join(map(str, frame[c]))) for c in frame.columns]
    align = "".join("l" if t else "r" for t in text)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{" + align + "}", r"\toprule",
             " & ".join(latex_escape(c) for c in frame.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(v) for v in row) + r" \\" for row in frame.itertuples(index=False)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + latex_escape(caption) + "}",
              r"\label{" + label + "}", r"\end{table}", ""]
    return "\n".join(lines)


#: the core sections' tables a paper takes (the long per-task and coverage tables stay in the report); the
#: capability sections give all of theirs
_CORE = ("findings", "data", "scores", "pairs", "tasks", "weights", "cd", "bayes", "passk")


def _paper_tables(report, sections) -> list:
    """(section, table) pairs for LaTeX: the main results tables, then every table of the capability sections."""
    if report.kind == "summary":
        keep = {"scores", "tasks", "passk"}
    else:
        adjacent = any(t.key == "pairs-adjacent" for s in sections for t in s.tables)
        keep = {"ranking", "pairs-adjacent" if adjacent else "pairs", "weights"}
    return [(s, t) for s in sections for t in s.tables if s.key not in _CORE or t.key in keep]


def render_latex(report, *, figure_paths: dict | None = None) -> str:
    """The report's main tables as LaTeX (booktabs) table environments, ready for a paper; with ``figure_paths``
    (key -> path relative to the .tex file, as ``--figures DIR`` saves them) a figure environment for each.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.report import build_report, render_latex
    >>> df = pd.DataFrame({"model": ["A"] * 20 + ["B"] * 20, "task": "qa", "item": list(range(20)) * 2,
    ...                    "score": [1] * 16 + [0] * 4 + [1] * 11 + [0] * 9})
    >>> rep = build_report(df, n_resamples=200, rng=0, bayes=False)
    >>> tex = render_latex(rep)
    >>> tex.count("\\\\begin{table}")
    2
    >>> print(next(line for line in tex.splitlines() if line.startswith("\\\\caption")))
    \\caption{mean over tasks (points), best first (95\\% bootstrap intervals).}
    """
    r = report.reproduce
    level = format_level(r["confidence_level"])
    figure_paths = figure_paths or {}
    needs = "booktabs" + (" and graphicx" if figure_paths else "")
    parts = [f"% evalband {latex_escape(one_line(r['evalband']), ligatures=False)}: "
             f"{latex_escape(one_line(r['command']), ligatures=False)}\n"
             f"% seed {r['seed']}, {r['n_resamples']} bootstrap replicates; needs \\usepackage{{{needs}}}\n"]
    if report.kind == "summary":
        parts.append(f"% {latex_escape(one_line(report.summary_reason), ligatures=False)}\n")
    for k, (sec, t) in enumerate(_paper_tables(report, outline(report))):
        caption = f"{t.caption} ({level} bootstrap intervals)." if sec.key in _CORE else f"{sec.title}: {t.caption}"
        label = t.key if sec.key in _CORE and t.key else f"{sec.key}-{t.key or k}"
        parts.append(_latex_table(t.frame, caption, f"tab:evalband-{label}"))
    for f in report.figures:
        if f.key in figure_paths:
            path = figure_paths[f.key].replace("\\", "/")
            parts.append("\\begin{figure}[t]\n\\centering\n"
                         f"\\includegraphics[width=\\linewidth]{{{path}}}\n"
                         f"\\caption{{{latex_escape(one_line(f.title))}. {latex_escape(one_line(f.caption))}}}\n"
                         f"\\label{{fig:evalband-{f.key}}}\n\\end{{figure}}\n")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------- files
def save_figures(report, directory, *, formats=("png", "svg"), images: dict | None = None, force: bool = False,
                 inputs=()) -> dict:
    """Write every figure as ``<key>.<format>`` in ``directory``; returns key -> path of the first format.

    ``images`` (key -> PNG bytes) is filled with the PNGs rendered, so the HTML can reuse them. Figure files
    already in ``directory`` are overwritten only with ``force``; an input of the run never is
    (:func:`evalband._files.check_figures`). Each file is written whole or not at all."""
    check_figures(directory, figure_names(report, formats), inputs=inputs, force=force)
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for f in report.figures:
        for fmt in formats:
            path = os.path.join(directory, f"{f.key}.{fmt}")
            data = images.get(f.key) if (images is not None and fmt == "png") else None
            data = data or figure_bytes(f.figure, fmt)
            if images is not None and fmt == "png":
                images[f.key] = data
            write_atomic(path, data)
            paths.setdefault(f.key, path)
    return paths


def figure_names(report, formats=("png", "svg")) -> list[str]:
    """The file names :func:`save_figures` writes."""
    return [f"{f.key}.{fmt}" for f in report.figures for fmt in formats]


def write_report(report, path, *, format: str = "html", figures_dir=None, figure_formats=("png", "svg"),
                 force: bool = False, inputs=()) -> None:
    """Write the report to ``path`` as 'html', 'markdown' or 'latex'; figures to ``figures_dir`` when given.

    ``path`` is never one of ``inputs`` (the files the run read), a symbolic link is written through only with
    ``force``, existing figure files are overwritten only with ``force``, and every file is written to a
    temporary file renamed into place (:mod:`evalband._files`). All checks run before anything is written.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from evalband.report import build_report, write_report
    >>> df = pd.DataFrame({"model": ["A"] * 20 + ["B"] * 20, "task": "qa", "item": list(range(20)) * 2,
    ...                    "score": [1] * 16 + [0] * 4 + [1] * 11 + [0] * 9})
    >>> rep = build_report(df, n_resamples=200, rng=0, bayes=False)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "report.md")
    ...     write_report(rep, path, format="markdown")
    ...     with open(path, encoding="utf-8") as f:
    ...         print(f.readline().strip())
    # evalband report: &lt;DataFrame>
    """
    fmt = {"md": "markdown", "tex": "latex"}.get(format, format)
    if fmt not in ("html", "markdown", "latex"):
        raise ArgumentError(f"`format` must be 'html', 'markdown' or 'latex'; got {format!r}.")
    target = check_output(path, inputs=inputs, force=force)
    if figures_dir:
        check_figures(figures_dir, figure_names(report, figure_formats), inputs=inputs, force=force)
    from .._progress import status

    with status(f"report: writing {os.path.basename(os.fspath(path))}"):
        _write(report, path, target, fmt, figures_dir, figure_formats, force, inputs)


def _write(report, path, target, fmt, figures_dir, figure_formats, force, inputs) -> None:
    images = {}
    paths = save_figures(report, figures_dir, formats=figure_formats, images=images, force=force,
                         inputs=inputs) if figures_dir else {}
    if fmt == "html":
        text = render_html(report, images=images)
    else:
        base = os.path.dirname(os.path.abspath(path))
        rel = {k: os.path.relpath(v, base).replace(os.sep, "/") for k, v in paths.items()}
        text = render_markdown(report, figure_paths=rel) if fmt == "markdown" else render_latex(report,
                                                                                                figure_paths=rel)
    write_atomic(target, text)
