"""QA regressions for summary tables: both `correct` and `accuracy` given but disagreeing was silently resolved in
favour of `correct`; test-set sizes that differ between models on one task went unmentioned."""

from __future__ import annotations

import pandas as pd
import pytest

from evalband import InputError, read


def _frame():
    return pd.DataFrame({"model": ["A", "A", "B", "B"], "task": ["x", "y", "x", "y"], "n": [1000, 200, 1000, 200],
                         "correct": [682, 150, 700, 120], "accuracy": [0.682, 0.75, 0.70, 0.60]})


def test_agreeing_correct_and_accuracy_read_from_correct():
    table = read(_frame())
    assert table.counts().correct.tolist() == [[682, 150], [700, 120]]


def test_agreeing_within_rounding_of_percent_is_fine():
    df = _frame().assign(accuracy=[68.2, 75.0, 70.0, 60.0])
    assert read(df).counts().correct.tolist() == [[682, 150], [700, 120]]


def test_disagreeing_correct_and_accuracy_is_an_error_naming_the_row():
    df = _frame()
    df.loc[2, "correct"] = 10  # 10 / 1000 = 0.01, but accuracy says 0.70
    with pytest.raises(InputError, match=r"row 2, column 'correct': correct 10 of n = 1000 .* accuracy 0.7"):
        read(df)


def test_test_set_size_differing_between_models_is_noted():
    df = _frame()
    df.loc[2, "n"] = 500
    df.loc[2, "correct"] = 350
    table = read(df.drop(columns="accuracy"))
    assert any("n differs between models" in n and "'x'" in n for n in table.notes)
