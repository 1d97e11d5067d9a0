"""`evalband compare` through typer's CliRunner."""


import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
VTAB3 = "Sup-Rotation-100%,Sup-Exemplar-100%,Sup-100%"


def _json(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return jsonout.records(result.stdout)


def test_compare_json_records_keys_and_fractions():
    records = _json(["compare", "--example", "vtab", "--models", VTAB3, "--n-resamples", "1000", "--seed", "1",
                     "--correction", "bonferroni", "--format", "json"])
    assert len(records) == 3  # --models restricts the pairs: 3 models, 3 pairs
    for r in records:
        for key in ("model_a", "model_b", "difference", "ci_low", "ci_high", "p_value", "verdict"):
            assert key in r
        assert abs(r["difference"]) < 0.05  # fractions, not percent
        assert r["ci_low"] <= r["difference"] <= r["ci_high"]
        assert r["verdict"] in ("A better", "B better", "equivalent", "not yet decided")
    first = records[0]
    assert (first["model_a"], first["model_b"]) == ("Sup-Rotation-100%", "Sup-Exemplar-100%")
    assert first["verdict"] == "not yet decided"
    assert "verdict_by_correlation" in first


def test_compare_same_seed_same_output_and_table():
    args = ["compare", "--example", "vtab", "--models", VTAB3, "--n-resamples", "500", "--seed", "3",
            "--format", "csv"]
    a, b = runner.invoke(app, args), runner.invoke(app, args)
    assert a.exit_code == 0 and a.stdout == b.stdout
    table = runner.invoke(app, ["compare", "--example", "vtab", "--models", VTAB3, "--n-resamples", "500",
                                "--seed", "3", "--margin", "1%", "--correction", "max-t"])
    assert table.exit_code == 0, table.output
    assert "Sup-Rotation-100% vs Sup-Exemplar-100%:" in table.stdout and "simultaneous CI" in table.stdout


def test_compare_weights_aggregate_and_interval_options():
    records = _json(["compare", "--example", "vtab", "--models", "Sup-100%,Sup-Rotation-100%", "--n-resamples",
                     "500", "--seed", "2", "--weights", "groups", "--aggregate", "mean,minmax", "--interval",
                     "basic", "--format", "json"])
    assert sorted({r["aggregate"] for r in records}) == ["mean", "minmax"]
    records = _json(["compare", "--example", "vtab", "--models", "Sup-100%,Sup-Rotation-100%", "--n-resamples",
                     "300", "--seed", "2", "--weights", "natural=1,specialized=0,structured=0", "--format", "json"])
    assert len(records) == 1


@pytest.mark.parametrize("args,message", [
    (["--correction", "tukey"], "correction"),
    (["--interval", "studentized"], "`--interval`"),  # the CLI option, not the API argument (QA O15)
    (["--models", "nope,Sup-100%"], "models"),
    (["--margin", "abc"], "margin"),
    (["--weights", "nosuchtask=1"], "weights"),
])
def test_compare_errors_exit_2_with_one_line(args, message):
    result = runner.invoke(app, ["compare", "--example", "vtab", "--n-resamples", "50", *args])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
