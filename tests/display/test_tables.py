"""evalband.display.tables: render in every format, JSON / CSV precision and safety, terminal tables that fit.

Oracles: exact strings; Python's own float parser (``float(repr(x)) == x``) and :mod:`json` / :mod:`csv` readers
for the machine formats; the width as a number every printed line is measured against.
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalband._validate import ArgumentError
from evalband.display import display_frame, json_dumps, render, to_csv, to_json, wrap_notes


def _frame(n=3, names=None, level=0.95):
    est = np.array([0.7812, 0.7, 0.6234, 0.5, 0.41, 0.3, 0.22, 0.1])[:n]
    se = np.array([0.0123, 0.01, 0.0111, 0.02, 0.015, 0.012, 0.011, 0.01])[:n]
    frame = pd.DataFrame({"model": names or [f"m{i}" for i in range(n)], "estimate": est, "se": se,
                          "ci_low": est - 1.96 * se, "ci_high": est + 1.96 * se})
    if level is not None:
        frame["confidence_level"] = level
    return frame


def test_an_unknown_format_is_an_argument_error():
    with pytest.raises(ArgumentError, match="`format` must be one of 'table', 'table-wide'"):
        render(_frame(), "html")


# ---------------------------------------------------------------------------------------------- JSON
def test_json_keeps_full_precision_and_integer_counts():
    frame = pd.DataFrame({"model": ["a", "b"], "estimate": [4 / 9, 0.1 + 0.2], "df": [4.0, np.nan],
                          "n_clusters": [5.0, 6.0], "n": np.array([9, 10], dtype=np.int64),
                          "flag": np.array([True, False]),
                          "high": [np.inf, 1 / 3]})
    text = to_json(frame)
    assert '"estimate": 0.4444444444444444' in text and '"estimate": 0.30000000000000004' in text
    assert '"df": 4,' in text and '"n_clusters": 5,' in text and '"df": null' in text
    records = json.loads(text)
    assert records[0] == {"model": "a", "estimate": 4 / 9, "df": 4, "n_clusters": 5, "n": 9, "flag": True,
                          "high": None}
    assert type(records[0]["df"]) is int and type(records[1]["n"]) is int and records[1]["high"] == 1 / 3
    assert render(frame, "json") == text


def test_json_extra_fields_and_nested_results():
    frame = pd.DataFrame({"model": ["a"], "estimate": [0.25]})
    obj = json.loads(to_json(frame, test="friedman", chi_square=164.57812345678912, df=18.0, p_value=1e-25))
    assert obj == {"test": "friedman", "chi_square": 164.57812345678912, "df": 18, "p_value": 1e-25,
                   "records": [{"model": "a", "estimate": 0.25}]}
    text = json_dumps({"omnibus": {"df": np.float64(4.0), "statistic": np.float64(2 / 3), "n": [3.0, 4.0],
                                   "se": float("nan"), "pairs": np.int64(6)}})
    assert json.loads(text) == {"omnibus": {"df": 4, "statistic": 2 / 3, "n": [3, 4], "se": None, "pairs": 6}}
    assert '"df": 4,' in text and "0.6666666666666666" in text


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=5))
def test_json_floats_round_trip_exactly(values):
    frame = pd.DataFrame({"estimate": values})
    assert [r["estimate"] for r in json.loads(to_json(frame))] == values


# ---------------------------------------------------------------------------------------------- CSV
def _read_csv(text):
    return list(csv.reader(io.StringIO(text)))


def test_csv_neutralizes_formulas_and_leaves_numbers():
    frame = pd.DataFrame({"model": ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "gpt-4"],
                          "estimate": [-0.5, 0.25, -1e-9, 0.0, 1.0, 2.0, 4 / 9]})
    rows = _read_csv(to_csv(frame))
    assert rows[0] == ["model", "estimate"]
    assert [r[0] for r in rows[1:]] == ['\'=HYPERLINK("http://x")', "'+1", "'-2", "'@SUM(A1)", "'\tx", "'\rx",
                                        "gpt-4"]
    assert [float(r[1]) for r in rows[1:]] == [-0.5, 0.25, -1e-9, 0.0, 1.0, 2.0, 4 / 9]  # full precision
    assert rows[1][1] == "-0.5"
    assert render(frame, "csv") == to_csv(frame)


@pytest.mark.parametrize("dtype", [object, "category", "string"])
def test_csv_neutralizes_text_of_every_dtype(dtype):
    frame = pd.DataFrame({"model": pd.Series(["=cmd|' /C calc'!A0", "ok"], dtype=dtype), "x": [1.5, -2.5]})
    rows = _read_csv(to_csv(frame))
    assert rows[1] == ["'=cmd|' /C calc'!A0", "1.5"] and rows[2] == ["ok", "-2.5"]


def test_a_carriage_return_in_a_name_does_not_break_the_row():
    frame = pd.DataFrame({"model": ["line\rbreak", "\rlead", "ok"], "estimate": [0.5, 0.25, 4 / 9], "n": [3, 4, 5]})
    rows = _read_csv(to_csv(frame))
    assert rows == [["model", "estimate", "n"], ["line\rbreak", "0.5", "3"], ["'\rlead", "0.25", "4"],
                    ["ok", repr(4 / 9), "5"]]
    assert to_csv(frame.iloc[2:]) == "model,estimate,n\nok,0.4444444444444444,5\n"  # no quotes without a CR


def test_csv_headers_are_neutralized_too():
    rows = _read_csv(to_csv(pd.DataFrame({"=evil": ["a"], "estimate": [0.5]})))
    assert rows[0] == ["'=evil", "estimate"]


def test_csv_counts_are_integers_even_beside_missing_and_infinite_values():
    frame = pd.DataFrame({"model": ["a", "b", "c"], "df": [4.0, np.nan, np.inf], "n": [9.0, 10.0, 11.0]})
    rows = _read_csv(to_csv(frame))
    assert rows == [["model", "df", "n"], ["a", "4", "9"], ["b", "", "10"], ["c", "inf", "11"]]


# ---------------------------------------------------------------------------------------------- Markdown
def test_markdown_table_exact():
    text = render(_frame(2), "markdown", scale=100, notes=["first note", "first note", "# second"])
    assert text == ("| model | estimate | se | 95% CI |\n|---|---:|---:|---:|\n"
                    "| m0 | 78.1 | 1.2 | (75.7, 80.5) |\n| m1 | 70.0 | 1.0 | (68.0, 72.0) |\n\n"
                    "- first note\n- \\# second\n")


def test_markdown_escapes_html_and_newlines_in_names():
    frame = _frame(2, names=["<script>alert(1)</script>", "two\nlines|x"])
    lines = render(frame, "markdown", scale=100, title="<b>title</b>").splitlines()
    assert lines[0] == "**&lt;b>title&lt;/b>**"
    assert lines[4] == "| &lt;script>alert(1)&lt;/script> | 78.1 | 1.2 | (75.7, 80.5) |"
    assert lines[5] == r"| two lines\|x | 70.0 | 1.0 | (68.0, 72.0) |"
    assert "<script" not in "\n".join(lines)


# ---------------------------------------------------------------------------------------------- LaTeX
def test_latex_table_exact_and_notes_stay_comments():
    frame = _frame(2, names=["a_b & 50%", "x\n\\input{evil}"])
    text = render(frame, "latex", scale=100, title="t#1", notes=["model x\n\\input{evil} is 2nd", "same", "same",
                                                                 "--wide shows every column"])
    assert text.splitlines() == [
        r"% t\#1", r"\begin{tabular}{lrrr}", r"\toprule", r"model & estimate & se & 95\% CI \\", r"\midrule",
        r"a\_b \& 50\% & 78.1 & 1.2 & (75.7, 80.5) \\",
        r"x \textbackslash{}input\{evil\} & 70.0 & 1.0 & (68.0, 72.0) \\",
        r"\bottomrule", r"\end{tabular}", r"% note: model x \textbackslash{}input\{evil\} is 2nd", "% note: same",
        "% note: --wide shows every column"]  # a comment keeps options as written (no ligature break)


@given(st.text(max_size=40))
def test_every_latex_note_is_one_comment_line(note):
    # TeX ends a line at LF or CR only (not at Python's other line breaks such as \x1e)
    text = render(_frame(1), "latex", notes=[note])
    assert "\r" not in text
    lines = text.split("\n")
    tail = lines[lines.index(r"\end{tabular}") + 1:-1]
    assert len(tail) <= 1 and all(line.startswith("% note: ") for line in tail)


# ---------------------------------------------------------------------------------------------- human columns
def test_intervals_merge_and_constant_labels_move_to_the_title():
    frame = _frame(3)
    frame["aggregate"] = "mean"
    frame["rank_low"], frame["rank_high"] = [1, 1, 3], [2, 2, 3]
    shown, head = display_frame(frame, scale=100, title="Scores")
    assert head == "Scores; aggregate: mean"
    assert list(shown.columns) == ["model", "estimate", "se", "95% CI", "rank CI"]
    assert list(shown["rank CI"]) == ["1-2", "1-2", "3"]
    assert list(shown["95% CI"]) == ["(75.7, 80.5)", "(68.0, 72.0)", "(60.2, 64.5)"]
    text = render(frame, "table", scale=100, title="Scores", width=100)
    assert text.splitlines()[0] == "Scores; aggregate: mean"
    wide = render(frame, "table-wide", scale=100, width=100)
    assert wide.splitlines()[0].split() == ["model", "estimate", "se", "ci_low", "ci_high", "confidence_level",
                                            "aggregate", "rank_low", "rank_high"]


def test_a_constant_model_column_is_kept():
    frame = _frame(2, names=["same", "same"])
    frame["aggregate"] = "mean"
    shown, head = display_frame(frame, scale=100)
    assert "model" in shown.columns and head == "aggregate: mean"


def test_counts_in_human_tables():
    frame = pd.DataFrame({"model": ["a", "b", "c"], "estimate": [0.5, 0.6, 0.7], "se": [0.01] * 3,
                          "n": [32768.0, 6084.0, np.nan], "df": [4.0, np.inf, np.nan]})
    shown, _ = display_frame(frame, scale=100)
    assert list(shown["n"]) == ["32,768", "6,084", ""]
    assert list(shown["df"]) == ["4", "inf", ""]  # a normal approximation's infinite df is shown, not blank


def test_p_values_and_percents_in_human_tables():
    frame = pd.DataFrame({"model": ["a", "b"], "estimate": [0.5, 0.6], "se": [0.01, 0.01],
                          "p_value": [2 / 10000, 0.27], "p_best": [0.996, 0.004]})
    shown, _ = display_frame(frame, scale=100, p_floor=2 / 10000)
    assert list(shown["p_value"]) == ["<0.0002", "0.27"]
    assert list(shown["P(best)"]) == [">99%", "<1%"]  # the one header of the concept (display.HEADERS)


# ---------------------------------------------------------------------------------------------- terminal
LONG = ["Sup-Rotation-100%-with-a-very-long-suffix-that-goes-on-and-on", "Semi-Exemplar-10%",
        "a-model-name-of-exactly-forty-characters", "x" * 70, "qwen2.5-72b-instruct-2026-11-30-final-v2", "tiny"]


def _wide_frame(names=LONG):
    n = len(names)
    rng = np.random.default_rng(7)
    frame = _frame(min(n, 8), names=list(names[:8]))
    n = len(frame)
    frame["task"] = [f"task_{'y' * 30}_{i}" for i in range(n)]
    frame["aggregate"] = "mean"
    frame["rank_low"], frame["rank_high"] = np.arange(1, n + 1), np.arange(1, n + 1) + 1
    frame["p_value"], frame["p_adjusted"] = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    frame["n"] = 10000
    frame["p_best"], frame["correlation"], frame["observed"] = rng.uniform(0, 1, (3, n))
    return frame


@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_terminal_tables_fit_the_width(width):
    frame = _wide_frame()
    text = render(frame, "table", scale=100, width=width, notes=["a note " * 30])
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    # interval cells never fold: each row's interval is whole on one line
    shown, _ = display_frame(frame, scale=100)
    for cell in shown["95% CI"]:
        assert cell in text
    # labels fold: the long names are not on one line, but their start is, and no cell is cut with an ellipsis
    assert LONG[0] not in text and "x" * 70 not in text and "x" * 15 in text and LONG[0][:13] in text  # broken after a separator
    assert "…" not in text
    # dropped columns are named in one note
    dropped = [line for line in lines if line.startswith("note: not shown")]
    assert len(dropped) <= 1
    header = lines[1]
    for col in ("model", "task", "estimate", "95% CI"):
        assert col in header


def test_a_too_wide_table_names_what_it_left_out_once():
    text = render(_wide_frame(), "table", scale=100, width=60)
    joined = " ".join(line.removeprefix("note: ").strip() for line in text.splitlines()
                      if line.startswith(("note:", "   ")))
    assert text.count("not shown, to fit 60 columns:") == 1
    m = re.search(r"not shown, to fit 60 columns: (.*?) \(--wide", joined)
    left_out = m.group(1).split(", ")
    header = text.splitlines()[1].split()
    assert left_out and not set(left_out) & set(header)
    assert "correlation" in left_out and "p_adjusted" in left_out


def test_notes_wrap_on_words_and_are_said_once():
    note = "the quick brown fox jumps over the lazy dog " * 6
    lines = wrap_notes([note, note, "short"], 50)
    assert lines[0].startswith("note: the quick") and all(len(line) <= 50 for line in lines)
    assert sum(line.startswith("note: ") for line in lines) == 2 and lines[-1] == "note: short"
    assert all(line.startswith("      ") for line in lines[1:-1])  # hanging indent
    words = " ".join(line[6:] for line in lines[:-1]).split()
    assert words == note.split()  # no word broken
    text = render(_frame(2), "table", notes=[note, note, "two\nlines"], width=50)
    assert text.count("note: the quick") == 1 and "note: two lines" in text


@pytest.mark.parametrize("name", ["[bold]x[/bold]", "[/]", "qwen [instruct]", "[red]", "a\\[b]", ":smile:"])
def test_rich_markup_in_names_prints_verbatim(name):
    frame = _frame(2, names=[name, "other"])
    text = render(frame, "table", scale=100, width=100, title=f"title {name}", notes=[f"note {name}"])
    lines = text.splitlines()
    assert lines[0] == f"title {name}"
    assert any(line.startswith(name + " ") for line in lines)
    assert f"note: note {name}" in lines


@given(st.integers(min_value=40, max_value=200),
       st.lists(st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "P", "Zs")), min_size=1,
                        max_size=90), min_size=1, max_size=8))
@settings(max_examples=60, deadline=None)
def test_any_width_from_40_gives_lines_within_it(width, names):
    frame = _wide_frame(names)
    text = render(frame, "table", scale=100, width=width, title="A title " * 20, notes=["note " * 40])
    assert max(len(line) for line in text.splitlines()) <= width


@pytest.mark.parametrize("fmt, expected", [
    ("markdown", ["- a b", "- c"]),
    ("latex", ["% note: a b", "% note: c"]),
    ("table", ["note: a b", "note: c"]),
])
def test_a_note_and_its_copy_with_a_line_break_are_said_once_and_empty_notes_not_at_all(fmt, expected):
    frame = pd.DataFrame({"model": ["a"], "estimate": [0.5], "se": [0.1]})
    lines = render(frame, fmt, notes=["a\nb", "a b", "", "  ", "c"], width=80).splitlines()
    assert [line for line in lines if "note:" in line or line.startswith("- ")] == expected
    assert lines[-1] == expected[-1]


def test_nested_json_counts_are_integers_in_arrays_too():
    text = json_dumps({"n": np.array([3.0, 4.0]), "df": np.float32(2.0), "cells": {"n_labelled": np.array([[1.0]])},
                       "estimate": np.array([0.5, 4 / 9])})
    assert json.loads(text) == {"n": [3, 4], "df": 2, "cells": {"n_labelled": [[1]]}, "estimate": [0.5, 4 / 9]}
    assert '"n": [\n    3,\n    4\n  ]' in text


def test_names_fold_after_separators_and_keep_every_character():
    """QA round 4: names broke mid-token ('gemini-1.5-flash-0' / '02'); they now break after '-', '_', '/', '.',
    ':' or a space where one is near, and the lines joined give the name back."""
    from evalband.display.tables import fold_name

    assert fold_name("gemini-1.5-flash-002", 18) == "gemini-1.5-flash-\n002"
    assert fold_name("Phi-3-mini-4k-instruct", 18) == "Phi-3-mini-4k-\ninstruct"
    assert fold_name("x" * 40, 18) == "x" * 18 + "\n" + "x" * 18 + "\n" + "x" * 4  # no separator: hard breaks
    for name in LONG:
        for width in (6, 13, 18, 25):
            lines = fold_name(name, width).split("\n")
            assert "".join(lines) == name and max(map(len, lines)) <= width
    frame = pd.DataFrame({"model_a": ["gemini-1.5-pro-002"], "model_b": ["gemini-1.5-flash-002"],
                          "difference": [0.0653], "se": [0.0075], "ci_low": [0.0516], "ci_high": [0.081],
                          "verdict": ["A better"]})
    text = render(frame, "table", scale=100, value_cols=("difference", "se", "ci_low", "ci_high"), width=72)
    rows = text.splitlines()[2:4]
    assert rows[0].split()[:2] == ["gemini-1.5-pro-", "gemini-1.5-flash-"] and rows[1].split() == ["002", "002"]
    assert max(map(len, text.splitlines())) <= 72 and "A better" in text  # the verdict is never left out


def test_a_standard_error_of_floating_point_noise_is_zero():
    """QA round 4: an SE of 1e-13 (a degenerate bootstrap) printed ratings to 6 decimals ('2435.683665'); below
    1e-9 on the shown scale it is zero, and zero gets one decimal."""
    frame = pd.DataFrame({"model": ["A", "B"], "estimate": [2435.683665, 282.158167], "se": [1e-13, 0.0],
                          "ci_low": [2435.683665, 282.158167], "ci_high": [2435.683665, 282.158167]})
    row = render(frame, "markdown").splitlines()[2]
    assert row == "| A | 2435.7 | 0.0 | (2435.7, 2435.7) |"


def test_ranks_read_like_their_rank_intervals_and_counts_get_separators():
    """A leaderboard of 1,000 models: rank 1000 beside its interval '999-1000', never '1,000'; counts as 12,000."""
    frame = pd.DataFrame({"model": ["a", "b"], "rank": [999.0, 1000.0], "rank_low": [998.0, 999.0],
                          "rank_high": [1000.0, 1000.0], "n": [1000.0, 12000.0], "tier": [3.0, 1200.0]})
    text = render(frame, "table-wide")
    assert "1,000" in text and "12,000" in text  # the counts
    row = text.splitlines()[-1].split()
    assert row[:2] == ["b", "1000"] and "1,200" not in text


def test_an_interval_beside_its_own_estimate_keeps_the_estimate():
    """QA pass: `ability --task-table` showed the difficulty and slope intervals under the names 'difficulty' and
    'slope', in place of the estimates (the merged column took the estimate's name and replaced it); every
    '<name>_low/_high' beside a '<name>' column (difficulty, slope, predicted_win_rate) and every
    '<name>_ci_low/_ci_high' pair is headed '<name> 95% CI' beside the estimate."""
    from evalband.display.tables import display_frame

    frame = pd.DataFrame({"task": ["t1", "t2"], "difficulty": [-5.08, 1.2], "difficulty_low": [-6.92, 0.9],
                          "difficulty_high": [-3.56, 1.5], "slope": [0.35, 1.1], "slope_low": [0.24, 0.8],
                          "slope_high": [0.54, 1.4], "confidence_level": 0.95})
    shown, _ = display_frame(frame, value_cols=("difficulty", "difficulty_low", "difficulty_high", "slope",
                                                "slope_low", "slope_high"), se_col=None)
    assert list(shown.columns) == ["task", "difficulty", "difficulty 95% CI", "slope", "slope 95% CI"]
    assert shown["difficulty"].tolist() == ["-5.080", "1.200"]  # the estimates, not their intervals
    assert shown["difficulty 95% CI"].iloc[0] == "(-6.920, -3.560)"
    items = pd.DataFrame({"item": ["a", "b"], "difficulty": [0.5, -0.2], "difficulty_ci_low": [0.1, -0.6],
                          "difficulty_ci_high": [0.9, 0.2], "confidence_level": 0.9})
    shown, _ = display_frame(items, value_cols=("difficulty", "difficulty_ci_low", "difficulty_ci_high"), se_col=None)
    assert list(shown.columns) == ["item", "difficulty", "difficulty 90% CI"]
    # the interval of the estimate column itself keeps its name ('95% CI') and an interval without its estimate
    # column keeps the stem's words
    plain = pd.DataFrame({"model": ["A", "B"], "estimate": [0.7, 0.6], "ci_low": [0.6, 0.5], "ci_high": [0.8, 0.7],
                          "pred_low": [0.5, 0.4], "pred_high": [0.9, 0.8], "confidence_level": 0.95})
    shown, _ = display_frame(plain, value_cols=("estimate", "ci_low", "ci_high", "pred_low", "pred_high"), se_col=None)
    assert list(shown.columns) == ["model", "estimate", "95% CI", "pred"]
