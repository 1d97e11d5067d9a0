"""Second QA pass (S12): ``evalband report DATA -o crux.md`` without ``-f`` wrote an HTML document into crux.md.

Now the format follows the ``-o`` suffix when ``-f/--format`` is not given (.md/.markdown markdown, .tex latex,
.html/.htm html; any other suffix html, as before), and a ``-f`` that the suffix contradicts is one line on stderr
with exit code 2, before any computing.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()
FAST = ["--n-resamples", "100", "--no-bayes", "--models", "Sup-100%,Sup-Exemplar-100%,Sup-Rotation-100%"]


def report(out, *args):
    return runner.invoke(app, ["report", "--example", "vtab", "-o", str(out), "--seed", "1", *FAST, *args])


@pytest.mark.parametrize("name,start", [
    ("crux.md", "# evalband report: example 'vtab'"),
    ("crux.MARKDOWN", "# evalband report: example 'vtab'"),
    ("crux.tex", "%"),
    ("crux.htm", "<!DOCTYPE html>"),
    ("crux.txt", "<!DOCTYPE html>"),  # a suffix that implies nothing: html, as before
])
def test_format_follows_the_output_suffix(tmp_path, name, start):
    out = tmp_path / name
    res = report(out)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert text.startswith(start), text[:80]
    if name.endswith(".tex"):
        assert r"\begin{table}" in text and "<html" not in text
    if name.endswith((".md", ".MARKDOWN")):
        # the reproducing command needs no --format: the suffix gives it
        assert f"evalband report --example vtab -o {out} --seed 1" in text and "--format" not in text


def test_format_disagreeing_with_the_suffix_is_one_line(tmp_path):
    out = tmp_path / "crux.md"
    res = report(out, "-f", "html")
    assert res.exit_code == 2
    assert res.output.strip() == (f"evalband: error: `--format html` writes html, but -o {out} names a markdown"
                                  " file; change the -o suffix, or leave --format out to follow it")
    assert not out.exists()
    res = report(tmp_path / "t.html", "--format", "latex")
    assert res.exit_code == 2 and "names a html file" in res.output


def test_format_agreeing_or_on_an_unknown_suffix_is_kept(tmp_path):
    res = report(tmp_path / "a.md", "-f", "md")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "a.md").read_text().startswith("# evalband report")
    out = tmp_path / "paper.txt"
    res = report(out, "-f", "latex")
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert r"\begin{table}" in text and "--format latex" in text  # not implied by .txt: repeated
