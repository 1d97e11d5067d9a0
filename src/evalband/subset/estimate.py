"""``estimate``: a new model's full-benchmark score from the items it was evaluated on, design-based and
prediction-assisted, with intervals that keep their level whatever the reference models are."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._distributions import t_ppf
from .._random import block_generator, name_key, run_entropy
from .._validate import ArgumentError, InputError, as_generator, check_confidence_level
from ..comparison.verdict import check_margin, verdict
from ..display.reprs import displayed
from ..estimation.edges import edge_intervals
from .anchors import NO_INTERVAL, anchor_estimates, fit_reference_irt
from .design import regression_mean, stratified_mean
from .population import Population, population_of, scores_on
from .predict import cross_fitted
from ..display.notes import NoteKind

__all__ = ["estimate", "SubsetEstimate", "ESTIMATE_COLUMNS"]

#: the columns of :meth:`SubsetEstimate.to_frame`, the contract's fields first
ESTIMATE_COLUMNS = ("model", "method", "estimate", "ci_low", "ci_high", "se", "df", "n_evaluated", "n_items",
                    "effective_n", "confidence_level")


NOTE_SUBSET_HEADLINE = NoteKind("subset.estimate-headline", "info",
                                "{n_models} model(s), {n_evaluated:,} of {n_items:,} items evaluated ({design} sample)")


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class SubsetEstimate:
    """Full-benchmark scores of new models evaluated on a random subset of the items.

    Attributes
    ----------
    frame : pandas.DataFrame
        Per model two rows, ``method`` 'design' and 'prediction-assisted': ``estimate, ci_low, ci_high, se, df,
        n_evaluated, n_items, effective_n`` (the items a simple random sample would need for the same SE).
    differences : pandas.DataFrame or None
        With ``against``: per model and method the difference ``new - against`` over every item, its interval and
        compare's verdict.
    calibration : pandas.DataFrame
        The evaluated items of the random sample: ``model, task, item, observed, predicted,
        predicted_out_of_fold``.
    design : str
        'simple random' or 'stratified (H strata)'.
    against : str or None
    margin : float
    confidence_level : float
    notes : tuple of str
    source : str
    anchors : pandas.DataFrame or None
        With anchor points in the items file: 'anchor points' and 'anchor IRT' point estimates per model, with
        "no valid interval" (:mod:`evalband.subset.anchors`).
    """

    frame: pd.DataFrame
    differences: pd.DataFrame | None
    calibration: pd.DataFrame
    design: str
    against: str | None
    margin: float
    confidence_level: float
    notes: tuple
    source: str
    anchors: pd.DataFrame | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per model and method (the contract's fields)."""
        return self.frame.copy()

    def differences_frame(self) -> pd.DataFrame | None:
        return None if self.differences is None else self.differences.copy()

    def anchors_frame(self) -> pd.DataFrame | None:
        """With an items file of anchor points: the tinyBenchmarks-style point estimates (``model, method,
        estimate, interval, n_anchors``; ``interval`` reads "no valid interval")."""
        return None if self.anchors is None else self.anchors.copy()

    def headline(self) -> str:
        f = self.frame
        first = f.iloc[0]
        return NOTE_SUBSET_HEADLINE(n_models=f['model'].nunique(), n_evaluated=int(first['n_evaluated']),
                                    n_items=int(first['n_items']), design=self.design)


