"""variance_components on tables: real data with facets (HiBayES q4, CRUXEval, tau-bench), pingouin's ICC,
closed-form standard errors of the mean, and the contract of the frame."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalband.facets import variance_components
from evalband.io import read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _q4():
    q4 = pd.read_csv(FIXTURES / "hibayes" / "q4.csv")
    df = q4.rename(columns={"LLM": "model", "grader": "judge"}).assign(task="q4")
    df["trial"] = df.groupby(["model", "item", "judge"]).cumcount()
    return read(df, unbounded=True, facets=["judge"])


# HiBayES q4 (items x graders crossed, 25 scores per cell), LLM A, REML by statsmodels 0.15:
# a = q4[q4.LLM == 'LLM A'].assign(g=1)
# sm.MixedLM.from_formula('score ~ 1', groups='g', re_formula='0', data=a, vc_formula={'item': '0+C(item)',
#     'judge': '0+C(grader)', 'ip': '0+C(item):C(grader)'}).fit(reml=True, method=['powell'])
#  -> vcomp ip 4.97e-10, item 0.8347332277381211, judge 5.191621812784521; scale 1.371995801756233
# (method=['lbfgs'] stops early at a lower likelihood: llf -486.152 against -486.098)
Q4_REML = {"item": 0.8347332277381211, "judge": 5.191621812784521, "item x judge": 0.0, "trial": 1.371995801756233}


def test_hibayes_q4_reml_matches_statsmodels():
    vc = variance_components(_q4(), method="reml", rng=0, n_resamples=500)
    got = vc.components("LLM A")
    for k, ref in Q4_REML.items():
        assert got[k] == pytest.approx(ref, rel=1e-3, abs=1e-6), k


def test_hibayes_q4_anova_contract_and_graders_dominate():
    vc = variance_components(_q4(), rng=0, n_resamples=2000)
    assert vc.method == {"q4": "anova"}
    f = vc.to_frame()
    for col in ("component", "variance", "share", "ci_low", "ci_high"):
        assert col in f.columns
    a = f[f["model"] == "LLM A"].set_index("component")
    # ANOVA: the item x judge estimate is negative (shown raw), set to 0
    assert a.loc["item x judge", "variance_raw"] < 0 == a.loc["item x judge", "variance"]
    assert a.loc["judge", "variance"] == pytest.approx(5.199022, rel=1e-5)
    assert (a["ci_low"] <= a["variance"]).all() and (a["variance"] <= a["ci_high"]).all()
    # with 3 graders, the grader effect carries most of the variance of the mean
    assert a.loc["judge", "share"] > 0.85
    assert a["share"].sum() == pytest.approx(1.0)
    se = vc.se_frame()
    row = se[(se["model"] == "LLM A") & (se["fixed"] == "")].iloc[0]
    assert row["se"] == pytest.approx(vc.se_random[0, 0])
    assert vc.se_random[0, 0] > 2.5 * vc.se_fixed[0, 0]  # 1.40 against 0.46
    assert row["df"] < 3  # Satterthwaite: about 2 (3 graders)
    assert row["estimate"] == pytest.approx(_q4().data.query("model == 'LLM A'")["score"].mean())
    d = vc.difference_frame()
    assert set(d["model_a"]) == {"LLM A"} and set(d["model_b"]) == {"LLM B"}


def test_se_random_equals_the_mean_squares_combination():
    # theory: Var(mean) = (MS_I + MS_P - MS_IP) / (I P) for items x prompts, one score per cell
    rng = np.random.default_rng(3)
    y = rng.normal(size=(30, 5)) + rng.normal(size=30)[:, None] + rng.normal(size=5)
    n_i, n_p = y.shape
    g = y.mean()
    ms_i = n_p * ((y.mean(1) - g) ** 2).sum() / (n_i - 1)
    ms_p = n_i * ((y.mean(0) - g) ** 2).sum() / (n_p - 1)
    r = y - y.mean(1, keepdims=True) - y.mean(0, keepdims=True) + g
    ms_e = (r ** 2).sum() / ((n_i - 1) * (n_p - 1))
    df = pd.DataFrame({"model": "m", "task": "t", "item": np.repeat(np.arange(n_i), n_p),
                       "prompt": np.tile(np.arange(n_p), n_i), "score": y.ravel()})
    vc = variance_components(read(df, unbounded=True), rng=0, n_resamples=200)
    assert vc.se_random[0, 0] == pytest.approx(np.sqrt((ms_i + ms_p - ms_e) / (n_i * n_p)))
    assert vc.se_fixed[0, 0] == pytest.approx(np.sqrt(ms_i / (n_i * n_p)))  # prompts fixed: the item-only SE
    nu = (ms_i + ms_p - ms_e) ** 2 / (ms_i ** 2 / (n_i - 1) + ms_p ** 2 / (n_p - 1)
                                      + ms_e ** 2 / ((n_i - 1) * (n_p - 1)))
    assert vc.df_random[0, 0] == pytest.approx(nu)


# pingouin 0.7.0: pg.intraclass_corr(df, targets='item', raters='judge', ratings='score') on the data below
# -> ICC(A,k) 0.739194, ICC(C,k) 0.823040 (ICC(A,1) 0.414714, ICC(C,1) 0.537625)
def _icc_data():
    rng = np.random.default_rng(7)
    n, k = 20, 4
    y = rng.normal(size=(n, 1)) + 0.6 * rng.normal(size=(1, k)) + 0.8 * rng.normal(size=(n, k))
    return pd.DataFrame({"item": np.repeat(np.arange(n), k), "judge": np.tile([f"j{j}" for j in range(k)], n),
                         "score": y.ravel()})


def test_g_coefficients_equal_pingouin_icc():
    df = _icc_data()
    vc = variance_components(read(df.assign(model="m", task="t"), unbounded=True, facets=["judge"]), rng=0,
                             n_resamples=200)
    assert vc.g_relative[0, 0] == pytest.approx(0.823040, abs=1e-6)   # ICC(C,k)
    assert vc.g_absolute[0, 0] == pytest.approx(0.739194, abs=1e-6)   # ICC(A,k)
    pg = pytest.importorskip("pingouin")
    icc = pg.intraclass_corr(df, targets="item", raters="judge", ratings="score").set_index("Type")["ICC"]
    assert vc.g_relative[0, 0] == pytest.approx(icc["ICC(C,k)"])
    assert vc.g_absolute[0, 0] == pytest.approx(icc["ICC(A,k)"])


def test_cruxeval_trials_known_answer_and_trial_variance():
    t = read(FIXTURES / "cruxeval" / "sample_scored_codellama-7b_temp0.2_input.json")
    vc = variance_components(t, rng=0, n_resamples=500)
    assert vc.estimate[0, 0] == pytest.approx(0.3595, abs=5e-5)  # pass@1 = 35.95 stored in the file
    got = vc.components(t.models[0])
    assert list(got) == ["item", "trial"]
    from evalband.estimation import trial_variance

    td = t.task_data(t.tasks[0])
    tv = trial_variance(td.trial_scores[0])
    assert got["trial"] == pytest.approx(float(tv.var_within))
    assert got["item"] == pytest.approx(float(tv.var_between))
    # the item variance dominates: 10 samples per problem already make trials a small share
    f = vc.to_frame().set_index("component")
    assert f.loc["trial", "share"] < 0.1


def test_tau_bench_known_answer():
    t = read(FIXTURES / "tau_bench" / "gpt-4o-airline_rewards.csv", item_col="task_id", score_col="reward")
    vc = variance_components(t, rng=0, n_resamples=500)
    assert vc.estimate[0, 0] == pytest.approx(0.42)   # pass^1 = 0.420 (tau-bench README)
    se = vc.se_frame().iloc[0]
    assert se["se"] == pytest.approx(vc.se_random[0, 0])


def test_same_numbers_whatever_the_row_order(binary_design):
    df = binary_design(np.random.default_rng(0), 30, 4, n_trials=2, models=("a", "b"))
    one = variance_components(read(df), rng=5, n_resamples=500).to_frame()
    shuffled = df.sample(frac=1.0, random_state=1)
    two = variance_components(read(shuffled), rng=5, n_resamples=500, models=["a", "b"]).to_frame()
    pd.testing.assert_frame_equal(one, two)
    # models given in the other order: the same rows, model by model (streams are keyed by names)
    three = variance_components(read(df), rng=5, n_resamples=500, models=["b", "a"]).to_frame()
    pd.testing.assert_frame_equal(one, three.sort_values("model", kind="stable").reset_index(drop=True))


def test_unbalanced_design_uses_reml_and_says_so(binary_design):
    df = binary_design(np.random.default_rng(1), 25, 4, models=("a",))
    df = df.drop(index=df.index[::7])  # missing cells
    vc = variance_components(read(df), rng=0, n_resamples=300)
    assert vc.method == {"t": "reml"}
    assert any("missing cells" in n for n in vc.notes)
    assert any("REML" in n for n in vc.notes)
    with pytest.raises(ValueError, match="`method='anova'`"):
        variance_components(read(df), method="anova")


def test_argument_errors(binary_design):
    t = read(binary_design(np.random.default_rng(2), 10, 3))
    with pytest.raises(ValueError, match="`fixed`"):
        variance_components(t, fixed="judge")
    with pytest.raises(ValueError, match="`facets`"):
        variance_components(t, facets=["judge"])
    with pytest.raises(ValueError, match="`method`"):
        variance_components(t, method="mom")
    with pytest.raises(ValueError, match="`n_resamples`"):
        variance_components(t, n_resamples=5)


def test_repr_is_short(binary_design):
    vc = variance_components(read(binary_design(np.random.default_rng(3), 20, 3, models=("a", "b"))), rng=0,
                             n_resamples=200)
    text = repr(vc)
    assert text.startswith("VarianceComponents") and len(text) < 2000 and text.count("\n") < 12
    assert "<table" in vc._repr_html_()


@pytest.mark.slow
def test_interval_coverage_of_the_components(normal_design):
    """Normal items x prompts x trials with known components (item 1, prompt 0.49, item x prompt 0.25, trial
    0.36), judged with a binomial test: generalized pivotal intervals over 300 balanced datasets, approximate REML
    intervals over 120 datasets with 15% of the cells dropped. Measured (seeds 1000+): balanced item 0.953,
    prompt 0.937, item x prompt 0.943, trial 0.930; unbalanced REML item 0.967, prompt 0.975, item x prompt
    0.933, trial 0.967 (the Satterthwaite approximation is conservative for the small-sample components)."""
    from scipy.stats import binomtest

    truth = {"item": 1.0, "prompt": 0.49, "item x prompt": 0.25, "trial": 0.36}
    for drop, method, n_sim in ((0.0, "anova", 300), (0.15, "reml", 120)):
        frames = [normal_design(1000 + s, n_items=12, n_prompts=6, n_trials=3, drop=drop).assign(task=f"d{s}")
                  for s in range(n_sim)]
        table = read(pd.concat(frames, ignore_index=True).assign(model="m"), unbounded=True, facets=["prompt"])
        vc = variance_components(table, rng=0, n_resamples=1000, differences=False)
        assert set(vc.method.values()) == {method}
        f = vc.to_frame()
        for comp, v in truth.items():
            sel = f[f["component"] == comp]
            hits = int(((sel["ci_low"] <= v) & (v <= sel["ci_high"])).sum())
            print(method, comp, round(hits / n_sim, 3))
            if method == "anova":
                assert binomtest(hits, n_sim, 0.95).pvalue > 1e-3, (comp, hits)
            else:
                assert hits / n_sim >= 0.9, (comp, hits)


def test_clusters_as_a_factor_give_the_anova_icc():
    # balanced clusters: s2_cluster / (s2_cluster + s2_item within cluster) is the ANOVA intra-cluster correlation
    # that evalband.estimation.cluster_interval reports (an independent implementation)
    from evalband.estimation import cluster_interval

    rng = np.random.default_rng(8)
    g = np.repeat(np.arange(12), 15)
    y = (rng.random(g.size) < 1 / (1 + np.exp(-rng.normal(0, 1, 12)[g]))).astype(float)
    df = pd.DataFrame({"model": "m", "task": "t", "item": np.arange(g.size), "cluster": g, "score": y})
    vc = variance_components(read(df), cluster=True, rng=0, n_resamples=300)
    comps = vc.components("m")
    assert list(comps) == ["cluster", "item within cluster"]
    icc = comps["cluster"] / (comps["cluster"] + comps["item within cluster"])
    with pytest.warns(UserWarning, match="clusters"):  # 12 clusters: cluster_interval warns about its CR1 interval
        ref = float(cluster_interval(y[None], g).extras["icc"][0])
    assert icc == pytest.approx(ref, rel=1e-10)
    # the standard error of the mean is then the cluster-level one: var of cluster means / G
    cm = y.reshape(12, 15).mean(1)
    assert vc.se_random[0, 0] == pytest.approx(cm.std(ddof=1) / np.sqrt(12))
    with pytest.raises(ValueError, match="`cluster=True`"):
        variance_components(read(df.drop(columns="cluster")), cluster=True)
