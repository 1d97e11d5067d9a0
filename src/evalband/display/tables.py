"""Result frames as text: terminal tables that fit the terminal, Markdown, LaTeX, CSV and JSON.

Human formats ('table', 'markdown', 'latex') round with the digit rule, merge each ``x_low`` / ``x_high`` pair
into one interval column (``95% CI``; rank intervals as ``1-2`` or a single ``3``), move columns that hold one
value on every row into the title, and fit the terminal's width (long names fold onto several lines; when even
that is too wide, the least needed columns are left out and a note says so). ``'table-wide'`` (``--wide``) shows
every column as it is. Machine formats ('csv', 'json') keep every column, full precision (the shortest repr
that reads back the same float), fractions, and integer counts; CSV text cells that a spreadsheet would read as
formulas are neutralized.
"""

from __future__ import annotations

import csv
import json
import math
import re

import numpy as np
import pandas as pd

from .._validate import ArgumentError
from ._json import records_json
from .escape import csv_safe_text, one_line
from .plain import _COUNTS, _clean, _plain, json_dumps  # noqa: F401
from .layout import DEFAULT_WIDTH, _DECIDING, constant_columns, fold_name, lay_out, terminal_width, wrap_notes  # noqa: F401
from .layout import fit_columns as _fit
from .numbers import (decimals_for, format_level, format_p, format_percent, format_rank_interval, format_short,
                      format_signed, format_value)

__all__ = ["FORMATS", "HEADERS", "fit_columns", "render", "display_frame", "json_records", "json_dumps", "to_json", "to_csv", "terminal_width", "wrap_notes", "DEFAULT_WIDTH"]

FORMATS = ("table", "table-wide", "markdown", "csv", "json", "latex")
#: probabilities shown as percents in human formats
_PERCENT = ("p_best", "p_a_better", "share", "prob_a_better", "prob_b_better", "prob_equivalent")
#: p-value columns (raw, adjusted, and the asymptotic one beside an exact p-value): shown as p-values
P_VALUES = ("p_value", "p_adjusted", "p_value_holm", "p_value_adjusted", "p_value_asymptotic")
#: one spelling per concept in every human table (terminal, Markdown, LaTeX, the report): the probabilities'
#: headers; JSON and CSV keep the field names
HEADERS = {"p_best": "P(best)", "p_a_better": "P(A better)", "prob_a_better": "P(A better)",
           "prob_b_better": "P(B better)", "prob_equivalent": "P(equivalent)", "win_probability": "P(A wins)"}
#: interval pairs merged in human formats: '<stem>_low' / '<stem>_high'
_PAIR = re.compile(r"^(.*)_low$")
#: multiplicity-adjusted p-values: beside a decision they are what decides it, so when one differs from the raw
#: p-value the raw one is left out first and the adjusted one never (a p_value of 0.048 beside "not yet decided"
#: reads as a contradiction)
_ADJUSTED = ("p_adjusted", "p_value_holm", "p_value_adjusted")


def _deciding(shown: pd.DataFrame, raw: pd.DataFrame) -> tuple[set, list]:
    """``(deciding, first)``: the columns a table's decision rests on (never left out to fit the terminal) and
    the columns to leave out before the usual order. A table with a decision (:data:`_DECIDING`) keeps its
    adjusted p-values (:data:`_ADJUSTED`) when they differ from the raw ``p_value``, which then goes first."""
    deciding = {c for c in shown.columns if str(c) in _DECIDING}
    first: list = []
    if not deciding and not any(str(c).startswith("verdict") for c in raw.columns):
        return deciding, first
    for c in shown.columns:
        if str(c) in _ADJUSTED and "p_value" in raw.columns and str(c) in raw.columns:
            a = pd.to_numeric(raw[str(c)], errors="coerce").to_numpy(dtype=float)
            b = pd.to_numeric(raw["p_value"], errors="coerce").to_numpy(dtype=float)
            if not np.allclose(a, b, equal_nan=True):
                deciding.add(c)
                first += [p for p in shown.columns if str(p) == "p_value"]
    return deciding, first


