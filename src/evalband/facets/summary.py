"""Where the variance comes from, in one result: components, standard errors random and fixed, a D-study and runs.

:func:`facet_summary` is what ``evalband variance`` prints and the report's section "Where the variance comes
from" shows (:func:`evalband.analysis.variance.variance_extension`, registered in :mod:`evalband.analysis.extensions`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, check_positive_int
from ..display.reprs import displayed
from .components import VarianceComponents, variance_components
from ..selection.facet_design import check_fixed
from ..selection.facet_design import facet_table
from .dstudy import DStudy, plan_design
from .runs import RunSpread, run_spread
from .._words import words

__all__ = ["FacetSummary", "facet_summary", "RUN_FACET"]

#: the facet whose levels are training runs (seeds, checkpoints): its spread and best-of-n inflation are shown
RUN_FACET = "run"


@displayed
@dataclass(frozen=True, repr=False)
class FacetSummary:
    """Variance components with the standard errors they imply, the designs that reach a target, and runs.

    Attributes
    ----------
    components : VarianceComponents
        Per model, pair and task (:func:`variance_components`).
    plan : DStudy or None
        Designs reaching ``target_se`` (items, facet levels, trials), cheapest first.
    runs : RunSpread or None
        Spread across runs and the inflation of best-of-n reporting, when the table has a ``run`` facet.
    target_se : float
    notes : tuple of str
    """

    components: VarianceComponents
    plan: DStudy | None
    runs: RunSpread | None
    target_se: float
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """Per model, task and component (see :meth:`VarianceComponents.to_frame`)."""
        return self.components.to_frame()

    def se_frame(self) -> pd.DataFrame:
        """Per model and task: estimate, ``se_random``, ``se_fixed`` (every facet fixed), their df, a
        ``se_fixed_<facet>`` column per facet when there are several, and the G coefficients."""
        return _se_wide(self.components, difference=False)

    def difference_se_frame(self) -> pd.DataFrame:
        """The same per pair of models (``model_a - model_b``)."""
        return _se_wide(self.components, difference=True)

    def sample_size_advice(self, model_a: str, model_b: str, effect: float, *, power: float = 0.8,
                           unit: str = "points", scale: float = 100.0) -> str | None:
        """What it takes to detect a difference ``effect`` between two models ``power`` of the time, from the
        D-study of the pair's variance components (:func:`plan_design`): whether more items alone would do it
        (the facets' own variance does not shrink with items), and the design with the fewest facet levels that
        does. None when the components do not cover the pair.
        """
        vc = self.components
        pair = next((p for p in ((model_a, model_b), (model_b, model_a)) if any(k[1:] == p for k in vc._fits)),
                    None)
        if pair is None or not vc.facets or not effect > 0:
            return None
        plan = plan_design(vc, effect=float(effect), power=power, model=pair, fixed=vc.fixed)
        random = [f for f in vc.facets if f not in vc.fixed]
        pilot = {f: min(len(d.levels[d.factors.index(f)]) for d in vc.design.designs if f in d.factors)
                 for f in random}
        items_now = min(d.n_items for d in vc.design.designs)
        how = f"detecting a true gap of {effect * scale:.3g} {unit} {power:.0%} of the time"
        designs = plan.designs
        if not len(designs):
            return (f"By the D-study of the variance components, {how} needs more than any design tried (up to"
                    f" {int(designs['item'].max()) if len(designs) else 'millions of'} items).")
        same = designs
        for f, k in pilot.items():
            same = same[same[f] == k]
        levels = lambda r: " x ".join(f"{int(r[f]):,} {f if int(r[f]) == 1 else f + 's'}" for f in random)
        fewest = designs.assign(_l=np.prod([designs[f].to_numpy(dtype=float) for f in random], axis=0))
        fewest = fewest.sort_values(["_l", "observations"]).iloc[0]
        what = ", ".join(f"{k} {f + 's' if k != 1 else f}" for f, k in pilot.items())
        if len(same):
            n = int(same.iloc[0]["item"])
            text = (f"By the D-study of the variance components, {how} needs about {n / items_now:.0f} times as many"
                    f" items ({n:,} with the same {what})" if n >= 1.5 * items_now else
                    f"By the D-study of the variance components, the gap is about as large as this design can"
                    f" detect ({n:,} items with the same {what} would)")
            if int(fewest["item"]) < n:
                text += f", or {int(fewest['item']):,} items with {levels(fewest)}"
            return text + "."
        return (f"By the D-study of the variance components, more items alone would not do it: with {what} the"
                f" variance of the {' and '.join(random)} levels alone exceeds what {how} allows, and it does not"
                f" shrink with items; it takes {levels(fewest)} (with {int(fewest['item']):,} items), or more.")

    def __repr__(self) -> str:
        vc = self.components
        lines = [repr(vc).splitlines()[0]]
        se = self.se_frame()
        for r in se.head(6).itertuples():
            lines.append(f"  {r.model} / {r.task}: se {r.se_random:.2g} with facets random, {r.se_fixed:.2g} fixed")
        if self.plan is not None and len(self.plan.designs):
            best = self.plan.best
            lines.append(f"  cheapest design for se {self.target_se:.2g}: " + ", ".join(
                f"{k} {int(best[k]):,}" for k in self.plan.factors))
        if self.runs is not None:
            lines.append(f"  runs: {len(self.runs.frame)} rows of spread and best-of-n inflation")
        return "\n".join(lines)


def _se_wide(vc: VarianceComponents, *, difference: bool) -> pd.DataFrame:
    f = vc.se_frame()
    f = f[f["difference"] == difference]
    allf = ",".join(vc.facets)
    key = ["model", "task"]
    base = f[f["fixed"] == ""][key + ["estimate", "se", "df", "g_relative", "g_absolute"]].rename(
        columns={"se": "se_random", "df": "df_random"})
    fixed = f[f["fixed"] == allf][key + ["se", "df"]].rename(columns={"se": "se_fixed", "df": "df_fixed"})
    out = base.merge(fixed, on=key, how="left")
    if len(vc.facets) > 1:
        for facet in vc.facets:
            one = f[f["fixed"] == facet][key + ["se"]].rename(columns={"se": f"se_fixed_{facet}"})
            out = out.merge(one, on=key, how="left")
    if difference:  # "a - b" labels; one model has no pair, and the frame keeps its columns, empty
        parts = out["model"].str.split(" - ", n=1, expand=True, regex=False).reindex(columns=[0, 1])
        out.insert(0, "model_b", parts[1].astype(object))
        out.insert(0, "model_a", parts[0].astype(object))
        out = out.drop(columns="model")
    cols = [c for c in out.columns if c not in ("g_relative", "g_absolute")] + ["g_relative", "g_absolute"]
    return out[cols].reset_index(drop=True)


def facet_summary(data, *, facets=None, fixed=(), nested=(), n_resamples: int = 2000, confidence_level=0.95,
                  rng=None, target_se=None, cost=None, models=None, tasks=None) -> FacetSummary:
    """Where the variance comes from: components, standard errors with facets random and fixed, a D-study, runs.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with facet columns.
    facets : str or sequence of str, optional
        The facets to analyse (default: the table's facets).
    fixed : str, sequence of str or True
        Facets conditioned on in the shares (the standard errors are given both ways).
    nested : str or sequence of str
        Facets whose levels are numbered within each item (:func:`facet_design`).
    n_resamples : int
        Pivotal draws of the components' intervals (and bootstrap replicates of the runs' intervals).
    confidence_level : float or str
    rng : seed or Generator
    target_se : float, optional
        Standard error the D-study designs must reach; default half of the largest standard error of a model's
        mean with facets random (designs that halve today's uncertainty).
    cost : mapping, optional
        Cost per item, per facet level and per trial (:func:`plan_design`).
    models, tasks : sequence of str, optional

    Returns
    -------
    FacetSummary

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import facet_summary
    >>> rng = np.random.default_rng(0)
    >>> item, prompt = np.repeat(np.arange(40), 5), np.tile(np.arange(5), 40)
    >>> p = 1 / (1 + np.exp(-(rng.normal(size=40)[item] + rng.normal(size=5)[prompt])))
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": item, "prompt": prompt,
    ...                    "score": (rng.random(200) < p).astype(int)})
    >>> s = facet_summary(df, n_resamples=200, rng=1)
    >>> list(s.se_frame().columns[:4])
    ['model', 'task', 'estimate', 'se_random']
    """
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=100)
    table = facet_table(data, facets)
    if table.level != "item":
        raise ArgumentError("variance components need item-level data; this table holds per-task summaries.")
    fixed = check_fixed(table, fixed)
    if facets is None:
        facets = tuple(table.facets)
    facets = (facets,) if isinstance(facets, str) else tuple(facets)
    if not facets:
        raise ArgumentError(words('the table has no facet column: name the columns with `{arg:facets}` (prompt, judge, run, ...); trials alone are analysed by {fn:evalband.estimation.trial_variance}.'))
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    vc = variance_components(table, facets=facets, fixed=fixed, nested=nested, models=models, tasks=tasks,
                             n_resamples=n_resamples, confidence_level=confidence_level, rng=gen)
    notes = list(vc.notes)
    finite = np.asarray(vc.se_random)[np.isfinite(vc.se_random)]
    target = (float(finite.max()) / 2 if finite.size else float("nan")) if target_se is None else float(target_se)
    plan = None
    if np.isfinite(target) and target > 0:
        plan = plan_design(vc, target_se=target, cost=cost, fixed=fixed)
        notes += [n for n in plan.notes if n not in notes]
    runs = None
    if RUN_FACET in facets and RUN_FACET in table.facets:
        runs = run_spread(table, run=RUN_FACET, models=models, tasks=tasks, confidence_level=confidence_level,
                          n_resamples=n_resamples, rng=gen)
        notes += [n for n in runs.notes if n not in notes]
    return FacetSummary(vc, plan, runs, target, tuple(dict.fromkeys(notes)))


