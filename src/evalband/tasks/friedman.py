"""Friedman test over tasks with the Iman-Davenport correction (and Skillings-Mack's with missing cells); the Nemenyi
post-hoc critical difference that follows it is in :mod:`evalband.tasks.posthoc`.

Tasks are the sample: each task ranks the models (1 = best, ties get midranks) and the test asks whether the mean
ranks differ more than chance would make them (Demsar 2006, section 3.2.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, InputError, check_choice
from ._matrix import as_score_matrix, rank_matrix, ranked_cases, tie_counts
from .friedman_exact import SMALL_N_TASKS, friedman_permutation_p_value
from .skillings_mack import skillings_mack_statistic
# the post-hoc test (NemenyiResult, nemenyi and cliques_from_significance stay importable from here)
from .posthoc import NemenyiResult, cliques_from_significance, nemenyi
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
    m = ranked_cases(scores, models, tasks, "the Friedman test")
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