# ---------------------------------------------------------------------------------------------- machine formats
def _is_count(name, values: pd.Series) -> bool:
    if not _COUNTS.match(str(name)) or not pd.api.types.is_numeric_dtype(values) or \
            pd.api.types.is_bool_dtype(values):
        return False
    v = values.to_numpy(dtype=np.float64)
    v = v[np.isfinite(v)]
    return bool(np.all(v == np.round(v)))


def _counts(frame: pd.DataFrame) -> set:
    return {c for c in frame.columns if _is_count(c, frame[c])}


def json_records(frame: pd.DataFrame) -> list[dict]:
    """The rows as JSON-ready dicts: full-precision floats, integer counts, NaN as null.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.display import json_records
    >>> frame = pd.DataFrame({"model": ["A", "B"], "estimate": [0.781, float("nan")], "n": [120, 120]})
    >>> json_records(frame)
    [{'model': 'A', 'estimate': 0.781, 'n': 120}, {'model': 'B', 'estimate': None, 'n': 120}]
    """
    counts = _counts(frame)
    records = []
    for row in frame.itertuples(index=False, name=None):
        rec = {}
        for c, v in zip(frame.columns, row):
            v = _plain(v)
            if c in counts and isinstance(v, float):
                v = int(v)
            rec[str(c)] = v
        records.append(rec)
    return records


def to_json(frame: pd.DataFrame, **extra) -> str:
    """JSON records (a list), or an object with the ``extra`` fields and the ``records`` when given.

    The records are encoded column by column (:func:`evalband.display._json.records_json`): the bytes of
    ``json.dumps`` at a fraction of its time (499,500 pairs in seconds, not minutes).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.display import to_json
    >>> frame = pd.DataFrame({"model": ["A", "B"], "estimate": [0.781, 0.702]})
    >>> print(to_json(frame))
    [
      {
        "model": "A",
        "estimate": 0.781
      },
      {
        "model": "B",
        "estimate": 0.702
      }
    ]
    >>> print(to_json(frame, confidence_level=0.95))
    {
      "confidence_level": 0.95,
      "records": [
        {
          "model": "A",
          "estimate": 0.781
        },
        {
          "model": "B",
          "estimate": 0.702
        }
      ]
    }
    """
    text = records_json(frame, _counts(frame), level=1 if extra else 0)
    if text is not None and not extra:
        return text
    if text is not None:
        head = json.dumps({**_clean(extra), "records": None}, indent=2, allow_nan=False)
        if head.endswith('"records": null\n}'):  # the records last, as json.dumps places them
            return head[: -len("null\n}")] + text + "\n}"
    records = json_records(frame)  # nested values: the general encoder
    if extra:
        return json.dumps({**_clean(extra), "records": records}, indent=2, allow_nan=False)
    return json.dumps(records, indent=2, allow_nan=False)


def to_csv(frame: pd.DataFrame) -> str:
    """CSV with full precision, integer counts, and text cells neutralized against spreadsheet formulas.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.display import to_csv
    >>> frame = pd.DataFrame({"model": ["A", "=B"], "estimate": [0.781, 0.702], "n": [120, 120]})
    >>> print(to_csv(frame), end="")
    model,estimate,n
    A,0.781,120
    '=B,0.702,120
    """
    out = frame.copy()
    for c in out.columns:
        if _is_count(c, out[c]) and pd.api.types.is_float_dtype(out[c]):  # '4', '' when missing, 'inf' (a z df)
            out[c] = [int(v) if math.isfinite(v) else "" if math.isnan(v) else format_value(v, 0) for v in out[c]]
        elif not pd.api.types.is_numeric_dtype(out[c]) and not pd.api.types.is_bool_dtype(out[c]):
            out[c] = [csv_safe_text(v) for v in out[c]]  # object, string and categorical text alike
    safe_header = [csv_safe_text(str(c)) for c in out.columns]
    out.columns = safe_header
    # a lone CR in a text cell is a row break to spreadsheets and csv readers, but the writer (line ends '\n')
    # leaves it unquoted: then quote every text cell
    text_cells = [v for c in out.columns for v in out[c] if isinstance(v, str)]  # object or pandas 3 'str' dtype
    cr = any("\r" in v for v in text_cells + list(out.columns))
    return out.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC if cr else csv.QUOTE_MINIMAL)


