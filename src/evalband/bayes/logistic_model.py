"""A logistic model for item-level evaluation data (extra ``evalband[bayes]``), fitted by HMC over coordinates
whitened by its Gaussian approximation (default), by NumPyro's NUTS, or approximated by that Gaussian.

The model::

    logit P(y_mtk = 1) = mu + a_m + b_t + c_mt + e_g(k) + d_k
    mu ~ Normal(0, 2.5)
    a ~ ZeroSumNormal(s_a)            (models: sum to zero)
    b ~ ZeroSumNormal(s_b)            (tasks: each task's difficulty, shared by all models; sum to zero)
    c ~ ZeroSumNormal(s_c)            (model x task interaction: every row and every column sums to zero)
    e ~ ZeroSumNormal(s_e) per task   (clusters g, summing to zero within their task)
    d ~ ZeroSumNormal(s_d) per group  (items k, IRT-like difficulty, summing to zero within their cluster or task)
    s_a, s_b, s_d, s_e ~ HalfNormal(1);  s_c ~ HalfNormal(0.5)

Every effect sums to zero within the level above it, so ``mu`` is the grand mean on the logit scale and no level
competes with another for the same mean: the effects are identified by the data, not by their priors, and they
are what the diagnostics check. A ZeroSumNormal over n values is an isotropic normal on the (n - 1)-dimensional
subspace of zero-sum vectors, mapped by an orthonormal basis (PyMC's and NumPyro's ``ZeroSumTransform``; the
per-group version here applies the same map segment by segment).

**Parametrisation.** Each level is sampled *centred* (the free values have scale ``s``) when the data inform its
effects strongly, and *non-centred* (unit-scale free values times ``s``) when they do not. With informative data
the non-centred form ties every effect to its scale and NUTS mixes slowly; with weak data the centred form has a
funnel where ``s`` is small (Papaspiliopoulos, Roberts & Sköld 2007; Betancourt & Girolami 2015). The centred
form is the better one when the data's precision for an effect exceeds the prior's, ``I s**2 > 1``. The choice is
made per level from the data: ``I`` is the Fisher information of the level's median effect (``sum n p (1 - p)``
over its scores, p the observed accuracy of their (model, task) cell), and ``s**2`` the spread of the effects'
observed logits within their parent level less their sampling noise (method of moments), taken at its lower 90%
chi-square bound (with few effects, small scales stay plausible). A level is centred when
``I s**2 >= CENTRED_MIN_RATIO`` (1). On MMLU-Pro every level comes out centred (ratios 6 to 830; the items,
forced on, 13); on small data every level is non-centred.

**Methods.** ``method='hmc'`` (the default where every level is informed, see ``HMC_MIN_EFFECTS``) finds the
scales' marginal posterior mode and the effects' conditional mode (:mod:`evalband.bayes._laplace_marginal`),
whitens the posterior by the Gaussian approximation there (:mod:`evalband.bayes._whiten`) and runs HMC with a
Gaussian splitting over the whitened coordinates (:mod:`evalband.bayes._split_hmc`): exact draws from real chains,
checked like NUTS's. ``method='nuts'`` runs NumPyro's NUTS in the model's own coordinates (the reference).
``method='laplace'`` draws from the Gaussian approximation itself (:mod:`evalband.bayes.laplace`).

The reported ``theta_mt`` is the model's expected accuracy on the task's own items (the mean of the fitted
probabilities over them); the predictive interval is that of the accuracy on a new test set of the same size
drawn from the same item population (new item and cluster effects), i.e. Binomial(n, E_d[expit(eta + d)]).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
from scipy import special

from .._blas import single_threaded_blas
from .._distributions import chi2_ppf
from .._validate import InputError, check_choice, check_names, check_probability
from ..data.table import Counts, ResultsTable
from ._nuts import mcmc_options, require_numpyro
from .diagnostics import diagnose
from .exact import NOTE_AGGREGATE, as_counts
from .logistic_methods import (HMC_MIN_EFFECTS, METHODS, NUTS_WARMUP, auto_method, fit,  # noqa: F401
                               inference_data, posterior_in_order)
from .logistic_terms import (CENTRED_MIN_RATIO, LEVELS, _effect, _logistic_model,  # noqa: F401
                             ragged_zero_sum, ragged_zero_sum_index)
from .posterior import BayesResult, make_aggregator
from ..display.notes import NoteKind

__all__ = ["logistic", "ITEM_EFFECTS_MAX_ITEMS", "CENTRED_MIN_RATIO", "LEVELS"]

#: ``logistic(item_effects=None)`` fits item effects only up to this many distinct (task, item) pairs; above it the
#: model drops them and uses the (exact, far cheaper) aggregated binomial likelihood per (model, task, cluster).
#: On MMLU-Pro (12,032 items, all levels centred) a short 4 x (300 + 300) fit with item effects took 24 min on 2
#: busy cores (990 s CPU) and ended at R-hat 1.035: the default 4 x (1000 + 1000) would take about an hour. Without
#: them the default fit takes about 4 min and passes its diagnostics.
ITEM_EFFECTS_MAX_ITEMS = 2000


# --------------------------------------------------------------------------------------------- data
def _logit(successes, trials):
    return special.logit((successes + 0.5) / (trials + 1.0))


def _precision_ratios(succ, trials, cell_m, cell_t, M, T, nested):
    """Per level, ``I s**2``: the Fisher information of the level's median effect times the method-of-moments
    variance of its effects (see the module docstring).

    ``succ``, ``trials`` are per observation with (model, task) cell codes; ``nested`` maps 'cluster'/'item' to
    (observation -> effect codes, number of effects, effect -> parent codes, number of parents).
    """
    cs, cn = np.zeros((M, T)), np.zeros((M, T))
    np.add.at(cs, (cell_m, cell_t), succ)
    np.add.at(cn, (cell_m, cell_t), trials)
    p = (cs + 0.5) / (cn + 1.0)
    weight = trials * (p * (1 - p))[cell_m, cell_t]  # information per observation

    def ratio(info, dev, df):
        info = info[info > 0]
        if df < 1 or not info.size:
            return 0.0
        s2 = max(float(np.sum(dev ** 2)) / df - float(np.mean(1.0 / info)), 0.0)
        # a low plausible spread (lower 90% chi-square bound): few effects leave small scales, and the centred
        # funnel, plausible
        return float(np.median(info) * s2 * df / chi2_ppf(0.9, df))

    logit_cells = _logit(cs, cn)
    grand = logit_cells.mean()
    a, b = logit_cells.mean(axis=1) - grand, logit_cells.mean(axis=0) - grand
    c = logit_cells - grand - a[:, None] - b[None, :]
    out = {"model": ratio(np.bincount(cell_m, weight, M), a, M - 1),
           "task": ratio(np.bincount(cell_t, weight, T), b, T - 1),
           "model_task": ratio(np.bincount(cell_m * T + cell_t, weight, M * T), c.ravel(), (M - 1) * (T - 1))}
    for level, (codes, size, parent, n_parents) in nested.items():
        ell = _logit(np.bincount(codes, succ, size), np.bincount(codes, trials, size))
        parent_mean = np.bincount(parent, ell, n_parents) / np.maximum(np.bincount(parent, minlength=n_parents), 1)
        out[level] = ratio(np.bincount(codes, weight, size), ell - parent_mean[parent],
                           size - np.unique(parent).size)
    return out


def _codes_within_task(d, column, sort=False):
    """Codes of the (task, ``column``) pairs of the rows of ``d`` (clusters and items are nested in tasks), and
    how many there are; in order of first appearance, or of the names with ``sort=True`` (then the codes do not
    depend on the order of the rows)."""
    codes, labels = pd.factorize(pd.Series(d["task"].astype(str).to_numpy()) + "\x00"
                                 + pd.Series(d[column].astype(str).to_numpy()), sort=sort)
    return codes, len(labels)


NOTE_CLUSTER_EFFECTS_LEFT_OUT = NoteKind(
    'bayes.cluster-effects-left-out', 'excluded',
    'cluster effects left out: every task is one cluster, so they are the task effects')
NOTE_ITEM_EFFECTS_LEFT_OUT = NoteKind('bayes.item-effects-left-out', 'excluded',
                                       'item effects left out: every item is alone in its {value}')


def _logistic_data(table, m_names, t_names, item_effects, cluster_effects, sort=False):
    """Observation arrays for the model (rows or dense form), observed accuracies, test-set sizes, the units
    theta averages over, each level's precision ratio (:func:`_precision_ratios`), and notes on levels left out
    (a level whose effects have no free value: one cluster per task, or one item per cluster or task).
    ``sort=True`` codes clusters and items in the order of their names instead of their first row."""
    m_names, t_names = list(m_names), list(t_names)
    M, T = len(m_names), len(t_names)
    none = dict(model_idx=None, task_idx=None, cluster_idx=None, item_task=None, cluster_index=None,
                item_index=None)
    if isinstance(table, Counts) or table.level == "summary":
        c = table if isinstance(table, Counts) else table.counts(models=m_names, tasks=t_names)
        mi, ti = (g.ravel() for g in np.meshgrid(np.arange(M), np.arange(T), indexing="ij"))
        obs = dict(none, model_idx=mi, task_idx=ti, successes=c.correct.ravel(), trials=c.n.ravel())
        ratios = _precision_ratios(obs["successes"], obs["trials"], mi, ti, M, T, {})
        return obs, c.correct / c.n, c.n, None, ratios, ()
    if table.score_kind != "binary":
        raise InputError("the logistic model needs binary (0/1) scores", source=table.source)
    d = table.data.loc[table.data["model"].isin(m_names) & table.data["task"].isin(t_names)]
    mi = pd.Categorical(d["model"], categories=m_names).codes.astype(np.int64)
    ti = pd.Categorical(d["task"], categories=t_names).codes.astype(np.int64)
    y = d["score"].to_numpy(np.float64)
    size = np.zeros((M, T))
    per_item = d.drop_duplicates(["model", "task", "item"])
    np.add.at(size, (pd.Categorical(per_item["model"], categories=m_names).codes,
                     pd.Categorical(per_item["task"], categories=t_names).codes), 1.0)
    ssum, scount = np.zeros((M, T)), np.zeros((M, T))
    np.add.at(ssum, (mi, ti), y)
    np.add.at(scount, (mi, ti), 1.0)
    observed = ssum / scount
    use_clusters = table.has_clusters if cluster_effects is None else bool(cluster_effects)
    if use_clusters and not table.has_clusters:
        raise InputError("`cluster_effects=True` but the data have no cluster column", source=table.source)
    ci, n_clusters, cluster_task, notes = None, 0, None, []
    if use_clusters:
        ci, n_clusters = _codes_within_task(d, "cluster", sort)
        cluster_task = np.zeros(n_clusters, dtype=np.int64)
        cluster_task[ci] = ti
        if n_clusters == np.unique(cluster_task).size:  # clusters sum to zero within a task: nothing left to fit
            notes.append(NOTE_CLUSTER_EFFECTS_LEFT_OUT())
            ci, n_clusters, cluster_task = None, 0, None
    nested = {}
    if ci is not None:
        nested["cluster"] = (ci, n_clusters, cluster_task, T)
    cluster_index = ragged_zero_sum_index(cluster_task, T) if ci is not None else None
    if item_effects:
        ui, k = _codes_within_task(d, "item", sort)
        item_task = np.zeros(k, dtype=np.int64)
        item_task[ui] = ti
        item_cluster = None
        if ci is not None:
            item_cluster = np.zeros(k, dtype=np.int64)
            item_cluster[ui] = ci
        if k == np.unique(item_task if ci is None else item_cluster).size:
            notes.append(NOTE_ITEM_EFFECTS_LEFT_OUT(value='task' if ci is None else 'cluster'))
            item_effects = False
    if item_effects:
        succ, tri = np.zeros((M, k)), np.zeros((M, k))
        np.add.at(succ, (mi, ui), y)  # trials of an item add up: binomial per (model, item)
        np.add.at(tri, (mi, ui), 1.0)
        nested["item"] = (ui, k, item_cluster, n_clusters) if ci is not None else (ui, k, item_task, T)
        # items sum to zero within their cluster (or task): the levels do not compete for the same mean
        item_index = (ragged_zero_sum_index(item_cluster, n_clusters) if ci is not None
                      else ragged_zero_sum_index(item_task, T))
        obs = dict(none, successes=succ, trials=tri, item_task=item_task, cluster_idx=item_cluster,
                   cluster_index=cluster_index, item_index=item_index)
        units = dict(task=item_task, weight=np.ones(k), item=np.arange(k), cluster=item_cluster)
        return obs, observed, size, units, _precision_ratios(y, np.ones_like(y), mi, ti, M, T, nested), tuple(notes)
    # no item effects: binomial counts per (model, task[, cluster]) give the same likelihood with far fewer terms
    key = np.column_stack([mi, ti] + ([ci] if ci is not None else []))
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.ravel()
    obs = dict(none, model_idx=uniq[:, 0], task_idx=uniq[:, 1], cluster_idx=uniq[:, 2] if ci is not None else None,
               successes=np.bincount(inv, weights=y), trials=np.bincount(inv).astype(np.float64),
               cluster_index=cluster_index)
    units = None
    if ci is not None:  # theta averages over the task's clusters, weighted by their item counts
        first = ~d.duplicated(["task", "item"]).to_numpy()
        units = dict(task=cluster_task, weight=np.bincount(ci[first], minlength=n_clusters).astype(np.float64),
                     item=None, cluster=np.arange(n_clusters))
    return obs, observed, size, units, _precision_ratios(y, np.ones_like(y), mi, ti, M, T, nested), tuple(notes)


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


NOTE_PARAMETRISATION = NoteKind("bayes.parametrisation", "info", "parametrisation: {text}")


def _resolve_centred(parametrization, info):
    """Level -> centred (bool), and a note naming the choice."""
    parametrization = check_choice(parametrization, ("auto", "centered", "non-centered"), "parametrization")
    if parametrization == "auto":
        centred = {lv: bool(x >= CENTRED_MIN_RATIO) for lv, x in info.items()}
    else:
        centred = {lv: parametrization == "centered" for lv in info}
    label = lambda flag: "centred" if flag else "non-centred"
    text = ", ".join(f"{lv.replace('_', ' x ')} {label(c)}" + (f" (ratio {info[lv]:.3g})"
                                                               if parametrization == "auto" else "")
                     for lv, c in centred.items())
    return centred, NOTE_PARAMETRISATION(text=text)


# --------------------------------------------------------------------------------------------- posterior
def _theta_logistic(eta, units, item_eff, cl_eff, n_tasks, chunk=64):
    """theta (D, M, T): mean over each task's units of expit(eta + unit offsets); eta (D, M, T)."""
    if units is None:
        return special.expit(eta)
    d = eta.shape[0]
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


