"""Tables in files or DataFrames: CSV/TSV, Parquet, JSON Lines, in long, wide or summary shape.

A tabular source reaches :class:`~evalband.data.table.ResultsTable` in three shapes:

* ``long``: one row per model, task, item (and trial) with a score column;
* ``wide``: one row per item and one score column per model (blank where a model has no result);
* ``summary``: one row per model and task with ``n`` and ``correct`` or ``accuracy``.

``shape='auto'`` picks ``long`` when a score column exists, ``summary`` when ``n`` and ``correct``/``accuracy``
exist, and ``wide`` otherwise (every column not named as item, task, group or cluster is a model). Column names
are mapped with the ``*_col`` options; a role's name also matches a column that differs only by case (``Model``)
when exactly one does. Error messages give file line numbers for text files.

Several files (a glob such as ``"runs/*.csv"`` or a list) are read as one table: they must have the same columns,
each row is named by its file and line in messages, and files without a task column are one task each, named after
the file. ``"-"`` reads standard input (named ``<stdin>``), whose format (CSV, TSV, JSON Lines, JSON records,
Parquet) is read from its first bytes, after undoing gzip, bzip2, xz or zstd compression.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .._validate import ArgumentError, ArgumentTypeError, InputError
from ..data.table import ResultsTable
from .._cells import check_cells
from .._lists import check_named_columns
from ._columns import keep_split, refuse_splits, unused_note
from ._frames import STDIN, STDIN_NAME, TABULAR_SUFFIXES, load, load_frame
from ._text import check_column_names
from ..display.notes import NoteKind
from .._words import words

__all__ = ["read_tabular", "load_frame", "TABULAR_SUFFIXES", "STDIN"]


def _match_case(col, columns, source: str, option: str, *, explicit: bool):
    """The column for a role: ``col`` itself, else the one column equal to it ignoring case; two columns that
    differ only by case are an error unless ``col`` was named explicitly and matches one exactly."""
    if col is None:
        return None
    same = [c for c in columns if c.casefold() == str(col).casefold()]
    if col in same and (explicit or len(same) == 1):
        return col
    if len(same) > 1:
        raise InputError(words("columns {same} differ only by case; rename one, or name the one to use with"
                               " `{arg:{option}}`", same=" and ".join(map(repr, same)), option=option),
                         source=source)
    return same[0] if same else col


NOTE_COLUMN_LEFT_OUT_ASKED = NoteKind('io.column-left-out-asked', 'excluded',
                                       'column{value} left out as asked (--drop-cols): {value2}')
NOTE_NO_COLUMN_EACH_FILE = NoteKind(
    'io.no-column-each-file', 'info',
    "no '{task_col}' column: each file is one task, named after the file ({value}{value2})")
NOTE_NO_COLUMN_ONE_TASK = NoteKind('io.no-column-one-task', 'info',
                                    "no '{task_col}' column: one task named '{default_task}'")
NOTE_NO_COLUMN_ONE_MODEL = NoteKind('io.no-column-one-model', 'info',
                                     "no '{model_col}' column: one model named '{default_task}'")


def read_tabular(
    data,
    *,
    shape: str = "auto",
    file_format: str = "auto",
    model_col: str = "model",
    task_col: str = "task",
    item_col: str = "item",
    score_col: str = "score",
    trial_col: str | None = "trial",
    cluster_col: str | bool | None = None,
    group_col: str | None = "group",
    n_col: str = "n",
    correct_col: str = "correct",
    accuracy_col: str = "accuracy",
    models=None,
    task: str | None = None,
    unbounded: bool = False,
    count_rule: str = "floor",
    accuracy_scale: str = "auto",
    drop_cols=None,
    cost_col: str | None = "cost",
    latency_col: str | None = "latency",
    human_col: str | None = "human",
    facets=None,
    split: str | None = None,
) -> ResultsTable:
    """Read a table (file path or DataFrame) into a validated :class:`ResultsTable`.

    Parameters
    ----------
    data : str, os.PathLike, list or pandas.DataFrame
        A file, a glob or list of files (read as one table; see the module notes), ``"-"`` for standard input,
        or a DataFrame.
    shape : {'auto', 'long', 'wide', 'summary'}
    model_col, task_col, item_col, score_col, trial_col, cluster_col, group_col, n_col, correct_col, accuracy_col
        The source's names for each column. ``cluster_col`` defaults to a column named 'cluster' if present;
        ``False`` reads no cluster (items independent; a 'cluster' column is then named as not used).
    models : list of str, optional
        Wide shape: the model columns (default: every column not used for item, task, group or cluster). The
        other columns are left out, with a note naming them.
    task : str, optional
        Wide or long shape without a task column: the single task's name (default: the file's stem).
    unbounded : bool
        Declare scores outside [0, 1] legitimate (rewards, BLEU...).
    count_rule, accuracy_scale
        Summary shape: see :meth:`ResultsTable.from_summary`.
    drop_cols : str or list of str, optional
        Columns to leave out before anything else (e.g. a 0/1 flag such as MMLU-Pro's ``answer_key_varies`` in a
        wide table, which would otherwise be read as a model). Named in the table's notes.
    cost_col, latency_col, human_col : str, optional
        Long shape: per-row measures kept beside the score (:data:`evalband.data.table.MEASURES`): cost (dollars,
        tokens), latency (seconds) and a human label (prediction-powered inference); a column of the default name
        is used when present. Blank cells mean "not measured".
    facets : str or list of str, optional
        Label columns of other sources of variation (prompt template, judge, run, harness, ...). Default: the
        columns named ``prompt``, ``template``, ``judge``, ``run`` or ``harness`` when present; ``[]`` for none.
    split : str, optional
        Keep only the rows of this data split (the column named ``split``, or the one whose values are dev, test,
        validation, ...); the rows left out are counted in a note. Without it a column that looks like a split
        is refused, so dev and test items are never pooled silently; ``drop_cols`` pools them on purpose.

    Returns
    -------
    ResultsTable

    Notes
    -----
    Cells of text files are read as text: labels as written (``1.10`` is not ``1.1``, ``NA`` is a name), only an
    empty cell is missing (:mod:`evalband.data.labels`). Columns no role reads are named in a note.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.io.tabular import read_tabular
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "item": [1, 2, 1, 2], "score": [1, 0, 1, 1],
    ...                    "note": ["", "", "", ""]})
    >>> table = read_tabular(df, task="qa")
    >>> table.models
    ('a', 'b')
    >>> [n.split(" (")[0] for n in table.notes if n.startswith("column")]
    ['column not used: note']
    """
    stems, load_notes = None, []  # with several files: each row's file stem
    skip = () if drop_cols is None else ([drop_cols] if isinstance(drop_cols, str) else [str(c) for c in drop_cols])
    owned = not isinstance(data, pd.DataFrame)  # a frame the reader made: changed in place, released as read
    if isinstance(data, pd.DataFrame):
        df, source, row_word = data, "<DataFrame>", "row"
    elif isinstance(data, (str, os.PathLike, list, tuple)):
        df, source, row_word, stems, load_notes = load(data, file_format, skip=skip)
    else:
        raise ArgumentTypeError(f"`data` must be a path, a glob, a list of paths or a pandas DataFrame; got"
                        f" {type(data).__name__}.")
    if not owned:
        df = df.copy()
    check_column_names(list(df.columns), source, row=None)  # (text files were checked with their header line)
    names = [str(c) for c in df.columns]
    stripped = [c.strip() for c in names]  # 'model, task, score' headers (a space after each comma)
    df.columns = stripped if len(set(stripped)) == len(stripped) else names
    pre_notes = list(load_notes)
    if drop_cols is not None:
        drop = list(skip)  # the columnar reader may have left them unread: checked against every column of the file
        check_named_columns([("drop_cols", c) for c in drop], list(df.attrs.get("columns", df.columns)), source)
        df = df.drop(columns=[c for c in dict.fromkeys(drop) if c in df.columns])
        pre_notes.append(NOTE_COLUMN_LEFT_OUT_ASKED(value='s' if len(drop) > 1 else '', value2=', '.join(dict.fromkeys(drop))))
    if split is not None:
        taken = {model_col, task_col, item_col, score_col, trial_col, cluster_col, group_col}
        df, split_col, more = keep_split(df, split, source, taken=taken)
        df = df.drop(columns=[split_col])
        pre_notes += more
    # role names match a column ignoring case when exactly one column does ('Model', 'SCORE')
    is_default = {"trial": trial_col == "trial", "group": group_col == "group", "correct": correct_col == "correct",
                  "accuracy": accuracy_col == "accuracy"}
    cols = list(df.columns)
    given_cols = dict(model_col=model_col, task_col=task_col, item_col=item_col, score_col=score_col,
                      trial_col=trial_col, group_col=group_col, n_col=n_col, correct_col=correct_col,
                      accuracy_col=accuracy_col)
    model_col, task_col, item_col, score_col, trial_col, group_col, n_col, correct_col, accuracy_col = (
        _match_case(col, cols, source, option, explicit=col != default) for col, option, default in (
            (model_col, "model_col", "model"), (task_col, "task_col", "task"), (item_col, "item_col", "item"),
            (score_col, "score_col", "score"), (trial_col, "trial_col", "trial"),
            (group_col, "group_col", "group"), (n_col, "n_col", "n"), (correct_col, "correct_col", "correct"),
            (accuracy_col, "accuracy_col", "accuracy")))
    # every column named for a role must exist (the one check of the column mapping: a typo such as
    # task_col='categroy' is named as such, with the closest column, never read as some other problem)
    facet_list = [] if facets is None else [facets] if isinstance(facets, str) else [str(f) for f in facets]
    check_named_columns(
        [(arg, col) for arg, col, given, default in (
            ("model_col", model_col, given_cols["model_col"], "model"),
            ("task_col", task_col, given_cols["task_col"], "task"),
            ("item_col", item_col, given_cols["item_col"], "item"),
            ("score_col", score_col, given_cols["score_col"], "score"),
            ("trial_col", trial_col, given_cols["trial_col"], "trial"),
            ("group_col", group_col, given_cols["group_col"], "group"),
            ("n_col", n_col, given_cols["n_col"], "n"), ("correct_col", correct_col, given_cols["correct_col"],
                                                          "correct"),
            ("accuracy_col", accuracy_col, given_cols["accuracy_col"], "accuracy"),
            ("cluster_col", _match_case(cluster_col, cols, source, "--cluster", explicit=True)
             if isinstance(cluster_col, str) else None, cluster_col, None),
            ("human_col", _match_case(human_col, cols, source, "--human-col", explicit=True), human_col, "human"),
            ("cost_col", _match_case(cost_col, cols, source, "--cost-col", explicit=True), cost_col, "cost"),
            ("latency_col", _match_case(latency_col, cols, source, "--latency-col", explicit=True), latency_col,
             "latency"))
         if given is not None and given != default
         and not (arg == "task_col" and stems is not None and task is None and col not in cols)]
        + [("facets", f) for f in facet_list], cols, source)
    cluster_auto = cluster_col is None
    if cluster_col is False:  # items independent: no cluster role (a 'cluster' column is named as not used)
        cluster_col = None
    else:
        cluster_col = _match_case(cluster_col or "cluster", cols, source, "--cluster", explicit=not cluster_auto)
        if cluster_auto and cluster_col not in df.columns:
            cluster_col = None
    for name, col in (("cluster_col", cluster_col),):
        if col is not None and col not in df.columns:
            raise InputError(f"no column '{col}' (given as {name}); found {', '.join(map(repr, df.columns))}",
                             source=source)
    default_task = task or ("task" if isinstance(data, pd.DataFrame) else "stdin" if source == STDIN_NAME
                            else Path(source).name.split(".")[0])
    added_task = stems is not None and task is None and task_col not in df.columns
    if added_task:
        df[task_col] = stems  # several files without a task column: each file is one task
        shown = list(pd.unique(stems))
        pre_notes.append(NOTE_NO_COLUMN_EACH_FILE(task_col=task_col, value=', '.join(shown[:8]), value2=' ...' if len(shown) > 8 else ''))

    if shape == "auto":
        if score_col in df.columns:
            shape = "long"
        elif n_col in df.columns and (correct_col in df.columns or accuracy_col in df.columns):
            shape = "summary"
        elif item_col in df.columns or models is not None:
            shape = "wide"
        else:
            raise InputError(
                f"cannot tell the table's shape: no '{score_col}' column (long), no '{n_col}' with"
                f" '{correct_col}' or '{accuracy_col}' (summary), no '{item_col}' column (wide); found"
                f" {', '.join(map(repr, df.columns))}. " + _separator_hint(df.columns)
                + "Map the columns with --score-col, --item-col, ...", source=source)
    facet_cols = _facet_columns(facets, df.columns, source)
    named = [f"--{role}-col {col}" for role, col, default in (("human", human_col, "human"), ("cost", cost_col, "cost"),
                                                             ("latency", latency_col, "latency"))
             if col is not None and col != default]
    if shape != "long" and named:  # per-row measures need one row per item (a human label, a cost of that row)
        raise InputError(f"{named[0]} needs item-level rows (one row per model, task and item: the long shape);"
                         f" this table is read as {shape}, which has no rows to label or measure", source=source)
    if shape == "long":
        original = [c for c in df.columns if c != task_col or not added_task]
        measures = []
        for role, col, default in (("cost", cost_col, "cost"), ("latency", latency_col, "latency"),
                                   ("human", human_col, "human")):
            col = _match_case(col, cols, source, f"--{role}-col", explicit=col != default)
            if col is not None and col != default and col not in df.columns:
                raise InputError(f"no column '{col}' (given as --{role}-col); found"
                                 f" {', '.join(map(repr, df.columns))}", source=source)
            measures.append((role, col, col == default))
        mapping = _role_mapping(
            [("model", model_col, False), ("task", task_col, False), ("item", item_col, False),
             ("score", score_col, False), ("trial", trial_col, is_default["trial"]),
             ("cluster", cluster_col, cluster_auto), ("group", group_col, is_default["group"]), *measures,
             *((f, f, False) for f in facet_cols)], df.columns, source)
        unused = [c for c in original if c not in mapping]
        refuse_splits(df, unused, source)
        df = _rename(df.drop(columns=unused), mapping, source)  # columns no role reads are named in a note
        notes = list(pre_notes) + unused_note(unused, ())
        missing = [c for c in (item_col, score_col) if c not in original]
        if model_col not in original and (missing or model_col != "model" or stems is not None):
            missing.insert(0, model_col)  # a file without any model column is one model's results (below)
        if missing:
            several = " (several files are read as one table: each needs a model column)" if stems is not None \
                and model_col in missing and model_col == "model" else ""
            cell_scores = missing == [item_col] and {model_col, task_col, score_col} <= set(original)
            mapping_hint = " (map names with {arg:model_col}, {arg:item_col}, {arg:score_col}, ...){several}"
            if cell_scores:  # one sentence, no second parenthesis: what the file is, then what reads it
                mapping_hint = (": one score per model and task, without items or counts, which a results table"
                                " needs; read it as latent abilities with {cli:`evalband ability FILE` or"
                                " `--missing ability`}{py:evalband.ability(data)}, or name the item column with"
                                " {arg:item_col}")
            raise InputError(words("missing column{s} {names}; found {found}" + mapping_hint,
                                   s="s" if len(missing) > 1 else "", names=", ".join(map(repr, missing)),
                                   found=", ".join(map(repr, original)), several=several), source=source)
        if "task" not in df.columns:
            df["task"] = _constant(default_task, len(df))
            notes.append(NOTE_NO_COLUMN_ONE_TASK(task_col=task_col, default_task=default_task))
        if "model" not in df.columns and model_col == "model":  # one model's log (e.g. tau-bench rewards)
            df["model"] = _constant(default_task, len(df))
            notes.append(NOTE_NO_COLUMN_ONE_MODEL(model_col=model_col, default_task=default_task))
        return ResultsTable.from_items(df, source=source, unbounded=unbounded, row_word=row_word, notes=notes,
                                       facets=facet_cols, _owned=True)
    if shape == "summary":
        mapping = _role_mapping(
            [("model", model_col, False), ("task", task_col, False), ("n", n_col, False),
             ("correct", correct_col, is_default["correct"]), ("accuracy", accuracy_col, is_default["accuracy"]),
             ("group", group_col, is_default["group"])], df.columns, source)
        unused = [c for c in df.columns if c not in mapping and not (added_task and c == task_col)]
        refuse_splits(df, unused, source)
        pre_notes += unused_note(unused, ())
        df = _rename(df, mapping, source)  # with both correct and accuracy, from_summary checks they agree
        return ResultsTable.from_summary(df, source=source, count_rule=count_rule, accuracy_scale=accuracy_scale,
                                         row_word=row_word, notes=pre_notes)
    if shape == "wide":
        return _from_wide(df, source, row_word, item_col=item_col, task_col=task_col, group_col=group_col,
                          cluster_col=cluster_col, models=models, task=default_task, unbounded=unbounded,
                          notes=pre_notes, facets=facet_cols)
    raise ArgumentError(words("`{arg:shape}` must be one of 'auto', 'long', 'wide', 'summary'; got {shape!r}.", shape=shape))


def _constant(label: str, n: int) -> pd.Categorical:
    """One label for every row, as a categorical (one byte a row)."""
    import numpy as np

    return pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [label])


def _separator_hint(columns) -> str:
    """A hint when the one column's name holds another separator ('model;task;item;score')."""
    if len(columns) == 1:
        for sep, name in ((";", "semicolons"), ("|", "'|'"), ("\t", "tabs"), (",", "commas")):
            if str(columns[0]).count(sep) >= 1:
                fix = {"\t": "name the file .tsv", ",": "name the file .csv"}.get(sep, "save it with commas (CSV)"
                                                                                   " or tabs (.tsv)")
                return f"The header looks separated by {name}: {fix}. "
    return ""


