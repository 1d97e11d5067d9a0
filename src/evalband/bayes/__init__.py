"""Bayesian hierarchical models beside the bootstrap.

* :func:`beta_binomial`: the seed's Beta-Binomial hierarchy (Longjohn, Gopalan & Casleton 2025), sampled
  exactly on a deterministic 2-D grid per model, no MCMC; works from counts (summary or item-level binary data).
* :func:`logistic`: a richer logistic model (model, task, model x task, item and cluster effects) fitted with
  NumPyro's NUTS, with R-hat, ESS and divergence diagnostics (extra ``evalband[bayes]``).
* :func:`prior_sensitivity`: refits under alternative priors and reports how intervals and verdicts move.
* :func:`compare_with_bootstrap`: bootstrap and Bayesian intervals side by side, flagging verdict disagreements.
"""

from __future__ import annotations

from .exact import beta_binomial
from .posterior import BayesResult
from .priors import Prior, custom, exponential, gamma, half_normal, parse_prior

__all__ = ["BayesResult", "Prior", "beta_binomial", "custom", "exponential", "gamma", "half_normal", "parse_prior"]
