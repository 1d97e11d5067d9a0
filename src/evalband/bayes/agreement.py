"""Bootstrap, analytic and Bayesian intervals side by side, for every model and every pair, flagging verdicts
that disagree.

The three answer slightly different questions. The bootstrap (percentile) and the analytic normal interval
describe the sampling variability of the observed aggregate with every task taken at face value; the
hierarchical model's credible interval describes the true aggregate after shrinking each task's accuracy toward
the model's mean over tasks. They differ most where tasks are small (shrinkage narrows and moves small-N tasks)
and where there are few tasks (the prior then matters). A disagreement in a verdict is a finding to report, not
an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, InputError, MissingExtraError, as_generator, check_positive_int
from ..data.table import ResultsTable
from .exact import as_counts, as_data
from .intervals import equal_tailed, pair_indices, verdict
from .posterior import BayesResult
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["Agreement", "compare_with_bootstrap"]


@displayed


@dataclass(frozen=True, repr=False)
class Agreement:
    """Side-by-side intervals.

    Attributes
    ----------
    models : pandas.DataFrame
        model, observed, boot_low, boot_high, analytic_low, analytic_high, bayes_mean, bayes_low, bayes_high,
        pred_low, pred_high, width_ratio (Bayes credible width / bootstrap width).
    pairs : pandas.DataFrame
        model_a, model_b, observed, boot_low, boot_high, boot_verdict, analytic_low, analytic_high,
        analytic_verdict, bayes_mean, bayes_low, bayes_high, bayes_verdict, disagree.
    notes : tuple of str
    """

    models: pd.DataFrame
    pairs: pd.DataFrame
    notes: tuple = ()

    @property
    def disagreements(self) -> int:
        """Number of pairs whose Bayesian verdict differs from the bootstrap's."""
        return int(self.pairs["disagree"].sum())

    def to_frame(self) -> pd.DataFrame:
        return self.pairs


def _bootstrap_replicates(data, models, tasks, n_resamples, rng):
    """(B, M, T) replicate accuracies and a note, from the engine (evalband.resample)."""
    try:
        from ..resample import bootstrap
    except ImportError as exc:  # the engine is a sibling module; say so rather than fake it
        raise MissingExtraError("compare_with_bootstrap needs evalband.resample (the bootstrap engine), which is not"
                          " importable here; pass `replicates=` explicitly") from exc
    if not isinstance(data, ResultsTable):
        counts = data
        frame = pd.DataFrame({"model": np.repeat(counts.models, len(counts.tasks)),
                              "task": np.tile(counts.tasks, len(counts.models)),
                              "n": counts.n.ravel().astype(np.int64),
                              "correct": counts.correct.ravel().astype(np.int64)})
        data = ResultsTable.from_summary(frame, source="<Counts>")
    try:
        return bootstrap(data, n_resamples=n_resamples, rng=rng, models=list(models), tasks=list(tasks))
    except InputError as exc:  # the models share no item of some task: they cannot be paired there
        if "share no item" not in str(exc):
            raise
        return bootstrap(data, resampling="independent", n_resamples=n_resamples, rng=rng, models=list(models),
                         tasks=list(tasks))


NOTE_BOOTSTRAP_PERCENTILE_INTERVALS_FROM = NoteKind(
    'bayes.bootstrap-percentile-intervals-from', 'info',
    'bootstrap: percentile intervals from {value:,} replicates ({resampling} resampling)')
NOTE_ANALYTIC_INTERVAL_TREATS_ITEMS = NoteKind(
    'bayes.analytic-interval-treats-items', 'caveat',
    'the analytic interval treats items as independent (too narrow with clustered items); the bootstrap '
    'resamples whole clusters')
NOTE_ANALYTIC_INTERVAL_NOT_SHOWN = NoteKind('bayes.analytic-interval-not-shown', 'caveat',
                                             'analytic interval not shown: the aggregate is not a weighted mean')
NOTE_PAIR_S_WHERE_BAYESIAN = NoteKind(
    'bayes.pair-s-where-bayesian', 'info',
    "{value} pair(s) where the Bayesian verdict differs from the bootstrap's: typically small-N tasks, where "
    "shrinkage toward the model's mean matters")


