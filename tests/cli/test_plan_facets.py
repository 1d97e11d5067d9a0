"""``evalband plan FILE --facets prompt,trial --target-se S [--cost ...]``: the D-study designs (contract)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()
PROMPTS = str(Path(__file__).resolve().parents[1] / "fixtures" / "facets" / "prompts_trials.csv")


def plan(*args):
    return runner.invoke(app, ["plan", PROMPTS, "--facets", "prompt,trial", *args])


def test_contract_designs_with_items_prompts_trials_and_predicted_se():
    res = plan("--target-se", "0.01")
    assert res.exit_code == 0, res.output
    assert "Designs that reach a standard error of 1 point" in res.stdout
    assert "item" in res.stdout and "prompt" in res.stdout and "trials" in res.stdout
    out = json.loads(plan("--target-se", "0.01", "--format", "json").stdout)
    designs = out["designs"]
    assert designs and {"item", "prompt", "trials", "predicted_se"} <= set(designs[0])
    assert all(d["predicted_se"] <= 0.01 + 1e-12 for d in designs)
    assert [d["observations"] for d in designs] == sorted(d["observations"] for d in designs)
    # theory: the predicted SE of a balanced design from the components `variance` reports (the largest of the
    # two models), sqrt(s_i / I + s_p / P + s_ip / (I P) + s_t / (I P R))
    comps = json.loads(runner.invoke(app, ["variance", PROMPTS, "--format", "json", "--seed", "0"]).stdout)
    d = designs[0]
    ses = []
    for m in comps["models"]:
        v = {c["component"]: c["variance"] for c in m["components"]}
        n_i, n_p, r = d["item"], d["prompt"], d["trials"]
        ses.append(np.sqrt(v["item"] / n_i + v["prompt"] / n_p + v["item x prompt"] / (n_i * n_p)
                           + v["trial"] / (n_i * n_p * r)))
    assert d["predicted_se"] == pytest.approx(max(ses), rel=1e-9)


def test_costs_order_the_designs_and_are_checked():
    out = json.loads(plan("--target-se", "0.02", "--cost", "item=1,prompt=5,trial=0.2", "--format", "json").stdout)
    cost = [d["cost"] for d in out["designs"]]
    assert cost == sorted(cost)
    d = out["designs"][0]
    assert d["cost"] == pytest.approx(d["item"] + 5 * d["prompt"] + 0.2 * d["observations"])
    assert any(x["trials"] > 1 for x in out["designs"])  # trials are planned too (the pilot has 2 per cell)
    res = plan("--target-se", "0.02", "--cost", "item=1,judge=3")
    assert res.exit_code == 2 and "unknown unit" in res.output
    res = plan("--target-se", "0.02", "--cost", "item")
    assert res.exit_code == 2 and "unit=cost" in res.output
