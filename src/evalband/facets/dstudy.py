"""D-study planning: which numbers of items, facet levels and trials reach a target standard error, cheapest first.

From the variance components of a pilot (:func:`variance_components`), the variance of the mean of a planned
balanced design is ``sum_T s2_T / prod_{k in T} n_k`` (trials dividing the residual too), so the items a
combination of facet levels and trials needs follow in closed form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtri

from .._validate import ArgumentError, check_confidence_level, check_probability
from ..selection.task_design import ITEM
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["DEFAULT_LEVELS", "DEFAULT_TRIALS", "DStudy", "plan_design", "predicted_se"]

#: facet levels and trials per cell tried when none are given (the pilot's own numbers are added)
DEFAULT_LEVELS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50)
DEFAULT_TRIALS = (1, 2, 3, 4, 5, 8, 10, 16, 20)
#: facet levels tried when none of :data:`DEFAULT_LEVELS` reaches the target
LARGE_LEVELS = (80, 100, 150, 200, 300, 500, 1000, 2000, 5000)


def predicted_se(components, sizes, *, trials: int = 1, fixed=()) -> float:
    """Standard error of the mean of a balanced design with ``sizes`` levels per factor and ``trials`` per cell.

    Parameters
    ----------
    components : mapping of tuple of str to float
        Variance of each term, keyed by its factors (``('item',)``, ``('item', 'prompt')``); the key ``()`` is
        the per-trial residual.
    sizes : mapping of str to int
        Levels of each factor (for a nested factor: levels within each level of its parents).
    trials : int
    fixed : sequence of str
        Facets conditioned on (terms made only of them contribute nothing).

    Returns
    -------
    float

    Examples
    --------
    >>> from evalband.facets import predicted_se
    >>> comps = {("item",): 0.04, ("prompt",): 0.01, ("item", "prompt"): 0.1, (): 0.05}
    >>> round(predicted_se(comps, {"item": 200, "prompt": 5}, trials=2), 5)
    0.04822
    """
    var = 0.0
    total = float(np.prod([sizes[f] for f in sizes]))
    for factors, v in components.items():
        if factors and set(factors) <= set(fixed):
            continue
        div = total * trials if factors == () else float(np.prod([sizes[f] for f in factors]))
        var += max(float(v), 0.0) / div
    return float(np.sqrt(var))


@displayed


@dataclass(frozen=True, repr=False)
class DStudy:
    """Designs that reach a target standard error, cheapest first.

    Attributes
    ----------
    target_se : float
    effect, power : float or None
        Set when the target came from an effect to detect with a given power.
    factors : tuple of str
        Columns of the design: 'item', the facets, then 'trials'.
    designs : pandas.DataFrame
        One row per design: the number of each factor (items in total; a facet's levels; trials per cell),
        ``predicted_se``, ``cost`` (when costs were given), ``observations``.
    basis : str
        Whose components the plan rests on ('every model (the largest SE)', a model, or pairs).
    notes : tuple of str
    """

    target_se: float
    effect: float | None
    power: float | None
    factors: tuple
    designs: pd.DataFrame
    basis: str
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """The designs, cheapest (or smallest) first."""
        return self.designs.copy()

    @property
    def best(self) -> dict:
        """The first design, as a mapping."""
        return self.designs.iloc[0].to_dict() if len(self.designs) else {}

    def __repr__(self) -> str:
        head = (f"DStudy: target se {self.target_se:.3g}"
                + (f" (effect {self.effect:g} at power {self.power:g})" if self.effect is not None else "")
                + f"; {len(self.designs)} designs reach it ({self.basis})")
        rows = [", ".join(f"{k} {v:,.0f}" if isinstance(v, (int, np.integer)) or float(v).is_integer() else
                          f"{k} {v:.3g}" for k, v in r.items()) for r in self.designs.head(5).to_dict("records")]
        return "\n".join([head] + [f"  {r}" for r in rows] + (["  ..."] if len(self.designs) > 5 else []))

    def _repr_html_(self) -> str:
        return self.designs.head(20).to_html(index=False)


def _component_sets(vc, *, differences: bool, model, task):
    """Per entity, the components keyed by factors (residual key ()), and the factor list."""
    sets = []
    for key, fit in vc._fits.items():
        if task is not None and key[0] != task:
            continue
        is_pair = len(key) == 3
        if is_pair != differences:
            continue
        if model is not None and key[1:] != ((model,) if isinstance(model, str) else tuple(model)):
            continue
        # keyed by factors; the per-trial residual is (); a cell term holding the residual keeps its factors
        comps = {f: max(float(v), 0.0) for f, v in zip(fit.factors, fit.raw)}
        sets.append((key, comps))
    return sets


NOTE_PILOT_HAS_ONE_TRIAL = NoteKind(
    'facets.pilot-has-one-trial', 'caveat',
    'the pilot has one trial per cell, so trial noise cannot be told from the item x facet interaction: plans '
    'keep one trial per cell')
NOTE_NO_CANDIDATE_DESIGN_REACHES = NoteKind(
    'facets.no-candidate-design-reaches', 'info',
    'no candidate design reaches the target: facet terms without items set a floor; allow more facet levels '
    '(levels=)')
NOTE_ITEMS_NESTED_CLUSTERS_ITEM = NoteKind('facets.items-nested-clusters-item', 'info',
                                            "items are nested in clusters: 'item' counts items per cluster")
NOTE_FIXED_FACETS_KEEP_PILOT = NoteKind('facets.fixed-facets-keep-pilot', 'info',
                                         "fixed facets ({value}) keep the pilot's levels and add no uncertainty")
NOTE_TARGET_NEEDS_MORE_THAN = NoteKind(
    'facets.target-needs-more-than', 'info',
    'the target needs more than {value} levels of {value2}: larger numbers were tried')


def plan_design(vc, *, target_se=None, effect=None, power: float = 0.8, confidence_level=0.95, cost=None,
                levels=None, trials=None, fixed=(), model=None, task=None, max_items: int = 10_000_000) -> DStudy:
    """Designs (items, facet levels, trials per cell) that reach a target standard error, cheapest first.

    Parameters
    ----------
    vc : VarianceComponents
        Components of a pilot (:func:`variance_components`; with ``differences=True`` for ``effect``).
    target_se : float, optional
        The standard error of each model's mean to reach.
    effect : float, optional
        Instead of ``target_se``: a difference between two models to detect with ``power`` by a two-sided test at
        ``confidence_level``; the target is then ``effect / (z_{1 - alpha/2} + z_power)`` for every pair's
        difference.
    power : float
    confidence_level : float or str
    cost : mapping, optional
        Cost per unit: ``item`` (per item), each facet (per level, e.g. writing a prompt template) and ``trial``
        (per scored response: items x levels x trials), e.g. ``{'item': 1, 'prompt': 5, 'trial': 0.2}``. Designs
        are then sorted by cost; otherwise by the number of responses.
    levels : mapping of str to sequence of int, optional
        Candidate numbers of levels per facet (default :data:`DEFAULT_LEVELS` and the pilot's).
    trials : sequence of int, optional
        Candidate trials per cell (default :data:`DEFAULT_TRIALS`; only 1 when the pilot has one trial per cell).
    fixed : sequence of str
        Facets to condition on (their levels then stay as in the pilot and do not enter the standard error).
    model, task : str, optional
        Plan on one model's (or pair's, a tuple) components, in one task; default: every model (or pair) of every
        task, each design judged by its largest predicted standard error.
    max_items : int
        Designs needing more items are left out.

    Returns
    -------
    DStudy

    Notes
    -----
    A decision (D) study in the sense of generalizability theory (Cronbach et al. 1972; Brennan 2001, chapter
    4): for each combination of facet levels and trials the number of items follows from
    ``target^2 >= A + B / n_items``, with ``A`` the terms without items and ``B`` those with them divided by the
    other factors' numbers. Facet terms that do not involve items (``s2_prompt / n_prompts``) do not shrink with
    more items, so a target below their floor needs more prompts, never more items. The prediction assumes a
    balanced design drawn from the same populations as the pilot; its accuracy rests on the pilot's components
    (see their intervals).

    References
    ----------
    Brennan, R. L. (2001). Generalizability Theory, chapter 4 (D studies). Springer.
    Cronbach, L. J., Gleser, G. C., Nanda, H. & Rajaratnam, N. (1972). The Dependability of Behavioral
    Measurements. Wiley.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import variance_components, plan_design
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(60), 4), np.tile(np.arange(4), 60)
    >>> p = 1 / (1 + np.exp(-(rng.normal(size=60)[item] + 0.3 * rng.normal(size=4)[prompt])))
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": item, "prompt": prompt,
    ...                    "score": (rng.random(240) < p).astype(int)})
    >>> plan = plan_design(variance_components(df, rng=0), target_se=0.03, cost={"item": 1, "prompt": 5})
    >>> list(plan.to_frame().columns)[:4]
    ['item', 'prompt', 'trials', 'predicted_se']
    """
    if (target_se is None) == (effect is None):
        raise ArgumentError(words('give exactly one of `{arg:target_se}` and `effect`.'))
    level = check_confidence_level(confidence_level)
    notes = []
    if effect is not None:
        effect = float(effect)
        if not effect > 0:
            raise ArgumentError(f"`effect` must be a positive difference; got {effect!r}.")
        power = check_probability(power, "power")
        target = effect / (ndtri(1 - (1 - level) / 2) + ndtri(power))
        sets = _component_sets(vc, differences=True, model=model, task=task)
        if not sets:
            raise ArgumentError("`effect` needs the components of differences: run variance_components with"
                             " differences=True on at least two models.")
        basis = "every pair (the largest SE)" if model is None else f"pair {model}"
    else:
        target = float(target_se)
        if not target > 0:
            raise ArgumentError(words('`{arg:target_se}` must be positive; got {target_se!r}.', target_se=target_se))
        power = None
        sets = _component_sets(vc, differences=False, model=model, task=task)
        if not sets:
            raise ArgumentError(f"no components for model {model!r} in task {task!r}.")
        basis = "every model (the largest SE)" if model is None else f"model {model}"
    facets = tuple(vc.facets) + (("cluster",) if any("cluster" in d.factors for d in vc.design.designs) else ())
    fixed = (fixed,) if isinstance(fixed, str) else tuple(fixed)
    cost = {} if cost is None else dict(cost)
    valid = (ITEM, *facets, "trial")
    unknown = [k for k in cost if k not in valid]
    if unknown:
        raise ArgumentError(words('`{arg:cost}`: unknown unit(s) {value}; valid: {value2}.', value=', '.join(map(repr, unknown)), value2=', '.join(map(repr, valid))))
    pilot = {f: int(np.median([len(d.levels[d.factors.index(f)]) for d in vc.design.designs if f in d.factors]))
             for f in facets if any(f in d.factors for d in vc.design.designs)}
    facets = tuple(pilot)
    has_trial = all(() in comps for _, comps in sets)
    if not has_trial:
        notes.append(NOTE_PILOT_HAS_ONE_TRIAL())
    cand = {}
    for f in facets:
        given = None if levels is None else levels.get(f)
        base = sorted(set(DEFAULT_LEVELS) | {pilot[f]}) if given is None else sorted({int(x) for x in given})
        cand[f] = [pilot[f]] if f in fixed else base
    t_cand = ([1] if not has_trial else sorted(set(DEFAULT_TRIALS) if trials is None else {int(x) for x in trials}))

    def designs(cand):
        rows = []
        grid = (np.array(np.meshgrid(*[cand[f] for f in facets], t_cand, indexing="ij")).reshape(len(facets) + 1, -1).T
                if facets else np.array(t_cand)[:, None])
        for combo in grid:
            sizes = dict(zip(facets, (int(x) for x in combo[:-1])))
            r = int(combo[-1])
            need, ok = 1, True
            other = float(np.prod(list(sizes.values()))) if sizes else 1.0
            for _, comps in sets:
                a = b = 0.0
                for factors, v in comps.items():
                    if factors and set(factors) <= set(fixed):
                        continue
                    if factors == ():
                        b += v / (other * r)
                    elif ITEM in factors:
                        b += v / float(np.prod([sizes[f] for f in factors if f != ITEM]))
                    else:
                        a += v / float(np.prod([sizes[f] for f in factors]))
                if a >= target ** 2:
                    ok = False
                    break
                need = max(need, int(np.ceil(b / (target ** 2 - a) - 1e-12)))
            if not ok or need > max_items:
                continue
            need = max(need, 2)
            full = {ITEM: need, **sizes}
            se = max(predicted_se(comps, full, trials=r, fixed=fixed) for _, comps in sets)
            obs = need * int(np.prod(list(sizes.values()) or [1])) * r
            row = {ITEM: need, **sizes, "trials": r, "predicted_se": se, "observations": obs}
            if cost:
                row["cost"] = (cost.get(ITEM, 0.0) * need + sum(cost.get(f, 0.0) * sizes[f] for f in facets)
                               + cost.get("trial", 0.0) * obs)
            rows.append(row)
        return rows

    rows = designs(cand)
    free = [f for f in facets if f not in fixed and (levels is None or f not in levels)]
    if not rows and free:  # the facet terms set a floor above the target: try many more levels
        for f in free:
            cand[f] = sorted(set(cand[f]) | set(LARGE_LEVELS))
        rows = designs(cand)
        if rows:
            notes.append(NOTE_TARGET_NEEDS_MORE_THAN(value=max(DEFAULT_LEVELS), value2=', '.join(free)))
    frame = pd.DataFrame(rows, columns=[ITEM, *facets, "trials", "predicted_se", "observations"]
                         + (["cost"] if cost else []))
    if len(frame):
        frame = frame.sort_values(["cost" if cost else "observations", "predicted_se"], kind="stable")
        frame = frame.reset_index(drop=True)
    else:
        notes.append(NOTE_NO_CANDIDATE_DESIGN_REACHES())
    if "cluster" in facets:
        notes.append(NOTE_ITEMS_NESTED_CLUSTERS_ITEM())
    if fixed:
        notes.append(NOTE_FIXED_FACETS_KEEP_PILOT(value=', '.join(fixed)))
    return DStudy(float(target), effect, power, (ITEM, *facets, "trials"), frame, basis, tuple(notes))
