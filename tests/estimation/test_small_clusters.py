"""CR2 / Bell-McCaffrey against an independent matrix implementation and statsmodels' CR1, and the coverage of
paired differences with few clusters beside today's percentile cluster bootstrap."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from evalband.facets import bell_mccaffrey_df, cluster_robust, crossed_bootstrap, pair_contrasts
from evalband.io import read
from evalband.resample import bootstrap, interval


def _cr2_by_matrices(y, clusters, strata, weights):
    """CR2 variance and Bell-McCaffrey df of w'beta in y = X beta + e (X = task indicators), by the textbook
    matrices: A_g = (I - H_gg)^(-1/2), G_g = (I - H)[:, g] A_g X_g (X'X)^-1 w (Imbens & Kolesar 2016)."""
    n = y.size
    x = (strata[:, None] == np.unique(strata)[None, :]).astype(float)
    xtx_inv = np.linalg.inv(x.T @ x)
    h = x @ xtx_inv @ x.T
    e = y - h @ y
    var, cols = 0.0, []
    for g in np.unique(clusters):
        idx = np.flatnonzero(clusters == g)
        vals, vecs = np.linalg.eigh(np.eye(idx.size) - h[np.ix_(idx, idx)])
        a = vecs @ np.diag(vals ** -0.5) @ vecs.T
        u = (weights @ xtx_inv @ x[idx].T) @ a
        var += float((u @ e[idx]) ** 2)
        cols.append((np.eye(n) - h)[:, idx] @ a @ x[idx] @ xtx_inv @ weights)
    gmat = np.column_stack(cols)
    lam = np.linalg.eigvalsh(gmat.T @ gmat)
    return var, lam.sum() ** 2 / (lam ** 2).sum()


def test_cr2_and_bm_df_equal_the_matrix_formulas():
    rng = np.random.default_rng(0)
    sizes = [3, 7, 4, 12, 5, 9, 2, 6, 8, 4, 10, 5]
    strata = np.repeat([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], sizes)
    clusters = np.repeat(np.arange(12), sizes)
    y = rng.normal(size=clusters.size) + rng.normal(size=12)[clusters]
    w = np.array([0.7, 0.3])
    var, df = _cr2_by_matrices(y, clusters, strata, w)
    r = cluster_robust(y[None], clusters, strata=strata, weights=w)
    assert r.se[0] ** 2 == pytest.approx(var, rel=1e-10)
    assert r.df == pytest.approx(df, rel=1e-10)


def test_cr1_equals_statsmodels():
    # statsmodels 0.15: sm.OLS(y, ones).fit(cov_type='cluster', cov_kwds={'groups': g}).bse  (CR1)
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(8), [3, 5, 8, 12, 20, 4, 6, 9])
    y = rng.normal(size=g.size) + rng.normal(size=8)[g]
    ref = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": g}).bse[0]
    r = cluster_robust(y[None], g, method="cr1")
    assert r.se[0] == pytest.approx(ref, rel=1e-12)
    assert r.df == 7


def test_equal_clusters_give_g_minus_1_and_pairs_share_it():
    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(10), 20)
    y = rng.random((3, 200))
    lmat, ia, ib = pair_contrasts(3)
    r = cluster_robust(y, g, contrasts=lmat, labels=[f"{a}-{b}" for a, b in zip(ia, ib)])
    assert r.df == pytest.approx(9.0)
    assert bell_mccaffrey_df(np.full(10, 0.1)) == pytest.approx(9.0)
    single = cluster_robust(y[0] - y[1], g)
    assert r.se[0] == pytest.approx(single.se[0])
    assert r.estimate[0] == pytest.approx((y[0] - y[1]).mean())
    assert list(r.to_frame()["contrast"]) == ["0-1", "0-2", "1-2"]


def test_argument_errors():
    with pytest.raises(ValueError, match="`clusters`"):
        cluster_robust(np.zeros((1, 4)), [0, 1])
    with pytest.raises(ValueError, match="`method`"):
        cluster_robust(np.zeros((1, 4)), [0, 0, 1, 1], method="cr3")
    with pytest.raises(ValueError, match="`contrasts`"):
        cluster_robust(np.zeros((2, 4)), [0, 0, 1, 1], contrasts=np.ones((1, 3)))


def _paired_clustered(rng, n_sim, n_clusters, m=20):
    """Two models on the same clustered binary items: logit p = eta_model + u_g + v_model,g + e_i, with cluster
    sd 1 (u), model x cluster sd 0.5 (v) and item sd 0.5 (e, shared by the models)."""
    u = rng.normal(0, 1.0, (n_sim, n_clusters, 1))
    e = rng.normal(0, 0.5, (n_sim, n_clusters, m))
    frames = []
    for model, eta in (("A", 0.3), ("B", 0.0)):
        v = rng.normal(0, 0.5, (n_sim, n_clusters, 1))
        y = (rng.random((n_sim, n_clusters, m)) < 1 / (1 + np.exp(-(eta + u + v + e)))).astype(float)
        frames.append(pd.DataFrame({"model": model, "task": np.repeat([f"d{s}" for s in range(n_sim)],
                                                                      n_clusters * m),
                                    "item": np.tile(np.arange(n_clusters * m), n_sim),
                                    "cluster": np.tile(np.repeat(np.arange(n_clusters), m), n_sim),
                                    "score": y.ravel()}))
    return pd.concat(frames, ignore_index=True)


