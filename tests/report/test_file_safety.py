"""`evalband report` never clobbers a file it should not (issue 14): `report x.csv -o x.csv` is a one-line error,
exit 2, with x.csv untouched; `-o` onto a symbolic link and existing figure files need `--force`.

Oracle: the bytes of every file before and after.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("matplotlib")

from evalband.cli.main import app  # noqa: E402

FAST = ["--n-resamples", "100", "--no-bayes", "--seed", "1"]


@pytest.fixture
def results(tmp_path):
    gen = np.random.default_rng(0)
    rows = [f"{m},t{t},{i},{int(gen.random() < 0.5 + 0.1 * k)}" for k, m in enumerate("AB") for t in range(2)
            for i in range(25)]
    path = tmp_path / "results.csv"
    path.write_text("model,task,item,score\n" + "\n".join(rows) + "\n")
    return path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _one_line_error(res):
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("evalband: error: "), res.stderr
    return lines[0]


@pytest.mark.parametrize("spelling", ["same", "relative", "force", "glob-member"])
def test_report_onto_its_input_is_refused(results, spelling, monkeypatch):
    before = _digest(results)
    monkeypatch.chdir(results.parent)
    source, out, extra = str(results), str(results), []
    if spelling == "relative":
        out = "./results.csv"
    elif spelling == "force":
        extra = ["--force"]
    elif spelling == "glob-member":
        source = str(results.parent / "*.csv")
    res = CliRunner().invoke(app, ["report", source, "-o", out, *FAST, *extra])
    line = _one_line_error(res)
    assert "is an input of this run" in line and "results.csv" in line
    assert _digest(results) == before


def test_a_baselines_file_and_an_at_file_are_inputs_too(results, tmp_path):
    names = tmp_path / "models.txt"
    names.write_text("A\nB\n")
    res = CliRunner().invoke(app, ["report", str(results), "--models", f"@{names}", "-o", str(names), *FAST])
    assert "is an input of this run" in _one_line_error(res) and names.read_text() == "A\nB\n"


def test_output_through_a_symbolic_link_needs_force(results, tmp_path):
    target = tmp_path / "kept.md"
    target.write_text("my notes\n")
    link = tmp_path / "report.md"
    link.symlink_to(target)
    res = CliRunner().invoke(app, ["report", str(results), "-o", str(link), *FAST])
    assert "symbolic link" in _one_line_error(res) and target.read_text() == "my notes\n"
    res = CliRunner().invoke(app, ["report", str(results), "-o", str(link), *FAST, "--force"])
    assert res.exit_code == 0, res.stderr
    assert link.is_symlink() and target.read_text().startswith("# ")


def test_existing_figures_need_force_and_nothing_is_half_written(results, tmp_path):
    figs = tmp_path / "figs"
    out = tmp_path / "report.html"
    res = CliRunner().invoke(app, ["report", str(results), "-o", str(out), "--figures", str(figs), *FAST])
    assert res.exit_code == 0, res.stderr
    written = {p.name: _digest(p) for p in figs.iterdir()}
    report = _digest(out)
    assert "forest.png" in written and not [p for p in tmp_path.rglob("*.tmp")]
    res = CliRunner().invoke(app, ["report", str(results), "-o", str(tmp_path / "again.html"), "--figures",
                                   str(figs), *FAST])
    assert "already holds" in _one_line_error(res) and "--force" in res.stderr
    assert not (tmp_path / "again.html").exists()  # refused before anything was written
    assert {p.name: _digest(p) for p in figs.iterdir()} == written and _digest(out) == report
    res = CliRunner().invoke(app, ["report", str(results), "-o", str(out), "--figures", str(figs), *FAST,
                                   "--force"])
    assert res.exit_code == 0, res.stderr


def test_write_report_checks_before_writing(results, tmp_path):
    from evalband import read
    from evalband.io.folders import input_files
    from evalband.report.build import build_report
    from evalband.report.writers import write_report

    rep = build_report(read(results), n_resamples=100, rng=1, bayes=False)
    with pytest.raises(ValueError, match="is an input of this run"):
        write_report(rep, results, format="markdown", inputs=input_files(str(results)))
    assert results.read_text().startswith("model,task,item,score")
