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


def test_unquoted_name_with_a_comma_gets_a_quoting_hint(tmp_path):
    path = tmp_path / "comma.csv"
    path.write_text('model,task,item,score\n"m,1",t,1,1\n"m,1",t,2,0\nb,t,1,0\nb,t,2,1\n')
    res = CliRunner().invoke(app, ["compare", str(path), "--models", "m,1,b", "--n-resamples", "100"])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1
    assert "unknown 'm', '1'" in lines[0] and "quoted as in CSV: '\"m,1\"'" in lines[0]
    ok = CliRunner().invoke(app, ["compare", str(path), "--models", '"m,1",b', "--n-resamples", "100", "-f", "csv"])
    assert ok.exit_code == 0, ok.output


def test_list_file_lines_quoted_as_on_the_command_line(tmp_path):
    # before: '"m,1"' in a @FILE stayed '"m,1"' (quotes and all), so a list copied from a command line failed
    path = tmp_path / "weights.txt"
    path.write_text('"mmlu:subject=law,method=mc"=2\ngsm=8k=1\nplain,name\n')
    assert split_names(f"@{path}") == ["mmlu:subject=law,method=mc=2", "gsm=8k=1", "plain,name"]
    from evalband.aggregate import parse_weights

    weights = tmp_path / "w.txt"
    weights.write_text('"mmlu:subject=law,method=mc"=2\ngsm=8k=1\n')
    w, _ = parse_weights(f"@{weights}", ["mmlu:subject=law,method=mc", "gsm=8k"])
    assert w == {"mmlu:subject=law,method=mc": 2.0, "gsm=8k": 1.0}
