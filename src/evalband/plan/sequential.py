"""Anytime-valid comparison of two models on a growing stream of paired items, with a stopping decision.

The confidence sequence is the **hedged capital process** of Waudby-Smith & Ramdas (2023, section 4.2,
"Hedged capital", the `Hedged` CS of their figures) with **predictable plug-in bets** (their ``lambda^PrPl``):
for the paired difference ``d_i = a_i - b_i`` in [-1, 1], rescaled to ``x_i = (d_i + 1) / 2`` in [0, 1],
and each candidate mean ``m``,

    K_t(m) = max{ theta prod_i (1 + lambda_i^+(m) (x_i - m)),  (1 - theta) prod_i (1 - lambda_i^-(m) (x_i - m)) }

with ``theta = 1/2``, ``lambda_i^+(m) = min(lambda_i, c / m)``, ``lambda_i^-(m) = min(lambda_i, c / (1 - m))``,
``c = 1/2`` and ``lambda_i = sqrt(2 log(2/alpha) / (sigma2_{i-1} i log(1 + i)))``, where ``mu_i = (1/2 + sum x)
/ (i + 1)`` and ``sigma2_i = (1/4 + sum_j (x_j - mu_j)^2) / (i + 1)`` (so each bet uses only earlier items).
``K_t(m)`` is a nonnegative martingale when ``m`` is the true mean, so by Ville's inequality
``{m : K_t(m) < 1/alpha}`` covers the mean at every ``t`` simultaneously with probability >= 1 - alpha. It is
computed on a grid of ``m`` (the interval is widened by one grid step) and intersected over time, exactly as the
authors' reference code ``confseq.betting.hedged_cs`` (confseq 0.0.11, ``breaks=grid_size``,
``running_intersection=True``) does.

Because the coverage holds uniformly over time, a user may look after every item or batch and stop as soon as
the decision is not 'continue', without inflating the error rate, unlike a t test repeated at each look.

References
----------
Waudby-Smith, I. and Ramdas, A. (2023). Estimating means of bounded random variables by betting. Journal of the
Royal Statistical Society Series B 86(1), 1-27. arXiv:2010.09686.
Ville, J. (1939). Etude critique de la notion de collectif. Gauthier-Villars.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, check_confidence_level, check_positive_int
from ..estimation.confidence import ConfidenceInterval
from ..display.reprs import displayed
from .._words import words

__all__ = ["SequentialComparison", "SequentialState", "betting_confidence_sequence", "DECISIONS"]

DECISIONS = ("a_better", "b_better", "equivalent", "continue")
_CHUNK = 2048


class _HedgedCS:
    """Running state of the hedged-capital confidence sequence for a mean in [0, 1]."""

    def __init__(self, alpha: float, grid_size: int, truncation: float = 0.5, theta: float = 0.5,
                 population_size: int | None = None):
        self.alpha = alpha
        self.N = population_size
        self.G = grid_size
        self.m = np.arange(grid_size + 1) / grid_size
        self.c = truncation
        self.log_theta = (math.log(theta), math.log(1 - theta))
        # bets of each process are tuned to its own level alpha * theta (confseq's hedged_cs)
        self.bet_pos = 2 * math.log(1 / (alpha * theta))
        self.bet_neg = 2 * math.log(1 / (alpha * (1 - theta)))
        self.t = 0
        self.sum_x = 0.0
        self.sum_v = 0.0
        self.sigma2_prev = 0.25
        self.log_pos = np.zeros(self.m.size)
        self.log_neg = np.zeros(self.m.size)
        self.low, self.high = 0.0, 1.0  # running intersection
        self.empty_at = None
        m = self.m
        self.cap_pos = np.divide(truncation, m, out=np.full(m.size, np.inf), where=m > 0)
        self.cap_neg = np.divide(truncation, 1 - m, out=np.full(m.size, np.inf), where=m < 1)

    def update(self, x: np.ndarray):
        """Add observations ``x`` (in [0, 1]); return the running-intersection bounds after each of them."""
        lows, highs = np.empty(x.size), np.empty(x.size)
        for start in range(0, x.size, _CHUNK):  # chunks bound the (items x grid) memory only
            xs = x[start:start + _CHUNK]
            lo, hi = self._chunk(xs)
            lows[start:start + xs.size], highs[start:start + xs.size] = lo, hi
        return lows, highs

    def _chunk(self, x):
        b = x.size
        t = self.t + np.arange(1, b + 1, dtype=float)
        mu = np.minimum((0.5 + self.sum_x + np.cumsum(x)) / (t + 1), 1.0)
        sig2 = (0.25 + self.sum_v + np.cumsum((x - mu) ** 2)) / (t + 1)
        sig2_prev = np.concatenate(([self.sigma2_prev], sig2[:-1]))
        scale = t * np.log1p(t) * sig2_prev
        lam_pos, lam_neg = np.sqrt(self.bet_pos / scale), np.sqrt(self.bet_neg / scale)
        s_prev = self.sum_x + np.concatenate(([0.0], np.cumsum(x)[:-1]))
        if self.N is None:
            m, cap_pos, cap_neg, dead = self.m[None, :], self.cap_pos[None, :], self.cap_neg[None, :], None
        else:  # without replacement: the mean of what is left, were the population's mean m (WSR 2020, eq. 3)
            m = (self.N * self.m[None, :] - s_prev[:, None]) / (self.N - t[:, None] + 1)
            dead = (m < 0) | (m > 1)  # the population's mean cannot be m any more (and never again)
            m = np.clip(m, 0.0, 1.0)
            cap_pos = np.divide(self.c, m, out=np.full(m.shape, np.inf), where=m > 0)
            cap_neg = np.divide(self.c, 1 - m, out=np.full(m.shape, np.inf), where=m < 1)
        dx = x[:, None] - m
        lp = np.minimum(lam_pos[:, None], cap_pos)
        ln = np.minimum(lam_neg[:, None], cap_neg)
        log_pos = self.log_pos + np.cumsum(np.log1p(lp * dx), axis=0)
        log_neg = self.log_neg + np.cumsum(np.log1p(-ln * dx), axis=0)
        log_k = np.maximum(self.log_theta[0] + log_pos, self.log_theta[1] + log_neg)
        if dead is not None:
            log_k = np.where(dead, np.inf, log_k)
        inside = log_k <= math.log(1 / self.alpha)  # (b, grid)
        anyin = inside.any(axis=1)
        first = np.argmax(inside, axis=1)
        last = self.m.size - 1 - np.argmax(inside[:, ::-1], axis=1)
        step = 1.0 / self.G
        lo = np.where(anyin, np.maximum(self.m[first] - step, 0.0), 0.0)
        hi = np.where(anyin, np.minimum(self.m[last] + step, 1.0), 1.0)
        if self.N is not None:  # the logical bounds: what is seen, plus all 0s or all 1s for what is not
            s_t = s_prev + x
            lo, hi = np.maximum(lo, s_t / self.N), np.minimum(hi, (s_t + self.N - t) / self.N)
        lo = np.maximum.accumulate(np.concatenate(([self.low], lo)))[1:]
        hi = np.minimum.accumulate(np.concatenate(([self.high], hi)))[1:]
        # state for the next call
        self.t += b
        self.sum_x += float(x.sum())
        self.sum_v += float(np.sum((x - mu) ** 2))
        self.sigma2_prev = float(sig2[-1])
        self.log_pos, self.log_neg = log_pos[-1].copy(), log_neg[-1].copy()
        self.low, self.high = float(lo[-1]), float(hi[-1])
        return lo, hi


def _check_scores(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size and (np.isnan(arr).any() or arr.min() < 0 or arr.max() > 1):
        raise ArgumentError(words('`{arg:{name}}` must hold scores in [0, 1] without NaN (bounded scores; rescale others).', name=name))
    return arr


def betting_confidence_sequence(a, b=None, *, confidence_level=0.95, grid_size: int = 1000,
                                population_size: int | None = None):
    """Anytime-valid confidence sequence for ``mean(a - b)`` (or ``mean(a)`` when ``b`` is None) at every time.

    Parameters
    ----------
    a, b : array_like
        Paired scores in [0, 1], in the order they arrived.
    confidence_level : float
        Simultaneous coverage over all times.
    grid_size : int
        Resolution of the grid of candidate means (the interval is widened by one grid step).
    population_size : int, optional
        The items are drawn at random *without replacement* from a finite population of this many (a benchmark's
        items): the sequence is then for the population's mean. Each bet is against the mean of the items not yet
        drawn, ``(N m - S_{t-1}) / (N - t + 1)``, and the logical bounds ``[S_t / N, (S_t + N - t) / N]`` are
        intersected in (Waudby-Smith and Ramdas 2020, the hedged capital CS for sampling without replacement;
        ``confseq.betting.hedged_cs(x, N=N)``); it narrows to the exact mean as ``t`` reaches ``N``. None: draws
        with replacement (or from an infinite population).

    Notes
    -----
    Without replacement, the draws are not independent with the population's mean: a sequence made for
    independent draws has no guarantee there (its capital process is not a martingale under the population's
    mean), which ``population_size`` repairs. Reference: Waudby-Smith, I. and Ramdas, A. (2020). Confidence
    sequences for sampling without replacement. NeurIPS 33. arXiv:2006.04347.

    Returns
    -------
    ConfidenceInterval
        ``low`` and ``high`` arrays, one entry per item: the running-intersection bounds after it.

    Examples
    --------
    >>> import evalband as eb
    >>> import numpy as np
    >>> x = np.random.default_rng(0).binomial(1, 0.7, 200)
    >>> cs = eb.betting_confidence_sequence(x, grid_size=200)
    >>> type(cs).__name__
    'ConfidenceInterval'
    """
    conf = check_confidence_level(confidence_level)
    grid_size = check_positive_int(grid_size, "grid_size", minimum=10)
    a = _check_scores(a, "a")
    if population_size is not None:
        population_size = check_positive_int(population_size, "population_size")
        if a.size > population_size:
            raise ArgumentError(f"`population_size` {population_size} is smaller than the {a.size} items drawn"
                                " without replacement.")
    cs = _HedgedCS(1 - conf, grid_size, population_size=population_size)
    if b is None:
        lo, hi = cs.update(a)
        return ConfidenceInterval(lo, hi)
    b = _check_scores(b, "b")
    if a.shape != b.shape:
        raise ArgumentError(f"`a` and `b` must be paired (same length); got {a.size} and {b.size}.")
    lo, hi = cs.update((a - b + 1) / 2)
    return ConfidenceInterval(2 * lo - 1, 2 * hi - 1)


@displayed
@dataclass(frozen=True, repr=False)
class SequentialState:
    """Where a sequential comparison stands after an update.

    Attributes
    ----------
    n : int
        Paired items seen.
    estimate : float
        Mean difference ``a - b`` so far.
    ci : ConfidenceInterval
        Anytime-valid interval for the mean difference (valid at this and every other look).
    decision : {'a_better', 'b_better', 'equivalent', 'continue'}
        'a_better' when the interval lies above 0, 'b_better' below 0, 'equivalent' inside
        ``(-margin, margin)``, else 'continue'.
    confidence_level : float
    margin : float or None
    names : tuple of two str
    """

    n: int
    estimate: float
    ci: ConfidenceInterval
    decision: str
    confidence_level: float
    margin: float | None
    names: tuple[str, str] = ("A", "B")

    @property
    def stop(self) -> bool:
        return self.decision != "continue"

    @property
    def message(self) -> str:
        a, b = self.names
        if self.decision == "equivalent":
            words = f"stop: {a} and {b} are equivalent within {self.margin:g}"
        else:
            words = {"a_better": f"stop: {a} is better than {b}", "b_better": f"stop: {b} is better than {a}",
                     "continue": "continue: not yet decided"}[self.decision]
        return (f"{words} (n={self.n}, difference {self.estimate:+.4f}, anytime-valid"
                f" {self.confidence_level:.0%} CI ({self.ci.low:+.4f}, {self.ci.high:+.4f}))")

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"n": self.n, "estimate": self.estimate, "ci_low": self.ci.low,
                              "ci_high": self.ci.high, "decision": self.decision,
                              "confidence_level": self.confidence_level, "margin": self.margin,
                              "model_a": self.names[0], "model_b": self.names[1]}])


class SequentialComparison:
    """Compare two models item by item (or batch by batch) and stop when the evidence decides.

    Parameters
    ----------
    confidence_level : float
        Coverage of the anytime-valid interval, simultaneous over all looks (1 - the error rate of a decision).
    margin : float, optional
        Equivalence margin: stop with 'equivalent' once the interval lies inside ``(-margin, margin)``.
    names : two str
        Labels for the messages.
    grid_size : int
        Grid resolution of the candidate means (in [0, 1] after rescaling the difference).

    Examples
    --------
    >>> seq = SequentialComparison(confidence_level=0.95, margin=0.02)
    >>> state = seq.update(a_batch, b_batch)      # doctest: +SKIP
    >>> state.decision, state.ci                  # doctest: +SKIP

    Notes
    -----
    Valid for paired items drawn independently from a common distribution (or arriving in random order), with
    scores in [0, 1]. The error guarantee holds under any stopping rule, including "stop at the first decision".
    See the module docstring for the construction and its reference.
    """

    def __init__(self, *, confidence_level=0.95, margin: float | None = None, names=("A", "B"),
                 grid_size: int = 1000):
        self.confidence_level = check_confidence_level(confidence_level)
        if margin is not None and not (isinstance(margin, (int, float)) and 0 < margin < 2):
            raise ArgumentError(words('`{arg:margin}` must be a number in (0, 2); got {margin!r}.', margin=margin))
        self.margin = None if margin is None else float(margin)
        self.names = tuple(names)
        if len(self.names) != 2:
            raise ArgumentError(f"`names` must hold two labels; got {names!r}.")
        self._cs = _HedgedCS(1 - self.confidence_level, check_positive_int(grid_size, "grid_size", minimum=10))
        self._sum_d = 0.0
        self._state = None

    @property
    def state(self) -> SequentialState | None:
        """The state after the last update (None before the first)."""
        return self._state

    def update(self, a, b) -> SequentialState:
        """Add a batch of paired scores (each in [0, 1]) and return the new state and decision."""
        a, b = _check_scores(a, "a"), _check_scores(b, "b")
        if a.shape != b.shape:
            raise ArgumentError(f"`a` and `b` must be paired (same length); got {a.size} and {b.size}.")
        if a.size:
            self._cs.update((a - b + 1) / 2)
            self._sum_d += float(np.sum(a - b))
        n = self._cs.t
        if n == 0:
            raise ArgumentError("no items yet: give at least one pair of scores.")
        low, high = 2 * self._cs.low - 1, 2 * self._cs.high - 1
        if low > high:  # an empty intersection: the data contradict the i.i.d. model; report no decision
            low, high = -1.0, 1.0
        if low > 0:
            decision = "a_better"
        elif high < 0:
            decision = "b_better"
        elif self.margin is not None and low > -self.margin and high < self.margin:
            decision = "equivalent"
        else:
            decision = "continue"
        self._state = SequentialState(n, self._sum_d / n, ConfidenceInterval(low, high), decision,
                                      self.confidence_level, self.margin, self.names)
        return self._state
