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
        tally(cov, eb.ability(df, n_resamples=B, rng=s, holdout=0.1), z)
    return cov, float(np.mean(missing))


def tally(cov, res, z):
    """Add one simulated data set's hits to ``cov``: each model's ability in its interval, every pair's
    difference in its simultaneous (max-t) interval, every rank in its simultaneous interval (one Bernoulli per
    data set each), each held-out cell in its predictive interval. ``z``: the true standardized abilities."""
    truth = z[[int(m[1:]) for m in res.models]]
    cov["ability"][0] += int(((res.ranking.ci.low <= truth) & (truth <= res.ranking.ci.high)).sum())
    cov["ability"][1] += truth.size
    pc = res.comparisons
    d = truth[pc.index_a] - truth[pc.index_b]
    cov["differences"][0] += int(np.all((pc.ci.low <= d) & (d <= pc.ci.high)))
    cov["differences"][1] += 1
    rank = eb.ranking.ranks(truth)
    sim = res.ranking.rank_simultaneous
    cov["ranks"][0] += int(np.all((sim.low <= rank) & (rank <= sim.high)))
    cov["ranks"][1] += 1
    cov["predictive"][0] += int(res.holdout.cells["covered"].sum())
    cov["predictive"][1] += res.holdout.n_cells


@pytest.mark.slow
@pytest.mark.parametrize("mnar", [False, True], ids=["missing at random", "missing not at random"])
def test_coverage(mnar):
    cov, missing = simulate(mnar)
    assert 0.3 < missing < 0.6
    judge(cov)
    k, n = cov["predictive"]
    assert abs(k / n - 0.95) < 0.04, (k, n)  # and not far too wide




# --- item level: the 2PL model on every response, the item bootstrap (items within tasks, paired) ----------------

N_ITEM_SIMS, B_ITEMS, M_I, T_I, I_T = 24, 100, 30, 4, 25


