"""evalband.display.words: verdict words and the sentences built from them follow the digit rule.

Oracles: exact sentences; the verdict words of the comparison layer (one vocabulary everywhere); the digit rule
(:func:`decimals_for` on the standard error in display units) for any difference and standard error.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalband.display import (VERDICT_WORDS, decimals_for, difference_text, estimate_text, format_difference,
                              margin_text, reading, verdict_detail, withheld_text)


def test_the_verdict_words_are_the_comparison_layers():
    from evalband.comparison.verdict import VERDICTS

    assert VERDICT_WORDS == ("A better", "B better", "equivalent", "not yet decided")
    assert VERDICTS == VERDICT_WORDS


def test_reading_exact():
    assert reading("A", "B", 0.0032, -0.0004, 0.0068, "not yet decided", se=0.0018) == \
        "A vs B: +0.32 points, 95% CI (-0.04, 0.68); not yet decided"
    assert reading("gpt", "llama", 0.0162, 0.0126, 0.0198, "A better", se=0.0018) == \
        "gpt vs llama: +1.62 points, 95% CI (1.26, 1.98); gpt better"
    assert reading("gpt", "llama", -0.0162, -0.0198, -0.0126, "B better", se=0.0018, confidence_level=0.9) == \
        "gpt vs llama: -1.62 points, 90% CI (-1.98, -1.26); llama better"
    assert reading("a", "b", 0.021, 0.011, 0.031, "A better", se=0.005, scale=1, unit="", label="HDI") == \
        "a vs b: +0.0210, 95% HDI (0.0110, 0.0310); a better"
    assert reading("A", "B", 0.001, -0.002, 0.004, "equivalent", se=0.0015, extra="(Holm)") == \
        "A vs B: +0.10 points, 95% CI (-0.20, 0.40); equivalent (Holm)"


def test_reading_without_an_se_takes_digits_from_the_interval_and_shows_open_ends():
    # SE unknown: a quarter of the interval's width, 0.0018 -> 0.18 points -> two decimals
    assert reading("A", "B", 0.0032, -0.0004, 0.0068, "not yet decided") == \
        "A vs B: +0.32 points, 95% CI (-0.04, 0.68); not yet decided"
    assert reading("A", "B", 0.0032, 0.0004, float("inf"), "A better") == \
        "A vs B: +0.3 points, 95% CI (0.0, inf); A better"


def test_a_difference_that_rounds_to_zero_has_no_minus_sign():
    assert reading("A", "B", -1e-7, -0.004, 0.004, "not yet decided", se=0.002) == \
        "A vs B: +0.00 points, 95% CI (-0.40, 0.40); not yet decided"
    assert reading("A", "B", 0.0032, -0.0004, float("inf"), "A better") == \
        "A vs B: +0.3 points, 95% CI (0.0, inf); A better"  # -0.04 at one decimal: '0.0', not '-0.0'
    assert format_difference(-1e-5, 0.0018) == ("+0.00", 2)
    assert difference_text(-1e-5, -0.0004, 0.0068, 0.0018) == "+0.00 points (95% interval -0.04 to +0.68)"
    assert estimate_text(-1e-6, -0.0004, 0.0068, 0.0018, scale=1) == "0.0000 (95% interval -0.0004 to 0.0068)"
    assert reading("A", "B", 0.001, -0.0000001, 0.002, "not yet decided", se=0.01) == \
        "A vs B: +0.1 points, 95% CI (0.0, 0.2); not yet decided"  # the low end rounds to zero: '0.0', not '-0.0'


def test_estimate_and_difference_text_exact():
    assert estimate_text(0.6797, 0.6772, 0.6820, 0.0012) == "67.97% (95% interval 67.72% to 68.20%)"
    assert estimate_text(0.532, 0.511, 0.553, 0.0107, scale=1) == "0.532 (95% interval 0.511 to 0.553)"
    assert estimate_text(0.5, 0.4, 0.6, None, confidence_level=0.9) == "50.0% (90% interval 40.0% to 60.0%)"
    assert estimate_text(0.5, float("-inf"), 0.6, 0.02) == "50.0% (95% interval -inf to 60.0%)"
    assert difference_text(0.0032, -0.0004, 0.0068, 0.0018) == "+0.32 points (95% interval -0.04 to +0.68)"
    assert difference_text(0.021, 0.011, 0.031, 0.005, scale=1) == "+0.0210 (95% interval +0.0110 to +0.0310)"
    assert difference_text(0.05, 0.01, float("inf"), 0.02) == "+5.0 points (95% interval +1.0 to inf)"


def _without_level(text):
    return text.split(": ", 1)[-1].replace("95% interval", "interval").replace("95% CI", "CI")


@given(st.floats(min_value=-1, max_value=1), st.floats(min_value=1e-6, max_value=0.5))
def test_sentences_follow_the_digit_rule(difference, se):
    d = decimals_for(se * 100, max_decimals=4)
    for text in (reading("A", "B", difference, difference - 2 * se, difference + 2 * se, "not yet decided", se=se),
                 difference_text(difference, difference - 2 * se, difference + 2 * se, se),
                 estimate_text(difference, difference - 2 * se, difference + 2 * se, se)):
        numbers = re.findall(r"[-+]?\d+(?:\.(\d+))?(?=%| points|,|\)| to)", _without_level(text))
        assert len(numbers) == 3, text
        assert all(len(decimals) == d for decimals in numbers), (text, d)
        assert "-0." + "0" * d + " " not in text + " " and not re.search(r"-0\.0*(?!\d*[1-9])\b", text), text


def test_margin_text():
    assert margin_text(0.01) == "1-point margin"
    assert margin_text(0.005) == "0.5-point margin"
    assert margin_text(0.011) == "1.1-point margin"  # 1.0999999999999999 shown as 1.1
    assert margin_text(0.5, scale=1) == "margin of 0.5"


@pytest.mark.parametrize("verdict, low, high, text", [
    ("A better", 0.012, 0.02, "X better by more than the 1-point margin"),
    ("B better", -0.03, -0.012, "Y better by more than the 1-point margin"),
    ("not yet decided", 0.0093, 0.0167, "not yet decided: X better, but not decidedly by more than the 1-point margin"),
    ("not yet decided", -0.0167, -0.0093,
     "not yet decided: Y better, but not decidedly by more than the 1-point margin"),
    ("not yet decided", -0.005, 0.015, "not yet decided: Y is not better by more than the 1-point margin"),
    ("not yet decided", -0.015, 0.005, "not yet decided: X is not better by more than the 1-point margin"),
    ("not yet decided", -0.015, 0.015, "not yet decided"),
    ("equivalent", -0.005, 0.005, "equivalent: the difference lies within the 1-point margin"),
    ("equivalent", 0.002, 0.008, "equivalent: X better, but by less than the 1-point margin"),
    ("equivalent", -0.008, -0.002, "equivalent: Y better, but by less than the 1-point margin"),
])
def test_verdict_detail_with_a_margin(verdict, low, high, text):
    assert verdict_detail(verdict, low, high, margin=0.01, model_a="X", model_b="Y") == text


def test_verdict_detail_without_a_margin_is_the_verdict_with_the_model_named():
    assert verdict_detail("A better", 0.1, 0.2, model_a="gpt", model_b="llama") == "gpt better"
    assert verdict_detail("B better", -0.2, -0.1, model_a="gpt", model_b="llama") == "llama better"
    assert verdict_detail("not yet decided", -0.1, 0.2) == "not yet decided"
    assert verdict_detail("equivalent", -0.1, 0.1) == "equivalent"


def test_verdict_detail_lower_is_better():
    # a latency-like statistic: A - B in (0.0093, 0.0167) means B is better (lower)
    assert verdict_detail("not yet decided", 0.0093, 0.0167, margin=0.01, higher_is_better=False,
                          model_a="X", model_b="Y") == \
        "not yet decided: Y better, but not decidedly by more than the 1-point margin"


def test_withheld_text():
    assert withheld_text("too few units", 3, min_units=10) == \
        "(only 3 items: too few for a bootstrap verdict; at least 10 are needed)"
    assert withheld_text("too few units", 4.0, unit="clusters") == "(only 4 clusters: too few for a bootstrap verdict)"
    assert withheld_text("too few units") == "(too few for a bootstrap verdict)"
    assert withheld_text("degenerate interval").startswith("(the bootstrap distribution is degenerate")
    assert withheld_text("bootstrap") == ""
