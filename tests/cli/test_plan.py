"""`evalband plan` through typer's CliRunner: typed numbers (seed 001) and pilot files."""

from notes import flat  # noqa: F401

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, ["plan", *map(str, args)])


def test_typed_numbers_json_record():
    res = invoke("--baseline", 0.74, "--effect", 0.04, "--correlation", 0.5, "--n", 120, "--method", "normal",
                 "--format", "json")
    assert res.exit_code == 0, res.output
    rec = jsonout.records(res.stdout)
    assert isinstance(rec, dict)
    # seed 001: SE about 3.9 points, 95% interval about -3.6 to +11.6, roughly 900 tasks for 4 points
    assert rec["se_difference"] == pytest.approx(0.039, abs=0.0005)
    assert rec["ci_low"] == pytest.approx(-0.036, abs=0.0006) and rec["ci_high"] == pytest.approx(0.116, abs=0.0006)
    assert 850 <= rec["n_required"] <= 950
    assert rec["mde"] > 0.04
    assert rec["baseline"] == 0.74 and rec["correlation"] == 0.5 and rec["sources"]["baseline"] == "given"


def test_typed_numbers_table_has_the_two_sentences():
    res = invoke("--baseline", 0.74, "--effect", 0.04, "--correlation", 0.5, "--n", 120, "--trials", 4,
                 "--output-variance", 0.05, "--cluster-size", 5, "--icc", 0.05, "--comparisons", 3)
    assert res.exit_code == 0, res.output
    assert "To detect a difference of 4.0 points" in flat(res.stdout) and "items are needed" in flat(res.stdout)
    assert "With 120 items this evaluation can detect" in flat(res.stdout)
    assert "Bonferroni" in flat(res.stdout) and "Repeated trials" in flat(res.stdout)


def test_markdown_and_unpaired_continuous():
    res = invoke("--effect", 0.5, "--sd", 1.0, "--unpaired", "--scores", "continuous", "--n", 30, "-f", "markdown")
    assert res.exit_code == 0, res.output
    assert "| quantity | value |" in flat(res.stdout) and "unpaired" in flat(res.stdout)


def test_pilot_file(tmp_path, rng):
    n = 400
    a = (rng.random(n) < 0.7).astype(int)
    b = np.where(rng.random(n) < 0.8, a, 1 - a)
    c = (rng.random(n) < 0.6).astype(int)
    df = pd.concat([pd.DataFrame({"model": m, "task": "qa", "item": np.arange(n), "score": s})
                    for m, s in (("A", a), ("B", b), ("C", c))])
    path = tmp_path / "pilot.csv"
    df.to_csv(path, index=False)
    res = runner.invoke(app, ["plan", str(path), "--effect", "0.03", "--models", "A,C", "--format", "json"])
    assert res.exit_code == 0, res.output
    rec = jsonout.records(res.stdout)
    assert rec["n"] == n and rec["pilot"]["model_b"] == "C"
    assert rec["variance_difference"] == pytest.approx(np.var(a - c, ddof=1))
    assert rec["sources"]["variance_difference"] == "estimated"
    text = runner.invoke(app, ["plan", str(path), "--effect", "0.03"])
    assert text.exit_code == 0 and "compares the first two" in text.stdout


def test_errors_are_one_line_exit_2(tmp_path):
    res = invoke("--baseline", 0.74, "--correlation", 0.5)
    assert res.exit_code == 2 and "--effect" in flat(res.output)
    res = invoke("--baseline", 0.74, "--effect", 0.04)
    assert res.exit_code == 2 and "correlation" in flat(res.output)
    res = runner.invoke(app, ["plan", "--example", "vtab", "--effect", "0.01", "--baseline", "0.5"])
    assert res.exit_code == 2 and "estimated from the results file" in flat(res.output)
    res = invoke("--baseline", 0.74, "--effect", 0.04, "--correlation", 0.5, "--format", "csv")
    assert res.exit_code == 2


def test_pilot_means_and_difference_in_points():
    """QA round 4: the plan table showed `effect 2.0 points` beside `pilot difference 0.06149` (a fraction)."""
    from typer.testing import CliRunner

    from evalband.cli.main import app

    res = CliRunner().invoke(app, ["plan", "--example", "mmlu-pro", "--effect", "0.02", "--models",
                                   "gemini-1.5-pro-002,gemini-1.5-flash-002"])
    rows = {" ".join(line.split()[:2]): " ".join(line.split()[2:]) for line in res.stdout.splitlines()
            if line.startswith("pilot ")}
    assert rows["pilot difference"] == "+6.1 points" and rows["pilot mean_a"] == "70.2 points"
