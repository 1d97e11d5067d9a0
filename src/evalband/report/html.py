"""Render a :class:`~evalband.report._build.Report` as one self-contained HTML file, as Markdown, or as LaTeX
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

import numpy as np
import pandas as pd

from .._files import check_figures, check_output, write_atomic
from ._style import figure_bytes
from ..display import decimals_for, html_escape, latex_escape, md_escape
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
.note{font-size:.85rem;color:#444}
"""


esc = html_escape  # every user-supplied name and sentence passes through it


# ---------------------------------------------------------------------------------------------- number display
def _dec(se, scale) -> int:
    if not np.isfinite(se):
        return 2
    return decimals_for(abs(float(se)) * scale) if se != 0 else 1  # no spread (all right or all wrong): 100.0


def _num(x, d, scale) -> str:
    return "" if x is None or not np.isfinite(x) else f"{x * scale:.{d}f}"


def _ci(lo, hi, d, scale) -> str:
    return f"[{_num(lo, d, scale)}, {_num(hi, d, scale)}]"


def ranking_rows(report, scale) -> pd.DataFrame:
    """The ranking table as display strings (one row per model, best first)."""
    r = report.ranking
    rows = []
    for _, x in r.iterrows():
        d = _dec(x["se"], scale)
        rows.append({
            "rank": str(int(x["rank"])), "model": str(x["model"]), "estimate": _num(x["estimate"], d, scale),
            "95% CI": _ci(x["ci_low"], x["ci_high"], d, scale),
            "83.4% CI": _ci(x["ci834_low"], x["ci834_high"], d, scale),
            "rank interval": f"{int(x['rank_low'])}–{int(x['rank_high'])}",
            "P(best)": f"{x['p_best']:.0%}" if x["p_best"] >= 0.005 or x["p_best"] == 0 else "<1%",
            "tier": str(int(x["tier"])),
        })
    frame = pd.DataFrame(rows)
    level = float(r["confidence_level"].iloc[0])
    return frame.rename(columns={"95% CI": f"{level:.0%} CI"})


def pair_rows(report, scale, *, adjacent_only=False) -> pd.DataFrame:
    p = report.pairs
    if adjacent_only:
        order = {m: k for k, m in enumerate(report.ranking["model"])}
        keep = [abs(order[a] - order[b]) == 1 for a, b in zip(p["model_a"], p["model_b"])]
        p = p.loc[keep]
    rows = []
    for _, x in p.iterrows():
        d = _dec(x["se"], scale)
        row = {"model A": str(x["model_a"]), "model B": str(x["model_b"]),
               "A − B": (f"{x['difference'] * scale:+.{d}f}"), "CI": _ci(x["ci_low"], x["ci_high"], d, scale),
               "SE": _num(x["se"], d + 1, scale), "verdict": str(x["verdict"])}
        if "verdict_by_correlation" in p.columns:
            row["verdict by assumed correlation"] = str(x["verdict_by_correlation"])
        elif "correlation" in p.columns and np.isfinite(x["correlation"]):
            row["per-item correlation"] = f"{x['correlation']:.2f}"  # pooled within tasks (seed 001)
        rows.append(row)
    return pd.DataFrame(rows)


def task_rows(report, scale) -> pd.DataFrame:
    t = report.per_task
    rows = []
    for _, x in t.iterrows():
        d = _dec(x["se"], scale)
        rows.append({"model": str(x["model"]), "task": str(x["task"]), "estimate": _num(x["estimate"], d, scale),
                     "SE": _num(x["se"], d + 1, scale), "CI": _ci(x["ci_low"], x["ci_high"], d, scale),
                     "n": f"{int(x['n']):,}"})
    return pd.DataFrame(rows)


def summary_rows(report, scale) -> pd.DataFrame:
    """A summary report's scores: one row per model (its aggregate over its own tasks), best first."""
    r = report.ranking.sort_values("estimate", ascending=False, kind="stable")
    rows = []
    for _, x in r.iterrows():
        d = _dec(x["se"], scale)
        rows.append({"model": str(x["model"]), "tasks": str(int(x["tasks"])),
                     "estimate": _num(x["estimate"], d, scale), "SE": _num(x["se"], d + 1, scale),
                     f"{float(x['confidence_level']):.0%} CI": _ci(x["ci_low"], x["ci_high"], d, scale)})
    return pd.DataFrame(rows)


