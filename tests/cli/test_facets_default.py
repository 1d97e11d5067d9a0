"""Facets random by default in summarize, compare, rank and report; --fixed conditions on them (issue 17)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from evalband.cli.main import app

from designs import crossed_binary  # the simulated crossed population of the facet and resampling tests

import jsonout

runner = CliRunner()
PROMPTS = str(Path(__file__).resolve().parents[1] / "fixtures" / "facets" / "prompts_trials.csv")


def cli(*args):
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res


def test_summarize_generalizes_over_prompts_unless_fixed():
    out = pd.DataFrame(jsonout.records(cli("summarize", PROMPTS, "--format", "json").stdout))
    fixed = pd.DataFrame(jsonout.records(cli("summarize", PROMPTS, "--fixed", "prompt", "--format", "json").stdout))
    assert set(out["method"]) == {"crossed"} and set(fixed["method"]) == {"t"}
    assert (out["se"].to_numpy() > 1.5 * fixed["se"].to_numpy()).all()
    text = cli("summarize", PROMPTS).stdout
    assert "facet prompt random" in text and "method crossed" in text


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_compare_and_rank_resample_prompts_and_say_so(command):
    wide = cli(command, PROMPTS, "--seed", "1", "--n-resamples", "2000", "--format", "json")
    narrow = cli(command, PROMPTS, "--seed", "1", "--n-resamples", "2000", "--fixed", "prompt", "--format", "json")
    a, b = jsonout.records(wide.stdout), jsonout.records(narrow.stdout)
    a = a["records"] if isinstance(a, dict) else a
    b = b["records"] if isinstance(b, dict) else b
    width = lambda recs: np.array([r["ci_high"] - r["ci_low"] for r in recs])
    assert (width(a) > width(b)).all()
    assert "prompt random (the default)" in wide.stderr and "--fixed" in wide.stderr
    assert "prompt random" not in narrow.stderr


def test_report_says_the_facets_are_random(tmp_path):
    out = tmp_path / "r.md"
    cli("report", PROMPTS, "-o", str(out), "--seed", "1", "--n-resamples", "300", "--no-bayes")
    text = out.read_text()
    assert "## Where the variance comes from" in text and "prompt random (the default)" in text
    assert "D-study" in text
    out2 = tmp_path / "f.md"
    cli("report", PROMPTS, "-o", str(out2), "--seed", "1", "--n-resamples", "300", "--no-bayes", "--fixed", "prompt")
    text2 = out2.read_text()
    assert "prompt random (the default)" not in text2 and "--fixed prompt" in text2


def _population_mean(base=0.3, sd_item=1.0, sd_prompt=1.0):
    z = base + sd_item * np.random.default_rng(99).standard_normal(2_000_000) \
        + sd_prompt * np.random.default_rng(98).standard_normal(2_000_000)
    return float((1 / (1 + np.exp(-z))).mean())


@pytest.mark.slow
def test_contract_summarize_covers_the_hidden_crossed_mean(tmp_path):
    """100 datasets from a crossed items x prompts population (100 items, 5 prompts, prompt sd = item sd = 1 on
    the logit scale), one task each: summarize with the prompt column covers the population mean at >= 90%
    (measured 0.95); with --fixed prompt (the item-only interval) it covers far less (measured 0.34)."""
    rng = np.random.default_rng(2027)
    n_sim = 100
    df = pd.concat([crossed_binary(rng, 100, 5, task=f"d{s:03d}", prompt_prefix=f"d{s}-") for s in range(n_sim)],
                   ignore_index=True)
    path = tmp_path / "crossed.csv"
    df.to_csv(path, index=False)
    truth = _population_mean()
    out = pd.DataFrame(jsonout.records(cli("summarize", str(path), "--format", "json").stdout))
    item_only = pd.DataFrame(jsonout.records(cli("summarize", str(path), "--fixed", "prompt", "--format",
                                            "json").stdout))
    hits, hits_item = (int(((f["ci_low"] <= truth) & (truth <= f["ci_high"]) & (f["task"] != "(pooled)")).sum())
                       for f in (out, item_only))
    print(f"summarize coverage over {n_sim}: crossed {hits / n_sim:.2f}, item-only {hits_item / n_sim:.2f}")
    assert hits / n_sim >= 0.90 and binomtest(hits, n_sim, 0.95).pvalue > 1e-3
    assert binomtest(hits_item, n_sim, 0.95, alternative="less").pvalue < 1e-6
