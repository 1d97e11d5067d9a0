"""Best-of-n runs: the U-statistic (theory, brute force), the normal factor, and Atari 100k's known answer."""

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalband.facets import expected_best, normal_max_factor, run_spread
from evalband.io import read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_expected_best_is_the_mean_maximum_over_subsets():
    rng = np.random.default_rng(0)
    x = rng.normal(size=9)
    for n in (1, 2, 3, 5, 9):
        brute = np.mean([max(s) for s in itertools.combinations(x, n)])
        assert float(expected_best(x, n)) == pytest.approx(brute, rel=1e-12)
    padded = np.array([[1.0, 4.0, 2.0, np.nan], [3.0, 1.0, 2.0, 5.0]])
    np.testing.assert_allclose(expected_best(padded, 2), [np.mean([4, 2, 4]), np.mean([3, 3, 5, 2, 5, 5])])
    assert np.isnan(expected_best(padded, 4)[0])


def test_normal_max_factor_closed_forms():
    # E max of 2 = 1/sqrt(pi); of 3 = 3/(2 sqrt(pi)); of 5 = 1.16296 (tables of normal order statistics)
    np.testing.assert_allclose(normal_max_factor([1, 2, 3]), [0.0, 1 / np.sqrt(np.pi), 1.5 / np.sqrt(np.pi)],
                               atol=1e-7)
    assert normal_max_factor(5)[0] == pytest.approx(1.16296, abs=1e-5)


def test_inflation_of_normal_runs(binary_design):
    # 30 training runs, each scored on the same 200 items: run sd 0.03 -> best of 5 inflates by about 0.03 * 1.163
    rng = np.random.default_rng(1)
    run_effect = rng.normal(0, 0.03, 30)
    item = rng.normal(0.6, 0.1, 200)
    score = np.clip(item[None, :] + run_effect[:, None] + rng.normal(0, 0.02, (30, 200)), 0, 1)
    df = pd.DataFrame({"model": "m", "task": "t", "item": np.tile(np.arange(200), 30),
                       "run": np.repeat(np.arange(30), 200), "score": score.ravel()})
    rs = run_spread(read(df), n=(1, 5), rng=0).to_frame().set_index("n")
    assert rs.loc[1, "inflation"] == pytest.approx(0.0, abs=1e-12)
    assert rs.loc[5, "level"] == "run"
    assert rs.loc[5, "inflation"] == pytest.approx(rs.loc[5, "inflation_normal"], rel=0.2)
    assert rs.loc[5, "ci_low"] < rs.loc[5, "inflation"] < rs.loc[5, "ci_high"]
    assert rs.loc[5, "normal_low"] < 0.03 * 1.163 < rs.loc[5, "normal_high"]


def _atari():
    scores = json.loads((FIXTURES / "atari100k" / "SPR.json").read_text())
    ref = json.loads((FIXTURES / "atari100k" / "reference_scores.json").read_text())
    rows = [{"model": "SPR", "task": "atari100k", "item": g, "run": k,
             "score": (s - ref["random"][g]) / (ref["human"][g] - ref["random"][g])}
            for g, runs in scores.items() for k, s in enumerate(runs)]
    return read(pd.DataFrame(rows), unbounded=True, facets=["run"])


def test_atari_spr_known_answer_and_best_seed_per_game():
    rs = run_spread(_atari(), n=(1, 3, 10), nested=True, rng=0).to_frame().set_index("n")
    # mean over games of each game's mean human-normalized score: 0.6157957428691673 (rliable notebook)
    assert rs.loc[1, "mean"] == pytest.approx(0.6157957428691673, rel=1e-12)
    assert rs.loc[1, "level"] == "item"
    assert (rs["inflation"].diff().dropna() > 0).all()  # more runs to pick from, more inflation
    assert rs.loc[10, "ci_low"] <= rs.loc[10, "inflation"] <= rs.loc[10, "ci_high"]
    assert repr(run_spread(_atari(), n=3, nested=True, rng=0)).startswith("RunSpread")


def test_errors():
    df = pd.DataFrame({"model": "m", "task": "t", "item": [1, 2], "score": [1, 0]})
    with pytest.raises(ValueError, match="`run`"):
        run_spread(read(df))
    with pytest.raises(ValueError, match="`n`"):
        run_spread(read(df.assign(run=[0, 1])), n=0)


@pytest.mark.slow
def test_coverage_of_the_inflation_interval():
    """Normal runs (sd 0.03), best of 3, 200 datasets of 10 runs: the true inflation is 0.03 * e_3. Measured
    (seed 0): ci (chi-square scaled) 0.94, normal-theory 0.945, percentile bootstrap over runs 0.835."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(0)
    n_sim, n_runs, sd = 200, 10, 0.03
    truth = sd * float(normal_max_factor(3)[0])
    df = pd.concat([pd.DataFrame({"model": "m", "task": f"d{s}", "item": 0, "run": np.arange(n_runs),
                                  "score": 0.5 + rng.normal(0, sd, n_runs)}) for s in range(n_sim)])
    f = run_spread(read(df, facets=["run"]), n=3, rng=1, n_resamples=2000).to_frame()
    hits = int(((f["ci_low"] <= truth) & (truth <= f["ci_high"])).sum())
    boot = int(((f["boot_low"] <= truth) & (truth <= f["boot_high"])).sum())
    print(f"inflation interval coverage: ci {hits / n_sim:.3f}, bootstrap {boot / n_sim:.3f}")
    assert binomtest(hits, n_sim, 0.95).pvalue > 1e-3
    assert binomtest(boot, n_sim, 0.95, alternative="less").pvalue < 1e-3