def _true_difference():
    rng = np.random.default_rng(123)
    k = 4_000_000
    base = rng.normal(0, 1.0, k) + rng.normal(0, 0.5, k)
    pa = 1 / (1 + np.exp(-(0.3 + base + rng.normal(0, 0.5, k))))
    pb = 1 / (1 + np.exp(-(0.0 + base + rng.normal(0, 0.5, k))))
    return float((pa - pb).mean())


@pytest.mark.slow
def test_coverage_of_paired_differences_with_few_clusters():
    """Coverage of the true difference A - B (300 datasets of G clusters x 20 binary items, seed 17), today's
    percentile cluster bootstrap (evalband.resample.bootstrap) beside the corrections:

    ====  ==========  =========  ===========
    G     percentile  CR2 + BM   wild (CR2, t mixture) replicates
    5     0.843       0.967      0.963
    10    0.890       0.940      0.943
    20    0.933       0.957      0.963
    50    0.950       0.957      0.953
    ====  ==========  =========  ===========
    """
    truth = _true_difference()
    n_sim = 300
    rng = np.random.default_rng(17)
    figures = {}
    for n_clusters in (5, 10, 20, 50):
        table = read(_paired_clustered(rng, n_sim, n_clusters))
        reps = bootstrap(table, n_resamples=1000, rng=1)
        ia, ib = reps.models.index("A"), reps.models.index("B")
        d = reps.replicates[:, ia] - reps.replicates[:, ib]
        pct = int(interval(d, reps.observed[ia] - reps.observed[ib]).contains(truth).sum())
        cr2 = 0
        for task in table.tasks:
            td = table.task_data(task, models=["A", "B"])
            r = cluster_robust(td.scores[0] - td.scores[1], td.clusters)
            cr2 += bool(r.ci.contains(truth)[0])
        wild = crossed_bootstrap(table, models=["A", "B"], scale="task", n_resamples=2000, rng=1)
        dw = wild.replicates[:, 0] - wild.replicates[:, 1]
        wl = int(interval(dw, wild.observed[0] - wild.observed[1]).contains(truth).sum())
        figures[n_clusters] = (pct / n_sim, cr2 / n_sim, wl / n_sim)
        for hits in (cr2, wl):
            assert binomtest(hits, n_sim, 0.95).pvalue > 1e-3, (n_clusters, figures[n_clusters])
        if n_clusters == 10:  # the contract's design: corrected intervals >= 0.93 over 300 datasets
            assert cr2 / n_sim >= 0.93 and wl / n_sim >= 0.93, figures[n_clusters]
        if n_clusters <= 10:  # the percentile cluster bootstrap does not hold its level with few clusters
            assert binomtest(pct, n_sim, 0.95, alternative="less").pvalue < 0.01, figures[n_clusters]
    print({g: tuple(round(x, 3) for x in v) for g, v in figures.items()})


def test_pooled_wild_replicates_give_the_cr2_interval_of_the_aggregate():
    # three tasks of 3 to 6 unequal clusters: the mean over tasks of the pooled wild replicates has the CR2 t
    # interval on the aggregate's Bell-McCaffrey degrees of freedom (cluster_robust with strata = tasks)
    rng = np.random.default_rng(9)
    frames, scores, cl, st = [], [], [], []
    for t, sizes in enumerate(([5, 9, 14], [4, 4, 8, 10, 6], [3, 12, 7, 7, 5, 9])):
        g = np.repeat(np.arange(len(sizes)), sizes)
        y = (rng.random((2, g.size)) < 0.5 + 0.15 * rng.normal(size=len(sizes))[g]).astype(float)
        for k, m in enumerate(("A", "B")):
            frames.append(pd.DataFrame({"model": m, "task": f"t{t}", "item": np.arange(g.size), "cluster": g,
                                        "score": y[k]}))
        scores.append(y)
        cl.append(g + 100 * t)
        st.append(np.full(g.size, t))
    table = read(pd.concat(frames, ignore_index=True))
    reps = crossed_bootstrap(table, n_resamples=400_000, rng=2)
    agg = reps.replicates.mean(axis=2)
    d = agg[:, 0] - agg[:, 1]
    obs = reps.observed.mean(axis=1)
    lmat, _, _ = pair_contrasts(2)
    r = cluster_robust(np.concatenate(scores, axis=1), np.concatenate(cl), strata=np.concatenate(st),
                       contrasts=lmat)
    lo, hi = np.quantile(d, [0.025, 0.975])
    assert obs[0] - obs[1] == pytest.approx(r.estimate[0])
    assert hi - lo == pytest.approx(float(r.ci.high[0] - r.ci.low[0]), rel=0.01)
