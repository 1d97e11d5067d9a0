"""plan_comparison: the seed's worked numbers, Monte Carlo power, clusters, trials, multiplicity, records."""

import json
import math

import numpy as np
import pytest
from scipy import stats

from evalband.plan import plan_comparison, solve_power, z_factor


def seed_plan(**kw):
    # seed 001: 120 tasks, model A 78%, model B 74%, per-task correlation 0.5
    return plan_comparison(effect=0.04, baseline=0.74, correlation=0.5, n=120, **kw)


def test_seed_worked_numbers_normal_approximation():
    p = seed_plan(method="normal")
    # "the paired standard error of the difference is roughly 3.9 percentage points"
    assert p.se_difference == pytest.approx(0.039, abs=0.0005)
    # "The 95% interval runs from about -3.6 to +11.6 points"
    assert p.ci_low == pytest.approx(-0.036, abs=0.0006)
    assert p.ci_high == pytest.approx(0.116, abs=0.0006)
    # "detecting a 4-percentage-point difference with 80% power ... needs roughly 900 tasks"
    assert 850 <= p.n_required <= 950
    # equals the closed form 7.85 * var / effect^2, rounded up
    assert p.n_required == math.ceil(z_factor() * p.variance_difference / 0.04 ** 2)
    assert p.inputs["baseline"] == 0.74 and p.inputs["correlation"] == 0.5


def test_seed_worked_numbers_noncentral_t():
    p = seed_plan()
    assert p.se_difference == pytest.approx(0.039, abs=0.0005)
    assert p.ci_low == pytest.approx(-0.036, abs=0.002) and p.ci_high == pytest.approx(0.116, abs=0.002)
    # t interval uses t_{0.975, 119}
    assert p.ci_high - p.effect == pytest.approx(stats.t.isf(0.025, 119) * p.se_difference)
    assert 850 <= p.n_required <= 950
    assert p.power_at_n < 0.5 and p.mde > 0.04  # the 120-task evaluation cannot detect 4 points
    assert "897 items" in p.sentence_required
    assert "120 items" in p.sentence_detectable and "10.5 points" in p.sentence_detectable


def test_power_by_monte_carlo_binary_paired(rng):
    # simulate the paired 0/1 design and the paired t test the analysis would run; compare with the plan
    pa, pb, rho, n, reps = 0.78, 0.74, 0.5, 300, 4000
    both = pa * pb + rho * math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    p10, p01 = pa - both, pb - both
    c = rng.multinomial(n, [both, p10, p01, 1 - both - p10 - p01], size=reps)
    mean = (c[:, 1] - c[:, 2]) / n
    var = ((c[:, 1] + c[:, 2]) - n * mean ** 2) / (n - 1)
    rejections = int(np.sum(np.abs(mean / np.sqrt(var / n)) > stats.t.isf(0.025, n - 1)))
    planned = plan_comparison(effect=pa - pb, baseline=pb, correlation=rho, n=n).power_at_n
    assert stats.binomtest(rejections, reps, planned).pvalue > 0.001


def test_power_by_monte_carlo_continuous_unpaired(rng):
    # two independent groups of normal scores, pooled t test; the plan's noncentral t is exact here
    n, reps, sd, effect = 20, 4000, 0.3, 0.2
    a = rng.normal(effect, sd, size=(reps, n))
    b = rng.normal(0.0, sd, size=(reps, n))
    p = stats.ttest_ind(a, b, axis=1).pvalue
    planned = plan_comparison(effect=effect, sd_a=sd, n=n, paired=False, score_kind="continuous").power_at_n
    assert stats.binomtest(int(np.sum(p < 0.05)), reps, planned).pvalue > 0.001


def test_one_sided_and_less():
    two = seed_plan()
    one = seed_plan(alternative="greater")
    assert one.n_required < two.n_required
    neg = plan_comparison(effect=-0.04, baseline=0.78, correlation=0.5, n=120, alternative="less")
    assert neg.mde < 0


def test_unpaired_needs_more_items_than_paired():
    paired = seed_plan()
    unpaired = plan_comparison(effect=0.04, baseline=0.74, n=120, paired=False)
    assert unpaired.n_required > 1.5 * paired.n_required
    assert unpaired.inputs["correlation"] is None