# ---------------------------------------------------------------------------------------------- human formats
def _rounded(df, value_cols, se_col, scale, p_value_cols, p_floor, signed_cols=()) -> pd.DataFrame:
    """Display strings: value columns with the digit rule (after ``scale``), p-values, other numbers short."""
    out = pd.DataFrame(index=df.index)

    def digits(se, scale):  # (scale per row, decimals per row) from standard errors on the statistic's scale
        scale = np.broadcast_to(np.asarray(scale, dtype=float), (len(df),))  # one per row, or one for all
        if se is None:
            return scale, [3] * len(df)
        se = (df[se].to_numpy(dtype=float) if isinstance(se, str) else
              np.broadcast_to(np.asarray(se, dtype=float), (len(df),))) * scale
        # an SE below 1e-9 (on the shown scale) is floating-point noise around zero, not a precision to show
        return scale, [decimals_for(abs(s)) if s == s and abs(s) > 1e-9 else 1 for s in se]

    if isinstance(value_cols, dict):  # column -> (its SE: a column or values, its scale): a digit rule per group
        per_col = {c: digits(*spec) for c, spec in value_cols.items() if c in df.columns}
    else:
        rule = digits(se_col if se_col and se_col in df.columns else None, scale)
        per_col = {c: rule for c in value_cols if c in df.columns}
    for c in df.columns:
        col = df[c]
        if c in per_col:
            scale_c, decimals = per_col[c]
            values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float) * scale_c
            f = format_signed if c in signed_cols else format_value
            out[c] = [f(float(v), d) for v, d in zip(values, decimals)]
        elif c in p_value_cols:
            out[c] = [format_p(v, p_floor) for v in col]
        elif c in _PERCENT or re.sub(r"(_ci)?_(low|high)$", "", str(c)) in _PERCENT:  # a share and its interval
            out[c] = [format_percent(v) for v in col]
        elif _is_count(c, col) or (pd.api.types.is_integer_dtype(col) and not pd.api.types.is_bool_dtype(col)):
            # counts (and every integer column) with thousands separators; ranks and tiers as their intervals show
            sep = "" if str(c).startswith(("rank", "tier")) else ","
            out[c] = [f"{int(v):{sep}}" if np.isfinite(v) else format_value(v, 0) for v in col.to_numpy(dtype=float)]
        elif pd.api.types.is_float_dtype(col):
            out[c] = [format_short(v) if pd.notna(v) else "" for v in col]
        else:
            out[c] = ["" if v is None or (isinstance(v, float) and np.isnan(v)) else one_line(v) for v in col]
    return out


def _merge_intervals(shown: pd.DataFrame, raw: pd.DataFrame, level) -> pd.DataFrame:
    """Each '<stem>_low' / '<stem>_high' pair as one column: '(lo, hi)', ranks as '1-2' (or '3')."""
    cols = list(shown.columns)
    out = {}
    used = set()
    for c in cols:
        if c in used:
            continue
        m = _PAIR.match(str(c))
        other = f"{m.group(1)}_high" if m else None
        if m and other in shown.columns:
            stem = m.group(1)
            used |= {c, other}
            if stem.startswith("rank"):
                name = {"rank": "rank CI", "rank_sim": "sim. rank CI"}.get(stem, stem.replace("_", " "))
                out[name] = [format_rank_interval(a, b) for a, b in zip(raw[c], raw[other])]
            else:
                # an interval beside the estimate it belongs to ('difficulty', 'difficulty_low/high', as
                # 'predicted_win_rate'): named '<estimate> CI', never after the estimate itself, which it would
                # replace; a '<name>_ci_low/high' pair likewise reads '<name> CI'
                ci = f"{format_level(level)} CI" if isinstance(level, float) else "CI"
                name = ("CI" if stem == "ci" else ci.replace("CI", "PI") if stem == "pi"  # a predictive interval
                        else f"{HEADERS[stem]} CI" if stem in HEADERS
                        else f"{stem.replace('_', ' ')} {ci}" if stem in shown.columns
                        else f"{stem[:-3].replace('_', ' ')} {ci}" if stem.endswith("_ci")
                        else stem.replace("_", " "))
                if stem == "ci" and level is not None:
                    name = level if isinstance(level, str) else f"{format_level(level)} CI"
                # one end missing: a one-sided statement ('> x', '< x'; as format_interval says it)
                out[name] = [f"({a}, {b})" if (a and b) else f"> {a}" if a else f"< {b}" if b else ""
                             for a, b in zip(shown[c], shown[other])]
            continue
        out[c] = list(shown[c])
    return pd.DataFrame(out, index=shown.index)


