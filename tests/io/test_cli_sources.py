"""Harness logs through the command line: --source, auto detection, one-line errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

from ..conftest import FIXTURES

LOGS = FIXTURES / "harness_logs"
runner = CliRunner()


def test_summarize_inspect_eval_logs_with_metadata_cluster():
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    r = runner.invoke(app, ["summarize", str(LOGS / "inspect_eval"), "--cluster", "metadata.passage",
                            "--format", "csv"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("mockllm/model,tiny,")]
    # inspect_ai 0.3.285 stored accuracy 0.4444444444444445 and stderr(cluster="passage") 0.05555555555555555
    est, se = (float(v) for v in lines[0].split(",")[2:4])
    assert est == pytest.approx(0.4444444444444445, rel=1e-12)
    assert se == pytest.approx(0.05555555555555555, rel=1e-9)


@pytest.mark.parametrize("source", ["helm", "lm-eval", "inspect"])
def test_source_flag_picks_the_reader_in_a_mixed_folder(source):
    pytest.importorskip("zstandard", reason="inspect .eval archives need the logs extra")
    r = runner.invoke(app, ["summarize", str(LOGS), "--source", source, "--format", "csv"])
    assert r.exit_code == 0, r.output


def test_mixed_folder_without_source_is_one_line_error():
    r = runner.invoke(app, ["summarize", str(LOGS)])
    assert r.exit_code == 2
    assert "mixes logs of different tools" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_rliable_score_file_is_detected():
    import json

    runs = json.loads((FIXTURES / "atari100k" / "SPR.json").read_text())["Pong"]
    r = runner.invoke(app, ["summarize", str(FIXTURES / "atari100k" / "SPR.json"), "--format", "csv"])
    assert r.exit_code == 0, r.output
    pong = next(ln for ln in r.output.splitlines() if ln.startswith("SPR,Pong,"))
    assert float(pong.split(",")[2]) == pytest.approx(sum(runs) / len(runs), rel=1e-12)


def test_reader_options_reach_the_reader_only_when_given(tmp_path):
    from evalband.cli._common import load_input

    t = load_input(str(LOGS / "helm"), None, source="helm", metric="quasi_exact_match", split=None)
    assert any("quasi_exact_match" in n for n in t.notes)
    (tmp_path / "r.csv").write_text("model,task,item,score\na,t,1,1\na,t,2,0\n")
    plain = load_input(str(tmp_path / "r.csv"), None, metric=None, filter=None, split=None, baselines=None)
    assert plain.models == ("a",)
    spr = load_input(str(FIXTURES / "atari100k" / "SPR.json"), None,
                     baselines=str(FIXTURES / "atari100k" / "atari_100k_baselines.csv"))
    assert any("normalized" in n for n in spr.notes)
