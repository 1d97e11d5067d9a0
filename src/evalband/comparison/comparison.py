"""All pairwise comparisons of models, for any aggregate and per task, from one bootstrap replicate set."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, InputError, OVERLAP_CONFIDENCE, check_alternative, check_choice,
                         check_confidence_level, check_positive_int)
from ..aggregate import aggregate_notes, evaluate_aggregates
from ..resample import ReplicateSet, replicates_for
from ..selection import select
from .exact import mcnemar_exact
from .few_discordant import exact_when_few_discordant
from .multiplicity import CORRECTIONS
from ._analytic import analytic as _analytic, pooled_item_correlation as _pooled_item_correlation, \
    task_variances as _task_variances
from .pairwise import PairwiseComparison, pairwise_differences
from .per_task import task_comparison
from .p_values import INTERVAL_METHODS, p_floor
from .sensitivity import DEFAULT_CORRELATIONS, correlated_replicates, describe_sweep
from .verdict import check_margin
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["compare", "Comparison", "PairwiseComparison", "pairwise_differences"]


@displayed


@dataclass(frozen=True, repr=False)
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    models : tuple of str
    aggregates : tuple of PairwiseComparison
        One per aggregate asked for.
    tasks : tuple of PairwiseComparison
        One per task (empty when ``per_task=False``).
    sensitivity : tuple of PairwiseComparison
        Summary data only: the aggregate comparisons again at each assumed between-model correlation.
    replicates : evalband.resample.Replicates
        The one replicate set behind every number.
    paired : bool
        Whether the replicates keep models paired (item-level data resampled with the same items).
    notes : tuple of str
        What was assumed or left out.
    tasks_left_out : dict
        Task left out -> the selected models with no result on it (empty tuple: the models have results but
        share no item). Aggregates are over the other tasks; ``notes`` says so.
    selection : Selection
        The models, tasks and weights compared (:func:`evalband.select`).
    aggregate_values : tuple of AggregateValues
        Each aggregate evaluated on the replicates (observed, samples, direction, scale): what rankings of the
        same run read instead of evaluating the aggregates again.
    """

    __display__ = {"columns": ("aggregate", "model_a", "model_b", "difference", "se", "ci_low", "ci_high", "p_value", "verdict", "confidence_level"), "scale_attr": "display_scale"}

    models: tuple
    aggregates: tuple
    tasks: tuple
    sensitivity: tuple
    replicates: object
    paired: bool
    notes: tuple = ()
    tasks_left_out: dict = field(default_factory=dict)
    selection: object = field(default=None, repr=False, compare=False)
    aggregate_values: tuple = field(default=(), repr=False, compare=False)
    on_shared_items: bool = False
    """Whether no item is shared by every model, so that each pair was compared on the items both models have
    (``n_units`` per pair; :mod:`evalband.comparison.shared`): ``replicates`` then holds one replicate set per
    pair and ``aggregate_values`` is empty (the models' values rest on different items)."""
    pair_tasks: np.ndarray | None = field(default=None, repr=False, compare=False)
    """``missing='common'`` on data where some model lacks a task: (models x models) counts of the tasks each
    pair was compared on (``n_tasks`` in the aggregate frame); None otherwise."""

    def to_frame(self, level: str = "aggregate") -> pd.DataFrame:
        """Tidy table of the pairs: ``level`` 'aggregate', 'task' or 'sensitivity' (with ``missing='common'``
        on incomplete data the aggregate frame gives ``n_tasks``, the tasks each pair shares)."""
        level = check_choice(level, ("aggregate", "task", "sensitivity"), "level")
        parts = {"aggregate": self.aggregates, "task": self.tasks, "sensitivity": self.sensitivity}[level]
        if not parts:
            return pd.DataFrame()
        frames = [p.to_frame() for p in parts]
        if level == "aggregate" and self.pair_tasks is not None:
            frames = [f.assign(n_tasks=self.pair_tasks[np.asarray(p.index_a), np.asarray(p.index_b)])
                      for f, p in zip(frames, parts)]
        return pd.concat(frames, ignore_index=True)

    @property
    def display_scale(self) -> float:
        """The display multiplier of the first aggregate (points for proportions), for ``str()``."""
        return float(self.aggregates[0].scale) if self.aggregates else 1.0

    @property
    def n_resamples(self) -> int:
        """Bootstrap replicates behind every number (of each pair's replicate set, on shared items)."""
        return int(self.replicates.n_resamples)

    @property
    def p_floor(self) -> float:
        """The smallest two-sided bootstrap p-value the replicates can give, ``2 / (B + 1)`` (``str()`` shows
        p-values there as below it, as the command line does)."""
        return p_floor(self.n_resamples)

    def headline(self) -> str:
        """One line: how many pairs are decided, per aggregate (:meth:`PairwiseComparison.decided_text`)."""
        return "; ".join(pc.decided_text(undecided=False) for pc in self.aggregates)

    def readings(self, level: str = "aggregate") -> list[str]:
        """The one-sentence reading of every pair."""
        level = check_choice(level, ("aggregate", "task", "sensitivity"), "level")
        parts = {"aggregate": self.aggregates, "task": self.tasks, "sensitivity": self.sensitivity}[level]
        return [r for p in parts for r in p.readings]

    def __getitem__(self, name: str) -> PairwiseComparison:
        for p in self.aggregates + self.tasks:
            if p.statistic == name:
                return p
        raise KeyError(f"no aggregate or task named {name!r}")


