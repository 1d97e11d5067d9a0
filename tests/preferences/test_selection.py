"""``arena()`` takes what :func:`evalband.select` takes and selects once: the readers are not its business."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalband as eb
from evalband.preferences import arena

from ..conftest import FIXTURES

LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"
PACKAGE = Path(eb.__file__).parent / "preferences"
THREE = ["GPT 4", "command", "Claude v1"]


def test_the_preferences_package_imports_no_reader():
    bad = []
    for f in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "io" and node.level == 2:
                bad.append(f"{f.name}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.level == 2 and not node.module and any(
                    a.name in ("io", "read") for a in node.names):
                bad.append(f"{f.name}:{node.lineno}")
    assert not bad


def test_a_selection_a_table_a_frame_and_a_path_give_the_same_leaderboard():
    sel = eb.select(LLMFAO, models=THREE)
    frames = [arena(x, rng=5, n_resamples=200).to_frame() for x in
              (sel, sel.table, pd.read_csv(LLMFAO), LLMFAO)]
    frames[2:] = [arena(x, models=THREE, rng=5, n_resamples=200).to_frame() for x in (pd.read_csv(LLMFAO), LLMFAO)]
    for f in frames[1:]:
        pd.testing.assert_frame_equal(f, frames[0])
    assert set(frames[0]["model"]) == set(THREE)


def test_models_note_is_the_selections_and_counts_the_battles_left_out():
    table = eb.read(LLMFAO)
    pos = [table.models.index(m) for m in THREE]
    inside = int((np.isin(table.model_a, pos) & np.isin(table.model_b, pos)).sum())
    res = arena(LLMFAO, models=THREE, rng=1, n_resamples=100)
    assert res.n_battles == inside
    assert f"{table.n_battles - inside:,} battles with a model outside `models` left out" in res.notes
    narrowed = arena(eb.select(LLMFAO), models=THREE[:2], rng=1, n_resamples=100)
    assert set(narrowed.models) == set(THREE[:2])


def test_read_options_pass_through_select_and_refuse_a_table_already_read(tmp_path):
    renamed = pd.read_csv(LLMFAO).rename(columns={"left": "first", "right": "second", "winner": "verdict"})
    renamed["verdict"] = renamed["verdict"].replace({"left": "a", "right": "b"})
    path = tmp_path / "renamed.csv"
    renamed.to_csv(path, index=False)
    res = arena(path, model_a_col="first", model_b_col="second", winner_col="verdict", rng=2, n_resamples=100)
    plain = arena(LLMFAO, rng=2, n_resamples=100)
    np.testing.assert_allclose(res.rating, plain.rating, rtol=1e-12)
    with pytest.raises(TypeError, match=r"reader options \(winner_col\) do not apply to a BattleTable"):
        arena(eb.read(LLMFAO), winner_col="winner")
    with pytest.raises(TypeError, match="do not apply to a Selection"):
        arena(eb.select(LLMFAO), source="fastchat")
    with pytest.raises(ValueError, match="`source` must be one of 'auto', 'columns'"):
        arena(LLMFAO, source="csv")


def test_results_that_are_not_battles_are_refused_by_name():
    with pytest.raises(ValueError, match="holds no pairwise battles"):
        arena("example:vtab", n_resamples=10)
    scores = pd.DataFrame({"model": ["x", "y"], "task": ["t", "t"], "item": [1, 1], "score": [1, 0]})
    with pytest.raises(ValueError, match="not a battle table: no model_a, model_b, winner column"):
        arena(scores, n_resamples=10)
