"""Row-level checks behind :class:`evalband.table.ResultsTable`: score parsing and the validation helpers.

Each check raises :class:`~evalband._validate.InputError` naming the source, the row (as the user sees it: a file
line, a DataFrame label) and the column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._labels import label_column, natural_order
from ._validate import InputError

#: inspect_ai-style score letters: Correct, Incorrect, Partial, No answer.
SCORE_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_TRUE = {"true", "t", "yes", "y"}
_FALSE = {"false", "f", "no", "n"}

ITEM_COLUMNS = ("model", "task", "item", "trial", "cluster", "group", "score")
SUMMARY_COLUMNS = ("model", "task", "group", "n", "correct")


def _row_name(index_label, row_word: str) -> str:
    return f"{row_word} {index_label}"


def parse_scores(values: pd.Series, *, source: str, row_word: str = "row", column: str = "score") -> np.ndarray:
    """Turn a score column into float64: numbers, booleans, 'true'/'false' and the letters C/I/P/N.

    Raises
    ------
    InputError
        On the first value that is none of these, or that is missing, naming its row.
    """
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=np.float64)
    if pd.api.types.is_numeric_dtype(values):
        out = values.to_numpy(dtype=np.float64)
    elif (fast := _plain_numbers(values)) is not None:
        out = fast
    else:
        text = values.astype("string").str.strip()
        out = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(out) & text.notna().to_numpy()
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
            if still.size:
                pos = still[0]
                raise InputError(
                    f"score {values.iloc[pos]!r} is not a number, a boolean or one of C/I/P/N"
                    f" ({still.size} such value{'s' if still.size > 1 else ''})",
                    source=source, row=_row_name(values.index[pos], row_word), column=column,
                )
    missing = np.flatnonzero(np.isnan(out))
    if missing.size:
        pos = missing[0]
        raise InputError(
            f"missing score (NaN or blank; {missing.size} such row{'s' if missing.size > 1 else ''})",
            source=source, row=_row_name(values.index[pos], row_word), column=column,
        )
    check_finite(out, values, column, source, row_word)
    return out


#: largest magnitude a score or measure may have: sums of squares of up to 1e100 such values stay finite in
#: float64, so no mean, variance or bootstrap sum can overflow
MAX_MAGNITUDE = 1e100


def check_finite(out: np.ndarray, values: pd.Series, column: str, source: str, row_word: str) -> None:
    """Refuse infinite values and values so large that sums of squares would overflow, naming the first row."""
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
        raise InputError(
            f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))};"
            f" found {', '.join(map(repr, map(str, df.columns)))} (map names with --model-col, --score-col, ...)",
            source=source,
        )


def _labels(col: pd.Series, name: str, source: str, row_word: str, notes: list | None = None) -> pd.Series:
    """A label column by the one label rule (:func:`evalband._labels.label_column`); its notes go to ``notes``."""
    out, more = label_column(col, name, source, row_word)
    if notes is not None:
        notes.extend(more)
    return out


def _numbers(col: pd.Series, name: str, source: str, row_word: str) -> np.ndarray:
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
    if col not in out.columns:
        return
    n = out.groupby(by, sort=False)[col].nunique()
    bad = n[n > 1]
    if len(bad):
        key = bad.index[0]
        key = key if isinstance(key, tuple) else (key,)
        mask = np.ones(len(out), dtype=bool)
        for b, k in zip(by, key):
            mask &= (out[b] == k).to_numpy()
        rows = out.loc[mask]
        first = rows.iloc[0][col]
        other = rows.loc[rows[col] != first].iloc[0]
        label = " of task ".join(f"'{k}'" for k in reversed(key)) if what == "item" else f"'{key[0]}'"
        raise InputError(
            f"{col} changes within {what} {label}: '{first}' at {row_word} {rows.index[0]}, '{other[col]}' at"
            f" {row_word} {other.name} ({len(bad)} such {what}{'s' if len(bad) > 1 else ''})",
            source=source, row=_row_name(other.name, row_word), column=col,
        )


def _measure(col: pd.Series, name: str, source: str, row_word: str, *, unbounded: bool):
    """A measure column as float64 (blank = NaN, counted in a note); refuses text, infinities and, for cost and
    latency, negative values; ``human`` labels lie in [0, 1] unless the scores are unbounded."""
    text_blank = col.isna().to_numpy()
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
        notes.append(f"{name}: {blank:,} of {len(values):,} rows have none (blank)"
                     + (", read as unlabelled" if name == "human" else ", left out of the analyses of " + name))
    return values, notes


def _canonical(out: pd.DataFrame, keys: tuple, others: tuple) -> pd.DataFrame:
    """The canonical form of a validated frame: every label column categorical with its labels in natural order
    (:func:`evalband._labels.natural_order`), and the rows sorted by ``keys`` (codes), so that nothing built on the
    table depends on the order of the rows in the source. The index (the source's row names) moves with the rows."""
    for col in (*keys, *others):
        if col in out.columns and col != "trial":
            codes, uniq = pd.factorize(out[col])
            order = natural_order(uniq)
            rank = pd.Index(order).get_indexer(list(map(str, uniq)))
            out[col] = pd.Categorical.from_codes(rank[codes], categories=order)
    codes = [out[c].cat.codes.to_numpy() if c != "trial" else out[c].to_numpy() for c in keys if c in out.columns]
    order = np.lexsort(codes[::-1])
    if not np.array_equal(order, np.arange(len(out))):
        out = out.iloc[order]
    return out
