"""The one rank function (evalband._ranks.ranks) against scipy.stats.rankdata, with its tie rules."""

import numpy as np
import pytest
from scipy.stats import rankdata

from evalband._ranks import ranks


def test_matches_scipy_for_both_tie_rules_and_directions():
    gen = np.random.default_rng(0)
    x = gen.integers(0, 5, size=(40, 7)).astype(float) / 4  # many exact ties
    np.testing.assert_array_equal(ranks(x, ties="min"), rankdata(-x, method="min", axis=-1))
    np.testing.assert_array_equal(ranks(x, ties="average", axis=0), rankdata(-x, method="average", axis=0))
    np.testing.assert_array_equal(ranks(x, higher_is_better=False), rankdata(x, method="min", axis=-1))


def test_equal_to_twelve_digits_ties_and_nan_ranks_last():
    a = 0.1 + 0.2  # 0.30000000000000004
    assert ranks([a, 0.3, 0.2]).tolist() == [1, 1, 3]
    assert ranks([0.5, np.nan, 0.7], ties="average")[1] != ranks([0.5, np.nan, 0.7], ties="average")[1]  # NaN
    assert ranks([0.5, np.nan, 0.7]).tolist() == [2, 3, 1]
    with pytest.raises(ValueError, match="`ties`"):
        ranks([1, 2], ties="dense")


@pytest.mark.parametrize("ties", ["min", "average"])
def test_rankdata_without_scipy_stats_is_scipys_to_the_bit(ties):
    """The NumPy ranks (no ``scipy.stats`` import on the commands' path, issue 27) equal rankdata's exactly, with
    runs of ties, infinities and signed zeros, along every axis and for 1 to 13 entries."""
    from evalband._ranks import _rankdata

    rng = np.random.default_rng(27)
    for n in range(1, 14):
        key = rng.integers(0, max(2, n // 2), size=(50, n, 3)).astype(np.float64)
        key[rng.random(key.shape) < 0.1] = np.inf
        key[rng.random(key.shape) < 0.1] = -np.inf
        key[key == 0] = np.where(rng.random(int((key == 0).sum())) < 0.5, -0.0, 0.0)
        for axis in (0, 1, 2, -1):
            ours, theirs = _rankdata(key, ties, axis), rankdata(key, method=ties, axis=axis)
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
            assert np.array_equal(ours, theirs)
