"""PPI on a results table: the contract against ppi_py, paired differences with verdicts, clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalband as eb
from evalband._validate import InputError
from evalband.comparison import adjust_p_values
from evalband.judges import ppi_compare, ppi_estimate, ppi_mean


def judged_table(seed=16):
    """Two models x 400 items of one task; the judge's score for every item, a human label for 80 of them."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, p in (("alpha", 0.72), ("beta", 0.64)):
        y = (rng.uniform(size=400) < p).astype(float)
        f = np.clip(0.3 + 0.3 * y + rng.normal(0, 0.3, 400), 0, 1)
        lab = np.zeros(400, bool)
        lab[rng.choice(400, 80, replace=False)] = True
        for i in range(400):
            rows.append({"model": model, "task": "qa", "item": f"q{i:03d}", "score": f[i],
                         "human": y[i] if lab[i] else np.nan})
    return pd.DataFrame(rows)


# ppi_py 0.2.3, per model m of judged_table(): Y = human on labelled rows, Yhat = score there,
# Yhat_unlabeled = score on the other rows;
#   ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lam=L), ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05, lam=L)
PPI_PY = {
    ("alpha", "ppi++"): (0.6960986050395066, 0.6045813182100817, 0.7876158918689316),
    ("alpha", "classic"): (0.709387849728872, 0.6165004350577773, 0.8022752643999668),
    ("beta", "ppi++"): (0.6425289359870543, 0.5411573246935866, 0.743900547280522),
    ("beta", "classic"): (0.5953268079026062, 0.4839469218026222, 0.7067066940025901),
}


