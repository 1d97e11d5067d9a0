"""Second QA pass, S15: a model lacking a whole task stopped ``beta_binomial`` ("model 'C' has no result for task
'law'"), while compare, rank and report leave the task out with a note. Now ``beta_binomial`` (and
``prior_sensitivity`` and ``compare_with_bootstrap``, which go through it) follow the same rule with the same
notes (``evalband.comparison._setup.shared_tasks``), and a task named in ``tasks`` that a model lacks is an error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalband import ResultsTable
from evalband._validate import InputError
from evalband.bayes import beta_binomial, compare_with_bootstrap, prior_sensitivity
from evalband.comparison import compare


def _rows(rng, skip=("C", "law"), disjoint=None):
    rows = []
    for m, p in (("A", 0.6), ("B", 0.7), ("C", 0.8)):
        for t in ("math", "law", "bio"):
            if (m, t) == skip:
                continue
            items = range(40, 80) if (m, t) == disjoint else range(40)
            rows += [(m, t, i, int(rng.random() < p)) for i in items]
    return pd.DataFrame(rows, columns=["model", "task", "item", "score"])


@pytest.fixture(scope="module")
def nolaw():
    return ResultsTable.from_items(_rows(np.random.default_rng(0)))


def _left_out_notes(notes):
    return [n for n in notes if "left out" in n and not n.startswith("coverage:")]


def test_task_a_model_lacks_is_left_out_with_compares_note(nolaw):
    fit = beta_binomial(nolaw, n_draws=400, rng=1)
    assert fit.tasks == ("bio", "math")  # the canonical (natural) order of the table
    want = ["task 'law' left out: C has no results on it",
            "aggregates over tasks are over the 2 tasks every selected model has (1 of 3 left out; choose with"
            " `tasks` or `models`)"
            "; 2 measured (model, task) cells left out with them: rank and compare take `missing='common'` (each"
            " pair on the tasks both have) or `missing='ability'` (every cell, through a latent-ability model)"]
    assert _left_out_notes(fit.notes) == want
    # the same wording as compare's notes on the same data
    cmp_notes = compare(nolaw, n_resamples=50, rng=1).notes
    assert all(n in cmp_notes for n in want)
    # the fit is the one on the tasks every model has, chosen by hand: same draws from the same seed
    chosen = beta_binomial(nolaw, tasks=["bio", "math"], n_draws=400, rng=1)
    np.testing.assert_array_equal(fit.theta, chosen.theta)
    assert _left_out_notes(chosen.notes) == []
    # observed accuracies are pandas' per-task means
    d = nolaw.data.astype({"model": str, "task": str})
    want_obs = d.groupby(["model", "task"])["score"].mean().unstack().loc[list(fit.models), list(fit.tasks)]
    np.testing.assert_allclose(fit.observed, want_obs.to_numpy())


def test_task_named_in_tasks_that_a_model_lacks_is_an_error(nolaw):
    with pytest.raises(InputError, match=r"task 'law' \(in `tasks`\): C has no results on it; leave the task out"
                                         r" of `tasks`, or such models out with `models`"):
        beta_binomial(nolaw, tasks=["law", "math"], n_draws=10)
    # leaving the model out keeps the task
    assert beta_binomial(nolaw, models=["A", "B"], n_draws=10, rng=0).tasks == ("bio", "law", "math")


def test_weights_follow_compares_rule(nolaw):
    with pytest.raises(InputError, match=r"`weights` gives task 'law' a positive weight, but C has no results"):
        beta_binomial(nolaw, weights={"math": 1, "law": 1, "bio": 1}, n_draws=10)
    fit = beta_binomial(nolaw, weights={"math": 3, "law": 0, "bio": 1}, n_draws=2000, rng=2)
    # weighted mean of the observed accuracies, by hand
    np.testing.assert_allclose(fit.observed_aggregate, fit.observed @ np.array([0.25, 0.75]))  # bio, math


def test_prior_sensitivity_and_compare_with_bootstrap(nolaw):
    sens = prior_sensitivity(nolaw, n_draws=200, rng=3)
    assert all(r.tasks == ("bio", "math") for r in sens.results)
    fit = beta_binomial(nolaw, n_draws=400, rng=1)
    agree = compare_with_bootstrap(nolaw, fit, n_resamples=200, rng=2)
    d = nolaw.data.astype({"model": str, "task": str})
    means = d[d["task"] != "law"].groupby(["model", "task"])["score"].mean().groupby("model").mean()
    np.testing.assert_allclose(agree.models["observed"], means.loc[list(fit.models)].to_numpy())


def test_task_without_shared_items_is_kept():
    # every model has 'bio', but C on other items: counts are per model, so the task stays (no note)
    table = ResultsTable.from_items(_rows(np.random.default_rng(4), skip=None, disjoint=("C", "bio")))
    fit = beta_binomial(table, n_draws=50, rng=0)
    assert fit.tasks == ("bio", "law", "math")
    assert _left_out_notes(fit.notes) == []