#: label columns read as facets when present and ``facets`` is not given
KNOWN_FACETS = ("prompt", "template", "judge", "run", "harness")


def _facet_columns(facets, columns, source: str) -> tuple[str, ...]:
    """The facet columns: ``facets`` as given (each must exist), or the known facet names present."""
    if facets is None:
        return tuple(c for c in columns if str(c) in KNOWN_FACETS)
    facets = [facets] if isinstance(facets, str) else [str(f) for f in facets]
    missing = [f for f in facets if f not in columns]
    if missing:
        raise InputError(f"no facet column {', '.join(map(repr, missing))} (--facets); found"
                         f" {', '.join(map(repr, columns))}", source=source)
    return tuple(dict.fromkeys(facets))


def _role_mapping(roles, columns, source: str) -> dict:
    """Source column -> role. ``roles`` holds (role, column, is_default); model, task, item and score (n for
    summaries) are always mapped, the other roles only when their column exists. A column named for two
    roles is an error, except that a role left at its default name yields to an explicit one (``task_col='group'``
    makes the 'group' column the tasks rather than being undone by the default group column)."""
    required = {"model", "task", "item", "score", "n"}
    mapping, owner = {}, {}
    for role, col, is_default in sorted(roles, key=lambda r: r[2]):  # explicit names first
        if col is None or (role not in required and col not in columns):
            continue
        if col in owner:
            if is_default:
                continue
            raise InputError(f"column '{col}' is named for two roles, {owner[col]} and {role}; give each role its"
                             " own column (--model-col, --task-col, --item-col, --score-col, --trial-col,"
                             " --cluster, --group-col)", source=source)
        owner[col] = role
        mapping[col] = role
    return mapping


