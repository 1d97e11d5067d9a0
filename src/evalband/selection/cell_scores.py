"""Inputs of cell scores (one score per (model, task) cell, no items or counts) named by a path or a bundled
example: the selection layer reads them for the latent-ability model, as it reads results tables for every other
analysis (:mod:`evalband.io.cell_scores`, :func:`evalband.io.examples.cell_example`)."""

from __future__ import annotations

import os

__all__ = ["cell_scores_input"]


def cell_scores_input(data, *, model_col: str = "model", task_col: str = "task", item_col: str = "item",
                      score_col: str = "score", drop_cols=None):
    """The frame of cell scores that ``data`` names (``'example:NAME'`` of a bundled example of cell scores, or
    one delimited text file with model, task and score columns and no item or count column), or None when
    ``data`` is anything else (a results table is then read by :func:`evalband.select`)."""
    if not isinstance(data, (str, os.PathLike)):
        return None
    from ..io.cell_scores import is_cell_scores, read_cell_scores
    from ..io.examples import cell_example, is_cell_example

    text = os.fspath(data)
    if isinstance(text, str) and text.startswith("example:"):
        name = text[len("example:"):]
        return cell_example(name) if is_cell_example(name) else None
    if is_cell_scores(data, model_col=model_col, task_col=task_col, item_col=item_col, score_col=score_col):
        return read_cell_scores(data, model_col=model_col, task_col=task_col, score_col=score_col,
                                drop_cols=drop_cols)
    return None
