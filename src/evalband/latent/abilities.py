"""``ability()``: latent abilities of models measured on different tasks (sparse leaderboards)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from .._blas import single_threaded_blas
from .._progress import track as _track
from .._random import run_entropy
from .._validate import (ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice,
                         check_confidence_level, check_positive_int, check_probability)
from ..estimation.confidence import ConfidenceInterval
from . import sigmoid_fit as sf
from .cells import Cells, _choose, cells_from, check_connected
from .predict import choose_holdout, holdout_summary, predictive_intervals
from .resampling import pearson_residuals, refit, replicate_scores, item_weights
from .item_abilities import UNCERTAINTY
from .result import AbilityResult
from ..display.notes import NoteKind
from .._words import words

__all__ = ["ability", "MODELS", "LOSSES", "CORRECTIONS", "UNCERTAINTY", "weak_flags", "model_units", "pair_units",
           "rank_and_compare"]

#: latent-ability models
MODELS = ("sigmoid", "rasch", "2pl")
#: cell likelihoods ('auto': binomial with counts, fraction without)
LOSSES = ("auto", *sf.LOSSES)
#: multiplicity control of the pairwise differences ('auto': max-t with more than one pair)
CORRECTIONS = ("auto", "none", "bonferroni", "holm", "bh", "max-t")
#: a task whose every measured score lies this close to 0 or 1 is flagged as saturated
SATURATED = 0.02


@dataclass(frozen=True)


class _Fit:
    params: tuple
    samples: tuple
    converged: np.ndarray
    residuals: np.ndarray
    weight: object
    dispersion: float
    design: object


NOTE_BOOTSTRAP_REFITS_STOPPED_BEFORE = NoteKind(
    'latent.bootstrap-refits-stopped-before', 'info',
    '{failed} of {n_resamples} bootstrap refits stopped before converging; they are kept')
NOTE_CELLS_VARY_TIMES_MUCH = NoteKind(
    'latent.cells-vary-times-much', 'info',
    'the cells vary {dispersion:.3g} times as much around the fit as binomial sampling of their items explains '
    '(Pearson dispersion): the ability intervals cover item sampling on these tasks, the predictive intervals '
    'include the extra spread')


#: how the scale of the abilities is fixed
NOTE_SCALE_ANCHOR = NoteKind("latent.scale-anchor", "info", "scale fixed by the anchor task '{task}' (difficulty"
                             " {difficulty:g}, slope {slope:g}); the anchor's own difficulty and slope carry no interval")
NOTE_SCALE_STANDARDIZED = NoteKind("latent.scale-standardized", "info",
                                   "abilities standardized to mean 0 and variance 1 over the models (no anchor given)")
NOTE_SCALE_RASCH = NoteKind("latent.scale-rasch", "info",
                            "abilities on the logit scale (Rasch: every slope 1), centred at mean 0 over the models")


def ability(data, *, model: str = "sigmoid", anchor=None, loss: str = "auto", models=None, tasks=None,
            n_resamples: int | None = None, uncertainty: str = "auto", confidence_level=0.95, correction: str = "auto",
            simultaneous: str = "max-t", holdout: float | None = None, prior=None, rng=None, progress=None,
            **read_options) -> AbilityResult:
    """Latent abilities of models measured on different tasks, on one scale, with intervals and ranks.

    Fits ``score(m, b) = sigmoid(alpha_b (C_m - D_b))`` (Epoch AI's benchmark stitching; the two-parameter
    logistic model with tasks as items) to the measured cells of a sparse model x task matrix, and gives each
    model's ability ``C_m`` with its interval, rank, rank intervals and P(best), every pair's difference with a
    verdict, each task's difficulty ``D_b`` and slope ``alpha_b``, and a prediction with a predictive interval for
    every cell not measured.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame, path or ``'example:NAME'``
        Summary level (``model, task, n, correct`` or ``accuracy``), cell scores (a DataFrame ``model, task,
        score`` with scores in [0, 1] and no counts), or item level (``model, task, item, score``; cells are
        counted from the items). Any pattern of missing cells, as long as the model x task graph is connected.
    model : {'sigmoid', 'rasch', '2pl'}
        'sigmoid': a curve per task (difficulty and slope) fitted to the cells' scores, at any level (item-level
        data are counted per cell). '2pl' and 'rasch' on item-level data fit the item response model to every
        response (a discrimination and intercept per item, Rasch: every discrimination 1; the fit of
        :func:`evalband.latent.items`; item-level 'rasch' by marginal maximum likelihood with each model's
        posterior, :mod:`.rasch_marginal`), so each ability rests on the items a model answered across tasks; each
        task is then summarized by its characteristic curve (:mod:`.item_abilities`). At summary level '2pl' is
        'sigmoid' (the tasks are the items) and 'rasch' has every slope 1 (abilities on the logit scale, only
        their mean fixed).
    anchor : str, tuple or mapping, optional
        Fix the scale by a task's difficulty and slope instead of standardizing the abilities: a task name
        (difficulty 0, slope 1, as Epoch AI anchors Winogrande), ``(task, difficulty, slope)`` or a mapping with
        keys ``task``, ``difficulty``, ``slope``.
    loss : {'auto', 'binomial', 'fraction', 'least-squares'}
        The cell likelihood (see :mod:`evalband.latent.sigmoid_fit`): 'auto' is 'binomial' with counts and
        'fraction' (quasi-binomial) for scores without counts; 'least-squares' is Epoch's loss.
    models, tasks : sequence of str, optional
        The models reported (the fit uses every measured model, so the scale does not depend on the choice) and
        the tasks used.
    n_resamples : int, optional
        Bootstrap replicates (each a refit), or draws from the observed information; by default 2,000, the count
        of every refitting command (``evalband ability`` gives the same numbers for the same seed).
    uncertainty : {'auto', 'bootstrap', 'information'}
        'bootstrap': refits of resampled data (below). 'information': draws from the normal approximation at the
        fit (the inverse Fisher information of the task-level model; at item level the sandwich over items
        within tasks, the linearized item bootstrap), much faster on large item sets. 'auto': the bootstrap,
        except for item-level '2pl' fits whose bootstrap would be long
        (:data:`~evalband.latent.item_abilities.BOOTSTRAP_BUDGET`). Item-level 'rasch' always draws from each
        model's posterior given the marginal-ML items (the joint fit's refits under-covered), reported as
        'information'. The notes say which was used.
    confidence_level : float
    correction : {'auto', 'none', 'bonferroni', 'holm', 'bh', 'max-t'}
        Multiplicity control of the pairwise differences; 'auto' is max-t (simultaneous intervals from the
        bootstrap maximum |t|) when there is more than one pair.
    simultaneous : {'max-t', 'bonferroni', 'holm', 'bh', 'none'}
        Pairwise intervals behind the simultaneous rank intervals and tiers (as :func:`evalband.rank`).
    holdout : float, optional
        Refit without this share of the measured cells (e.g. 0.1) and report the coverage of their predictive
        intervals and the error of their predictions (:class:`~evalband.latent.predict.HoldoutCheck`).
    prior : mapping, optional
        Prior standard deviations ``ability``, ``difficulty``, ``log_slope`` (defaults
        :data:`~evalband.latent.sigmoid_fit.PRIOR_SD`, on the standardized scale).
    rng : None, int or numpy.random.Generator
    progress : bool or None
        A progress bar on a terminal (None: when the work takes more than a second).
    **read_options
        Options of :func:`evalband.read` when ``data`` is read.

    Returns
    -------
    AbilityResult

    Notes
    -----
    *Fit.* A regularized maximum likelihood (MAP under weak Gaussian priors) by damped Fisher scoring with
    analytic derivatives, the abilities eliminated through the Schur complement (:mod:`.sigmoid_fit`). The
    likelihood does not change when ``C`` and ``D`` are moved and stretched together and ``alpha`` shrunk in
    turn, so the scale is fixed after the fit: abilities of mean 0 and variance 1 over the models (the default)
    or the anchor's difficulty and slope. Ranks, P(best) and verdicts do not depend on that choice.

    *Uncertainty.* A bootstrap at the level the data were sampled (:mod:`.resampling`): binomial counts within
    cells, items within tasks (paired across models), or, for scores without counts, a residual bootstrap of the
    cells' deviations from the fit; each replicate is refitted from the full-data fit and put on the same scale.
    Item-level '2pl' fits correct their scale for the shrinkage that standardizing a noisy estimate
    causes, as their refits measure it (:func:`~evalband.latent.item_abilities.scale_correction`), and their
    predictive intervals add the items' estimation error; their simulated coverage is in :mod:`.item_abilities`.
    Verdicts on pairs of models rest on the resampling units behind both abilities (items for counts and item
    data, the pooled cells for scores without counts): with fewer than 10 none is given.
    With counts the tasks are fixed: the intervals cover the sampling of items, not how a model would fare on
    other benchmarks; the dispersion (note) says how much more the cells vary around the fit than their items
    explain, and the predictive intervals include that spread.

    *Weak identification* is flagged in words: a model measured on one task (its ability rests on that task's
    curve alone), a task measured on one model, a task every model saturates.

    References
    ----------
    Epoch AI (2025). A Rosetta Stone for AI benchmarks. epoch-research/benchmark-stitching (MIT).
    Birnbaum, A. (1968). Some latent trait models and their use in inferring an examinee's ability. In Lord &
    Novick, Statistical Theories of Mental Test Scores.

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b", "c", "c", "d"], "task": ["x", "y", "y", "z", "x", "z", "y"],
    ...                    "n": 200, "correct": [150, 90, 120, 40, 100, 30, 60]})
    >>> res = eb.ability(df, n_resamples=200, rng=0)
    >>> res.to_frame()["model"].tolist()
    ['b', 'a', 'd', 'c']
    >>> res.predictions()[["model", "task"]].values.tolist()[:2]
    [['a', 'z'], ['b', 'x']]
    """
    model = check_choice(model, MODELS, "model")
    loss = check_choice(loss, LOSSES, "loss")
    uncertainty = check_choice(uncertainty, UNCERTAINTY, "uncertainty")
    correction = check_choice(correction, CORRECTIONS, "correction")
    level = check_confidence_level(confidence_level)
    from .._defaults import n_resamples_for

    n_resamples = check_positive_int(n_resamples_for("refit", n_resamples), "n_resamples", minimum=2)
    if holdout is not None:
        holdout = check_probability(holdout, "holdout")
        if holdout >= 0.5:
            raise ArgumentError(words('`{arg:holdout}` is the share of measured cells held out for the check; {holdout:g} leaves too few to fit (use e.g. 0.1).', holdout=holdout))
    prior = _prior(prior)
    # the data are read once: every model's cells; the chosen models' cells are taken from them
    cells = cells_from(data, tasks=tasks, **read_options)
    chosen = None
    if models is not None:  # the scale of every model measured: fitted on all, the chosen ones reported
        sub = _choose(cells, models, None)
        if len(cells.models) > len(sub.models) and _connected(cells):
            chosen = sub.models
        else:
            cells = sub
    check_connected(cells)
    if len(cells.models) < 2:
        raise InputError("a latent-ability model needs at least 2 models", source=cells.source)
    if chosen is not None:
        result = ability(cells, model=model, anchor=anchor, loss=loss, n_resamples=n_resamples,
                         uncertainty=uncertainty, confidence_level=level, correction=correction,
                         simultaneous=simultaneous, holdout=holdout, prior=prior, rng=rng, progress=progress)
        return _for_models(result, chosen, cells, level, simultaneous, correction)
    gen = as_generator(rng)
    entropy = run_entropy(gen)
    if cells.kind == "items" and model in ("2pl", "rasch"):
        if loss != "auto":
            raise ArgumentError(words('`{arg:loss}` applies to the task-level model; the item-level {model} model has the Bernoulli likelihood of each response (got {arg:loss={loss!r}}).', model=model, loss=loss))
        from .item_abilities import item_level_ability

        return item_level_ability(cells, model=model, anchor=_anchor(anchor, cells), n_resamples=n_resamples,
                                  uncertainty=uncertainty, level=level, correction=correction,
                                  simultaneous=simultaneous, holdout=holdout, entropy=entropy, progress=progress)
    loss = ("binomial" if cells.n is not None else "fraction") if loss == "auto" else loss
    if loss == "binomial" and cells.n is None:
        raise ArgumentError(words("`{arg:loss='binomial'}` needs counts (an `n` column); these cells have scores only: use 'fraction' or 'least-squares'."))
    anchor = _anchor(anchor, cells)
    slopes = model != "rasch"
    notes = list(cells.notes)

    def track(it, total):
        return _track(it, total, progress=progress, description="ability bootstrap")

    method = "bootstrap" if uncertainty == "auto" else uncertainty
    fit = _fit(cells, slopes=slopes, loss=loss, prior=prior, n_resamples=n_resamples, entropy=entropy,
               track=track, method=method)
    C, D, beta = fit.params
    Cs, Ds, Bs = fit.samples
    if anchor is not None:
        a = cells.tasks.index(anchor[0])
        C, D, beta = sf.to_anchor(C, D, beta, a, anchor[1], anchor[2])
        Cs, Ds, Bs = sf.to_anchor(Cs, Ds, Bs, a, anchor[1], anchor[2])
        ident = NOTE_SCALE_ANCHOR(task=anchor[0], difficulty=anchor[1], slope=anchor[2])
    elif slopes:
        ident = NOTE_SCALE_STANDARDIZED()
    else:
        ident = NOTE_SCALE_RASCH()
    notes.append(ident)
    failed = int((~fit.converged).sum())
    if failed:
        notes.append(NOTE_BOOTSTRAP_REFITS_STOPPED_BEFORE(failed=failed, n_resamples=n_resamples))
    notes.append(_uncertainty_note(cells.kind, loss, n_resamples, method))
    if cells.kind != "scores" and np.isfinite(fit.dispersion) and fit.dispersion > 1.5:
        notes.append(NOTE_CELLS_VARY_TIMES_MUCH(dispersion=fit.dispersion))
    units, unit_name = model_units(cells)
    ranking, comparisons = rank_and_compare(C, Cs, cells.models, level, simultaneous, correction, units,
                                            unit_name)
    n_tasks = cells.tasks_per_model()
    n_models = cells.models_per_task()
    mflags, tflags = weak_flags(cells, n_tasks, n_models)
    notes += _flag_notes(mflags, tflags, cells)
    frame = _cells_frame(cells, (C, D, beta), (Cs, Ds, Bs), fit, loss, level, entropy)
    check = None
    if holdout is not None:
        check = _holdout(cells, holdout, slopes=slopes, loss=loss, prior=prior, n_resamples=n_resamples,
                         entropy=entropy, level=level, track=track, method=method)
        notes.append(check.headline())
        notes += _few_refits_note(n_resamples, level)
    alpha = 1 - level
    q = [alpha / 2, 1 - alpha / 2]
    slope, slope_s = np.exp(beta), np.exp(Bs)
    d_ci = ConfidenceInterval(*np.quantile(Ds, q, axis=0))
    s_ci = ConfidenceInterval(*np.quantile(slope_s, q, axis=0))
    return AbilityResult(model, loss, cells.kind, ident, anchor, cells.models, cells.tasks, C, Cs, ranking,
                         comparisons, D, slope, d_ci, s_ci, Ds, slope_s, n_tasks, n_models, mflags, tflags, frame,
                         check, fit.dispersion, method, n_resamples, level, tuple(dict.fromkeys(notes)),
                         cells.source, cells.attribution)


#: draws wanted beyond each end of a percentile predictive interval (fewer: its ends are set by a handful of draws)
MIN_TAIL_DRAWS = 10
NOTE_FEW_REFITS_HOLDOUT = NoteKind(
    "latent.few-refits-holdout", "caveat",
    "few refits for the held-out check ({b:,}): a {level:.0%} predictive interval from the percentiles of {b:,} draws has"
    " about {tail:.3g} draws beyond each end (fewer than {min_tail}), so its ends sit too far in: it covers a new"
    " draw about (B - 1) / (B + 1) x {level:.0%} = {expected:.1%} of the time, and the check's coverage reads low;"
    " use at least {need:,} refits ({arg:n_resamples})")


def _few_refits_note(b: int, level: float) -> list:
    """The caveat of a held-out check on too few refits for its predictive intervals' tails: fewer than
    :data:`MIN_TAIL_DRAWS` draws beyond each end, ``B (1 - level) / 2 < 10``, i.e. ``B < 20 / (1 - level)``. The
    interval between the sample percentiles (linear interpolation of the order statistics ``1 + (B - 1) q``) covers
    a new draw of the same distribution with probability about ``(B - 1) level / (B + 1)``."""
    tail = b * (1 - level) / 2
    if tail >= MIN_TAIL_DRAWS:
        return []
    need = int(np.ceil(2 * MIN_TAIL_DRAWS / (1 - level) - 1e-9))
    return [NOTE_FEW_REFITS_HOLDOUT(b=b, level=level, tail=tail, min_tail=MIN_TAIL_DRAWS,
                                    expected=(b - 1) * level / (b + 1), need=need)]


def _chosen_notes(notes, chosen) -> list:
    """The notes of a fit on every model, as the chosen models' report says them: the blank cells of a wide table
    (``io.blank-cells-left-out``, counts per model) counted for the chosen models only (the others' are not
    named)."""
    keep, out = set(map(str, chosen)), []
    for n in notes:
        per = getattr(n, "params", {}).get("per_model") if getattr(n, "code", None) == "io.blank-cells-left-out" \
            else None
        if per is None:
            out.append(n)
            continue
        per = {m: v for m, v in per.items() if m in keep}
        if per:
            out.append(n.kind(counts=", ".join(f"{m}: {int(v):,}" for m, v in per.items()), per_model=per))
    return out


def _prior(prior) -> dict:
    out = dict(sf.PRIOR_SD)
    if prior is None:
        return out
    if not isinstance(prior, Mapping):
        raise ArgumentTypeError(words('`{arg:prior}` must be a mapping of prior standard deviations ({value}); got {name}.', value=', '.join(out), name=type(prior).__name__))
    for k, v in prior.items():
        if k not in out:
            raise ArgumentError(words('`{arg:prior}` has no {k!r}; its keys are {value}.', k=k, value=', '.join(map(repr, out))))
        if not (isinstance(v, (int, float)) and v > 0 and np.isfinite(v)):
            raise ArgumentError(f"`prior[{k!r}]` must be a positive number; got {v!r}.")
        out[k] = float(v)
    return out


def _anchor(anchor, cells: Cells):
    if anchor is None:
        return None
    if isinstance(anchor, str):
        spec = (anchor, 0.0, 1.0)
    elif isinstance(anchor, Mapping):
        unknown = set(anchor) - {"task", "difficulty", "slope"}
        if unknown or "task" not in anchor:
            raise ArgumentError(words("`{arg:anchor}` as a mapping needs 'task' (and may give 'difficulty', 'slope'); got keys {value}.", value=sorted(map(str, anchor))))
        spec = (anchor["task"], anchor.get("difficulty", 0.0), anchor.get("slope", 1.0))
    elif isinstance(anchor, (tuple, list)) and len(anchor) in (1, 2, 3):
        spec = (*anchor, *(0.0, 1.0)[len(anchor) - 1:])
    else:
        raise ArgumentTypeError(words('`{arg:anchor}` must be a task name, (task, difficulty, slope) or a mapping; got {anchor!r}.', anchor=anchor))
    task, diff, slope = str(spec[0]), spec[1], spec[2]
    if task not in cells.tasks:
        from .._validate import closest_name

        close = closest_name(task, cells.tasks)
        raise ArgumentError(words("`{arg:anchor}` names task {task!r}, which is not in the data{hint}", task=task,
                                  hint=f"; did you mean {close!r}?" if close else "."))
    try:
        diff, slope = float(diff), float(slope)
    except (TypeError, ValueError):
        raise ArgumentError(words('`{arg:anchor}` difficulty and slope must be numbers; got {value!r}, {value2!r}.', value=spec[1], value2=spec[2])) from None
    if not (np.isfinite(diff) and np.isfinite(slope) and slope > 0):
        raise ArgumentError(words('`{arg:anchor}` needs a finite difficulty and a positive slope; got {diff!r}, {slope!r}.', diff=diff, slope=slope))
    return (task, diff, slope)


def _fit(cells: Cells, *, slopes, loss, prior, n_resamples, entropy, track, method="bootstrap") -> _Fit:
    """The full-data fit and its bootstrap refits (or draws from the observed information), on the standardized
    scale. BLAS runs on one thread: the systems are small (a thread per core buys nothing), and the last bits of
    a batched solve then do not depend on the machine's BLAS thread count."""
    with single_threaded_blas():
        return _fit_on_one_blas_thread(cells, slopes=slopes, loss=loss, prior=prior, n_resamples=n_resamples,
                                       entropy=entropy, track=track, method=method)


