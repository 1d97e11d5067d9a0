"""QA round 4: a LaTeX report written with --figures said "8 figures saved" but included none. With saved
figures the .tex has one figure environment per figure, pointing at the saved file (relative path)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("matplotlib")

from evalband import load_example  # noqa: E402
from evalband.report import build_report, write_report  # noqa: E402


def test_latex_report_includes_the_saved_figures(tmp_path):
    rep = build_report(load_example("vtab"), n_resamples=200, rng=0)
    out = tmp_path / "paper" / "report.tex"
    out.parent.mkdir()
    write_report(rep, out, format="latex", figures_dir=tmp_path / "paper" / "figs")
    text = out.read_text(encoding="utf8")
    included = re.findall(r"\\includegraphics\[width=\\linewidth\]\{([^}]+)\}", text)
    assert len(included) == len(rep.figures) > 0
    assert all((out.parent / p).is_file() and p.startswith("figs/") for p in included)
    assert "graphicx" in text.splitlines()[1]
    plain = tmp_path / "plain.tex"
    write_report(rep, plain, format="latex")
    assert "includegraphics" not in plain.read_text(encoding="utf8")
