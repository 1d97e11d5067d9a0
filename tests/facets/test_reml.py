"""REML variance components against lme4 and statsmodels MixedLM, and the observed information against the dense
restricted likelihood."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalband.facets import facet_design, reml_components, variance_components
from evalband.facets.component_fits import _compact, _entity_cells
from evalband.io import read

R1 = Path(__file__).resolve().parents[1] / "fixtures" / "facets" / "reml_r1.csv"

# R 4.2.2, lme4 1.1.31: `Rscript tests/facets/reml_lme4.R tests/fixtures/facets/reml_r1.csv` (its output):
# lmer(score ~ 1 + (1|item) + (1|prompt) + (1|seed) + (1|item:prompt) + (1|item:seed) + (1|prompt:seed),
# REML = TRUE) on each model and on the difference m0 - m1 over the cells both have, bobyqa to rhoend 1e-12
LME4 = {
    "m0": {  # REML criterion 1258.7028224385
        "item x prompt": 1.5295146913048292e-02,
        "item x seed": 5.9229847257064082e-03,
        "item": 3.7069437772064624e-02,
        "prompt x seed": 0.0000000000000000e+00,
        "prompt": 2.3200928825421793e-03,
        "seed": 3.3049595360850587e-05,
        "item x prompt x seed, residual": 1.9042718858249225e-01,
    },
    "m1": {  # REML criterion 1205.69748289074
        "item x prompt": 0.0230108046807499904,
        "item x seed": 0.0120769566815639353,
        "item": 0.0424560287102954681,
        "prompt x seed": 0.0000000000000000000,
        "prompt": 0.0047737504031490881,
        "seed": 0.0000000000000000000,
        "item x prompt x seed, residual": 0.1682226038770255616,
    },
    "m0 - m1": {  # REML criterion 1444.30224118087
        "item x prompt": 2.2643342135364259e-15,
        "item x seed": 1.1401730415842979e-15,
        "item": 0.0000000000000000e+00,
        "prompt x seed": 0.0000000000000000e+00,
        "prompt": 0.0000000000000000e+00,
        "seed": 1.3935278071489582e-03,
        "item x prompt x seed, residual": 3.6147532098177820e-01,
    },
}

# statsmodels 0.15: df = crossed_normal(seed, drop=drop).assign(g=1)
# md = sm.MixedLM.from_formula('score ~ 1', groups='g', re_formula='0', data=df,
#          vc_formula={'item': '0+C(item)', 'prompt': '0+C(prompt)', 'ip': '0+C(item):C(prompt)'})
# md.fit(reml=True, method=['lbfgs'])  -> vcomp (item, prompt, ip), scale:
STATSMODELS = {
    (1, 0.0): {"item": 0.4317229202358609, "prompt": 0.06954063326081537, "item x prompt": 0.10342575718791981,
               "trial": 0.38755163055102576},   # balanced: 144 rows
    (2, 0.15): {"item": 1.6404677868560666, "prompt": 0.030376741644931284, "item x prompt": 0.2611906886158554,
                "trial": 0.3219958619379673},   # unbalanced: 86 rows, missing cells, 1-3 trials
}


def _table(df):
    return read(df.assign(model="m", task="t"), unbounded=True, facets=["prompt"])


@pytest.mark.parametrize("key", list(STATSMODELS))
def test_reml_matches_statsmodels(normal_design, key):
    seed, drop = key
    vc = variance_components(_table(normal_design(seed, drop=drop)), method="reml", rng=0, n_resamples=200)
    got = vc.components("m")
    for name, ref in STATSMODELS[key].items():
        assert got[name] == pytest.approx(ref, rel=2e-3), name


def test_reml_live_statsmodels(normal_design):
    sm = pytest.importorskip("statsmodels.api")
    import warnings

    df = normal_design(2, drop=0.15).assign(g=1)
    md = sm.MixedLM.from_formula("score ~ 1", groups="g", re_formula="0", data=df,
                                 vc_formula={"item": "0+C(item)", "prompt": "0+C(prompt)",
                                             "ip": "0+C(item):C(prompt)"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = md.fit(reml=True, method=["lbfgs"])
    ref = dict(zip(md.exog_vc.names, r.vcomp))
    got = variance_components(_table(df.drop(columns="g")), method="reml", rng=0, n_resamples=200).components("m")
    assert got["item x prompt"] == pytest.approx(ref["ip"], rel=2e-3)
    assert got["trial"] == pytest.approx(r.scale, rel=2e-3)


def test_reml_equals_anova_on_a_balanced_design(normal_design):
    t = _table(normal_design(1))
    a = variance_components(t, method="anova", rng=0, n_resamples=200).components("m")
    r = variance_components(t, method="reml", rng=0, n_resamples=200).components("m")
    for k in a:
        assert r[k] == pytest.approx(a[k], rel=1e-4)


def test_boundary_estimate_is_zero():
    # no prompt effect at all: REML puts it on the boundary, exactly 0
    rng = np.random.default_rng(5)
    item, prompt = np.repeat(np.arange(40), 3), np.tile(np.arange(3), 40)
    y = rng.normal(size=40)[item] + 0.0 * prompt + rng.normal(size=120) * 0.5
    fit = reml_components(y, [item, prompt], inv_n=np.ones((1, 120)), within_ss=[0.0], within_df=[0], top=False)
    if fit.variance[1] > 0:  # the sample prompt means may spread a little more than noise: then positive but small
        assert fit.variance[1] < 0.02
    else:
        assert fit.boundary[1]
    assert fit.converged


def test_reml_input_errors():
    with pytest.raises(ValueError, match="`inv_n`"):
        reml_components(np.zeros(4), [], inv_n=np.ones((1, 3)), within_ss=[0.0], within_df=[0], top=False)
    with pytest.raises(ValueError, match="`top=True`"):
        reml_components(np.zeros(4), [], inv_n=np.ones((1, 4)), within_ss=[0.0], within_df=[0], top=True)


def _r1(models=("m0", "m1")):
    df = pd.read_csv(R1)
    return read(df[df["model"].isin(models)], facets=["prompt", "seed"])


def test_reml_matches_lme4_on_an_unbalanced_three_facet_design():
    # 60 items x 6 prompts x 3 seeds, 15% of each model's cells missing, one 0/1 score per cell: each model and
    # the pair's difference, boundary estimates (exactly 0 here, ~1e-18 in lme4) included
    vc = variance_components(_r1(), facets=("prompt", "seed"), method="reml", n_resamples=200, rng=0)
    assert set(vc.method.values()) == {"reml"}
    got = {m: vc.components(m) for m in ("m0", "m1")}
    pairs = vc.difference_frame()
    got["m0 - m1"] = dict(zip(pairs["component"], pairs["variance"]))
    for entity, ref in LME4.items():
        for name, value in ref.items():
            assert got[entity][name] == pytest.approx(value, rel=1e-4, abs=1e-12), (entity, name)
    assert not any("did not confirm" in n for n in vc.notes)


def test_one_model_alone_is_the_same_fit():
    kw = {"facets": ("prompt", "seed"), "method": "reml", "n_resamples": 200, "rng": 0}
    both = variance_components(_r1(), **kw)
    alone = variance_components(_r1(("m0",)), differences=False, **kw)
    a, b = both.to_frame(), alone.to_frame()
    b = b[b["model"] == "m0"]
    np.testing.assert_allclose(b["variance"].to_numpy(), a[a["model"] == "m0"]["variance"].to_numpy(), rtol=1e-9,
                               atol=1e-14)
    assert alone.se_random[0, 0] == pytest.approx(both.se_random[0, 0], rel=1e-8)


def _dense_criterion(y, codes, inv_n, ss, df, top):
    """-2 log restricted likelihood of the cell means at absolute variances v (terms, cell term, sources)."""
    zs = [np.eye(k.max() + 1)[k] for k in codes]
    n_t = len(zs)
    one = np.ones(y.size)

    def f(v):
        cov = sum(vt * z @ z.T for vt, z in zip(v[:n_t], zs)) + np.diag(
            (v[n_t] if top else 0.0) + v[n_t + top:] @ inv_n)
        vi = np.linalg.inv(cov)
        p = vi - np.outer(vi @ one, one @ vi) / (one @ vi @ one)
        src = v[n_t + top:]
        within = sum(d * np.log(s) + q / s for d, q, s in zip(df, ss, src) if d > 0)
        return np.linalg.slogdet(cov)[1] + np.log(one @ vi @ one) + y @ p @ y + within
    return f


@pytest.mark.parametrize("pair", [False, True])
def test_observed_information_is_the_dense_hessian(normal_design, pair):
    # the covariance of the estimates: twice the inverse Hessian of the criterion, here of the dense formula by
    # central differences; a pair has two residual sources (each model's trial noise) and a cell term
    frames = [normal_design(s, drop=0.15).assign(model=m) for s, m in ((2, "a"), (3, "b"))]
    table = read(pd.concat(frames).assign(task="t"), unbounded=True, facets=["prompt"])
    d = facet_design(table, facets=["prompt"]).designs[0]
    cells, _, y, inv_n, w_ss, w_df = _entity_cells(d, (0, 1) if pair else (0,))
    codes = [_compact(d.term_levels(t)[cells]) for t in d.terms[:-1]]
    fit = reml_components(y, codes, inv_n=inv_n, within_ss=w_ss, within_df=w_df, top=True)
    assert fit.converged and not fit.boundary.any()
    f = _dense_criterion(y, codes, inv_n, w_ss, w_df, True)
    v, n = fit.variance, fit.variance.size
    h = 1e-3 * v
    hess = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h[i], np.eye(n)[j] * h[j]
            hess[i, j] = (f(v + ei + ej) - f(v + ei - ej) - f(v - ei + ej) + f(v - ei - ej)) / (4 * h[i] * h[j])
    np.testing.assert_allclose(fit.cov, 2 * np.linalg.inv(hess), rtol=1e-4)
    # and the estimates are its optimum: the dense gradient vanishes
    grad = np.array([(f(v + e) - f(v - e)) / (2 * e.sum()) for e in np.eye(n) * 1e-5 * v])
    assert np.abs(grad * v).max() < 1e-6


def test_the_sparse_layout_gives_the_same_fit(normal_design):
    # the fallback for designs without a small global part: finite-difference gradients, same optimum
    df = normal_design(2, drop=0.15)
    t = read(df.assign(model="m", task="t"), unbounded=True, facets=["prompt"])
    d = facet_design(t, facets=["prompt"]).designs[0]
    cells, _, y, inv_n, w_ss, w_df = _entity_cells(d, (0,))
    codes = [_compact(d.term_levels(t)[cells]) for t in d.terms[:-1]]
    kw = {"inv_n": inv_n, "within_ss": w_ss, "within_df": w_df, "top": True}
    block, sparse = (reml_components(y, codes, layout=lay, **kw) for lay in ("block", "sparse"))
    np.testing.assert_allclose(sparse.variance, block.variance, rtol=1e-5)
    np.testing.assert_allclose(sparse.cov, block.cov, rtol=1e-3)
    assert sparse.neg2_loglik == pytest.approx(block.neg2_loglik, abs=1e-8)
    with pytest.raises(ValueError, match="`layout`"):
        reml_components(y, codes, layout="dense", **kw)


def test_degenerate_designs_give_zeros_not_errors():
    item, prompt = np.repeat(np.arange(10), 3), np.tile(np.arange(3), 10)
    kw = {"inv_n": np.ones((1, 30)), "within_ss": [0.0], "within_df": [0], "top": False}
    # a model with the same score everywhere (all items solved): every component is 0
    fit = reml_components(np.ones(30), [item, prompt], **kw)
    assert (fit.variance == 0).all() and fit.converged and fit.mean == 1.0
    # a term with one level is absorbed by the intercept: its variance is not identified and stays at 0
    rng = np.random.default_rng(0)
    y = rng.normal(size=10)[item] + rng.normal(size=30)
    fit = reml_components(y, [item, np.zeros(30, dtype=int)], **kw)
    assert fit.variance[1] == 0 and fit.boundary[1] and fit.converged
    # no random term at all: the residual alone (the sample variance)
    fit = reml_components(y, [], **kw)
    assert fit.variance[0] == pytest.approx(y.var(ddof=1), rel=1e-8)
