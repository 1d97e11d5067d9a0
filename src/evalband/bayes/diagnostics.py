"""MCMC diagnostics for the logistic model's and NumPyro's fits: rank-normalised split R-hat, bulk and tail ESS,
divergences.

Thresholds follow Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021): R-hat above 1.01 means the chains have
not mixed; fewer than 100 effective draws per chain (bulk or tail) is too few for stable intervals; any
divergent transition means the sampler could not explore part of the posterior, whose draws may then be biased.

The statistics are ArviZ's (``arviz.rhat(method='rank')``, ``arviz.ess(method='bulk' | 'tail')``, the same
formulas step by step, checked against ArviZ in ``tests/bayes/test_diagnostics.py``), computed here for every
scalar of every variable at once: ranks and autocovariances (FFT) vectorized over the scalars, Geyer's initial
monotone sequence per scalar. ArviZ's per-scalar loop through xarray took seconds for the logistic model's
~1,000 scalars and its import another two; neither is needed to check a fit.
"""

from __future__ import annotations

import warnings as _warnings

import numpy as np
import pandas as pd

__all__ = ["diagnose", "rhat_rank", "ess_bulk", "ess_tail", "RHAT_MAX", "ESS_PER_CHAIN_MIN", "import_arviz"]

RHAT_MAX = 1.01
ESS_PER_CHAIN_MIN = 100


def import_arviz():
    """Import ArviZ quietly (its import announces a refactor with a FutureWarning)."""
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore", FutureWarning)
        import arviz

    return arviz


# --------------------------------------------------------------------------------------------- the statistics
# Every function takes draws shaped (chains, draws, V): V scalars at once.
def _split(x):
    """Each chain's first and last half as chains of their own: (2 chains, draws // 2, V)."""
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half:]], axis=0)


def _average_ranks(flat):
    """Average ranks (1-based, ties share the mean of their ranks) down each column of ``flat`` (N, V):
    ``scipy.stats.rankdata(method='average', axis=0)``'s values, from one sort of the contiguous columns."""
    cols = np.ascontiguousarray(flat.T)
    order = np.argsort(cols, axis=1, kind="stable")
    s = np.take_along_axis(cols, order, axis=1)
    n = s.shape[1]
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]  # the first of each run of equal values
    ranks = np.empty(s.shape)
    if new.all():  # no ties (continuous draws): the rank is the position in the sorted column
        np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1.0, n + 1.0), s.shape), axis=1)
        return ranks.T
    pos = np.broadcast_to(np.arange(n), s.shape)
    first = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    last_of = np.ones(s.shape, dtype=bool)
    last_of[:, :-1] = new[:, 1:]
    last = np.minimum.accumulate(np.where(last_of, pos, n - 1)[:, ::-1], axis=1)[:, ::-1]
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=1)
    return ranks.T


def _z_scale(x):
    """Rank-normalised values: average ranks over all draws of a scalar, Blom's offset 3/8, the normal quantile."""
    from scipy import special

    flat = x.reshape(-1, x.shape[-1])
    r = _average_ranks(flat)
    c = 3 / 8
    return special.ndtri((r - c) / (flat.shape[0] - 2 * c + 1)).reshape(x.shape)


def _rhat(x):
    n = x.shape[1]
    between = n * np.var(x.mean(axis=1), axis=0, ddof=1)
    within = np.mean(np.var(x, axis=1, ddof=1), axis=0)
    return np.sqrt((between / within + n - 1) / n)


def _invalid(x, min_chains):
    """Scalars with a NaN draw, and whether the shape allows the statistic at all (at least 4 draws)."""
    return np.isnan(x).any(axis=(0, 1)), x.shape[0] < min_chains or x.shape[1] < 4


