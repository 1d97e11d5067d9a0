"""Bayesian signed-rank test with a region of practical equivalence (Benavoli et al. 2017).

For two models compared over tasks, the per-task differences z_1..z_n get a Dirichlet process posterior whose
prior puts a pseudo-observation z_0 = 0 of strength s (0.5 by default). A posterior draw is a Dirichlet weight
vector w ~ Dir(s, 1, ..., 1) over (z_0, ..., z_n); the probabilities that the Walsh average of two draws from the
population of tasks lies left of, inside or right of the ROPE [-r, r] are

    theta_left  = sum_ij w_i w_j H(-(z_i + z_j) - 2r)
    theta_right = sum_ij w_i w_j H((z_i + z_j) - 2r)
    theta_rope  = 1 - theta_left - theta_right

with H the Heaviside step (1/2 at 0, as in ``baycomp``). Their posterior means are P(B better), P(equivalent)
and P(A better), and the posterior samples live on the probability simplex.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, as_generator, check_confidence_level, check_positive_int
from ..comparison.verdict import VERDICTS
from ._matrix import as_score_matrix, complete_cases
from .signedrank import pairs_for
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["BayesSignedRankResult", "BayesSignedRankTests", "bayes_signed_rank", "bayes_signed_rank_tests"]

#: entries (samples x weights) per vectorized block, to bound memory
_BLOCK = 4_000_000


def _heaviside(a: np.ndarray) -> np.ndarray:
    return (a > 0).astype(np.float64) + 0.5 * (a == 0)


def _posterior_samples(diff: np.ndarray, rope: float, prior_strength: float, n_draws: int,
                       rng: np.random.Generator) -> np.ndarray:
    """(n_draws, 3) draws of (theta_right, theta_rope, theta_left) for differences ``diff`` (a - b)."""
    z = np.concatenate(([0.0], diff))
    sums = z[:, None] + z[None, :]
    right = _heaviside(sums - 2 * rope)
    left = _heaviside(-sums - 2 * rope)
    alpha = np.ones(z.size)
    alpha[0] = prior_strength
    out = np.empty((n_draws, 3))
    block = max(1, _BLOCK // z.size)
    for start in range(0, n_draws, block):  # memory blocks; each block is one vectorized draw
        stop = min(n_draws, start + block)
        w = rng.dirichlet(alpha, stop - start)
        out[start:stop, 0] = np.einsum("si,ij,sj->s", w, right, w, optimize=True)
        out[start:stop, 2] = np.einsum("si,ij,sj->s", w, left, w, optimize=True)
    out[:, 1] = 1.0 - out[:, 0] - out[:, 2]
    np.clip(out[:, 1], 0.0, 1.0, out=out[:, 1])
    return out


def _check(rope, prior_strength, n_draws):
    if isinstance(rope, bool) or not np.isscalar(rope) or not np.isfinite(rope) or rope < 0:
        raise ArgumentError(words('`{arg:rope}` must be a number >= 0 (half-width of the region of practical equivalence); got {rope!r}.', rope=rope))
    if isinstance(prior_strength, bool) or not np.isscalar(prior_strength) or not prior_strength > 0:
        raise ArgumentError(f"`prior_strength` must be a number > 0; got {prior_strength!r}.")
    return float(rope), float(prior_strength), check_positive_int(n_draws, "n_draws")


def _decide(p_a, p_eq, p_b, level):
    """The verdict word (:data:`evalband.comparison.verdict.VERDICTS`) of the posterior probabilities."""
    a_better, b_better, equivalent, open_ = VERDICTS
    if p_a >= level:
        return a_better
    if p_b >= level:
        return b_better
    if p_eq >= level:
        return equivalent
    return open_


@displayed


@dataclass(frozen=True, repr=False)
class BayesSignedRankResult:
    """Posterior of the Bayesian signed-rank test for one pair of models.

    Attributes
    ----------
    model_a, model_b : str
    prob_a_better, prob_equivalent, prob_b_better : float
        Posterior means of theta_right, theta_rope, theta_left (differences a - b in the better direction).
    samples : numpy.ndarray, shape (n_draws, 3)
        Posterior draws of (P(a better), P(equivalent), P(b better)); rows sum to 1.
    rope : float
    prior_strength : float
    n_tasks : int
    decision : str
        'A better', 'B better' or 'equivalent' when that posterior probability reaches ``confidence_level``,
        'not yet decided' otherwise (the verdict words of :data:`evalband.comparison.verdict.VERDICTS`).
    confidence_level : float
    tasks, dropped_tasks, notes
    """

    model_a: str
    model_b: str
    prob_a_better: float
    prob_equivalent: float
    prob_b_better: float
    samples: np.ndarray
    rope: float
    prior_strength: float
    n_tasks: int
    decision: str
    confidence_level: float
    tasks: tuple[str, ...] = ()
    dropped_tasks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"model_a": [self.model_a], "model_b": [self.model_b],
                             "prob_a_better": [self.prob_a_better], "prob_equivalent": [self.prob_equivalent],
                             "prob_b_better": [self.prob_b_better], "rope": [self.rope], "n_tasks": [self.n_tasks],
                             "decision": [self.decision]})


NOTE_TASK_S_WITHOUT_SCORE = NoteKind('tasks.task-s-without-score', 'excluded',
                                      '{value} task(s) without a score for both models dropped')


def bayes_signed_rank(a, b, *, rope: float = 0.0, prior_strength: float = 0.5, n_draws: int = 50_000,
                      confidence_level=0.95, higher_is_better: bool = True, rng=None,
                      names=("a", "b")) -> BayesSignedRankResult:
    """Bayesian signed-rank test of two models over tasks, with a ROPE.

    Parameters
    ----------
    a, b : array_like, shape (n_tasks,)
        Per-task scores of the two models (paired by task). Tasks where either is NaN are dropped and counted.
    rope : float, default 0
        Half-width of the region of practical equivalence, in score units (0.01 = one accuracy point).
    prior_strength : float, default 0.5
        Weight s of the prior pseudo-observation at 0 (Benavoli et al. use 0.5; ``baycomp``'s ``prior``).
    n_draws : int, default 50_000
        Posterior draws (Monte Carlo error of each probability is at most 0.5 / sqrt(n_draws)).
    confidence_level : float, default 0.95
        Posterior probability needed for a decision.
    higher_is_better : bool, default True
    rng : None, int or numpy.random.Generator
        Seed for the Dirichlet draws.
    names : (str, str)

    Returns
    -------
    BayesSignedRankResult

    Notes
    -----
    Tasks are treated as exchangeable draws from a population of tasks; the scores must be commensurable across
    tasks and the ROPE is in their units. The prior pseudo-observation at 0 makes the test slightly favour
    equivalence with few tasks. No hypothesis test is made: the three probabilities are read directly
    (Benavoli et al. 2017, section 4.3).

    References
    ----------
    Benavoli, A., Corani, G., Demsar, J. & Zaffalon, M. (2017). Time for a change: a tutorial for comparing
    multiple classifiers through Bayesian analysis. JMLR 18(77), 1-36.
    Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. & Ruggeri, F. (2014). A Bayesian Wilcoxon signed-rank
    test based on the Dirichlet process. ICML 2014.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> a = np.array([0.81, 0.62, 0.70, 0.55, 0.90, 0.66])
    >>> b = np.array([0.78, 0.60, 0.66, 0.50, 0.85, 0.65])
    >>> res = eb.bayes_signed_rank(a, b, rope=0.01, n_draws=2000, rng=0)
    >>> type(res).__name__
    'BayesSignedRankResult'
    """
    rope, prior_strength, n_draws = _check(rope, prior_strength, n_draws)
    level = check_confidence_level(confidence_level)
    gen = as_generator(rng)
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ArgumentError(f"`a` and `b` must be 1-D of one length; got shapes {a.shape} and {b.shape}.")
    keep = ~(np.isnan(a) | np.isnan(b))
    notes = []
    if (~keep).any():
        notes.append(NOTE_TASK_S_WITHOUT_SCORE(value=int((~keep).sum())))
    diff = (a - b)[keep] * (1.0 if higher_is_better else -1.0)
    samples = _posterior_samples(diff, rope, prior_strength, n_draws, gen)
    p = samples.mean(axis=0)
    return BayesSignedRankResult(str(names[0]), str(names[1]), float(p[0]), float(p[1]), float(p[2]), samples,
                                 rope, prior_strength, int(keep.sum()), _decide(p[0], p[1], p[2], level), level,
                                 notes=tuple(notes))


@displayed


@dataclass(frozen=True, repr=False)
class BayesSignedRankTests:
    """Bayesian signed-rank tests for several pairs (against a control or all pairs).

    Posterior samples are kept for the pairs (``results``) so each can be drawn on the simplex.
    """

    results: tuple[BayesSignedRankResult, ...]
    control: str | None
    rope: float
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    dropped_tasks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        return pd.concat([r.to_frame() for r in self.results], ignore_index=True)


def bayes_signed_rank_tests(scores, models=None, tasks=None, *, control=None, rope: float = 0.0,
                            prior_strength: float = 0.5, n_draws: int = 20_000, confidence_level=0.95,
                            higher_is_better: bool = True, rng=None) -> BayesSignedRankTests:
    """:func:`bayes_signed_rank` for the control against each other model, or for every pair.

    Tasks where some model has no score are dropped first (complete cases over all models), so every pair is
    judged on the same tasks. Parameters are those of :func:`bayes_signed_rank`; one generator feeds all pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import bayes_signed_rank_tests
    >>> scores = np.array([[0.71, 0.64, 0.80, 0.55, 0.62, 0.77, 0.69, 0.58],
    ...                    [0.68, 0.60, 0.79, 0.50, 0.60, 0.71, 0.66, 0.57],
    ...                    [0.70, 0.65, 0.78, 0.56, 0.61, 0.76, 0.70, 0.59]])
    >>> res = bayes_signed_rank_tests(scores, ["A", "B", "C"], control="A", rope=0.01, n_draws=2000, rng=0)
    >>> res.to_frame()[["model_a", "model_b", "prob_a_better", "prob_equivalent", "decision"]].round(3)
      model_a model_b  prob_a_better  prob_equivalent         decision
    0       A       B          0.965            0.035         A better
    1       A       C          0.261            0.491  not yet decided
    """
    gen = as_generator(rng)
    m = complete_cases(as_score_matrix(scores, models, tasks), min_tasks=1, what="the Bayesian signed-rank test")
    if m.n_models < 2:
        raise ArgumentError(f"the Bayesian signed-rank test needs at least 2 models; got {m.n_models}.")
    out = []
    for ia, ib in pairs_for(m.models, control):  # pairs, not replicates
        out.append(bayes_signed_rank(m.scores[ia], m.scores[ib], rope=rope, prior_strength=prior_strength,
                                     n_draws=n_draws, confidence_level=confidence_level,
                                     higher_is_better=higher_is_better, rng=gen,
                                     names=(m.models[ia], m.models[ib])))
    return BayesSignedRankTests(tuple(out), control, float(rope), m.models, m.tasks, m.dropped_tasks, m.notes)
