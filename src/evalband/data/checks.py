"""Row-level checks behind :class:`evalband.data.table.ResultsTable`: score parsing and the validation helpers.

Each check raises :class:`~evalband._validate.InputError` naming the source, the row (as the user sees it: a file
line, a DataFrame label) and the column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._cells import check_cells
from .labels import label_column, natural_permutation
from .._words import words
from .._validate import InputError
from ..display.notes import NoteKind

#: inspect_ai-style score letters: Correct, Incorrect, Partial, No answer.
SCORE_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_TRUE = {"true", "t", "yes", "y"}
_FALSE = {"false", "f", "no", "n"}

ITEM_COLUMNS = ("model", "task", "item", "trial", "cluster", "group", "score")
SUMMARY_COLUMNS = ("model", "task", "group", "n", "correct")


def _row_name(index_label, row_word: str) -> str:
    return f"{row_word} {index_label}"


def _at(label, row_word: str) -> str:
    """'at line 5', or 'at a.csv line 3' when rows of several files are named by file and line (row_word 'at')."""
    return _row_name(label, row_word) if row_word == "at" else f"at {_row_name(label, row_word)}"


def _not_a_score(values: pd.Series, still: np.ndarray, source: str, row_word: str, column: str) -> InputError:
    """The error for the first of the rows ``still`` whose score is not a number, a boolean or C/I/P/N."""
    pos = still[0]
    return InputError(f"score {values.iloc[pos]!r} is not a number, a boolean or one of C/I/P/N"
                      f" ({still.size} such value{'s' if still.size > 1 else ''})",
                      source=source, row=_row_name(values.index[pos], row_word), column=column)


def parse_scores(values: pd.Series, *, source: str, row_word: str = "row", column: str = "score") -> np.ndarray:
    """Turn a score column into float64: numbers, booleans, 'true'/'false' and the letters C/I/P/N.

    A categorical column (as the columnar reader gives, :mod:`evalband.io.columnar`) is parsed one distinct value
    at a time.

    Raises
    ------
    InputError
        On the first value that is none of these (a nested object or list: :mod:`evalband._cells`), or that is
        missing, naming its row.
    """
    check_cells(values, column, source=source, where=lambda pos: _row_name(values.index[pos], row_word),
                expected="a number, a boolean or one of C/I/P/N")
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        parsed, bad = _distinct_scores(values.cat.categories)
        have = codes >= 0
        still = np.flatnonzero(have & bad[np.where(have, codes, 0)]) if bad.any() else np.zeros(0, dtype=np.int64)
        if still.size:
            raise _not_a_score(values, still, source, row_word, column)
        out = np.where(have, parsed[np.where(have, codes, 0)], np.nan)
    elif pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=np.float64)
    elif pd.api.types.is_numeric_dtype(values):
        out = values.to_numpy(dtype=np.float64)
    elif (fast := _plain_numbers(values)) is not None:
        out = fast
    else:
        out, still = _text_scores(values)
        if still.size:
            raise _not_a_score(values, still, source, row_word, column)
    missing = np.flatnonzero(np.isnan(out))
    if missing.size:
        pos = missing[0]
        raise InputError(
            f"missing score (NaN or blank; {missing.size} such row{'s' if missing.size > 1 else ''})",
            source=source, row=_row_name(values.index[pos], row_word), column=column,
        )
    check_finite(out, values, column, source, row_word)
    return out


def _text_scores(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Scores written as text: (float64 values, NaN where missing; positions of the values that are no score)."""
    text = values.astype("string").str.strip()
    out = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(out) & text.notna().to_numpy()
    still = np.zeros(0, dtype=np.int64)
    if bad.any():
        lowered = text[bad].str.lower()
        letters = text[bad].map(SCORE_LETTERS)
        mapped = np.where(
            letters.notna(), letters.astype("float64"),
            np.where(lowered.isin(_TRUE), 1.0, np.where(lowered.isin(_FALSE), 0.0, np.nan)),
        )
        # 'nan' typed as text is a missing value, not a word to map
        mapped = np.where(lowered.isin(["nan", "na", "null", "none", ""]), np.nan, mapped)
        out[bad] = mapped
        still = np.flatnonzero(bad)[np.isnan(mapped) & ~lowered.isin(["nan", "na", "null", "none", ""]).to_numpy()]
    return out, still


