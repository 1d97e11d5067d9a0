"""Hierarchical Bayesian comparison over tasks (bayes extra): per-task differences, and recovery of a known
population of task differences (theory)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scipy.special import gammaln

from evalband.data.table import ResultsTable
from evalband.tasks.bayes_hierarchical import hierarchical_bayes, task_differences


def test_task_differences_item_and_summary_level():
    rng = np.random.default_rng(2)
    rows = []
    for t in ("t1", "t2", "t3"):
        a = rng.integers(0, 2, 40)
        b = rng.integers(0, 2, 40)
        rows += [("A", t, f"{t}-{i}", float(s)) for i, s in enumerate(a)]
        rows += [("B", t, f"{t}-{i}", float(s)) for i, s in enumerate(b)]
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]))
    dbar, se, tasks, _ = task_differences(table, "A", "B")
    for j, t in enumerate(tasks):
        d = table.task_data(t).scores
        diff = d[0] - d[1]
        assert dbar[j] == pytest.approx(diff.mean())
        assert se[j] == pytest.approx(stats.sem(diff))
    from evalband import load_example

    vtab = load_example("vtab")
    a, b = vtab.models[:2]
    dbar, se, tasks, notes = task_differences(vtab, a, b)
    c = vtab.counts(models=[a, b])
    p = c.correct / c.n
    np.testing.assert_allclose(dbar, p[0] - p[1])
    np.testing.assert_allclose(se, np.sqrt(p[0] * (1 - p[0]) / c.n[0] + p[1] * (1 - p[1]) / c.n[1]))
    assert "independent" in notes[0]


def _grid_posterior(dbar, se, rope):
    """The same model's posterior-mean probabilities by quadrature instead of MCMC: a grid over
    (delta_0, sigma_0, nu) (flat priors on the first two, truncated Gamma(2, 0.1) on nu), each task's delta_t
    integrated out by Gauss-Hermite quadrature around its observed mean."""
    m, s = dbar.mean(), dbar.std(ddof=1)
    d0 = np.linspace(m - 8 * s / np.sqrt(dbar.size), m + 8 * s / np.sqrt(dbar.size), 40)
    s0 = np.linspace(s / 20, 3 * s, 40)
    lognu = np.linspace(0, np.log(400), 32)
    nu = np.exp(lognu)
    logprior = stats.gamma.logpdf(nu, 2, scale=10) + lognu  # density in log nu
    x, w = np.polynomial.hermite.hermgauss(16)
    d0g, s0g, nug = (a[..., None] for a in np.meshgrid(d0, s0, nu, indexing="ij"))
    loglik = 0.0
    for t in range(dbar.size):
        z = (dbar[t] + np.sqrt(2) * se[t] * x - d0g) / s0g
        logt = (gammaln((nug + 1) / 2) - gammaln(nug / 2) - 0.5 * np.log(nug * np.pi) - np.log(s0g)
                - (nug + 1) / 2 * np.log1p(z * z / nug))
        loglik = loglik + np.log(np.exp(logt) @ w / np.sqrt(np.pi))
    lp = loglik + logprior
    wgt = np.exp(lp - lp.max())
    wgt /= wgt.sum()
    d0g, s0g, nug = d0g[..., 0], s0g[..., 0], nug[..., 0]
    right = float((wgt * stats.t.sf(rope, nug, loc=d0g, scale=s0g)).sum())
    left = float((wgt * stats.t.cdf(-rope, nug, loc=d0g, scale=s0g)).sum())
    return right, 1 - right - left, left


@pytest.mark.slow
def test_recovers_a_known_population_of_task_differences():
    pytest.importorskip("numpyro")
    # 40 tasks whose true differences are N(0.03, 0.02), each measured with se 0.004: a new task's difference
    # exceeds the ROPE of 0.01 with probability Phi((0.03 - 0.01) / 0.02) = 0.84 and falls below -0.01 with
    # probability 0.023 (the model's t population, fitted to normal data, should land close to these)
    rng = np.random.default_rng(0)
    delta = rng.normal(0.03, 0.02, 40)
    se = np.full(40, 0.004)
    dbar = delta + rng.normal(0, 0.004, 40)
    res = hierarchical_bayes(dbar, se, rope=0.01, rng=1, num_warmup=300, num_samples=600, num_chains=1,
                             names=("A", "B"))
    assert res.prob_a_better == pytest.approx(stats.norm.sf(0.01, 0.03, 0.02), abs=0.08)
    assert res.prob_b_better == pytest.approx(stats.norm.cdf(-0.01, 0.03, 0.02), abs=0.04)
    # the posterior itself, by quadrature: agreement up to Monte Carlo error of 600 NUTS draws
    grid = _grid_posterior(dbar, se, 0.01)
    np.testing.assert_allclose([res.prob_a_better, res.prob_equivalent, res.prob_b_better], grid, atol=0.03)
    assert res.samples.shape == (600, 3)
    np.testing.assert_allclose(res.samples.sum(axis=1), 1.0)
    assert "R-hat" in res.notes[-1] or "R-hat" in res.notes[0]
    with pytest.raises(ValueError, match="larger than `bound`"):
        hierarchical_bayes([2.0, 0.0], [0.1, 0.1])
