"""MCMC diagnostics: thresholds of Vehtari et al. (2021) trip on constructed and on deliberately bad fits."""

from __future__ import annotations

import numpy as np
import pytest

az = pytest.importorskip("arviz")  # diagnostics need the bayes extra; the exact model does not

from evalband.bayes.diagnostics import diagnose  # noqa: E402


def _idata(posterior, diverging=None):
    stats = {"diverging": diverging} if diverging is not None else None
    return az.from_dict(posterior=posterior, sample_stats=stats)


def test_well_mixed_independent_chains_pass():
    rng = np.random.default_rng(1)
    idata = _idata({"x": rng.normal(size=(4, 1000)), "y": rng.normal(size=(4, 1000, 3))},
                   diverging=np.zeros((4, 1000), dtype=bool))
    frame, warnings = diagnose(idata)
    assert warnings == ()
    assert frame.set_index("variable").loc["y", "size"] == 3
    assert (frame["r_hat_max"] < 1.01).all() and (frame["ess_bulk_min"] > 3000).all()


def test_chains_that_disagree_trip_r_hat():
    # theory: chains centred 0.5 sd apart cannot give a rank-normalised split R-hat near 1
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 1000)) + np.array([0.0, 0.5, 0.0, -0.5])[:, None]
    frame, warnings = diagnose(_idata({"x": x}))
    assert frame.loc[0, "r_hat_max"] > 1.01
    assert any("R-hat above 1.01" in w for w in warnings)


def test_autocorrelated_draws_trip_ess():
    # AR(1) with phi = 0.99: ESS is about n (1 - phi) / (1 + phi) = 4000 * 0.005 = 20, far below 100 per chain
    rng = np.random.default_rng(3)
    e = rng.normal(size=(4, 1000))
    x = np.zeros_like(e)
    for t in range(1, 1000):  # the AR(1) recursion itself is sequential
        x[:, t] = 0.99 * x[:, t - 1] + e[:, t]
    frame, warnings = diagnose(_idata({"x": x}))
    assert frame.loc[0, "ess_bulk_min"] < 100
    assert any("too few effective draws" in w for w in warnings)


def test_any_divergence_is_reported():
    rng = np.random.default_rng(4)
    div = np.zeros((4, 1000), dtype=bool)
    div[2, 17] = True
    frame, warnings = diagnose(_idata({"x": rng.normal(size=(4, 1000))}, diverging=div))
    assert frame.attrs["divergences"] == 1
    assert any("1 divergent transition " in w for w in warnings)


def test_one_chain_says_r_hat_is_unavailable():
    frame, warnings = diagnose(_idata({"x": np.random.default_rng(5).normal(size=(1, 2000))}))
    assert any("one chain only" in w for w in warnings)


def test_exact_draws_convert_to_inference_data():
    from evalband import load_example
    from evalband.bayes import beta_binomial

    res = beta_binomial(load_example("vtab").select(models=["VAE", "WAE-GAN"]), n_draws=200, rng=1)
    idata = res.to_inference_data()
    theta = idata.posterior["theta"]
    assert theta.dims == ("chain", "draw", "model", "task") and theta.shape == (1, 200, 2, 19)
    np.testing.assert_array_equal(theta.values[0], res.theta)
    assert list(idata.posterior["model"].values) == ["VAE", "WAE-GAN"]
    assert "aggregate_pred" in idata.posterior_predictive
