"""``evalband passk`` through typer's CliRunner, on the tau-bench and CRUXEval known answers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TAU = FIXTURES / "tau_bench" / "gpt-4o-airline_rewards.csv"
CRUX = FIXTURES / "cruxeval" / "sample_scored_codellama-7b_temp0.2_input.json"
runner = CliRunner()


def test_tau_bench_pass_hat_k():
    res = runner.invoke(app, ["passk", str(TAU), "--item-col", "task_id", "--score-col", "reward", "--k", "1,2,3,4",
                              "-f", "json"])
    assert res.exit_code == 0, res.output
    frame = pd.DataFrame(jsonout.records(res.stdout))
    hat = frame[frame["metric"] == "pass^k"].sort_values("k")
    # tau-bench README, gpt-4o airline: pass^1..4 = 0.420, 0.273, 0.220, 0.200
    assert hat["estimate"].round(3).tolist() == [0.420, 0.273, 0.220, 0.200]
    assert (hat["n"] == 50).all() and {"se", "ci_low", "ci_high"} <= set(frame.columns)


def test_tau_bench_table_output():
    res = runner.invoke(app, ["passk", str(TAU), "--item-col", "task_id", "--score-col", "reward", "--k", "1,4"])
    assert res.exit_code == 0, res.output
    assert "pass^k" in res.stdout and "pass@k" in res.stdout and "20.0" in res.stdout  # 0.200 in points
    assert "no 'model' column: one model named 'gpt-4o-airline_rewards'" in res.stdout


def test_cruxeval_pass_at_k(tmp_path):
    scored = json.loads(CRUX.read_text())["raw_scored_generations"]
    rows = [{"model": "codellama-7b", "task": "input", "item": item, "trial": j, "score": int(v)}
            for item, values in scored.items() for j, v in enumerate(values)]
    path = tmp_path / "crux.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = runner.invoke(app, ["passk", str(path), "--k", "1,5", "-f", "json"])
    assert res.exit_code == 0, res.output
    at = pd.DataFrame(jsonout.records(res.stdout)).query("metric == 'pass@k'").sort_values("k")
    # published: pass@1 = 35.95, pass@5 = 44.99 (percent)
    assert (100 * at["estimate"]).round(2).tolist() == [35.95, 44.99]


def test_k_beyond_samples_names_the_item():
    res = runner.invoke(app, ["passk", str(TAU), "--item-col", "task_id", "--score-col", "reward", "--k", "1,8"])
    assert res.exit_code == 2
    assert "k = 8 exceeds the 4 sample(s) of item '0'" in res.output


@pytest.mark.parametrize("k, message", [("1,x", "`--k` must be a comma-separated list"),
                                        ("0", "`k` must be an integer >= 1")])
def test_bad_k(k, message):
    res = runner.invoke(app, ["passk", str(TAU), "--item-col", "task_id", "--score-col", "reward", "--k", k])
    assert res.exit_code == 2 and message in res.output


def test_needs_trials():
    res = runner.invoke(app, ["passk", "--example", "vtab"])
    assert res.exit_code == 2 and "pass@k needs item-level data with several samples per item" in res.output
