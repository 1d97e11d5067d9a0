"""Task-weight sensitivity: oracles are a brute-force (B, M, P) bootstrap product, hand-computed binomial SEs,
an independent paired bootstrap written here, a false-decision simulation judged with binomtest, and the VTAB
finding of Longjohn, Gopalan & Casleton (2025, Fig. 7): structured-heavy weights make Rotation the clear winner
although its overall mean ranks low."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalband.resample import ReplicateSet
import pandas as pd
import pytest
from scipy import stats

from evalband import load_example
from evalband.data.table import ResultsTable
from evalband.weights import (Z_PRESETS, best_model_map, group_covariance, line_grid, simplex_lattice,
                              weight_sensitivity)


@dataclass(frozen=True)
class FakeReplicates(ReplicateSet):
    """The contract's Replicates, built by hand (the engine is tested on its own)."""

    models: tuple
    tasks: tuple
    observed: np.ndarray
    replicates: np.ndarray
    resampling: str = "paired"
    task_groups: dict | None = None
    notes: tuple = ()


def _paired_replicates(rng, M=4, T=6, n=300, B=1500):
    """Item-level 0/1 scores with a shared item difficulty (models positively correlated), resampled in pairs."""
    tasks = tuple(f"t{k}" for k in range(T))
    models = tuple(f"m{k}" for k in range(M))
    observed = np.empty((M, T))
    reps = np.empty((B, M, T))
    items = {}
    for k in range(T):
        difficulty = rng.normal(size=n)
        skill = np.linspace(0.0, 0.3, M)[:, None]
        x = (rng.normal(size=(M, n)) * 0.8 + difficulty + skill > 0).astype(float)
        items[tasks[k]] = x
        observed[:, k] = x.mean(axis=1)
        idx = rng.integers(0, n, size=(B, n))
        reps[:, :, k] = x[:, idx].mean(axis=2).T      # same items for every model: paired
    groups = {t: ("A" if k < 2 else "B" if k < 4 else "C") for k, t in enumerate(tasks)}
    return FakeReplicates(models, tasks, observed, reps, "paired", groups), items


def test_covariance_quadratic_form_equals_brute_force_replicate_product(rng):
    reps, _ = _paired_replicates(rng)
    out = weight_sensitivity(reps, resolution=12)
    # brute force: (B, M, G) group-mean replicates times the (P, G) grid, then the SD of best - runner-up
    A = np.array([[0.5, 0, 0], [0.5, 0, 0], [0, 0.5, 0], [0, 0.5, 0], [0, 0, 0.5], [0, 0, 0.5]])
    group_reps = reps.replicates @ A                                      # (B, M, G)
    agg = np.einsum("bmg,pg->bpm", group_reps, out.weights)               # (B, P, M)
    rows = np.arange(len(out.weights))
    diff = agg[:, rows, out.best] - agg[:, rows, out.runner_up]
    np.testing.assert_allclose(out.se, diff.std(axis=0, ddof=1), rtol=1e-9, atol=1e-12)
    observed = out.weights @ (reps.observed @ A).T
    np.testing.assert_array_equal(out.best, observed.argmax(axis=1))
    np.testing.assert_array_equal(out.decided, out.lead > 2.0 * out.se)
    assert out.correlation_source == "measured" and out.se_source == "bootstrap"
    assert np.nanmedian(out.correlation) > 0.3      # shared item difficulty is seen


