"""The seed's Beta-Binomial hierarchy, sampled exactly (no MCMC).

    Y_ij | theta_ij     ~ Binomial(N_ij, theta_ij)
    theta_ij | a_i, b_i ~ Beta(a_i, b_i)            (each model i has its own distribution over tasks j)
    a_i, b_i            ~ prior                     (default Exponential(rate 1/10000) each)

Given (a_i, b_i) the theta_ij are conjugate, ``Beta(a_i + y_ij, b_i + N_ij - y_ij)``, and the posterior of
(a_i, b_i) is two-dimensional, so it is computed deterministically on an adaptive grid
(:mod:`evalband.bayes.grid`) and sampled independently: the draws have no autocorrelation, no burn-in and no
convergence to check, only the grid's refinement shift (reported).
"""

from __future__ import annotations


import numpy as np

from .._validate import (ArgumentError, as_generator, check_choice, check_confidence_level, check_names,
                         check_positive_int)
from ..data.table import Counts, ResultsTable
from .clusters import (CLUSTER_MODES, DesignEffects, design_effects, effective_counts,
                       ignored_clusters_warning, summarize_by_task, width_factor)
from .grid import fit_grid
from .posterior import BayesResult, make_aggregator
from .priors import parse_prior
from ..display.notes import NoteKind
from .._words import concat, words

__all__ = ["beta_binomial", "as_counts"]

#: a refinement shift above this (in posterior sds) earns a warning
SHIFT_TOLERANCE = 0.01
#: what ``clusters=None`` means
DEFAULT_CLUSTERS = "ignore"


def as_data(data):
    """``data`` as a ResultsTable or Counts: a Counts as is, anything else through :func:`evalband.select` (as
    ``estimate``, ``compare`` and ``rank`` take it)."""
    if isinstance(data, Counts):
        return data
    from ..selection import select

    return select(data).table


def as_counts(data, *, models=None, tasks=None) -> tuple[Counts, dict | None, tuple[str, ...]]:
    """Counts (M, T) from a Selection or ResultsTable (item-level binary, or summary), a Counts, or anything
    :func:`evalband.select` accepts; with task groups and notes."""
    if isinstance(data, Counts):
        if models is not None or tasks is not None:
            mi = [data.models.index(m) for m in check_names(models, data.models, "models")]
            ti = [data.tasks.index(t) for t in check_names(tasks, data.tasks, "tasks")]
            data = Counts(tuple(data.models[i] for i in mi), tuple(data.tasks[j] for j in ti),
                          data.correct[np.ix_(mi, ti)], data.n[np.ix_(mi, ti)])
        return data, None, ()
    from ..selection import select

    sel = select(data, models=models, tasks=tasks)
    return sel.table.counts(), sel.task_groups, sel.all_notes


def _selection(data, *, models, tasks, weights, group_weights):
    """``(counts, task_groups, table, weights, notes)``: the selection of a Bayesian fit. A table goes through
    :func:`evalband.select` with the rule of compare and rank for tasks some model lacks (each model is counted on
    its own items, so a task on which the models share no item is kept); a Counts is selected on its labels."""
    from ..selection import select, selection_of_labels

    if isinstance(data, Counts):
        sel, mi, ti = selection_of_labels(data.models, data.tasks, None, select_models=models, select_tasks=tasks,
                                          weights=weights, group_weights=group_weights)
        counts = Counts(sel.models, sel.tasks, data.correct[np.ix_(mi, ti)], data.n[np.ix_(mi, ti)])
        return counts, None, None, sel.weights, sel.notes, ()
    sel = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights, complete=True,
                 shared_items=False)
    table = sel.table
    return table.counts(), sel.task_groups, table, sel.weights, sel.notes, tuple(table.notes)


