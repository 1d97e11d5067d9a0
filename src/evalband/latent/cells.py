"""The data of a latent-ability model: a sparse model x task matrix of cells, or item responses.

Three kinds of input reach :func:`evalband.latent.ability` and :func:`evalband.latent.items`:

* **counts** (summary level, ``model, task, n, correct``): each observed cell has ``n`` items and ``correct``
  right; the fit uses the binomial likelihood and the bootstrap redraws the counts within cells;
* **scores** (``model, task, score`` with a score in [0, 1] per cell and no count, as leaderboards publish a
  benchmark's headline metric): the fit uses a quasi-likelihood for the mean score;
* **items** (item level, ``model, task, item, score`` with scores in [0, 1], possibly sparse): the item responses
  (each item averaged over its trials and facet levels); the bootstrap resamples items within tasks, paired
  across models.

Cells are kept in the canonical order of their labels (models and tasks in natural order), so that every
number is the same whatever the order of the input rows. The model x task graph must be connected: abilities on
components that share no task are not comparable, and :func:`check_connected` names the components.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.labels import natural_order
from .._lists import and_names, names_text
from ..data.checks import _labels, _require, _row_name, parse_scores
from .._validate import ArgumentTypeError, InputError
from ..display.notes import NoteKind
from .._words import words

__all__ = ["Cells", "ItemResponses", "cells_from", "check_connected", "components", "score_frame"]


@dataclass(frozen=True, eq=False)


class ItemResponses:
    """Item-level responses as a (models x items) matrix, NaN where a model has no response.

    Attributes
    ----------
    models, tasks : tuple of str
    items : tuple of str
        Item labels, in the order of the columns (task by task, natural order within a task).
    item_task : numpy.ndarray of int, shape (I,)
        Task code of each item (the columns are sorted by it).
    y : numpy.ndarray, shape (M, I)
        Mean score of the model on the item (over its trials and facet levels), NaN when not answered.
    """

    models: tuple
    tasks: tuple
    items: tuple
    item_task: np.ndarray
    y: np.ndarray

    @property
    def observed(self) -> np.ndarray:
        return ~np.isnan(self.y)

    def cell_counts(self, weights=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per observed (model, task) cell: model code, task code, sum of scores and number of items, with each
        item counted ``weights[..., item]`` times (a bootstrap's multiplicities; shape (I,) or (R, I)).

        Returns ``(model, task, correct, n)`` with ``correct`` and ``n`` shaped (N,) or (R, N)."""
        obs = self.observed
        n_t, n_m = len(self.tasks), len(self.models)
        y0 = np.where(obs, self.y, 0.0)
        o = obs.astype(float)
        bounds = np.searchsorted(self.item_task, np.arange(n_t + 1))  # items are sorted by task
        w = None if weights is None else np.atleast_2d(np.asarray(weights, dtype=float))
        shape = (n_m, n_t) if w is None else (w.shape[0], n_m, n_t)
        s, n, have = np.zeros(shape), np.zeros(shape), np.zeros((n_m, n_t), dtype=bool)
        for t in range(n_t):  # a loop over tasks: each a product over its items
            sl = slice(bounds[t], bounds[t + 1])
            have[:, t] = o[:, sl].any(axis=1)
            if w is None:
                s[:, t], n[:, t] = y0[:, sl].sum(axis=1), o[:, sl].sum(axis=1)
            else:
                s[:, :, t], n[:, :, t] = w[:, sl] @ y0[:, sl].T, w[:, sl] @ o[:, sl].T
        m, t = np.nonzero(have)
        return m, t, s[..., m, t], n[..., m, t]


@dataclass(frozen=True, eq=False)


class Cells:
    """The observed cells of a model x task matrix, in canonical order (by model, then task).

    Attributes
    ----------
    models, tasks : tuple of str
    model, task : numpy.ndarray of int, shape (N,)
        Codes of each cell's model and task.
    y : numpy.ndarray, shape (N,)
        Observed score in [0, 1] (``correct / n`` for counts).
    n : numpy.ndarray or None, shape (N,)
        Items behind each cell (counts and items), None for scores without counts.
    kind : {'counts', 'scores', 'items'}
    source : str
    responses : ItemResponses or None
        The item responses (kind 'items').
    notes : tuple of str
        What the reading assumed or left out.
    attribution : str or None
    """

    models: tuple
    tasks: tuple
    model: np.ndarray
    task: np.ndarray
    y: np.ndarray
    n: np.ndarray | None
    kind: str
    source: str
    responses: ItemResponses | None = None
    notes: tuple = ()
    attribution: str | None = None

    @property
    def n_cells(self) -> int:
        return int(self.y.size)

    def tasks_per_model(self) -> np.ndarray:
        return np.bincount(self.model, minlength=len(self.models))

    def models_per_task(self) -> np.ndarray:
        return np.bincount(self.task, minlength=len(self.tasks))

    def subset(self, keep) -> "Cells":
        """The cells where ``keep`` is True (same labels)."""
        keep = np.asarray(keep, dtype=bool)
        return Cells(self.models, self.tasks, self.model[keep], self.task[keep], self.y[keep],
                     None if self.n is None else self.n[keep], self.kind, self.source, None, self.notes,
                     self.attribution)


