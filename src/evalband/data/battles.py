"""The battle table: pairwise preference judgments, validated once, and their compression to sums per pair.

A battle is one judgment between two models: ``model_a``, ``model_b`` and the **outcome**, the probability that A
wins, in [0, 1] (1 = A won, 0 = B won, 0.5 = tie; AlpacaEval's weighted preferences are fractions). Optional
per-battle labels: ``question`` (the prompt), ``judge`` (the rater), ``cluster`` (any other resampling unit),
``turn``, a ``weight`` (Arena-Hard counts a strong vote three times), and numeric **style features** per side
(e.g. answer length, header counts) for style control.

Readers (:mod:`evalband.io.battles`, :mod:`evalband.io.arena_formats`) turn files into the arrays;
:meth:`BattleTable.build` validates them (self-battles, outcomes outside [0, 1], empty input are refused with an
:class:`~evalband._validate.InputError` naming the source, row and field). Models are kept in sorted order, so no
code depends on the order of the rows. :meth:`BattleTable.pair_sums` compresses the battles to sums per
(resampling unit, model pair, outcome), the sufficient statistics of every pairwise model here: a bootstrap
replicate then only reweights the units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._cells import check_cells
from .labels import label_column
from .._validate import ArgumentError, InputError
from ..display.notes import NoteKind
from ..display.reprs import displayed
from .._words import words

__all__ = ["BattleTable", "PairSums", "LABELS", "pair_sums", "partial_style_error"]

#: optional per-battle label columns (text), in the order they are shown
LABELS = ("question", "judge", "cluster", "turn")


def _count(k: int, noun: str) -> str:
    return f"{k:,} {noun}{'' if k == 1 else 's'}"


#: what a fit's own subsets of the battles leave out (evalband.arena and the frontier's battles, which make the
#: same subsets first): the notes :meth:`BattleTable.subset` is given
NOTE_TIES_DROPPED = NoteKind("preferences.ties-dropped", "excluded",
                             "{arg:ties='drop'}: {n:,} tied battles left out")
NOTE_BATTLES_WITHOUT_BASELINE = NoteKind("preferences.battles-without-baseline", "excluded",
                                         "{n:,} battles not involving the baseline {baseline!r} left out of the"
                                         " win rates")
NOTE_MODELS_LEFT_WITH_BATTLES = NoteKind("preferences.models-left-with-battles", "excluded",
                                         "left out with them: {shown} (no battle left)")


def partial_style_error(params):
    """The message when style control is asked for on battles with style counts on some battles only (``params``:
    those of the note ``io.partial-conv-metadata``; said by the Chatbot Arena reader and by :func:`evalband.arena`).

    Examples
    --------
    >>> partial_style_error({"n_missing": 3, "n": 38, "at": "record 4, record 8", "more": ""})[:58]
    '`style` needs style counts on every battle, and 3 of 38 ba'
    """
    return words("`{arg:style}` needs style counts on every battle, and {n_missing:,} of {n:,} battles have no"
                 " conv_metadata (at {at}{more}): run without `{arg:style}`, or leave the battles without"
                 " conv_metadata out of the file (FastChat's add_markdown_info.py writes it)", **params)


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class PairSums:
    """Battles compressed to weighted sums per (resampling unit, model pair).

    Attributes
    ----------
    pair_i, pair_j : numpy.ndarray of int, shape (P,)
        The model pairs that met, ``pair_i < pair_j`` (positions in ``models``).
    n_models, n_units : int
    sums : dict of str to scipy.sparse.csr_matrix, shape (P, K)
        For ``kind='half'``: ``'n'`` (weight of battles) and ``'s'`` (weight times the outcome for ``pair_i``);
        for ``kind='ties'``: ``'w'`` (wins of ``pair_i``), ``'t'`` (ties), ``'l'`` (wins of ``pair_j``).
    kind : {'half', 'ties'}
    """

    pair_i: np.ndarray
    pair_j: np.ndarray
    n_models: int
    n_units: int
    sums: dict
    kind: str

    @property
    def n_pairs(self) -> int:
        return int(self.pair_i.size)

    def totals(self) -> dict:
        """Each sum over all units, ``(P,)`` arrays (the data themselves)."""
        return {k: np.asarray(v.sum(axis=1)).ravel() for k, v in self.sums.items()}

    def replicate(self, counts) -> dict:
        """Sums of a bootstrap replicate: ``counts`` (c, K) unit counts -> ``(c, P)`` arrays per statistic."""
        w = np.asarray(counts, dtype=np.float64)
        return {k: np.ascontiguousarray((v @ w.T).T) for k, v in self.sums.items()}

    def unit_sums(self) -> dict:
        """Per-unit sums as ``(K, P)`` CSR matrices (the contribution of each unit; for the jackknife)."""
        return {k: v.T.tocsr() for k, v in self.sums.items()}


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class BattleTable:
    """Validated pairwise battles.

    Build with :meth:`build` (readers do); every array has one entry per battle, in the order of the source.

    Attributes
    ----------
    models : tuple of str
        Every model that appears, sorted by name (codes do not depend on the order of the rows).
    model_a, model_b : numpy.ndarray of int, shape (n,)
        Positions in ``models``.
    outcome : numpy.ndarray, shape (n,)
        Probability that A wins, in [0, 1].
    tie : numpy.ndarray of bool, shape (n,)
        Declared ties (outcome 0.5).
    weight : numpy.ndarray, shape (n,)
        Positive weight of each battle (1 unless the source weighs votes).
    labels : dict of str to numpy.ndarray
        Optional text labels per battle: 'question', 'judge', 'cluster', 'turn'.
    features : dict of str to numpy.ndarray, shape (n, 2) or (n,)
        Numeric style features: the values for A and B, or (1-D) a difference A - B given as such.
    source : str
    rows : numpy.ndarray
        Row labels as the user sees them (file lines), for messages.
    row_word : str
    notes : tuple of str
        What the reader assumed, converted or left out.
    """

    models: tuple
    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    tie: np.ndarray
    weight: np.ndarray
    labels: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    source: str = "<battles>"
    rows: np.ndarray | None = None
    row_word: str = "row"
    notes: tuple = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, model_a, model_b, outcome, *, tie=None, weight=None, labels=None, features=None,
              source: str = "<battles>", rows=None, row_word: str = "row", notes=(),
              columns: dict | None = None) -> "BattleTable":
        """Validate per-battle arrays and build the table.

        Parameters
        ----------
        model_a, model_b : array_like of str, shape (n,)
        outcome : array_like of float, shape (n,)
            Probability that A wins, in [0, 1].
        tie : array_like of bool, optional
            Declared ties; outcome 0.5 counts as a tie in any case.
        weight : array_like of float, optional
            Positive, finite.
        labels : dict, optional
            'question', 'judge', 'cluster', 'turn' -> array of labels (blank labels are refused).
        features : dict, optional
            Style feature name -> (n, 2) values for A and B, or (n,) differences A - B; finite numbers.
        source, rows, row_word
            For messages: the file, the row labels (file lines), and how rows are named ('line', 'row',
            'record').
        columns : dict, optional
            The source column of each field ('model_a', 'model_b', 'winner', label names, features), for messages.

        Raises
        ------
        InputError
            No battles; a blank model name; a self-battle; an outcome outside [0, 1]; a bad weight or feature.

        Examples
        --------
        >>> t = BattleTable.build(["b", "a"], ["a", "c"], [1.0, 0.5], labels={"question": ["q1", "q1"]})
        >>> t.models, t.model_a.tolist(), t.tie.tolist()
        (('a', 'b', 'c'), [1, 0], [False, True])
        """
        cols = dict(columns or {})
        a = np.asarray(model_a, dtype=object)
        b = np.asarray(model_b, dtype=object)
        n = a.size
        rows = np.arange(1, n + 1) if rows is None else np.asarray(rows, dtype=object)

        def where(i):
            return f"{row_word} {rows[i]}" if row_word != "at" else str(rows[i])

        if n == 0:
            raise InputError("holds no battles (nothing to rank)", source=source)
        if b.size != n:
            raise ArgumentError(f"`model_b` must have {n} entries like `model_a`; got {b.size}.")
        for name, arr, expected in (("model_a", a, "text"), ("model_b", b, "text"),
                                    ("winner", outcome, "a probability that A wins"), ("weight", weight, "a number"),
                                    *((k, v, "text or a number") for k, v in (labels or {}).items()),
                                    *((k, v, "a number") for k, v in (features or {}).items())):
            if arr is not None:  # before any cell is turned into text or a number
                check_cells(arr if isinstance(arr, (np.ndarray, pd.Series)) else np.asarray(arr, dtype=object),
                            name, source=source, where=where, column=cols.get(name, name), expected=expected)
        for name, arr in (("model_a", a), ("model_b", b)):
            blank = np.flatnonzero(pd.isna(arr) | (pd.Series(arr).astype(str).str.strip() == "").to_numpy())
            if blank.size:
                raise InputError(f"no model name ({_count(blank.size, 'battle')} without one)", source=source,
                                 row=where(blank[0]), column=cols.get(name, name))
        a = np.array([str(x).strip() for x in a], dtype=object)
        b = np.array([str(x).strip() for x in b], dtype=object)
        # the one label rule of every table (evalband.data.labels): NFC, look-alike spellings refused, notes
        both, more = label_column(pd.Series(np.concatenate([a, b]), index=pd.Index(np.concatenate([rows, rows]),
                                                                                    dtype=object)),
                                  "model", source, row_word)
        names = np.asarray(both.cat.categories, dtype=object)[both.cat.codes.to_numpy()]
        a, b = names[:n], names[n:]
        notes = (*notes, *(x for x in more if x not in notes))
        same = np.flatnonzero(a == b)
        if same.size:
            raise InputError(f"model_a and model_b are the same model {a[same[0]]!r}: a self-battle says nothing"
                             f" about a ranking ({_count(same.size, 'such battle')}); remove it",
                             source=source, row=where(same[0]), column=cols.get("model_b", "model_b"))
        y = np.asarray(outcome, dtype=np.float64)
        bad = np.flatnonzero(~(np.isfinite(y) & (y >= 0) & (y <= 1)))
        if bad.size:
            raise InputError(f"outcome {float(y[bad[0]])!r} is not a probability in [0, 1] that A wins"
                             f" ({_count(bad.size, 'such battle')})", source=source, row=where(bad[0]),
                             column=cols.get("winner", "winner"))
        t = np.zeros(n, dtype=bool) if tie is None else np.asarray(tie, dtype=bool)
        wrong = np.flatnonzero(t & (y != 0.5))
        if wrong.size:
            raise InputError("a tie must have outcome 0.5", source=source, row=where(wrong[0]),
                             column=cols.get("winner", "winner"))
        t = t | (y == 0.5)
        w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
        bad = np.flatnonzero(~(np.isfinite(w) & (w > 0)))
        if bad.size:
            raise InputError(f"weight {float(w[bad[0]])!r} must be a finite number > 0", source=source,
                             row=where(bad[0]), column=cols.get("weight", "weight"))
        out_labels = {}
        for name, values in (labels or {}).items():
            if name not in LABELS:
                raise ArgumentError(f"`labels` keys must be among {LABELS}; got {name!r}.")
            v = np.asarray(values, dtype=object)
            missing = np.flatnonzero(pd.isna(v))
            if missing.size:
                raise InputError(f"no {name} label ({_count(missing.size, 'battle')} without one); fill it in or"
                                 f" leave the column out", source=source, row=where(missing[0]),
                                 column=cols.get(name, name))
            out_labels[name] = np.array([str(x) for x in v], dtype=object)
        out_features = {}
        for name, values in (features or {}).items():
            v = np.asarray(values, dtype=np.float64)
            if v.shape not in ((n,), (n, 2)):
                raise ArgumentError(f"feature {name!r} must have shape ({n},) or ({n}, 2); got {v.shape}.")
            bad = np.flatnonzero(~np.isfinite(v).reshape(n, -1).all(axis=1))
            if bad.size:
                raise InputError(f"style feature {name!r} is not a finite number ({_count(bad.size, 'battle')})",
                                 source=source, row=where(bad[0]), column=cols.get(name, name))
            out_features[name] = v
        models, codes = np.unique(np.concatenate([a, b]).astype(str), return_inverse=True)
        return cls(tuple(str(m) for m in models), codes[:n].astype(np.int64), codes[n:].astype(np.int64), y, t, w,
                   out_labels, out_features, source, rows, row_word, tuple(notes))

    # ------------------------------------------------------------------ views
    @property
    def n_battles(self) -> int:
        return int(self.outcome.size)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def has_questions(self) -> bool:
        return "question" in self.labels

    @property
    def mass(self) -> np.ndarray:
        """Weight of each row (as :attr:`BattleCounts.mass`, where a row stands for several battles)."""
        return self.weight

    def battles(self, where) -> int:
        """How many battles the rows ``where`` (bool, (n,)) are."""
        return int(np.count_nonzero(where))

    def label_codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Codes (n,) and sorted unique names (K,) of a label column (names sorted: no dependence on row order)."""
        if name not in self.labels:
            raise KeyError(name)
        names, codes = np.unique(self.labels[name].astype(str), return_inverse=True)
        return codes.astype(np.int64), names.astype(object)

    def model_counts(self) -> pd.DataFrame:
        """Per model: battles, wins (outcome above one half for the model), ties, losses (not weighted)."""
        m = self.n_models
        won_a = self.outcome > 0.5
        won_b = self.outcome < 0.5
        n = np.bincount(self.model_a, minlength=m) + np.bincount(self.model_b, minlength=m)
        wins = np.bincount(self.model_a[won_a], minlength=m) + np.bincount(self.model_b[won_b], minlength=m)
        ties = np.bincount(self.model_a[self.tie], minlength=m) + np.bincount(self.model_b[self.tie], minlength=m)
        return pd.DataFrame({"model": list(self.models), "n_battles": n, "n_wins": wins, "n_ties": ties,
                             "n_losses": n - wins - ties})

    def to_frame(self) -> pd.DataFrame:
        """One row per battle: model_a, model_b, outcome, tie, weight, the labels and the features."""
        names = np.asarray(self.models, dtype=object)
        frame = pd.DataFrame({"model_a": names[self.model_a], "model_b": names[self.model_b],
                              "outcome": self.outcome, "tie": self.tie, "weight": self.weight})
        for name, values in self.labels.items():
            frame[name] = values
        for name, values in self.features.items():
            if values.ndim == 2:
                frame[f"{name}_a"], frame[f"{name}_b"] = values[:, 0], values[:, 1]
            else:
                frame[name] = values
        return frame

    def subset(self, keep, *, note: str | None = None) -> "BattleTable":
        """The battles where ``keep`` (bool, (n,)) is True, models recoded (a note may say what was left out)."""
        keep = np.asarray(keep, dtype=bool)
        names = np.asarray(self.models, dtype=object)
        notes = self.notes + ((note,) if note else ())
        return BattleTable.build(names[self.model_a[keep]], names[self.model_b[keep]], self.outcome[keep],
                                 tie=self.tie[keep], weight=self.weight[keep],
                                 labels={k: v[keep] for k, v in self.labels.items()},
                                 features={k: v[keep] for k, v in self.features.items()}, source=self.source,
                                 rows=self.rows[keep], row_word=self.row_word, notes=notes)

    def canonical_order(self) -> np.ndarray:
        """A permutation putting the battles in an order that depends on their content only (not on the rows'
        order): by models, outcome, weight, labels and features. Identical battles are interchangeable."""
        keys = [self.model_a, self.model_b, self.outcome, self.weight]
        for name in LABELS:
            if name in self.labels:
                keys.append(self.label_codes(name)[0])
        for name in sorted(self.features):
            v = self.features[name]
            keys.extend(v.T if v.ndim == 2 else [v])
        return np.lexsort(tuple(reversed(keys)))

    # ------------------------------------------------------------------ compression
    def pair_sums(self, unit_codes, n_units: int, *, kind: str = "half", keep=None) -> PairSums:
        """Compress battles to weighted sums per (unit, model pair).

        Parameters
        ----------
        unit_codes : array of int, shape (n,)
            Resampling unit of each battle (cluster), in ``[0, n_units)``.
        kind : {'half', 'ties'}
            'half': weight and weight x outcome (a tie is half a win, a fraction a fractional win); 'ties': the
            weights of wins, ties and losses separately (the outcomes must be 0, 0.5 or 1).
        keep : array of bool, optional
            Battles to use (e.g. ties dropped).
        """
        a, b, y, w = self.model_a, self.model_b, self.outcome, self.weight
        u = np.asarray(unit_codes, dtype=np.int64)
        if keep is not None:
            a, b, y, w, u = a[keep], b[keep], y[keep], w[keep], u[keep]
        return pair_sums(a, b, y, w, u, self.n_models, n_units, kind=kind)

    def counted(self):
        """The battles compressed to counts (:class:`~evalband.data.battle_counts.BattleCounts`): each distinct
        battle (labels, ordered pair of models, outcome, weight) once, with how often it occurs. Style features
        and the order of the rows are not kept."""
        from .battle_counts import BattleCounts

        return BattleCounts.from_table(self)

    def __repr__(self) -> str:
        labels = ", ".join(self.labels) or "none"
        feats = ", ".join(self.features) or "none"
        return (f"BattleTable({self.n_battles:,} battles, {self.n_models} models, {int(self.tie.sum()):,} ties;"
                f" labels: {labels}; style features: {feats}; source: {self.source})")

    def _repr_html_(self) -> str:
        return self.to_frame().head(10).to_html()


