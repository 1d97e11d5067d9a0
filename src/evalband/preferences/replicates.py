"""Every rating method on the data and on each bootstrap replicate: one replicate set per run.

Each function here fits one method to the battles and to every replicate of :class:`ClusterBootstrap` (block by
block, warm-started from the fit to the data) and returns a :class:`Ratings`: the estimate, the (B, M) replicate
matrix from which every interval, rank and comparison is then read, jackknife values for BCa when asked, and what
the fit had to say in notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from .bradley_terry import RIDGE, fit_pairs, information_matrix, mle_exists, one_step_jackknife
from .elo import bootstrap_elo, online_elo
from .scales import ELO_PER_LOGIT
from .style import fit_style, style_design, style_jackknife
from .winrate import (average_win_rate_replicates, baseline_win_rates, length_controlled_win_rates)
from .._validate import ArgumentError
from ..display.notes import NoteKind
from .._words import words

__all__ = ["Ratings", "bt_ratings", "style_ratings", "elo_ratings", "baseline_ratings", "average_ratings"]

#: battle weights per replicate held in memory at once by the style fit (replicates x battles)
STYLE_ELEMENTS = 2_000_000


@dataclass


class Ratings:
    """A method's estimate and replicates.

    ``space`` is 'logit' (log-strengths, mean 0) or 'rate' (a win rate in [0, 1]).
    """

    observed: np.ndarray
    samples: np.ndarray
    space: str
    jackknife: np.ndarray | None = None
    extras: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def _names(models, idx) -> str:
    shown = [models[i] for i in idx[:5]]
    return ", ".join(map(repr, shown)) + (f" and {len(idx) - 5} more" if len(idx) > 5 else "")


def _degenerate(rep: dict, pi, pj, m) -> np.ndarray:
    """Per replicate and model: True when the model has no win mass or no loss mass (rating not finite)."""
    ai = sparse.csr_matrix((np.ones(pi.size), (np.arange(pi.size), pi)), shape=(pi.size, m))
    aj = sparse.csr_matrix((np.ones(pj.size), (np.arange(pj.size), pj)), shape=(pj.size, m))
    if "n" in rep:
        win_i, win_j = rep["s"], rep["n"] - rep["s"]
    else:
        win_i, win_j = rep["w"] + rep["t"], rep["l"] + rep["t"]
    won = np.asarray((ai.T @ win_i.T).T) + np.asarray((aj.T @ win_j.T).T)
    lost = np.asarray((ai.T @ win_j.T).T) + np.asarray((aj.T @ win_i.T).T)
    return (won <= 0) | (lost <= 0)


NOTE_WON_EVERY_BATTLE_MAXIMUM = NoteKind(
    'preferences.won-every-battle-maximum', 'info',
    "{value} won every battle: the maximum-likelihood rating is +infinity; the ridge ({ridge:g}) keeps it finite "
    "but its value and upper interval end mean 'unbounded'")
NOTE_LOST_EVERY_BATTLE_MAXIMUM = NoteKind(
    'preferences.lost-every-battle-maximum', 'info',
    "{value} lost every battle: the maximum-likelihood rating is -infinity; the ridge ({ridge:g}) keeps it "
    "finite but its value and lower interval end mean 'unbounded'")
NOTE_COMPARISON_GRAPH_FALLS_INTO = NoteKind(
    'preferences.comparison-graph-falls-into', 'caveat',
    'the comparison graph falls into {n_comp} groups that never won against each other: ratings across groups '
    'are not identified by maximum likelihood; the ridge ({ridge:g}) sets them')


def _existence_notes(models, data, pi, pj, ridge) -> list:
    exists, only_wins, only_losses, n_comp = mle_exists(data, pi, pj, len(models))
    notes = []
    if only_wins:
        notes.append(NOTE_WON_EVERY_BATTLE_MAXIMUM(value=_names(models, only_wins), ridge=ridge))
    if only_losses:
        notes.append(NOTE_LOST_EVERY_BATTLE_MAXIMUM(value=_names(models, only_losses), ridge=ridge))
    if not exists and not (only_wins or only_losses):
        notes.append(NOTE_COMPARISON_GRAPH_FALLS_INTO(n_comp=n_comp, ridge=ridge))
    return notes


NOTE_NEWTON_S_METHOD_DID = NoteKind('preferences.newton-s-method-did', 'caveat',
                                     "Newton's method did not converge in {value} fit(s)")


NOTE_DEGENERATE_REPLICATES = NoteKind(
    "preferences.degenerate-replicates", "caveat", "in some replicates a model had only wins, only losses or no"
    " battle (ratings set by the ridge there): {counts}{more} of {n_resamples:,} replicates")


def bt_ratings(table, units, boot, *, model: str = "bt", ridge: float = RIDGE, jackknife: bool = False) -> Ratings:
    """Bradley-Terry ('bt': a tie is half a win), Rao-Kupper or Davidson."""
    kind = "half" if model == "bt" else "ties"
    ps = table.pair_sums(units.codes, units.n_units, kind=kind)
    m = table.n_models
    tot = ps.totals()
    if model != "bt" and not tot["t"].sum() > 0:
        raise ArgumentError(words("{arg:ties={model!r}:} the battles have no ties, so the tie parameter is not identified; use {arg:ties='half'} or 'drop'.", model=model))
    fit = fit_pairs(tot, ps.pair_i, ps.pair_j, m, model=model, ridge=ridge)
    notes = _existence_notes(table.models, tot, ps.pair_i, ps.pair_j, ridge)
    samples = np.empty((boot.n_resamples, m))
    ties = None if fit.tie is None else np.empty(boot.n_resamples)
    bad = np.zeros(m, dtype=np.int64)
    failed = 0
    for start, counts in boot.blocks():
        rep = ps.replicate(counts)
        r = fit_pairs(rep, ps.pair_i, ps.pair_j, m, model=model, ridge=ridge, theta0=fit.theta[0],
                      tie0=None if fit.tie is None else fit.tie[0])
        samples[start:start + counts.shape[0]] = r.theta
        if ties is not None:
            ties[start:start + counts.shape[0]] = r.tie
        bad += _degenerate(rep, ps.pair_i, ps.pair_j, m).sum(axis=0)
        failed += int((~r.converged).sum())
    if bad.any():
        worst = np.argsort(-bad, kind="stable")[: int((bad > 0).sum())]
        notes.append(NOTE_DEGENERATE_REPLICATES(
            counts=", ".join(f"{table.models[i]!r} {int(bad[i])}" for i in worst[:5]),
            more=" ..." if (bad > 0).sum() > 5 else "", n_resamples=boot.n_resamples))
    if failed or not fit.converged.all():
        notes.append(NOTE_NEWTON_S_METHOD_DID(value=failed + int((~fit.converged).sum())))
    jack = None
    extras = {"pairs": (ps.pair_i, ps.pair_j)}
    if jackknife:
        info = information_matrix(fit, tot, ps.pair_i, ps.pair_j, ridge=ridge)
        full = one_step_jackknife(fit, ps.unit_sums(), ps.pair_i, ps.pair_j, info)
        jack = full[:, :m]
        if fit.tie is not None:
            extras["tie_jackknife"] = np.exp(full[:, m])
    if fit.tie is not None:
        extras.update(tie=float(fit.tie[0]), tie_samples=ties)
    return Ratings(fit.theta[0], samples, "logit", jack, extras, notes)


NOTE_STYLE_CONTROLLED_FIT_DID = NoteKind('preferences.style-controlled-fit-did', 'caveat',
                                          'the style-controlled fit did not converge in {failed} replicate(s)')


def style_ratings(table, units, boot, names, *, ridge: float = RIDGE, jackknife: bool = False) -> Ratings:
    """Style-controlled Bradley-Terry ratings and style coefficients; the raw ratings from the same replicates."""
    raw = bt_ratings(table, units, boot, model="bt", ridge=ridge, jackknife=False)
    a, b, y, w = table.model_a, table.model_b, table.outcome, table.weight
    codes = units.codes
    z = style_design(table.features, names)
    m, n = table.n_models, a.size
    theta, beta, conv = fit_style(a, b, y, z, m, w[None, :], ridge=ridge, theta0=raw.observed)
    samples = np.empty((boot.n_resamples, m))
    betas = np.empty((boot.n_resamples, len(names)))
    failed = int((~conv).sum())
    step = max(1, STYLE_ELEMENTS // max(n, 1))
    for start, counts in boot.blocks():
        for s0 in range(0, counts.shape[0], step):  # sub-blocks bound memory; the counts are those of the block
            wts = counts[s0:s0 + step][:, codes] * w[None, :]
            t, bb, cv = fit_style(a, b, y, z, m, wts, ridge=ridge, theta0=theta[0], beta0=beta[0])
            samples[start + s0:start + s0 + wts.shape[0]] = t
            betas[start + s0:start + s0 + wts.shape[0]] = bb
            failed += int((~cv).sum())
    notes = list(raw.notes)
    if failed:
        notes.append(NOTE_STYLE_CONTROLLED_FIT_DID(failed=failed))
    jack = None
    if jackknife:
        full = style_jackknife(a, b, y, z, w, codes, units.n_units, theta[0], beta[0], ridge=ridge)
        jack = full[:, :m]
    extras = dict(raw.extras, raw=raw.observed, raw_samples=raw.samples, beta=beta[0], beta_samples=betas,
                  style_names=list(names))
    return Ratings(theta[0], samples, "logit", jack, extras, notes)


NOTE_SOME_REPLICATES_MODEL_HAD = NoteKind(
    'preferences.some-replicates-model-had', 'info',
    'in some replicates a model had no battle and kept the initial rating: {value} of {n_resamples:,} replicates')


def elo_ratings(table, units, boot, *, k: float) -> Ratings:
    """Online Elo in the order of the rows, and FastChat's bootstrap Elo (median of the replicates)."""
    a, b, y, w = table.model_a, table.model_b, table.outcome, table.weight
    m = table.n_models
    online = online_elo(a, b, y, m, k=k, weight=w)
    samples, absent = bootstrap_elo(a, b, y, m, units, boot, k=k, weight=w, canonical=table.canonical_order())
    notes = [words("online Elo depends on the order of the battles and on k = {k:g}: the ratings are FastChat's"
                   " bootstrap Elo (the median over replicates of online Elo on resampled battles in random"
                   " order); the Bradley-Terry fit ({arg:model='bt'}) does not depend on the order", k=k)]
    if absent.any():
        idx = np.flatnonzero(absent)
        notes.append(NOTE_SOME_REPLICATES_MODEL_HAD(value=', '.join(f'{table.models[i]!r} {int(absent[i])}' for i in idx[:5]), n_resamples=boot.n_resamples))
    to_logit = lambda r: (r - r.mean(axis=-1, keepdims=True)) / ELO_PER_LOGIT  # noqa: E731
    median = np.median(samples, axis=0)
    return Ratings(to_logit(median), to_logit(samples), "logit", None,
                   {"online": to_logit(online), "online_elo": online}, notes)


