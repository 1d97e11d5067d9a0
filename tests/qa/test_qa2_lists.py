"""Second QA pass: ``@FILE`` lists written by Windows editors.

Before the fix, a UTF-8 byte-order mark stayed in the first name (``'\\ufeffSup-100%'``), so ``--models @m.txt``
said "unknown model" for a name that is plainly in the table.
"""

from __future__ import annotations

from typer.testing import CliRunner

from evalband._lists import split_names
from evalband.cli.main import app


def test_bom_and_crlf_in_a_list_file(tmp_path):
    path = tmp_path / "models.txt"
    path.write_bytes("Sup-100%\r\nSup-Rotation-100%\r\n".encode("utf-8-sig"))
    assert split_names(f"@{path}") == ["Sup-100%", "Sup-Rotation-100%"]


def test_models_from_a_bom_file_on_the_command_line(tmp_path):
    path = tmp_path / "models.txt"
    path.write_bytes("Sup-100%\nSup-Rotation-100%\n".encode("utf-8-sig"))
    res = CliRunner().invoke(app, ["compare", "--example", "vtab", "--models", f"@{path}", "--seed", "1",
                                   "--n-resamples", "200", "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert {"Sup-100%", "Sup-Rotation-100%"} <= set(res.stdout.replace("\n", ",").split(","))
