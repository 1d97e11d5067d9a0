"""Friedman test over tasks with the Iman-Davenport correction, and the Nemenyi post-hoc critical difference.

Tasks are the sample: each task ranks the models (1 = best, ties get midranks) and the test asks whether the mean
ranks differ more than chance would make them (Demsar 2006, section 3.2.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, InputError, check_choice, check_confidence_level
from ._matrix import as_score_matrix, complete_cases, rank_matrix, tie_counts
from .friedman_exact import SMALL_N_TASKS, friedman_permutation_p_value
from .nemenyi_exact import max_rank_difference_test
from .skillings_mack import skillings_mack_statistic
from ..comparison.verdict import VERDICTS
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["FriedmanResult", "NemenyiResult", "friedman", "nemenyi", "cliques_from_significance"]


@displayed


@dataclass(frozen=True, repr=False)
class FriedmanResult:
    """Friedman chi-square and Iman-Davenport F over tasks.

    Attributes
    ----------
    statistic, p_value, df : float
        Friedman chi-square (tie-corrected when ``tie_correction``), its p-value and k - 1 degrees of freedom.
    iman_davenport, iman_davenport_p_value : float
        F = (N - 1) chi2 / (N (k - 1) - chi2) on (k - 1, (k - 1)(N - 1)) degrees of freedom. F is infinite when
        every task ranks the models identically; its p-value is then NaN (the F approximation has no answer
        there: see ``p_value_exact``).
    df1, df2 : float
    mean_ranks : numpy.ndarray, shape (n_models,)
        Mean rank of each model over tasks, 1 = best.
    models, tasks : tuple of str
        Models and the tasks used (complete cases).
    dropped_tasks : tuple of str
    tie_correction : bool
    notes : tuple of str
    method : {'friedman', 'skillings-mack'}
    p_value_exact : float
        Permutation p-value of the statistic (every within-task arrangement of the ranks equally likely), NaN when
        not computed (see ``friedman(method=...)``).
    p_value_exact_se : float
        Its Monte Carlo standard error (0 when enumerated).
    exact_method : {'', 'enumeration', 'closed-form', 'monte-carlo'}
    n_arrangements : int
        Arrangements enumerated (equally likely, up to (k!)^N), or Monte Carlo draws.
    """

    statistic: float
    p_value: float
    df: float
    iman_davenport: float
    iman_davenport_p_value: float
    df1: float
    df2: float
    mean_ranks: np.ndarray
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    dropped_tasks: tuple[str, ...] = ()
    tie_correction: bool = True
    notes: tuple[str, ...] = field(default=())
    method: str = "friedman"
    p_value_exact: float = np.nan
    p_value_exact_se: float = np.nan
    exact_method: str = ""
    n_arrangements: int = 0

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    def to_frame(self) -> pd.DataFrame:
        """One row per model: model, mean_rank (1 = best), sorted as given."""
        return pd.DataFrame({"model": list(self.models), "mean_rank": self.mean_ranks})

    def summary(self) -> str:
        k, n = len(self.models), self.n_tasks
        if self.method == "skillings-mack":
            return (f"Skillings-Mack chi2({self.df:g}) = {self.statistic:.4g}, p = {self.p_value:.3g} ({k} models,"
                    f" {n} tasks, missing cells kept)")
        if np.isinf(self.iman_davenport):
            f_text = f"Iman-Davenport F({self.df1:g}, {self.df2:g}) infinite (identical rankings)"
        else:
            f_text = (f"Iman-Davenport F({self.df1:g}, {self.df2:g}) = {self.iman_davenport:.4g},"
                      f" p = {self.iman_davenport_p_value:.3g}")
        text = (f"Friedman chi2({self.df:g}) = {self.statistic:.4g}, p = {self.p_value:.3g}"
                f"{' (chi-square approximation)' if self.exact_method else ''}; {f_text} ({k} models, {n} tasks"
                f"{', ties corrected' if self.tie_correction else ''})")
        if self.exact_method == "closed-form":
            text += (f"\nExact permutation p = {self.p_value_exact:.3g} (identical rankings: only the {k}! arrangements"
                     f" that order every task alike, out of {k}!^{n}, reach this statistic).")
        elif self.exact_method == "enumeration":
            text += (f"\nExact permutation p = {self.p_value_exact:.3g} (all {self.n_arrangements:,} equally likely"
                     " within-task arrangements of the ranks).")
        elif self.exact_method == "monte-carlo":
            at_floor = self.p_value_exact <= 1.0000001 / (self.n_arrangements + 1)
            text += (f"\nPermutation p {'<=' if at_floor else '='} {self.p_value_exact:.3g} (Monte Carlo,"
                     f" {self.n_arrangements:,} random within-task arrangements of the ranks"
                     + ("; none reached the observed statistic)." if at_floor else
                        f"; MC standard error {self.p_value_exact_se:.2g})."))
        if n < SMALL_N_TASKS and self.exact_method:
            text += (f" With {n} tasks (fewer than {SMALL_N_TASKS}) the chi-square and F approximations are poor:"
                     " use the permutation p-value.")
        elif n < SMALL_N_TASKS:
            text += (f"\nWith {n} tasks (fewer than {SMALL_N_TASKS}) the chi-square and F approximations are poor"
                     " (no permutation p-value computed).")
        return text


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


def _prepare(scores, models, tasks, what):
    matrix = as_score_matrix(scores, models, tasks)
    if matrix.n_models < 2:
        raise ArgumentError(f"{what} needs at least 2 models; got {matrix.n_models}.")
    return complete_cases(matrix, min_tasks=2, what=what)


NOTE_EVERY_TASK_RANKS_MODELS = NoteKind(
    'tasks.every-task-ranks-models', 'info',
    'every task ranks the models identically: Iman-Davenport F is infinite and has no p-value; see the '
    'permutation p-value')
NOTE_EXACT_ENUMERATION_OUT_REACH = NoteKind(
    'tasks.exact-enumeration-out-reach', 'info',
    'exact enumeration out of reach ({k} models, {n} tasks): the permutation p-value is a Monte Carlo estimate '
    'from {n_arrangements:,} random arrangements')
NOTE_ONLY_TASKS_CHI_SQUARE = NoteKind(
    'tasks.only-tasks-chi-square', 'caveat',
    'only {n} tasks: the chi-square and F approximations are poor below about {small_n_tasks}; use the '
    'permutation p-value ({method})')
NOTE_ONLY_TASKS_CHI_SQUARE_2 = NoteKind(
    'tasks.only-tasks-chi-square-2', 'caveat',
    'only {n} tasks: the chi-square and F approximations are poor below about {small_n_tasks}')


def friedman(scores, models=None, tasks=None, *, higher_is_better: bool = True,
             tie_correction: bool = True, missing: str = "complete-case", method: str = "auto",
             n_resamples: int = 9_999, rng=None) -> FriedmanResult:
    """Friedman test of equal mean ranks over tasks, with the Iman-Davenport F correction.

    Parameters
    ----------
    scores : ResultsTable, ScoreMatrix, DataFrame or array_like, shape (n_models, n_tasks)
        One score per model and task (see :func:`evalband.tasks.score_matrix`).
    models, tasks : sequence of str, optional
        Labels for an array, or subsets of a table.
    higher_is_better : bool, default True
        Rank 1 goes to the highest score.
    tie_correction : bool, default True
        Divide chi2 by 1 - sum(t^3 - t) / (N k (k^2 - 1)) as SciPy and R do. Demsar (2006) reports the
        uncorrected statistic.
    missing : {'complete-case', 'skillings-mack'}
        'complete-case' drops every task where some model has no score (named in ``dropped_tasks``);
        'skillings-mack' keeps them and computes the Skillings-Mack statistic (no Iman-Davenport F, which is
        then NaN; ``mean_ranks`` average each model's ranks over its own tasks, rescaled to 1..k).
    method : {'auto', 'asymptotic', 'exact', 'monte-carlo'}
        The permutation p-value (``p_value_exact``) beside the chi-square and F approximations: 'exact'
        enumerates every within-task arrangement of the ranks, 'monte-carlo' draws ``n_resamples`` of them,
        'asymptotic' computes none. 'auto' (default) computes it when there are fewer than 10 tasks or the
        rankings are identical (infinite F), by enumeration when feasible and Monte Carlo otherwise.
        Complete-case analysis only.
    n_resamples : int, default 9999
        Monte Carlo draws.
    rng : None, int or numpy.random.Generator
        Monte Carlo only.

    Returns
    -------
    FriedmanResult

    Notes
    -----
    Valid when tasks are an independent sample from the population of tasks of interest and the models are
    ranked within each task; ranks ignore how large the differences are. Iman and Davenport's F is less
    conservative than the chi-square approximation (Demsar 2006). Both approximations are poor with few tasks
    (below about 10): with 3 models over 3 tasks ranked identically the chi-square p is 0.0498 and F is infinite,
    while the exact permutation p is 6 / 216 = 0.028; the permutation p-value is then the one to report. Tasks
    where some model has no score are dropped (complete cases) and named in ``dropped_tasks``, or kept with
    ``missing='skillings-mack'``, which assumes the cells are missing at random.

    References
    ----------
    Demsar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7, 1-30.
    Iman, R. L. & Davenport, J. M. (1980). Approximations of the critical region of the Friedman statistic.
    Communications in Statistics A 9, 571-595.
    Skillings, J. H. & Mack, G. A. (1981). Technometrics 23, 171-177.
    Friedman, M. (1937). JASA 32, 675-701 (exact tables for small k and N).

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> scores = np.array([[0.81, 0.62, 0.70, 0.55], [0.78, 0.60, 0.66, 0.50], [0.70, 0.52, 0.61, 0.49]])
    >>> res = eb.friedman(scores, models=["a", "b", "c"])
    >>> round(float(res.statistic), 3), round(float(res.p_value), 4)
    (8.0, 0.0183)
    """
    missing = check_choice(missing, ("complete-case", "skillings-mack"), "missing")
    method = check_choice(method, ("auto", "asymptotic", "exact", "monte-carlo"), "method")
    if missing == "skillings-mack":
        return _skillings_mack(scores, models, tasks, higher_is_better)
    m = _prepare(scores, models, tasks, "the Friedman test")
    x = m.scores
    k, n = x.shape
    ranks = rank_matrix(x, higher_is_better=higher_is_better)
    mean_ranks = ranks.mean(axis=1)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean_ranks ** 2) - k * (k + 1) ** 2 / 4.0)
    notes = list(m.notes)
    if tie_correction:
        c = 1.0 - tie_counts(x).sum() / (k * (k * k - 1) * n)
        chi2 = chi2 / c if c > 0 else 0.0
    chi2 = float(max(chi2, 0.0))
    df = k - 1.0
    p = float(stats.chi2.sf(chi2, df))
    df1, df2 = k - 1.0, (k - 1.0) * (n - 1.0)
    denom = n * (k - 1.0) - chi2
    if denom <= 1e-12 * n * k:
        f_stat, f_p = np.inf, np.nan
        notes.append(NOTE_EVERY_TASK_RANKS_MODELS())
    else:
        f_stat = (n - 1.0) * chi2 / denom
        f_p = float(stats.f.sf(f_stat, df1, df2))
    exact = None
    if method in ("exact", "monte-carlo") or (method == "auto" and (n < SMALL_N_TASKS or np.isinf(f_stat))):
        exact = friedman_permutation_p_value(ranks, method=method, n_resamples=n_resamples, rng=rng)
        if method == "auto" and exact.method == "monte-carlo":
            notes.append(NOTE_EXACT_ENUMERATION_OUT_REACH(k=k, n=n, n_arrangements=exact.n_arrangements))
        if n < SMALL_N_TASKS:
            notes.append(NOTE_ONLY_TASKS_CHI_SQUARE(n=n, small_n_tasks=SMALL_N_TASKS, method=exact.method))
    elif n < SMALL_N_TASKS:
        notes.append(NOTE_ONLY_TASKS_CHI_SQUARE_2(n=n, small_n_tasks=SMALL_N_TASKS))
    extra = {} if exact is None else dict(p_value_exact=exact.p_value, p_value_exact_se=exact.se,
                                          exact_method=exact.method, n_arrangements=exact.n_arrangements)
    return FriedmanResult(chi2, p, df, float(f_stat), f_p, df1, df2, mean_ranks, m.models, m.tasks,
                          m.dropped_tasks, bool(tie_correction), tuple(notes), **extra)


NOTE_SKILLINGS_MACK_MISSING_CELL = NoteKind(
    'tasks.skillings-mack-missing-cell', 'caveat',
    'Skillings-Mack: {n_missing} missing cell(s) kept (assumed missing at random)')
NOTE_TASK_S_FEWER_THAN = NoteKind(
    'tasks.task-s-fewer-than', 'excluded',
    '{n_dropped} task(s) with fewer than two scores carry no information and were left out')


def _skillings_mack(scores, models, tasks, higher_is_better) -> FriedmanResult:
    m = as_score_matrix(scores, models, tasks)
    if m.n_models < 2:
        raise ArgumentError(f"the Skillings-Mack test needs at least 2 models; got {m.n_models}.")
    stat, df, p, mean_ranks, n_used = skillings_mack_statistic(m.scores, higher_is_better=higher_is_better)
    have = (~np.isnan(m.scores)).sum(axis=0) >= 2
    notes = list(m.notes)
    n_missing = int(np.isnan(m.scores[:, have]).sum())
    notes.append(NOTE_SKILLINGS_MACK_MISSING_CELL(n_missing=n_missing))
    dropped = tuple(t for t, h in zip(m.tasks, have) if not h)
    if dropped:
        notes.append(NOTE_TASK_S_FEWER_THAN(n_dropped=len(dropped)))
    if n_used < 2:
        raise InputError(f"the Skillings-Mack test needs at least 2 tasks with two or more scores; found {n_used}",
                         source=m.source)
    return FriedmanResult(stat, p, df, np.nan, np.nan, np.nan, np.nan, mean_ranks, m.models,
                          tuple(t for t, h in zip(m.tasks, have) if h), dropped, False, tuple(notes),
                          "skillings-mack")


NOTE_TASKS_NO_DIFFERENCE_BETWEEN = NoteKind(
    'tasks.tasks-no-difference-between', 'info',
    'with {n} tasks no difference between mean ranks is significant at {value:.3g}: even models ranked alike in '
    'every task could be chance')
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
    m = _prepare(scores, models, tasks, "the Nemenyi test")
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
        notes.append(f"Nemenyi p-values and critical difference from the permutation distribution of the largest"
                     f" difference between mean ranks ({how}); the studentized-range approximation is poor with"
                     f" {n} tasks (it gives CD {extra['critical_difference_asymptotic']:.3g})")
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
