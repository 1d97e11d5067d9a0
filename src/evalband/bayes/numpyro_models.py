"""NumPyro models fitted with NUTS (extra ``evalband[bayes]``): the Beta-Binomial hierarchy itself (the
reference for the exact sampler), and the richer logistic model for item-level data
(:mod:`evalband.bayes.logistic_model`, re-exported here).
"""

from __future__ import annotations

import numpy as np

from ._nuts import EXTRA_MESSAGE, mcmc_options, require_numpyro, run_nuts
from .diagnostics import diagnose
from .exact import NOTE_AGGREGATE, NOTE_PRIOR, as_counts
from .logistic_model import ITEM_EFFECTS_MAX_ITEMS, logistic
from .posterior import BayesResult, make_aggregator
from .priors import parse_prior
from .._validate import ArgumentError
from .._words import words
from ..display.notes import NoteKind

__all__ = ["nuts_beta_binomial", "logistic", "require_numpyro", "EXTRA_MESSAGE", "ITEM_EFFECTS_MAX_ITEMS"]


# --------------------------------------------------------------------------------------------- Beta-Binomial
def _bb_model(y, n, family, params):
    import numpyro
    import numpyro.distributions as dist

    m, t = y.shape
    if family == "exponential":
        d = dist.Exponential(params["rate"])
    elif family == "half-normal":
        d = dist.HalfNormal(params["scale"])
    else:
        d = dist.Gamma(params["shape"], params["rate"])
    with numpyro.plate("model", m):
        alpha = numpyro.sample("alpha", d)
        beta = numpyro.sample("beta", d)
        with numpyro.plate("task", t):
            theta = numpyro.sample("theta", dist.Beta(alpha, beta))  # (T, M)
            numpyro.sample("y", dist.Binomial(n.T, probs=theta), obs=y.T)


NOTE_NUTS_FIT = NoteKind("bayes.nuts-fit", "info", "Beta-Binomial hierarchy fitted with NUTS: {num_chains} chains x"
                         " {num_samples} draws after {num_warmup} warm-up")


def nuts_beta_binomial(data, *, prior=None, num_warmup: int = 1000, num_samples: int = 1000, num_chains: int = 4,
                       confidence_level=0.95, weights=None, group_weights=None, aggregate="mean", models=None,
                       tasks=None,
                       target_accept: float = 0.9, max_tree_depth: int = 10, rng=None) -> BayesResult:
    """The Beta-Binomial hierarchy of :func:`beta_binomial`, fitted with NUTS (theta_ij sampled explicitly).

    This is the MCMC reference for the exact sampler (tests and ``benchmarks/bayes.py``); use
    :func:`beta_binomial` for analyses. Diagnostics (R-hat, bulk/tail ESS, divergences) are in
    ``result.diagnostics`` and problems in ``result.warnings``.

    Notes
    -----
    Only the named prior families can be used (a custom log density would need to be written in JAX).

    References
    ----------
    Hoffman, M. D. & Gelman, A. (2014). The No-U-Turn sampler. JMLR 15, 1593-1623.
    Phan, D., Pradhan, N. & Jankowiak, M. (2019). Composable effects for flexible and accelerated probabilistic
    programming in NumPyro. arXiv:1912.11554.
    """
    counts, task_groups, table_notes = as_counts(data, models=models, tasks=tasks)
    prior = parse_prior(prior)
    if prior.family == "custom":
        raise ArgumentError(words('`{arg:prior}`: the NUTS reference takes a named family (exponential, half-normal, gamma).'))
    num_warmup, num_samples, num_chains, level, seed, gen = mcmc_options(num_warmup, num_samples, num_chains,
                                                                          rng, confidence_level)
    require_numpyro(num_chains)
    import jax.numpy as jnp

    from numpyro.infer import init_to_value

    y, n = counts.correct, counts.n
    # start every chain at method-of-moments values: starting at the prior's median (alpha = beta ~ 6,900 for the
    # default prior) leaves chains stranded in the funnel of large alpha + beta
    p = (y + 0.5) / (n + 1.0)
    mean, var = p.mean(axis=1), np.maximum(p.var(axis=1), 1e-6)
    s0 = np.clip(mean * (1 - mean) / var - 1.0, 0.5, 1e4)
    init = init_to_value(values={"alpha": jnp.asarray(mean * s0), "beta": jnp.asarray((1 - mean) * s0),
                                 "theta": jnp.asarray(p.T)})
    _, idata = run_nuts(_bb_model, dict(y=jnp.asarray(y), n=jnp.asarray(n), family=prior.family,
                                         params=prior.params),
                         num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains,
                         seed=int(gen.integers(0, 2**31 - 1)), target_accept=target_accept,
                         max_tree_depth=max_tree_depth, init_strategy=init)
    post = idata.posterior
    theta = np.asarray(post["theta"]).reshape(-1, n.shape[1], n.shape[0]).transpose(0, 2, 1)
    alpha = np.asarray(post["alpha"]).reshape(-1, n.shape[0])
    beta = np.asarray(post["beta"]).reshape(-1, n.shape[0])
    diag, warnings = diagnose(idata, ["alpha", "beta", "theta"])
    agg, agg_name = make_aggregator(counts.tasks, task_groups, aggregate=aggregate, weights=weights,
                                    group_weights=group_weights)
    pred_seed = int(gen.integers(0, 2**63 - 1))
    notes = [NOTE_NUTS_FIT(num_chains=num_chains, num_samples=num_samples, num_warmup=num_warmup),
             NOTE_PRIOR(prior=prior.label), NOTE_AGGREGATE(aggregate=agg_name), *table_notes]
    return BayesResult(
        method="beta-binomial (NUTS)", models=counts.models, tasks=counts.tasks, theta=theta,
        aggregate=agg(theta), observed=y / n,
        observed_aggregate=np.asarray(agg(y / n)), n=n, confidence_level=level, prior=prior.label,
        aggregate_name=agg_name, seed=seed, alpha=alpha, beta=beta, diagnostics=diag, inference_data=idata,
        task_groups=task_groups, aggregator=agg, task_weights=agg.weights if agg.name == "mean" else None,
        warnings=warnings, notes=tuple(notes), pred_seed=pred_seed,
    )
