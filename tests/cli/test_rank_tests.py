"""`evalband rank --test ...`: tests over tasks from the command line, equal to the library's numbers."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband import load_example
from evalband.tasks import run_test
import jsonout  # noqa: E402

runner = CliRunner()


def _invoke(*args):
    return runner.invoke(app, ["rank", "--example", "vtab", *args])


def test_friedman_matches_the_library_and_scipy():
    from scipy import stats

    res = _invoke("--test", "friedman", "--format", "json")
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    rows = out["records"]
    lib = run_test(load_example("vtab"), test="friedman")
    # the primary result is in the JSON (issue 13): the Friedman chi-square, its df and p-value, Iman-Davenport F
    assert out["omnibus"]["chi_square"] == pytest.approx(lib.omnibus.statistic, rel=1e-12)
    assert out["omnibus"]["df"] == 15 and isinstance(out["omnibus"]["df"], int)
    assert out["omnibus"]["p_value"] == pytest.approx(lib.omnibus.p_value, rel=1e-12)
    assert out["posthoc"]["critical_difference"] == pytest.approx(lib.posthoc.critical_difference)
    assert len(rows) == 16 * 15 // 2
    assert rows[0]["critical_difference"] == pytest.approx(lib.posthoc.critical_difference)
    frame = lib.to_frame()
    np.testing.assert_allclose([r["p_value"] for r in rows], frame["p_value"], rtol=1e-15, atol=0)  # full precision
    table = _invoke("--test", "friedman")
    table_text = " ".join(table.output.split())
    assert table.exit_code == 0
    counts = load_example("vtab").counts()
    chi2 = stats.friedmanchisquare(*(counts.correct / counts.n)).statistic
    assert f"chi2(15) = {chi2:.4g}" in table_text
    assert "Iman-Davenport" in table_text and "Nemenyi critical difference" in table_text


def test_wilcoxon_against_a_control():
    res = _invoke("--test", "wilcoxon", "--control", "Sup-100%", "--format", "csv")
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(io.StringIO(res.stdout))
    assert len(frame) == 15 and set(frame["model_a"]) == {"Sup-100%"}
    lib = run_test(load_example("vtab"), test="wilcoxon", control="Sup-100%").to_frame()
    np.testing.assert_allclose(frame["p_value_holm"], lib["p_value_holm"])


def test_bayes_signed_rank_is_seeded():
    args = ("--test", "bayes-signed-rank", "--control", "Sup-100%", "--rope", "0.01", "--seed", "3",
            "--models", "Sup-100%,Rotation,VAE", "--format", "csv")
    a, b = _invoke(*args), _invoke(*args)
    assert a.exit_code == 0, a.output
    assert a.stdout == b.stdout
    frame = pd.read_csv(io.StringIO(a.stdout))
    lib = run_test(load_example("vtab").select(models=["Sup-100%", "Rotation", "VAE"]), test="bayes-signed-rank",
                   control="Sup-100%", rope=0.01, rng=3).to_frame()
    np.testing.assert_allclose(frame["prob_a_better"], lib["prob_a_better"])


def test_errors_are_one_line():
    res = _invoke("--test", "t-test")
    assert res.exit_code == 2
    assert "`--test` must be one of" in res.output and "Traceback" not in res.output
    res = _invoke("--test", "friedman", "--rope", "0.01")
    assert res.exit_code == 2 and "rope" in res.output
    res = _invoke("--test", "wilcoxon", "--control", "nope")
    assert res.exit_code == 2 and "unknown model 'nope'" in res.output


def test_wilcoxon_median_differences_in_points():
    """QA round 4: the median difference printed as a fraction (0.286) beside tables in points; the unit rule."""
    res = CliRunner().invoke(app, ["rank", "--example", "vtab", "--test", "wilcoxon", "--control", "Sup-100%"],
                             env={"COLUMNS": "150"})
    row = next(line for line in res.stdout.splitlines() if "Cond-BigGAN" in line).split()
    assert row[2] == "28.6" and "median_difference in points (x100)" in " ".join(res.stdout.split())
