"""`correlation` is the per-item correlation of the two models' scores (seed 001); the correlation of the
bootstrap replicates is `replicate_correlation` (QA O16)."""

import numpy as np
import pytest

from evalband.comparison import compare
from evalband import load_example


@pytest.fixture(scope="module")
def llama():
    table = load_example("mmlu-pro").select(models=["Meta-Llama-3-70B", "Meta-Llama-3-8B"])
    return table, compare(table, n_resamples=400, rng=1, cluster=False)


def test_correlation_is_per_item_pooled_within_tasks(llama):
    table, res = llama
    wide = table.data.pivot_table(index=["task", "item"], columns="model", values="score", observed=True)
    centred = wide - wide.groupby(level=0, observed=True).transform("mean")
    # oracle: numpy Pearson correlation of the within-task centred per-item scores
    expected = np.corrcoef(centred["Meta-Llama-3-70B"], centred["Meta-Llama-3-8B"])[0, 1]
    row = res.to_frame().iloc[0]
    assert row["correlation"] == pytest.approx(expected, rel=1e-10)
    assert 0.3 < row["correlation"] < 0.4  # 0.357 (QA: "0.36 within tasks")
    # per task: the plain per-item correlation of that task
    task = res.tasks[0]
    sub = wide.loc[task.statistic]
    assert task.to_frame().iloc[0]["correlation"] == pytest.approx(
        np.corrcoef(sub["Meta-Llama-3-70B"], sub["Meta-Llama-3-8B"])[0, 1], rel=1e-10)


def test_replicate_correlation_is_that_of_the_aggregate_replicates(llama):
    _, res = llama
    samples = res.replicates.replicates.mean(axis=-1)  # (B, M): the mean aggregate on every replicate
    expected = np.corrcoef(samples[:, 0], samples[:, 1])[0, 1]
    row = res.to_frame().iloc[0]
    assert row["replicate_correlation"] == pytest.approx(expected, rel=1e-9)
    for key in ("model_a", "model_b", "difference", "ci_low", "ci_high", "p_value", "verdict"):
        assert key in row.index


def test_summary_data_keep_the_assumed_correlation():
    res = compare(load_example("vtab"), models=["Sup-100%", "Sup-Rotation-100%"], n_resamples=200, rng=1,
                  correlation=0.3, per_task=False)
    assert res.to_frame().iloc[0]["correlation"] == 0.3
