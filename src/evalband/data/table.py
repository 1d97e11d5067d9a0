"""The one results table every estimator reads.

Two levels reach it:

* **item level** (long): one row per model, task, item and optional trial, with a score in [0, 1] (or any real
  number when the user declares the score unbounded), and optional ``cluster`` (constant within an item) and
  ``group`` (constant within a task) columns;
* **summary level**: one row per model and task with ``n`` and ``correct``, as papers publish them.

Readers (``evalband.io``) build the table; it validates on construction, so every later stage can rely on clean
input. Each check raises :class:`~evalband._validate.InputError` naming the source, row and column. Nothing is
dropped silently: what a reader or the table leaves out is counted in :attr:`ResultsTable.notes` and in
:meth:`ResultsTable.coverage`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .checks import (_COVERAGE_PREFIX, ITEM_COLUMNS, SCORE_LETTERS, SUMMARY_COLUMNS,  # noqa: F401
                            MAX_MAGNITUDE, _at, _constant_within, _labels, _measure, _require, _row_name, natural_labels,
                            parse_scores, row_order, same_as_previous, sort_rows)
from .codes import codes_of, combined_key, run_bounds, distinct_pairs
from .labels import natural_order
from .._validate import ArgumentError, InputError, check_names
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import concat

__all__ = ["ResultsTable", "TaskData", "Counts", "SCORE_LETTERS", "parse_scores"]

#: Numeric per-row measures a table may carry beside the score; NaN (a blank cell) means "not measured" and is
#: counted in a note. ``cost`` and ``latency`` are non-negative (dollars, tokens, seconds, ...); ``human`` is a
#: human label of the same scale as the score, present on some rows (prediction-powered inference).
MEASURES = ("cost", "latency", "human")
#: Column names a facet may not take (they have roles of their own).
RESERVED = ("model", "task", "item", "trial", "score", "cluster", "group", "n", "correct") + MEASURES

#: How the note on items that not every model has begins (analyses that pair nothing leave it out).
UNSHARED_NOTE = f"{_COVERAGE_PREFIX} items not shared by every model are left out of paired analyses"


def _count(k: int, noun: str) -> str:
    """'1 model', '2 models', '1,204 items'."""
    return f"{k:,} {noun}{'' if k == 1 else 's'}"


@displayed


@dataclass(frozen=True, repr=False)
class TaskData:
    """One task's item-level scores, paired across models on their common items.

    Attributes
    ----------
    task : str
    models : tuple of str
    items : numpy.ndarray, shape (n_items,)
        Item labels of the common items, in the natural order of their labels (the table's canonical order).
    scores : numpy.ndarray, shape (n_models, n_items)
        Each model's score on each item, averaged over its trials.
    trials : numpy.ndarray of int, shape (n_models, n_items)
        Number of trials behind each entry of ``scores``.
    trial_scores : numpy.ndarray or None, shape (n_models, n_items, max_trials)
        The individual trial scores, padded with NaN; None when the table has no trial column.
    clusters : numpy.ndarray of int or None, shape (n_items,)
        Cluster code of each item (0 .. n_clusters - 1); None without a cluster column.
    cluster_labels : tuple of str
    left_out : dict
        For each model, how many of its items in this task were left out because not every model has them.
    score_sums, score_sumsqs : numpy.ndarray or None, shape (n_models, n_items)
        With the trials averaged (``averaged_trials``), the exact sum and sum of squares of the trials behind each
        entry (``trial_scores`` is then None); None otherwise.
    """

    task: str
    models: tuple[str, ...]
    items: np.ndarray
    scores: np.ndarray
    trials: np.ndarray
    trial_scores: np.ndarray | None = None
    clusters: np.ndarray | None = None
    cluster_labels: tuple[str, ...] = ()
    left_out: dict = field(default_factory=dict)
    score_sums: np.ndarray | None = None
    score_sumsqs: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return self.scores.shape[1]

    @property
    def n_clusters(self) -> int:
        return len(self.cluster_labels)


@displayed


@dataclass(frozen=True, repr=False)
class Counts:
    """Correct counts and test-set sizes, shaped (n_models, n_tasks)."""

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    correct: np.ndarray
    n: np.ndarray

    @property
    def accuracy(self) -> np.ndarray:
        return self.correct / self.n


#: the coverage notes of a table (said again whenever its rows change: :meth:`ResultsTable._with_coverage_notes`)
COVERAGE_UNSHARED = NoteKind("data.coverage-unshared-items", "excluded",
                             UNSHARED_NOTE + " ({shown}); analyses that resample each model independently keep them")
COVERAGE_TEST_SET_SIZES = NoteKind("data.coverage-test-set-sizes-differ", "info",
                                   "coverage: test-set sizes differ between models within {n_tasks} task(s)")
COVERAGE_TRIAL_COUNTS = NoteKind("data.coverage-trial-counts-differ", "info",
                                 "coverage: trial counts differ between items ({low} to {high}); items are averaged"
                                 " over their own trials")
COVERAGE_MODELS_LACK_TASKS = NoteKind("data.coverage-models-lack-tasks", "excluded",
                                      "coverage: some models lack some tasks ({lacking})")
COVERAGE_CODES = tuple(k.code for k in (COVERAGE_UNSHARED, COVERAGE_TEST_SET_SIZES, COVERAGE_TRIAL_COUNTS,
                                        COVERAGE_MODELS_LACK_TASKS))


def _coverage(note) -> bool:
    """Whether a note is one of the table's coverage notes (by its code)."""
    return getattr(note, "code", None) in COVERAGE_CODES


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class ResultsTable:
    """A validated table of evaluation results. Build it with ``evalband.read`` or the ``from_*`` methods.

    Attributes
    ----------
    data : pandas.DataFrame
        Item level: columns ``model, task, item, trial, score`` plus ``cluster``/``group`` when present (``trial``
        is 0 everywhere when the source had none). Summary level: ``model, task, n, correct`` plus ``group``.
        Its index holds the source's row names (file line numbers for text files).
    level : {'item', 'summary'}
    score_kind : {'binary', 'bounded', 'unbounded'}
        'binary' when every score is 0 or 1 (always so at summary level), 'bounded' for scores in [0, 1],
        'unbounded' when the user declared it; proportion intervals (Wilson, exact, ...) and pass@k then do not
        apply, while means with CLT or bootstrap intervals do.
    source : str
        Where the data came from, for messages and reports.
    notes : tuple of str
        Everything assumed, converted or left out while reading, one sentence each.
    attribution : str or None
        Attribution line of a bundled example.
    has_trials : bool
        Whether the source had a trial column.
    paired_items : bool
        Whether item ``i`` means the same test item for every model (True for test sets). False when items are
        unrelated across models, as the runs (seeds) of rliable score files: analyses then resample each model
        on its own and never pair.
    facets : tuple of str
        Item level: the label columns of the other sources of variation beside items (prompt template, judge,
        training run, harness, ...), in the order given. Each (model, task, item, facet levels, trial) has one
        row; analyses that know nothing of facets average an item's rows over its facet levels (and trials).
    averaged_trials : int
        0: one row per trial. Else each row is one (model, task, item) holding the mean of its trials (``score``)
        and their count (column ``trials``, no ``trial`` column), and this is the number of trial labels; analyses
        that read single trials refuse such a table (:func:`evalband.data.trial_means.average_trials`).
    """

    data: pd.DataFrame
    level: str
    score_kind: str
    source: str = "<DataFrame>"
    notes: tuple[str, ...] = ()
    attribution: str | None = None
    has_trials: bool = False
    paired_items: bool = True
    facets: tuple[str, ...] = ()
    averaged_trials: int = 0

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_items(cls, df: pd.DataFrame, *, source: str = "<DataFrame>", unbounded: bool = False,
                   row_word: str = "row", notes=(), attribution=None, facets=(), _owned: bool = False
                   ) -> "ResultsTable":
        """Validate a long item-level frame with canonical column names and build the table.

        Optional columns: ``trial``, ``cluster`` (constant within an item), ``group`` (constant within a task),
        the measures of :data:`MEASURES` (``cost``, ``latency``, ``human``; blank = not measured) and the facet
        columns named in ``facets`` (labels, never blank).

        Label columns may be text, numbers or categoricals; the table keeps each as a categorical (a small
        integer code per row), and every check runs on the codes, so a table of 1e8 rows is built in a few
        passes over arrays. ``_owned``: the frame is the reader's own, and its columns are released as they are
        read (memory for one copy of the data, not two).
        """
        from .items import item_frame

        out, kind, notes, has_trials, facets = item_frame(df, source=source, unbounded=unbounded, row_word=row_word,
                                                          notes=notes, facets=facets, owned=_owned)
        table = cls(out, "item", kind, source, tuple(notes), attribution, has_trials, True, facets)
        return table._with_coverage_notes()

    @classmethod
    def from_summary(cls, df: pd.DataFrame, *, source: str = "<DataFrame>", count_rule: str = "floor",
                     accuracy_scale: str = "auto", row_word: str = "row", notes=(),
                     attribution=None) -> "ResultsTable":
        """Validate a summary frame (``model, task, n`` and ``correct`` or ``accuracy``) and build the table.

        Parameters
        ----------
        count_rule : {'floor', 'round'}
            How counts are recovered from accuracies: ``floor(n * accuracy)`` (the rule of Longjohn et al.
            2025) or the nearest integer.
        accuracy_scale : {'auto', 'fraction', 'percent'}
            'auto' reads accuracies as percent when any exceeds 1, and says which it assumed.
        """
        from .summary import summary_frame

        out, notes = summary_frame(df, source=source, count_rule=count_rule, accuracy_scale=accuracy_scale,
                                   row_word=row_word, notes=notes)
        table = cls(out, "summary", "binary", source, tuple(notes), attribution, False)
        return table._with_coverage_notes()

    # ---------------------------------------------------------------- labels
    @cached_property
    def models(self) -> tuple[str, ...]:
        """Model names in natural order ('m2' before 'm10'), whatever the order of the rows."""
        return tuple(self.data["model"].cat.categories)

    @cached_property
    def tasks(self) -> tuple[str, ...]:
        """Task names in natural order, whatever the order of the rows."""
        return tuple(self.data["task"].cat.categories)

    @property
    def has_clusters(self) -> bool:
        return "cluster" in self.data.columns

    @property
    def has_groups(self) -> bool:
        return "group" in self.data.columns

    @property
    def measures(self) -> tuple[str, ...]:
        """The measures of :data:`MEASURES` this table carries (``cost``, ``latency``, ``human``)."""
        return tuple(m for m in MEASURES if m in self.data.columns)

    @cached_property
    def task_groups(self) -> dict[str, str] | None:
        """Mapping task -> group, or None without a group column."""
        if not self.has_groups:
            return None
        first = self.data.drop_duplicates("task")
        return {str(t): str(g) for t, g in zip(first["task"], first["group"])}

    @cached_property
    def groups(self) -> tuple[str, ...]:
        """Group names in natural order (empty without a group column)."""
        return tuple(natural_order(self.task_groups.values())) if self.has_groups else ()

    @property
    def is_binary(self) -> bool:
        return self.score_kind == "binary"

    @property
    def binary_items(self) -> bool:
        """Whether each item's score is 0 or 1: binary scores with one row per item (no trials, no facets)."""
        return self.is_binary and not self.has_trials and not self.facets

    def require_models(self, k: int = 2, what: str = "a comparison") -> None:
        """Raise a clear error when fewer than ``k`` models are present."""
        if len(self.models) < k:
            raise InputError(f"{what} needs at least {k} models; found {len(self.models)}"
                             f" ({', '.join(self.models)})", source=self.source)

    # ---------------------------------------------------------------- selection
    def select(self, *, models=None, tasks=None) -> "ResultsTable":
        """A table restricted to some models and/or tasks (in the order given)."""
        models = check_names(models, self.models, "models")
        tasks = check_names(tasks, self.tasks, "tasks")
        keep = self.data["model"].isin(models) & self.data["task"].isin(tasks)
        data = self.data.loc[keep].copy()
        data["model"] = data["model"].cat.set_categories(models)
        data["task"] = data["task"].cat.set_categories(tasks)
        for col in ("item", "cluster", "group", *self.facets):
            if col in data.columns:
                data[col] = data[col].cat.remove_unused_categories()
        notes = tuple(n for n in self.notes if not _coverage(n))
        out = ResultsTable(data, self.level, self.score_kind, self.source, notes, self.attribution, self.has_trials,
                           self.paired_items, self.facets, self.averaged_trials)
        return out._with_coverage_notes()

    # ---------------------------------------------------------------- views
    def task_data(self, task: str, *, models=None, items: str = "common") -> TaskData:
        """The (models x items) score matrix of one task, each item averaged over its rows. Item level only.

        ``items='common'`` (paired analyses): the items every selected model has, and ``left_out`` counts the
        others per model. ``items='all'``: every item some selected model has, NaN where a model has none (each
        model estimated on its own items). This is the one reshaper from the table to arrays.
        """
        from .task_data import task_data

        self._need_items("task_data")
        if items not in ("common", "all"):
            raise ArgumentError(f"`items` must be 'common' or 'all'; got {items!r}.")
        return task_data(self, task, models=models, items=items)

    def counts(self, *, models=None, tasks=None) -> Counts:
        """Correct counts and sizes, (n_models, n_tasks). Summary level, or binary scores at item level.

        At item level each model is counted on its own items, without trials (one trial per item is needed).
        """
        models = check_names(models, self.models, "models")
        tasks = check_names(tasks, self.tasks, "tasks")
        if self.level == "item":
            if not self.is_binary:
                raise InputError("counts need binary (0/1) scores", source=self.source)
            if self.has_trials or self.facets:
                raise InputError("counts need one row per item (no trials or facets); average them first or use"
                                 " item-level estimators", source=self.source)
            d = self.data
            n_t = len(self.tasks)
            cell = codes_of(d["model"]).astype(np.int64) * n_t + codes_of(d["task"])
            size = len(self.models) * n_t
            idx = pd.MultiIndex.from_product([self.models, self.tasks], names=["model", "task"])
            grouped = pd.DataFrame({"sum": np.bincount(cell, weights=d["score"].to_numpy(), minlength=size),
                                    "count": np.bincount(cell, minlength=size)}, index=idx)
        else:
            grouped = self.data.set_index(["model", "task"])[["correct", "n"]]
            grouped.columns = ["sum", "count"]
        idx = pd.MultiIndex.from_product([models, tasks], names=["model", "task"])
        g = grouped.reindex(idx)
        missing = g["count"].isna() | (g["count"] == 0)
        if missing.any():
            m, t = g.index[missing.to_numpy()][0]
            raise InputError(f"model '{m}' has no result for task '{t}'", source=self.source)
        shape = (len(models), len(tasks))
        return Counts(tuple(models), tuple(tasks), g["sum"].to_numpy(np.float64).reshape(shape),
                      g["count"].to_numpy(np.float64).reshape(shape))

    def coverage(self) -> pd.DataFrame:
        """Per model and task: items the model has, items shared by all models, and items left out of paired
        analyses."""
        if self.level == "summary":
            d = self.data[["model", "task", "n"]].rename(columns={"n": "items"}).copy()
            d["common_items"] = d["items"]
            d["left_out"] = 0
            return d.reset_index(drop=True)
        return self._coverage.copy()

    @cached_property
    def _cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each distinct (task, model, item) of an item-level table: its task, model and item codes and its rows
        (trials times facet levels), on the codes (sorted tables: runs of neighbouring rows)."""
        d = self.data
        t, m, i = (codes_of(d[c]) for c in ("task", "model", "item"))
        if not (self.has_trials or self.facets):  # one row per cell (duplicates were refused)
            return t, m, i, np.broadcast_to(np.int64(1), t.shape)  # (a read-only view: no array of ones)
        if self.averaged_trials and not self.facets:  # one row per cell, with the count of its trials
            return t, m, i, d["trials"].to_numpy()
        if self.averaged_trials:  # a row per facet level of a cell (sorted): the trials of its rows
            key = combined_key([t, m, i], [len(d[c].cat.categories) for c in ("task", "model", "item")])
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            return t[starts], m[starts], i[starts], np.add.reduceat(d["trials"].to_numpy().astype(np.int64), starts)
        radices = [len(d[c].cat.categories) for c in ("task", "model", "item")]
        key = combined_key([t, m, i], radices)
        if key is None:
            g = d.groupby(["task", "model", "item"], observed=True).size()
            codes = [g.index.codes[k] for k in range(3)]
            return (*codes, g.to_numpy())
        if key.size < 2 or bool(np.all(key[:-1] <= key[1:])):
            starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            return t[starts], m[starts], i[starts], np.diff(np.r_[starts, key.size])
        uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
        return t[first], m[first], i[first], counts

    @cached_property
    def _coverage(self) -> pd.DataFrame:
        t, m, i, _ = self._cells
        n_m, n_t, n_i = len(self.models), len(self.tasks), len(self.data["item"].cat.categories)
        # task by task (the cells come task by task), so that no array of a key per cell is made: per (model,
        # task) its items, and per task the items every model has
        if t.size < 2 or bool(np.all(t[:-1] <= t[1:])):
            bounds, order = run_bounds(t, n_t), None
        else:
            order = np.argsort(t, kind="stable")
            bounds = run_bounds(t[order], n_t)
        per = np.zeros((n_m, n_t), dtype=np.int64)
        common = np.zeros(n_t, dtype=np.int64)
        for k in range(n_t):
            rows = slice(int(bounds[k]), int(bounds[k + 1])) if order is None else order[bounds[k]:bounds[k + 1]]
            mk, ik = m[rows], i[rows]
            per[:, k] = np.bincount(mk, minlength=n_m)
            if n_i <= max(4 * ik.size, 1 << 16):
                common[k] = np.count_nonzero(np.bincount(ik, minlength=n_i) == n_m)
            else:  # few of many items: the distinct ones
                common[k] = np.count_nonzero(np.unique(ik, return_counts=True)[1] == n_m)
        per = per.ravel()  # model by model: position model * n_t + task
        have = np.flatnonzero(per)  # the observed (model, task) pairs, model by model
        mc, tc = have // n_t, have % n_t
        frame = pd.DataFrame({
            "model": pd.Categorical.from_codes(mc, dtype=self.data["model"].dtype),
            "task": pd.Categorical.from_codes(tc, dtype=self.data["task"].dtype),
            "items": per[have].astype(np.int64),
            "common_items": common[tc].astype(np.int64)})
        frame["left_out"] = frame["items"] - frame["common_items"]
        return frame

    def describe(self) -> str:
        """One paragraph saying what was read."""
        d = self.data
        if self.level == "item":
            rows = int(d["trials"].sum()) if self.averaged_trials else len(d)
            parts = [_count(rows, "item-level row"), _count(len(self.models), "model"),
                     _count(len(self.tasks), "task"), _count(distinct_pairs(d, "task", "item"), "item")]
            if self.has_trials:
                k = self.averaged_trials or int(d['trial'].max()) + 1
                parts.append(f"up to {_count(k, 'trial')} per item")
            if self.has_clusters:
                parts.append(_count(distinct_pairs(d, "task", "cluster"), "cluster"))
            for f in self.facets:
                k = int((np.bincount(codes_of(d[f])) > 0).sum())
                parts.append(f"{k:,} {f} level{'s' if k != 1 else ''}")
            for m in self.measures:
                parts.append(f"{m} on {int(d[m].notna().sum()):,} rows")
        else:
            parts = [_count(len(d), "summary row"), _count(len(self.models), "model"),
                     _count(len(self.tasks), "task")]
        if self.has_groups:
            parts.append(_count(len(self.groups), "group"))
        pieces = [f"{self.source}: " + ", ".join(parts) + f"; scores {self.score_kind}."]
        for n in self.notes:  # each note in its own words for every audience (:func:`evalband._words.say`)
            pieces += [" ", n, "" if n.endswith(".") else "."]
        return concat(*pieces) if self.notes else pieces[0]

    def task_codes(self, task: str, *columns: str) -> tuple:
        """The category codes of ``columns`` (model, item, cluster, ...) on the rows of one task, in the table's
        order: views of the columns when the rows are in the canonical order (one slice per task), so that a pass
        over a table of 1e8 rows holds one task's codes at a time."""
        rows = self._task_rows[task]
        return tuple(codes_of(self.data[c])[rows] for c in columns)

    # ---------------------------------------------------------------- internals
    @cached_property
    def _task_rows(self) -> dict:
        """Task -> row positions, computed once so per-task views do not rescan the table."""
        codes = codes_of(self.data["task"])
        if codes.size < 2 or bool(np.all(codes[:-1] <= codes[1:])):  # the canonical order: a slice per task
            bounds = run_bounds(codes, len(self.tasks))
            return {t: slice(int(bounds[k]), int(bounds[k + 1])) for k, t in enumerate(self.tasks)}
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(self.tasks) + 1))
        return {t: order[bounds[k]:bounds[k + 1]] for k, t in enumerate(self.tasks)}

    def _need_items(self, what: str) -> None:
        if self.level != "item":
            raise InputError(f"{what} needs item-level data; this table holds per-task summaries",
                             source=self.source)

    def require_trial_rows(self, what: str) -> None:
        """Raise a clear error when the table's trials were averaged per item (``averaged_trials``) and ``what``
        reads each trial's score."""
        if self.averaged_trials:
            from .trial_means import TRIALS_NEEDED

            raise InputError(TRIALS_NEEDED.format(what=what), source=self.source)

    def _with_coverage_notes(self) -> "ResultsTable":
        notes = [n for n in self.notes if not _coverage(n)]
        if self.level == "item" and self.paired_items:  # unpaired items (rliable runs) are never left out
            cov = self.coverage()
            lost = cov.groupby("model", observed=True)["left_out"].sum()
            lost = lost[lost > 0]
            if len(lost):
                # models losing the same number of items are named together, so 29 models stay one short line
                by_count = {}
                for m, v in lost.items():
                    by_count.setdefault(int(v), []).append(str(m))
                shown = "; ".join(
                    f"{v:,} for {len(ms)} models" if len(ms) > 3 else f"{v:,} for {', '.join(ms)}"
                    for v, ms in sorted(by_count.items(), key=lambda kv: -len(kv[1])))
                notes.append(COVERAGE_UNSHARED(shown=shown))
        if self.level == "item":
            if self.has_trials:
                k = self._cells[3]
                if k.min() != k.max():
                    notes.append(COVERAGE_TRIAL_COUNTS(low=int(k.min()), high=int(k.max())))
        else:
            sizes = self.data.groupby("task", observed=True)["n"].nunique()
            tasks_per_model = self.data.groupby("model", observed=True).size()
            if (tasks_per_model < len(self.tasks)).any():
                short = tasks_per_model[tasks_per_model < len(self.tasks)]
                notes.append(COVERAGE_MODELS_LACK_TASKS(
                    lacking=", ".join(f"{m}: {int(v)} of {len(self.tasks)}" for m, v in short.items())))
            if (sizes > 1).any():
                notes.append(COVERAGE_TEST_SET_SIZES(n_tasks=int((sizes > 1).sum())))
        object.__setattr__(self, "notes", tuple(notes))
        return self