NOTE_CELL_BLANK_SCORE_LEFT = NoteKind('latent.cell-blank-score-left', 'excluded',
                                       '{value:,} cell{value2} with a blank score left out (not measured)')


def score_frame(df: pd.DataFrame, *, source: str = "<DataFrame>", row_word: str = "row") -> tuple:
    """Validate a frame of cell scores (``model, task, score`` in [0, 1]; optional ``n``): labels, scores and
    duplicates, by the rules of the results table. Returns ``(models, tasks, model, task, y, n, notes)`` in
    canonical order. A blank score is a cell not measured: it is left out and counted in a note."""
    _require(df, ("model", "task", "score"), source)
    notes: list = []
    if len(df) == 0:
        raise InputError("no rows to analyse", source=source)
    model = _labels(df["model"], "model", source, row_word, notes)
    task = _labels(df["task"], "task", source, row_word, notes)
    raw = df["score"]
    blank = raw.isna().to_numpy()
    score = np.full(len(df), np.nan)
    if (~blank).any():
        score[~blank] = parse_scores(raw[~blank], source=source, row_word=row_word)
    bad = np.flatnonzero(~blank & ((score < 0) | (score > 1)))
    if bad.size:
        raise InputError(
            f"score {float(score[bad[0]])!r} lies outside [0, 1] ({bad.size} such row{'s' if bad.size > 1 else ''});"
            " a latent-ability model needs each cell's score as a fraction in [0, 1] (rescale the benchmark's"
            " metric); unbounded scores have no sigmoid link", source=source,
            row=_row_name(df.index[bad[0]], row_word), column="score")
    n = None
    if "n" in df.columns:
        n = pd.to_numeric(df["n"], errors="coerce").to_numpy(dtype=float)
        badn = np.flatnonzero(~blank & ~((n > 0) & (n == np.floor(n))))
        if badn.size:
            raise InputError(f"test-set size n must be a positive integer; got {df['n'].iloc[badn[0]]!r}",
                             source=source, row=_row_name(df.index[badn[0]], row_word), column="n")
    if blank.any():
        notes.append(NOTE_CELL_BLANK_SCORE_LEFT(value=int(blank.sum()), value2='s' if blank.sum() != 1 else ''))
    keep = ~blank
    mo = natural_order(model[keep].astype(str).unique())
    ta = natural_order(task[keep].astype(str).unique())
    mc = pd.Categorical(model[keep].astype(str), categories=mo).codes.astype(np.int64)
    tc = pd.Categorical(task[keep].astype(str), categories=ta).codes.astype(np.int64)
    key = mc * len(ta) + tc
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(np.diff(key[order]) == 0)
    if dup.size:
        rows = df.index[np.flatnonzero(keep)[order[dup[0]:dup[0] + 2]]]
        raise InputError(f"duplicate score for model '{mo[mc[order[dup[0]]]]}', task '{ta[tc[order[dup[0]]]]}'"
                         f" (also {_row_name(rows[1], row_word)})", source=source, row=_row_name(rows[0], row_word))
    y = score[keep][order]
    return (tuple(mo), tuple(ta), mc[order], tc[order], y, None if n is None else n[keep][order], notes)


