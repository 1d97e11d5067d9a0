"""The bundled examples (:mod:`evalband.io.example_data` holds the files and their attribution), read by name."""

from __future__ import annotations

from importlib import resources

from .._validate import ArgumentError
from .example_data import ATTRIBUTION, CELL_EXAMPLES, EXAMPLES
from ..data.table import ResultsTable

__all__ = ["load_example", "cell_example", "is_cell_example"]


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
    if key in CELL_EXAMPLES:
        raise ArgumentError(f"example '{key}' holds one score per (model, task) cell without item counts: a results"
                            f" table needs items or counts; read it with `evalband ability --example {key}` (Python:"
                            f" evalband.ability('example:{key}'))")
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


def is_cell_example(name) -> bool:
    """Whether ``name`` is a bundled example of cell scores (:data:`evalband.io.example_data.CELL_EXAMPLES`)."""
    return str(name).strip().lower().replace("_", "-") in CELL_EXAMPLES


def cell_example(name: str):
    """A bundled example of cell scores (``model, task, score``) as a frame whose ``attrs`` hold its ``source``
    and ``attribution`` (the frame :func:`evalband.ability` reads).

    Examples
    --------
    >>> from evalband.io.examples import cell_example
    >>> frame = cell_example("epoch")
    >>> frame.columns.tolist(), frame["model"].nunique()
    (['model', 'task', 'score'], 179)
    """
    from .cell_scores import read_cell_scores

    key = str(name).strip().lower().replace("_", "-")
    if key not in CELL_EXAMPLES:
        raise ArgumentError(f"unknown example of cell scores {name!r}; available: {', '.join(CELL_EXAMPLES)}.")
    data = resources.files("evalband.io.example_data") / "data"
    with resources.as_file(data / f"{key}_scores.csv") as path:
        frame = read_cell_scores(path)
    frame.attrs.update(source=f"example '{key}'", attribution=ATTRIBUTION[key],
                       notes=[n for n in frame.attrs.get("notes", ()) if not n.startswith("column")])
    return frame