def item_population(seed, mnar, rasch=False):
    """2PL (or Rasch: every discrimination 1) responses of M_I models to T_I tasks of I_T items; 40% of the (model,
    task) cells missing, at random or (MNAR) strong models skipping the easy tasks. The truth: abilities
    standardized (2PL) or centred (Rasch, the logit scale)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=M_I)
    task_level = np.linspace(-1.0, 1.0, T_I)
    b = task_level[:, None] + rng.normal(0, 0.7, size=(T_I, I_T))
    a = rng.lognormal(0.0, 0.25, size=(T_I, I_T))  # drawn for Rasch too: the same stream, the same data otherwise
    if rasch:
        a = np.ones_like(a)
    if mnar:  # strong models skip easy tasks
        p_miss = np.where(theta[:, None] - task_level[None, :] > 0.5, 0.95, 0.55)
    else:  # 40% of the cells in all, with the cells kept to connect the graph
        p_miss = np.full((M_I, T_I), 0.7)
    keep = rng.random((M_I, T_I)) >= p_miss
    keep[np.arange(M_I), np.arange(M_I) % T_I] = True
    keep[:, 0] = True
    p = 1 / (1 + np.exp(-a[None] * (theta[:, None, None] - b[None])))  # (M, T, I)
    y = rng.random(p.shape) < p
    m, t, i = np.nonzero(np.broadcast_to(keep[:, :, None], p.shape))
    df = pd.DataFrame({"model": [f"m{k:02d}" for k in m], "task": [f"t{k}" for k in t],
                       "item": [f"t{tt}-{ii:02d}" for tt, ii in zip(t, i)], "score": y[m, t, i].astype(int)})
    truth = theta - theta.mean()
    return df, truth if rasch else truth / theta.std(), 1 - keep.mean()


def simulate_items(mnar, model="2pl", n_resamples=B_ITEMS):
    cov = {"ability": [0, 0], "differences": [0, 0], "ranks": [0, 0], "predictive": [0, 0]}
    missing = []
    for s in range(N_ITEM_SIMS):
        df, z, miss = item_population(7000 + 1000 * mnar + s, mnar, rasch=model == "rasch")
        missing.append(miss)
        tally(cov, eb.ability(df, model=model, uncertainty="bootstrap", n_resamples=n_resamples, rng=s, holdout=0.15),
              z)
    return cov, float(np.mean(missing))


def judge(cov, level=0.95):
    """Binomial tests of coverage = ``level`` (one-sided: too low). The marginal abilities and the held-out cells
    pool correlated units within a data set (models share the fit), so their test is approximate: they must also
    lie within 3 points of the level. The joint statements (every pair's difference in its max-t interval, every
    rank in its simultaneous interval) are one Bernoulli per data set."""
    for what, (k, n) in cov.items():
        p = binomtest(k, n, level, alternative="less").pvalue
        assert p > 1e-3, (what, k, n, p)
        if what in ("ability", "predictive"):
            assert k / n >= level - 0.03, (what, k, n)


@pytest.mark.slow
@pytest.mark.parametrize("mnar", [False, True], ids=["missing at random", "missing not at random"])
def test_item_level_2pl_coverage(mnar):
    """Measured 2026-12-02 (B = 100): abilities 681/720 (MCAR) and 695/720 (MNAR), max-t differences 23/24 and
    21/24, simultaneous ranks 24/24 and 23/24, held-out cells 248/259 and 262/276 (244 and 256 before the draws
    were put on each cell's own lattice of scores k / n and the interval's ends taken as draws). Before the scale
    correction and the predictive terms of :mod:`evalband.latent.item_abilities`: 646, 664, 20, 21, 227, 246
    (percentile intervals of standardized refits, estimates shrunk by the standardization: slope 0.87 on the
    truth)."""
    cov, missing = simulate_items(mnar)
    assert 0.3 < missing < 0.5
    judge(cov)


#: replicates of the Rasch simulation: a 95% percentile interval of B exact posterior draws covers about 93% at
#: B = 100 (NumPy's default quantile; 94.8% at B = 1,000), a floor within a point of judge()'s 92%
B_RASCH = 400


@pytest.mark.slow
@pytest.mark.parametrize("mnar", [False, True], ids=["missing at random", "missing not at random"])
def test_item_level_rasch_coverage(mnar):
    """Measured 2026-12-02 (B = 400, :data:`B_RASCH`): abilities 682/720 (MCAR) and 677/720 (MNAR), max-t
    differences 23/24 and 20/24, simultaneous ranks 24/24 and 24/24, held-out cells 245/259 and 262/276. B is 400,
    not 100 as for the 2PL: the percentile interval of 100 draws covers about 93% even with exact posterior draws
    (the floor), which left no room for judge()'s 92% on the held-out cells; judge() is unchanged. Before marginal
    ML with posterior draws (:mod:`evalband.latent.rasch_marginal`; joint fit, item bootstrap, B = 100): abilities
    657 and 652, max-t 20 and 19, held-out cells 237 and 253 (now at B = 100: 664, 666, 18, 19, 243, 259)."""
    cov, missing = simulate_items(mnar, model="rasch", n_resamples=B_RASCH)
    assert 0.3 < missing < 0.5
    judge(cov)


if __name__ == "__main__":
    for mnar in (False, True):
        print("MNAR" if mnar else "MCAR", simulate(mnar), simulate_items(mnar), simulate_items(mnar, "rasch"))


def test_item_level_results_say_how_their_intervals_are_made():
    """The 2PL result names the scale correction and its factor in its method note, and carries no caveat; the
    Rasch result names marginal ML and the posterior draws, and carries no caveat either (its simulations cover,
    above)."""
    df, _, _ = item_population(1, False)
    res = eb.ability(df, model="2pl", uncertainty="bootstrap", n_resamples=20, rng=0)
    text = " ".join(map(str, res.notes))
    assert "bias correction of the scale" in text and "items' estimation error" in text
    assert "variance 1" in text
    assert not any(str(getattr(n, "code", "")).endswith("intervals-cover-less") for n in res.notes)
    rasch = eb.ability(df, model="rasch", uncertainty="bootstrap", n_resamples=20, rng=0)
    text = " ".join(map(str, rasch.notes))
    assert "marginal maximum likelihood" in text and "posterior" in text and "items' estimation error" in text
    assert not any(str(getattr(n, "code", "")).endswith("intervals-cover-less") for n in rasch.notes)
    assert {"latent.item-scale-standardized", "latent.2pl-bootstrap-intervals"} <= {n.code for n in res.notes}
    assert {"latent.item-scale-rasch", "latent.rasch-posterior-intervals"} <= {n.code for n in rasch.notes}