def passk_rows(report) -> pd.DataFrame | None:
    """pass@k and pass^k side by side, one row per model, task and k (percent)."""
    p = report.passk
    if p is None or p.empty:
        return None
    several = p["task"].nunique() > 1
    rows = []
    for (m, t, k), g in p.groupby(["model", "task", "k"], sort=False):
        row = {"model": str(m)}
        if several:
            row["task"] = str(t)
        row["k"] = str(int(k))
        for metric in ("pass@k", "pass^k"):
            x = g[g["metric"] == metric].iloc[0]
            d = _dec(x["se"], 100.0)
            row[metric] = _num(x["estimate"], d, 100.0)
            row[f"{metric} CI"] = _ci(x["ci_low"], x["ci_high"], d, 100.0)
        rows.append(row)
    return pd.DataFrame(rows)


def weights_rows(report) -> pd.DataFrame | None:
    w = report.weights
    if w is None:
        return None
    return pd.DataFrame({"threshold": w["threshold"].astype(str), "model": w["model"].astype(str),
                         "share": [f"{s:.1%}" for s in w["share"]],
                         "± MC SE": ["" if not np.isfinite(e) else f"{e:.1%}" for e in w["share_se"]]})


def bayes_rows(report, scale) -> pd.DataFrame | None:
    b = report.bayes
    if b is None:
        return None
    rows = []
    for _, x in b.sort_values("posterior_mean", ascending=False).iterrows():
        d = _dec(x["posterior_sd"], scale)
        rows.append({"model": str(x["model"]), "posterior mean": _num(x["posterior_mean"], d, scale),
                     "credible interval": _ci(x["ci_low"], x["ci_high"], d, scale),
                     "predictive interval": _ci(x["pred_low"], x["pred_high"], d, scale),
                     "P(best)": f"{x['p_best']:.0%}"})
    return pd.DataFrame(rows)


def coverage_rows(report) -> pd.DataFrame:
    c = report.coverage
    return pd.DataFrame({"model": c["model"].astype(str), "tasks": c["tasks"].astype(int).astype(str),
                         "items": [f"{int(v):,}" for v in c["items"]],
                         "left out of paired analyses": [f"{int(v):,}" for v in c["left_out"]]})


# ---------------------------------------------------------------------------------------------- HTML
_TEXT_COLUMNS = {"model", "model A", "model B", "task", "verdict", "threshold", "verdict by assumed correlation"}


def _html_summary_body(report, img, figs) -> list:
    """The scores, per-task and pass@k sections of a summary report (no comparison)."""
    scale = report.scale
    parts = ["<h2>Scores</h2>", _html_table(summary_rows(report, scale))]
    if "forest" in figs:
        parts.append(img(figs["forest"]))
    parts.append("<h2>Per task</h2>")
    if "tasks" in figs:
        parts.append(img(figs["tasks"]))
    parts.append(_html_table(task_rows(report, scale)))
    if report.passk is not None:
        parts.append("<h2>pass@k and pass^k</h2>")
        parts.append("<p>pass@k: the chance that at least one of k attempts succeeds; pass^k: the chance that all k"
                     " succeed (consistency). Both in %.</p>")
        parts += [img(figs[k]) for k in ("passk", "passhatk") if k in figs]
        parts.append(_html_table(passk_rows(report), verdict_col=None))
    return parts


