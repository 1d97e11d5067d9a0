"""QA regression: negative or NaN group weights were accepted (task weights were checked, group weights not).
`compare --example vtab --weights natural=-1,specialized=1,structured=1` then declared 'Rotation better by 21
points', and natural=nan gave blank estimates with p = 0.01."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalband.selection import resolve_weights
from evalband.cli.main import app

TASKS = ["a", "b", "c"]
GROUPS = {"a": "g1", "b": "g1", "c": "g2"}


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_group_weights_must_be_finite_and_non_negative(bad):
    with pytest.raises(ValueError, match=r"`group_weights` must be finite and non-negative"):
        resolve_weights(3, tasks=TASKS, group_weights={"g1": bad, "g2": 1.0}, task_groups=GROUPS)


def test_equal_group_weights_still_split_within_groups():
    # g1 (2 tasks) and g2 (1 task) weigh half each: a, b get 1/4, c gets 1/2
    assert resolve_weights(3, tasks=TASKS, group_weights="equal", task_groups=GROUPS).tolist() == [0.25, 0.25, 0.5]


def test_cli_negative_group_weight_is_one_line():
    res = CliRunner().invoke(app, ["compare", "--example", "vtab", "--models", "Sup-100%,Rotation",
                                   "--weights", "natural=-1,specialized=1,structured=1", "--n-resamples", "100"])
    assert res.exit_code == 2 and "non-negative" in res.stderr
