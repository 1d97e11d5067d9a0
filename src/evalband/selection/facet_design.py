"""The design of a results table with facets, built from the table: which factors are crossed, which nested,
which cells are missing; and which facets an analysis treats as random or fixed.

:func:`facet_design` reads the selected table into one :class:`~evalband.selection.task_design.TaskDesign` per task
(the design as data lives in :mod:`evalband.selection.task_design`). Levels are sorted by label, so nothing depends
on the order of the rows.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd

from .._validate import ArgumentError, ArgumentTypeError, InputError, check_names
from ..display.notes import NoteKind
from .._words import words
# the design as data (ITEM, FacetDesign, TaskDesign and term_name stay importable from here)
from .task_design import ITEM, FacetDesign, TaskDesign, term_name, unique_rows

__all__ = ["ITEM", "FacetDesign", "TaskDesign", "facet_design", "facet_table", "term_name", "check_fixed", "random_facets"]


def facet_table(data, facets=None):
    """The selected table of ``data`` through :func:`evalband.select` (a Selection's table as it is; a path or
    frame is read with ``facets=`` when given). Facets read nothing themselves.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.facets import facet_table
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": [1, 1, 2, 2], "prompt": ["a", "b", "a", "b"],
    ...                    "score": [1, 0, 1, 1]})
    >>> table = facet_table(df, facets="prompt")
    >>> table.level, table.facets
    ('item', ('prompt',))
    """
    from . import Selection, select
    from ..data.table import ResultsTable

    if isinstance(data, Selection):
        return data.table
    if isinstance(data, ResultsTable) or facets is None:
        return select(data).table
    return select(data, facets=[facets] if isinstance(facets, str) else list(facets)).table


def facet_design(data, *, facets=None, nested=(), cluster: bool = False, models=None, tasks=None) -> FacetDesign:
    """The crossed / nested design of a table's items and facets, per task.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with facet columns (anything :func:`evalband.select` accepts; a path or frame is read
        with ``facets=facets``).
    facets : str or sequence of str, optional
        The facet columns to use (default: every facet of the table, ``table.facets``).
    nested : str or sequence of str
        Facets whose labels are reused across items for different levels (runs numbered 0, 1, ... per item, crowd
        workers per question): their levels are read within each item (``'item/level'``). Facets nested in items
        by their labels are detected without this.
    cluster : bool
        Also take the table's cluster column (passage, source) as a factor: items are then nested in clusters,
        and the cluster term says how much of the variance the clusters carry.
    models, tasks : sequence of str, optional

    Returns
    -------
    FacetDesign

    Notes
    -----
    A factor is *nested* in another when each of its levels occurs with only one level of the other (workers
    within items, items within prompts); otherwise the two are *crossed*. A facet with one level, or one that
    merely relabels another factor, carries no separate variance: it is left out and said in ``notes``. Items not
    shared by every selected model are left out (counted); missing cells (a model lacking an item under one
    prompt) are kept and counted, and make the design unbalanced.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.facets import facet_design
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": [1, 1, 2, 2], "prompt": ["a", "b", "a", "b"],
    ...                    "score": [1, 0, 1, 1]})
    >>> d = facet_design(df, facets="prompt")["t"]
    >>> d.factors, d.balanced
    (('item', 'prompt'), True)
    """
    table = facet_table(data, facets)
    if table.level != "item":
        raise InputError("a facet design needs item-level data; this table holds per-task summaries",
                         source=table.source)
    if facets is None:
        facets = table.facets
    facets = [facets] if isinstance(facets, str) else list(facets)
    unknown = [f for f in facets if f not in table.facets]
    if unknown:
        raise ArgumentError(words('`{arg:facets}`: {value} is not a facet column of the table; its facets are {value2} (read with {arg:facets=}[...]).', value=', '.join(map(repr, unknown)), value2=', '.join(map(repr, table.facets)) or '(none)'))
    nested = [nested] if isinstance(nested, str) else list(nested)
    bad = [f for f in nested if f not in facets]
    if bad:
        raise ArgumentError(f"`nested`: {', '.join(map(repr, bad))} is not among the facets used"
                         f" ({', '.join(map(repr, facets)) or 'none'}).")
    models = tuple(check_names(models, table.models, "models"))
    tasks = tuple(check_names(tasks, table.tasks, "tasks"))
    notes = []
    designs = []
    if not isinstance(cluster, bool):
        raise ArgumentTypeError(words('`{arg:cluster}` must be True or False; got {cluster!r}.', cluster=cluster))
    if cluster and not table.has_clusters:
        raise ArgumentError(words('`{arg:cluster=True}`, but the table has no cluster column.'))
    coded = {c: _coded(table.data[c]) for c in ("model", "task", ITEM, *facets)
             + (("cluster",) if table.has_clusters else ())}
    m_lookup = np.full(len(coded["model"][1]), -1, dtype=np.int64)
    for k, m in enumerate(models):
        m_lookup[np.searchsorted(coded["model"][1], m)] = k
    m_code = m_lookup[coded["model"][0]]
    t_codes = coded["task"][0]
    order = np.argsort(t_codes, kind="stable")
    bounds = np.searchsorted(t_codes[order], np.arange(len(coded["task"][1]) + 1))
    if table.averaged_trials:  # a row per item holding its trials' count, sum and sum of squares
        score = tuple(table.data[c].to_numpy() for c in ("score_sum", "trials", "score_sumsq"))
    else:
        score = table.data["score"].to_numpy(dtype=np.float64)
    for task in tasks:
        t = int(np.searchsorted(coded["task"][1], task))
        rows = order[bounds[t]:bounds[t + 1]]
        rows = rows[m_code[rows] >= 0]
        if rows.size == 0:
            raise InputError(f"task '{task}' has no rows for the selected models", source=table.source)
        d = _task_design(task, models, facets, nested, rows, m_code[rows],
                         tuple(a[rows] for a in score) if isinstance(score, tuple) else score[rows], coded,
                         table.source, cluster)
        if table.score_kind != "unbounded":
            d = replace(d, score_range=(0.0, 1.0))
        designs.append(d)
        notes.extend(d.notes)
    return FacetDesign(models, tasks, tuple(facets), tuple(designs), tuple(dict.fromkeys(notes)))


def _coded(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a categorical column in the sorted order of its labels (as text), and the sorted labels."""
    cats = np.asarray(col.cat.categories.astype(str))
    order = np.argsort(cats, kind="stable")
    rank = np.empty(len(cats), dtype=np.int64)
    rank[order] = np.arange(len(cats))
    return rank[col.cat.codes.to_numpy()], cats[order]


