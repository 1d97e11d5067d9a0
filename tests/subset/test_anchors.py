"""tinyBenchmarks-style anchor points and their point estimates (no interval).

Oracles: a construction with known clusters (items that share a response pattern form one cluster: one anchor
each, its weight the cluster's share); the anchor-points estimate and the anchor-IRT estimate written out (the
ability by scipy's bounded minimiser of the negative log posterior).
"""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit

from evalband.subset.anchors import anchor_estimates, anchor_points


def test_items_sharing_a_pattern_form_one_cluster_with_one_anchor():
    rng = np.random.default_rng(0)
    patterns = (rng.random((6, 10)) < 0.5).astype(float)  # 6 distinct response patterns of 10 models
    patterns = np.unique(patterns, axis=0)
    sizes = np.arange(1, len(patterns) + 1) * 10
    cluster = np.repeat(np.arange(len(patterns)), sizes)
    scores = patterns[cluster].T  # models x items
    pos, w = anchor_points(scores, len(patterns), rng=np.random.default_rng(1))
    assert len(pos) == len(patterns)
    assert sorted(cluster[pos].tolist()) == list(range(len(patterns)))  # one anchor per cluster
    np.testing.assert_allclose(w, sizes[cluster[pos]] / sizes.sum())
    # the estimate is exact when the new model answers like one of the reference models
    new = scores[2]
    assert anchor_estimates(scores, pos, w, new[pos])["anchor points"] == pytest.approx(new.mean())


def test_anchor_estimates_written_out():
    rng = np.random.default_rng(3)
    a, d = rng.uniform(0.5, 2, 40), rng.normal(size=40)
    scores = (rng.random((5, 40)) < 0.5).astype(float)
    pos, w = np.array([1, 7, 20, 33]), np.array([0.1, 0.4, 0.3, 0.2])
    y = np.array([1.0, 0.0, 1.0, 1.0])
    out = anchor_estimates(scores, pos, w, y, irt=(a, d))
    assert out["anchor points"] == pytest.approx(0.1 + 0.3 + 0.2)

    def neg_log_post(t):
        p = expit(a[pos] * t + d[pos])
        return -np.sum(y * np.log(p) + (1 - y) * np.log1p(-p)) + t * t / (2 * 9.0)

    theta = minimize_scalar(neg_log_post, bounds=(-20, 20), method="bounded", options={"xatol": 1e-10}).x
    p = expit(a * theta + d)
    p[pos] = y
    assert out["anchor IRT"] == pytest.approx(p.mean(), abs=1e-8)
    # scores beyond [0, 1]: no IRT estimate
    assert set(anchor_estimates(scores * 5, pos, w, y * 5)) == {"anchor points"}
