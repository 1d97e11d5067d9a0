"""Abilities from item-level responses: the 2PL / Rasch model across tasks, with the item bootstrap or the observed
information, each task's characteristic curve, and predictions of every (model, task) cell.

``ability(data, model='2pl')`` (or ``'rasch'``) on item-level data fits ``P(m right on i) = sigmoid(a_i theta_m
+ d_i)`` to every response (:mod:`.irt_fit`, the fit :func:`evalband.latent.items` makes), so a model's ability
rests on every item it answered, whatever the task. Uncertainty:

* ``'bootstrap'``: items resampled with replacement within each task, the same items for every model (paired),
  each replicate refitted from the full-data fit by the same Newton steps, R replicates solved together; the
  multiplicities come from one stream per (task, replicate) keyed by the task's name
  (:func:`.resampling.item_weights`), so the draws do not depend on row order, batch size or other tasks;
* ``'information'``: draws from the normal approximation ``N(theta, S^-1 J S^-1)`` (the sandwich over items
  within tasks: the linearized version of the same bootstrap), the draws :func:`evalband.latent.items` ranks;
* ``'auto'``: the bootstrap when its cost (models x items x replicates) is at most :data:`BOOTSTRAP_BUDGET`, else
  the information; the note says which was used.

Each task is summarized by its characteristic curve ``F_t(theta) = mean_i sigmoid(a_i theta + d_i)`` over its
items: its *difficulty* is the ability where ``F_t = 1/2`` and its *slope* ``4 F_t'`` there (the ``alpha`` of the
sigmoid that touches the curve at its midpoint), the quantities of the task-level model. Their intervals come from
the replicates' curves (bootstrap) or the delta method (information).

A cell's prediction is the expected score on the task's items the model answered (all the task's items for a
cell not measured); its predictive interval adds to the abilities' uncertainty the sampling of the responses on
those items given the ability, a Poisson-binomial spread (a binomial with the same variance). The items' own
parameters are taken as known there: with M models each item's curve is estimated from the others' responses, an
error about 1/M of the response noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .._random import block_generator, name_key
from .irt_fit import fit_irt, newton, standardize
from .resampling import cell_streams, item_weights
from ..display.notes import NoteKind
from .._words import concat, words

__all__ = ["ItemAbilityFit", "fit_item_abilities", "item_level_ability", "task_curves", "ability_draws", "cell_predictions",
           "choose_uncertainty", "BOOTSTRAP_BUDGET", "UNCERTAINTY"]

#: ways to get the uncertainty of item-level abilities
UNCERTAINTY = ("auto", "bootstrap", "information")
#: 'auto' bootstraps when models x items x replicates is at most this (about ten seconds on one core)
BOOTSTRAP_BUDGET = 2e8
#: replicates solved together: (R, M, I) arrays of about 16 MB
_BATCH_ELEMENTS = 1 << 21
#: the abilities' range searched for a task curve's midpoint
_RANGE = 30.0


@dataclass(frozen=True, eq=False)
class ItemAbilityFit:
    """The item-level fit of :func:`evalband.latent.ability` (standardized scale; Rasch: centred logits)."""

    theta: np.ndarray
    samples: np.ndarray
    a: np.ndarray
    d: np.ndarray
    difficulty: np.ndarray
    slope: np.ndarray
    difficulty_samples: np.ndarray
    slope_samples: np.ndarray
    converged: np.ndarray
    full_converged: bool
    uncertainty: str
    cov_theta: np.ndarray


def choose_uncertainty(uncertainty: str, n_models: int, n_items: int, n_resamples: int) -> str:
    if uncertainty != "auto":
        return uncertainty
    return "bootstrap" if float(n_models) * n_items * n_resamples <= BOOTSTRAP_BUDGET else "information"


def fit_item_abilities(resp, *, rasch: bool, uncertainty: str, n_resamples: int, entropy, prior=None,
                       track=None, obs=None) -> ItemAbilityFit:
    """Fit the 2PL / Rasch model to ``resp`` (:class:`~.cells.ItemResponses`; ``obs`` replaces its observed mask,
    as the held-out check does) and draw the uncertainty of the abilities and task curves."""
    obs = resp.observed if obs is None else obs
    y = np.where(obs, resp.y, 0.0)
    n_tasks = len(resp.tasks)
    fit = fit_irt(y, obs, resp.item_task, n_tasks, rasch=rasch, prior=prior)
    D, S = task_curves(fit.a[None], fit.d[None], resp.item_task, n_tasks)
    D, S = D[0], S[0]
    if uncertainty == "bootstrap":
        thetas, Ds, Ss, conv = _bootstrap(resp, y, obs, fit, rasch, n_resamples, entropy, prior, track)
    else:
        thetas = ability_draws(fit.theta, fit.cov_theta, n_resamples, entropy)
        Ds, Ss = _curve_draws(fit, resp.item_task, n_tasks, D, S, n_resamples, entropy)
        conv = np.ones(n_resamples, dtype=bool)
    return ItemAbilityFit(fit.theta, thetas, fit.a, fit.d, D, S, Ds, Ss, conv, fit.converged, uncertainty,
                          fit.cov_theta)


def _bootstrap(resp, y, obs, fit, rasch, b, entropy, prior, track):
    m, n_items = y.shape
    size = int(max(1, min(b, _BATCH_ELEMENTS // max(1, m * n_items))))
    thetas = np.empty((b, m))
    n_tasks = len(resp.tasks)
    Ds, Ss = np.empty((b, n_tasks)), np.empty((b, n_tasks))
    conv = np.empty(b, dtype=bool)
    batches = [slice(k, min(k + size, b)) for k in range(0, b, size)]
    it = batches if track is None else track(iter(batches), len(batches))
    # the full-data fit on its own (standardized) scale is the warm start: the likelihood is the same on any scale
    start = (fit.theta, fit.a, fit.d)
    for sl in it:
        w = item_weights(resp, sl.stop - sl.start, entropy, start=sl.start)
        t, a, d, ok, _ = newton(y, obs, start, weights=w, rasch=rasch, prior=prior)
        t, a, d = standardize(t, a, d, rasch=rasch)
        thetas[sl], conv[sl] = t, ok
        Ds[sl], Ss[sl] = task_curves(a, d, resp.item_task, n_tasks, weights=w)
    return thetas, Ds, Ss, conv


def ability_draws(theta, cov, n_draws: int, entropy) -> np.ndarray:
    """Draws from ``N(theta, cov)``, from one stream keyed by the purpose (the models' order is canonical)."""
    gen = block_generator(entropy, (name_key("ability draws"),))
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    root = vecs * np.sqrt(np.clip(vals, 0, None))
    return theta + gen.standard_normal((n_draws, theta.size)) @ root.T


def _onehot(item_task, n_tasks):
    out = np.zeros((item_task.size, n_tasks))
    out[np.arange(item_task.size), item_task] = 1.0
    return out


def _curve(theta, a, d, item_task, onehot, w, tot, slope=False):
    """Per replicate and task: the (weighted) mean item curve ``F`` at ``theta`` (R, T), or ``F'``."""
    p = expit(a * theta[:, item_task] + d)
    vals = a * p * (1 - p) if slope else p
    return ((vals * w) @ onehot) / tot


def task_curves(a, d, item_task, n_tasks: int, *, weights=None):
    """Each task's difficulty (where its mean item curve crosses 1/2) and slope (``4 F'`` there), per replicate:
    ``a``, ``d`` (R, I), ``weights`` (R, I) the items' multiplicities. A curve that does not cross 1/2 within
    +-30 (every item easy, or hard) gets the end of that range."""
    r_ = a.shape[0]
    w = np.ones_like(a) if weights is None else np.asarray(weights, dtype=float)
    onehot = _onehot(item_task, n_tasks)
    tot = np.maximum(w @ onehot, 1e-300)
    lo, hi = np.full((r_, n_tasks), -_RANGE), np.full((r_, n_tasks), _RANGE)
    for _ in range(50):  # bisection to 30 / 2**49 (5e-14)
        mid = 0.5 * (lo + hi)
        up = _curve(mid, a, d, item_task, onehot, w, tot) < 0.5
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    mid = 0.5 * (lo + hi)
    return mid, 4.0 * _curve(mid, a, d, item_task, onehot, w, tot, slope=True)


def _curve_draws(fit, item_task, n_tasks, D, S, n_draws, entropy):
    """Normal draws of the task curves' difficulty and slope by the delta method (items' (a, d) blocks of the
    inverse information, items independent)."""
    a, d = fit.a, fit.d
    t = D[item_task]
    p = expit(a * t + d)
    v = p * (1 - p)
    q = v * (1 - 2 * p)
    n = np.bincount(item_task, minlength=n_tasks).astype(float)
    f1 = np.bincount(item_task, weights=a * v, minlength=n_tasks) / n
    f2 = np.bincount(item_task, weights=a * a * q, minlength=n_tasks) / n
    # dF/da_i = t v_i / n, dF/dd_i = v_i / n; dD = -dF / F'
    dD_a, dD_d = -t * v / n[item_task] / f1[item_task], -v / n[item_task] / f1[item_task]
    # F'(D) = mean a v: d/da_i = (v + a t q) / n, d/dd_i = a q / n; plus F''(D) dD
    dS_a = 4 * ((v + a * t * q) / n[item_task] + f2[item_task] * dD_a)
    dS_d = 4 * (a * q / n[item_task] + f2[item_task] * dD_d)
    va, vd, cad = fit.var_a, fit.var_d, fit.cov_ad

    def var(ga, gd):
        return np.bincount(item_task, weights=ga * ga * va + gd * gd * vd + 2 * ga * gd * cad, minlength=n_tasks)

    se_d, se_s = np.sqrt(np.maximum(var(dD_a, dD_d), 0)), np.sqrt(np.maximum(var(dS_a, dS_d), 0))
    gen = block_generator(entropy, (name_key("task curve draws"),))
    z = gen.standard_normal((n_draws, 2, n_tasks))
    return D + z[:, 0] * se_d, np.maximum(S + z[:, 1] * se_s, 0.0)


def cell_predictions(resp, theta, samples, a, d, obs, model, task, *, confidence_level: float, entropy):
    """Expected score of each cell (``model``, ``task`` codes) on the task's items the model answered (all the
    task's items when it answered none), with a predictive interval: the abilities' replicates (second-order
    Taylor expansion of the cell's curve around the estimate) and the responses' Poisson-binomial spread.

    Returns ``(predicted, low, high, n)``."""
    n_t = len(resp.tasks)
    onehot = _onehot(resp.item_task, n_t)
    answered = obs.astype(float) @ onehot  # (M, T) items answered
    p = expit(theta[:, None] * a[None, :] + d[None, :])
    v = p * (1 - p)
    use = np.where((answered > 0)[:, resp.item_task], obs, True).astype(float)  # (M, I)
    n = use @ onehot
    f0 = ((p * use) @ onehot) / n
    f1 = ((a * v * use) @ onehot) / n
    f2 = ((a * a * v * (1 - 2 * p) * use) @ onehot) / n
    var = ((v * use) @ onehot) / n  # mean p (1 - p) over the cell's items
    f0, f1, f2, var, n = (x[model, task] for x in (f0, f1, f2, var, n))
    delta = samples[:, model] - theta[model]
    mean = np.clip(f0 + f1 * delta + 0.5 * f2 * delta * delta, 0.0, 1.0)  # (B, K)
    # the responses: a binomial with the Poisson-binomial variance (effective size n F (1 - F) / mean p (1 - p))
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(var > 0, n * f0 * (1 - f0) / var, n)
    n_eff = np.maximum(np.round(np.clip(n_eff, 1, None)), 1).astype(np.int64)
    draws = np.empty(mean.shape)
    for j, gen in enumerate(cell_streams(entropy, "predict", resp.models, resp.tasks, model, task)):
        draws[:, j] = gen.binomial(n_eff[j], mean[:, j]) / n_eff[j]
    alpha = 1 - confidence_level
    low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
    return f0, low, high, n


NOTE_ITEM_LEVEL_FIT_STOPPED = NoteKind('latent.item-level-fit-stopped', 'info',
                                        'the item-level fit stopped before converging')
NOTE_BOOTSTRAP_REFITS_STOPPED_BEFORE_2 = NoteKind(
    'latent.bootstrap-refits-stopped-before-2', 'info',
    '{failed} of {n_resamples} bootstrap refits stopped before converging; they are kept')


def item_level_ability(cells, *, model, anchor, n_resamples, uncertainty, level, correction, simultaneous, holdout,
                       entropy, progress):
    """:func:`evalband.latent.ability` on item-level data with the '2pl' or 'rasch' model (see the module notes)."""
    import pandas as pd

    from .._progress import track as _track
    from ..estimation.confidence import ConfidenceInterval
    from .abilities import _flag_notes, model_units, rank_and_compare, weak_flags
    from .predict import choose_holdout, holdout_summary
    from .result import AbilityResult

    resp = cells.responses
    rasch = model == "rasch"
    n_m, n_i, n_t = len(resp.models), resp.y.shape[1], len(resp.tasks)
    method = choose_uncertainty(uncertainty, n_m, n_i, n_resamples)

    def track(it, total):
        return _track(it, total, progress=progress, description="ability bootstrap (items)")

    fit = fit_item_abilities(resp, rasch=rasch, uncertainty=method, n_resamples=n_resamples, entropy=entropy,
                             track=track)
    theta, samples, D, S, Ds, Ss = fit.theta, fit.samples, fit.difficulty, fit.slope, fit.difficulty_samples, \
        fit.slope_samples
    notes = list(cells.notes)
    if anchor is not None:
        k_a = resp.tasks.index(anchor[0])
        theta, D, S = _to_anchor(theta, D, S, k_a, anchor[1], anchor[2])
        samples, Ds, Ss = _to_anchor(samples, Ds, Ss, k_a, anchor[1], anchor[2])
        ident = (f"scale fixed by the anchor task '{anchor[0]}' (the midpoint of its characteristic curve at"
                 f" {anchor[1]:g}, slope {anchor[2]:g}); the anchor's own difficulty and slope carry no interval")
    elif rasch:
        ident = "abilities on the logit scale (Rasch: every discrimination 1), centred at mean 0 over the models"
    else:
        ident = "abilities standardized to mean 0 and variance 1 over the models (no anchor given)"
    notes.append(ident)
    if not fit.full_converged:
        notes.append(NOTE_ITEM_LEVEL_FIT_STOPPED())
    failed = int((~fit.converged).sum())
    if failed:
        notes.append(NOTE_BOOTSTRAP_REFITS_STOPPED_BEFORE_2(failed=failed, n_resamples=n_resamples))
    notes.append(_note(method, uncertainty, model, n_resamples, n_m, n_i))
    if not rasch:  # (the simulations fit the 2PL model)
        notes.append(NOTE_ITEM_INTERVALS_COVER_LESS())
    units, unit_name = model_units(cells)
    ranking, comparisons = rank_and_compare(theta, samples, resp.models, level, simultaneous, correction, units,
                                            unit_name)
    n_tasks, n_models = cells.tasks_per_model(), cells.models_per_task()
    mflags, tflags = weak_flags(cells, n_tasks, n_models)
    notes += _flag_notes(mflags, tflags, cells)
    m_all = np.repeat(np.arange(n_m), n_t)
    t_all = np.tile(np.arange(n_t), n_m)
    obs = resp.observed
    pred, low, high, n = cell_predictions(resp, fit.theta, fit.samples, fit.a, fit.d, obs, m_all, t_all,
                                          confidence_level=level, entropy=entropy)
    measured = np.zeros(n_m * n_t, dtype=bool)
    measured[cells.model * n_t + cells.task] = True
    observed = np.full(n_m * n_t, np.nan)
    observed[cells.model * n_t + cells.task] = cells.y
    frame = pd.DataFrame({"model": [resp.models[k] for k in m_all], "task": [resp.tasks[k] for k in t_all],
                          "measured": measured, "observed": observed, "n": n, "predicted": pred, "pi_low": low,
                          "pi_high": high})
    check = None
    if holdout is not None:
        mask, skipped = choose_holdout(cells, holdout, entropy)
        train = obs.copy()
        for m_, t_ in zip(cells.model[mask].tolist(), cells.task[mask].tolist()):
            train[m_, resp.item_task == t_] = False
        tfit = fit_item_abilities(resp, rasch=rasch, uncertainty=method, n_resamples=n_resamples,
                                  entropy=entropy, track=track, obs=train)
        hp, hl, hh, _ = cell_predictions(resp, tfit.theta, tfit.samples, tfit.a, tfit.d, obs, cells.model[mask],
                                         cells.task[mask], confidence_level=level, entropy=entropy)
        check = holdout_summary(cells, mask, hp, hl, hh, fraction=holdout, skipped=skipped,
                                confidence_level=level)
        notes.append(check.headline())
    alpha = 1 - level
    q = [alpha / 2, 1 - alpha / 2]
    d_ci = ConfidenceInterval(*np.quantile(Ds, q, axis=0))
    s_ci = ConfidenceInterval(*np.quantile(Ss, q, axis=0))
    return AbilityResult(model, "bernoulli", "items", ident, anchor, resp.models, resp.tasks, theta, samples,
                         ranking, comparisons, D, S, d_ci, s_ci, Ds, Ss, n_tasks, n_models, mflags, tflags, frame,
                         check, float("nan"), method, n_resamples, level, tuple(dict.fromkeys(notes)),
                         cells.source, cells.attribution)


def _to_anchor(theta, D, S, k, difficulty, slope):
    """The scale on which task ``k``'s curve has its midpoint at ``difficulty`` and slope ``slope``."""
    f = S[..., k:k + 1] / slope
    da = D[..., k:k + 1]
    return f * (theta - da) + difficulty, f * (D - da) + difficulty, S / f


#: what the coverage simulations of tests/latent/test_coverage.py found (30 models x 12 tasks x 100 items, 40% of
#: cells missing): the item-level abilities' 95% intervals cover 0.90 (missing at random) and 0.92 (not at random)
NOTE_ITEM_INTERVALS_COVER_LESS = NoteKind(
    'latent.item-intervals-cover-less', 'caveat',
    "item-level 2PL ability intervals cover less than they say: about 90% for a 95% interval in simulations with 40% "
    "of cells missing (the maximum a posteriori fit shrinks abilities near saturation, and resampling items does "
    "not see it); read them as approximate, and the summary-level fit's intervals (counts per cell) as the "
    "calibrated ones")


def _note(method, asked, model, b, n_m, n_i) -> str:
    name = "Rasch" if model == "rasch" else "2PL"
    if method == "bootstrap":
        return (f"intervals from {b:,} bootstrap refits of the {name} model (items resampled within tasks, paired"
                " across models), each started from the full-data fit")
    text = (f"intervals from {b:,} draws from the normal approximation of the {name} fit (the sandwich over items"
            f" within tasks, the linearized item bootstrap)")
    if asked == "auto":
        return concat(text, words("; the bootstrap would refit {n_m:,} models x {n_i:,} items {b:,} times: ask for"
                                  " it with {arg:uncertainty='bootstrap'}", n_m=n_m, n_i=n_i, b=b))
    return text
