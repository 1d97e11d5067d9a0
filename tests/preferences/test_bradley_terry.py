"""Exact maximum likelihood for Bradley-Terry, Rao-Kupper and Davidson.

Oracles: evalica's golden files (Bradley-Terry normalized to sum 1, Newman = Davidson with nu = 2v), live evalica
and choix values on fresh inputs (stored beside the call), and a direct scipy.optimize fit of the textbook
per-battle likelihoods to tight tolerance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from evalband.preferences import BattleTable, fit_pairs, mle_exists
from evalband.preferences.bradley_terry import information_matrix, one_step_jackknife, spd_solve

from ..conftest import FIXTURES

GOLDENS = FIXTURES / "evalica_goldens"
LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"

#: wins of row over column (141 battles among 5 items) and ties (symmetric), typed here so stored values hold
W = np.array([[0, 5, 9, 10, 5], [5, 0, 6, 9, 9], [5, 8, 0, 6, 8], [4, 4, 8, 0, 11], [6, 8, 5, 10, 0]])
T = np.array([[0, 2, 1, 0, 3], [2, 0, 0, 2, 1], [1, 0, 0, 4, 0], [0, 2, 4, 0, 1], [3, 1, 0, 1, 0]])


def table_from_counts(wins, ties=None) -> BattleTable:
    a, b, y = [], [], []
    m = wins.shape[0]
    for i in range(m):
        for j in range(m):
            a += [str(i)] * int(wins[i, j])
            b += [str(j)] * int(wins[i, j])
            y += [1.0] * int(wins[i, j])
            if ties is not None and i < j:
                a += [str(i)] * int(ties[i, j])
                b += [str(j)] * int(ties[i, j])
                y += [0.5] * int(ties[i, j])
    return BattleTable.build(np.array(a, dtype=object), np.array(b, dtype=object), np.array(y))


def table_from_file(path) -> BattleTable:
    df = pd.read_csv(path, dtype=str)
    y = df["winner"].map({"left": 1.0, "right": 0.0, "tie": 0.5}).to_numpy()
    return BattleTable.build(df["left"].to_numpy(object), df["right"].to_numpy(object), y)


def fit(table, model="bt", ridge=0.0, kind=None):
    kind = kind or ("half" if model == "bt" else "ties")
    ps = table.pair_sums(np.zeros(table.n_battles, dtype=int), 1, kind=kind)
    return fit_pairs(ps.totals(), ps.pair_i, ps.pair_j, table.n_models, model=model, ridge=ridge)


def golden(name, algorithm) -> pd.Series:
    g = pd.read_csv(GOLDENS / f"{name}-golden.csv", dtype={"item": str})
    return g[g["algorithm"] == algorithm].set_index("item")["score"]


@pytest.mark.parametrize("name", ["food", "simple", "llmfao"])
def test_bradley_terry_matches_evalica_golden(name):
    # evalica.bradley_terry(xs, ys, winners) -> scores / scores.sum(), stored in evalica's {name}-golden.csv;
    # evalica stops its MM iterations at tolerance 1e-6, the golden was checked by evalica at rtol 1e-4
    table = table_from_file(LLMFAO if name == "llmfao" else GOLDENS / f"{name}.csv")
    f = fit(table, ridge=1e-6)
    strength = np.exp(f.theta[0])
    ours = pd.Series(strength / strength.sum(), index=table.models)
    g = golden(name, "bradley_terry")
    np.testing.assert_allclose(ours[g.index].to_numpy(), g.to_numpy(), rtol=1e-5)


@pytest.mark.parametrize("name", ["food", "simple", "llmfao"])
def test_davidson_matches_evalica_newman_golden(name):
    # evalica.newman(xs, ys, winners): Newman (2023)'s iteration for P(i beats j) = p_i / (p_i + p_j + 2v sqrt(p_i
    # p_j)), i.e. Davidson's model with nu = 2v; its scores are defined up to a factor, so compare shares
    table = table_from_file(LLMFAO if name == "llmfao" else GOLDENS / f"{name}.csv")
    f = fit(table, model="davidson", ridge=1e-6)
    strength = np.exp(f.theta[0])
    ours = pd.Series(strength / strength.sum(), index=table.models)
    g = golden(name, "newman")
    np.testing.assert_allclose(ours[g.index].to_numpy(), (g / g.sum()).to_numpy(), rtol=1e-4)


def test_live_evalica_on_fresh_inputs():
    table = table_from_counts(W, T)
    f = fit(table, ridge=0.0)
    s = np.exp(f.theta[0])
    ours = dict(zip(table.models, s / s.sum()))
    # evalica.bradley_terry(xs, ys, ws, tolerance=1e-12, limit=10000) on these battles, normalized to sum 1
    stored = {"0": 0.2560737673375624, "1": 0.21672792666563492, "2": 0.19080736598230127,
              "4": 0.17586438574263902, "3": 0.16052655427186235}
    for k, v in stored.items():
        assert ours[k] == pytest.approx(v, rel=1e-8)
    d = fit(table, model="davidson", ridge=0.0)
    s = np.exp(d.theta[0])
    ours = dict(zip(table.models, s / s.sum()))
    # evalica.newman(xs, ys, ws, tolerance=1e-12, limit=10000): shares and v = 0.10023973231867364 (nu = 2v)
    stored = {"0": 0.2621332589945378, "1": 0.21814851718091005, "2": 0.18961331058928393,
              "4": 0.17333508753938867, "3": 0.1567698256958795}
    for k, v in stored.items():
        assert ours[k] == pytest.approx(v, rel=1e-7)
    assert d.tie[0] == pytest.approx(2 * 0.10023973231867364, rel=1e-7)
    evalica = pytest.importorskip("evalica")
    xs, ys, ws = [], [], []
    names = np.asarray(table.models, dtype=object)
    for a, b, y in zip(names[table.model_a], names[table.model_b], table.outcome):
        xs.append(a)
        ys.append(b)
        ws.append(evalica.Winner.X if y == 1 else evalica.Winner.Y if y == 0 else evalica.Winner.Draw)
    live = evalica.bradley_terry(xs, ys, ws, tolerance=1e-12, limit=10000).scores
    s = np.exp(f.theta[0])
    np.testing.assert_allclose((live / live.sum())[list(table.models)].to_numpy(), s / s.sum(), rtol=1e-8)


def test_live_choix_on_fresh_inputs():
    table = table_from_counts(W)  # choix takes wins only
    f = fit(table, ridge=0.0)
    # choix.ilsr_pairwise(5, pairs, alpha=0.0, tol=1e-12) with pairs = [(i, j)] * W[i, j] (winner first);
    # choix centres its log-strengths at mean 0, as here
    stored = np.array([0.29011616, 0.09874071, -0.02745345, -0.22690636, -0.13449706])
    np.testing.assert_allclose(f.theta[0], stored, atol=5e-8)
    choix = pytest.importorskip("choix")
    pairs = [(i, j) for i in range(5) for j in range(5) for _ in range(W[i, j])]
    np.testing.assert_allclose(f.theta[0], choix.ilsr_pairwise(5, pairs, alpha=0.0, tol=1e-12), atol=1e-8)


# ---------------------------------------------------------------- direct optimizer: the exact oracle
def _battles(seed=3, m=6, n=400, tie_rate=0.2):
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    u = rng.random(n)
    y = np.where(u < tie_rate, 0.5, (rng.random(n) < p).astype(float))
    return a, b, y


def _nll_direct(params, a, b, y, m, model):
    """Textbook per-battle likelihoods in strengths pi = exp(gamma) (gamma[0] fixed at 0)."""
    gamma = np.concatenate([[0.0], params[: m - 1]])
    pi = np.exp(gamma)
    pa, pb = pi[a], pi[b]
    if model == "bt":
        p = pa / (pa + pb)
        return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))
    if model == "rao-kupper":
        th = 1.0 + np.exp(params[-1])  # theta_RK > 1
        win = pa / (pa + th * pb)
        loss = pb / (pb + th * pa)
        tie = (th ** 2 - 1) * pa * pb / ((pa + th * pb) * (th * pa + pb))
    else:
        nu = np.exp(params[-1])
        den = pa + pb + nu * np.sqrt(pa * pb)
        win, loss, tie = pa / den, pb / den, nu * np.sqrt(pa * pb) / den
    return -np.sum(np.where(y == 1, np.log(win), np.where(y == 0, np.log(loss), np.log(tie))))


@pytest.mark.parametrize("model", ["bt", "rao-kupper", "davidson"])
def test_newton_equals_direct_optimizer(model):
    a, b, y = _battles()
    m = 6
    names = np.array([f"m{i}" for i in range(m)], dtype=object)
    table = BattleTable.build(names[a], names[b], y)
    ours = fit(table, model=model, ridge=0.0)
    k = m - 1 + (model != "bt")
    x0 = np.zeros(k)
    if model == "rao-kupper":
        x0[-1] = np.log(0.5)
    res = optimize.minimize(_nll_direct, x0, args=(a, b, y, m, model), method="BFGS",
                            options={"gtol": 1e-11, "maxiter": 10_000})
    gamma = np.concatenate([[0.0], res.x[: m - 1]])
    np.testing.assert_allclose(ours.theta[0], gamma - gamma.mean(), atol=2e-6)
    if model == "rao-kupper":
        assert ours.tie[0] == pytest.approx(1.0 + np.exp(res.x[-1]), rel=1e-5)
    if model == "davidson":
        assert ours.tie[0] == pytest.approx(np.exp(res.x[-1]), rel=1e-5)


def test_ridge_moves_an_existing_mle_negligibly():
    table = table_from_counts(W, T)
    exact, ridged = fit(table, ridge=0.0), fit(table, ridge=1e-6)
    np.testing.assert_allclose(ridged.theta, exact.theta, atol=1e-7)


def test_only_wins_is_flagged_and_kept_finite():
    wins = W.copy()
    wins[1:, 0] = 0  # model 0 never loses
    table = table_from_counts(wins)
    ps = table.pair_sums(np.zeros(table.n_battles, dtype=int), 1)
    exists, only_wins, only_losses, n_comp = mle_exists(ps.totals(), ps.pair_i, ps.pair_j, 5)
    assert not exists and only_wins == [0] and only_losses == [] and n_comp == 2
    f = fit(table, ridge=1e-6)
    assert np.isfinite(f.theta).all() and f.converged.all()
    assert f.theta[0, 0] - f.theta[0, 1:].max() > 8  # "infinitely" better, kept finite by the ridge


def test_vectorized_replicates_equal_separate_fits():
    a, b, y = _battles(seed=5)
    names = np.array([f"m{i}" for i in range(6)], dtype=object)
    table = BattleTable.build(names[a], names[b], y)
    units = np.arange(table.n_battles) % 40
    ps = table.pair_sums(units, 40)
    counts = np.random.default_rng(0).multinomial(40, np.full(40, 1 / 40), size=7).astype(float)
    rep = ps.replicate(counts)
    together = fit_pairs(rep, ps.pair_i, ps.pair_j, 6)
    for r in range(7):
        alone = fit_pairs({k: v[r] for k, v in rep.items()}, ps.pair_i, ps.pair_j, 6)
        np.testing.assert_allclose(together.theta[r], alone.theta[0], atol=1e-10)


def test_one_step_jackknife_is_close_to_exact_delete_one():
    a, b, y = _battles(seed=9, n=600)
    names = np.array([f"m{i}" for i in range(6)], dtype=object)
    table = BattleTable.build(names[a], names[b], y)
    units = np.arange(table.n_battles) % 30
    ps = table.pair_sums(units, 30)
    full = fit_pairs(ps.totals(), ps.pair_i, ps.pair_j, 6)
    info = information_matrix(full, ps.totals(), ps.pair_i, ps.pair_j)
    approx = one_step_jackknife(full, ps.unit_sums(), ps.pair_i, ps.pair_j, info)
    counts = np.ones((30, 30)) - np.eye(30)
    exact = fit_pairs(ps.replicate(counts), ps.pair_i, ps.pair_j, 6).theta
    dev_exact, dev_approx = (exact - full.theta).ravel(), (approx - full.theta).ravel()
    # first-order accurate: the deviations agree to O(1/K) (here 30 units, each about 3% of the battles)
    assert np.abs(dev_approx - dev_exact).max() < 0.1 * np.abs(dev_exact).max()
    assert np.corrcoef(dev_exact, dev_approx)[0, 1] > 0.995


def test_spd_solve_matches_numpy():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 7, 7))
    a = x @ np.transpose(x, (0, 2, 1)) + 7 * np.eye(7)
    g = rng.normal(size=(4, 7))
    np.testing.assert_allclose(spd_solve(a, g), np.linalg.solve(a, g[..., None])[..., 0], rtol=1e-10)


def test_fit_pairs_refuses_unknown_model():
    with pytest.raises(ValueError, match="'bt', 'rao-kupper' or 'davidson'"):
        fit_pairs({"n": [1.0], "s": [1.0]}, [0], [1], 2, model="thurstone")
