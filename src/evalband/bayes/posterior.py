"""The result of a Bayesian fit: posterior draws of every theta_ij and of each model's aggregate, with summaries.

Two kinds of interval are reported and must not be confused:

* **credible interval** (``ci_low``/``ci_high``, equal-tailed; ``hdi_low``/``hdi_high``, highest density): where
  the model's true accuracy (theta, or its aggregate) lies given the data. Comparable in role to a bootstrap
  confidence interval.
* **posterior predictive interval** (``pred_low``/``pred_high``): where the *observed* accuracy on a new test set
  of the same sizes would fall. It adds binomial test-set noise to the credible interval and is therefore wider;
  it is the interval published Bayesian benchmark analyses (Longjohn, Gopalan & Casleton 2025) report, and it is
  wider than the bootstrap's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .intervals import equal_tailed, hdi, pair_indices, rank_probabilities, ranks, verdict
from .._validate import ArgumentError
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["BayesResult", "make_aggregator", "aggregator_notes"]


def make_aggregator(tasks, task_groups=None, *, aggregate="mean", weights=None, group_weights=None):
    """The aggregate across tasks (:func:`evalband.aggregate.get_aggregate`), a callable (..., M, T) -> (..., M),
    and a one-line description.

    ``weights`` (per task: a mapping, or one per task) or ``group_weights`` ('equal' or a mapping group -> weight,
    shared among each group's tasks) weight the aggregates that take weights. The rule is that of every command
    (:func:`evalband.aggregate.resolve_weights`): tasks or groups a mapping does not name get weight 0, and the
    description lists the tasks that weigh 0.
    """
    from ..aggregate import get_aggregate

    tasks = tuple(tasks)
    try:
        agg = get_aggregate(aggregate, weights=weights, group_weights=group_weights, task_groups=task_groups,
                            tasks=list(tasks))
    except ValueError as exc:  # the engine names its own argument `name`; ours is `aggregate`
        raise ArgumentError(str(exc).replace("`name`", "`aggregate`", 1)) from None
    w = agg.weights
    if agg.name == "mean" and w is not None and np.allclose(w, 1.0 / len(tasks)):
        text = "unweighted mean over tasks"
    elif agg.name == "mean" and w is not None:
        text = "weighted mean over tasks (" + ", ".join(f"{t}: {x:.3g}" for t, x in zip(tasks, w) if x > 0)
        zero = [t for t, x in zip(tasks, w) if x == 0]
        if zero:
            text += f"; weight 0: {_names(zero)}"
        text += ")"
    else:
        text = agg.description or f"{agg.name} over tasks"
        zero = [] if w is None else [t for t, x in zip(tasks, w) if x == 0]
        if zero:
            text += f" (weight 0: {_names(zero)})"
    return agg, text


NOTE_TASK_WEIGHT = NoteKind('bayes.weight-zero-named-tasks', 'info',
                             '{n_zero} task{value} {value2} weight 0: {value3}')


def aggregator_notes(agg, tasks) -> list[str]:
    """What the aggregate's weights assumed, as compare and rank list it: the aggregator's own notes (tasks or
    groups a mapping of weights does not name get weight 0), or, when the weights named every task and gave some
    of them 0 (as a command line that spells out every task does), one note listing the tasks that weigh 0."""
    from .._lists import names_text

    notes = list(getattr(agg, "notes", ()))
    w = getattr(agg, "weights", None)
    zero = [] if w is None else [str(t) for t, x in zip(tasks, np.asarray(w, dtype=float)) if x == 0]
    from ..selection.weights import WEIGHT_ZERO_CODES

    if zero and not any(getattr(n, "code", None) in WEIGHT_ZERO_CODES for n in notes):
        notes.append(NOTE_TASK_WEIGHT(n_zero=len(zero), value='s' if len(zero) != 1 else '', value2='get' if len(zero) != 1 else 'gets', value3=names_text(zero)))
    return notes


def _names(names, limit: int = 20) -> str:
    """'a, b, c and 4 more' (the tasks that weigh 0, in a description)."""
    names = [str(n) for n in names]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


@displayed


@dataclass(frozen=True, repr=False)
class BayesResult:
    """Posterior draws from :func:`~evalband.bayes.beta_binomial` or :func:`~evalband.bayes.logistic`.

    Attributes
    ----------
    method : {'beta-binomial', 'logistic'}
    models, tasks : tuple of str
    theta : numpy.ndarray, shape (D, M, T)
        Posterior draws of each model's true accuracy on each task.
    theta_pred : numpy.ndarray, shape (D, M, T)
        Posterior predictive draws of the observed accuracy on a new test set of the same sizes (drawn on first
        use from ``pred_seed``).
    aggregate, aggregate_pred : numpy.ndarray, shape (D, M)
        The aggregate (``aggregate_name``) of ``theta`` and of ``theta_pred`` in each draw.
    observed : numpy.ndarray, shape (M, T)
        Observed accuracies; ``observed_aggregate`` (M,) their aggregate.
    n : numpy.ndarray, shape (M, T)
        Test-set sizes.
    confidence_level : float
    prior : str
        Description of the prior.
    alpha, beta : numpy.ndarray or None, shape (D, M)
        Beta-Binomial hyperparameter draws.
    grid : GridPosterior or None
        The grid behind the exact sampler (extent, refinement shift).
    diagnostics : pandas.DataFrame or None
        MCMC diagnostics (NumPyro fits): R-hat, bulk and tail ESS per parameter, with ``divergences``.
    inference_data : arviz.InferenceData or None
        The MCMC fit (NumPyro's, or the logistic model's HMC and Laplace draws, whose InferenceData is built on
        first use); :meth:`to_inference_data` returns it as an InferenceData.
    aggregator : callable
        The aggregate applied to (..., M, T) scores (reused to aggregate bootstrap replicates alike).
    task_weights : numpy.ndarray or None
        The normalised task weights of the aggregate (used for analytic intervals when it is the mean).
    warnings : tuple of str
        Problems the user must see (a grid at its limit, R-hat above 1.01, low ESS, divergences).
    notes : tuple of str
        Everything assumed.
    """

    #: print(result) and the notebook: posterior summaries in points (for aggregates on the score scale), digits
    #: from the posterior sd
    __display__ = {"value_cols": ("observed", "posterior_mean", "posterior_sd", "ci_low", "ci_high", "hdi_low",
                                  "hdi_high", "pred_low", "pred_high"), "se_col": "posterior_sd",
                   "scale_attr": "display_scale"}

    method: str
    models: tuple
    tasks: tuple
    theta: np.ndarray
    aggregate: np.ndarray
    observed: np.ndarray
    observed_aggregate: np.ndarray
    n: np.ndarray
    confidence_level: float
    prior: str
    aggregate_name: str
    seed: object = None
    alpha: np.ndarray | None = None
    beta: np.ndarray | None = None
    grid: object = None
    diagnostics: pd.DataFrame | None = None
    inference_data: object = None
    task_groups: dict | None = None
    aggregator: object = None
    task_weights: np.ndarray | None = None
    warnings: tuple = ()
    notes: tuple = field(default_factory=tuple)
    pred_seed: int = 0
    pred_probs: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def display_scale(self) -> float:
        """The display multiplier of the posterior summaries: 100 (points) for an aggregate on the score scale,
        1 for one on its own scale (mean rank), as the command line shows them."""
        return 100.0 if getattr(self.aggregator, "on_score_scale", True) else 1.0

    @property
    def theta_pred(self) -> np.ndarray:
        """(D, M, T) posterior predictive accuracies on a new test set of the same sizes: one binomial draw per
        posterior draw, from ``pred_probs`` (theta itself for the Beta-Binomial model). Drawn on first use from
        ``pred_seed``, so they are the same whenever they are asked for."""
        if "theta_pred" not in self._cache:
            gen = np.random.default_rng(self.pred_seed)
            probs = self.theta if self.pred_probs is None else self.pred_probs
            n = np.maximum(self.n, 1).astype(np.int64)
            self._cache["theta_pred"] = gen.binomial(n, probs) / n
        return self._cache["theta_pred"]

    @property
    def aggregate_pred(self) -> np.ndarray:
        """(D, M) the aggregate of :attr:`theta_pred` in each draw."""
        if "aggregate_pred" not in self._cache:
            self._cache["aggregate_pred"] = np.asarray(self.aggregator(self.theta_pred))
        return self._cache["aggregate_pred"]

    @property
    def n_draws(self) -> int:
        return self.theta.shape[0]

    def _interval(self, draws, kind):
        return hdi(draws, self.confidence_level) if kind == "hdi" else equal_tailed(draws, self.confidence_level)

    @property
    def higher_is_better(self) -> bool:
        return bool(getattr(self.aggregator, "higher_is_better", True))

    def rank_draws(self) -> np.ndarray:
        """(D, M) rank of each model's aggregate in each draw, 1 = best (respecting the aggregate's direction)."""
        return ranks(self.aggregate if self.higher_is_better else -self.aggregate)

    def summary(self) -> pd.DataFrame:
        """One row per model: the aggregate's posterior mean, sd, equal-tailed and HDI credible intervals, the
        posterior predictive interval, P(best) and the rank's mean and equal-tailed interval."""
        lo, hi = equal_tailed(self.aggregate, self.confidence_level)
        hlo, hhi = hdi(self.aggregate, self.confidence_level)
        plo, phi = equal_tailed(self.aggregate_pred, self.confidence_level)
        r = self.rank_draws()
        rlo, rhi = equal_tailed(r, self.confidence_level)
        return pd.DataFrame({
            "model": list(self.models),
            "observed": self.observed_aggregate,
            "posterior_mean": self.aggregate.mean(axis=0),
            "posterior_sd": self.aggregate.std(axis=0, ddof=1),
            "ci_low": lo, "ci_high": hi, "hdi_low": hlo, "hdi_high": hhi,
            "pred_low": plo, "pred_high": phi,
            "p_best": (r == 1).mean(axis=0),
            "rank_mean": r.mean(axis=0), "rank_low": np.floor(rlo).astype(int), "rank_high": np.ceil(rhi).astype(int),
        })

    to_frame = summary

    def pairs(self) -> pd.DataFrame:
        """One row per pair (model_a listed first): the posterior of the aggregate difference A - B.

        ``verdict`` uses the words of every comparison: 'A better' when the credible interval of A - B lies beyond
        0 in the better direction (above for accuracies, below for mean ranks), 'B better', else 'not yet
        decided'; ``p_a_better`` is P(A better)."""
        a, b = pair_indices(len(self.models))
        diff = self.aggregate[:, a] - self.aggregate[:, b]
        pred = self.aggregate_pred[:, a] - self.aggregate_pred[:, b]
        lo, hi = equal_tailed(diff, self.confidence_level)
        hlo, hhi = hdi(diff, self.confidence_level)
        plo, phi = equal_tailed(pred, self.confidence_level)
        names = np.array(self.models, dtype=object)
        return pd.DataFrame({
            "model_a": names[a], "model_b": names[b],
            "observed": self.observed_aggregate[a] - self.observed_aggregate[b],
            "posterior_mean": diff.mean(axis=0), "posterior_sd": diff.std(axis=0, ddof=1),
            "ci_low": lo, "ci_high": hi, "hdi_low": hlo, "hdi_high": hhi, "pred_low": plo, "pred_high": phi,
            "p_a_better": ((diff > 0) if self.higher_is_better else (diff < 0)).mean(axis=0),
            "verdict": verdict(lo, hi, higher_is_better=self.higher_is_better),
        })

    def to_inference_data(self):
        """The draws as an ``arviz.InferenceData`` (the NumPyro fit itself where there is one; otherwise one chain
        of the exact sampler's independent draws with coordinates model and task). Needs ArviZ."""
        if self.inference_data is not None:
            resolve = getattr(self.inference_data, "resolve", None)  # built on first use (LazyInferenceData)
            return resolve() if resolve is not None else self.inference_data
        from .diagnostics import import_arviz

        az = import_arviz()
        posterior = {"theta": self.theta[None], "aggregate": self.aggregate[None]}
        dims = {"theta": ["model", "task"], "aggregate": ["model"]}
        if self.alpha is not None:
            posterior.update(alpha=self.alpha[None], beta=self.beta[None])
            dims.update(alpha=["model"], beta=["model"])
        return az.from_dict(posterior=posterior,
                            posterior_predictive={"theta_pred": self.theta_pred[None],
                                                  "aggregate_pred": self.aggregate_pred[None]},
                            coords={"model": list(self.models), "task": list(self.tasks)},
                            dims={**dims, "theta_pred": ["model", "task"], "aggregate_pred": ["model"]})

    def rank_probabilities(self) -> pd.DataFrame:
        """P(rank = r) per model (rows) and rank 1..M (columns)."""
        p = rank_probabilities(self.rank_draws())
        return pd.DataFrame(p, index=pd.Index(self.models, name="model"),
                            columns=[f"rank_{r}" for r in range(1, len(self.models) + 1)])

    def task_summary(self) -> pd.DataFrame:
        """One row per model and task: observed accuracy, posterior mean and sd of theta, credible and
        predictive intervals."""
        lo, hi = equal_tailed(self.theta, self.confidence_level)
        hlo, hhi = hdi(self.theta, self.confidence_level)
        plo, phi = equal_tailed(self.theta_pred, self.confidence_level)
        m, t = self.observed.shape
        return pd.DataFrame({
            "model": np.repeat(self.models, t), "task": np.tile(self.tasks, m),
            "n": self.n.ravel(), "observed": self.observed.ravel(),
            "posterior_mean": self.theta.mean(axis=0).ravel(), "posterior_sd": self.theta.std(axis=0, ddof=1).ravel(),
            "ci_low": lo.ravel(), "ci_high": hi.ravel(), "hdi_low": hlo.ravel(), "hdi_high": hhi.ravel(),
            "pred_low": plo.ravel(), "pred_high": phi.ravel(),
        })