def cells_from(data, *, models=None, tasks=None, **read_options) -> Cells:
    """The cells of ``data``: a Selection, a ResultsTable, a DataFrame or anything :func:`evalband.select`
    reads. A DataFrame (or table) with a ``score`` column but neither ``item`` nor ``n`` is read as cell
    scores (:func:`score_frame`); ``models`` and ``tasks`` choose what to keep."""
    from ..selection import Selection, select
    from ..data.table import ResultsTable

    from ..selection.cell_scores import cell_scores_input

    if isinstance(data, Cells) and models is None and tasks is None and not read_options:
        return data  # (already read: the fit on every model of a selection, latent.abilities)

    cols = {k: read_options[k] for k in ("model_col", "task_col", "item_col", "score_col", "drop_cols")
            if k in read_options}
    frame = cell_scores_input(data, **cols) if set(read_options) <= set(cols) else None
    if frame is not None:  # a file (or bundled example) of cell scores: read as the frame below
        data, read_options = frame, {}
    if isinstance(data, pd.DataFrame) and "score" in data.columns and "item" not in data.columns \
            and not read_options:
        # a frame read from a file of cell scores (evalband.io.cell_scores) names the file, its lines and its
        # attribution in data.attrs
        source = str(data.attrs.get("source", "<DataFrame>"))
        row_word = str(data.attrs.get("row_word", "row"))
        attribution = data.attrs.get("attribution")
        mo, ta, mc, tc, y, n, notes = score_frame(data, source=source, row_word=row_word)
        notes = list(data.attrs.get("notes", ())) + list(notes)
        cells = Cells(mo, ta, mc, tc, y, n, "scores" if n is None else "counts", source, None, tuple(notes),
                      attribution)
        if n is not None:
            cells = Cells(mo, ta, mc, tc, np.round(y * n) / n, n, "counts", source, None,
                          tuple(notes) + ("correct counts recovered as round(n * score)",), attribution)
        return _choose(cells, models, tasks)
    sel = data if isinstance(data, Selection) else select(data, models=models, tasks=tasks, **read_options)
    if isinstance(data, Selection) and (models is not None or tasks is not None):
        sel = select(data, models=models, tasks=tasks)
    table = sel.table
    if not isinstance(table, ResultsTable):
        raise ArgumentTypeError(f"a latent-ability model needs evaluation results (a results table); got"
                                f" {type(table).__name__}.")
    notes = tuple(sel.all_notes)
    if table.level == "summary":
        d = table.data
        mc = d["model"].cat.codes.to_numpy().astype(np.int64)
        tc = d["task"].cat.codes.to_numpy().astype(np.int64)
        order = np.argsort(mc * len(table.tasks) + tc, kind="stable")
        n = d["n"].to_numpy(dtype=float)[order]
        y = d["correct"].to_numpy(dtype=float)[order] / n
        return Cells(tuple(table.models), tuple(table.tasks), mc[order], tc[order], y, n, "counts", table.source,
                     None, notes, table.attribution)
    if table.score_kind == "unbounded":
        raise InputError("unbounded scores cannot be modelled with a latent ability (the model predicts a"
                         " fraction in [0, 1] through a sigmoid); rescale the scores to [0, 1]", source=table.source)
    resp = _responses(table)
    m, t, s, n = resp.cell_counts()
    order = np.argsort(m * len(resp.tasks) + t, kind="stable")
    if table.has_clusters:  # nothing a user gave is dropped silently
        notes = (*notes, NOTE_CLUSTERS_NOT_USED(n_clusters=int(table.data.groupby(["task", "cluster"],
                                                                                 observed=True).ngroups)))
    return Cells(resp.models, resp.tasks, m[order], t[order], s[order] / n[order], n[order], "items",
                 table.source, resp, notes, table.attribution)


NOTE_CLUSTERS_NOT_USED = NoteKind(
    'latent.clusters-not-used', 'caveat',
    'the item-level latent model treats items as independent: the {n_clusters:,} clusters of the data are not '
    'used, so intervals are too narrow where items within a cluster are correlated (`compare` and `rank` '
    'resample whole clusters)')


NOTE_NO_MEASURED_CELL_CHOSEN = NoteKind(
    'latent.no-measured-cell-chosen', 'excluded',
    '{n_empty} {what}{value} with no measured cell on the chosen {other} left out: {value2}{value3}')


def _choose(cells: Cells, models, tasks) -> Cells:
    from .._validate import check_names

    if models is None and tasks is None:
        return cells
    mo = check_names(models, cells.models, "models") if models is not None else list(cells.models)
    ta = check_names(tasks, cells.tasks, "tasks") if tasks is not None else list(cells.tasks)
    mpos = {m: k for k, m in enumerate(mo)}
    tpos = {t: k for k, t in enumerate(ta)}
    mnew = np.array([mpos.get(cells.models[k], -1) for k in range(len(cells.models))])[cells.model]
    tnew = np.array([tpos.get(cells.tasks[k], -1) for k in range(len(cells.tasks))])[cells.task]
    keep = (mnew >= 0) & (tnew >= 0)
    # a task no chosen model was measured on (or a model with no cell on the chosen tasks) is left out and named;
    # a name the user gave that is left with no cell is an error
    notes = list(cells.notes)
    has_m = np.bincount(mnew[keep], minlength=len(mo)) > 0
    has_t = np.bincount(tnew[keep], minlength=len(ta)) > 0
    for given, names, has, what, other in ((models, mo, has_m, "model", "tasks"), (tasks, ta, has_t, "task",
                                                                                    "models")):
        empty = [names[k] for k in np.flatnonzero(~has)]
        if not empty:
            continue
        if given is not None:
            raise InputError(f"{what} {empty[0]!r} has no measured cell on the chosen {other}", source=cells.source)
        notes.append(NOTE_NO_MEASURED_CELL_CHOSEN(n_empty=len(empty), what=what, value='s' if len(empty) > 1 else '', other=other, value2=', '.join(empty[:5]), value3=' ...' if len(empty) > 5 else ''))
    mo = [m for m, h in zip(mo, has_m) if h]
    ta = [t for t, h in zip(ta, has_t) if h]
    mnew = (np.cumsum(has_m) - 1)[np.clip(mnew, 0, None)]
    tnew = (np.cumsum(has_t) - 1)[np.clip(tnew, 0, None)]
    order = np.argsort(mnew[keep] * len(ta) + tnew[keep], kind="stable")
    return Cells(tuple(mo), tuple(ta), mnew[keep][order], tnew[keep][order], cells.y[keep][order],
                 None if cells.n is None else cells.n[keep][order], cells.kind, cells.source,
                 _choose_responses(cells.responses, mo, ta), tuple(notes), cells.attribution)


