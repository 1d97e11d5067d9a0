"""``evalband bayes`` through typer's CliRunner: a thin layer over evalband.bayes."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from evalband import load_example
from evalband.bayes import beta_binomial
from evalband.cli.main import app
import jsonout  # noqa: E402

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["bayes", *args])


@pytest.fixture(scope="module")
def vtab_json():
    res = run("--example", "vtab", "--draws", "2000", "--seed", "3", "--pairs", "--format", "json")
    assert res.exit_code == 0, res.output
    return pd.DataFrame(jsonout.records(res.stdout))


def test_json_has_one_record_per_model_and_pair(vtab_json):
    models = vtab_json[vtab_json["record"] == "model"]
    pairs = vtab_json[vtab_json["record"] == "pair"]
    assert len(models) == 16 and len(pairs) == 16 * 15 // 2
    need = ["model", "posterior_mean", "ci_low", "ci_high", "pred_low", "pred_high", "p_best"]
    assert models[need].notna().all().all()
    assert models[need[1:]].stack().between(0, 1).all()  # fractions, not percent
    assert models["p_best"].sum() == pytest.approx(1.0)
    assert (models["pred_low"] < models["ci_low"]).all() and (models["pred_high"] > models["ci_high"]).all()
    assert {"model_a", "model_b", "verdict", "p_a_better"} <= set(pairs.columns)


def test_json_equals_the_library(vtab_json):
    lib = beta_binomial(load_example("vtab"), n_draws=2000, rng=3).summary()
    cli = vtab_json[vtab_json["record"] == "model"].reset_index(drop=True)
    assert cli["rank_mean"].is_monotonic_increasing  # best first, as `rank` lists models
    cli = cli.set_index("model").loc[lib["model"]].reset_index()  # the library's order, to compare
    for col in ("posterior_mean", "ci_low", "ci_high", "pred_low", "pred_high", "p_best"):
        np.testing.assert_allclose(cli[col].to_numpy(float), lib[col].to_numpy(), rtol=1e-12)


THREE = ("--models", "VAE,WAE-GAN,Sup-100%")


def test_prior_and_weights_change_the_answer():
    base = run("--example", "vtab", *THREE, "--draws", "500", "--seed", "1", "--format", "json")
    other = run("--example", "vtab", *THREE, "--draws", "500", "--seed", "1", "--format", "json", "--prior",
                "half-normal:1")
    groups = run("--example", "vtab", *THREE, "--draws", "500", "--seed", "1", "--format", "json", "--weights",
                 "groups")
    assert base.exit_code == other.exit_code == groups.exit_code == 0, other.output + groups.output
    table = load_example("vtab").select(models=THREE[1].split(","))
    in_order = lambda f: f.set_index("model").loc[list(table.models)].reset_index()  # noqa: E731 (library order)
    b, o, g = (in_order(pd.DataFrame(jsonout.records(r.stdout))) for r in (base, other, groups))
    lib_o = beta_binomial(table, n_draws=500, rng=1, prior="half-normal:1").summary()
    np.testing.assert_allclose(o["ci_high"].to_numpy(float), lib_o["ci_high"].to_numpy())
    assert not np.array_equal(b["ci_high"].to_numpy(float), o["ci_high"].to_numpy(float))
    lib = beta_binomial(table, n_draws=500, rng=1, group_weights="equal").summary()
    np.testing.assert_allclose(g["posterior_mean"].to_numpy(float), lib["posterior_mean"].to_numpy())
    one = run("--example", "vtab", *THREE, "--draws", "300", "--seed", "1", "--format", "json", "--weights", "DTD=1")
    assert one.exit_code == 0, one.output
    dtd = in_order(pd.DataFrame(jsonout.records(one.stdout)))
    obs = table.counts(tasks=["DTD"])
    np.testing.assert_allclose(dtd["observed"].to_numpy(float), (obs.correct / obs.n).ravel())


def test_table_output_labels_the_intervals():
    res = run("--example", "vtab", "--draws", "500", "--seed", "2", "--models", "VAE,WAE-GAN")
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())  # notes are wrapped at the terminal width
    assert "Bayesian beta-binomial" in text and "pred = posterior predictive interval" in text


def test_sensitivity_and_compare_records():
    res = run("--example", "vtab", "--models", "VAE,WAE-GAN,WAE-UKL", "--draws", "1000", "--seed", "4",
              "--sensitivity", "--compare", "--format", "json")
    assert res.exit_code == 0, res.output
    f = pd.DataFrame(jsonout.records(res.stdout))
    assert set(f["record"]) == {"model", "sensitivity", "sensitivity_pair", "compare", "compare_pair"}
    assert f.loc[f["record"] == "sensitivity", "prior"].nunique() == 4
    assert {"boot_verdict", "bayes_verdict", "disagree"} <= set(f.loc[f["record"] == "compare_pair"].dropna(axis=1).columns)


@pytest.mark.parametrize("args,message", [
    (["--prior", "cauchy"], "prior` family must be one of"),
    (["--model", "probit"], "`--model` must be one of"),
    (["--weights", "nope=1"], "`--weights`"),
    (["--draws", "0"], "`n_draws`"),
    (["--confidence", "95"], "`--confidence`"),
])
def test_bad_options_exit_2_with_one_line(args, message):
    res = run("--example", "vtab", *THREE, *args)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def test_logistic_without_the_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpyro", None)  # import numpyro now raises ImportError
    res = run("--example", "vtab", "--model", "logistic")
    assert res.exit_code == 2
    assert "pip install 'evalband[bayes]'" in res.output
    ok = run("--example", "vtab", *THREE, "--draws", "200", "--seed", "1", "--format", "json")  # exact still works
    assert ok.exit_code == 0


def _clustered_csv(tmp_path):
    # 2 models x 2 tasks x 8 clusters of 5 items; whole clusters right or wrong at random (strong correlation)
    rng = np.random.default_rng(9)
    rows = []
    for model, skill in (("A", 0.55), ("B", 0.7)):
        for task in ("x", "y"):
            for c in range(8):
                hit = rng.random() < skill
                rows += [{"model": model, "task": task, "item": f"{task}{c}-{i}", "cluster": f"{task}{c}",
                          "score": int(hit if rng.random() < 0.9 else not hit)} for i in range(5)]
    path = tmp_path / "clustered.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_clustered_items_warn_by_default_and_effective_counts_widen(tmp_path):
    path = _clustered_csv(tmp_path)
    plain = run(path, "--draws", "2000", "--seed", "1", "--format", "json")
    assert plain.exit_code == 0, plain.output
    assert "warning: clusters ignored: items within a cluster are correlated" in plain.stderr
    assert "--clusters effective" in plain.stderr
    eff = run(path, "--draws", "2000", "--seed", "1", "--format", "json", "--clusters", "effective")
    assert eff.exit_code == 0, eff.output
    assert "clusters ignored" not in eff.stderr
    sd_plain = pd.DataFrame(jsonout.records(plain.stdout))["posterior_sd"]
    sd_eff = pd.DataFrame(jsonout.records(eff.stdout))["posterior_sd"]
    assert (sd_eff > 1.5 * sd_plain).all()
    table = run(path, "--draws", "500", "--seed", "1", "--clusters", "effective")
    assert "Rao & Scott 1992" in table.stdout
    quiet = run(path, "--draws", "500", "--seed", "1", "--clusters", "ignore")
    assert "warning: clusters ignored" not in quiet.stderr and "(--clusters ignore)" in quiet.stdout  # the option, in CLI words


@pytest.mark.parametrize("args,message", [
    (["--clusters", "robust"], "`--clusters` must be one of 'ignore', 'effective'"),
    (["--clusters", "effective", "--model", "logistic"], "`--clusters` applies to the beta-binomial model"),
])
def test_bad_clusters_option_exits_2(tmp_path, args, message):
    res = run(_clustered_csv(tmp_path), *args)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def test_effective_clusters_without_a_cluster_column_exits_2():
    res = run("--example", "vtab", *THREE, "--clusters", "effective")
    assert res.exit_code == 2
    assert "needs item-level data with a cluster column" in res.output


@pytest.mark.parametrize("args,message", [
    (["--model", "logistic", "--method", "gibbs"], "`--method` must be one of 'auto', 'hmc', 'nuts', 'laplace'"),
    (["--method", "laplace"], "`--method` applies to the logistic model"),
])
def test_bad_method_option_exits_2(tmp_path, args, message):
    res = run(_clustered_csv(tmp_path), *args)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output


def test_method_reaches_the_library_and_the_notes_say_which_ran(tmp_path):
    res = run(_clustered_csv(tmp_path), "--model", "logistic", "--method", "laplace", "--draws", "500", "--seed", "1",
              "--format", "json")
    assert res.exit_code == 0, res.output
    assert "Laplace approximation" in res.stderr and "Pareto k" in res.stderr
    f = pd.DataFrame(jsonout.records(res.stdout))
    assert set(f["model"]) == {"A", "B"} and (f["ci_low"] < f["ci_high"]).all()
