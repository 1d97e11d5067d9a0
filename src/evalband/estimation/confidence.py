"""Result objects shared across evalband (after SciPy's ``_common.py``).

Every estimator returns a frozen dataclass. Array fields are shaped as documented by each result; labels
(models, tasks) travel with the numbers so that ``.to_frame()`` can build a tidy pandas DataFrame. Nothing here
rounds: rounding happens only at display (:mod:`evalband.display`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ..display.reprs import displayed

__all__ = ["ConfidenceInterval"]


@displayed
@dataclass(frozen=True, repr=False)
class ConfidenceInterval:
    """Lower and upper ends of an interval; floats or arrays of one shape.

    Attributes
    ----------
    low, high : float or numpy.ndarray
        The interval ends (``-inf``/``inf`` for a one-sided interval).
    """

    low: float | np.ndarray
    high: float | np.ndarray

    def __iter__(self):
        # allows ``low, high = ci`` as with SciPy's ConfidenceInterval
        yield self.low
        yield self.high

    @property
    def width(self):
        """``high - low``."""
        return np.subtract(self.high, self.low)

    def contains(self, value) -> np.ndarray | bool:
        """Whether ``value`` lies inside the closed interval."""
        return np.logical_and(np.less_equal(self.low, value), np.less_equal(value, self.high))
