"""Second QA pass: ``weight_sensitivity`` and tasks a model lacks.

``compare`` and ``rank`` leave out a task that a model lacks, with a note (QA O30). Before the fix,
``weight_sensitivity`` on the same data stopped with "model 'Sup-100%' has no result for task 'DTD'" (summary) or
"task 'law': the selected models share no item" (items), naming neither a model nor a way out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import load_example
from evalband.weights import weight_sensitivity


def _summary_without(model, task):
    table = load_example("vtab")
    c = table.counts()
    rows = [(m, t, c.correct[i, j], c.n[i, j], table.task_groups[t])
            for i, m in enumerate(c.models) for j, t in enumerate(c.tasks) if (m, t) != (model, task)]
    return pd.DataFrame(rows, columns=["model", "task", "correct", "n", "group"])


def test_summary_task_a_model_lacks_is_left_out_with_a_note():
    df = _summary_without("Sup-100%", "DTD")
    res = weight_sensitivity(df, method="analytic", resolution=10)
    assert res.groups == ("natural", "specialized", "structured")
    assert "task 'DTD' left out: Sup-100% has no results on it" in res.notes
    assert any("over the 18 tasks every model has (1 of 19 left out" in n for n in res.notes)
    # independent oracle (pandas): at weights (1, 0, 0) each model's score is its mean over the 6 natural
    # tasks left, and the lead's SE is the binomial SE of that difference of means (models independent)
    kept = df[(df.group == "natural") & (df.task != "DTD")].assign(p=lambda d: d.correct / d.n)
    kept = kept.assign(v=kept.p * (1 - kept.p) / kept.n)
    mean = kept.groupby("model")["p"].mean()
    var = kept.groupby("model")["v"].sum() / 6 ** 2
    k = res.nearest([1, 0, 0])
    assert np.allclose(res.weights[k], [1, 0, 0])
    assert res.scores[k] == pytest.approx(mean.reindex(res.models).to_numpy())
    a, b = res.models[res.best[k]], res.models[res.runner_up[k]]
    assert (a, b) == tuple(mean.sort_values(ascending=False).index[:2])
    assert res.lead[k] == pytest.approx(mean[a] - mean[b])
    assert res.se[k] == pytest.approx(np.sqrt(var[a] + var[b]))


def test_item_task_a_model_lacks_is_left_out(tmp_path):
    rows = [(m, t, i, float((i + len(m) + len(t)) % 3 == 0), g)
            for m in ("a", "b", "c") for t, g in (("t1", "x"), ("t2", "x"), ("t3", "y"), ("t4", "y"))
            for i in range(30) if not (m == "c" and t == "t2")]
    df = pd.DataFrame(rows, columns=["model", "task", "item", "score", "group"])
    res = weight_sensitivity(df, rng=1, n_resamples=200, resolution=4)
    assert "task 't2' left out: c has no results on it" in res.notes
    k = res.nearest([1, 0])
    want = df[df.task == "t1"].groupby("model")["score"].mean()  # group x keeps t1 only
    assert res.scores[k] == pytest.approx(want.reindex(res.models).to_numpy())
