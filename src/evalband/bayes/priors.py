"""Hyperpriors for the Beta-Binomial hierarchy: independent priors on each model's ``alpha`` and ``beta``.

The seed analysis (Longjohn, Gopalan & Casleton 2025) puts ``alpha_i, beta_i ~ Exponential(rate 1/10000)``; this
module offers that default, half-normal and gamma alternatives, and any user-supplied log density, under one
small type (:class:`Prior`) so that the exact sampler, the NUTS reference and the prior-sensitivity report all
read the same object.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import special
from .._validate import ArgumentError, ArgumentTypeError
from ..display.reprs import displayed
from .._words import words

__all__ = ["Prior", "exponential", "half_normal", "gamma", "custom", "parse_prior", "PRIOR_FAMILIES",
           "DEFAULT_PRIOR", "sensitivity_priors"]

PRIOR_FAMILIES = ("exponential", "half-normal", "gamma", "custom")


@displayed
@dataclass(frozen=True, repr=False)
class Prior:
    """Independent prior on ``alpha`` and ``beta`` of each model's Beta(alpha, beta) task distribution.

    Attributes
    ----------
    family : {'exponential', 'half-normal', 'gamma', 'custom'}
    params : dict
        ``rate`` (exponential), ``scale`` (half-normal), ``shape`` and ``rate`` (gamma); empty for custom.
    log_density : callable or None
        For 'custom': ``f(alpha, beta) -> log p(alpha, beta)`` (joint, up to a constant), broadcasting over arrays.
    label : str
        How reports name it, e.g. ``exponential(rate=0.0001)``.
    """

    family: str
    params: dict = field(default_factory=dict)
    log_density: Callable | None = None
    label: str = ""

    def __post_init__(self):
        if not self.label:
            inner = ", ".join(f"{k}={v:g}" for k, v in self.params.items())
            object.__setattr__(self, "label", f"{self.family}({inner})")

    def logpdf(self, alpha, beta) -> np.ndarray:
        """Joint log prior density of (alpha, beta) > 0, up to an additive constant."""
        alpha = np.asarray(alpha, dtype=np.float64)
        beta = np.asarray(beta, dtype=np.float64)
        p = self.params
        if self.family == "exponential":
            return -p["rate"] * (alpha + beta)
        if self.family == "half-normal":
            return -0.5 * (alpha * alpha + beta * beta) / p["scale"] ** 2
        if self.family == "gamma":
            k, r = p["shape"], p["rate"]
            return (k - 1.0) * (np.log(alpha) + np.log(beta)) - r * (alpha + beta)
        out = np.asarray(self.log_density(alpha, beta), dtype=np.float64)
        return np.broadcast_to(out, np.broadcast_shapes(alpha.shape, beta.shape))

    def sample(self, size, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draw (alpha, beta) from the prior (not available for 'custom')."""
        p = self.params
        if self.family == "exponential":
            draw = lambda: rng.exponential(1.0 / p["rate"], size)
        elif self.family == "half-normal":
            draw = lambda: np.abs(rng.normal(0.0, p["scale"], size))
        elif self.family == "gamma":
            draw = lambda: rng.gamma(p["shape"], 1.0 / p["rate"], size)
        else:
            raise ArgumentError(words('`{arg:prior}`: a custom log density cannot be sampled from; give a named family.'))
        return draw(), draw()

    def log_normalizer(self) -> float:
        """log of the normalising constant per parameter (for proper named priors), used by tests."""
        p = self.params
        if self.family == "exponential":
            return -np.log(p["rate"])
        if self.family == "half-normal":
            return np.log(p["scale"] * np.sqrt(np.pi / 2))
        if self.family == "gamma":
            return special.gammaln(p["shape"]) - p["shape"] * np.log(p["rate"])
        raise ArgumentError("a custom log density has no known normalising constant")


def _positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ArgumentError(words('`{arg:{name}}` must be a positive finite number; got {value!r}.', name=name, value=value))
    return float(value)


def exponential(rate: float = 1e-4) -> Prior:
    """alpha, beta ~ Exponential(rate) independently (mean 1/rate). The default rate is 1/10000.

    Examples
    --------
    >>> from evalband.bayes import exponential
    >>> prior = exponential(0.01)
    >>> prior.label
    'exponential(rate=0.01)'
    >>> round(float(prior.logpdf(2.0, 3.0)), 3)
    -0.05
    """
    return Prior("exponential", {"rate": _positive(rate, "rate")})


def half_normal(scale: float = 100.0) -> Prior:
    """alpha, beta ~ HalfNormal(scale) independently.

    Examples
    --------
    >>> from evalband.bayes import half_normal
    >>> prior = half_normal(50.0)
    >>> prior.label
    'half-normal(scale=50)'
    >>> round(float(prior.logpdf(10.0, 20.0)), 3)
    -0.1
    """
    return Prior("half-normal", {"scale": _positive(scale, "scale")})


