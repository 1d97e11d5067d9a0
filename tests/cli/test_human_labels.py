"""Human labels in the main commands (--human-col, --ppi): the contract of issue 16 against ppi_py, and the one
rule (a column named or found, the same numbers) through summarize, compare, rank and report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()
# two models x 500 items of one task; judge score on every row, a human 0/1 label on 100 items (make_fixture.py)
JUDGED = Path(__file__).resolve().parents[1] / "fixtures" / "ppi" / "judged.csv"

# ppi_py 0.2.3, per model, on the rows of JUDGED (Y = human labels, Yhat = scores of the labelled rows, Yhat_unl =
# scores of the others):
#   est = ppi_mean_pointestimate(Y, Yhat, Yhat_unl, lam=LAM); lo, hi = ppi_mean_ci(Y, Yhat, Yhat_unl, alpha=0.05,
#   lam=LAM); PPI++ lambda: _calc_lam_glm(Y - pe, Yhat - pe, Yhat_unl - pe, np.eye(1), clip=True) with
#   pe = ppi_mean_pointestimate(..., lam=1) (what ppi_mean_ci does for lam=None)
PPI_PY = {  # model -> {lam: (estimate, ci_low, ci_high)}
    "alpha": {None: (0.5871807469381156, 0.5219615410762044, 0.6523999528000268),
              1: (0.5858025, 0.5207653257451027, 0.6508396742548973)},
    "beta": {None: (0.5574081234760793, 0.49012653121286154, 0.624689715739297),
             1: (0.5561677500000001, 0.48891285864098644, 0.6234226413590137)},
}
PPI_PY_LAMBDA = {"alpha": 0.9430417630699168, "beta": 0.9479539919193835}


def run(*args):
    return runner.invoke(app, [*map(str, args)])


def records(res):
    assert res.exit_code == 0, res.output
    return {r["model"]: r for r in jsonout.records(res.stdout)}


def check_against(r, ref, df):
    """The estimate and the asymptotic standard error as ppi_py gives them; the interval is the small-sample t
    interval estimate -/+ t_df se (issue 22; ppi_py's is estimate -/+ z se_asymptotic)."""
    from scipy import stats

    estimate, low, high = ref
    assert r["estimate"] == pytest.approx(estimate, abs=1e-6)
    assert r["se_asymptotic"] == pytest.approx((high - low) / (2 * stats.norm.ppf(0.975)), abs=1e-6)
    assert r["df"] == df and r["se"] > r["se_asymptotic"]
    t = stats.t.ppf(0.975, df)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((estimate - t * r["se"], estimate + t * r["se"]), abs=1e-6)


def test_contract_summarize_ppi_plus_plus_equals_ppi_py():
    """`evalband summarize judged.csv --human-col human --format json`: PPI++ as ppi_mean_ci(lam=None)."""
    out = records(run("summarize", JUDGED, "--human-col", "human", "--format", "json"))
    for model, ref in PPI_PY.items():
        r = out[model]
        check_against(r, ref[None], 99)
        assert r["lambda"] == pytest.approx(PPI_PY_LAMBDA[model], abs=1e-6)
        assert (r["n_labelled"], r["n_unlabelled"]) == (100, 400)
        assert r["method"] == "ppi++" and r["ess"] > r["n_labelled"]


def test_contract_summarize_classic_equals_lam_1():
    out = records(run("summarize", JUDGED, "--human-col", "human", "--ppi", "classic", "--format", "json"))
    for model, ref in PPI_PY.items():
        r = out[model]
        check_against(r, ref[1], 99)
        assert r["lambda"] == 1.0 and r["n_labelled"] == 100 and r["n_unlabelled"] == 400


def test_one_rule_whether_the_column_is_named_or_found(tmp_path):
    """A column named 'human' is read by default: the same numbers as --human-col human, and as --human-col on
    the same column under another name."""
    found = records(run("summarize", JUDGED, "--format", "json"))
    named = records(run("summarize", JUDGED, "--human-col", "human", "--format", "json"))
    renamed = tmp_path / "renamed.csv"
    pd.read_csv(JUDGED).rename(columns={"human": "gold"}).to_csv(renamed, index=False)
    other = records(run("summarize", renamed, "--human-col", "gold", "--format", "json"))
    for m in PPI_PY:
        assert found[m]["estimate"] == named[m]["estimate"] == other[m]["estimate"]
        assert found[m]["ci_high"] == named[m]["ci_high"] == other[m]["ci_high"]


def test_labelled_interval_beside_and_ppi_none():
    """The labels-only interval is beside the PPI one (the mean of the labels, the classical t interval); --ppi
    none is the judge's scores at face value (the judge mean, which is off the human scale here)."""
    d = pd.read_csv(JUDGED)
    out = records(run("summarize", JUDGED, "--format", "json"))
    none = records(run("summarize", JUDGED, "--ppi", "none", "--format", "json"))
    for m in PPI_PY:
        g = d[d["model"] == m]
        y = g["human"].dropna().to_numpy()
        from scipy import stats

        half = stats.t.ppf(0.975, y.size - 1) * y.std(ddof=1) / np.sqrt(y.size)  # the classical t interval
        assert out[m]["labelled_estimate"] == pytest.approx(y.mean(), abs=1e-12)
        assert out[m]["labelled_ci_high"] - out[m]["labelled_ci_low"] == pytest.approx(2 * half, rel=1e-9)
        assert out[m]["judge_mean"] == pytest.approx(g["score"].mean(), abs=1e-12)
        assert none[m]["estimate"] == pytest.approx(g["score"].mean(), abs=1e-12) and "lambda" not in none[m]


@pytest.mark.parametrize("columns", ["80", "200"])
def test_summarize_table_and_notes(columns):
    """At 80 columns the table leaves out columns from the right (intervals never fold), notes wrap."""
    res = runner.invoke(app, ["summarize", str(JUDGED)], env={"COLUMNS": columns})
    assert res.exit_code == 0, res.output
    assert max(map(len, res.stdout.splitlines())) <= int(columns)
    header = res.stdout.splitlines()[1].split()
    assert [h for h in header if h != "se"][:5] == ["model", "estimate", "95%", "CI", "labelled"]
    assert "lambda" in header and ("se" in header) == (columns == "200")
    flat = " ".join(res.stdout.split())
    assert "human-scale mean by PPI++" in flat
    assert "`--ppi classic`" in flat  # the library's `ppi='classic'` in CLI words


def test_compare_and_rank_use_the_ppi_replicates():
    """compare and rank: differences and ranks of the human-scale means (observed = the PPI++ estimates), the
    PPI cells in the JSON beside the records."""
    res = run("compare", JUDGED, "--seed", 3, "--n-resamples", 2000, "--format", "json")
    assert res.exit_code == 0, res.output
    out = jsonout.records(res.stdout)
    cells = {c["model"]: c for c in out["ppi"]}
    assert cells["alpha"]["lambda"] == pytest.approx(PPI_PY_LAMBDA["alpha"], abs=1e-6)
    pair = out["records"][0]
    est = {m: PPI_PY[m][None][0] for m in PPI_PY}
    assert abs(pair["difference"]) == pytest.approx(est["alpha"] - est["beta"], abs=1e-9)
    rank = json.loads(run("rank", JUDGED, "--seed", 3, "--n-resamples", 2000, "--format", "json").stdout)
    by_model = {r["model"]: r for r in rank["records"]}
    assert by_model["alpha"]["estimate"] == pytest.approx(est["alpha"], abs=1e-9)
    assert {c["n_labelled"] for c in rank["ppi"]} == {100}
    table = run("compare", JUDGED, "--seed", 3, "--n-resamples", 500)
    assert "human-scale mean by PPI++" in " ".join(table.stdout.split())


def test_report_has_the_judges_section(tmp_path):
    out = tmp_path / "report.md"
    res = run("report", JUDGED, "-o", out, "--n-resamples", 200, "--ppi", "classic")
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "## Judge and human labels" in text and "classic PPI" in text
    assert "--ppi classic" in text  # the reproducing command


def test_refusals():
    res = run("summarize", JUDGED, "--ppi", "maybe")
    assert res.exit_code == 2 and "--ppi" in res.output
    res = run("summarize", JUDGED, "--method", "wilson")
    assert res.exit_code == 2 and "ppi" in res.output and "internal error" not in res.output
    res = run("rank", JUDGED, "--test", "friedman")
    assert res.exit_code == 2 and "--ppi none" in res.output


def test_human_col_on_summary_counts_is_refused(tmp_path):
    path = tmp_path / "summary.csv"
    pd.DataFrame({"model": ["a", "b"], "task": ["t", "t"], "n": [10, 10], "correct": [5, 6],
                  "gold": [0.5, 0.6]}).to_csv(path, index=False)
    res = run("summarize", path, "--human-col", "gold")
    assert res.exit_code == 2, res.output
    assert "needs item-level rows" in res.output


def test_too_few_labels_is_refused_for_compare(tmp_path):
    d = pd.read_csv(JUDGED)
    keep = d["item"].isin(["q000", "q001", "q002", "q003"]) | (d["model"] == "alpha")
    d.loc[~keep, "human"] = np.nan
    d.loc[(d["model"] == "beta") & d["item"].isin(["q000", "q001", "q002", "q003"]), "human"] = np.nan
    path = tmp_path / "few.csv"
    d.to_csv(path, index=False)
    res = run("compare", path, "--seed", 1, "--n-resamples", 200)
    assert res.exit_code == 2, res.output
    assert "human label" in res.output and "beta" in res.output


def test_docs_llmfao_example():
    """docs/judges.md section 5: summarize and compare on ppi_wins.csv (the table of section 4)."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao" / "ppi_wins.csv"
    models = "GPT 4,Claude v2,LLaMA-2-Chat (70B),Dolly v2 (12B)"
    out = records(run("summarize", path, "--models", models, "--format", "json"))
    gpt4 = out["GPT 4"]
    assert (round(gpt4["estimate"], 3), round(gpt4["judge_mean"], 3), gpt4["n_labelled"]) == (0.6, 0.897, 5)
    assert round(out["LLaMA-2-Chat (70B)"]["lambda"], 3) == 0.359
    res = run("compare", path, "--models", models, "--seed", 2026, "--format", "json")
    assert res.exit_code == 0, res.output
    verdicts = {(r["model_a"], r["model_b"]): r["verdict"] for r in jsonout.records(res.stdout)["records"]}
    assert verdicts[("Claude v2", "Dolly v2 (12B)")] == "A better"
    assert verdicts[("Claude v2", "GPT 4")] == "not yet decided"


def test_tables_say_what_the_labels_bought():
    rank = run("rank", JUDGED, "--seed", 1, "--n-resamples", 300)
    assert rank.exit_code == 0, rank.output
    assert "lambda" in rank.stdout and "n_labelled" in rank.stdout
    cmp = run("compare", JUDGED, "--seed", 1, "--n-resamples", 300)
    assert "PPI (ppi++) per model: alpha: lambda 0.94, 100 labelled + 400" in " ".join(cmp.stdout.split())
