"""The exact sampler against NUTS fits of the same model, and the NumPyro models' diagnostics.

The stored NUTS references (``nuts_reference.py``, written by ``make_reference.py`` beside it, exact command and
seed inside) keep the comparison fast and run without NumPyro; the live fits run only when NumPyro is installed.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from references import load_beside

from evalband import ResultsTable
from evalband.bayes import beta_binomial
from evalband.data.table import Counts

REF = load_beside(__file__, "nuts_reference")
_REF_MAKER = load_beside(__file__, "make_reference")


def small_counts():
    return Counts(("m0", "m1", "m2"), ("t0", "t1", "t2", "t3"), np.array(REF.SMALL_CORRECT, dtype=float),
                  np.array(REF.SMALL_N, dtype=float))


def _quantile_mcse(draws, q):
    """MCSE of a quantile of independent draws from the binomial spread of the order statistic."""
    d = draws.shape[0]
    h = np.sqrt(q * (1 - q) / d)
    return (np.quantile(draws, min(q + h, 1), axis=0) - np.quantile(draws, max(q - h, 0), axis=0)) / 2


@pytest.mark.parametrize("name,draws", [("small", 40_000), ("vtab", 10_000)])
def test_exact_matches_the_stored_nuts_posterior(name, draws):
    ref = REF.CASES[name]
    assert ref["warnings"] == []  # the reference fit itself passed its diagnostics
    data = small_counts() if name == "small" else _REF_MAKER.vtab_in_file_order()  # the references' order
    res = beta_binomial(data, prior=ref["prior"], n_draws=draws, rng=11)
    for key, arr in (("theta", res.theta), ("aggregate", res.aggregate)):
        r = {k: np.array(v) for k, v in ref[key].items()}
        se = np.sqrt(r["mcse_mean"] ** 2 + arr.var(axis=0) / draws)
        assert (np.abs(arr.mean(axis=0) - r["mean"]) / se).max() < 4.5, key
        for q, col in ((0.025, "q025"), (0.975, "q975")):
            se_q = np.sqrt(r["mcse_" + col] ** 2 + _quantile_mcse(arr, q) ** 2)
            assert (np.abs(np.quantile(arr, q, axis=0) - r[col]) / se_q).max() < 4.5, (key, col)


numpyro = pytest.importorskip("numpyro")  # everything below fits NumPyro models
from evalband.bayes.numpyro_models import logistic, nuts_beta_binomial  # noqa: E402


@pytest.mark.slow
def test_live_nuts_fit_matches_exact():
    c = small_counts()
    nuts = nuts_beta_binomial(c, prior="exponential:0.05", num_warmup=300, num_samples=400, num_chains=2, rng=3)
    assert nuts.warnings == ()
    exact = beta_binomial(c, prior="exponential:0.05", n_draws=20_000, rng=4)
    ess = nuts.diagnostics["ess_bulk_min"].min()
    se = np.sqrt(nuts.aggregate.var(axis=0) / ess + exact.aggregate.var(axis=0) / exact.n_draws)
    assert (np.abs(nuts.aggregate.mean(axis=0) - exact.aggregate.mean(axis=0)) / se).max() < 4
    assert type(nuts.inference_data).__name__ == "InferenceData"


@pytest.mark.slow
def test_diagnostics_trip_on_a_deliberately_bad_fit():
    # 5 warm-up steps and trees of depth 1: the chains cannot mix
    bad = nuts_beta_binomial(small_counts(), prior="exponential:0.05", num_warmup=5, num_samples=60, num_chains=2,
                             max_tree_depth=1, rng=5)
    text = " ".join(bad.warnings)
    assert "R-hat above 1.01" in text and "too few effective draws" in text
    assert bad.diagnostics["r_hat_max"].max() > 1.01


def _simulated_items(seed=1):
    rng = np.random.default_rng(seed)
    model_eff, task_eff = np.array([-0.6, 0.0, 0.3, 1.0]), np.array([0.5, -0.3, 0.0])
    rows = []
    for t in range(3):
        item, cl = rng.normal(0, 1.0, 60), rng.normal(0, 0.5, 5)
        p = 1 / (1 + np.exp(-(model_eff[:, None] + task_eff[t] + item[None, :] + cl[np.arange(60) % 5][None, :])))
        y = rng.random(p.shape) < p
        for m in range(4):
            for k in range(60):
                rows.append((f"m{m}", f"t{t}", f"i{k}", f"c{k % 5}", float(y[m, k])))
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"]))


@pytest.mark.slow
def test_logistic_model_on_item_level_data():
    table = _simulated_items()
    res = logistic(table, num_warmup=150, num_samples=150, num_chains=2, max_tree_depth=6, rng=6)
    assert type(res.inference_data).__name__ == "InferenceData"
    checked = set(res.diagnostics["variable"])
    assert {"item_effect", "cluster_effect", "model_task_effect", "sigma_item", "theta"} <= checked
    assert "divergences" in res.diagnostics.attrs
    s = res.summary().set_index("model")
    # theta is the expected accuracy on the task's own items: its posterior mean tracks the observed accuracy
    assert (s["posterior_mean"] - s["observed"]).abs().max() < 0.04
    assert s["p_best"].idxmax() == "m3" and s.loc["m3", "p_best"] > 0.8  # true best model (effect 1.0)
    assert ((s["pred_high"] - s["pred_low"]) > (s["ci_high"] - s["ci_low"])).all()
    assert res.theta.shape[1:] == (4, 3)
