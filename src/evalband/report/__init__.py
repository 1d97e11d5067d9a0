"""Renderers: the report of an :class:`~evalband.analysis.Analysis` as HTML, Markdown or LaTeX, its figures
(:mod:`evalband.report.plots`, each ``ax=None`` -> Axes) and its tables. Nothing here computes a statistic.

>>> from evalband.report import build_report, write_report
>>> rep = build_report("example:vtab", rng=0)               # doctest: +SKIP
>>> write_report(rep, "report.html")                        # doctest: +SKIP
"""

from ._build import Figure, Report, build_report
from .html import render_html, render_latex, render_markdown, write_report

__all__ = ["Figure", "Report", "build_report", "write_report", "render_html", "render_markdown", "render_latex"]