def test_binomial_se_by_hand_and_presets():
    # two models, three groups of one task each: SE of the difference at w is sqrt(sum_g w_g^2 (va_g + vb_g))
    df = pd.DataFrame({"model": ["a"] * 3 + ["b"] * 3, "task": ["x", "y", "z"] * 2,
                       "group": ["g1", "g2", "g3"] * 2, "n": [400, 900, 100] * 2,
                       "correct": [300, 450, 80, 280, 480, 60]})
    table = ResultsTable.from_summary(df)
    for z in ("independent", "correlated", 0.5):
        out = weight_sensitivity(table, z=z, resolution=10)
        p = np.array([[0.75, 0.5, 0.8], [0.7, 480 / 900, 0.6]])
        v = p * (1 - p) / np.array([400, 900, 100])
        k = out.nearest([0.2, 0.3, 0.5])
        w = out.weights[k]
        se = np.sqrt(np.sum(w ** 2 * (v[0] + v[1])))
        assert out.se[k] == pytest.approx(se, rel=1e-12)
        lead = abs(w @ (p[0] - p[1]))
        assert out.lead[k] == pytest.approx(lead, rel=1e-12)
        zval = Z_PRESETS.get(z, z)
        assert out.decided[k] == (lead > zval * se)
        assert out.correlation_source == "assumed" and out.se_source == "binomial"
    assert Z_PRESETS == {"independent": 2.0, "correlated": 1.4}


def test_correlated_preset_matches_z2_with_correlation_half():
    # equal variances: SE with correlation rho is sqrt(1 - rho) times the independence SE, so z = 2 with rho = 0.5
    # is z = 2 * sqrt(0.5) = 1.414 on the independence SE: the paper's 1.4 preset
    rng = np.random.default_rng(5)
    M, G = 5, 3
    Y = rng.uniform(0.5, 0.7, size=(M, G))
    var = np.full((M, G), 0.0004)
    C0 = np.zeros((M, G, M, G))
    C5 = np.zeros((M, G, M, G))
    for g in range(G):
        C0[:, g, :, g] = np.diag(var[:, g])
        C5[:, g, :, g] = 0.5 * np.sqrt(np.outer(var[:, g], var[:, g]))
        C5[np.arange(M), g, np.arange(M), g] = var[:, g]
    W = simplex_lattice(40)
    ind = best_model_map(Y, C0, W, z=2 * np.sqrt(0.5))
    cor = best_model_map(Y, C5, W, z=2.0)
    np.testing.assert_array_equal(ind["decided"], cor["decided"])
    np.testing.assert_allclose(cor["se"], ind["se"] * np.sqrt(0.5), rtol=1e-12)
    np.testing.assert_allclose(cor["correlation"], 0.5, rtol=1e-12)


def _item_table(items: dict, groups: dict) -> ResultsTable:
    rows = []
    for task, x in items.items():
        M, n = x.shape
        for m in range(M):
            rows.append(pd.DataFrame({"model": f"m{m}", "task": task, "item": np.arange(n), "score": x[m],
                                      "group": groups[task]}))
    return ResultsTable.from_items(pd.concat(rows, ignore_index=True))


def test_plug_in_covariance_agrees_with_an_independent_paired_bootstrap(rng):
    reps, items = _paired_replicates(rng, B=4000)
    table = _item_table(items, reps.task_groups)
    analytic = weight_sensitivity(table, method="analytic", resolution=8)
    boot = weight_sensitivity(reps, resolution=8)
    np.testing.assert_array_equal(analytic.best, boot.best)
    # Monte Carlo error of a bootstrap SD with B = 4000 is about 1.1%; allow 6%
    np.testing.assert_allclose(analytic.se, boot.se, rtol=0.06)
    assert analytic.se_source == "plug-in" and analytic.correlation_source == "measured"


def test_cluster_robust_plug_in_by_hand():
    # one task, two models, clusters {0,1}, {2,3}: Var of the difference of means = sum_c (sum_i d_ic - ...)^2/n^2
    x = np.array([[1, 1, 0, 1], [0, 1, 0, 0]], dtype=float)
    df = pd.concat([pd.DataFrame({"model": f"m{m}", "task": t, "item": np.arange(4), "score": x[m],
                                  "cluster": [0, 0, 1, 1], "group": t})
                    for m in range(2) for t in ("t1", "t2")], ignore_index=True)
    out = weight_sensitivity(ResultsTable.from_items(df), method="analytic", resolution=4)
    d = x[0] - x[1]
    dc = d - d.mean()
    var_task = ((dc[:2].sum()) ** 2 + (dc[2:].sum()) ** 2) / 16       # = 0.0625
    k = out.nearest([0.5, 0.5])
    assert out.se[k] == pytest.approx(np.sqrt(0.25 * var_task + 0.25 * var_task), rel=1e-12)
    assert out.layout == "line" and len(out.weights) == 5


