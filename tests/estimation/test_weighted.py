"""Weighted means over tasks (estimate(..., weights=)): the formula, and a coverage simulation.

Oracles: theory (independent tasks: Var = sum w^2 se^2), and coverage of the 95% interval judged with a binomial
test over 400 simulated evaluations (tasks of 300 binary items with known accuracies).
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import evalband as eb
from evalband.estimation import weighted_mean


def test_formula_and_weighted_rows():
    r = weighted_mean([[0.5, 0.7, 0.9]], [[0.03, 0.04, 0.0]], [2, 1, 1])
    assert r.estimate[0] == pytest.approx(0.5 * 0.5 + 0.25 * 0.7 + 0.25 * 0.9)
    assert r.se[0] == pytest.approx(np.sqrt(0.25 * 0.03 ** 2 + 0.0625 * 0.04 ** 2))
    est = eb.estimate("example:vtab", weights="groups")
    frame = est.to_frame(pooled=True)
    rows = frame[frame["task"] == "(weighted)"]
    assert len(rows) == 16 and rows["method"].eq("weighted normal").all()
    sel = eb.select("example:vtab", weights="groups")
    by_hand = est.estimate @ sel.weights
    np.testing.assert_allclose(rows["estimate"].to_numpy(), by_hand, rtol=1e-12)


@pytest.mark.slow
def test_weighted_interval_covers():
    gen = np.random.default_rng(11)
    truth = np.array([0.3, 0.6, 0.85])
    w = np.array([0.5, 0.25, 0.25])
    hits = 0
    for _ in range(400):
        rows = [dict(model="A", task=f"t{t}", item=i, score=float(gen.random() < truth[t]))
                for t in range(3) for i in range(300)]
        est = eb.estimate(pd.DataFrame(rows), method="wilson", weights={"t0": 2, "t1": 1, "t2": 1})
        lo, hi = est.weighted.ci.low[0], est.weighted.ci.high[0]
        hits += lo <= truth @ w <= hi
    # 95% nominal: a binomial test does not reject 0.95 at the 1% level
    assert binomtest(hits, 400, 0.95).pvalue > 0.01, hits
