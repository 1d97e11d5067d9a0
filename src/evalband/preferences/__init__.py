"""Preference leaderboards with honest intervals: Bradley-Terry (with tie models and style control), Elo and win
rates, from pairwise battles, with a seeded bootstrap that resamples whole questions.

Main entry point: :func:`arena` (``evalband.arena``). The pieces it is built from are public too:
:class:`BattleTable` (validated battles and their compression to sums per unit and pair), :func:`fit_pairs`
(exact maximum likelihood vectorized over replicates), :func:`online_elo`, :func:`baseline_win_rates`,
:func:`average_win_rate`, :func:`fit_style`, :func:`resampling_units` and :class:`ClusterBootstrap`.
"""

from ..data.battles import BattleTable, PairSums
from .bradley_terry import RIDGE, TIES, NewtonFit, fit_pairs, mle_exists
from .core import INTERVALS, METHODS, arena
from .elo import bootstrap_elo, online_elo
from ..resample.battles import ClusterBootstrap, Units, resampling_units
from .result import ArenaResult
from .scales import ELO_PER_LOGIT, SCALES, to_scale
from .style import fit_style, style_design
from .winrate import average_win_rate, baseline_win_rates, length_controlled_win_rates

__all__ = [
    "ArenaResult", "BattleTable", "ClusterBootstrap", "ELO_PER_LOGIT", "INTERVALS", "METHODS", "NewtonFit",
    "PairSums", "RIDGE", "SCALES", "TIES", "Units", "arena", "average_win_rate", "baseline_win_rates",
    "bootstrap_elo", "fit_pairs", "fit_style", "length_controlled_win_rates", "mle_exists", "online_elo",
    "resampling_units", "style_design", "to_scale",
]