def pair_sums(model_a, model_b, outcome, mass, unit_codes, n_models: int, n_units: int, *,
              kind: str = "half", count=None) -> PairSums:
    """Battles compressed to weighted sums per (resampling unit, model pair): the one home of this compression
    (:meth:`BattleTable.pair_sums`, :meth:`~evalband.data.battle_counts.BattleCounts.pair_sums`).

    Parameters
    ----------
    model_a, model_b : array of int, shape (n,)
        Positions of the two models in the sorted models.
    outcome : array of float, shape (n,)
        Probability that A wins.
    mass : array of float, shape (n,)
        Weight of each row (a battle's weight; for counted battles, weight times count).
    unit_codes : array of int, shape (n,)
        Resampling unit of each row, in ``[0, n_units)``.
    n_models, n_units : int
    kind : {'half', 'ties'}
        'half': weight and weight x outcome (a tie is half a win, a fraction a fractional win); 'ties': the
        weights of wins, ties and losses separately (the outcomes must be 0, 0.5 or 1).
    count : array of int, shape (n,), optional
        The battles each row stands for (counted battles), for messages.

    Returns
    -------
    PairSums

    Examples
    --------
    >>> ps = pair_sums([0, 1], [1, 0], [1.0, 0.5], [1.0, 2.0], [0, 0], 2, 1)
    >>> ps.totals()["n"].tolist(), ps.totals()["s"].tolist()
    ([3.0], [2.0])
    """
    m = int(n_models)
    a, b = np.asarray(model_a, dtype=np.int64), np.asarray(model_b, dtype=np.int64)
    y, w = np.asarray(outcome, dtype=np.float64), np.asarray(mass, dtype=np.float64)
    u = np.asarray(unit_codes, dtype=np.int64)
    i = np.minimum(a, b)
    j = np.maximum(a, b)
    yi = np.where(a == i, y, 1.0 - y)  # outcome for the lower-coded model of the pair
    key, pair = np.unique(i * m + j, return_inverse=True)
    pi, pj = (key // m).astype(np.int64), (key % m).astype(np.int64)
    shape = (key.size, int(n_units))
    from scipy import sparse  # here, not at import: reading a results table needs no scipy.sparse

    def mat(values):
        return sparse.csr_matrix((values, (pair, u)), shape=shape)

    if kind == "half":
        sums = {"n": mat(w), "s": mat(w * yi)}
    elif kind == "ties":
        frac = np.flatnonzero(~np.isin(yi, (0.0, 0.5, 1.0)))
        if frac.size:
            k = frac.size if count is None else int(np.asarray(count)[frac].sum())
            raise ArgumentError(words("tie models need win/tie/loss outcomes, but {value} have a fractional outcome (e.g. {value2:g}); use {arg:ties='half'}.", value=_count(k, 'battle'), value2=yi[frac[0]]))
        sums = {"w": mat(w * (yi == 1.0)), "t": mat(w * (yi == 0.5)), "l": mat(w * (yi == 0.0))}
    else:
        raise ArgumentError(f"`kind` must be 'half' or 'ties'; got {kind!r}.")
    return PairSums(pi, pj, m, int(n_units), sums, kind)