NOTE_TASK_MISSING_CELLS = NoteKind('selection.task-missing-cells', 'info',
                                   "task '{task}': missing cells (combinations of item and facet levels without a"
                                   " result): {counts}")
NOTE_TASK_ROWS_ITEMS_NOT = NoteKind('selection.task-rows-items-not', 'excluded',
                                     "task '{task}': rows of items not shared by every model left out ({lost})")
NOTE_TASK_SINGLE_SHARED_ITEM = NoteKind('selection.task-single-shared-item', 'caveat',
                                         "task '{task}': a single shared item; item variance cannot be estimated")
NOTE_TASK_FACET_HAS_SINGLE = NoteKind(
    'selection.task-facet-has-single', 'excluded',
    "task '{task}': facet '{value}' has a single level, so its variance cannot be estimated; left out of the design")
NOTE_TASK_FACET_ONLY_RELABELS = NoteKind(
    'selection.task-facet-only-relabels', 'excluded',
    "task '{task}': facet '{value}' only relabels '{value2}' (one level per {value2} and back); left out of the "
    "design")


def _task_design(task, models, facets, nested, rows, m_code, score, coded, source, cluster=False) -> TaskDesign:
    notes = []
    item_g = coded[ITEM][0][rows]
    # items shared by every model
    i_vals, i_inv = np.unique(item_g, return_inverse=True)
    i_inv = i_inv.reshape(-1)
    have = np.bincount(i_inv * len(models) + m_code, minlength=i_vals.size * len(models))
    common = (have.reshape(-1, len(models)) > 0).all(axis=1)
    if not common.any():
        raise InputError(f"task '{task}': the selected models share no item", source=source)
    keep = common[i_inv]
    # ``score``: each row's score, or (sum, count, sum of squares) of the trials of each row of averaged trials
    sum_, count, sumsq = score if isinstance(score, tuple) else (score, None, None)
    if count is None:
        left_out = {m: int(((~keep) & (m_code == k)).sum()) for k, m in enumerate(models)}
    else:  # the trial rows behind the rows left out
        lost = np.bincount(m_code[~keep], weights=count[~keep], minlength=len(models)).astype(np.int64)
        left_out = {m: int(lost[k]) for k, m in enumerate(models)}
    if any(left_out.values()):
        lost = ", ".join(f"{m}: {v:,}" for m, v in left_out.items() if v)
        notes.append(NOTE_TASK_ROWS_ITEMS_NOT(task=task, lost=lost))
    rows, m_code, sum_, item_g = rows[keep], m_code[keep], sum_[keep], item_g[keep]
    if count is not None:
        count, sumsq = count[keep], sumsq[keep]

    factors = [ITEM]
    codes, levels = [], []
    u, inv = np.unique(item_g, return_inverse=True)
    codes.append(inv.reshape(-1))
    levels.append(coded[ITEM][1][u])
    for f in facets:
        g = coded[f][0][rows]
        if f in nested:
            pairs, inv = unique_rows(np.column_stack([item_g, g]))
            lab = np.char.add(np.char.add(coded[ITEM][1][pairs[:, 0]].astype(str), "/"),
                              coded[f][1][pairs[:, 1]].astype(str))
        else:
            u, inv = np.unique(g, return_inverse=True)
            lab = coded[f][1][u]
        factors.append(f)
        codes.append(inv.reshape(-1))
        levels.append(lab)
    if cluster:
        u, inv = np.unique(coded["cluster"][0][rows], return_inverse=True)
        factors.append("cluster")
        codes.append(inv.reshape(-1))
        levels.append(coded["cluster"][1][u])
    codes_rows = np.column_stack(codes)

    # drop facets with one level or that only relabel another factor
    keep_f = list(range(len(factors)))
    for a in range(1, len(factors)):
        if len(levels[a]) < 2:
            notes.append(NOTE_TASK_FACET_HAS_SINGLE(task=task, value=factors[a]))
            keep_f.remove(a)
    for a in list(keep_f):
        if a == 0:
            continue
        for b in keep_f:
            if b >= a and b != 0:
                continue
            if b == a:
                continue
            if _nested(codes_rows[:, a], codes_rows[:, b]) and _nested(codes_rows[:, b], codes_rows[:, a]):
                notes.append(NOTE_TASK_FACET_ONLY_RELABELS(task=task, value=factors[a], value2=factors[b]))
                keep_f.remove(a)
                break
    factors = [factors[a] for a in keep_f]
    levels = [levels[a] for a in keep_f]
    codes_rows = codes_rows[:, keep_f]
    if len(levels[0]) < 2:
        notes.append(NOTE_TASK_SINGLE_SHARED_ITEM(task=task))

    cell, cell_of_row = unique_rows(codes_rows)
    cell_of_row = cell_of_row.reshape(-1)
    n_c, n_m = cell.shape[0], len(models)
    flat = m_code * n_c + cell_of_row
    if count is None:
        n = np.bincount(flat, minlength=n_m * n_c).reshape(n_m, n_c)
        sumsq = sum_ * sum_
    else:  # (the sums of averaged trials are exact: the same numbers as from their rows)
        n = np.bincount(flat, weights=count, minlength=n_m * n_c).astype(np.int64).reshape(n_m, n_c)
    sums = np.bincount(flat, weights=sum_, minlength=n_m * n_c).reshape(n_m, n_c)
    sumsq = np.bincount(flat, weights=sumsq, minlength=n_m * n_c).reshape(n_m, n_c)

    k = len(factors)
    parents = tuple(frozenset(b for b in range(k) if b != a and _nested(cell[:, a], cell[:, b])) for a in range(k))
    terms = tuple(t for size in range(1, k + 1) for t in itertools.combinations(range(k), size)
                  if all(parents[a] <= set(t) for a in t))
    missing = None  # counted once the design is built (it needs the nesting)

    clusters, cluster_labels = None, ()
    if "cluster" in coded:
        first = np.zeros(len(levels[0]), dtype=np.int64)
        first[codes_rows[:, 0]] = coded["cluster"][0][rows]  # clusters are constant within an item
        u, clusters = np.unique(first, return_inverse=True)
        clusters, cluster_labels = clusters.reshape(-1).astype(np.int64), tuple(coded["cluster"][1][u])
    d = TaskDesign(task, tuple(models), tuple(factors), tuple(levels), cell.astype(np.int64), n, sums, sumsq,
                   parents, terms, clusters, cluster_labels, left_out, ())
    missing = d.missing_cells
    if missing.any():
        notes.append(NOTE_TASK_MISSING_CELLS(task=task, counts=", ".join(
            f"{m}: {int(v):,} of {d.full_cells:,}" for m, v in zip(models, missing) if v)))
    object.__setattr__(d, "notes", tuple(notes))
    return d


