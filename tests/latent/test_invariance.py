"""The latent-ability numbers do not depend on how the work is run: the threads the refits and predictions use,
the BLAS thread count, or whether the ranking forms its pairs itself or takes the comparison's (issue 24,
Performance: the speed-ups changed no number). Oracle: the same call run one way and the other, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband.ranking import rank_models
from evalband.comparison.pairwise import pairwise_differences
from evalband.resample import use_threads


def _cells(seed=0, m_=40, t_=10):
    rng = np.random.default_rng(seed)
    C, D = rng.normal(size=m_), rng.normal(size=t_)
    keep = rng.random((m_, t_)) > 0.6
    keep[np.arange(m_), np.arange(m_) % t_] = True
    keep[:, 0] = True
    m, t = np.nonzero(keep)
    p = 1 / (1 + np.exp(-1.2 * (C[m] - D[t])))
    return pd.DataFrame({"model": [f"m{k:02d}" for k in m], "task": [f"t{k}" for k in t], "n": 200,
                         "correct": rng.binomial(200, p)})


def _frames(res):
    return [res.to_frame(), res.tasks_frame(), res.cells, res.comparisons_frame(), res.holdout.cells]


def test_threads_change_no_number():
    df = _cells()
    with use_threads(1):
        one = eb.ability(df, n_resamples=300, rng=4, holdout=0.1)  # batches of 256: two, run in turn
    with use_threads(2):
        two = eb.ability(df, n_resamples=300, rng=4, holdout=0.1)  # the two batches on two threads
    for a, b in zip(_frames(one), _frames(two)):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    np.testing.assert_array_equal(one.samples, two.samples)


def test_ranking_from_the_comparisons_pairs_is_the_same():
    rng = np.random.default_rng(2)
    obs = rng.normal(size=12)
    s = obs + rng.normal(0, 0.3, size=(400, 12))
    names = [f"m{k}" for k in range(12)]
    pairs = pairwise_differences(obs, s, names, correction="max-t", scale=1.0, n_units=50)
    own = rank_models(obs, s, names, n_units=50, scale=1.0)
    given = rank_models(obs, s, names, n_units=50, scale=1.0, pairs=pairs)
    np.testing.assert_array_equal(own.better, given.better)
    np.testing.assert_array_equal(own.rank_simultaneous.low, given.rank_simultaneous.low)
    np.testing.assert_array_equal(own.rank_simultaneous.high, given.rank_simultaneous.high)
    np.testing.assert_array_equal(own.tier, given.tier)
    with pytest.raises(eb.ArgumentError, match="`pairs` must compare all 66 pairs with correction='max-t'"):
        rank_models(obs, s, names, pairs=pairwise_differences(obs, s, names, correction="holm"))
