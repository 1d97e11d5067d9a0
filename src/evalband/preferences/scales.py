"""Rating scales: Elo points, logits and normalized strengths, with an optional anchor model.

* ``'elo'``: ``400 / ln(10)`` (about 173.7) Elo points per logit, the scale of Chatbot Arena and FastChat (a
  difference of 400 points means odds of 10 to 1); mean 1000 unless a model is anchored (``anchor={'m': 1000}``).
* ``'logit'``: log-strengths with mean 0 (or the anchor's value).
* ``'prob'``: strengths ``exp(theta)`` normalized to sum to 1, as evalica prints Bradley-Terry scores.

With an anchor the anchor's rating is the same in every replicate, so its interval is a point and every other
model's interval is relative to it.
"""

from __future__ import annotations

import numbers

import numpy as np
from .._validate import ArgumentError, ArgumentTypeError
from .._words import words

__all__ = ["SCALES", "ELO_PER_LOGIT", "parse_anchor", "to_scale"]

SCALES = ("elo", "logit", "prob")
#: Elo points per logit
ELO_PER_LOGIT = 400.0 / np.log(10.0)
#: mean rating on the Elo scale without an anchor
ELO_MEAN = 1000.0


def parse_anchor(anchor, models, scale: str):
    """``anchor`` as ``(model position, value)`` or None.

    Accepts ``{'model': 1000}``, ``('model', 1000)`` or ``'model=1000'`` (the command line's form).
    """
    if anchor is None:
        return None
    if isinstance(anchor, str):
        name, sep, value = anchor.rpartition("=")
        if not sep or not name:
            raise ArgumentError(words("`{arg:anchor}` must look like 'MODEL=1000'; got {anchor!r}.", anchor=anchor))
        try:
            anchor = {name.strip(): float(value)}
        except ValueError:
            raise ArgumentError(words("`{arg:anchor}`: the value after '=' must be a number; got {anchor!r}.", anchor=anchor)) from None
    if isinstance(anchor, tuple) and len(anchor) == 2:
        anchor = {anchor[0]: anchor[1]}
    if not isinstance(anchor, dict) or len(anchor) != 1:
        raise ArgumentTypeError(words("`{arg:anchor}` must be {{'model': value}}, ('model', value) or 'model=value'; got {anchor!r}.", anchor=anchor))
    (name, value), = anchor.items()
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ArgumentTypeError(words('`{arg:anchor}` value must be a finite number; got {value!r}.', value=value))
    if scale == "prob":
        raise ArgumentError(words("`{arg:anchor}` does not apply to {arg:scale='prob'} (strengths sum to 1); use scale 'elo' or 'logit'."))
    if name not in models:
        shown = ", ".join(map(repr, list(models)[:12])) + (" ..." if len(models) > 12 else "")
        raise ArgumentError(words('`{arg:anchor}`: unknown model {name!r}; models: {shown}.', name=name, shown=shown))
    return list(models).index(name), float(value)


def to_scale(theta, scale: str, anchor=None) -> np.ndarray:
    """Log-strengths ``theta`` (..., M) on ``scale``, anchored when ``anchor = (position, value)``.

    Examples
    --------
    >>> to_scale(np.array([np.log(10.0), 0.0]), "elo").round(6)
    array([1200.,  800.])
    >>> to_scale(np.array([np.log(3.0), 0.0]), "prob").round(6)
    array([0.75, 0.25])
    """
    th = np.asarray(theta, dtype=np.float64)
    if scale == "prob":
        z = th - th.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)
    factor = ELO_PER_LOGIT if scale == "elo" else 1.0
    r = factor * (th - th.mean(axis=-1, keepdims=True))
    if anchor is not None:
        pos, value = anchor
        return r - r[..., pos:pos + 1] + value
    return r + (ELO_MEAN if scale == "elo" else 0.0)
