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

*The scale.* The abilities are standardized (2PL: mean 0, variance 1 over the models; Rasch: centred logits), and
so is each refit. A noisy estimate's spread includes its noise, so standardizing shrinks it towards 0 (and a
joint fit with few models per item can spread the Rasch abilities out): the refits reproduce the estimates ``c``
times as large, the least-squares slope of the refits on the estimate (:func:`scale_correction`, about 0.85 at
30 models x 60 items per model). The same happens to the estimate relative to the truth, so the reported abilities
and task curves are the fit's divided by ``c``, and so are the refits (each then centred at the estimate): a
first-order bootstrap bias correction of the scale, the one thing the percentile intervals of the refits missed.
The information draws are standardized as refits would be, which gives ``c`` the same way. With an anchor the scale
is the anchor task's curve, which the correction leaves unchanged.

Each task is summarized by its characteristic curve ``F_t(theta) = mean_i sigmoid(a_i theta + d_i)`` over its
items: its *difficulty* is the ability where ``F_t = 1/2`` and its *slope* ``4 F_t'`` there (the ``alpha`` of the
sigmoid that touches the curve at its midpoint), the quantities of the task-level model. Their intervals come from
the replicates' curves (bootstrap) or the delta method (information).

A cell's prediction is the expected score on the task's items the model answered (all the task's items for a
cell not measured); its predictive interval carries each replicate's ability through the cell's curve (evaluated
on a grid, not a Taylor expansion: the curves bend most where predictions matter, near 0 and 1), adds the items'
own estimation error (each item's curve rests on the few models that answered it: with 18 models per item that
error is a tenth of the response noise, and leaving it out cost 2 points of coverage) and the sampling of the
responses on those items given the ability, a Poisson-binomial spread (a binomial with the same variance, each draw
put on the nearest of the scores ``k / n`` the cell's ``n`` items allow; the interval's ends are draws).

*The Rasch model* is fitted by marginal maximum likelihood instead (:mod:`.rasch_marginal`: the abilities a
normal population integrated out, each model's ability drawn from its posterior given the items, the items'
estimation error carried to first order), whatever ``uncertainty`` asks: the joint fit with its item bootstrap
pushed the abilities of models answering nearly every item right too far out and under-covered (657/720 and
652/720 below). The predictions take the posterior draws and intercepts on their common (uncentred) scale.

Coverage (tests/latent/test_coverage.py: 30 models x 4 tasks x 25 items, 40% of cells missing at random / not at
random, 24 data sets each, B = 100): 2PL abilities 681/720 and 695/720 in their 95% intervals, every pair's
difference in its max-t interval 23/24 and 21/24, held-out cells 248/259 and 262/276 (244 and 256 before the
lattice of scores; before the scale correction and the predictive terms: 646, 664, 20, 21, 227, 246). Rasch (B = 400): abilities 682/720 and 677/720, max-t
23/24 and 20/24, held-out cells 245/259 and 262/276 (the joint fit at B = 100: 657, 652, 20, 19, 237, 253).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .._random import block_generator, name_key
from .irt_fit import fit_irt, newton, standardize
from .rasch_marginal import fit_marginal_rasch, posterior_draws
from .resampling import cell_streams, item_weights
from ..display.notes import NoteKind

