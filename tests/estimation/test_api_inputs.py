"""QA regressions for the Python API: estimators take what ``compare``/``rank`` take (a ResultsTable, a DataFrame
or a path), and anything else is a TypeError naming the argument, never an AttributeError from inside."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import read
from evalband.estimation import estimate, passk

LONG = pd.DataFrame({"model": ["A"] * 6 + ["B"] * 6, "task": ["t"] * 12, "item": [1, 1, 2, 2, 3, 3] * 2,
                     "trial": [0, 1] * 6, "score": [1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1]})


def test_estimate_accepts_a_dataframe_like_compare_does():
    direct = estimate(read(LONG)).to_frame()
    via_frame = estimate(LONG).to_frame()
    pd.testing.assert_frame_equal(direct, via_frame)
    # item means A: (0.5, 1, 0) -> 0.5; B: (1, 1, 0.5) -> 5/6
    np.testing.assert_allclose(via_frame.query("task == 't'")["estimate"], [0.5, 5 / 6])


def test_passk_accepts_a_path(tmp_path):
    path = tmp_path / "runs.csv"
    LONG.to_csv(path, index=False)
    frame = passk(path, k=[2]).to_frame()
    # pass@2 per item = 1 - C(n-c, 2)/C(2, 2): A items (1, 1, 0) -> 2/3; B items (1, 1, 1) -> 1
    np.testing.assert_allclose(frame.query("metric == 'pass@k'")["estimate"], [2 / 3, 1.0])


@pytest.mark.parametrize("fn", [estimate, passk])
def test_wrong_type_names_the_argument(fn):
    with pytest.raises(TypeError, match=r"`data` must be a path"):
        fn([1, 2, 3])


def test_passk_repeated_k_gives_one_row_per_k():
    frame = passk(LONG, k=[1, 2, 1]).to_frame()
    assert sorted(frame.loc[frame["metric"] == "pass@k", "k"].tolist()) == [1, 1, 2, 2]  # two models
