"""Independent resampling when the models share no item of a task (each model has its own items): the engine
resamples each model on its own items instead of stopping, and equals one bootstrap per model (its random streams
are keyed by task, block and model)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import ResultsTable, bootstrap
from evalband._validate import InputError


def _disjoint():
    rng = np.random.default_rng(0)
    rows = [("A", "t1", f"a{i}", float(rng.random() < 0.7)) for i in range(40)]
    rows += [("B", "t1", f"b{i}", float(rng.random() < 0.5)) for i in range(30)]  # no item shared on t1
    rows += [(m, "t2", f"c{i}", float(rng.random() < 0.6)) for m in "AB" for i in range(25)]
    return ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]))


def test_independent_bootstrap_runs_without_shared_items_and_equals_per_model_runs():
    table = _disjoint()
    with pytest.raises(InputError, match="share no item"):  # pairing needs shared items
        bootstrap(table, resampling="paired", n_resamples=50, rng=1)
    joint = bootstrap(table, resampling="independent", n_resamples=500, rng=1)
    per_model = [bootstrap(table.select(models=[m]), resampling="independent", n_resamples=500, rng=1)
                 for m in ("A", "B")]
    np.testing.assert_array_equal(joint.replicates, np.concatenate([p.replicates for p in per_model], axis=1))
    d = table.data
    np.testing.assert_allclose(joint.observed, d.groupby(["model", "task"], observed=True)["score"].mean().unstack().to_numpy())
    # the bootstrap SE of each model's t1 mean is that of a mean of its own items: sqrt(p (1 - p) / n)
    se = joint.replicates[:, :, 0].std(axis=0)
    p = joint.observed[:, 0]
    np.testing.assert_allclose(se, np.sqrt(p * (1 - p) / np.array([40, 30])), rtol=0.12)
    assert any("own items" in n for n in joint.notes)


def test_compare_with_bootstrap_resamples_independently_when_no_item_is_shared():
    from evalband.bayes import beta_binomial, compare_with_bootstrap

    table = _disjoint()
    fit = beta_binomial(table, n_draws=4000, rng=2)
    agree = compare_with_bootstrap(table, fit, n_resamples=1000, rng=3)
    assert any("independent resampling" in n for n in agree.notes)
    row = agree.to_frame().iloc[0]
    # unpaired models: the bootstrap interval of the mean-over-tasks difference is as wide as the analytic one
    # (independent binomial SEs), within Monte Carlo error
    width = lambda lo, hi: row[hi] - row[lo]
    assert abs(width("boot_low", "boot_high") / width("analytic_low", "analytic_high") - 1) < 0.15