@pytest.mark.slow
def test_false_decision_rate_with_two_equal_models_is_two_sided_normal_tail():
    # Two equally good models, paired items with a shared difficulty; the plug-in (measured) SE at the centroid
    # should flag a "significant" leader about P(|Z| > 2) = 4.55% of the time; ignoring the correlation
    # (independence SE) flags far fewer: the conservative error the 1.4 preset is meant to offset.
    rng = np.random.default_rng(11)
    n_sim, T, n = 1500, 3, 200
    W = np.array([[1 / 3, 1 / 3, 1 / 3]])
    hits_measured = hits_indep = 0
    for _ in range(n_sim):
        diff = rng.normal(size=(T, 1, n))
        x = (rng.normal(size=(T, 2, n)) * 0.7 + diff > 0).astype(float)          # (T, M, n)
        obs = x.mean(axis=2).T                                                    # (M, T)
        xc = x - x.mean(axis=2, keepdims=True)
        cov = np.einsum("tmi,tki->tmk", xc, xc) / n ** 2
        C = group_covariance(cov, np.eye(T))
        hits_measured += bool(best_model_map(obs, C, W, z=2.0)["decided"][0])
        C0 = group_covariance(cov * np.eye(2), np.eye(T))
        hits_indep += bool(best_model_map(obs, C0, W, z=2.0)["decided"][0])
    p_two_sided = 2 * stats.norm.sf(2.0)
    assert stats.binomtest(hits_measured, n_sim, p_two_sided).pvalue > 0.001
    assert hits_indep < 0.4 * hits_measured


def test_vtab_rotation_wins_structured_heavy_weights_despite_low_overall_rank():
    table = load_example("vtab")
    acc = table.counts().accuracy
    overall_rank = (-acc.mean(axis=1)).argsort().argsort() + 1
    rot = table.models.index("Rotation")
    assert overall_rank[rot] == 6                      # 6th of 16 by the plain mean, 7.5 points behind the top
    assert acc.mean(axis=1).max() - acc[rot].mean() > 0.07
    for z in ("independent", "correlated"):
        out = weight_sensitivity(table, z=z)
        assert out.groups == ("natural", "specialized", "structured")
        k = out.nearest([0, 0, 1])
        assert out.models[out.winner[k]] == "Rotation"
        assert out.lead[k] > 4 * out.se[k]             # clear, not marginal
        mine = out.winner == rot
        assert mine.sum() >= 20
        assert out.weights[mine, 2].min() >= 0.75      # Rotation's region hugs the structured vertex
        centre = out.nearest([1, 1, 1])
        assert out.models[out.best[centre]] == "Sup-Rotation-100%"
        shares = out.shares().set_index("model")["share"]
        assert shares.sum() == pytest.approx(1.0)
        assert shares["Rotation"] > 0 and shares["undecided"] > 0
    # a lower threshold decides more of the triangle
    assert (weight_sensitivity(table, z="correlated").decided.sum()
            > weight_sensitivity(table, z="independent").decided.sum())


def test_more_than_three_groups_samples_dirichlet_weights_reproducibly(rng):
    reps, _ = _paired_replicates(rng, M=3, T=5, B=400)
    reps = FakeReplicates(reps.models, reps.tasks, reps.observed, reps.replicates, "paired", None)
    a = weight_sensitivity(reps, n_points=3000, rng=7)
    b = weight_sensitivity(reps, n_points=3000, rng=7)
    assert a.layout == "sampled" and a.weights.shape == (3000, 5)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_allclose(a.weights.sum(axis=1), 1.0)
    # Dirichlet(1,...,1): each weight is Beta(1, 4) with mean 1/5
    assert abs(a.weights[:, 0].mean() - 0.2) < 4 * np.sqrt(4 / (25 * 6) / 3000)
    np.testing.assert_array_equal(a.best, (a.weights @ reps.observed.T).argmax(axis=1))
    s = a.shares()
    assert s["points"].sum() == 3000 and (s["share_se"] > 0).any()
    assert "no task groups" in " ".join(a.notes)


