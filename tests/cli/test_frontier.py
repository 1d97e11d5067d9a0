"""`evalband frontier` through typer's CliRunner, as a user runs it.

Oracles:
* the contract of issue 18, on the constructed file ``tests/fixtures/frontier/contract.csv`` (made by
  ``make_fixture.py`` beside it): C is far worse and far costlier than B, so B is among the models that dominate C
  with confidence; A and B trade quality for cost, so both are on the frontier and neither dominates the other;
* the library's own engines on the same seed: quality and its interval equal ``evalband.rank``'s, per-model
  summary costs equal ``cost_from_summary``'s (t with n - 1 degrees of freedom, i.e. ``scipy.stats.t``);
* the decision sentence and the cost to reach a quality level, by construction (A is the only model far above 70
  points; none is above 95).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

import evalband as eb
from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "frontier" / "contract.csv"
CONTRACT = ["model", "quality", "quality_ci_low", "quality_ci_high", "cost", "cost_ci_low", "cost_ci_high",
            "on_frontier", "dominated_by"]


def _run(*args):
    result = runner.invoke(app, ["frontier", *map(str, args)])
    return result


def _json(result):
    assert result.exit_code == 0, result.output
    return jsonout.records(result.stdout)


def test_contract_json_records():
    """evalband frontier FILE --cost-col cost --format json: one record per model with the contract's fields."""
    records = _json(_run(FIXTURE, "--cost-col", "cost", "--format", "json", "--seed", "1"))
    assert [r["model"] for r in records] == ["A", "B", "C"]
    for r in records:
        assert list(r)[:len(CONTRACT)] == CONTRACT
        assert isinstance(r["dominated_by"], list) and isinstance(r["on_frontier"], bool)
        assert r["quality_ci_low"] < r["quality"] < r["quality_ci_high"]
        assert r["cost_ci_low"] < r["cost"] < r["cost_ci_high"]
    rows = {r["model"]: r for r in records}
    assert "B" in rows["C"]["dominated_by"] and not rows["C"]["on_frontier"]  # far worse and far costlier
    assert rows["A"]["on_frontier"] and rows["B"]["on_frontier"]  # A and B trade quality for cost
    assert rows["A"]["dominated_by"] == [] and rows["B"]["dominated_by"] == []


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_contract_holds_for_other_seeds(seed):
    rows = {r["model"]: r for r in _json(_run(FIXTURE, "--format", "json", "--seed", seed, "--n-resamples", 1000))}
    assert "B" in rows["C"]["dominated_by"] and rows["A"]["dominated_by"] == rows["B"]["dominated_by"] == []
    assert rows["A"]["on_frontier"] and rows["B"]["on_frontier"]


def test_quality_is_that_of_rank():
    records = _json(_run(FIXTURE, "--format", "json", "--seed", "7", "--n-resamples", "800"))
    ranked = eb.rank(str(FIXTURE), n_resamples=800, rng=7)["mean"]
    np.testing.assert_allclose([r["quality"] for r in records], ranked.estimate, rtol=1e-13)
    np.testing.assert_allclose([r["quality_ci_low"] for r in records], ranked.ci.low, rtol=1e-13)
    np.testing.assert_allclose([r["quality_ci_high"] for r in records], ranked.ci.high, rtol=1e-13)


def test_terminal_table_in_points_with_notes():
    result = _run(FIXTURE, "--seed", "1", "--n-resamples", "1000")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "quality (mean, points) and mean cost per item, 95% CI" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line[:2] in ("A ", "B ", "C ")}
    assert "no: dominated by" in lines["C"] and lines["A"].rstrip().endswith("yes")
    quality = float(lines["A"].split()[1])
    assert 70 < quality < 95  # points, not a fraction
    assert "note: C is dominated with confidence by A, B" in out
    assert "note: quality in points (x100); JSON and CSV give fractions" in out
    assert "note: seed 1, 1,000 replicates" in out
    wide = _run(FIXTURE, "--seed", "1", "--n-resamples", "300", "--wide")
    assert "median CI_low" in wide.stdout and "p95 CI_high" in wide.stdout
    md = _run(FIXTURE, "--seed", "1", "--n-resamples", "300", "--format", "markdown")
    header = "| model | quality | quality CI | cost | cost CI | median | median CI | p95 | p95 CI | frontier |"
    assert header in md.stdout


def test_cost_col_maps_any_column(tmp_path):
    df = pd.read_csv(FIXTURE).rename(columns={"cost": "usd", "latency": "seconds"})
    path = tmp_path / "renamed.csv"
    df.to_csv(path, index=False)
    renamed = _json(_run(path, "--cost-col", "usd", "--latency-col", "seconds", "--format", "json", "--seed", "5",
                         "--n-resamples", "500"))
    original = _json(_run(FIXTURE, "--format", "json", "--seed", "5", "--n-resamples", "500"))
    assert renamed == original
    missing = _run(path, "--seed", "1")
    assert missing.exit_code == 2 and "no 'cost' column to read costs from" in missing.output
    assert "--cost-col COLUMN" in missing.output and "Traceback" not in missing.output


