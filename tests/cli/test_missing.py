"""`rank` and `compare` with `--missing drop|common|ability` (issue 24, item 2).

Oracles: on complete data (VTAB, MMLU-Pro) `--missing common` is `rank`'s / `compare`'s output byte for byte,
and the latent-ability ranking agrees with the aggregate's (Spearman >= 0.95, the issue's criterion); on a sparse
file each pair of `--missing common` equals `compare` of that pair alone (the tasks both models have), and the
ranks from pairs follow the pairs' decisions (Klein, Wright & Wieczorek 2020).
"""

import jsonout

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

import evalband as eb
from evalband.cli.main import app

runner = CliRunner()


def run(*args):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res


@pytest.fixture(scope="module")
def sparse(tmp_path_factory):
    rng = np.random.default_rng(0)
    rows = []
    for m in range(6):
        for t in range(5):
            if t and rng.random() < 0.35:
                continue
            rows.append((f"m{m}", f"t{t}", 300, int(rng.binomial(300, 0.3 + 0.08 * m))))
    path = tmp_path_factory.mktemp("sparse") / "sparse.csv"
    pd.DataFrame(rows, columns=["model", "task", "n", "correct"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("example,b", [("vtab", 400), ("mmlu-pro", 100)])
def test_dense_common_equals_rank_and_ability_agrees(example, b):
    base = ["--example", example, "--n-resamples", b, "-f", "json"]
    plain = run("rank", *base).stdout
    assert run("rank", *base, "--missing", "common").stdout == plain
    assert run("rank", *base, "--missing", "drop").stdout == plain
    pairs = run("compare", *base).stdout
    assert run("compare", *base, "--missing", "common").stdout == pairs
    ranked = {r["model"]: r["estimate"] for r in jsonout.records(plain)}
    ability = {r["model"]: r["estimate"] for r in jsonout.records(run("rank", *base, "--missing", "ability").stdout)}
    assert set(ability) == set(ranked)
    models = sorted(ranked)
    assert spearmanr([ranked[m] for m in models], [ability[m] for m in models])[0] >= 0.95


def test_drop_note_counts_cells_and_suggests_ability(sparse):
    res = run("rank", sparse, "--n-resamples", 200)
    table = pd.read_csv(sparse)
    full = {t for t, g in table.groupby("task") if g["model"].nunique() == 6}
    left = int((~table["task"].isin(full)).sum())
    text = " ".join(res.output.split())
    assert f"{left} measured (model, task) cells left out" in text
    assert "`--missing ability`" in text and "`--missing common`" in text


def test_common_on_sparse_pairs_are_pairs_alone(sparse):
    out = jsonout.records(run("compare", sparse, "--missing", "common", "--n-resamples", 500, "-f", "json").stdout)
    table = pd.read_csv(sparse)
    have = {m: set(g["task"]) for m, g in table.groupby("model")}
    assert len(out) == 15
    for rec in out:
        shared = have[rec["model_a"]] & have[rec["model_b"]]
        assert rec["n_tasks"] == len(shared)
    # one pair alone, on its shared tasks, with the stream the family gives it: the same difference
    rec = next(r for r in out if {r["model_a"], r["model_b"]} == {"m3", "m2"})
    shared = sorted(have["m3"] & have["m2"])
    sub = table[table["model"].isin(["m2", "m3"]) & table["task"].isin(shared)]
    means = sub.assign(acc=sub["correct"] / sub["n"]).groupby("model")["acc"].mean()
    assert rec["difference"] == pytest.approx(abs(means["m3"] - means["m2"]), abs=1e-12)


def test_common_ranks_follow_the_pairs(sparse):
    ranks = jsonout.records(run("rank", sparse, "--missing", "common", "--n-resamples", 2000, "-f", "json").stdout)
    pairs = jsonout.records(run("compare", sparse, "--missing", "common", "--n-resamples", 2000, "-f", "json").stdout)
    m = len(ranks)
    for r in ranks:
        ahead = sum(1 for p in pairs if r["model"] in (p["model_a"], p["model_b"])
                    and p["model_b"] == r["model"] and p["difference"] > 0)
        assert r["rank"] == 1 + ahead
        assert r["rank_sim_low"] <= r["rank"] <= r["rank_sim_high"]
        assert r["rank_sim_low"] <= r["rank_low"] and r["rank_high"] <= r["rank_sim_high"]
        # Bonferroni over the model's m - 1 pairs (p-values of the uncorrected pairs)
        better = sum(1 for p in pairs if p["model_b"] == r["model"] and p["p_value"] < 0.05 / (m - 1))
        assert r["rank_low"] == 1 + better
        assert r["p_best"] is None


def test_ability_on_sparse_summary(sparse):
    ranks = jsonout.records(run("rank", sparse, "--missing", "ability", "--n-resamples", 200, "-f", "json").stdout)
    lib = eb.ability(str(sparse), n_resamples=200, rng=0).to_frame()
    assert [r["model"] for r in ranks] == lib["model"].tolist()
    np.testing.assert_allclose([r["estimate"] for r in ranks], lib["ability"], rtol=1e-12)
    assert all({"rank_low", "rank_high", "p_best", "n_tasks"} <= set(r) for r in ranks)
    pairs = jsonout.records(run("compare", sparse, "--missing", "ability", "--n-resamples", 200, "-f", "json").stdout)
    assert len(pairs) == 15 and all(p["aggregate"] == "ability" for p in pairs)
    bad = runner.invoke(app, ["rank", str(sparse), "--missing", "sometimes"])
    assert bad.exit_code == 2 and "--missing" in bad.output