def _html_table(frame: pd.DataFrame, *, verdict_col: str | None = "verdict") -> str:
    if frame is None or frame.empty:
        return "<p class='note'>(nothing to show)</p>"
    cls = lambda c: ' class="t"' if c in _TEXT_COLUMNS else ""
    head = "".join(f"<th{cls(c)}>{esc(c)}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for c, v in zip(frame.columns, row):
            extra = cls(c)
            if c == verdict_col:
                extra = ' class="t v-dec"' if v in ("A better", "B better") else ' class="t v-open"'
            cells.append(f"<td{extra}>{esc(v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>\n<thead><tr>" + head + "</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody></table>"


def _img(fig, images=None) -> str:
    png = (images or {}).get(fig.key) or figure_bytes(fig.figure, "png")
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure id="fig-{esc(fig.key)}"><img alt="{esc(fig.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption><b>{esc(fig.title)}.</b> {esc(fig.caption)}</figcaption></figure>")


def render_html(report, *, images: dict | None = None) -> str:
    """The report as one HTML document (a string); ``images`` (key -> PNG bytes) reuses rendered figures."""
    scale = report.scale
    img = lambda f: _img(f, images)  # noqa: E731
    figs = {f.key: f for f in report.figures}
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{esc(report.title)}</title>", f"<style>{_CSS}</style></head><body>",
             f"<h1>{esc(report.title)}</h1>",
             f'<p class="meta">evalband {esc(report.reproduce["evalband"])}, seed {report.reproduce["seed"]},'
             f' {report.reproduce["n_resamples"]:,} bootstrap replicates</p>',
             f'<p class="meta" id="generated">Generated {esc(report.timestamp)}</p>']
    parts.append("<h2>Findings</h2><ul class='findings'>"
                 + "".join(f"<li>{esc(s)}</li>" for s in report.findings) + "</ul>")

    parts.append("<h2>Data</h2>")
    parts.append(f"<p>{esc(report.description)}</p>")
    if report.attribution:
        parts.append(f"<p class='note'>{esc(report.attribution)}</p>")
    notes = list(report.notes) + [n for n in report.analysis_notes if n not in report.notes]
    if notes:
        parts.append("<h3>Assumed, converted or left out</h3><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes)
                     + "</ul>")
    if report.kind == "preference":  # battles: everything is in the sections
        return _html_tail(report, parts, images)
    parts.append("<details><summary>Coverage per model</summary>" + _html_table(coverage_rows(report)) + "</details>")
    if report.kind == "summary":
        parts += _html_summary_body(report, img, figs)
        return _html_tail(report, parts, images)

    parts.append("<h2>Aggregate scores and ranks</h2>")
    parts.append(_html_table(ranking_rows(report, scale)))
    for key in ("forest", "ranks"):
        if key in figs:
            parts.append(img(figs[key]))

    parts.append("<h2>Pairwise comparisons</h2>")
    all_pairs = pair_rows(report, scale)
    if len(all_pairs) <= 45:
        parts.append(_html_table(all_pairs))
    else:
        parts.append("<p>Neighbouring models in the ranking:</p>" + _html_table(pair_rows(report, scale,
                                                                                             adjacent_only=True)))
        parts.append(f"<details><summary>All {len(all_pairs)} pairs</summary>{_html_table(all_pairs)}</details>")
    if "pairs" in figs:
        parts.append(img(figs["pairs"]))

    parts.append("<h2>Per task</h2>")
    if "tasks" in figs:
        parts.append(img(figs["tasks"]))
    parts.append("<details><summary>Per-task table</summary>" + _html_table(task_rows(report, scale)) + "</details>")

    weight_figs = [f for f in report.figures if f.key.startswith("weights-")]
    if weight_figs or report.weights is not None:
        parts.append("<h2>Task weights</h2>")
        parts.append("<p>Which model comes out best depends on how much each group of tasks counts. Each map "
                     "below scores every model by a weighted mean of its task-group means, under many weightings of "
                     "the groups, and colours the weightings where one model is significantly best.</p>")
        parts += [img(f) for f in weight_figs]
        parts.append(_html_table(weights_rows(report), verdict_col=None))
    if "cd" in figs:
        parts.append("<h2>Tasks as the sample</h2>")
        parts.append("<p>Treating the tasks, not the items, as the sample (Demšar 2006): models are ranked within "
                     "each task and the mean ranks compared with the Friedman test and the Nemenyi critical "
                     "difference.</p>")
        parts.append(img(figs["cd"]))
    if "bayes" in figs:
        parts.append("<h2>Bayesian intervals</h2>")
        parts.append(img(figs["bayes"]))
        parts.append(_html_table(bayes_rows(report, scale), verdict_col=None))
    if "passk" in figs:
        parts.append("<h2>pass@k</h2>" + img(figs["passk"]))
    return _html_tail(report, parts, images)


def _html_sections(report, parts, images=None) -> None:
    """The sections of other capabilities (:class:`~evalband.report.section.Section`), each alike."""
    for sec in report.sections:
        parts.append(f'<h2 id="{esc(sec.key)}">{esc(sec.title)}</h2><p>{esc(sec.intro)}</p>')
        if sec.findings:
            parts.append("<ul class='findings'>" + "".join(f"<li>{esc(x)}</li>" for x in sec.findings) + "</ul>")
        for t in sec.tables:
            parts.append(f"<p class='note'>{esc(t.caption)}</p>" + _html_table(t.frame, verdict_col=None))
        parts += [_img(f, images) for f in sec.figures]
        if sec.notes:
            parts.append("<ul class='note'>" + "".join(f"<li>{esc(n)}</li>" for n in sec.notes) + "</ul>")


