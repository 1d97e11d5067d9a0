"""Second QA pass: CRUXEval files of one model with and without a temperature in the name.

Before the fix, ``codellama-7b_input.json`` next to ``codellama-7b_temp0.8_input.json`` became a model named
``codellama-7b (temp None)``.
"""

from __future__ import annotations

import json

import pytest

from evalband import read


def test_file_without_temperature_keeps_the_model_name(tmp_path):
    scored = {"raw_scored_generations": {"sample_0": [True, False], "sample_1": [False, False]}}
    (tmp_path / "codellama-7b_input.json").write_text(json.dumps(scored))
    (tmp_path / "codellama-7b_temp0.8_input.json").write_text(json.dumps(scored))
    table = read(tmp_path)
    assert set(table.models) == {"codellama-7b", "codellama-7b (temp 0.8)"}
    assert not any("None" in m for m in table.models)
    # both hold the same booleans: 1 of 4 answers right for each model
    means = table.data.groupby("model", observed=True)["score"].mean()
    assert means.to_dict() == pytest.approx({"codellama-7b": 0.25, "codellama-7b (temp 0.8)": 0.25})


def test_scored_file_with_sorted_keys_is_recognized(tmp_path):
    # `jq -S` / json.dump(sort_keys=True) put pass_at_1, pass_at_5 first; before, such a file was not taken for
    # CRUXEval ("cannot tell the table's shape ... found 'pass_at_1', 'pass_at_5', 'raw_generations', ...", or
    # skipped with a note in a folder)
    from pathlib import Path

    from evalband.estimation import passk

    src = Path(__file__).resolve().parents[1] / "fixtures" / "cruxeval" / \
        "sample_scored_codellama-7b_temp0.2_input.json"
    doc = json.loads(src.read_text())
    path = tmp_path / "codellama-7b_temp0.2_input.json"
    path.write_text(json.dumps(doc, sort_keys=True))
    assert path.read_text().startswith('{"pass_at_1"')
    est = passk(read(path), k=[1, 5]).to_frame().query("metric == 'pass@k'").set_index("k")["estimate"]
    # the file's own stored values (HumanEval estimator), in percent
    assert 100 * est[1] == pytest.approx(doc["pass_at_1"], abs=5e-3)
    assert 100 * est[5] == pytest.approx(doc["pass_at_5"], abs=5e-3)
