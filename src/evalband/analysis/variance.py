"""The variance capability's adapter for the report and analyze(): the facet summary of a selection, with the
replicates the analysis shares (registered in :mod:`evalband.analysis.extensions`)."""

from __future__ import annotations

from ..selection.facet_design import random_facets
from ..facets.summary import RUN_FACET, facet_summary

__all__ = ["variance_extension"]


def variance_extension(selection, *, aggregate, n_resamples, confidence_level, rng, replicates=None):
    """The report's "Where the variance comes from" (:mod:`evalband.analysis.extensions`): None without a random
    facet crossed with items."""
    table = selection.table
    if table is None or getattr(table, "level", None) != "item" or not getattr(table, "facets", ()):
        return None
    if not random_facets(selection) and RUN_FACET not in table.facets:
        return None
    return facet_summary(selection, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
