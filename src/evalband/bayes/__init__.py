"""Bayesian hierarchical models beside the bootstrap.

* :func:`beta_binomial`: the seed's Beta-Binomial hierarchy (Longjohn, Gopalan & Casleton 2025), sampled
  exactly on a deterministic 2-D grid per model, no MCMC; works from counts (summary or item-level binary data).
* :func:`logistic`: a richer logistic model (model, task, model x task, item and cluster effects) fitted with
  NumPyro's NUTS, with R-hat, ESS and divergence diagnostics (extra ``evalband[bayes]``).
* :func:`prior_sensitivity`: refits under alternative priors and reports how intervals and verdicts move.
* :func:`compare_with_bootstrap`: bootstrap and Bayesian intervals side by side, flagging verdict disagreements.
"""

from __future__ import annotations

from .agreement import Agreement, compare_with_bootstrap
from .diagnostics import diagnose
from .exact import beta_binomial
from .numpyro_models import logistic, nuts_beta_binomial
from .posterior import BayesResult
from .priors import Prior, custom, exponential, gamma, half_normal, parse_prior, sensitivity_priors
from .sensitivity import PriorSensitivity, prior_sensitivity

__all__ = ["Agreement", "BayesResult", "Prior", "PriorSensitivity", "beta_binomial", "compare_with_bootstrap",
           "custom", "diagnose", "exponential", "gamma", "half_normal", "logistic", "nuts_beta_binomial",
           "parse_prior", "prior_sensitivity", "sensitivity_priors"]
