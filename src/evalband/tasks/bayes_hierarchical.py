"""Hierarchical Bayesian comparison of two models over tasks from item-level results (needs the bayes extra).

The signed-rank test sees one number per task and ignores how precisely it is known. The hierarchical model
(after Corani, Benavoli, Demsar, Mangili & Zaffalon 2017, adapted from cross-validation folds to test items) uses
each task's paired item-level differences:

    dbar_t ~ Normal(delta_t, se_t)                  observed mean difference of task t and its standard error
    delta_t ~ StudentT(nu, delta_0, sigma_0)        true difference of task t, from a population of tasks
    delta_0 ~ Uniform(-B, B), sigma_0 ~ Uniform(0, B), nu ~ Gamma(2, 0.1) truncated to [1, inf)

with B the largest possible difference (1 for scores in [0, 1]). For each posterior draw, the difference on a
*new* task, delta_new ~ StudentT(nu, delta_0, sigma_0), falls left of, inside or right of the ROPE with
probabilities given by the t CDF; their posterior means are P(B better), P(equivalent), P(A better), and the draws
are points on the simplex as for the signed-rank test.
"""

from __future__ import annotations


import numpy as np
from scipy import stats

from .._validate import ArgumentError, as_generator, check_confidence_level, check_positive_int
from ..bayes.numpyro_models import require_numpyro
from .bayes_signedrank import BayesSignedRankResult, _check, _decide
from ..display.notes import NoteKind

__all__ = ["hierarchical_bayes", "task_differences"]


NOTE_SUMMARY_LEVEL_STANDARD_ERRORS = NoteKind(
    'tasks.summary-level-standard-errors', 'caveat',
    'summary level: standard errors assume independent test sets (pairing unknown)')


def task_differences(table, model_a: str, model_b: str, *, tasks=None):
    """Per-task mean paired difference a - b and its standard error from a ResultsTable.

    Item level: on each task's common items (trials averaged), se = sd / sqrt(n). Summary level: independent
    binomial se sqrt(p_a (1 - p_a) / n_a + p_b (1 - p_b) / n_b) (the pairing is unknown).

    Returns
    -------
    (dbar, se, tasks, notes)

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import evalband as eb
    >>> from evalband.tasks import task_differences
    >>> df = pd.DataFrame({"model": ["A"] * 8 + ["B"] * 8, "task": (["t1"] * 4 + ["t2"] * 4) * 2,
    ...                    "item": list("abcdefgh") * 2,
    ...                    "score": [1, 1, 0, 1, 1, 0, 1, 1] + [0, 1, 0, 1, 1, 0, 0, 0]})
    >>> dbar, se, tasks, notes = task_differences(eb.read(df), "A", "B")
    >>> tasks, np.round(dbar, 3), np.round(se, 3)
    (('t1', 't2'), array([0.25, 0.5 ]), array([0.25 , 0.289]))
    """
    from .._validate import check_names

    check_names([model_a, model_b], table.models, "models")
    tasks = check_names(tasks, table.tasks, "tasks")
    notes = []
    if table.level == "summary":
        c = table.counts(models=[model_a, model_b], tasks=tasks)
        p = c.correct / c.n
        dbar = p[0] - p[1]
        se = np.sqrt(p[0] * (1 - p[0]) / c.n[0] + p[1] * (1 - p[1]) / c.n[1])
        notes.append(NOTE_SUMMARY_LEVEL_STANDARD_ERRORS())
        return dbar, se, tuple(tasks), notes
    dbar, se = np.empty(len(tasks)), np.empty(len(tasks))
    for j, t in enumerate(tasks):  # tasks (tens), not items or replicates
        td = table.task_data(t, models=[model_a, model_b])
        d = td.scores[0] - td.scores[1]
        dbar[j] = d.mean()
        se[j] = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
    return dbar, se, tuple(tasks), notes


NOTE_NUTS_CHAIN_S_X = NoteKind(
    'tasks.nuts-chain-s-x', 'info',
    'NUTS: {num_chains} chain(s) x {num_samples} draws; max R-hat {rhat:.3f}, min ESS {ess:.0f}')
NOTE_TASK_S_WITHOUT_MEAN = NoteKind('tasks.task-s-without-mean', 'excluded',
                                     '{value} task(s) without a mean difference and standard error dropped')
NOTE_R_HAT_ABOVE_CHAINS = NoteKind('tasks.r-hat-above-chains', 'caveat',
                                    'R-hat above 1.01: the chains have not mixed; raise num_warmup/num_samples')


