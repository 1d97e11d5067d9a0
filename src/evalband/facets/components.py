"""Where the variance comes from: variance components of items, facets and trials, per model and per pair.

:func:`variance_components` splits each model's scores (and each pair's differences) into the random terms of
the design (item, prompt, item x prompt, ..., trial), says what share of the variance of the reported mean each
term carries, gives the standard error of that mean with the facets random (generalizing to new prompts, seeds,
judges) or fixed (conditioning on those used), and the generalizability coefficients of the item scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._distributions import t_ppf
from .._random import block_generator, name_key, run_entropy
from .._validate import (ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice, check_confidence_level,
                         check_positive_int)
from ..selection.facet_design import facet_design
from ..selection.task_design import ITEM, FacetDesign
from .component_fits import _anova_fits, _random_mask, _reml_fit, _summaries
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["METHODS", "VarianceComponents", "variance_components"]

METHODS = ("auto", "anova", "reml")
_PIVOT_KEY = 0x5643  # 'VC': the stream of the pivotal draws


@displayed


@dataclass(frozen=True, repr=False)
class VarianceComponents:
    """Variance components per model (and pair) and task, with the standard error of the mean they imply.

    Attributes
    ----------
    models, tasks : tuple of str
    facets : tuple of str
    fixed : tuple of str
        Facets conditioned on for ``share`` (their own terms contribute nothing to the variance of the mean).
    se_random, se_fixed : numpy.ndarray, shape (M, T)
        Standard error of each model's reported mean with every facet random, and with every facet fixed (only
        items and trials random).
    df_random, df_fixed : numpy.ndarray, shape (M, T)
        Satterthwaite degrees of freedom of those standard errors.
    estimate : numpy.ndarray, shape (M, T)
        The reported mean (mean over items of each item's mean row).
    g_relative, g_absolute : numpy.ndarray, shape (M, T)
        Generalizability coefficient E rho^2 and dependability index Phi of item scores averaged over the
        design's facet levels and trials (items as objects of measurement; facets in ``fixed`` fixed).
    method : dict
        Task -> 'anova' (balanced, expected mean squares) or 'reml'.
    confidence_level : float
    n_resamples : int
        Pivotal draws behind each interval.
    design : FacetDesign
    notes : tuple of str
    """

    models: tuple
    tasks: tuple
    facets: tuple
    fixed: tuple
    se_random: np.ndarray
    se_fixed: np.ndarray
    df_random: np.ndarray
    df_fixed: np.ndarray
    estimate: np.ndarray
    g_relative: np.ndarray
    g_absolute: np.ndarray
    method: dict
    confidence_level: float
    n_resamples: int
    design: FacetDesign = field(repr=False)
    notes: tuple = ()
    _rows: pd.DataFrame = field(default=None, repr=False, compare=False)
    _pairs: pd.DataFrame = field(default=None, repr=False, compare=False)
    _se: pd.DataFrame = field(default=None, repr=False, compare=False)
    _fits: dict = field(default=None, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """Per model, task and component: ``component``, ``variance``, ``share``, ``ci_low``, ``ci_high``, ...

        Columns: model, task, component, levels, random (False for terms of fixed facets), variance (estimate,
        >= 0), variance_raw (the unbiased ANOVA estimate, can be negative; REML: as ``variance``), ci_low,
        ci_high (interval of the variance), variance_of_mean (its contribution to the squared standard error of
        the reported mean), share (of that squared standard error), share_low, share_high, method.
        """
        return self._rows.copy()

    def difference_frame(self) -> pd.DataFrame:
        """The same per pair of models (``model_a - model_b`` on the cells both have)."""
        return self._pairs.copy() if self._pairs is not None else pd.DataFrame()

    def se_frame(self) -> pd.DataFrame:
        """Per model, task and choice of fixed facets: estimate, se, df, a t interval, g_relative, g_absolute.

        ``fixed`` is '' with every facet random, the facets' names when all are fixed, and each single facet
        when there are several.
        """
        return self._se.copy()

    def components(self, model: str, task: str | None = None) -> dict:
        """Component name -> variance estimate of one model in one task (the first task by default)."""
        f = self._rows
        task = self.tasks[0] if task is None else task
        sel = f[(f["model"] == model) & (f["task"] == task)]
        return dict(zip(sel["component"], sel["variance"]))

    def __repr__(self) -> str:
        lines = [f"VarianceComponents: {len(self.models)} model(s) x {len(self.tasks)} task(s); facets "
                 f"{', '.join(self.facets) or '(none)'} random" + (f", fixed: {', '.join(self.fixed)}"
                                                                    if self.fixed else "")
                 + f"; {', '.join(sorted(set(self.method.values())))}"]
        f = self._rows
        for k, m in enumerate(self.models[:6]):
            for t_i, t in enumerate(self.tasks[:2]):
                sel = f[(f["model"] == m) & (f["task"] == t)]
                top = sel.sort_values("share", ascending=False).head(3)
                shares = ", ".join(f"{c} {s:.0%}" for c, s in zip(top["component"], top["share"]))
                lines.append(f"  {m} / {t}: mean {self.estimate[k, t_i]:.4g}, se {self.se_random[k, t_i]:.2g}"
                             f" (facets random) vs {self.se_fixed[k, t_i]:.2g} (fixed); {shares}")
        if len(self.models) > 6 or len(self.tasks) > 2:
            lines.append("  ...")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return self.to_frame().head(20).to_html(index=False)


def _configs(facets: tuple, fixed: tuple) -> list:
    out = [(), tuple(facets)]
    if len(facets) > 1:
        out += [(f,) for f in facets]
    if fixed and tuple(fixed) not in out:
        out.append(tuple(fixed))
    seen, unique = set(), []
    for c in out:
        if c not in seen:
            seen.add(c)
            unique.append(c)
    return unique


NOTE_FACETS_TREATED_RANDOM_GENERALIZING = NoteKind(
    'facets.facets-treated-random-generalizing', 'info',
    'facets {value} treated as random (generalizing to new levels) unless fixed; se_fixed conditions on the '
    'levels used')
NOTE_INTERVAL_S_OR_STANDARD = NoteKind(
    'facets.interval-s-or-standard', 'excluded',
    '{flat} interval(s) or standard error(s) left empty: the scores do not vary there (every item and level '
    'alike), so the data say nothing about their uncertainty')
NOTE_TASK_UNBALANCED_DESIGN_COMPONENTS = NoteKind(
    'facets.task-unbalanced-design-components', 'info',
    "task '{task}': unbalanced design, components by REML with profile-likelihood intervals")
NOTE_TASK_SOME_ANOVA_ESTIMATES = NoteKind(
    'facets.task-some-anova-estimates', 'info',
    "task '{task}': some ANOVA estimates are negative (variance_raw); set to 0 in variance and in the standard "
    "errors")
NOTE_TASK_REML_DID_NOT = NoteKind(
    'facets.task-reml-did-not', 'caveat',
    "task '{task}': REML did not confirm its optimum for {value}; those components may be off")


NOTE_UPPER_BOUND_S_VARIANCE = NoteKind(
    'facets.upper-bound-s-variance', 'excluded',
    '{value} upper bound(s) of a variance component left empty (ci_high): the profile likelihood never falls to '
    'its cutoff, so the data (too few levels) set no upper limit')
NOTE_UPPER_BOUND_S_VARIANCE_2 = NoteKind(
    'facets.upper-bound-s-variance-2', 'caveat',
    '{value} upper bound(s) of a variance component (ci_high) are the largest variance scores in [0, 1] allow '
    '(0.25 for a model, 1 for a difference): the profile likelihood does not fall to its cutoff below it, so the '
    'data bound it no more than the score range does')


def variance_components(data, *, facets=None, fixed=(), nested=(), cluster: bool = False, models=None, tasks=None,
                        method: str = "auto", differences: bool = True, confidence_level=0.95, n_resamples: int = 10_000,
                        rng=None) -> VarianceComponents:
    """Variance components of items, facets and trials, per model, pair and task, and the standard errors they imply.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with facet columns (``table.facets``; a path or frame is read with ``facets=``).
    facets : str or sequence of str, optional
        Facets to analyse (default: the table's facets). Trials are always a facet nested within cells.
    fixed : str or sequence of str
        Facets to condition on in ``share`` (their own terms then carry none of the variance of the mean); the
        standard errors are given both ways regardless.
    nested : str or sequence of str
        Facets whose levels are numbered within each item (see :func:`facet_design`).
    cluster : bool
        Take the table's cluster column as a factor too (items nested in clusters: 'cluster' and 'item within
        cluster' components).
    models, tasks : sequence of str, optional
    method : {'auto', 'anova', 'reml'}
        'anova': expected mean squares (balanced designs only); 'reml': restricted maximum likelihood; 'auto':
        ANOVA when the task's design is balanced, REML otherwise.
    differences : bool
        Also analyse every pair's difference ``A - B`` on the cells both have (:meth:`VarianceComponents.
        difference_frame`).
    confidence_level : float or str
    n_resamples : int
        Pivotal draws per model and task for the intervals.
    rng : None, int, SeedSequence, BitGenerator or Generator

    Returns
    -------
    VarianceComponents

    Notes
    -----
    The model is the random-effects model of generalizability theory: each score is a grand mean plus an
    independent effect of every term of the design (item, prompt, item x prompt, ...) and a trial residual. The
    reported mean (each item's rows averaged, then items averaged) has variance ``sum_T s2_T m_T``, where the
    multiplier ``m_T`` of a term is the sum over its levels of the squared total weight of that level's cells
    (``1 / (n_items n_prompts)`` for 'item x prompt' in a balanced design). A facet that is *random* (the
    default) contributes its own terms; a *fixed* facet does not, as the conclusion then holds only for the
    levels used; interactions with items stay, as new items meet the same levels in new ways. ``share`` is each
    term's part of the variance of the mean, under ``fixed``.

    Balanced designs use the unbiased expected-mean-squares estimators (which can be negative: shown in
    ``variance_raw``, set to 0 in ``variance`` as is customary, Brennan 2001) with generalized confidence
    intervals (Weerahandi 1993; Burdick, Borror & Montgomery 2005), exact under normality. Unbalanced designs
    use REML (:func:`reml_components`) with profile-likelihood intervals of each component and of its share
    (:mod:`evalband.facets.profile`: the restricted likelihood maximized over the other variances, cut at
    chi2_1(level) / 2; lme4's ``confint(method="profile")`` on the REML criterion), which stay honest with 3 levels
    of a facet where a chi-square pivot on Satterthwaite's degrees of freedom gave bounds like 1e59. An upper bound
    the profile does not reach below the most a score in [0, 1] allows is that bound (a note says so); for
    unbounded scores it is left empty (NaN). Both assume independent,
    normally distributed effects; for 0/1 scores the components are moment quantities on the probability scale,
    for which the variance of the mean is still right, while the intervals are approximate. Degrees of freedom of
    the standard errors are Satterthwaite's.

    The generalizability coefficient E rho^2 is ``tau / (tau + delta)`` and the dependability Phi
    ``tau / (tau + Delta)``, with items as the objects of measurement: ``tau`` the item variance (plus
    interactions with fixed facets), ``delta`` the relative and ``Delta`` the absolute error variance of one
    item's score averaged over the design's facet levels and trials (Brennan 2001, chapter 4). With one facet
    and one trial per cell they equal the intraclass correlations ICC(3,k) and ICC(2,k) (McGraw & Wong 1996).

    References
    ----------
    Cronbach, L. J., Gleser, G. C., Nanda, H. & Rajaratnam, N. (1972). The Dependability of Behavioral
    Measurements. Wiley.
    Brennan, R. L. (2001). Generalizability Theory. Springer.
    Weerahandi, S. (1993). Generalized confidence intervals. JASA 88(423), 899-905.
    Burdick, R. K., Borror, C. M. & Montgomery, D. C. (2005). Design and Analysis of Gauge R&R Studies. SIAM.
    McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation coefficients.
    Psychological Methods 1(1), 30-46.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import variance_components
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(40), 5), np.tile(np.arange(5), 40)
    >>> p = 1 / (1 + np.exp(-(rng.normal(size=40)[item] + rng.normal(size=5)[prompt])))
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": item, "prompt": prompt,
    ...                    "score": (rng.random(200) < p).astype(int)})
    >>> vc = variance_components(df, facets="prompt", rng=1)
    >>> list(vc.to_frame()["component"])
    ['item', 'prompt', 'item x prompt, residual']
    >>> bool(vc.se_random[0, 0] > vc.se_fixed[0, 0])
    True
    """
    level = check_confidence_level(confidence_level)
    method = check_choice(method, METHODS, "method")
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=100)
    if not isinstance(differences, bool):
        raise ArgumentTypeError(f"`differences` must be True or False; got {differences!r}.")
    design = facet_design(data, facets=facets, nested=nested, cluster=cluster, models=models, tasks=tasks)
    fixed = (fixed,) if isinstance(fixed, str) else tuple(fixed)
    bad = [f for f in fixed if f not in design.facets]
    if bad:
        raise ArgumentError(words('`{arg:fixed}`: {value} is not among the facets analysed ({value2}).', value=', '.join(map(repr, bad)), value2=', '.join(map(repr, design.facets)) or 'none'))
    entropy = run_entropy(as_generator(rng))
    notes = list(design.notes)
    configs = _configs(design.facets, fixed)
    m_n, t_n = len(design.models), len(design.tasks)
    se = {c: np.full((m_n, t_n), np.nan) for c in configs}
    dfs = {c: np.full((m_n, t_n), np.nan) for c in configs}
    est = np.full((m_n, t_n), np.nan)
    g_rel = np.full((m_n, t_n), np.nan)
    g_abs = np.full((m_n, t_n), np.nan)
    rows, pair_rows, se_rows, methods, all_fits = [], [], [], {}, {}
    unbounded = [0, 0]  # upper bounds the profile does not reach: unbounded scores (NaN), bounded (the range's)
    hi_q = 1 - (1 - level) / 2
    for d in design.designs:  # one level of a factor leaves its component without degrees of freedom
        few = [f"{len(d.levels[a])} {'item' if f == ITEM else f'level of {f}'}"
               + ("s" if f == ITEM and len(d.levels[a]) != 1 else "")
               for a, f in enumerate(d.factors) if len(d.levels[a]) < 2]
        if few:
            raise InputError(f"task '{d.task}' has {' and '.join(few)}: variance components need at least 2 levels"
                             " of every factor (items and each facet) to separate them")
    for t_i, d in enumerate(design.designs):
        entities = [(k,) for k in range(d.n_models)]
        if differences:
            entities += [(a, b) for a in range(d.n_models) for b in range(a + 1, d.n_models)]
        use = method
        if method == "auto":
            use = "anova" if d.balanced else "reml"
        elif method == "anova" and not d.balanced:
            raise ArgumentError(words("`{arg:method='anova'}` needs a balanced design; task '{task}' is not (missing cells or unequal trials); use 'reml' or 'auto'.", task=d.task))
        methods[d.task] = use

        def gen_for(ks, _task=d.task, _models=d.models):
            return block_generator(entropy, (_PIVOT_KEY, name_key(_task)) + tuple(name_key(_models[k]) for k in ks))

        if use == "anova":
            fits = _anova_fits(d, entities, gen_for, n_resamples)
        else:
            fits = [_reml_fit(d, ks, gen_for(ks), n_resamples) for ks in entities]
            notes.append(NOTE_TASK_UNBALANCED_DESIGN_COMPONENTS(task=d.task))
            failed = [d.models[ks[0]] if len(ks) == 1 else f"{d.models[ks[0]]} - {d.models[ks[1]]}"
                      for ks, f in zip(entities, fits) if not f.converged]
            if failed:
                notes.append(NOTE_TASK_REML_DID_NOT(task=d.task, value=', '.join(failed)))
        for ks, fit in zip(entities, fits):
            all_fits[(d.task,) + tuple(d.models[k] for k in ks)] = fit
            contrib, share, _, _, _, gr, ga = _summaries(fit, fixed, level)
            rand = _random_mask(fit, fixed)
            ci, sh, open_ended = fit.intervals(fixed, level)
            unbounded[bool(np.isfinite(d.score_range).all())] += open_ended
            base = {"task": d.task, "component": list(fit.names), "levels": fit.levels, "random": rand,
                    "variance": np.maximum(fit.raw, 0.0), "variance_raw": fit.raw, "ci_low": ci[0],
                    "ci_high": ci[1], "variance_of_mean": contrib, "share": share, "share_low": sh[0],
                    "share_high": sh[1], "method": fit.method}
            if len(ks) == 1:
                rows.append(pd.DataFrame({"model": d.models[ks[0]], **base}))
                k = ks[0]
                est[k, t_i] = fit.estimate
                g_rel[k, t_i], g_abs[k, t_i] = gr, ga
            else:
                pair_rows.append(pd.DataFrame({"model_a": d.models[ks[0]], "model_b": d.models[ks[1]], **base}))
            label = d.models[ks[0]] if len(ks) == 1 else f"{d.models[ks[0]]} - {d.models[ks[1]]}"
            for c in configs:
                _, _, _, vc, dfc, grc, gac = _summaries(fit, c, level)
                s = float(np.sqrt(vc))
                half = t_ppf(hi_q, dfc) * s if np.isfinite(dfc) and dfc > 0 else np.nan
                se_rows.append({"model": label, "task": d.task, "fixed": ",".join(c), "estimate": fit.estimate,
                                "se": s, "df": dfc, "ci_low": fit.estimate - half, "ci_high": fit.estimate + half,
                                "g_relative": grc, "g_absolute": gac, "difference": len(ks) == 2})
                if len(ks) == 1:
                    se[c][ks[0], t_i], dfs[c][ks[0], t_i] = s, dfc
        if (np.concatenate([f.raw for f in fits]) < 0).any() and use == "anova":
            notes.append(NOTE_TASK_SOME_ANOVA_ESTIMATES(task=d.task))
    if design.facets:
        notes.append(NOTE_FACETS_TREATED_RANDOM_GENERALIZING(value=', '.join(design.facets)))
    allf = tuple(design.facets)
    frames = [pd.concat(rows, ignore_index=True), pd.concat(pair_rows, ignore_index=True) if pair_rows else None,
              pd.DataFrame(se_rows)]
    frames, flat = _without_flat(frames, se)
    if unbounded[0]:
        notes.append(NOTE_UPPER_BOUND_S_VARIANCE(value=unbounded[0]))
    if unbounded[1]:
        notes.append(NOTE_UPPER_BOUND_S_VARIANCE_2(value=unbounded[1]))
    if flat:
        notes.append(NOTE_INTERVAL_S_OR_STANDARD(flat=flat))
    return VarianceComponents(design.models, design.tasks, design.facets, fixed, se[()], se[allf], dfs[()],
                              dfs[allf], est, g_rel, g_abs, methods, level, n_resamples, design,
                              tuple(dict.fromkeys(notes)), frames[0], frames[1], frames[2], all_fits)


def _without_flat(frames, se):
    """No zero-width interval and no standard error of 0 as a result: they say only that nothing varied
    (:mod:`evalband.estimation.edges`); left empty (NaN), counted for the note."""
    from ..estimation.edges import degenerate

    count = 0
    out = []
    for frame in frames:
        if frame is None:
            out.append(None)
            continue
        frame = frame.copy()
        for lo, hi, sd in (("ci_low", "ci_high", "se"), ("share_low", "share_high", None)):
            if lo not in frame:
                continue
            flat = degenerate(frame[lo], frame[hi], frame[sd] if sd in frame else None)
            count += int(flat.sum())
            frame.loc[flat, [lo, hi] + ([sd] if sd in frame else [])] = np.nan
        out.append(frame)
    for arr in se.values():
        arr[arr == 0] = np.nan
    return out, count