def _cluster_mode(data, clusters, models, tasks) -> tuple[str, DesignEffects | None]:
    """The resolved ``clusters`` mode and, for item data with clusters, their design effects."""
    mode = DEFAULT_CLUSTERS if clusters is None else check_choice(clusters, CLUSTER_MODES, "clusters")
    has = isinstance(data, ResultsTable) and data.level == "item" and data.has_clusters
    if not has:
        if mode == "effective" and clusters is not None:  # asked for explicitly
            raise ArgumentError(words("`{arg:clusters='effective'}` needs item-level data with a cluster column (--cluster COL); this input has none."))
        return mode, None
    return mode, design_effects(data, models=models, tasks=tasks)


def _groups(table, tasks):
    groups = table.task_groups
    if groups is None:
        return None
    keep = tasks if tasks is not None else table.tasks
    return {t: groups[t] for t in keep}


NOTE_CLUSTERS_EACH_COUNT_SIZE = NoteKind(
    'bayes.clusters-each-count-size', 'info',
    "clusters: each count and size divided by its (model, task) design effect, (correct, n) -> (correct, n) / "
    "deff (Rao & Scott 1992), so the binomial variance matches the cluster-robust one; design effect per task, "
    "median over models: {value}. The posterior is that of these effective counts (approximate): heavily "
    "clustered tasks weigh less and shrink more toward the model's mean; n in the task summary is the effective "
    "size, and pred is for a new test set clustered like this one")
NOTE_CLUSTERS_IGNORED_ITEMS_TREATED = NoteKind('bayes.clusters-ignored-items-treated', 'excluded',
                                                'clusters ignored: items treated as independent (see the warning)')


#: what the exact Beta-Binomial posterior rests on
NOTE_CLUSTERS = NoteKind("bayes.clusters", "info", "clusters: {note}")
NOTE_EXACT_GRID = NoteKind(
    "bayes.exact-grid", "info", "exact Beta-Binomial posterior on a {grid_size} x {grid_size} grid per model; refining"
    " the grid moves posterior means by at most {worst:.2g} posterior sd; the grid's edges lie at least {edge:.3g}"
    " below the maximum log density")
NOTE_PRIOR = NoteKind("bayes.prior", "info", "prior on each model's alpha and beta: {prior}")
NOTE_AGGREGATE = NoteKind("bayes.aggregate", "info", "aggregate: {aggregate}")
NOTE_INTERVALS_KINDS = NoteKind(
    "bayes.interval-kinds", "info", "ci = equal-tailed credible interval of the true accuracy; hdi = highest-density"
    " interval; pred = posterior predictive interval of the accuracy on a new test set of the same sizes (wider; what"
    " published Bayesian analyses report)")


