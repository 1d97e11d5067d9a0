"""Judges and raters: agreement with intervals, judges against a reference, judge biases, and
prediction-powered inference (PPI / PPI++) for judge-scored evaluations.

* :func:`agreement` -- Krippendorff's alpha (all levels, missing ratings), Fleiss' and Cohen's kappa, percent
  agreement and Gwet's AC1, each with a seeded bootstrap interval over units (whole clusters when given);
* :func:`judge_reference` -- each judge against a reference rater (a human, or the crowd's consensus): accuracy,
  kappa, confusion matrix, mean bias, error correlation and the effective number of independent judges;
* :func:`position_bias`, :func:`length_bias` -- biases of pairwise judges;
* :func:`ppi_mean` (arrays), :func:`ppi_estimate` and :func:`ppi_compare` (results tables) -- the human-scale
  mean from many judge scores and few human labels, with PPI++ or classic PPI, and paired model differences.

Ratings are read by :func:`evalband.io.ratings.read_ratings` into a :class:`RatingsTable`.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "RatingsTable": "evalband.ratings", "LEVELS": "evalband.ratings",
    "agreement": "evalband.judges.interrater", "AgreementResult": "evalband.judges.interrater",
    "judge_reference": "evalband.judges.reference", "ReferenceResult": "evalband.judges.reference",
    "position_bias": "evalband.judges.bias", "length_bias": "evalband.judges.bias",
    "BiasResult": "evalband.judges.bias",
    "ppi_mean": "evalband.judges.ppi", "PPIMean": "evalband.judges.ppi",
    "ppi_estimate": "evalband.judges.ppi_table", "ppi_compare": "evalband.judges.ppi_table",
    "PPIEstimates": "evalband.judges.ppi_table", "PPIComparison": "evalband.judges.ppi_table",
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
