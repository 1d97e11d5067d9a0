"""Repeated-measures ANOVA over tasks with its assumptions checked, and Tukey's HSD for all pairs.

The parametric counterpart of the Friedman test: tasks are the subjects, models the within-subject factor. It
uses the sizes of the differences (not only their order), and so needs (i) sphericity, checked with Mauchly's test
and measured by the Greenhouse-Geisser epsilon, and (ii) normal residuals, checked with Shapiro-Wilk. Both checks
are reported; ``assumptions_hold`` says whether neither rejects at the chosen level (Demsar 2006, section 3.2.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, check_confidence_level
from ._matrix import as_score_matrix, complete_cases
from ..comparison.verdict import VERDICTS
from ..display.reprs import displayed
from ..display.notes import NoteKind

__all__ = ["RMAnovaResult", "rm_anova", "mauchly", "greenhouse_geisser", "tukey_hsd_from_mse"]


def _contrast_cov(x: np.ndarray) -> np.ndarray:
    """Covariance (ddof=1) over tasks of k - 1 orthonormal contrasts of the k models; x is (k, n)."""
    k = x.shape[0]
    # orthonormal basis of the contrasts (columns orthogonal to the ones vector)
    helmert = np.linalg.qr(np.column_stack([np.ones(k), np.eye(k)[:, : k - 1]]))[0][:, 1:]
    y = x.T @ helmert  # (n, k - 1)
    return np.atleast_2d(np.cov(y, rowvar=False, ddof=1))


def greenhouse_geisser(x) -> float:
    """Greenhouse-Geisser epsilon of a (models x tasks) matrix: 1 under sphericity, down to 1 / (k - 1).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import greenhouse_geisser
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(0.4, 0.9, size=(4, 12))
    >>> round(greenhouse_geisser(x), 3)
    0.838
    """
    s = _contrast_cov(np.asarray(x, dtype=float))
    p = s.shape[0]
    tr = np.trace(s)
    tr2 = np.trace(s @ s)
    return float(tr * tr / (p * tr2)) if tr2 > 0 else 1.0


def mauchly(x) -> tuple[float, float, float, float]:
    """Mauchly's test of sphericity of a (models x tasks) matrix: (W, chi2, df, p_value).

    With 2 models sphericity holds trivially (W = 1, p = 1). With no more tasks than models - 1 the contrast
    covariance is singular and the test is undefined (NaN). The p-value uses the chi-square approximation with
    its second-order correction (Anderson 2003, section 10.7.4), as R's ``mauchly.test`` does.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import mauchly
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(0.4, 0.9, size=(4, 12))
    >>> w, chi2, df, p = mauchly(x)
    >>> round(w, 3), round(chi2, 3), df, round(p, 3)
    (0.718, 3.22, 5.0, 0.668)
    """
    x = np.asarray(x, dtype=float)
    k, n = x.shape
    p = k - 1
    if p < 2:
        return 1.0, 0.0, 0.0, 1.0
    df = p * (p + 1) / 2.0 - 1.0
    if n <= p:
        return np.nan, np.nan, df, np.nan
    s = _contrast_cov(x)
    tr = np.trace(s)
    sign, logdet = np.linalg.slogdet(s)
    if sign <= 0 or tr <= 0:
        return 0.0, np.inf, df, 0.0
    log_w = logdet - p * np.log(tr / p)
    f = 1.0 - (2 * p * p + p + 2) / (6.0 * p * (n - 1))
    chi2 = -(n - 1) * f * log_w
    # second-order term of the chi-square approximation, with k (not p) in it as R's mauchly.test has it
    w2 = (p + 2) * (p - 1) * (p - 2) * (2 * p ** 3 + 6 * p ** 2 + 3 * k + 2) / (288.0 * ((n - 1) * p * f) ** 2)
    p1, p2 = stats.chi2.sf(chi2, df), stats.chi2.sf(chi2, df + 4)
    p_value = float(np.clip(p1 + w2 * (p2 - p1), 0.0, 1.0))
    return float(np.exp(log_w)), float(chi2), df, p_value


def tukey_hsd_from_mse(means, mse: float, n: int, df: float, *, confidence_level: float = 0.95):
    """Tukey HSD for all pairs of k means of n observations each, given the error mean square and its df.

    Returns (difference i - j, p_value, low, high), each (k, k).
    """
    means = np.asarray(means, dtype=float)
    k = means.size
    se = np.sqrt(mse / n)
    diff = means[:, None] - means[None, :]
    p_values = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    if se > 0:
        pv = stats.studentized_range.sf(np.abs(diff[iu]) / se, k, df)
        p_values[iu] = pv
        p_values[(iu[1], iu[0])] = pv
    else:
        p_values[iu] = p_values[(iu[1], iu[0])] = np.where(diff[iu] == 0, 1.0, 0.0)
    half = stats.studentized_range.ppf(confidence_level, k, df) * se
    return diff, np.clip(p_values, 0, 1), diff - half, diff + half


@displayed


@dataclass(frozen=True, repr=False)
class RMAnovaResult:
    """One-way repeated-measures ANOVA (tasks as subjects) with assumption checks and Tukey HSD.

    Attributes
    ----------
    statistic, p_value : float
        F and its p-value on (df1, df2) = (k - 1, (k - 1)(N - 1)).
    p_value_gg : float
        p-value with both dfs multiplied by the Greenhouse-Geisser epsilon.
    epsilon_gg : float
    mauchly_w, mauchly_chi2, mauchly_df, mauchly_p_value : float
    shapiro_w, shapiro_p_value : float
        Shapiro-Wilk test of the residuals x_ij - model mean - task mean + grand mean.
    assumptions_hold : bool
        Neither Mauchly nor Shapiro-Wilk rejects at 1 - confidence_level (when Mauchly's test is undefined, with
        no more tasks than models - 1, sphericity is taken to hold when the Greenhouse-Geisser epsilon is at
        least 0.75).
    means : numpy.ndarray, shape (n_models,)
    mse : float
        Error mean square (model x task interaction).
    tukey_difference, tukey_p_value, tukey_low, tukey_high : numpy.ndarray, shape (n_models, n_models)
        Tukey HSD with the repeated-measures error term: difference row - column, p-value, simultaneous interval.
    confidence_level : float
    models, tasks, dropped_tasks, notes
    """

    statistic: float
    p_value: float
    df1: float
    df2: float
    p_value_gg: float
    epsilon_gg: float
    mauchly_w: float
    mauchly_chi2: float
    mauchly_df: float
    mauchly_p_value: float
    shapiro_w: float
    shapiro_p_value: float
    assumptions_hold: bool
    means: np.ndarray
    mse: float
    tukey_difference: np.ndarray
    tukey_p_value: np.ndarray
    tukey_low: np.ndarray
    tukey_high: np.ndarray
    confidence_level: float
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    dropped_tasks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """Tukey HSD, one row per pair: model_a, model_b, difference (a - b), low, high, p_value, significant and
        its verdict in the words of every command (higher scores are better)."""
        i, j = np.triu_indices(len(self.models), 1)
        names = np.asarray(self.models, dtype=object)
        p = self.tukey_p_value[i, j]
        significant = p <= 1 - self.confidence_level
        better = np.where(self.tukey_difference[i, j] > 0, VERDICTS[0], VERDICTS[1])
        return pd.DataFrame({"model_a": names[i], "model_b": names[j], "difference": self.tukey_difference[i, j],
                             "low": self.tukey_low[i, j], "high": self.tukey_high[i, j], "p_value": p,
                             "significant": significant, "verdict": np.where(significant, better, VERDICTS[3])})

    def summary(self) -> str:
        verdict = "hold" if self.assumptions_hold else "do NOT hold (prefer the Friedman test)"
        return (f"RM-ANOVA F({self.df1:g}, {self.df2:g}) = {self.statistic:.4g}, p = {self.p_value:.3g}"
                f" (Greenhouse-Geisser epsilon {self.epsilon_gg:.3g}, corrected p = {self.p_value_gg:.3g});"
                f" Mauchly W = {self.mauchly_w:.3g}, p = {self.mauchly_p_value:.3g}; Shapiro-Wilk on residuals"
                f" W = {self.shapiro_w:.3g}, p = {self.shapiro_p_value:.3g}: assumptions {verdict}")


NOTE_NO_RESIDUAL_VARIATION_F = NoteKind('tasks.no-residual-variation-f', 'info',
                                         'no residual variation: F is undefined or infinite')
NOTE_MAUCHLY_S_TEST_NEEDS = NoteKind(
    'tasks.mauchly-s-test-needs', 'caveat',
    "Mauchly's test needs more tasks than models - 1 ({n} tasks, {k} models): not computed")
NOTE_SHAPIRO_WILK_NEEDS_LEAST = NoteKind('tasks.shapiro-wilk-needs-least', 'caveat',
                                          'Shapiro-Wilk needs at least 3 non-constant residuals: not computed')
NOTE_SPHERICITY_JUDGED_FROM_GREENHOUSE = NoteKind(
    'tasks.sphericity-judged-from-greenhouse', 'info',
    'sphericity judged from the Greenhouse-Geisser epsilon ({eps:.3g}; >= 0.75 taken as near-spherical)')


def rm_anova(scores, models=None, tasks=None, *, confidence_level=0.95) -> RMAnovaResult:
    """Repeated-measures ANOVA of models over tasks, with sphericity and normality checks and Tukey HSD.

    Parameters
    ----------
    scores : ResultsTable, ScoreMatrix, DataFrame or array_like, shape (n_models, n_tasks)
    models, tasks : sequence of str, optional
    confidence_level : float, default 0.95
        Level of the Tukey intervals; 1 - confidence_level is the level of the assumption checks.

    Returns
    -------
    RMAnovaResult

    Notes
    -----
    Valid when the per-task differences between models are normal with equal variances of all pairwise
    differences (sphericity). Scores on different tasks are often not commensurable and not normal (Demsar 2006
    advises against ANOVA over data sets); the checks are reported so the user can fall back on the Friedman
    test, and when sphericity fails the Greenhouse-Geisser corrected p-value should be read. Tukey's HSD here uses
    the pooled interaction error term, which assumes sphericity. Missing cells: complete cases only.

    References
    ----------
    Mauchly, J. W. (1940). Significance test for sphericity of a normal n-variate distribution. Ann. Math.
    Statist. 11, 204-209.
    Greenhouse, S. W. & Geisser, S. (1959). On methods in the analysis of profile data. Psychometrika 24, 95-112.
    Anderson, T. W. (2003). An Introduction to Multivariate Statistical Analysis, 3rd ed. Wiley.
    Tukey, J. W. (1949). Comparing individual means in the analysis of variance. Biometrics 5, 99-114.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> scores = np.array([[0.81, 0.62, 0.70, 0.55, 0.90], [0.78, 0.60, 0.66, 0.50, 0.85], [0.70, 0.52, 0.61, 0.49, 0.86]])
    >>> res = eb.rm_anova(scores, models=["a", "b", "c"])
    >>> round(float(res.statistic), 2), round(float(res.p_value), 4)
    (17.86, 0.0011)
    """
    level = check_confidence_level(confidence_level)
    m = complete_cases(as_score_matrix(scores, models, tasks), min_tasks=2, what="repeated-measures ANOVA")
    x = m.scores
    k, n = x.shape
    if k < 2:
        raise ArgumentError(f"repeated-measures ANOVA needs at least 2 models; got {k}.")
    grand = x.mean()
    model_means = x.mean(axis=1)
    task_means = x.mean(axis=0)
    resid = x - model_means[:, None] - task_means[None, :] + grand
    ss_models = n * np.sum((model_means - grand) ** 2)
    ss_error = np.sum(resid ** 2)
    df1, df2 = k - 1.0, (k - 1.0) * (n - 1.0)
    mse = ss_error / df2
    notes = list(m.notes)
    if mse > 0:
        f_stat = (ss_models / df1) / mse
    else:
        f_stat = np.inf if ss_models > 0 else np.nan
        notes.append(NOTE_NO_RESIDUAL_VARIATION_F())
    p = float(stats.f.sf(f_stat, df1, df2)) if np.isfinite(f_stat) else (0.0 if f_stat == np.inf else np.nan)
    eps = greenhouse_geisser(x) if k > 2 else 1.0
    p_gg = float(stats.f.sf(f_stat, eps * df1, eps * df2)) if np.isfinite(f_stat) else p
    w, chi2, mdf, mp = mauchly(x)
    if np.isnan(mp):
        notes.append(NOTE_MAUCHLY_S_TEST_NEEDS(n=n, k=k))
    r = resid.ravel()
    if r.size >= 3 and np.ptp(r) > 0:
        sw = stats.shapiro(r)
        sw_w, sw_p = float(sw.statistic), float(sw.pvalue)
    else:
        sw_w, sw_p = np.nan, np.nan
        notes.append(NOTE_SHAPIRO_WILK_NEEDS_LEAST())
    alpha = 1 - level
    if np.isnan(mp):
        # Mauchly's test is undefined: fall back on the size of the Greenhouse-Geisser epsilon
        spherical = eps >= 0.75
        notes.append(NOTE_SPHERICITY_JUDGED_FROM_GREENHOUSE(eps=eps))
    else:
        spherical = mp > alpha
    holds = bool(spherical and not np.isnan(sw_p) and sw_p > alpha)
    diff, tp, lo, hi = tukey_hsd_from_mse(model_means, mse, n, df2, confidence_level=level)
    return RMAnovaResult(float(f_stat), p, df1, df2, p_gg, float(eps), w, chi2, mdf, mp, sw_w, sw_p, holds,
                         model_means, float(mse), diff, tp, lo, hi, level, m.models, m.tasks, m.dropped_tasks,
                         tuple(notes))
