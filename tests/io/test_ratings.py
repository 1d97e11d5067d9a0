"""The ratings reader: long and wide, file formats, level detection, missing ratings, errors naming the row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband._validate import InputError
from evalband.io.ratings import read_ratings


def long_frame():
    return pd.DataFrame({"item": ["a", "a", "b", "b", "c", "c"], "grader": ["h", "j", "h", "j", "h", "j"],
                         "score": [3, 4, 2, None, 5, 5]})


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_formats_give_the_same_table(tmp_path, suffix):
    frame = long_frame()
    path = tmp_path / f"ratings{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path)
    table = read_ratings(path, unit_col="item", rater_col="grader", value_col="score")
    assert table.units == ("a", "b", "c") and table.raters == ("h", "j")
    assert table.n_ratings == 5 and table.level == "ordinal"
    assert table.categories == (2, 3, 4, 5)
    assert any("1 blank rating read as missing" in n for n in table.notes)
    assert any("level ordinal detected" in n for n in table.notes)
    np.testing.assert_array_equal(table.reliability_data(), [[3, 2, 5], [4, np.nan, 5]])


def test_wide_and_case_insensitive_columns(tmp_path):
    wide = pd.DataFrame({"Unit": ["x", "y"], "human": ["good", "bad"], "judge": ["good", ""]})
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    table = read_ratings(path, shape="wide")  # 'unit' matches 'Unit'
    assert table.raters == ("human", "judge") and table.level == "nominal" and table.n_ratings == 3
    ordered = read_ratings(path, shape="wide", categories=["bad", "good"])
    assert ordered.level == "ordinal" and ordered.categories == ("bad", "good")
    no_unit = read_ratings(wide.drop(columns="Unit"), shape="wide")
    assert no_unit.n_units == 2 and any("no unit column" in n for n in no_unit.notes)


def test_errors_name_file_line_and_column(tmp_path):
    frame = long_frame()
    frame.loc[len(frame)] = ["a", "h", 1]
    path = tmp_path / "dup.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"dup.csv, line 2: rater 'h' rated unit 'a' twice \(also line 8"):
        read_ratings(path, unit_col="item", rater_col="grader", value_col="score")
    with pytest.raises(InputError, match="column 'unit' \\(named with `unit_col`\\) is not in the file"):
        read_ratings(path)
    bad = long_frame().assign(score=["1", "2", "x", "3", "4", "5"])
    with pytest.raises(InputError, match="level interval needs numeric ratings; got 'x'"):
        read_ratings(bad, unit_col="item", rater_col="grader", value_col="score", measurement="interval")
    with pytest.raises(InputError, match="value 'maybe' is not one of `categories`"):
        read_ratings(long_frame().assign(score="maybe"), unit_col="item", rater_col="grader", value_col="score",
                     categories=["yes", "no"])
    with pytest.raises(InputError, match="missing rater label"):
        read_ratings(long_frame().assign(grader=[None, "j", "h", "j", "h", "j"]), unit_col="item",
                     rater_col="grader", value_col="score")
    with pytest.raises(ValueError, match="`shape`"):
        read_ratings(long_frame(), shape="tall")
    clusters = long_frame().assign(passage=["p1", "p2", "p1", "p1", "p2", "p2"])
    with pytest.raises(InputError, match="unit 'a' lies in more than one cluster"):
        read_ratings(clusters, unit_col="item", rater_col="grader", value_col="score", cluster_col="passage")


def test_detection_rules_and_repr():
    base = dict(unit_col="item", rater_col="grader", value_col="score")
    assert read_ratings(long_frame().assign(score=[0.5, 1.5, 2, 3, 4, 5]), **base).level == "interval"
    many = pd.DataFrame({"item": np.repeat(np.arange(20), 2), "grader": ["a", "b"] * 20, "score": np.arange(40)})
    assert read_ratings(many, **base).level == "interval"  # 40 distinct integers: not a rating scale
    assert read_ratings(long_frame().assign(score=[True, False, True, True, False, False]), **base).level == "nominal"
    with pytest.raises(InputError, match="ratio ratings must be >= 0"):
        read_ratings(long_frame().assign(score=[-1, 1, 2, 3, 4, 5]), measurement="ratio", **base)
    table = read_ratings(long_frame(), **base)
    assert "RatingsTable(3 units x 2 raters" in repr(table)
    assert list(table.to_frame().columns) == ["unit", "rater", "value"]
    assert table.describe() == ("<DataFrame>: 5 ratings of 3 units by 2 raters (1 to 2 per unit), 4 distinct values,"
                                " level ordinal.")
