"""Win rates against a baseline, average win rates and length-controlled win rates.

Oracles: AlpacaEval's public formula (``metrics/helpers.py``: mean of ``preference - 1``, ``sem`` of it, a
preference 0 read as 1.5, missing ones dropped) on files in its schema; evalica's average-win-rate goldens and live
values; statsmodels' binomial GLM for the length-controlled fit; theory (paired standard error).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalband.preferences import BattleTable, arena, average_win_rate, baseline_win_rates, resampling_units
from evalband.preferences import length_controlled_win_rates

from ..conftest import FIXTURES
from .test_bradley_terry import GOLDENS, LLMFAO, T, W, golden, table_from_counts, table_from_file

ALPACA = FIXTURES / "preference_formats" / "alpaca_eval"
BASELINE = "gpt4_1106_preview"


def alpaca_formula(model: str) -> tuple[float, float]:
    """AlpacaEval's win rate and standard error (as fractions) from one model's annotations.json."""
    records = json.loads((ALPACA / model / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json").read_text())
    prefs = pd.Series([r["preference"] for r in records]).replace({0: 1.5}).astype(float)
    valid = prefs[(prefs >= 1) & (prefs <= 2)] - 1
    return float(valid.mean()), float(valid.sem())


def test_alpaca_eval_win_rate_and_se_equal_the_leaderboard_formula():
    # the formula on these files gives (pandas, as alpaca_eval's describe_head2head / 100):
    stored = {"model_x": (0.6742056666666666, 0.04527588218035003), "model_y": (0.4548016086956521,
                                                                                0.057925366416426136)}
    res = arena(ALPACA, model="win-rate", baseline=BASELINE, rng=3, n_resamples=500)
    frame = res.to_frame().set_index("model")
    for model, (rate, se) in stored.items():
        assert alpaca_formula(model) == pytest.approx((rate, se), abs=1e-12)
        assert frame.loc[model, "win_rate"] == pytest.approx(rate, abs=1e-6)
        assert frame.loc[model, "se"] == pytest.approx(se, abs=1e-6)
        assert frame.loc[model, "rating"] == frame.loc[model, "win_rate"]
    assert frame.loc[BASELINE, "win_rate"] == 0.5
    assert any("without a preference left out" in n for n in res.notes)
    assert any("baseline against itself left out" in n for n in res.notes)


@pytest.mark.parametrize("name", ["food", "simple", "llmfao"])
def test_average_win_rate_matches_evalica_golden(name):
    # evalica.average_win_rate(xs, ys, winners): {name}-golden.csv (ties count half)
    table = table_from_file(LLMFAO if name == "llmfao" else GOLDENS / f"{name}.csv")
    ps = table.pair_sums(np.zeros(table.n_battles, dtype=int), 1)
    tot = ps.totals()
    ours = pd.Series(average_win_rate(tot["n"], tot["s"], ps.pair_i, ps.pair_j, table.n_models),
                     index=table.models)
    g = golden(name, "average_win_rate")
    np.testing.assert_allclose(ours[g.index].to_numpy(), g.to_numpy(), rtol=1e-12)


def test_average_win_rate_matches_live_evalica():
    table = table_from_counts(W, T)
    res = arena(table, model="win-rate", rng=0, n_resamples=50)
    ours = res.to_frame().set_index("model")["win_rate"]
    # evalica.average_win_rate(xs, ys, ws) on these battles
    stored = {"0": 0.5779761904761905, "1": 0.5307539682539683, "2": 0.4994810744810745, "4": 0.46745615495615495,
              "3": 0.42433261183261184}
    for k, v in stored.items():
        assert ours[k] == pytest.approx(v, rel=1e-12)


def _baseline_battles(seed=0, n_q=300, skill=(0.6, -0.2), length_effect=0.0, corr=0.0):
    """Two models against one baseline on the same n_q questions (a shared question effect when corr > 0)."""
    rng = np.random.default_rng(seed)
    rows = []
    q_effect = rng.normal(0, 1, n_q) * corr
    for m, s in zip(("x", "y"), skill):
        delta = rng.normal(0, 300, n_q)
        eta = s + length_effect * np.tanh(delta / 300) + q_effect + rng.normal(0, 0.3, n_q)
        pref = 1 / (1 + np.exp(-eta))
        for q in range(n_q):
            rows.append((m, "base", float(pref[q]), f"q{q}", 500 + delta[q], 500.0))
    f = pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "question_id", "length_a", "length_b"])
    return BattleTable.build(f.model_a, f.model_b, f.winner, labels={"question": f.question_id},
                             features={"length": f[["length_a", "length_b"]].to_numpy()})


def test_length_controlled_fit_equals_statsmodels_glm():
    sm = pytest.importorskip("statsmodels.api")
    table = _baseline_battles(length_effect=0.8)
    units = resampling_units(table, "question")
    base = table.models.index("base")
    wr = baseline_win_rates(table.model_a, table.model_b, table.outcome, table.weight, units, table.n_models, base)
    delta = table.features["length"][wr.keep][:, 0] - table.features["length"][wr.keep][:, 1]
    lc, beta, scale = length_controlled_win_rates(wr, delta, table.n_models)
    for name in ("x", "y"):
        pos = table.models.index(name)
        sel = wr.model == pos
        z = np.tanh(delta[sel] / np.std(delta[sel], ddof=1))
        glm = sm.GLM(wr.preference[sel], sm.add_constant(z), family=sm.families.Binomial()).fit(tol=1e-13)
        alpha = np.log(lc[0, pos]) - np.log1p(-lc[0, pos])
        assert alpha == pytest.approx(glm.params[0], abs=1e-6)
        assert beta[0, pos] == pytest.approx(glm.params[1], abs=1e-6)
    assert lc[0, base] == 0.5


@pytest.mark.parametrize("glm", ["length_controlled_v1", "length-only"])
def test_length_control_through_arena_removes_a_length_effect(glm):
    table = _baseline_battles(seed=2, n_q=800, skill=(0.0, 0.0), length_effect=1.5)
    raw = arena(table, model="win-rate", baseline="base", rng=1, n_resamples=200)
    lc = arena(table, model="win-rate", baseline="base", length_control=True, lc_glm=glm, rng=1, n_resamples=200)
    f = lc.to_frame().set_index("model")
    # equal skill: the length-controlled win rate is near 0.5 (within its interval) for both models
    for m in ("x", "y"):
        assert f.loc[m, "ci_low"] < 0.5 < f.loc[m, "ci_high"]
        assert f.loc[m, "win_rate"] == raw.to_frame().set_index("model").loc[m, "win_rate"]
    assert lc.lc_glm == glm
    assert any("its interval comes from refitting the GLM on every replicate" in n for n in lc.notes)


def test_paired_difference_of_win_rates_has_the_paired_standard_error():
    # two models judged on the same questions against the same baseline, with a strong shared question effect:
    # the cluster bootstrap's SE of the difference matches the analytic paired SE sd(p_x - p_y) / sqrt(n)
    table = _baseline_battles(seed=5, n_q=400, corr=1.5)
    res = arena(table, model="win-rate", baseline="base", rng=7, n_resamples=2000)
    pair = res.pairwise(correction="none").set_index(["model_a", "model_b"])
    f = table.to_frame()
    px = f[f.model_a == "x"].set_index("question").outcome
    py = f[f.model_a == "y"].set_index("question").outcome
    d = (px - py[px.index]).to_numpy()
    paired_se = d.std(ddof=1) / np.sqrt(d.size)
    unpaired_se = np.sqrt(px.var(ddof=1) / px.size + py.var(ddof=1) / py.size)
    row = pair.loc[("x", "y")] if ("x", "y") in pair.index else pair.loc[("y", "x")]
    assert row["se"] == pytest.approx(paired_se, rel=0.08)
    assert paired_se < 0.7 * unpaired_se  # the pairing matters here


def test_win_rate_against_unknown_baseline_is_refused():
    with pytest.raises(ValueError, match="unknown model 'nobody'"):
        arena(ALPACA, model="win-rate", baseline="nobody", n_resamples=10)
    with pytest.raises(ValueError, match="length_control"):
        arena(ALPACA, length_control=True, n_resamples=10)


def test_average_win_rate_jackknife_is_exact_delete_one():
    table = _baseline_battles(seed=8, n_q=40)
    res = arena(table, model="win-rate", method="bca", rng=1, n_resamples=100)
    names = res.models
    questions = np.unique(table.labels["question"])
    for k in (0, 17, 39):
        keep = table.labels["question"] != questions[k]
        alone = arena(table.subset(keep), model="win-rate", rng=1, n_resamples=10)
        np.testing.assert_allclose(res.jackknife[k], alone.rating[[alone.models.index(m) for m in names]],
                                   rtol=1e-12)
