"""Tiers are not split by a bootstrap separation resting on 1-9 items or a zero-width interval (QA O31)."""

import numpy as np
import pandas as pd

from evalband.ranking import rank


def frame(a, b):
    n = len(a)
    return pd.DataFrame({"model": ["A"] * n + ["B"] * n, "task": "t", "item": list(range(n)) * 2,
                         "score": np.concatenate([a, b])})


def test_three_items_do_not_separate_tiers():
    r = rank(frame([1, 1, 1], [0, 0, 0]), n_resamples=999, rng=1)["mean"]
    # before the fix: tiers 1 and 2 from the zero-width interval (100, 100); the exact sign test gives p = 0.25
    assert list(r.tier) == [1, 1]
    assert list(r.rank_simultaneous.low) == [1, 1] and list(r.rank_simultaneous.high) == [2, 2]


def test_many_items_still_separate():
    gen = np.random.default_rng(4)
    a = (gen.random(400) < 0.8).astype(float)
    b = (gen.random(400) < 0.4).astype(float)
    r = rank(frame(a, b), n_resamples=999, rng=1)["mean"]
    assert sorted(r.tier) == [1, 2]
