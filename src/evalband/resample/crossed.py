"""Intervals that generalize over facets: replicates that resample items (or clusters) and facet levels at once.

:func:`crossed_bootstrap` returns a :class:`~evalband.resample.Replicates` (replicates of each model's per-task
mean, shaped (B, M, T)) in which items and the levels of every random facet (prompts, judges, seeds, ...) vary
independently, paired across models, so that compare, rank and summarize generalize to new prompts as well as
to new items. Trials stay within their cell, as a nested facet.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._random import block_generator, name_key, run_entropy
from .._validate import ArgumentError, ArgumentTypeError, as_generator, check_choice, check_positive_int
from .replicates import Replicates
from ._kernels import draw_counts
from .floors import CellCounts
from ..selection.facet_design import facet_design, facet_table
from ..selection.task_design import TaskDesign
from ..estimation.small_clusters import bell_mccaffrey_df, cr2_factors
from ..estimation.crossed import FEW_LEVELS, facet_family, crossed_pieces, _plural, unit_family, few_levels_notes  # noqa: F401
from ..display.notes import NoteKind
from .._words import words

__all__ = ["CROSSED_METHODS", "crossed_bootstrap", "multiplier_replicates", "FEW_LEVELS", "few_levels_notes"]

CROSSED_METHODS = ("wild", "pigeonhole")
#: replicates per random block (fixed, so results never depend on how the work is split)
BLOCK = 1000
_KEY_UNIT, _KEY_UNIT_SCALE, _KEY_LEVEL, _KEY_LEVEL_SCALE = 0x43550, 0x43551, 0x43552, 0x43553


def multiplier_replicates(observed, families, *, gen: np.random.Generator, n_resamples: int,
                          small_sample: bool = True) -> np.ndarray:
    """Wild (Gaussian multiplier) replicates of linear statistics from the influence of independent unit families.

    Parameters
    ----------
    observed : array_like, shape (M,)
        The statistic of each model.
    families : sequence of (influence, shares)
        One pair per independent family of resampled units (items or clusters; the levels of one facet):
        ``influence`` (M, U) is each unit's contribution to each model's statistic (deviations that sum to 0
        over units), ``shares`` (U,) each unit's share of the statistic's weight.
    gen : numpy.random.Generator
    n_resamples : int
    small_sample : bool
        Rescale each unit by the CR2 factor ``(1 - share)^(-1/2)`` and multiply each family's deviation by an
        independent ``sqrt(nu / chi2_nu)``, ``nu`` its Bell-McCaffrey degrees of freedom; then the percentile
        interval of any linear combination of models is the CR2 t interval (for one family).

    Returns
    -------
    numpy.ndarray, shape (n_resamples, M)

    Notes
    -----
    Replicate ``b`` is ``observed + sum_f s_bf sum_u z_bfu a_fu influence_fu`` with independent standard normal
    ``z`` shared by every model (paired). Conditionally on the data each linear combination is normal with the
    CR2 variance; the chi-square scale mixture turns it into a t distribution on the family's degrees of freedom,
    the small-sample reference of Bell & McCaffrey (2002) and Imbens & Kolesar (2016), which a percentile
    interval of an ordinary cluster bootstrap lacks (it under-covers with few clusters).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.facets import multiplier_replicates
    >>> infl = np.array([[0.1, -0.1, 0.05, -0.05]])
    >>> reps = multiplier_replicates([0.5], [(infl, np.full(4, 0.25))], gen=np.random.default_rng(0),
    ...                              n_resamples=2000)
    >>> reps.shape
    (2000, 1)
    """
    obs = np.asarray(observed, dtype=np.float64)
    out = np.broadcast_to(obs, (n_resamples, obs.size)).copy()
    for infl, shares in families:
        infl = np.asarray(infl, dtype=np.float64)
        shares = np.asarray(shares, dtype=np.float64)
        z = gen.standard_normal((n_resamples, infl.shape[1]))
        if small_sample:
            z = z * cr2_factors(shares)
            nu = bell_mccaffrey_df(shares)
            if np.isfinite(nu) and nu > 0:
                z = z * np.sqrt(nu / gen.chisquare(nu, size=n_resamples))[:, None]
        out += z @ infl.T
    return out


CROSSED_BOOTSTRAP = NoteKind("resample.crossed-bootstrap", "info",
                             "crossed {scheme} bootstrap: {units}s{levels} resampled independently, paired across"
                             " models{fixed}")
_SMALL_SAMPLE = ("small-sample correction: CR2 rescaling and a t scale mixture on Bell-McCaffrey degrees of freedom"
                 " per family of units, so percentile intervals keep their level with few clusters or facet levels")
SMALL_SAMPLE = NoteKind("resample.small-sample-correction", "info", _SMALL_SAMPLE)
SMALL_SAMPLE_POOLED = NoteKind("resample.small-sample-correction-pooled", "info",
                               _SMALL_SAMPLE + " (units: one scale for all tasks, {df:.3g} degrees of freedom of the"
                               " mean over tasks; per-task intervals with few clusters need {arg:scale='task'} or"
                               " cluster_robust)")
NOTE_PIGEONHOLE_BOOTSTRAP_CONSERVATIVE_INTERACTION = NoteKind(
    'resample.pigeonhole-bootstrap-conservative-interaction', 'caveat',
    'pigeonhole bootstrap: conservative for the interaction variance (McCullagh 2000), and without small-sample '
    'correction it under-covers with few facet levels')
NOTE_FACETS_NESTED_ITEMS_STAY = NoteKind('resample.facets-nested-items-stay', 'info',
                                          'facets nested in items ({value}) stay with their item, as trials do')


def crossed_bootstrap(data, *, facets=None, fixed=(), nested=(), method: str = "wild", small_sample: bool = True,
                      scale: str = "pooled", cluster=None, n_resamples: int = 10_000, rng=None, models=None,
                      tasks=None) -> Replicates:
    """Replicates of each model's per-task mean that resample items (or clusters) and facet levels independently.

    Parameters
    ----------
    data : Selection, ResultsTable, path or DataFrame
        Item-level results with facet columns (``table.facets``).
    facets : str or sequence of str, optional
        Facets to generalize over (default: the table's facets).
    fixed : str or sequence of str
        Facets to condition on: their levels are kept as they are.
    nested : str or sequence of str
        Facets whose levels are numbered within each item (see :func:`facet_design`).
    method : {'wild', 'pigeonhole'}
        'wild' (default): Gaussian multipliers on the influence of each unit (item or cluster) and of each facet
        level, with the small-sample corrections of ``small_sample``. 'pigeonhole': Owen's (2007) crossed
        bootstrap, multinomial counts of units and of facet levels drawn independently, the per-task mean
        recomputed on the reweighted cells (no small-sample correction).
    small_sample : bool
        'wild' only: CR2 rescaling and a t scale mixture on each family's Bell-McCaffrey degrees of freedom
        (:func:`multiplier_replicates`), so percentile intervals keep their level with few clusters or levels.
    scale : {'pooled', 'task'}
        'wild' with ``small_sample``: the t scale mixture of the units (items or clusters). 'pooled' (default): one
        scale per replicate for the units of every task, on the Bell-McCaffrey degrees of freedom of the
        equally weighted mean over tasks, so intervals of aggregates over tasks (and their pairwise differences)
        are CR2 t intervals; per-task intervals then rest on that pooled reference too (use
        :func:`cluster_robust` per task). 'task': one scale per task on its own degrees of freedom, for per-task
        inference (each task an independent dataset); aggregates over tasks are then conservative (a sum of
        independent t pieces with few degrees of freedom has heavy tails).
    cluster : bool or None
        None: units are clusters when the table has them; False: items.
    n_resamples : int
    rng : None, int, SeedSequence, BitGenerator or Generator
    models, tasks : sequence of str, optional

    Returns
    -------
    Replicates
        ``observed`` (M, T) (mean over items of each item's mean row), ``replicates`` (B, M, T), ``unit`` the
        resampled unit ('item', 'cluster', or a facet items are nested in), notes naming the facets resampled.

    Notes
    -----
    Replicate means of a crossed design vary with the items and with the facet levels. Resampling only items
    treats the 5 prompts a benchmark happened to use as the only prompts there are, and its interval misses the
    population mean (over prompts) far more often than it claims. The pigeonhole bootstrap resamples rows and
    columns independently; McCullagh (2000) showed that no bootstrap of a crossed design is exactly unbiased and
    that this one counts the interaction (residual) variance ``2^K - 1`` times for K crossed factors (Owen 2007:
    conservative, by little when main effects dominate). The wild version adds one independent piece per family
    (units; levels of each random facet) from the influence of each unit on the (ratio) mean, which counts the
    interaction twice with one facet, and corrects for few units: without that, with 5 prompts an interval rests
    on 5 numbers and covers far less than 95%.

    Random streams are keyed by names: unit multipliers by task, facet-level multipliers by the facet's name and
    its set of level labels, shared by every task with the same labels (the same templates used across tasks:
    their effects then move together across tasks), so results do not depend on row order, and permuting
    models permutes the results. Levels and items are taken in sorted order of their labels.

    References
    ----------
    Owen, A. B. (2007). The pigeonhole bootstrap. Annals of Applied Statistics 1(2), 386-411.
    McCullagh, P. (2000). Resampling and exchangeable arrays. Bernoulli 6(2), 285-301.
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2011). Robust inference with multiway clustering. JBES 29(2).
    Bell, R. M. & McCaffrey, D. F. (2002). Survey Methodology 28(2), 169-181.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import crossed_bootstrap
    >>> df = pd.DataFrame({"model": np.repeat(["a", "b"], 20), "task": "t", "item": np.tile(np.repeat(range(5), 4), 2),
    ...                    "prompt": np.tile(list("wxyz"), 10), "score": np.tile([1, 0, 1, 1, 0], 8)})
    >>> reps = crossed_bootstrap(df, facets="prompt", n_resamples=500, rng=0)
    >>> reps.replicates.shape
    (500, 2, 1)
    """
    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)
    method = check_choice(method, CROSSED_METHODS, "method")
    scale = check_choice(scale, ("pooled", "task"), "scale")
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    if cluster not in (None, True, False):
        raise ArgumentTypeError(words('`{arg:cluster}` must be None, True or False; got {cluster!r}.', cluster=cluster))
    if not isinstance(small_sample, bool):
        raise ArgumentTypeError(f"`small_sample` must be True or False; got {small_sample!r}.")
    design = facet_design(data, facets=facets, nested=nested, models=models, tasks=tasks)
    fixed = (fixed,) if isinstance(fixed, str) else tuple(fixed)
    bad = [f for f in fixed if f not in design.facets]
    if bad:
        raise ArgumentError(words('`{arg:fixed}`: {value} is not among the facets ({value2}).', value=', '.join(map(repr, bad)), value2=', '.join(map(repr, design.facets)) or 'none'))
    entropy = run_entropy(gen)
    n_m, n_t = len(design.models), len(design.tasks)
    use_clusters = cluster is not False
    if cluster is True and not any(d.clusters is not None for d in design.designs):
        raise ArgumentError(words('`{arg:cluster=True}`, but the data have no cluster column.'))
    pieces = [crossed_pieces(d, fixed, use_clusters) for d in design.designs]
    # facet levels shared across tasks by label: tasks with the same set of level labels share one family
    labels, pooled, where = {}, {}, {}
    for t, p in enumerate(pieces):
        for j, (f, lv, _, shares, _) in enumerate(p[5]):
            fam = facet_family(f, lv)
            lab = labels.setdefault(fam, np.array(sorted(map(str, lv))))
            cols = np.searchsorted(lab, lv.astype(str))
            pooled.setdefault(fam, np.zeros(len(lab)))[cols] += shares
            where[(t, j)] = (fam, cols)
    level_df = {fam: bell_mccaffrey_df(v / v.sum()) for fam, v in pooled.items()}
    observed = np.stack([p[0] for p in pieces], axis=1)
    # degrees of freedom of the unit families: each task's own, or pooled for the mean over tasks
    unit_df = [bell_mccaffrey_df(p[4]) for p in pieces]
    if scale == "pooled":
        shares_all = np.concatenate([p[4] for p in pieces])
        strata = np.repeat(np.arange(n_t), [p[4].size for p in pieces])
        sizes = np.array([design.designs[t].n_items for t in range(n_t)], dtype=np.float64)
        pooled_df = bell_mccaffrey_df(shares_all, strata, np.full(n_t, 1.0 / n_t), sizes)
        unit_df = [pooled_df] * n_t
    out = np.empty((n_resamples, n_m, n_t))
    n_blocks = -(-n_resamples // BLOCK)
    for b in range(n_blocks):
        c = min(BLOCK, n_resamples - b * BLOCK)
        rows = slice(b * BLOCK, b * BLOCK + c)
        if method == "wild":
            h, s = {}, {}
            for fam, lab in labels.items():
                key = name_key(fam)
                h[fam] = block_generator(entropy, (_KEY_LEVEL, key, b)).standard_normal((c, len(lab)))
                nu = level_df[fam]
                s[fam] = (np.sqrt(nu / block_generator(entropy, (_KEY_LEVEL_SCALE, key, b)).chisquare(nu, c))
                          if small_sample and np.isfinite(nu) and nu > 0 else np.ones(c))
            pooled_scale = None
            if small_sample and scale == "pooled" and np.isfinite(unit_df[0]) and unit_df[0] > 0:
                pooled_scale = np.sqrt(unit_df[0] / block_generator(entropy, (_KEY_UNIT_SCALE, 0, b))
                                       .chisquare(unit_df[0], c))
            for t, (theta, _, _, infl_u, shares_u, fams) in enumerate(pieces):
                task = design.tasks[t]
                z = block_generator(entropy, (_KEY_UNIT, name_key(task), b)).standard_normal((c, infl_u.shape[1]))
                dev = np.zeros((c, n_m))
                if small_sample:
                    z = z * cr2_factors(shares_u)
                    nu = unit_df[t]
                    if pooled_scale is not None:
                        z = z * pooled_scale[:, None]
                    elif np.isfinite(nu) and nu > 0:
                        z = z * np.sqrt(nu / block_generator(entropy, (_KEY_UNIT_SCALE, name_key(task), b))
                                        .chisquare(nu, c))[:, None]
                dev += z @ infl_u.T
                for j, (f, lv, infl, shares, _) in enumerate(fams):
                    fam, cols = where[(t, j)]
                    hz = h[fam][:, cols] * (cr2_factors(shares) if small_sample else 1.0)
                    dev += s[fam][:, None] * (hz @ infl.T)
                out[rows, :, t] = theta + dev
        else:
            counts = {fam: draw_counts(block_generator(entropy, (_KEY_LEVEL, name_key(fam), b)), len(lab), c)
                      for fam, lab in labels.items()}
            for t, (theta, unit_codes, _, infl_u, _, fams) in enumerate(pieces):
                d = design.designs[t]
                n_u = infl_u.shape[1]
                w = draw_counts(block_generator(entropy, (_KEY_UNIT, name_key(design.tasks[t]), b)), n_u, c)
                out[rows, :, t] = _pigeonhole_means(d, w[:, unit_codes], fams, counts,
                                                    [where[(t, j)] for j in range(len(fams))], c)
    notes = list(design.notes)
    random_f = sorted({f for p in pieces for f, *_ in p[5]})
    unit_names = sorted({p[2] for p in pieces})
    notes.append(CROSSED_BOOTSTRAP(scheme="wild multiplier" if method == "wild" else "pigeonhole",
                                   units=" and ".join(unit_names),
                                   levels=f" and levels of {', '.join(random_f)}" if random_f else "",
                                   fixed=f"; fixed: {', '.join(fixed)}" if fixed else ""))
    if method == "wild" and small_sample:
        notes.append(SMALL_SAMPLE_POOLED(df=unit_df[0]) if scale == "pooled" and n_t > 1 else SMALL_SAMPLE())
    if method == "pigeonhole":
        notes.append(NOTE_PIGEONHOLE_BOOTSTRAP_CONSERVATIVE_INTERACTION())
    notes += few_levels_notes(pieces)
    nested_f = sorted({d.factors[a] for d in design.designs for a in range(1, len(d.factors)) if 0 in d.parents[a]})
    if nested_f:
        notes.append(NOTE_FACETS_NESTED_ITEMS_STAY(value=', '.join(nested_f)))
    n_units = np.array([p[3].shape[1] for p in pieces], dtype=np.int64)
    table_groups = None
    if hasattr(data, "task_groups"):
        table_groups = data.task_groups
    kind = getattr(facet_table(data), "score_kind", "unbounded")
    cells = None
    if kind in ("binary", "bounded"):  # the items behind each mean, for the floor of intervals at 0 or 1
        n_items = np.array([d.n_items for d in design.designs], dtype=np.float64)
        cells = CellCounts(np.tile(n_items, (n_m, 1)), binary=kind == "binary")
    return Replicates(design.models, design.tasks, observed, out, "paired", unit_names[0] if len(unit_names) == 1
                      else "mixed", n_resamples, n_units, table_groups, seed, tuple(dict.fromkeys(notes)), "mean",
                      cells=cells, heavy_tails=method == "wild" and small_sample, facets=tuple(random_f))


def _pigeonhole_means(d: TaskDesign, w_item: np.ndarray, fams, counts, where, c: int) -> np.ndarray:
    """Per-task means with item weights ``w_item`` (c, I) and facet-level counts: (c, M)."""
    vc = np.ones((c, d.n_cells))
    for (_, _, _, _, lev), (fam, cols) in zip(fams, where):
        vc = vc * counts[fam][:, cols][:, lev]
    from scipy import sparse

    item = d.codes[:, 0]
    n_i = d.n_items
    out = np.empty((c, d.n_models))
    onehot_t = sparse.csr_matrix((np.ones(d.n_cells), (item, np.arange(d.n_cells))), shape=(n_i, d.n_cells))
    for m in range(d.n_models):  # models are few; cells and replicates are vectorized
        num = (onehot_t @ (vc * d.sums[m]).T).T
        den = (onehot_t @ (vc * d.n[m]).T).T
        ok = den > 0
        ybar = np.where(ok, num / np.where(ok, den, 1.0), 0.0)
        wk = w_item * ok
        tot = wk.sum(axis=1)
        out[:, m] = np.where(tot > 0, (wk * ybar).sum(axis=1) / np.where(tot > 0, tot, 1.0), np.nan)
    return out
