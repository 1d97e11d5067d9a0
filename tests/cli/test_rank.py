"""`evalband rank` through typer's CliRunner."""


from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()


def test_rank_json_records_keys():
    result = runner.invoke(app, ["rank", "--example", "vtab", "--n-resamples", "1000", "--seed", "1",
                                 "--confidence", "overlap", "--format", "json"])
    assert result.exit_code == 0, result.output
    records = jsonout.records(result.stdout)
    assert len(records) == 16
    for r in records:
        for key in ("model", "estimate", "ci_low", "ci_high", "rank_mean", "rank_low", "rank_high", "p_best"):
            assert key in r
        assert 0 < r["estimate"] < 1 and r["rank_low"] <= r["rank_high"]
    assert records[0]["model"] == "Sup-Rotation-100%" and records[0]["confidence_level"] == 0.834
    assert abs(sum(r["p_best"] for r in records) - 1) < 1e-9


def test_rank_table_mean_rank_and_errors():
    result = runner.invoke(app, ["rank", "--example", "vtab", "--aggregate", "mean-rank", "--n-resamples", "300",
                                 "--seed", "1", "--models", "Sup-100%,Rotation,Exemplar"])
    assert result.exit_code == 0, result.output
    assert "sim. rank CI" in result.stdout and "Rotation" in result.stdout  # rank_sim_low/high as one column
    bad = runner.invoke(app, ["rank", "--example", "vtab", "--aggregate", "nonsense", "--n-resamples", "50"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
