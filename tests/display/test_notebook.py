"""A result in a notebook shows what ``print(result)`` shows: the display rules (points, digits from the SE,
merged intervals, one header per concept), the columns that fit, the head of a long table (above 40 rows in a
notebook, 500 in print), and the full frame one call away (issue 22: ``_repr_html_`` showed raw ``to_frame()``: fractions to 6 decimals, up to 38 columns, 250-pixel
reading rows, 4,186 rows of a weight map). Also: every user error type the README names is public."""

from __future__ import annotations

import html
import re

import pytest

import evalband as eb
from evalband.display.reprs import HEAD_ROWS, LONG_ROWS

WIDTH = "120"  # the notebook's width (display.reprs.HTML_WIDTH): the same columns as a 120-column terminal


@pytest.fixture(scope="module")
def results():
    vtab = eb.load_example("vtab")
    return {
        "compare": eb.compare(vtab, rng=0, n_resamples=300),
        "rank": eb.rank(vtab, rng=0, n_resamples=300),
        "estimate": eb.estimate(vtab),
        "weights": eb.weight_sensitivity(vtab, z="independent", rng=0),
        "bayes": eb.beta_binomial(vtab, rng=0, n_draws=300),
        "arena": eb.arena("tests/fixtures/llmfao/crowd-comparisons.csv", rng=0, n_resamples=100),
        "agreement": eb.judges.agreement("tests/fixtures/krippendorff_codings/codings_long.csv", rng=0,
                                         n_resamples=200),
        "variance": eb.facets.variance_components("tests/fixtures/facets/prompts_trials.csv", n_resamples=100,
                                                  rng=0),
        # a cell holding a list (the models that dominate one)
        "frontier": eb.frontier("tests/fixtures/frontier/contract.csv", rng=0, n_resamples=200),
    }


def _html_table(page: str):
    heads = [html.unescape(h) for h in re.findall(r"<th(?: [^>]*)?>(.*?)</th>", page)]
    rows = re.findall(r"<tr>(.*?)</tr>", page)
    return heads, len(rows) - 1  # the header row


def _terminal_heads(text: str):
    lines = text.splitlines()
    rule = next(k for k, line in enumerate(lines) if line and set(line.strip()) == {"─"})
    return [h for h in re.split(r"\s{2,}", lines[rule - 1].strip()) if h]


@pytest.mark.parametrize("kind", ["compare", "rank", "estimate", "weights", "bayes", "arena", "agreement",
                                  "variance", "frontier"])
def test_notebook_shows_what_print_shows(results, kind, monkeypatch):
    monkeypatch.setenv("COLUMNS", WIDTH)
    result = results[kind]
    page = result._repr_html_()
    heads, n_rows = _html_table(page)
    frame = result.to_frame()
    # the head of a long table, the whole of a short one
    assert n_rows == (len(frame) if len(frame) <= LONG_ROWS else HEAD_ROWS)
    assert ".to_frame()" in page  # the full frame is one call away
    # the same columns as print(result) (which fits the same width)
    assert heads == _terminal_heads(str(result)), (heads, str(result)[:500])
    assert len(heads) <= 15
    # the display rules: no column of the frame at full precision, no raw field name of a probability
    for column in frame.select_dtypes("float").columns:
        value = frame[column].dropna()
        if len(value) and abs(value.iloc[0]) < 1 and len(repr(float(value.iloc[0]))) > 10:
            assert repr(float(value.iloc[0])) not in page, column
    assert not {"p_best", "reading", "verdict_detail"} & set(heads)


def test_a_long_table_prints_its_head_and_says_where_the_rest_is(results, monkeypatch):
    monkeypatch.setenv("COLUMNS", WIDTH)
    text = str(results["weights"])
    assert len(results["weights"].to_frame()) > 4000
    assert len(text.splitlines()) < 40 and "4,166 more rows: .to_frame() has all 4,186" in " ".join(text.split())
    # a label that differs further down the table stays a column, though the first rows agree on it
    assert "best" in _terminal_heads(text)


def test_every_user_error_type_is_public():
    from evalband._validate import USER_ERRORS

    for error in (*USER_ERRORS, eb.InputError):
        assert getattr(eb, error.__name__) is error
    assert issubclass(eb.ArgumentError, ValueError) and issubclass(eb.ArgumentTypeError, TypeError)
    readme = open("README.md", encoding="utf8").read()
    import builtins

    for name in set(re.findall(r"\b(?:eb\.)?(\w+Error)\b", readme)) - set(dir(builtins)):
        assert hasattr(eb, name), name  # every error the README names