def _fit_on_one_blas_thread(cells, *, slopes, loss, prior, n_resamples, entropy, track, method) -> _Fit:
    d = sf.design(cells.model, cells.task, len(cells.models), len(cells.tasks), slopes=slopes)
    start = sf.start_values(d, cells.y)
    w = cells.n if loss == "binomial" else 1.0
    C, D, beta, _ = sf.fit(d, cells.y, w, loss=loss, prior=prior, start=start)
    eta = sf.predict_eta(d, C[0], D[0], beta[0])
    phi = sf.dispersion(d, cells.y, eta, loss, cells.n if loss == "binomial" else None)
    if loss != "binomial" and np.isfinite(phi) and phi > 0:  # the priors weigh against the data on their scale
        w = 1.0 / phi
        C, D, beta, _ = sf.fit(d, cells.y, w, loss=loss, prior=prior, start=(C, D, beta))
        eta = sf.predict_eta(d, C[0], D[0], beta[0])
    lev = sf.leverages(d, C[0], D[0], beta[0], cells.y, w, loss, prior)
    C, D, beta = sf.standardize(C[0], D[0], beta[0], scale=slopes)
    p = expit(eta)
    nn = cells.n if loss == "binomial" else None
    resid = pearson_residuals(cells.y, p, loss, nn, lev)
    if method == "information":
        samples = sf.information_draws(d, (C, D, beta), cells.y, w, loss=loss, prior=prior, n_draws=n_resamples,
                                       entropy=entropy)
        return _Fit((C, D, beta), samples, np.ones(n_resamples, dtype=bool), resid, w, phi, d)
    if cells.kind == "items":
        wts = item_weights(cells.responses, n_resamples, entropy)
        m, t, s, n = cells.responses.cell_counts(wts)
        order = np.argsort(m * len(cells.tasks) + t, kind="stable")
        n = n[:, order]
        y = np.where(n > 0, s[:, order] / np.maximum(n, 1), 0.0)
        w_b = n if loss == "binomial" else w
    else:
        y, _ = replicate_scores(cells, p, kind=cells.kind, loss=loss, n_resamples=n_resamples, entropy=entropy,
                                residuals=resid)
        w_b = w
    samples = refit(d, y, w_b, loss=loss, prior=prior, start=(C, D, beta), track=track)
    return _Fit((C, D, beta), samples[:3], samples[3], resid, w, phi, d)