def _read_items(items, pop: Population) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, tuple | None]:
    """The items file: positions in the population, stratum codes and each stratum's size ``N_h`` of the random
    sample; and the anchor points ``(positions, weights)`` when the file has an ``anchor_weight`` column."""
    source = "<items>"
    if isinstance(items, (str, os.PathLike)):
        source = str(items)
        try:
            frame = pd.read_csv(items, dtype={"task": str, "item": str})
        except FileNotFoundError:
            raise InputError(f"{source}: no such file.") from None
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise InputError(f"{source}: not a CSV file of items ({str(exc).splitlines()[0]}).") from None
    elif hasattr(items, "to_frame") and not isinstance(items, pd.DataFrame):
        frame = items.to_frame()
    elif isinstance(items, pd.DataFrame):
        frame = items
    else:
        raise ArgumentError(f"`items` must be a path, a DataFrame or a SubsetChoice; got {type(items).__name__}.")
    lack = [c for c in ("task", "item", "inclusion_prob") if c not in frame.columns]
    if lack:
        raise InputError(f"{source}: no column {', '.join(repr(c) for c in lack)} (the items file has task, item,"
                         " inclusion_prob and optionally stratum).")
    frame = frame.reset_index(drop=True)
    prob = pd.to_numeric(frame["inclusion_prob"], errors="coerce").to_numpy(dtype=np.float64)
    anchor_only = np.zeros(len(frame), dtype=bool)
    if "anchor_weight" in frame.columns:  # anchors beside the random sample: blank inclusion_prob, a weight
        weight = pd.to_numeric(frame["anchor_weight"], errors="coerce").to_numpy(dtype=np.float64)
        blank = frame["anchor_weight"].isna().to_numpy()
        bad_w = ~blank & ~((weight > 0) & (weight <= 1))
        if bad_w.any():
            i = int(np.argmax(bad_w))
            raise InputError(f"{_shown(frame['anchor_weight'].iloc[i])} is not a weight in (0, 1].", source=source,
                             row=i + 2, column="anchor_weight")
        anchor_only = frame["inclusion_prob"].isna().to_numpy() & ~blank
    bad = ~((prob > 0) & (prob <= 1)) & ~anchor_only
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"{_shown(frame['inclusion_prob'].iloc[i])} is not a probability in (0, 1].",
                         source=source, row=i + 2, column="inclusion_prob")
    keys = pd.MultiIndex.from_arrays([frame["task"].astype(str), frame["item"].astype(str)])
    if keys.duplicated().any():
        i = int(np.argmax(keys.duplicated()))
        raise InputError(f"task {keys[i][0]!r}, item {keys[i][1]!r} is listed twice.", source=source, row=i + 2)
    pos = pd.Series(np.arange(pop.n_items), index=pop.index()).reindex(keys)
    if pos.isna().any():
        i = int(np.argmax(pos.isna().to_numpy()))
        raise InputError(f"task {keys[i][0]!r}, item {keys[i][1]!r} is not an item of the reference benchmark.",
                         source=source, row=i + 2)
    anchors = None
    if "anchor_weight" in frame.columns:
        is_anchor = frame["anchor_weight"].notna().to_numpy()
        anchors = (pos.to_numpy(dtype=np.int64)[is_anchor], weight[is_anchor])
        frame, prob, pos = frame[~anchor_only], prob[~anchor_only], pos[~anchor_only]
    if "stratum" in frame.columns:
        labels, strata = np.unique(frame["stratum"].astype(str).to_numpy(), return_inverse=True)
    else:
        strata = np.zeros(len(frame), dtype=np.int64)
    H = int(strata.max()) + 1 if len(strata) else 1
    N_h = np.zeros(H)
    for h in range(H):
        p = prob[strata == h]
        if np.ptp(p) > 1e-9:
            i = int(np.flatnonzero(strata == h)[np.argmax(np.abs(p - p[0]) > 1e-9)])
            where = "within a stratum" if "stratum" in frame.columns else "without a 'stratum' column"
            raise InputError(f"{prob[i]:g} differs from {p[0]:g} {where}; the estimators need a simple random sample"
                             " within each stratum.", source=source, row=i + 2, column="inclusion_prob")
        N_h[h] = np.round(len(p) / p[0])
    if abs(N_h.sum() - pop.n_items) > 0.5:
        raise InputError(f"the inclusion probabilities imply a benchmark of {int(N_h.sum()):,} items; the reference"
                         f" has {pop.n_items:,} (was the file chosen from this reference?).", source=source)
    return pos.to_numpy(dtype=np.int64), strata, N_h, source, anchors


