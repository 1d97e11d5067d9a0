"""evalband.display.numbers: the digit rule, values, signs, levels, p-values, percents, rank intervals, units.

Oracle: the rules as written down (ArviZ's summary: the standard error to two significant figures, trailing zeros
counted, sets the decimals), checked as exact strings; the property tests compare ``decimals_for`` with an
independent count made in :mod:`decimal` (round half even on the exact binary value, as ``round`` does).
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalband.display import (POINTS, decimals_for, format_interval, format_level, format_p, format_percent,
                              format_rank_interval, format_short, format_signed, format_value, scale_for, unit_for)


# ---------------------------------------------------------------------------------------------- decimals_for
@pytest.mark.parametrize("se, decimals", [
    (0.196, 2),    # 0.20 to two figures: the trailing zero counts (like 0.194 -> 0.19)
    (0.194, 2),
    (0.06, 3),     # 0.060
    (0.3, 2),      # 0.30
    (0.996, 1),    # rounds up to 1.0
    (0.0996, 2),   # 0.10
    (0.0123, 3),
    (1.23, 1),
    (23.4, 0),
    (99.6, 0),     # 100 to two figures: no decimals, never negative
    (0.095, 3),
    (1e-9, 6),     # capped at max_decimals
])
def test_decimals_follow_the_se_to_two_significant_figures(se, decimals):
    assert decimals_for(se) == decimals


@pytest.mark.parametrize("se", [0, 0.0, -0.1, float("nan"), float("inf"), float("-inf"), None, "x", np.nan])
def test_decimals_without_a_usable_se_are_the_default(se):
    assert decimals_for(se) == 4
    assert decimals_for(se, default=2) == 2
    assert decimals_for(se, default=9, max_decimals=5) == 5


def test_decimals_options():
    assert decimals_for(0.0123, sig=1) == 2
    assert decimals_for(0.0123, sig=3) == 4
    assert decimals_for(1e-9, max_decimals=3) == 3
    assert decimals_for(np.float32(0.06)) == 3


def _reference_decimals(se: float, sig: int = 2) -> int:
    """Independent count: the exact decimal value of ``se``, rounded half even to ``sig`` figures; its exponent."""
    d = Decimal(se)
    rounded = d.quantize(Decimal(1).scaleb(d.adjusted() - sig + 1), rounding="ROUND_HALF_EVEN")
    return max(sig - 1 - rounded.adjusted(), 0)


@given(st.floats(min_value=1e-5, max_value=1e4, allow_nan=False, allow_infinity=False))
def test_decimals_match_a_decimal_count(se):
    assert decimals_for(se) == min(_reference_decimals(se), 6)


@given(st.floats(min_value=1e-5, max_value=1e4))
def test_the_se_shown_with_its_decimals_has_two_significant_figures(se):
    text = f"{se:.{decimals_for(se)}f}"
    digits = text.replace(".", "").lstrip("0")
    if decimals_for(se) > 0:
        assert len(digits) == 2, text  # e.g. '0.20', '1.0', '0.0012'
    else:
        assert len(digits) >= 2, text  # '23', '100', '1234'


# ---------------------------------------------------------------------------------------------- values and signs
def test_format_value():
    assert format_value(0.78125, 3) == "0.781"
    assert format_value(2, 2) == "2.00"
    assert format_value(np.float64(53.7), 1) == "53.7"
    assert format_value(np.int64(7), 0) == "7"
    assert format_value(None, 2) == ""
    assert format_value(float("nan"), 2) == ""
    assert format_value(float("inf"), 2) == "inf"
    assert format_value(-np.inf, 2) == "-inf"
    assert format_value("text", 2) == "text"
    assert format_value(True, 2) == "True"
    assert format_value(-0.0001, 2) == "0.00"  # never '-0.00'
    assert format_value(-0.4, 0) == "0"
    assert format_value(-0.6, 0) == "-1"


def test_format_signed():
    assert format_signed(0.0123, 3) == "+0.012"
    assert format_signed(-0.4, 2) == "-0.40"
    assert format_signed(0.0, 1) == "+0.0"
    assert format_signed(-0.0001, 2) == "+0.00"  # rounds to zero: no '-0.00'
    assert format_signed(float("nan"), 2) == ""
    assert format_signed(float("inf"), 2) == "inf"
    assert format_signed(float("-inf"), 2) == "-inf"


def test_format_interval():
    assert format_interval(0.6123, 0.6345, 2) == "(0.61, 0.63)"
    assert format_interval(-0.04, 0.68, 2, signed=True) == "(-0.04, +0.68)"
    assert format_interval(float("-inf"), 0.5, 1) == "(-inf, 0.5)"


# ---------------------------------------------------------------------------------------------- levels
@pytest.mark.parametrize("level, text", [
    (0.95, "95%"), (0.9, "90%"), (0.5, "50%"), (0.834, "83.4%"), (0.99, "99%"), (1.0, "100%"),
    (0.9999708, "99.997%"), (0.999999999999, "99.9999999999%"), (0.07, "7%"),
])
def test_format_level(level, text):
    assert format_level(level) == text


@given(st.floats(min_value=0.5, max_value=1.0, exclude_max=True))
def test_levels_never_round_to_100(level):
    text = format_level(level)
    assert text.endswith("%")
    assert float(text[:-1]) < 100.0, text


# ---------------------------------------------------------------------------------------------- p-values
@pytest.mark.parametrize("p, text", [
    (0.27, "0.27"), (0.5, "0.50"), (0.041, "0.041"), (0.0032, "0.0032"), (0.0001, "0.0001"), (0.00001, "<0.0001"),
    (0.0, "<0.0001"), (float("nan"), ""), (None, ""), (np.float64(0.075), "0.075"),
])
def test_format_p(p, text):
    assert format_p(p) == text


@pytest.mark.parametrize("p, floor, text", [
    (2 / 10000, 2 / 10000, "<0.0002"),            # B = 9999: the bootstrap says only 'below 2/(B+1)'
    (0.0, 2 / 1001, "<0.002"),
    (0.5, 2 / 10000, "0.50"),                     # above the floor: the value
    (2 / 200001, 2 / 200001, "<0.0001"),          # a floor below 0.0001: one '<', never '<<0.0001'
    (0.0, 1e-7, "<0.0001"),
])
def test_format_p_with_a_floor(p, floor, text):
    assert format_p(p, floor) == text


@given(st.floats(min_value=0, max_value=1), st.floats(min_value=1e-12, max_value=0.1))
def test_a_p_value_has_at_most_one_less_than_sign(p, floor):
    text = format_p(p, floor)
    assert text.count("<") <= 1 and not text.startswith("<<"), text


# ---------------------------------------------------------------------------------------------- percents
@pytest.mark.parametrize("p, text", [
    (0.37, "37%"), (0.0, "0%"), (1.0, "100%"), (0.004, "<1%"), (0.996, ">99%"), (0.9951, ">99%"), (0.5, "50%"),
    (0.995, ">99%"), (0.005, "<1%"), (0.994, "99%"), (0.006, "1%"),
    (np.float64(0.04), "4%"), (float("nan"), ""), (None, ""),
])
def test_format_percent(p, text):
    assert format_percent(p) == text


@given(st.floats(min_value=0, max_value=1))
def test_a_share_that_is_not_all_never_reads_as_all_nor_some_as_none(p):
    text = format_percent(p)
    if p < 1:
        assert text != "100%", p
    if p > 0:
        assert text != "0%", p


# ---------------------------------------------------------------------------------------------- rank intervals
def test_format_rank_interval():
    assert format_rank_interval(1, 2) == "1-2"
    assert format_rank_interval(3, 3) == "3"
    assert format_rank_interval(np.int64(2), np.float64(4.0)) == "2-4"
    assert format_rank_interval(float("nan"), 2) == ""
    assert format_rank_interval(None, None) == ""


# ---------------------------------------------------------------------------------------------- short numbers
def test_format_short():
    assert format_short(4.0) == "4"  # df, counts: integers
    assert format_short(np.float32(12)) == "12"
    assert format_short(0.123456) == "0.123"
    assert format_short(123456.7) == "123,457"  # no exponent; thousands separated as counts are
    assert format_short(260700.0) == "260,700" and format_short(999.0) == "999"
    assert format_short(1.2345e-5) == "1.23e-05"
    assert format_short(float("nan")) == ""
    assert format_short(None) == ""
    assert format_short(float("inf")) == "inf"


# ---------------------------------------------------------------------------------------------- units
def test_points_for_proportions_own_scale_otherwise():
    assert POINTS == 100.0
    assert scale_for("binary") == 100.0
    assert scale_for("bounded") == 100.0
    assert scale_for("unbounded") == 1.0
    assert unit_for(scale_for("binary")) == "points"
    assert unit_for(scale_for("unbounded")) == ""
    assert format_value(0.537 * scale_for("binary"), 1) == "53.7"  # Sup-Rotation-100% on CIFAR-100 in points
    assert math.isclose(0.537 * scale_for("unbounded"), 0.537)


@pytest.mark.parametrize("floor", [2 / 301, 2 / 501, 2 / 10001, 2 / 1001, 2 / 10000, 2 / 3001, 2 / 97])
def test_the_floor_is_rounded_up_never_down(floor):
    text = format_p(0.0, floor)
    assert text.startswith("<") and float(text[1:]) >= floor, text


def test_a_floor_that_would_round_down_is_rounded_up():
    assert format_p(0.0, 2 / 301) == "<0.0067"  # 0.006645: '<0.0066' would claim more than the bootstrap says
