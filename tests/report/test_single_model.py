"""QA O12 (b, c): a report for one model (tau-bench, CRUXEval), for models that share no task (inspect logs), and
for models that share no item (independent resampling instead of an error).

Oracles: the published tau-bench pass^k (gpt-4o airline, tau-bench README: 0.420, 0.273, 0.220, 0.200) and
CRUXEval pass@k (codellama-7b input: pass@1 = 35.95, pass@5 = 44.99); the mean reward 0.42; theory for the
bootstrap standard errors (a mean of n values: SD / sqrt(n) x sqrt((n - 1) / n); a difference of two independent
proportions: sqrt(p1 q1 / n1 + p2 q2 / n2)); the engine's own joint independent bootstrap.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

pytest.importorskip("matplotlib")

from evalband import read  # noqa: E402
from evalband.cli.main import app  # noqa: E402
from evalband.report.build import build_report  # noqa: E402
from evalband.report.writers import render_html, render_latex, render_markdown  # noqa: E402
from evalband.data.table import ResultsTable  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TAU = FIXTURES / "tau_bench" / "gpt-4o-airline_rewards.csv"
CRUX = FIXTURES / "cruxeval" / "sample_scored_codellama-7b_temp0.2_input.json"
INSPECT = FIXTURES / "harness_logs" / "inspect"
runner = CliRunner()


@pytest.fixture(scope="module")
def tau_report():
    table = read(TAU, item_col="task_id", score_col="reward")
    return table, build_report(table, n_resamples=2000, rng=3, timestamp="T")


def test_one_model_report_tau_bench(tau_report):
    table, rep = tau_report
    assert rep.kind == "summary" and "one model" in rep.summary_reason and rep.pairs.empty
    hat = rep.passk[rep.passk["metric"] == "pass^k"].sort_values("k")
    # tau-bench README, gpt-4o airline: pass^1..4 = 0.420, 0.273, 0.220, 0.200
    assert hat["estimate"].round(3).tolist() == [0.420, 0.273, 0.220, 0.200]
    row = rep.ranking.iloc[0]
    assert row["estimate"] == pytest.approx(0.42, abs=1e-12)  # mean reward over 50 tasks x 4 trials
    # theory: the bootstrap SD of a mean of the 50 per-item averages is SD / sqrt(n) * sqrt((n - 1) / n)
    per_item = table.data.groupby("item", observed=True)["score"].mean().to_numpy()
    theory = per_item.std(ddof=0) / np.sqrt(len(per_item))
    assert row["se"] == pytest.approx(theory, rel=0.08)  # 2000 replicates: MC error of an SD ~ 1.6%
    assert row["ci_low"] < 0.42 < row["ci_high"]
    page = render_html(rep)
    assert "<h2>Scores</h2>" in page and "pass@k and pass^k" in page
    for absent in ("Pairwise comparisons", "Aggregate scores and ranks", "Task weights", "Tasks as the sample"):
        assert absent not in page
    assert "nothing to compare or rank" in page
    md = render_markdown(rep)
    assert "## Scores" in md and "## pass@k and pass^k" in md and "## Pairwise comparisons" not in md
    # with k = n = 4 trials, pass@4 is the share of tasks solved at least once, pass^4 the share solved every time
    by_item = table.data.groupby("item", observed=True)["score"]
    at4, hat4 = 100 * (by_item.max() == 1).mean(), 100 * (by_item.min() == 1).mean()
    assert hat4 == pytest.approx(20.0)  # tau-bench README
    assert any(line.startswith(f"| gpt-4o-airline_rewards | 4 | {at4:.1f} |") and f"| {hat4:.1f} |" in line
               for line in md.splitlines())
    assert r"\label{tab:evalband-passk}" in render_latex(rep)


def test_one_model_report_cruxeval_cli(tmp_path):
    scored = json.loads(CRUX.read_text())["raw_scored_generations"]
    rows = [{"model": "codellama-7b", "task": "input", "item": item, "trial": j, "score": int(v)}
            for item, values in scored.items() for j, v in enumerate(values)]
    path = tmp_path / "crux.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    out = tmp_path / "r.md"
    res = runner.invoke(app, ["report", str(path), "-o", str(out), "-f", "markdown", "--n-resamples", "300"])
    assert res.exit_code == 0, res.output
    md = out.read_text()
    assert "nothing to compare or rank" in md and "## Pairwise comparisons" not in md
    cells = {line.split("|")[2].strip(): line.split("|")[3].strip() for line in md.splitlines()
             if line.startswith("| codellama-7b |") and line.count("|") == 7}
    # published: pass@1 = 35.95, pass@5 = 44.99 (percent; shown to the digits the standard error allows)
    assert float(cells["1"]) == pytest.approx(35.95, abs=0.05) and float(cells["5"]) == pytest.approx(44.99, abs=0.05)


def test_models_sharing_no_task_get_a_summary_report():
    table = read(INSPECT)  # qwen and sonnet ran arc_easy, gpt-4o-mini ran pubmedqa
    rep = build_report(table, n_resamples=300, rng=1, timestamp="T")
    assert rep.kind == "summary" and "share no task" in rep.summary_reason
    assert set(rep.ranking["model"]) == set(table.models)
    # each model on its own tasks: (model, task) rows only where the model has results
    assert len(rep.per_task) == 3
    mini = rep.per_task[rep.per_task["model"] == "openai/azure/gpt-4o-mini"]
    assert mini["task"].tolist() == ["inspect_evals/pubmedqa"]


def test_inspect_cli_report_no_longer_fails(tmp_path):
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(INSPECT), "-o", str(out), "--n-resamples", "200"])
    assert res.exit_code == 0, res.output
    assert "share no task" in out.read_text()


def _disjoint_items(n=400, p=(0.7, 0.55), seed=0):
    rng = np.random.default_rng(seed)
    rows = [{"model": m, "task": t, "item": f"{m}-{t}-{i}", "score": int(rng.random() < pm)}
            for m, pm in zip(("a", "b"), p) for t in ("t1", "t2") for i in range(n)]
    return ResultsTable.from_items(pd.DataFrame(rows), source="disjoint.csv")


def test_models_sharing_no_item_are_compared_unpaired():
    table = _disjoint_items()
    rep = build_report(table, n_resamples=2000, rng=5, bayes=False, timestamp="T")
    assert rep.kind == "comparison"
    assert any("share no item" in n and "independently" in n for n in rep.analysis_notes)
    assert "unpaired" in rep.methods[0]
    # theory: the mean over 2 tasks of a difference of independent proportions
    obs = table.data.groupby(["model", "task"], observed=True)["score"].agg(["mean", "count"])
    var = (obs["mean"] * (1 - obs["mean"]) / obs["count"]).groupby(level="model", observed=True).sum() / 4
    theory = float(np.sqrt(var.sum()))
    assert float(rep.pairs["se"].iloc[0]) == pytest.approx(theory, rel=0.08)
    assert int(rep.coverage["left_out"].sum()) == 0
    assert not any("left out of the paired analyses" in f for f in rep.findings)


def test_a_task_some_model_lacks_is_left_out_with_a_note():
    table = _disjoint_items()
    extra = pd.DataFrame([{"model": "a", "task": "t3", "item": f"x{i}", "score": i % 2} for i in range(50)])
    table = ResultsTable.from_items(pd.concat([table.data.reset_index(drop=True)[["model", "task", "item", "score"]]
                                              .astype({"model": str, "task": str, "item": str}), extra]),
                                    source="lacking.csv")
    rep = build_report(table, n_resamples=200, rng=1, bayes=False, timestamp="T")
    assert rep.kind == "comparison" and set(rep.per_task["task"]) == {"t1", "t2"}
    # the note of compare and rank, word for word (evalband.comparison._setup.TasksLeftOut)
    assert "task 't3' left out: b has no results on it" in rep.analysis_notes
