"""Files of cell scores: one score in [0, 1] per (model, task) cell, without items or counts.

A sparse leaderboard is usually kept this way (Epoch AI's benchmarking hub, a lab's dashboard: ``model, task,
score``). It is not a results table (no items to resample, no counts to redraw), so :func:`evalband.read` refuses
it; the latent-ability model reads it as it is (:func:`evalband.ability`, which validates the labels and scores
by the results table's rules). :func:`is_cell_scores` tells such a file by its header, :func:`read_cell_scores`
reads it into a frame named after the file, rows numbered as the file's lines.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["is_cell_scores", "read_cell_scores", "COUNT_COLUMNS"]

#: a column of any of these names makes a file item-level or summary-level, not cell scores
COUNT_COLUMNS = ("n", "correct", "accuracy")

_TEXT = (".csv", ".tsv", ".txt")


def _header(path: Path) -> list[str] | None:
    """The column names of a delimited text file from its first line (None for other formats)."""
    import csv
    import gzip

    name = path.name.lower()
    stem = name[:-3] if name.endswith(".gz") else name
    if not stem.endswith(_TEXT):
        return None
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            line = fh.readline()
    except (OSError, UnicodeDecodeError):
        return None
    delimiter = "\t" if stem.endswith(".tsv") or ("\t" in line and "," not in line) else ","
    return [c.strip() for c in next(csv.reader([line], delimiter=delimiter), [])]


def is_cell_scores(path, *, model_col: str = "model", task_col: str = "task", item_col: str = "item",
                   score_col: str = "score") -> bool:
    """Whether ``path`` (one delimited text file) holds cell scores: model, task and score columns (names
    matched ignoring case), no item column and none of :data:`COUNT_COLUMNS`. Other inputs (globs, folders,
    standard input, binary formats) are results tables to :func:`evalband.read`."""
    if path is None or not isinstance(path, (str, os.PathLike)) or str(path) == "-":
        return False
    p = Path(path)
    if not p.is_file():
        return False
    cols = _header(p)
    if not cols:
        return False
    lower = {c.lower() for c in cols}
    wanted = {model_col.lower(), task_col.lower(), score_col.lower()}
    return wanted <= lower and item_col.lower() not in lower and not (lower & set(COUNT_COLUMNS))


def read_cell_scores(path, *, model_col: str = "model", task_col: str = "task", score_col: str = "score",
                     drop_cols=None):
    """A file of cell scores as a frame with columns ``model, task, score`` (the other columns are left out and
    named in ``frame.attrs['notes']``: as not used, or as left out on purpose when ``drop_cols`` names them, the
    rule of :func:`evalband.io.read_table`); ``frame.attrs`` holds ``source`` (the file) and ``row_word`` ('line':
    the index is the file's line, header = line 1), so errors name the file, line and column.

    Examples
    --------
    >>> import tempfile, os
    >>> from evalband.io.cell_scores import read_cell_scores
    >>> path = os.path.join(tempfile.mkdtemp(), "hub.csv")
    >>> _ = open(path, "w").write("model,task,score,source\\na,x,0.5,paper\\nb,x,0.7,paper\\n")
    >>> read_cell_scores(path)[["model", "score"]].to_numpy().tolist()
    [['a', '0.5'], ['b', '0.7']]
    """
    from .._validate import InputError
    from ._columns import unused_note
    from ._frames import load_frame

    df, source, row_word, notes = load_frame(path)
    names = {}
    for role, col in (("model", model_col), ("task", task_col), ("score", score_col)):
        match = [c for c in df.columns if str(c).strip() == col] or \
            [c for c in df.columns if str(c).strip().lower() == col.lower()]
        if len(match) != 1:
            raise InputError(f"no column '{col}' for the {role} of each cell; found {', '.join(map(repr, df.columns))}",
                             source=source)
        names[match[0]] = role
    notes = list(notes)
    if drop_cols is not None:
        from .._lists import check_named_columns
        from .tabular import NOTE_COLUMN_LEFT_OUT_ASKED

        drop = list(dict.fromkeys([drop_cols] if isinstance(drop_cols, str) else [str(c) for c in drop_cols]))
        check_named_columns([("drop_cols", c) for c in drop], [str(c) for c in df.columns], source)
        notes.append(NOTE_COLUMN_LEFT_OUT_ASKED(value="s" if len(drop) > 1 else "", value2=", ".join(drop)))
        names.update({c: None for c in df.columns if str(c) in drop and c not in names})
    out = df[[c for c, role in names.items() if role is not None]].rename(columns=names)
    out.attrs.update(source=source, row_word=row_word, notes=notes + unused_note(df.columns, names))
    return out
