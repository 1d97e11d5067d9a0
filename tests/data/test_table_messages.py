"""Second QA pass: messages of the results table (S13, S17).

S13: the duplicate-row message took the second of *all* duplicated rows as "also at", which could be a row with
another key (line 3 holds item 2, the duplicate of line 2 is line 5), and for files read together (rows named
'a.csv line 3', row word 'at') it said "also at at a.csv line 3".
S17: ``describe()`` said "1 models", "1 tasks".
"""

from __future__ import annotations

import pandas as pd
import pytest

from evalband import ResultsTable, read
from evalband._validate import InputError

# line 2 (A, t, 1) is repeated at line 5; line 3 (A, t, 2) at line 6; line 4 (B, t, 1) is not repeated
DUP = "model,task,item,score\nA,t,1,1\nA,t,2,0\nB,t,1,1\nA,t,1,0\nA,t,2,1\n"


def test_duplicate_names_the_row_with_the_same_key(tmp_path):
    (tmp_path / "dup.csv").write_text(DUP)
    with pytest.raises(InputError, match=r"line 2: duplicate result for model 'A', task 't', item '1'"
                                         r" \(also at line 5; 4 duplicated rows\)"):
        read(str(tmp_path / "dup.csv"))


def test_duplicate_across_files_says_at_once(tmp_path):
    (tmp_path / "a.csv").write_text("model,task,item,score\nA,t,1,1\nA,t,2,0\n")
    (tmp_path / "b.csv").write_text("model,task,item,score\nB,t,1,1\nA,t,2,1\nA,t,1,0\n")
    with pytest.raises(InputError) as err:
        read(str(tmp_path / "*.csv"))
    msg = str(err.value)
    assert "at at" not in msg
    # a.csv line 2 (A, t, 1) is repeated at b.csv line 4, not b.csv line 3 (A, t, 2)
    assert "a.csv line 2: duplicate result for model 'A', task 't', item '1' (also at b.csv line 4;" in msg


def test_duplicate_summary_names_the_row_with_the_same_key():
    # row 0 (a, x) is repeated at row 3; rows 1 and 2 repeat (a, y)
    df = pd.DataFrame({"model": "a", "task": ["x", "y", "y", "x"], "n": 10, "correct": [3, 4, 5, 6]})
    with pytest.raises(InputError, match=r"row 0: duplicate summary for model 'a', task 'x' \(also at row 3\)"):
        ResultsTable.from_summary(df)


def test_describe_singular_and_plural():
    one = ResultsTable.from_items(pd.DataFrame({"model": ["a"], "task": ["t"], "item": [1], "score": [1]}))
    assert one.describe() == "<DataFrame>: 1 item-level row, 1 model, 1 task, 1 item; scores binary."
    summ = ResultsTable.from_summary(pd.DataFrame({"model": ["a", "b"], "task": "t", "n": 10, "correct": [3, 4]}))
    assert summ.describe() == "<DataFrame>: 2 summary rows, 2 models, 1 task; scores binary."
