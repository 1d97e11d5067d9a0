"""The logistic model without item effects, fitted on binomial counts per (model, task, cluster) cell.

Oracles: theory (with no item effect every Bernoulli score in a cell has the same probability, so the aggregated
binomial log-likelihood equals the sum of the Bernoulli log-likelihoods plus sum log C(n_cell, y_cell)), SciPy's
Bernoulli log-pmf, and recovery of known simulated model effects.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from evalband import ResultsTable

numpyro = pytest.importorskip("numpyro")
from evalband.bayes import logistic_model as lm  # noqa: E402
from evalband.bayes import numpyro_models as nm  # noqa: E402

MODEL_EFF = np.array([-0.8, 0.0, 0.3, 0.9])


def _simulated(n_items=120, n_clusters=4, seed=0, model_eff=MODEL_EFF):
    """Models x 3 tasks x items in clusters; logit p = model + task + cluster (no item effect)."""
    rng = np.random.default_rng(seed)
    task_eff = np.array([0.4, -0.2, 0.0])
    rows = []
    for t, b in enumerate(task_eff):
        cl = rng.normal(0, 0.4, n_clusters)
        for k in range(n_items):
            p = special.expit(model_eff + b + cl[k % n_clusters])
            y = rng.random(len(model_eff)) < p
            rows += [(f"m{m}", f"t{t}", f"i{k}", f"c{k % n_clusters}", float(y[m])) for m in range(len(model_eff))]
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"]))


def test_aggregated_likelihood_equals_the_bernoulli_one_up_to_binomial_coefficients():
    import jax.numpy as jnp
    from numpyro.infer.util import log_density, log_likelihood

    table = _simulated(n_items=40, seed=1)
    m_names, t_names = table.models, table.tasks
    obs, *_ = lm._logistic_data(table, m_names, t_names, False, None)
    n_clusters = obs["cluster_index"]["n_units"]
    assert obs["item_task"] is None and n_clusters == 3 * 4  # clusters are nested in tasks
    assert obs["trials"].sum() == len(table.data) and len(obs["trials"]) == 4 * n_clusters  # one row per cell

    # the Bernoulli formulation: one row per score, trials 1, same cluster codes as the aggregated rows
    d = table.data
    mi = pd.Categorical(d["model"], categories=m_names).codes.astype(np.int64)
    ti = pd.Categorical(d["task"], categories=t_names).codes.astype(np.int64)
    ci = pd.factorize(d["task"].astype(str) + "\x00" + d["cluster"].astype(str))[0].astype(np.int64)
    y = d["score"].to_numpy(float)
    bern = dict(obs, model_idx=mi, task_idx=ti, cluster_idx=ci, successes=y, trials=np.ones_like(y))
    centred = dict.fromkeys(("model", "task", "model_task", "cluster"), True)
    dims = dict(n_models=len(m_names), n_tasks=len(t_names), centred=centred)
    as_jax = lambda o: {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in o.items()}

    rng = np.random.default_rng(2)
    constant = (special.gammaln(obs["trials"] + 1) - special.gammaln(obs["successes"] + 1)
                - special.gammaln(obs["trials"] - obs["successes"] + 1)).sum()
    assert constant > 10  # the comparison is not trivially zero
    centre = lambda z: z - z.mean()
    for _ in range(3):  # several parameter points
        zc = rng.normal(size=(4, 3))
        p = {"intercept": rng.normal(), "sigma_model": rng.uniform(0.2, 2), "sigma_task": rng.uniform(0.2, 2),
             "sigma_model_task": rng.uniform(0.1, 1), "sigma_cluster": rng.uniform(0.1, 1),
             "model_effect": centre(rng.normal(size=4)), "task_effect": centre(rng.normal(size=3)),
             "model_task_effect": zc - zc.mean(0) - zc.mean(1)[:, None] + zc.mean(),
             "cluster_effect_free": rng.normal(size=n_clusters - 3)}
        params = {k: jnp.asarray(v) for k, v in p.items()}
        lp_agg, _ = log_density(lm._logistic_model, (), dict(as_jax(obs), **dims), params)
        lp_bern, _ = log_density(lm._logistic_model, (), dict(as_jax(bern), **dims), params)
        # JAX computes in float32: allow its rounding on the log density's scale (a miscounted cell moves it by O(1))
        np.testing.assert_allclose(float(lp_agg) - float(lp_bern), constant, rtol=0, atol=1e-5 * abs(float(lp_bern)))

        # and the Bernoulli terms are SciPy's, with eta built here from the effects' definition
        cl = lm.ragged_zero_sum(p["cluster_effect_free"], obs["cluster_index"], xp=np)
        eta = (p["intercept"] + p["model_effect"][mi] + p["task_effect"][ti] + p["model_task_effect"][mi, ti]
               + cl[ci])
        ll = log_likelihood(lm._logistic_model, {k: v[None] for k, v in params.items()},
                            **dict(as_jax(bern), **dims))["y"]
        np.testing.assert_allclose(float(ll.sum()), stats.bernoulli.logpmf(y, special.expit(eta)).sum(),
                                   rtol=1e-5)


@pytest.mark.slow  # one short NUTS fit (JAX compilation dominates)
def test_automatic_choice_leaves_item_effects_out_and_recovers_model_effects(monkeypatch):
    table = _simulated(n_items=400, seed=3)
    monkeypatch.setattr(lm, "ITEM_EFFECTS_MAX_ITEMS", 1000)  # 3 x 400 = 1,200 items: above it
    res = lm.logistic(table, num_warmup=150, num_samples=200, num_chains=1, max_tree_depth=6, rng=4)
    assert "item_effect" not in set(res.diagnostics["variable"]) and "cluster_effect" in set(res.diagnostics["variable"])
    note = [n for n in res.notes if n.startswith("item effects left out")]
    assert len(note) == 1 and "1,200 items" in note[0] and "item_effects=True" in note[0]
    eff = np.asarray(res.inference_data.posterior["model_effect"]).reshape(-1, 4)
    truth = MODEL_EFF - MODEL_EFF.mean()  # sum-to-zero model effects
    z = np.abs(eff.mean(0) - truth) / eff.std(0)
    assert z.max() < 3.5, z
    assert eff.std(0).max() < 0.15  # 1,200 scores per model pin the effects down


def test_threshold_and_forcing():
    table = _simulated(n_items=20, n_clusters=2, seed=5, model_eff=MODEL_EFF[:2])  # 60 items
    args = (table, table.models, table.tasks)
    assert lm._resolve_item_effects(*args, None) == (True, None)  # small data: item effects on
    assert lm._resolve_item_effects(*args, False) == (False, None)
    counts = table.counts()
    assert lm._resolve_item_effects(counts, counts.models, counts.tasks, None) == (False, None)
    old = lm.ITEM_EFFECTS_MAX_ITEMS
    try:
        lm.ITEM_EFFECTS_MAX_ITEMS = 59
        on, note = lm._resolve_item_effects(*args, None)
        assert not on and "60 items exceed" in note
        assert lm._resolve_item_effects(*args, True) == (True, None)  # forcing wins over the threshold
        assert lm._resolve_item_effects(table, table.models, ("t0",), None) == (True, None)  # 20 selected items
    finally:
        lm.ITEM_EFFECTS_MAX_ITEMS = old


@pytest.mark.slow  # one short NUTS fit (JAX compilation dominates)
def test_cli_item_effects_flag(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from evalband.cli.main import app

    seen, real = [], nm.logistic

    def short_fit(data, **kwargs):  # the flag's value reaches the library; a short fit keeps the test fast
        seen.append(kwargs["item_effects"])
        return real(data, **dict(kwargs, num_warmup=30, num_samples=30, num_chains=1, max_tree_depth=4))

    monkeypatch.setattr(nm, "logistic", short_fit)
    path = tmp_path / "scores.csv"
    _simulated(n_items=30, n_clusters=2, seed=7, model_eff=MODEL_EFF[:2]).data[
        ["model", "task", "item", "cluster", "score"]].to_csv(path, index=False)
    runner = CliRunner()
    res = runner.invoke(app, ["bayes", str(path), "--cluster", "cluster", "--model", "logistic", "--no-item-effects",
                              "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert seen == [False] and "model, task, model x task, cluster effects" in res.output
    bad = runner.invoke(app, ["bayes", str(path), "--item-effects"])  # beta-binomial: the flag does not apply
    assert bad.exit_code == 2 and "`--item-effects`" in bad.output
