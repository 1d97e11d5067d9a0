"""The logistic model fitted by HMC in coordinates whitened by its Gaussian (Laplace) approximation:
``logistic(..., method='hmc')``, the default.

1. The posterior mode and the precision there (:mod:`evalband.bayes._laplace_fit`: damped Newton steps on the
   structured Hessian, in float64), in coordinates where the precision is an arrowhead (:mod:`._coords`).
2. A fixed linear map from N(0, I) to those coordinates through the Gaussian approximation
   (:mod:`._whiten`); with item effects the map leaves out the (weak) coupling between the items and the other
   parameters, which keeps its cost at a few passes over the items instead of one over every score.
3. HMC with a Gaussian splitting over the whitened coordinates (:mod:`._split_hmc`): a trajectory of a quarter
   turn takes two steps without item effects and about seven with 12,000 of them, against a NUTS tree of 15 to
   30 leapfrog steps in the original coordinates; the chains run vectorized.

The map is linear and invertible, so the chains target the model's exact posterior: R-hat, ESS and divergences
come from real chains and are checked as for NUTS (:func:`evalband.bayes.diagnostics.diagnose`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from ..display.notes import NoteKind

__all__ = ["Fit", "fit_hmc", "HMC_WARMUP"]

#: Default warm-up iterations per chain: the chains start in the approximation's typical set, so warm-up only
#: tunes the step size and a diagonal rescaling.
HMC_WARMUP = 400

#: Draws mapped back to the model's coordinates at a time (bounds the memory with item effects).
_BLOCK = 50


@dataclass(frozen=True)


class Fit:
    """A fit of the logistic model: ``posterior`` maps each variable (intercept, sigma_<level>, <level>_effect) to
    draws shaped (chains, draws, ...); ``sample_stats`` per transition; ``notes`` what was done; ``checks`` the
    method's own accuracy figures (Laplace) or sampler settings (HMC)."""

    posterior: dict
    sample_stats: dict
    notes: tuple
    centred: dict
    checks: dict = field(default_factory=dict)


def effects_from(lay, theta, q):
    """Posterior variables (the model's names) from global vectors (D, n_global) and item values (D, K)."""
    from ._coords import split_effects

    eff = split_effects(lay, np.asarray(theta, dtype=np.float64), None if q is None else np.asarray(q, np.float64),
                        xp=np)
    out = {"intercept": eff["intercept"]}
    for lv, s in eff["sigma"].items():
        out[f"sigma_{lv}"] = s
    for lv in ("model", "task", "model_task", "cluster", "item"):
        if lv in eff:
            out[f"{lv}_effect"] = eff[lv].astype(np.float32) if lv == "item" else eff[lv]
    return out


def draws_to_posterior(lay, mapping, z):
    """Map whitened draws z (chains, draws, dim) through ``mapping`` (jitted, in blocks, with item effects; NumPy
    without them) to the posterior variables."""
    chains, draws, dim = z.shape
    if lay.item_cell is None:  # one matrix product: NumPy, in the mapping's own precision (no compilation)
        flat = np.asarray(z, dtype=mapping.theta0.dtype).reshape(-1, dim)
        theta, _ = mapping(flat, xp=np)
        post = effects_from(lay, theta, None)
        return {k: v.reshape(chains, draws, *v.shape[1:]) for k, v in post.items()}
    import jax

    flat = np.asarray(z, dtype=np.float32).reshape(-1, dim)
    f = jax.jit(lambda x: mapping(x))
    parts = []
    for s in range(0, flat.shape[0], _BLOCK):
        block = flat[s:s + _BLOCK]
        pad = _BLOCK - block.shape[0]  # one block shape: one compilation
        theta, q = f(np.pad(block, ((0, pad), (0, 0))))
        keep = slice(0, block.shape[0])
        parts.append(effects_from(lay, np.asarray(theta)[keep], None if q is None else np.asarray(q)[keep]))
    return {k: np.concatenate([p[k] for p in parts]).reshape(chains, draws, *parts[0][k].shape[1:])
            for k in parts[0]}


def potential_fn(lay, mapping):
    """The negative log posterior density over the whitened coordinates, relative to the mode, for a batch of z
    (c, dim) (natively batched: on CPU several times faster than ``jax.vmap``). The likelihood enters by its change
    from the mode (:func:`~evalband.bayes._coords.log_likelihood_change`), so float32 keeps the digits that the
    difference of two sums over hundreds of thousands of scores would lose."""
    import jax.numpy as jnp
    from scipy import special

    from ._coords import item_logits, log_likelihood_change, log_prior

    theta0 = np.asarray(mapping.theta0, dtype=np.float64)
    q0 = None if mapping.q0 is None else np.asarray(mapping.q0, dtype=np.float64)
    eta0 = np.asarray(item_logits(lay, theta0, q0, xp=np), dtype=np.float64)  # NumPy: no eager JAX dispatch
    dtype = mapping.theta0.dtype
    p0 = (jnp.asarray(special.expit(eta0), dtype), jnp.asarray(special.expit(-eta0), dtype))
    t0 = jnp.asarray(theta0, dtype)
    q0j = None if q0 is None else jnp.asarray(q0, dtype)
    lp0 = np.asarray(log_prior(lay, np.asarray(mapping.theta0), None if q0 is None else np.asarray(mapping.q0),
                               xp=np), dtype=dtype)

    def potential(z):
        d_theta, d_q = mapping.delta(z)
        lp = log_prior(lay, t0 + d_theta, None if d_q is None else q0j + d_q) - lp0
        return -(lp + log_likelihood_change(lay, p0, t0, d_theta, q0j, d_q))

    return potential