def _html_tail(report, parts, images=None) -> str:
    """Sections of other capabilities, sections left out, methods, references and the reproducing command; closes
    the document."""
    _html_sections(report, parts, images)
    if report.sections_skipped:
        parts.append("<h3>Not shown</h3><ul>" + "".join(f"<li>{esc(s)}</li>" for s in report.sections_skipped)
                     + "</ul>")

    methods = list(report.methods) + [m for sec in report.sections for m in sec.methods]
    references = list(report.references) + [r for sec in report.sections for r in sec.references
                                            if r not in report.references]
    parts.append("<h2>Methods</h2><ul>" + "".join(f"<li>{esc(m)}</li>" for m in methods) + "</ul>")
    parts.append("<h3>References</h3><ol>" + "".join(
        f"<li>{esc(text)}" + (f' <a href="{esc(url)}">{esc(url)}</a>' if url else "") + "</li>"
        for text, url in references) + "</ol>")
    r = report.reproduce
    parts.append("<h2>Reproduce</h2>")
    parts.append(f"<pre><code>{esc(r['command'])}</code></pre>")
    parts.append(f"<p class='note'>seed {r['seed']}; evalband {esc(r['evalband'])}; {r['n_resamples']:,} bootstrap "
                 f"replicates; confidence level {r['confidence_level']:g}; aggregate {esc(r['aggregate'])}; "
                 f"Python {esc(r['python'])}, NumPy {esc(r['numpy'])}. The same command and seed give the same "
                 "numbers and figures.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------- Markdown
def _md_cell(v) -> str:
    return md_escape(v, block=False)


def _md_table(frame) -> str:
    if frame is None or frame.empty:
        return "(nothing to show)\n"
    lines = ["| " + " | ".join(_md_cell(c) for c in frame.columns) + " |",
             "|" + "|".join("---" for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def render_markdown(report, *, figure_paths: dict | None = None) -> str:
    """The report as Markdown; ``figure_paths`` (key -> relative path) links saved figures."""
    scale = report.scale
    figure_paths = figure_paths or {}
    out = [f"# {md_escape(report.title, block=False)}", "",
           f"evalband {report.reproduce['evalband']}, seed {report.reproduce['seed']}, "
           f"{report.reproduce['n_resamples']:,} bootstrap replicates  ", f"Generated {report.timestamp}", "",
           "## Findings", ""] + [f"- {md_escape(s)}" for s in report.findings]
    out += ["", "## Data", "", md_escape(report.description), ""]
    notes = list(report.notes) + [n for n in report.analysis_notes if n not in report.notes]
    out += [f"- {md_escape(n)}" for n in notes] + [""]
    if report.kind == "preference":  # battles: everything is in the sections
        pass
    elif report.kind == "summary":
        out += ["## Scores", "", _md_table(summary_rows(report, scale))]
        out += ["## Per task", "", _md_table(task_rows(report, scale))]
        if report.passk is not None:
            out += ["## pass@k and pass^k", "", "pass@k: at least one of k attempts succeeds; pass^k: all k succeed"
                    " (%).", "", _md_table(passk_rows(report))]
    else:
        out += ["## Aggregate scores and ranks", "", _md_table(ranking_rows(report, scale))]
        out += ["## Pairwise comparisons", "",
                _md_table(pair_rows(report, scale, adjacent_only=len(report.pairs) > 45))]
        out += ["## Per task", "", _md_table(task_rows(report, scale))]
    if report.weights is not None:
        out += ["## Task weights", "", _md_table(weights_rows(report))]
    if report.bayes is not None:
        out += ["## Bayesian intervals", "", _md_table(bayes_rows(report, scale))]
    section_figures = {f.key for sec in report.sections for f in sec.figures}
    for f in report.figures:
        if f.key in figure_paths and f.key not in section_figures:
            out += [f"![{md_escape(f.title, block=False).replace(']', chr(92) + ']')}]({figure_paths[f.key]})", "",
                    f"*{md_escape(f.caption, block=False)}*", ""]
    for sec in report.sections:
        out += [f"## {md_escape(sec.title, block=False)}", "", md_escape(sec.intro), ""]
        out += [f"- {md_escape(x)}" for x in sec.findings] + ([""] if sec.findings else [])
        for t in sec.tables:
            out += [f"*{md_escape(t.caption, block=False)}*", "", _md_table(t.frame)]
        for f in sec.figures:
            if f.key in figure_paths:
                out += [f"![{md_escape(f.title, block=False).replace(']', chr(92) + ']')}]({figure_paths[f.key]})",
                        "", f"*{md_escape(f.caption, block=False)}*", ""]
        out += [f"- {md_escape(n)}" for n in sec.notes] + ([""] if sec.notes else [])
    methods = list(report.methods) + [m for sec in report.sections for m in sec.methods]
    out += ["## Methods", ""] + [f"- {md_escape(m)}" for m in methods]
    command = str(report.reproduce["command"]).replace("\n", " ")
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", command)), default=0))
    out += ["", "## Reproduce", "", fence, command, fence, ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- LaTeX
def _latex_table(frame, caption: str, label: str) -> str:
    align = "".join("l" if c in _TEXT_COLUMNS else "r" for c in frame.columns)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{" + align + "}", r"\toprule",
             " & ".join(latex_escape(c) for c in frame.columns) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(v) for v in row) + r" \\" for row in frame.itertuples(index=False)]
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + latex_escape(caption) + "}",
              r"\label{" + label + "}", r"\end{table}", ""]
    return "\n".join(lines)


def render_latex(report) -> str:
    """The report's main tables as LaTeX (booktabs) table environments, ready for a paper."""
    scale = report.scale
    level = float(report.ranking["confidence_level"].iloc[0])
    r = report.reproduce
    head = (f"% evalband {r['evalband']}: {r['command']}\n% seed {r['seed']}, {r['n_resamples']} bootstrap "
            "replicates; needs \\usepackage{booktabs}\n")
    if report.kind == "preference":  # battles: the sections' tables
        return "\n".join([head] + _latex_sections(report))
    if report.kind == "summary":
        parts = [head, f"% {report.summary_reason}\n",
                 _latex_table(summary_rows(report, scale), f"{r['aggregate']} over tasks"
                              f"{' (%)' if scale == 100 else ''} with {level:.0%} bootstrap intervals.",
                              "tab:evalband-scores"),
                 _latex_table(task_rows(report, scale), f"Per-task scores with {level:.0%} bootstrap intervals.",
                              "tab:evalband-tasks")]
        if report.passk is not None:
            parts.append(_latex_table(passk_rows(report), "pass@k and pass^k (%) with their intervals.",
                                      "tab:evalband-passk"))
        return "\n".join(parts + _latex_sections(report))
    parts = [head, _latex_table(ranking_rows(report, scale),
                                f"{r['aggregate']} over tasks{' (%)' if scale == 100 else ''} with {level:.0%} bootstrap intervals, ranks and "
                                "tiers.", "tab:evalband-ranking"),
             _latex_table(pair_rows(report, scale, adjacent_only=len(report.pairs) > 45),
                          f"Differences between models{' (points)' if scale == 100 else ''} with {level:.0%} paired-bootstrap intervals.",
                          "tab:evalband-pairs")]
    if report.weights is not None:
        parts.append(_latex_table(weights_rows(report), "Share of task-group weightings where each model is "
                                  "significantly best.", "tab:evalband-weights"))
    return "\n".join(parts + _latex_sections(report))


def _latex_sections(report) -> list[str]:
    """The tables of the other capabilities' sections."""
    out = []
    for sec in report.sections:
        for k, t in enumerate(sec.tables):
            out.append(_latex_table(t.frame, f"{sec.title}: {t.caption}", f"tab:evalband-{sec.key}-{t.key or k}"))
    return out


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
    temporary file renamed into place (:mod:`evalband._files`). All checks run before anything is written."""
    fmt = {"md": "markdown", "tex": "latex"}.get(format, format)
    if fmt not in ("html", "markdown", "latex"):
        raise ArgumentError(f"`format` must be 'html', 'markdown' or 'latex'; got {format!r}.")
    target = check_output(path, inputs=inputs, force=force)
    if figures_dir:
        check_figures(figures_dir, figure_names(report, figure_formats), inputs=inputs, force=force)
    images = {}
    paths = save_figures(report, figures_dir, formats=figure_formats, images=images, force=force,
                         inputs=inputs) if figures_dir else {}
    if fmt == "html":
        text = render_html(report, images=images)
    elif fmt == "markdown":
        base = os.path.dirname(os.path.abspath(path))
        rel = {k: os.path.relpath(v, base).replace(os.sep, "/") for k, v in paths.items()}
        text = render_markdown(report, figure_paths=rel)
    else:
        text = render_latex(report)
    write_atomic(target, text)
