"""QA2 S23: `rank --confidence overlap` sets the per-model intervals at 83.4% but judges tiers and simultaneous
rank intervals (differences) at 95%, like `compare`, which refuses 'overlap' for differences."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalband import rank


def _two_close_models():
    # seed 2: the difference is separated by an 83% interval but not by a 95% one
    rng = np.random.default_rng(2)
    rows = []
    for m, p in enumerate([0.60, 0.645]):
        y = (rng.random(800) < p).astype(float)
        rows += [(f"m{m}", "t", i, y[i]) for i in range(800)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


def test_overlap_keeps_tiers_and_simultaneous_intervals_at_95():
    df = _two_close_models()
    over, at95, at83 = (rank(df, confidence_level=c, n_resamples=2000, rng=3)
                        for c in ("overlap", 0.95, 0.83))
    o, a, b = (r["mean"] for r in (over, at95, at83))
    assert b.better.sum() == 1 and a.better.sum() == 0  # the case discriminates between the two levels
    # tiers and simultaneous rank intervals: those of the 95% run
    np.testing.assert_array_equal(o.better, a.better)
    np.testing.assert_array_equal(o.tier, a.tier)
    np.testing.assert_array_equal(o.rank_simultaneous.low, a.rank_simultaneous.low)
    # per-model intervals at 83.4%: narrower than at 95%
    assert o.confidence_level == 0.834 and (o.ci.high - o.ci.low < a.ci.high - a.ci.low).all()
    assert any("stay at 95%" in n for n in over.notes)
    assert not any("stay at 95%" in n for n in at95.notes)
