"""Latency quantiles (median, p95) with paired bootstrap intervals.

Oracles:
* ``numpy.nanquantile`` for the vectorized NaN-aware quantile (hypothesis-generated arrays);
* the draws rebuilt by hand: ``bootstrap_items`` draws ``draw_indices(block_generator(run_entropy(
  default_rng(seed)), (crc32(task), 0)), K, (B,))`` per task (one block for small data), the same indices for
  every model; each replicate's quantiles are recomputed with ``numpy.quantile`` on the pooled drawn items;
* a real dataset's known answer: LLMFAO response durations (CC BY 4.0, bundled under tests/fixtures/llmfao),
  whose per-model medians over the 13 crowd-judged prompts are recomputed from the raw ``responses.csv`` with
  ``responses[responses.prompt.isin(prompts)].groupby('name').duration_ms.median() / 1000``.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import evalband as eb
from evalband._random import block_generator, name_key, run_entropy
from evalband.costs import latency_quantiles
from evalband.costs.latency import nan_quantiles
from evalband.resample import draw_indices

LLMFAO = Path(__file__).resolve().parents[1] / "fixtures" / "llmfao"


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 12)),
              elements=st.one_of(st.floats(-1e6, 1e6), st.just(np.nan))),
       st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4))
def test_nan_quantiles_match_numpy(x, q):
    ours = nan_quantiles(x, q)
    for r in range(x.shape[0]):
        if np.isnan(x[r]).all():
            assert np.isnan(ours[r]).all()
        else:
            np.testing.assert_allclose(ours[r], np.nanquantile(x[r], q), rtol=1e-12, atol=1e-9)


def test_replicates_are_quantiles_of_the_same_drawn_items(results):
    b, seed = 300, 9
    lat = latency_quantiles(results, n_resamples=b, rng=seed)
    table = eb.read(results)
    entropy = run_entropy(np.random.default_rng(seed))
    pooled = []
    for task in table.tasks:
        td = table.task_data(task)
        wide = (results[results["task"] == task].pivot(index="item", columns="model", values="latency")
                .loc[td.items, list(table.models)].to_numpy().T)
        idx = draw_indices(block_generator(entropy, (name_key(task), 0)), td.n_items, (b,))
        pooled.append(wide[:, idx])  # (M, B, K): the same items for every model
    pooled = np.concatenate(pooled, axis=2)
    for k, q in enumerate((0.5, 0.95)):
        np.testing.assert_allclose(lat.samples[:, :, k], np.quantile(pooled, q, axis=2).T, rtol=1e-12)
    by_hand = results.groupby("model", sort=False)["latency"].median().loc[list(table.models)].to_numpy()
    np.testing.assert_allclose(lat.estimate[:, 0], by_hand, rtol=1e-13)
    d, se, lo, hi = lat.difference("A", "C", 0.5)
    s = lat.samples[:, 0, 0] - lat.samples[:, 2, 0]
    assert (lo, hi) == (pytest.approx(np.quantile(s, 0.025)), pytest.approx(np.quantile(s, 0.975)))


def test_missing_latencies_and_frame(results):
    df = results.copy()
    df.loc[(df["model"] == "B") & (df["item"] == "t1-4"), "latency"] = np.nan
    lat = latency_quantiles(df, n_resamples=100, rng=0, quantiles=(0.5, 0.9))
    assert lat.n_items.tolist() == [299.0] * 3 and lat.missing_items.tolist() == [0, 1, 0]
    assert any("left out of every model's quantiles" in n for n in lat.notes)
    assert list(lat.to_frame().columns) == ["model", "latency_median", "latency_median_ci_low",
                                            "latency_median_ci_high", "latency_p90", "latency_p90_ci_low",
                                            "latency_p90_ci_high", "n_items"]
    with pytest.raises(ValueError, match="`quantiles` must be distinct numbers in"):
        latency_quantiles(df, quantiles=(0.5, 1.5))


def test_llmfao_durations_as_latency():
    items = pd.read_csv(LLMFAO / "items.csv")
    responses = pd.read_csv(LLMFAO / "responses.csv")
    lat = latency_quantiles(items, n_resamples=2000, rng=1)
    frame = lat.to_frame().set_index("model")
    prompts = items["item"].unique()
    known = responses[responses["prompt"].isin(prompts)].groupby("name")["duration_ms"].median() / 1000
    np.testing.assert_allclose(frame["latency_median"], known.loc[frame.index], rtol=1e-12)
    # the stored values of that call, for the record
    assert frame.loc["Dolly v2 (12B)", "latency_median"] == pytest.approx(10.542)
    assert frame.loc["LLaMA-2-Chat (7B)", "latency_median"] == pytest.approx(2.231)
    assert lat.n_items.tolist() == [13.0] * 8
    d, _, lo, hi = lat.difference("Dolly v2 (12B)", "LLaMA-2-Chat (7B)")
    assert d == pytest.approx(10.542 - 2.231) and lo > 0  # Dolly decidedly slower at the median
    d, _, lo, hi = lat.difference("GPT 4", "LLaMA-2-Chat (70B)")
    assert lo < 0 < hi  # 6.4 s against 8.4 s on 13 prompts: not decided
