"""evalband: honest error bars for machine-learning evaluation results.

The public API is curated here; modules with a leading underscore are private.
"""

from __future__ import annotations

from ._validate import InputError
from .examples import load_example
from .io import read
from .results import ConfidenceInterval
from .table import Counts, ResultsTable, TaskData

__version__ = "0.1.0"

__all__ = [
    "ConfidenceInterval",
    "Counts",
    "InputError",
    "ResultsTable",
    "TaskData",
    "load_example",
    "read",
    "__version__",
]
