"""``evalband summarize`` through typer's CliRunner."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import load_example
from evalband.cli.main import app
from evalband.estimation import estimate
import jsonout  # noqa: E402

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["summarize", *args])


def test_vtab_json_records_are_fractions():
    res = run("--example", "vtab", "--format", "json")
    assert res.exit_code == 0, res.output
    records = jsonout.records(res.stdout)
    assert len(records) == 16 * 19 + 16
    assert {"model", "task", "estimate", "se", "ci_low", "ci_high", "n", "method"} <= set(records[0])
    frame = pd.DataFrame(records)
    assert (frame["method"] == "wilson").all()
    assert frame["estimate"].between(0, 1).all() and (frame["ci_low"] <= frame["estimate"]).all()
    ref = estimate(load_example("vtab")).to_frame(pooled=True)
    assert np.allclose(frame["ci_high"], ref["ci_high"], rtol=1e-12)
    first = frame[frame["model"] == frame["model"].iloc[0]]
    assert first["task"].iloc[-1] == "(pooled)" and first["n"].iloc[-1] == first["n"].iloc[:-1].sum()


def test_vtab_table_shows_digits_by_se_and_notes():
    res = run("--example", "vtab")
    assert res.exit_code == 0, res.output
    out = res.stdout
    # Cond-BigGAN on DTD: 723 / 1880 = 0.3846, SE 0.0112 -> shown in points as 38.5 (SE 1.1): the unit rule
    line = next(l for l in out.splitlines() if "Cond-BigGAN" in l and "DTD" in l)
    assert "38.5" in line and "1.1" in line and "38.46" not in line
    assert "(pooled)" in out
    assert "note: Data from google-research/task_adaptation" in out
    assert "95% intervals, method wilson" in out


@pytest.mark.parametrize("fmt, marker", [("markdown", "| model | task |"), ("csv", "model,task,estimate,se"),
                                         ("latex", r"\begin{tabular}")])
def test_other_formats(fmt, marker):
    res = run("--example", "vtab", "--format", fmt)
    assert res.exit_code == 0, res.output
    assert marker in res.stdout


def test_method_and_confidence_options():
    res = run("--example", "vtab", "--method", "clopper-pearson", "--confidence", "overlap", "-f", "json")
    assert res.exit_code == 0, res.output
    rec = jsonout.records(res.stdout)[0]
    assert rec["method"] == "clopper-pearson"
    # statsmodels 0.15.0: proportion_confint(3778, 6084, alpha=0.166, method='beta')[0] (Cond-BigGAN, Caltech101)
    from statsmodels.stats.proportion import proportion_confint
    assert rec["ci_low"] == pytest.approx(proportion_confint(3778, 6084, alpha=0.166, method="beta")[0])
    res = run("--example", "vtab", "--confidence", "90%", "-f", "json")
    assert res.exit_code == 0, res.output
    low90 = jsonout.records(res.stdout)[0]["ci_low"]
    assert low90 == pytest.approx(proportion_confint(3778, 6084, alpha=0.1, method="wilson")[0])


def test_inapplicable_method_is_a_one_line_error():
    res = run("--example", "vtab", "--method", "t")
    assert res.exit_code == 2
    assert "method 't' does not apply: the table holds per-task summaries; applicable: wilson," in res.output
    assert len(res.output.strip().splitlines()) == 1
    res = run("--example", "vtab", "--method", "bogus")
    assert res.exit_code == 2 and "`--method` must be one of 'auto', 'crossed', 'wilson'" in res.output


def test_needs_exactly_one_input():
    res = run()
    assert res.exit_code == 2 and "give either a results file PATH or --example NAME" in res.output


def test_cluster_column_from_a_file(tmp_path):
    rng = np.random.default_rng(5)
    rows = [{"model": m, "task": "qa", "item": i, "passage": i // 5, "score": int(rng.uniform() < 0.6)}
            for m in ("a", "b") for i in range(60)]
    path = tmp_path / "qa.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = runner.invoke(app, ["summarize", str(path), "--cluster", "passage", "-f", "json"])
    assert res.exit_code == 0, res.output
    recs = jsonout.records(res.stdout)
    assert recs[0]["method"] == "cluster" and recs[0]["n_clusters"] == 12
    assert "fewer than 30" in res.stderr
    plain = jsonout.records(runner.invoke(app, ["summarize", str(path), "-f", "json"]).stdout)
    assert plain[0]["method"] == "wilson"


def test_mmlu_pro_uses_its_clusters():
    res = run("--example", "mmlu-pro", "--models", "Meta-Llama-3-70B,Yi-6B", "-f", "json")
    assert res.exit_code == 0, res.output
    frame = pd.DataFrame(jsonout.records(res.stdout))
    assert (frame["method"] == "cluster").all() and len(frame) == 2 * 15
    pooled = frame[(frame["model"] == "Meta-Llama-3-70B") & (frame["task"] == "(pooled)")].iloc[0]
    assert round(pooled["estimate"], 4) == 0.5201 and pooled["n_clusters"] == 91


def test_unbounded_scores(tmp_path):
    path = tmp_path / "bleu.csv"
    pd.DataFrame({"model": "m", "task": "mt", "item": range(8),
                  "score": [12.0, 30.5, 22.1, 18.0, 40.2, 9.9, 27.3, 31.0]}).to_csv(path, index=False)
    res = runner.invoke(app, ["summarize", str(path), "-f", "json"])
    assert res.exit_code == 2 and "lies outside [0, 1]" in res.output
    res = runner.invoke(app, ["summarize", str(path), "--unbounded", "-f", "json"])
    assert res.exit_code == 0, res.output
    rec = jsonout.records(res.stdout)[0]
    assert rec["method"] == "t" and rec["estimate"] == pytest.approx(23.875)