NOTE_BOOTSTRAP_REFITS = NoteKind("latent.bootstrap-refits", "info", "intervals from {b:,} bootstrap refits"
                                 " ({what}), each started from the full-data fit; {arg:loss='{loss}'}")


NOTE_INFORMATION_DRAWS = NoteKind(
    "latent.information-draws", "info", "intervals from {b:,} draws from the normal approximation at the fit"
    " (inverse Fisher information, {arg:loss='{loss}'}; {arg:uncertainty='bootstrap'} resamples the data instead)")


def _uncertainty_note(kind, loss, b, method="bootstrap") -> str:
    if method == "information":
        return NOTE_INFORMATION_DRAWS(b=b, loss=loss)
    what = {"counts": "binomial counts redrawn within cells", "items": "items resampled within tasks, paired"
            " across models", "scores": "a residual bootstrap of the cells' deviations from the fit (scores"
            " without counts: the cells' spread around the fit is the only measure of their noise)"}[kind]
    return NOTE_BOOTSTRAP_REFITS(b=b, what=what, loss=loss)


def model_units(cells: Cells) -> tuple[np.ndarray, str]:
    """The resampling units behind each model's ability: the items of its cells (counts: the sum of ``n``; item
    data: the items it answered), or, for scores without counts, every cell of the fit (the residual bootstrap
    draws each cell's noise from the pooled residuals, so the noise of any ability is measured on all of them)."""
    if cells.kind == "scores":
        return np.full(len(cells.models), float(cells.n_cells)), "cells"
    if cells.kind == "items" and cells.responses is not None:
        return cells.responses.observed.sum(axis=1).astype(float), "items"
    return np.bincount(cells.model, weights=cells.n, minlength=len(cells.models)), "items"


