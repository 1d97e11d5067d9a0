"""``evalband._distributions`` gives scipy.stats's values bit for bit (issue 27: the estimators import
``scipy.special`` instead of all of ``scipy.stats``, and no number changes)."""

import numpy as np
import pytest
from scipy import stats

from evalband import _distributions as d

EDGES = np.array([0.0, -0.0, 1.0, 0.5, 1e-300, 1e-17, 1e-8, 0.025, 0.05, 0.1, 0.3, 0.7, 0.95, 0.975, 1 - 1e-12,
                  1.5, -0.2, np.nan, np.inf, -np.inf])
PROBS = np.concatenate([EDGES, np.linspace(0, 1, 41)])
XS = np.concatenate([EDGES, [-40.0, -8.0, -1.96, -1.0, -1e-9, 1e-9, 1.0, 1.96, 8.0, 40.0]])
DFS = np.array([0.0, -1.0, 0.5, 1.0, 2.0, 3.5, 10.0, 29.0, 1e3, 1e8, np.inf, np.nan])
SHAPES = np.array([0.0, -1.0, 0.5, 1.0, 2.0, 7.0, 120.5, 1e4, np.nan])


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), np.argwhere(a.view(np.uint64) != b.view(np.uint64))


@pytest.mark.parametrize("name", ["cdf", "sf", "ppf", "isf"])
def test_norm(name):
    ours, theirs = getattr(d, f"norm_{name}"), getattr(stats.norm, name)
    grid = PROBS if name in ("ppf", "isf") else XS
    _same(ours(grid), theirs(grid))
    for v in grid:  # scalars: a NumPy scalar, as SciPy returns
        assert type(ours(float(v))) is type(theirs(float(v)))
        _same(ours(float(v)), theirs(float(v)))


@pytest.mark.parametrize("name", ["cdf", "sf", "ppf", "isf"])
def test_t(name):
    ours, theirs = getattr(d, f"t_{name}"), getattr(stats.t, name)
    grid = PROBS if name in ("ppf", "isf") else XS
    x, df = np.meshgrid(grid, DFS, indexing="ij")
    _same(ours(x, df), theirs(x, df))
    _same(ours(grid, 7.0), theirs(grid, 7.0))  # a scalar df broadcast
    _same(ours(0.025, DFS), theirs(0.025, DFS))
    for v in (0.0, 0.025, 0.5, 1.0, np.nan):
        _same(ours(v, 12.0), theirs(v, 12.0))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # boost's root finder gives up at q = 1e-300 (both ways)
@pytest.mark.parametrize("name", ["ppf", "isf"])
def test_beta(name):
    ours, theirs = getattr(d, f"beta_{name}"), getattr(stats.beta, name)
    q, a, b = np.meshgrid(PROBS, SHAPES, SHAPES, indexing="ij")
    _same(ours(q, a, b), theirs(q, a, b))
    # the Clopper-Pearson and Jeffreys calls: counts 0..n
    correct = np.arange(0, 51)
    _same(ours(0.025, correct, 50 - correct + 1), theirs(0.025, correct, 50 - correct + 1))
    _same(ours(0.025, correct + 0.5, 50 - correct + 0.5), theirs(0.025, correct + 0.5, 50 - correct + 0.5))


@pytest.mark.parametrize("name", ["ppf", "isf"])
def test_chi2(name):
    ours, theirs = getattr(d, f"chi2_{name}"), getattr(stats.chi2, name)
    q, df = np.meshgrid(PROBS, DFS, indexing="ij")
    _same(ours(q, df), theirs(q, df))
    _same(ours(0.025, 4), theirs(0.025, 4))
