"""Release gate: the paired interval against scipy/statsmodels, the three decisions and the pairing."""


import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalband._validate import InputError
from evalband.io import read
from evalband.plan import EXIT_CODES, paired_runs, release_gate, solve_power


def run(scores, model="m", clusters=None, items=None):
    scores = np.asarray(scores, dtype=float)
    df = pd.DataFrame({"model": model, "task": "t",
                       "item": np.arange(scores.size) if items is None else items, "score": scores})
    if clusters is not None:
        df["cluster"] = clusters
    return read(df)


def runs(rng, n, p_base, p_cand, agree=0.8):
    b = (rng.random(n) < p_base).astype(float)
    flip = rng.random(n) > agree
    c = np.where(flip, (rng.random(n) < p_cand).astype(float), b)
    return b, c


def test_t_interval_matches_scipy_ttest_rel(rng):
    b, c = runs(rng, 500, 0.7, 0.7)
    res = release_gate(run(b, "base"), run(c, "cand"), margin=0.02)
    ref = stats.ttest_rel(c, b).confidence_interval(0.95)
    assert res.ci.low == pytest.approx(ref.low, rel=1e-10) and res.ci.high == pytest.approx(ref.high, rel=1e-10)
    assert res.difference == pytest.approx(np.mean(c - b))
    assert res.n == 500 and res.models == ("base", "cand")


def test_cluster_robust_se_matches_statsmodels(rng):
    sm = pytest.importorskip("statsmodels.api")
    b, c = runs(rng, 600, 0.6, 0.62)
    cl = np.repeat(np.arange(60), 10)
    res = release_gate(run(b, clusters=cl), run(c, clusters=cl), margin=0.02)
    d = c - b
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": cl})
    assert res.se_difference == pytest.approx(float(fit.bse[0]), rel=1e-8)
    assert res.n_clusters == 60
    crit = stats.t.isf(0.025, 59)
    assert res.ci.low == pytest.approx(d.mean() - crit * fit.bse[0], rel=1e-8)


def test_three_decisions_and_exit_codes(rng):
    b = (rng.random(4000) < 0.7).astype(float)
    same = b.copy()
    same[rng.choice(4000, 40, replace=False)] = 1 - same[rng.choice(4000, 40, replace=False)]
    ok = release_gate(run(b), run(same), margin=0.02)
    assert ok.decision == "pass" and ok.exit_code == 0 == EXIT_CODES["pass"]
    assert ok.message.startswith("PASS") and "\n" not in ok.message
    worse = np.where(rng.random(4000) < 0.15, 0.0, b)  # drops about 10 points
    bad = release_gate(run(b), run(worse), margin=0.02)
    assert bad.decision == "fail" and bad.exit_code == 1 and bad.ci.high < -0.02
    b2, c2 = runs(rng, 200, 0.7, 0.68)
    unsure = release_gate(run(b2), run(c2), margin=0.01)
    assert unsure.decision == "undecided" and unsure.exit_code == 3
    assert unsure.ci.low <= -0.01 <= unsure.ci.high
    assert "more paired items" in unsure.message


def test_more_items_come_from_the_power_calculation(rng):
    b, c = runs(rng, 300, 0.7, 0.69)
    res = release_gate(run(b), run(c), margin=0.03)
    assert res.decision == "undecided"
    d = c - b
    need = res.n + res.more_items
    kw = dict(effect=abs(d.mean() + 0.03), variance=d.var(ddof=1), confidence_level=0.975, alternative="greater")
    assert solve_power(n=need, **kw) >= 0.8 > solve_power(n=need - 1, **kw)


def test_betting_method_is_wider_and_consistent(rng):
    b, c = runs(rng, 1500, 0.7, 0.7)
    t = release_gate(run(b), run(c), margin=0.03)
    bet = release_gate(run(b), run(c), margin=0.03, method="betting")
    assert bet.ci.low < t.ci.low and bet.ci.high > t.ci.high
    assert bet.method == "betting" and "anytime-valid" in bet.message


def test_pairing_counts_what_it_leaves_out(rng):
    b = run(np.ones(10), "base", items=np.arange(10))
    c = run(np.ones(8), "cand", items=np.arange(2, 10))
    frame, names, left = paired_runs(b, c)
    assert len(frame) == 8 and left == {"baseline_only": 2, "candidate_only": 0}
    res = release_gate(b, c)
    assert any("2 only in the baseline" in note for note in res.notes)


def test_model_choice_and_errors(rng):
    two = read(pd.DataFrame({"model": ["x"] * 5 + ["y"] * 5, "task": "t", "item": list(range(5)) * 2,
                             "score": [1, 0, 1, 1, 0, 1, 1, 1, 1, 0]}))
    with pytest.raises(InputError, match="choose one with --model"):
        release_gate(two, two)
    res = release_gate(two, two, models=("x", "y"))
    assert res.models == ("x", "y") and res.n == 5
    with pytest.raises(InputError, match="share no"):
        release_gate(run([1, 0, 1], items=[0, 1, 2]), run([1, 0, 1], items=[5, 6, 7]))
    with pytest.raises(ValueError, match="`margin`"):
        release_gate(two, two, models="x", margin=5)
    with pytest.raises(ValueError, match="`method`"):
        release_gate(two, two, models="x", method="z")


def test_identical_runs_pass_with_a_positive_margin():
    # 600 identical items: the exact (Clopper-Pearson) bound on the share of items that could differ,
    # 1 - 0.025**(1/600) = 0.0061 (scipy.stats.binomtest(0, 600).proportion_ci(0.95).high), gives +-0.61 points
    b = run(np.tile([1, 0, 1, 1, 0, 1], 100))
    res = release_gate(b, b, margin=0.01)
    share = 1 - 0.025 ** (1 / 600)
    # issue 22: no standard error of 0 is shown; it is the one the exact interval implies, (high - low) / (2 z)
    assert res.decision == "pass" and res.se_difference == pytest.approx(share / 1.959963984540054)
    assert res.ci.low == pytest.approx(-share) and res.ci.high == pytest.approx(share)
    # 6 identical items decide nothing (QA O31): fewer than 10 paired items never decide
    small = run([1, 0, 1, 1, 0, 1])
    assert release_gate(small, small, margin=0.01).decision == "undecided"
