"""The calibration plot of subset evaluation: the prediction made from the reference models against the new
model's observed scores on the items it was evaluated on."""

from __future__ import annotations

import numpy as np

from ...display import format_level
from .style import GREY, categorical_colors, new_axes, styled

__all__ = ["calibration_plot", "calibration_bins"]


def calibration_bins(predicted, observed, *, n_bins: int = 10, confidence_level: float = 0.95):
    """Equal-count bins of the prediction: per bin the mean prediction, the mean observed score, its interval
    (Wilson for 0/1 scores, else the normal interval of the mean) and the number of items.

    Returns
    -------
    dict of ndarray
        ``predicted, observed, low, high, n``, one entry per bin (fewer bins than ``n_bins`` when there are
        fewer items or tied predictions).

    Examples
    --------
    >>> import numpy as np
    >>> b = calibration_bins(np.linspace(0, 1, 100), (np.arange(100) % 2).astype(float), n_bins=4)
    >>> b["n"].tolist(), b["observed"].tolist()
    ([25, 25, 25, 25], [0.48, 0.52, 0.48, 0.52])
    """
    from scipy.special import ndtri

    from ...estimation.proportion import wilson_bounds

    f = np.asarray(predicted, dtype=np.float64)
    y = np.asarray(observed, dtype=np.float64)
    order = np.argsort(f, kind="stable")
    groups = [g for g in np.array_split(order, max(1, min(n_bins, len(f)))) if len(g)]
    z = float(ndtri(0.5 + confidence_level / 2))
    binary = bool(np.all((y == 0) | (y == 1)))
    out = {k: np.empty(len(groups)) for k in ("predicted", "observed", "low", "high", "n")}
    for i, g in enumerate(groups):
        yy = y[g]
        m, n = float(yy.mean()), len(g)
        if binary:
            lo, hi = wilson_bounds(m, n, np.array([-z, z]))
        else:
            half = z * (float(yy.std(ddof=1)) / np.sqrt(n) if n > 1 else np.inf)
            lo, hi = m - half, m + half
        out["predicted"][i], out["observed"][i], out["low"][i], out["high"][i], out["n"][i] = \
            float(f[g].mean()), m, lo, hi, n
    out["n"] = out["n"].astype(np.int64)
    return out


@styled
def calibration_plot(result, *, ax=None, model=None, out_of_fold: bool = True, n_bins: int = 10, title=None):
    """Predicted against observed scores on the evaluated items, in equal-count bins of the prediction.

    Parameters
    ----------
    result : evalband.subset.SubsetEstimate
    ax : matplotlib Axes, optional
        Drawn on a new pyplot-free figure when None.
    model : str, optional
        The new model to show (default: every model, one colour each).
    out_of_fold : bool
        Use each item's cross-fitted prediction (made without its own score: an honest check); False: the
        prediction fitted on every evaluated item.
    n_bins : int
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Points on the diagonal mean the reference models predict the new model's scores well, and the
    prediction-assisted interval is then much narrower than the design-based one. Points off it do not make the
    interval wrong: the estimator corrects the prediction on the random sample (its slope shrinks towards 0),
    it only gains less.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.subset import estimate
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=9), rng.normal(size=400)
    >>> y = (rng.random((9, 400)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    >>> df = pd.DataFrame([(f"m{m}", "t", f"q{i}", y[m, i]) for m in range(9) for i in range(400)],
    ...                   columns=["model", "task", "item", "score"])
    >>> new = df[(df["model"] == "m8") & df["item"].isin([f"q{i}" for i in range(0, 400, 4)])]
    >>> ax = calibration_plot(estimate(df[df["model"] != "m8"], new, rng=0))
    >>> ax.get_xlabel()
    'predicted score (from the reference models)'
    """
    cal = result.calibration
    models = [model] if model is not None else list(dict.fromkeys(cal["model"]))
    ax = new_axes(ax, width=5.2, height=4.6)
    ax.plot([0, 1], [0, 1], color=GREY, lw=1, zorder=0)
    column = "predicted_out_of_fold" if out_of_fold else "predicted"
    for color, name in zip(categorical_colors(len(models)), models):
        part = cal[cal["model"] == name]
        b = calibration_bins(part[column], part["observed"], n_bins=n_bins,
                             confidence_level=result.confidence_level)
        yerr = np.vstack([np.maximum(b["observed"] - b["low"], 0), np.maximum(b["high"] - b["observed"], 0)])
        ax.errorbar(b["predicted"], b["observed"], yerr=yerr, fmt="o", color=color, ms=4, capsize=2,
                    label=f"{name} ({len(part):,} items)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("predicted score (from the reference models)")
    ax.set_ylabel(f"observed mean score ({format_level(result.confidence_level)} interval)")
    ax.set_title(title if title is not None else "Calibration of the prediction on the evaluated items")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return ax
