"""The bundled examples (:mod:`evalband.io.example_data` holds the files and their attribution), read by name."""

from __future__ import annotations

from importlib import resources

from .._validate import ArgumentError
from .example_data import ATTRIBUTION, EXAMPLES
from ..data.table import ResultsTable

__all__ = ["load_example"]


def load_example(name: str) -> ResultsTable:
    """Load a bundled example by name ('vtab' or 'mmlu-pro').

    Returns
    -------
    ResultsTable
        With ``attribution`` set to the line that must stay beside any copy of the data.

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("vtab")
    >>> len(table.models), len(table.tasks), table.level
    (16, 19, 'summary')
    """
    from .tabular import read_tabular

    key = str(name).strip().lower().replace("_", "-")
    if key not in ATTRIBUTION:
        raise ArgumentError(f"unknown example {name!r}; available: {', '.join(EXAMPLES)}.")
    data = resources.files("evalband.io.example_data") / "data"
    if key == "vtab":
        with resources.as_file(data / "vtab.csv") as path:
            # both columns: counts are used, the 3-significant-figure accuracies are checked against them
            table = read_tabular(path, shape="summary")
    else:
        with resources.as_file(data / "mmlu_pro.csv.gz") as path:
            table = read_tabular(path, shape="wide", item_col="question_id", task_col="category",
                                 cluster_col="src", group_col=None,
                                 models=_mmlu_models(path))
    source = f"example '{key}'"
    return ResultsTable(table.data, table.level, table.score_kind, source, table.notes, ATTRIBUTION[key],
                        table.has_trials)


def _mmlu_models(path) -> list[str]:
    import pandas as pd

    cols = pd.read_csv(path, nrows=0).columns
    return [c for c in cols if c not in ("question_id", "category", "src", "answer_key_varies")]
