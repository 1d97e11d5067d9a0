"""Reported variance components and intervals stay in range (QA O8): a negative between-item variance is shown
as 0 (the unbiased value kept), k_enough is NaN rather than inf, and t / cluster intervals of [0, 1] scores are
clipped to [0, 1] with the unclipped ends kept."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband.estimation import estimate, trial_interval
from evalband.estimation.cluster import cluster_interval
from evalband.data.table import ResultsTable

# 6 items x 3 trials of 0/1 scores whose item means barely differ (inspect's mockllm/model log looks like this)
TRIALS = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]], dtype=float)


def _anova_between(x):
    # one-way ANOVA / method of moments by hand: var(item means) - mean(s_i^2 / k_i)
    means = x.mean(axis=1)
    return means.var(ddof=1) - (x.var(axis=1, ddof=1) / x.shape[1]).mean()


def test_negative_between_variance_is_shown_as_zero_with_the_raw_value_kept():
    raw = _anova_between(TRIALS)
    assert raw < 0  # -0.0185...: the unbiased estimate is negative here
    res = trial_interval(TRIALS)
    assert res.extras["var_between"] == 0.0
    assert res.extras["var_between_raw"] == pytest.approx(raw)
    assert np.isnan(res.extras["k_enough"])  # was inf (CSV 'inf', JSON null)
    assert any("below 0" in n and "var_between_raw" in n for n in res.notes)
    assert any(n.startswith("k_enough is empty") for n in res.notes)


def _long(x, model="m"):
    return [{"model": model, "task": "t", "item": i, "trial": j, "score": x[i, j]}
            for i in range(x.shape[0]) for j in range(x.shape[1])]


def test_t_interval_of_fractions_is_clipped_to_one():
    x = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 1, 1]], dtype=float)
    table = ResultsTable.from_items(pd.DataFrame(_long(x)))
    res = estimate(table)
    means = x.mean(axis=1)
    # scipy: t interval of the item means (6 items, 5 df)
    low, high = stats.t.interval(0.95, 5, loc=means.mean(), scale=stats.sem(means))
    assert high > 1
    assert res.ci.high[0, 0] == 1.0 and res.ci.low[0, 0] == pytest.approx(low)
    assert res.extras["ci_high_raw"][0, 0] == pytest.approx(high)
    assert res.pooled.ci.high[0] == 1.0
    frame = res.to_frame(pooled=True)
    assert (frame["ci_high"] <= 1).all() and (frame["ci_high_raw"] > 1).all()
    assert any("clipped" in n and "[0, 1]" in n for n in res.notes)
    # negative components of the table's cells are reported as 0 with one merged note
    assert (frame["var_between"] >= 0).all()


@pytest.mark.filterwarnings("ignore:.*clusters:UserWarning")
def test_cluster_interval_below_zero_is_clipped():
    n = 60
    clusters = np.repeat(np.arange(12), 5)
    score = np.zeros(n)
    score[[0, 1, 2, 3, 4, 7]] = 1.0  # every success but one in the first cluster
    df = pd.DataFrame({"model": "m", "task": "t", "item": np.arange(n), "cluster": clusters, "score": score})
    res = estimate(ResultsTable.from_items(df))
    ref = cluster_interval(score[None, :], clusters, confidence_level=0.95)
    assert ref.ci.low[0] < 0
    assert res.method == "cluster" and res.ci.low[0, 0] == 0.0
    assert res.extras["ci_low_raw"][0, 0] == pytest.approx(ref.ci.low[0])
    assert res.ci.high[0, 0] == pytest.approx(ref.ci.high[0])


def test_unbounded_scores_are_not_clipped():
    x = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 1, 1]], dtype=float)
    table = ResultsTable.from_items(pd.DataFrame(_long(x)), unbounded=True)
    res = estimate(table)
    assert res.ci.high[0, 0] > 1 and "ci_high_raw" not in res.extras