def pair_units(observed, units) -> np.ndarray:
    """Per pair of :func:`evalband.comparison.pairwise_differences` (pairs in its default order, best first):
    the fewer of the two models' resampling units."""
    from ..comparison.pairs import pair_indices

    ia, ib = pair_indices(np.argsort(-np.asarray(observed, dtype=float), kind="stable"))
    return np.minimum(units[ia], units[ib])


def _connected(cells) -> bool:
    try:
        check_connected(cells)
    except InputError:
        return False
    return True


NOTE_FIT_ON_EVERY_MODEL = NoteKind(
    'latent.fit-on-every-model', 'info',
    'abilities of the {n_chosen} chosen model{s} on the scale of all {n_all} models measured (fitted on every '
    'measured cell, so the scale and the intervals do not depend on which models are shown)')


def _for_models(result, chosen, cells, level, simultaneous, correction):
    """``result`` (fitted on every model of ``cells``) for the ``chosen`` models only: their abilities on the
    common scale, ranks and pairs among them."""
    import dataclasses

    idx = np.array([result.models.index(m) for m in chosen])
    C, Cs = result.ability[idx], result.samples[:, idx]
    units, unit_name = model_units(cells)
    ranking, comparisons = rank_and_compare(C, Cs, tuple(chosen), level, simultaneous, correction,
                                            np.asarray(units)[idx], unit_name)
    frame = result.cells[result.cells["model"].astype(str).isin(chosen)].reset_index(drop=True)
    flags = tuple(result.model_flags[i] for i in idx) if len(result.model_flags) == len(result.models) \
        else result.model_flags
    note = NOTE_FIT_ON_EVERY_MODEL(n_chosen=len(chosen), s="s" if len(chosen) != 1 else "",
                                   n_all=len(result.models))
    return dataclasses.replace(result, models=tuple(chosen), ability=C, samples=Cs, ranking=ranking,
                               comparisons=comparisons, n_tasks=result.n_tasks[idx], model_flags=flags, cells=frame,
                               notes=(note, *_chosen_notes(result.notes, chosen)))


