"""The analysis of pairwise battles: a preference leaderboard (:func:`evalband.arena`) from one seeded,
clustered bootstrap, held by an :class:`~evalband.analysis.Analysis` of kind ``'preference'``.

:func:`evalband.analyze` sends a selection of battles here. The leaderboard is the capability registered as
``'arena'`` in :data:`evalband.analysis.extensions.EXTENSIONS` (:func:`arena_extension`: None for results that are
not battles), so it lives in :attr:`Analysis.extras` like every capability's result, and the report renders it
with the section builder registered under the same key.
"""

from __future__ import annotations

from .._validate import ArgumentError

__all__ = ["arena_extension", "preference_analysis", "is_battles"]


def is_battles(selection) -> bool:
    """Whether a selection holds pairwise battles (a BattleTable)."""
    return type(getattr(selection, "table", None)).__name__ == "BattleTable"


def arena_extension(selection, *, aggregate, n_resamples, confidence_level, rng, replicates=None):
    """The preference leaderboard of a selection of battles (:class:`~evalband.preferences.ArenaResult`), or
    None when the selection holds no battles.

    Bradley-Terry with ties as half wins, whole questions resampled when the battles name them; with style
    features in the battles (answer lengths, markdown counts) the ratings are style-controlled and the raw ones
    are kept beside them (``rating_raw``), from the same replicates.
    """
    if not is_battles(selection):
        return None
    from ..preferences import arena

    options = dict(n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    features = sorted(selection.table.features)
    if features:
        try:
            return arena(selection, style=features, **options)
        except ArgumentError as exc:  # features that cannot control the fit (constant, ...): without them
            result = arena(selection, **options)
            note = f"style control on {', '.join(features)} not fitted ({exc}); ratings without style control"
            object.__setattr__(result, "notes", result.notes + (note,))
            return result
    return arena(selection, **options)


def preference_analysis(sel, *, n_resamples: int | None, confidence_level: float, seed: int):
    """The :class:`~evalband.analysis.Analysis` of kind 'preference' of a selection of battles."""
    from ..preferences.result import METHOD_NAMES
    from .core import Analysis
    from .extensions import EXTENSIONS, run_extensions

    # only the capability that reads battles: the others analyse results tables
    extras, skipped = run_extensions(sel, aggregate="rating", n_resamples=n_resamples,
                                     confidence_level=confidence_level, rng=seed,
                                     registry={"arena": EXTENSIONS.get("arena", ("Preference leaderboard",
                                                                                  arena_extension))})
    result = dict(extras)["arena"]
    return Analysis("preference", sel, METHOD_NAMES[result.method], confidence_level, result.n_resamples, seed,
                    skipped=tuple(skipped), notes=tuple(sel.notes), extras=extras)
