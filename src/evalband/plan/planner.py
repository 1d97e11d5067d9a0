"""Plan a comparison of two models: standard error, interval, items (and trials) needed, detectable effect.

:func:`plan_comparison` takes the numbers a user knows or a pilot estimated (see :mod:`evalband.plan.pilot`) and
answers, in one :class:`ComparisonPlan`: the standard error and interval of the difference at a given ``n``,
the items needed to detect ``effect`` with the requested power, the minimum detectable effect at ``n``, the power
at ``n``, and what repeated trials and clustering change.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .._distributions import norm_isf, t_isf
from .._validate import (ArgumentError, ArgumentTypeError, check_alternative, check_choice, check_confidence_level,
                         check_positive_int, check_probability)
from .design import (_nonneg, binary_variance_of_difference, design_effect, recommend_trials,
                     variance_of_difference)
from .power import MULTIPLICITY_METHODS, POWER_METHODS, _solve_power as solve_power, adjusted_alpha, test_size
from ..display.numbers import format_percent
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["plan_comparison", "ComparisonPlan", "SCORE_KINDS"]

SCORE_KINDS = ("binary", "continuous")
_TRIALS_SHOWN = (1, 2, 3, 4, 5, 8, 10, 16, 20, 32, 50, 100)
#: Fewest items (clusters, when items are clustered) a recommended design with extra trials may use: trials
#: average away output noise, but only more items tell about the population of tasks, and the t/normal
#: approximation behind the plan (and the cluster-robust interval) needs about 30 independent units.
MIN_ITEMS = 30


@displayed


@dataclass(frozen=True, repr=False)
class ComparisonPlan:
    """Answer of :func:`plan_comparison`. Differences are fractions (0.04 is four points), never rounded.

    Attributes
    ----------
    effect : float
        The difference to detect (model A minus model B; A = baseline + effect for typed binary numbers).
    n : int or None
        Items per model at which ``se_difference``, the interval, ``mde`` and ``power_at_n`` are given.
    se_difference, ci_low, ci_high : float
        Standard error of the estimated difference at ``n`` and the interval ``effect +- crit * se`` (nan
        without ``n``).
    n_required : int or float
        Items per model needed for ``power``: a whole number (rounded up), ``inf`` when unreachable.
    clusters_required : int or float
        Clusters needed, ``ceil(n_required / cluster_size)``, when clustered; else nan.
    mde : float
        Minimum detectable effect at ``n`` with ``power`` (nan without ``n``, or when none in range).
    power_at_n : float
        Power at ``n`` to detect ``effect`` (nan without ``n``).
    variance_difference : float
        Per-item variance of the difference on one trial (``Var(a) + Var(b)`` when unpaired), at ``effect``.
    design_effect : float
        Variance of the planned mean relative to independent single-trial items (clusters and trials).
    effective_n : float
        ``n / design_effect`` (nan without ``n``).
    trials, recommended_trials : int
    n_required_recommended_trials : int or float
        Items needed with ``recommended_trials`` trials each (whole number, ``inf`` when unreachable).
    trial_table : pandas.DataFrame
        For each ``k``: per-item variance, the reduction relative to one trial, items required.
    alpha_per_comparison : float
    inputs : dict
        Every input used, and for each whether it was 'given' or 'estimated' (``sources``).
    notes : tuple of str
    """

    effect: float
    n: int | None
    se_difference: float
    ci_low: float
    ci_high: float
    n_required: int | float
    clusters_required: int | float
    mde: float
    power_at_n: float
    variance_difference: float
    design_effect: float
    effective_n: float
    trials: int
    recommended_trials: int
    n_required_recommended_trials: int | float
    alpha_per_comparison: float
    inputs: dict = field(default_factory=dict)
    _trial_rows: tuple = field(default=(), compare=False, repr=False)  # the rows of ``trial_table``
    notes: tuple[str, ...] = ()

    @property
    def trial_table(self):
        """For each ``k``: per-item variance, the reduction relative to one trial, items required (a DataFrame,
        built when asked for: the plan itself needs no pandas)."""
        import pandas as pd

        return pd.DataFrame(list(self._trial_rows)) if self._trial_rows else None

    # ------------------------------------------------------------------ sentences
    @property
    def sentence_required(self) -> str:
        """One sentence: how many items (and trials) to detect ``effect``."""
        i = self.inputs
        what = (f"To detect a difference of {_pts(self.effect)} with {i['power']:.0%} power"
                f" ({_test_words(i)})")
        if not math.isfinite(self.n_required):
            return what + ", no number of items is enough under these assumptions."
        text = what + f", about {_count(self.n_required)} items are needed"
        text += f" with {self.trials} trial{'s' if self.trials > 1 else ''} each" if i.get("output_variance") else ""
        if math.isfinite(self.clusters_required):
            text += f" (about {_count(self.clusters_required)} clusters of {i['cluster_size']:.3g})"
        if i.get("output_variance") and self.recommended_trials != self.trials \
                and math.isfinite(self.n_required_recommended_trials):
            text += (f", or about {_count(self.n_required_recommended_trials)} items with"
                     f" {self.recommended_trials} trials each")
            if i.get("min_items"):
                text += (f" (at least {i['min_items']:,} items: fewer items, however many trials, would say"
                         " little about the population of tasks)")
        return text + "."

    @property
    def sentence_detectable(self) -> str:
        """One sentence: what the evaluation can detect at its current ``n``."""
        if self.n is None:
            return "Give the current number of items (n) to see what this evaluation can detect now."
        i = self.inputs
        if not math.isfinite(self.mde):
            return (f"With {self.n:,} items no difference within the score range reaches {i['power']:.0%} power"
                    f" ({_test_words(i)}).")
        return (f"With {self.n:,} items this evaluation can detect a difference of {_pts(self.mde)} or more"
                f" with {i['power']:.0%} power ({_test_words(i)}); the standard error of the difference is"
                f" {_pts(self.se_difference)}, and a true difference of {_pts(self.effect)} would be detected with"
                f" probability {format_percent(self.power_at_n)}.")

    @property
    def sentences(self) -> tuple[str, str]:
        return self.sentence_required, self.sentence_detectable

    # ------------------------------------------------------------------ frames
    def to_dict(self) -> dict:
        """One flat record: the answers plus every input used (JSON-ready; no rounding)."""
        out = {k: v for k, v in asdict(self).items() if k not in ("_trial_rows", "inputs", "notes")}
        out.update({k: v for k, v in self.inputs.items() if k not in out})
        out["answer_required"] = self.sentence_required
        out["answer_detectable"] = self.sentence_detectable
        out["notes"] = list(self.notes)
        return {k: _plain(v) for k, v in out.items()}

    def to_frame(self):
        """One row: the answers and inputs as columns (fractions; ``sources`` and pilot estimates flattened as
        ``source_<input>`` and ``pilot_<estimate>``)."""
        d = self.to_dict()
        d.pop("notes")
        flat = {}
        for k, v in d.items():
            if isinstance(v, dict):
                prefix = "source" if k == "sources" else k
                flat.update({f"{prefix}_{kk}": vv for kk, vv in v.items()})
            else:
                flat[k] = v
        import pandas as pd

        return pd.DataFrame([flat])


def _plain(v):
    if isinstance(v, (np.floating, np.integer)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None  # JSON has no nan/inf: unreachable or undefined answers are null (the sentences say which)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _whole(x) -> int | float:
    """A count of items or clusters: rounded up to a whole number (an int); ``inf`` stays ``inf``."""
    x = float(x)
    return int(math.ceil(x - 1e-9)) if math.isfinite(x) else x


def _pts(x: float) -> str:
    """A fraction as percentage points, two significant-ish decimals."""
    p = 100 * x
    return f"{p:.1f} points" if abs(p) >= 1 else f"{p:.2f} points"


def _count(x: float) -> str:
    return f"{int(math.ceil(x - 1e-9)):,}"


def _test_words(i: dict) -> str:
    sided = {"two-sided": "two-sided", "greater": "one-sided", "less": "one-sided"}[i["alternative"]]
    text = f"{sided} alpha {i['alpha']:g}"
    if i["n_comparisons"] > 1 and i["multiplicity"] != "none":
        name = "Bonferroni" if i["multiplicity"] == "bonferroni" else "Holm, planned at its strictest step"
        text += f" split over {i['n_comparisons']} comparisons ({name}: {i['alpha_per_comparison']:.3g} each)"
    text += ", paired" if i["paired"] else ", unpaired"
    return text


NOTE_RECOMMENDED_TRIALS_BOUNDED_DESIGN = NoteKind(
    'plan.recommended-trials-bounded-design', 'caveat',
    'recommended trials bounded: a design keeps at least {unit}, so trials are recommended only up to {k_rec} '
    'per item; more trials on fewer items reduce output noise but say nothing more about the population of '
    'tasks, and the approximations behind the plan need about {min_items} independent units')
NOTE_HOLM_PLANNED_ITS_STRICTEST = NoteKind(
    'plan.holm-planned-its-strictest', 'info',
    'Holm planned at its strictest step (alpha / m); achieved power is at least the stated power')
NOTE_UNPAIRED_N_NUMBER_ITEMS = NoteKind('plan.unpaired-n-number-items', 'info',
                                         'unpaired: n is the number of items per model, each model on its own items')
NOTE_TRIALS_WITHOUT_OUTPUT_VARIANCE = NoteKind(
    'plan.trials-without-output-variance', 'caveat',
    'trials > 1 without `output_variance`: trials are assumed to change nothing')


def plan_comparison(*, effect: float, baseline: float | None = None, correlation: float | None = None,
                    variance_difference: float | None = None, sd_a: float | None = None, sd_b: float | None = None,
                    n: int | None = None, power: float = 0.8, confidence_level=0.95, alternative: str = "two-sided",
                    paired: bool = True, score_kind: str = "binary", method: str = "t",
                    interval_level=None, cluster_size: float | None = None, icc: float | None = None,
                    cluster_cv: float = 0.0, trials: int = 1, output_variance: float | None = None,
                    cost_ratio: float | None = None, n_comparisons: int = 1, multiplicity: str = "bonferroni",
                    sources: dict | None = None, notes=(), **deprecated) -> ComparisonPlan:
    """Plan (or audit) a comparison of two models on per-item scores.

    Parameters
    ----------
    effect : float
        Difference to detect, as a fraction (0.04 = 4 points); negative only with ``alternative='less'``.
    baseline : float, optional
        Binary scores: proportion of model B; model A scores ``baseline + effect``. The per-item variance of the
        difference follows from the two Bernoulli variances and ``correlation``.
    correlation : float, optional
        Per-item correlation of the two models' scores (paired designs). Unpaired designs ignore it.
    variance_difference : float, optional
        Per-item variance of the difference on one trial, given directly (``Var(a) + Var(b)`` when unpaired);
        takes precedence over ``baseline``/``sd_a``.
    sd_a, sd_b : float, optional
        Continuous scores: per-item standard deviations (``sd_b`` defaults to ``sd_a``).
    n : int, optional
        Items per model now (or planned): the standard error, interval, ``mde`` and power are given at it.
    power, confidence_level, alternative
        Requested power, the family-wise level of the test (its significance ``alpha = 1 - confidence_level``;
        ``alpha=`` before 0.2, deprecated) and its direction ('greater': A better).
    paired : bool
        Same items for both models (default) or independent item sets of ``n`` each.
    score_kind : {'binary', 'continuous'}
    method : {'t', 'normal'}
        't' (default): noncentral t power with ``clusters - 1`` degrees of freedom (the analysis a paired t test
        or a cluster-robust interval does); 'normal': normal approximation, ``n ~ (z_{1-a/2} + z_{pow})^2 *
        var / effect^2``.
    interval_level : float or str, optional
        Level of the reported interval, when it differs from the test's; default ``confidence_level``
        (two-sided interval always).
    cluster_size, icc, cluster_cv
        Clustered items: mean cluster size, intra-cluster correlation of the per-item difference on one trial,
        and the coefficient of variation of cluster sizes (Eldridge et al. 2006).
    trials : int
        Planned trials per item (default 1).
    output_variance : float, optional
        Within-item variance of one model's single-trial score (both models alike); a part of the per-item
        variance that trials average away. The difference's output variance is twice it.
    cost_ratio : float, optional
        Cost of a new item relative to one more trial, for the recommended number of trials.
    n_comparisons, multiplicity
        Several comparisons planned at family-wise ``alpha``: 'bonferroni', 'holm' (planned at ``alpha / m``, its
        strictest step) or 'none'.
    sources : dict, optional
        For each input, 'given' or 'estimated' (pilot data); recorded in ``inputs``.

    Returns
    -------
    ComparisonPlan

    Notes
    -----
    Binary scores: the variance is evaluated at the alternative (both proportions as planned), the usual
    planning convention; the McNemar-type paired test has nearly the same power for moderate ``n`` (Connor
    1987). With clusters and trials the variance of the mean difference is
    ``[V_k + ((cv^2 + 1) m - 1) rho V_1] / n``, where ``V_k = V_1 - 2 v + 2 v / k``: output noise is independent
    between items, so trials shrink the item's own variance but not the covariance inside clusters.

    The recommended number of trials never leads to fewer than :data:`MIN_ITEMS` (30) items, or 30 clusters
    when items are clustered: when nearly all the variance is output noise, trials alone could bring the items
    needed down to a handful (14 items with 100 trials each), which supports no claim about a population of
    tasks and is outside the range where the t/normal approximation (and a cluster-robust interval) can be
    trusted. The recommendation is then the fewest trials with which 30 items (clusters) reach the power, and a
    note and the sentence say so.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640 (paired differences, trials, power).
    Connor, R. J. (1987). Sample size for testing differences in proportions for the paired-sample design.
    Biometrics 43, 207-211.
    Eldridge, S. M., Ashby, D. and Kerry, S. (2006). Int. J. Epidemiol. 35, 1292-1300.

    Examples
    --------
    >>> import evalband as eb
    >>> plan = eb.plan_comparison(effect=0.03, baseline=0.7, correlation=0.5)
    >>> plan.n_required
    1778
    """
    alternative = check_alternative(alternative)
    method = check_choice(method, POWER_METHODS, "method")
    score_kind = check_choice(score_kind, SCORE_KINDS, "score_kind")
    multiplicity = check_choice(multiplicity, MULTIPLICITY_METHODS, "multiplicity")
    power = check_probability(power, "power")
    if "alpha" in deprecated:  # before 0.2: alpha the test's size, confidence_level the interval's level
        if interval_level is None and confidence_level != 0.95:
            interval_level = confidence_level
        alpha = test_size(0.95, deprecated, "plan_comparison")
    else:
        alpha = test_size(confidence_level, deprecated, "plan_comparison")
    n_comparisons = check_positive_int(n_comparisons, "n_comparisons")
    trials = check_positive_int(trials, "trials")
    alpha_c = adjusted_alpha(alpha, n_comparisons, method=multiplicity)
    conf = 1 - alpha if interval_level is None else check_confidence_level(interval_level)
    if effect is None or isinstance(effect, bool) or not isinstance(effect, (int, float, np.floating)):
        raise ArgumentTypeError(f"`effect` must be a number; got {effect!r}.")
    effect = float(effect)
    if n is not None:
        n = check_positive_int(n, "n", minimum=2)
    notes = list(notes)

    # ---- per-item variance of the difference on one trial, as a function of the effect
    if variance_difference is not None:
        v0 = _nonneg(variance_difference, "variance_difference")
        var1 = lambda e: v0  # noqa: E731
        spec = "variance_difference"
    elif score_kind == "binary":
        if baseline is None:
            raise ArgumentError(words('binary scores need `{arg:baseline}` (the proportion of model B) or `variance_difference`.'))
        baseline = check_probability(baseline, "baseline")
        if paired and correlation is None:
            raise ArgumentError("a paired plan needs `correlation` (per-item correlation of the two models' scores)"
                             " or `variance_difference`; use paired=False for independent item sets.")
        rho = correlation if paired else 0.0

        def var1(e, p=baseline, rho=rho):
            q = p + e
            if not 0.0 <= q <= 1.0:
                raise ArgumentError(words('`{arg:baseline}` + `effect` = {q:g} is not a proportion.', q=q))
            return binary_variance_of_difference(q, p, correlation=rho)

        spec = "baseline and correlation" if paired else "baseline"
    else:
        if sd_a is None:
            raise ArgumentError("continuous scores need `sd_a` (and optionally `sd_b`) or `variance_difference`.")
        sb = sd_a if sd_b is None else sd_b
        if paired and correlation is None:
            raise ArgumentError("a paired plan needs `correlation` or `variance_difference`.")
        v0 = variance_of_difference(_nonneg(sd_a, "sd_a") ** 2, _nonneg(sb, "sd_b") ** 2,
                                    correlation=correlation if paired else 0.0)
        var1 = lambda e: v0  # noqa: E731
        spec = "sd_a, sd_b and correlation" if paired else "sd_a and sd_b"
    v_at = var1(effect)
    if not v_at > 0:
        raise ArgumentError("the per-item variance of the difference is 0: nothing varies, so there is nothing to plan.")

    # ---- trials and clusters
    out_diff = 0.0
    if output_variance is not None:
        out_diff = 2.0 * _nonneg(output_variance, "output_variance")
        if out_diff > v_at * (1 + 1e-9):
            raise ArgumentError(f"`output_variance` {output_variance!r} is more than half the per-item variance of the"
                             f" difference ({v_at:.4g}): the output noise of both models cannot exceed it.")
    elif trials > 1:
        notes.append(NOTE_TRIALS_WITHOUT_OUTPUT_VARIANCE())
    clustered = cluster_size is not None or icc is not None
    if clustered and (cluster_size is None or icc is None):
        raise ArgumentError("a clustered plan needs both `cluster_size` and `icc`.")
    m_bar = float(cluster_size) if clustered else 1.0
    rho_c = float(icc) if clustered else 0.0
    deff_cluster = design_effect(m_bar, rho_c, cv=cluster_cv) if clustered else 1.0
    inflation = deff_cluster - 1.0  # ((cv^2+1) m - 1) rho

    def var_k(e, k):
        v = var1(e)
        return max(v - out_diff, 0.0) + out_diff / k + inflation * v

    def var_fn(e, k=trials):
        return var_k(e, k)

    deff = var_k(effect, trials) / v_at
    common = dict(alpha=alpha_c, alternative=alternative, method=method, paired=paired, cluster_size=m_bar)
    n_req = solve_power(effect=effect, power=power, variance=var_fn, **common)
    n_req = math.ceil(n_req - 1e-9) if math.isfinite(n_req) else math.inf

    # trials: reduction per k and the recommended k
    item_part = max(v_at - out_diff, 0.0)
    k_rec = recommend_trials(item_part + inflation * v_at, out_diff, cost_ratio=cost_ratio) if out_diff > 0 \
        else trials
    min_items = math.ceil(MIN_ITEMS * m_bar - 1e-9)
    bounded = False
    if out_diff > 0 and k_rec > 1:
        def n_at(k):
            return solve_power(effect=effect, power=power, variance=lambda e, k=k: var_k(e, k), **common)

        if n_at(k_rec) < min_items:  # e.g. 14 items x 100 trials: too few items for any claim about tasks
            lo, hi = 1, k_rec  # n_at decreases in k: the fewest trials with which min_items items suffice
            if n_at(1) <= min_items:
                hi = 1
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if n_at(mid) <= min_items else (mid, hi)
            k_rec, bounded = hi, True
    ks = sorted(set(_TRIALS_SHOWN) | {trials, k_rec})
    rows = []
    for k in ks:
        # without output noise every k needs the same items
        nk = n_req if out_diff == 0 else solve_power(effect=effect, power=power,
                                                      variance=lambda e, k=k: var_k(e, k), **common)
        rows.append({"trials": k, "variance": var_k(effect, k),
                     "variance_reduction": 1.0 - var_k(effect, k) / var_k(effect, 1),
                     "n_required": math.ceil(nk - 1e-9) if math.isfinite(nk) else math.inf,
                     "trials_required": (math.ceil(nk - 1e-9) * k) if math.isfinite(nk) else math.inf})
    n_req_rec = _whole(next(r["n_required"] for r in rows if r["trials"] == k_rec))
    if bounded:
        n_req_rec = max(n_req_rec, min_items)
        unit = f"{MIN_ITEMS} clusters ({min_items:,} items)" if clustered else f"{min_items} items"
        notes.append(NOTE_RECOMMENDED_TRIALS_BOUNDED_DESIGN(unit=unit, k_rec=k_rec, min_items=MIN_ITEMS))

    se = ci_low = ci_high = mde = pw = eff_n = math.nan
    if n is not None:
        se = math.sqrt(var_fn(effect) / n)
        df = None if method == "normal" else max(n / m_bar - 1.0, 1.0) if paired else max(2 * n / m_bar - 2, 1.0)
        crit = norm_isf((1 - conf) / 2) if df is None else t_isf((1 - conf) / 2, df)
        ci_low, ci_high = effect - crit * se, effect + crit * se
        mde = solve_power(n=n, power=power, variance=var_fn, **common)
        pw = solve_power(effect=effect, n=n, variance=var_fn, **common)
        eff_n = n / deff
    if multiplicity == "holm" and n_comparisons > 1:
        notes.append(NOTE_HOLM_PLANNED_ITS_STRICTEST())
    if not paired:
        notes.append(NOTE_UNPAIRED_N_NUMBER_ITEMS())

    inputs = dict(baseline=baseline, correlation=correlation if paired else None,
                  variance_given_as=spec, sd_a=sd_a, sd_b=sd_b, power=power, alpha=alpha, alternative=alternative,
                  paired=paired, score_kind=score_kind, method=method, confidence_level=conf,
                  cluster_size=cluster_size, icc=icc, cluster_cv=cluster_cv if clustered else None,
                  output_variance=output_variance, cost_ratio=cost_ratio, n_comparisons=n_comparisons,
                  multiplicity=multiplicity, alpha_per_comparison=alpha_c,
                  min_items=min_items if bounded else None, sources=dict(sources or {}))
    return ComparisonPlan(
        effect=effect, n=n, se_difference=se, ci_low=ci_low, ci_high=ci_high, n_required=_whole(n_req),
        clusters_required=_whole(n_req / m_bar) if clustered and math.isfinite(n_req) else math.nan,
        mde=mde, power_at_n=pw, variance_difference=v_at, design_effect=deff, effective_n=eff_n, trials=trials,
        recommended_trials=int(k_rec), n_required_recommended_trials=n_req_rec, alpha_per_comparison=alpha_c,
        inputs=inputs, _trial_rows=tuple(rows), notes=tuple(notes))

