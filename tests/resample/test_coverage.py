"""Coverage simulations for per-model aggregate intervals (judged with scipy.stats.binomtest).

Each simulated dataset is one "model" of an ItemColumns, resampled independently, so datasets and their
resamples are independent and the hit count is binomial.
"""

import numpy as np
import pytest
from scipy.special import ndtr
from scipy.stats import binomtest, norm

from evalband.resample import ItemColumns, bootstrap, interval

pytestmark = pytest.mark.slow

N_SIM = 1000


def _intervals(reps, method):
    agg = reps.replicates.mean(axis=2)
    obs = reps.observed.mean(axis=1)
    kw = {}
    if method == "bca":
        kw = dict(jackknife=reps.jackknife().mean(axis=2), jackknife_strata=reps.jackknife_strata())
    return interval(agg, obs, method=method, **kw)


def test_item_bootstrap_aggregate_coverage():
    rng = np.random.default_rng(11)
    p = np.array([0.55, 0.7, 0.85])
    n = np.array([80, 150, 120])
    data = {f"t{t}": {"score": (rng.random((N_SIM, n[t])) < p[t]).astype(float)} for t in range(3)}
    cols = ItemColumns([f"d{i}" for i in range(N_SIM)], list(data), data)
    reps = bootstrap(cols, resampling="independent", n_resamples=500, rng=1)
    truth = p.mean()
    for method in ("percentile", "basic", "bca"):
        hits = int(_intervals(reps, method).contains(truth).sum())
        assert binomtest(hits, N_SIM, 0.95).pvalue > 1e-3, (method, hits)


def _clustered(rng, n_sim, p, k, m):
    data, clusters = {}, {}
    for t, pt in enumerate(p):
        # cluster-level success probability ~ Beta(2p, 2(1-p)): intra-cluster correlation 1/3
        pc = rng.beta(2 * pt, 2 * (1 - pt), size=(n_sim, k))
        x = (rng.random((n_sim, k, m)) < pc[..., None]).astype(float).reshape(n_sim, k * m)
        data[f"t{t}"] = {"score": x}
        clusters[f"t{t}"] = np.repeat(np.arange(k), m)
    return ItemColumns([f"d{i}" for i in range(n_sim)], list(data), data, clusters)


def test_cluster_bootstrap_holds_coverage_item_bootstrap_does_not():
    rng = np.random.default_rng(12)
    p = np.array([0.6, 0.75, 0.5])
    cols = _clustered(rng, N_SIM, p, k=50, m=5)
    truth = p.mean()
    by_cluster = bootstrap(cols, resampling="independent", n_resamples=400, rng=2)
    assert by_cluster.unit == "cluster"
    hits = int(_intervals(by_cluster, "percentile").contains(truth).sum())
    assert binomtest(hits, N_SIM, 0.95).pvalue > 1e-3, hits
    by_item = bootstrap(cols, resampling="independent", n_resamples=400, rng=2, cluster=False)
    assert by_item.unit == "item"
    assert any("clusters ignored" in n for n in by_item.notes)
    hits_item = int(_intervals(by_item, "percentile").contains(truth).sum())
    # design effect 1 + (m - 1) * ICC = 2.33: item intervals are too narrow by sqrt(2.33), coverage about 0.80
    assert hits_item / N_SIM < 0.88
    assert binomtest(hits_item, N_SIM, 0.95, alternative="less").pvalue < 1e-10


def test_summary_binomial_coverage():
    # summary counts: a binomial draw per model and task; coverage of the mean accuracy over tasks
    rng = np.random.default_rng(13)
    import pandas as pd
    from evalband.data.table import ResultsTable

    p = np.array([0.3, 0.6, 0.9])
    n = np.array([200, 100, 300])
    correct = rng.binomial(n, p, size=(N_SIM, 3))
    df = pd.DataFrame({"model": np.repeat([f"d{i}" for i in range(N_SIM)], 3),
                       "task": np.tile(["a", "b", "c"], N_SIM),
                       "n": np.tile(n, N_SIM), "correct": correct.ravel()})
    table = ResultsTable.from_summary(df)
    reps = bootstrap(table, n_resamples=500, rng=3)
    assert reps.resampling == "binomial"
    hits = int(_intervals(reps, "percentile").contains(p.mean()).sum())
    assert binomtest(hits, N_SIM, 0.95).pvalue > 1e-3, hits


def test_paired_difference_coverage_and_independent_overcoverage():
    """Each task is one simulated dataset of two correlated models (tasks draw from independent streams)."""
    rng = np.random.default_rng(14)
    n_items = 120
    # item difficulty shared by both models: strong positive correlation between their 0/1 scores
    difficulty = rng.normal(size=(N_SIM, n_items))
    p_a = ndtr(0.6 - difficulty)
    p_b = ndtr(0.4 - difficulty)
    u = rng.random((N_SIM, n_items))  # common uniform: scores of the two models are comonotone given the item
    a, b = (u < p_a).astype(float), (u < p_b).astype(float)
    data = {f"d{i}": {"score": np.stack([a[i], b[i]])} for i in range(N_SIM)}
    cols = ItemColumns(["a", "b"], list(data), data)
    # the true difference is E[Phi(0.6 - Z)] - E[Phi(0.4 - Z)] = Phi(0.6 / sqrt 2) - Phi(0.4 / sqrt 2)
    truth = norm.cdf(0.6 / np.sqrt(2)) - norm.cdf(0.4 / np.sqrt(2))
    paired = bootstrap(cols, n_resamples=500, rng=4)
    diff = paired.replicates[:, 0, :] - paired.replicates[:, 1, :]
    ci = interval(diff, paired.observed[0] - paired.observed[1])
    hits = int(ci.contains(truth).sum())
    assert binomtest(hits, N_SIM, 0.95).pvalue > 1e-3, hits
    # treating the models as independent ignores the positive correlation: intervals too wide, over-coverage
    indep = bootstrap(cols, n_resamples=500, rng=4, resampling="independent")
    d_ind = indep.replicates[:, 0, :] - indep.replicates[:, 1, :]
    ci_ind = interval(d_ind, indep.observed[0] - indep.observed[1])
    assert np.median(ci_ind.width / ci.width) > 1.5
    assert int(ci_ind.contains(truth).sum()) / N_SIM > 0.985
