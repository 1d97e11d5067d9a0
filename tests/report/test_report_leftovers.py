"""Report fixes: a perfect model's interval beside the Bayesian one (no zero width, no "nan times"), the note on items left
out of paired analyses only where items are paired, and a task some model lacks left out with the note of
compare and rank.

Oracles: the width ratio recomputed by hand from the report's own Bayesian and bootstrap tables (median over the
models whose bootstrap interval has a width); for the left-out task, ``evalband.compare`` on the same data (its
notes, word for word, and its tasks) and the per-task means computed with pandas.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import compare
from evalband.cli.main import app
from evalband.report.build import build_report
from evalband.report.sections.findings import _bayes_text
from evalband.data.table import UNSHARED_NOTE, ResultsTable

N = 60


def _items(missing=(), tasks=("law", "math", "history"), models=("a", "b", "c"), perfect=(), seed=0):
    gen = np.random.default_rng(seed)
    rows = []
    for k, m in enumerate(models):
        for t in tasks:
            if (m, t) in missing:
                continue
            p = 0.5 + 0.1 * k
            rows += [(m, t, f"{t}-{i}", 1.0 if m in perfect else float(gen.random() < p)) for i in range(N)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


def test_a_perfect_model_gets_an_interval_with_width_and_the_ratio_counts_it():
    # issue 22: a model right on every item used to get the zero-width bootstrap interval (100, 100); it now has
    # the interval from the tasks' Wilson intervals, so the width ratio is over every model
    table = ResultsTable.from_items(_items(perfect=("c",)))
    rep = build_report(table, n_resamples=300, rng=2, bayes=True, timestamp="T")
    text = next(f for f in rep.findings if f.startswith("The Bayesian (Beta-Binomial)"))
    assert "nan" not in text and "zero width" not in text
    b = rep.bayes.set_index("model")
    r = rep.ranking.set_index("model")
    assert r.loc["c", "ci_high"] == 1.0 and r.loc["c", "ci_low"] < 0.97  # Wilson of 60/60 per task: 0.940
    ratios = [(b.loc[m, "ci_high"] - b.loc[m, "ci_low"]) / (r.loc[m, "ci_high"] - r.loc[m, "ci_low"])
              for m in ("a", "b", "c")]
    shown = float(re.search(r"their widths are ([0-9.]+) times", text).group(1))
    assert shown == pytest.approx(float(np.median(ratios)), abs=0.006)
    assert "median)." in text


def test_every_interval_of_zero_width_gives_no_ratio():
    table = ResultsTable.from_items(_items(perfect=("a", "b")))
    lo, hi = np.array([1.0, 1.0]), np.array([1.0, 1.0])
    text = _bayes_text(("a", "b"), np.array([0.97, 0.96]), np.array([0.999, 0.999]), lo, hi, table, 100)
    assert "times" not in text and "nan" not in text
    assert "bootstrap interval of a, b has zero width" in text and "for each of them" in text


def test_unshared_note_is_left_out_where_nothing_is_paired():
    df = _items()
    df.loc[(df.model == "a") & (df.task == "math"), "item"] += "-a"  # a's math items are not the others'
    table = ResultsTable.from_items(df)
    assert any(n.startswith(UNSHARED_NOTE) for n in table.notes)  # true of paired analyses of this table
    rep = build_report(table, n_resamples=200, rng=1, bayes=False, timestamp="T")
    assert "unpaired" in rep.methods[0]
    assert not any(n.startswith(UNSHARED_NOTE) for n in rep.notes)
    # where items are paired, the note stays
    df = _items()
    df = df.drop(df.index[(df.model == "a") & (df.task == "math")][:5])
    table = ResultsTable.from_items(df)
    rep = build_report(table, n_resamples=200, rng=1, bayes=False, timestamp="T")
    assert rep.methods[0].startswith("Bootstrap") and "(paired)" in rep.methods[0]
    assert any(n.startswith(UNSHARED_NOTE) and "5 for b, c" in n for n in rep.notes)


def test_unshared_note_is_left_out_of_a_summary_report():
    # two models sharing no task: each is summarised on its own items
    df = _items(missing=(("a", "math"), ("a", "history"), ("b", "law")), models=("a", "b"))
    table = ResultsTable.from_items(df)
    assert any(n.startswith(UNSHARED_NOTE) for n in table.notes)
    rep = build_report(table, n_resamples=200, rng=1, bayes=False, timestamp="T")
    assert rep.kind == "summary"
    assert not any(n.startswith(UNSHARED_NOTE) for n in rep.notes)


def test_report_leaves_out_a_task_a_model_lacks_with_the_note_of_compare(tmp_path):
    df = _items(missing=(("c", "law"),))
    table = ResultsTable.from_items(df)
    rep = build_report(table, n_resamples=200, rng=1, bayes=False, timestamp="T")
    ref = compare(table, n_resamples=200, rng=1, per_task=False)
    left = [n for n in ref.notes if "left out" in n]
    assert left == ["task 'law' left out: c has no results on it",
                    "aggregates over tasks are over the 2 tasks every selected model has (1 of 3 left out; choose"
                    " with `tasks` or `models`)"
                    "; 2 measured (model, task) cells left out with them: rank and compare take `missing='common'` (each"
                    " pair on the tasks both have) or `missing='ability'` (every cell, through a latent-ability model)"]
    assert list(rep.analysis_notes[:2]) == left
    assert set(rep.per_task["task"]) == {"math", "history"}
    shared = df[df.task.isin(["math", "history"])]
    means = shared.groupby(["model", "task"])["score"].mean().groupby("model").mean()
    est = rep.ranking.set_index("model")["estimate"]
    for m in ("a", "b", "c"):
        assert est[m] == pytest.approx(means[m], abs=1e-12)
    # the command line on a long CSV: the report is written and carries the note
    path = tmp_path / "lacking.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "r.md"
    res = CliRunner().invoke(app, ["report", str(path), "-o", str(out), "--format", "markdown", "--n-resamples",
                                   "200", "--no-bayes", "--seed", "1"])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "left out: c has no results on it" in text