def test_two_models_give_the_decision_table():
    result = _run(FIXTURE, "--models", "A,B", "--seed", "1", "--n-resamples", "1000")
    assert result.exit_code == 0, result.output
    assert "decision: A = A, B = B" in result.stdout and "B / A" in result.stdout
    assert "note: A better in quality (+" in result.stdout and "B costs" in result.stdout
    data = _json(_run(FIXTURE, "--models", "A,B", "--seed", "1", "--n-resamples", "1000", "--format", "json"))
    assert [r["model"] for r in data["records"]] == ["A", "B"]
    dec = data["decision"]
    assert dec["model_a"] == "A" and dec["sentence"].startswith("A better in quality (+")
    assert [r["measure"] for r in dec["rows"]] == ["quality", "cost", "cost", "latency median", "latency p95"]
    lib = eb.costs.decision(str(FIXTURE), models=("A", "B"), n_resamples=1000, rng=1)
    assert dec["sentence"] == lib.sentence  # the frontier's draws are the pair's draws
    reversed_ = _json(_run(FIXTURE, "--models", "B,A", "--seed", "1", "--n-resamples", "1000", "--format", "json"))
    assert reversed_["decision"]["model_a"] == "B"


def test_min_quality():
    result = _json(_run(FIXTURE, "--min-quality", "70%", "--seed", "1", "--n-resamples", "1000", "--format", "json"))
    assert result["reach"]["cheapest"] == "A" and result["reach"]["min_quality"] == 0.7
    assert result["reach"]["sentence"].startswith("cheapest model decidedly above 70 points: A (mean cost")
    none = _run(FIXTURE, "--min-quality", "0.95", "--seed", "1", "--n-resamples", "500")
    assert none.exit_code == 0 and "no model is decidedly above 95 points" in none.stdout


def test_per_model_cost_file_with_results_quality(tmp_path):
    costs = tmp_path / "prices.csv"
    costs.write_text("model,cost,sd,n\nA,2.5,1.0,200\nB,0.6,0.3,200\nC,5.0,2.0,200\n")
    data = _json(_run(FIXTURE, "--costs", costs, "--format", "json", "--seed", "3", "--n-resamples", "500"))
    lib = eb.costs.cost_from_summary(eb.read(str(costs), source="costs"))
    np.testing.assert_allclose([r["cost"] for r in data], lib.estimate)
    half = stats.t.ppf(0.975, 199) * np.array([1.0, 0.3, 2.0]) / np.sqrt(200)
    np.testing.assert_allclose([r["cost_ci_high"] for r in data], [2.5, 0.6, 5.0] + half, rtol=1e-12)
    assert "latency_median" not in data[0]  # the cost file's, not the results file's
    result = _run(FIXTURE, "--costs", costs, "--seed", "3", "--n-resamples", "500")
    assert "not paired by item" in result.output


def test_errors_are_one_line():
    for args, text in ((["--rating", "elo"], "`--rating` applies to pairwise battles"),
                       (["--min-quality", "high"], "`--min-quality` must be a number"),
                       (["--format", "json", "--wide"], "`--wide` is for the terminal table"),
                       (["--models", "A,Z"], "Z")):
        result = _run(FIXTURE, "--seed", "1", "--n-resamples", "100", *args)
        assert result.exit_code == 2, (args, result.output)
        assert text in result.output and "Traceback" not in result.output
    helped = runner.invoke(app, ["frontier", "--help"])
    assert helped.exit_code == 0 and all(o in helped.output for o in ("--cost-col", "--min-quality", "--costs"))


LLMFAO = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao"


def test_battles_with_per_battle_cost_columns(tmp_path):
    """Battles with cost_a / cost_b: quality is the arena rating (equal to `evalband arena`'s on the same draws)."""
    gen = np.random.default_rng(4)
    strength = {"strong": 1.2, "cheap": 0.4, "weak": -0.8}
    price = {"strong": 3.0, "cheap": 0.5, "weak": 4.0}
    rows = []
    names = list(strength)
    for q in range(60):
        for i in range(3):
            a, b = names[i], names[(i + 1) % 3]
            p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
            rows.append(dict(model_a=a, model_b=b, winner="model_a" if gen.random() < p else "model_b",
                             question_id=f"q{q}", cost_a=price[a] * gen.lognormal(0, 0.3),
                             cost_b=price[b] * gen.lognormal(0, 0.3)))
    path = tmp_path / "battles.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    records = _json(_run(path, "--format", "json", "--seed", "2", "--n-resamples", "400"))
    rows_ = {r["model"]: r for r in records}
    assert "cheap" in rows_["weak"]["dominated_by"] and rows_["strong"]["on_frontier"] and rows_["cheap"]["on_frontier"]
    assert rows_["strong"]["quality"] > rows_["cheap"]["quality"] > rows_["weak"]["quality"]
    table = _run(path, "--seed", "2", "--n-resamples", "400")
    assert table.exit_code == 0 and "quality (Bradley-Terry rating) and mean cost per item" in table.stdout
    assert "resampled with the ratings' clusters (paired)" in " ".join(table.output.split())
    bad = _run(path, "--tasks", "t", "--seed", "1")
    assert bad.exit_code == 2 and "battles have models, not tasks or weights" in bad.output


def test_llmfao_battles_with_response_durations():
    """LLMFAO's crowd battles, each response's length as cost and its duration (ms) as latency."""
    result = _run(LLMFAO / "crowd-comparisons.csv", "--costs", LLMFAO / "responses.csv", "--costs-model-col", "name",
                  "--cost-col", "result_chars", "--latency-col", "duration_ms", "--pair", "GPT 4,LLaMA-2-Chat (7B)",
                  "--seed", "1", "--n-resamples", "300", "--format", "json")
    data = _json(result)
    rows = {r["model"]: r for r in data["records"]}
    assert len(rows) == 59 and rows["GPT 4"]["latency_median"] == 6399.0
    assert data["decision"]["sentence"].startswith("GPT 4 better in quality (+")
    assert "LLaMA-2-Chat (7B)'s median latency is 4168 lower" in data["decision"]["sentence"]
    assert "matched to the battles' questions (paired)" in " ".join(result.output.split())  # notes wrap
