"""QA regression: issue 2 asks for the 83.4% 'overlap' level 'with its caveat'; `summarize --confidence overlap`
printed 83.4% intervals with no word on what they are for."""

from __future__ import annotations

from typer.testing import CliRunner

from evalband.cli.main import app


def _run(level):
    return CliRunner().invoke(app, ["summarize", "--example", "vtab", "--models", "Sup-100%", "--confidence", level,
                                    "-f", "markdown"])


def test_overlap_level_prints_its_caveat():
    res = _run("overlap")
    assert res.exit_code == 0
    assert "83.4% intervals" in res.stdout and "Goldstein & Healy" in res.stdout and "evalband compare" in res.stdout


def test_ordinary_level_has_no_caveat():
    res = _run("0.95")
    assert res.exit_code == 0 and "Goldstein" not in res.stdout
