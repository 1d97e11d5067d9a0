"""The logistic model's Laplace approximation: ``logistic(..., method='laplace')``, no MCMC.

The posterior is approximated by the Gaussian at its mode (:mod:`evalband.bayes._laplace_fit`), in the
coordinates of :mod:`evalband.bayes._coords` (log scales, the intercept, the zero-sum effects; the item effects
restricted to their zero-sum constraints by kriging), and ``num_draws`` independent draws from it are mapped to the
model's effects and to theta. The scales are approximated jointly with the effects (log-normal), not integrated
by nested Laplace approximations over a grid as INLA does (Rue, Martino & Chopin 2009); with 10 or more effects per
level their posterior is narrow and close to log-normal.

Accuracy checks (what ``result.diagnostics`` holds instead of R-hat and ESS, which need chains):

* the Pareto k of the importance ratios p/q of the draws (Vehtari, Simpson, Gelman, Yao & Gabry 2024): below 0.7
  the draws are reweighted by Pareto-smoothed importance resampling (as Pathfinder does, Zhang et al. 2022) and
  the result is close to the exact posterior; above 0.7 the *joint* approximation is poor (with thousands of
  item effects it always is) and the result carries a warning;
* the validation against long NUTS runs in ``tests/bayes/test_laplace.py`` (stored references, with the
  commands that made them): posterior means of theta and of the aggregate within 0.1 posterior sd and interval
  ends within 0.2 sd on the cases listed there, which the note names.

References
----------
Rue, H., Martino, S. & Chopin, N. (2009). Approximate Bayesian inference for latent Gaussian models by using
integrated nested Laplace approximations. JRSS B 71(2), 319-392.
Vehtari, A., Simpson, D., Gelman, A., Yao, Y. & Gabry, J. (2024). Pareto smoothed importance sampling. JMLR
25(72), 1-58.
Zhang, L., Carpenter, B., Gelman, A. & Vehtari, A. (2022). Pathfinder: parallel quasi-Newton variational
inference. JMLR 23(306), 1-49.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .whitened_hmc import Fit, draws_to_posterior, potential_fn, prepare
from .._words import words

__all__ = ["fit_laplace", "laplace_diagnostics", "PARETO_K_MAX", "VALIDATED"]

#: Pareto k above which importance sampling (and the Gaussian approximation) is not reliable (Vehtari et al. 2024).
PARETO_K_MAX = 0.7

#: What the validation against long NUTS runs showed (tests/bayes/test_laplace.py), for the notes.
VALIDATED = ("validated against long NUTS runs without item effects (MMLU-Pro subsets and the full default fit,"
             " VTAB summary counts): means of theta and of the aggregate within 0.1 posterior sd, 95% interval ends"
             " within 0.2 sd")

_EVAL_BLOCK = 50
_NUMPY_BLOCK = 500


def _log_ratios(lay, mapping, z):
    """log p(x(z)) - log q(x(z)) up to a constant, for whitened draws z (D, dim), in blocks: NumPy in float64
    without item effects (:class:`~evalband.bayes._cell_density.CellDensity`; no JAX), JAX in float32 with them
    (the likelihood by its change from the mode)."""
    out = []
    if lay.item_cell is None:
        from ._cell_density import CellDensity

        cells = CellDensity(lay)
        theta0 = np.asarray(mapping.theta0, dtype=np.float64)
        base = float(cells.value(theta0))
        for s in range(0, z.shape[0], _NUMPY_BLOCK):
            block = np.asarray(z[s:s + _NUMPY_BLOCK], dtype=np.float64)
            d_theta, _ = mapping.delta(block, xp=np)
            out.append(0.5 * np.sum(block * block, -1) + (cells.value(theta0 + d_theta) - base))
        return np.concatenate(out)
    import jax
    import jax.numpy as jnp

    potential = potential_fn(lay, mapping)
    f = jax.jit(lambda x: 0.5 * jnp.sum(x * x, -1) - potential(x))
    for s in range(0, z.shape[0], _EVAL_BLOCK):
        block = z[s:s + _EVAL_BLOCK]
        pad = _EVAL_BLOCK - block.shape[0]
        out.append(np.asarray(f(np.pad(block, ((0, pad), (0, 0)))), dtype=np.float64)[:block.shape[0]])
    return np.concatenate(out)


def fit_laplace(obs, n_models, n_tasks, centred, *, num_draws, seed) -> Fit:
    """Independent draws from the Gaussian approximation at the mode (module docstring), with the Pareto k of
    their importance ratios; resampled by those (smoothed) ratios when k is below ``PARETO_K_MAX``. Without item
    effects every step is NumPy (no JAX import or compilation)."""
    from ._psis import psislw

    items = obs["item_index"] is not None
    lay, mapping, val, notes = prepare(obs, n_models, n_tasks, centred, couple_items=True,
                                       dtype=np.float32 if items else np.float64)
    gen = np.random.default_rng(seed)
    z = gen.standard_normal((num_draws, mapping.dim)).astype(np.float32)
    log_ratio = _log_ratios(lay, mapping, z)
    smoothed, k = psislw(log_ratio - log_ratio.max())
    weights = np.exp(smoothed - smoothed.max())
    weights /= weights.sum()
    ess = float(1.0 / np.sum(weights ** 2))
    resampled = bool(np.isfinite(k) and k <= PARETO_K_MAX)
    if resampled:
        z = z[np.sort(gen.choice(num_draws, size=num_draws, replace=True, p=weights))]
    posterior = draws_to_posterior(lay, mapping, z[None])
    text = (f"Laplace approximation: {num_draws} independent draws from the Gaussian at the posterior mode"
            f" (no MCMC); Pareto k of the importance ratios {k:.2f}")
    text += ("; draws resampled by the smoothed ratios" if resampled else
             f" (above {PARETO_K_MAX}: the joint posterior is not close to Gaussian)")
    checks = {"method": "laplace", "pareto_k": k, "importance_ess": ess, "resampled": resampled,
              "num_draws": num_draws}
    return Fit(posterior, {}, (text, *notes, VALIDATED), dict(lay.centred), checks)


def laplace_diagnostics(checks, levels) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The Laplace fit's accuracy checks as a frame (one row per check: value, threshold, passed) and the
    warnings to show."""
    k = checks["pareto_k"]
    frame = pd.DataFrame([
        {"check": "pareto_k", "value": k, "threshold": PARETO_K_MAX, "passed": bool(k <= PARETO_K_MAX)},
        {"check": "importance_ess", "value": checks["importance_ess"], "threshold": np.nan,
         "passed": bool(checks["importance_ess"] >= 100)},
    ])
    frame.attrs.update(method="laplace", divergences=0, n_chains=0, n_draws=checks["num_draws"])
    warnings = ()
    if not k <= PARETO_K_MAX:
        extra = (" (expected with item effects: thousands of skewed item posteriors)" if "item" in levels else "")
        warnings = (words("Laplace approximation: Pareto k {k:.2f} > {k_max}{extra}; its draws are not the"
                          " posterior's. Use the intervals only as far as the validation in the notes goes, or fit"
                          " with {arg:method='hmc'} (exact)", k=k, k_max=PARETO_K_MAX, extra=extra),)
    return frame, warnings
