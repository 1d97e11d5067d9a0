"""The (models x tasks) adapter: per-task means from item-level tables, correct / n from summaries, complete
cases with dropped tasks counted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband.data.table import ResultsTable
from evalband.tasks import as_score_matrix, complete_cases, friedman, rank_matrix, score_matrix


def _items():
    rows = []
    # model a: task t1 items 1..4 with two trials on item 1; model b: t1 items 1..4; t2 only for model a
    for trial, s in [(0, 1.0), (1, 0.0)]:
        rows.append(("a", "t1", "i1", trial, s))
    rows += [("a", "t1", "i2", 0, 1.0), ("a", "t1", "i3", 0, 0.0), ("a", "t1", "i4", 0, 1.0)]
    rows += [("b", "t1", i, 0, s) for i, s in zip(["i1", "i2", "i3", "i4"], [0.0, 0.0, 1.0, 0.0])]
    rows += [("a", "t2", "j1", 0, 1.0), ("a", "t2", "j2", 0, 1.0)]
    rows += [("a", "t3", "k1", 0, 0.0), ("b", "t3", "k1", 0, 1.0), ("b", "t3", "k2", 0, 1.0)]
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "trial", "score"]))


def test_item_level_means_trials_first_and_missing_cells():
    m = score_matrix(_items())
    assert m.models == ("a", "b") and m.tasks == ("t1", "t2", "t3")
    # a on t1: item 1 averages its trials to 0.5, then (0.5 + 1 + 0 + 1) / 4
    np.testing.assert_allclose(m.scores, [[2.5 / 4, 1.0, 0.0], [0.25, np.nan, 1.0]])
    assert any("trials averaged first" in n for n in m.notes)
    assert any("1 (model, task) cell(s) have no result" in n for n in m.notes)
    assert any("different numbers of items" in n and "t3" in n for n in m.notes)
    cc = complete_cases(m)
    assert cc.tasks == ("t1", "t3") and cc.dropped_tasks == ("t2",)
    assert any("(1 of 3 left out)" in n for n in cc.notes) and any("t2" in n for n in cc.notes)


def test_summary_level_is_correct_over_n():
    from evalband import load_example

    table = load_example("vtab")
    m = score_matrix(table)
    counts = table.counts()
    np.testing.assert_allclose(m.scores, counts.correct / counts.n)
    sub = score_matrix(table, models=table.models[:3], tasks=table.tasks[:5])
    np.testing.assert_allclose(sub.scores, m.scores[:3, :5])
    # a table goes straight into the tests
    assert friedman(table).n_tasks == len(table.tasks)


def test_other_inputs_and_errors():
    frame = pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], index=["m1", "m2"], columns=["x", "y"])
    m = as_score_matrix(frame)
    assert m.models == ("m1", "m2") and m.tasks == ("x", "y")
    assert m.to_frame().shape == (4, 3)
    with pytest.raises(ValueError, match="2-D"):
        as_score_matrix(np.ones(3))
    with pytest.raises(ValueError, match="`models` has 1 names"):
        as_score_matrix(np.ones((2, 2)), models=["a"])
    with pytest.raises(ValueError, match="infinite"):
        as_score_matrix(np.array([[1.0, np.inf], [0.0, 0.0]]))


def test_midranks():
    r = rank_matrix(np.array([[0.9, 0.5], [0.9, 0.7], [0.1, 0.7]]))
    np.testing.assert_allclose(r, [[1.5, 3.0], [1.5, 1.5], [3.0, 1.5]])
