"""A report section: what a capability (preferences, judges, facets, costs) adds to a report, rendered alike in
HTML, Markdown and LaTeX by :mod:`evalband.report.writers`.

A section is plain content computed elsewhere: a title and an anchor, one sentence saying what it shows, findings
in plain words, tables (display strings, already rounded by :mod:`evalband.display`), figures (matplotlib, from
the plot functions of :mod:`evalband.report`), method notes and references. Building a section computes no
statistic; it only reads results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Section", "Table"]


@dataclass(frozen=True)
class Table:
    """A table of a section: a caption and a DataFrame of display strings (first column the row label).
    ``folded`` tables are long references a reader opens on demand (HTML ``<details>``)."""

    caption: str
    frame: object
    key: str = ""
    folded: bool = False


@dataclass(frozen=True)
class Section:
    """One section of a report.

    Attributes
    ----------
    key : str
        Anchor and file-name stem (``'variance'``, ``'arena'``, ...).
    title : str
    intro : str
        One sentence saying what the section shows.
    text : tuple of str
        Further paragraphs (plain text), after the intro.
    findings : tuple of str
        Plain-language findings (no jargon without saying what it means).
    tables : tuple of Table
    figures : tuple of Figure
        :class:`evalband.report.Figure` objects (key, title, caption, matplotlib figure).
    methods : tuple of str
    references : tuple of (str, str or None)
    notes : tuple of str
        What was assumed or left out.
    """

    key: str
    title: str
    intro: str
    findings: tuple = ()
    tables: tuple = ()
    figures: tuple = ()
    methods: tuple = ()
    references: tuple = ()
    notes: tuple = field(default=())
    text: tuple = ()