@pytest.mark.parametrize("method", ["ppi++", "classic"])
def test_contract_estimate_equals_ppi_py(tmp_path, method):
    """The CLI contract: estimate, ci_low, ci_high equal ppi_mean_ci(..., alpha=0.05) (PPI++: lam=None; classic:
    lam=1) to 1e-6, with n_labelled, n_unlabelled and lambda in the records."""
    path = tmp_path / "judged.csv"
    judged_table().to_csv(path, index=False)
    frame = ppi_estimate(eb.read(path), method=method).to_frame()
    assert {"estimate", "ci_low", "ci_high", "n_labelled", "n_unlabelled", "lambda", "ess"} <= set(frame.columns)
    for _, row in frame.iterrows():
        estimate, low, high = PPI_PY[(row["model"], method)]
        # issue 22: the estimate and ppi_py's standard error as ppi_py gives them; the interval is the small-sample
        # t interval estimate -/+ t_df se (df = 80 - 1 labelled items), ppi_py's is -/+ z se_asymptotic
        assert row["estimate"] == pytest.approx(estimate, abs=1e-6)
        assert row["se_asymptotic"] == pytest.approx((high - low) / (2 * stats.norm.ppf(0.975)), abs=1e-6)
        assert row["df"] == 79
        t = stats.t.ppf(0.975, row["df"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((estimate - t * row["se"], estimate + t * row["se"]),
                                                                abs=1e-6)
        assert row["se_asymptotic"] < row["se"] <= row["se_asymptotic"] * np.sqrt(80 / 79) * (1 + 1e-12)
        assert (row["n_labelled"], row["n_unlabelled"]) == (80, 320)
        assert 0.0 <= row["lambda"] <= 1.0
    if method == "classic":
        assert (frame["lambda"] == 1.0).all()
    records = frame.to_dict(orient="records")  # JSON-ready: plain fractions, full precision
    assert records[0]["estimate"] == frame["estimate"].iloc[0]


def test_live_ppi_py_on_the_table():
    ppi = pytest.importorskip("ppi_py")
    data = judged_table(seed=99)
    est = ppi_estimate(data).to_frame().set_index("model")
    for model, sub in data.groupby("model"):
        lab = sub["human"].notna().to_numpy()
        y, f = sub["human"].to_numpy()[lab], sub["score"].to_numpy()
        low, high = ppi.ppi_mean_ci(y, f[lab], f[~lab], alpha=0.05)
        assert est.loc[model, "estimate"] == pytest.approx(float(ppi.ppi_mean_pointestimate(y, f[lab], f[~lab])[0]),
                                                           abs=1e-8)
        se = (high[0] - low[0]) / (2 * stats.norm.ppf(0.975))
        assert est.loc[model, "se_asymptotic"] == pytest.approx(se, abs=1e-8)
        t = stats.t.ppf(0.975, lab.sum() - 1)  # Student's t on the labelled items minus one
        e, s_ = est.loc[model, "estimate"], est.loc[model, "se"]
        assert (est.loc[model, "ci_low"], est.loc[model, "ci_high"]) == pytest.approx((e - t * s_, e + t * s_),
                                                                                      abs=1e-8)


def test_compare_differences_verdicts_and_holm():
    data = judged_table()
    est = ppi_estimate(data)
    cmp = ppi_compare(data, estimates=est, correction="holm")
    frame = cmp.to_frame()
    assert list(frame["model_a"]) == ["alpha"] and list(frame["model_b"]) == ["beta"]
    d = est.estimate[0, 0] - est.estimate[1, 0]
    assert frame["difference"].iloc[0] == pytest.approx(d)
    assert frame["verdict"].iloc[0] in ("A better", "B better", "equivalent", "not yet decided")
    assert frame["p_adjusted"].iloc[0] == pytest.approx(float(adjust_p_values(frame["p_value"], method="holm")[0]))
    # the paired se is the root sum of squared differences of the influence terms (theory, see test_ppi), and is
    # below the unpaired one when the two models' errors are positively correlated
    res = est._per_task[0][0]
    infl = res.influence
    se = np.sqrt((np.fmax(res.factor[0], res.factor[1]) * (infl[0] - infl[1]) ** 2).sum())
    assert frame["se"].iloc[0] == pytest.approx(se)
    assert {"lambda_a", "n_labelled_a", "reading", "verdict_basis"} <= set(frame.columns)
    assert cmp.readings()[0].startswith("qa: alpha vs beta:")


def test_clear_difference_decided_and_multiplicity_widens():
    rng = np.random.default_rng(5)
    rows = []
    for model, p in (("strong", 0.9), ("mid", 0.6), ("weak", 0.3)):
        y = (rng.uniform(size=600) < p).astype(float)
        f = np.clip(0.2 + 0.6 * y + rng.normal(0, 0.1, 600), 0, 1)
        for i in range(600):
            rows.append({"model": model, "task": "t", "item": i, "score": f[i], "human": y[i] if i < 150 else np.nan})
    table = eb.read(pd.DataFrame(rows))
    none = ppi_compare(table).to_frame()
    holm = ppi_compare(table, correction="bonferroni").to_frame()
    assert (none["verdict"] == "A better").all()
    assert (holm["ci_high"] - holm["ci_low"] > none["ci_high"] - none["ci_low"]).all()
    assert holm["interval_level"].iloc[0] == pytest.approx(1 - 0.05 / 3)
    with pytest.raises(ValueError, match="`correction`"):
        ppi_compare(table, correction="max-t")


def test_few_labels_withhold_the_verdict():
    data = judged_table()
    labelled = data.index[data["human"].notna()]
    keep = data.loc[labelled].groupby("model").head(6).index  # six human labels per model
    data.loc[labelled.difference(keep), "human"] = np.nan
    cmp = ppi_compare(data).to_frame()
    assert (cmp["n_labelled_a"].iloc[0], cmp["n_labelled_b"].iloc[0]) == (6, 6)
    assert cmp["verdict"].iloc[0] == "not yet decided"
    assert cmp["verdict_basis"].iloc[0] == "too few units"
    assert "too few" in cmp["reading"].iloc[0]


def test_clusters_are_used_when_present():
    data = judged_table()
    data["cluster"] = data["item"].str[:3]  # 40 clusters of 10 items
    est = ppi_estimate(data)
    flat = ppi_estimate(data, cluster=False)
    assert np.all(est.n_clusters == 40)
    assert np.isnan(flat.n_clusters).all()
    assert not np.allclose(est.se, flat.se)
    # the array core with the same clusters gives the same numbers
    sub = data[data["model"] == "alpha"]
    core = ppi_mean(sub["score"].to_numpy(), sub["human"].to_numpy(),
                    clusters=pd.factorize(sub["cluster"])[0])
    assert est.estimate[0, 0] == pytest.approx(float(core.estimate))
    assert est.se[0, 0] == pytest.approx(float(core.se))


def test_needs_human_labels_and_item_level():
    data = judged_table().drop(columns="human")
    with pytest.raises(InputError, match="no human labels"):
        ppi_estimate(data)
    renamed = judged_table().rename(columns={"human": "gold"})
    est = ppi_estimate(eb.read(renamed, human_col="gold"))
    assert est.n_labelled.sum() == 160
    assert "PPIEstimates(ppi++" in repr(est) and len(repr(est)) < 2000
    with pytest.raises(ValueError, match="`method`"):
        ppi_estimate(judged_table(), method="ppi")


def test_lambda_near_zero_note():
    rng = np.random.default_rng(1)
    rows = []
    y = (rng.uniform(size=500) < 0.5).astype(float)
    f = rng.uniform(size=500)  # the judge knows nothing
    for i in range(500):
        rows.append({"model": "m", "task": "t", "item": i, "score": f[i], "human": y[i] if i < 200 else np.nan})
    est = ppi_estimate(pd.DataFrame(rows))
    assert est.lam[0, 0] < 0.1
    assert any("lambda near 0" in n for n in est.notes)
    assert est.gain[0, 0] == pytest.approx(1.0, abs=0.05)