def rank_and_compare(C, Cs, models, level, simultaneous, correction, units=None, unit_name="items"):
    from ..comparison.pairwise import pairwise_differences
    from ..ranking import rank_models

    per_pair = None if units is None else pair_units(C, np.asarray(units, dtype=float))
    if correction == "auto":
        correction = "max-t" if len(models) > 2 else "none"
    comparisons = pairwise_differences(C, Cs, models, statistic="ability", confidence_level=level,
                                       correction=correction, scale=1.0, unit="", keep_replicates="auto",
                                       n_units=per_pair, unit_name=unit_name)
    # the ranking's simultaneous intervals are these pairs' when the corrections agree: formed once, not twice
    same = comparisons if correction == simultaneous and len(models) > 1 else None
    ranking = rank_models(C, Cs, models, aggregate="ability", confidence_level=level, simultaneous=simultaneous,
                          scale=1.0, n_units=per_pair, pairs=same)
    return ranking, comparisons


def weak_flags(cells: Cells, n_tasks, n_models) -> tuple[tuple, tuple]:
    """Weak identification in words, per model and per task."""
    mflags = []
    for k in range(len(cells.models)):
        y = cells.y[cells.model == k]
        f = []
        if n_tasks[k] == 1:
            f.append("measured on one task")
        if y.size and (np.all(y >= 1 - SATURATED) or np.all(y <= SATURATED)):
            f.append("saturated on every task measured")
        mflags.append("; ".join(f))
    tflags = []
    for k in range(len(cells.tasks)):
        y = cells.y[cells.task == k]
        f = []
        if n_models[k] == 1:
            f.append("measured on one model")
        if y.size and np.all(y >= 1 - SATURATED):
            f.append("every model saturates (near 1)")
        elif y.size and np.all(y <= SATURATED):
            f.append("every model near 0")
        tflags.append("; ".join(f))
    return tuple(mflags), tuple(tflags)


