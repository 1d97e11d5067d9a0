"""Recommended trials never shrink a design below 30 items (30 clusters): 14 items x 100 trials says nothing
about a population of tasks (QA O17)."""

import math

from scipy import stats

from evalband.plan import plan_comparison
MIN_ITEMS = 30  # the documented rule (evalband.plan.planner.MIN_ITEMS)

Z2 = (stats.norm.isf(0.025) + stats.norm.isf(0.2)) ** 2


def _n_normal(var, effect):
    # theory: n = (z_{1-a/2} + z_{power})^2 var / effect^2, rounded up
    return math.ceil(Z2 * var / effect ** 2 - 1e-9)


def test_output_noise_dominated_pilot_keeps_thirty_items():
    # per-item variance of the difference 0.5, of which 2 * 0.24 = 0.48 is output noise (tau-bench-like)
    p = plan_comparison(effect=0.2, variance_difference=0.5, output_variance=0.24, score_kind="continuous",
                        method="normal")
    var_k = lambda k: 0.02 + 0.48 / k  # noqa: E731
    # unbounded, tolerance 0.1 of the item variance would ask for the cap (100 trials) and only 8 items
    assert _n_normal(var_k(100), 0.2) < MIN_ITEMS
    expected_k = min(k for k in range(1, 101) if _n_normal(var_k(k), 0.2) <= MIN_ITEMS)
    assert p.recommended_trials == expected_k == 4
    assert p.n_required_recommended_trials == MIN_ITEMS == 30
    assert "at least 30 items" in p.sentence_required and "30 items with 4 trials each" in p.sentence_required
    assert any("recommended trials bounded" in n for n in p.notes)


def test_clustered_design_keeps_thirty_clusters():
    p = plan_comparison(effect=0.2, variance_difference=0.5, output_variance=0.24, score_kind="continuous",
                        method="normal", cluster_size=4, icc=0.02)
    assert p.n_required_recommended_trials >= 120
    assert "30 clusters (120 items)" in " ".join(p.notes)


def test_large_designs_are_unchanged():
    # many items needed even with many trials: the usual recommendation (20 = 0.2 / (0.1 * 0.1)) stands
    p = plan_comparison(effect=0.05, variance_difference=0.3, n=200, trials=4, output_variance=0.1,
                        score_kind="continuous", method="normal")
    assert p.recommended_trials == 20 and p.n_required_recommended_trials >= MIN_ITEMS
    assert not any("bounded" in n for n in p.notes) and "at least 30" not in p.sentence_required
