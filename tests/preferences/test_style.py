"""Style control: the contextual Bradley-Terry model.

Oracles: statsmodels' binomial GLM on the same design (exact maximum likelihood), FastChat's normalization of
style features transcribed from ``construct_style_matrices``, recovery of a known style effect (theory), and the
LLMFAO crowd comparisons with the real response lengths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband.preferences import BattleTable, arena, fit_style, style_design
from evalband.preferences.style import style_names

from ..conftest import FIXTURES


def _styled(seed=0, m=5, n=3000, beta=(0.7, -0.3)):
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.8, -0.8, m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    len_a, len_b = rng.integers(50, 1500, n), rng.integers(50, 1500, n)
    bold_a, bold_b = rng.integers(0, 8, n), rng.integers(0, 8, n)
    table0 = {"length": np.column_stack([len_a, len_b]).astype(float),
              "bold_count": np.column_stack([bold_a, bold_b]).astype(float)}
    z = style_design(table0, ["length", "bold_count"])
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + z @ np.asarray(beta))))
    u = rng.random(n)
    y = np.where(u < 0.1, 0.5, (rng.random(n) < p).astype(float))
    names = np.array([f"m{i}" for i in range(m)], dtype=object)
    return BattleTable.build(names[a], names[b], y, labels={"question": np.array([f"q{i // 3}" for i in range(n)],
                                                                                   dtype=object)},
                             features=table0), theta


def fastchat_style_vector(len_a, len_b):
    """FastChat's construct_style_matrices for one feature (apply_ratio=1, add_one=True), transcribed."""
    style_diff = (len_a - len_b).astype(float)
    style_sum = (len_a + len_b).astype(float) + 1
    style_diff = style_diff / style_sum
    return (style_diff - np.mean(style_diff)) / np.std(style_diff)


def test_normalization_is_fastchats():
    table, _ = _styled()
    v = table.features["length"]
    np.testing.assert_allclose(style_design(table.features, ["length"])[:, 0], fastchat_style_vector(v[:, 0], v[:, 1]),
                               rtol=1e-12)


def test_fit_equals_statsmodels_glm():
    sm = pytest.importorskip("statsmodels.api")
    table, _ = _styled()
    z = style_design(table.features, ["length", "bold_count"])
    theta, beta, conv = fit_style(table.model_a, table.model_b, table.outcome, z, table.n_models,
                                  np.ones((1, table.n_battles)), ridge=0.0)
    m = table.n_models
    x = np.zeros((table.n_battles, m))
    x[np.arange(table.n_battles), table.model_a] += 1
    x[np.arange(table.n_battles), table.model_b] -= 1
    design = np.column_stack([x[:, 1:], z])  # model 0 as the reference (theta_0 = 0)
    glm = sm.GLM(table.outcome, design, family=sm.families.Binomial()).fit(tol=1e-13)
    ref = np.concatenate([[0.0], glm.params[: m - 1]])
    assert conv.all()
    np.testing.assert_allclose(theta[0], ref - ref.mean(), atol=1e-7)
    np.testing.assert_allclose(beta[0], glm.params[m - 1:], atol=1e-7)


def test_known_style_effect_is_recovered_with_an_interval():
    table, truth = _styled(seed=3, n=6000, beta=(0.6, 0.0))
    res = arena(table, style="length,bold_count", scale="logit", rng=2, n_resamples=300)
    s = res.style.set_index("feature")
    assert s.loc["length", "ci_low"] < 0.6 < s.loc["length", "ci_high"]
    assert s.loc["bold_count", "ci_low"] < 0.0 < s.loc["bold_count", "ci_high"]
    f = res.to_frame().set_index("model")
    rating = f.loc[[f"m{i}" for i in range(5)], "rating"].to_numpy()
    assert np.abs(rating - (truth - truth.mean())).max() < 0.15
    assert {"rating_raw", "ci_low_raw", "ci_high_raw"} <= set(f.columns)


def test_llmfao_with_response_lengths():
    crowd = pd.read_csv(FIXTURES / "llmfao" / "crowd-comparisons.csv")
    resp = pd.read_csv(FIXTURES / "llmfao" / "responses.csv")
    length = resp.set_index(["prompt", "model"])["result_chars"]
    crowd["length_a"] = length.reindex(pd.MultiIndex.from_arrays([crowd.prompt, crowd.model_x])).to_numpy()
    crowd["length_b"] = length.reindex(pd.MultiIndex.from_arrays([crowd.prompt, crowd.model_y])).to_numpy()
    crowd = crowd.dropna(subset=["length_a", "length_b"])
    res = arena(crowd, style="length", rng=4, n_resamples=200)
    s = res.style.set_index("feature")
    assert np.isfinite(s.loc["length", ["coefficient", "ci_low", "ci_high"]]).all()
    f = res.to_frame()
    assert not np.allclose(f["rating"], f["rating_raw"])
    assert any("style control on length" in n for n in res.notes)


def test_style_names_and_errors():
    assert style_names("markdown", ["length", "header_count", "list_count", "bold_count"]) == \
        ["header_count", "list_count", "bold_count"]
    with pytest.raises(ValueError, match="no style feature 'speed'; available: length"):
        style_names("speed", ["length"])
    with pytest.raises(ValueError, match="'markdown' needs"):
        style_names("markdown", ["length"])
    table, _ = _styled()
    with pytest.raises(ValueError, match="ties 'half' or 'drop'"):
        arena(table, model="davidson", style="length", n_resamples=10)
    flat = {"length": np.ones((table.n_battles, 2))}
    with pytest.raises(ValueError, match="same difference in every battle"):
        style_design(flat, ["length"])


def test_sub_blocks_do_not_change_the_numbers(monkeypatch):
    from evalband.preferences import replicates

    table, _ = _styled(seed=1, n=900)
    first = arena(table, style="length", rng=3, n_resamples=60)
    monkeypatch.setattr(replicates, "STYLE_ELEMENTS", 2_000)  # two replicates per sub-block instead of all
    second = arena(table, style="length", rng=3, n_resamples=60)
    np.testing.assert_allclose(first.samples, second.samples, rtol=1e-12, atol=1e-12)
    bca = arena(table, style="length", rng=3, n_resamples=60, method="bca")
    assert bca.jackknife.shape == (300, 5)  # one-step delete-one-question values of the style-controlled ratings
