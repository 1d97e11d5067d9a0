"""The (models x tasks) score matrix that the tests over tasks read, and how it is made complete.

When tasks are the sample (Demsar 2006; Benavoli et al. 2017), each model has one number per task: its mean score
on the task's items (item level, trials averaged first) or ``correct / n`` (summary level). This module builds that
matrix from a :class:`~evalband.data.table.ResultsTable`, a wide pandas DataFrame (models as rows, tasks as columns) or
an array with labels, and handles the cells that are missing: the complete-case subset keeps the tasks that every
selected model has, and counts and names the tasks it drops.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, ArgumentTypeError, InputError, check_names
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import concat, words

__all__ = ["ScoreMatrix", "as_score_matrix", "score_matrix", "complete_cases", "rank_matrix"]


@displayed


@dataclass(frozen=True, repr=False)
class ScoreMatrix:
    """One number per model and task.

    Attributes
    ----------
    scores : numpy.ndarray, shape (n_models, n_tasks)
        NaN where a model has no result on a task.
    models, tasks : tuple of str
    source : str
        Where the numbers came from.
    notes : tuple of str
        What was averaged, assumed or left out.
    dropped_tasks : tuple of str
        Tasks left out by :func:`complete_cases` (empty before it).
    """

    scores: np.ndarray
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    source: str = "<array>"
    notes: tuple[str, ...] = ()
    dropped_tasks: tuple[str, ...] = ()

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    def to_frame(self) -> pd.DataFrame:
        """Tidy frame: model, task, score (missing cells included as NaN)."""
        m, t = np.meshgrid(np.arange(self.n_models), np.arange(self.n_tasks), indexing="ij")
        return pd.DataFrame({"model": np.asarray(self.models, dtype=object)[m.ravel()],
                             "task": np.asarray(self.tasks, dtype=object)[t.ravel()],
                             "score": self.scores.ravel()})


NOTE_PER_TASK_SCORE_CORRECT = NoteKind('tasks.per-task-score-correct', 'info',
                                        'per-task score = correct / n')
NOTE_MODEL_TASK_CELL_S = NoteKind('tasks.model-task-cell-s', 'info',
                                   '{n_missing} (model, task) cell(s) have no result')


NOTE_PER_TASK_MEAN = NoteKind("tasks.per-task-mean", "info", "per-task score = mean over items{trials}")
NOTE_ITEMS_DIFFER = NoteKind("tasks.items-differ", "caveat", "{n} task(s) where models were scored on different"
                             " numbers of items (each model's own items were averaged): {tasks}{more}")


def score_matrix(table, *, models=None, tasks=None) -> ScoreMatrix:
    """Per-task scores of each model from a :class:`~evalband.data.table.ResultsTable`.

    Item level: each model's mean over its items in the task, each item's trials averaged first. Summary level:
    ``correct / n``. A model without rows in a task gives a NaN cell (see :func:`complete_cases`).

    Parameters
    ----------
    table : ResultsTable
    models, tasks : sequence of str, optional
        Subsets (and order); default all, in order of first appearance.

    Returns
    -------
    ScoreMatrix

    Examples
    --------
    >>> import numpy as np
    >>> import evalband as eb
    >>> from evalband.tasks import score_matrix
    >>> m = score_matrix(eb.load_example("vtab"), models=["Rotation", "VAE"], tasks=["DTD", "SVHN"])
    >>> m.models, m.tasks
    (('Rotation', 'VAE'), ('DTD', 'SVHN'))
    >>> np.round(m.scores, 3)
    array([[0.514, 0.894],
           [0.103, 0.493]])
    """
    models = check_names(models, table.models, "models")
    tasks = check_names(tasks, table.tasks, "tasks")
    notes = []
    d = table.data
    d = d.loc[d["model"].isin(models) & d["task"].isin(tasks)]
    if table.level == "summary":
        cell = d.groupby(["model", "task"], observed=True)[["correct", "n"]].sum()
        values = cell["correct"] / cell["n"]
        notes.append(NOTE_PER_TASK_SCORE_CORRECT())
    else:
        per_item = d.groupby(["model", "task", "item"], observed=True)["score"].mean()
        grouped = per_item.groupby(level=["model", "task"], observed=True)
        values = grouped.mean()
        n_items = grouped.size().unstack("task")
        notes.append(NOTE_PER_TASK_MEAN(trials=" (trials averaged first)" if table.has_trials else ""))
        n_items = n_items.reindex(index=models, columns=tasks)
        differ = [t for t in tasks if n_items[t].nunique(dropna=True) > 1]
        if differ:
            notes.append(NOTE_ITEMS_DIFFER(n=len(differ), tasks=", ".join(differ[:5]),
                                           more=" ..." if len(differ) > 5 else ""))
    wide = values.unstack("task").reindex(index=models, columns=tasks)
    scores = wide.to_numpy(dtype=np.float64)
    n_missing = int(np.isnan(scores).sum())
    if n_missing:
        notes.append(NOTE_MODEL_TASK_CELL_S(n_missing=n_missing))
    return ScoreMatrix(scores, tuple(models), tuple(tasks), table.source, tuple(notes))


def as_score_matrix(data, models=None, tasks=None) -> ScoreMatrix:
    """Accept a ResultsTable, a ScoreMatrix, a wide DataFrame (models x tasks) or an array (models x tasks).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.tasks import as_score_matrix
    >>> wide = pd.DataFrame({"math": [0.61, 0.55], "code": [0.48, 0.52]}, index=["A", "B"])
    >>> m = as_score_matrix(wide)
    >>> m.models, m.tasks
    (('A', 'B'), ('math', 'code'))
    >>> m.scores
    array([[0.61, 0.48],
           [0.55, 0.52]])
    """
    if isinstance(data, ScoreMatrix):
        if models is None and tasks is None:
            return data
        mi = [data.models.index(m) for m in check_names(models, data.models, "models")]
        ti = [data.tasks.index(t) for t in check_names(tasks, data.tasks, "tasks")]
        return ScoreMatrix(data.scores[np.ix_(mi, ti)], tuple(data.models[i] for i in mi),
                           tuple(data.tasks[i] for i in ti), data.source, data.notes)
    from ..selection import Selection, select
    from ..data.table import ResultsTable

    if isinstance(data, (Selection, ResultsTable, str, os.PathLike, list, tuple)) and not _is_numbers(data):
        table = select(data, models=models, tasks=tasks).table
        return score_matrix(table)
    if isinstance(data, pd.DataFrame) and {"model", "task"} <= set(map(str, data.columns)):
        return score_matrix(select(data, models=models, tasks=tasks).table)  # a results table, not a matrix
    if isinstance(data, pd.DataFrame):
        frame = data
        if models is not None:
            frame = frame.loc[check_names(models, [str(i) for i in frame.index], "models")]
        if tasks is not None:
            frame = frame[check_names(tasks, [str(c) for c in frame.columns], "tasks")]
        try:
            scores = frame.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise ArgumentTypeError("`scores`: the DataFrame must hold numbers only (models as rows, tasks as columns).") \
                from None
        return ScoreMatrix(scores, tuple(map(str, frame.index)), tuple(map(str, frame.columns)), "<DataFrame>")
    try:
        scores = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"`scores` must be a ResultsTable, a DataFrame or a numeric array; got"
                        f" {type(data).__name__}.") from None
    if scores.ndim != 2:
        raise ArgumentError(f"`scores` must be 2-D (models x tasks); got shape {scores.shape}.")
    models = tuple(map(str, models)) if models is not None else tuple(f"model {i}" for i in range(scores.shape[0]))
    tasks = tuple(map(str, tasks)) if tasks is not None else tuple(f"task {j}" for j in range(scores.shape[1]))
    if len(models) != scores.shape[0]:
        raise ArgumentError(words('`{arg:models}` has {n_models} names for {value} rows of `scores`.', n_models=len(models), value=scores.shape[0]))
    if len(tasks) != scores.shape[1]:
        raise ArgumentError(words('`{arg:tasks}` has {n_tasks} names for {value} columns of `scores`.', n_tasks=len(tasks), value=scores.shape[1]))
    if len(set(models)) != len(models) or len(set(tasks)) != len(tasks):
        raise ArgumentError(words('`{arg:models}` and `{arg:tasks}` must not repeat a name.'))
    if np.isinf(scores).any():
        raise ArgumentError("`scores` holds an infinite value.")
    return ScoreMatrix(scores, models, tasks)


def _is_numbers(data) -> bool:
    """A list or tuple of numbers (an array written as nested lists), not a list of paths."""
    return isinstance(data, (list, tuple)) and bool(data) and not isinstance(data[0], (str, os.PathLike))


NOTE_COMPLETE_CASE_ANALYSIS_TEST = NoteKind(
    'tasks.complete-case-analysis-test', 'excluded',
    'complete-case analysis: the test is over the {value} task(s) every model has ({n_dropped} of {n_tasks} left '
    'out)')


def complete_cases(matrix: ScoreMatrix, *, min_tasks: int = 2, what: str = "this test") -> ScoreMatrix:
    """Keep the tasks on which every model has a score; name and count the tasks dropped, in the words of the
    selection layer (:class:`evalband.selection.LeftOut`).

    Raises
    ------
    InputError
        When fewer than ``min_tasks`` tasks remain.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import as_score_matrix, complete_cases
    >>> m = as_score_matrix(np.array([[0.61, 0.48, 0.70], [0.55, np.nan, 0.66]]))
    >>> kept = complete_cases(m)
    >>> kept.tasks, kept.dropped_tasks
    (('task 0', 'task 2'), ('task 1',))
    >>> kept.scores
    array([[0.61, 0.7 ],
           [0.55, 0.66]])
    """
    from ..selection import LeftOut

    gaps = np.isnan(matrix.scores)
    keep = ~gaps.any(axis=0)
    dropped = tuple(t for t, k in zip(matrix.tasks, keep) if not k)
    notes = list(matrix.notes)
    if dropped:
        lacking = {t: tuple(m for m, g in zip(matrix.models, gaps[:, j]) if g)
                   for j, t in enumerate(matrix.tasks) if not keep[j]}
        notes += LeftOut(lacking=lacking).lacking_notes(matrix.n_tasks)[:-1]
        notes.append(NOTE_COMPLETE_CASE_ANALYSIS_TEST(value=int(keep.sum()), n_dropped=len(dropped), n_tasks=matrix.n_tasks))
    if keep.sum() < min_tasks:
        raise InputError(concat(f"{what} needs at least {min_tasks} tasks with a result for every model; found"
                                f" {int(keep.sum())} of {matrix.n_tasks}", _lacking(matrix)), source=matrix.source)
    return ScoreMatrix(matrix.scores[:, keep], matrix.models, tuple(t for t, k in zip(matrix.tasks, keep) if k),
                       matrix.source, tuple(notes), matrix.dropped_tasks + dropped)


def ranked_cases(scores, models, tasks, what: str) -> ScoreMatrix:
    """The complete-case score matrix of a test on mean ranks (Friedman, Nemenyi): at least 2 models and 2 tasks."""
    matrix = as_score_matrix(scores, models, tasks)
    if matrix.n_models < 2:
        raise ArgumentError(f"{what} needs at least 2 models; got {matrix.n_models}.")
    return complete_cases(matrix, min_tasks=2, what=what)


def _lacking(matrix: ScoreMatrix) -> str:
    """' (B lacks 'law'; C lacks 'law', 'math'); choose models with `models`', as compare says it; '' when every
    model has every task."""
    from .._lists import lacks_text

    gaps = np.isnan(matrix.scores)
    who = lacks_text({m: [t for t, g in zip(matrix.tasks, row) if g] for m, row in zip(matrix.models, gaps)})
    return words(" ({who}); choose models with `{arg:models}`", who=who) if who else ""


def rank_matrix(scores: np.ndarray, *, higher_is_better: bool = True) -> np.ndarray:
    """Ranks of the models within each task (axis 0), 1 = best, ties given their mean rank (midranks;
    :func:`evalband._ranks.ranks` with ``ties='average'``).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.tasks import rank_matrix
    >>> scores = np.array([[0.61, 0.48, 0.70], [0.55, 0.52, 0.70], [0.40, 0.45, 0.66]])
    >>> rank_matrix(scores)
    array([[1. , 2. , 1.5],
           [2. , 1. , 1.5],
           [3. , 3. , 3. ]])
    """
    from .._ranks import ranks

    return ranks(scores, axis=0, higher_is_better=higher_is_better, ties="average")


def tie_counts(scores: np.ndarray) -> np.ndarray:
    """Per task (column), sum over tie groups of t**3 - t (0 when a task has no ties)."""
    s = np.sort(scores, axis=0)
    out = np.zeros(scores.shape[1])
    # run lengths of equal values down each column, vectorized over columns
    same = np.vstack([np.zeros((1, s.shape[1]), bool), s[1:] == s[:-1]])
    run_id = np.cumsum(~same, axis=0)
    for j in range(s.shape[1]):  # columns are tasks (tens), not replicates or items
        t = np.bincount(run_id[:, j])
        out[j] = float(np.sum(t.astype(np.float64) ** 3 - t))
    return out