def _interval(est, var, df, n, *, bounded, level):
    se = float(np.sqrt(max(var, 0.0)))
    q = float(t_ppf(0.5 + level / 2, df))
    lo, hi, sd, _, _ = edge_intervals([est], [se], [est - q * se], [est + q * se], [n], bounded=bounded,
                                      confidence_level=level)
    return float(lo[0]), float(hi[0]), float(sd[0])


def _shown(value) -> str:
    """A cell of the items file as the message shows it (a number as written, text quoted)."""
    return f"{float(value):g}" if isinstance(value, (int, float, np.number)) else repr(value)


def sample_estimates(ref_scores: np.ndarray, pos: np.ndarray, y: np.ndarray, strata: np.ndarray,
                     N_h: np.ndarray, *, bounded: bool, rng: np.random.Generator,
                     against_scores: np.ndarray | None = None) -> dict:
    """The design-based and prediction-assisted estimates of one new model from its evaluated items (arrays).

    Parameters
    ----------
    ref_scores : ndarray, shape (M, N)
        The reference models' scores on every item (NaN where missing); they make the prediction.
    pos : ndarray of int, shape (n,)
        The evaluated items (positions in the benchmark), in the benchmark's order.
    y : ndarray, shape (n,)
        The new model's scores on them.
    strata : ndarray of int, shape (n,)
        Stratum of each evaluated item; ``N_h`` every stratum's size.
    bounded : bool
        Scores in [0, 1].
    rng : numpy.random.Generator
        Splits the items into the folds of the cross-fitted prediction.
    against_scores : ndarray, shape (N,), optional
        A reference model's scores on every item: also the paired difference ``new - against``.

    Returns
    -------
    dict
        ``score`` and (with ``against_scores``) ``difference``: each ``{method: (estimate, variance, df)}`` for
        'design' and 'prediction-assisted'; ``f_sample`` (out-of-fold predictions on the evaluated items) and
        ``f_all`` (the prediction on every item).

    Notes
    -----
    The prediction-assisted difference is the regression estimator of ``mean(y - r)`` with two controls, the
    prediction ``f`` (mean over every item from the cross-fit) and the reference model's own scores ``r`` (mean
    over every item known exactly): slopes (0, 1) give the design-based paired difference back, so it is never
    much wider than that one, and it gains what either control explains.

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.subset.estimate import sample_estimates
    >>> rng = np.random.default_rng(0)
    >>> ref = (rng.random((6, 500)) < np.linspace(0.3, 0.8, 6)[:, None]).astype(float)
    >>> pos = np.sort(rng.choice(500, 60, replace=False))
    >>> out = sample_estimates(ref, pos, ref[2, pos], np.zeros(60, dtype=int), np.array([500.]),
    ...                        bounded=True, rng=rng, against_scores=ref[0])
    >>> sorted(out["difference"])
    ['design', 'prediction-assisted']
    """
    f_sample, f_mean, f_all = cross_fitted(ref_scores, pos, y, bounded=bounded, rng=rng)
    score = {"design": stratified_mean(y, strata, N_h),
             "prediction-assisted": regression_mean(y, f_sample, strata, N_h, f_mean)[:3]}
    out = {"score": score, "f_sample": f_sample, "f_all": f_all}
    if against_scores is not None:
        r = np.asarray(against_scores, dtype=np.float64)
        rs = r[pos]
        controls = np.column_stack([f_sample, rs])
        est, var, df, _ = regression_mean(y, controls, strata, N_h, np.array([f_mean, r.mean()]))
        out["difference"] = {"design": stratified_mean(y - rs, strata, N_h),
                             "prediction-assisted": (est - float(r.mean()), var, df)}
    return out


NOTE_NO_ITEMS_FILE_EACH = NoteKind(
    'subset.no-items-file-each', 'info',
    "no items file: each model's evaluated items are taken as a simple random sample of the benchmark's items")
NOTE_EVALUATED_ITEM_S_OUTSIDE = NoteKind(
    'subset.evaluated-item-s-outside', 'excluded',
    '{model}: {value:,} evaluated item(s) outside the sample in the items file left out (not drawn at random)')
