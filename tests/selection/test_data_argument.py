"""QA O29: every analysis takes what ``compare``/``rank``/``bootstrap`` take (a ResultsTable, a DataFrame or a path,
through ``evalband.read``), and the first argument is called ``data`` everywhere (``table=`` still works in
``estimate``/``passk``, with a DeprecationWarning)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalband import load_example, read
from evalband.bayes import beta_binomial, compare_with_bootstrap, prior_sensitivity
from evalband.estimation import estimate, passk
from evalband.weights import weight_sensitivity

# two models, three tasks in two groups, 0/1 items
_rng = np.random.default_rng(0)
LONG = pd.DataFrame({
    "model": np.repeat(["A", "B"], 60), "task": np.tile(np.repeat(["t1", "t2", "t3"], 20), 2),
    "group": np.tile(np.repeat(["g1", "g1", "g2"], 20), 2), "item": np.tile(np.arange(60), 2),
    "score": (_rng.random(120) < np.repeat([0.6, 0.8], 60)).astype(int),
})


def test_beta_binomial_accepts_a_dataframe_and_a_path(tmp_path):
    direct = beta_binomial(read(LONG), n_draws=500, rng=1)
    path = tmp_path / "long.csv"
    LONG.to_csv(path, index=False)
    for data in (LONG, path, str(path)):
        res = beta_binomial(data, n_draws=500, rng=1)
        np.testing.assert_array_equal(res.theta, direct.theta)
    # the counts behind it: A's correct answers on t1
    assert res.observed[0, 0] == LONG.query("model == 'A' and task == 't1'")["score"].mean()


def test_prior_sensitivity_and_compare_with_bootstrap_accept_a_dataframe():
    sens = prior_sensitivity(LONG, priors=["exponential", "half-normal:100"], n_draws=300, rng=2)
    assert sens.models_frame()["model"].tolist() == ["A", "B", "A", "B"]
    fit = beta_binomial(LONG, n_draws=300, rng=2)
    agreement = compare_with_bootstrap(LONG, fit, n_resamples=200, rng=2)
    np.testing.assert_allclose(agreement.models["observed"], fit.observed_aggregate)


def test_weight_sensitivity_accepts_a_dataframe_and_a_path(tmp_path):
    direct = weight_sensitivity(read(LONG), method="analytic", resolution=10)
    path = tmp_path / "long.csv"
    LONG.to_csv(path, index=False)
    for data in (LONG, path):
        ws = weight_sensitivity(data, method="analytic", resolution=10)
        np.testing.assert_array_equal(ws.best, direct.best)
        np.testing.assert_allclose(ws.scores, direct.scores)


@pytest.mark.parametrize("fn", [beta_binomial, weight_sensitivity])
def test_other_types_are_a_type_error_naming_data(fn):
    with pytest.raises(TypeError, match=r"`data` must be a ResultsTable .*a DataFrame or a path; got int"):
        fn(3)


def test_data_is_the_first_argument_of_estimate_and_passk():
    vtab = load_example("vtab")
    assert estimate(data=vtab).to_frame().equals(estimate(vtab).to_frame())
    # the deprecated keyword `table=` was removed at 0.1 (issue 12): one name, `data`, everywhere
    with pytest.raises(TypeError, match="table"):
        estimate(table=vtab)
    with pytest.raises(TypeError, match="data"):
        estimate()


def test_passk_takes_data_like_every_analysis():
    runs = pd.DataFrame({"model": "A", "task": "t", "item": [1, 1, 2, 2], "trial": [0, 1, 0, 1],
                         "score": [1, 0, 1, 1]})
    with pytest.raises(TypeError, match="table"):
        passk(table=runs, k=[2])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = passk(data=runs, k=[2]).to_frame()
    # pass@2 per item: item 1 (1 of 2 correct) -> 1, item 2 -> 1
    assert new.query("metric == 'pass@k'")["estimate"].tolist() == [1.0]
