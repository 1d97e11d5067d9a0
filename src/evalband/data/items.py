"""Validation of item-level results (one row per model, task, item, optional trial and facet levels, with a
score) into the frame of an item-level :class:`~evalband.data.table.ResultsTable` (:meth:`ResultsTable.from_items`).

Label columns become categoricals (a small integer code per row) and every check runs on the codes, so a table of
1e8 rows is built in a few passes over arrays. Each check raises :class:`~evalband._validate.InputError` naming the
source, row and column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .checks import (_at, _constant_within, _labels, _measure, _require, _row_name, natural_labels, parse_scores,
                     row_order, same_as_previous, sort_rows)
from .codes import first_duplicate, small_int
from .labels import natural_order
from .table import MEASURES, RESERVED
from .._validate import InputError
from ..display.notes import NoteKind
from .._words import words

__all__ = ["item_frame"]

NOTE_FACET_ANALYSES_OVER_ITEMS = NoteKind(
    'data.facet-analyses-over-items', 'info',
    "facet{value} {value2}: analyses over items average each item's rows over its facet levels")
NOTE_SCORES_DECLARED_UNBOUNDED_PROPORTION = NoteKind(
    'data.scores-declared-unbounded-proportion', 'caveat',
    'scores declared unbounded: proportion intervals and pass@k do not apply')


def item_frame(df: pd.DataFrame, *, source: str, unbounded: bool, row_word: str, notes, facets, owned: bool):
    """The validated frame of an item-level table and what it found: ``(frame, score_kind, notes, has_trials,
    facets)``. See :meth:`evalband.data.table.ResultsTable.from_items` (``owned``: its ``_owned``)."""
    notes = list(notes)
    facets = tuple(str(f) for f in ([facets] if isinstance(facets, str) else facets))
    _require(df, ("model", "task", "item", "score", *facets), source)
    reserved = [f for f in facets if f in RESERVED]
    if reserved or len(set(facets)) != len(facets):
        raise InputError(f"facet column {reserved[0] if reserved else facets[0]!r} "
                         + ("has a role of its own" if reserved else "is named twice")
                         + "; facets are other label columns (prompt, judge, run, ...)", source=source)
    if len(df) == 0:
        raise InputError("no rows to analyse", source=source)

    def column(name):
        return df.pop(name) if owned else df[name]

    out = pd.DataFrame(index=df.index)
    for col in ("model", "task", "item"):
        out[col] = _labels(column(col), col, source, row_word, notes)
    has_trials = "trial" in df.columns
    trial_order = None
    if has_trials:
        trial_text = _labels(column("trial"), "trial", source, row_word, notes)
        trial_order = natural_order(trial_text.cat.categories)
        rank = small_int(pd.Index(trial_order).get_indexer(list(trial_text.cat.categories)))
        out["trial"] = rank[trial_text.cat.codes.to_numpy()]
        del trial_text
    else:
        out["trial"] = np.zeros(len(df), dtype=np.int8)
    for col in ("cluster", "group", *facets):
        if col in df.columns:
            out[col] = _labels(column(col), col, source, row_word, notes)
    score = parse_scores(df["score"], source=source, row_word=row_word)
    if not unbounded:
        bad = np.flatnonzero((score < 0) | (score > 1))
        if bad.size:
            pos = bad[0]
            raise InputError(
                words('score {value!r} lies outside [0, 1] ({size} such row{value2}); if the score is not a proportion, declare it unbounded ({py:unbounded=True}{cli:--unbounded})', value=float(score[pos]), size=bad.size, value2='s' if bad.size > 1 else ''),
                source=source, row=_row_name(df.index[pos], row_word), column="score",
            )
    if owned:
        del df["score"]
    out["score"] = score
    del score
    for col in MEASURES:
        if col in df.columns:
            out[col], note = _measure(df[col], col, source, row_word, unbounded=unbounded)
            notes += note
    scores = out["score"].to_numpy()
    if not unbounded and bool(np.all((scores == 0.0) | (scores == 1.0))):
        kind = "binary"
    elif unbounded:
        kind = "unbounded"
        notes.append(NOTE_SCORES_DECLARED_UNBOUNDED_PROPORTION())
    else:
        kind = "bounded"
    del scores

    keys = ("task", "model", "item", *facets, "trial")
    out = natural_labels(out, keys, ("cluster", "group"))
    order = row_order(out, keys)  # the canonical order; the checks below name rows in the source's order
    same = same_as_previous(out, keys, order)
    dup = first_duplicate(same, order)
    if dup is not None:
        first, second, count = dup
        row = out.iloc[first]
        what = f"model '{row['model']}', task '{row['task']}', item '{row['item']}'"
        what += "".join(f", {f} '{row[f]}'" for f in facets)
        if has_trials:
            what += f", trial '{trial_order[int(row['trial'])]}'"
        raise InputError(
            f"duplicate result for {what} (also {_at(out.index[second], row_word)}; {count} duplicated rows)"
            + ("" if has_trials else "; repeated trials need a trial column"),
            source=source, row=_row_name(out.index[first], row_word),
        )
    del same
    _constant_within(out, "cluster", ["task", "item"], "item", source, row_word)
    _constant_within(out, "group", ["task"], "task", source, row_word)
    out = sort_rows(out, order)
    del order
    if facets:
        notes.append(NOTE_FACET_ANALYSES_OVER_ITEMS(value='s' if len(facets) > 1 else '', value2=', '.join(facets)))
    return out, kind, notes, has_trials, facets