def test_clusters_inflate_by_the_design_effect():
    flat = seed_plan(method="normal")
    cl = seed_plan(method="normal", cluster_size=10, icc=0.1)
    assert cl.design_effect == pytest.approx(1.9)
    assert cl.se_difference == pytest.approx(flat.se_difference * math.sqrt(1.9))
    assert cl.n_required == pytest.approx(1.9 * flat.n_required, abs=2)
    assert cl.clusters_required == pytest.approx(cl.n_required / 10)
    unequal = seed_plan(method="normal", cluster_size=10, icc=0.1, cluster_cv=0.5)
    assert unequal.design_effect == pytest.approx(1 + (1.25 * 10 - 1) * 0.1)
    assert "clusters of 10" in cl.sentence_required


def test_trials_reduce_the_variance_as_planned():
    # per-item variance of the difference 0.3 on one trial, of which 2 * 0.1 is output noise of the two models
    p = plan_comparison(effect=0.05, variance_difference=0.3, n=200, trials=4, output_variance=0.1,
                        score_kind="continuous", method="normal")
    assert p.design_effect == pytest.approx((0.1 + 0.2 / 4) / 0.3)
    table = p.trial_table.set_index("trials")
    assert table.loc[2, "variance_reduction"] == pytest.approx(1 - (0.1 + 0.1) / 0.3)
    assert table.loc[1, "n_required"] == math.ceil(solve_power(effect=0.05, power=0.8, variance=0.3,
                                                               method="normal"))
    assert table.loc[4, "n_required"] == math.ceil(solve_power(effect=0.05, power=0.8, variance=0.15,
                                                               method="normal"))
    assert p.recommended_trials == 20  # 0.2 / (0.1 * 0.1)
    assert "with 4 trials each" in p.sentence_required and "20 trials each" in p.sentence_required
    with pytest.raises(ValueError, match="`output_variance`"):
        plan_comparison(effect=0.05, variance_difference=0.3, output_variance=0.2, score_kind="continuous")


def test_multiplicity_is_said():
    p = seed_plan(n_comparisons=5, multiplicity="holm")
    assert p.alpha_per_comparison == pytest.approx(0.01)
    assert "Holm" in p.sentence_required and "5 comparisons" in p.sentence_required
    b = seed_plan(n_comparisons=5)
    assert "Bonferroni" in b.sentence_detectable
    assert b.n_required == p.n_required > seed_plan().n_required
    assert b.n_required == math.ceil(solve_power(effect=0.04, power=0.8, confidence_level=0.99, variance=b.variance_difference))


def test_record_is_json_ready():
    d = seed_plan().to_dict()
    text = json.dumps(d)
    for key in ("se_difference", "ci_low", "ci_high", "n_required", "mde", "baseline", "correlation", "power",
                "alpha", "answer_required", "answer_detectable"):
        assert key in d
    assert json.loads(text)["n_required"] == 897
    no_n = plan_comparison(effect=0.04, baseline=0.74, correlation=0.5).to_dict()
    assert no_n["mde"] is None and no_n["se_difference"] is None
    frame = seed_plan().to_frame()
    assert len(frame) == 1 and frame.loc[0, "n_required"] == 897
    given = plan_comparison(effect=0.04, baseline=0.74, correlation=0.5, sources={"baseline": "given"})
    assert given.to_frame().loc[0, "source_baseline"] == "given"
    assert {"se_difference", "ci_low", "ci_high", "mde", "baseline"} <= set(frame.columns)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="`correlation`"):
        plan_comparison(effect=0.04, baseline=0.74)
    with pytest.raises(ValueError, match="`baseline`"):
        plan_comparison(effect=0.04, correlation=0.5)
    with pytest.raises(ValueError, match="`icc`"):
        plan_comparison(effect=0.04, baseline=0.74, correlation=0.5, cluster_size=5)
    with pytest.raises(ValueError, match="`score_kind`"):
        plan_comparison(effect=0.04, baseline=0.74, correlation=0.5, score_kind="ordinal")
    with pytest.raises(ValueError, match="not a proportion"):
        plan_comparison(effect=0.4, baseline=0.74, correlation=0.0)
    with pytest.raises(TypeError, match="`effect`"):
        plan_comparison(effect="big", baseline=0.74, correlation=0.5)
