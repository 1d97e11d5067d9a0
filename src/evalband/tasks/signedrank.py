"""Paired tests over tasks (Wilcoxon signed-rank or sign test) against a control or for all pairs, Holm-corrected.

Tasks are the sample: for each pair of models the per-task differences are tested for a zero median (signed-rank)
or for equal chances of winning (sign test). Holm's step-down procedure controls the family-wise error rate over
the pairs tested (Demsar 2006, sections 3.1.3 and 3.2.2; Garcia & Herrera 2008).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import ArgumentError, check_alternative, check_choice, check_confidence_level
from ..comparison.multiplicity import adjust_p_values
from ..comparison.verdict import VERDICTS
from ..comparison.pairs import control_pairs, pair_indices
from ._matrix import as_score_matrix, complete_cases
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["SignedRankResult", "signed_rank_tests", "pairs_for"]

METHODS = ("wilcoxon", "sign")


def pairs_for(models, control=None) -> list[tuple[int, int]]:
    """Index pairs (a, b): the control against each other model, or every unordered pair (the one enumeration,
    :mod:`evalband.comparison.pairs`)."""
    models = list(models)
    if control is None:
        a, b = pair_indices(len(models))
    else:
        if control not in models:
            shown = ", ".join(map(repr, models[:12])) + (" ..." if len(models) > 12 else "")
            raise ArgumentError(words('`{arg:control}`: unknown model {control!r}; available: {shown}.', control=control, shown=shown))
        a, b = control_pairs(len(models), models.index(control))
    return [(int(i), int(j)) for i, j in zip(a, b)]


@displayed


@dataclass(frozen=True, repr=False)
class SignedRankResult:
    """Pairwise tests over tasks, Holm-corrected.

    Attributes
    ----------
    model_a, model_b : tuple of str
        The pairs; ``model_a`` is the control when one was given. Differences are ``a - b``.
    statistic : numpy.ndarray
        SciPy's statistic: the Wilcoxon T (smaller rank sum when two-sided) or the number of tasks a wins (sign).
    p_value, p_value_adjusted : numpy.ndarray
        Raw and Holm-adjusted p-values.
    reject : numpy.ndarray of bool
        ``p_value_adjusted <= 1 - confidence_level``; also :attr:`significant`, the name every test over tasks
        gives this decision (the column of :meth:`to_frame`).
    median_difference : numpy.ndarray
    wins, ties, losses : numpy.ndarray of int
        Tasks where a scores higher, the same, lower (in the better direction).
    method : {'wilcoxon', 'sign'}
    control : str or None
    alternative : str
    confidence_level : float
    models, tasks, dropped_tasks, notes
    """

    model_a: tuple[str, ...]
    model_b: tuple[str, ...]
    statistic: np.ndarray
    p_value: np.ndarray
    p_value_adjusted: np.ndarray
    reject: np.ndarray
    median_difference: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    method: str
    control: str | None
    alternative: str
    confidence_level: float
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    dropped_tasks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: the side the data favour, per pair: +1 model_a, -1 model_b, 0 neither (the signed ranks' sum for the
    #: signed-rank test, wins - losses for the sign test), in the better direction
    direction: np.ndarray | None = None

    @property
    def verdict(self) -> np.ndarray:
        """Each pair's verdict in the words of every command: 'A better' / 'B better' where the Holm-adjusted
        test rejects (on the side the data favour), 'not yet decided' elsewhere."""
        side = np.sign(self.median_difference) if self.direction is None else np.asarray(self.direction)
        better = np.where(side > 0, VERDICTS[0], np.where(side < 0, VERDICTS[1], VERDICTS[3]))
        return np.where(np.asarray(self.reject, dtype=bool), better, VERDICTS[3])

    @property
    def significant(self) -> np.ndarray:
        """The pairs found different (``reject``), under the name every test over tasks uses."""
        return self.reject

    def significance_matrix(self) -> np.ndarray:
        """(n_models, n_models) bool: the pair was rejected (symmetric)."""
        k = len(self.models)
        sig = np.zeros((k, k), dtype=bool)
        idx = {m: i for i, m in enumerate(self.models)}
        for a, b, r in zip(self.model_a, self.model_b, self.reject):
            sig[idx[a], idx[b]] = sig[idx[b], idx[a]] = bool(r)
        return sig

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"model_a": list(self.model_a), "model_b": list(self.model_b),
                             "median_difference": self.median_difference, "wins": self.wins, "ties": self.ties,
                             "losses": self.losses, "statistic": self.statistic, "p_value": self.p_value,
                             "p_value_holm": self.p_value_adjusted, "significant": self.reject,
                             "verdict": self.verdict})


NOTE_PAIR_S_IDENTICAL_SCORES = NoteKind('tasks.pair-s-identical-scores', 'info',
                                         '{value} pair(s) with identical scores on every task: p = 1')
NOTE_SIGN_TEST_TIED_TASKS = NoteKind('tasks.sign-test-tied-tasks', 'excluded',
                                      'sign test: tied tasks dropped ({value} pair-task ties in all)')


def signed_rank_tests(scores, models=None, tasks=None, *, control=None, method: str = "wilcoxon",
                      alternative: str = "two-sided", confidence_level=0.95, zero_method: str = "wilcox",
                      higher_is_better: bool = True) -> SignedRankResult:
    """Wilcoxon signed-rank (or sign) tests over tasks, against a control or for all pairs, Holm-corrected.

    Parameters
    ----------
    scores : ResultsTable, ScoreMatrix, DataFrame or array_like, shape (n_models, n_tasks)
    models, tasks : sequence of str, optional
    control : str, optional
        Compare this model with each other one (k - 1 tests); default every pair (k (k - 1) / 2 tests).
    method : {'wilcoxon', 'sign'}, default 'wilcoxon'
        The sign test only counts wins and losses (ties dropped) and assumes nothing about the size of the
        differences; the signed-rank test uses their ranks and assumes their distribution is symmetric.
    alternative : {'two-sided', 'less', 'greater'}
        For ``a - b`` in the better direction: 'greater' tests that a is better than b.
    confidence_level : float, default 0.95
        Family-wise: pairs with Holm-adjusted p <= 1 - confidence_level are rejected.
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        How :func:`scipy.stats.wilcoxon` treats tasks with zero difference ('zsplit' is Demsar's advice).
    higher_is_better : bool, default True

    Returns
    -------
    SignedRankResult

    Notes
    -----
    Tasks are assumed independent; the signed-rank test also compares differences across tasks, so the scores
    must be commensurable (e.g. all accuracies). Exact null distributions are used by SciPy for small samples
    without ties, a normal approximation otherwise. Tasks where some model has no score are dropped (complete
    cases, named in ``dropped_tasks``).

    References
    ----------
    Demsar, J. (2006). JMLR 7, 1-30.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 65-70.
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin 1, 80-83.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> scores = np.array([[0.81, 0.62, 0.70, 0.55, 0.90], [0.78, 0.60, 0.66, 0.50, 0.85], [0.70, 0.52, 0.61, 0.49, 0.86]])
    >>> res = eb.signed_rank_tests(scores, models=["a", "b", "c"])
    >>> res.model_a, res.model_b
    (('a', 'a', 'b'), ('b', 'c', 'c'))
    """
    method = check_choice(method, METHODS, "method")
    alternative = check_alternative(alternative)
    level = check_confidence_level(confidence_level)
    zero_method = check_choice(zero_method, ("wilcox", "pratt", "zsplit"), "zero_method")
    m = complete_cases(as_score_matrix(scores, models, tasks), min_tasks=2, what="signed-rank tests")
    if m.n_models < 2:
        raise ArgumentError(f"signed-rank tests need at least 2 models; got {m.n_models}.")
    pairs = pairs_for(m.models, control)
    ia = np.array([a for a, _ in pairs])
    ib = np.array([b for _, b in pairs])
    sign = 1.0 if higher_is_better else -1.0
    d = sign * (m.scores[ia] - m.scores[ib])  # (n_pairs, n_tasks), positive = a better
    wins = (d > 0).sum(axis=1)
    losses = (d < 0).sum(axis=1)
    ties = (d == 0).sum(axis=1)
    notes = list(m.notes)
    if method == "wilcoxon":
        stat = np.full(len(pairs), np.nan)
        pval = np.full(len(pairs), np.nan)
        # SciPy refuses a pair whose differences are all zero; such a pair has p = 1 (no evidence)
        nonzero = (wins + losses) > 0
        # one call per pair (pairs, not replicates): SciPy picks exact or normal per call, and a batched call
        # would choose one method for every pair at once
        for i in np.flatnonzero(nonzero):
            res = stats.wilcoxon(d[i], zero_method=zero_method, alternative=alternative)
            stat[i], pval[i] = float(res.statistic), float(res.pvalue)
        if (~nonzero).any():
            pval[~nonzero] = 1.0
            stat[~nonzero] = 0.0
            notes.append(NOTE_PAIR_S_IDENTICAL_SCORES(value=int((~nonzero).sum())))
    else:
        n_eff = wins + losses
        stat = wins.astype(float)
        pval = np.ones(len(pairs))
        for i in np.flatnonzero(n_eff > 0):  # one exact binomial test per pair (pairs, not replicates)
            pval[i] = stats.binomtest(int(wins[i]), int(n_eff[i]), 0.5, alternative=alternative).pvalue
        if ties.any():
            notes.append(NOTE_SIGN_TEST_TIED_TASKS(value=int(ties.sum())))
    padj = adjust_p_values(pval, method="holm")
    names = np.asarray(m.models, dtype=object)
    return SignedRankResult(tuple(names[ia]), tuple(names[ib]), stat, pval, padj, padj <= 1 - level,
                            np.median(d, axis=1) * sign, wins, ties, losses, method, control, alternative, level,
                            m.models, m.tasks, m.dropped_tasks, tuple(notes),
                            direction=_direction(d, method))


def _direction(d: np.ndarray, method: str) -> np.ndarray:
    """+1 where the differences favour model_a, -1 model_b, 0 neither: the sign of the signed ranks' sum
    (R+ - R-, zero differences left out) for the signed-rank test, of wins - losses for the sign test."""
    if method == "sign":
        return np.sign((d > 0).sum(axis=1) - (d < 0).sum(axis=1))
    out = np.zeros(len(d))
    for i, row in enumerate(d):  # one ranking per pair (pairs, not replicates)
        nz = row[row != 0]
        if nz.size:
            out[i] = np.sign(np.sum(stats.rankdata(np.abs(nz)) * np.sign(nz)))
    return out
