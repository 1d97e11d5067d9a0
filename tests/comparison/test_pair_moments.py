"""Per-task pair variances for many models from covariance matrices (issue 14: 1,000 models in compare).

Oracles: :func:`evalband.comparison.paired.paired_difference` on each pair (checked against
``scipy.stats.ttest_rel`` and statsmodels' cluster-robust OLS in tests/comparison), and statsmodels itself for one
clustered pair; then ``compare`` with the covariance path forced (``PAIR_ROWS = 0``) against the per-pair path.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband.comparison import _analytic as analytic_module
from evalband.comparison import compare
from evalband.comparison.paired import pair_moments, paired_difference

FIELDS = ("difference", "se", "se_unpaired", "correlation", "var_a", "var_b", "cov", "se_a", "se_b")


@pytest.mark.parametrize("clustered", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_paired_difference_pair_by_pair(clustered, seed):
    rng = np.random.default_rng(seed)
    m, n = 9, 157
    ability = rng.normal(size=(m, 1))
    scores = (rng.random((m, n)) < 1 / (1 + np.exp(-(ability + rng.normal(size=(1, n)))))).astype(float)
    scores[3] = scores[2]  # identical models: a difference of zero variance
    clusters = rng.integers(0, 23, size=n) if clustered else None
    ia, ib = np.triu_indices(m, k=1)
    fast = pair_moments(scores, ia, ib, clusters=clusters)
    slow = paired_difference(scores[ia], scores[ib], clusters=clusters)
    for f in FIELDS:
        np.testing.assert_allclose(getattr(fast, f), getattr(slow, f), rtol=1e-10, atol=1e-13, err_msg=f)
    assert fast.n == slow.n and fast.n_clusters == slow.n_clusters


def test_clustered_se_matches_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(7)
    n = 200
    clusters = np.repeat(np.arange(40), 5)
    effect = rng.normal(size=40)[clusters]
    scores = np.vstack([(rng.random(n) < 1 / (1 + np.exp(-(effect + s)))).astype(float) for s in (0.3, -0.2)])
    pm = pair_moments(scores, np.array([0]), np.array([1]), clusters=clusters)
    d = scores[0] - scores[1]
    fit = sm.OLS(d, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False})
    # CR1 as in paired_difference: G / (G - 1), without statsmodels' (n - 1) / (n - k) factor (k = 1: none)
    np.testing.assert_allclose(pm.se[0], fit.bse[0] * np.sqrt(40 / 39), rtol=1e-10)


def _long(seed: int, clusters: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t, n in (("t1", 80), ("t2", 60)):
        for m in range(7):
            for i in range(n):
                row = {"model": f"m{m}", "task": t, "item": f"{t}{i}", "score": float(rng.random() < 0.3 + 0.07 * m)}
                if clusters:
                    row["cluster"] = f"{t}c{i // 4}"
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize("clusters", [False, True])
def test_compare_same_with_the_covariance_path(clusters, monkeypatch):
    data = _long(3, clusters)
    slow = compare(data, n_resamples=300, rng=5).to_frame()
    monkeypatch.setattr(analytic_module, "PAIR_ROWS", 0)
    fast = compare(data, n_resamples=300, rng=5).to_frame()
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=1e-9, atol=1e-12)