#: --correction -> the word an interval's header carries (the readings say the same: "99.17% Holm-corrected CI")
_CORRECTED = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "BH", "max-t": "simultaneous"}


def _interval_name(raw: pd.DataFrame):
    """The header of the merged ``ci_low`` / ``ci_high`` column: the level the intervals hold (``95% CI``); for
    intervals corrected for multiplicity, the level of each interval and the correction, as the readings say it
    (``99.17% Holm CI``, ``95% simultaneous CI``), since a verdict read from a Holm interval at 99.17% under a
    header saying 95% would contradict the sentence beside it. None when the level differs between rows."""
    def one(column):
        if column not in raw.columns or raw[column].nunique(dropna=True) != 1:
            return None
        return raw[column].dropna().iloc[0]

    level = one("confidence_level")
    correction = one("correction") if "correction" in raw.columns else None
    word = _CORRECTED.get(str(correction)) if correction is not None else None
    if word is None:
        return None if level is None else float(level)
    if word == "simultaneous":
        return None if level is None else f"{format_level(float(level))} simultaneous CI"
    inner = one("interval_level")
    if inner is None:
        return f"{word} CI"
    return f"{format_level(float(inner))} {word} CI"


def _constant_columns(shown: pd.DataFrame, raw: pd.DataFrame, keep) -> tuple[pd.DataFrame, list[str]]:
    """Label columns (text, such as aggregate or method) with one value on every row move to the title; empty
    columns go (:func:`evalband.display.layout.constant_columns`)."""
    labels = {c for c in raw.columns if not pd.api.types.is_numeric_dtype(raw[c])}
    kept, parts = constant_columns({c: list(shown[c]) for c in shown.columns}, labels, keep)
    return shown.drop(columns=[c for c in shown.columns if c not in kept]), parts


def _prepare(df, *, value_cols, se_col, scale, p_value_cols, p_floor, title, compact, keep, signed_cols=()):
    raw = df.reset_index(drop=True)
    level = _interval_name(raw)
    shown = _rounded(raw, value_cols, se_col, scale, p_value_cols, p_floor, signed_cols)
    extra = []
    if compact:
        shown = _merge_intervals(shown, raw, level)
        if level is not None:
            shown = shown.drop(columns=["confidence_level", "interval_level"], errors="ignore")
        if "correction" in raw.columns and raw["correction"].nunique(dropna=True) == 1:
            shown = shown.drop(columns="correction")  # said in the interval's header (or 'none')
        shown, extra = _constant_columns(shown, raw, keep)
    head = "; ".join([t for t in [title] if t] + extra) or None
    return shown.rename(columns=HEADERS), head


def display_frame(df: pd.DataFrame, *, value_cols=("estimate", "se", "ci_low", "ci_high"), se_col: str | None = "se",
                  scale: float = 1.0, p_value_cols=P_VALUES, signed_cols=(), p_floor=None,
                  title: str | None = None, keep=("model", "model_a", "model_b", "task")):
    """``(shown, head)``: the display strings of a result frame as every human format shows them (the digit rule,
    points, merged interval columns, rank intervals, constant label columns moved to ``head``, empty columns
    left out), for renderers that lay the table out themselves (the report). ``signed_cols`` are differences
    written with their sign. Other arguments as :func:`render`.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["A", "B"], "estimate": [0.7812, 0.7], "se": [0.0123, 0.01],
    ...                       "ci_low": [0.757, 0.68], "ci_high": [0.805, 0.72], "confidence_level": 0.95})
    >>> shown, head = display_frame(frame, scale=100)
    >>> list(shown.columns), shown.iloc[0, 3]
    (['model', 'estimate', 'se', '95% CI'], '(75.7, 80.5)')
    """
    return _prepare(df, value_cols=value_cols, se_col=se_col, scale=scale, p_value_cols=p_value_cols, p_floor=p_floor,
                    title=title, compact=True, keep=keep, signed_cols=tuple(signed_cols))


