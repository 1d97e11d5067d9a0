"""Validation of the results table: one test per bad-input case, each asserting the message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import InputError
from evalband.data.table import ResultsTable, parse_scores


def items(**over):
    cols = dict(model=["a", "a", "b", "b"], task="t", item=[1, 2, 1, 2], score=[1, 0, 1, 1])
    cols.update(over)
    return pd.DataFrame(cols)


def summary(**over):
    cols = dict(model=["a", "b"], task="t", n=[1000, 1000], accuracy=[45.67, 50.0])
    cols.update(over)
    return pd.DataFrame(cols)


def test_valid_item_table():
    table = ResultsTable.from_items(items())
    assert table.level == "item" and table.score_kind == "binary"
    assert table.models == ("a", "b") and table.tasks == ("t",) and not table.has_trials
    assert table.notes == ()


def test_missing_columns():
    with pytest.raises(InputError, match="missing column 'item'; found 'model', 'task', 'score'"):
        ResultsTable.from_items(items().drop(columns="item"))
    with pytest.raises(InputError, match="missing columns 'item', 'score'"):
        ResultsTable.from_items(items().drop(columns=["item", "score"]))


def test_non_numeric_score():
    with pytest.raises(InputError, match=r"row 1, column 'score': score 'abc' is not a number, a boolean or one of"
                                         r" C/I/P/N \(1 such value\)"):
        ResultsTable.from_items(items(score=[1, "abc", 0, 1]))


def test_out_of_range_score():
    with pytest.raises(InputError, match=r"row 1, column 'score': score 1.5 lies outside \[0, 1\] \(1 such row\);"
                                         r" if the score is not a proportion, declare it unbounded"):
        ResultsTable.from_items(items(score=[1, 1.5, 0, 1]))
    table = ResultsTable.from_items(items(score=[1, 1.5, -3, 1]), unbounded=True)
    assert table.score_kind == "unbounded"
    assert any("proportion intervals and pass@k do not apply" in n for n in table.notes)


def test_nan_score():
    with pytest.raises(InputError, match=r"row 2, column 'score': missing score \(NaN or blank; 2 such rows\)"):
        ResultsTable.from_items(items(score=[1, 0, np.nan, np.nan]))


def test_letters_and_booleans():
    t = ResultsTable.from_items(items(score=["C", "I", "P", "N"]))
    assert t.data["score"].tolist() == [1.0, 0.0, 0.5, 0.0] and t.score_kind == "bounded"
    assert parse_scores(pd.Series([True, False]), source="x").tolist() == [1.0, 0.0]
    assert parse_scores(pd.Series(["true", "no", "0.25"]), source="x").tolist() == [1.0, 0.0, 0.25]


def test_duplicate_rows():
    with pytest.raises(InputError, match=r"row 0: duplicate result for model 'a', task 't', item '1' \(also at row"
                                         r" 1; 2 duplicated rows\); repeated trials need a trial column"):
        ResultsTable.from_items(items(item=[1, 1, 1, 2]))
    with pytest.raises(InputError, match=r"duplicate result for model 'a', task 't', item '1', trial '0' \(also at"
                                         r" row 1; 2 duplicated rows\)$"):
        ResultsTable.from_items(items(item=[1, 1, 1, 2], trial=[0, 0, 0, 0]))


def test_cluster_changes_within_item():
    with pytest.raises(InputError, match=r"row 2, column 'cluster': cluster changes within item '1' of task 't':"
                                         r" 'p' at row 0, 'q' at row 2 \(1 such item\)"):
        ResultsTable.from_items(items(cluster=["p", "p", "q", "p"]))


def test_group_changes_within_task():
    with pytest.raises(InputError, match=r"column 'group': group changes within task 't': 'g' at row 0, 'k' at"
                                         r" row 2 \(1 such task\)"):
        ResultsTable.from_items(items(task=["t", "u", "t", "u"], group=["g", "h", "k", "h"]))


def test_empty_input_and_empty_summary_task():
    with pytest.raises(InputError, match="no rows to analyse"):
        ResultsTable.from_items(items().iloc[:0])
    with pytest.raises(InputError, match=r"row 1, column 'n': test-set size n must be a positive integer; got 0"):
        ResultsTable.from_summary(summary(n=[1000, 0]))


def test_single_model_where_a_comparison_is_asked():
    table = ResultsTable.from_items(items(model="a", item=[1, 2, 3, 4]))
    table.require_models(1)
    with pytest.raises(InputError, match=r"a comparison needs at least 2 models; found 1 \(a\)"):
        table.require_models(2)
    with pytest.raises(InputError, match="a ranking needs at least 3 models; found 1"):
        table.require_models(3, what="a ranking")


def test_models_not_covering_the_same_items_are_reported_per_model():
    df = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 2 + ["c"] * 3, "task": "t",
                       "item": [1, 2, 3, 4, 1, 2, 1, 2, 3], "score": [1, 0, 1, 1, 1, 1, 0, 0, 1]})
    table = ResultsTable.from_items(df)
    cov = table.coverage().set_index("model")
    assert cov.loc["a", "items"] == 4 and cov.loc["b", "items"] == 2 and cov.loc["c", "items"] == 3
    assert (cov["common_items"] == 2).all()
    assert cov["left_out"].to_dict() == {"a": 2, "b": 0, "c": 1}
    note = [n for n in table.notes if n.startswith("coverage:")]
    assert len(note) == 1 and "a" in note[0] and "2" in note[0] and "1" in note[0]
    # nothing dropped from the table itself; paired views use the common items and count what they leave out
    assert len(table.data) == 9
    td = table.task_data("t")
    assert td.items.tolist() == ["1", "2"] and td.left_out == {"a": 2, "b": 0, "c": 1}


def test_unequal_trial_counts_allowed_and_reported():
    df = pd.DataFrame({"model": "a", "task": "t", "item": [1, 1, 1, 2], "trial": [0, 1, 2, 0],
                       "score": [1, 0, 1, 1]})
    table = ResultsTable.from_items(df)
    assert table.has_trials
    assert any("trial counts differ between items (1 to 3)" in n for n in table.notes)
    td = table.task_data("t")
    assert td.trials.tolist() == [[3, 1]] and td.scores[0].tolist() == pytest.approx([2 / 3, 1.0])
    assert np.isnan(td.trial_scores[0, 1, 1:]).all()


def test_percent_or_fraction_detected_and_said():
    table = ResultsTable.from_summary(summary())
    assert "accuracy read as percent (largest value 50)" in table.notes[0]
    assert table.data["correct"].tolist() == [456, 500]
    frac = ResultsTable.from_summary(summary(accuracy=[0.4567, 0.5]))
    assert "accuracy read as fractions" in frac.notes[0]
    assert frac.data["correct"].tolist() == [456, 500]
    forced = ResultsTable.from_summary(summary(accuracy=[0.4567, 0.5]), accuracy_scale="percent")
    assert forced.data["correct"].tolist() == [4, 5]
    with pytest.raises(InputError, match="accuracy 120.0 lies outside the percent range"):
        ResultsTable.from_summary(summary(accuracy=[120.0, 50.0]))


def test_floor_or_round_counts():
    # 1000 * 0.4567 = 456.7: floor gives 456 (Longjohn et al.), round 457; 0.29 * 100 must stay 29 under floor
    floor = ResultsTable.from_summary(summary(accuracy=[0.4567, 0.29], n=[1000, 100]))
    assert floor.data["correct"].tolist() == [456, 29]
    assert "correct counts recovered as floor(n * accuracy)" in floor.notes
    rnd = ResultsTable.from_summary(summary(accuracy=[0.4567, 0.29], n=[1000, 100]), count_rule="round")
    assert rnd.data["correct"].tolist() == [457, 29]
    with pytest.raises(ValueError, match="`count_rule` must be 'floor' or 'round'; got 'ceil'"):
        ResultsTable.from_summary(summary(), count_rule="ceil")


def test_summary_counts_validated():
    with pytest.raises(InputError, match="needs a 'correct' or an 'accuracy' column"):
        ResultsTable.from_summary(summary().drop(columns="accuracy"))
    bad = pd.DataFrame({"model": ["a", "b"], "task": "t", "n": [10, 10], "correct": [3, 11]})
    with pytest.raises(InputError, match="row 1, column 'correct': correct must be an integer between 0 and n = 10;"
                                         " got 11"):
        ResultsTable.from_summary(bad)
    dup = pd.DataFrame({"model": ["a", "a"], "task": "t", "n": [10, 10], "correct": [3, 4]})
    with pytest.raises(InputError, match=r"duplicate summary for model 'a', task 't' \(also at row 1\)"):
        ResultsTable.from_summary(dup)


def test_counts_and_select():
    df = pd.DataFrame({"model": ["a"] * 3 + ["b"] * 3, "task": ["x", "x", "y"] * 2, "item": [1, 2, 3] * 2,
                       "score": [1, 0, 1, 1, 1, 0]})
    table = ResultsTable.from_items(df)
    c = table.counts()
    assert c.correct.tolist() == [[1, 1], [2, 0]] and c.n.tolist() == [[2, 1], [2, 1]]
    sub = table.select(models=["b"], tasks=["y"])
    assert sub.models == ("b",) and sub.tasks == ("y",) and len(sub.data) == 1
    with pytest.raises(ValueError, match="`models`: unknown 'z'"):
        table.select(models=["z"])
    missing = ResultsTable.from_items(df.iloc[:5])
    with pytest.raises(InputError, match="model 'b' has no result for task 'y'"):
        missing.counts()