NOTE_REPLICATES_DREW_NO_BATTLE = NoteKind(
    'preferences.replicates-drew-no-battle', 'info',
    '{value:,} replicates drew no battle of some model against the baseline; there its win rate is its value on '
    'the data')
NOTE_LENGTH_CONTROLLED_WIN_RATE_2 = NoteKind(
    'preferences.length-controlled-win-rate-2', 'caveat',
    "length-controlled win rate by the length-only GLM ({arg:lc_glm='length-only'}): per model, a logistic GLM "
    "of the preference on tanh(length difference / its SD) with an intercept, predicted at equal lengths; not "
    "AlpacaEval's length_controlled_v1 (no instruction difficulty, no regularization toward gamed baselines), so "
    "values differ from the published LC win rates; its interval comes from refitting the GLM on every replicate")


def baseline_ratings(table, units, boot, baseline: int, *, length_control: bool = False,
                     lc_glm: str = "length_controlled_v1", lc_reference=None, instruction_difficulty=None,
                     jackknife: bool = False) -> Ratings:
    """Win rates against ``baseline`` (or, with ``length_control``, length-controlled win rates by the GLM
    ``lc_glm``: AlpacaEval's 'length_controlled_v1' (:mod:`~evalband.preferences.lc_glm`), or 'length-only')."""
    m = table.n_models
    wr = baseline_win_rates(table.model_a, table.model_b, table.outcome, table.weight, units, m, baseline,
                            count=getattr(table, "count", None))
    notes = []
    samples = np.empty((boot.n_resamples, m))
    raw_samples = samples if not length_control else np.empty((boot.n_resamples, m))
    extras = {"win_rate": wr.win_rate, "se": wr.se, "n_baseline": wr.n}
    if length_control:
        if "length" not in table.features:
            raise ArgumentError(words("`{arg:length_control}` needs a 'length' style feature (answer lengths of both sides, e.g. columns length_a and length_b); available: {value}.", value=', '.join(table.features) or 'none'))
        lengths = table.features["length"][wr.keep]
        side = np.where(table.model_a[wr.keep] == baseline, -1.0, 1.0)  # the model's length minus the baseline's
        delta = side * (lengths[:, 0] - lengths[:, 1]) if lengths.ndim == 2 else side * lengths
        if jackknife:
            raise ArgumentError(words("`{arg:method='bca'}` is not available with `{arg:length_control=True}`; use 'percentile'."))
        if lc_glm == "length-only":
            lc, beta, lc_scale = length_controlled_win_rates(wr, delta, m)
            observed = lc[0]
            extras.update(lc_beta=beta[0], delta=delta)
            notes.append(NOTE_LENGTH_CONTROLLED_WIN_RATE_2())
            replicate = lambda counts: length_controlled_win_rates(wr, delta, m, counts=counts,  # noqa: E731
                                                                   scale=lc_scale)[0]
        else:
            observed, replicate, fit_notes, fit = _v1(table, wr, delta, m, baseline, lc_reference,
                                                      instruction_difficulty)
            notes += fit_notes
            extras["lc_fit"] = fit
    else:
        observed = wr.win_rate
    for start, counts in boot.blocks():
        c = counts.shape[0]
        raw_samples[start:start + c] = wr.replicates(counts)
        if length_control:
            samples[start:start + c] = replicate(counts)
    empty = np.isnan(samples).any(axis=0)
    if empty.any():
        notes.append(NOTE_REPLICATES_DREW_NO_BATTLE(value=int(np.isnan(samples).any(axis=1).sum())))
        samples = np.where(np.isnan(samples), observed[None, :], samples)
    extras["win_rate_samples"] = raw_samples if not length_control else np.where(np.isnan(raw_samples),
                                                                                  wr.win_rate[None, :], raw_samples)
    jack = None
    if jackknife:
        jack = wr.jackknife()
        jack = np.where(np.isfinite(jack), jack, observed[None, :])
    return Ratings(observed, samples, "rate", jack, extras, notes)


