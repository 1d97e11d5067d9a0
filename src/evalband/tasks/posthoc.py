"""Post-hoc comparisons of mean ranks over tasks: Nemenyi's all-pairs test with its critical difference (CD), and
the cliques of models no post-hoc verdict separates (the bars of a critical-difference diagram).

Run after the Friedman test (:mod:`evalband.tasks.friedman`); below 10 tasks the p-values and CD come from the
permutation distribution of the largest difference between mean ranks (:mod:`evalband.tasks.nemenyi_exact`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import check_choice, check_confidence_level
from ._matrix import rank_matrix, ranked_cases
from .friedman_exact import SMALL_N_TASKS
from .nemenyi_exact import max_rank_difference_test
from ..comparison.verdict import VERDICTS
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["NemenyiResult", "cliques_from_significance", "nemenyi"]


@displayed


@dataclass(frozen=True, repr=False)
class NemenyiResult:
    """All-pairs Nemenyi comparison of mean ranks with the critical difference.

    Attributes
    ----------
    mean_ranks : numpy.ndarray, shape (n_models,)
    critical_difference : float
        Asymptotic: q_alpha * sqrt(k (k + 1) / (6 N)), q_alpha as below. Permutation (``method`` other than
        'asymptotic'): the smallest attainable difference between mean ranks with a p-value at most alpha
        (infinite when none is).
    q_alpha : float
        The studentized range quantile (k groups, infinite df) divided by sqrt(2) (Demsar's Table 5a), whatever
        ``method``.
    p_values : numpy.ndarray, shape (n_models, n_models)
        Two-sided Nemenyi p-value of each pair (1 on the diagonal), from ``method``.
    significant : numpy.ndarray of bool, shape (n_models, n_models)
        Pairs whose mean ranks differ by more than the asymptotic critical difference, or (permutation) whose
        p-value is at most alpha.
    cliques : tuple of tuple of str
        Maximal groups of models, consecutive in mean rank, with no significant difference inside.
    confidence_level : float
    models, tasks, dropped_tasks, notes
    method : {'asymptotic', 'enumeration', 'monte-carlo'}
        Where ``p_values``, ``critical_difference`` and ``significant`` come from: the studentized range
        ('asymptotic'), or the permutation distribution of the largest difference between mean ranks (see
        :func:`nemenyi`).
    p_values_asymptotic : numpy.ndarray, shape (n_models, n_models)
        The studentized-range p-values (equal to ``p_values`` when ``method='asymptotic'``).
    critical_difference_asymptotic : float
        The studentized-range CD (equal to ``critical_difference`` when ``method='asymptotic'``).
    p_value_se : numpy.ndarray or None
        Monte Carlo standard errors of ``p_values`` (None unless ``method='monte-carlo'``).
    n_arrangements : int
        Within-task arrangements enumerated, or Monte Carlo draws (0 when asymptotic).
    """

    mean_ranks: np.ndarray
    critical_difference: float
    q_alpha: float
    p_values: np.ndarray
    significant: np.ndarray
    cliques: tuple[tuple[str, ...], ...]
    confidence_level: float
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    dropped_tasks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    method: str = "asymptotic"
    p_values_asymptotic: np.ndarray | None = None
    critical_difference_asymptotic: float = np.nan
    p_value_se: np.ndarray | None = None
    n_arrangements: int = 0

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    def summary(self) -> str:
        """One or two lines: the critical difference, how many pairs differ, and where the p-values come from."""
        k = len(self.models)
        cd = (f"{self.critical_difference:.3g}" if np.isfinite(self.critical_difference) else
              "none (no attainable difference is significant with so few tasks)")
        text = (f"Nemenyi critical difference at {self.confidence_level:.0%}: {cd};"
                f" {int(np.triu(self.significant, 1).sum())} of {k * (k - 1) // 2} pairs differ.")
        if self.method == "enumeration":
            text += (f" Exact: p-values and CD from all {self.n_arrangements:,} equally likely within-task"
                     " arrangements of the ranks (the studentized-range approximation, poor with"
                     f" {self.n_tasks} tasks, gives CD {self.critical_difference_asymptotic:.3g}).")
        elif self.method == "monte-carlo":
            text += (f" Permutation p-values and CD from {self.n_arrangements:,} random within-task arrangements"
                     " of the ranks (Monte Carlo; the studentized-range approximation, poor with"
                     f" {self.n_tasks} tasks, gives CD {self.critical_difference_asymptotic:.3g}).")
        elif self.n_tasks < SMALL_N_TASKS:
            text += (f" With {self.n_tasks} tasks (fewer than {SMALL_N_TASKS}) these asymptotic (studentized-range)"
                     " p-values and CD are unreliable.")
        return text

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: model_a (better mean rank), model_b, their mean ranks, difference, p-value (and,
        when the p-values are permutation ones, the studentized-range p-value beside them), ``significant`` and
        its verdict in the words of every command ('A better' or 'not yet decided')."""
        i, j = np.triu_indices(len(self.models), 1)
        a_first = self.mean_ranks[i] <= self.mean_ranks[j]
        a = np.where(a_first, i, j)
        b = np.where(a_first, j, i)
        names = np.asarray(self.models, dtype=object)
        out = pd.DataFrame({"model_a": names[a], "model_b": names[b], "mean_rank_a": self.mean_ranks[a],
                            "mean_rank_b": self.mean_ranks[b], "difference": self.mean_ranks[b] - self.mean_ranks[a],
                            "critical_difference": self.critical_difference, "p_value": self.p_values[a, b],
                            "significant": self.significant[a, b],
                            # the verdict words of every command: model_a holds the better mean rank
                            "verdict": np.where(self.significant[a, b], VERDICTS[0], VERDICTS[3])})
        if self.method != "asymptotic" and self.p_values_asymptotic is not None:
            out.insert(out.columns.get_loc("significant"), "p_value_asymptotic", self.p_values_asymptotic[a, b])
        return out.sort_values(["mean_rank_a", "mean_rank_b"], kind="stable").reset_index(drop=True)


NOTE_TASKS_NO_DIFFERENCE_BETWEEN = NoteKind(
    'tasks.tasks-no-difference-between', 'info',
    'with {n} tasks no difference between mean ranks is significant at {value:.3g}: even models ranked alike in '
    'every task could be chance')
NOTE_NEMENYI_PERMUTATION = NoteKind(
    'tasks.nemenyi-permutation', 'info',
    "Nemenyi p-values and critical difference from the permutation distribution of the largest difference between"
    " mean ranks ({how}); the studentized-range approximation is poor with {n} tasks (it gives CD {cd:.3g})")
NOTE_ONLY_TASKS_NEMENYI_P = NoteKind(
    'tasks.only-tasks-nemenyi-p', 'caveat',
    "only {n} tasks: the Nemenyi p-values and critical difference are asymptotic (studentized range) and "
    "unreliable below about {small_n_tasks} tasks; {arg:method='exact'} gives exact ones")


def nemenyi(scores, models=None, tasks=None, *, confidence_level=0.95, higher_is_better: bool = True,
            method: str = "auto", n_resamples: int = 9_999, rng=None) -> NemenyiResult:
    """Nemenyi all-pairs post-hoc test on mean ranks, with the critical difference (CD).

    Parameters
    ----------
    scores : ResultsTable, ScoreMatrix, DataFrame or array_like, shape (n_models, n_tasks)
    models, tasks : sequence of str, optional
    confidence_level : float, default 0.95
        Family-wise: alpha = 1 - confidence_level.
    higher_is_better : bool, default True
    method : {'auto', 'asymptotic', 'exact', 'monte-carlo'}
        Where the p-values and the CD come from. 'asymptotic': the studentized range (Nemenyi; Demsar 2006).
        'exact': the permutation distribution of the largest difference between mean ranks, enumerated
        (ValueError when too large); 'monte-carlo': ``n_resamples`` random arrangements of it. 'auto' (default):
        the permutation distribution below 10 tasks (enumerated when feasible, else Monte Carlo), the studentized
        range from 10 tasks on.
    n_resamples : int, default 9999
        Monte Carlo draws.
    rng : None, int or numpy.random.Generator
        Monte Carlo only.

    Returns
    -------
    NemenyiResult

    Notes
    -----
    Asymptotically, two models differ significantly when their mean ranks differ by more than
    CD = q_alpha sqrt(k (k + 1) / (6 N)), q_alpha = studentized range quantile (k groups, infinite df) / sqrt(2).
    The pairwise p-value is the studentized range survival function at |R_i - R_j| sqrt(2) / sqrt(k(k+1)/(6N)).
    The test controls the family-wise error over all k (k - 1) / 2 pairs and is conservative; against a single
    control, Holm-corrected signed-rank tests are more powerful (:func:`evalband.tasks.signed_rank_tests`).
    Mean ranks depend on which models are compared: adding a model can change the verdict for another pair.

    The studentized range is the large-N limit of the largest difference between mean ranks; with few tasks it
    is poor (with 3 models ranked alike over 3 tasks its p-value for the extreme pair is 0.038, while exactly 6
    of the 216 equally likely arrangements reach that difference: 0.028). Below 10 tasks the p-values and CD
    therefore come, by default, from the permutation distribution of that largest difference, under the
    Friedman test's null hypothesis (:func:`evalband.tasks.nemenyi_exact.max_rank_difference_test`): a pair
    differs when its p-value is at most alpha, i.e. when its difference reaches the (attainable) exact CD. The
    studentized-range values stay in ``p_values_asymptotic`` and ``critical_difference_asymptotic``.

    References
    ----------
    Demsar, J. (2006). JMLR 7, 1-30, section 3.2.2 and Table 5.
    Nemenyi, P. B. (1963). Distribution-free multiple comparisons. PhD thesis, Princeton University.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> scores = np.array([[0.81, 0.62, 0.70, 0.55, 0.90], [0.78, 0.60, 0.66, 0.50, 0.85], [0.70, 0.52, 0.61, 0.49, 0.86]])
    >>> res = eb.nemenyi(scores, models=["a", "b", "c"])
    >>> res.mean_ranks, round(float(res.critical_difference), 3)
    (array([1. , 2.2, 2.8]), 1.6)
    """
    level = check_confidence_level(confidence_level)
    method = check_choice(method, ("auto", "asymptotic", "exact", "monte-carlo"), "method")
    m = ranked_cases(scores, models, tasks, "the Nemenyi test")
    k, n = m.scores.shape
    ranks = rank_matrix(m.scores, higher_is_better=higher_is_better)
    mean_ranks = ranks.mean(axis=1)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    q = float(stats.studentized_range.ppf(level, k, np.inf)) / np.sqrt(2.0) if k > 1 else np.nan
    cd = q * se
    diff = np.abs(mean_ranks[:, None] - mean_ranks[None, :])
    p_values = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    pv = np.clip(stats.studentized_range.sf(diff[iu] * np.sqrt(2.0) / se, k, np.inf), 0.0, 1.0)
    p_values[iu] = pv
    p_values[(iu[1], iu[0])] = pv
    significant = diff > cd
    notes = list(m.notes)
    extra = dict(p_values_asymptotic=p_values, critical_difference_asymptotic=float(cd))
    if method in ("exact", "monte-carlo") or (method == "auto" and n < SMALL_N_TASKS):
        exact = max_rank_difference_test(ranks, alpha=1.0 - level, method="auto" if method == "auto" else method,
                                         n_resamples=n_resamples, rng=rng)
        extra.update(method=exact.method, n_arrangements=exact.n_arrangements,
                     p_value_se=exact.p_value_se if exact.method == "monte-carlo" else None)
        p_values, cd = exact.p_values, exact.critical_difference
        significant = p_values <= (1.0 - level) * (1 + 1e-9)
        how = (f"all {exact.n_arrangements:,} equally likely within-task arrangements of the ranks"
               if exact.method == "enumeration" else
               f"{exact.n_arrangements:,} random within-task arrangements of the ranks (Monte Carlo)")
        notes.append(NOTE_NEMENYI_PERMUTATION(how=how, n=n, cd=extra['critical_difference_asymptotic']))
        if not np.isfinite(cd):
            notes.append(NOTE_TASKS_NO_DIFFERENCE_BETWEEN(n=n, value=1.0 - level))
    elif n < SMALL_N_TASKS:
        notes.append(NOTE_ONLY_TASKS_NEMENYI_P(n=n, small_n_tasks=SMALL_N_TASKS))
    np.fill_diagonal(significant, False)
    cl = cliques_from_significance(mean_ranks, significant, m.models)
    return NemenyiResult(mean_ranks, float(cd), q, p_values, significant, cl, level, m.models, m.tasks,
                         m.dropped_tasks, tuple(notes), **extra)


def cliques_from_significance(mean_ranks, significant, models) -> tuple[tuple[str, ...], ...]:
    """Maximal runs of models, consecutive in mean rank, with no significant pair inside.

    Works for any post-hoc verdict (Nemenyi, Holm-corrected signed-rank), not only for a critical difference.
    Single models are not cliques.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import cliques_from_significance
    >>> mean_ranks = np.array([1.4, 1.9, 3.1, 3.6])
    >>> significant = np.zeros((4, 4), dtype=bool)
    >>> significant[0, 2:] = significant[2:, 0] = True
    >>> significant[1, 3] = significant[3, 1] = True
    >>> cliques_from_significance(mean_ranks, significant, ["A", "B", "C", "D"])
    (('A', 'B'), ('B', 'C'), ('C', 'D'))
    """
    mean_ranks = np.asarray(mean_ranks, dtype=float)
    sig = np.asarray(significant, dtype=bool)
    order = np.argsort(mean_ranks, kind="stable")
    k = len(order)
    s = sig[np.ix_(order, order)]
    ends = np.arange(k)
    for i in range(k):
        j = i
        while j + 1 < k and not s[i:j + 2, i:j + 2].any():
            j += 1
        ends[i] = j
    out = []
    last_end = -1
    for i in range(k):
        if ends[i] > i and ends[i] > last_end:
            out.append(tuple(models[o] for o in order[i:ends[i] + 1]))
            last_end = ends[i]
    return tuple(out)
