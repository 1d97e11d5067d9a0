"""evalband.latent.rasch_marginal: girth's marginal-ML one-parameter fit as the oracle (stored), the marginal
likelihood it maximizes (numerical integration), the posterior draws against the posterior itself."""

from __future__ import annotations

import numpy as np
from references import load_beside
from scipy.special import log_expit

import evalband as eb
from evalband.latent.rasch_marginal import fit_marginal_rasch, posterior_draws


def marginal_loglik(y, obs, d, s):
    """The Rasch marginal log-likelihood with abilities N(0, s^2), by a fine grid (the definition)."""
    g = np.linspace(-12, 12, 6001)
    yo = np.where(obs, y, 0)
    ll = g[None, :] * yo.sum(1)[:, None] + (yo @ d)[:, None] + obs.astype(float) @ log_expit(-(g[:, None] + d)).T
    ll += -0.5 * g ** 2 / s ** 2 - np.log(s * np.sqrt(2 * np.pi))
    top = ll.max(1, keepdims=True)
    return float((top[:, 0] + np.log(np.exp(ll - top).sum(1) * (g[1] - g[0]))).sum())


def test_girth_onepl_mml_agrees():
    """girth.onepl_mml (stored by make_girth_rasch_reference.py): abilities N(0, 1) with a common discrimination
    alpha, the Rasch model with abilities N(0, alpha^2): s = alpha, d_i = -alpha b_i."""
    make = load_beside(__file__, "make_girth_rasch_reference")
    ref = load_beside(__file__, "girth_rasch_reference")
    _, _, y = make.simulate()
    obs = np.ones(y.shape, dtype=bool)
    fit = fit_marginal_rasch(y, obs, np.repeat([0, 1], 40), 2, tol=1e-7)
    alpha, d_g = ref.DISCRIMINATION, -ref.DISCRIMINATION * np.array(ref.DIFFICULTY)
    assert fit.converged and abs(fit.s - alpha) < 0.01
    assert np.max(np.abs(fit.d - d_g) / np.sqrt(fit.var_d)) < 0.25  # a quarter of a standard error at most
    # it is the maximum: no lower than girth's (quadrature-approximated) estimate on the likelihood itself
    assert marginal_loglik(y, obs, fit.d, fit.s) >= marginal_loglik(y, obs, d_g, alpha) - 1e-6


def test_the_fit_maximizes_the_marginal_likelihood_with_missing_responses():
    make = load_beside(__file__, "make_girth_rasch_reference")
    _, _, y = make.simulate()
    obs = np.random.default_rng(3).random(y.shape) >= 0.4
    fit = fit_marginal_rasch(y, obs, np.repeat([0, 1], 40), 2, tol=1e-7)
    best = marginal_loglik(y, obs, fit.d, fit.s)
    rng = np.random.default_rng(4)
    for _ in range(5):  # small moves of the intercepts or the spread lower it (the d prior is 1/25: negligible)
        assert marginal_loglik(y, obs, fit.d + 0.05 * rng.standard_normal(fit.d.size), fit.s) < best
    assert marginal_loglik(y, obs, fit.d, fit.s * 1.05) < best and marginal_loglik(y, obs, fit.d, fit.s / 1.05) < best


def test_posterior_draws_follow_the_posterior():
    """Without the items' error (intercept draws fixed at the estimate) the draws are the posterior's: their
    quantiles and the median match the posterior integrated numerically, also for a model with every item right."""
    make = load_beside(__file__, "make_girth_rasch_reference")
    _, _, y = make.simulate()
    y = y.copy()
    y[0] = 1  # every item right: a skewed posterior, finite
    obs = np.ones(y.shape, dtype=bool)
    fit = fit_marginal_rasch(y, obs, np.repeat([0, 1], 40), 2)
    med, draws, _ = posterior_draws(y, obs, fit, 20000, 1, d_draws=np.broadcast_to(fit.d, (20000, fit.d.size)))
    g = np.linspace(-15, 15, 30001)
    for m in (0, 1, 7):
        lp = g * y[m].sum() + log_expit(-(g[:, None] + fit.d)).sum(1) - 0.5 * g ** 2 / fit.s ** 2
        cdf = np.cumsum(np.exp(lp - lp.max()))
        cdf /= cdf[-1]
        for q in (0.025, 0.5, 0.975):
            exact = np.interp(q, cdf, g)
            assert abs(np.quantile(draws[:, m], q) - exact) < 0.05, (m, q)
        assert abs(med[m] - np.interp(0.5, cdf, g)) < 0.01
    assert np.isfinite(med[0]) and med[0] > med[1:].max()


def test_item_error_widens_and_rasch_result_is_reproducible():
    make = load_beside(__file__, "make_girth_rasch_reference")
    _, _, y = make.simulate()
    m, i = y.shape
    df = {"model": np.repeat([f"m{k:02d}" for k in range(m)], i), "task": np.tile(np.repeat(["a", "b"], 40), m),
          "item": np.tile([f"i{k:02d}" for k in range(i)], m), "score": y.ravel()}
    import pandas as pd

    df = pd.DataFrame(df)
    r1 = eb.ability(df, model="rasch", n_resamples=200, rng=5)
    r2 = eb.ability(df.sample(frac=1, random_state=0), model="rasch", n_resamples=200, rng=5)
    assert np.allclose(r1.ranking.ci.low, r2.ranking.ci.low) and np.allclose(r1.ranking.ci.high, r2.ranking.ci.high)
    fit = fit_marginal_rasch(y, np.ones(y.shape, bool), np.repeat([0, 1], 40), 2)
    obs = np.ones(y.shape, bool)
    _, with_err, _ = posterior_draws(y, obs, fit, 4000, 2)
    _, without, _ = posterior_draws(y, obs, fit, 4000, 2, d_draws=np.broadcast_to(fit.d, (4000, i)))
    assert np.all(with_err.std(0) >= without.std(0) * 0.98) and with_err.std(0).mean() > without.std(0).mean()