__all__ = ["ItemAbilityFit", "fit_item_abilities", "item_level_ability", "task_curves", "ability_draws", "cell_predictions",
           "choose_uncertainty", "scale_correction", "cell_curves", "BOOTSTRAP_BUDGET", "UNCERTAINTY"]

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
    scale: float = 1.0
    item_var: tuple | None = None
    #: what the cells' predictions use when it differs from (theta, samples, d): (theta, samples, d)
    predict: tuple | None = None


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
    if rasch and prior is None:
        return _marginal_rasch(resp, y, obs, n_resamples, entropy, uncertainty)
    fit = fit_irt(y, obs, resp.item_task, n_tasks, rasch=rasch, prior=prior)
    D, S = task_curves(fit.a[None], fit.d[None], resp.item_task, n_tasks)
    D, S = D[0], S[0]
    if uncertainty == "bootstrap":
        thetas, Ds, Ss, conv = _bootstrap(resp, y, obs, fit, rasch, n_resamples, entropy, prior, track)
        c = scale_correction(fit.theta, thetas)
        Ds, Ss = Ds / c, Ss * c  # each refit's task curves on the fit's scale
    else:
        # the linearized refits: the fit's noise on its own scale, each draw standardized as a refit would be
        raw = ability_draws(fit.theta, fit.cov_theta_raw, n_resamples, entropy)
        thetas, _, _ = standardize(raw, np.zeros_like(raw), np.zeros_like(raw), rasch=rasch)
        c = scale_correction(fit.theta, thetas)
        Ds, Ss = _curve_draws(fit, resp.item_task, n_tasks, D, S, n_resamples, entropy)
        conv = np.ones(n_resamples, dtype=bool)
    return ItemAbilityFit(fit.theta, thetas / c, fit.a, fit.d, D, S, Ds, Ss, conv, fit.converged, uncertainty,
                          fit.cov_theta, c, (fit.var_a, fit.var_d, fit.cov_ad))


def _marginal_rasch(resp, y, obs, n_draws, entropy, uncertainty) -> ItemAbilityFit:
    """The Rasch fit by marginal ML with posterior draws of the abilities (:mod:`.rasch_marginal`), centred at
    mean 0 over the models (each draw centred alike); ``predict`` keeps the uncentred posterior draws (the scale of
    the intercepts) for the cells' predictions."""
    n_tasks = len(resp.tasks)
    mfit = fit_marginal_rasch(y, obs, resp.item_task, n_tasks)
    med, draws, d_draws = posterior_draws(y, obs, mfit, n_draws, entropy)
    shift, shifts = med.mean(), draws.mean(1, keepdims=True)
    ones = np.ones_like(mfit.d)
    D, S = task_curves(ones[None], mfit.d[None], resp.item_task, n_tasks)
    Ds, Ss = _curve_shifts(mfit.d, d_draws, resp.item_task, n_tasks, D[0], S[0])
    centred = draws - shifts
    return ItemAbilityFit(med - shift, centred, ones, mfit.d + shift, D[0] - shift, S[0], Ds - shifts, Ss,
                          np.ones(n_draws, dtype=bool), mfit.converged, uncertainty, np.cov(centred, rowvar=False),
                          1.0, (np.zeros_like(ones), mfit.var_d, np.zeros_like(ones)), (med, draws, mfit.d))


#: the scale correction is first order: it is not taken beyond this factor either way (abilities that are mostly
#: noise, e.g. two models hard to tell apart, whose standardized refits flip sign)
_MAX_SCALE_CORRECTION = 2.0


def scale_correction(theta, samples) -> float:
    """How much the fit's scale shrinks in its own refits: the least-squares slope ``c`` of the refits' abilities
    (R, M) on the estimate's (through 0; both centred). Standardizing a noisy estimate divides it by a spread
    that includes its noise (``c < 1``), and a joint fit's abilities can spread out more than the truth (``c >
    1``); a refit repeats either on the fit as the fit does on the truth, so ``theta / c`` is the estimate
    corrected to first order and a refit's ``theta* / c`` is centred at ``theta``."""
    ss = float(theta @ theta)
    if not ss > 0:
        return 1.0
    c = float(np.mean(samples @ theta)) / ss
    return float(np.clip(c, 1.0 / _MAX_SCALE_CORRECTION, _MAX_SCALE_CORRECTION))


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


def _curve_gradients(a, d, item_task, n_tasks, D):
    """Gradients of each task's difficulty and slope in its items' ``a`` and ``d`` (each (I,), item ``i``'s
    task's), by implicit differentiation of ``F_t(D_t) = 1/2``."""
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
    return dD_a, dD_d, dS_a, dS_d


def _curve_shifts(d, d_draws, item_task, n_tasks, D, S):
    """The Rasch task curves' difficulty and slope at the intercept draws ``d_draws`` (R, I), to first order."""
    _, dD_d, _, dS_d = _curve_gradients(np.ones_like(d), d, item_task, n_tasks, D)
    onehot = _onehot(item_task, n_tasks)
    delta = d_draws - d
    return D + (delta * dD_d) @ onehot, np.maximum(S + (delta * dS_d) @ onehot, 0.0)


