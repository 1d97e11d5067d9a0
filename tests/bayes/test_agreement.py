"""Bootstrap / analytic / Bayesian side-by-side, and prior sensitivity, on constructed cases and VTAB."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from evalband import load_example
from evalband.bayes import beta_binomial, exponential, half_normal
from evalband.bayes.agreement import compare_with_bootstrap
from evalband.bayes.sensitivity import prior_sensitivity
from evalband.data.table import Counts

N = np.array([[200.0, 10_000.0, 20_000.0]] * 2)


def case(b_counts):
    """2 models x 3 tasks in the spirit of Longjohn et al.'s simulation: A = (100, 5000, 10000) of N."""
    return Counts(("A", "B"), ("t1", "t2", "t3"), np.array([[100.0, 5000.0, 10000.0], b_counts]), N)


@pytest.fixture(scope="module")
def issue_case():
    c = case([115.0, 5000.0, 10000.0])
    res = beta_binomial(c, rng=1)
    return c, res, compare_with_bootstrap(c, res, rng=1)


def test_issue_case_analytic_and_bootstrap_leave_it_open(issue_case):
    c, res, agr = issue_case
    p = agr.pairs.iloc[0]
    # analytic oracle by hand: unweighted mean of 3 tasks, independent binomials, z = 1.959964
    var_a = (0.25 / 200 + 0.25 / 10_000 + 0.25 / 20_000) / 9
    var_b = (0.575 * 0.425 / 200 + 0.25 / 10_000 + 0.25 / 20_000) / 9
    half = 1.959963984540054 * np.sqrt(var_a + var_b)
    assert p["observed"] == pytest.approx(-0.025)
    assert p["analytic_low"] == pytest.approx(-0.025 - half) and p["analytic_high"] == pytest.approx(-0.025 + half)
    assert p["boot_low"] == pytest.approx(-0.025 - half, abs=0.004)  # binomial bootstrap ~ normal here
    assert p["boot_high"] == pytest.approx(-0.025 + half, abs=0.004)
    assert p["analytic_verdict"] == p["boot_verdict"] == "not yet decided"


def test_issue_case_hierarchy_shrinks_the_small_task_and_stays_undecided(issue_case):
    # B's 115/200 sits beside 5000/10000 and 10000/20000: the hierarchy pulls its small task toward B's mean
    # (0.5), which removes the very difference the bootstrap sees; no prior in the default set decides it.
    c, res, agr = issue_case
    ts = res.task_summary().set_index(["model", "task"])
    assert ts.loc[("B", "t1"), "posterior_mean"] < 0.51  # observed 0.575
    assert agr.pairs.loc[0, "bayes_verdict"] == "not yet decided" and not agr.pairs.loc[0, "disagree"]
    sens = prior_sensitivity(c, n_draws=4000, rng=2)
    assert (sens.pairs_frame()["verdict"] == "not yet decided").all()
    # credible intervals are far narrower than the bootstrap's; the predictive intervals are about as wide
    m = agr.models
    assert (m["width_ratio"] < 0.5).all()
    pred_ratio = (m["pred_high"] - m["pred_low"]) / (m["boot_high"] - m["boot_low"])
    assert ((pred_ratio > 0.8) & (pred_ratio < 1.3)).all()


def test_informative_prior_decides_what_the_bootstrap_leaves_open():
    # B also slightly ahead on the large tasks (0.51 vs 0.50): shrinkage of the noisy 200-item task toward each
    # model's mean makes the hierarchical difference precise under the seed's Exponential(1e-4) prior, whose
    # prior mean of alpha + beta (20,000) is informative about how alike a model's tasks are
    c = case([112.0, 5100.0, 10200.0])
    res = beta_binomial(c, rng=3)
    agr = compare_with_bootstrap(c, res, rng=3)
    p = agr.pairs.iloc[0]
    assert p["boot_verdict"] == p["analytic_verdict"] == "not yet decided"
    assert p["bayes_verdict"] == "B better" and p["disagree"]
    assert agr.disagreements == 1 and any("differs from the bootstrap" in n for n in agr.notes)
    # ... and the sensitivity report says the verdict rests on that prior
    sens = prior_sensitivity(c, priors=[exponential(1e-4), exponential(1e-2), half_normal(100)], n_draws=4000,
                             rng=4)
    f = sens.pairs_frame().set_index("prior")
    assert f.loc["exponential(rate=0.0001)", "verdict"] == "B better"
    assert (f.loc[["exponential(rate=0.01)", "half-normal(scale=100)"], "verdict"] == "not yet decided").all()
    assert f["verdict_changed"].sum() == 2 and sens.verdict_changes == 1


def test_sensitivity_output_moves_when_priors_change():
    c = case([112.0, 5100.0, 10200.0])
    sens = prior_sensitivity(c, n_draws=2000, rng=5)
    mf = sens.models_frame()
    base = mf[mf["prior"] == sens.priors[0]]
    assert (base["mean_shift"] == 0).all() and np.allclose(base["width_ratio"], 1)
    other = mf[mf["prior"] != sens.priors[0]]
    assert (other["width_ratio"] > 1.5).all()  # weaker pooling: wider intervals
    assert (other.loc[other["model"] == "B", "mean_shift"] > 0.005).all()  # B's small task shrinks less
    same = prior_sensitivity(c, priors=["exponential:1e-4", "exponential:0.0001"], n_draws=2000, rng=5)
    assert np.allclose(same.models_frame()["mean_shift"], 0) and same.verdict_changes == 0  # common random numbers


def test_vtab_bayes_and_bootstrap_agree():
    # the seed (section 4.3) and Longjohn et al.: on VTAB the hierarchical intervals are very close to the
    # bootstrap's (every task has thousands of items)
    t = load_example("vtab")
    res = beta_binomial(t, n_draws=4000, rng=6)
    agr = compare_with_bootstrap(t, res, n_resamples=2000, rng=6)
    assert agr.disagreements == 0
    assert agr.models["width_ratio"].between(0.85, 1.15).all()


def test_given_replicates_are_used_and_checked():
    c = case([115.0, 5000.0, 10000.0])
    res = beta_binomial(c, n_draws=500, rng=7)
    rng = np.random.default_rng(8)
    reps = SimpleNamespace(replicates=rng.binomial(N.astype(int), c.correct / c.n, size=(1000, 2, 3)) / N,
                           resampling="binomial")
    agr = compare_with_bootstrap(c, res, replicates=reps)
    assert agr.pairs.loc[0, "boot_verdict"] == "not yet decided"
    with pytest.raises(ValueError, match="`replicates` must be shaped"):
        compare_with_bootstrap(c, res, replicates=SimpleNamespace(replicates=np.zeros((10, 3, 3))))
