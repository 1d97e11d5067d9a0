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
