"""Numbers as people read them: digits set by the standard error, points for proportions, p-values, levels,
intervals and rank intervals. Rounding happens here only, at display; machine output (JSON, CSV, Python
results) keeps full precision and fractions.

**The digit rule** (ArviZ's summary): the standard error to two significant figures sets the estimate's decimals,
so 0.7812 with SE 0.0123 shows as 0.781 (SE 0.012); an interval's ends take the estimate's decimals.

**The unit rule**: human-facing output shows proportions (scores in [0, 1]) as percentage points, ``x100``
(``scale=100``), in every command; unbounded scores and rank-like statistics keep their own scale (``scale=1``).
"""

from __future__ import annotations

import functools
import math

__all__ = ["decimals_for", "format_estimate", "format_value", "format_p", "format_short", "format_level", "format_signed",
           "format_interval", "format_rank_interval", "format_percent", "POINTS", "unit_for", "scale_for"]

#: display multiplier of proportions (percentage points)
POINTS = 100.0


def _finite(x) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def decimals_for(se, *, sig: int = 2, max_decimals: int = 6, default: int = 4) -> int:
    """Decimals that show ``se`` to ``sig`` significant figures, the digits the estimate beside it gets (the rule
    of ArviZ's summaries); ``default`` when se is 0, missing or not finite.

    The significant figures are counted on the SE as rounded, trailing zeros included: 0.196 is 0.20 to two
    figures (two decimals, like 0.194), so standard errors that differ only in the third figure never give a
    column of estimates different digits; 0.996 rounds to 1.0 (one decimal).

    Examples
    --------
    >>> decimals_for(0.0123), decimals_for(1.23), decimals_for(0.196), decimals_for(23.4), decimals_for(0.0)
    (3, 1, 2, 0, 4)
    """
    if se is None or not _finite(se) or float(se) <= 0:
        return min(default, max_decimals)
    se = abs(float(se))
    exponent = math.floor(math.log10(se))
    rounded = round(se, sig - 1 - exponent)  # to `sig` significant figures (0.996 -> 1.0)
    exponent = math.floor(math.log10(rounded)) if rounded > 0 else exponent
    return int(min(max(sig - 1 - exponent, 0), max_decimals))


def format_estimate(value, se=None) -> str:
    """A number with the digits its standard error sets (:func:`decimals_for`); three significant figures when
    there is no standard error; text unchanged.

    Examples
    --------
    >>> format_estimate(0.71234, 0.0123), format_estimate(0.71234, 0.0996), format_estimate(0.71234)
    ('0.712', '0.71', '0.712')
    """
    try:
        value = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else str(value)
    if se is None or not _finite(se) or float(se) <= 0:
        return f"{value:.3g}"
    return f"{value:.{decimals_for(se)}f}"


def format_value(x, decimals: int) -> str:
    """``x`` with ``decimals`` decimals; '' for missing, 'inf' / '-inf' for infinities, text unchanged.

    Examples
    --------
    >>> from evalband.display import format_value
    >>> format_value(78.1234, 1), format_value(float("nan"), 1), format_value(float("inf"), 1)
    ('78.1', '', 'inf')
    """
    if type(x) is float and x - x == 0.0:  # a finite Python float, the common case (one reading per pair)
        text = f"{x:.{decimals}f}"
        return text[1:] if text[0] == "-" and float(text) == 0 else text
    if x is None:
        return ""
    if isinstance(x, bool) or not isinstance(x, (int, float)) and not hasattr(x, "dtype"):
        return str(x)
    v = float(x)
    if math.isnan(v):
        return ""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = f"{v:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no '-0.00' for a tiny negative


def format_signed(x, decimals: int) -> str:
    """``+1.23`` / ``-0.40``: a difference with its sign.

    Examples
    --------
    >>> from evalband.display import format_signed
    >>> format_signed(1.234, 2), format_signed(-0.4, 2)
    ('+1.23', '-0.40')
    """
    if x is None or not _finite(x):
        return format_value(x, decimals)
    text = format_value(x, decimals)
    return text if text.startswith("-") else "+" + text


def format_interval(low, high, decimals: int, *, signed: bool = False) -> str:
    """``'(0.61, 0.63)'``; an infinite end (one-sided interval) as ``-inf`` / ``inf``.

    Examples
    --------
    >>> from evalband.display import format_interval
    >>> format_interval(61.234, 63.01, 1)
    '(61.2, 63.0)'
    >>> format_interval(-0.4, 1.25, 2, signed=True)
    '(-0.40, +1.25)'
    >>> format_interval(0.2, float("inf"), 2)
    '(0.20, inf)'

    An interval with one end known and the other missing (NaN) is a one-sided statement, ``'> x'`` or ``'< x'``
    (a saturated item's difficulty, :func:`evalband.latent.items`):

    >>> format_interval(1.968, float("nan"), 2), format_interval(float("nan"), -0.8, 2)
    ('> 1.97', '< -0.80')
    """
    f = format_signed if signed else format_value
    low_missing, high_missing = _missing(low), _missing(high)
    if high_missing and not low_missing:
        return f"> {f(low, decimals)}"
    if low_missing and not high_missing:
        return f"< {f(high, decimals)}"
    return f"({f(low, decimals)}, {f(high, decimals)})"


