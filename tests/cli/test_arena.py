"""`evalband arena` through typer's CliRunner: the contract of issue 15 run as a user runs it, the formats, the
pairs view and the errors.

Oracles: evalica's Bradley-Terry golden on the 8,931 LLMFAO crowd comparisons (``llmfao-golden.csv``, made by
``evalica.bradley_terry`` and normalized to sum 1; evalica stops at a tolerance, so rtol 5e-4); AlpacaEval's public
formula (mean of ``preference - 1`` and the standard error of that mean, ``alpaca_eval.metrics``), whose values on
the fixture files are stored below with the pandas call that produced them.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app

from ..conftest import FIXTURES, SHARED_DATA
import jsonout  # noqa: E402

runner = CliRunner()
#: the contract's file (../shared/data/preferences/llmfao/crowd-comparisons.csv); the fixture is a byte copy
LLMFAO = SHARED_DATA / "preferences" / "llmfao" / "crowd-comparisons.csv"
if not LLMFAO.exists():
    LLMFAO = FIXTURES / "llmfao" / "crowd-comparisons.csv"
GOLDEN = FIXTURES / "evalica_goldens" / "llmfao-golden.csv"
ALPACA = FIXTURES / "preference_formats" / "alpaca_eval"
#: models with many battles between them (most against Weaver 12k)
SUBSET = "GPT 4,Weaver 12k,Claude v2,command,Jurassic 2 Ultra"
FIELDS = ["model", "rating", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "p_best", "n_battles", "n_wins",
          "n_ties"]


def run(*args):
    result = runner.invoke(app, ["arena", *map(str, args)])
    return result


def records(result) -> list[dict]:
    assert result.exit_code == 0, result.output
    text = result.stdout
    return jsonout.records(text)


@pytest.fixture(scope="module")
def logit_json():
    return {c: records(run(LLMFAO, "--scale", "logit", "--format", "json", "--seed", "2026", "--cluster", c))
            for c in ("auto", "none")}


def test_contract_softmax_of_the_logit_rating_is_evalicas_bradley_terry_for_all_59_models(logit_json):
    # evalband arena ../shared/data/preferences/llmfao/crowd-comparisons.csv --scale logit --format json
    recs = logit_json["auto"]
    golden = pd.read_csv(GOLDEN, dtype={"item": str})
    golden = golden[golden["algorithm"] == "bradley_terry"].set_index("item")["score"]  # evalica, sum 1
    rating = pd.Series({r["model"]: r["rating"] for r in recs})
    share = np.exp(rating) / np.exp(rating).sum()
    assert len(recs) == 59 and set(share.index) == set(golden.index)
    np.testing.assert_allclose(share[golden.index].to_numpy(), golden.to_numpy(), rtol=5e-4)


def test_json_has_exactly_the_issue_fields_one_record_per_model(logit_json):
    recs = logit_json["auto"]
    assert all(list(r) == FIELDS for r in recs)
    assert [r["rank"] for r in recs] == sorted(r["rank"] for r in recs)
    assert sum(r["p_best"] for r in recs) == pytest.approx(1.0)
    assert sum(r["n_battles"] for r in recs) == 2 * 8931
    assert all(isinstance(r[k], int) for r in recs for k in ("rank", "rank_low", "rank_high", "n_battles"))
    assert all(r["ci_low"] <= r["rating"] <= r["ci_high"] for r in recs)


def test_contract_question_clustering_is_wider_than_cluster_none(logit_json):
    clustered = {r["model"]: r["ci_high"] - r["ci_low"] for r in logit_json["auto"]}
    plain = {r["model"]: r["ci_high"] - r["ci_low"] for r in logit_json["none"]}
    wider = np.array([clustered[m] > plain[m] for m in clustered])
    ratio = np.mean(list(clustered.values())) / np.mean(list(plain.values()))
    assert ratio > 1.3 and wider.mean() > 0.9, (ratio, wider.mean())


def test_contract_alpaca_eval_win_rate_and_se_are_the_leaderboards():
    # AlpacaEval's formula on the fixture files (pandas: (pref - 1).mean(), .sem(); a preference 0 read as 1.5,
    # missing ones dropped), as fractions
    stored = {"model_x": (0.6742056666666666, 0.04527588218035003),
              "model_y": (0.4548016086956521, 0.057925366416426136)}
    result = run(ALPACA, "--method", "win-rate", "--baseline", "gpt4_1106_preview", "--format", "json", "--seed", 3)
    recs = {r["model"]: r for r in records(result)}
    assert list(next(iter(recs.values()))) == FIELDS + ["win_rate", "se"]
    for model, (rate, se) in stored.items():
        assert recs[model]["win_rate"] == pytest.approx(rate, abs=1e-6)
        assert recs[model]["se"] == pytest.approx(se, abs=1e-6)
        assert recs[model]["rating"] == recs[model]["win_rate"]
        assert recs[model]["ci_low"] < rate < recs[model]["ci_high"]
    assert recs["gpt4_1106_preview"]["win_rate"] == 0.5
    assert "AlpacaEval's standard error" in result.stderr


def test_length_controlled_json_adds_the_raw_win_rate_interval():
    """With --length-control, se is the rating's (the LC win rate's bootstrap SE, as the table shows it), also
    named se_lc beside lc_win_rate; the raw win rate keeps AlpacaEval's SE as win_rate_se (issue 22)."""
    recs = records(run(ALPACA, "--method", "win-rate", "--baseline", "gpt4_1106_preview", "--length-control",
                       "--format", "json", "--seed", 3, "--n-resamples", 200))
    assert list(recs[0]) == FIELDS + ["win_rate", "se", "lc_win_rate", "se_lc", "win_rate_se", "win_rate_ci_low",
                                      "win_rate_ci_high", "lc_glm"]
    x = next(r for r in recs if r["model"] == "model_x")
    assert x["win_rate"] == pytest.approx(0.6742056666666666, abs=1e-12) and x["rating"] != x["win_rate"]
    assert x["win_rate_se"] == pytest.approx(0.04527588218035003, abs=1e-12)  # AlpacaEval's, as without control
    assert x["se"] == x["se_lc"] != x["win_rate_se"] and x["lc_win_rate"] == x["rating"]
    assert x["lc_glm"] == "length_controlled_v1"
    csv = run(ALPACA, "--method", "win-rate", "--baseline", "gpt4_1106_preview", "--length-control", "--seed", 3,
              "--n-resamples", 200, "--format", "csv")
    frame = pd.read_csv(io.StringIO(csv.stdout[:csv.stdout.index("\n\n")] if "\n\n" in csv.stdout else csv.stdout))
    row = frame.set_index("model").loc["model_x"]
    assert row["se"] == pytest.approx(x["se"], rel=1e-12) and row["se_bootstrap"] == pytest.approx(x["se"], rel=1e-12)


