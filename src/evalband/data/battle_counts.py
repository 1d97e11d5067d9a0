"""Battles compressed to counts: each distinct battle once, with how often it occurred.

A distinct battle is one (labels, ordered pair of models, outcome, weight): the question (and judge, cluster,
turn when the battles name them), ``model_a``, ``model_b``, the probability that A wins and the battle's weight.
Per question and ordered pair of models, the rows are the win, tie and loss counts (and any fractional outcome
with its count): the count compression the Chatbot Arena team uses before fitting Bradley-Terry, here kept per
resampling unit so that the cluster bootstrap resamples questions with their counts.

Every fit of :func:`evalband.preferences.arena` that needs no per-battle value (Bradley-Terry and its tie models,
win rates without length control) runs on :class:`BattleCounts`: the single-machine path compresses its
:class:`~evalband.data.battles.BattleTable` with :meth:`BattleTable.counted`, the distributed path
(:mod:`evalband.io.distributed_battles`) reduces sharded battles to the same counts on Dask workers. Rows are in
the order of their key (labels, model_a, model_b, outcome, weight), which depends on the battles only, so both
paths hand the fits the same arrays and print the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validate import ArgumentError
from ..display.reprs import displayed
from .battles import LABELS, PairSums, pair_sums

__all__ = ["BattleCounts", "group_rows", "KEY"]

#: the columns of a distinct battle after its label codes, in the order rows are sorted
KEY = ("model_a", "model_b", "outcome", "weight")


def group_rows(columns, count) -> tuple[list, np.ndarray]:
    """Rows equal in every column as one, their counts added; rows sorted by the columns (the first slowest).

    Parameters
    ----------
    columns : sequence of numpy.ndarray, each shape (n,)
    count : numpy.ndarray of int, shape (n,)

    Returns
    -------
    (list of numpy.ndarray, numpy.ndarray)
        The distinct rows' columns and their counts.

    Examples
    --------
    >>> cols, n = group_rows([np.array([1, 0, 1]), np.array([0.5, 1.0, 0.5])], np.array([1, 1, 2]))
    >>> [c.tolist() for c in cols], n.tolist()
    ([[0, 1], [1.0, 0.5]], [1, 3])
    """
    count = np.asarray(count, dtype=np.int64)
    if count.size == 0:
        return [np.asarray(c) for c in columns], count
    order = np.lexsort(tuple(reversed([np.asarray(c) for c in columns])))
    cols = [np.asarray(c)[order] for c in columns]
    new = np.zeros(count.size, dtype=bool)
    new[0] = True
    for c in cols:
        new[1:] |= c[1:] != c[:-1]
    start = np.flatnonzero(new)
    return [c[start] for c in cols], np.add.reduceat(count[order], start)


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class BattleCounts:
    """Distinct battles and their counts (see the module docs).

    Attributes
    ----------
    models : tuple of str
        Every model that appears, sorted by name (as in :class:`~evalband.data.battles.BattleTable`).
    model_a, model_b : numpy.ndarray of int, shape (r,)
        Positions in ``models`` of each distinct battle's sides.
    outcome : numpy.ndarray, shape (r,)
        Probability that A wins.
    weight : numpy.ndarray, shape (r,)
        The weight of one such battle.
    count : numpy.ndarray of int, shape (r,)
        How many battles the row stands for.
    labels : dict of str to numpy.ndarray
        Label codes per row ('question', 'judge', 'cluster', 'turn'), positions in ``label_names``.
    label_names : dict of str to numpy.ndarray
        Each label column's distinct names, sorted.
    source : str
    notes : tuple of str
    """

    models: tuple
    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray
    count: np.ndarray
    labels: dict = field(default_factory=dict)
    label_names: dict = field(default_factory=dict)
    source: str = "<battles>"
    notes: tuple = ()

    @classmethod
    def from_table(cls, table) -> "BattleCounts":
        """Compress a :class:`~evalband.data.battles.BattleTable` (:meth:`BattleTable.counted`).

        Examples
        --------
        >>> from evalband.data.battles import BattleTable
        >>> t = BattleTable.build(["a", "b", "a"], ["b", "a", "b"], [1.0, 0.5, 1.0], labels={"question": ["q", "q", "q"]})
        >>> c = t.counted()
        >>> c.count.tolist(), c.n_battles, c.model_counts()["n_wins"].tolist()
        ([2, 1], 3, [2, 0])
        """
        names = [k for k in LABELS if k in table.labels]
        codes = {k: table.label_codes(k) for k in names}
        return cls.build(table.models, table.model_a, table.model_b, table.outcome, table.weight,
                         np.ones(table.n_battles, dtype=np.int64), {k: codes[k][0] for k in names},
                         {k: codes[k][1] for k in names}, source=table.source, notes=table.notes)

    @classmethod
    def build(cls, models, model_a, model_b, outcome, weight, count, labels: dict, label_names: dict, *,
              source: str = "<battles>", notes=()) -> "BattleCounts":
        """Counted rows on codes (any order, repeats allowed) grouped into distinct battles in key order.

        Examples
        --------
        >>> c = BattleCounts.build(("a", "b"), [0, 0], [1, 1], [1.0, 1.0], [1.0, 1.0], [2, 3], {}, {})
        >>> c.count.tolist(), c.n_battles
        ([5], 5)
        """
        names = [k for k in LABELS if k in labels]
        columns = [np.asarray(labels[k], dtype=np.int64) for k in names] + [
            np.asarray(model_a, dtype=np.int64), np.asarray(model_b, dtype=np.int64),
            np.asarray(outcome, dtype=np.float64), np.asarray(weight, dtype=np.float64)]
        cols, n = group_rows(columns, count)
        k = len(names)
        return cls(tuple(models), *cols[k:], n, dict(zip(names, cols[:k])),
                   {key: np.asarray(label_names[key], dtype=object) for key in names}, source, tuple(notes))

    # ------------------------------------------------------------------ views
    @property
    def n_battles(self) -> int:
        return int(self.count.sum())

    @property
    def n_rows(self) -> int:
        """Distinct battles."""
        return int(self.count.size)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def tie(self) -> np.ndarray:
        """Rows that are ties (outcome 0.5)."""
        return self.outcome == 0.5

    @property
    def mass(self) -> np.ndarray:
        """Weight of each row: a battle's weight times its count (frequency weights)."""
        return self.weight * self.count

    @property
    def features(self) -> dict:
        """Style features are per battle: counted battles have none."""
        return {}

    @property
    def has_questions(self) -> bool:
        return "question" in self.labels

    def label_codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Codes (r,) and sorted names of a label column (as :meth:`BattleTable.label_codes`)."""
        if name not in self.labels:
            raise KeyError(name)
        return self.labels[name], self.label_names[name]

    def battles(self, where) -> int:
        """How many battles the rows ``where`` (bool, (r,)) stand for."""
        return int(self.count[np.asarray(where, dtype=bool)].sum())

    def model_counts(self) -> pd.DataFrame:
        """Per model: battles, wins, ties, losses (not weighted), as :meth:`BattleTable.model_counts`."""
        m, c = self.n_models, self.count

        def tally(side, rows):
            return np.bincount(side[rows], c[rows], m).astype(np.int64)

        every = np.ones(c.size, dtype=bool)
        n = tally(self.model_a, every) + tally(self.model_b, every)
        wins = tally(self.model_a, self.outcome > 0.5) + tally(self.model_b, self.outcome < 0.5)
        ties = tally(self.model_a, self.tie) + tally(self.model_b, self.tie)
        return pd.DataFrame({"model": list(self.models), "n_battles": n, "n_wins": wins, "n_ties": ties,
                             "n_losses": n - wins - ties})

    def to_frame(self) -> pd.DataFrame:
        """One row per distinct battle: the labels, model_a, model_b, outcome, weight, count."""
        names = np.asarray(self.models, dtype=object)
        frame = pd.DataFrame({k: self.label_names[k][v] for k, v in self.labels.items()})
        frame["model_a"], frame["model_b"] = names[self.model_a], names[self.model_b]
        frame["outcome"], frame["weight"], frame["count"] = self.outcome, self.weight, self.count
        return frame

    def subset(self, keep, *, note: str | None = None) -> "BattleCounts":
        """The rows where ``keep`` (bool, (r,)) is True; models and labels without a battle left are dropped and
        the codes renumbered (as :meth:`BattleTable.subset`)."""
        keep = np.asarray(keep, dtype=bool)
        a, b = self.model_a[keep], self.model_b[keep]
        present, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
        labels, label_names = {}, {}
        for k, v in self.labels.items():
            used, labels[k] = np.unique(v[keep], return_inverse=True)
            label_names[k] = self.label_names[k][used]
        models = tuple(self.models[i] for i in present)
        return BattleCounts(models, codes[:a.size].astype(np.int64), codes[a.size:].astype(np.int64),
                            self.outcome[keep], self.weight[keep], self.count[keep],
                            {k: v.astype(np.int64) for k, v in labels.items()}, label_names, self.source,
                            self.notes + ((note,) if note else ()))

    def canonical_order(self):
        raise ArgumentError("counted battles have no order of battles: independent battles (cluster 'none') and"
                            " online Elo need the battles themselves (read them without --scheduler)")

    # ------------------------------------------------------------------ compression
    def pair_sums(self, unit_codes, n_units: int, *, kind: str = "half", keep=None) -> PairSums:
        """Weighted sums per (unit, model pair) (:func:`evalband.data.battles.pair_sums` with weight x count).

        Examples
        --------
        >>> c = BattleCounts.build(("a", "b"), [0, 1], [1, 0], [1.0, 1.0], [1.0, 1.0], [2, 1], {}, {})
        >>> c.pair_sums(np.zeros(c.n_rows, dtype=int), 1).totals()["s"].tolist()
        [2.0]
        """
        a, b, y, w, c = self.model_a, self.model_b, self.outcome, self.mass, self.count
        u = np.asarray(unit_codes, dtype=np.int64)
        if keep is not None:
            a, b, y, w, u, c = a[keep], b[keep], y[keep], w[keep], u[keep], c[keep]
        return pair_sums(a, b, y, w, u, self.n_models, n_units, kind=kind, count=c)

    def __repr__(self) -> str:
        return (f"BattleCounts({self.n_battles:,} battles in {self.n_rows:,} distinct rows, {self.n_models} models,"
                f" {self.battles(self.tie):,} ties; labels: {', '.join(self.labels) or 'none'}; source:"
                f" {self.source})")

    def _repr_html_(self) -> str:
        return self.to_frame().head(10).to_html()