def _missing(x) -> bool:
    try:
        return x is None or math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def format_rank_interval(low, high) -> str:
    """``'1-2'``, or a single ``'3'`` when both ends agree.

    Examples
    --------
    >>> from evalband.display import format_rank_interval
    >>> format_rank_interval(1, 2), format_rank_interval(3, 3)
    ('1-2', '3')
    """
    if not (_finite(low) and _finite(high)):
        return ""
    lo, hi = int(low), int(high)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def format_p(p, floor: float | None = None) -> str:
    """A p-value: '<0.0001', '0.0032', '0.041', '0.27'; at the resampling floor (``2 / (B + 1)`` for a two-sided
    bootstrap p-value) '<floor', since the bootstrap says only "below".

    Examples
    --------
    >>> from evalband.display import format_p
    >>> format_p(0.0032), format_p(0.27), format_p(0.00002)
    ('0.0032', '0.27', '<0.0001')
    >>> format_p(0.002, floor=2 / 1000)
    '<0.002'
    """
    if p is None or not _finite(p):
        return ""
    p = float(p)
    if floor is not None and p <= floor * (1 + 1e-9):
        text = format_p(floor)
        if text.startswith("<"):  # a floor below 0.0001: '<0.0001', not '<<0.0001'
            return text
        decimals = len(text.partition(".")[2])
        if float(text) < floor:  # rounded up: the bootstrap cannot say less than its floor (2/301 -> '<0.0067')
            text = f"{math.ceil(floor * 10 ** decimals * (1 - 1e-12)) / 10 ** decimals:.{decimals}f}"
        return "<" + text
    if p < 1e-4:
        return "<0.0001"
    return f"{p:.2g}" if p < 0.01 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def format_short(v) -> str:
    """Three significant figures, but whole numbers (df, effective n, counts) as integers and large values without
    an exponent; from 1,000 up with thousands separators, as every count is shown (``260,700``).

    Examples
    --------
    >>> from evalband.display import format_short
    >>> format_short(0.012345), format_short(12.0), format_short(260700.4)
    ('0.0123', '12', '260,700')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    v = float(v)
    if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    text = f"{v:.3g}"
    return f"{v:,.0f}" if "e+" in text and math.isfinite(v) else text


def format_level(level) -> str:
    """A confidence level as a percent that never rounds to 100%: 0.95 -> '95%', 0.834 -> '83.4%', a
    Holm-corrected 0.9999708 -> '99.9971%'.

    Examples
    --------
    >>> from evalband.display import format_level
    >>> format_level(0.95), format_level(0.834), format_level(0.9999708)
    ('95%', '83.4%', '99.997%')
    """
    return _level_text(float(level))


@functools.lru_cache(maxsize=256)  # one level for every pair of a family: formatted once
def _level_text(level: float) -> str:
    pct = 100.0 * level
    for digits in range(4, 12):
        text = f"{pct:.{digits}g}"
        if float(text) != 100.0 or pct == 100.0:
            return f"{text}%"
    return f"{pct!r}%"


def format_percent(p, *, small: float = 0.005) -> str:
    """A probability as a percent for a table: '37%', '<1%' below ``small`` and '>99%' above ``1 - small`` (but
    '0%' and '100%' for exactly 0 and 1: a share that is not all never reads as all).

    Examples
    --------
    >>> from evalband.display import format_percent
    >>> format_percent(0.372), format_percent(0.001), format_percent(0.999), format_percent(1.0)
    ('37%', '<1%', '>99%', '100%')
    """
    if p is None or not _finite(p):
        return ""
    p = float(p)
    if 0 < p < small:
        return "<1%"
    if 1 - small < p < 1:
        return ">99%"
    text = f"{p:.0%}"
    if text == "100%" and p < 1:  # 0.995 (at the edge, 99.5 rounds half to even) must not read as all
        return ">99%"
    if text == "0%" and p > 0:  # 0.005 likewise
        return "<1%"
    return text


def scale_for(score_kind: str) -> float:
    """The display multiplier of a table's scores: :data:`POINTS` for proportions ('binary', 'bounded'), 1 for
    'unbounded' scores (their own scale).

    Examples
    --------
    >>> from evalband.display import scale_for
    >>> scale_for("binary"), scale_for("unbounded")
    (100.0, 1.0)
    """
    return 1.0 if score_kind == "unbounded" else POINTS


def unit_for(scale: float) -> str:
    """'points' for proportions shown x100, '' for statistics on their own scale.

    Examples
    --------
    >>> from evalband.display import unit_for
    >>> unit_for(100.0), unit_for(1.0)
    ('points', '')
    """
    return "points" if scale == POINTS else ""
