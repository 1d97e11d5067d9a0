"""Crossed replicates: exact bootstrap variances (theory), invariances, and coverage of a crossed population."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from evalband.facets import crossed_bootstrap, multiplier_replicates, variance_components
from evalband.io import read
from evalband.resample import Replicates, interval


def _effects(y):
    g = y.mean()
    a = y.mean(1) - g
    b = y.mean(0) - g
    c = y - g - a[:, None] - b[None, :]
    return a, b, c


def test_pigeonhole_variance_is_owens_formula(binary_design):
    # theory (Owen 2007): Var*(mean) = sum a^2 / I^2 + sum b^2 / P^2 + sum c^2 / (I P)^2 for the two-way effects
    df = binary_design(np.random.default_rng(0), 40, 6)
    y = df.pivot(index="item", columns="prompt", values="score").to_numpy()
    a, b, c = _effects(y)
    n_i, n_p = y.shape
    exact = (a ** 2).sum() / n_i ** 2 + (b ** 2).sum() / n_p ** 2 + (c ** 2).sum() / (n_i * n_p) ** 2
    reps = crossed_bootstrap(read(df), method="pigeonhole", n_resamples=40_000, rng=1)
    assert isinstance(reps, Replicates) and reps.replicates.shape == (40_000, 1, 1)
    assert reps.observed[0, 0] == pytest.approx(y.mean())
    var = reps.replicates[:, 0, 0].var()
    assert var == pytest.approx(exact, rel=0.03)  # Monte Carlo error of a variance from 40,000 draws: ~0.7%


def test_wild_variance_without_and_with_small_sample_correction(binary_design):
    df = binary_design(np.random.default_rng(1), 40, 6)
    y = df.pivot(index="item", columns="prompt", values="score").to_numpy()
    a, b, _ = _effects(y)
    n_i, n_p = y.shape
    plain = crossed_bootstrap(read(df), small_sample=False, n_resamples=40_000, rng=2).replicates[:, 0, 0].var()
    assert plain == pytest.approx((a ** 2).sum() / n_i ** 2 + (b ** 2).sum() / n_p ** 2, rel=0.03)
    # CR2 factors n/(n-1) and t scale mixtures nu/(nu-2) on nu = n - 1
    corrected = crossed_bootstrap(read(df), n_resamples=100_000, rng=3).replicates[:, 0, 0].var()
    expect = ((a ** 2).sum() / (n_i * (n_i - 1)) * (n_i - 1) / (n_i - 3)
              + (b ** 2).sum() / (n_p * (n_p - 1)) * (n_p - 1) / (n_p - 3))
    assert corrected == pytest.approx(expect, rel=0.05)


def test_fixed_facet_resamples_items_only(binary_design):
    df = binary_design(np.random.default_rng(2), 30, 5)
    y = df.pivot(index="item", columns="prompt", values="score").to_numpy()
    a, _, _ = _effects(y)
    reps = crossed_bootstrap(read(df), fixed="prompt", small_sample=False, n_resamples=40_000, rng=0)
    assert reps.replicates[:, 0, 0].var() == pytest.approx((a ** 2).sum() / 30 ** 2, rel=0.03)
    assert any("fixed: prompt" in n for n in reps.notes)


def test_paired_and_keyed_by_names(binary_design):
    rng = np.random.default_rng(3)
    df = pd.concat([binary_design(rng, 25, 4, models=("a", "b", "c"), task=t) for t in ("t1", "t2")])
    one = crossed_bootstrap(read(df), n_resamples=3000, rng=7)
    assert one.replicates.shape == (3000, 3, 2) and one.resampling == "paired"
    # same seed, same numbers whatever the row order; models permuted -> results permuted
    two = crossed_bootstrap(read(df.sample(frac=1.0, random_state=0)), n_resamples=3000, rng=7,
                            models=["c", "a", "b"], tasks=["t2", "t1"])
    np.testing.assert_allclose(two.replicates, one.replicates[:, [2, 0, 1]][:, :, [1, 0]])
    # paired: the replicate difference is far less variable than either model's mean (shared item effects)
    d = one.replicates[:, 0, 0] - one.replicates[:, 1, 0]
    assert d.var() < 0.5 * one.replicates[:, 0, 0].var()


def test_multiplier_replicates_give_the_t_interval():
    # one family of G = 6 equal clusters: the percentile interval is mean -/+ t(5) * CR2 se (theory)
    from scipy.stats import t as t_dist

    infl = np.array([[0.03, -0.02, 0.01, -0.04, 0.05, -0.03]])
    infl = infl - infl.mean()
    reps = multiplier_replicates([0.5], [(infl, np.full(6, 1 / 6))], gen=np.random.default_rng(0),
                                 n_resamples=400_000)
    se = np.sqrt((infl ** 2).sum() * 6 / 5)
    lo, hi = np.quantile(reps[:, 0], [0.025, 0.975])
    assert hi - 0.5 == pytest.approx(t_dist.ppf(0.975, 5) * se, rel=0.01)
    assert 0.5 - lo == pytest.approx(t_dist.ppf(0.975, 5) * se, rel=0.01)


def test_argument_errors(binary_design):
    t = read(binary_design(np.random.default_rng(4), 10, 3))
    with pytest.raises(ValueError, match="`method`"):
        crossed_bootstrap(t, method="owen")
    with pytest.raises(ValueError, match="`fixed`"):
        crossed_bootstrap(t, fixed="judge")
    with pytest.raises(ValueError, match="`cluster=True`"):
        crossed_bootstrap(t, cluster=True)
    with pytest.raises(TypeError, match="`small_sample`"):
        crossed_bootstrap(t, small_sample="yes")


def _population_mean(sd_item, sd_prompt, base=0.3):
    rng = np.random.default_rng(99)
    z = base + sd_item * rng.standard_normal(2_000_000) + sd_prompt * rng.standard_normal(2_000_000)
    return float((1 / (1 + np.exp(-z))).mean())


@pytest.mark.slow
def test_coverage_of_a_crossed_population(binary_design):
    """Items x 5 prompts, prompt sd = item sd = 1 (logit): intervals that treat the 5 prompts as all there are
    miss the population mean; the crossed intervals hold their level. Figures (200 datasets, seed 2026):
    item-only 0.495, pigeonhole 0.885, crossed wild 0.970, analytic (components, Satterthwaite t) 0.965."""
    n_sim, n_items, n_prompts = 200, 100, 5
    rng = np.random.default_rng(2026)
    df = pd.concat([binary_design(rng, n_items, n_prompts, task=f"d{s}", prompt_prefix=f"d{s}-")
                    for s in range(n_sim)], ignore_index=True)
    table = read(df)
    truth = _population_mean(1.0, 1.0)

    def hits(reps):
        ci = interval(reps.replicates[:, 0, :], reps.observed[0])
        return int(ci.contains(truth).sum())

    wild = hits(crossed_bootstrap(table, n_resamples=2000, rng=1))
    pigeon = hits(crossed_bootstrap(table, method="pigeonhole", n_resamples=2000, rng=1))
    item_only = hits(crossed_bootstrap(table, fixed="prompt", n_resamples=2000, rng=1))
    se = variance_components(table, n_resamples=100, rng=1).se_frame()
    se = se[(se["fixed"] == "") & ~se["difference"]]
    analytic = int(((se["ci_low"] <= truth) & (truth <= se["ci_high"])).sum())
    print(f"coverage over {n_sim}: item-only {item_only / n_sim:.3f}, pigeonhole {pigeon / n_sim:.3f},"
          f" crossed wild {wild / n_sim:.3f}, analytic {analytic / n_sim:.3f}")
    assert wild / n_sim >= 0.90 and binomtest(wild, n_sim, 0.95).pvalue > 1e-3
    assert analytic / n_sim >= 0.90 and binomtest(analytic, n_sim, 0.95).pvalue > 1e-3
    assert item_only / n_sim < 0.7
    assert binomtest(item_only, n_sim, 0.95, alternative="less").pvalue < 1e-10


def test_replicates_feed_the_comparison_and_ranking_cores(binary_design):
    # the lead's wiring: one replicate set -> pairwise_differences and rank_models, unchanged
    from evalband.comparison import pairwise_differences
    from evalband.ranking import rank_models

    df = binary_design(np.random.default_rng(5), 60, 5, models=("a", "b", "c"))
    reps = crossed_bootstrap(read(df), n_resamples=2000, rng=3)
    agg, obs = reps.replicates.mean(axis=2), reps.observed.mean(axis=1)
    pairs = pairwise_differences(obs, agg, reps.models, correction="holm")
    assert pairs.to_frame().shape[0] == 3
    # the prompt effect is shared, so differences are sharper than each model's interval
    ci_model = interval(agg, obs)
    assert np.all(pairs.ci.high - pairs.ci.low < (ci_model.high - ci_model.low).min())
    ranking = rank_models(obs, agg, reps.models)
    assert ranking is not None
