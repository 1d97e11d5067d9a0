"""Summary counts as virtual 0/1 units (CountUnits): the jackknife without materializing items.

Oracles: the materialized 0/1 vectors (TaskUnits, what the engine built before) give identical delete-one and
delete-group values; the drawn group compositions follow the hypergeometric law (scipy.stats.hypergeom, chi-square
goodness of fit); n = 1e12 runs in bounded memory and gives the binomial interval of theory.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband import read
from evalband.resample import bootstrap, interval
from evalband.resample.replicates import CountUnits, TaskUnits, _hypergeometric, _split
from evalband.resample.statistics import get_statistic

FINISH = get_statistic("mean").finish


def _materialized(correct, n):
    x = (np.arange(n)[None, :] < np.asarray(correct)[:, None]).astype(np.float64)[..., None]
    return TaskUnits("t", x, np.ones(n), FINISH)


def test_delete_one_equals_the_materialized_items():
    correct, n = np.array([13, 40, 0, 57]), 57
    virtual, real = CountUnits("t", correct, n, FINISH), _materialized(correct, n)
    np.testing.assert_array_equal(virtual.observed(), real.observed())
    np.testing.assert_array_equal(virtual.delete_groups(None), real.delete_groups(None))


def test_exact_groups_equal_the_materialized_items():
    correct, n = np.array([130, 400, 7]), 1000
    virtual, real = CountUnits("t", correct, n, FINISH), _materialized(correct, n)
    g = 37
    groups = real.group_counts(g, np.random.default_rng(5))
    counts = virtual.group_counts(g, np.random.default_rng(5))  # the same permutation, counted per run
    assert counts.sum() == n and (counts.sum(axis=0) == np.bincount(groups, minlength=g)).all()
    np.testing.assert_array_equal(virtual.delete_groups(counts), real.delete_groups(groups))


def test_split_follows_the_hypergeometric_law():
    gen = np.random.default_rng(11)
    caps = np.array([100, 200, 300, 400])
    draws = np.array([_split(gen, 300, caps) for _ in range(3000)])
    assert (draws.sum(axis=1) == 300).all() and (draws <= caps).all()
    # group 0 holds hypergeom(M=1000, n=300 good, N=100 drawn) of the 300 items
    k = np.arange(10, 51)
    expected = stats.hypergeom(1000, 300, 100).pmf(k)
    observed = np.array([(draws[:, 0] == v).sum() for v in k])
    expected = expected / expected.sum() * observed.sum()
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_normal_approximation_beyond_numpys_range():
    gen = np.random.default_rng(2)
    good, bad, drawn = 4 * 10**11, 6 * 10**11, 10**11
    x = _hypergeometric(gen, np.full(4000, good), np.full(4000, bad), np.full(4000, drawn))
    mean = drawn * 0.4
    sd = np.sqrt(drawn * 0.4 * 0.6 * (good + bad - drawn) / (good + bad - 1))
    assert abs(x.mean() - mean) < 5 * sd / np.sqrt(4000)
    assert 0.9 < x.std() / sd < 1.1
    edge = _hypergeometric(gen, np.array([0, 5, 2 * 10**9]), np.array([10, 0, 10**9]), np.array([3, 5, 3 * 10**9]))
    assert edge.tolist() == [0, 5, 2 * 10**9]


def test_huge_test_sets_run_in_bounded_memory_and_match_theory():
    n = 10**12
    correct = [4 * 10**11, 4 * 10**11 + 10**6, 5 * 10**11]
    table = read(pd.DataFrame({"model": ["a", "b", "c"], "task": "t", "n": n, "correct": correct}))
    tracemalloc.start()
    reps = bootstrap(table, n_resamples=2000, rng=1)
    jack, strata = reps.jackknife(), reps.jackknife_strata()
    ci = interval(reps.replicates[:, :, 0], reps.observed[:, 0], method="bca", jackknife=jack[:, :, 0],
                  jackknife_strata=strata)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    p = np.array(correct) / n
    half = 1.959964 * np.sqrt(p * (1 - p) / n)
    # theory: the binomial interval p +- 1.96 sd; Monte Carlo error of a 2,000-replicate end is ~ 5% of sd
    np.testing.assert_allclose(ci.low, p - half, atol=0.15 * half.max())
    np.testing.assert_allclose(ci.high, p + half, atol=0.15 * half.max())


@pytest.mark.parametrize("n", [10**7, 10**9])
def test_grouped_jackknife_of_large_summaries_is_capped(n):
    table = read(pd.DataFrame({"model": ["a", "b"], "task": "t", "n": n, "correct": [n // 3, n // 2]}))
    reps = bootstrap(table, n_resamples=50, rng=3)
    jack = reps.jackknife()
    assert jack.shape[0] <= 1 << 14
    # delete-group values straddle the observed value (groups of n / g items of mixed content)
    assert (jack[:, :, 0].min(axis=0) < reps.observed[:, 0]).all()
    assert (jack[:, :, 0].max(axis=0) > reps.observed[:, 0]).all()
