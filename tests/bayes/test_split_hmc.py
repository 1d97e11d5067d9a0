"""HMC with a Gaussian splitting (``_split_hmc``) samples its target exactly.

Oracle: theory. Targets with known moments: a Gaussian whose scales the reference N(0, I) gets wrong by up to a
factor of 2 (the warm-up's rescaling and the kicks must correct it), and independent log-gamma coordinates
(density exp(a x - e^x) / Gamma(a): mean digamma(a), variance trigamma(a); skewed). Means and variances must match
within their Monte Carlo error, with the ESS of the chains (ArviZ).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

numpyro = pytest.importorskip("numpyro")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from evalband.bayes import _split_hmc as sh  # noqa: E402
from evalband.bayes.diagnostics import import_arviz  # noqa: E402


def _value_and_grad(potential):
    def vg(z):
        u, pullback = jax.vjp(potential, z)
        return u, pullback(jnp.ones_like(u))[0]

    return vg


def _check_moments(z, mean, var, what):
    az = import_arviz()
    ess_mean = np.array([float(az.ess(z[:, :, j], method="mean")) for j in range(z.shape[2])])
    flat = z.reshape(-1, z.shape[2])
    se = np.sqrt(var / ess_mean)
    zscore = (flat.mean(0) - mean) / se
    assert np.abs(zscore).max() < 4.5, (what, zscore)
    # the variance's Monte Carlo error: var * sqrt((kurtosis - 1) / ess), with the sample kurtosis
    kurt = ((flat - flat.mean(0)) ** 4).mean(0) / flat.var(0) ** 2
    se_var = var * np.sqrt((kurt - 1) / ess_mean)
    assert (np.abs(flat.var(0) - var) / se_var).max() < 4.5, what
    return ess_mean


@pytest.mark.slow  # two short runs of the sampler (JAX compilation dominates)
def test_gaussian_with_wrong_reference_scales():
    dim = 40
    sd = np.exp(np.linspace(np.log(0.5), np.log(2.0), dim))
    mu = np.linspace(-1, 1, dim)
    potential = lambda z: 0.5 * jnp.sum(((z - mu) / sd) ** 2, -1)
    init = np.random.default_rng(0).normal(size=(4, dim)).astype(np.float32)
    res = sh.sample(_value_and_grad(potential), jnp.asarray(init), num_warmup=200, num_samples=600,
                    key=jax.random.PRNGKey(1))
    assert res.z.shape == (4, 600, dim) and res.diverging.sum() == 0
    np.testing.assert_allclose(res.scale, sd, rtol=0.35)  # the warm-up found the scales
    ess = _check_moments(res.z.astype(np.float64), mu, sd ** 2, "gaussian")
    assert ess.min() > 1000  # a quarter turn per draw: nearly independent draws
    assert 0.6 < res.accept_prob.mean() < 0.95


@pytest.mark.slow
def test_skewed_log_gamma_target():
    dim, a = 20, 2.0
    potential = lambda z: jnp.sum(jnp.exp(z) - a * z, -1)
    init = np.random.default_rng(2).normal(size=(4, dim)).astype(np.float32)
    res = sh.sample(_value_and_grad(potential), jnp.asarray(init), num_warmup=300, num_samples=1000,
                    key=jax.random.PRNGKey(3))
    assert res.diverging.sum() == 0
    _check_moments(res.z.astype(np.float64), np.full(dim, special.digamma(a)), np.full(dim, special.polygamma(1, a)),
                   "log-gamma")


@pytest.mark.slow
def test_draws_do_not_depend_on_the_block_size(monkeypatch):
    potential = lambda z: 0.5 * jnp.sum(z ** 2, -1)
    init = jnp.zeros((2, 3))
    runs = []
    for chunk in (25, 7):  # 7 pads every stage's last block
        monkeypatch.setattr(sh, "CHUNK", chunk)
        runs.append(sh.sample(_value_and_grad(potential), init, num_warmup=120, num_samples=30,
                              key=jax.random.PRNGKey(0)))
    np.testing.assert_array_equal(runs[0].z, runs[1].z)
    assert runs[0].step_size == pytest.approx(sh.TRAJECTORY)  # a Gaussian target: capped at a quarter turn


def test_warmup_stages_add_up():
    for w in (1, 3, 30, 99, 100, 400, 1001):
        stages = sh.warmup_stages(w)
        assert min(stages) >= 1 and (sum(stages) == w or w < 3)
    assert sh.warmup_stages(400)[:2] == (50, 250)  # whole blocks when long enough
