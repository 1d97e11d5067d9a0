"""Power, sample size and minimum detectable effect for a difference of two means.

The test statistic is ``effect_hat / se`` with ``se = sd * sqrt(deff / n)``. Under the alternative it follows a
noncentral t distribution with noncentrality ``effect / se`` (method ``'t'``, exact for normal scores, the
formulation of statsmodels' ``TTestPower``) or, in large samples, a shifted standard normal (method ``'normal'``,
statsmodels' ``NormalIndPower``). One function solves for whichever of ``effect``, ``n`` and ``power`` is left
out, as ``statsmodels.stats.power.TTestPower.solve_power`` does.

The textbook closed form ``n = (z_{1-alpha/2} + z_{power})^2 * var / effect^2`` (Miller 2024, eq. for the paired
comparison; :func:`z_factor` gives the first factor, 7.85 at alpha 0.05 and power 0.8) is the normal method
without the far rejection tail; :func:`solve_power` keeps that tail, so its normal answers can differ from the
closed form by well under one item when power > 0.5.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .._distributions import norm_isf, norm_ppf
from .._validate import ArgumentError, check_alternative, check_choice, check_positive_int, check_probability

__all__ = ["z_factor", "adjusted_alpha", "power_of_test", "solve_power", "POWER_METHODS", "MULTIPLICITY_METHODS"]

POWER_METHODS = ("t", "normal")
MULTIPLICITY_METHODS = ("none", "bonferroni", "holm")


def z_factor(*, alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided") -> float:
    """``(z_{1-alpha/2} + z_{power})^2`` (``z_{1-alpha}`` when one-sided), the factor of the planning formula.

    Examples
    --------
    >>> round(z_factor(alpha=0.05, power=0.8), 2)
    7.85
    """
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    alternative = check_alternative(alternative)
    tail = alpha / 2 if alternative == "two-sided" else alpha
    return float((norm_isf(tail) + norm_ppf(power)) ** 2)


def adjusted_alpha(alpha: float, n_comparisons: int = 1, *, method: str = "bonferroni") -> float:
    """Per-comparison significance level for planning ``n_comparisons`` tests at family-wise level ``alpha``.

    Parameters
    ----------
    alpha : float
        Family-wise error rate.
    n_comparisons : int
        Number of comparisons (models x metrics) that will be tested.
    method : {'bonferroni', 'holm', 'none'}
        'bonferroni' plans every test at ``alpha / m``. 'holm' plans at the same ``alpha / m``: it is the first
        (strictest) threshold of Holm's step-down procedure, the only one a comparison is sure to face, so power
        computed at it is guaranteed whatever the other comparisons show; Holm can only reject more. 'none'
        keeps ``alpha``.

    Notes
    -----
    Planning at ``alpha / m`` is therefore conservative for Holm; the power actually achieved under Holm is at
    least the power reported.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 65-70.

    Examples
    --------
    >>> from evalband.plan import adjusted_alpha
    >>> adjusted_alpha(0.05, 10)
    0.005
    >>> adjusted_alpha(0.05, 10, method="none")
    0.05
    """
    alpha = check_probability(alpha, "alpha")
    m = check_positive_int(n_comparisons, "n_comparisons")
    method = check_choice(method, MULTIPLICITY_METHODS, "multiplicity")
    return alpha if method == "none" else alpha / m


def test_size(confidence_level, deprecated: dict, function: str) -> float:
    """The significance level ``alpha`` of a planned test at ``confidence_level`` (``1 - confidence_level``, to
    12 decimals so that 0.95 gives 0.05 exactly), or the deprecated ``alpha=`` of ``deprecated`` (warned)."""
    from .._validate import check_confidence_level, no_other_keywords, renamed

    if "alpha" in deprecated:
        alpha = renamed(deprecated, old="alpha", new="confidence_level", function=function)
        no_other_keywords(deprecated, function)
        return check_probability(alpha, "alpha")
    no_other_keywords(deprecated, function)
    return round(1.0 - check_confidence_level(confidence_level), 12)


def power_of_test(effect, se, *, confidence_level=0.95, alternative: str = "two-sided", df=None, **deprecated):
    """Power of a test of ``effect == 0`` whose estimate has standard error ``se``.

    Parameters
    ----------
    effect, se : float or array_like
        True effect and standard error of its estimate (same units); broadcast together.
    confidence_level : float
        The test's level: it rejects at significance ``1 - confidence_level`` (``alpha=`` before 0.2, deprecated).
    alternative : {'two-sided', 'greater', 'less'}
        'greater' rejects for large estimates (the effect is expected positive), 'less' for small ones.
    df : float or array_like, optional
        Degrees of freedom of the t statistic (noncentral t power); None uses the normal distribution.

    Returns
    -------
    float or numpy.ndarray

    Notes
    -----
    Two-sided power counts both rejection tails, ``P(T > c) + P(T < -c)`` with ``T`` noncentral t (or normal)
    with noncentrality ``effect / se``; this is the formulation of statsmodels' ``TTestPower`` and
    ``NormalIndPower``. The noncentral t is exact for normally distributed per-item differences; for 0/1
    scores it is the usual large-sample approximation.

    References
    ----------
    Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed. Erlbaum.

    Examples
    --------
    >>> from evalband.plan import power_of_test
    >>> round(float(power_of_test(0.03, 0.01)), 3)
    0.851
    >>> round(float(power_of_test(0.03, 0.01, df=20)), 3)
    0.814
    """
    return _power_of_test(effect, se, alpha=test_size(confidence_level, deprecated, "power_of_test"),
                          alternative=alternative, df=df)


def _power_of_test(effect, se, *, alpha: float, alternative: str = "two-sided", df=None):
    """:func:`power_of_test` at significance ``alpha``."""
    alternative = check_alternative(alternative)
    alpha = check_probability(alpha, "alpha")
    nc = np.asarray(effect, dtype=float) / np.asarray(se, dtype=float)
    tail = alpha / 2 if alternative == "two-sided" else alpha
    zc = special.ndtri(1 - tail)
    if df is None:
        upper, lower = special.ndtr(nc - zc), special.ndtr(-zc - nc)
    else:
        # scipy.special directly (the distribution objects' argument checks cost 30x more inside root finding)
        df = np.asarray(df, dtype=float)
        crit = special.stdtrit(df, 1 - tail)
        upper, lower = 1.0 - special.nctdtr(df, nc, crit), special.nctdtr(df, nc, -crit)
        # the noncentral t can return nan far in the tails at very large df, where it equals the normal
        upper = np.where(np.isnan(upper), special.ndtr(nc - zc), upper)
        lower = np.where(np.isnan(lower), special.ndtr(-zc - nc), lower)
    if alternative == "greater":
        out = upper
    elif alternative == "less":
        out = lower
    else:
        out = upper + lower
    return float(out) if np.ndim(out) == 0 else out


def _df(n, paired: bool, cluster_size: float):
    """Degrees of freedom of the planned analysis: clusters (or items) minus one, per group when unpaired."""
    units = np.asarray(n, dtype=float) / cluster_size
    return np.maximum(units - 1.0, 1.0) if paired else np.maximum(2.0 * units - 2.0, 1.0)


def solve_power(*, effect=None, n=None, power=None, variance, confidence_level=0.95, alternative: str = "two-sided",
                method: str = "t", paired: bool = True, design_effect: float = 1.0, cluster_size: float = 1.0,
                max_n: float = 1e9, **deprecated) -> float:
    """Solve for the one of ``effect``, ``n``, ``power`` that is None, given the other two.

    Parameters
    ----------
    effect : float, optional
        True difference of the two means (fraction for proportions); negative for ``alternative='less'``.
    n : float, optional
        Items per model: common items when paired, items per model when unpaired.
    power : float, optional
        Probability of rejecting ``effect == 0`` at ``alpha``.
    variance : float or callable
        Variance of one item's contribution to the difference: ``Var(a_i - b_i)`` when paired and
        ``Var(a_i) + Var(b_i)`` when unpaired. A callable ``variance(effect)`` lets it depend on the effect (binary
        scores, where the second proportion is the first plus the effect).
    confidence_level, alternative
        The test's level (its significance is ``1 - confidence_level``, already adjusted for multiplicity;
        ``alpha=`` before 0.2, deprecated) and its direction.
    method : {'t', 'normal'}
        't': noncentral t with ``n/m - 1`` degrees of freedom (``2 n/m - 2`` unpaired; m the cluster size);
        'normal': the normal approximation.
    paired : bool
    design_effect : float
        Variance inflation from clustering and trials (see :mod:`evalband.plan.design`); ``se = sqrt(variance *
        design_effect / n)``.
    cluster_size : float
        Mean cluster size, used only for the degrees of freedom.
    max_n : float
        Largest ``n`` searched; ``inf`` is returned when even that is not enough.

    Returns
    -------
    float
        The solved quantity: ``n`` unrounded (round up for a plan), the effect (the minimum detectable effect,
        positive unless ``alternative='less'``), or the power. ``nan`` when no effect in range reaches the power.

    Notes
    -----
    Root finding (Brent) on :func:`power_of_test`; the power increases in ``n`` and in ``|effect|``. A variance
    that depends on the effect (binary scores) is re-evaluated at each trial effect, so the minimum detectable
    effect of a proportion accounts for the variance changing with it.

    References
    ----------
    statsmodels ``stats.power.TTestPower.solve_power`` (the same formulation, tested against it).
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640 (the paired planning formula).

    Examples
    --------
    >>> import evalband as eb
    >>> round(eb.solve_power(effect=0.03, power=0.8, variance=0.2))
    1746
    """
    return _solve_power(effect=effect, n=n, power=power, variance=variance,
                        alpha=test_size(confidence_level, deprecated, "solve_power"), alternative=alternative,
                        method=method, paired=paired, design_effect=design_effect, cluster_size=cluster_size,
                        max_n=max_n)


def _solve_power(*, effect=None, n=None, power=None, variance, alpha: float, alternative: str = "two-sided",
                 method: str = "t", paired: bool = True, design_effect: float = 1.0, cluster_size: float = 1.0,
                 max_n: float = 1e9) -> float:
    """:func:`solve_power` at significance ``alpha``."""
    given = [v is None for v in (effect, n, power)]
    if sum(given) != 1:
        raise ArgumentError("give exactly two of `effect`, `n` and `power`; the third is solved for.")
    method = check_choice(method, POWER_METHODS, "method")
    alternative = check_alternative(alternative)
    alpha = check_probability(alpha, "alpha")
    if not (design_effect > 0 and math.isfinite(design_effect)):
        raise ArgumentError(f"`design_effect` must be a positive number; got {design_effect!r}.")
    var_fn = variance if callable(variance) else (lambda _e, v=float(variance): v)
    if power is not None:
        power = check_probability(power, "power")
        if power <= alpha / (2 if alternative == "two-sided" else 1):
            raise ArgumentError(f"`power` must exceed the significance level; got {power!r}.")
    if n is not None and not (n > 1):
        raise ArgumentError(f"`n` must be larger than 1; got {n!r}.")
    if effect is not None:
        if effect == 0 or not math.isfinite(effect):
            raise ArgumentError(f"`effect` must be a non-zero number; got {effect!r}.")
        if alternative == "greater" and effect < 0 or alternative == "less" and effect > 0:
            raise ArgumentError(f"`effect` {effect!r} points away from `alternative` {alternative!r}.")

    def pw(e, nn):
        v = var_fn(e)
        if not (v > 0 and math.isfinite(v)):
            raise ArgumentError(f"the variance of the difference must be positive; got {v!r}.")
        se = math.sqrt(v * design_effect / nn)
        df = None if method == "normal" else float(_df(nn, paired, cluster_size))
        return _power_of_test(e, se, alpha=alpha, alternative=alternative, df=df)

    if power is None:
        return float(pw(effect, n))
    from scipy import optimize

    if n is None:
        lo = 1.0 + 1e-9 if method == "normal" else 2.0 * cluster_size + 1e-9
        lo = max(lo, 1.0 + 1e-9)
        if pw(effect, lo) >= power:
            return lo
        if pw(effect, max_n) < power:
            return math.inf
        return float(optimize.brentq(lambda nn: pw(effect, nn) - power, lo, max_n, xtol=1e-8, rtol=1e-12))
    # effect: search in the direction of the alternative, up to the largest effect the variance allows
    sign = -1.0 if alternative == "less" else 1.0
    hi = _largest_effect(var_fn, sign)
    tiny = 1e-12
    if pw(sign * hi, n) < power:
        return math.nan
    return float(sign * optimize.brentq(lambda e: pw(sign * e, n) - power, tiny, hi, xtol=1e-12, rtol=1e-12))


def _largest_effect(var_fn, sign: float) -> float:
    """Largest |effect| for which ``var_fn`` is defined and positive (binary scores cap it), at most 1e6."""
    hi = 1e6
    try:
        v = var_fn(sign * hi)
        if v > 0 and math.isfinite(v):
            return hi
    except ValueError:
        pass
    lo, hi = 0.0, 1.0
    for _ in range(60):  # bisection on the feasibility boundary (a proportion must stay inside (0, 1))
        mid = (lo + hi) / 2
        try:
            ok = var_fn(sign * mid) > 0
        except ValueError:
            ok = False
        lo, hi = (mid, hi) if ok else (lo, mid)
    return lo
