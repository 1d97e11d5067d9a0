"""Renderers: the report of an :class:`~evalband.analysis.Analysis` as HTML, Markdown or LaTeX, its figures
(:mod:`evalband.report.plots`, each ``ax=None`` -> Axes) and its tables. Nothing here computes a statistic.

>>> from evalband.report import build_report, write_report
>>> rep = build_report("example:vtab", rng=0)               # doctest: +SKIP
>>> write_report(rep, "report.html")                        # doctest: +SKIP
"""

from __future__ import annotations

import importlib

__all__ = ["Figure", "Report", "build_report", "write_report", "render_html", "render_markdown", "render_latex"]

#: public name -> module (imported on first use, so that a table renderer does not load the report machinery)
_LAZY = {"Figure": ".build", "Report": ".build", "build_report": ".build", "write_report": ".writers",
         "render_html": ".writers", "render_markdown": ".writers", "render_latex": ".writers"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'evalband.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