NOTE_ALSO_REFERENCE_MODEL_ITS = NoteKind(
    'subset.also-reference-model-its', 'excluded',
    '{model} is also a reference model: its reference results are not used to predict it')
NOTE_ANCHOR_ITEM_S_OUTSIDE = NoteKind(
    'subset.anchor-item-s-outside', 'caveat',
    '{model}: {value:,} anchor item(s) outside the random sample used for the anchor point estimates only')
NOTE_EVALUATED_CHOSEN_ITEMS_REST = NoteKind(
    'subset.evaluated-chosen-items-rest', 'info',
    '{model}: evaluated on {n:,} of the {n_chosen:,} chosen items; the rest treated as missing at random within '
    'their stratum')
NOTE_DIFFERENCE_FROM_HAS_NO = NoteKind(
    'subset.difference-from-has-no', 'info',
    '{model}: the {method} difference from {against} has no interval (every evaluated item gives the same '
    'difference)')


def estimate(reference, new, *, items=None, against: str | None = None, margin: float = 0.0,
             confidence_level: float = 0.95, rng=None, **read_options) -> SubsetEstimate:
    """Each new model's mean score over every item of the benchmark, from the items it was evaluated on.

    Parameters
    ----------
    reference : Selection, ResultsTable, DataFrame, path or ``'example:NAME'``
        Item-level results of earlier models on the full benchmark; its items (task, item) are the population.
    new : same kinds
        Item-level results of one or more new models on a random subset of those items.
    items : path, DataFrame or SubsetChoice, optional
        The sample drawn (:func:`evalband.subset.choose`): ``task, item, inclusion_prob`` and optionally
        ``stratum``. Without it each model's evaluated items are taken as a simple random sample of the benchmark.
        Chosen items a model was not evaluated on are treated as missing at random within their stratum (counted
        in the notes); evaluated items outside the sample are left out (counted). A file of
        ``choose(method='anchors')`` also lists anchor points (``anchor_weight``): they give the point estimates
        of :meth:`SubsetEstimate.anchors_frame`, with no valid interval, and the intervals use the random sample
        alone.
    against : str, optional
        A reference model (evaluated on every item): also report each new model's difference from it.
    margin : float
        Smallest difference that matters, for the verdicts (fractions: 0.01 is one point).
    confidence_level : float
    rng : None, int or numpy.random.Generator
        Seeds the split of each model's evaluated items into the folds of the cross-fitted predictions (one
        stream per model, keyed by its name, so the result does not depend on the order of models or rows).
    **read_options
        Options of :func:`evalband.read` for both inputs.

    Returns
    -------
    SubsetEstimate

    Notes
    -----
    *Design-based*: the stratified mean ``sum_h W_h ybar_h`` (one stratum: the sample mean) with variance
    ``sum_h W_h^2 (1 - n_h/N_h) s_h^2 / n_h`` and a t interval on Satterthwaite's degrees of freedom (Cochran
    1977, ch. 5). *Prediction-assisted*: the new model's score on every item is predicted from the reference
    models (:func:`evalband.subset.predict.predict_scores`: a logistic regression of its evaluated scores on the
    items' reference difficulty and on its nearest reference models' scores), cross-fitted over 10 folds of the
    evaluated items so that no score predicts itself (Zrnic and Candes 2024); the combined regression estimator
    ``sum_h W_h [ybar_h - b fbar_h] + b Fbar`` (``Fbar``: the prediction's mean over every item) uses it as a
    control variate, as PPI++ does with its power-tuning weight. It is design-consistent for any prediction: a
    poor one gives ``b`` near 0 and the design estimate back. Its variance is the stratified variance of the
    residuals ``y - b f``, with one degree of freedom taken for ``b``. The prediction-assisted *difference* from
    ``against`` uses two controls, the prediction and that model's own scores (whose mean over every item is
    known): see :func:`sample_estimates`. ``effective_n`` is the number of items
    a simple random sample would need for the same standard error.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.subset import choose, estimate
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=11), rng.normal(size=400)
    >>> y = (rng.random((11, 400)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    >>> df = pd.DataFrame([(f"m{m}", "t", f"q{i}", y[m, i]) for m in range(11) for i in range(400)],
    ...                   columns=["model", "task", "item", "score"])
    >>> reference, new = df[df["model"] != "m10"], df[df["model"] == "m10"]
    >>> picked = choose(reference, 80, rng=1).to_frame()
    >>> evaluated = new[new["item"].isin(picked["item"])]
    >>> res = estimate(reference, evaluated, items=picked, rng=0)
    >>> res.to_frame()["method"].tolist()
    ['design', 'prediction-assisted']
    """
    level = check_confidence_level(confidence_level)
    margin = check_margin(margin, scale=100.0)
    entropy = run_entropy(as_generator(rng))
    pop = population_of(reference, **read_options)
    evaluated, new_notes = scores_on(pop, new, **read_options)
    notes = list(dict.fromkeys(list(pop.notes) + list(new_notes)))
    if items is not None:
        sample_pos, strata_of_sample, N_h, items_source, anchors = _read_items(items, pop)
        stratum = np.full(pop.n_items, -1, dtype=np.int64)
        stratum[sample_pos] = strata_of_sample
        design = "simple random" if len(N_h) == 1 else f"stratified ({len(N_h)} strata)"
    else:
        anchors = None
        stratum = np.zeros(pop.n_items, dtype=np.int64)
        N_h = np.array([float(pop.n_items)])
        design = "simple random"
        notes.append(NOTE_NO_ITEMS_FILE_EACH())
    ref_rows = np.arange(len(pop.models))
    r_scores = None
    if against is not None:
        if against not in pop.models:
            raise ArgumentError(f"`against` {against!r} is not a reference model; reference models:"
                                f" {', '.join(pop.models[:8])}{', ...' if len(pop.models) > 8 else ''}.")
        r_scores = pop.scores[pop.models.index(against)]
        if not np.isfinite(r_scores).all():
            raise InputError(f"{pop.source}: reference model {against!r} lacks {int((~np.isfinite(r_scores)).sum()):,}"
                             " item(s) of the benchmark; a difference over every item needs it on every item.")
    rows, diffs, calib = [], [], []
    tasks = np.asarray(pop.tasks, dtype=object)
    anchor_rows, irt_cache = [], {}
    for model, (pos, y) in evaluated.items():
        if anchors is not None:
            anchor_rows += _anchor_rows(model, pos, y, anchors, pop, irt_cache, notes)
            outside = (stratum[pos] < 0) & np.isin(pos, anchors[0])
            pos, y = pos[~outside], y[~outside]  # anchors outside the random sample: for the anchor estimates only
            if outside.any():
                notes.append(NOTE_ANCHOR_ITEM_S_OUTSIDE(model=model, value=int(outside.sum())))
        keep = stratum[pos] >= 0
        if not keep.all():
            notes.append(NOTE_EVALUATED_ITEM_S_OUTSIDE(model=model, value=int((~keep).sum())))
        pos, y = pos[keep], y[keep]
        order = np.argsort(pos, kind="stable")  # the benchmark's order, whatever the order of the rows
        pos, y = pos[order], y[order]
        n = len(pos)
        if n < 10 + len(N_h):
            raise InputError(f"{model}: {n} evaluated item(s) of the sample; an estimate with an interval needs at"
                             f" least {10 + len(N_h)}.")
        if items is not None:
            n_chosen = int(len(sample_pos))
            if n < n_chosen:
                notes.append(NOTE_EVALUATED_CHOSEN_ITEMS_REST(model=model, n=n, n_chosen=n_chosen))
        h = stratum[pos]
        use = ref_rows if model not in pop.models else ref_rows[np.asarray(pop.models) != model]
        if model in pop.models:
            notes.append(NOTE_ALSO_REFERENCE_MODEL_ITS(model=model))
        res = sample_estimates(pop.scores[use], pos, y, h, N_h, bounded=pop.bounded,
                               rng=block_generator(entropy, (name_key(model),)), against_scores=r_scores)
        f_sample, f_all = res["f_sample"], res["f_all"]
        s2 = float(np.var(y, ddof=1))
        N = float(N_h.sum())
        for method in ("design", "prediction-assisted"):
            est, var, df = res["score"][method]
            lo, hi, se = _interval(est, var, df, n, bounded=pop.bounded, level=level)
            n_eff = float(1.0 / (se ** 2 / s2 + 1.0 / N)) if s2 > 0 and se > 0 else float(n)
            rows.append({"model": model, "method": method, "estimate": est, "ci_low": lo, "ci_high": hi, "se": se,
                         "df": df, "n_evaluated": n, "n_items": pop.n_items, "effective_n": n_eff,
                         "confidence_level": level})
            if r_scores is not None:
                dd, vv, dfd = res["difference"][method]
                q = float(t_ppf(0.5 + level / 2, dfd))
                sd = float(np.sqrt(max(vv, 0.0)))
                # an interval of zero width (every evaluated difference alike) is withheld, never shown as a point
                lo_d, hi_d, sd, _, gone = edge_intervals([dd], [sd], [dd - q * sd], [dd + q * sd], [n],
                                                         bounded=False, confidence_level=level)
                lo_d, hi_d, sd = float(lo_d[0]), float(hi_d[0]), float(sd[0])
                if gone[0]:
                    notes.append(NOTE_DIFFERENCE_FROM_HAS_NO(model=model, method=method, against=against))
                diffs.append({"model": model, "against": against, "method": method, "difference": dd,
                              "ci_low": lo_d, "ci_high": hi_d, "se": sd, "df": dfd,
                              "verdict": str(verdict([lo_d], [hi_d], margin=margin)[0]),
                              "n_evaluated": n, "n_items": pop.n_items})
        calib.append(pd.DataFrame({"model": model, "task": tasks[pop.task_codes[pos]],
                                   "item": np.asarray(pop.items, dtype=object)[pos], "observed": y,
                                   "predicted": f_all[pos], "predicted_out_of_fold": f_sample}))
    frame = pd.DataFrame(rows, columns=list(ESTIMATE_COLUMNS))
    differences = pd.DataFrame(diffs) if r_scores is not None else None
    anchor_frame = pd.DataFrame(anchor_rows, columns=list(ANCHOR_COLUMNS)) if anchors is not None else None
    return SubsetEstimate(frame, differences, pd.concat(calib, ignore_index=True), design, against, margin, level,
                          tuple(notes), pop.source, anchor_frame)


