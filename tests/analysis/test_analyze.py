"""Compute once, render many (evalband.analyze): one selection, one replicate set, every statistic from it.

Oracles: the same numbers from the separate calls (compare, rank, interval) on the same replicates; the input is
read once per command (counted); sections that do not apply are recorded with their reason.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evalband as eb
from evalband.cli.main import app


@pytest.fixture(scope="module")
def vtab_analysis():
    return eb.analyze("example:vtab", n_resamples=300, rng=4, bayes=False)


def test_every_statistic_comes_from_the_one_replicate_set(vtab_analysis):
    a = vtab_analysis
    reps = a.replicates
    ranking = eb.rank(a.selection, replicates=reps, rng=4)["mean"]
    np.testing.assert_array_equal(a.ranking.estimate, ranking.estimate)
    np.testing.assert_array_equal(a.ranking.samples, ranking.samples)
    np.testing.assert_array_equal(a.ranking.rank_ci.low, ranking.rank_ci.low)
    np.testing.assert_array_equal(a.ranking.tier, ranking.tier)
    pairs = eb.compare(a.selection, replicates=reps, per_task=False, rng=4).to_frame()
    pd.testing.assert_frame_equal(a.comparison.to_frame(), pairs)
    task = eb.interval(reps.replicates, reps.observed)
    np.testing.assert_array_equal(a.task_ci.low, task.low)
    assert a.kind == "comparison" and a.tests is not None and len(a.weight_maps) == 2  # independent: 2 maps
    assert "Analysis(comparison: 16 models x 19 tasks" in repr(a) and len(repr(a)) < 2000


def test_one_model_is_a_summary_and_skipped_sections_say_why():
    frame = pd.DataFrame({"model": "A", "task": "t", "item": range(40), "score": [i % 3 == 0 for i in range(40)]})
    a = eb.analyze(frame, n_resamples=200, rng=0)
    assert a.kind == "summary" and "one model (A)" in a.reason
    assert ("pass@k and pass^k", "need repeated trials of 0/1 scores") in a.skipped
    two = pd.concat([frame, frame.assign(model="B")])
    b = eb.analyze(two, n_resamples=200, rng=0, bayes=False)
    assert ("Critical-difference diagram", "needs at least two tasks and two models") in b.skipped


@pytest.mark.parametrize("command", [["compare"], ["rank"], ["report", "-o", "REPORT"]])
def test_the_input_is_read_once(command, tmp_path, monkeypatch):
    import evalband.io as io

    calls = []
    real = io.read

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(io, "read", counting)
    path = tmp_path / "r.csv"
    eb.load_example("mmlu-pro").data.query("task in ['law', 'math']").assign(
        model=lambda d: d["model"].astype(str)).loc[lambda d: d["model"].isin(["Meta-Llama-3-70B", "gemini-1.5-pro-002"])] \
        .to_csv(path, index=False)
    args = [a.replace("REPORT", str(tmp_path / "r.html")) for a in command]
    res = CliRunner().invoke(app, [*args, str(path), "--n-resamples", "200", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert len(calls) == 1