NOTE_LENGTH_CONTROLLED_WIN_RATE = NoteKind(
    'preferences.length-controlled-win-rate', 'info',
    "length-controlled win rate: AlpacaEval's length_controlled_v1 (per model, the L1-penalized logistic GLM on "
    "tanh(standardized length difference), instruction difficulty and the model,{value} C by 5-fold "
    "cross-validation, predicted at equal lengths); its interval comes from refitting the GLM on every replicate "
    "with that C (AlpacaEval gives no uncertainty for the GLM)")
NOTE_LENGTH_CONTROLLED_V1_WITHOUT = NoteKind(
    'preferences.length-controlled-v1-without', 'info',
    "length_controlled_v1 without its regularization toward the gamed baselines (their annotations are "
    "AlpacaEval's df_gamed.csv: give it as {arg:lc_reference}{py:, --lc-reference}): the values then differ a little "
    "from AlpacaEval's")


def _v1(table, wr, delta, m: int, baseline: int, lc_reference, instruction_difficulty):
    """AlpacaEval's length_controlled_v1 on the battles against the baseline: (observed LC win rates, a function
    of the unit counts of a block of replicates giving theirs, notes, the fits as a frame)."""
    import pandas as pd

    from .lc_glm import difficulty_of_questions, estimate_difficulty, fit_v1, lc_win_rate, read_reference

    if "question" not in table.labels:
        raise ArgumentError(words("length_controlled_v1 needs the instruction of each battle (a question column, as AlpacaEval annotations have) for its instruction-difficulty term; use {arg:lc_glm='length-only'} (--lc-glm length-only) for battles without one."))
    notes = []
    gamed = None if lc_reference is None else read_reference(lc_reference)
    rows = np.flatnonzero(wr.keep)
    q_all = table.labels["question"]
    first = list(dict.fromkeys(q_all[rows].tolist()))  # AlpacaEval's index: instructions in order of appearance
    position = {q: k for k, q in enumerate(first)}
    q_code = np.array([position[q] for q in q_all[rows]], dtype=np.int64)
    # AlpacaEval's length feature: the baseline's length minus the model's, over its SD among the model's rows
    alpaca_delta = -np.asarray(delta, dtype=np.float64)
    n = np.bincount(wr.model, minlength=m).astype(float)
    mean = np.bincount(wr.model, alpaca_delta, m) / np.maximum(n, 1)
    sd = np.sqrt(np.bincount(wr.model, (alpaca_delta - mean[wr.model]) ** 2, m) / np.maximum(n - 1, 1))
    z = np.where(sd[wr.model] > 0, np.tanh(alpaca_delta / np.where(sd[wr.model] > 0, sd[wr.model], 1.0)), 0.0)
    if isinstance(instruction_difficulty, str) and instruction_difficulty == "auto":
        instruction_difficulty = None
    difficulty, how = difficulty_of_questions(first, instruction_difficulty, gamed, table.source)
    present = [k for k in range(m) if k != baseline and n[k] > 0]
    if difficulty is None:
        if len(present) >= 3:
            difficulty = estimate_difficulty(wr.model, q_code, wr.preference, z, m, len(first))
            how = words("instruction difficulty estimated from these annotations (a joint logistic fit over the"
                        " {n_present} models: an intercept and a length slope per model, an effect per instruction;"
                        " AlpacaEval fitted its own this way on its leaderboard: give its df_gamed.csv"
                        " ({py:lc_reference, }--lc-reference) to use it and reproduce the leaderboard's values)",
                        n_present=len(present))
        else:
            difficulty = np.zeros(len(first))
            how = words("no instruction difficulty: with {n_present} model(s) against the baseline it cannot be"
                        " estimated from the annotations, so the term is left out (give AlpacaEval's df_gamed.csv,"
                        " {py:lc_reference, }--lc-reference)", n_present=len(present))
    notes.append(how)
    if gamed is None:
        notes.append(NOTE_LENGTH_CONTROLLED_V1_WITHOUT())
    notes.append(NOTE_LENGTH_CONTROLLED_WIN_RATE(value=' regularized toward the gamed baselines (lambda 0.2),' if gamed is not None else ''))
    d_row = difficulty[q_code]
    observed = np.full(m, np.nan)
    observed[baseline] = 0.5
    fits, ordered = {}, []
    for k in present:
        sel = np.flatnonzero(wr.model == k)
        beta, c_pen = fit_v1(z[sel], d_row[sel], wr.preference[sel], gamed, weights=wr.weight[sel][None, :])
        observed[k] = lc_win_rate(beta, d_row[sel], weights=wr.weight[sel])[0]
        fits[k] = (sel, beta[0], c_pen)
        ordered.append((table.models[k], *beta[0], c_pen))
    frame = pd.DataFrame(ordered, columns=["model", "w_length", "w_difficulty", "w_model", "C"])

    def replicate(counts):
        counts = np.asarray(counts, dtype=np.float64)
        out = np.full((counts.shape[0], m), np.nan)
        out[:, baseline] = 0.5
        for k, (sel, beta, c_pen) in fits.items():
            w = counts[:, wr.unit_codes[sel]] * wr.weight[sel][None, :]
            has = w.sum(axis=1) > 0
            if has.any():
                b, _ = fit_v1(z[sel], d_row[sel], wr.preference[sel], gamed, weights=w[has], C=c_pen, beta0=beta,
                              tol=1e-8)  # coefficients to 1e-8: the win rate to about 1e-9
                out[has, k] = lc_win_rate(b, d_row[sel], weights=w[has])
        return out

    return observed, replicate, notes, frame


