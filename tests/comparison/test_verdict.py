"""Verdicts against a practical margin and one-sentence readings."""

import numpy as np
import pytest

from evalband.comparison import verdict
from evalband.comparison.sensitivity import describe_sweep
from evalband.comparison.verdict import reading


@pytest.mark.parametrize("low,high,margin,expected", [
    (0.001, 0.02, 0.0, "A better"),           # excludes zero
    (-0.02, -0.001, 0.0, "B better"),
    (-0.001, 0.02, 0.0, "not yet decided"),   # crosses zero
    (-0.004, 0.004, 0.005, "equivalent"),     # inside (-margin, margin)
    (0.002, 0.008, 0.005, "not yet decided"),  # better than 0 but crosses the margin
    (0.006, 0.02, 0.005, "A better"),         # entirely beyond the margin
    (-0.03, -0.006, 0.005, "B better"),
    (-0.01, 0.01, 0.005, "not yet decided"),  # wider than the margin on both sides
    (0.0, 0.0, 0.0, "not yet decided"),       # margin 0: equivalence is impossible
])
def test_verdict_table(low, high, margin, expected):
    assert verdict(low, high, margin=margin)[()] == expected


def test_verdict_lower_is_better_and_vectorized():
    out = verdict([-0.5, 0.2, -0.1], [-0.1, 0.6, 0.3], higher_is_better=False)
    assert list(out) == ["A better", "B better", "not yet decided"]


def test_verdict_ignores_rounding_noise_and_checks_margin():
    assert verdict(1.3e-16, 0.3)[()] == "not yet decided"
    with pytest.raises(ValueError, match="margin"):
        verdict(0, 1, margin=-0.1)
    with pytest.raises(TypeError, match="margin"):
        verdict(0, 1, margin="1%")


def test_reading_sentence():
    text = reading("Sup-Rotation-100%", "Sup-Exemplar-100%", 0.0032, -0.0011, 0.0075, "not yet decided",
                   se=0.0018, confidence_level=1 - 0.05 / 3, label="Bonferroni-corrected CI")
    assert text == ("Sup-Rotation-100% vs Sup-Exemplar-100%: +0.32 points, 98.33% Bonferroni-corrected CI"
                    " (-0.11, 0.75); not yet decided")
    assert reading("A", "B", 0.05, 0.02, 0.08, "A better", se=0.015).endswith("; A better")
    # SE 0.3 to two significant figures is 0.30: two decimals
    assert "A vs B: -0.50, 95% CI (-inf, 0.90)" in reading("A", "B", -0.5, -np.inf, 0.9, "not yet decided", se=0.3,
                                                         scale=1, unit="")


def test_describe_sweep():
    assert describe_sweep([0, 0.1, 0.2, 0.3], ["x", "x", "y", "y"]) == "x at 0-0.1, y at 0.2-0.3"
    assert describe_sweep([0, 0.5], ["x", "x"]) == "x at 0-0.5"
