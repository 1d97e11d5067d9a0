"""Rounding at display only, with digits set by the standard error (as ArviZ's summary does).

An estimate is shown to the decimal place of its standard error's second significant figure: 0.7812 with
SE 0.0123 shows as 0.781 (SE 0.012). Machine formats (CSV, JSON) are never rounded.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
from .._validate import ArgumentError

__all__ = ["decimals_for", "format_value", "render", "FORMATS"]

FORMATS = ("table", "markdown", "csv", "json", "latex")


def decimals_for(se, *, sig: int = 2, max_decimals: int = 6) -> int:
    """Decimals that show ``se`` to ``sig`` significant figures (0 when se is 0, missing or huge)."""
    if se is None or not np.isfinite(se) or se <= 0:
        return min(4, max_decimals)
    d = sig - 1 - int(math.floor(math.log10(abs(se))))
    return int(min(max(d, 0), max_decimals))


def format_value(x, decimals: int) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    if isinstance(x, (float, np.floating)):
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x:.{decimals}f}"
    return str(x)


def _rounded_strings(df: pd.DataFrame, value_cols, se_col, scale: float, pvalue_cols=(),
                     p_floor: float | None = None) -> pd.DataFrame:
    out = df.copy()
    value_cols = [c for c in value_cols if c in df.columns]
    se = df[se_col].to_numpy(dtype=float) * scale if se_col and se_col in df.columns else None
    decimals = [decimals_for(s) for s in se] if se is not None else [3] * len(df)
    for c in value_cols:  # a new object column: pandas 3 refuses strings in a float column
        values = pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float) * scale
        out[c] = [format_value(float(v), d) if np.isfinite(v) or np.isinf(v) else ""
                  for v, d in zip(values, decimals)]
    for c in pvalue_cols:
        if c in df.columns:
            out[c] = [_format_p(v, p_floor) for v in df[c]]
    for c in out.columns:
        if c not in value_cols and c not in pvalue_cols and pd.api.types.is_float_dtype(df[c]):
            out[c] = [_short(v) if pd.notna(v) else "" for v in df[c]]
    return out.astype(str)


def _short(v) -> str:
    """Three significant figures, but whole numbers (df, effective n) and large values without an exponent."""
    v = float(v)
    if np.isfinite(v) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    text = f"{v:.3g}"
    return f"{v:.0f}" if "e+" in text and np.isfinite(v) else text


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$", "{": r"\{",
          "}": r"\}", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def _format_p(p, floor: float | None = None) -> str:
    if p is None or not np.isfinite(p):
        return ""
    if floor is not None and p <= floor * (1 + 1e-9):  # at the resampling floor: the bootstrap says only "below"
        return "<" + _format_p(floor)
    if p < 1e-4:
        return "<0.0001"
    return f"{p:.2g}" if p < 0.01 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def render(df: pd.DataFrame, fmt: str = "table", *, value_cols=("estimate", "se", "ci_low", "ci_high"),
           se_col: str | None = "se", scale: float = 1.0, pvalue_cols=("p_value", "p_adjusted"),
           title: str | None = None, notes=(), p_floor: float | None = None) -> str:
    """Render a result frame as text.

    Parameters
    ----------
    fmt : {'table', 'markdown', 'csv', 'json', 'latex'}
        'table' is a rich terminal table; 'csv' and 'json' keep full precision and fractions.
    value_cols, se_col, scale
        Columns shown with decimals set by ``se_col`` (after multiplying by ``scale``, e.g. 100 for percent
        display). Only 'table', 'markdown' and 'latex' round or scale.
    p_floor : float, optional
        Smallest p-value the method can give (``2 / (B + 1)`` for a two-sided bootstrap p-value): values at it are
        shown as ``<0.0002`` in 'table', 'markdown' and 'latex'; CSV and JSON keep the number.
    """
    if fmt == "json":
        records = json.loads(df.to_json(orient="records", double_precision=15))
        return json.dumps(records, indent=2)
    if fmt == "csv":
        return df.to_csv(index=False)
    shown = _rounded_strings(df, value_cols, se_col, scale, pvalue_cols, p_floor)
    if fmt == "markdown":
        lines = ["| " + " | ".join(shown.columns) + " |", "|" + "|".join("---" for _ in shown.columns) + "|"]
        lines += ["| " + " | ".join(str(v).replace("|", r"\|") for v in r) + " |"
                  for r in shown.itertuples(index=False)]
        text = "\n".join(lines)
        if title:
            text = f"**{title}**\n\n" + text
        if notes:
            text += "\n\n" + "\n".join(f"- {n}" for n in notes)
        return text + "\n"
    if fmt == "latex":
        esc = lambda s: "".join(_LATEX.get(ch, ch) for ch in str(s))
        cols = "l" * len(shown.columns)
        lines = [r"\begin{tabular}{" + cols + "}", r"\toprule",
                 " & ".join(esc(c) for c in shown.columns) + r" \\", r"\midrule"]
        lines += [" & ".join(esc(v) for v in r) + r" \\" for r in shown.itertuples(index=False)]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"
    if fmt == "table":
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_lines=False, header_style="bold")
        numeric = {c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])}
        for c in shown.columns:
            # fold, never cut: two long names that differ at the end must stay distinguishable
            table.add_column(str(c), justify="right" if c in numeric else "left", overflow="fold")
        for r in shown.itertuples(index=False):
            table.add_row(*[str(v) for v in r])
        buf = io.StringIO()
        console = Console(file=buf, width=max(100, min(240, 12 * len(shown.columns) + 40)), force_terminal=False,
                          color_system=None)
        console.print(table)
        for n in notes:
            console.print(f"note: {n}", highlight=False, markup=False)
        return buf.getvalue()
    raise ArgumentError(f"`format` must be one of {', '.join(map(repr, FORMATS))}; got {fmt!r}.")
