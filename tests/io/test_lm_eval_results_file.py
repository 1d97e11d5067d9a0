"""QA regression: naming an lm-eval ``results_<date>.json`` file reads the ``samples_<task>_<date>.jsonl`` files
beside it (naming the folder or a samples file already worked); before, 'no usable result ... no samples file'."""

from __future__ import annotations

from pathlib import Path

from evalband import read

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "harness_logs" / "lm_eval"


def test_results_file_named_alone_reads_its_samples():
    results = next(LM_EVAL.glob("results_*.json"))
    by_file = read(results)
    by_folder = read(LM_EVAL)
    assert by_file.models == by_folder.models and by_file.tasks == by_folder.tasks
    assert by_file.counts().n.tolist() == by_folder.counts().n.tolist()
