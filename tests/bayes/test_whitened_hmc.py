"""``logistic(..., method='hmc')``: HMC over coordinates whitened by the Gaussian approximation.

Oracles: long NUTS runs of the same model in its own coordinates (``logistic_reference.py``, written by
``make_logistic_reference.py`` beside it, command and seed inside): posterior means, sds and 2.5% / 97.5%
quantiles of theta, of each model's aggregate and of every scale must agree within the combined Monte Carlo error;
theory (the draws do not depend on the order of the rows, which only relabels them).
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from references import load_beside
from scipy import special

from evalband import ResultsTable

numpyro = pytest.importorskip("numpyro")
from evalband.bayes import logistic_model as lm  # noqa: E402
from evalband.bayes.diagnostics import import_arviz  # noqa: E402


REF = load_beside(__file__, "logistic_reference")
MAKE = load_beside(__file__, "make_logistic_reference")


def _mcse_quantile(draws, n_chains, q):
    az = import_arviz()
    x = draws.reshape(n_chains, -1, draws.shape[-1])
    return np.array([float(np.ravel(az.mcse(x[:, :, j], method="quantile", prob=q))[0]) for j in range(x.shape[2])])


def _ess_mean(draws, n_chains):
    az = import_arviz()
    x = draws.reshape(n_chains, -1, draws.shape[-1])
    return np.array([float(az.ess(x[:, :, j], method="mean")) for j in range(x.shape[2])])


def agreement(draws, ref, n_chains):
    """Largest z-scores of the means and of the 2.5% / 97.5% quantiles against a stored reference, and the range
    of the sd ratios; ``draws`` (D, k) and ``ref`` the summary of the same k quantities."""
    r = {k: np.ravel(np.array(v)) for k, v in ref.items()}
    ess = _ess_mean(draws, n_chains)
    z_mean = (draws.mean(0) - r["mean"]) / np.sqrt(r["mcse_mean"] ** 2 + r["sd"] ** 2 / ess)
    z_q = [(np.quantile(draws, q, axis=0) - r[k]) / np.sqrt(r["mcse_" + k] ** 2
                                                             + _mcse_quantile(draws, n_chains, q) ** 2)
           for q, k in ((0.025, "q025"), (0.975, "q975"))]
    ratio = draws.std(0, ddof=1) / r["sd"]
    return float(np.abs(z_mean).max()), float(max(np.abs(z).max() for z in z_q)), (ratio.min(), ratio.max())


def _quantities(res, ref):
    """(name, draws (D, k), reference summary) of theta, the aggregate and every scale."""
    post = res.inference_data.posterior
    out = [("theta", res.theta.reshape(res.theta.shape[0], -1), ref["theta"]),
           ("aggregate", res.aggregate, ref["aggregate"])]
    for var in post.data_vars:
        if var.startswith("sigma_"):
            out.append((var, np.asarray(post[var]).reshape(-1, 1), ref[var]))
    return out


@pytest.mark.slow  # one HMC fit each (compilation included); under ~60 s on one core
@pytest.mark.parametrize("name", ["cells_sub"])  # not VTAB: there HMC's worst R-hat is 1.007 to 1.03 over runs
# (the step size lands at one step per quarter turn with acceptance 0.57), so method='auto' refits it with NUTS
# (test_auto_falls_back_to_nuts_when_hmc_fails); the Laplace approximation is validated on it (test_laplace.py)
def test_hmc_matches_the_long_nuts_reference(name):
    ref = REF.CASES[name]
    assert ref["warnings"] == []  # the reference itself passed its diagnostics
    res = lm.logistic(MAKE.case_data(name), method="hmc", num_warmup=300, num_samples=500, rng=3, **ref["options"])
    assert sorted(res.models) == sorted(ref["models"]) and sorted(res.tasks) == sorted(ref["tasks"])
    ref = MAKE.in_order(ref, res.models, res.tasks)  # the table's order may have changed since
    assert res.warnings == (), res.warnings  # R-hat <= 1.01, ESS >= 400, no divergence
    assert res.notes[0].startswith("logistic model with") and "HMC in coordinates whitened" in res.notes[0]
    for what, draws, summary in _quantities(res, ref):
        z_mean, z_q, (lo, hi) = agreement(draws, summary, 4)
        assert z_mean < 4.5 and z_q < 4.5, (what, z_mean, z_q)
        assert 0.85 < lo and hi < 1.15, (what, lo, hi)  # the sd of ~1,000 effective draws is within a few %


def _informative(seed=0, n_models=10, n_tasks=10, n_items=60):
    """Every level informed: 10 models x 10 tasks x 60 items in 4 clusters each, clear model and task effects."""
    rng = np.random.default_rng(seed)
    a, b = np.linspace(-1.2, 1.2, n_models), np.linspace(-0.8, 0.8, n_tasks)
    rows = []
    for t in range(n_tasks):
        cl = rng.normal(0, 0.5, 4)
        c = rng.normal(0, 0.3, n_models)
        for k in range(n_items):
            p = special.expit(a + b[t] + c + cl[k % 4])
            y = rng.random(n_models) < p
            rows += [(f"m{m}", f"t{t}", f"i{k}", f"c{k % 4}", float(y[m])) for m in range(n_models)]
    return pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"])


@pytest.mark.slow  # two short HMC fits
def test_draws_do_not_depend_on_the_order_of_the_rows():
    df = _informative()
    shuffled = df.sample(frac=1.0, random_state=5).reset_index(drop=True)
    fits = [lm.logistic(ResultsTable.from_items(d), method="hmc", item_effects=False, num_warmup=60,
                        num_samples=40, num_chains=2, rng=11) for d in (df, shuffled)]
    a, b = fits
    # the table may order the labels itself (by name); where it keeps their first appearance they are permuted
    order = [b.models.index(m) for m in a.models]
    order_t = [b.tasks.index(t) for t in a.tasks]  # the tasks' first appearance moves too
    np.testing.assert_array_equal(a.theta, b.theta[:, order][:, :, order_t])  # the draws are the same draws
    # the labels are right: each model's posterior mean accuracy sits on its own observed one (600 scores each;
    # neighbouring models differ by about 0.05, the posterior sd of a model's mean is about 0.015)
    np.testing.assert_allclose(a.theta.mean(0).mean(1), a.observed.mean(1), atol=0.025)


def test_auto_picks_hmc_only_where_every_level_is_informed():
    obs = {"cluster_index": {"n_units": 40}, "item_index": None}
    info = {"model": 700.0, "task": 800.0, "model_task": 6.0, "cluster": 80.0}
    assert lm.auto_method(obs, 29, 14, info) == ("hmc", None)
    method, note = lm.auto_method(obs, 29, 3, info)
    assert method == "nuts" and "3 task effects (fewer than HMC_MIN_EFFECTS = 10)" in note
    method, note = lm.auto_method(obs, 29, 14, dict(info, model_task=0.3))
    assert method == "nuts" and "weakly informed model x task (ratio 0.3)" in note and "method='hmc'" in note


def test_unknown_method_names_the_valid_ones():
    with pytest.raises(ValueError, match="`method` must be one of"):
        lm.logistic(ResultsTable.from_items(_informative(n_items=5)), method="gibbs")


@pytest.mark.slow  # one short HMC fit
def test_hmc_result_is_labelled_and_checked():
    res = lm.logistic(ResultsTable.from_items(_informative()), method="hmc", item_effects=False, num_warmup=100,
                      num_samples=100, num_chains=2, rng=1)
    post = res.inference_data.posterior
    assert list(post["model_effect"].coords["model"].values) == list(res.models)
    assert post["model_task_effect"].dims == ("chain", "draw", "model", "task")
    np.testing.assert_allclose(np.asarray(post["model_effect"]).sum(-1), 0.0, atol=1e-5)  # zero-sum effects
    assert "diverging" in res.inference_data.sample_stats
    assert set(res.diagnostics["variable"]) >= {"intercept", "sigma_model", "model_effect", "cluster_effect", "theta"}
    assert res.summary().shape[0] == 10 and res.pairs().shape[0] == 45  # every BayesResult table works


def test_auto_falls_back_to_nuts_when_hmc_fails(monkeypatch):
    """Theory of the fallback: chains that disagree (each around its own value) fail the checks, and
    ``method='auto'`` then hands the problem to NUTS, with NUTS's warm-up and a note naming why; well-mixed
    chains pass, and an explicit ``method='hmc'`` keeps its own chains."""
    from evalband.bayes import logistic_methods, whitened_hmc

    gen = np.random.default_rng(0)
    mixed = {"intercept": gen.normal(size=(4, 500)), "model_effect": gen.normal(size=(4, 500, 3))}
    stuck = {k: v + np.arange(4).reshape(4, *[1] * (v.ndim - 1)) for k, v in mixed.items()}
    stats = {"diverging": np.zeros((4, 500), bool), "acceptance_rate": np.full((4, 500), 0.8)}
    fit_of = lambda post: whitened_hmc.Fit(post, stats, ("HMC in coordinates whitened ...",), {}, {"method": "hmc"})
    assert logistic_methods.hmc_unconverged(fit_of(mixed)) is None
    assert "R-hat" in logistic_methods.hmc_unconverged(fit_of(stuck))

    calls = []
    monkeypatch.setattr(whitened_hmc, "fit_hmc", lambda *a, **k: fit_of(stuck))
    monkeypatch.setattr(logistic_methods, "auto_method", lambda *a: ("hmc", None))
    monkeypatch.setattr(logistic_methods, "run_nuts", lambda model, args, **k: calls.append(k) or (None, "idata"))
    obs = {"cluster_index": None, "item_index": None}
    options = dict(num_warmup=400, num_samples=500, num_chains=4, seed=1, target_accept=0.8, max_tree_depth=8)
    fitted, notes, checks = logistic_methods.fit("auto", obs, ("a", "b", "c"), ("t",), {}, {}, nuts_warmup=1000,
                                                 **options)
    assert fitted == "idata" and checks == {"method": "nuts"} and calls[0]["num_warmup"] == 1000
    assert notes[0].startswith("fitted with NUTS: 4 chains x 500 draws after 1000 warm-up")
    assert notes[1].startswith("NUTS (not HMC): HMC's chains (4 x 500 after 400 warm-up) failed the convergence")
    fitted, notes, _ = logistic_methods.fit("hmc", obs, ("a", "b", "c"), ("t",), {}, {}, **options)
    assert fitted.posterior is stuck and len(calls) == 1
