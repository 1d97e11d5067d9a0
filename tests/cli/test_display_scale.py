"""compare/rank show one scale in every human format (points for accuracies, own scale for ranks), fractions in
JSON/CSV, and bootstrap p-values at their floor 2/(B+1) as '<0.0002' (QA O9, O10)."""

import re

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

PAIR = ["--example", "vtab", "--models", "Sup-100%,Sup-Rotation-100%", "--seed", "1"]


def run(*args):
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def first_row(text, sep, name="Sup-Rotation-100"):
    """The cells of the first table row naming ``name`` (the aggregate 'mean' is in the title when it is the same
    on every row)."""
    rows = [line for line in text.splitlines() if name in line and (sep in line or re.search(sep, line))]
    return [c.strip() for c in re.split(sep, rows[0].strip("| \\"))]


def test_latex_and_markdown_show_the_same_points_and_json_fractions():
    md = first_row(run("compare", *PAIR, "--n-resamples", "400", "-f", "markdown"), r"\|")
    tex = first_row(run("compare", *PAIR, "--n-resamples", "400", "-f", "latex"), "&")
    assert md[3:6] == tex[3:6]                       # difference, se, 95% CI (after aggregate, model_a, model_b)
    assert 1 < float(md[3]) < 3                      # +1.62 points, not 0.0162
    rec = jsonout.records(run("compare", *PAIR, "--n-resamples", "400", "-f", "json"))[0]
    assert rec["difference"] == pytest.approx(float(md[3]) / 100, abs=0.006)


def test_p_value_at_the_floor_is_shown_as_below_it():
    b = 9999
    floor = 2 / (b + 1)  # theory: two-sided bootstrap p-values are at least 2 / (B + 1)
    md = run("compare", *PAIR, "--n-resamples", str(b), "-f", "markdown")
    assert "<0.0002" in md and "| 0.0002 |" not in md
    rec = jsonout.records(run("compare", *PAIR, "--n-resamples", str(b), "-f", "json"))[0]
    assert rec["p_value"] == pytest.approx(floor)  # JSON keeps the number


def test_rank_mean_and_mean_rank_each_on_its_own_scale():
    for fmt, sep in (("markdown", r"\|"), ("latex", "&")):
        out = run("rank", "--example", "vtab", "--aggregate", "mean,mean-rank", "--n-resamples", "200",
                  "--seed", "1", "-f", fmt)
        mean_row = first_row(out, sep)
        assert mean_row[0] == "mean" and 60 < float(mean_row[2]) < 70  # Sup-Rotation-100% mean 67.97 points
        rank_rows = [line for line in out.splitlines() if "mean-rank" in line and "Sup-Rotation-100" in line]
        value = float([c.strip() for c in re.split(sep, rank_rows[0].strip("| \\"))][2])
        assert 1 <= value < 7                             # a mean rank, not x100
        assert "mean in points (x100); mean-rank on its own scale" in out