def gamma(shape: float = 2.0, rate: float = 0.01) -> Prior:
    """alpha, beta ~ Gamma(shape, rate) independently (mean shape/rate).

    Examples
    --------
    >>> from evalband.bayes import gamma
    >>> prior = gamma(2.0, 0.01)
    >>> prior.label
    'gamma(shape=2, rate=0.01)'
    >>> round(float(prior.logpdf(100.0, 100.0)), 3)
    7.21
    """
    return Prior("gamma", {"shape": _positive(shape, "shape"), "rate": _positive(rate, "rate")})


def custom(log_density: Callable, label: str = "custom") -> Prior:
    """A user log density ``f(alpha, beta)`` (joint, up to a constant; must broadcast over arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.bayes import custom
    >>> prior = custom(lambda a, b: -np.log1p(a + b), label="1/(1 + alpha + beta)")
    >>> prior.family, prior.label
    ('custom', '1/(1 + alpha + beta)')
    >>> round(float(prior.logpdf(1.0, 2.0)), 3)
    -1.386
    """
    if not callable(log_density):
        raise ArgumentTypeError(f"`log_density` must be callable; got {type(log_density).__name__}.")
    return Prior("custom", {}, log_density, label)


DEFAULT_PRIOR = exponential(1e-4)

_MAKERS = {"exponential": (exponential, ("rate",)), "half-normal": (half_normal, ("scale",)),
           "gamma": (gamma, ("shape", "rate"))}


def parse_prior(spec) -> Prior:
    """Turn ``prior=`` (a :class:`Prior`, a callable log density, or text) into a :class:`Prior`.

    Text is ``family`` or ``family:value,...`` or ``family:key=value,...``, e.g. ``exponential``,
    ``exponential:1e-4``, ``half-normal:scale=100``, ``gamma:2,0.01``; a prior's label
    (``gamma(shape=2, rate=0.01)``) reads back as the same prior.

    Examples
    --------
    >>> from evalband.bayes import parse_prior
    >>> parse_prior("half-normal:scale=100").label
    'half-normal(scale=100)'
    >>> parse_prior("gamma:2,0.01").label
    'gamma(shape=2, rate=0.01)'
    >>> parse_prior("gamma(shape=2, rate=0.01)") == parse_prior("gamma:2,0.01")
    True
    """
    if spec is None:
        return DEFAULT_PRIOR
    if isinstance(spec, Prior):
        return spec
    if callable(spec):
        return custom(spec)
    if not isinstance(spec, str):
        raise ArgumentTypeError(words("`{arg:prior}` must be a Prior, a log-density callable or text such as 'gamma:2,0.01'; got {spec!r}.", spec=spec))
    text = spec.strip()
    if text.endswith(")") and "(" in text:  # a label such as 'gamma(shape=2, rate=0.01)' reads back
        text = text[:-1].replace("(", ":", 1)
    name, _, rest = text.partition(":")
    key = name.strip().lower().replace("_", "-").replace("halfnormal", "half-normal")
    if key not in _MAKERS:
        raise ArgumentError(words('`{arg:prior}` family must be one of {value} (or a callable log density); got {name!r}.', value=', '.join(map(repr, _MAKERS)), name=name))
    maker, names = _MAKERS[key]
    kwargs = {}
    parts = [p.strip() for p in rest.split(",") if p.strip()]
    if len(parts) > len(names):
        raise ArgumentError(words('`{arg:prior}` {key} takes {value}; got {spec!r}.', key=key, value=', '.join(names), spec=spec))
    for pos, part in enumerate(parts):
        k, eq, v = part.partition("=")
        k, v = (k.strip(), v) if eq else (names[pos], part)
        if k not in names:
            raise ArgumentError(words('`{arg:prior}` {key} takes {value}; got {k!r} in {spec!r}.', key=key, value=', '.join(names), k=k, spec=spec))
        try:
            kwargs[k] = float(v)
        except ValueError:
            raise ArgumentError(words('`{arg:prior}`: {k} must be a number; got {v!r} in {spec!r}.', k=k, v=v, spec=spec)) from None
    return maker(**kwargs)


def sensitivity_priors() -> tuple[Prior, ...]:
    """The default alternatives refitted by :func:`evalband.bayes.prior_sensitivity`.

    The seed's Exponential(1/10000); a 100x more concentrated exponential (prior mean of alpha, beta = 100);
    a half-normal with scale 100; and a gamma(2, 0.01) that keeps alpha, beta away from 0 (it rules out
    U-shaped task distributions).

    Examples
    --------
    >>> from evalband.bayes import sensitivity_priors
    >>> [p.label for p in sensitivity_priors()]
    ['exponential(rate=0.0001)', 'exponential(rate=0.01)', 'half-normal(scale=100)', 'gamma(shape=2, rate=0.01)']
    """
    return (DEFAULT_PRIOR, exponential(1e-2), half_normal(100.0), gamma(2.0, 0.01))
