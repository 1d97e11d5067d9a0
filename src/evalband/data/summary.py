"""Validation of summary-level results (``model, task, n`` and ``correct`` or ``accuracy``, as papers print
them) into the frame of a summary :class:`~evalband.data.table.ResultsTable` (:meth:`ResultsTable.from_summary`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .checks import (_at, _canonical, _check_correct_matches_accuracy, _check_one_scale, _constant_within,
                            _labels, _numbers, _require, _row_name)
from .._validate import ArgumentError, InputError
from ..display.notes import NoteKind
from .._words import words

__all__ = ["summary_frame"]


def _same_key_rows(out: pd.DataFrame, dup: pd.Series, key: list) -> np.ndarray:
    """Positions of the first duplicated row and of the next row with the same ``key`` (not merely the next
    duplicated row, which may repeat another key)."""
    first = int(np.flatnonzero(dup.to_numpy())[0])
    ids = out.groupby(key, sort=False, observed=True, dropna=False).ngroup().to_numpy()
    return np.flatnonzero(ids == ids[first])[:2]


NOTE_CORRECT_COUNTS_RECOVERED_N = NoteKind('data.correct-counts-recovered-n', 'info',
                                            'correct counts recovered as {count_rule}(n * accuracy)')
NOTE_TEST_SET_SIZE_N = NoteKind(
    'data.test-set-size-n', 'caveat',
    "test-set size n differs between models in {n_differ} task(s), e.g. '{value}' ({value2:,} to {value3:,}): "
    "those models were not scored on the same items")


ACCURACY_SCALE = NoteKind("data.accuracy-scale-detected", "info",
                          "accuracy read as {scale} (largest value {largest:g}); {py:say}{cli:give}"
                          " {arg:accuracy_scale=} to override")


def summary_frame(df: pd.DataFrame, *, source: str, count_rule: str = "floor", accuracy_scale: str = "auto",
                  row_word: str = "row", notes=()) -> tuple[pd.DataFrame, list[str]]:
    """The validated summary frame (labels, integer ``n`` and ``correct``, canonical order) and the notes."""
    notes = list(notes)
    _require(df, ("model", "task", "n"), source)
    if "correct" not in df.columns and "accuracy" not in df.columns:
        raise InputError(f"needs a 'correct' or an 'accuracy' column; found {', '.join(map(repr, df.columns))}",
                         source=source)
    if len(df) == 0:
        raise InputError("no rows to analyse", source=source)
    out = pd.DataFrame(index=df.index)
    for col in ("model", "task"):
        out[col] = _labels(df[col], col, source, row_word, notes)
    if "group" in df.columns:
        out["group"] = _labels(df["group"], "group", source, row_word, notes)
    n = _numbers(df["n"], "n", source, row_word)
    big = np.flatnonzero(n > 2.0**53)
    if big.size:
        raise InputError(f"test-set size n = {float(n[big[0]]):g} is beyond 2**53 (counts that large are not exact"
                         " in floating point)", source=source, row=_row_name(df.index[big[0]], row_word), column="n")
    bad = np.flatnonzero((n <= 0) | (n != np.floor(n)))
    if bad.size:
        raise InputError(f"test-set size n must be a positive integer; got {float(n[bad[0]]):g}",
                         source=source, row=_row_name(df.index[bad[0]], row_word), column="n")
    if "correct" in df.columns:
        correct = _numbers(df["correct"], "correct", source, row_word)
        bad = np.flatnonzero((correct < 0) | (correct > n) | (correct != np.floor(correct)))
        if bad.size:
            raise InputError(f"correct must be an integer between 0 and n = {int(n[bad[0]])};"
                             f" got {float(correct[bad[0]]):g}",
                             source=source, row=_row_name(df.index[bad[0]], row_word), column="correct")
        if "accuracy" in df.columns:
            _check_correct_matches_accuracy(df, correct, n, accuracy_scale, source, row_word)  # then redundant
    else:
        acc = _numbers(df["accuracy"], "accuracy", source, row_word)
        scale = accuracy_scale
        if scale == "auto":
            scale = "percent" if np.nanmax(acc) > 1 else "fraction"
            if scale == "percent":
                _check_one_scale(acc, out["model"], df, source, row_word)
            notes.append(ACCURACY_SCALE(scale="percent" if scale == "percent" else "fractions",
                                        largest=np.nanmax(acc)))
        elif scale not in ("fraction", "percent"):
            raise ArgumentError(words("`{arg:accuracy_scale}` must be 'auto', 'fraction' or 'percent'; got {accuracy_scale!r}.", accuracy_scale=accuracy_scale))
        if scale == "percent":
            acc = acc / 100.0
        bad = np.flatnonzero((acc < 0) | (acc > 1))
        if bad.size:
            raise InputError(f"accuracy {df['accuracy'].iloc[bad[0]]} lies outside the {scale} range",
                             source=source, row=_row_name(df.index[bad[0]], row_word), column="accuracy")
        if count_rule == "floor":
            # round away float noise first: 0.29 * 100 is 28.999999999999996, which must count as 29
            correct = np.floor(np.round(n * acc, 6))
        elif count_rule == "round":
            correct = np.round(n * acc)
        else:
            raise ArgumentError(words("`{arg:count_rule}` must be 'floor' or 'round'; got {count_rule!r}.", count_rule=count_rule))
        notes.append(NOTE_CORRECT_COUNTS_RECOVERED_N(count_rule=count_rule))
    out["n"] = n.astype(np.int64)
    out["correct"] = correct.astype(np.int64)
    sizes = out.groupby("task", sort=False, observed=True)["n"].agg(["min", "max"])
    differ = sizes[sizes["min"] != sizes["max"]]
    if len(differ):
        notes.append(NOTE_TEST_SET_SIZE_N(n_differ=len(differ), value=differ.index[0], value2=differ['min'].iloc[0], value3=differ['max'].iloc[0]))
    dup = out.duplicated(["model", "task"], keep=False)
    if dup.any():
        pos = _same_key_rows(out, dup, ["model", "task"])
        rows, first = out.index[pos], out.iloc[pos[0]]
        raise InputError(f"duplicate summary for model '{first.model}', task '{first.task}'"
                         f" (also {_at(rows[1], row_word)})", source=source, row=_row_name(rows[0], row_word))
    _constant_within(out, "group", ["task"], "task", source, row_word)
    out = _canonical(out, ("task", "model"), ("group",))
    return out, notes