NOTE_SAMPLED_NON_CENTRED_CENTRED = NoteKind(
    'bayes.sampled-non-centred-centred', 'info',
    '{value} sampled non-centred: the centred density has no interior mode there')


def potential_numpy(lay, mapping, z):
    """:func:`potential_fn` and its gradient at z (c, dim) in NumPy, float64, for the model without item effects
    (:class:`~evalband.bayes._cell_density.CellDensity`): the chains' starting values without compiling the
    gradient a second time (the sampler's compiled block holds it)."""
    from ._cell_density import CellDensity

    cells = CellDensity(lay)
    theta0 = np.asarray(mapping.theta0, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    d_theta, _ = mapping.delta(z, xp=np)
    val, grad = cells.value_and_grad(theta0 + d_theta)
    l_inv = np.asarray(mapping.arrays["l_inv"], dtype=np.float64)  # x = theta0 + z L^-1: dU/dz = -grad L^-T
    return -(val - float(cells.value(theta0))), -(grad @ l_inv.T)


def prepare(obs, n_models, n_tasks, centred, *, couple_items=False, dtype=np.float32):
    """The mode, the precision and the whitening map (its arrays in ``dtype``): (layout, mapping, log density at
    the mode, notes)."""
    from ._laplace_marginal import marginal_mode_and_precision
    from ._whiten import block_whitening, whitening

    lay, theta, q, prec, steps, val, switched = marginal_mode_and_precision(obs, n_models, n_tasks, centred)
    if lay.item_cell is None or couple_items:
        mapping = whitening(lay, theta, q, prec, dtype=dtype)
    else:
        mapping = block_whitening(lay, theta, q, prec, dtype=dtype)
    notes = [f"Gaussian approximation: scales at their marginal posterior mode (Laplace; {steps} EM iterations),"
             " effects at their conditional mode"]
    if switched:
        notes.append(NOTE_SAMPLED_NON_CENTRED_CENTRED(value=', '.join(lv.replace('_', ' x ') for lv in switched)))
    return lay, mapping, val, notes


def fit_hmc(obs, n_models, n_tasks, centred, *, num_warmup, num_samples, num_chains, seed, target_accept=0.8,
            max_steps=64) -> Fit:
    """Fit by HMC over the whitened coordinates (module docstring); ``seed`` an integer for JAX's and NumPy's
    generators (starting points)."""
    import jax
    import jax.numpy as jnp

    from ._split_hmc import sample

    t0 = time.perf_counter()
    lay, mapping, val, notes = prepare(obs, n_models, n_tasks, centred)
    t1 = time.perf_counter()

    potential = potential_fn(lay, mapping)

    def value_and_grad(z):
        u, pullback = jax.vjp(potential, z)
        return u, pullback(jnp.ones_like(u))[0]

    init = np.random.default_rng(seed).normal(scale=1.5, size=(num_chains, mapping.dim)).astype(np.float32)
    initial = None
    if lay.item_cell is None:
        u0, g0 = potential_numpy(lay, mapping, init)
        initial = (u0.astype(np.float32), g0.astype(np.float32))
    res = sample(value_and_grad, jnp.asarray(init), num_warmup=num_warmup, num_samples=num_samples,
                 key=jax.random.PRNGKey(seed % (2**31 - 1)), target_accept=target_accept, max_steps=max_steps,
                 initial=initial)
    t2 = time.perf_counter()
    posterior = draws_to_posterior(lay, mapping, res.z)
    t3 = time.perf_counter()
    stats = {"diverging": res.diverging, "acceptance_rate": res.accept_prob}
    notes = [f"HMC in coordinates whitened by the posterior's Gaussian approximation at its mode (exact posterior;"
             f" {res.num_steps} steps of size {res.step_size:.3g} per draw, Gaussian splitting): {num_chains} chains"
             f" x {num_samples} draws after {num_warmup} warm-up", *notes]
    checks = {"step_size": res.step_size, "num_steps": res.num_steps,
              "mean_acceptance": float(res.accept_prob.mean()),
              "seconds": {"mode": t1 - t0, "sampling": t2 - t1, "mapping": t3 - t2}}
    return Fit(posterior, stats, tuple(notes), dict(lay.centred), checks)