def test_table_is_the_house_style_with_the_seed_note():
    result = run(LLMFAO, "--seed", 7, "--n-resamples", 300, "--models", SUBSET)
    assert result.exit_code == 0, result.output
    out = result.stdout
    header = next(line for line in out.splitlines() if line.startswith("model"))
    assert header.split() == ["model", "rating", "se", "95%", "CI", "rank", "rank", "CI", "P(best)", "n_battles"]  # P(best): the one header of the concept
    assert "Bradley-Terry ratings (elo scale)" in out
    assert "note: seed 7, 300 replicates" in out
    assert "battles with a model outside `--models` left out" in out  # select()'s note, in CLI words
    rows = [line for line in out.splitlines() if line.startswith(("GPT 4", "Weaver 12k"))]
    assert rows and all("(" in r and ")" in r for r in rows)  # the merged interval
    # digits follow the SE: Elo ratings with an SE of tens of points are whole numbers
    gpt = next(r for r in rows if r.startswith("GPT 4")).split()
    assert gpt[2].isdigit() and "." not in gpt[3]


def test_seed_makes_the_numbers_and_formats_agree():
    a = run(LLMFAO, "--seed", 11, "--n-resamples", 200, "--format", "csv")
    b = run(LLMFAO, "--seed", 11, "--n-resamples", 200, "--format", "csv")
    assert a.exit_code == 0 and a.stdout == b.stdout
    csv = pd.read_csv(pd.io.common.StringIO(a.stdout))
    assert FIELDS == list(csv.columns[:11]) and {"rank_sim_low", "tier", "se"} <= set(csv.columns)
    js = records(run(LLMFAO, "--seed", 11, "--n-resamples", 200, "--format", "json"))
    assert [r["model"] for r in js] == csv["model"].tolist()
    np.testing.assert_allclose([r["rating"] for r in js], csv["rating"], rtol=1e-15)
    default = run(LLMFAO, "--n-resamples", 100, "--models", "GPT 4,command")
    assert "note: seed 0, 100 replicates" in default.stdout  # the default seed of every command, said


@pytest.mark.parametrize("fmt,marker", [("markdown", "| model |"), ("latex", r"\begin{tabular}"),
                                        ("table-wide", "rank_sim_low")])
