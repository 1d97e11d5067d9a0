"""``backtest``: would subset evaluation have worked on this benchmark? Leave-one-model-out on the reference.

Each reference model in turn plays the new model, the others are the reference; its full-benchmark score (and
its difference from a reference model) is known, so the coverage and width of the intervals that
:func:`evalband.subset.estimate` would give from ``budget`` items can be counted, budget by budget, over several
random samples per model, beside the error of the anchor-point estimates of tinyBenchmarks (no interval).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._distributions import t_ppf
from .._progress import track
from .._random import block_generator, name_key, run_entropy
from .._validate import ArgumentError, as_generator, check_choice, check_confidence_level, check_positive_int
from ..display.reprs import displayed
from .anchors import anchor_estimates, anchor_points, fit_reference_irt
from .choose import MAX_BINS, _stratum_sd
from .design import difficulty_strata, draw, neyman_allocation
from .estimate import sample_estimates
from .population import population_of
from .._words import words
from ..display.notes import NoteKind

__all__ = ["backtest", "SubsetBacktest", "BUDGETS"]

#: the budgets of issue 25's evidence
BUDGETS = (50, 100, 200, 400)
SAMPLE_METHODS = ("random", "stratified")
AGAINST = ("nearest", "none")


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class SubsetBacktest:
    """Leave-one-model-out check of subset evaluation on a reference table.

    Attributes
    ----------
    runs : pandas.DataFrame
        One row per held-out model, budget, repeat, quantity ('score' or 'difference') and method:
        ``model, against, budget, repeat, quantity, method, estimate, truth, se, ci_low, ci_high, covered``
        (anchor rows have no interval: ``se``, ``ci_low``, ``ci_high``, ``covered`` empty).
    summary : pandas.DataFrame
        Per budget, quantity and method: ``n`` intervals, ``coverage``, ``mean_width``, ``width_ratio`` (mean
        width over the design-based one's), ``rmse``, ``mean_abs_error``, ``mean_se``, ``effective_n`` (the items
        a simple random sample would need for the mean SE) and ``fraction_evaluated`` (budget / items).
    n_items : int
    method : str
        The sample design ('random' or 'stratified').
    confidence_level : float
    notes : tuple of str
    source : str
    """

    runs: pd.DataFrame
    summary: pd.DataFrame
    n_items: int
    method: str
    confidence_level: float
    notes: tuple
    source: str

    def to_frame(self) -> pd.DataFrame:
        """The summary, one row per budget, quantity and method."""
        return self.summary.copy()

    def headline(self) -> str:
        models = self.runs["model"].nunique()
        reps = int(self.runs["repeat"].max()) + 1 if len(self.runs) else 0
        return (f"leave-one-model-out over {models} models x {reps} {self.method} samples per budget,"
                f" {self.n_items:,} items")


def _design(pop_codes, ref, method, budget):
    N = ref.shape[1]
    if method == "random":
        return np.zeros(N, dtype=np.int64), np.array([budget])
    T = int(pop_codes.max()) + 1
    n_bins = max((b for b in range(1, MAX_BINS + 1) if 2 * T * b <= budget), default=0)
    codes = pop_codes
    if n_bins == 0:
        codes, n_bins = np.zeros(N, dtype=np.int64), max(1, min(MAX_BINS, budget // 2))
    with np.errstate(invalid="ignore"):
        strata = difficulty_strata(codes, np.nanmean(ref, axis=0), n_bins)
    H = int(strata.max()) + 1
    return strata, neyman_allocation(np.bincount(strata, minlength=H), _stratum_sd(ref, strata, H), budget)


def _summary(runs: pd.DataFrame, N: int) -> pd.DataFrame:
    rows = []
    for (budget, quantity, method), g in runs.groupby(["budget", "quantity", "method"], sort=False):
        err = g["estimate"] - g["truth"]
        width = g["ci_high"] - g["ci_low"]
        has = g["covered"].notna()
        row = {"budget": budget, "quantity": quantity, "method": method, "n": int(has.sum()) or len(g),
               "coverage": float(g.loc[has, "covered"].mean()) if has.any() else np.nan,
               "mean_width": float(width.mean()) if has.any() else np.nan,
               "rmse": float(np.sqrt(np.mean(err ** 2))), "mean_abs_error": float(np.mean(np.abs(err))),
               "mean_se": float(g["se"].mean()) if has.any() else np.nan,
               "effective_n": float(g["effective_n"].mean()) if has.any() else np.nan}
        rows.append(row)
    out = pd.DataFrame(rows)
    design = out[out["method"] == "design"].set_index(["budget", "quantity"])["mean_width"]
    key = pd.MultiIndex.from_frame(out[["budget", "quantity"]])
    out["width_ratio"] = out["mean_width"].to_numpy() / design.reindex(key).to_numpy()
    out["fraction_evaluated"] = out["budget"] / N
    return out[["budget", "quantity", "method", "n", "coverage", "mean_width", "width_ratio", "rmse",
                "mean_abs_error", "mean_se", "effective_n", "fraction_evaluated"]]


NOTE_ITEMS_LACK_SOME_MODEL = NoteKind(
    'subset.items-lack-some-model', 'info',
    "{value:,} of {n_items:,} items lack some model's score: the backtest uses the {value2:,} items every model "
    "answered")


def backtest(reference, budgets=BUDGETS, *, method: str = "random", against: str = "nearest",
             n_repeats: int = 10, anchors: bool = False, models=None, confidence_level: float = 0.95, rng=None,
             progress=None, **read_options) -> SubsetBacktest:
    """Leave-one-model-out check of subset evaluation: coverage and width of both intervals, budget by budget.

    Parameters
    ----------
    reference : Selection, ResultsTable, DataFrame, path or ``'example:NAME'``
        Item-level results of several models on the full benchmark. Only the items every model answered are
        used (so each held-out model's full score is known on the population); the others are counted in the
        notes.
    budgets : sequence of int
        Items evaluated per held-out model.
    method : {'random', 'stratified'}
        The sample design, as :func:`evalband.subset.choose` draws it.
    against : {'nearest', 'none'} or a model name
        The reference model of the difference: 'nearest' (the other model whose full score is nearest the held-out
        model's, the hardest comparison), a named model (skipped when it is the one held out) or 'none'.
    n_repeats : int
        Random samples per held-out model and budget.
    anchors : bool
        Also the tinyBenchmarks-style point estimates from ``budget`` anchor points (one clustering per held-out
        model and budget): their error, no interval.
    models : list of str, optional
        The models to hold out (default: every model).
    confidence_level : float
    rng : None, int or numpy.random.Generator
        One stream per held-out model, budget and repeat, keyed by the model's name.
    progress : bool or None
        A progress bar (None: on a terminal).

    Returns
    -------
    SubsetBacktest

    Notes
    -----
    The intervals are those of :func:`evalband.subset.estimate` (the same function computes them). Coverage is
    counted over every held-out model and repeat; a coverage judged against the nominal level needs a binomial
    test on ``n`` (the tests do that). The difference's truth is the held-out model's mean over every item minus
    the reference model's. The intervals are the t intervals before the clipping to [0, 1] that ``estimate``
    applies at the edges (which only matters for scores near 0 or 1).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.subset import backtest
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=8), rng.normal(size=500)
    >>> y = (rng.random((8, 500)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    >>> df = pd.DataFrame([(f"m{m}", "t", f"q{i}", y[m, i]) for m in range(8) for i in range(500)],
    ...                   columns=["model", "task", "item", "score"])
    >>> bt = backtest(df, budgets=[60], n_repeats=2, rng=1)
    >>> bt.to_frame()[["budget", "quantity", "method", "n"]].values.tolist()[:2]
    [[60, 'score', 'design', 16], [60, 'score', 'prediction-assisted', 16]]
    """
    method = check_choice(method, SAMPLE_METHODS, "method")
    level = check_confidence_level(confidence_level)
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    budgets = [check_positive_int(b, "budgets") for b in np.atleast_1d(budgets).tolist()]
    entropy = run_entropy(as_generator(rng))
    pop = population_of(reference, **read_options)
    notes = list(pop.notes)
    complete = np.isfinite(pop.scores).all(axis=0)
    if not complete.all():
        notes.append(NOTE_ITEMS_LACK_SOME_MODEL(value=int((~complete).sum()), n_items=pop.n_items, value2=int(complete.sum())))
    S = pop.scores[:, complete]
    codes = pop.task_codes[complete]
    N = S.shape[1]
    names = list(pop.models)
    if len(names) < 3:
        raise ArgumentError(f"a backtest needs at least 3 models (one held out, two or more as the reference); got"
                            f" {len(names)}.")
    if max(budgets) > N // 2:
        raise ArgumentError(f"`budgets` up to {max(budgets)} leave too few unevaluated items of {N:,}; use at most"
                            f" {N // 2}.")
    held = names if models is None else [str(m) for m in models]
    unknown = [m for m in held if m not in names]
    if unknown:
        raise ArgumentError(words('`{arg:models}`: {value} not in the reference.', value=', '.join(map(repr, unknown))))
    if against not in AGAINST and against not in names:
        raise ArgumentError(f"`against` must be 'nearest', 'none' or a model of the reference; got {against!r}.")
    full = S.mean(axis=1)
    rows, irt_of = [], {}
    steps = [(m, b) for m in held for b in budgets]
    for model, budget in track(iter(steps), len(steps), progress=progress, description="backtest"):
        j = names.index(model)
        others = np.array([i for i in range(len(names)) if i != j])
        ref, y_all = S[others], S[j]
        if against == "nearest":
            r_idx = others[np.argmin(np.abs(full[others] - full[j]))]
        elif against == "none" or against == model:
            r_idx = None
        else:
            r_idx = names.index(against)
        r_scores = None if r_idx is None else S[r_idx]
        strata, n_h = _design(codes, ref, method, budget)
        N_h = np.bincount(strata, minlength=len(n_h)).astype(np.float64)
        base = {"model": model, "against": None if r_idx is None else names[r_idx], "budget": budget}
        for rep in range(n_repeats):
            gen = block_generator(entropy, (name_key(model), budget, rep))
            pos = np.sort(draw(strata, n_h, gen))
            res = sample_estimates(ref, pos, y_all[pos], strata[pos], N_h, bounded=pop.bounded, rng=gen,
                                   against_scores=r_scores)
            s2 = float(np.var(y_all, ddof=1))
            targets = {"score": full[j]}
            if r_scores is not None:
                targets["difference"] = full[j] - full[r_idx]
            for quantity, truth in targets.items():
                for meth, (est, var, df) in res[quantity].items():
                    se = float(np.sqrt(max(var, 0.0)))
                    half = float(t_ppf(0.5 + level / 2, df)) * se
                    # the items a simple random sample would need for this SE: (1 - n/N) s^2 / n = se^2
                    n_eff = 1.0 / (se ** 2 / s2 + 1.0 / N) if quantity == "score" and se > 0 and s2 > 0 else np.nan
                    rows.append({**base, "repeat": rep, "quantity": quantity, "method": meth, "estimate": est,
                                 "truth": truth, "se": se, "ci_low": est - half, "ci_high": est + half,
                                 "covered": float(abs(est - truth) <= half), "effective_n": n_eff})
        if anchors:
            gen = block_generator(entropy, (name_key(model), budget, n_repeats))
            if pop.bounded and model not in irt_of:  # one 2PL fit per held-out model, shared by the budgets
                irt_of[model] = fit_reference_irt(ref)
            irt = irt_of.get(model)
            apos, w = anchor_points(ref, budget, rng=gen)
            for meth, est in anchor_estimates(ref, apos, w, y_all[apos], irt=irt).items():
                rows.append({**base, "repeat": 0, "quantity": "score", "method": meth, "estimate": est,
                             "truth": full[j], "se": np.nan, "ci_low": np.nan, "ci_high": np.nan, "covered": np.nan,
                             "effective_n": np.nan})
    runs = pd.DataFrame(rows)
    return SubsetBacktest(runs, _summary(runs, N), N, method, level, tuple(notes), pop.source)
