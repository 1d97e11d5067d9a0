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


def _cases():
    """Draws (chains, draws, V) of every kind the checks meet: independent, autocorrelated (AR(1) up to 0.99),
    chains that disagree, heavy tails, ties (discrete values), a constant scalar, odd draw counts, one chain."""
    rng = np.random.default_rng(7)
    e = rng.normal(size=(4, 601, 6))
    ar = np.zeros_like(e)
    phi = np.array([0.0, 0.3, 0.6, 0.9, 0.97, 0.99])
    for t in range(1, e.shape[1]):  # the AR(1) recursion itself is sequential
        ar[:, t] = phi * ar[:, t - 1] + e[:, t]
    shifted = rng.normal(size=(4, 400, 3)) + np.array([0.0, 0.3, 0.0, -0.3])[:, None, None]
    heavy = rng.standard_t(2, size=(3, 250, 4))
    ties = rng.integers(0, 3, size=(4, 300, 2)).astype(float)
    constant = np.full((4, 300, 1), 2.5)
    return {"ar": ar, "shifted": shifted, "heavy": heavy, "ties": ties, "constant": constant,
            "one_chain": rng.normal(size=(1, 500, 2)), "short": rng.normal(size=(2, 7, 2))}


@pytest.mark.parametrize("case", list(_cases()))
def test_statistics_equal_arviz(case):
    # oracle: ArviZ's own rank-normalised split R-hat, bulk and tail ESS, scalar by scalar
    from evalband.bayes.diagnostics import ess_bulk, ess_tail, rhat_rank

    x = _cases()[case]
    expect = {"rhat": [], "bulk": [], "tail": []}
    for j in range(x.shape[2]):
        with np.errstate(invalid="ignore", divide="ignore"):
            expect["rhat"].append(float(az.rhat(x[:, :, j])) if x.shape[0] > 1 else np.nan)
            expect["bulk"].append(float(az.ess(x[:, :, j], method="bulk")))
            expect["tail"].append(float(az.ess(x[:, :, j], method="tail")))
    with np.errstate(invalid="ignore", divide="ignore"):
        got = {"rhat": rhat_rank(x), "bulk": ess_bulk(x), "tail": ess_tail(x)}
    for key, value in expect.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-10, equal_nan=True, err_msg=key)


def test_diagnose_takes_plain_arrays_as_the_inference_data():
    rng = np.random.default_rng(8)
    post = {"x": rng.normal(size=(4, 500)), "y": rng.normal(size=(4, 500, 2, 3))}
    stats = {"diverging": np.zeros((4, 500), dtype=bool)}

    class Fit:
        posterior, sample_stats = post, stats

    plain, warnings = diagnose(Fit())
    via_arviz, _ = diagnose(_idata(post, diverging=stats["diverging"]))
    assert warnings == () and plain.loc[1, "size"] == 6
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(plain, via_arviz)
