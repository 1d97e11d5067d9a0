"""docs/judges.md: the worked example's figures are what the code shown computes (LLMFAO, seed 2026)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalband as eb
import evalband.judges as ej

D = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao"


@pytest.fixture(scope="module")
def llmfao():
    return pd.read_csv(D / "crowd-comparisons.csv"), pd.read_csv(D / "gpt4-crowd-comparisons.csv")


def test_agreement_figures(llmfao):
    crowd, gpt4 = llmfao
    alone = ej.agreement(crowd, unit_col="id", rater_col="worker", value_col="winner", measurement="nominal",
                         cluster="prompt", rng=2026).to_frame().set_index("statistic").round(3)
    assert tuple(alone.loc["krippendorff_alpha", ["estimate", "ci_low", "ci_high"]]) == (0.291, 0.201, 0.37)
    ratings = pd.concat([crowd.assign(rater="w" + crowd["worker"].astype(str)), gpt4.assign(rater="gpt-4")])
    res = ej.agreement(ratings, unit_col="id", rater_col="rater", value_col="winner", measurement="nominal",
                       cluster="prompt", reference="majority", judges=["gpt-4"], rng=2026)
    ref = res.reference.to_frame().set_index("statistic").round(3)
    assert tuple(ref.loc["cohen_kappa", ["estimate", "ci_low", "ci_high"]]) == (0.218, 0.102, 0.332)
    assert round(res.krippendorff_alpha, 3) == 0.229


def test_ppi_figures(llmfao):
    crowd, gpt4 = llmfao
    score = {"left": 1.0, "tie": 0.5, "right": 0.0}
    crowd_mean = crowd.assign(s=crowd["winner"].map(score)).groupby("id")["s"].mean()
    g = gpt4.assign(judge=gpt4["winner"].map(score), crowd=gpt4["id"].map(crowd_mean))
    rows = pd.concat([
        pd.DataFrame({"model": g["left"], "item": g["id"], "score": g["judge"], "crowd": g["crowd"]}),
        pd.DataFrame({"model": g["right"], "item": g["id"], "score": 1 - g["judge"], "crowd": 1 - g["crowd"]})])
    rows["task"] = "llmfao"
    labelled = crowd_mean.index.to_series().sample(frac=0.25, random_state=2026)
    rows["human"] = np.where(rows["item"].isin(labelled), rows["crowd"], np.nan)
    table = eb.read(rows[["model", "task", "item", "score", "human"]])
    f = ej.ppi_estimate(table).to_frame().set_index("model")
    f["crowd_all"] = rows.groupby("model")["crowd"].mean()
    row = f.loc["GPT 4"]
    assert tuple(round(float(row[c]), 3) for c in ("crowd_all", "judge_mean", "estimate")) == (0.761, 0.897, 0.600)
    assert row["n_labelled"] == 5
    ratio = (f.ci_high - f.ci_low).mean() / (f.labelled_ci_high - f.labelled_ci_low).mean()
    assert round(ratio, 3) == 0.958
    assert round((f.judge_mean - f.crowd_all).abs().mean(), 3) == 0.145
    assert int(((f.ci_low <= f.crowd_all) & (f.crowd_all <= f.ci_high)).sum()) == 59
    verdicts = ej.ppi_compare(table).to_frame()["verdict"].value_counts()
    assert verdicts.to_dict() == {"not yet decided": 1351, "A better": 360}
    holm = ej.ppi_compare(table, correction="holm").to_frame()["verdict"].value_counts()
    assert holm.to_dict() == {"not yet decided": 1711}