def compare_with_bootstrap(data, result: BayesResult, *, replicates=None, n_resamples: int = 10_000,
                           rng=None) -> Agreement:
    """Bootstrap (percentile), analytic (normal) and Bayesian credible intervals for every model and pair.

    Parameters
    ----------
    data : ResultsTable, Counts, DataFrame or path
        The data ``result`` was fitted to (a DataFrame or path goes through :func:`evalband.read`).
    result : BayesResult
        A fit from :func:`beta_binomial` (its aggregate is applied to the bootstrap replicates alike).
    replicates : Replicates, optional
        Bootstrap replicates (an object with ``replicates`` (B, M, T) and ``resampling``) from
        :func:`evalband.resample.bootstrap`; drawn with ``n_resamples`` and ``rng`` when omitted.

    Returns
    -------
    Agreement
        ``.models``, ``.pairs`` (with ``disagree`` flags) and ``.disagreements``.

    Notes
    -----
    The analytic interval is the normal (Wald) interval of the weighted mean of independent binomial
    proportions, ``sum_j w_j**2 p_j (1 - p_j) / n_j``, and for a pair the sum of both variances (independent test
    sets); it is shown only for weighted-mean aggregates. All three use ``result.confidence_level``.

    References
    ----------
    Longjohn, R., Gopalan, G. & Casleton, E. (2025). arXiv:2501.04234 (bootstrap and Bayesian hierarchical
    intervals compared on VTAB).

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("vtab")
    >>> fit = eb.beta_binomial(table, n_draws=300, models=["Exemplar", "VAE"], rng=0)
    >>> agreement = eb.compare_with_bootstrap(table, fit, n_resamples=200, rng=0)
    >>> type(agreement).__name__
    'Agreement'
    """
    data = as_data(data)
    counts, _, _ = as_counts(data, models=list(result.models), tasks=list(result.tasks))
    level = result.confidence_level
    notes = []
    if isinstance(data, ResultsTable) and data.level == "item" and data.has_clusters:
        notes.append(NOTE_ANALYTIC_INTERVAL_TREATS_ITEMS())
    if replicates is None:
        n_resamples = check_positive_int(n_resamples, "n_resamples")
        replicates = _bootstrap_replicates(data, result.models, result.tasks, n_resamples, as_generator(rng))
    reps = np.asarray(replicates.replicates, dtype=np.float64)
    if reps.shape[1:] != counts.correct.shape:
        raise ArgumentError(f"`replicates` must be shaped (B, {counts.correct.shape[0]}, {counts.correct.shape[1]})"
                         f" like the fit; got {reps.shape}.")
    notes.append(NOTE_BOOTSTRAP_PERCENTILE_INTERVALS_FROM(value=reps.shape[0], resampling=replicates.resampling))
    agg = result.aggregator
    boot = agg(reps)  # (B, M)
    observed = np.asarray(agg(counts.correct / counts.n))
    blo, bhi = equal_tailed(boot, level)
    z = stats.norm.ppf((1 + level) / 2)
    p = counts.correct / counts.n
    w = result.task_weights
    if w is not None:
        var = (p * (1 - p) / counts.n) @ (w**2)
    else:
        var = np.full(observed.shape, np.nan)
        notes.append(NOTE_ANALYTIC_INTERVAL_NOT_SHOWN())
    s = result.summary()
    models = pd.DataFrame({
        "model": list(result.models), "observed": observed, "boot_low": blo, "boot_high": bhi,
        "analytic_low": observed - z * np.sqrt(var), "analytic_high": observed + z * np.sqrt(var),
        "bayes_mean": s["posterior_mean"].to_numpy(), "bayes_low": s["ci_low"].to_numpy(),
        "bayes_high": s["ci_high"].to_numpy(), "pred_low": s["pred_low"].to_numpy(),
        "pred_high": s["pred_high"].to_numpy(),
        "width_ratio": (s["ci_high"].to_numpy() - s["ci_low"].to_numpy()) / (bhi - blo),
    })
    a, b = pair_indices(len(result.models))
    names = np.array(result.models, dtype=object)
    d_obs = observed[a] - observed[b]
    dlo, dhi = equal_tailed(boot[:, a] - boot[:, b], level)
    dse = np.sqrt(var[a] + var[b])
    pr = result.pairs()
    hib = result.higher_is_better
    bv = verdict(dlo, dhi, higher_is_better=hib)
    av = verdict(d_obs - z * dse, d_obs + z * dse, higher_is_better=hib) if w is not None else np.full(a.shape, "")
    yv = pr["verdict"].to_numpy()
    pairs = pd.DataFrame({
        "model_a": names[a], "model_b": names[b], "observed": d_obs,
        "boot_low": dlo, "boot_high": dhi, "boot_verdict": bv,
        "analytic_low": d_obs - z * dse, "analytic_high": d_obs + z * dse, "analytic_verdict": av,
        "bayes_mean": pr["posterior_mean"].to_numpy(), "bayes_low": pr["ci_low"].to_numpy(),
        "bayes_high": pr["ci_high"].to_numpy(), "bayes_verdict": yv, "disagree": bv != yv,
    })
    if pairs["disagree"].any():
        notes.append(NOTE_PAIR_S_WHERE_BAYESIAN(value=int(pairs['disagree'].sum())))
    return Agreement(models, pairs, tuple(notes))
