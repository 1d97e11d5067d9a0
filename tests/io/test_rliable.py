"""rliable-style score files: the Atari 100k SPR data and the rliable notebook's published aggregates."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalband._validate import InputError
from evalband.io import read
from evalband.io.rliable import read_baselines, read_rliable

from ..conftest import FIXTURES

ATARI = FIXTURES / "atari100k"
SPR = ATARI / "SPR.json"
BASE = ATARI / "atari_100k_baselines.csv"


def test_spr_human_normalized_median_and_mean_match_rliable():
    table = read(SPR, baselines=BASE)
    assert table.models == ("SPR",)
    assert len(table.tasks) == 26
    assert table.score_kind == "unbounded"
    per_game = table.data.groupby("task", observed=True)["score"].mean().to_numpy()
    # rliable notebook output (data README, known answers): median 0.39562938291779215, mean 0.6157957428691673
    assert np.median(per_game) == pytest.approx(0.39562938291779215, rel=1e-12)
    assert per_game.mean() == pytest.approx(0.6157957428691673, rel=1e-12)
    assert any("normalized" in n for n in table.notes)
    assert any("independent" in n for n in table.notes)


def test_raw_scores_runs_as_items():
    table = read_rliable(SPR)
    raw = json.loads(SPR.read_text())
    td = table.task_data("Pong")
    np.testing.assert_allclose(td.scores[0], raw["Pong"])
    assert td.items.tolist() == [str(i) for i in range(len(raw["Pong"]))]


def test_nested_models_missing_runs_and_conflicts(tmp_path):
    (tmp_path / "all.json").write_text(json.dumps({"A": {"g1": [1.0, None, 3.0], "g2": [2.0]},
                                                   "B": {"g1": [5.0], "g2": [float("nan"), 4.0]}}))
    t = read(tmp_path / "all.json")
    assert t.models == ("A", "B")
    assert len(t.data) == 5
    assert any("skipped 2 missing run scores" in n for n in t.notes)
    (tmp_path / "A.json").write_text(json.dumps({"g1": [1.0]}))
    with pytest.raises(InputError, match="appears in two files"):
        read(tmp_path)


def test_baselines_forms_and_errors(tmp_path):
    b = read_baselines({"Pong": (-20.7, 14.6)})
    assert b.loc["Pong", "low"] == -20.7
    with pytest.raises(InputError, match="no baseline for task"):
        read(SPR, baselines={"Pong": (-20.7, 14.6)})
    with pytest.raises(InputError, match="random = human"):
        read_baselines({"Pong": (1, 1)})
    (tmp_path / "b.csv").write_text("game,min,max\nPong,-21,21\n")
    assert read_baselines(tmp_path / "b.csv").loc["Pong", "high"] == 21
    (tmp_path / "c.csv").write_text("task,foo\nPong,1\n")
    with pytest.raises(InputError, match="need columns"):
        read_baselines(tmp_path / "c.csv")


def test_wrong_types_are_input_errors(tmp_path):
    (tmp_path / "X.json").write_text(json.dumps({"g": [1.0, "high"]}))
    with pytest.raises(InputError, match=r"'g\[1\]' must be a number"):
        read(tmp_path / "X.json", source="rliable")
    (tmp_path / "X.json").write_text(json.dumps({"g": 3}))
    with pytest.raises(InputError, match="must be a list of run scores"):
        read(tmp_path / "X.json", source="rliable")


def test_table_feeds_the_run_level_bootstrap():
    """The normalized table is what rliable's stratified bootstrap needs: IQM of all runs of all games."""
    from scipy import stats

    from evalband.resample import bootstrap_items

    table = read(SPR, baselines=BASE)
    reps = bootstrap_items(table, "iqm", n_resamples=50, rng=1)
    # scipy 1.17: trim_mean(scores, 0.25) is the interquartile mean of the 2,600 pooled run scores
    assert reps.observed[0] == pytest.approx(stats.trim_mean(table.data["score"].to_numpy(), 0.25), rel=1e-12)
    assert reps.resampling == "independent"
