"""Judges and raters: agreement with intervals, judges against a reference, judge biases, and
prediction-powered inference (PPI / PPI++) for judge-scored evaluations.

* :func:`agreement` -- Krippendorff's alpha (all levels, missing ratings), Fleiss' and Cohen's kappa, percent
  agreement and Gwet's AC1, each with a seeded bootstrap interval over units (whole clusters when given);
* :func:`judge_reference` -- each judge against a reference rater (a human, or the crowd's consensus): accuracy,
  kappa, confusion matrix, mean bias, error correlation and the effective number of independent judges;
* :func:`position_bias`, :func:`length_bias` -- biases of pairwise judges;
* :func:`ppi_mean` (arrays), :func:`ppi_estimate` and :func:`ppi_compare` (results tables) -- the human-scale
  mean from many judge scores and few human labels, with PPI++ or classic PPI, and paired model differences.

* :mod:`evalband.resample.ppi` -- the one rule for results with human labels: ``evalband.estimate``,
  the bootstrap engine and so compare, rank, analyze and the report target the human-scale mean by PPI
  (``ppi=``).

Every function takes what :func:`evalband.select` takes (ratings with ``source='ratings'``, read into a
:class:`RatingsTable`; results with a ``human`` measure for PPI) or the selection it made.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "RatingsTable": "evalband.data.ratings", "LEVELS": "evalband.data.ratings",
    "agreement": "evalband.judges.interrater", "AgreementResult": "evalband.judges.interrater",
    "judge_reference": "evalband.judges.reference", "ReferenceResult": "evalband.judges.reference",
    "position_bias": "evalband.judges.bias", "length_bias": "evalband.judges.bias",
    "BiasResult": "evalband.judges.bias",
    "ppi_mean": "evalband.estimation.ppi", "PPIMean": "evalband.estimation.ppi",
    "ppi_estimate": "evalband.estimation.ppi_table", "ppi_compare": "evalband.judges.ppi_comparison",
    "ppi_replicates": "evalband.resample.ppi", "PPIReplicates": "evalband.resample.ppi",
    "PPIEstimates": "evalband.estimation.ppi_table", "PPIComparison": "evalband.judges.ppi_comparison",
    "read_ratings": "evalband.io.ratings",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'evalband.judges' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
