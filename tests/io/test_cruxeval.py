"""CRUXEval scored generations read as items x trials, checked against the pass@k the files store (QA O19).

Before the reader, ``read()`` sent these files to the rliable reader, which failed with "'raw_generations' must be
a list of run scores; got dict" (or, for the scored part, read 800 "tasks" of booleans).
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import InputError, read
from evalband.cli.main import app
from evalband.estimation import passk
from evalband.io.folders import classify

from ..conftest import FIXTURES
import jsonout  # noqa: E402

CRUX = FIXTURES / "cruxeval"
INPUT = CRUX / "sample_scored_codellama-7b_temp0.2_input.json"
OUTPUT = CRUX / "sample_scored_codellama-7b_temp0.2_output.json"


def test_input_task_reproduces_the_published_pass_at_k():
    table = read(INPUT)  # source='auto' finds the CRUXEval reader
    assert table.models == ("codellama-7b",) and table.tasks == ("CRUXEval-I",)
    assert table.has_trials and table.score_kind == "binary"
    res = passk(table, k=(1, 5))
    at = 100 * res.pass_at_k.estimate[0, 0]
    # data README and the file itself: pass@1 = 35.95, pass@5 = 44.99 (stored as 35.94999999999998, 44.991071428571416)
    assert round(at[0], 2) == 35.95 and round(at[1], 2) == 44.99
    stored = json.loads(INPUT.read_text())
    assert at[0] == pytest.approx(stored["pass_at_1"], abs=1e-9)
    assert at[1] == pytest.approx(stored["pass_at_5"], abs=1e-9)
    assert res.pass_at_k.n[0, 0, 0] == 800 and res.samples[0, 0] == 10
    assert any("stores pass@1 = 35.95%, pass@5 = 44.99%" in n for n in table.notes)


def test_folder_of_both_tasks_matches_each_files_stored_values():
    table = read(CRUX)  # the folder (ATTRIBUTION.txt is skipped and listed)
    assert table.tasks == ("CRUXEval-I", "CRUXEval-O")
    assert any("ATTRIBUTION.txt" in n for n in table.notes)
    at = 100 * passk(table, k=(1, 5)).pass_at_k.estimate[0]
    for t, path in enumerate((INPUT, OUTPUT)):
        stored = json.loads(path.read_text())
        # the values CRUXEval's evaluate_generations.py stored (HumanEval estimator): output task 34.2125, 40.2867
        assert at[t].tolist() == pytest.approx([stored["pass_at_1"], stored["pass_at_5"]], abs=1e-9)


def test_files_with_raw_generations_first_are_cruxeval_not_rliable(tmp_path):
    path = tmp_path / "gpt-4_temp0.8_output.json"
    path.write_text(json.dumps({"raw_generations": {"sample_0": ["'a'", "'b'"], "sample_1": ["1", "2"]},
                                "raw_scored_generations": {"sample_0": [True, False], "sample_1": [False, False]},
                                "pass_at_1": 25.0, "pass_at_5": 0.0}))
    assert classify(path) == "cruxeval"
    table = read(path)
    assert table.models == ("gpt-4",) and table.tasks == ("CRUXEval-O",)
    assert table.data["score"].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert any("gpt-4 at temperature 0.8" in n for n in table.notes)


def test_unscored_generations_and_bad_values_are_one_line_errors(tmp_path):
    raw = tmp_path / "m_temp0.2_input.json"
    raw.write_text(json.dumps({"raw_generations": {"sample_0": ["f(1)"]}}))
    with pytest.raises(InputError, match="no 'raw_scored_generations': score them first"):
        read(raw)
    bad = tmp_path / "m_temp0.2_output.json"
    bad.write_text(json.dumps({"raw_scored_generations": {"sample_0": [True, "yes"]}}))
    with pytest.raises(InputError, match=r"m_temp0.2_output.json: 'raw_scored_generations.sample_0\[1\]' must be"
                                         r" true or false; got 'yes'"):
        read(bad)


def test_two_temperatures_of_one_model_are_two_models(tmp_path):
    for temp, scores in (("0.2", [True, False]), ("0.8", [True, True])):
        (tmp_path / f"m_temp{temp}_input.json").write_text(
            json.dumps({"raw_scored_generations": {"sample_0": scores, "sample_1": scores}}))
    table = read(str(tmp_path / "*.json"))
    assert table.models == ("m (temp 0.2)", "m (temp 0.8)")


def test_cli_passk_reads_the_file_directly(tmp_path):
    shutil.copy(INPUT, tmp_path)
    res = CliRunner().invoke(app, ["passk", str(tmp_path / INPUT.name), "--k", "1,5", "-f", "json"])
    assert res.exit_code == 0, res.output
    at = pd.DataFrame(jsonout.records(res.stdout)).query("metric == 'pass@k'").sort_values("k")
    assert (100 * at["estimate"]).round(2).tolist() == [35.95, 44.99]
