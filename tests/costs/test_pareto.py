"""The frontier logic: Pareto set on point estimates and domination decided from p-values.

Oracles: a brute-force double loop over the models (written from the definition, on random instances drawn by
hypothesis, ties included), and statsmodels' ``multipletests(p, method='holm')`` for the step-down adjustment
(live, behind importorskip).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalband.costs import pareto_front
from evalband.costs._pareto import decide_dominance, ordered_pairs, point_dominance

values = st.lists(st.integers(0, 5), min_size=1, max_size=9)  # small integers: many ties


def _brute_front(g, c):
    out = []
    for k in range(len(g)):
        dominated = False
        for j in range(len(g)):
            if j != k and g[j] >= g[k] and c[j] <= c[k] and (g[j] > g[k] or c[j] < c[k]):
                dominated = True
        out.append(not dominated)
    return np.array(out)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_pareto_front_matches_brute_force(data):
    g = data.draw(values)
    c = data.draw(st.lists(st.integers(0, 5), min_size=len(g), max_size=len(g)))
    np.testing.assert_array_equal(pareto_front(g, c), _brute_front(g, c))
    # the frontier, sorted by cost, has strictly increasing quality (no point is worse and costlier)
    on = np.flatnonzero(pareto_front(g, c))
    pts = sorted({(c[i], g[i]) for i in on})
    assert all(q1 < q2 and c1 < c2 for (c1, q1), (c2, q2) in zip(pts, pts[1:]))


def test_identical_points_stay_on_the_frontier():
    assert pareto_front([1.0, 1.0, 0.5], [2.0, 2.0, 3.0]).tolist() == [True, True, False]
    dom = point_dominance([1.0, 1.0, 0.5], [2.0, 2.0, 3.0])
    assert dom.tolist() == [[False, False, True], [False, False, True], [False, False, False]]


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000), st.sampled_from(["holm", "bonferroni", "none"]))
def test_domination_decisions_match_brute_force(m, seed, correction):
    multitest = pytest.importorskip("statsmodels.stats.multitest")  # imported once, then cached
    gen = np.random.default_rng(seed)
    pq = gen.uniform(0, 0.2, size=(m, m)) ** gen.uniform(0.5, 3)
    pc = gen.uniform(0, 0.2, size=(m, m)) ** gen.uniform(0.5, 3)
    p, adj, decided = decide_dominance(pq, pc, confidence_level=0.95, correction=correction)
    j, k = ordered_pairs(m)
    iut = np.array([max(pq[a, b], pc[a, b]) for a, b in zip(j, k)])
    np.testing.assert_allclose(p[j, k], iut)
    if correction == "none":
        expected = iut
    else:
        expected = multitest.multipletests(iut, alpha=0.05, method=correction)[1]
    np.testing.assert_allclose(adj[j, k], expected, rtol=1e-12)
    for a, b, e in zip(j, k, expected):
        assert decided[a, b] == (e <= 0.05)
    assert not decided.diagonal().any() and np.isnan(p.diagonal()).all()


def test_a_missing_p_value_decides_nothing():
    pq = np.array([[np.nan, 0.001], [0.9, np.nan]])
    pc = np.array([[np.nan, np.nan], [0.001, np.nan]])
    _, adj, decided = decide_dominance(pq, pc, confidence_level=0.95)
    assert not decided.any() and np.isnan(adj[0, 1])
