"""The logistic model's parametrisation: per-group zero-sum effects and the centred / non-centred choice.

Oracles: linear algebra (the per-group map must be an isometry onto the vectors that sum to zero within each
group, i.e. have orthonormal columns spanning that subspace), NumPyro's own ``ZeroSumTransform`` (the one-group
case), and theory (a reparametrisation does not change the posterior: centred and non-centred fits of the same
model must agree within Monte Carlo error).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from evalband import ResultsTable, load_example

numpyro = pytest.importorskip("numpyro")
from evalband.bayes import logistic_model as lm  # noqa: E402


def _jacobian(index):
    f = index["free"].shape[0]
    return np.column_stack([lm.ragged_zero_sum(np.eye(f)[j], index, xp=np) for j in range(f)])  # (K, F)


def test_ragged_zero_sum_is_orthonormal_onto_within_group_zero_sums():
    group = np.array([2, 0, 1, 0, 2, 2, 0, 3, 1, 0, 4])  # sizes 4, 2, 3, 1, 1 in scrambled order
    index = lm.ragged_zero_sum_index(group, 6)  # group 5 is empty
    jac = _jacobian(index)
    assert jac.shape == (11, 11 - 5)  # one free value fewer than units per non-empty group
    np.testing.assert_allclose(jac.T @ jac, np.eye(jac.shape[1]), atol=1e-12)  # orthonormal columns
    member = (group[:, None] == np.arange(6)[None, :]).astype(float)  # (K, G)
    np.testing.assert_allclose(member.T @ jac, 0.0, atol=1e-12)  # every effect vector sums to zero per group
    # and they span the whole zero-sum subspace: its dimension is K minus the number of non-empty groups
    assert np.linalg.matrix_rank(np.column_stack([jac, member[:, :5]])) == 11
    # singletons carry no effect
    np.testing.assert_allclose(jac[group == 3], 0.0) and np.testing.assert_allclose(jac[group == 4], 0.0)


def test_ragged_zero_sum_matches_numpyro_and_jax():
    import jax.numpy as jnp
    from numpyro.distributions.transforms import ZeroSumTransform

    u = np.random.default_rng(0).normal(size=6)
    one = lm.ragged_zero_sum_index(np.zeros(7, dtype=int), 1)
    np.testing.assert_allclose(lm.ragged_zero_sum(u, one, xp=np), np.asarray(ZeroSumTransform(1)(jnp.asarray(u))),
                               atol=1e-6)
    group = np.array([1, 0, 1, 1, 0, 2, 2, 2, 2])
    index = lm.ragged_zero_sum_index(group, 3)
    v = np.random.default_rng(1).normal(size=index["free"].shape[0])
    np.testing.assert_allclose(np.asarray(lm.ragged_zero_sum(jnp.asarray(v), index)),
                               lm.ragged_zero_sum(v, index, xp=np), atol=1e-6)


def _table(n_items, seed=0, n_models=3):
    rng = np.random.default_rng(seed)
    model_eff, task_eff = np.linspace(-0.5, 0.5, n_models), np.array([0.3, -0.3])
    rows = []
    for t in range(2):
        item = rng.normal(0, 1.0, n_items)
        p = special.expit(model_eff[:, None] + task_eff[t] + item[None, :])
        y = rng.random(p.shape) < p
        rows += [(f"m{m}", f"t{t}", f"i{k}", float(y[m, k])) for m in range(n_models) for k in range(n_items)]
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]))


def test_parametrisation_follows_the_information_in_the_data():
    table = _table(300)
    ratios = lm._logistic_data(table, table.models, table.tasks, True, None)[4]
    # 600 scores per model on effects 0.5 apart: data dominate; one score per model per item: they do not; no
    # model x task interaction in the simulation: its spread is pure noise
    assert ratios["model"] > 5 and ratios["item"] < 0.5 and ratios["model_task"] < 0.5
    centred, note = lm._resolve_centred("auto", ratios)
    assert centred == {"model": True, "task": True, "model_task": False, "item": False}
    assert note.startswith("parametrisation: model centred (ratio") and "item non-centred" in note
    assert set(lm._resolve_centred("non-centered", ratios)[0].values()) == {False}
    assert set(lm._resolve_centred("centered", ratios)[0].values()) == {True}
    with pytest.raises(ValueError, match="`parametrization` must be one of"):
        lm._resolve_centred("sideways", ratios)
    # fewer scores, smaller ratios: 15 items per task leave the interaction and the items non-centred
    small = lm._logistic_data(_table(15), ("m0", "m1", "m2"), ("t0", "t1"), True, None)[4]
    assert small["model"] < ratios["model"] and small["task"] < ratios["task"]
    assert not lm._resolve_centred("auto", small)[0]["model_task"] and not lm._resolve_centred("auto", small)[0]["item"]
    # VTAB's thousands of test images per cell: every level centred
    vtab = load_example("vtab")
    assert all(lm._resolve_centred("auto", lm._logistic_data(vtab, vtab.models, vtab.tasks, False, None)[4])[0].values())


@pytest.mark.slow  # two short NUTS fits of the same model
def test_centred_and_non_centred_fits_give_the_same_posterior():
    # a reparametrisation does not change the posterior; 'auto' centres model and task effects here, and the
    # all non-centred fit needs a smaller step (target_accept 0.99) to avoid divergences
    table = _table(300, seed=3)
    fits = [lm.logistic(table, item_effects=False, parametrization=p, num_warmup=300, num_samples=600,
                        num_chains=2, rng=7, target_accept=t) for p, t in (("auto", 0.8), ("non-centered", 0.99))]
    assert "model centred" in fits[0].notes[1] and "model x task non-centred" in fits[0].notes[1]
    for f in fits:  # short chains: R-hat near 1.01 is Monte Carlo noise here; divergences would bias the draws
        assert f.diagnostics.attrs["divergences"] == 0 and f.diagnostics["r_hat_max"].max() < 1.03
    a, b = (f.theta.reshape(f.theta.shape[0], -1) for f in fits)
    ess = min(f.diagnostics.set_index("variable").loc["theta", "ess_bulk_min"] for f in fits)
    se = np.sqrt(a.var(0) / ess + b.var(0) / ess)
    assert (np.abs(a.mean(0) - b.mean(0)) / se).max() < 4
    assert np.abs(np.log(a.std(0) / b.std(0))).max() < 0.3  # MC error of an sd is about 1/sqrt(2 ESS)
    # the sum-to-zero effects are what the model says they are
    post = fits[0].inference_data.posterior
    np.testing.assert_allclose(np.asarray(post["model_effect"]).sum(-1), 0, atol=1e-4)
    np.testing.assert_allclose(np.asarray(post["model_task_effect"]).sum(-2), 0, atol=1e-4)
    np.testing.assert_allclose(np.asarray(post["model_task_effect"]).sum(-1), 0, atol=1e-4)


@pytest.mark.slow  # one NUTS fit of summary data (QA O13: the old non-centred model ended at R-hat 2.37 on VTAB)
def test_logistic_converges_on_summary_data():
    vtab = load_example("vtab")
    res = lm.logistic(vtab, models=vtab.models[:6], tasks=vtab.tasks[:8], num_warmup=300, num_samples=300,
                      num_chains=2, rng=2)
    d = res.diagnostics.set_index("variable")
    # short chains keep the test fast: R-hat within Monte Carlo noise of 1 (the full-length default fits on VTAB and
    # MMLU-Pro pass the 1.01 rule, see benchmarks/bayes.py), no divergence, enough effective draws
    assert d["r_hat_max"].max() < 1.05 and d.attrs["divergences"] == 0 and d["ess_bulk_min"].min() > 100
    assert {"model_effect", "task_effect", "model_task_effect", "theta"} <= set(d.index)
    assert "model centred" in res.notes[1] and "model x task centred" in res.notes[1]
    # thousands of test images per task: theta sits on the observed accuracy, within a few posterior sds
    z = (res.theta.mean(0) - res.observed) / res.theta.std(0)
    assert np.abs(z).max() < 3


def test_levels_without_free_effects_are_left_out_with_a_note():
    # one cluster per task (the cluster column repeats the task), and one item per cluster: neither level has a
    # value left once it sums to zero within its parent, so the model leaves it out (NumPyro refuses empty plates)
    rng = np.random.default_rng(0)
    rows = [(m, t, f"{t}{i}", t, float(rng.random() < 0.6)) for m in "ab" for t in "xy" for i in range(30)]
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"]))
    obs, *_, notes = lm._logistic_data(table, table.models, table.tasks, True, None)
    assert obs["cluster_index"] is None and obs["item_index"] is not None
    assert notes == ("cluster effects left out: every task is one cluster, so they are the task effects",)
    rows = [(m, t, f"{t}{i}", f"c{t}{i}", float(rng.random() < 0.6)) for m in "ab" for t in "xy" for i in range(30)]
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"]))
    obs, *_, notes = lm._logistic_data(table, table.models, table.tasks, True, None)
    assert obs["item_index"] is None and obs["cluster_index"] is not None
    assert notes == ("item effects left out: every item is alone in its cluster",)


@pytest.mark.slow  # one short NUTS fit (NUTS's compilation dominates: about 25 s of CPU)
def test_a_level_left_out_is_left_out_of_the_fit_and_its_notes():
    rng = np.random.default_rng(0)
    rng.random(2 * 2 * 30)  # the draws of the table of one cluster per task above, so this is the same table
    rows = [(m, t, f"{t}{i}", f"c{t}{i}", float(rng.random() < 0.6)) for m in "ab" for t in "xy" for i in range(30)]
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "cluster", "score"]))
    *_, notes = lm._logistic_data(table, table.models, table.tasks, True, None)
    res = lm.logistic(table, num_warmup=30, num_samples=30, num_chains=1, max_tree_depth=4, rng=1)
    assert notes[0] in res.notes and "item_effect" not in set(res.diagnostics["variable"])
