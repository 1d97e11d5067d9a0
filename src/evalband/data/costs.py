"""The cost table: per-model costs given apart from the results, validated once.

Two shapes, told apart by the columns:

* **summary** (no item column): one row per model with its mean cost per item and, optionally, its standard
  error (``se``), or its standard deviation and number of items (``sd``, ``n``); a price list has neither and is
  taken as exact.
* **responses** (an item column): one row per response, ``model, item`` and measures ``cost`` and / or
  ``latency`` (blank = not measured). The item is what the response answered (a prompt, a question): with
  pairwise battles on the same questions the measures are resampled with the battles' questions, so quality and
  cost come from the same draws.

Readers (:func:`evalband.io.costs.read_costs`, ``evalband.read(path, source='costs')``) turn files into the arrays;
:meth:`CostTable.build` validates them. Models are kept in natural order, so nothing depends on the order of the
rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._cells import check_cells
from .labels import natural_order
from .._validate import ArgumentError, InputError, check_names
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["CostTable", "COST_MEASURES", "COST_SHAPES"]

#: measures a cost table may hold per response
COST_MEASURES = ("cost", "latency")
COST_SHAPES = ("summary", "responses")


def _where(rows, pos: int, row_word: str) -> str:
    return f"{row_word} {rows[pos]}" if rows is not None else f"row {pos}"


def _numbers(values, name: str, *, source, rows, row_word, column, blank_ok: bool, positive: bool = False):
    """Float64 values of a measure column; blank cells NaN when ``blank_ok``; other text, negative or infinite
    values refused naming the row."""
    raw = pd.Series(values).reset_index(drop=True)
    check_cells(raw, name, source=source, where=lambda pos: _where(rows, pos, row_word), column=column,
                expected="a number")
    text = raw.astype("string").str.strip()
    blank = (raw.isna() | (text == "")).to_numpy()
    num = pd.to_numeric(text.where(~pd.Series(blank)), errors="coerce").to_numpy(dtype=np.float64)
    bad = ~blank & (~np.isfinite(num) | (num <= 0 if positive else num < 0))
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        what = "a number > 0" if positive else "a finite number >= 0"
        raise InputError(f"{name} {raw.iloc[pos]} must be {what}", source=source,
                         row=_where(rows, pos, row_word), column=column)
    if blank.any() and not blank_ok:
        pos = int(np.flatnonzero(blank)[0])
        raise InputError(f"missing {name}", source=source, row=_where(rows, pos, row_word), column=column)
    return num


NOTE_RESPONSE_WITHOUT_ANY_MEASURE = NoteKind('data.response-without-any-measure', 'excluded',
                                              '{blank:,} response{value} without any measure left out')
NOTE_REPEATED_MODEL_ITEM_RESPONSE = NoteKind(
    'data.repeated-model-item-response', 'info',
    '{value:,} repeated (model, item) response{value2}: each (model, item) counts once, with the mean of its rows')


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class CostTable:
    """Validated per-model costs: a summary (one row per model) or per-response measures.

    Attributes
    ----------
    models : tuple of str
        In natural order.
    shape : {'summary', 'responses'}
    measures : tuple of str
        The measures held: 'cost' (summary), or any of 'cost', 'latency' (responses).
    cost : numpy.ndarray, shape (M,) or None
        Summary: each model's mean cost per item.
    se, sd, n : numpy.ndarray or None, shape (M,)
        Summary: standard error of the mean cost; or standard deviation and number of items.
    model : numpy.ndarray of int, shape (R,) or None
        Responses: the model of each response (position in ``models``).
    item : numpy.ndarray of str, shape (R,) or None
        Responses: what each response answered.
    values : dict of str to numpy.ndarray, shape (R,)
        Responses: each measure (NaN = not measured).
    source : str
    rows : numpy.ndarray or None
        Row labels as users see them (file lines).
    row_word : str
    columns : dict
        The source column of each field, for messages.
    notes : tuple of str
    """

    models: tuple
    shape: str
    measures: tuple
    cost: np.ndarray | None = None
    se: np.ndarray | None = None
    sd: np.ndarray | None = None
    n: np.ndarray | None = None
    model: np.ndarray | None = None
    item: np.ndarray | None = None
    values: dict = field(default_factory=dict)
    source: str = "<costs>"
    rows: np.ndarray | None = None
    row_word: str = "row"
    columns: dict = field(default_factory=dict)
    notes: tuple = ()

    @classmethod
    def build(cls, model, *, cost=None, se=None, sd=None, n=None, item=None, latency=None, source: str = "<costs>",
              rows=None, row_word: str = "row", columns: dict | None = None, notes=()) -> "CostTable":
        """Validate the arrays of a summary (``cost`` and any of ``se``, ``sd``, ``n``; no ``item``) or of
        per-response measures (``item`` with ``cost`` and / or ``latency``).

        Raises
        ------
        InputError
            A model listed twice in a summary, an SD without n, a cost that is blank, negative or not a number, a
            response without any measure, naming the source, row and column.
        """
        cols = {"model": "model", "item": "item", "cost": "cost", "latency": "latency", "se": "se", "sd": "sd",
                "n": "n", **(columns or {})}
        check_cells(model if isinstance(model, (pd.Series, np.ndarray)) else np.asarray(model, dtype=object), "model",
                    source=source, where=lambda pos: _where(rows, pos, row_word), column=cols["model"])
        if item is not None:
            check_cells(item if isinstance(item, (pd.Series, np.ndarray)) else np.asarray(item, dtype=object),
                        "item", source=source, where=lambda pos: _where(rows, pos, row_word), column=cols["item"])
        names = np.asarray([str(m) for m in model], dtype=object)
        if names.size == 0:
            raise InputError("holds no costs (no rows)", source=source)
        where = dict(source=source, rows=rows, row_word=row_word)
        notes = list(notes)
        models = tuple(natural_order(names))
        if item is None:
            if latency is not None:
                raise InputError("a per-model summary gives a mean cost per model; latency quantiles need one row per"
                                 " response (an item column)", source=source, column=cols["latency"])
            if cost is None:
                raise InputError("a cost summary needs a cost column", source=source)
            dup = pd.Series(names).duplicated().to_numpy()
            if dup.any():
                pos = int(np.flatnonzero(dup)[0])
                raise InputError(f"model {names[pos]!r} is listed twice (a summary has one row per model; per-response"
                                 " costs need an item column)", source=source, row=_where(rows, pos, row_word),
                                 column=cols["model"])
            order = pd.Index(names).get_indexer(models)

            def col(v, key, positive=False):
                if v is None:
                    return None
                return _numbers(v, key, column=cols[key], blank_ok=False, positive=positive, **where)[order]

            mean, se_v, sd_v, n_v = col(cost, "cost"), col(se, "se"), col(sd, "sd"), col(n, "n", positive=True)
            if sd_v is not None and n_v is None and se_v is None:
                raise InputError(f"an SD ({cols['sd']!r}) needs the number of items ({cols['n']!r}) to give an SE",
                                 source=source)
            return cls(models, "summary", ("cost",), mean, se_v, sd_v, n_v, source=source, rows=rows,
                       row_word=row_word, columns=cols, notes=tuple(notes))
        if any(v is not None for v in (se, sd, n)):
            raise InputError("per-response costs (an item column) carry no se, sd or n: those describe a per-model"
                             " summary", source=source)
        given = {k: v for k, v in (("cost", cost), ("latency", latency)) if v is not None}
        if not given:
            raise InputError("per-response rows need a cost or a latency column", source=source)
        items = np.asarray([str(i) for i in item], dtype=object)
        values = {k: _numbers(v, k, column=cols[k], blank_ok=True, **where) for k, v in given.items()}
        none = np.all([np.isnan(v) for v in values.values()], axis=0)
        if none.all():
            raise InputError(f"no response has a {' or a '.join(given)}", source=source)
        blank = int(none.sum())
        if blank:
            notes.append(NOTE_RESPONSE_WITHOUT_ANY_MEASURE(blank=blank, value='s' if blank != 1 else ''))
        codes = pd.Index(models).get_indexer(names)
        key = pd.Series(codes.astype(str)) + "\x1f" + pd.Series(items)
        dup = key.duplicated().to_numpy()
        if dup.any():
            notes.append(NOTE_REPEATED_MODEL_ITEM_RESPONSE(value=int(dup.sum()), value2='s' if dup.sum() != 1 else ''))
        return cls(models, "responses", tuple(given), model=codes.astype(np.int64), item=items, values=values,
                   source=source, rows=rows, row_word=row_word, columns=cols, notes=tuple(notes))

    # ------------------------------------------------------------------ views
    @property
    def n_models(self) -> int:
        return len(self.models)

    def select(self, models) -> "CostTable":
        """The costs of ``models`` (each must be there), in the order given."""
        chosen = check_names(models, self.models, "models")
        if not chosen:
            raise ArgumentError(words('`{arg:models}` is empty; give model names (or leave the argument out).'))
        idx = np.array([self.models.index(m) for m in chosen])
        if self.shape == "summary":
            take = lambda a: None if a is None else a[idx]  # noqa: E731
            return replace(self, models=tuple(chosen), cost=take(self.cost), se=take(self.se), sd=take(self.sd),
                           n=take(self.n))
        lookup = np.full(len(self.models), -1, dtype=np.int64)
        lookup[idx] = np.arange(idx.size)
        new = lookup[self.model]
        keep = new >= 0
        return replace(self, models=tuple(chosen), model=new[keep], item=self.item[keep],
                       values={k: v[keep] for k, v in self.values.items()},
                       rows=None if self.rows is None else np.asarray(self.rows)[keep])

    def cells(self, measure: str, item_names=None):
        """Responses: ``(item codes, model codes, values)`` of the (model, item) cells with a ``measure`` value,
        each the mean of its rows, and the item names; items coded by their position in ``item_names`` when
        given (items not in it are dropped), else by the natural order of this table's items."""
        if self.shape != "responses" or measure not in self.values:
            raise ArgumentError(f"`{measure}`: the cost table holds no per-response {measure}; it has"
                                f" {', '.join(self.measures) or 'none'} ({self.shape}).")
        v = self.values[measure]
        ok = ~np.isnan(v)
        names = list(natural_order(self.item[ok])) if item_names is None else [str(i) for i in item_names]
        codes = pd.Index(names).get_indexer(self.item[ok])
        keep = codes >= 0
        frame = pd.DataFrame({"u": codes[keep], "m": self.model[ok][keep], "v": v[ok][keep]})
        cell = frame.groupby(["u", "m"], sort=True)["v"].mean().reset_index()
        return (cell["u"].to_numpy(np.int64), cell["m"].to_numpy(np.int64), cell["v"].to_numpy(np.float64),
                names, int((~keep).sum()))

    def to_frame(self) -> pd.DataFrame:
        """Summary: model, cost and whichever of se, sd, n were given. Responses: model, item and the measures."""
        if self.shape == "summary":
            out = {"model": list(self.models), "cost": self.cost}
            out.update({k: v for k, v in (("se", self.se), ("sd", self.sd), ("n", self.n)) if v is not None})
            return pd.DataFrame(out)
        return pd.DataFrame({"model": np.asarray(self.models, dtype=object)[self.model], "item": self.item,
                             **self.values})

    def headline(self) -> str:
        if self.shape == "summary":
            return f"{self.n_models} models, mean cost per item ({self.source})"
        return f"{self.n_models} models, {self.model.size:,} responses with {', '.join(self.measures)} ({self.source})"
