"""The result of :func:`evalband.latent.ability`: abilities on one scale for models measured on different tasks.

Everything is read from one set of replicates (bootstrap refits, or draws from the observed information):
abilities with intervals, ranks with marginal and simultaneous rank intervals, P(best) and tiers
(:func:`evalband.ranking.rank_models`), pairwise differences with verdicts and multiplicity control
(:func:`evalband.comparison.pairwise_differences`), per-task difficulty and slope, and predictions of every cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..display.reprs import displayed
from ..estimation.confidence import ConfidenceInterval
from ..display.notes import NoteKind
from ..display.numbers import format_percent

__all__ = ["AbilityResult"]


NOTE_ABILITY_HEADLINE = NoteKind(
    "latent.ability-headline", "info", "{n_models} models on {n_tasks} tasks ({measured:,} of {n_cells:,} cells"
    " measured), {model} model; best: {best} (P(best) {p_best_text}){holdout}")


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class AbilityResult:
    """Latent abilities of models measured on different tasks, with intervals, ranks and predictions.

    Attributes
    ----------
    model : {'sigmoid', 'rasch', '2pl'}
        The latent-ability model (``score = sigmoid(alpha_b (C_m - D_b))``; Rasch: every ``alpha_b = 1``; '2pl':
        item level).
    loss : str
        'binomial', 'fraction' or 'least-squares' (summary level), 'bernoulli' (item level).
    data_kind : {'counts', 'scores', 'items'}
    identification : str
        How the scale is fixed, in words ('abilities standardized to mean 0 and variance 1', or the anchor).
    anchor : tuple or None
        ``(task, difficulty, slope)`` of the anchor task.
    models, tasks : tuple of str
    ability : numpy.ndarray, shape (M,)
    samples : numpy.ndarray, shape (B, M)
        The abilities of every replicate (on the same scale).
    ranking : evalband.ranking.ModelRanking
        Interval, ranks, marginal and simultaneous rank intervals, P(best), tiers.
    comparisons : evalband.comparison.PairwiseComparison or None
        Every pair's ability difference with interval, p-value and verdict.
    difficulty, slope : numpy.ndarray, shape (T,)
    difficulty_ci, slope_ci : ConfidenceInterval
    difficulty_samples, slope_samples : numpy.ndarray, shape (B, T)
    n_tasks : numpy.ndarray of int, shape (M,)
        Tasks each model was measured on.
    n_models : numpy.ndarray of int, shape (T,)
        Models measured on each task.
    model_flags, task_flags : tuple of str
        Weak identification in words ('' when none).
    cells : pandas.DataFrame
        Every cell of the matrix: model, task, measured (bool), observed (NaN where not measured), n, predicted,
        pi_low, pi_high.
    holdout : HoldoutCheck or None
    dispersion : float
        Pearson dispersion of the fit (counts: 1 when cells vary binomially around the fit).
    uncertainty : {'bootstrap', 'information'}
    n_resamples : int
    confidence_level : float
    notes : tuple of str
    source : str
    attribution : str or None
    """

    model: str
    loss: str
    data_kind: str
    identification: str
    anchor: tuple | None
    models: tuple
    tasks: tuple
    ability: np.ndarray
    samples: np.ndarray
    ranking: object
    comparisons: object
    difficulty: np.ndarray
    slope: np.ndarray
    difficulty_ci: ConfidenceInterval
    slope_ci: ConfidenceInterval
    difficulty_samples: np.ndarray
    slope_samples: np.ndarray
    n_tasks: np.ndarray
    n_models: np.ndarray
    model_flags: tuple
    task_flags: tuple
    cells: pd.DataFrame
    holdout: object
    dispersion: float
    uncertainty: str
    n_resamples: int
    confidence_level: float
    notes: tuple = ()
    source: str = ""
    attribution: str | None = None

    __display__ = {"columns": ("model", "ability", "ci_low", "ci_high", "rank", "rank_low", "rank_high",
                               "p_best", "n_tasks", "flag"), "scale": 1.0,
                   "value_cols": ("ability", "se", "ci_low", "ci_high")}

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: model, ability, se, ci_low, ci_high, rank, rank_low, rank_high
        (marginal), rank_sim_low, rank_sim_high (simultaneous), p_best, tier, n_tasks, flag."""
        r = self.ranking
        frame = pd.DataFrame({
            "model": list(self.models), "ability": self.ability, "se": r.se,
            "ci_low": np.asarray(r.ci.low, dtype=float), "ci_high": np.asarray(r.ci.high, dtype=float),
            "rank": r.rank, "rank_low": r.rank_ci.low, "rank_high": r.rank_ci.high,
            "rank_sim_low": r.rank_simultaneous.low, "rank_sim_high": r.rank_simultaneous.high,
            "p_best": r.p_best, "tier": r.tier, "rank_mean": r.rank_mean, "n_tasks": self.n_tasks,
            "flag": list(self.model_flags), "confidence_level": self.confidence_level})
        order = np.lexsort((r.rank_mean, r.rank))
        return frame.iloc[order].reset_index(drop=True)

    def tasks_frame(self) -> pd.DataFrame:
        """One row per task, easiest first: difficulty and slope with intervals, models measured, flag."""
        frame = pd.DataFrame({
            "task": list(self.tasks), "difficulty": self.difficulty,
            "difficulty_low": np.asarray(self.difficulty_ci.low, dtype=float),
            "difficulty_high": np.asarray(self.difficulty_ci.high, dtype=float), "slope": self.slope,
            "slope_low": np.asarray(self.slope_ci.low, dtype=float),
            "slope_high": np.asarray(self.slope_ci.high, dtype=float), "n_models": self.n_models,
            "flag": list(self.task_flags), "confidence_level": self.confidence_level})
        return frame.iloc[np.argsort(self.difficulty, kind="stable")].reset_index(drop=True)

    def predictions(self, *, measured: bool = False) -> pd.DataFrame:
        """Predicted score of every cell not measured (with ``measured=True``, of every cell, beside the
        measured score): model, task, predicted, pi_low, pi_high (predictive interval), n."""
        frame = self.cells if measured else self.cells[~self.cells["measured"]]
        cols = ["model", "task", "predicted", "pi_low", "pi_high", "n"]
        if measured:
            cols[2:2] = ["measured", "observed"]
        return frame[cols].reset_index(drop=True)

    def comparisons_frame(self) -> pd.DataFrame:
        """Every pair of models: difference of abilities, interval, p-values and verdict."""
        return self.comparisons.to_frame() if self.comparisons is not None else pd.DataFrame()

    def headline(self) -> str:
        r = self.ranking
        best = int(np.argmin(r.rank_mean))
        return NOTE_ABILITY_HEADLINE(
            n_models=len(self.models), n_tasks=len(self.tasks), measured=int(self.cells['measured'].sum()),
            n_cells=len(self.cells), model=self.model, best=self.models[best], p_best=r.p_best[best],
            p_best_text=format_percent(r.p_best[best]),
            holdout="" if self.holdout is None else "; " + self.holdout.headline())
