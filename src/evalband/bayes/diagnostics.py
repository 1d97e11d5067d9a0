"""MCMC diagnostics for the NumPyro fits: rank-normalised split R-hat, bulk and tail ESS, divergences.

Thresholds follow Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021): R-hat above 1.01 means the chains have
not mixed; fewer than 100 effective draws per chain (bulk or tail) is too few for stable intervals; any
divergent transition means the sampler could not explore part of the posterior, whose draws may then be biased.
"""

from __future__ import annotations

import warnings as _warnings

import numpy as np
import pandas as pd

__all__ = ["diagnose", "RHAT_MAX", "ESS_PER_CHAIN_MIN", "import_arviz"]

RHAT_MAX = 1.01
ESS_PER_CHAIN_MIN = 100


def import_arviz():
    """Import ArviZ quietly (its import announces a refactor with a FutureWarning)."""
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore", FutureWarning)
        import arviz

    return arviz


def diagnose(inference_data, var_names=None) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Per variable: size, worst R-hat, smallest bulk and tail ESS; and the warnings the user must see.

    Parameters
    ----------
    inference_data : arviz.InferenceData
        With a ``posterior`` group (chain, draw, ...) and, from NUTS, ``sample_stats.diverging``.
    var_names : sequence of str, optional
        Variables to check (default: all in the posterior).

    Returns
    -------
    (pandas.DataFrame, tuple of str)
        The frame has one row per variable, plus ``divergences`` and ``n_chains`` in ``frame.attrs``.
    """
    az = import_arviz()
    post = inference_data.posterior
    names = list(var_names) if var_names is not None else list(post.data_vars)
    n_chains = int(post.sizes["chain"])
    n_draws = int(post.sizes["draw"])
    rows = []
    with np.errstate(invalid="ignore", divide="ignore"), _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        rhat = az.rhat(post, var_names=names) if n_chains > 1 else None
        ess_bulk = az.ess(post, var_names=names, method="bulk")
        ess_tail = az.ess(post, var_names=names, method="tail")
    for name in names:
        r = np.asarray(rhat[name]) if rhat is not None else np.array([np.nan])
        rows.append({"variable": name, "size": int(np.asarray(post[name]).size // (n_chains * n_draws)),
                     "r_hat_max": float(np.nanmax(r)) if np.isfinite(r).any() else np.nan,
                     "ess_bulk_min": float(np.nanmin(np.asarray(ess_bulk[name]))),
                     "ess_tail_min": float(np.nanmin(np.asarray(ess_tail[name])))})
    frame = pd.DataFrame(rows)
    div = 0
    if hasattr(inference_data, "sample_stats") and "diverging" in inference_data.sample_stats:
        div = int(np.asarray(inference_data.sample_stats["diverging"]).sum())
    frame.attrs["divergences"] = div
    frame.attrs["n_chains"] = n_chains
    frame.attrs["n_draws"] = n_draws
    messages = []
    bad = frame[frame["r_hat_max"] > RHAT_MAX]
    if n_chains > 1 and len(bad):
        messages.append(f"R-hat above {RHAT_MAX} for {', '.join(bad['variable'])} (worst {bad['r_hat_max'].max():.3f}):"
                        " the chains disagree; do not trust these draws (run longer or reparameterise)")
    if n_chains == 1:
        messages.append("one chain only: R-hat cannot be computed; run several chains")
    need = ESS_PER_CHAIN_MIN * n_chains
    low = frame[(frame["ess_bulk_min"] < need) | (frame["ess_tail_min"] < need)]
    if len(low):
        worst = float(np.nanmin(low[["ess_bulk_min", "ess_tail_min"]].to_numpy()))
        messages.append(f"too few effective draws (bulk or tail ESS below {need}) for"
                        f" {', '.join(low['variable'])} (smallest {worst:.0f}): intervals are unstable")
    if div:
        messages.append(f"{div} divergent transition{'s' if div > 1 else ''} after warm-up: parts of the posterior"
                        " were not explored and the draws may be biased")
    return frame, tuple(messages)