def _curve_draws(fit, item_task, n_tasks, D, S, n_draws, entropy):
    """Normal draws of the task curves' difficulty and slope by the delta method (items' (a, d) blocks of the
    inverse information, items independent)."""
    dD_a, dD_d, dS_a, dS_d = _curve_gradients(fit.a, fit.d, item_task, n_tasks, D)
    va, vd, cad = fit.var_a, fit.var_d, fit.cov_ad

    def var(ga, gd):
        return np.bincount(item_task, weights=ga * ga * va + gd * gd * vd + 2 * ga * gd * cad, minlength=n_tasks)

    se_d, se_s = np.sqrt(np.maximum(var(dD_a, dD_d), 0)), np.sqrt(np.maximum(var(dS_a, dS_d), 0))
    gen = block_generator(entropy, (name_key("task curve draws"),))
    z = gen.standard_normal((n_draws, 2, n_tasks))
    return D + z[:, 0] * se_d, np.maximum(S + z[:, 1] * se_s, 0.0)


#: points of the grid on which a cell's curve is evaluated between the extremes of its model's replicates
_GRID = 65


def cell_predictions(resp, theta, samples, a, d, obs, model, task, *, confidence_level: float, entropy,
                     item_var=None):
    """Expected score of each cell (``model``, ``task`` codes) on the task's items the model answered (all the
    task's items when it answered none), with a predictive interval. Three sources of spread: the ability's
    replicates, each carried through the cell's curve (the mean item curve of its items, evaluated on a grid
    spanning the model's replicates and interpolated linearly); the items' own estimation error
    (``item_var = (var_a, var_d, cov_ad)``, each item's block of the inverse information, items independent:
    the variance of the cell's mean curve by the delta method, drawn as a normal shift); and the responses'
    Poisson-binomial spread (a binomial with the same variance, each draw put on the nearest score ``k / n`` of
    the cell's ``n`` items; the interval's ends are draws: quantiles by the inverse CDF).

    Returns ``(predicted, low, high, n)``."""
    n_t = len(resp.tasks)
    onehot = _onehot(resp.item_task, n_t)
    answered = obs.astype(float) @ onehot  # (M, T) items answered
    p = expit(theta[:, None] * a[None, :] + d[None, :])
    v = p * (1 - p)
    use = np.where((answered > 0)[:, resp.item_task], obs, True).astype(float)  # (M, I)
    n = use @ onehot
    f0 = ((p * use) @ onehot) / n
    var = ((v * use) @ onehot) / n  # mean p (1 - p) over the cell's items
    if item_var is None:
        var_f = np.zeros_like(f0)
    else:  # the mean curve's variance from the items' (a, d): gradient (theta v, v) of each item's p
        va, vd, cad = item_var
        th = theta[:, None]
        var_f = ((v * v * (th * th * va + vd + 2 * th * cad) * use) @ onehot) / (n * n)
    mean = cell_curves(theta, samples, a, d, use, onehot, model, task)
    f0, var, var_f, n = (x[model, task] for x in (f0, var, var_f, n))
    sd_f = np.sqrt(np.maximum(var_f, 0.0))
    # the responses: a binomial with the Poisson-binomial variance (effective size n F (1 - F) / mean p (1 - p))
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(var > 0, n * f0 * (1 - f0) / var, n)
    n_eff = np.maximum(np.round(np.clip(n_eff, 1, None)), 1).astype(np.int64)
    draws = np.empty(mean.shape)
    for j, gen in enumerate(cell_streams(entropy, "predict", resp.models, resp.tasks, model, task)):
        mj = np.clip(mean[:, j] + sd_f[j] * gen.standard_normal(mean.shape[0]), 0.0, 1.0)
        # the score's own lattice k / n: each draw put on the nearest point (the binomial's lattice is finer)
        draws[:, j] = np.round(gen.binomial(n_eff[j], mj) * (n[j] / n_eff[j])) / n[j]
    alpha = 1 - confidence_level
    # the draws are scores on a lattice: the quantiles are draws (the inverse of their CDF), not values
    # interpolated between two scores, which would shut out the score at the interval's end
    low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0, method="inverted_cdf")
    return f0, low, high, n


