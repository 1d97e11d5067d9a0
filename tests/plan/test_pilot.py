"""Plan from pilot data: estimates checked against direct computations (pandas, statsmodels) and a simulation
with known variance components."""


import numpy as np
import pandas as pd
import pytest

from evalband import load_example
from evalband.io import read
from evalband.plan import estimate_pilot, plan_comparison, plan_from_pilot

A, B = "Meta-Llama-3-70B", "Llama-2-70b-hf"


@pytest.fixture(scope="module")
def mmlu():
    return load_example("mmlu-pro").select(models=[A, B])


def test_mmlu_pro_estimates_match_a_direct_computation(mmlu):
    est = estimate_pilot(mmlu)
    d = mmlu.data
    wide = d.pivot_table(index=["task", "item"], columns="model", values="score", observed=True).dropna()
    diff = wide[A] - wide[B]
    assert est.n == len(wide)
    assert est.mean_a == pytest.approx(wide[A].mean()) and est.mean_b == pytest.approx(wide[B].mean())
    assert est.variance_difference == pytest.approx(diff.var(ddof=1))
    assert est.correlation == pytest.approx(np.corrcoef(wide[A], wide[B])[0, 1])
    assert est.output_variance_a == 0 and est.trials == 1


def test_mmlu_pro_cluster_se_matches_statsmodels(mmlu):
    sm = pytest.importorskip("statsmodels.api")
    est = estimate_pilot(mmlu)
    d = mmlu.data
    wide = d.pivot_table(index=["task", "item", "cluster"], columns="model", values="score",
                         observed=True).dropna()
    diff = (wide[A] - wide[B]).to_numpy()
    keys = wide.index.to_frame(index=False)
    groups = pd.factorize(keys["task"].astype(str) + "|" + keys["cluster"].astype(str))[0]
    fit = sm.OLS(diff, np.ones_like(diff)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert est.se_difference == pytest.approx(float(fit.bse[0]), rel=1e-8)
    assert est.n_clusters == groups.max() + 1
    assert est.icc > 0 and est.design_effect_observed > 1


def test_plan_from_pilot_is_plan_comparison_with_the_estimates(mmlu):
    plan = plan_from_pilot(mmlu, effect=0.02)
    est = estimate_pilot(mmlu)
    ref = plan_comparison(effect=0.02, variance_difference=est.variance_difference, n=est.n,
                          cluster_size=est.cluster_size, icc=est.icc, cluster_cv=est.cluster_cv)
    assert plan.n_required == ref.n_required and plan.mde == pytest.approx(ref.mde)
    assert plan.inputs["sources"]["icc"] == "estimated"
    assert plan.inputs["pilot"]["model_a"] == A
    assert plan.n == est.n
    # with only ~2,500 effective items, 2 points is below what 12,032 clustered items can detect
    assert plan.mde > 0.02 and plan.n_required > est.n


def test_simulated_components_are_recovered(rng):
    # 300 clusters of 1..12 items; each item has a true success rate per model; 4 trials per item
    sizes = rng.integers(1, 13, size=300)
    cl = np.repeat(np.arange(sizes.size), sizes)
    n = cl.size
    shift = rng.normal(0, 0.6, size=sizes.size)[cl]
    base = rng.normal(0, 1.0, size=n) + shift
    pa = 1 / (1 + np.exp(-(base + 0.3 + rng.normal(0, 0.5, size=n))))
    pb = 1 / (1 + np.exp(-base))
    k = 4
    rows = []
    for model, p in (("A", pa), ("B", pb)):
        draws = (rng.random((n, k)) < p[:, None]).astype(float)
        rows.append(pd.DataFrame({"model": model, "task": "t", "item": np.repeat(np.arange(n), k),
                                  "trial": np.tile(np.arange(k), n), "cluster": np.repeat(cl, k),
                                  "score": draws.ravel()}))
    table = read(pd.concat(rows, ignore_index=True))
    est = estimate_pilot(table)
    assert est.trials == 4 and est.n == n
    # output variance of one trial is the mean Bernoulli variance p(1 - p) of the items (unbiased estimate)
    assert est.output_variance_a == pytest.approx(np.mean(pa * (1 - pa)), rel=0.06)
    assert est.output_variance_b == pytest.approx(np.mean(pb * (1 - pb)), rel=0.06)
    # one-trial variance of the difference: Var(pa - pb) + both output variances
    truth = np.var(pa - pb, ddof=1) + np.mean(pa * (1 - pa)) + np.mean(pb * (1 - pb))
    assert est.variance_difference == pytest.approx(truth, rel=0.08)
    assert est.cluster_cv == pytest.approx(sizes.std() / sizes.mean())
    plan = plan_from_pilot(table, effect=0.03)
    assert plan.trials == 4 and plan.inputs["output_variance"] > 0
    assert plan.trial_table is not None and plan.recommended_trials >= 1


def test_summary_table_needs_a_correlation_for_a_paired_plan():
    vtab = load_example("vtab")
    m = list(vtab.models[:2])
    unpaired = plan_from_pilot(vtab.select(models=m), effect=0.01)
    assert unpaired.inputs["paired"] is False
    assert any("correlation" in note for note in unpaired.notes)
    paired = plan_from_pilot(vtab.select(models=m), effect=0.01, correlation=0.6)
    assert paired.inputs["paired"] is True and paired.n_required < unpaired.n_required


def test_pilot_refuses_typed_numbers_and_bad_models(mmlu):
    with pytest.raises(ValueError, match="`baseline`"):
        plan_from_pilot(mmlu, effect=0.02, baseline=0.5)
    with pytest.raises(ValueError, match="exactly two"):
        estimate_pilot(mmlu, models=[A])
    with pytest.raises(ValueError, match="`correlation`"):
        estimate_pilot(mmlu, correlation=0.3)


def test_weighted_pilot_plans_the_weighted_mean_difference():
    """Oracle (theory): with weights, the pilot's per-item variance of the difference is n * sum_t w_t^2 s_t^2 /
    n_t (s_t^2 the per-task variance of the item differences), so that variance / n is the variance of the weighted
    mean of the per-task mean differences; its difference is sum_t w_t dbar_t."""
    import pandas as pd

    from evalband.plan import plan_from_pilot

    gen = np.random.default_rng(3)
    rows = []
    for t, (n, pa, pb) in enumerate([(200, 0.7, 0.6), (50, 0.4, 0.45)]):
        for i in range(n):
            rows += [dict(model="A", task=f"t{t}", item=i, score=float(gen.random() < pa)),
                     dict(model="B", task=f"t{t}", item=i, score=float(gen.random() < pb))]
    frame = pd.DataFrame(rows)
    plan = plan_from_pilot(frame, effect=0.05, weights={"t0": 1, "t1": 3})
    wide = frame.pivot_table(index=["task", "item"], columns="model", values="score")
    d = (wide["A"] - wide["B"]).groupby(level="task")
    w = np.array([0.25, 0.75])
    var = np.sum(w ** 2 * d.var(ddof=1).to_numpy() / d.size().to_numpy())
    pilot = plan.inputs["pilot"]
    assert pilot["variance_difference"] == pytest.approx(250 * var, rel=1e-9)  # one trial: no output noise
    assert pilot["difference"] == pytest.approx(float(w @ d.mean().to_numpy()), rel=1e-12)
    assert any("weighted mean over tasks" in n for n in plan.notes)