def test_human_formats(fmt, marker):
    result = run(LLMFAO, "--seed", 1, "--n-resamples", 100, "--models", SUBSET, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert marker in result.stdout


def test_scales_and_methods_run():
    prob = run(LLMFAO, "--seed", 1, "--n-resamples", 100, "--scale", "prob", "--format", "json")
    assert sum(r["rating"] for r in records(prob)) == pytest.approx(1.0)
    anchored = records(run(LLMFAO, "--seed", 1, "--n-resamples", 100, "--anchor", "GPT 4=1000", "--format", "json"))
    gpt = next(r for r in anchored if r["model"] == "GPT 4")
    assert gpt["rating"] == gpt["ci_low"] == gpt["ci_high"] == pytest.approx(1000)
    for extra in (["--method", "elo", "--k", "8"], ["--method", "rao-kupper"], ["--ties", "drop"],
                  ["--method", "win-rate"], ["--cluster", "judge"], ["--cluster", "worker"]):
        result = run(LLMFAO, "--seed", 1, "--n-resamples", 100, "--models", SUBSET, *extra)
        assert result.exit_code == 0, (extra, result.output)


def test_a_column_of_clusters_and_renamed_columns(tmp_path):
    frame = pd.read_csv(LLMFAO).rename(columns={"left": "first", "right": "second", "winner": "verdict",
                                                "prompt": "task_id"})
    frame["verdict"] = frame["verdict"].replace({"left": "a", "right": "b"})
    path = tmp_path / "renamed.csv"
    frame.to_csv(path, index=False)
    columns = ["--model-a-col", "first", "--model-b-col", "second", "--winner-col", "verdict"]
    by_task = records(run(path, *columns, "--cluster", "task_id", "--seed", 4, "--format", "json",
                          "--n-resamples", 200))
    by_question = records(run(path, *columns, "--question-col", "task_id", "--seed", 4, "--format", "json",
                              "--n-resamples", 200))
    plain = records(run(LLMFAO, "--seed", 4, "--format", "json", "--n-resamples", 200))
    assert [r["rating"] for r in by_task] == pytest.approx([r["rating"] for r in plain], rel=1e-12)
    assert [r["ci_low"] for r in by_question] == pytest.approx([r["ci_low"] for r in plain], rel=1e-12)
    # clusters read from a column are the same 13 prompts: the same units, so the same widths
    assert np.mean([r["ci_high"] - r["ci_low"] for r in by_task]) == pytest.approx(
        np.mean([r["ci_high"] - r["ci_low"] for r in plain]), rel=0.3)


def test_pairs_view_has_compares_verdicts_and_win_probabilities():
    result = run(LLMFAO, "--pairs", "--seed", 2, "--n-resamples", 300, "--format", "json")
    recs = records(result)
    assert len(recs) == 59 * 58 // 2
    assert {r["verdict"] for r in recs} <= {"A better", "B better", "equivalent", "not yet decided"}
    assert all(0 <= r["win_probability"] <= 1 for r in recs)
    assert {r["correction"] for r in recs} == {"max-t"}
    table = run(LLMFAO, "--pairs", "--seed", 2, "--n-resamples", 300)
    assert table.exit_code == 0, table.output
    assert "P(A wins)" in table.stdout and "58 of 1,711 pairs shown (neighbours in the ranking)" in table.stdout
    assert "pairs decided" in table.stdout
    small = run(LLMFAO, "--pairs", "--seed", 2, "--n-resamples", 300, "--correction", "none", "--models",
                "GPT 4,Dolly v2 (3B),command")
    assert small.exit_code == 0 and "GPT 4" in small.stdout and "p_adjusted" not in small.stdout


def test_pairs_of_win_rates_are_paired_differences():
    recs = records(run(ALPACA, "--method", "win-rate", "--baseline", "gpt4_1106_preview", "--pairs", "--format",
                       "json", "--seed", 3))
    xy = next(r for r in recs if {r["model_a"], r["model_b"]} == {"model_x", "model_y"})
    sign = 1 if xy["model_a"] == "model_x" else -1
    assert sign * xy["difference"] == pytest.approx(0.6742056666666666 - 0.4548016086956521, abs=1e-12)
    assert "win_probability" not in xy


@pytest.mark.parametrize("args,message", [
    (["--method", "glicko"], "`--model` must be one of 'bt', 'elo'"),
    (["--model", "glicko"], "`--model` must be one of 'bt', 'elo'"),
    (["--ties", "ignore"], "`--ties` must be one of"),
    (["--scale", "percent"], "`--scale` must be one of"),
    (["--anchor", "nobody=1000"], "`--anchor`: unknown model 'nobody'"),
    (["--cluster", "session"], "column 'session' (named with `--cluster`) is not in the file"),
    (["--style", "length"], "no style column 'length'"),
    (["--length-control"], "`--length-control` needs `--model` 'win-rate' and a `--baseline`"),
    (["--method", "win-rate", "--baseline", "nobody"], "`--baseline`: unknown model 'nobody'"),
    (["--method", "elo", "--k", "0"], "`--k` must be a finite number > 0"),
    (["--n-resamples", "1"], "`--n-resamples` must be an integer >= 2"),
    (["--confidence", "1.5"], "`--confidence` must lie strictly between 0 and 1"),
    (["--models", "GPT 4"], "`--models` must name at least two models"),
    (["--source", "alpaca-eval"], "evalband: error:"),
    (["--winner-col", "nope"], "column 'nope' (named with `--winner-col`) is not in the file"),
    (["--format", "xml"], "`--format` must be one of"),
    (["--wide", "--format", "json"], "`--wide` is for the terminal table"),
])
def test_errors_are_one_line_and_exit_2(args, message):
    result = run(LLMFAO, "--n-resamples", 20, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output and "internal error" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_files_that_are_not_battles_or_are_missing(tmp_path):
    scores = tmp_path / "scores.csv"
    pd.DataFrame({"model": ["x", "y"], "task": ["t", "t"], "item": [1, 1], "score": [1, 0]}).to_csv(scores,
                                                                                                   index=False)
    for path, message in ((scores, "not a battle table: no model_a, model_b, winner column"),
                          (tmp_path / "missing.csv", "no such file")):
        result = run(path)
        assert result.exit_code == 2 and message in result.output, result.output


def test_style_coefficients_with_intervals_in_the_table_and_the_json(tmp_path):
    """Issue 22: the style coefficients (length, markdown) with their intervals are in the terminal and JSON output,
    not only in Python's ``res.style``."""

    import numpy as np
    import pandas as pd

    import evalband as eb

    rng = np.random.default_rng(0)
    names, strength = ["a", "b", "c", "d"], np.array([0.5, 0.2, 0.0, -0.3])
    rows = []
    for q in range(120):
        for _ in range(3):
            i, j = rng.choice(4, 2, replace=False)
            la, lb = rng.lognormal(6, 0.5, 2)
            z = strength[i] - strength[j] + 0.8 * (np.log(la) - np.log(lb))
            rows.append((names[i], names[j], "model_a" if rng.random() < 1 / (1 + np.exp(-z)) else "model_b",
                         f"q{q}", la, lb))
    path = tmp_path / "style.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "question_id", "length_a", "length_b"]).to_csv(
        path, index=False)
    args = ["arena", str(path), "--style", "length", "--seed", "1", "--n-resamples", "200"]
    res = eb.arena(str(path), style="length", rng=1, n_resamples=200).style.set_index("feature").loc["length"]
    table = CliRunner().invoke(app, args, env={"COLUMNS": "100"})
    assert table.exit_code == 0, table.output
    line = next(x for x in table.stdout.splitlines() if x.startswith("length "))
    assert f"({res['ci_low']:.2f}, {res['ci_high']:.2f})" in line and "95% CI" in table.stdout
    out = CliRunner().invoke(app, [*args, "-f", "json"])
    doc = jsonout.records(out.stdout)
    (style,) = doc["style"]
    assert style["feature"] == "length" and style["ci_low"] == pytest.approx(res["ci_low"], abs=0, rel=1e-12)
    assert style["coefficient"] > 0 and {"se", "ci_high", "confidence_level"} <= set(style)
    assert [r["model"] for r in doc["records"]][0] == "a"  # the records as before, beside the style
    # the note says "rating_raw is the fit without style": the records carry it (with its interval), as CSV does
    raw = eb.arena(str(path), style="length", rng=1, n_resamples=200).to_frame().set_index("model")
    for rec in doc["records"]:
        assert list(rec)[:len(FIELDS)] == FIELDS and {"rating_raw", "ci_low_raw", "ci_high_raw"} <= set(rec)
        assert rec["rating_raw"] == raw.loc[rec["model"], "rating_raw"]
        assert rec["ci_low_raw"] == raw.loc[rec["model"], "ci_low_raw"]
    assert any("rating_raw" in n["text"] for n in jsonout.notes(out.stdout))
    plain = jsonout.records(CliRunner().invoke(app, ["arena", str(path), "--seed", "1", "--n-resamples", "200", "-f",
                                                "json"]).stdout)
    assert isinstance(plain, list)  # without --style, the JSON is the list of records it always was
    # QA pass: without --style (or with fewer features than the file has) the reader's note listed the style
    # features as if the ratings controlled for them; it says they are controlled only where --style names them
    out = CliRunner().invoke(app, ["arena", str(path), "--seed", "1", "--n-resamples", "50", "-f", "json"])
    said = [n for n in jsonout.note_texts(out.stdout) if n.startswith("style features")]
    assert said and all("only for the ones `--style` names" in n for n in said), said
