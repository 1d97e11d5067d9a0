"""Bayesian hierarchical models beside the bootstrap.

* :func:`beta_binomial`: the seed's Beta-Binomial hierarchy (Longjohn, Gopalan & Casleton 2025), sampled
  exactly on a deterministic 2-D grid per model, no MCMC; works from counts (summary or item-level binary data).
* :func:`logistic`: a richer logistic model (model, task, model x task, item and cluster effects) fitted with
  NumPyro's NUTS, with R-hat, ESS and divergence diagnostics (extra ``evalband[bayes]``).
* :func:`prior_sensitivity`: refits under alternative priors and reports how intervals and verdicts move.
* :func:`compare_with_bootstrap`: bootstrap and Bayesian intervals side by side, flagging verdict disagreements.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# each name imported from its module on first use: ``evalband bayes --model logistic`` need not load
# scipy.stats (the agreement module's) nor the prior-sensitivity machinery (issue 27)
__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "agreement": ["Agreement", "compare_with_bootstrap"],
    "diagnostics": ["diagnose"],
    "exact": ["beta_binomial"],
    "numpyro_models": ["logistic"],  # (nuts_beta_binomial: the MCMC reference of the tests, in its module)
    "posterior": ["BayesResult"],
    "priors": ["Prior", "custom", "exponential", "gamma", "half_normal", "parse_prior", "sensitivity_priors"],
    "sensitivity": ["PriorSensitivity", "prior_sensitivity"],
})
