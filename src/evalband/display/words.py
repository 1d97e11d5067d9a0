"""Verdict sentences: the one-sentence reading of a comparison, what a margin leaves decided, why a verdict was
withheld. Every command, the report and the Python readings use these words (verdicts: 'A better', 'B better',
'equivalent', 'not yet decided', with the models named)."""

from __future__ import annotations

import math

import numpy as np

from .numbers import decimals_for, format_level, format_signed, format_value

__all__ = ["margin_text", "verdict_detail", "format_difference", "reading", "withheld_text", "VERDICT_WORDS",
           "estimate_text", "difference_text"]

#: the verdict words, from the point of view of the pair (model_a, model_b)
VERDICT_WORDS = ("A better", "B better", "equivalent", "not yet decided")
def margin_text(margin: float, *, scale: float = 100.0) -> str:
    """``'1-point margin'`` (accuracy-like statistics, ``scale`` 100) or ``'margin of 0.5'`` (other scales).

    Examples
    --------
    >>> from evalband.display import margin_text
    >>> margin_text(0.01), margin_text(0.5, scale=1.0)
    ('1-point margin', 'margin of 0.5')
    """
    if scale == 100.0:
        value = f"{margin * scale:.4g}"
        return f"{value}-point margin"
    return f"margin of {margin * scale:.4g}"


def verdict_detail(verdict_: str, low: float, high: float, *, margin: float = 0.0, higher_is_better: bool = True,
                   model_a: str = "A", model_b: str = "B", scale: float = 100.0) -> str:
    """What is and is not decided about one pair, in words (the end of its reading).

    With ``margin = 0`` this is the verdict itself, with the better model named ('A better'). With a margin it
    also says what the interval does settle when the verdict is 'not yet decided', e.g. an interval (0.93, 1.67)
    points against a 1-point margin: ``"not yet decided: A better, but not decidedly by more than the 1-point
    margin"`` (the interval excludes 0 but not the margin); an interval (-0.5, 1.5): ``"not yet decided: B is not
    better by more than the 1-point margin"`` (B's advantage, if any, is within the margin; A's is open).

    Parameters
    ----------
    verdict_ : str
        One of :data:`VERDICTS`, as :func:`verdict` gave it for this interval (a withheld verdict, see
        :func:`withhold`, should be passed with ``margin=0`` so that nothing is read from its interval).
    low, high : float
        The interval of ``A - B``.
    margin, higher_is_better, scale
        As for :func:`verdict`; ``scale`` only formats the margin.

    Examples
    --------
    >>> from evalband.display import verdict_detail
    >>> verdict_detail("not yet decided", 0.0093, 0.0167, margin=0.01)
    'not yet decided: A better, but not decidedly by more than the 1-point margin'
    >>> verdict_detail("not yet decided", -0.005, 0.015, margin=0.01)
    'not yet decided: B is not better by more than the 1-point margin'
    >>> verdict_detail("A better", 0.02, 0.05, model_a="gpt", model_b="llama")
    'gpt better'
    """
    margin = float(margin)
    named = {"A better": f"{model_a} better", "B better": f"{model_b} better"}
    word = named.get(verdict_, verdict_)
    if margin == 0 or verdict_ not in VERDICT_WORDS:
        return word
    m = margin_text(margin, scale=scale)
    if verdict_ in ("A better", "B better"):
        return f"{word} by more than the {m}"
    lo, hi = float(low), float(high)
    if not higher_is_better:
        lo, hi = -hi, -lo
    eps = 1e-12 * max(1.0, abs(lo) if math.isfinite(lo) else 0.0, abs(hi) if math.isfinite(hi) else 0.0)
    if verdict_ == "equivalent":
        if lo > eps or hi < -eps:
            return f"equivalent: {model_a if lo > eps else model_b} better, but by less than the {m}"
        return f"equivalent: the difference lies within the {m}"
    if lo > eps:
        return f"{verdict_}: {model_a} better, but not decidedly by more than the {m}"
    if hi < -eps:
        return f"{verdict_}: {model_b} better, but not decidedly by more than the {m}"
    if lo > -margin + eps:
        return f"{verdict_}: {model_b} is not better by more than the {m}"
    if hi < margin - eps:
        return f"{verdict_}: {model_a} is not better by more than the {m}"
    return verdict_


def withheld_text(basis: str, n_units=None, *, unit: str = "items", min_units: int | None = None) -> str:
    """Reading suffix saying why a verdict was withheld ('' for 'bootstrap').

    Examples
    --------
    >>> from evalband.display import withheld_text
    >>> withheld_text("too few units", 6, unit="tasks", min_units=10)
    '(only 6 tasks: too few for a bootstrap verdict; at least 10 are needed)'
    >>> withheld_text("bootstrap")
    ''
    """
    if basis == "too few units":
        n = "" if n_units is None or not np.isfinite(n_units) else f"only {int(n_units)} {unit}: "
        need = "" if min_units is None else f"; at least {min_units} are needed"
        return f"({n}too few for a bootstrap verdict{need})"
    if basis == "too few replicates":  # n_units: the replicates drawn; min_units: the fewest that can decide
        have = "" if n_units is None else f"{int(n_units):,} bootstrap replicates are"
        need = "" if min_units is None else f"; at least {int(min_units):,} are needed, more for a stable interval"
        return (f"({have or 'too few bootstrap replicates:'} too few to decide at this level (the smallest p-value"
                f" is 2 / (B + 1)){need})")
    if basis == "degenerate interval":
        return "(the bootstrap distribution is degenerate (zero width): it cannot support a verdict)"
    return ""


