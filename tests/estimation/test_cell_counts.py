"""Proportion intervals from cell counts (issue 14, memory at 1e7 rows): with 0/1 scores and one row per item,
``estimate`` counts each (model, task) cell on the codes instead of building per-task arrays.

Oracle: the per-task-array path (``nansum`` and the non-missing count of each model's row of the task's
(models, items) array), which the rest of tests/estimation checks against peer libraries; the two must agree
exactly, numbers and notes, on tables where models lack items, on selections of models and tasks, and shuffled.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import select
from evalband.estimation import _cells, estimate, tasks as tasks_module


def _frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t in ("t2", "t10", "t1"):
        for m in ("b", "a", "c", "d"):
            for i in range(int(rng.integers(5, 40))):
                if rng.random() < 0.15:
                    continue
                rows.append({"model": m, "task": t, "item": f"q{i}", "score": float(rng.random() < 0.55)})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _both(data, monkeypatch, **kwargs):
    fast = estimate(data, **kwargs).to_frame()
    monkeypatch.setattr(tasks_module, "cell_counts", lambda table: None)
    slow = estimate(data, **kwargs).to_frame()
    monkeypatch.undo()
    return fast, slow


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method", ["wilson", "clopper-pearson", "agresti-coull"])
@pytest.mark.parametrize("subset", [{}, {"models": ["c", "a"]}, {"tasks": ["t1", "t10"]},
                                    {"models": ["d", "b", "a"], "tasks": ["t2"]}])
def test_counts_equal_the_task_arrays(seed, method, subset, monkeypatch):
    data = select(_frame(seed), **subset)
    assert _cells.cell_counts(data.table) is not None  # the fast path is taken
    fast, slow = _both(data, monkeypatch, method=method)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def test_not_taken_with_trials_or_fractional_scores():
    df = _frame(3)
    frac = df.assign(score=np.where(df["score"] == 1.0, 0.5, 0.0))
    assert _cells.cell_counts(select(frac).table) is None
    trials = pd.concat([df.assign(trial=1), df.assign(trial=2)], ignore_index=True)
    assert _cells.cell_counts(select(trials).table) is None