#: weak identification, in words (weak_flags)
NOTE_WEAK_ONE_TASK = NoteKind("latent.weak-one-task", "caveat", "weakly identified: {n} model{s} measured on one task"
                              " ({names}): such an ability rests on one task's curve")
NOTE_WEAK_SATURATED = NoteKind("latent.weak-saturated", "caveat", "weakly identified: every model saturates {names}:"
                               " its difficulty and slope rest on the prior")
NOTE_WEAK_ONE_MODEL = NoteKind("latent.weak-one-model", "caveat", "weakly identified: {names} measured on one model:"
                               " it says nothing about the abilities")


def _flag_notes(mflags, tflags, cells) -> list:
    from .._lists import names_text

    out = []
    one = [m for m, f in zip(cells.models, mflags) if "one task" in f]
    if one:
        out.append(NOTE_WEAK_ONE_TASK(n=len(one), s="s" if len(one) != 1 else "", names=names_text(one, 5)))
    sat = [t for t, f in zip(cells.tasks, tflags) if "every model" in f]
    if sat:
        out.append(NOTE_WEAK_SATURATED(names=names_text(sat, 5)))
    single = [t for t, f in zip(cells.tasks, tflags) if "one model" in f]
    if single:
        out.append(NOTE_WEAK_ONE_MODEL(names=names_text(single, 5)))
    return out


