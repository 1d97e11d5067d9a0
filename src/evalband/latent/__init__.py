"""Latent-ability models for sparse leaderboards and item diagnostics.

:func:`ability` puts models measured on different tasks on one scale (``score = sigmoid(alpha_b (C_m - D_b))``,
Epoch AI's benchmark stitching), with intervals, ranks, rank intervals, P(best), pairwise verdicts and predictions
of the cells not measured. :func:`items` fits the two-parameter logistic model to item-level responses and flags
the items that carry no information or look miskeyed.

The package is named ``latent`` (not ``ability``), and its modules ``abilities`` and ``diagnostics``, so that
``evalband.ability`` and ``evalband.items`` (and ``evalband.latent.ability``, ``evalband.latent.items``) stay the
functions.
"""

from .abilities import CORRECTIONS, LOSSES, MODELS, ability
from .diagnostics import ItemsResult, items
from .predict import HoldoutCheck
from .result import AbilityResult

__all__ = ["AbilityResult", "CORRECTIONS", "HoldoutCheck", "ItemsResult", "LOSSES", "MODELS", "ability", "items"]
