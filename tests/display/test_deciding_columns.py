"""A table's decision and the columns it rests on are never the ones left out to fit the terminal, and an interval's
header says the level and correction of the interval the verdict is read from (issue 22: arena --pairs showed
p_value 0.048 beside "not yet decided" because the adjusted p-value column had been dropped to fit the width)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.display import render

FIXTURE = "tests/fixtures/llmfao/crowd-comparisons.csv"


def _pairs(n=6, *, correction="holm", long=True):
    rng = np.random.default_rng(3)
    names = [f"{'a-rather-long-model-name-' if long else 'm'}{k}" for k in range(n + 1)]
    diff = rng.normal(0, 0.02, n)
    p = np.clip(rng.uniform(0.001, 0.2, n), 0, 1)
    return pd.DataFrame({"model_a": names[:-1], "model_b": names[1:], "difference": diff, "se": 0.01,
                         "ci_low": diff - 0.03, "ci_high": diff + 0.03, "p_value": p,
                         "p_adjusted": np.minimum(1, p * n), "verdict": ["not yet decided", "A better"] * (n // 2),
                         "confidence_level": 0.95, "interval_level": 1 - 0.05 / n, "correction": correction})


def _header(text: str) -> str:
    lines = text.splitlines()
    return next(line for line in lines if "model_a" in line)


@pytest.mark.parametrize("width", range(50, 161, 10))
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "max-t"])
def test_the_adjusted_p_value_is_never_left_out_before_the_raw_one(width, correction):
    text = render(_pairs(correction=correction), "table", scale=100, width=width)
    dropped = " ".join(text.split()).partition("not shown, to fit")[2].partition("(--wide")[0]
    for column in ("p_adjusted", "verdict", "CI"):  # the decision, the p-value and the interval it rests on
        assert column not in dropped, (width, dropped)
    if "se" in dropped or "difference" in dropped:
        assert "p_value" in dropped  # the raw p-value goes before anything else
    if width >= 80:
        head = _header(text)
        assert "p_adjusted" in head and "verdict" in head and "CI" in head


def test_without_a_correction_the_raw_p_value_stays():
    frame = _pairs(correction="none").assign(p_adjusted=lambda f: f["p_value"], interval_level=0.95)
    head = _header(render(frame, "table", scale=100, width=90))
    assert "p_value" in head and "correction" not in render(frame, "table", scale=100, width=90)


@pytest.mark.parametrize("correction, header", [("holm", "99.17% Holm CI"), ("bonferroni", "99.17% Bonferroni CI"),
                                                ("max-t", "95% simultaneous CI"), ("none", "95% CI")])
def test_an_interval_header_says_its_level_and_correction(correction, header):
    frame = _pairs(correction=correction)
    if correction in ("none", "max-t"):
        frame = frame.assign(interval_level=0.95)
    for fmt in ("table", "markdown"):
        assert header in render(frame, fmt, scale=100, width=200)


def test_compare_names_the_corrected_interval():
    out = CliRunner().invoke(app, ["compare", "--example", "mmlu-pro", "--models",
                                   "Llama-2-70b-hf,Llama-2-13b-hf,Llama-2-7b-hf", "--correction", "holm",
                                   "--n-resamples", "1000", "--seed", "1"], env={"COLUMNS": "100"})
    assert out.exit_code == 0, out.output
    assert "98.33% Holm CI" in out.stdout and "95% CI" not in out.stdout


def test_arena_pairs_keep_the_adjusted_p_value():
    out = CliRunner().invoke(app, ["arena", FIXTURE, "--pairs", "--seed", "1", "--n-resamples", "1000"],
                             env={"COLUMNS": "100"})
    assert out.exit_code == 0, out.output
    head = _header(out.stdout)
    assert "p_adjusted" in head and "simultaneous CI" in head