def _cells_frame(cells, params, samples, fit, loss, level, entropy) -> pd.DataFrame:
    """Every cell of the matrix with its prediction and predictive interval."""
    nm, nt = len(cells.models), len(cells.tasks)
    m = np.repeat(np.arange(nm), nt)
    t = np.tile(np.arange(nt), nm)
    flat = cells.model * nt + cells.task
    measured = np.zeros(nm * nt, dtype=bool)
    measured[flat] = True
    observed = np.full(nm * nt, np.nan)
    observed[flat] = cells.y
    n = None
    if loss == "binomial":
        n = np.empty(nm * nt)
        med = np.array([np.median(cells.n[cells.task == k]) for k in range(nt)])
        n[:] = med[t]
        n[flat] = cells.n
    pred, low, high = predictive_intervals(params, samples, m, t, n=n, residuals=fit.residuals, loss=loss,
                                           confidence_level=level, entropy=entropy, models=cells.models,
                                           tasks=cells.tasks)
    return pd.DataFrame({"model": [cells.models[k] for k in m], "task": [cells.tasks[k] for k in t],
                         "measured": measured, "observed": observed,
                         "n": n if n is not None else np.full(nm * nt, np.nan), "predicted": pred, "pi_low": low,
                         "pi_high": high})


def _holdout(cells, fraction, *, slopes, loss, prior, n_resamples, entropy, level, track, method="bootstrap"):
    mask, skipped = choose_holdout(cells, fraction, entropy)
    train = cells.subset(~mask)
    if cells.kind == "items":  # the refit of held-out cells counts their items binomially
        train = Cells(train.models, train.tasks, train.model, train.task, train.y, train.n, "counts", train.source)
    fit = _fit(train, slopes=slopes, loss=loss, prior=prior, n_resamples=n_resamples, entropy=entropy, track=track,
               method=method)
    n = cells.n[mask] if loss == "binomial" else None
    pred, low, high = predictive_intervals(fit.params, fit.samples, cells.model[mask], cells.task[mask], n=n,
                                           residuals=fit.residuals, loss=loss, confidence_level=level,
                                           entropy=entropy, models=cells.models, tasks=cells.tasks)
    return holdout_summary(cells, mask, pred, low, high, fraction=fraction, skipped=skipped,
                           confidence_level=level)
