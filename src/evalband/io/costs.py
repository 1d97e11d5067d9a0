"""Cost files: per-model cost summaries or per-response measures, into one :class:`~evalband.data.costs.CostTable`.

* **summary**: ``model, cost`` and any of ``se``, ``sd``, ``n`` (one row per model);
* **responses**: ``model, item`` (or ``question_id``, ``question``, ``prompt_id``, ``prompt``) and ``cost`` and / or
  ``latency`` (one row per response; blank = not measured), e.g. LLMFAO's ``responses.csv`` with
  ``model_col='name', item_col='prompt', latency_col='duration_ms'``.

Files are CSV, TSV, JSON Lines or Parquet, read as :func:`evalband.io.tabular.load_frame` reads results tables, so
messages name the file line; column names match regardless of case. ``evalband.read(path, source='costs')`` and
``evalband.select(path, source='costs')`` come here.
"""

from __future__ import annotations

import os

import pandas as pd

from ..data.labels import label_column
from .._validate import ArgumentTypeError, InputError
from ..data.costs import CostTable
from ._columns import find_column
from .tabular import load_frame
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_costs", "ITEM_COLUMNS"]

#: item column names looked for when ``item_col`` is not given (a response answers an item, prompt or question)
ITEM_COLUMNS = ("item", "question_id", "question", "prompt_id", "prompt")


def _column(frame, name, role: str, source: str, *, required: bool):
    return find_column(frame.columns, name, role, source, required=required)


NOTE_COST_FILE_COLUMNS_NOT = NoteKind('io.cost-file-columns-not', 'caveat',
                                       'cost file columns not read: {value}{value2}')


def read_costs(data, *, model_col: str = "model", item_col: str | None = None, cost_col: str | None = None,
               latency_col: str | None = None, se_col: str = "se", sd_col: str = "sd", n_col: str = "n",
               file_format: str = "auto") -> CostTable:
    """Read per-model costs from a file or a DataFrame.

    Parameters
    ----------
    data : str, os.PathLike, pandas.DataFrame or CostTable
        A CSV / TSV / JSON Lines / Parquet file, ``"-"`` for standard input, a DataFrame, or a CostTable
        (returned unchanged).
    model_col : str
    item_col : str, optional
        Per-response rows: what each response answered. Default: the first of :data:`ITEM_COLUMNS` present; with
        none, the file is a per-model summary.
    cost_col, latency_col : str, optional
        The measures (default 'cost' and 'latency' when present; a name given must be there).
    se_col, sd_col, n_col : str
        Summary: standard error of the mean cost, or standard deviation and number of items (each optional).
    file_format : {'auto', 'csv', 'tsv', 'jsonl', 'json', 'parquet'}

    Returns
    -------
    CostTable

    Examples
    --------
    >>> import pandas as pd
    >>> table = read_costs(pd.DataFrame({"model": ["b", "a"], "cost": [0.01, 0.02], "se": [0.001, 0.002]}))
    >>> table.shape, table.models, table.cost.tolist()
    ('summary', ('a', 'b'), [0.02, 0.01])
    >>> resp = read_costs(pd.DataFrame({"name": ["a", "a", "b"], "prompt": [1, 2, 1], "ms": [900, 1200, 400]}),
    ...                   model_col="name", latency_col="ms")
    >>> resp.shape, resp.measures, resp.item.tolist()
    ('responses', ('latency',), ['1', '2', '1'])
    """
    if isinstance(data, CostTable):
        return data
    notes = []
    if isinstance(data, pd.DataFrame):
        frame, source, row_word = data, "<DataFrame>", "row"
    elif isinstance(data, (str, os.PathLike)):
        frame, source, row_word, notes = load_frame(data, file_format=file_format)
    else:
        raise ArgumentTypeError(f"`data` must be a path, a DataFrame or a CostTable; got {type(data).__name__}.")
    model = _column(frame, model_col, "model", source, required=True)
    if item_col is not None:
        item = _column(frame, item_col, "item", source, required=True)
    else:
        item = next((c for c in (_column(frame, n, "item", source, required=False) for n in ITEM_COLUMNS) if c),
                    None)
    found = {}
    for role, name in (("cost", cost_col), ("latency", latency_col)):
        found[role] = _column(frame, name if name is not None else role, role, source, required=name is not None)
    stats = {}
    if item is None:
        if latency_col is None:
            found["latency"] = None  # a summary gives costs; a latency column there is not read
        if found["cost"] is None:
            raise InputError(words('a per-model cost summary needs a {value!r} column (per-response rows: an item column too); found {value2} (name them with {arg:cost_col=}, {arg:item_col=})', value=cost_col or 'cost', value2=', '.join(map(repr, map(str, frame.columns)))), source=source)
        stats = {role: _column(frame, name, role, source, required=name != role)
                 for role, name in (("se", se_col), ("sd", sd_col), ("n", n_col))}
    rows = frame.index.to_numpy(dtype=object)
    names, more = label_column(frame[model], "model", source, row_word)
    notes += more
    items = None
    if item is not None:
        items, more = label_column(frame[item], "item", source, row_word)
        notes += more
        items = items.to_numpy(dtype=object)
    values = {k: (frame[c] if c is not None else None) for k, c in {**found, **stats}.items()}
    columns = {"model": model, **({"item": item} if item else {}),
               **{k: c for k, c in {**found, **stats}.items() if c is not None}}
    used = set(columns.values())
    unused = [str(c) for c in frame.columns if c not in used]
    if unused:
        notes.append(NOTE_COST_FILE_COLUMNS_NOT(value=', '.join(unused[:8]), value2=' ...' if len(unused) > 8 else ''))
    return CostTable.build(names.to_numpy(dtype=object), item=items, source=source, rows=rows, row_word=row_word,
                           columns=columns, notes=notes, **values)