def render(df: pd.DataFrame, fmt: str = "table", *, value_cols=("estimate", "se", "ci_low", "ci_high"),
           se_col: str | None = "se", scale: float = 1.0, p_value_cols=P_VALUES,
           title: str | None = None, notes=(), p_floor: float | None = None, width: int | None = None,
           keep=("model", "model_a", "model_b", "task")) -> str:
    """Render a result frame as text.

    Parameters
    ----------
    df : pandas.DataFrame
        Fractions at full precision (as ``to_frame()`` gives them).
    fmt : {'table', 'table-wide', 'markdown', 'csv', 'json', 'latex'}
    value_cols, se_col, scale
        Columns shown with the decimals that ``se_col`` sets (after multiplying by ``scale``, one number or one
        per row: 100 shows proportions in points). Only human formats round or scale. ``value_cols`` may also
        map each value column to ``(se, scale)``, its own standard errors (a column name or values) and
        multiplier, for tables holding statistics on several scales (quality in points beside costs in dollars).
    p_value_cols : sequence of str
    title : str, optional
    notes : sequence of str
        Printed below a terminal or Markdown table (wrapped, each once), as ``% note:`` comment lines after LaTeX;
        not part of CSV or JSON (the command line prints them on stderr).
    p_floor : float, optional
        Smallest p-value the method can give (``2 / (B + 1)`` for a two-sided bootstrap p-value).
    width : int, optional
        Terminal width (default :func:`terminal_width`).
    keep : sequence of str
        Columns kept even when constant.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["A", "B"], "estimate": [0.7812, 0.7], "se": [0.0123, 0.01],
    ...                       "ci_low": [0.757, 0.68], "ci_high": [0.805, 0.72], "confidence_level": 0.95})
    >>> print(render(frame, "markdown", scale=100).splitlines()[2])
    | A | 78.1 | 1.2 | (75.7, 80.5) |
    """
    if fmt not in FORMATS:
        raise ArgumentError(f"`format` must be one of {', '.join(map(repr, FORMATS))}; got {fmt!r}.")
    if fmt == "json":
        return to_json(df)
    if fmt == "csv":
        return to_csv(df)
    compact = fmt != "table-wide"
    shown, head = _prepare(df, value_cols=value_cols, se_col=se_col, scale=scale, p_value_cols=p_value_cols,
                           p_floor=p_floor, title=title, compact=compact, keep=keep)
    # labels (a non-numeric column of the result) align left and fold; numbers and intervals align right; a
    # decision and the adjusted p-values it rests on are never left out to fit
    is_text = {c: c in df.columns and not pd.api.types.is_numeric_dtype(df[c]) for c in shown.columns}
    deciding, first = _deciding(shown, df)
    return lay_out({c: list(shown[c]) for c in shown.columns}, is_text, fmt, head=head, notes=notes,
                   width=width, deciding=deciding, drop_first=first)


def fit_columns(shown: pd.DataFrame, raw: pd.DataFrame, width: int) -> tuple[pd.DataFrame, list[str]]:
    """``(frame, dropped)``: the display strings ``shown`` (of the result frame ``raw``) without the columns left
    out to fit ``width`` characters, and their names, by the terminal table's rule
    (:func:`evalband.display.layout.fit_columns`); a decision and the columns it rests on (:func:`_deciding`) are
    never left out. The notebook view of a result (:mod:`evalband.display.reprs`) shows the same columns as
    ``print(result)``."""
    is_text = {c: c in raw.columns and not pd.api.types.is_numeric_dtype(raw[c]) for c in shown.columns}
    deciding, first = _deciding(shown, raw)
    kept, dropped = _fit({c: list(shown[c]) for c in shown.columns}, is_text, width, deciding=deciding,
                         drop_first=first)
    return shown[kept], dropped
