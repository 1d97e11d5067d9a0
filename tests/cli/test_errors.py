"""QA regressions: operating-system errors (a folder given as the output file, a read-only path) end in one line
on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from evalband.cli._common import errors
from evalband.cli.main import app


@pytest.mark.parametrize("exc", [IsADirectoryError(21, "Is a directory", "/tmp"),
                                 PermissionError(13, "Permission denied", "/root/x.html"),
                                 FileExistsError(17, "File exists", "/proc/version"),
                                 OSError(5, "Input/output error")])
def test_os_errors_are_one_line_exit_2(exc, capsys):
    with pytest.raises(typer.Exit) as stop:
        with errors():
            raise exc
    assert stop.value.exit_code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evalband: error: ") and exc.strerror in err[0]


def test_report_to_a_folder_is_one_line(tmp_path):
    res = CliRunner().invoke(app, ["report", "--example", "vtab", "--models", "Sup-100%,Rotation",
                                   "--n-resamples", "100", "--seed", "1", "-o", str(tmp_path)])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Is a directory" in lines[0] and str(tmp_path) in lines[0]


def test_empty_models_option_is_an_error():
    # `--models ""` (e.g. an unset shell variable) silently meant "all models"
    res = CliRunner().invoke(app, ["summarize", "--example", "vtab", "--models", ""])
    assert res.exit_code == 2 and "`--models` is empty" in res.stderr


def test_single_model_comparison_names_the_file_and_model(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("model,task,item,score\nA,t,1,1\nA,t,2,0\nA,t,3,1\n")
    for args in (["compare"], ["rank"], ["rank", "--test", "friedman"]):
        res = CliRunner().invoke(app, [*args, str(path), "--n-resamples", "100", "--seed", "1"])
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        assert res.exit_code == 2 and len(lines) == 1, res.output
        assert str(path) in lines[0] and "at least 2 models" in lines[0] and "(A)" in lines[0]
