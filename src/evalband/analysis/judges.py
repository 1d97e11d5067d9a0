"""The judges' analysis of a report (:mod:`evalband.analysis.extensions`): the prediction-powered estimates of
every model on every task when the selection's results carry human labels."""

from __future__ import annotations

__all__ = ["human_labels"]


def human_labels(selection, *, aggregate, n_resamples, confidence_level, rng, replicates=None):
    """:class:`~evalband.judges.PPIEstimates` of the selection analysed, at the report's confidence level, with
    the method of its replicate set; None without human labels.

    Raises :class:`~evalband.analysis.extensions.Skip` when the labels are there but the report was asked for the
    judge's scores at face value (``ppi='none'``).
    """
    from .extensions import Skip
    from ..estimation.ppi_table import ppi_estimate

    table = getattr(selection, "table", None)
    if getattr(table, "level", None) != "item" or "human" not in table.measures:
        return None
    method = getattr(replicates, "statistic", None) if getattr(replicates, "ppi", None) is not None else None
    if method is None:
        raise Skip("the report reads the judge's scores at face value (ppi='none'), so the human labels are not"
                   " used")
    return ppi_estimate(selection, method=method, confidence_level=confidence_level,
                        cluster=replicates.unit == "cluster")
