"""`evalband subset choose` / `subset estimate` through typer's CliRunner, as a user runs them.

Oracles: the contract of issue 25 (the items file's columns; the JSON fields and the two method rows), and the
library on the same seed (the command prints what :func:`evalband.subset.estimate` returns).
"""

import json
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.subset import estimate
from subset.synthetic import on_items, synthetic

runner = CliRunner()
FIELDS = ["estimate", "ci_low", "ci_high", "se", "method", "n_evaluated", "n_items", "effective_n"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("subset")
    ref, new = synthetic()
    ref.to_csv(d / "ref.csv", index=False)
    return d, ref, new


def run(*args, code=0):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == code, res.output
    return res


def test_choose_writes_task_item_inclusion_prob_and_estimate_gives_the_contract_fields(files):
    d, ref, new = files
    run("subset", "choose", d / "ref.csv", "--budget", 100, "--seed", 1, "-o", d / "items.csv")
    picked = pd.read_csv(d / "items.csv", dtype={"item": str})
    assert list(picked.columns[:3]) == ["task", "item", "inclusion_prob"] and len(picked) == 100
    on_items(new, picked).to_csv(d / "new.csv", index=False)
    out = json.loads(run("subset", "estimate", d / "ref.csv", d / "new.csv", "--items", d / "items.csv",
                         "--format", "json", "--seed", 3).stdout)
    records = out["records"]
    assert [r["method"] for r in records] == ["design", "prediction-assisted"]
    assert all(set(FIELDS) <= set(r) for r in records)
    lib = estimate(d / "ref.csv", d / "new.csv", items=d / "items.csv", rng=3).to_frame()
    assert [r["estimate"] for r in records] == pytest.approx(lib["estimate"].tolist())
    assert [r["effective_n"] for r in records] == pytest.approx(lib["effective_n"].tolist())
    # without --items, and in every format
    out = json.loads(run("subset", "estimate", d / "ref.csv", d / "new.csv", "--format", "json").stdout)
    assert records[0]["n_items"] == 600 and len(out["records"]) == 2
    for fmt in ("table", "csv", "markdown", "latex"):
        text = run("subset", "estimate", d / "ref.csv", d / "new.csv", "--format", fmt, "--against", "m0",
                   "--margin", "1%").stdout
        assert "prediction-assisted" in text
    assert "inclusion_prob" in run("subset", "choose", d / "ref.csv", "--budget", 30, "--method", "stratified",
                                   "--format", "csv").stdout


def test_bad_input_is_one_line_naming_the_row(files):
    d, ref, new = files
    picked = pd.read_csv(d / "items.csv", dtype={"item": str}) if (d / "items.csv").exists() else None
    if picked is None:
        run("subset", "choose", d / "ref.csv", "--budget", 100, "--seed", 1, "-o", d / "items.csv")
        picked = pd.read_csv(d / "items.csv", dtype={"item": str})
    on_items(new, picked).to_csv(d / "new.csv", index=False)
    picked.loc[6, "inclusion_prob"] = -1
    picked.to_csv(d / "bad.csv", index=False)
    res = run("subset", "estimate", d / "ref.csv", d / "new.csv", "--items", d / "bad.csv", code=2)
    assert "bad.csv, row 8, column 'inclusion_prob': -1 is not a probability" in res.output and len(res.output.strip().splitlines()) == 1
    res = run("subset", "choose", d / "ref.csv", "--budget", 10_000, code=2)
    assert "exceeds the 600 items" in res.output
    res = run("subset", "choose", d / "ref.csv", "--budget", 100, "-o", d / "ref.csv", code=2)
    assert len(res.output.strip().splitlines()) == 1


def test_next_gives_the_first_items_then_a_decision(files):
    d, ref, new = files
    run("subset", "next", d / "ref.csv", "--against", "m0", "--seed", 4, "-o", d / "next.csv")
    first = pd.read_csv(d / "next.csv", dtype={"item": str})
    assert list(first.columns) == ["task", "item", "order"] and len(first) == 20
    new.merge(first[["task", "item"]]).to_csv(d / "so_far.csv", index=False)
    out = json.loads(run("subset", "next", d / "ref.csv", d / "so_far.csv", "--against", "m0", "--seed", 4,
                         "--format", "json").stdout)
    rec = out["records"][0]
    assert rec["decision"] in ("stop", "continue") and rec["n_evaluated"] == 20
    assert rec["verdict"] in ("A better", "B better", "equivalent", "not yet decided")
    if rec["decision"] == "continue":
        assert [r["order"] for r in out["next_items"]] == list(range(21, 41))


def test_anchors_beside_a_random_sample_and_their_estimates_said_to_have_no_valid_interval(files):
    d, ref, new = files
    run("subset", "choose", d / "ref.csv", "--budget", 80, "--method", "anchors", "--anchors", 30, "--seed", 2,
        "-o", d / "anchors.csv")
    picked = pd.read_csv(d / "anchors.csv", dtype={"item": str})
    assert list(picked.columns) == ["task", "item", "inclusion_prob", "stratum", "order", "anchor_weight"]
    assert picked["inclusion_prob"].notna().sum() == 50 and picked["anchor_weight"].notna().sum() == 30
    assert picked["anchor_weight"].sum() == pytest.approx(1.0)
    on_items(new, picked).to_csv(d / "new_a.csv", index=False)
    out = json.loads(run("subset", "estimate", d / "ref.csv", d / "new_a.csv", "--items", d / "anchors.csv",
                         "--format", "json", "--seed", 1).stdout)
    assert [r["method"] for r in out["records"]] == ["design", "prediction-assisted"]
    assert all(r["n_evaluated"] == 50 for r in out["records"])  # the intervals use the random sample alone
    anchors = out["anchor_estimates"]
    assert [a["method"] for a in anchors] == ["anchor points", "anchor IRT"]
    assert all(a["interval"] == "no valid interval" and "ci_low" not in a for a in anchors)
    lib = estimate(d / "ref.csv", d / "new_a.csv", items=d / "anchors.csv", rng=1)
    assert [a["estimate"] for a in anchors] == pytest.approx(lib.anchors_frame()["estimate"].tolist())
    # the anchor-points estimate is the weighted mean of the anchors' scores, written out
    a = picked[picked["anchor_weight"].notna()].merge(new, on=["task", "item"])
    assert anchors[0]["estimate"] == pytest.approx(float((a["anchor_weight"] * a["score"]).sum()))
    text = run("subset", "estimate", d / "ref.csv", d / "new_a.csv", "--items", d / "anchors.csv").stdout
    assert "no valid interval" in text and "anchor IRT" in text
    res = run("subset", "choose", d / "ref.csv", "--budget", 40, "--method", "anchors", "--anchors", 35, code=2)
    assert "leaves 5 items for the random sample" in res.output
