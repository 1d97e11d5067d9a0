"""Shared NUTS plumbing for the NumPyro models (extra ``evalband[bayes]``): the import guard that names the extra,
the MCMC run, and the checks of the MCMC options."""

from __future__ import annotations

import os
import sys

import numpy as np

from .._validate import MissingExtraError, as_generator, check_confidence_level, check_positive_int
from .diagnostics import import_arviz

__all__ = ["require_numpyro", "run_nuts", "mcmc_options", "EXTRA_MESSAGE", "jax_cache_dir"]

EXTRA_MESSAGE = ("needs NumPyro, JAX and ArviZ: pip install 'evalband[bayes]'"
                 " (the exact beta-binomial model, evalband.bayes.beta_binomial, works without them)")


def require_numpyro(num_chains: int = 4, *, what: str = "this model", arviz: bool = True, load: bool = True):
    """Import numpyro (and JAX, and ArviZ unless ``arviz=False``); raise ImportError naming the extra when missing.
    With ``load=False`` only JAX is imported and NumPyro is only found (HMC needs JAX alone; NumPyro's import
    costs about half of JAX's again), and None is returned.

    Before JAX starts, asks for one host device per chain (up to the CPU count) so chains can run in parallel,
    and for the persistent compilation cache of :func:`jax_cache_dir`.
    ``what`` names the caller in the error ("this model", "the hierarchical test", ...).
    """
    if "jax" not in sys.modules:
        flags = os.environ.get("XLA_FLAGS", "")
        if "xla_force_host_platform_device_count" not in flags:
            count = max(1, min(num_chains, os.cpu_count() or 1))
            os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={count}".strip()
        cache = jax_cache_dir()
        if cache is not None:
            os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", cache)
    try:
        import jax  # noqa: F401
        if not load:
            import importlib.util

            if importlib.util.find_spec("numpyro") is None:
                raise ImportError("No module named 'numpyro'", name="numpyro")
            numpyro = None
        else:
            import numpyro
        if arviz:
            import_arviz()
    except ImportError as exc:
        raise MissingExtraError(f"{what} {EXTRA_MESSAGE}") from exc
    return numpyro


def jax_cache_dir() -> str | None:
    """Where JAX keeps compiled programs between processes when evalband is the first to import it (JAX's
    persistent compilation cache): ``$EVALBAND_CACHE_DIR/jax``, else ``$XDG_CACHE_HOME/evalband/jax``, else
    ``~/.cache/evalband/jax``; None (no cache) when ``EVALBAND_JAX_CACHE=0`` or ``JAX_COMPILATION_CACHE_DIR`` is
    set already (the user's choice stands). A fit of the same data then skips the compilation of its sampler
    (seconds of CPU; the compiled program is the same, so are the draws)."""
    if os.environ.get("EVALBAND_JAX_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return None
    base = os.environ.get("EVALBAND_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "evalband")
    return os.path.join(base, "jax")


def run_nuts(model, kwargs, *, num_warmup, num_samples, num_chains, seed, target_accept, max_tree_depth,
             init_strategy=None, dense_mass=False, vectorize=False):
    """Run NUTS (chains in parallel when JAX has one device per chain; otherwise one after the other, or
    vectorized with ``vectorize=True``: one compilation instead of one per chain, where compiling costs more than
    sampling); return the MCMC object and its ArviZ InferenceData (posterior, including deterministic sites, and
    sample stats)."""
    import jax
    from numpyro.infer import MCMC, NUTS, init_to_median

    from .._progress import counter

    class _Reporting(NUTS):
        """NUTS that reports each finished iteration of each chain to the host (a callback on the iteration
        counter: the draws are NUTS's own)."""

        def sample(self, state, model_args, model_kwargs):
            new = super().sample(state, model_args, model_kwargs)
            # vectorized chains call back once per iteration with every chain's counter: count them all
            jax.debug.callback(lambda i: advance(int(np.size(i))), new.i)
            return new

    kernel = _Reporting(model, target_accept_prob=target_accept, max_tree_depth=max_tree_depth,
                        dense_mass=dense_mass, init_strategy=init_strategy or init_to_median(num_samples=15))
    # one device per chain: in parallel; fewer: one after the other, or, with ``vectorize``, vectorized (one
    # program for every chain, compiled once: the sequential method compiles its loop again for each chain)
    method = ("parallel" if jax.local_device_count() >= num_chains else "vectorized" if vectorize else
              "sequential")
    mcmc = MCMC(kernel, num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains,
                chain_method=method, progress_bar=False)
    total = num_chains * (num_warmup + num_samples)
    with counter(f"MCMC (NUTS): {num_chains} chains x {num_warmup + num_samples:,} iterations", total) as advance:
        mcmc.run(jax.random.PRNGKey(seed), **kwargs)
        jax.block_until_ready(mcmc.get_samples())  # JAX runs asynchronously: the bar ends with the chains
    az = import_arviz()
    idata = az.from_numpyro(mcmc, log_likelihood=False)
    return mcmc, idata


def mcmc_options(num_warmup, num_samples, num_chains, rng, confidence_level):
    """Checked MCMC options, the confidence level, the seed when one was given (for the result), and the
    generator every later random choice comes from."""
    num_warmup = check_positive_int(num_warmup, "num_warmup")
    num_samples = check_positive_int(num_samples, "num_samples")
    num_chains = check_positive_int(num_chains, "num_chains")
    level = check_confidence_level(confidence_level)
    seed_given = rng if isinstance(rng, (int, np.integer)) else None
    gen = as_generator(rng)
    return num_warmup, num_samples, num_chains, level, seed_given, gen