NOTE_REPLICATES_DREW_NO_BATTLE_2 = NoteKind(
    'preferences.replicates-drew-no-battle-2', 'info',
    '{value:,} replicates drew no battle of some model; there its average win rate is its value on the data')


NOTE_AVERAGE_WIN_RATE = NoteKind(
    "preferences.average-win-rate", "info",
    "average win rate: each model's share of wins (a tie counting half) against each opponent it met, averaged"
    " over those opponents (evalica's average_win_rate; HELM's mean win rate on head-to-head results); it depends"
    " on which opponents a model met")


def average_ratings(table, units, boot, *, jackknife: bool = False) -> Ratings:
    """Average win rate against all opponents met (ties half)."""
    ps = table.pair_sums(units.codes, units.n_units, kind="half")
    m = table.n_models
    tot = ps.totals()
    observed = average_win_rate_replicates(tot["n"], tot["s"], ps.pair_i, ps.pair_j, m)[0]
    samples = np.empty((boot.n_resamples, m))
    for start, counts in boot.blocks():
        rep = ps.replicate(counts)
        samples[start:start + counts.shape[0]] = average_win_rate_replicates(rep["n"], rep["s"], ps.pair_i,
                                                                             ps.pair_j, m)
    notes = [NOTE_AVERAGE_WIN_RATE()]
    if np.isnan(samples).any():
        notes.append(NOTE_REPLICATES_DREW_NO_BATTLE_2(value=int(np.isnan(samples).any(axis=1).sum())))
        samples = np.where(np.isnan(samples), observed[None, :], samples)
    jack = None
    if jackknife:
        unit = ps.unit_sums()
        k_units = units.n_units
        jack = np.empty((k_units, m))
        step = max(1, 4_000_000 // max(ps.n_pairs, 1))
        for k0 in range(0, k_units, step):
            n_k = tot["n"][None, :] - unit["n"][k0:k0 + step].toarray()
            s_k = tot["s"][None, :] - unit["s"][k0:k0 + step].toarray()
            jack[k0:k0 + step] = average_win_rate_replicates(np.maximum(n_k, 0), s_k, ps.pair_i, ps.pair_j, m)
        jack = np.where(np.isfinite(jack), jack, observed[None, :])
    return Ratings(observed, samples, "rate", jack, {"pairs": (ps.pair_i, ps.pair_j)}, notes)