def test_unpaired_replicates_use_only_variances():
    rng = np.random.default_rng(3)
    reps = rng.normal(0.5, 0.01, size=(500, 3, 2))
    fake = FakeReplicates(("a", "b", "c"), ("x", "y"), reps.mean(axis=0), reps, "binomial", None)
    out = weight_sensitivity(fake)
    assert out.correlation_source == "assumed"
    np.testing.assert_allclose(out.correlation, 0.0)
    out = weight_sensitivity(fake, correlation=0.3)
    # per task exactly 0.3; a weighted sum of independent tasks is at most that (Cauchy-Schwarz)
    assert out.correlation[0] == pytest.approx(0.3, rel=1e-12) and out.correlation[-1] == pytest.approx(0.3)
    assert (out.correlation <= 0.3 + 1e-12).all() and (out.correlation > 0.2).all()


def test_line_and_lattice_grids():
    assert line_grid(4).tolist() == [[1, 0], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0, 1]]
    w = simplex_lattice(10)
    assert w.shape == (66, 3)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert len({tuple(r) for r in np.round(w * 10).astype(int)}) == 66
    for corner in np.eye(3):
        assert (np.abs(w - corner).sum(axis=1) < 1e-12).any()


@pytest.mark.parametrize("kwargs, match", [
    (dict(z="loose"), "`z` must be"), (dict(z=-1), "`z` must be"), (dict(correlation=1.5), "`correlation`"),
    (dict(method="magic"), "`method`"), (dict(resolution=0), "`resolution`"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        weight_sensitivity(load_example("vtab"), **kwargs)


def test_data_errors():
    with pytest.raises(TypeError, match="`data`"):
        weight_sensitivity(np.zeros((2, 2)))
    table = load_example("vtab")
    with pytest.raises(ValueError, match="at least two task groups"):
        weight_sensitivity(table, groups={t: "all" for t in table.tasks})
    with pytest.raises(ValueError, match="lacks task"):
        weight_sensitivity(table, groups={"DTD": "a"})


def test_item_table_goes_through_the_engine_and_matches_the_cluster_robust_plug_in():
    # the engine's paired cluster bootstrap and the cluster-robust plug-in covariance estimate the same SE
    rng = np.random.default_rng(8)
    rows = []
    for t, g in (("t1", "A"), ("t2", "B"), ("t3", "C")):
        n, k = 400, 40
        cluster = np.repeat(np.arange(k), n // k)
        shared = rng.normal(size=k)[cluster] + rng.normal(size=n)
        for m, skill in (("m0", 0.0), ("m1", 0.15), ("m2", 0.3)):
            score = (shared + skill + 0.8 * rng.normal(size=n) > 0).astype(int)
            rows.append(pd.DataFrame({"model": m, "task": t, "group": g, "item": np.arange(n), "cluster": cluster,
                                      "score": score}))
    table = ResultsTable.from_items(pd.concat(rows, ignore_index=True))
    boot = weight_sensitivity(table, n_resamples=3000, rng=1, resolution=10)
    plug = weight_sensitivity(table, method="analytic", resolution=10)
    assert boot.se_source == "bootstrap" and boot.correlation_source == "measured"
    np.testing.assert_array_equal(boot.best, plug.best)
    # bootstrap SD with B = 3000 has ~1.3% Monte Carlo error; the plug-in omits the G/(G-1) = 40/39 factor
    np.testing.assert_allclose(boot.se, plug.se, rtol=0.08)
    assert np.median(boot.correlation) > 0.5 and np.median(plug.correlation) > 0.5
