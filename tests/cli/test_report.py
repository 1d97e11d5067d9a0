"""``evalband report`` through typer's CliRunner."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("matplotlib")

from typer.testing import CliRunner  # noqa: E402

from evalband.cli.main import app  # noqa: E402

runner = CliRunner()


def _small_csv(tmp_path):
    from evalband import load_example

    data = load_example("vtab").data
    data = data[data["model"].isin(["Rotation", "Exemplar", "Sup-100%", "VAE"])]
    path = tmp_path / "results.csv"
    data[["model", "task", "group", "n", "correct"]].astype(str).to_csv(path, index=False)
    return path


def test_report_from_a_file_writes_one_html_with_the_reproducing_command(tmp_path):
    path = _small_csv(tmp_path)
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(path), "-o", str(out), "--n-resamples", "300", "--no-bayes",
                              "--seed", "7"])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "<h2>Findings</h2>" in text and text.count("<img") >= 5
    command = re.search(r"<pre><code>(.*?)</code></pre>", text).group(1)
    assert command == f"evalband report {path} -o {out} --seed 7 --n-resamples 300 --no-bayes"
    assert "wrote" in res.output


def test_example_markdown_with_figures(tmp_path):
    out = tmp_path / "r.md"
    res = runner.invoke(app, ["report", "--example", "vtab", "-o", str(out), "--format", "markdown", "--figures",
                              str(tmp_path / "figs"), "--figure-format", "svg", "--n-resamples", "200",
                              "--no-bayes", "--models", "Rotation,Exemplar,Sup-100%"])
    assert res.exit_code == 0, res.output
    md = out.read_text()
    assert md.startswith("# evalband report: example 'vtab'")
    assert "](figs/forest.svg)" in md and (tmp_path / "figs" / "forest.svg").exists()
    assert not (tmp_path / "figs" / "forest.png").exists()
    assert "--figure-format svg" in md and "--models Rotation,Exemplar,Sup-100%" in md


def test_latex_tables(tmp_path):
    out = tmp_path / "t.tex"
    res = runner.invoke(app, ["report", "--example", "vtab", "-o", str(out), "-f", "latex", "--n-resamples", "200",
                              "--no-bayes", "--models", "Rotation,Exemplar,VAE"])
    assert res.exit_code == 0, res.output
    tex = out.read_text()
    assert r"\begin{table}" in tex and r"\label{tab:evalband-ranking}" in tex


@pytest.mark.parametrize("args, message", [
    (["--example", "vtab", "--format", "docx"], "`--format`"),
    (["--example", "vtab", "--figure-format", "gif"], "`--figure-format`"),
    (["--example", "nope"], "unknown example"),
    ([], "give either"),
    (["--example", "vtab", "--n-resamples", "5"], "`--n-resamples`"),
])
def test_errors_are_one_line_exit_2(tmp_path, args, message):
    res = runner.invoke(app, ["report", *args, "-o", str(tmp_path / "x.html")])
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.html").exists()


def test_help_lists_the_options():
    res = runner.invoke(app, ["report", "--help"])
    assert res.exit_code == 0
    for opt in ("--output", "--format", "--figures", "--seed", "--n-resamples", "--bayes"):
        assert opt in res.output
