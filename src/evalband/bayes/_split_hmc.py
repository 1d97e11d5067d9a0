"""Hamiltonian Monte Carlo with a Gaussian splitting, for a target close to N(0, I): vectorized chains in JAX.

The target is ``exp(-U(z))`` with ``U(z) = |z|^2 / 2 + R(z)`` and ``R`` small: a posterior whitened by its Gaussian
approximation (:mod:`evalband.bayes._whiten`). The Hamiltonian ``|p|^2 / 2 + U(z)`` is split into the Gaussian
part, whose flow is an exact rotation of (z, p) by the step size, and ``R``, whose flow is a kick of the momentum
(Strang splitting: half kick, rotation, half kick). Both flows are reversible and volume-preserving, so the usual
Metropolis test on the energy error makes the chain exact for the target. Only ``R`` limits the step size, so the
number of gradient evaluations per draw does not grow with the dimension as the leapfrog integrator's does
(Beskos, Pinski, Sanz-Serna & Stuart 2011; Shahbaba, Lan, Johnson & Neal 2014). A trajectory spans a quarter turn
of the rotation (time pi/2), which turns a Gaussian target's position into its momentum: draws nearly independent.

Warm-up (all chains share the adaptation; after it the kernel is fixed and the chains are independent):

1. the step size by dual averaging towards a mean acceptance probability (Hoffman & Gelman 2014, sec. 3.2);
2. a diagonal rescaling of ``z`` from the variances of the warm-up draws (as Stan's diagonal metric; the
   rescaling is a fixed linear map again, so the target is unchanged), then the step size once more.

The step is shortened so that the steps span the quarter turn exactly (``ceil(T / eps)`` steps of the adapted
``eps`` could span up to twice as long, near a half turn, which maps a Gaussian's position to its negative: draws
then alternate and each chain keeps its own radius). During sampling each iteration draws its step size uniformly
within 10% of that one (a random trajectory length, so no dimension sits at a resonance). Energy errors above
1000 (or not finite) count as divergent.

References
----------
Beskos, A., Pinski, F. J., Sanz-Serna, J. M. & Stuart, A. M. (2011). Hybrid Monte Carlo on Hilbert spaces.
Stochastic Processes and their Applications 121(10), 2201-2230.
Shahbaba, B., Lan, S., Johnson, W. O. & Neal, R. M. (2014). Split Hamiltonian Monte Carlo. Statistics and
Computing 24, 339-349.
Hoffman, M. D. & Gelman, A. (2014). The No-U-Turn sampler. JMLR 15, 1593-1623.
Neal, R. M. (2011). MCMC using Hamiltonian dynamics. In Handbook of Markov Chain Monte Carlo, ch. 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SplitHMCResult", "sample", "TRAJECTORY", "DIVERGENCE"]

#: Integration time of a trajectory (a quarter turn of the Gaussian part's rotation).
TRAJECTORY = np.pi / 2
#: An energy error above this marks the transition divergent (as NumPyro and Stan do).
DIVERGENCE = 1000.0
#: Iterations per compiled block: every stage runs the same compiled function.
CHUNK = 25


@dataclass(frozen=True)
class SplitHMCResult:
    """Draws ``z`` (chains, draws, dim) in the sampler's input coordinates, the acceptance probability and the
    divergent flag of every transition (chains, draws), the adapted step size, the steps per trajectory, and the
    diagonal rescaling found in warm-up (dim,)."""

    z: np.ndarray
    accept_prob: np.ndarray
    diverging: np.ndarray
    step_size: float
    num_steps: int
    scale: np.ndarray


def _dual_averaging_step(state, accept, target, t0=10.0, gamma=0.05, kappa=0.75):
    import jax.numpy as jnp

    log_eps, log_eps_bar, h_bar, mu, t = state
    t = t + 1.0
    h_bar = (1 - 1 / (t + t0)) * h_bar + (target - accept) / (t + t0)
    log_eps = mu - jnp.sqrt(t) / gamma * h_bar
    eta = t ** (-kappa)
    log_eps_bar = eta * log_eps + (1 - eta) * log_eps_bar
    return log_eps, log_eps_bar, h_bar, mu, t


def _da_init(eps):
    import jax.numpy as jnp

    eps = jnp.asarray(eps)
    zero = jnp.zeros((), eps.dtype)  # not weakly typed: every stage then calls the compiled chunk with one signature
    return (jnp.log(eps), jnp.log(eps), zero, jnp.log(10 * eps), zero)


def warmup_stages(num_warmup: int) -> tuple[int, int, int]:
    """Iterations of the three warm-up stages (step size; step size and the variances; step size again): about
    15%, 60% and 25%, the first two rounded to multiples of 25 (the default block) when the warm-up is long
    enough, so that no block of a stage is padded."""
    unit = 25
    if num_warmup >= 4 * unit:
        n1 = unit * max(1, round(0.15 * num_warmup / unit))
        n2 = unit * max(1, round(0.6 * num_warmup / unit))
    else:
        n1, n2 = max(int(0.15 * num_warmup), 1), max(int(0.6 * num_warmup), 1)
    return n1, n2, max(num_warmup - n1 - n2, 1)


def sample(value_and_grad, init, *, num_warmup, num_samples, key, target_accept=0.8, max_steps=64,
           step_size=0.3, trajectory=TRAJECTORY, progress=None, initial=None) -> SplitHMCResult:
    """Run the chains; ``value_and_grad`` maps a batch of chains' z (c, dim) to (U (c,), grad U (c, dim)) and is
    traceable by JAX; ``init`` (chains, dim) are the starting points; ``key`` a JAX random key; ``initial``
    (U, grad U) at ``init`` when the caller has them (otherwise ``value_and_grad`` is compiled on its own for
    them, a second compilation of the gradient beside the sampler's).

    The chains are vectorized (one batch on one device: on CPU, spreading them over forced host devices was twice
    as slow); every random draw of a chain comes from a key folded from the iteration's key and the chain's index,
    so the draws do not depend on how the iterations are blocked."""
    import jax
    import jax.numpy as jnp

    init = jnp.asarray(init)
    n_chains, dim = init.shape
    dtype = init.dtype
    vg = value_and_grad

    def transition(z, u, g, scale, eps, n_steps, keys):
        """One transition of every chain (keys: one per chain), integrated in z' = z / scale, where the target is
        U(scale * z')."""
        k_mom = jax.vmap(lambda k: jax.random.fold_in(k, 0))(keys)
        k_acc = jax.vmap(lambda k: jax.random.fold_in(k, 1))(keys)
        x0, g0 = z / scale, g * scale
        p = jax.vmap(lambda k: jax.random.normal(k, (dim,), dtype=dtype))(k_mom)
        h0 = u + 0.5 * jnp.sum(p * p, -1)
        c, s = jnp.cos(eps), jnp.sin(eps)

        def step(_, st):  # half kick by R, exact rotation by the Gaussian part, half kick by R
            x, mom, val, grad = st
            mom = mom - 0.5 * eps * (grad - x)
            x, mom = x * c + mom * s, mom * c - x * s
            val, grad = vg(x * scale)
            grad = grad * scale
            mom = mom - 0.5 * eps * (grad - x)
            return x, mom, val, grad

        x, mom, val, grad = jax.lax.fori_loop(0, n_steps, step, (x0, p, u, g0))
        h1 = val + 0.5 * jnp.sum(mom * mom, -1)
        delta = jnp.where(jnp.isfinite(h1), h0 - h1, -jnp.inf)
        prob = jnp.minimum(1.0, jnp.exp(delta))
        accept = jax.vmap(lambda k: jax.random.uniform(k, (), dtype))(k_acc) < prob
        z = jnp.where(accept[:, None], x * scale, z)
        u = jnp.where(accept, val, u)
        g = jnp.where(accept[:, None], grad / scale, g)
        return z, u, g, prob, delta < -DIVERGENCE

    def n_steps_for(eps):
        return jnp.clip(jnp.ceil(trajectory / eps), 1, max_steps).astype(jnp.int32)

    def span(eps, n_steps):  # the step that makes n_steps span the trajectory, never above eps
        return jnp.minimum(eps, trajectory / n_steps).astype(dtype)

    def chunk(carry, iters, chains, stage_key, scale, da, eps_fixed, adapting, limit, jitter):
        """Iterations ``iters`` of the ``chains`` (those from ``limit`` on leave the state as it is):
        adapting the step size (dual averaging over every chain's acceptance), or sampling with the fixed step
        size jittered within 10%."""
        def one(state, i):
            old = state
            z, u, g, da = state
            k_it = jax.random.fold_in(stage_key, i)
            k_eps, k_tr = jax.random.split(k_it)
            keys = jax.vmap(lambda c: jax.random.fold_in(k_tr, c))(chains)
            eps_ad = jnp.minimum(jnp.exp(da[0]), trajectory)  # at most one step per quarter turn
            base = jnp.where(adapting, eps_ad, eps_fixed)
            n_steps = n_steps_for(base)
            # the steps span the quarter turn itself (jittered within 10% when sampling): ceil(T / eps) steps of
            # eps could span up to 2 T, near a half turn, which maps a Gaussian's z to -z (antithetic draws, and
            # each chain keeps its own radius: chains that disagree, as on VTAB's summary counts)
            # (before the rescaling, between half and all of it: no coordinate of a target not yet rescaled then
            # sits at a half turn throughout)
            eps = span(base, n_steps) * jax.random.uniform(k_eps, (), dtype, jitter[0], jitter[1])
            z, u, g, prob, div = transition(z, u, g, scale, eps, n_steps, keys)
            new = _dual_averaging_step(da, jnp.mean(prob), target_accept)
            da = tuple(jnp.where(adapting, a, b) for a, b in zip(new, da))
            keep = lambda a, b: jnp.where(i < limit, a, b)
            state = (keep(z, old[0]), keep(u, old[1]), keep(g, old[2]), tuple(keep(a, b) for a, b in zip(da, old[3])))
            return state, (state[0], prob, div)

        (z, u, g, da), out = jax.lax.scan(one, (*carry, da), iters)
        return (z, u, g), da, out

    chunk = jax.jit(chunk)
    chains = jnp.arange(n_chains)

    def run(carry, n, stage_key, scale, da, eps_fixed, adapting, jitter=(1.0, 1.0)):
        outs = []
        for start in range(0, n, CHUNK):
            iters = jnp.arange(start, start + CHUNK)
            carry, da, out = chunk(carry, iters, chains, stage_key, scale, da, jnp.asarray(eps_fixed, dtype),
                                   jnp.asarray(adapting), jnp.asarray(n), jnp.asarray(jitter, dtype))
            outs.append(tuple(np.asarray(o) for o in out))
            advance(n_chains * min(CHUNK, n - start))
        return carry, da, tuple(np.concatenate([o[i] for o in outs])[:n] for i in range(3))

    from .._progress import counter

    n1, n2, n3 = warmup_stages(num_warmup)
    total = n_chains * (n1 + n2 + n3 + num_samples)
    with counter(f"MCMC (HMC): {n_chains} chains x {total // n_chains:,} iterations", total,
                 progress=progress) as advance:
        if initial is None:
            initial = jax.jit(vg)(init)  # jitted: run eagerly, every operation would be compiled alone
        initial = tuple(jnp.asarray(a, dtype=dtype) for a in initial)
        return _stages(run, initial, init, (n1, n2, n3), num_samples, key, step_size, n_chains, dim, dtype,
                       n_steps_for, span, trajectory)


def _stages(run, initial, init, warmup, num_samples, key, step_size, n_chains, dim, dtype, n_steps_for, span,
            trajectory):
    """The warm-up stages and the sampling of :func:`sample` (module docstring), from ``init`` and the potential
    and its gradient there (``initial``)."""
    import jax
    import jax.numpy as jnp

    carry = (init, *initial)
    scale = jnp.ones(dim, dtype=dtype)
    keys = jax.random.split(key, 4)
    n1, n2, n3 = warmup
    da = _da_init(jnp.asarray(step_size, dtype=dtype))
    carry, da, _ = run(carry, n1, keys[0], scale, da, 0.0, True, (0.5, 1.0))
    carry, da, (zs, _, _) = run(carry, n2, keys[1], scale, da, 0.0, True, (0.5, 1.0))
    var = zs.astype(np.float64).reshape(-1, dim).var(axis=0)
    n = zs.shape[0] * n_chains
    var = (n / (n + 5.0)) * var + 1e-3 * (5.0 / (n + 5.0))  # Stan's regularisation of the diagonal metric
    scale = jnp.asarray(np.sqrt(var), dtype=dtype)
    da = _da_init(jnp.exp(da[1]))
    carry, da, _ = run(carry, n3, keys[2], scale, da, 0.0, True)
    eps = float(min(np.exp(np.asarray(da[1])), trajectory))
    _, _, (z, prob, div) = run(carry, num_samples, keys[3], scale, da, eps, False, (0.9, 1.1))
    swap = lambda a: np.swapaxes(a, 0, 1)
    n_steps, step = jax.jit(lambda e: (n_steps_for(e), span(e, n_steps_for(e))))(jnp.asarray(eps, dtype))
    return SplitHMCResult(swap(z), swap(prob), swap(div), float(step), int(n_steps), np.asarray(scale))