def _nested(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether each level of ``a`` occurs with exactly one level of ``b``."""
    pairs = unique_rows(np.column_stack([a, b]))[0]
    return bool(np.unique(pairs[:, 0]).size == pairs.shape[0])


def check_fixed(table, fixed) -> tuple:
    """``fixed`` (None, a name, names, or True for every facet) as a tuple of the table's facets.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.facets import check_fixed, facet_table
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": [1, 1, 2, 2], "prompt": ["a", "b", "a", "b"],
    ...                    "seed": [0, 1, 1, 0], "score": [1, 0, 1, 1]})
    >>> table = facet_table(df, facets=["prompt", "seed"])
    >>> check_fixed(table, None), check_fixed(table, "prompt"), check_fixed(table, True)
    ((), ('prompt',), ('prompt', 'seed'))
    >>> check_fixed(table, "judge")
    Traceback (most recent call last):
    ...
    evalband._validate.ArgumentError: `fixed`: 'judge' is not a facet column of the table; its facets are 'prompt', ...
    """
    if fixed is None or fixed is False:
        return ()
    facets = tuple(getattr(table, "facets", ()) or ())
    if fixed is True:
        return facets
    if isinstance(fixed, str):
        fixed = [f.strip() for f in fixed.split(",") if f.strip()]
    try:
        fixed = tuple(str(f) for f in fixed)
    except TypeError:
        raise ArgumentTypeError(words('`{arg:fixed}` must be facet names (a string or a sequence); got {fixed!r}.', fixed=fixed)) from None
    bad = [f for f in fixed if f not in facets]
    if bad:
        raise ArgumentError(words('`{arg:fixed}`: {value} is not a facet column of the table; its facets are {value2}.', value=', '.join(map(repr, bad)), value2=', '.join(map(repr, facets)) or '(none)'))
    return fixed


def random_facets(data, fixed=()) -> tuple:
    """The facets a default analysis generalizes over: facet columns of the selected table, not ``fixed``, with
    more than one level and not nested in items (those stay with their item, as trials do).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evalband.facets import random_facets
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(20), 3), np.tile(np.arange(3), 20)
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": item, "prompt": prompt, "seed": 0,
    ...                    "score": rng.integers(0, 2, 60)})
    >>> random_facets(df)
    ('prompt',)
    >>> random_facets(df, fixed="prompt")
    ()
    """
    table = facet_table(data)
    if table.level != "item" or not table.facets:
        return ()
    fixed = check_fixed(table, fixed)
    if set(table.facets) <= set(fixed):
        return ()
    design = facet_design(table)
    out = set()
    for d in design.designs:
        for a in range(1, len(d.factors)):
            if d.factors[a] not in fixed and 0 not in d.parents[a]:
                out.add(d.factors[a])
    return tuple(f for f in table.facets if f in out)