def hierarchical_bayes(dbar, se, *, rope: float = 0.0, bound: float = 1.0, num_warmup: int = 1000,
                       num_samples: int = 2000, num_chains: int = 2, confidence_level=0.95, rng=None,
                       names=("a", "b"), tasks=None) -> BayesSignedRankResult:
    """Hierarchical Bayesian comparison of two models from per-task mean differences and standard errors.

    Parameters
    ----------
    dbar, se : array_like, shape (n_tasks,)
        Mean paired difference a - b on each task and its standard error (see :func:`task_differences`).
        A zero standard error is raised to 1e-6 * bound (a task where the models never differ).
    rope : float, default 0
        Half-width of the region of practical equivalence.
    bound : float, default 1
        Largest possible |difference| (1 for scores in [0, 1]); sets the uniform priors' ranges.
    num_warmup, num_samples, num_chains : int
        NUTS settings (numpyro).
    confidence_level : float, default 0.95
        Posterior probability needed for a decision.
    rng : None or int
        Seed of the JAX random key (drawn from a NumPy generator when not an int).
    names : (str, str)
    tasks : sequence of str, optional

    Returns
    -------
    BayesSignedRankResult
        ``samples`` are per-draw (P(a better), P(equivalent), P(b better)) on a new task; ``notes`` give the
        largest R-hat and the smallest effective sample size of (delta_0, sigma_0, nu).

    Notes
    -----
    Valid when item-level differences within a task are independent (no clusters) so that se_t is right, and
    tasks are exchangeable. Each task's mean is treated as normal (central limit theorem over its items). With
    few tasks the posterior of nu stays near its prior; the ROPE probabilities are then prior-sensitive.

    References
    ----------
    Corani, G., Benavoli, A., Demsar, J., Mangili, F. & Zaffalon, M. (2017). Statistical comparison of
    classifiers through Bayesian hierarchical modelling. Machine Learning 106, 1817-1837.
    Benavoli, A., Corani, G., Demsar, J. & Zaffalon, M. (2017). JMLR 18(77), 1-36, section 5.

    Examples
    --------
    Six tasks on which model a leads by 1 to 6 points, each difference known to about 1 point (short chains to
    keep the example quick; the defaults are longer):

    >>> from evalband.tasks import hierarchical_bayes
    >>> res = hierarchical_bayes([0.04, 0.02, 0.05, 0.03, 0.01, 0.06], [0.01] * 6, rope=0.01, num_warmup=100,
    ...                          num_samples=200, num_chains=1, rng=0)
    >>> frame = res.to_frame()
    >>> frame[["model_a", "model_b", "n_tasks", "decision"]]
      model_a model_b  n_tasks         decision
    0       a       b        6  not yet decided
    >>> float(frame[["prob_a_better", "prob_equivalent", "prob_b_better"]].sum(axis=1).round(9).iloc[0])
    1.0
    >>> bool(frame["prob_a_better"].iloc[0] > frame["prob_b_better"].iloc[0])
    True
    """
    rope, _, _ = _check(rope, 1.0, 1)
    level = check_confidence_level(confidence_level)
    num_warmup = check_positive_int(num_warmup, "num_warmup")
    num_samples = check_positive_int(num_samples, "num_samples")
    num_chains = check_positive_int(num_chains, "num_chains")
    dbar = np.asarray(dbar, dtype=float)
    se = np.asarray(se, dtype=float)
    if dbar.ndim != 1 or dbar.shape != se.shape or dbar.size < 2:
        raise ArgumentError(f"`dbar` and `se` must be 1-D of one length >= 2; got shapes {dbar.shape}, {se.shape}.")
    keep = np.isfinite(dbar) & np.isfinite(se)
    notes = []
    if (~keep).any():
        notes.append(NOTE_TASK_S_WITHOUT_MEAN(value=int((~keep).sum())))
    dbar, se = dbar[keep], np.maximum(se[keep], 1e-6 * bound)
    if np.any(np.abs(dbar) > bound):
        raise ArgumentError(f"`dbar` holds a difference larger than `bound` = {bound:g}; raise `bound`.")
    numpyro = require_numpyro(num_chains, what="the hierarchical test", arviz=False)
    import jax
    import jax.numpy as jnp
    import numpyro.distributions as dist
    from numpyro.diagnostics import summary
    from numpyro.infer import MCMC, NUTS

    def model(dbar, se):
        delta0 = numpyro.sample("delta0", dist.Uniform(-bound, bound))
        sigma0 = numpyro.sample("sigma0", dist.Uniform(0.0, bound))
        nu = numpyro.sample("nu", dist.TruncatedGamma(2.0, 0.1, low=1.0))
        with numpyro.plate("task", dbar.shape[0]):
            # non-centred: delta_t = delta0 + sigma0 * z_t, z_t ~ t(nu)
            z = numpyro.sample("z", dist.StudentT(nu, 0.0, 1.0))
            numpyro.sample("obs", dist.Normal(delta0 + sigma0 * z, se), obs=dbar)

    seed = int(rng) if isinstance(rng, (int, np.integer)) else int(as_generator(rng).integers(2 ** 31))
    method = "parallel" if jax.local_device_count() >= num_chains else "sequential"
    mcmc = MCMC(NUTS(model, target_accept_prob=0.9), num_warmup=num_warmup, num_samples=num_samples,
                num_chains=num_chains, chain_method=method, progress_bar=False)
    mcmc.run(jax.random.PRNGKey(seed), dbar=jnp.asarray(dbar), se=jnp.asarray(se))
    grouped = mcmc.get_samples(group_by_chain=True)
    diag = summary({k: np.asarray(grouped[k]) for k in ("delta0", "sigma0", "nu")})
    rhat = max(float(v["r_hat"]) for v in diag.values())
    ess = min(float(v["n_eff"]) for v in diag.values())
    notes.append(NOTE_NUTS_CHAIN_S_X(num_chains=num_chains, num_samples=num_samples, rhat=rhat, ess=ess))
    if rhat > 1.01 * (1 + 0.02 * (num_chains == 1)):
        notes.append(NOTE_R_HAT_ABOVE_CHAINS())
    post = mcmc.get_samples()
    d0 = np.asarray(post["delta0"], dtype=float)
    s0 = np.asarray(post["sigma0"], dtype=float)
    nu = np.asarray(post["nu"], dtype=float)
    right = stats.t.sf(rope, nu, loc=d0, scale=s0)
    left = stats.t.cdf(-rope, nu, loc=d0, scale=s0)
    samples = np.column_stack([right, np.clip(1 - right - left, 0, 1), left])
    p = samples.mean(axis=0)
    task_names = tuple(np.asarray(tasks, dtype=object)[keep]) if tasks is not None else ()
    return BayesSignedRankResult(str(names[0]), str(names[1]), float(p[0]), float(p[1]), float(p[2]), samples,
                                 rope, np.nan, int(keep.sum()), _decide(p[0], p[1], p[2], level), level,
                                 task_names, notes=tuple(notes))