def _rename(df: pd.DataFrame, mapping: dict, source: str) -> pd.DataFrame:
    clash = [c for c in mapping.values() if c in df.columns and c not in mapping]
    if clash:
        df = df.drop(columns=clash)
    return df.rename(columns=mapping)


NOTE_WIDE_NOT_MODELS = NoteKind("io.wide-columns-not-models", "excluded",
                                "wide table: {n} column{s} not read as models (not in --models): {columns}")


NOTE_BLANK_CELLS = NoteKind("io.blank-cells-left-out", "excluded",
                            "blank cells read as 'no result' and left out ({counts})")


def blank_cells_note(per_model: dict):
    """The note of the blank cells of a wide table, ``per_model`` {model: count} (a param, so that a report of
    some of the models counts theirs only: :func:`evalband.latent.abilities._chosen_notes`)."""
    return NOTE_BLANK_CELLS(counts=", ".join(f"{m}: {int(v):,}" for m, v in per_model.items()),
                            per_model=dict(per_model))


def _from_wide(df, source, row_word, *, item_col, task_col, group_col, cluster_col, models, task, unbounded,
               notes=(), facets=()):
    if item_col not in df.columns:
        raise InputError(f"wide shape needs an item column '{item_col}' (set --item-col)", source=source)
    id_cols = [c for c in (item_col, task_col, group_col, cluster_col, *facets) if c is not None and c in df.columns]
    roles = {item_col: "item", task_col: "task", group_col: "group", cluster_col: "cluster"}
    score_cols = [c for c in df.columns if c not in id_cols] if models is None else \
        [c for c in ([models] if isinstance(models, str) else models) if c in df.columns]
    for c in [*id_cols, *score_cols]:  # a nested cell is named as such, not read as text in a model column
        check_cells(df[c], "score" if c in score_cols else roles.get(c, str(c)), source=source,
                    where=lambda pos: f"{row_word} {df.index[pos]}", column=str(c),
                    expected="a number, a boolean or one of C/I/P/N" if c in score_cols else "text or a number")
    if models is None:
        models = [c for c in df.columns if c not in id_cols]
        refuse_splits(df, models, source)
        # columns that are clearly not scores (text) are named, not guessed
        texty = [c for c in models if (df[c].dtype == object or pd.api.types.is_string_dtype(df[c]))
                 and pd.to_numeric(df[c].dropna().astype(str).str.strip().replace(
                     {"C": "1", "I": "0", "P": "0.5", "N": "0", "True": "1", "False": "0",
                      "true": "1", "false": "0"}), errors="coerce").isna().any()]
        if texty:
            raise InputError(words('column{value} {value2} hold{value3} text, not scores; name the model columns ({py:models=...}{cli:--models}) or the id columns (--item-col, --task-col, --group-col, --cluster)', value='s' if len(texty) > 1 else '', value2=', '.join(map(repr, texty)), value3='' if len(texty) > 1 else 's'), source=source)
    else:
        models = [models] if isinstance(models, str) else list(models)
        missing = [m for m in models if m not in df.columns]
        if missing:
            raise InputError(f"no model column {', '.join(map(repr, missing))}", source=source)
        others = [c for c in df.columns if c not in id_cols and c not in models]
        refuse_splits(df, others, source)
        if others:  # selected at read time: the coverage notes count only the chosen models
            notes = [*notes, NOTE_WIDE_NOT_MODELS(n=len(others), s="s" if len(others) > 1 else "",
                                                  columns=", ".join(map(str, others)))]
    if not models:
        raise InputError("wide shape found no model columns", source=source)
    long = df.melt(id_vars=id_cols, value_vars=list(models), var_name="model", value_name="score",
                   ignore_index=False)
    blank = long["score"].isna()
    notes = list(notes)
    if blank.any():
        per = long.loc[blank, "model"].value_counts()
        notes.append(blank_cells_note({str(m): int(v) for m, v in per.items()}))
        long = long.loc[~blank]
    if task_col in df.columns:
        empty = sorted(set(df[task_col].dropna().astype(str)) - set(long[task_col].dropna().astype(str)))
        if empty:
            raise InputError(f"task{'s' if len(empty) > 1 else ''} {', '.join(map(repr, empty))} ha"
                             f"{'ve' if len(empty) > 1 else 's'} no result at all (every model's cell is blank)",
                             source=source, column=task_col)
    mapping = {item_col: "item"}
    if task_col in long.columns:
        mapping[task_col] = "task"
    if group_col is not None and group_col in long.columns:
        mapping[group_col] = "group"
    if cluster_col is not None and cluster_col in long.columns:
        mapping[cluster_col] = "cluster"
    long = long.rename(columns=mapping)
    if "task" not in long.columns:
        long["task"] = task
    return ResultsTable.from_items(long, source=source, unbounded=unbounded, row_word=row_word, notes=notes,
                                   facets=facets)
