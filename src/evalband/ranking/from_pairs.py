"""Ranks from pairwise comparisons on the tasks each pair shares (``rank(..., missing='common')`` on data where
some model lacks a task).

Models measured on different tasks have no common aggregate to rank; every pair still has a difference on the
tasks both have. The rank intervals of Klein, Wright & Wieczorek (2020) need only such pairwise decisions: model
k's rank lies in ``[1 + #models decidedly better, M - #models decidedly worse]``. Here

* ``rank``: 1 + the number of models whose observed difference over k (on their shared tasks) is positive (on
  complete data this is the competition rank of the aggregate);
* ``rank_low`` / ``rank_high``: for one model at a time, with Bonferroni over its ``M - 1`` pairs (each pair's
  two-sided bootstrap p-value below ``alpha / (M - 1)``, in the direction of its difference);
* ``rank_sim_low`` / ``rank_sim_high``: for all models at once, from the verdicts of the pairs under Holm over all
  pairs (which hold jointly);
* ``wins`` / ``losses``: pairs k decidedly wins or loses (jointly, as the simultaneous interval).

There is no replicate set shared by every model (each pair has its own), so no rank distribution and no P(best):
those need ``missing='ability'``, the latent-ability model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..display.reprs import displayed

__all__ = ["PairRanking", "rank_from_pairs"]


@displayed
@dataclass(frozen=True, repr=False)
class PairRanking:
    """Ranks of models from pairwise comparisons on shared tasks (see the module notes).

    Attributes
    ----------
    aggregate : str
    models : tuple of str
    rank, rank_low, rank_high, rank_sim_low, rank_sim_high, wins, losses, n_tasks : numpy.ndarray of int
    comparison : evalband.comparison.Comparison
        The pairs behind the ranks (``missing='common'``).
    confidence_level : float
    notes : tuple of str
    """

    aggregate: str
    models: tuple
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    rank_sim_low: np.ndarray
    rank_sim_high: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    n_tasks: np.ndarray
    comparison: object
    confidence_level: float
    notes: tuple = ()

    __display__ = {"columns": ("aggregate", "model", "rank", "rank_low", "rank_high", "rank_sim_low",
                               "rank_sim_high", "wins", "losses", "n_tasks"), "scale": 1.0, "value_cols": ()}

    @property
    def scale(self) -> float:
        """Display multiplier of the values shown (ranks and counts: 1)."""
        return 1.0

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: aggregate, model, rank, rank_low, rank_high, rank_sim_low, rank_sim_high,
        wins, losses, n_tasks (the model's tasks), p_best (NaN: no replicate set shared by every model),
        confidence_level."""
        frame = pd.DataFrame({"aggregate": self.aggregate, "model": list(self.models), "rank": self.rank,
                              "rank_low": self.rank_low, "rank_high": self.rank_high,
                              "rank_sim_low": self.rank_sim_low, "rank_sim_high": self.rank_sim_high,
                              "wins": self.wins, "losses": self.losses, "n_tasks": self.n_tasks,
                              "p_best": np.nan, "confidence_level": self.confidence_level})
        order = np.lexsort((self.losses - self.wins, self.rank))
        return frame.iloc[order].reset_index(drop=True)


def rank_from_pairs(comparison, n_tasks, *, confidence_level: float) -> tuple[PairRanking, ...]:
    """:class:`PairRanking` of each aggregate of a pairwise ``comparison`` (``missing='common'``, with Holm or
    Bonferroni); ``n_tasks`` (M,) the tasks of each model."""
    from ..comparison.multiplicity import adjust_p_values

    models = tuple(comparison.models)
    m = len(models)
    alpha = 1.0 - confidence_level
    out = []
    for pc in comparison.aggregates:
        ia, ib = np.asarray(pc.index_a), np.asarray(pc.index_b)
        diff = np.asarray(pc.difference, dtype=float)
        sign = diff if pc.higher_is_better else -diff
        ahead = np.zeros((m, m), dtype=bool)  # ahead[i, j]: i's observed value beats j's on their shared tasks
        ahead[ia[sign > 0], ib[sign > 0]] = True
        ahead[ib[sign < 0], ia[sign < 0]] = True
        basis = np.asarray(pc.verdict_basis if pc.verdict_basis is not None else ["bootstrap"] * len(diff))
        usable = (basis == "bootstrap") & np.isfinite(pc.p_value)
        p = np.asarray(pc.p_value, dtype=float)
        # one model at a time: Bonferroni over its m - 1 pairs
        marg = usable & (p < alpha / max(m - 1, 1))
        # all models at once: Holm over every pair
        p_holm = adjust_p_values(np.where(usable, p, np.nan), method="holm")
        joint = usable & (p_holm < alpha)
        better_m, better_j = (np.zeros((m, m), dtype=bool) for _ in range(2))
        for better, keep in ((better_m, marg), (better_j, joint)):
            up = keep & (sign > 0)
            down = keep & (sign < 0)
            better[ia[up], ib[up]] = True
            better[ib[down], ia[down]] = True
        rank = 1 + ahead.sum(axis=0)
        low_m, high_m = 1 + better_m.sum(axis=0), m - better_m.sum(axis=1)
        low_j, high_j = 1 + better_j.sum(axis=0), m - better_j.sum(axis=1)
        out.append(PairRanking(pc.statistic, models, rank, low_m, high_m, low_j, high_j, better_j.sum(axis=1),
                               better_j.sum(axis=0), np.asarray(n_tasks, dtype=np.int64), comparison,
                               float(confidence_level)))
    return tuple(out)