def _choose_responses(resp: ItemResponses | None, models, tasks) -> ItemResponses | None:
    """The item responses of the chosen ``models`` on the chosen ``tasks`` (items none of them answered left
    out), as reading only those would give them."""
    if resp is None:
        return None
    rows = np.array([resp.models.index(m) for m in models], dtype=np.int64)
    tpos = np.full(len(resp.tasks), -1, dtype=np.int64)
    tpos[[resp.tasks.index(t) for t in tasks]] = np.arange(len(tasks))
    y = resp.y[rows]
    cols = np.flatnonzero((tpos[resp.item_task] >= 0) & ~np.isnan(y).all(axis=0))
    item_task = tpos[resp.item_task[cols]]
    order = np.argsort(item_task, kind="stable")  # items sorted by task, as cell_counts needs
    cols = cols[order]
    return ItemResponses(tuple(models), tuple(tasks), tuple(resp.items[c] for c in cols), item_task[order],
                         y[:, cols])


def _responses(table) -> ItemResponses:
    """The (models x items) mean-score matrix of an item-level table (items of every task, task by task)."""
    d = table.data
    mc = d["model"].cat.codes.to_numpy().astype(np.int64)
    tc = d["task"].cat.codes.to_numpy().astype(np.int64)
    ic = d["item"].cat.codes.to_numpy().astype(np.int64)
    n_i = len(d["item"].cat.categories)
    ti = tc * n_i + ic  # (task, item) pairs: an item label means one item within its task
    uniq, col = np.unique(ti, return_inverse=True)
    n_m, n_cols = len(table.models), uniq.size
    flat = mc * n_cols + col
    sums = np.bincount(flat, weights=d["score"].to_numpy(dtype=float), minlength=n_m * n_cols)
    counts = np.bincount(flat, minlength=n_m * n_cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan).reshape(n_m, n_cols)
    cats = d["item"].cat.categories
    labels = tuple(str(cats[k]) for k in (uniq % n_i))
    return ItemResponses(tuple(table.models), tuple(table.tasks), labels, (uniq // n_i).astype(np.int64), y)


def components(model, task, n_models: int, n_tasks: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Connected components of the bipartite model x task graph: ``(k, model_label, task_label)``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    size = n_models + n_tasks
    g = coo_matrix((np.ones(model.size), (model, n_models + task)), shape=(size, size))
    k, label = connected_components(g, directed=False)
    return int(k), label[:n_models], label[n_models:]


def check_connected(cells: Cells) -> None:
    """Refuse a model x task graph with several components (abilities on them are not comparable), naming them;
    refuse a model or task without any cell."""
    k, ml, tl = components(cells.model, cells.task, len(cells.models), len(cells.tasks))
    if k == 1:
        return
    parts = []
    sizes = np.bincount(ml, minlength=k)
    for c in np.argsort(-sizes, kind="stable")[:4]:
        ms = [cells.models[j] for j in np.flatnonzero(ml == c)]
        ts = [cells.tasks[j] for j in np.flatnonzero(tl == c)]
        if not ms:
            parts.append(f"task{'s' if len(ts) > 1 else ''} {names_text(ts, 3)} with no model")
            continue
        parts.append(f"{{{and_names(ms, limit=3)} on {names_text(ts, 3)}}}")
    more = f" and {k - 4} more" if k > 4 else ""
    raise InputError(words('the model x task graph has {k} components that share no task: {value}{more}; abilities on different components are not comparable: choose the models and tasks of one component (`{arg:models}`, `{arg:tasks}`)', k=k, value='; '.join(parts), more=more), source=cells.source)
