"""One vocabulary across commands (issue 22): one header per concept in every human table, verdict words (never
True/False) for every decision, numbers in the unit and format of the table they sit beside, and intervals
written ``(a, b)`` everywhere."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.comparison.verdict import VERDICTS
from evalband.display.tables import HEADERS
from notes import flat

BATTLES = "tests/fixtures/llmfao/crowd-comparisons.csv"
FACETS = "tests/fixtures/facets/prompts_trials.csv"
#: field names that human tables spell by their concept (evalband.display.HEADERS)
RAW = tuple(HEADERS) + ("significant", "decision")


def run(*args, code=0):
    out = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "160"})
    assert out.exit_code == code, out.output
    return out


def _headers(text: str) -> str:
    """The header lines of a terminal table (the line above the rule) or of a Markdown table."""
    lines = text.splitlines()
    heads = [lines[k - 1] for k, line in enumerate(lines) if k and set(line.strip()) == {"─"}]
    heads += [line for k, line in enumerate(lines) if line.startswith("|") and k + 1 < len(lines)
              and lines[k + 1].startswith("|--")]
    return "\n".join(heads)


TABLES = [
    ("rank", "--example", "vtab", "--n-resamples", "300", "--seed", "1"),
    ("rank", "--example", "vtab", "--test", "friedman"),
    ("rank", "--example", "vtab", "--test", "wilcoxon", "--control", "Sup-100%"),
    ("rank", "--example", "vtab", "--test", "sign"),
    ("rank", "--example", "vtab", "--test", "rm-anova"),
    ("rank", "--example", "vtab", "--test", "bayes-signed-rank", "--control", "Sup-100%", "--rope", "0.01"),
    ("bayes", "--example", "vtab", "--draws", "300", "--seed", "1"),
    ("bayes", "--example", "vtab", "--draws", "300", "--seed", "1", "--pairs"),
    ("arena", BATTLES, "--n-resamples", "200", "--seed", "1"),
    ("arena", BATTLES, "--n-resamples", "200", "--seed", "1", "--pairs"),
]


@pytest.mark.parametrize("args", TABLES, ids=[" ".join(a[:1] + a[3:5]) for a in TABLES])
@pytest.mark.parametrize("fmt", ["table", "table-wide", "markdown"])
def test_one_header_per_concept_and_verdict_words(args, fmt):
    out = run(*args, "-f", fmt).stdout
    heads = _headers(out)
    assert heads, out[:2000]
    for raw in RAW:
        assert not re.search(rf"(?<![\w(]){re.escape(raw)}(?![\w)])", heads), (raw, heads)
    # intervals are written (a, b) in every command, never [a, b]
    assert not re.search(r"\[[-+]?\d[\d.,]*, [-+]?\d[\d.,]*\]", out)
    if "verdict" in heads:  # decisions in the words of every command
        cells = set(re.findall(r"\b(True|False)\b", out))
        assert not cells, cells
        assert any(v in out for v in VERDICTS)


def test_rope_and_differences_in_points():
    out = run("rank", "--example", "vtab", "--test", "bayes-signed-rank", "--control", "Sup-100%", "--rope",
              "0.01", "--seed", "1").stdout
    assert "ROPE +/- 1 point (0.01)" in flat(out)
    assert "rope" not in _headers(out)
    rm = run("rank", "--example", "vtab", "--test", "rm-anova").stdout
    assert "difference, low, high in points" in flat(rm)


def test_plan_says_power_as_its_table_does():
    out = run("plan", "--baseline", "0.74", "--effect", "0.04", "--correlation", "0.5", "--n", "120").stdout
    said = re.search(r"detected with probability (\S+)\.", flat(out)).group(1)
    table = re.search(r"power_at_n\s+(\S+)", out).group(1)
    assert said == table


def test_dstudy_counts_and_standard_errors_in_the_tables_units():
    out = run("plan", FACETS, "--facets", "prompt,trial", "--target-se", "0.01", "--cost",
              "item=1,prompt=5,trial=0.2")
    body = out.stdout.split("─")[-1].split("note:")[0]
    assert not re.search(r"(?<![\d.,])\d{4,}(?![\d.,])", body), body  # every count >= 1,000 has its separators
    assert "260,700" in body
    now = re.search(r"mean now (\S+ \S+)", flat(out.stdout)).group(1)
    assert now.endswith("points") and 1 < float(now.split()[0]) < 20  # a standard error in points, not 0.0672


def _runs(tmp_path, shift):
    rng = np.random.default_rng(0)
    n = 300
    base = (rng.random(n) < 0.7).astype(int)
    cand = np.where(rng.random(n) < shift, 1 - base, base)
    paths = []
    for name, score in (("base", base), ("cand", cand)):
        path = tmp_path / f"{name}.csv"
        pd.DataFrame({"model": name, "task": "t", "item": range(n), "score": score}).to_csv(path, index=False)
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("margin, code", [("0.2", 0), ("0.001", 3), ("-0.2", 1)])
def test_gate_line_is_short_and_writes_intervals_as_every_command(tmp_path, margin, code):
    base, cand = _runs(tmp_path, 0.05)
    if margin.startswith("-"):  # a regression: the candidate loses 30% of its correct items
        rng = np.random.default_rng(1)
        frame = pd.read_csv(cand)
        frame["score"] = np.where(rng.random(len(frame)) < 0.3, 0, frame["score"])
        frame.to_csv(cand, index=False)
        margin = "0.01"
    out = run("gate", base, cand, "--margin", margin, code=code)
    line = out.stdout.rstrip("\n")
    assert "\n" not in line and len(line) <= (100 if code != 3 else 140), (len(line), line)  # was 162
    assert "[" not in line and re.search(r"CI \([-+]?[\d.]+, [-+]?[\d.]+\)", line), line
    assert "paired items" in flat(out.stderr)  # the means and the items, as a note below the line
