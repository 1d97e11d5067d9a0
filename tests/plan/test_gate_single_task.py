"""QA regression: the release gate on two plain files ``item,score`` (no task column, so each file's single task
is named after the file) pairs the items; before the fix it failed with 'share no (task, item)', so the README's
`evalband gate baseline.csv candidate.csv` did not work on the simplest input."""

from __future__ import annotations


import numpy as np
import pandas as pd
from scipy import stats
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402


def test_gate_pairs_items_of_two_single_task_files(tmp_path):
    rng = np.random.default_rng(7)
    base = rng.integers(0, 2, 60)
    cand = np.where(rng.random(60) < 0.15, 1 - base, base)
    pd.DataFrame({"item": range(60), "score": base}).to_csv(tmp_path / "baseline.csv", index=False)
    pd.DataFrame({"item": range(60), "score": cand}).to_csv(tmp_path / "candidate.csv", index=False)
    res = CliRunner().invoke(app, ["gate", str(tmp_path / "baseline.csv"), str(tmp_path / "candidate.csv"),
                                   "-f", "json"])
    assert res.exit_code in (0, 1, 3), res.output
    out = jsonout.records(res.stdout)
    assert out["n"] == 60 and out["left_out"] == {"baseline_only": 0, "candidate_only": 0}
    # oracle: the paired t interval of candidate - baseline (scipy)
    d = cand - base
    low, high = stats.t.interval(0.95, 59, loc=d.mean(), scale=stats.sem(d))
    assert np.isclose(out["ci_low"], low) and np.isclose(out["ci_high"], high)
    assert any("paired by item" in n for n in jsonout.note_texts(res.stdout))


def test_files_with_different_real_tasks_and_items_still_fail(tmp_path):
    pd.DataFrame({"task": "a", "item": range(5), "score": 1}).to_csv(tmp_path / "b.csv", index=False)
    pd.DataFrame({"task": "b", "item": range(5, 10), "score": 1}).to_csv(tmp_path / "c.csv", index=False)
    res = CliRunner().invoke(app, ["gate", str(tmp_path / "b.csv"), str(tmp_path / "c.csv")])
    assert res.exit_code == 2 and "share no (task, item)" in res.stderr
