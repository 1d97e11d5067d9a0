"""REML variance components against statsmodels MixedLM (one group, crossed terms by vc_formula)."""

import numpy as np
import pytest

from evalband.facets import reml_components, variance_components
from evalband.io import read

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