def _distinct_scores(categories: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct value of a categorical score column as a score: (values, NaN for a missing value such as
    'nan'; whether the value is no score at all)."""
    if pd.api.types.is_bool_dtype(categories) or pd.api.types.is_numeric_dtype(categories):
        return categories.to_numpy(dtype=np.float64), np.zeros(len(categories), dtype=bool)
    out, still = _text_scores(pd.Series(np.asarray(categories, dtype=object)))
    bad = np.zeros(len(categories), dtype=bool)
    bad[still] = True
    return out, bad


#: largest magnitude a score or measure may have: sums of squares of up to 1e100 such values stay finite in
#: float64, so no mean, variance or bootstrap sum can overflow
MAX_MAGNITUDE = 1e100


def check_finite(out: np.ndarray, values: pd.Series, column: str, source: str, row_word: str) -> None:
    """Refuse infinite values and values so large that sums of squares would overflow, naming the first row."""
    if out.size == 0:
        return
    with np.errstate(invalid="ignore"):
        low, high = np.fmin.reduce(out), np.fmax.reduce(out)  # NaN ignored; no temporary array
    if np.isfinite(low) and np.isfinite(high) and -MAX_MAGNITUDE <= low and high <= MAX_MAGNITUDE:
        return
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(out) & ~np.isnan(out)
        huge = np.abs(out) > MAX_MAGNITUDE
    for mask, what in ((bad, "is not a finite number"),
                       (huge, f"is too large to analyse (beyond {MAX_MAGNITUDE:g}, sums of squares would overflow);"
                              " rescale the column (e.g. to thousands or millions)")):
        rows = np.flatnonzero(mask)
        if rows.size:
            pos = rows[0]
            raise InputError(f"{column} {str(values.iloc[pos]).strip()} {what}"
                             f" ({rows.size} such row{'s' if rows.size > 1 else ''})", source=source,
                             row=_row_name(values.index[pos], row_word), column=column)


def _plain_numbers(values: pd.Series) -> np.ndarray | None:
    """Text cells that are all numbers (the common case of a text file) as float64 in one pass; None otherwise
    (letters, booleans, blanks: the general path names the first bad value)."""
    if values.isna().any():
        return None
    codes, uniq = pd.factorize(values)  # scores repeat (0/1, a few levels): parse each distinct text once
    try:
        parsed = pd.to_numeric(pd.Series(np.asarray(uniq, dtype=object))).to_numpy(dtype=np.float64)
    except (ValueError, TypeError):
        return None
    return parsed[codes]


_COVERAGE_PREFIX = "coverage:"


def _require(df: pd.DataFrame, cols, source: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(words("missing column{s} {names}; found {found} (map names with {arg:model_col},"
                               " {arg:score_col}, ...)", s="s" if len(missing) > 1 else "",
                               names=", ".join(map(repr, missing)), found=", ".join(map(repr, map(str, df.columns)))),
                         source=source)


def _labels(col: pd.Series, name: str, source: str, row_word: str, notes: list | None = None) -> pd.Series:
    """A label column by the one label rule (:func:`evalband.data.labels.label_column`); its notes go to ``notes``."""
    out, more = label_column(col, name, source, row_word)
    if notes is not None:
        notes.extend(more)
    return out


def _numbers(col: pd.Series, name: str, source: str, row_word: str) -> np.ndarray:
    check_cells(col, name, source=source, where=lambda pos: _row_name(col.index[pos], row_word), expected="a number")
    values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(np.isnan(values))
    if bad.size:
        raw = col.iloc[bad[0]]
        what = (f"missing {name} (NaN or blank; {bad.size} such row{'s' if bad.size > 1 else ''})" if pd.isna(raw)
                else f"{name} {str(raw)!r} is not a number")
        raise InputError(what, source=source, row=_row_name(col.index[bad[0]], row_word), column=name)
    check_finite(values, col, name, source, row_word)
    return values


def _check_correct_matches_accuracy(df, correct, n, accuracy_scale, source, row_word) -> None:
    """Both 'correct' and 'accuracy' given: they must agree within rounding (half a point, plus one item)."""
    acc = pd.to_numeric(df["accuracy"], errors="coerce").to_numpy(dtype=np.float64)
    percent = accuracy_scale == "percent" or (accuracy_scale == "auto" and np.nanmax(acc, initial=0) > 1)
    frac = correct / n
    gap = np.abs(frac - (acc / 100.0 if percent else acc))
    bad = np.flatnonzero(np.isfinite(gap) & (gap > 0.005 + 1.0 / n))
    if bad.size:
        i = bad[0]
        raise InputError(f"correct {int(correct[i])} of n = {int(n[i])} ({frac[i]:.4g}) disagrees with accuracy"
                         f" {df['accuracy'].iloc[i]} ({bad.size} such row{'s' if bad.size > 1 else ''}); give one of"
                         " the two columns, or fix the row", source=source, row=_row_name(df.index[i], row_word),
                         column="correct")


def _check_one_scale(acc: np.ndarray, model: pd.Series, df: pd.DataFrame, source: str, row_word: str) -> None:
    """Refuse an accuracy column that mixes fractions and percent (auto-detected as percent).

    Percent tables may hold a few values <= 1 (a model at 0.5% on a hard task), but when most values look like
    fractions, or one model's every accuracy does, dividing the whole column by 100 would silently shrink them.
    """
    low = acc <= 1
    high = np.flatnonzero(~low)
    fix = "write every accuracy in one scale (fractions or percent) or give correct counts"
    if low.sum() > acc.size / 2:
        i = high[0]
        raise InputError(f"accuracy {df['accuracy'].iloc[i]} lies outside the fraction range [0, 1] while"
                         f" {int(low.sum())} of {acc.size} accuracies look like fractions: the column mixes fractions"
                         f" and percent ({high.size} value(s) above 1); {fix}",
                         source=source, row=_row_name(df.index[i], row_word), column="accuracy")
    codes = pd.Categorical(model).codes
    per_model_low = np.bincount(codes, weights=low) == np.bincount(codes)
    per_model_rows = np.bincount(codes)
    per_model_pos = np.bincount(codes, weights=acc > 0) > 0
    odd = np.flatnonzero(per_model_low & (per_model_rows >= 2) & per_model_pos)
    if odd.size:
        i = int(np.flatnonzero(codes == odd[0])[0])
        raise InputError(f"model '{model.iloc[i]}' has every accuracy at most 1 while other models' exceed 1"
                         f" (percent): the column mixes fractions and percent; {fix}",
                         source=source, row=_row_name(df.index[i], row_word), column="accuracy")


def _constant_within(out: pd.DataFrame, col: str, by: list[str], what: str, source: str, row_word: str) -> None:
    """Refuse a column (``cluster``, ``group``) that changes within a group of rows (an item, a task), naming the
    first such group in the order of the rows and its first two values with their rows. On integer codes."""
    if col not in out.columns:
        return
    from .codes import changes_within, combined_key, int_codes

    keys = [out[b].cat.codes.to_numpy() for b in by]
    radices = [len(out[b].cat.categories) for b in by]
    group = combined_key(keys, radices)
    n_groups = int(np.prod(radices, dtype=np.float64)) if group is not None else 0
    if group is None or n_groups > max(4 * len(out), 1 << 26):
        group, uniq = int_codes(group if group is not None else pd.factorize(
            pd.MultiIndex.from_arrays(keys))[0])
        n_groups = len(uniq)
    value = out[col].cat.codes.to_numpy()
    bad = changes_within(group, n_groups, value)
    if bad is None:
        return
    in_bad = np.flatnonzero(bad[group])
    g0 = group[in_bad[0]]  # the first bad group in the order of the rows
    rows = np.flatnonzero(group == g0)
    first = value[rows[0]]
    other = rows[value[rows] != first][0]
    names = out[col].cat.categories
    key = tuple(out[b].cat.categories[out[b].cat.codes.iloc[rows[0]]] for b in by)
    label = " of task ".join(f"'{k}'" for k in reversed(key)) if what == "item" else f"'{key[0]}'"
    n_bad = int(bad.sum())
    raise InputError(
        f"{col} changes within {what} {label}: '{names[first]}' at {row_word} {out.index[rows[0]]},"
        f" '{names[value[other]]}' at {row_word} {out.index[other]} ({n_bad} such {what}{'s' if n_bad > 1 else ''})",
        source=source, row=_row_name(out.index[other], row_word), column=col,
    )


BLANK_HUMAN = NoteKind("data.human-blank-unlabelled", "info",
                       "human: {blank:,} of {rows:,} rows have none (blank), read as unlabelled")
BLANK_MEASURE = NoteKind("data.measure-blank-left-out", "excluded",
                         "{name}: {blank:,} of {rows:,} rows have none (blank), left out of the analyses of {name}")


def _measure(col: pd.Series, name: str, source: str, row_word: str, *, unbounded: bool):
    """A measure column as float64 (blank = NaN, counted in a note); refuses text, infinities and, for cost and
    latency, negative values; ``human`` labels lie in [0, 1] unless the scores are unbounded."""
    check_cells(col, name, source=source, where=lambda pos: _row_name(col.index[pos], row_word), expected="a number")
    text_blank = col.isna().to_numpy()
    if isinstance(col.dtype, pd.CategoricalDtype):  # each distinct text parsed once
        codes = col.cat.codes.to_numpy()
        numbers = pd.to_numeric(pd.Series(np.asarray(col.cat.categories, dtype=object)), errors="coerce")
        values = np.where(codes >= 0, numbers.to_numpy(dtype=np.float64)[np.maximum(codes, 0)], np.nan)
    else:
        values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(np.isnan(values) & ~text_blank)
    if bad.size:
        raise InputError(f"{name} {str(col.iloc[bad[0]])!r} is not a number", source=source,
                         row=_row_name(col.index[bad[0]], row_word), column=name)
    if name == "human":
        ok = np.isnan(values) | np.isin(values, (0.0, 1.0)) | unbounded | ((values >= 0) & (values <= 1))
        what = "lies outside [0, 1] (declare unbounded scores with --unbounded)"
    else:
        ok = np.isnan(values) | (np.isfinite(values) & (values >= 0))
        what = "must be a finite number >= 0"
    ok &= ~np.isinf(values) & ~(np.abs(values) > MAX_MAGNITUDE)
    bad = np.flatnonzero(~ok)
    if bad.size:
        v = values[bad[0]]
        if np.isinf(v):
            what = "is not finite"
        elif abs(v) > MAX_MAGNITUDE:
            what = f"is too large (beyond {MAX_MAGNITUDE:g})"
        raise InputError(f"{name} {float(v)!r} {what}"
                         f" ({bad.size} such row{'s' if bad.size > 1 else ''})", source=source,
                         row=_row_name(col.index[bad[0]], row_word), column=name)
    blank = int(np.isnan(values).sum())
    notes = []
    if blank:
        notes.append(BLANK_HUMAN(blank=blank, rows=len(values)) if name == "human"
                     else BLANK_MEASURE(name=name, blank=blank, rows=len(values)))
    return values, notes


def _natural(col) -> pd.Categorical:
    """A label column (categorical from :func:`evalband.data.labels.label_column`, or text) as a categorical whose
    categories are in natural order (:func:`evalband.data.labels.natural_order`); codes are remapped, rows untouched."""
    from .codes import codes_of

    if isinstance(getattr(col, "dtype", None), pd.CategoricalDtype):
        codes, uniq = codes_of(col), col.cat.categories.tolist()
    else:
        codes, uniq = pd.factorize(col)
        uniq = uniq.tolist()
    uniq = [u if isinstance(u, str) else str(u) for u in uniq]
    perm = natural_permutation(uniq)
    if np.array_equal(perm, np.arange(len(uniq))):
        if isinstance(getattr(col, "dtype", None), pd.CategoricalDtype):
            same = pd.CategoricalDtype(uniq)
            if col.dtype == same and col.dtype.categories.dtype == same.categories.dtype:
                return col.array  # already in natural order: the column as it is (no copy of its codes)
        return pd.Categorical.from_codes(codes, categories=uniq, validate=False)
    from .codes import small_int

    rank = np.empty(len(uniq), dtype=np.int64)
    rank[perm] = np.arange(len(uniq))
    return pd.Categorical.from_codes(small_int(rank)[codes], categories=[uniq[k] for k in perm], validate=False)


def _canonical(out: pd.DataFrame, keys: tuple, others: tuple) -> pd.DataFrame:
    """The canonical form of a validated frame: every label column categorical with its labels in natural order
    (:func:`evalband.data.labels.natural_order`), and the rows sorted by ``keys`` (codes), so that nothing built on the
    table depends on the order of the rows in the source. The index (the source's row names) moves with the rows."""
    out = natural_labels(out, keys, others)
    return sort_rows(out, row_order(out, keys))


def natural_labels(out: pd.DataFrame, keys: tuple, others: tuple) -> pd.DataFrame:
    """``out`` with every label column among ``keys`` and ``others`` (but ``trial``, already codes) in natural
    order (:func:`_natural`)."""
    for col in (*keys, *others):
        if col in out.columns and col != "trial":
            out[col] = _natural(out[col])
    return out


def _key_codes(out: pd.DataFrame, keys: tuple) -> tuple[list, list]:
    from .codes import codes_of

    codes, radices = [], []
    for c in keys:
        if c not in out.columns:
            continue
        if c == "trial":
            values = out[c].to_numpy()
            codes.append(values)
            radices.append(int(values.max()) + 1 if values.size else 1)
        else:
            codes.append(codes_of(out[c]))
            radices.append(len(out[c].cat.categories))
    return codes, radices


def row_order(out: pd.DataFrame, keys: tuple):
    """The permutation that sorts the rows by the codes of ``keys`` (stable), or None when they are in order."""
    from .codes import combined_key, stable_order

    codes, radices = _key_codes(out, keys)
    if not codes:
        return None
    if len(codes) > 2 and radices[0] * radices[1] <= 1 << 16:  # (task, model) first: one 16-bit radix pass,
        order = _grouped_order(codes, radices)  # enough when each group's rows come in order (as files are)
        if order is not False:
            return order
    key = combined_key(codes, radices)
    if key is None:  # too many distinct keys for one int64: a comparison sort of the columns
        order = np.lexsort(codes[::-1])
        return None if np.array_equal(order, np.arange(len(out))) else order
    upper = int(np.prod([max(r, 1) for r in radices], dtype=object))
    return stable_order(key, upper)


def _grouped_order(codes: list, radices: list):
    """The sorting permutation (None: sorted) when sorting by the first two keys leaves the rest in order within
    each group, else False."""
    from .codes import combined_key, take

    primary = combined_key(codes[:2], radices[:2], compact=True)
    rest = combined_key(codes[2:], radices[2:], compact=True)
    if rest is None:
        return False
    order = None
    if primary.size > 1 and not bool(np.all(primary[:-1] <= primary[1:])):
        order = _run_order(primary)
    p, r = take(primary, order), take(rest, order)
    del primary, rest
    ok = bool(np.all((r[1:] >= r[:-1]) | (p[1:] != p[:-1])))
    return order if ok else False


def _run_order(primary: np.ndarray) -> np.ndarray:
    """The stable sorting permutation of ``primary`` (values below 2**16). A file written group by group holds
    each group in a few runs of neighbouring rows: the runs are sorted, not the rows (the permutation built as
    int32 aranges, no int64 array of the rows' size); many short runs: a 16-bit radix sort of the rows."""
    n = primary.size
    index = np.int32 if n < 2**31 else np.int64
    bounds = np.flatnonzero(primary[1:] != primary[:-1]) + 1
    if bounds.size > n // 16:
        return np.argsort(primary.astype(np.uint16), kind="stable").astype(index)
    starts = np.r_[0, bounds]
    lengths = np.diff(np.r_[starts, n])
    runs = np.argsort(primary[starts], kind="stable")  # runs of one group stay in file order
    starts, lengths = starts[runs], lengths[runs]
    shift = (starts - (np.cumsum(lengths) - lengths)).astype(index)
    order = np.arange(n, dtype=index)
    order += np.repeat(shift, lengths)
    return order


def same_as_previous(out: pd.DataFrame, keys: tuple, order) -> np.ndarray:
    """Whether each row, in the order ``order``, has the same ``keys`` as the one before it ((n - 1,) bool)."""
    from .codes import sorted_same

    return sorted_same(_key_codes(out, keys)[0], order)


def sort_rows(out: pd.DataFrame, order) -> pd.DataFrame:
    """The rows of ``out`` in ``order`` (None: as they are), one column at a time (so that sorting a table of 1e8
    rows needs memory for one more column, not for a copy of the table); the index moves with the rows."""
    if order is None:
        return out
    from .codes import take

    index = out.index
    if len(index) > 1 << 20 and pd.api.types.is_integer_dtype(index.dtype) and index.max() < 2**31 \
            and index.min() >= -2**31:  # row numbers of a large file: 4 bytes each
        index = pd.Index(np.asarray(index, dtype=np.int32))
    index = index.take(order)
    columns = {}
    for c in list(out.columns):
        col = out.pop(c)
        columns[c] = take(col.array if isinstance(col.dtype, pd.CategoricalDtype) else col.to_numpy(), order)
        del col
    return pd.DataFrame(columns, index=index, copy=False)