def _decimals(se, scale: float) -> int:
    """Decimals showing the standard error to two significant figures (at most 4; 1 without a spread)."""
    if se is None or not math.isfinite(se) or se <= 0:
        return 1
    return decimals_for(abs(se * scale), max_decimals=4)


def format_difference(value: float, se: float, *, scale: float = 100.0) -> tuple[str, int]:
    """Signed difference as text with digits from its standard error, and the digits used.

    Examples
    --------
    >>> from evalband.display import format_difference
    >>> format_difference(0.0312, 0.0104)
    ('+3.1', 1)
    >>> format_difference(0.0312, 0.0011)
    ('+3.12', 2)
    """
    d = _decimals(se, scale)
    return format_signed(value * scale, d), d  # '+0.00', never '-0.00', for a difference that rounds to zero


def reading(model_a: str, model_b: str, difference: float, low: float, high: float, verdict_: str, *,
            se: float = float("nan"), confidence_level: float = 0.95, scale: float = 100.0,
            unit: str = "points", label: str = "CI", extra: str = "", detail: str | None = None) -> str:
    """One sentence for one pair, e.g. ``"A vs B: +0.3 points, 95% CI (-0.1, 0.8); not yet decided"``.

    ``verdict_`` 'A better'/'B better' is written with the model's name. Digits follow the standard error.
    ``detail`` (from :func:`verdict_detail`, which says what a margin leaves decided) replaces the verdict words.

    Examples
    --------
    >>> from evalband.display import reading
    >>> reading("A", "B", 0.031, 0.011, 0.052, "A better", se=0.0104)
    'A vs B: +3.1 points, 95% CI (1.1, 5.2); A better'
    >>> reading("A", "B", 0.003, -0.001, 0.008, "not yet decided", se=0.0023)
    'A vs B: +0.30 points, 95% CI (-0.10, 0.80); not yet decided'
    """
    finite = math.isfinite
    spread = se if finite(se) else abs(high - low) / 4
    text, d = format_difference(difference, spread if finite(spread) else float("nan"), scale=scale)
    unit_text = f" {unit}" if unit else ""
    lvl = format_level(confidence_level)
    lo = "-inf" if not finite(low) else format_value(low * scale, d)
    hi = "inf" if not finite(high) else format_value(high * scale, d)
    word = detail if detail else {"A better": f"{model_a} better", "B better": f"{model_b} better"}.get(verdict_,
                                                                                                     verdict_)
    span = f"{lvl} {label} ({lo}, {hi})" if not (math.isnan(low) and math.isnan(high)) else "no interval"
    out = f"{model_a} vs {model_b}: {text}{unit_text}, {span}; {word}"
    return out + (f" {extra}" if extra else "")


def estimate_text(estimate, low, high, se, *, confidence_level=0.95, scale: float = 100.0) -> str:
    """A score in a sentence with its interval, digits from its standard error: ``'68.0% (95% interval 67.7% to
    68.2%)'`` for proportions (``scale`` 100), ``'0.532 (95% interval 0.511 to 0.553)'`` otherwise.

    Examples
    --------
    >>> estimate_text(0.6797, 0.6772, 0.6820, 0.0012)
    '67.97% (95% interval 67.72% to 68.20%)'
    """
    d = _decimals(se, scale) if se is not None and np.isfinite(se) else _decimals(abs(high - low) / 4, scale)
    pct = "%" if scale == 100 else ""
    f = lambda v: ("-inf" if v < 0 else "inf") if not np.isfinite(v) else format_value(v * scale, d) + pct  # noqa: E731
    return f"{f(estimate)} ({format_level(confidence_level)} interval {f(low)} to {f(high)})"


def difference_text(difference, low, high, se, *, confidence_level=0.95, scale: float = 100.0) -> str:
    """A difference in a sentence with its interval, signed, digits from its standard error: ``'+0.32 points
    (95% interval -0.04 to +0.68)'`` (``scale`` 100), ``'+0.021 (95% interval ...)'`` otherwise.

    Examples
    --------
    >>> difference_text(0.0032, -0.0004, 0.0068, 0.0018)
    '+0.32 points (95% interval -0.04 to +0.68)'
    """
    text, d = format_difference(difference, se if se is not None and np.isfinite(se) else abs(high - low) / 4,
                                scale=scale)
    sign = lambda v: ("-inf" if v < 0 else "inf") if not np.isfinite(v) else format_signed(v * scale, d)  # noqa: E731
    unit = " points" if scale == 100 else ""
    return f"{text}{unit} ({format_level(confidence_level)} interval {sign(low)} to {sign(high)})"
