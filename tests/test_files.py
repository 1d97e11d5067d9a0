"""File safety (evalband._files): an output never replaces an input, is written whole or not at all, goes
through a symbolic link only with force, and figure files are overwritten only with force.

Oracle: the file system itself (bytes, inodes and links before and after).
"""

from __future__ import annotations

import os

import pytest

from evalband import _files
from evalband.io.folders import input_files


def test_input_files_expand_globs_folders_lists_and_at_files(tmp_path):
    (tmp_path / "runs").mkdir()
    for name in ("a.csv", "b.csv"):
        (tmp_path / "runs" / name).write_text("x")
    (tmp_path / "names.txt").write_text("m1\n")
    got = input_files(str(tmp_path / "runs" / "*.csv"), None, "-", f"@{tmp_path / 'names.txt'}",
                             [str(tmp_path / "runs")], "no-such-file.csv")
    assert {p.name for p in got} == {"a.csv", "b.csv", "names.txt"}


def test_output_onto_an_input_is_refused_whatever_the_spelling(tmp_path, monkeypatch):
    data = tmp_path / "results.csv"
    data.write_text("model,score\n")
    monkeypatch.chdir(tmp_path)
    os.link(data, tmp_path / "hard.csv")
    (tmp_path / "soft.csv").symlink_to(data)
    inputs = input_files(str(data))
    for spelling in ("results.csv", "./results.csv", str(data), "hard.csv", "soft.csv"):
        for force in (False, True):
            with pytest.raises(ValueError, match=r"is an input of this run .*choose another file name"):
                _files.check_output(spelling, inputs=inputs, force=force)
    assert data.read_text() == "model,score\n"


def test_a_symbolic_link_is_written_through_only_with_force(tmp_path):
    target = tmp_path / "elsewhere.html"
    target.write_text("old")
    link = tmp_path / "report.html"
    link.symlink_to(target)
    with pytest.raises(ValueError, match=r"`-o .*report.html` is a symbolic link to .*elsewhere.html.*--force"):
        _files.check_output(link)
    real = _files.check_output(link, force=True)
    _files.write_atomic(real, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_write_atomic_leaves_the_old_file_whole_on_a_crash(tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("old report")
    os.chmod(path, 0o640)

    def crash(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_files.os, "replace", crash)
    with pytest.raises(OSError, match="No space left"):
        _files.write_atomic(path, "x" * 10_000)
    assert path.read_text() == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left behind
    monkeypatch.undo()
    _files.write_atomic(path, b"new report")
    assert path.read_bytes() == b"new report" and (path.stat().st_mode & 0o777) == 0o640


def test_figures_are_overwritten_only_with_force(tmp_path):
    figs = tmp_path / "figs"
    figs.mkdir()
    (figs / "forest.png").write_bytes(b"png")
    _files.check_figures(figs, ["ranks.png"])  # nothing there yet: fine
    with pytest.raises(ValueError, match=r"already holds 1 of the figure files \(forest.png\); give --force"):
        _files.check_figures(figs, ["forest.png", "ranks.png"])
    _files.check_figures(figs, ["forest.png"], force=True)
    with pytest.raises(ValueError, match="an input of this run"):
        _files.check_figures(figs, ["forest.png"], inputs=[figs / "forest.png"], force=True)
