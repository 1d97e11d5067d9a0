"""QA round 4: raw Atari returns were averaged across games without a word. A mean over tasks of unbounded
scores whose typical sizes differ by more than SCALE_SPREAD (10x) gets a note naming the two tasks; scores on
comparable scales, proportions and rank-based aggregates get none."""

from __future__ import annotations

import numpy as np
import pandas as pd

import evalband as eb


def _table(scale_b: float) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [(m, t, f"i{i}", s * (1 + 0.2 * rng.standard_normal()) + (0.5 if m == "A" else 0) * s)
            for m in ("A", "B") for t, s in (("pong", 1.0), ("breakout", scale_b)) for i in range(30)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


def _notes(data, **kw):
    table = eb.read(data, unbounded=True)
    return [n for n in eb.rank(table, n_resamples=50, rng=0, **kw).notes if "differ by a factor" in n]


def test_a_mean_over_tasks_on_scales_far_apart_is_said():
    (note,) = _notes(_table(400.0))
    assert "'pong'" in note and "'breakout'" in note and "mean-rank" in note


def test_no_note_on_comparable_scales_or_rank_aggregates():
    assert _notes(_table(3.0)) == []
    assert _notes(_table(400.0), aggregate="mean-rank") == []
