"""Rankings with uncertainty: rank distributions, mean rank, marginal and simultaneous rank intervals,
probability of being best and tiers, for any aggregate, from one bootstrap replicate set.

Main entry point: :func:`rank`; :func:`rank_models` works on a statistic's replicates directly.
"""

from .distribution import marginal_rank_intervals, probability_best, rank_distribution, ranks
from .ranking import SIMULTANEOUS, ModelRanking, Ranking, rank, rank_models
from .simultaneous import better_matrix, simultaneous_rank_intervals, tiers

__all__ = [
    "ModelRanking", "Ranking", "SIMULTANEOUS", "better_matrix", "marginal_rank_intervals", "probability_best",
    "rank", "rank_distribution", "rank_models", "ranks", "simultaneous_rank_intervals", "tiers",
]