NOTE_NO_PAIRING_BETWEEN_MODELS = NoteKind(
    'comparison.no-pairing-between-models', 'caveat',
    'no pairing between models in these data{value}: the main result assumes a between-model correlation of '
    '{rho:g}; each verdict is repeated at assumed correlations {grid} (`sensitivity`)')
NOTE_INTERVALS_REST_FEWER_THAN = NoteKind(
    'comparison.intervals-rest-fewer-than', 'caveat',
    "{statistic}: the {correction} intervals at {interval_level:.4%} rest on fewer than 10 replicates per tail "
    "(B = {b:,}; {n_difference} pairs) and p-values cannot fall below {value:.2g}; raise {arg:n_resamples} or "
    "use {arg:correction='max-t'}")
NOTE_SE_HALF_WIDTH_CENTRAL = NoteKind(
    'comparison.se-half-width-central', 'info',
    "se: half the width of the central 68% interval of the replicates, stable from seed to seed; the replicates of"
    " the small-sample correction (few facet levels or clusters) are a t scale mixture whose standard deviation is"
    " not (se_bootstrap){facets}")
NOTE_PER_TASK_COMPARISONS_LEFT = NoteKind(
    'comparison.per-task-comparisons-left', 'excluded',
    'per-task comparisons left out: {n_pairs:,} pairs x {n_tasks} tasks is {value:,} pair rows (more than '
    '{per_task_rows:,}); per_task=True computes them')


