"""Rank-distribution plot and pass@k curves."""

from __future__ import annotations

import numpy as np

from .style import GREY, as_pair, categorical_colors, label_fontsize, new_axes, rows_height, styled
from ..._validate import ArgumentError

__all__ = ["rank_distribution_plot", "pass_at_k_plot"]


@styled
def rank_distribution_plot(models, rank_probabilities, rank_interval=None, *, ax=None, sort=True, title=None,
                           annotate=None):
    """Probability of each rank for each model (rows), with the rank interval drawn as a bar.

    Parameters
    ----------
    models : sequence of str
    rank_probabilities : array, shape (M, M)
        ``[i, r]`` = share of bootstrap replicates (or posterior draws) in which model ``i`` has rank ``r + 1``.
    rank_interval : (low, high), optional
        Each model's rank interval (1 = best), drawn as a horizontal bar.
    sort : bool
        Rows by mean rank, best first.

    Returns
    -------
    matplotlib.axes.Axes
    """
    names = [str(m) for m in models]
    M = len(names)
    P = np.asarray(rank_probabilities, dtype=np.float64)
    if P.shape != (M, M):
        raise ArgumentError(f"`rank_probabilities` must be ({M}, {M}); got {P.shape}.")
    mean_rank = P @ np.arange(1, M + 1)
    order = np.argsort(mean_rank, kind="stable") if sort else np.arange(M)
    ax = new_axes(ax, width=max(4.8, 0.28 * M + 3.0), height=rows_height(M, extra=1.6))
    im = ax.imshow(P[order], cmap="Blues", vmin=0, vmax=1, aspect="auto", interpolation="nearest",
                   extent=(0.5, M + 0.5, M - 0.5, -0.5))
    ax.figure.colorbar(im, ax=ax, shrink=0.7, label="probability")
    if rank_interval is not None:
        lo, hi = as_pair(rank_interval, M, "rank_interval")
        ax.hlines(np.arange(M), lo[order] - 0.35, hi[order] + 0.35, color="#D55E00", lw=1.4,
                  label="rank interval")
    ax.plot(mean_rank[order], np.arange(M), "|", color="black", ms=7, mew=1.2)
    ax.set_yticks(np.arange(M), [names[i] for i in order], fontsize=label_fontsize(M))
    step = 1 if M <= 20 else 2 if M <= 40 else 5
    ax.set_xticks(np.arange(1, M + 1, step))
    ax.set_xlabel("rank (1 = best); | = mean rank" + ("; orange bar = rank interval" if rank_interval is not None
                                                     else ""))
    if annotate is None:
        annotate = M <= 12
    if annotate:
        for r, i in enumerate(order):
            for c in range(M):
                if P[i, c] >= 0.05:
                    ax.text(c + 1, r, f"{P[i, c]:.0%}"[:-1], ha="center", va="center", fontsize=6.5,
                            color="white" if P[i, c] > 0.6 else "black")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return ax


@styled
def pass_at_k_plot(k, estimate, models, ci=None, *, ax=None, scale=100.0, title=None, log_x=None):
    """pass@k (or pass^k) curves with optional confidence bands.

    Parameters
    ----------
    k : array, shape (K,)
    estimate : array, shape (M, K)
    models : sequence of str
    ci : (low, high) of shape (M, K) each, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    names = [str(m) for m in models]
    M = len(names)
    kk = np.asarray(k, dtype=np.float64).reshape(-1)
    est = np.asarray(estimate, dtype=np.float64).reshape(M, -1) * scale
    if est.shape[1] != kk.size:
        raise ArgumentError(f"`estimate` must be shaped (models, k) = ({M}, {kk.size}); got {est.shape}.")
    ax = new_axes(ax, width=6.0, height=4.0)
    colors = categorical_colors(M)
    order = np.argsort(-est[:, -1], kind="stable")
    for i in order:
        ax.plot(kk, est[i], "-o", ms=3, color=colors[i], label=names[i])
        if ci is not None:
            lo = np.asarray(ci[0], dtype=np.float64).reshape(M, -1)[i] * scale
            hi = np.asarray(ci[1], dtype=np.float64).reshape(M, -1)[i] * scale
            ax.fill_between(kk, lo, hi, color=colors[i], alpha=0.18, lw=0)
    if log_x or (log_x is None and kk.max() / max(kk.min(), 1) > 20):
        ax.set_xscale("log")
    ax.set_xticks(kk, [str(int(k)) for k in kk])  # k is a whole number of attempts: tick the ks estimated
    ax.minorticks_off()
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k" + (" (%)" if scale == 100 else ""))
    ax.grid(color=GREY, lw=0.5, alpha=0.6)
    ax.legend(fontsize=7.5, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5),
              ncol=1 if M <= 18 else 2)
    if title:
        ax.set_title(title)
    return ax
