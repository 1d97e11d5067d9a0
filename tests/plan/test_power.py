"""Power, sample size and MDE against statsmodels (literal values stored with their calls), theory and the
worked numbers of seed 001 (Miller 2024)."""

import math

import numpy as np
import pytest
from scipy import stats

from evalband.plan import adjusted_alpha, power_of_test, solve_power, z_factor

# per-item variance of the paired difference for 78% vs 74% with correlation 0.5 (seed 001)
V_SEED = 0.78 * 0.22 + 0.74 * 0.26 - 2 * 0.5 * math.sqrt(0.78 * 0.22 * 0.74 * 0.26)


def test_z_factor_is_785_as_in_the_seed():
    # seed 001: "(z_alpha/2 + z_beta)^2 ... For 5% significance and 80% power, the first term is about 7.85"
    assert round(z_factor(alpha=0.05, power=0.8), 2) == 7.85
    assert z_factor(alpha=0.05, power=0.8) == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2)
    # one-sided uses z_{1-alpha}
    assert z_factor(alpha=0.05, power=0.8, alternative="greater") == pytest.approx(
        (stats.norm.ppf(0.95) + stats.norm.ppf(0.8)) ** 2)


def test_variance_of_the_seed_example():
    assert V_SEED == pytest.approx(0.18229738581957608, rel=1e-12)
    # paired SE at 120 tasks: "roughly 3.9 percentage points"
    assert math.sqrt(V_SEED / 120) == pytest.approx(0.039, abs=0.0005)


def test_noncentral_t_power_matches_statsmodels_ttestpower():
    es = 0.04 / math.sqrt(V_SEED)
    # statsmodels 0.15: TTestPower().power(effect_size=0.09368493739589158, nobs=120, alpha=0.05,
    #                                      alternative='two-sided')
    assert solve_power(effect=0.04, n=120, variance=V_SEED) == pytest.approx(0.17455621319534337, rel=1e-9)
    # statsmodels 0.15: TTestPower().solve_power(effect_size=es, power=0.8, alpha=0.05) -> 896.1893453429881
    assert solve_power(effect=0.04, power=0.8, variance=V_SEED) == pytest.approx(896.1893453429881, rel=1e-7)
    # statsmodels 0.15: TTestPower().power(effect_size=0.25, nobs=40, alpha=0.05, alternative='larger')
    assert power_of_test(0.25, 1 / math.sqrt(40), confidence_level=0.95, alternative="greater", df=39) == pytest.approx(
        0.4636624913208922, rel=1e-9)
    # statsmodels 0.15: TTestPower().solve_power(effect_size=None, nobs=40, power=0.8, alpha=0.05)
    # (statsmodels' root finder stops at a looser tolerance: agree to 1e-6, and ours hits the power exactly)
    mde = solve_power(n=40, power=0.8, variance=1.0)
    assert mde == pytest.approx(0.45425711232469046, rel=1e-6)
    assert solve_power(effect=mde, n=40, variance=1.0) == pytest.approx(0.8, abs=1e-10)
    assert es == pytest.approx(0.09368493739589158)


def test_normal_power_matches_statsmodels_normalindpower():
    # statsmodels 0.15: NormalIndPower().power(effect_size=0.3, nobs1=50, alpha=0.05, ratio=0)
    assert solve_power(effect=0.3, n=50, variance=1.0, method="normal") == pytest.approx(0.5641160254310036,
                                                                                         rel=1e-9)
    # statsmodels 0.15: NormalIndPower().power(effect_size=-0.3, nobs1=50, alpha=0.05, ratio=0,
    #                                          alternative='smaller')
    assert solve_power(effect=-0.3, n=50, variance=1.0, method="normal", alternative="less") == pytest.approx(
        0.6831290430800073, rel=1e-9)
    # statsmodels 0.15: NormalIndPower().solve_power(effect_size=0.09368493739589158, power=0.8, alpha=0.05,
    #                                                ratio=0) -> 894.2667193538422
    n = solve_power(effect=0.04, power=0.8, variance=V_SEED, method="normal")
    assert n == pytest.approx(894.2667193538422, rel=1e-7)
    # the seed's closed form ignores the far tail: 7.85 * var / effect^2, within a hundredth of an item
    assert n == pytest.approx(z_factor() * V_SEED / 0.04 ** 2, abs=0.01)


def test_unpaired_t_matches_statsmodels_ttestindpower():
    # two groups of n with unit variances: variance of one item's contribution = 1 + 1
    # statsmodels 0.15: TTestIndPower().power(effect_size=0.5, nobs1=30, alpha=0.05, ratio=1)
    assert solve_power(effect=0.5, n=30, variance=2.0, paired=False) == pytest.approx(0.4778965207601643, rel=1e-9)
    # statsmodels 0.15: TTestIndPower().solve_power(effect_size=0.5, power=0.9, alpha=0.01, ratio=1)
    assert solve_power(effect=0.5, power=0.9, confidence_level=0.99, variance=2.0, paired=False) == pytest.approx(
        120.70548584929035, rel=1e-7)


def test_solving_round_trips():
    n = solve_power(effect=0.03, power=0.9, variance=0.2)
    assert solve_power(effect=0.03, n=n, variance=0.2) == pytest.approx(0.9, abs=1e-9)
    mde = solve_power(n=n, power=0.9, variance=0.2)
    assert mde == pytest.approx(0.03, rel=1e-7)
    mde_less = solve_power(n=n, power=0.9, variance=0.2, alternative="less")
    assert mde_less < 0


def test_binary_mde_respects_the_proportion_range():
    def var(e, p=0.9):  # model A = 0.9 + e must stay a proportion
        q = p + e
        if not 0 <= q <= 1:
            raise ValueError("not a proportion")
        return q * (1 - q) + p * (1 - p)

    assert math.isnan(solve_power(n=5, power=0.99, variance=var, paired=False))
    mde = solve_power(n=400, power=0.8, variance=var, paired=False)
    assert 0 < mde < 0.1


def test_design_effect_scales_n():
    base = solve_power(effect=0.05, power=0.8, variance=0.25, method="normal")
    assert solve_power(effect=0.05, power=0.8, variance=0.25, design_effect=2.0, method="normal") == pytest.approx(
        2 * base, rel=1e-6)


def test_adjusted_alpha():
    assert adjusted_alpha(0.05, 4) == pytest.approx(0.0125)
    assert adjusted_alpha(0.05, 4, method="holm") == pytest.approx(0.0125)
    assert adjusted_alpha(0.05, 4, method="none") == 0.05
    with pytest.raises(ValueError, match="`multiplicity`.*'bonferroni'"):
        adjusted_alpha(0.05, 2, method="sidak")


def test_argument_errors_name_the_argument():
    with pytest.raises(ValueError, match="exactly two"):
        solve_power(effect=0.1, n=10, power=0.8, variance=1.0)
    with pytest.raises(ValueError, match="`method`"):
        solve_power(effect=0.1, n=10, variance=1.0, method="exact")
    with pytest.raises(ValueError, match="`effect`"):
        solve_power(effect=-0.1, n=10, variance=1.0, alternative="greater")
    with pytest.raises(ValueError, match="`alternative`"):
        solve_power(effect=0.1, n=10, variance=1.0, alternative="two-tailed")


def test_power_of_test_is_vectorised():
    out = power_of_test(np.array([0.0, 0.1, 0.2]), 0.05)
    assert out.shape == (3,)
    assert out[0] == pytest.approx(0.05)
    assert np.all(np.diff(out) > 0)
