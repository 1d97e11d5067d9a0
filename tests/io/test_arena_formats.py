"""Readers of Chatbot Arena (FastChat), Arena-Hard and AlpacaEval files, on small invented files in their schemas
(tests/fixtures/preference_formats, written by make_fixtures.py there)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalband._validate import InputError
from evalband.io.battles import looks_like_battles, read_battles

from ..conftest import FIXTURES

FORMATS = FIXTURES / "preference_formats"
ALPACA = FORMATS / "alpaca_eval"
ARENA_HARD = FORMATS / "arena_hard" / "model_judgment" / "gpt-4-1106-preview"
FASTCHAT = FORMATS / "fastchat" / "clean_battle_conv.json"


def test_fastchat_clean_battles_with_style_counts():
    t = read_battles(FASTCHAT)
    raw = json.loads(FASTCHAT.read_text())
    anonymous = [r for r in raw if r["anony"]]
    assert t.n_battles == len(anonymous) == 38
    assert any("2 non-anonymous battles left out" in n for n in t.notes)
    assert any("time order" in n for n in t.notes)
    assert set(t.features) == {"length", "header_count", "list_count", "bold_count"}
    by_time = sorted(anonymous, key=lambda r: r["tstamp"])
    first = by_time[0]["conv_metadata"]
    assert t.features["length"][0].tolist() == [first["sum_assistant_a_tokens"], first["sum_assistant_b_tokens"]]
    assert t.features["header_count"][0, 0] == sum(first["header_count_a"].values())
    assert t.features["list_count"][0, 1] == sum(first["list_count_b"].values())
    ties = sum(r["winner"] in ("tie", "tie (bothbad)") for r in anonymous)
    assert int(t.tie.sum()) == ties
    assert set(t.labels) == {"question", "judge", "turn"}
    assert len(read_battles(FASTCHAT, anonymous_only=False).outcome) == 40


def test_arena_hard_two_games_with_swapped_positions():
    t = read_battles(ARENA_HARD, baseline="gpt-4-0314")
    lines = [json.loads(x) for f in sorted(ARENA_HARD.glob("*.jsonl")) for x in f.read_text().splitlines()]
    scored = [(rec, g) for rec in lines for g in (0, 1) if rec["games"][g]["score"] is not None]
    assert t.n_battles == len(scored) == 59
    assert any("1 Arena-Hard games without a score left out" in n for n in t.notes)
    names = np.asarray(t.models, dtype=object)
    for k, (rec, g) in enumerate(scored):
        a, b = names[t.model_a[k]], names[t.model_b[k]]
        assert (a, b) == (("gpt-4-0314", rec["model"]) if g == 0 else (rec["model"], "gpt-4-0314"))
        score = rec["games"][g]["score"]
        expected = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B=A": 0.5, "B>A": 0.0, "B>>A": 0.0}[score]
        assert t.outcome[k] == expected
        assert t.weight[k] == (3.0 if ">>" in score else 1.0)
        assert t.labels["question"][k] == rec["question_id"]
    assert str(t.rows[0]).endswith("line 1, games[0]")


def test_arena_hard_needs_the_baseline_and_valid_labels(tmp_path):
    with pytest.raises(InputError, match="do not name the baseline model: give baseline="):
        read_battles(ARENA_HARD)
    bad = tmp_path / "m.jsonl"
    bad.write_text(json.dumps({"question_id": "q1", "model": "m", "games": [{"score": "A>B"}, {"score": "A>>>B"}]})
                   + "\n")
    with pytest.raises(InputError, match="game score 'A>>>B' is none of") as err:
        read_battles(bad, source="arena-hard", baseline="base")
    assert err.value.row == "line 1" and err.value.column == "games[1].score"
    plain = read_battles(ARENA_HARD, baseline="gpt-4-0314", strong_weight=1)
    assert (plain.weight == 1).all() and not any("strong votes" in n for n in plain.notes)
    with pytest.raises(ValueError, match="`strong_weight` must be a number >= 1"):
        read_battles(ARENA_HARD, baseline="gpt-4-0314", strong_weight=0)


def test_alpaca_eval_annotations():
    t = read_battles(ALPACA)
    assert set(t.models) == {"gpt4_1106_preview", "model_x", "model_y"}
    assert any("1 AlpacaEval annotations without a preference left out" in n for n in t.notes)
    assert any("4 annotations of the baseline against itself left out" in n for n in t.notes)
    names = np.asarray(t.models, dtype=object)
    assert (names[t.model_a] == "gpt4_1106_preview").all()  # generator_1 = the baseline = A
    recs = json.loads((ALPACA / "model_x" / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json").read_text())
    x = names[t.model_b] == "model_x"
    prefs = np.array([1.5 if r["preference"] == 0 else r["preference"] for r in recs], dtype=float)
    np.testing.assert_allclose(1 - t.outcome[x], prefs - 1)  # outcome = P(A wins) = 2 - preference
    assert t.features["length"][x][0].tolist() == [len(recs[0]["output_1"]), len(recs[0]["output_2"])]
    assert t.labels["question"][x][0] == recs[0]["instruction"]


def test_alpaca_eval_bad_preference(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([{"instruction": "i", "generator_1": "b", "generator_2": "m", "preference": 1.2},
                                {"instruction": "j", "generator_1": "b", "generator_2": "m", "preference": 3}]))
    with pytest.raises(InputError, match=r"preference 3.0 lies outside \[1, 2\]") as err:
        read_battles(path)
    assert err.value.row == "record 2" and err.value.column == "preference"


def test_detection_and_forced_source(tmp_path):
    for path in (ALPACA, ARENA_HARD, FASTCHAT, next(ARENA_HARD.glob("*.jsonl"))):
        assert looks_like_battles(path)
    records = json.loads(FASTCHAT.read_text())
    import pandas as pd

    frame = pd.DataFrame.from_records(records)
    assert read_battles(frame).n_battles == 38  # detected from the DataFrame's columns too
    with pytest.raises(InputError, match="different battle formats"):
        read_battles([FASTCHAT, next(ARENA_HARD.glob("*.jsonl"))], baseline="b")
    with pytest.raises(TypeError, match="apply to column layouts"):
        read_battles(ALPACA, winner_col="preference")


def test_style_columns_reach_the_format_readers(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([{"instruction": "i", "generator_1": "b", "generator_2": "m", "preference": 1.2,
                                 "output_1": "xx", "output_2": "yyy", "extra": 2.5}]))
    # a difference column named with style_cols is read from the records too
    with pytest.raises(InputError, match="no style column 'verbosity'"):
        read_battles(path, style_cols=["verbosity"])


def test_arena_hard_through_arena_uses_the_baseline_for_the_reader():
    from evalband.preferences import arena

    res = arena(ARENA_HARD, model="win-rate", baseline="gpt-4-0314", rng=1, n_resamples=100)
    frame = res.to_frame().set_index("model")
    assert set(frame.index) == {"gpt-4-0314", "model_x", "model_y"} and frame.loc["gpt-4-0314", "win_rate"] == 0.5
    assert any("strong votes" in n for n in res.notes) and any("count battles, not weights" in n for n in res.notes)
    bt = arena(ARENA_HARD, baseline="gpt-4-0314", rng=1, n_resamples=100).to_frame()
    assert "predicted_win_rate" in bt.columns


def test_fastchat_with_style_counts_on_some_battles_only(tmp_path):
    """Chatbot Arena records where some battles lack ``conv_metadata`` (QA: ``arena`` refused the file, naming one
    record and no remedy): without style control the battles are read and a counted note names those records;
    with style control (``--style``, or ``style=`` in Python) the error says how many lack it, where, and what to
    do."""
    import evalband as eb
    from typer.testing import CliRunner

    from evalband._validate import ArgumentError
    from evalband.cli.main import app

    records = json.loads(FASTCHAT.read_text())
    for k in (3, 7, 11):
        records[k].pop("conv_metadata")
    path = tmp_path / "battles.json"
    path.write_text(json.dumps(records))
    table = read_battles(path)
    note = next(n for n in table.notes if getattr(n, "code", None) == "io.partial-conv-metadata")
    assert note.params["n_missing"] == 3 and not table.features and note.params["at"].count(",") == 2
    res = CliRunner().invoke(app, ["arena", str(path), "--n-resamples", "50", "--format", "json"])
    assert res.exit_code == 0, res.stderr
    assert "io.partial-conv-metadata" in {n["code"] for n in json.loads(res.stdout)["notes"]}
    for style in ("length", "markdown"):
        res = CliRunner().invoke(app, ["arena", str(path), "--n-resamples", "50", "--style", style])
        assert res.exit_code == 2
        assert "3 of 38 battles have no conv_metadata (at record" in res.stderr
        assert "run without `--style`, or leave the battles without conv_metadata out" in res.stderr
    with pytest.raises(ArgumentError, match=r"3 of 38 battles have no conv_metadata .*run without `style`"):
        eb.arena(str(path), style="length", n_resamples=20)