def rhat_rank(x, *, _z_split=None):
    """Rank-normalised split R-hat (the larger of the bulk and the folded tail R-hat) of each scalar of draws
    (chains, draws, V), as ``arviz.rhat(method='rank')``."""
    x = np.asarray(x, dtype=float)
    nan, bad_shape = _invalid(x, 2)
    if bad_shape:
        return np.full(x.shape[-1], np.nan)
    split = _split(x)
    folded = np.abs(split - np.median(split.reshape(-1, x.shape[-1]), axis=0))
    z = _z_scale(split) if _z_split is None else _z_split
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.maximum(_rhat(z), _rhat(_z_scale(folded)))
    return np.where(nan, np.nan, out)


def _ess(x):
    """ESS of each scalar of (chains, draws, V) by Geyer's initial monotone sequence (``arviz`` ``_ess``)."""
    from scipy.fft import next_fast_len

    x = np.asarray(x, dtype=float)
    n_chain, n_draw, v = x.shape
    out = np.full(v, np.nan)
    constant = (x.max(axis=(0, 1)) - x.min(axis=(0, 1))) < np.finfo(float).resolution
    out[constant] = x[..., 0].size
    centred = x - x.mean(axis=1, keepdims=True)
    m = next_fast_len(2 * n_draw)
    f = np.fft.rfft(centred, n=m, axis=1)
    f *= np.conjugate(f)
    acov = np.fft.irfft(f, n=m, axis=1)[:, :n_draw] / n_draw  # (chains, lags, V)
    mean_var = np.mean(acov[:, 0], axis=0) * n_draw / (n_draw - 1.0)
    var_plus = mean_var * (n_draw - 1.0) / n_draw
    if n_chain > 1:
        var_plus = var_plus + np.var(x.mean(axis=1), axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = 1.0 - (mean_var - np.mean(acov, axis=0)) / var_plus  # (lags, V)
    total = n_chain * n_draw
    floor = 1 / np.log10(total)
    for j in np.flatnonzero(~constant):
        r = rho[:, j].tolist()
        rho_t = np.zeros(n_draw)
        even, odd = 1.0, r[1]
        rho_t[0], rho_t[1] = even, odd
        t = 1
        while t < n_draw - 3 and (even + odd) > 0.0:  # Geyer's initial positive sequence
            even, odd = r[t + 1], r[t + 2]
            if even + odd >= 0:
                rho_t[t + 1], rho_t[t + 2] = even, odd
            t += 2
        max_t = t - 2
        if even > 0:
            rho_t[max_t + 1] = even
        t = 1
        while t <= max_t - 2:  # Geyer's initial monotone sequence
            if (rho_t[t + 1] + rho_t[t + 2]) > (rho_t[t - 1] + rho_t[t]):
                rho_t[t + 1] = (rho_t[t - 1] + rho_t[t]) / 2.0
                rho_t[t + 2] = rho_t[t + 1]
            t += 2
        tau = -1.0 + 2.0 * np.sum(rho_t[:max_t + 1]) + np.sum(rho_t[max_t + 1:max_t + 2])
        out[j] = np.nan if np.isnan(rho_t).any() else total / max(tau, floor)
    return np.where(np.isnan(x).any(axis=(0, 1)), np.nan, out)


def ess_bulk(x, *, _z_split=None):
    """Bulk ESS (of the rank-normalised split chains) of each scalar of draws (chains, draws, V), as
    ``arviz.ess(method='bulk')``."""
    x = np.asarray(x, dtype=float)
    nan, bad_shape = _invalid(x, 1)
    if bad_shape:
        return np.full(x.shape[-1], np.nan)
    out = np.full(x.shape[-1], np.nan)
    ok = ~nan
    z = _z_scale(_split(x[..., ok])) if _z_split is None else _z_split[..., ok]
    out[ok] = _ess(z)
    return out


def ess_tail(x):
    """Tail ESS (the smaller ESS of the indicators of the 5% and 95% quantiles, split chains) of each scalar of
    draws (chains, draws, V), as ``arviz.ess(method='tail')``."""
    x = np.asarray(x, dtype=float)
    nan, bad_shape = _invalid(x, 1)
    if bad_shape:
        return np.full(x.shape[-1], np.nan)
    out = np.full(x.shape[-1], np.nan)
    ok = ~nan
    y = x[..., ok]
    q = np.quantile(y.reshape(-1, y.shape[-1]), [0.05, 0.95], axis=0)
    out[ok] = np.minimum(_ess(_split(y <= q[0])), _ess(_split(y <= q[1])))
    return out


def _draws(posterior, name):
    """(chains, draws, V) of a variable of an InferenceData posterior or of a dict of arrays."""
    a = np.asarray(posterior[name], dtype=float)
    return a.reshape(a.shape[0], a.shape[1], -1)


def diagnose(inference_data, var_names=None, *, known=None) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Per variable: size, worst R-hat, smallest bulk and tail ESS; and the warnings the user must see.

    Parameters
    ----------
    inference_data : arviz.InferenceData or object
        With a ``posterior`` group (chain, draw, ...) and, from NUTS, ``sample_stats.diverging``; or any object
        whose ``posterior`` and ``sample_stats`` are dicts of such arrays (the logistic model's HMC fit).
    var_names : sequence of str, optional
        Variables to check (default: all in the posterior).
    known : pandas.DataFrame, optional
        Rows this function returned before for some of the variables, from the same draws: reused, not computed
        again (the logistic model checks its HMC chains before it adds theta to them).

    Returns
    -------
    (pandas.DataFrame, tuple of str)
        The frame has one row per variable, plus ``divergences`` and ``n_chains`` in ``frame.attrs``.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from evalband.bayes import diagnose
    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal(size=(4, 500)) + np.array([[0.0], [0.0], [0.0], [1.0]])
    >>> fit = SimpleNamespace(posterior={"mu": draws}, sample_stats={"diverging": np.zeros((4, 500), dtype=bool)})
    >>> frame, warnings = diagnose(fit)
    >>> frame.round(2)
      variable  size  r_hat_max  ess_bulk_min  ess_tail_min
    0       mu     1       1.09         31.27        110.25
    >>> for w in warnings:
    ...     print(w)
    R-hat above 1.01 for mu (worst 1.090): the chains disagree; do not trust these draws (run longer or reparameterise)
    too few effective draws (bulk or tail ESS below 400) for mu (smallest 31): intervals are unstable
    """
    post = inference_data.posterior
    if isinstance(post, dict):
        names = list(var_names) if var_names is not None else list(post)
        first = np.asarray(post[names[0]])
        n_chains, n_draws = int(first.shape[0]), int(first.shape[1])
    else:
        names = list(var_names) if var_names is not None else list(post.data_vars)
        n_chains, n_draws = int(post.sizes["chain"]), int(post.sizes["draw"])
    rows = []
    reuse = {} if known is None else {r["variable"]: r for r in known.to_dict("records")}
    for name in names:
        if name in reuse:
            rows.append(reuse[name])
            continue
        x = _draws(post, name)
        z = _z_scale(_split(x)) if x.shape[1] >= 4 else None  # shared by the bulk R-hat and the bulk ESS
        r = rhat_rank(x, _z_split=z) if n_chains > 1 else np.array([np.nan])
        bulk, tail = ess_bulk(x, _z_split=z), ess_tail(x)
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN, as they should
            rows.append({"variable": name, "size": int(x.shape[-1]),
                         "r_hat_max": float(np.nanmax(r)) if np.isfinite(r).any() else np.nan,
                         "ess_bulk_min": float(np.nanmin(bulk)), "ess_tail_min": float(np.nanmin(tail))})
    frame = pd.DataFrame(rows)
    div = 0
    stats = getattr(inference_data, "sample_stats", None)
    if stats is not None and "diverging" in stats:
        div = int(np.asarray(stats["diverging"]).sum())
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