def compare(data, *, aggregate="mean", weights=None, group_weights=None, models=None, tasks=None,
            replicates=None, resampling: str = "auto", n_resamples: int = 10_000, method: str = "percentile",
            confidence_level=0.95, alternative: str = "two-sided", correction: str = "none",
            margin: float = 0.0, correlation: float | None = None, correlations=DEFAULT_CORRELATIONS,
            per_task: bool | str = "auto", permutation: bool = False, n_permutations: int = 9999, cluster=None,
            aggregate_options=None, rng=None, fixed=None, ppi: str = "ppi++", missing: str = "drop",
            _family=None) -> Comparison:
    """Compare every pair of models on any aggregate over tasks and on each task.

    Parameters
    ----------
    data : Selection, ResultsTable, path, DataFrame or Replicates
        Evaluation results (anything :func:`evalband.select` accepts), or replicates already drawn.
    aggregate : str, callable or sequence
        Aggregate(s) over tasks by name ('mean', 'geometric', 'minmax', 'mean-rank', ...; see
        ``evalband.aggregate.AGGREGATES``), a comma-separated string, or a function of the (..., models, tasks)
        score array.
    weights, group_weights : optional
        Task weights (array in task order or mapping task -> weight) and group weights ('equal' or mapping
        group -> weight) for weighted aggregates (see ``evalband.aggregate.get_aggregate``). Tasks or groups a
        mapping does not name get weight 0, and ``notes`` lists them.
    models, tasks : sequence of str, optional
        Restrict the comparison (and so the pairs). Without ``tasks``, a task that a selected model has no
        result on (or, at item level, on which the models share no item) is left out, named in ``notes`` and
        ``Comparison.tasks_left_out``; aggregates are over the other tasks. A task named in ``tasks`` that a
        model lacks is an error, and so is a selection with no task left. Task weights that give a left-out task
        a positive weight are refused (give it weight 0, or leave the model out); group weights stay the groups'
        weights, shared among the tasks each group keeps (with a note).
    replicates : Replicates, optional
        Reuse a replicate set (drawn by ``evalband.resample.bootstrap`` on the same table).
    resampling : {'auto', 'paired', 'independent'}
        'auto' pairs item-level data and resamples summary data independently (binomially).
    n_resamples : int
    method : {'percentile', 'basic', 'bca'}
        Bootstrap interval method (BCa needs the replicates' jackknife values).
    confidence_level : float or str
        Family confidence level (0.95, '95%'). 'overlap' (0.834) is refused: it is calibrated for judging two
        independent per-model intervals by eye (Goldstein & Healy 1995), not for an interval of the difference,
        where it would make verdicts at about a 17% error rate.
    alternative : {'two-sided', 'less', 'greater'}
    correction : {'none', 'bonferroni', 'holm', 'bh', 'max-t'}
        Multiple-comparison control over the pairs of each aggregate (and, separately, of each task).
    margin : float
        Practical margin on the statistic's scale (0.01 = one accuracy point) for the verdicts: 'A better' needs
        the whole interval above ``+margin``, 'equivalent' the whole interval inside ``(-margin, margin)``. The
        readings and ``verdict_detail`` say what a 'not yet decided' interval does settle (e.g. "A better, but
        not decidedly by more than the 1-point margin" when it excludes 0 but not the margin).
    correlation : float, optional
        Summary data: assumed between-model correlation of the main result (default 0, independent).
    correlations : sequence of float
        Summary data: correlations swept in ``Comparison.sensitivity``.
    per_task : bool or 'auto'
        Also compare pairs within each task. 'auto' (the default) does so up to :data:`PER_TASK_ROWS` pair rows
        (pairs x tasks; 100 models on 200 tasks) and with ``permutation``; beyond that the per-task tables (10
        million rows for 1,000 models on 20 tasks, about 20 times the aggregate's work) are left out with a note.
    permutation : bool
        Item-level data: add a paired sign-flip permutation p-value per task and pair (``n_permutations``).
    cluster : bool, optional
        Passed to the bootstrap: None resamples whole clusters when the data have them, False resamples items.
    aggregate_options : dict, optional
        Further options of ``evalband.aggregate.get_aggregate`` (floors, ceilings, chance, bin_width, ...).
    rng : seed or Generator
        The same seed gives the same numbers.
    fixed : str, sequence of str, True or None
        Facets (prompt, judge, run, ...) to condition on. By default facet columns crossed with items are random:
        the replicates resample their levels too, and with few clusters they carry the small-sample correction
        (:func:`evalband.facets.default_replicates`; the notes say which).
    missing : {'drop', 'common', 'ability'}
        Tasks some selected model has no result on. 'drop' (default): left out of every pair, named in a note
        that counts the cells left out. 'common': each pair compared on the tasks both models have (its own
        paired bootstrap; ``n_tasks`` per pair in the frame; 'bh' and 'max-t' fall back to Bonferroni); on
        complete data the same comparison as 'drop'. 'ability' is the latent-ability model's comparison
        (:func:`evalband.ability`, its ``comparisons``; ``evalband compare --missing ability``).
    ppi : {'ppi++', 'classic', 'labelled', 'none'}
        Item-level results with human labels (measure ``human``): compare the models' human-scale means, from
        the replicates of their prediction-powered estimates (:mod:`evalband.resample.ppi`; PPI++ by
        default); the analytic, McNemar and permutation checks, which read the judge's item scores, are left
        out. 'none': the judge's scores at face value.

    Returns
    -------
    Comparison

    Notes
    -----
    Every interval, p-value and verdict comes from the bootstrap distribution of the **difference** of the two
    models' statistics on the same replicates, never from overlapping per-model intervals. With item-level data
    the replicates are paired (the same items for every model), which keeps the between-model correlation; the
    analytic paired standard error is reported beside the bootstrap one as a check (Miller 2024). Summary data
    carry no pairing: the replicates are independent across models, which overstates the variance of a difference
    when models are positively correlated, so the comparison is repeated with the correlation assumed from 0 to 0.5
    (seed 000, section 5.3) and each reading says how its verdict moves.

    The bootstrap is valid for smooth statistics of many items per task (means, weighted means, min-max
    normalized means); for rank-based aggregates and the maximum over models it is a useful description, but
    intervals can undercover when models are tied.

    No verdict comes from too little: a difference resting on fewer than 10 resampling units (items, or clusters
    when clusters are resampled; for an aggregate, summed over tasks), or whose interval has zero width, is 'not
    yet decided' with a NaN p-value and a reading that says why (:func:`~evalband.comparison.verdict.withhold`).
    Binary paired scores with fewer than 10 discordant items on a task (or on the only task, for aggregates that
    are weighted means) take the exact McNemar p-value and verdict instead of the bootstrap ones
    (``verdict_basis`` says which rule applied).

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640.
    Longjohn, R., Gopalan, G. & Casleton, E. (2025). Statistical Uncertainty Quantification for Aggregate
    Performance Metrics in Machine Learning Benchmarks. arXiv:2501.04234.

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("vtab")
    >>> comparison = eb.compare(table, models=["Exemplar", "Rotation", "VAE"], n_resamples=500, rng=0)
    >>> comparison.headline()
    'mean: 3 of 3 pairs decided'
    >>> comparison.to_frame()[["model_a", "model_b", "verdict"]]
        model_a   model_b   verdict
    0  Rotation  Exemplar  A better
    1  Rotation       VAE  A better
    2  Exemplar       VAE  A better
    """
    method = check_choice(method, INTERVAL_METHODS, "method")
    correction = check_choice(correction, CORRECTIONS, "correction")
    alternative = check_alternative(alternative)
    confidence_level = check_confidence_level(confidence_level)
    if abs(confidence_level - OVERLAP_CONFIDENCE) < 1e-9:
        raise ArgumentError(words("`{arg:confidence_level}` 'overlap' (83.4%) is for per-model overlap displays (summarize); intervals for differences and their verdicts need a level such as 0.95."))
    margin = check_margin(margin)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    missing = check_choice(missing, MISSING, "missing")
    if missing == "ability":
        raise ArgumentError(words("`{arg:missing='ability'}` compares latent abilities: evalband.ability(data).comparisons"))
    if missing == "common" and replicates is None and _family is None and not isinstance(data, ReplicateSet):
        from .shared import compare_pairs, lacks_tasks

        base = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
        if lacks_tasks(base):  # else every pair has every task: the comparison of missing='drop'
            return compare_pairs(base, compare, correction=correction, per_task=per_task, permutation=permutation,
                                 rng=rng, aggregate=aggregate, resampling=resampling, n_resamples=n_resamples,
                                 method=method, confidence_level=confidence_level, alternative=alternative,
                                 margin=margin, correlation=correlation, correlations=correlations,
                                 n_permutations=n_permutations, cluster=cluster, aggregate_options=aggregate_options,
                                 fixed=fixed, ppi=ppi, common_tasks=True)
    try:
        sel, reps, gen = replicates_for(data, models=models, tasks=tasks, weights=weights,
                                        group_weights=group_weights, replicates=replicates, resampling=resampling,
                                        n_resamples=n_resamples, rng=rng, cluster=cluster, fixed=fixed,
                                        jackknife=method == "bca", ppi=ppi)
    except InputError:  # no task left: if no item is shared by every model while pairs share items, pair by pair
        if replicates is not None or _family is not None or isinstance(data, ReplicateSet):
            raise
        from .shared import compare_pairs, needs_pairs

        base = select(data, models=models, tasks=tasks, weights=weights, group_weights=group_weights)
        if not needs_pairs(base, resampling=resampling, ppi=ppi):
            raise
        return compare_pairs(base, compare, correction=correction, per_task=per_task, permutation=permutation,
                             rng=rng, aggregate=aggregate, resampling=resampling, n_resamples=n_resamples,
                             method=method, confidence_level=confidence_level, alternative=alternative,
                             margin=margin, correlation=correlation, correlations=correlations,
                             n_permutations=n_permutations, cluster=cluster, aggregate_options=aggregate_options,
                             fixed=fixed, ppi=ppi)
    table = sel.table
    # no pairing to measure: summary counts (binomial replicates), or independent replicates given without a table
    summary = reps.resampling == "binomial" or (table is None and reps.resampling != "paired")
    if getattr(reps, "ppi", None) is not None:  # PPI replicates: the table's item scores are the judge's, so the
        table = None                            # checks that read them (analytic SE, McNemar) do not apply
    paired = reps.resampling == "paired"
    binomial = reps.resampling == "binomial"
    notes = list(dict.fromkeys([*reps.notes, *sel.notes]))
    if summary:
        rho = 0.0 if correlation is None else float(correlation)
        sweep = sorted({float(c) for c in correlations} | {rho})
        grid = f"{sweep[0]:g} to {sweep[-1]:g}" if len(sweep) > 2 else " and ".join(f"{c:g}" for c in sweep)
        notes.append(NOTE_NO_PAIRING_BETWEEN_MODELS(value='' if binomial else ' (resampled independently)', rho=rho, grid=grid))
    else:
        rho = None
        sweep = []
        if correlation is not None:
            raise ArgumentError("`correlation` applies to data without pairing (summary-level counts) only; with"
                             " item-level data the correlation is measured.")
    family = dict(_family or {})  # the pairs on shared items: one pair here, the family counted there
    options = dict(method=method, confidence_level=confidence_level, alternative=alternative,
                   correction=correction, margin=margin, family=family.get("aggregate"))
    units_t = np.asarray(reps.n_units, dtype=np.float64)
    unit_name = "clusters" if reps.unit == "cluster" else "items"
    options["unit_name"] = unit_name
    aggs = evaluate_aggregates(reps, aggregate, weights=sel.weights, jackknife=(method == "bca"),
                               **dict(aggregate_options or {}))
    for av in aggs:  # a margin in points where a fraction was meant is refused (it would make every pair equivalent)
        check_margin(margin, scale=av.scale)
    notes += aggregate_notes(aggs)
    per_task_var = _task_variances(table, reps, paired) if not summary else None
    strata = jk_all = None
    if method == "bca":
        jk_all = reps.jackknife()
        strata = reps.jackknife_strata()

    def run(obs_mt, reps_bmt, assumed, keep, sweep_texts=None):
        agg_out = []
        for av in aggs:
            if reps_bmt is reps.replicates:
                samples = av.samples
            else:
                samples = np.asarray(av.function(reps_bmt), dtype=np.float64)
            observed_ = av.observed
            se_fn, _ = _analytic(av.linear_weights, reps, per_task_var, assumed if binomial else None)
            corr_fn = _pooled_item_correlation(per_task_var, len(reps.models)) if per_task_var is not None \
                else (None if assumed is None else (lambda ia, ib, c=assumed: np.full(ia.shape, c, dtype=float)))
            extra = None if sweep_texts is None else sweep_texts.get(av.name)
            agg_out.append(pairwise_differences(
                observed_, samples, reps.models, statistic=av.name, scope="aggregate", jackknife=av.jackknife,
                jackknife_strata=strata,
                higher_is_better=av.higher_is_better, se_analytic=se_fn, correlation=corr_fn, scale=av.scale,
                unit=av.unit, keep_replicates=keep, assumed_correlation=assumed, extra_readings=extra,
                n_units=float(units_t.sum()), **options))
        return agg_out

    sens = []
    sweep_texts = None
    if summary:
        by_rho = {}
        for c in sweep:
            r = reps.replicates if c == 0 else correlated_replicates(reps.observed, reps.replicates, c, rng=gen)
            by_rho[c] = run(reps.observed, r, c, keep=False)
        sens = [pc for c in sweep for pc in by_rho[c]]
        sweep_texts, sweep_plain = {}, {}
        for k, av in enumerate(aggs):
            verdict_grid = np.array([by_rho[c][k].verdict for c in sweep])  # (C, P)
            first = by_rho[sweep[0]][k]
            texts, plain = [], []
            for p in range(verdict_grid.shape[1]):
                beyond = " beyond the margin" if margin > 0 else ""
                named = {"A better": f"{first.model_a[p]} better{beyond}",
                         "B better": f"{first.model_b[p]} better{beyond}"}
                steps = [named.get(v, v) for v in verdict_grid[:, p]]
                texts.append(f"(assumed correlation {min(sweep):g} to {max(sweep):g}: "
                             f"{describe_sweep(sweep, steps)})")
                plain.append(describe_sweep(sweep, list(verdict_grid[:, p])))
            sweep_texts[av.name] = texts
            sweep_plain[av.name] = tuple(plain)
        main_reps = reps.replicates if rho == 0 else correlated_replicates(reps.observed, reps.replicates, rho,
                                                                           rng=gen)
        aggregates = [replace(pc, verdict_by_correlation=sweep_plain[pc.statistic])
                      for pc in run(reps.observed, main_reps, rho, keep="auto", sweep_texts=sweep_texts)]
    else:
        main_reps = reps.replicates
        aggregates = run(reps.observed, main_reps, None, keep="auto")
        if len(reps.tasks) == 1 and per_task_var is not None and per_task_var[0] is not None \
                and table.binary_items and reps.unit == "item":
            # one task: a weighted mean of it is its mean, so the exact test of the task applies to the aggregate
            sc = per_task_var[0]["scores"]
            aggregates = [exact_when_few_discordant(replace(
                pc, p_mcnemar=mcnemar_exact(sc[pc.index_a], sc[pc.index_b],
                                            alternative=alternative).p_value.astype(float)),
                sc[pc.index_a], sc[pc.index_b], options) if aggs[k].linear_weights is not None else pc
                for k, pc in enumerate(aggregates)]

    b = reps.replicates.shape[0]
    for pc in aggregates:
        tail = (1 - pc.interval_level) / (2 if alternative == "two-sided" else 1)
        if pc.correction in ("bonferroni", "holm", "bh") and tail * b < 10:
            notes.append(NOTE_INTERVALS_REST_FEWER_THAN(statistic=pc.statistic, correction=pc.correction, interval_level=pc.interval_level, b=b, n_difference=len(pc.difference), value=p_floor(b, 'greater')))
    task_results = []
    n_pairs = len(reps.models) * (len(reps.models) - 1) // 2
    if isinstance(per_task, str) and per_task == "auto":
        per_task = bool(permutation) or n_pairs * len(reps.tasks) <= PER_TASK_ROWS
        if not per_task:
            notes.append(NOTE_PER_TASK_COMPARISONS_LEFT(n_pairs=n_pairs, n_tasks=len(reps.tasks), value=n_pairs * len(reps.tasks), per_task_rows=PER_TASK_ROWS))
    if per_task:
        for t, task in enumerate(reps.tasks):
            task_options = {**options, "family": family.get("tasks", {}).get(task)}
            task_results.append(task_comparison(t, task, table, reps, main_reps, paired, summary, rho,
                                                per_task_var, permutation, n_permutations, gen, task_options,
                                                strata, jk_all, binomial))
    if getattr(reps, "heavy_tails", False):
        aggregates = [_central(pc, av.samples, reps) for pc, av in zip(aggregates, aggs)]
        task_results = [_central(pc, main_reps[:, :, t], reps) for t, pc in enumerate(task_results)]
        notes.append(NOTE_SE_HALF_WIDTH_CENTRAL(
            facets=("; se_analytic is left empty: it counts the items only, not the levels of "
                    + ", ".join(reps.facets) if reps.facets else "")))
    return Comparison(tuple(reps.models), tuple(aggregates), tuple(task_results), tuple(sens), reps, paired,
                      tuple(notes), sel.tasks_left_out, sel, tuple(aggs))


