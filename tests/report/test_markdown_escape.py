"""QA O24: the Markdown report escapes names for Markdown, not HTML, so they read as plain text and tables hold.

Oracle: a CommonMark renderer (markdown-it-py, which rich depends on, with its GFM table rule): every name put
through ``md_escape`` must render back to exactly that name, inside a table cell and in a list item.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from evalband.report.writers import md_escape

markdown_it = pytest.importorskip("markdown_it")

NAMES = ["A&B", "<script>alert(1)</script>", "a|b", "x < y", "gpt_4o_mini", "_lead_", "a*b*c", "back\\slash",
         "co`de", "[x](http://e.org)", "&amp;", "AT&T;", "A&B; C", "&copy; 2026", "&#65;",
         "# not a heading", "1. not a list", "- dash", "+ plus",
         "> quote", "**bold**", "~~strike~~", "mmlu:subject=philosophy,method=x", "50%", "[0.3, 0.5]", "<b>bold</b>",
         "a\\|b", "ends with \\"]


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self._in = [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "li"):
            self._in = []
        elif self._in is not None:  # any tag inside a cell means the name was not shown as plain text
            self._in.append(f"<{tag}>")

    def handle_endtag(self, tag):
        if tag in ("td", "li") and self._in is not None:
            self.cells.append("".join(self._in))
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._in.append(data)


def _render(text):
    md = markdown_it.MarkdownIt("commonmark").enable("table")
    parser = _Cells()
    parser.feed(md.render(text))
    return parser.cells


def test_names_render_as_plain_text_in_tables():
    table = "| name | x |\n|---|---|\n" + "".join(f"| {md_escape(n, block=False)} | 1 |\n" for n in NAMES)
    cells = _render(table)
    assert cells[0::2] == NAMES  # one row per name: the table did not break and nothing became markup
    assert cells[1::2] == ["1"] * len(NAMES)


def test_names_render_as_plain_text_in_list_items():
    text = "".join(f"- {md_escape(n)}\n" for n in NAMES)
    assert _render(text) == NAMES


def test_plain_names_are_not_cluttered_with_escapes():
    # no HTML entities for what Markdown shows as is (the finding: 'A&amp;B' in the Markdown report)
    for name in ("A&B", "x < y", "gpt_4o_mini", "50%", "[0.3, 0.5]", "Sup-100%", "model (v2)"):
        assert md_escape(name, block=False) == name
    assert md_escape("<script>") == "&lt;script>"
    assert md_escape("a|b") == "a\\|b"


def test_markdown_report_keeps_names_and_html_report_stays_escaped():
    import numpy as np
    import pandas as pd

    pytest.importorskip("matplotlib")
    from evalband.report.build import build_report
    from evalband.report.writers import render_html, render_markdown
    from evalband.data.table import ResultsTable

    rng = np.random.default_rng(3)
    models = ["A&B", "<script>x</script>", "m|pipe"]
    rows = [{"model": m, "task": t, "n": 400, "correct": int(rng.integers(150, 350))}
            for m in models for t in ("t_1", "t*2")]
    rep = build_report(ResultsTable.from_summary(pd.DataFrame(rows), source="s.csv"), n_resamples=200, rng=1,
                       bayes=False, timestamp="T")
    md = render_markdown(rep)
    assert "A&amp;B" not in md and "| A&B |" in md and "m\\|pipe" in md and "t\\*2" in md
    assert "<script" not in md and "&lt;script>x&lt;/script>" in md
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(md)
    assert "<script" not in rendered  # the renderer shows it as text
    page = render_html(rep)
    assert "A&amp;B" in page and "&lt;script&gt;x&lt;/script&gt;" in page and "<script" not in page