def cell_curves(theta, samples, a, d, use, onehot, model, task) -> np.ndarray:
    """(B, K) each replicate's expected score of each cell (``model``, ``task`` codes): the mean over the cell's
    items (``use`` (M, I) marks them, ``onehot`` (I, T) their tasks) of ``sigmoid(a_i theta* + d_i)``, evaluated on
    a grid of :data:`_GRID` abilities between the extremes of each model's replicates and interpolated linearly
    (the cost of the grid, not of every replicate times every item)."""
    delta = samples - theta
    lo, hi = delta.min(axis=0), delta.max(axis=0)
    step = (hi - lo) / (_GRID - 1)
    n = use @ onehot
    grid = np.empty((_GRID, len(model)))
    for g in range(_GRID):
        x = theta + lo + g * step
        grid[g] = (((expit(x[:, None] * a[None, :] + d[None, :]) * use) @ onehot) / n)[model, task]
    with np.errstate(invalid="ignore", divide="ignore"):
        pos = np.where(step[model] > 0, (delta[:, model] - lo[model]) / step[model], 0.0)  # (B, K)
    i0 = np.clip(np.floor(pos).astype(np.int64), 0, _GRID - 2)
    frac = np.clip(pos - i0, 0.0, 1.0)
    return np.take_along_axis(grid, i0, axis=0) * (1 - frac) + np.take_along_axis(grid, i0 + 1, axis=0) * frac


NOTE_ITEM_SCALE_ANCHOR = NoteKind(
    'latent.item-scale-anchor', 'info',
    "scale fixed by the anchor task '{task}' (the midpoint of its characteristic curve at {difficulty:g}, slope"
    " {slope:g}); the anchor's own difficulty and slope carry no interval")
NOTE_ITEM_SCALE_RASCH = NoteKind(
    'latent.item-scale-rasch', 'info',
    "abilities on the logit scale (Rasch: every discrimination 1), centred at mean 0 over the models")
NOTE_ITEM_SCALE_STANDARDIZED = NoteKind(
    'latent.item-scale-standardized', 'info',
    "abilities on the scale where the models' abilities have mean 0 and variance 1 (no anchor given): the"
    " standardized estimates times {factor:.3g}, undoing the shrinkage their noise causes")
NOTE_RASCH_POSTERIOR_INTERVALS = NoteKind(
    'latent.rasch-posterior-intervals', 'info',
    "Rasch model by marginal maximum likelihood (abilities a normal population of estimated spread, integrated"
    " out); intervals from {b:,} draws of each model's posterior ability given the items, the items' estimation"
    " error carried to first order (in place of refits: the joint fit's refits under-covered); predictive"
    " intervals add the items' estimation error and the responses' spread")
_SCALE_CORRECTION = ("; the {what} reproduce the abilities {c:.3g} times as large (least-squares slope), so estimates"
                     " and {what} are divided by that factor (a first-order bias correction of the scale); predictive"
                     " intervals add the items' estimation error and the responses' spread")
NOTE_2PL_BOOTSTRAP_INTERVALS = NoteKind(
    'latent.2pl-bootstrap-intervals', 'info',
    "intervals from {b:,} bootstrap refits of the 2PL model (items resampled within tasks, paired across models),"
    " each started from the full-data fit" + _SCALE_CORRECTION.replace("{what}", "refits"))
_NORMAL = ("intervals from {b:,} draws from the normal approximation of the 2PL fit (the sandwich over items within"
           " tasks, the linearized item bootstrap), each standardized as a refit would be"
           + _SCALE_CORRECTION.replace("{what}", "draws"))