def _predictive_probs(eta, var, chunk=256):
    """E_d[expit(eta + d)], d ~ N(0, var) per draw, by 24-node Gauss-Hermite quadrature; eta (D, M, T), var (D,).
    In blocks of draws, in place: the (D, M, T, 24) array at once took four times the CPU (memory traffic)."""
    nodes, hw = np.polynomial.hermite_e.hermegauss(24)
    w, sd = hw / hw.sum(), np.sqrt(var)
    out = np.empty(eta.shape)
    for s in range(0, eta.shape[0], chunk):
        x = eta[s:s + chunk, ..., None] + sd[s:s + chunk, None, None, None] * nodes
        special.expit(x, out=x)
        out[s:s + chunk] = x @ w
    return out


NOTE_LOGISTIC_MODEL = NoteKind("bayes.logistic-model", "info", "logistic model with {levels} effects, {fit}")
NOTE_LOGISTIC_THETA = NoteKind("bayes.logistic-theta", "info", "theta = expected accuracy on the task's own items;"
                               " pred = accuracy on a new test set of the same size from the same item population")


def logistic(data, *, method="auto", item_effects=None, cluster_effects=None, parametrization="auto",
             num_warmup: int | None = None, num_samples: int = 1000, num_chains: int = 4, confidence_level=0.95,
             weights=None, group_weights=None, aggregate="mean", models=None, tasks=None, target_accept: float = 0.8,
             max_tree_depth: int = 8, rng=None) -> BayesResult:
    """Logistic model with model, task (shared difficulty), model x task, item and cluster effects.

    Parameters
    ----------
    data : ResultsTable or Counts
        Item-level binary scores (trials allowed: each is one Bernoulli observation of its item), or counts.
    method : {'auto', 'hmc', 'nuts', 'laplace'}
        How the posterior is computed. ``'hmc'``: HMC in coordinates whitened by the posterior's Gaussian
        approximation at its mode (:mod:`evalband.bayes.whitened_hmc`; exact draws, real chains, R-hat and ESS
        checked; on MMLU-Pro about 20 s without item effects and a few minutes with its 12,032 item effects).
        ``'nuts'``: NumPyro's NUTS in the model's own coordinates (the reference; about 2 min without item effects
        on MMLU-Pro, an hour with them). ``'laplace'``: independent draws from that Gaussian approximation, no MCMC
        (:mod:`evalband.bayes.laplace`; seconds; an approximation, with its own accuracy checks in the notes).
        ``'auto'`` (default): ``'hmc'`` where every level is informed (``HMC_MIN_EFFECTS``), refitted with
        ``'nuts'`` (and a note) when HMC's chains fail the convergence checks or the posterior has no mode to
        whiten at; ``'nuts'`` otherwise. So the default's draws always come from chains that passed (or warn).
    item_effects : bool, optional
        Item (IRT-like difficulty) effects. ``None`` (default): on for item-level data with at most
        ``ITEM_EFFECTS_MAX_ITEMS`` (2,000) distinct (task, item) pairs, off above it (a note in ``result.notes``
        says so; pass ``item_effects=True`` to force them). Always off for counts and summary data.
        Without item effects every Bernoulli observation in a (model, task, cluster) cell has the same
        probability, so the model is fitted, exactly, on one Binomial(n_cell, p_cell) term per cell.
    cluster_effects : bool, optional
        Cluster effects; default on when the data have clusters.
    parametrization : {'auto', 'centered', 'non-centered'}
        How each level's effects are sampled. ``'auto'`` (default) samples a level centred when the data inform
        its effects strongly (data precision times the effects' variance at least ``CENTRED_MIN_RATIO``) and
        non-centred otherwise; the notes say what was chosen.
    num_warmup, num_samples, num_chains : int
        Warm-up iterations and draws per chain (``'laplace'``: ``num_chains * num_samples`` independent draws, no
        warm-up). Default warm-up: 1000 for NUTS, ``HMC_WARMUP`` (400) for HMC. The NUTS default 4 x (1000 +
        1000) keeps the worst R-hat over hundreds of effects below 1.01 on the bundled examples.
    target_accept : float
        Mean acceptance probability the step size is tuned to (NUTS and HMC).
    max_tree_depth : int
        NUTS only: caps the cost per draw (2**depth gradient evaluations); raise it if the diagnostics say so.
    Other parameters are those of :func:`beta_binomial`.

    Returns
    -------
    BayesResult
        ``theta`` (D, M, T) is the model's expected accuracy on the task's items; ``inference_data`` holds the
        ArviZ fit (with ``theta`` and every level's sum-to-zero effects in its posterior); ``diagnostics`` per
        variable (R-hat, bulk and tail ESS) for the intercept, the scales, the effects and theta, with
        divergences in ``.attrs`` (``'laplace'``: the approximation's own checks instead); failed checks in
        ``warnings``.

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

    ``'hmc'`` and ``'laplace'`` code models, tasks, clusters and items in the order of their names, so the same
    seed gives the same draws whatever the order of the rows; ``'nuts'`` codes them as they first appear.

    References
    ----------
    Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. & Bürkner, P.-C. (2021). Rank-normalization, folding, and
    localization: an improved R-hat for assessing convergence of MCMC. Bayesian Analysis 16(2), 667-718.
    Papaspiliopoulos, O., Roberts, G. O. & Sköld, M. (2007). A general framework for the parametrization of
    hierarchical models. Statistical Science 22(1), 59-73.
    Betancourt, M. & Girolami, M. (2015). Hamiltonian Monte Carlo for hierarchical models. In Current Trends in
    Bayesian Methodology with Applications, 79-101.
    Beskos, A., Pinski, F. J., Sanz-Serna, J. M. & Stuart, A. M. (2011). Hybrid Monte Carlo on Hilbert spaces.
    Stochastic Processes and their Applications 121(10), 2201-2230.
    Rue, H., Martino, S. & Chopin, N. (2009). Approximate Bayesian inference for latent Gaussian models by using
    integrated nested Laplace approximations. JRSS B 71(2), 319-392.
    De Boeck, P. & Wilson, M. (2004). Explanatory Item Response Models. Springer.

    Examples
    --------
    >>> import evalband as eb
    >>> from evalband.bayes import logistic
    >>> res = logistic(eb.load_example("mmlu-pro"), rng=1)  # doctest: +SKIP
    >>> res.summary().head(3)  # doctest: +SKIP
    """
    method = check_choice(method, METHODS, "method")
    nuts_warmup = NUTS_WARMUP if num_warmup is None else None
    if num_warmup is None:
        from .whitened_hmc import HMC_WARMUP

        num_warmup = NUTS_WARMUP if method == "nuts" else HMC_WARMUP
    num_warmup, num_samples, num_chains, level, seed, gen = mcmc_options(num_warmup, num_samples, num_chains, rng,
                                                                         confidence_level)
    target_accept = check_probability(target_accept, "target_accept")
    if isinstance(data, ResultsTable):
        m_names = tuple(data.models if models is None else models)
        t_names = tuple(data.tasks if tasks is None else tasks)
        task_groups, table_notes = data.task_groups, data.notes
        if data.level == "item":
            check_names(m_names, data.models, "models")
            check_names(t_names, data.tasks, "tasks")
    else:
        counts, task_groups, table_notes = as_counts(data, models=models, tasks=tasks)
        data, m_names, t_names = counts, counts.models, counts.tasks
    if task_groups is not None:
        task_groups = {t: task_groups[t] for t in t_names}
    item_effects, item_note = _resolve_item_effects(data, m_names, t_names, item_effects)
    canonical = method != "nuts"  # names in sorted order: the draws do not depend on the order of the rows
    fit_m = tuple(sorted(m_names)) if canonical else m_names
    fit_t = tuple(sorted(t_names)) if canonical else t_names
    obs, observed, size, units, info, level_notes = _logistic_data(data, fit_m, fit_t, item_effects,
                                                                   cluster_effects, sort=canonical)
    centred, param_note = _resolve_centred(parametrization, info)
    if method != "laplace" or obs["item_index"] is not None:  # Laplace without item effects is NumPy alone
        # HMC and Laplace build their InferenceData on first use, and HMC needs JAX alone (NUTS, when 'auto' falls
        # back to it, imports NumPyro then)
        require_numpyro(num_chains, arviz=method == "nuts", load=method == "nuts")
    seed_fit = int(gen.integers(0, 2**31 - 1))
    # the fit's matrices are small (hundreds of rows): BLAS threads only contend with JAX's (and, on a busy
    # machine, made one 500 x 500 Cholesky factorisation take seconds instead of milliseconds)
    with single_threaded_blas():
        fitted, fit_notes, checks = fit(method, obs, fit_m, fit_t, centred, info, num_warmup=num_warmup,
                                        num_samples=num_samples, num_chains=num_chains, seed=seed_fit,
                                        target_accept=target_accept, max_tree_depth=max_tree_depth,
                                        nuts_warmup=nuts_warmup)
    post = posterior_in_order(fitted, fit_m, fit_t, m_names, t_names)
    order_m = [fit_m.index(x) for x in m_names]
    order_t = [fit_t.index(x) for x in t_names]
    m, t = len(m_names), len(t_names)
    flat = lambda name: post[name].reshape(-1, *post[name].shape[2:])
    eta = (flat("intercept")[:, None, None] + flat("model_effect")[:, :, None] + flat("task_effect")[:, None, :]
           + flat("model_task_effect"))  # in the order asked for
    cl_eff = flat("cluster_effect") if "cluster_effect" in post else None
    item_eff = flat("item_effect") if "item_effect" in post else None
    # theta averages over each task's own units, which are coded in the fitting order
    eta_fit = eta[:, np.argsort(order_m)][:, :, np.argsort(order_t)]
    theta = _theta_logistic(eta_fit, units, item_eff, cl_eff, t)[:, order_m][:, :, order_t]
    observed, size = observed[order_m][:, order_t], size[order_m][:, order_t]
    n_chains, n_draws = post["intercept"].shape[:2]
    post["theta"] = theta.reshape(n_chains, n_draws, m, t)
    idata = inference_data(fitted, post, m_names, t_names)
    # predictive: new items (and clusters) from the fitted populations, so Binomial(n, E_d[expit(eta + d)])
    var = np.zeros(eta.shape[0])
    for lv in ("item", "cluster"):
        if f"sigma_{lv}" in post:
            var = var + flat(f"sigma_{lv}") ** 2
    p_new = _predictive_probs(eta, var)
    pred_seed = int(gen.integers(0, 2**63 - 1))
    levels = tuple(lv for lv in LEVELS if f"sigma_{lv}" in post)
    if checks.get("method") == "laplace":
        from .laplace import laplace_diagnostics

        diag, warnings = laplace_diagnostics(checks, levels)
    else:
        checked = ["intercept", *(f"sigma_{lv}" for lv in levels), *(LEVELS[lv][0] for lv in levels), "theta"]
        stats = fitted.sample_stats if isinstance(fitted.sample_stats, dict) else idata.sample_stats
        diag, warnings = diagnose(SimpleNamespace(posterior=post, sample_stats=stats),
                                  [v for v in checked if v in post], known=checks.get("diagnostics"))
    agg, agg_name = make_aggregator(t_names, task_groups, aggregate=aggregate, weights=weights,
                                    group_weights=group_weights)
    names = {"model": "model", "task": "task", "model_task": "model x task", "cluster": "cluster", "item": "item"}
    notes = [NOTE_LOGISTIC_MODEL(levels=", ".join(names[lv] for lv in levels), fit=fit_notes[0]), param_note,
             NOTE_LOGISTIC_THETA(), *fit_notes[1:], *([item_note] if item_note else []), *level_notes,
             NOTE_AGGREGATE(aggregate=agg_name), *table_notes]
    return BayesResult(
        method="logistic", models=tuple(m_names), tasks=tuple(t_names), theta=theta,
        aggregate=agg(theta), observed=observed,
        observed_aggregate=np.asarray(agg(observed)), n=size, confidence_level=level,
        prior="weakly informative normal / half-normal (see evalband.bayes.logistic)", aggregate_name=agg_name,
        seed=seed, diagnostics=diag, inference_data=idata, task_groups=task_groups, aggregator=agg,
        task_weights=agg.weights if agg.name == "mean" else None, warnings=warnings, notes=tuple(notes),
        pred_seed=pred_seed, pred_probs=p_new,
    )