#: the columns of :meth:`SubsetEstimate.anchors_frame`
ANCHOR_COLUMNS = ("model", "method", "estimate", "interval", "n_anchors")


NOTE_ANCHOR_ITEMS_NOT_EVALUATED = NoteKind(
    'subset.anchor-items-not-evaluated', 'caveat',
    '{model}: {value} of the {n_apos} anchor items not evaluated: no anchor point estimate')


def _anchor_rows(model, pos, y, anchors, pop, irt_cache, notes) -> list:
    """tinyBenchmarks-style point estimates of one model from its scores on the anchors (none if it lacks one)."""
    apos, weight = anchors
    got = pd.Series(y, index=pos).reindex(apos)
    if got.isna().any():
        notes.append(NOTE_ANCHOR_ITEMS_NOT_EVALUATED(model=model, value=int(got.isna().sum()), n_apos=len(apos)))
        return []
    use = [i for i, m in enumerate(pop.models) if m != model]
    key = tuple(use)
    if pop.bounded and key not in irt_cache:
        irt_cache[key] = fit_reference_irt(pop.scores[use])
    out = anchor_estimates(pop.scores[use], apos, weight, got.to_numpy(), irt=irt_cache.get(key))
    return [{"model": model, "method": m, "estimate": v, "interval": NO_INTERVAL, "n_anchors": len(apos)}
            for m, v in out.items()]