NOTE_2PL_NORMAL_INTERVALS = NoteKind('latent.2pl-normal-intervals', 'info', _NORMAL)
NOTE_2PL_NORMAL_INTERVALS_AUTO = NoteKind(
    'latent.2pl-normal-intervals-auto', 'info',
    _NORMAL + "; the bootstrap would refit {n_m:,} models x {n_i:,} items {b:,} times: ask for it with"
    " {arg:uncertainty='bootstrap'}")
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
    # Rasch: posterior draws given the marginal-ML items whatever was asked (module notes): draws, not refits
    method = "information" if rasch else choose_uncertainty(uncertainty, n_m, n_i, n_resamples)

    def track(it, total):
        return _track(it, total, progress=progress, description="ability bootstrap (items)")

    fit = fit_item_abilities(resp, rasch=rasch, uncertainty=method, n_resamples=n_resamples, entropy=entropy,
                             track=track)
    c = fit.scale  # the reported scale: the fit's, corrected for the shrinkage its refits show (scale_correction)
    theta, samples, D, S, Ds, Ss = fit.theta / c, fit.samples / c, fit.difficulty / c, fit.slope * c, \
        fit.difficulty_samples / c, fit.slope_samples * c
    notes = list(cells.notes)
    if anchor is not None:
        k_a = resp.tasks.index(anchor[0])
        theta, D, S = _to_anchor(theta, D, S, k_a, anchor[1], anchor[2])
        samples, Ds, Ss = _to_anchor(samples, Ds, Ss, k_a, anchor[1], anchor[2])
        ident = NOTE_ITEM_SCALE_ANCHOR(task=anchor[0], difficulty=anchor[1], slope=anchor[2])
    elif rasch:
        ident = NOTE_ITEM_SCALE_RASCH()
    else:
        ident = NOTE_ITEM_SCALE_STANDARDIZED(factor=1 / c)
    notes.append(ident)
    if not fit.full_converged:
        notes.append(NOTE_ITEM_LEVEL_FIT_STOPPED())
    failed = int((~fit.converged).sum())
    if failed:
        notes.append(NOTE_BOOTSTRAP_REFITS_STOPPED_BEFORE_2(failed=failed, n_resamples=n_resamples))
    notes.append(_note(method, uncertainty, model, n_resamples, n_m, n_i, c))
    units, unit_name = model_units(cells)
    ranking, comparisons = rank_and_compare(theta, samples, resp.models, level, simultaneous, correction, units,
                                            unit_name)
    n_tasks, n_models = cells.tasks_per_model(), cells.models_per_task()
    mflags, tflags = weak_flags(cells, n_tasks, n_models)
    notes += _flag_notes(mflags, tflags, cells)
    m_all = np.repeat(np.arange(n_m), n_t)
    t_all = np.tile(np.arange(n_t), n_m)
    obs = resp.observed
    pred, low, high, n = cell_predictions(resp, *_for_prediction(fit), obs, m_all, t_all,
                                          confidence_level=level, entropy=entropy, item_var=fit.item_var)
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
        hp, hl, hh, _ = cell_predictions(resp, *_for_prediction(tfit), obs, cells.model[mask],
                                         cells.task[mask], confidence_level=level, entropy=entropy,
                                         item_var=tfit.item_var)
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


def _for_prediction(fit):
    """``(theta, samples, a, d)`` on the scale of the items' intercepts: what a cell's prediction rests on."""
    if fit.predict is None:
        return fit.theta, fit.samples, fit.a, fit.d
    theta, samples, d = fit.predict
    return theta, samples, fit.a, d


def _to_anchor(theta, D, S, k, difficulty, slope):
    """The scale on which task ``k``'s curve has its midpoint at ``difficulty`` and slope ``slope``."""
    f = S[..., k:k + 1] / slope
    da = D[..., k:k + 1]
    return f * (theta - da) + difficulty, f * (D - da) + difficulty, S / f


def _note(method, asked, model, b, n_m, n_i, c=1.0) -> str:
    if model == "rasch":
        return NOTE_RASCH_POSTERIOR_INTERVALS(b=b)
    if method == "bootstrap":
        return NOTE_2PL_BOOTSTRAP_INTERVALS(b=b, c=c)
    if asked == "auto":
        return NOTE_2PL_NORMAL_INTERVALS_AUTO(b=b, c=c, n_m=n_m, n_i=n_i)
    return NOTE_2PL_NORMAL_INTERVALS(b=b, c=c)
