"""Bundled example datasets, loadable by name from the API (``load_example``) and the CLI (``--example``).

===========  =====================================================================================
name         contents
===========  =====================================================================================
vtab         VTAB-1k: 16 models x 19 tasks in 3 groups (natural, specialized, structured), summary
             level, as Longjohn, Gopalan & Casleton (2025) used it: test-set sizes, accuracies rounded
             to 3 significant figures, correct = floor(n * accuracy).
mmlu-pro     MMLU-Pro: 29 models x 12,032 questions, 0/1 per question; task = category (14),
             cluster = src (91 sub-sources). Blank cells (a model without an answer row) are left out
             and counted.
===========  =====================================================================================
"""

from __future__ import annotations

from importlib import resources

from ..table import ResultsTable

__all__ = ["load_example", "EXAMPLES", "ATTRIBUTION"]

ATTRIBUTION = {
    "vtab": ("Data from google-research/task_adaptation (Apache License 2.0), Zhai et al., A Large-scale Study of"
             " Representation Learning with the Visual Task Adaptation Benchmark, arXiv:1910.04867."),
    "mmlu-pro": "Per-question results from TIGER-AI-Lab/MMLU-Pro (Apache License 2.0).",
}

EXAMPLES = tuple(ATTRIBUTION)


def load_example(name: str) -> ResultsTable:
    """Load a bundled example by name ('vtab' or 'mmlu-pro').

    Returns
    -------
    ResultsTable
        With ``attribution`` set to the line that must stay beside any copy of the data.
    """
    from ..io.tabular import read_tabular

    key = str(name).strip().lower().replace("_", "-")
    if key not in ATTRIBUTION:
        raise ValueError(f"unknown example {name!r}; available: {', '.join(EXAMPLES)}.")
    data = resources.files(__package__) / "data"
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
