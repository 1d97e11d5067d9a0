"""``evalband agreement`` through typer's CliRunner: the contract on Krippendorff's (2011) codings, the reference
table, position bias on LLMFAO, and the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# long form (unit, rater, value) of Krippendorff (2011)'s reliability data, 4 coders x 12 units, '' = missing;
# written from codings.csv by tests/judges/test_interrater.py's codings_long()
CODINGS_LONG = FIXTURES / "krippendorff_codings" / "codings_long.csv"
LLMFAO = FIXTURES / "llmfao"


def run(*args):
    return runner.invoke(app, ["agreement", *map(str, args)])


def test_contract_krippendorff_codings_nominal():
    """The contract: `evalband agreement codings_long.csv --level nominal --format json` gives
    krippendorff_alpha 0.743 (Krippendorff 2011, published) with ci_low < 0.743 < ci_high."""
    res = run(CODINGS_LONG, "--level", "nominal", "--format", "json", "--seed", 2026)
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    assert round(out["krippendorff_alpha"], 3) == 0.743
    assert out["ci_low"] < 0.743 < out["ci_high"]
    assert out["level"] == "nominal" and out["n_raters"] == 4 and out["n_ratings"] == 41
    rows = {(r["statistic"], r["rater_a"], r["rater_b"]): r for r in out["records"]}
    assert {"krippendorff_alpha", "fleiss_kappa", "percent_agreement", "gwet_ac1"} <= {k[0] for k in rows}
    assert sum(k[0] == "cohen_kappa" for k in rows) == 6  # every pair of the 4 coders
    # the same seed gives the same numbers
    again = json.loads(run(CODINGS_LONG, "--level", "nominal", "--format", "json", "--seed", 2026).stdout)
    assert again["ci_low"] == out["ci_low"] and again["ci_high"] == out["ci_high"]


# krippendorff.alpha(reliability_data=codings(), level_of_measurement=LEVEL), krippendorff 0.9.0
KRIPPENDORFF = {"ordinal": 0.8153875037548814, "interval": 0.8491071428571428, "ratio": 0.7974027747116121}


@pytest.mark.parametrize("level", sorted(KRIPPENDORFF))
def test_other_levels_equal_the_krippendorff_package(level):
    out = json.loads(run(CODINGS_LONG, "--level", level, "--format", "json", "--seed", 1,
                         "--n-resamples", 200).stdout)
    assert out["krippendorff_alpha"] == pytest.approx(KRIPPENDORFF[level], abs=1e-12)
    assert out["level"] == level


def test_table_says_the_detected_level_and_the_seed():
    res = run(CODINGS_LONG, "--seed", 5, "--n-resamples", 300)
    assert res.exit_code == 0, res.output
    assert "Krippendorff's alpha" in res.stdout and "Cohen's kappa" in res.stdout
    assert "level ordinal detected" in res.stdout  # integer ratings 1-5: ordinal, said in a note
    assert "seed 5, 300 bootstrap replicates over units" in res.stdout


def test_wide_shape_gives_the_long_numbers(tmp_path):
    long = pd.read_csv(CODINGS_LONG)
    wide = long.pivot(index="unit", columns="rater", values="value").reset_index()
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    a = json.loads(run(path, "--shape", "wide", "--level", "nominal", "--format", "json", "--seed", 3).stdout)
    b = json.loads(run(CODINGS_LONG, "--level", "nominal", "--format", "json", "--seed", 3).stdout)
    assert a["krippendorff_alpha"] == b["krippendorff_alpha"]
    assert (a["ci_low"], a["ci_high"]) == (b["ci_low"], b["ci_high"])  # same units, same draws


def llmfao_ratings(tmp_path) -> Path:
    """Crowd workers (w<id>) and GPT-4 on the same LLMFAO pairs, in the order shown (left, right)."""
    crowd = pd.read_csv(LLMFAO / "crowd-comparisons.csv")
    gpt4 = pd.read_csv(LLMFAO / "gpt4-crowd-comparisons.csv")
    rows = pd.concat([crowd.assign(rater="w" + crowd["worker"].astype(str)), gpt4.assign(rater="gpt-4")])
    path = tmp_path / "ratings.csv"
    rows[["id", "prompt", "rater", "winner", "left", "right"]].to_csv(path, index=False)
    return path


def test_llmfao_gpt4_against_the_crowd_majority(tmp_path):
    """docs/judges.md's worked example from the command line: GPT-4 against the crowd's majority (accuracy 0.446
    on 1,831 pairs, confusion matrix as counted there), and its position bias against the crowd on the same
    games (0.456 against 0.519: -0.063)."""
    res = run(llmfao_ratings(tmp_path), "--unit-col", "id", "--rater-col", "rater", "--value-col", "winner",
              "--cluster", "prompt", "--reference", "majority", "--judges", "gpt-4", "--seed", 2026,
              "--n-resamples", 500, "--format", "json")
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    ref = {r["statistic"]: r for r in out["reference"]["records"]}
    assert round(ref["accuracy"]["estimate"], 3) == 0.446 and ref["accuracy"]["n_units"] == 1831
    assert ref["accuracy"]["ci_low"] < 0.446 < ref["accuracy"]["ci_high"]
    assert out["reference"]["confusion"]["gpt-4"]["tie"] == {"left": 306, "right": 427, "tie": 39}
    bias = {(r["judge"], r["statistic"]): r["estimate"] for r in out["position_bias"]}
    assert round(bias[("crowd", "first_position_win_rate")], 3) == 0.519
    assert round(bias[("gpt-4", "first_position_win_rate")], 3) == 0.456
    assert round(bias[("gpt-4", "first_position_vs_reference")], 3) == -0.063


def test_reference_table_and_confusion_in_the_terminal(tmp_path):
    res = run(llmfao_ratings(tmp_path), "--unit-col", "id", "--rater-col", "rater", "--value-col", "winner",
              "--cluster", "prompt", "--reference", "majority", "--judges", "gpt-4", "--seed", 1,
              "--n-resamples", 200)
    assert res.exit_code == 0, res.output
    assert "each judge against majority" in res.stdout and "confusion: gpt-4 against majority" in res.stdout
    assert "first-position win rate" in res.stdout and "only 13 clusters" in res.stdout


def test_csv_has_every_section(tmp_path):
    res = run(llmfao_ratings(tmp_path), "--unit-col", "id", "--rater-col", "rater", "--value-col", "winner",
              "--reference", "majority", "--judges", "gpt-4", "--seed", 1, "--n-resamples", 100, "--format", "csv")
    assert res.exit_code == 0, res.output
    import io

    frame = pd.read_csv(io.StringIO(res.stdout))
    assert set(frame["section"]) == {"agreement", "reference", "position_bias"}


@pytest.mark.parametrize("args, words", [
    (("--level", "loud"), "--level"),
    (("--shape", "tall"), "--shape"),
    (("--rater-col", "coder"), "column 'coder' (named with `--rater-col`) is not in the file"),
    (("--reference", "coder 9"), "coder 9"),
    (("--n-resamples", "1"), "--n-resamples"),
])
def test_bad_arguments_are_one_line_exit_2(args, words):
    res = run(CODINGS_LONG, *args)
    assert res.exit_code == 2, res.output
    assert words in res.output and "internal error" not in res.output


def test_report_on_ratings_points_to_agreement(tmp_path):
    res = runner.invoke(app, ["report", str(CODINGS_LONG), "--source", "ratings", "-o", str(tmp_path / "r.md")])
    assert res.exit_code == 2, res.output
    assert "evalband agreement" in res.output and "internal error" not in res.output
