"""Clustered items in the Beta-Binomial model (QA O27): design effects against statsmodels and theory, the
default warning, and Rao-Scott effective counts restoring coverage in a seeded simulation judged with binomtest."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

from evalband import load_example, read
from evalband.bayes import beta_binomial
from evalband.bayes.clusters import design_effects, effective_counts, width_factor


def clustered_table(rng, n_models, n_tasks, n_clusters, size, icc, a=14.0, b=6.0):
    """Binary items in equal clusters with a known intra-cluster correlation.

    Each model's task accuracy theta ~ Beta(a, b) (the Beta-Binomial model's own assumption); each cluster's
    success probability ~ Beta(theta k, (1 - theta) k) with k = (1 - icc) / icc, so two answers in one cluster
    correlate by exactly ``icc`` and a task mean's design effect is 1 + (size - 1) icc (Kish 1965). Every "model"
    is an independent replicate. Returns the table and the true theta (models, tasks).
    """
    theta = rng.beta(a, b, size=(n_models, n_tasks))
    if icc > 0:
        k = (1 - icc) / icc
        p = rng.beta(theta[..., None] * k, (1 - theta[..., None]) * k, size=(n_models, n_tasks, n_clusters))
    else:
        p = np.repeat(theta[..., None], n_clusters, axis=-1)
    y = rng.random((n_models, n_tasks, n_clusters, size)) < p[..., None]
    m, t, g, i = np.indices(y.shape)
    frame = pd.DataFrame({"model": m.ravel(), "task": t.ravel(), "item": (g * size + i).ravel(),
                          "cluster": g.ravel(), "score": y.ravel().astype(np.int8)})
    frame["model"] = "m" + frame["model"].astype(str)
    frame["task"] = "t" + frame["task"].astype(str)
    return read(frame), theta


def small_clustered():
    # 2 models, 2 tasks, 6 clusters of unequal sizes, scores fixed by hand
    rows = []
    scores = {("A", "x"): [1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0],
              ("B", "x"): [1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1],
              ("A", "y"): [0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1],
              ("B", "y"): [1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1]}
    clusters = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5]
    for (model, task), s in scores.items():
        rows += [{"model": model, "task": task, "item": f"{task}{i}", "cluster": f"{task}c{c}", "score": v}
                 for i, (c, v) in enumerate(zip(clusters, s))]
    return pd.DataFrame(rows), scores, np.asarray(clusters)


def test_design_effect_is_the_statsmodels_cluster_variance_over_the_iid_variance():
    frame, scores, clusters = small_clustered()
    eff = design_effects(frame)
    for (model, task), s in scores.items():
        y = np.asarray(s, dtype=float)
        fit = sm.OLS(y, np.ones(y.size)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
        expected = fit.bse[0] ** 2 / (y.var(ddof=1) / y.size)
        i, j = eff.models.index(model), eff.tasks.index(task)
        assert eff.design_effect[i, j] == pytest.approx(expected, rel=1e-12)
        assert eff.n[i, j] == y.size and eff.n_clusters[i, j] == 6
    np.testing.assert_array_equal(eff.used, np.maximum(eff.design_effect, 1.0))


def test_design_effect_recovers_the_known_icc():
    table, _ = clustered_table(np.random.default_rng(5), 100, 4, 30, 10, 0.15)
    eff = design_effects(table)
    d = eff.design_effect.ravel()
    # theory: 1 + (m - 1) icc = 2.35 for equal clusters (Kish 1965); 400 independent cells
    assert abs(d.mean() - 2.35) < 4 * d.std(ddof=1) / np.sqrt(d.size)
    assert abs(np.mean(eff.icc) - 0.15) < 0.01
    assert eff.to_frame()["n_effective"].to_numpy() == pytest.approx((eff.n / eff.used).ravel())


def test_undefined_design_effect_takes_the_tasks_median():
    frame, _, _ = small_clustered()
    frame.loc[(frame["model"] == "A") & (frame["task"] == "x"), "score"] = 1  # all correct: no variance
    eff = design_effects(frame)
    assert np.isnan(eff.design_effect[0, 0])
    assert eff.used[0, 0] == max(eff.design_effect[1, 0], 1.0)  # the other model's (median of one)
    assert any("no design effect of their own" in n for n in eff.notes)


def test_default_fit_warns_with_the_measured_design_effects():
    frame, _, _ = small_clustered()
    res = beta_binomial(frame, n_draws=500, rng=0)
    [message] = [w for w in res.warnings if w.startswith("clusters ignored")]
    eff = design_effects(frame)
    med = np.median(eff.used, axis=0)
    assert f"x {med[0]:.2g} (6 clusters)" in message and f"y {med[1]:.2g} (6 clusters)" in message
    assert "clusters='effective'" in message and "--model logistic" in message and "cluster bootstrap" in message
    # an explicit choice is noted, not warned about
    explicit = beta_binomial(frame, n_draws=500, clusters="ignore", rng=0)
    assert not any("clusters" in w for w in explicit.warnings)
    assert any(n.startswith("clusters ignored (clusters='ignore')") for n in explicit.notes)
    np.testing.assert_array_equal(explicit.theta, res.theta)  # same model, same draws


def test_no_warning_without_clusters_and_effective_needs_clusters():
    vtab = load_example("vtab")
    res = beta_binomial(vtab, n_draws=200, rng=0)
    assert not any("cluster" in w for w in res.warnings)
    with pytest.raises(ValueError, match="`clusters='effective'` needs item-level data with a cluster column"):
        beta_binomial(vtab, n_draws=200, clusters="effective", rng=0)
    with pytest.raises(ValueError, match="`clusters` must be one of 'ignore', 'effective'"):
        beta_binomial(vtab, n_draws=200, clusters="robust", rng=0)


def test_effective_fit_is_the_fit_of_the_effective_counts():
    frame, _, _ = small_clustered()
    table = read(frame)
    eff = design_effects(table)
    res = beta_binomial(table, clusters="effective", n_draws=1000, rng=4)
    plain = table.counts()
    direct = beta_binomial(effective_counts(plain, eff), n_draws=1000, rng=4)
    np.testing.assert_allclose(res.theta, direct.theta)
    np.testing.assert_allclose(res.n, plain.n / eff.used)
    np.testing.assert_allclose(res.observed, plain.correct / plain.n)  # accuracies unchanged
    assert any("Rao & Scott 1992" in n for n in res.notes)


def test_width_factor_is_the_root_design_effect_when_it_is_equal_everywhere():
    frame, _, _ = small_clustered()
    eff = design_effects(frame)
    same = type(eff)(eff.models, eff.tasks, eff.n, eff.n_clusters, eff.icc, eff.design_effect,
                     np.full_like(eff.used, 3.0))
    counts = read(frame).counts()
    np.testing.assert_allclose(width_factor(same, counts, [0.5, 0.5]), np.sqrt(3.0))
    # one task weighted alone: that task's design effect
    np.testing.assert_allclose(width_factor(eff, counts, [1.0, 0.0]), np.sqrt(eff.used[:, 0]))


@pytest.mark.slow
def test_effective_counts_restore_coverage_of_the_model_mean():
    # 400 independent replicates ("models") of 6 tasks x 30 clusters x 10 items, icc 0.15 (design effect 2.35).
    # Target: each replicate's mean over tasks of the true theta, by the 95% credible interval of the aggregate.
    table, theta = clustered_table(np.random.default_rng(12), 400, 6, 30, 10, 0.15)
    truth = theta.mean(axis=1)
    covered = {}
    for mode in ("ignore", "effective"):
        s = beta_binomial(table, clusters=mode, n_draws=1000, grid_size=48, rng=12).summary()
        covered[mode] = int(((s["ci_low"] <= truth) & (truth <= s["ci_high"])).sum())
    # measured: ignore 323/400 = 0.81 (theory for deff 2.35: P(|Z| < 1.96 / sqrt(2.35)) = 0.80),
    # effective 378/400 = 0.945
    assert stats.binomtest(covered["ignore"], 400, 0.95, alternative="less").pvalue < 1e-6
    assert covered["ignore"] / 400 < 0.88
    assert stats.binomtest(covered["effective"], 400, 0.95).pvalue > 0.01
    assert covered["effective"] / 400 >= 0.92


@pytest.mark.slow
def test_effective_counts_without_correlation_stay_near_nominal():
    # icc 0: the design effects scatter around 1 and are floored there, so the intervals are at most a little wide
    table, theta = clustered_table(np.random.default_rng(21), 200, 6, 30, 10, 0.0)
    truth = theta.mean(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = beta_binomial(table, clusters="effective", n_draws=1000, grid_size=48, rng=21)
    s = res.summary()
    k = int(((s["ci_low"] <= truth) & (truth <= s["ci_high"])).sum())
    assert stats.binomtest(k, 200, 0.95).pvalue > 0.01
    plain = beta_binomial(table, clusters="ignore", n_draws=1000, grid_size=48, rng=21).summary()
    ratio = (s["posterior_sd"] / plain["posterior_sd"]).median()
    assert 1.0 <= ratio < 1.15
