"""QA O12 (a): `evalband report -o <bad path>` fails at once, before any computing, with one line and exit 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

runner = CliRunner()


@pytest.fixture
def no_computing(monkeypatch):
    """Make any report computation an error that the CLI does not turn into exit 2 (AssertionError: exit 1)."""
    import evalband.report as build

    def refuse(*args, **kwargs):
        raise AssertionError("the report was computed before the output was checked")

    monkeypatch.setattr(build, "build_report", refuse)


@pytest.mark.parametrize("make, args, message", [
    (lambda p: None, lambda p: ["-o", str(p / "missing" / "r.html")], "does not exist"),
    (lambda p: (p / "out").mkdir(), lambda p: ["-o", str(p / "out")], "Is a directory; give a file name"),
    (lambda p: (p / "file").write_text("x"), lambda p: ["-o", str(p / "file" / "r.html")], "is not a folder"),
    (lambda p: (p / "figs").write_text("x"), lambda p: ["-o", str(p / "r.html"), "--figures", str(p / "figs")],
     "it is a file, not a folder"),
    (lambda p: (p / "f").write_text("x"), lambda p: ["-o", str(p / "r.html"), "--figures", str(p / "f" / "sub")],
     "is a file, not a folder"),
])
def test_bad_output_fails_before_computing(tmp_path, no_computing, make, args, message):
    make(tmp_path)
    res = runner.invoke(app, ["report", "--example", "vtab", *args(tmp_path)])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_unwritable_folder_fails_before_computing(tmp_path, no_computing, monkeypatch):
    import evalband.cli.report as cli_report

    # root may write anywhere, so simulate a read-only folder through os.access
    monkeypatch.setattr(cli_report.os, "access", lambda path, mode: False)
    res = runner.invoke(app, ["report", "--example", "vtab", "-o", str(tmp_path / "r.html")])
    assert res.exit_code == 2 and "is not writable" in res.output


def test_good_output_is_accepted(tmp_path, no_computing):
    # a missing --figures folder (and its missing parents) is fine: it is created; computing then starts
    res = runner.invoke(app, ["report", "--example", "vtab", "-o", str(tmp_path / "r.html"), "--figures",
                              str(tmp_path / "a" / "b")])
    # the refusal is not a user error, so the CLI reports it as a bug (exit 1), naming it
    assert res.exit_code == 1 and "internal error (AssertionError: the report was computed before" in res.output