def _central(pc, samples, reps, block: int = 1 << 24):
    """A pairwise comparison of heavy-tailed replicates with its ``se`` read from their central spread and the
    bootstrap SD kept as ``se_bootstrap`` (:attr:`evalband.resample.Replicates.heavy_tails`)."""
    from ..resample import central_se

    s = np.asarray(samples, dtype=np.float64)
    ia, ib = np.asarray(pc.index_a), np.asarray(pc.index_b)
    se = np.empty(ia.size)
    step = max(1, block // max(1, s.shape[0]))
    for k in range(0, ia.size, step):
        se[k:k + step] = central_se(s[:, ia[k:k + step]] - s[:, ib[k:k + step]])
    se = np.where(np.isfinite(np.asarray(pc.se, dtype=float)), se, np.nan)  # a withheld SE stays withheld
    out = replace(pc, se=se, se_bootstrap=np.asarray(pc.se, dtype=float))
    if reps.facets:  # the items-only analytic SE would contradict an interval over new facet levels
        out = replace(out, se_analytic=np.full(ia.size, np.nan))
    return out


#: pair rows (pairs x tasks) up to which ``per_task='auto'`` compares the pairs within each task
PER_TASK_ROWS = 1_000_000
#: what `missing` may be: tasks some model lacks are dropped, each pair uses the tasks both have, or the
#: latent-ability model uses every cell
MISSING = ("drop", "common", "ability")
