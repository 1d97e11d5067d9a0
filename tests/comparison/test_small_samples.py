"""No verdict from a degenerate bootstrap distribution or from a handful of items (QA O31)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from evalband.cli.main import app
from evalband.comparison import compare
from evalband.comparison.verdict import MIN_UNITS, withhold


def long_frame(a, b, clusters=None):
    n = len(a)
    rows = {"model": ["A"] * n + ["B"] * n, "task": "t", "item": list(range(n)) * 2,
            "score": np.concatenate([a, b])}
    if clusters is not None:
        rows["cluster"] = list(clusters) * 2
    return pd.DataFrame(rows)


def test_three_discordant_items_use_the_exact_mcnemar_test():
    res = compare(long_frame([1, 1, 1], [0, 0, 0]), n_resamples=999, rng=1)
    for level in ("aggregate", "task"):
        row = res.to_frame(level).iloc[0]
        # scipy 1.17: stats.binomtest(3, 3).pvalue == 0.25 (exact McNemar = two-sided sign test)
        assert row["p_value"] == pytest.approx(stats.binomtest(3, 3).pvalue) == 0.25
        assert row["verdict"] == "not yet decided" and row["verdict_basis"] == "exact McNemar"
        assert "exact McNemar p = 0.25 on 3 discordant items" in row["reading"]


def test_one_item_decides_nothing():
    res = compare(long_frame([1], [0]), n_resamples=999, rng=1, per_task=False)
    row = res.to_frame().iloc[0]
    assert row["verdict"] == "not yet decided" and row["verdict_basis"] == "too few units"
    assert np.isnan(row["p_value"]) and "only 1 items" in row["reading"]


@pytest.mark.parametrize("k,expected", [(5, "not yet decided"), (8, "A better")])
def test_few_discordant_pairs_among_many_items(k, expected):
    # 200 items, all concordant but k that A gets right and B wrong. Before the fix the bootstrap gave p ~ 0.02
    # and 'A better' for k = 5; the exact two-sided McNemar p-value is stats.binomtest(k, k).pvalue
    # (0.0625 for 5, 0.0078 for 8).
    a = np.r_[np.ones(k), np.tile([1, 0], 100 - k)[: 200 - k]]
    b = np.r_[np.zeros(k), a[k:]]
    res = compare(long_frame(a, b), n_resamples=2000, rng=3)
    row = res.to_frame("task").iloc[0]
    assert row["p_value"] == pytest.approx(stats.binomtest(k, k).pvalue)
    assert row["verdict"] == expected and row["verdict_basis"] == "exact McNemar"


def test_many_discordant_pairs_keep_the_bootstrap():
    gen = np.random.default_rng(7)
    a = (gen.random(300) < 0.7).astype(float)
    b = (gen.random(300) < 0.5).astype(float)
    row = compare(long_frame(a, b), n_resamples=2000, rng=3).to_frame("task").iloc[0]
    assert row["verdict_basis"] == "bootstrap" and row["verdict"] == "A better"


def test_few_clusters_decide_nothing():
    # 6 clusters of 20 items (clusters are resampled, so only 6 units), A clearly better
    gen = np.random.default_rng(2)
    a = (gen.random(120) < 0.9).astype(float)
    b = (gen.random(120) < 0.3).astype(float)
    res = compare(long_frame(a, b, clusters=np.repeat(np.arange(6), 20)), n_resamples=999, rng=1)
    for level in ("aggregate", "task"):
        row = res.to_frame(level).iloc[0]
        assert row["n_units"] == 6 and row["verdict_basis"] == "too few units"
        assert row["verdict"] == "not yet decided" and np.isnan(row["p_value"])
        assert "only 6 clusters" in row["reading"]


def test_zero_width_interval_decides_nothing():
    # bounded, non-binary scores where A - B is 0.1 on each of 50 items: every replicate gives 0.1
    a = np.linspace(0.2, 0.9, 50)
    res = compare(long_frame(a, a - 0.1), n_resamples=999, rng=1, per_task=False)
    row = res.to_frame().iloc[0]
    # issue 22: the zero-width interval is not shown as a result (it says only that the items agree)
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"]) and np.isnan(row["se"])
    assert row["verdict"] == "not yet decided" and row["verdict_basis"] == "degenerate interval"
    assert "no interval" in row["reading"]


def test_withhold_rule():
    v, basis = withhold(np.array(["A better", "A better", "B better", "A better"], dtype=object),
                        [0.1, 0.1, -0.2, 0.1], [0.1, 0.3, -0.1, 0.3], [0.0, 0.05, 0.03, 0.05],
                        [50, 50, MIN_UNITS - 1, MIN_UNITS])
    assert list(v) == ["not yet decided", "A better", "not yet decided", "A better"]
    assert list(basis) == ["degenerate interval", "bootstrap", "too few units", "bootstrap"]


def test_cli_three_items(tmp_path):
    path = tmp_path / "three.csv"
    long_frame([1, 1, 1], [0, 0, 0]).to_csv(path, index=False)
    res = CliRunner().invoke(app, ["compare", str(path), "--seed", "1", "-f", "markdown"])
    assert res.exit_code == 0, res.output
    assert "A better" not in res.stdout and "not yet decided" in res.stdout and "McNemar" in res.stdout
