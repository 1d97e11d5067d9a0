"""``evalband variance`` through typer's CliRunner: the contract's JSON, the tables, runs and errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "facets"
PROMPTS = str(FIXTURES / "prompts_trials.csv")  # 2 models x 60 items x 5 prompt templates x 2 trials, 0/1
RUNS = str(FIXTURES / "runs.csv")               # 2 models x 40 items x 5 training runs (seeds), 0/1


def run(*args):
    return runner.invoke(app, ["variance", *args])


def test_contract_json_components_and_se_random_and_fixed():
    # evalband variance FILE --facets prompt --format json
    res = run(PROMPTS, "--facets", "prompt", "--format", "json", "--seed", "1")
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    assert out["facets"] == ["prompt"] and out["method"] == {"t": "anova"}
    assert [m["model"] for m in out["models"]] == ["model-a", "model-b"]
    for m in out["models"]:
        comps = {c["component"]: c for c in m["components"]}
        assert list(comps) == ["item", "prompt", "item x prompt", "trial"]
        for c in comps.values():
            assert {"component", "variance", "share", "ci_low", "ci_high"} <= set(c)
            assert c["ci_low"] <= c["variance"] <= c["ci_high"]
        assert comps["prompt"]["levels"] == 5
        assert sum(c["share"] for c in comps.values()) == pytest.approx(1.0)
        # theory: the squared SE with prompts random is the sum of the components' parts of the variance of the
        # mean; with prompts fixed the prompt term leaves it (balanced: s2_prompt / 5)
        se = m["se"]
        assert se["random"] ** 2 == pytest.approx(sum(c["variance_of_mean"] for c in comps.values()))
        assert se["random"] ** 2 - se["fixed"] ** 2 == pytest.approx(comps["prompt"]["variance"] / 5)
        assert se["random"] > se["fixed"] and m["df"]["random"] < 10
    assert out["differences"][0]["model_a"] == "model-a" and set(out["differences"][0]["se"]) == {"random", "fixed"}
    assert out["plan"]["designs"] and out["plan"]["target_se"] > 0


def test_trial_named_in_facets_stays_nested_and_table_shows_both_se():
    res = run(PROMPTS, "--facets", "prompt,trial", "--seed", "1", "--differences")
    assert res.exit_code == 0, res.output
    text = res.stdout
    for part in ("Variance components", "Standard error of the mean: facets (prompt) random",
                 "Components of each pair's difference", "Differences (model_a - model_b)",
                 "values in points"):
        assert part in text, part
    assert "item x prompt" in text and "trial" in text


def test_fixed_sets_the_shares_and_runs_show_best_of_n():
    res = run(PROMPTS, "--facets", "prompt", "--fixed", "prompt", "--format", "json", "--seed", "1")
    assert res.exit_code == 0, res.output
    comps = {c["component"]: c for c in jsonout.records(res.stdout)["models"][0]["components"]}
    assert comps["prompt"]["share"] == 0 and comps["prompt"]["random"] is False
    res = run(RUNS, "--format", "json", "--seed", "2")
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    assert out["facets"] == ["run"]
    runs = [r for r in out["runs"] if r["model"] == "model-b"]
    best = {r["n"]: r for r in runs}
    assert best[1]["inflation"] == pytest.approx(0.0, abs=1e-12)
    # theory: with 5 runs the unbiased E[max of 5] is their maximum, and E[max of 2] the mean of the pairwise maxima
    import pandas as pd

    df = pd.read_csv(RUNS)
    per_run = df[df["model"] == "model-b"].groupby("run")["score"].mean().to_numpy()
    assert best[5]["best_of_n"] == pytest.approx(per_run.max())
    pairs = [max(a, b) for i, a in enumerate(per_run) for b in per_run[i + 1:]]
    assert best[2]["best_of_n"] == pytest.approx(np.mean(pairs))
    assert best[5]["ci_low"] < best[5]["inflation"] < best[5]["ci_high"]
    text = run(RUNS, "--seed", "2").stdout
    assert "inflation of reporting the best of n runs" in text


def test_errors_are_one_line(tmp_path):
    import pandas as pd

    plain = tmp_path / "plain.csv"
    pd.read_csv(PROMPTS).query("prompt == 'template-0' and trial == 0").drop(columns=["prompt", "trial"]).to_csv(
        plain, index=False)
    res = run(str(plain))
    assert res.exit_code == 2 and "no facet column" in res.output
    res = run(PROMPTS, "--facets", "prompt", "--fixed", "judge")
    assert res.exit_code == 2 and "not a facet column" in res.output and "--fixed" in res.output
