"""NumPyro models fitted with NUTS (extra ``evalband[bayes]``): the Beta-Binomial hierarchy itself (the
reference for the exact sampler) and a richer logistic model for item-level data.

Logistic model (all effects non-centred, weakly informative priors)::

    logit P(y_mtk = 1) = mu + a_m + b_t + c_mt + d_k + e_g(k)
    mu ~ Normal(0, 2.5);  a = s_a P z_a;  b = s_b P z_b;  c = s_c (P z_c P');  z ~ Normal(0, 1)
    d = s_d Q z_d  (item k, item-level data: IRT-like difficulty);  e = s_e R z_e  (cluster g)
    s_a, s_b, s_d, s_e ~ HalfNormal(1);  s_c ~ HalfNormal(0.5)

where P centres (sum-to-zero model, task and row-and-column-centred interaction effects, so ``mu`` is the grand
mean on the logit scale and the effects are orthogonal), R centres clusters within their task and Q items within
their cluster (or task): no level competes with another for the same mean, which keeps NUTS' step size usable. ``b_t`` is each task's difficulty shared by all models,
``c_mt`` the model-by-task interaction. The reported
``theta_mt`` is the model's expected accuracy on the task's own items (the mean of the fitted probabilities over
them); the predictive interval is that of the accuracy on a new test set of the same size drawn from the same
item population (new item and cluster effects), i.e. Binomial(n, E_d[expit(eta + d)]).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
from scipy import special

from .._validate import InputError, as_generator, check_confidence_level, check_positive_int
from ..table import Counts, ResultsTable
from .diagnostics import diagnose, import_arviz
from .exact import as_counts
from .posterior import BayesResult, make_aggregator
from .priors import parse_prior

__all__ = ["nuts_beta_binomial", "logistic", "require_numpyro", "EXTRA_MESSAGE", "ITEM_EFFECTS_MAX_ITEMS"]

#: ``logistic(item_effects=None)`` fits item effects only up to this many distinct (task, item) pairs; above it the
#: model drops them and uses the (exact, far cheaper) aggregated binomial likelihood per (model, task, cluster).
#: On MMLU-Pro (12,032 items) item effects make NUTS take about an hour on 2 cores at the default draws (a
#: 4 x (100 + 100) run took 15 min and ended at R-hat 1.27); without them the default fit takes about 2 min.
ITEM_EFFECTS_MAX_ITEMS = 2000

EXTRA_MESSAGE = ("needs NumPyro, JAX and ArviZ: pip install 'evalband[bayes]'"
                 " (the exact beta-binomial model, evalband.bayes.beta_binomial, works without them)")


def require_numpyro(num_chains: int = 4, *, what: str = "this model", arviz: bool = True):
    """Import numpyro (and JAX, and ArviZ unless ``arviz=False``); raise ImportError naming the extra when missing.

    Before JAX starts, asks for one host device per chain (up to the CPU count) so chains can run in parallel.
    ``what`` names the caller in the error ("this model", "the hierarchical test", ...).
    """
    if "jax" not in sys.modules:
        flags = os.environ.get("XLA_FLAGS", "")
        if "xla_force_host_platform_device_count" not in flags:
            count = max(1, min(num_chains, os.cpu_count() or 1))
            os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={count}".strip()
    try:
        import jax  # noqa: F401
        import numpyro
        if arviz:
            import_arviz()
    except ImportError as exc:
        raise ImportError(f"{what} {EXTRA_MESSAGE}") from exc
    return numpyro


def _run_nuts(model, kwargs, *, num_warmup, num_samples, num_chains, seed, target_accept, max_tree_depth,
              init_strategy=None):
    import jax
    from numpyro.infer import MCMC, NUTS, init_to_median

    kernel = NUTS(model, target_accept_prob=target_accept, max_tree_depth=max_tree_depth,
                  init_strategy=init_strategy or init_to_median(num_samples=15))
    method = "parallel" if jax.local_device_count() >= num_chains else "sequential"
    mcmc = MCMC(kernel, num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains,
                chain_method=method, progress_bar=False)
    mcmc.run(jax.random.PRNGKey(seed), **kwargs)
    az = import_arviz()
    idata = az.from_numpyro(mcmc, log_likelihood=False)
    return mcmc, idata


def _mcmc_options(num_warmup, num_samples, num_chains, rng, confidence_level):
    num_warmup = check_positive_int(num_warmup, "num_warmup")
    num_samples = check_positive_int(num_samples, "num_samples")
    num_chains = check_positive_int(num_chains, "num_chains")
    level = check_confidence_level(confidence_level)
    seed_given = rng if isinstance(rng, (int, np.integer)) else None
    gen = as_generator(rng)
    return num_warmup, num_samples, num_chains, level, seed_given, gen


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
        raise ValueError("`prior`: the NUTS reference takes a named family (exponential, half-normal, gamma).")
    num_warmup, num_samples, num_chains, level, seed, gen = _mcmc_options(num_warmup, num_samples, num_chains,
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
    _, idata = _run_nuts(_bb_model, dict(y=jnp.asarray(y), n=jnp.asarray(n), family=prior.family,
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
    notes = [f"Beta-Binomial hierarchy fitted with NUTS: {num_chains} chains x {num_samples} draws after"
             f" {num_warmup} warm-up", f"prior on each model's alpha and beta: {prior.label}",
             f"aggregate: {agg_name}", *table_notes]
    return BayesResult(
        method="beta-binomial (NUTS)", models=counts.models, tasks=counts.tasks, theta=theta,
        aggregate=agg(theta), observed=y / n,
        observed_aggregate=np.asarray(agg(y / n)), n=n, confidence_level=level, prior=prior.label,
        aggregate_name=agg_name, seed=seed, alpha=alpha, beta=beta, diagnostics=diag, inference_data=idata,
        task_groups=task_groups, aggregator=agg, task_weights=agg.weights if agg.name == "mean" else None,
        warnings=warnings, notes=tuple(notes), pred_seed=pred_seed,
    )


# --------------------------------------------------------------------------------------------- logistic
def _centre_within(z, group, n_groups):
    """z minus the mean of its group (JAX segment means)."""
    import jax

    total = jax.ops.segment_sum(z, group, num_segments=n_groups)
    count = jax.ops.segment_sum(jax.numpy.ones_like(z), group, num_segments=n_groups)
    return z - (total / jax.numpy.maximum(count, 1.0))[group]


def _logistic_model(model_idx, task_idx, cluster_idx, successes, trials, item_task, item_cluster, cluster_task,
                    n_models, n_tasks, n_clusters):
    """Rows form (``item_task`` None): one binomial row per (model, task[, cluster]). Dense form: ``successes``
    and ``trials`` shaped (models, items) with zero trials where a model lacks an item, one effect per item
    (``item_task``, ``item_cluster`` give each item's task and cluster): gathers over items, not over rows, which
    keeps the gradient cheap."""
    import numpyro
    import numpyro.distributions as dist

    mu = numpyro.sample("intercept", dist.Normal(0.0, 2.5))
    s_a = numpyro.sample("sigma_model", dist.HalfNormal(1.0))
    s_b = numpyro.sample("sigma_task", dist.HalfNormal(1.0))
    s_c = numpyro.sample("sigma_model_task", dist.HalfNormal(0.5))
    # sum-to-zero effects: the intercept is the grand mean, and model, task and interaction effects are
    # orthogonal, which removes the additive redundancy that otherwise slows NUTS down with few models or tasks
    with numpyro.plate("models", n_models):
        z_a = numpyro.sample("z_model", dist.Normal(0.0, 1.0))
    with numpyro.plate("tasks", n_tasks):
        z_b = numpyro.sample("z_task", dist.Normal(0.0, 1.0))
    with numpyro.plate("model_task", n_models * n_tasks):
        z_c = numpyro.sample("z_model_task", dist.Normal(0.0, 1.0)).reshape(n_models, n_tasks)
    a = s_a * (z_a - z_a.mean())
    b = s_b * (z_b - z_b.mean())
    c = s_c * (z_c - z_c.mean(axis=0, keepdims=True) - z_c.mean(axis=1, keepdims=True) + z_c.mean())
    numpyro.deterministic("model_effect", a)
    e = None
    if n_clusters:
        s_e = numpyro.sample("sigma_cluster", dist.HalfNormal(1.0))
        with numpyro.plate("clusters", n_clusters):
            z_e = numpyro.sample("z_cluster", dist.Normal(0.0, 1.0))
        e = s_e * _centre_within(z_e, cluster_task, n_tasks)  # clusters centred within their task
    if item_task is None:
        eta = mu + a[model_idx] + b[task_idx] + c[model_idx, task_idx]
        if e is not None:
            eta = eta + e[cluster_idx]
        with numpyro.plate("obs", model_idx.shape[0]):
            numpyro.sample("y", dist.Binomial(trials, logits=eta), obs=successes)
        return
    s_d = numpyro.sample("sigma_item", dist.HalfNormal(1.0))
    with numpyro.plate("items", item_task.shape[0]):
        z_d = numpyro.sample("z_item", dist.Normal(0.0, 1.0))
    # items centred within their cluster (or task): the levels do not compete for the same mean
    d = s_d * (_centre_within(z_d, item_cluster, n_clusters) if e is not None
               else _centre_within(z_d, item_task, n_tasks))
    per_item = b[item_task] + d + (e[item_cluster] if e is not None else 0.0)  # (K,)
    eta = mu + a[:, None] + c[:, item_task] + per_item[None, :]  # (M, K)
    numpyro.sample("y", dist.Binomial(trials, logits=eta).to_event(2), obs=successes)


def _logistic_data(table, counts_models, counts_tasks, item_effects, cluster_effects):
    """Observation arrays for the logistic model (rows or dense form), observed accuracies, test-set sizes and
    the units theta averages over."""
    m_names, t_names = list(counts_models), list(counts_tasks)
    none = dict(model_idx=None, task_idx=None, cluster_idx=None, item_task=None, item_cluster=None,
                cluster_task=None)
    if isinstance(table, Counts) or table.level == "summary":
        c = table if isinstance(table, Counts) else table.counts(models=m_names, tasks=t_names)
        mi, ti = np.meshgrid(np.arange(len(m_names)), np.arange(len(t_names)), indexing="ij")
        obs = dict(none, model_idx=mi.ravel(), task_idx=ti.ravel(), successes=c.correct.ravel(),
                   trials=c.n.ravel())
        return obs, c.correct / c.n, c.n, None, 0, 0
    if table.score_kind != "binary":
        raise InputError("the logistic model needs binary (0/1) scores", source=table.source)
    d = table.data.loc[table.data["model"].isin(m_names) & table.data["task"].isin(t_names)]
    mi = pd.Categorical(d["model"], categories=m_names).codes.astype(np.int64)
    ti = pd.Categorical(d["task"], categories=t_names).codes.astype(np.int64)
    y = d["score"].to_numpy(np.float64)
    grid = (len(m_names), len(t_names))
    size = np.zeros(grid)
    per_item = d.drop_duplicates(["model", "task", "item"])
    np.add.at(size, (pd.Categorical(per_item["model"], categories=m_names).codes,
                     pd.Categorical(per_item["task"], categories=t_names).codes), 1.0)
    ssum, scount = np.zeros(grid), np.zeros(grid)
    np.add.at(ssum, (mi, ti), y)
    np.add.at(scount, (mi, ti), 1.0)
    observed = ssum / scount
    use_clusters = table.has_clusters if cluster_effects is None else bool(cluster_effects)
    if use_clusters and not table.has_clusters:
        raise InputError("`cluster_effects=True` but the data have no cluster column", source=table.source)
    ci, n_clusters, cluster_task = None, 0, None
    if use_clusters:
        ci, cl_labels = pd.factorize(pd.Series(d["task"].astype(str).to_numpy()) + "\x00"
                                     + pd.Series(d["cluster"].astype(str).to_numpy()))
        n_clusters = len(cl_labels)
        cluster_task = np.zeros(n_clusters, dtype=np.int64)
        cluster_task[ci] = ti
    use_items = bool(item_effects)  # resolved by ``logistic`` (None -> the item-count threshold)
    if use_items:
        ui, u_labels = pd.factorize(pd.Series(d["task"].astype(str).to_numpy()) + "\x00"
                                    + pd.Series(d["item"].astype(str).to_numpy()))
        k = len(u_labels)
        item_task = np.zeros(k, dtype=np.int64)
        item_task[ui] = ti
        item_cluster = None
        if ci is not None:
            item_cluster = np.zeros(k, dtype=np.int64)
            item_cluster[ui] = ci
        succ, tri = np.zeros((grid[0], k)), np.zeros((grid[0], k))
        np.add.at(succ, (mi, ui), y)  # trials of an item add up: binomial per (model, item)
        np.add.at(tri, (mi, ui), 1.0)
        obs = dict(none, successes=succ, trials=tri, item_task=item_task, item_cluster=item_cluster,
                   cluster_task=cluster_task)
        units = dict(task=item_task, weight=np.ones(k), item=np.arange(k), cluster=item_cluster)
        return obs, observed, size, units, k, n_clusters
    # no item effects: binomial counts per (model, task[, cluster]) give the same likelihood with far fewer terms
    key = np.column_stack([mi, ti] + ([ci] if ci is not None else []))
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.ravel()
    obs = dict(none, model_idx=uniq[:, 0], task_idx=uniq[:, 1], cluster_idx=uniq[:, 2] if ci is not None else None,
               successes=np.bincount(inv, weights=y), trials=np.bincount(inv).astype(np.float64),
               cluster_task=cluster_task)
    units = None
    if ci is not None:  # theta averages over the task's clusters, weighted by their item counts
        items = d.drop_duplicates(["task", "item"])
        labels = pd.Series(d["task"].astype(str).to_numpy()) + "\x00" + pd.Series(d["cluster"].astype(str).to_numpy())
        code_of = dict(zip(pd.unique(labels), range(n_clusters)))  # the codes of ``ci``
        item_labels = (pd.Series(items["task"].astype(str).to_numpy()) + "\x00"
                       + pd.Series(items["cluster"].astype(str).to_numpy()))
        cl = item_labels.map(code_of).to_numpy(np.int64)
        ctask = np.zeros(n_clusters, dtype=np.int64)
        ctask[ci] = ti
        units = dict(task=ctask, weight=np.bincount(cl, minlength=n_clusters).astype(np.float64), item=None,
                     cluster=np.arange(n_clusters))
    return obs, observed, size, units, 0, n_clusters


def _resolve_item_effects(data, m_names, t_names, item_effects):
    """``item_effects`` as a bool, and the note to add when ``None`` turned them off (too many items)."""
    if item_effects is not None:
        return bool(item_effects), None
    if not (isinstance(data, ResultsTable) and data.level == "item"):
        return False, None
    sel = data.data["model"].isin(m_names) & data.data["task"].isin(t_names)
    n_items = len(data.data.loc[sel, ["task", "item"]].drop_duplicates())
    if n_items <= ITEM_EFFECTS_MAX_ITEMS:
        return True, None
    return False, (f"item effects left out: {n_items:,} items exceed ITEM_EFFECTS_MAX_ITEMS ="
                   f" {ITEM_EFFECTS_MAX_ITEMS:,} (NUTS over one effect per item is slow to fit and mix);"
                   " fitted on the exact binomial counts per (model, task, cluster) instead; force them"
                   " with item_effects=True (CLI: --item-effects)")


def _centre_np(z, group, n_groups):
    """(D, K) draws minus their group means over K (the model's centring, in NumPy)."""
    total = np.zeros((z.shape[0], n_groups))
    np.add.at(total, (slice(None), group), z)
    count = np.maximum(np.bincount(group, minlength=n_groups), 1)
    return z - (total / count)[:, group]


def _theta_logistic(eta, units, item_eff, cl_eff, n_tasks, chunk=64):
    """theta (D, M, T): mean over each task's units of expit(eta + unit offsets); eta (D, M, T)."""
    if units is None:
        return special.expit(eta)
    d, m, _ = eta.shape
    offset = np.zeros((d, units["task"].shape[0]))
    if units["item"] is not None and item_eff is not None:
        offset = offset + item_eff[:, units["item"]]
    if units["cluster"] is not None and cl_eff is not None:
        offset = offset + cl_eff[:, units["cluster"]]
    theta = np.empty_like(eta)
    for j in range(n_tasks):  # tasks x draw chunks bound the memory; each block is vectorized
        sel = np.flatnonzero(units["task"] == j)
        w = units["weight"][sel] / units["weight"][sel].sum()
        for s in range(0, d, chunk):
            block = special.expit(eta[s:s + chunk, :, j, None] + offset[s:s + chunk, None, sel])
            theta[s:s + chunk, :, j] = block @ w
    return theta


def logistic(data, *, item_effects=None, cluster_effects=None, num_warmup: int = 500, num_samples: int = 500,
             num_chains: int = 4, confidence_level=0.95, weights=None, group_weights=None, aggregate="mean",
             models=None, tasks=None, target_accept: float = 0.8, max_tree_depth: int = 8, rng=None) -> BayesResult:
    """Logistic model with model, task (shared difficulty), model x task, item and cluster effects, by NUTS.

    Parameters
    ----------
    data : ResultsTable or Counts
        Item-level binary scores (trials allowed: each is one Bernoulli observation of its item), or counts.
    item_effects : bool, optional
        Item (IRT-like difficulty) effects. ``None`` (default): on for item-level data with at most
        ``ITEM_EFFECTS_MAX_ITEMS`` (2,000) distinct (task, item) pairs, off above it (a note in ``result.notes``
        says so; pass ``item_effects=True`` to force them). Always off for counts and summary data.
        Without item effects every Bernoulli observation in a (model, task, cluster) cell has the same
        probability, so the model is fitted, exactly, on one Binomial(n_cell, p_cell) term per cell.
    cluster_effects : bool, optional
        Cluster effects; default on when the data have clusters.
    num_warmup, num_samples, num_chains : int
        NUTS settings (draws per chain).
    max_tree_depth : int
        Caps the cost per draw (2**depth gradient evaluations); raise it if the diagnostics say so.
    Other parameters are those of :func:`beta_binomial`.

    Returns
    -------
    BayesResult
        ``theta`` (D, M, T) is the model's expected accuracy on the task's items; ``inference_data`` holds the
        ArviZ fit; ``diagnostics`` per variable (R-hat, bulk and tail ESS) with divergences in ``.attrs``; failed
        checks in ``warnings``.

    Notes
    -----
    Models are assumed to respond to items independently given the effects; the item effects carry the
    between-model correlation that the Beta-Binomial model ignores. Summary input fits the model without item
    effects. Without item effects (forced, or automatic on large data) the likelihood is aggregated to binomial
    counts per (model, task[, cluster]) cell: it equals the Bernoulli likelihood up to the constant binomial
    coefficients, so the posterior is the same, at a cost that grows with the number of cells instead of the
    number of scores. Cluster effects still carry the correlation between models within a cluster, but the
    predictive interval then leaves out item-to-item variation within clusters (it is narrower than with item
    effects). Diagnostics follow Vehtari et al. (2021); do not use a fit whose warnings are not empty.

    References
    ----------
    Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. & Bürkner, P.-C. (2021). Rank-normalization, folding, and
    localization: an improved R-hat for assessing convergence of MCMC. Bayesian Analysis 16(2), 667-718.
    De Boeck, P. & Wilson, M. (2004). Explanatory Item Response Models. Springer.
    """
    num_warmup, num_samples, num_chains, level, seed, gen = _mcmc_options(num_warmup, num_samples, num_chains,
                                                                          rng, confidence_level)
    if isinstance(data, ResultsTable):
        m_names = tuple(data.models if models is None else models)
        t_names = tuple(data.tasks if tasks is None else tasks)
        task_groups = data.task_groups
        table_notes = data.notes
        if data.level == "item":
            from .._validate import check_names
            check_names(m_names, data.models, "models")
            check_names(t_names, data.tasks, "tasks")
    else:
        counts, task_groups, table_notes = as_counts(data, models=models, tasks=tasks)
        data, m_names, t_names = counts, counts.models, counts.tasks
    if task_groups is not None:
        task_groups = {t: task_groups[t] for t in t_names}
    item_effects, item_note = _resolve_item_effects(data, m_names, t_names, item_effects)
    obs, observed, size, units, n_units, n_clusters = _logistic_data(data, m_names, t_names, item_effects,
                                                                     cluster_effects)
    require_numpyro(num_chains)
    import jax.numpy as jnp

    arrays = {k: (jnp.asarray(v) if v is not None else None) for k, v in obs.items()}
    kwargs = dict(arrays, n_models=len(m_names), n_tasks=len(t_names), n_clusters=n_clusters)
    _, idata = _run_nuts(_logistic_model, kwargs, num_warmup=num_warmup, num_samples=num_samples,
                         num_chains=num_chains, seed=int(gen.integers(0, 2**31 - 1)), target_accept=target_accept,
                         max_tree_depth=max_tree_depth)
    post = idata.posterior
    flat = lambda name: np.asarray(post[name]).reshape(-1, *np.asarray(post[name]).shape[2:])
    m, t = len(m_names), len(t_names)
    center = lambda z: z - z.mean(axis=-1, keepdims=True)
    zc = flat("z_model_task").reshape(-1, m, t)
    zc = zc - zc.mean(axis=1, keepdims=True) - zc.mean(axis=2, keepdims=True) + zc.mean(axis=(1, 2), keepdims=True)
    eta = (flat("intercept")[:, None, None] + (flat("sigma_model")[:, None] * center(flat("z_model")))[:, :, None]
           + (flat("sigma_task")[:, None] * center(flat("z_task")))[:, None, :]
           + flat("sigma_model_task")[:, None, None] * zc)
    cl_eff = item_eff = None
    if n_clusters:
        cl_eff = flat("sigma_cluster")[:, None] * _centre_np(flat("z_cluster"), obs["cluster_task"], t)
    if n_units:
        group, size_g = (obs["item_cluster"], n_clusters) if n_clusters else (obs["item_task"], t)
        item_eff = flat("sigma_item")[:, None] * _centre_np(flat("z_item"), group, size_g)
    theta = _theta_logistic(eta, units, item_eff, cl_eff, t)
    # predictive: new items (and clusters) from the fitted populations, so Binomial(n, E_d[expit(eta + d)])
    sd = np.zeros(eta.shape[0])
    if n_units:
        sd = sd + flat("sigma_item") ** 2
    if n_clusters:
        sd = sd + flat("sigma_cluster") ** 2
    nodes, hw = np.polynomial.hermite_e.hermegauss(24)
    p_new = (special.expit(eta[..., None] + np.sqrt(sd)[:, None, None, None] * nodes) @ (hw / hw.sum()))
    pred_seed = int(gen.integers(0, 2**63 - 1))
    names = [v for v in post.data_vars]
    diag, warnings = diagnose(idata, names)
    agg, agg_name = make_aggregator(t_names, task_groups, aggregate=aggregate, weights=weights,
                                    group_weights=group_weights)
    effects = ["model", "task", "model x task"] + (["item"] if n_units else []) + (["cluster"] if n_clusters else [])
    notes = [f"logistic model with {', '.join(effects)} effects, fitted with NUTS: {num_chains} chains x"
             f" {num_samples} draws after {num_warmup} warm-up",
             "theta = expected accuracy on the task's own items; pred = accuracy on a new test set of the same size"
             " from the same item population", *([item_note] if item_note else []), f"aggregate: {agg_name}",
             *table_notes]
    return BayesResult(
        method="logistic", models=tuple(m_names), tasks=tuple(t_names), theta=theta,
        aggregate=agg(theta), observed=observed,
        observed_aggregate=np.asarray(agg(observed)), n=size, confidence_level=level,
        prior="weakly informative normal / half-normal (see evalband.bayes.logistic)", aggregate_name=agg_name,
        seed=seed, diagnostics=diag, inference_data=idata, task_groups=task_groups, aggregator=agg,
        task_weights=agg.weights if agg.name == "mean" else None, warnings=warnings, notes=tuple(notes),
        pred_seed=pred_seed, pred_probs=p_new,
    )
