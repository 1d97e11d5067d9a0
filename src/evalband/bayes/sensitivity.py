"""Prior sensitivity: refit the Beta-Binomial hierarchy under alternative priors and report what moves.

Hierarchical conclusions can depend on the hyperprior, above all with few tasks, because the prior on
alpha + beta sets how strongly small-N tasks shrink toward the model's mean (Gelman et al. 2013, ch. 5; the seed
analysis recommends trying half-normal and gamma alternatives). Each refit uses the same random numbers
(common random numbers), so the differences reported are the priors', not Monte Carlo noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, as_generator
from ..data.table import Counts
from .exact import beta_binomial
from .posterior import BayesResult
from .priors import parse_prior, sensitivity_priors
from ..display.reprs import displayed

__all__ = ["PriorSensitivity", "prior_sensitivity"]


@displayed
@dataclass(frozen=True, repr=False)
class PriorSensitivity:
    """Fits of one dataset under several priors; the first prior is the baseline.

    Attributes
    ----------
    priors : tuple of str
    results : tuple of BayesResult
    """

    priors: tuple
    results: tuple

    def models_frame(self) -> pd.DataFrame:
        """Per prior and model: posterior mean, credible and predictive intervals, P(best), and the shift of the
        mean and the ratio of the interval width relative to the baseline prior."""
        base = self.results[0].summary()
        rows = []
        for label, res in zip(self.priors, self.results):
            s = res.summary()
            rows.append(pd.DataFrame({
                "prior": label, "model": s["model"], "posterior_mean": s["posterior_mean"],
                "posterior_sd": s["posterior_sd"], "ci_low": s["ci_low"], "ci_high": s["ci_high"],
                "pred_low": s["pred_low"], "pred_high": s["pred_high"], "p_best": s["p_best"],
                "mean_shift": s["posterior_mean"] - base["posterior_mean"],
                "width_ratio": (s["ci_high"] - s["ci_low"]) / (base["ci_high"] - base["ci_low"]),
            }))
        return pd.concat(rows, ignore_index=True)

    def pairs_frame(self) -> pd.DataFrame:
        """Per prior and pair: the difference's credible interval, P(A better), the verdict, and whether the
        verdict differs from the baseline prior's."""
        base = self.results[0].pairs()
        rows = []
        for label, res in zip(self.priors, self.results):
            p = res.pairs()
            rows.append(pd.DataFrame({
                "prior": label, "model_a": p["model_a"], "model_b": p["model_b"],
                "posterior_mean": p["posterior_mean"], "posterior_sd": p["posterior_sd"],
                "ci_low": p["ci_low"], "ci_high": p["ci_high"], "p_a_better": p["p_a_better"],
                "verdict": p["verdict"], "verdict_changed": p["verdict"].to_numpy() != base["verdict"].to_numpy(),
            }))
        return pd.concat(rows, ignore_index=True)

    @property
    def verdict_changes(self) -> int:
        """Number of pairs whose verdict under some alternative prior differs from the baseline's."""
        f = self.pairs_frame()
        return int(f.groupby(["model_a", "model_b"])["verdict_changed"].any().sum())

    def to_frame(self) -> pd.DataFrame:
        return self.models_frame()


def prior_sensitivity(data, *, priors=None, n_draws: int = 10_000, confidence_level=0.95, weights=None,
                      group_weights=None, aggregate="mean", models=None, tasks=None, clusters=None,
                      rng=None) -> PriorSensitivity:
    """Refit :func:`beta_binomial` under each prior (the first is the baseline) with common random numbers.

    Parameters
    ----------
    priors : sequence of Prior, str or callable, optional
        Default :func:`evalband.bayes.priors.sensitivity_priors`: the seed's Exponential(1e-4),
        Exponential(1e-2), HalfNormal(100) and Gamma(2, 0.01).
    Other parameters are those of :func:`beta_binomial`.

    Returns
    -------
    PriorSensitivity
        ``.models_frame()``, ``.pairs_frame()``, ``.verdict_changes``.

    Notes
    -----
    A verdict that flips between priors rests on the prior, not only on the data: report it as such. Intervals
    of models with many large tasks barely move; small-N tasks and few tasks make the prior matter.

    References
    ----------
    Gelman, A. et al. (2013). Bayesian Data Analysis, 3rd ed., sections 5.3 and 5.7.

    Examples
    --------
    >>> import evalband as eb
    >>> res = eb.prior_sensitivity(eb.load_example("vtab"), n_draws=300, models=["Exemplar", "VAE"], rng=0)
    >>> type(res).__name__
    'PriorSensitivity'
    """
    priors = [parse_prior(p) for p in (sensitivity_priors() if priors is None else priors)]
    if len(priors) < 2:
        raise ArgumentError(f"`priors` needs at least two priors to compare; got {len(priors)}.")
    if not isinstance(data, Counts):  # selected (and a path read) once, not once per prior
        from ..selection import select

        data = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights,
                      complete=True, shared_items=False)
        models = tasks = weights = group_weights = None
    seed = int(as_generator(rng).integers(0, 2**63 - 1))
    results: list[BayesResult] = [
        beta_binomial(data, prior=p, n_draws=n_draws, confidence_level=confidence_level, weights=weights,
                      group_weights=group_weights, aggregate=aggregate, models=models, tasks=tasks,
                      clusters=clusters, rng=np.random.default_rng(seed))
        for p in priors  # a handful of refits, each vectorized over models, tasks and draws
    ]
    return PriorSensitivity(tuple(p.label for p in priors), tuple(results))
