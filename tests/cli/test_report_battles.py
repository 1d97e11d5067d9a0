"""`evalband report` on battle files: pairwise battles are detected (the command passes its results-table options
only when the user gave one) and make a preference report; --source names a battle format; options of a results
table do not apply to battles."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from evalband.cli.main import app

from ..conftest import FIXTURES

runner = CliRunner()
LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"
FASTCHAT = FIXTURES / "preference_formats" / "fastchat" / "clean_battle_conv.json"
ALPACA = FIXTURES / "preference_formats" / "alpaca_eval"


def report(*args):
    return runner.invoke(app, ["report", *map(str, args)])


def test_a_battle_csv_makes_a_preference_report(tmp_path):
    out = tmp_path / "battles.md"
    result = report(LLMFAO, "-o", out, "--n-resamples", 200, "--seed", 4)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("# evalband preference report:")
    assert "## Preference leaderboard" in text and "| GPT 4 |" in text
    assert "## Who beats whom" in text and "## Ranks and their uncertainty" in text
    command = re.search(r"```\n(evalband report .*?)\n```", text, re.S).group(1)
    assert command.endswith("--seed 4 --n-resamples 200")
    again = tmp_path / "again.md"
    assert report(LLMFAO, "-o", again, "--n-resamples", 200, "--seed", 4).exit_code == 0
    def body(t):
        return [line for line in t.replace("again.md", "battles.md").splitlines() if not line.startswith("Generated")]

    assert body(text) == body(again.read_text())  # same seed, same report


def test_html_and_latex_and_models(tmp_path):
    for name in ("r.html", "r.tex"):
        result = report(LLMFAO, "-o", tmp_path / name, "--n-resamples", 100, "--models",
                        "GPT 4,Weaver 12k,command")
        assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    assert "Preference leaderboard" in html and "Dolly v2" not in html.split("<h2>Findings")[1].split("Reproduce")[0]
    assert r"\begin{tabular}" in (tmp_path / "r.tex").read_text()


def test_battle_formats_by_detection_and_by_source(tmp_path):
    for path, extra in ((ALPACA, ()), (FASTCHAT, ("--source", "fastchat"))):
        out = tmp_path / f"{path.stem}.md"
        result = report(path, "-o", out, "--n-resamples", 100, *extra)
        assert result.exit_code == 0, result.output
        assert "Preference leaderboard" in out.read_text()
    assert "## Style control" in (tmp_path / "alpaca_eval.md").read_text()  # answer lengths in the annotations


def test_results_options_and_tasks_do_not_apply_to_battles(tmp_path):
    out = tmp_path / "r.md"
    forced = report(LLMFAO, "-o", out, "--source", "battles", "--score-col", "winner")
    assert forced.exit_code == 2 and "--score-col apply to a results table, not to battles" in forced.output
    tasks = report(LLMFAO, "-o", out, "--tasks", "x", "--n-resamples", 100)
    assert tasks.exit_code == 2 and "battles have models, not tasks or weights" in tasks.output
    # a results-table option turns the detection off: the file is then read as results (and has no score)
    scored = report(LLMFAO, "-o", out, "--model-col", "left")
    assert scored.exit_code == 2 and "score" in scored.output and not out.exists()
