"""The design of one task with facets, as data: its factors, cells and the sufficient statistics of each cell.

A *factor* is ``item`` or one of the table's facet columns (prompt template, judge, run, ...). A *cell* is one
combination of factor levels (an item under one prompt and one judge); repeated trials are nested within cells.
Everything later (variance components, crossed replicates, D-study plans) works from a :class:`TaskDesign`: per
model and cell the number of trials, their sum and sum of squares (sufficient statistics of the cell), plus the
cell's level codes; :class:`FacetDesign` holds one per task. They are built from a table by
:func:`evalband.selection.facet_design.facet_design`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from ..display.reprs import displayed

__all__ = ["ITEM", "FacetDesign", "PairCells", "TaskDesign", "term_name", "unique_rows"]

#: Name of the item factor (always factor 0).
ITEM = "item"


def term_name(factors, term, parents=None) -> str:
    """'item', 'prompt', 'item x prompt'; a factor nested in others of the term reads 'judge within item'."""
    if parents is None:
        return " x ".join(factors[k] for k in term)
    inner = [k for k in term if parents[k] & set(term)]
    outer = [k for k in term if k not in inner]
    text = " x ".join(factors[k] for k in outer)
    return f"{' x '.join(factors[k] for k in inner)} within {text}" if inner else text


@displayed


@dataclass(frozen=True, repr=False)
class TaskDesign:
    """One task's cells, paired across models on the items every model has.

    Attributes
    ----------
    task : str
    models : tuple of str
    factors : tuple of str
        ``('item', facet, ...)``; factor 0 is always the item.
    levels : tuple of numpy.ndarray
        Sorted level labels of each factor (a facet declared nested reads ``'item/level'``).
    codes : numpy.ndarray of int, shape (C, K)
        Level code of each factor in each cell (cells sorted by codes).
    n : numpy.ndarray of int, shape (M, C)
        Trials of each model in each cell (0: the model lacks the cell).
    sums, sumsq : numpy.ndarray, shape (M, C)
        Sum and sum of squares of the trial scores of each model in each cell.
    parents : tuple of frozenset
        For each factor, the factors it is nested in (each of its levels occurs with one level of each).
    terms : tuple of tuple of int
        Random terms of the design: the non-empty sets of factors closed under nesting, smallest first. The last
        term holds every factor: it is the cell itself.
    clusters : numpy.ndarray of int or None, shape (n_items,)
        Cluster code of each item (item order of ``levels[0]``).
    cluster_labels : tuple of str
    left_out : dict
        Per model, rows left out because the item is not shared by every model.
    notes : tuple of str
    score_range : tuple of float
        The range a score can take: (0, 1) for proportions, (-inf, inf) for unbounded scores. No variance
        component can exceed ``(max - min)^2 / 4`` (of a difference of two models': ``(max - min)^2``).
    """

    task: str
    models: tuple
    factors: tuple
    levels: tuple
    codes: np.ndarray
    n: np.ndarray
    sums: np.ndarray
    sumsq: np.ndarray
    parents: tuple
    terms: tuple
    clusters: np.ndarray | None = None
    cluster_labels: tuple = ()
    left_out: dict = field(default_factory=dict)
    notes: tuple = ()
    score_range: tuple = (-np.inf, np.inf)

    # ------------------------------------------------------------------ sizes
    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_cells(self) -> int:
        return self.codes.shape[0]

    @property
    def n_items(self) -> int:
        return len(self.levels[0])

    @property
    def facets(self) -> tuple:
        return self.factors[1:]

    def term_names(self) -> tuple:
        return tuple(term_name(self.factors, t, self.parents) for t in self.terms)

    @cached_property
    def full_cells(self) -> int:
        """Cells of the complete design: every combination of crossed levels, nested factors at their largest
        number of levels within a parent combination."""
        total = 1
        for a in range(len(self.factors)):
            par = sorted(self.parents[a])
            if not par:
                total *= len(self.levels[a])
            else:
                key = _combine(self.codes[:, par])
                pairs = unique_rows(np.column_stack([key, self.codes[:, a]]))[0]
                total *= int(np.bincount(pairs[:, 0]).max())
        return int(total)

    @property
    def missing_cells(self) -> np.ndarray:
        """Per model, cells of the complete design that the model lacks, (M,)."""
        return self.full_cells - (self.n > 0).sum(axis=1)

    @cached_property
    def layout(self):
        """The balanced layout ``(k_0, ..., k_{K-1})`` and each cell's position in it, or None.

        ``k_a`` is the number of levels of factor ``a`` within each combination of its parents (all levels when
        it is crossed with them). None when the cells are not the full crossed-and-nested product.
        """
        shape, pos = [], np.empty_like(self.codes)
        for a in range(len(self.factors)):
            par = sorted(self.parents[a])
            if not par:
                shape.append(len(self.levels[a]))
                pos[:, a] = self.codes[:, a]
                continue
            key = _combine(self.codes[:, par])
            pairs, inverse = unique_rows(np.column_stack([key, self.codes[:, a]]))
            starts = np.searchsorted(pairs[:, 0], pairs[:, 0], side="left")  # first pair of the same key
            rank = np.arange(len(pairs)) - starts  # rank of the level within its parent combination
            per = np.bincount(pairs[:, 0])
            if per.min() != per.max():
                return None
            shape.append(int(per[0]))
            pos[:, a] = rank[inverse.reshape(-1)]
        if int(np.prod(shape)) != self.n_cells:
            return None
        return tuple(shape), pos

    @property
    def balanced(self) -> bool:
        """Every model has every cell of a full crossed-and-nested layout, with the same number of trials."""
        return bool(self.layout is not None and (self.n == self.n.flat[0]).all() and self.n.flat[0] > 0)

    # ------------------------------------------------------------------ statistics
    def cell_means(self) -> np.ndarray:
        """Mean trial score of each model in each cell, (M, C); NaN where the model lacks the cell."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n > 0, self.sums / np.maximum(self.n, 1), np.nan)

    def within(self) -> tuple[np.ndarray, np.ndarray]:
        """Within-cell (trial) sum of squares and degrees of freedom per model, each (M,)."""
        ss = self.sumsq - np.where(self.n > 0, self.sums ** 2 / np.maximum(self.n, 1), 0.0)
        ss = np.maximum(ss, 0.0).sum(axis=1)
        df = np.maximum(self.n - 1, 0).sum(axis=1)
        return ss, df

    def item_means(self) -> np.ndarray:
        """Each model's score on each item, averaged over the item's rows (facet levels and trials), (M, I)."""
        m, i = self.n_models, self.n_items
        flat = (np.arange(m)[:, None] * i + self.codes[None, :, 0]).ravel()
        tot = np.bincount(flat, weights=self.sums.ravel(), minlength=m * i).reshape(m, i)
        cnt = np.bincount(flat, weights=self.n.ravel(), minlength=m * i).reshape(m, i)
        with np.errstate(invalid="ignore", divide="ignore"):
            return tot / cnt

    def means(self) -> np.ndarray:
        """The reported per-task score of each model: the mean over items of each item's mean row, (M,)."""
        return self.item_means().mean(axis=1)

    def term_levels(self, term) -> np.ndarray:
        """The level of ``term`` (a combination of its factors) of each cell, coded 0 .. L-1, (C,)."""
        return _combine(self.codes[:, list(term)])

    def to_frame(self) -> pd.DataFrame:
        """One row per factor: levels, what it is nested in, cells present, missing cells per model."""
        rows = []
        for a, f in enumerate(self.factors):
            nested = sorted(self.parents[a])
            crossed = [self.factors[b] for b in range(len(self.factors)) if b != a and b not in self.parents[a]
                       and a not in self.parents[b]]
            rows.append({"task": self.task, "factor": f, "levels": len(self.levels[a]),
                         "nested_in": ", ".join(self.factors[b] for b in nested),
                         "crossed_with": ", ".join(crossed)})
        frame = pd.DataFrame(rows)
        frame["cells"] = self.n_cells
        frame["balanced"] = self.balanced
        return frame

    # ------------------------------------------------------------------ pairs
    def difference(self, a: int, b: int) -> PairCells:
        """Cells of the difference ``model a - model b``: the cells both models have."""
        both = (self.n[a] > 0) & (self.n[b] > 0)
        return PairCells(both, self.n[a], self.n[b])


@displayed


@dataclass(frozen=True, repr=False)
class PairCells:
    """Cells shared by two models, and their trial counts."""

    shared: np.ndarray
    n_a: np.ndarray
    n_b: np.ndarray


def unique_rows(codes) -> tuple[np.ndarray, np.ndarray]:
    """Unique rows of a non-negative integer matrix (lexicographic order) and each row's index among them.

    Same as ``np.unique(codes, axis=0, return_inverse=True)``, by a mixed-radix key on one int64 column.
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim == 1:
        codes = codes[:, None]
    radix = codes.max(axis=0, initial=0) + 1 if codes.size else np.ones(codes.shape[1], dtype=np.int64)
    if codes.shape[0] == 0 or float(np.prod(radix.astype(np.float64))) >= 2.0 ** 62:
        u, inv = np.unique(codes, axis=0, return_inverse=True)
        return u, inv.reshape(-1)
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for k in range(codes.shape[1]):
        key = key * radix[k] + codes[:, k]
    uk, inv = np.unique(key, return_inverse=True)
    out = np.empty((uk.size, codes.shape[1]), dtype=np.int64)
    rest = uk.copy()
    for k in range(codes.shape[1] - 1, -1, -1):
        out[:, k] = rest % radix[k]
        rest //= radix[k]
    return out, inv.reshape(-1)


def _combine(codes: np.ndarray) -> np.ndarray:
    """One code 0 .. L-1 per row of an integer matrix (lexicographic order of the rows)."""
    codes = np.asarray(codes)
    if codes.ndim == 1:
        codes = codes[:, None]
    if codes.shape[1] == 0:
        return np.zeros(codes.shape[0], dtype=np.int64)
    return unique_rows(codes)[1]


@displayed


@dataclass(frozen=True, repr=False)
class FacetDesign:
    """The design of every task of a table: see :class:`TaskDesign`.

    Attributes
    ----------
    models, tasks : tuple of str
    facets : tuple of str
        The facet columns used (after ``nested``); trials are always a facet nested within cells.
    designs : tuple of TaskDesign
    notes : tuple of str
    """

    models: tuple
    tasks: tuple
    facets: tuple
    designs: tuple
    notes: tuple = ()

    def __getitem__(self, task: str) -> TaskDesign:
        return self.designs[self.tasks.index(task)]

    def to_frame(self) -> pd.DataFrame:
        """One row per task and factor (levels, nesting, cells, balanced) and the missing cells per model."""
        frames = []
        for d in self.designs:
            f = d.to_frame()
            for k, m in enumerate(d.models):
                f[f"missing_cells[{m}]"] = int(d.missing_cells[k])
            frames.append(f)
        return pd.concat(frames, ignore_index=True)

    def __repr__(self) -> str:
        parts = [(f"FacetDesign: {len(self.models)} models x {len(self.tasks)} tasks, facets"
                  f" {', '.join(self.facets) or '(none)'}")]
        for d in self.designs[:5]:
            sizes = " x ".join(f"{len(lv)} {f}" for f, lv in zip(d.factors, d.levels))
            trials = d.n[d.n > 0]
            t = f"{int(trials.min())}" if trials.min() == trials.max() else f"{int(trials.min())}-{int(trials.max())}"
            parts.append(f"  {d.task}: {sizes}, {t} trials per cell, {'balanced' if d.balanced else 'unbalanced'}"
                         f", {int(d.missing_cells.sum())} missing cells")
        if len(self.designs) > 5:
            parts.append(f"  ... {len(self.designs) - 5} more tasks")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.to_frame().head(20).to_html()
