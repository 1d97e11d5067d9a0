"""Coverage of ability intervals, differences, rank intervals and predictive intervals under a known sigmoid
population with 40% of cells missing at random and missing not at random (strong models skip easy tasks)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import evalband as eb

N_SIMS, B, M, T, N = 40, 200, 30, 12, 100


def population(seed, mnar):
    rng = np.random.default_rng(seed)
    C = rng.normal(size=M)
    D = rng.normal(0, 1.0, size=T)
    alpha = rng.lognormal(0.4, 0.3, size=T)
    m, t = np.meshgrid(np.arange(M), np.arange(T), indexing="ij")
    if mnar:  # strong models skip easy tasks: a cell is missing with probability 0.85 where C - D > 0.5, else 0.25
        p_miss = np.where(C[m] - D[t] > 0.5, 0.85, 0.25)
    else:
        p_miss = np.full(m.shape, 0.5)  # 40% in all, with the cells kept to connect the graph
    keep = rng.random(m.shape) >= p_miss
    keep[np.arange(M), np.arange(M) % T] = True
    keep[:, 0] = True
    p = 1 / (1 + np.exp(-alpha[t] * (C[m] - D[t])))
    df = pd.DataFrame({"model": [f"m{k:02d}" for k in m[keep]], "task": [f"t{k:02d}" for k in t[keep]], "n": N,
                       "correct": rng.binomial(N, p[keep])})
    return df, (C - C.mean()) / C.std(), 1 - keep.mean()


def simulate(mnar):
    cov = {"ability": [0, 0], "differences": [0, 0], "ranks": [0, 0], "predictive": [0, 0]}
    missing = []
    for s in range(N_SIMS):
        df, z, miss = population(1000 * mnar + s, mnar)
        missing.append(miss)
        res = eb.ability(df, n_resamples=B, rng=s, holdout=0.1)
        truth = z[[int(m[1:]) for m in res.models]]
        cov["ability"][0] += int(((res.ranking.ci.low <= truth) & (truth <= res.ranking.ci.high)).sum())
        cov["ability"][1] += M
        pc = res.comparisons
        d = truth[pc.index_a] - truth[pc.index_b]
        cov["differences"][0] += int(np.all((pc.ci.low <= d) & (d <= pc.ci.high)))  # simultaneous (max-t)
        cov["differences"][1] += 1
        rank = eb.ranking.ranks(truth)
        sim = res.ranking.rank_simultaneous
        cov["ranks"][0] += int(np.all((sim.low <= rank) & (rank <= sim.high)))
        cov["ranks"][1] += 1
        cov["predictive"][0] += int(res.holdout.cells["covered"].sum())
        cov["predictive"][1] += res.holdout.n_cells
    return cov, float(np.mean(missing))


@pytest.mark.slow
@pytest.mark.parametrize("mnar", [False, True], ids=["missing at random", "missing not at random"])
def test_coverage(mnar):
    cov, missing = simulate(mnar)
    assert 0.3 < missing < 0.6
    k, n = cov["ability"]
    assert k / n >= 0.92 and binomtest(k, n, 0.95).pvalue > 1e-4 or k / n > 0.95, (k, n)  # marginal, 95%
    for what in ("differences", "ranks"):  # joint statements over all pairs / all models, per simulated data set
        k, n = cov[what]
        assert k / n >= 0.85, (what, k, n)
    k, n = cov["predictive"]
    assert abs(k / n - 0.95) < 0.04, (k, n)


if __name__ == "__main__":
    for mnar in (False, True):
        print("MNAR" if mnar else "MCAR", simulate(mnar))
