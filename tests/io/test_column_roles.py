"""QA regressions: a column named for two roles is an error, and an explicit mapping wins over a default name.

Before the fix `--model-col score` was silently ignored (the mapping dict kept only the last role for a column),
and `--task-col cluster` / `--task-col group` were silently undone by the default cluster/group columns.
"""

from __future__ import annotations

import pandas as pd
import pytest

from evalband import InputError, read

LONG = pd.DataFrame({
    "model": ["A"] * 4 + ["B"] * 4,
    "task": ["t"] * 8,
    "item": [1, 2, 3, 4] * 2,
    "cluster": ["c1", "c1", "c2", "c2"] * 2,
    "group": ["g1", "g1", "g2", "g2"] * 2,
    "score": [1, 0, 1, 1, 0, 0, 1, 0],
})


def test_same_column_for_model_and_score_is_an_error():
    with pytest.raises(InputError, match=r"column 'score' is named for two roles"):
        read(LONG, model_col="score")


def test_task_col_naming_the_default_cluster_column_makes_tasks_of_it():
    table = read(LONG.drop(columns=["task", "group"]), task_col="cluster")
    assert table.tasks == ("c1", "c2") and not table.has_clusters


def test_task_col_naming_the_default_group_column_makes_tasks_of_it():
    table = read(LONG.drop(columns=["task", "cluster"]), task_col="group")
    assert table.tasks == ("g1", "g2") and not table.has_groups


def test_summary_same_column_for_task_and_group_default_yields():
    df = pd.DataFrame({"model": ["A", "A", "B", "B"], "group": ["x", "y", "x", "y"], "n": [10] * 4,
                       "correct": [5, 6, 7, 8]})
    table = read(df, task_col="group")
    assert table.tasks == ("x", "y") and not table.has_groups


def test_two_explicit_roles_on_one_column_is_an_error():
    with pytest.raises(InputError, match=r"column 'cluster' is named for two roles"):
        read(LONG, group_col="cluster", cluster_col="cluster")


def test_header_names_with_surrounding_spaces_are_matched(tmp_path):
    # 'model, task, item, score' (a space after each comma) used to fail with "cannot tell the table's shape"
    path = tmp_path / "spaced.csv"
    path.write_text("model, task, item, score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nB,t,2,1\n")
    table = read(path)
    assert table.models == ("A", "B") and table.counts().correct.tolist() == [[1], [2]]