def beta_binomial(data, *, prior=None, n_draws: int = 10_000, confidence_level=0.95, weights=None,
                  group_weights=None, aggregate: str = "mean", models=None, tasks=None, grid_size: int = 96,
                  clusters: str | None = None, rng=None) -> BayesResult:
    """Exact posterior draws of the Beta-Binomial hierarchy for every model, task and aggregate.

    Parameters
    ----------
    data : Selection, ResultsTable, Counts, DataFrame or path
        Summary input, or item-level binary scores (counted per model and task with ``table.counts()``);
        anything :func:`evalband.select` accepts, as in ``estimate``, ``compare`` and ``rank``.
    prior : Prior, str or callable, optional
        Prior on each (alpha_i, beta_i): default ``exponential(rate=1e-4)``; text such as ``'half-normal:100'``
        or ``'gamma:2,0.01'``; or a log density ``f(alpha, beta)``. See :mod:`evalband.bayes.priors`.
    n_draws : int
        Independent posterior draws.
    confidence_level : float or str
        Level of the credible and predictive intervals.
    weights, group_weights : optional
        Task weights (a mapping naming every task, or one per task) and/or group weights ('equal' or a mapping
        group -> weight, shared by each group's tasks) of the aggregate. Default: unweighted mean over tasks.
    aggregate : str or callable
        'mean' (weighted), or any aggregate :func:`evalband.aggregate.get_aggregate` knows (geometric,
        minmax, mean-rank, ...), applied to every posterior draw of theta.
    models, tasks : sequence of str, optional
        Restrict the analysis. A task that some selected model has no result on is left out, with a note (as in
        ``compare`` and ``rank``), unless named in ``tasks``, which is then an error.
    grid_size : int
        Cells per axis of each model's (alpha, beta) grid.
    clusters : {None, 'ignore', 'effective'}
        Item-level data with a cluster column only. 'ignore': count items as independent (the seed's model),
        with a note giving the design effects. 'effective': divide each (model, task) count and size by its
        estimated design effect (Rao & Scott 1992; :func:`evalband.bayes.clusters.design_effects`), so each task
        weighs what its clusters are worth. None (default): 'ignore' with a warning in ``result.warnings``
        quantifying the design effect per task. 'effective' on data without clusters is an error.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BayesResult
        Draws of theta (D, M, T), predictive accuracies, aggregates and alpha/beta; ``.summary()``, ``.pairs()``,
        ``.rank_probabilities()``, ``.task_summary()``.

    Notes
    -----
    Valid for binary scores (counts of correct answers) with items exchangeable within a task; item-level
    correlation between models (the same items) is not modelled, so pairwise differences are those of
    independent test sets, as with summary input. Shrinkage of each theta_ij toward the model's mean over tasks
    is the model's assumption: it narrows small-N tasks' intervals, and its strength is set by the posterior of
    alpha + beta, which the prior influences when there are few tasks (run :func:`prior_sensitivity`). The
    seed's default Exponential(rate 1/10000) is not neutral about it: alpha + beta then has prior mean 20,000,
    which favours strong pooling; with a handful of tasks it can decide a comparison the data alone leave open
    (or shrink away a small-N task's difference), and the weaker alternatives in :func:`prior_sensitivity` show
    it. The
    grid's accuracy is checked by recomputing on a grid half as fine (``result.grid.refinement_shift``).

    Clustered items (passages, documents, sub-sources) are correlated, so the binomial likelihood overstates
    what a task's items are worth and the intervals are too narrow by about the square root of the design effect
    (Kish 1965): ``clusters='effective'`` corrects this with Rao-Scott effective counts. In a seeded simulation
    (6 tasks of 30 clusters of 10 items, intra-cluster correlation 0.15, 400 models; tests/bayes/test_clusters.py)
    the 95% credible interval of each model's mean over tasks covered the truth 81% of the time with clusters
    ignored and 94.5% with effective counts (88% with 10 clusters per task). The correction is an approximation (the posterior of the effective
    counts, a pseudo-likelihood): the design effects are estimated, roughly with fewer than about 30 clusters per
    task and poorly below 10 (a warning says so); they narrow the counts of heavily clustered tasks, which then
    shrink more toward the model's mean, so posterior means can move too. ``result.n`` then holds the effective
    sizes (the predictive interval is for a new test set clustered like this one). It is off by default so that
    the default fit stays the seed's exact model; with clusters the warning says by how much it is too narrow.

    References
    ----------
    Longjohn, R., Gopalan, G. & Casleton, E. (2025). Statistical uncertainty quantification for aggregate
    performance metrics in machine learning benchmarks. arXiv:2501.04234.
    Gelman, A. et al. (2013). Bayesian Data Analysis, 3rd ed., section 5.3.
    Kish, L. (1965). Survey Sampling. Wiley, section 5.4.
    Rao, J. N. K. & Scott, A. J. (1992). A simple method for the analysis of clustered binary data. Biometrics
    48(2), 577-585.

    Examples
    --------
    >>> import evalband as eb
    >>> fit = eb.beta_binomial(eb.load_example("vtab"), n_draws=500, models=["Exemplar", "VAE"], rng=0)
    >>> list(fit.to_frame()["model"][:2])
    ['Exemplar', 'VAE']
    """
    counts, task_groups, table, weights, left_notes, table_notes = _selection(
        data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
    mode, effects = _cluster_mode(table, clusters, None, None)
    prior = parse_prior(prior)
    n_draws = check_positive_int(n_draws, "n_draws")
    grid_size = check_positive_int(grid_size, "grid_size", minimum=16)
    grid_size += grid_size % 2
    level = check_confidence_level(confidence_level)
    seed = rng if isinstance(rng, (int, np.integer)) else None
    gen = as_generator(rng)
    agg, agg_name = make_aggregator(counts.tasks, task_groups, aggregate=aggregate, weights=weights)
    cluster_warnings, cluster_notes = [], []
    if effects is not None and mode == "effective":
        counts = effective_counts(counts, effects)
        cluster_notes.append(
            NOTE_CLUSTERS_EACH_COUNT_SIZE(value=summarize_by_task(effects)))
        cluster_warnings += [concat(words("{arg:clusters='effective'} rests on estimated design effects: "), note)
                             for note in effects.notes]
    elif effects is not None:
        factor = (width_factor(effects, counts, agg.weights)
                  if agg.name == "mean" and agg.weights is not None else None)
        message = ignored_clusters_warning(effects, factor)
        if clusters is None:  # the default: warn; an explicit clusters='ignore' is a choice, noted
            cluster_warnings.append(message)
            cluster_notes.append(NOTE_CLUSTERS_IGNORED_ITEMS_TREATED())
        else:
            cluster_notes.append(ignored_clusters_warning(effects, factor, chosen=True))
        cluster_notes += [NOTE_CLUSTERS(note=note) for note in effects.notes]
    y, n = counts.correct, counts.n
    grid = fit_grid(y, n, prior, size=grid_size)
    alpha, beta = grid.sample(n_draws, gen)
    # Beta(A, B) as G_A / (G_A + G_B) with standard gammas: the same distribution as Generator.beta, faster
    g_a = gen.standard_gamma(alpha[:, :, None] + y)
    g_b = gen.standard_gamma(beta[:, :, None] + (n - y))
    theta = g_a / (g_a + g_b)
    del g_a, g_b
    pred_seed = int(gen.integers(0, 2**63 - 1))  # predictive draws are made on first use, from this seed
    observed = y / n
    warnings = list(cluster_warnings)
    for i in np.flatnonzero(grid.at_limit):
        warnings.append(f"model '{counts.models[i]}': the posterior of (alpha, beta) reaches the grid's hard limit"
                        f" (log(alpha+beta) in [{grid.u_range[i, 0]:.3g}, {grid.u_range[i, 1]:.3g}],"
                        f" logit mean in [{grid.v_range[i, 0]:.3g}, {grid.v_range[i, 1]:.3g}]); the prior may be"
                        " improper or the data degenerate (all correct or all wrong)")
    worst = float(grid.refinement_shift.max())
    if worst > SHIFT_TOLERANCE:
        warnings.append(f"refining the grid moved a posterior mean by {worst:.3g} posterior sd; raise grid_size")
    edge = float(grid.edge_drop[~grid.at_limit].min()) if (~grid.at_limit).any() else float("nan")
    notes = [NOTE_EXACT_GRID(grid_size=grid_size, worst=worst, edge=edge),
             NOTE_PRIOR(prior=prior.label),
             NOTE_AGGREGATE(aggregate=agg_name),
             *left_notes,
             NOTE_INTERVALS_KINDS(),
             *cluster_notes, *table_notes]
    return BayesResult(
        method="beta-binomial", models=counts.models, tasks=counts.tasks, theta=theta,
        aggregate=agg(theta), observed=observed,
        observed_aggregate=np.asarray(agg(observed)), n=n, confidence_level=level, prior=prior.label,
        aggregate_name=agg_name, seed=seed, alpha=alpha, beta=beta, grid=grid, task_groups=task_groups,
        aggregator=agg, task_weights=agg.weights if agg.name == "mean" else None, warnings=tuple(warnings), notes=tuple(notes),
        pred_seed=pred_seed,
    )
