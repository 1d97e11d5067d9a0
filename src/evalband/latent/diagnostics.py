"""``items()``: item diagnostics from the 2PL model (which items carry information, which look broken)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit
from scipy.stats import norm

from .._random import block_generator, name_key, run_entropy
from .._validate import InputError, as_generator, check_choice, check_confidence_level, check_positive_int
from ..display.reprs import displayed
from .cells import cells_from, check_connected
from .irt_fit import fit_irt
from ..display.notes import NoteKind

__all__ = ["items", "ItemsResult", "item_total_correlation", "duplicate_patterns", "FLAG_ORDER", "flag_rank"]

#: flags in the order a maintainer should read them (a likely wrong key first); the first words of each flag
FLAG_ORDER = ("negative discrimination: likely a wrong answer key", "negative discrimination (within noise)",
              "no information", "near-duplicate response pattern", "saturated")


def flag_rank(flag: str) -> int:
    """The place of an item's (first) flag in :data:`FLAG_ORDER`; an item without a flag comes after them all.

    Examples
    --------
    >>> flag_rank("saturated: every model right"), flag_rank("negative discrimination: likely a wrong answer key")
    (4, 0)
    >>> flag_rank("")
    5
    """
    for k, start in enumerate(FLAG_ORDER):
        if flag.startswith(start):
            return k
    return len(FLAG_ORDER)



def flag_name(flag: str) -> str:
    """The kind of one flag, as counted: the flag's words without the item it names (every near-duplicate pattern is
    one kind, ``'near-duplicate response pattern'``).

    Examples
    --------
    >>> flag_name("near-duplicate response pattern (same as item 'q7')"), flag_name("saturated: every model right")
    ('near-duplicate response pattern', 'saturated: every model right')
    """
    return FLAG_ORDER[3] if flag.startswith(FLAG_ORDER[3]) else flag


def flag_counts(flags) -> tuple[int, int, dict]:
    """Items counted by flag: ``(items flagged, items with more than one flag, {flag kind: items carrying it})``,
    kinds (:func:`flag_name`) in the order of :data:`FLAG_ORDER`. An item is counted once in the first number and
    under each of its flags in the last, so the counts by flag add up to more than the items flagged when some item
    carries several flags (the second number says by how many items).

    Examples
    --------
    >>> flag_counts(["", "saturated: every model wrong", "near-duplicate response pattern (same as item 'a')",
    ...              "negative discrimination (within noise); near-duplicate response pattern (same as item 'b')"])
    (3, 1, {'negative discrimination (within noise)': 1, 'near-duplicate response pattern': 2, 'saturated: every model wrong': 1})
    """
    counts: dict = {}
    n_flagged = several = 0
    for f in flags:
        if not f:
            continue
        parts = {flag_name(p) for p in str(f).split("; ")}
        n_flagged += 1
        several += len(parts) > 1
        for name in parts:
            counts[name] = counts.get(name, 0) + 1
    order = sorted(counts, key=lambda k: (flag_rank(k), k))
    return n_flagged, several, {k: counts[k] for k in order}


NOTE_ITEMS_FLAGGED = NoteKind("latent.items-flagged", "caveat", "{n:,} item{s} flagged{several}; items per flag: {counts}")


def flag_note(flags):
    """The note counting the flagged items and the items per flag (None when no item is flagged)."""
    n, several, counts = flag_counts(flags)
    if not n:
        return None
    return NOTE_ITEMS_FLAGGED(n=n, s="s" if n != 1 else "",
                              several="" if not several else f" ({several:,} with more than one flag, counted under each)",
                              counts=", ".join(f"{k} ({v:,})" for k, v in counts.items()))


#: the ability grid (standardized) on which task information is summarized
GRID = np.linspace(-4.0, 4.0, 161)


NOTE_ITEMS_HEADLINE = NoteKind("latent.items-headline", "info",
                               "{n_items:,} items of {n_tasks} tasks, {n_models} models ({model}); {flagged:,} item{s} flagged")


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class ItemsResult:
    """Per-item 2PL parameters with intervals, item-total correlations and flags; per-task information; the
    models' abilities.

    Attributes
    ----------
    model : {'2pl', 'rasch'}
    frame : pandas.DataFrame
        One row per item (see :meth:`to_frame`).
    task_information : pandas.DataFrame
        One row per task (see :meth:`tasks_frame`).
    abilities : AbilityResult-like ranking
        ``ranking`` of the models (:func:`evalband.ranking.rank_models` on draws from the abilities'
        sandwich covariance) and ``ability``.
    models, tasks : tuple of str
    ability : numpy.ndarray, shape (M,)
    ranking : evalband.ranking.ModelRanking
    confidence_level : float
    notes : tuple of str
    source : str
    """

    model: str
    frame: pd.DataFrame
    task_information: pd.DataFrame
    models: tuple
    tasks: tuple
    ability: np.ndarray
    ability_cov: np.ndarray
    ranking: object
    confidence_level: float
    converged: bool
    notes: tuple = ()
    source: str = ""

    __display__ = {"columns": ("task", "item", "difficulty", "discrimination", "item_total", "p_correct", "flag"),
                   "scale": 1.0, "value_cols": ()}

    def to_frame(self) -> pd.DataFrame:
        """One row per item, flagged items first: task, item, difficulty with difficulty_ci_low/high,
        discrimination with discrimination_ci_low/high, item_total (corrected item-total correlation),
        p_correct, n_models, information (the item's peak information a^2 / 4), flag ('' when none)."""
        return self.frame.copy()

    def tasks_frame(self) -> pd.DataFrame:
        """Per task: items, flagged items, mean discrimination, where on the ability scale the task discriminates
        (the peak of its information curve and the range above half the peak) and its information there."""
        return self.task_information.copy()

    def abilities_frame(self) -> pd.DataFrame:
        """One row per model, best first: ability with interval (sandwich), ranks, rank intervals, P(best)."""
        r = self.ranking
        frame = pd.DataFrame({"model": list(self.models), "ability": self.ability, "se": r.se,
                              "ci_low": np.asarray(r.ci.low, float), "ci_high": np.asarray(r.ci.high, float),
                              "rank": r.rank, "rank_low": r.rank_ci.low, "rank_high": r.rank_ci.high,
                              "rank_sim_low": r.rank_simultaneous.low, "rank_sim_high": r.rank_simultaneous.high,
                              "p_best": r.p_best, "rank_mean": r.rank_mean})
        return frame.iloc[np.lexsort((r.rank_mean, r.rank))].reset_index(drop=True)

    def headline(self) -> str:
        flagged = int((self.frame["flag"] != "").sum())
        return NOTE_ITEMS_HEADLINE(n_items=len(self.frame), n_tasks=len(self.tasks), n_models=len(self.models),
                                   model=self.model, flagged=flagged, s="s" if flagged != 1 else "")


NOTE_SCALE_ABILITIES_STANDARDIZED_MEAN = NoteKind(
    'latent.scale-abilities-standardized-mean', 'info',
    'scale: abilities standardized to mean 0 and variance 1 over the models')
NOTE_SCALE_LOGIT_SCALE_RASCH = NoteKind('latent.scale-logit-scale-rasch', 'info',
                                         'scale: the logit scale (Rasch), abilities centred at mean 0')
NOTE_INTERVALS_FROM_OBSERVED_INFORMATION = NoteKind(
    'latent.intervals-from-observed-information', 'info',
    'intervals from the observed information (items) and its sandwich over items within tasks (abilities: the '
    'linearized bootstrap of items within tasks, paired across models)')
NOTE_FIT_STOPPED_AFTER_STEPS = NoteKind('latent.fit-stopped-after-steps', 'info',
                                         'the fit stopped after {iterations} steps before converging')


def items(data, *, model: str = "2pl", models=None, tasks=None, confidence_level=0.95, n_draws: int | None = None,
          rng=None, **read_options) -> ItemsResult:
    """Item diagnostics: 2PL difficulty and discrimination with intervals, item-total correlations and flags.

    Parameters
    ----------
    data : Selection, ResultsTable, DataFrame, path or ``'example:NAME'``
        Item-level results (``model, task, item, score`` with scores in [0, 1]); models may have answered
        different items.
    model : {'2pl', 'rasch'}
    models, tasks : sequence of str, optional
    confidence_level : float
    n_draws : int, optional
        Draws of the abilities from their (sandwich) normal approximation, for rank intervals and P(best); by
        default 2,000, as ``evalband items``.
    rng : None, int or numpy.random.Generator
    **read_options
        Options of :func:`evalband.read`.

    Returns
    -------
    ItemsResult

    Notes
    -----
    The model and its fit are described in :mod:`evalband.latent.irt_fit`: joint MAP estimation (abilities as
    parameters), intervals from the observed information (items) and its sandwich over items within tasks
    (abilities). The flags, in words:

    * *negative discrimination: likely a wrong answer key*: the whole interval of ``a`` lies below 0 (stronger
      models get the item wrong more often); *negative discrimination (within noise)* when only the estimate is;
    * *saturated*: every model right (or every model wrong): the item carries no information at these abilities.
      Its likelihood keeps rising as its difficulty moves past the models (to infinity), so the fit's difficulty
      and discrimination there rest on the prior alone and are not reported: ``difficulty`` and
      ``discrimination`` (with their intervals) are NaN, and the one-sided statement the data support is given
      instead: every model wrong, ``difficulty_bound = 'above'`` and ``difficulty_ci_low`` the highest ability of
      the models that answered it (the difficulty lies above the abilities measured; ``difficulty_ci_high`` NaN);
      every model right, ``'below'`` and ``difficulty_ci_high`` the lowest such ability. (Rasch: the
      discrimination stays the fixed 1.);
    * *no information*: the discrimination's interval covers 0 and the item-total correlation is below 0.1;
    * *near-duplicate response pattern*: the same responses as another item on at least 20 shared models, with at
      least 10% of them (and 3) in the minority, which chance rarely produces.

    The item-total correlation is corrected: each item against the model's mean score on the other items of its
    task.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import evalband as eb
    >>> rng = np.random.default_rng(1)
    >>> theta, b = rng.normal(size=60), rng.normal(size=40)
    >>> y = (rng.random((60, 40)) < 1 / (1 + np.exp(-2 * (theta[:, None] - b)))).astype(int)
    >>> y[:, 0] = 1 - y[:, 0]  # a miskeyed item
    >>> df = pd.DataFrame([(f"m{m}", "t", f"i{i}", y[m, i]) for m in range(60) for i in range(40)],
    ...                   columns=["model", "task", "item", "score"])
    >>> res = eb.items(df, rng=0)
    >>> res.to_frame().iloc[0][["item", "flag"]].tolist()
    ['i0', 'negative discrimination: likely a wrong answer key']
    """
    model = check_choice(model, ("2pl", "rasch"), "model")
    level = check_confidence_level(confidence_level)
    from .._defaults import n_resamples_for

    n_draws = check_positive_int(n_resamples_for("refit", n_draws), "n_draws", minimum=2)
    entropy = run_entropy(as_generator(rng))
    cells = cells_from(data, models=models, tasks=tasks, **read_options)
    if cells.responses is None:
        raise InputError("item diagnostics need item-level results (model, task, item, score); these are"
                         " per-task summaries", source=cells.source)
    check_connected(cells)
    resp = cells.responses
    obs = resp.observed
    if len(resp.models) < 3:
        raise InputError("item diagnostics need at least 3 models", source=cells.source)
    fit = fit_irt(resp.y, obs, resp.item_task, len(resp.tasks), rasch=model == "rasch")
    notes = list(cells.notes)
    if not fit.converged:
        notes.append(NOTE_FIT_STOPPED_AFTER_STEPS(iterations=fit.iterations))
    notes.append(NOTE_SCALE_ABILITIES_STANDARDIZED_MEAN() if model == "2pl" else
                 NOTE_SCALE_LOGIT_SCALE_RASCH())
    notes.append(NOTE_INTERVALS_FROM_OBSERVED_INFORMATION())
    z = norm.ppf(0.5 + level / 2)
    se_a, se_b = np.sqrt(np.maximum(fit.var_a, 0)), np.sqrt(np.maximum(fit.var_b, 0))
    n_models = obs.sum(axis=0)
    p_correct = np.where(obs, resp.y, 0).sum(axis=0) / np.maximum(n_models, 1)
    itc = item_total_correlation(resp.y, obs, resp.item_task, len(resp.tasks))
    dup = duplicate_patterns(resp.y, obs)
    flags = _flags(fit.a, fit.a - z * se_a, fit.a + z * se_a, resp.y, obs, itc, dup, resp.items, model)
    frame = pd.DataFrame({
        "task": [resp.tasks[t] for t in resp.item_task], "item": list(resp.items), "difficulty": fit.b,
        "difficulty_ci_low": fit.b - z * se_b, "difficulty_ci_high": fit.b + z * se_b, "discrimination": fit.a,
        "discrimination_ci_low": fit.a - z * se_a, "discrimination_ci_high": fit.a + z * se_a,
        "item_total": itc, "p_correct": p_correct, "n_models": n_models, "information": fit.a ** 2 / 4,
        "flag": flags, "confidence_level": level})
    frame = _saturated_bounds(frame, fit.theta, resp.y, obs, estimated_slopes=model == "2pl")
    frame = frame.iloc[np.lexsort((np.arange(len(frame)), frame["flag"].eq("").to_numpy()))].reset_index(drop=True)
    if frame["difficulty_bound"].notna().any():
        notes.append(NOTE_SATURATED_BOUNDS(n=int(frame["difficulty_bound"].notna().sum())))
    note = flag_note(frame["flag"])
    if note is not None:
        notes.append(note)
    info = _task_information(fit, resp, flags)
    draws = _ability_draws(fit.theta, fit.cov_theta, n_draws, entropy)
    from ..ranking import rank_models

    ranking = rank_models(fit.theta, draws, resp.models, aggregate="ability", confidence_level=level, scale=1.0)
    return ItemsResult(model, frame, info, resp.models, resp.tasks, fit.theta, fit.cov_theta, ranking, level,
                       fit.converged, tuple(dict.fromkeys(notes)), cells.source)


def _ability_draws(theta, cov, n_draws, entropy):
    """Draws from ``N(theta, cov)``, from one stream keyed by the purpose (the models' order is canonical)."""
    gen = block_generator(entropy, (name_key("ability draws"),))
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    root = vecs * np.sqrt(np.clip(vals, 0, None))
    return theta + gen.standard_normal((n_draws, theta.size)) @ root.T


def item_total_correlation(y, obs, item_task, n_tasks) -> np.ndarray:
    """Each item's Pearson correlation, over the models that answered it, with their mean score on the other
    items of its task (NaN when it cannot be computed)."""
    yo = np.where(obs, y, 0.0)
    o = obs.astype(float)
    onehot = np.zeros((item_task.size, n_tasks))
    onehot[np.arange(item_task.size), item_task] = 1.0
    s, n = yo @ onehot, o @ onehot
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (s[:, item_task] - yo) / (n[:, item_task] - o)
        ok = obs & np.isfinite(rest)
        k = ok.sum(axis=0)
        x, r = np.where(ok, yo, 0.0), np.where(ok, rest, 0.0)
        mx, mr = x.sum(0) / k, r.sum(0) / k
        cx, cr = np.where(ok, x - mx, 0.0), np.where(ok, r - mr, 0.0)
        out = (cx * cr).sum(0) / np.sqrt((cx * cx).sum(0) * (cr * cr).sum(0))
    return np.where(k >= 3, out, np.nan)


def duplicate_patterns(y, obs, *, min_models: int = 20) -> np.ndarray:
    """For each item, the index of an earlier item with the same response pattern (rounded to 0/1) on the same
    models, or -1; only patterns with at least ``min_models`` models and 10% (and 3) of them in the minority."""
    m = y.shape[0]
    out = np.full(y.shape[1], -1)
    if m < min_models:
        return out
    yy = np.where(obs, np.round(y), 2).astype(np.int8)  # 2 = not answered: patterns must share their models
    ones = (yy == 1).sum(axis=0)
    zeros = (yy == 0).sum(axis=0)
    answered = ones + zeros
    eligible = (answered >= min_models) & (np.minimum(ones, zeros) >= np.maximum(3, 0.1 * answered))
    cols = np.flatnonzero(eligible)
    if cols.size < 2:
        return out
    keys = np.ascontiguousarray(yy[:, cols].T).view(np.dtype((np.void, m)))[:, 0]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    firsts = cols[first][inverse.ravel()]
    dup = firsts != cols
    out[cols[dup]] = firsts[dup]
    return out


NOTE_SATURATED_BOUNDS = NoteKind(
    "latent.saturated-difficulty-bounds", "caveat", "{n:,} saturated item(s) (every model right or every model wrong):"
    " no difficulty or discrimination estimate (the fit there rests on the prior alone); their difficulty is only"
    " known to lie above the highest ability measured (every model wrong) or below the lowest (every model right),"
    " given as a one-sided interval (difficulty_bound)")


def _saturated_bounds(frame, theta, y, obs, *, estimated_slopes: bool) -> pd.DataFrame:
    """The saturated items' one-sided statement (see :func:`items`, Notes): no estimate, the difficulty above the
    highest (every model wrong) or below the lowest (every model right) ability of the models that answered."""
    yo = np.where(obs, y, np.nan)
    with np.errstate(invalid="ignore"):
        wrong = np.nanmax(yo, axis=0) <= 0
        right = (np.nanmin(yo, axis=0) >= 1) & ~wrong
    th = np.asarray(theta, dtype=float)[:, None]
    top = np.where(obs, th, -np.inf).max(axis=0)
    bottom = np.where(obs, th, np.inf).min(axis=0)
    sat = wrong | right
    out = frame.copy()
    out["difficulty_bound"] = np.where(wrong, "above", np.where(right, "below", None))
    out.loc[sat, "difficulty"] = np.nan
    out["difficulty_ci_low"] = np.where(wrong, top, np.where(right, np.nan, out["difficulty_ci_low"]))
    out["difficulty_ci_high"] = np.where(right, bottom, np.where(wrong, np.nan, out["difficulty_ci_high"]))
    if estimated_slopes:
        for c in ("discrimination", "discrimination_ci_low", "discrimination_ci_high", "information"):
            out.loc[sat, c] = np.nan
    cols = list(frame.columns)
    cols.insert(cols.index("difficulty_ci_high") + 1, "difficulty_bound")
    return out[cols]


def _flags(a, a_low, a_high, y, obs, itc, dup, labels, model) -> list:
    yo = np.where(obs, y, np.nan)
    all_right = np.nanmin(yo, axis=0) >= 1
    all_wrong = np.nanmax(yo, axis=0) <= 0
    out = []
    for i in range(a.size):
        f = []
        if all_right[i]:
            f.append("saturated: every model right")
        elif all_wrong[i]:
            f.append("saturated: every model wrong")
        elif model == "2pl" and a_high[i] < 0:
            f.append("negative discrimination: likely a wrong answer key")
        elif model == "2pl" and a[i] < 0:
            f.append("negative discrimination (within noise)")
        elif model == "2pl" and a_low[i] <= 0 and a[i] < 1 and not (itc[i] >= 0.1):
            f.append("no information: discrimination near 0")
        if dup[i] >= 0:
            f.append(f"near-duplicate response pattern (same as item '{labels[dup[i]]}')")
        out.append("; ".join(f))
    return out


def _task_information(fit, resp, flags) -> pd.DataFrame:
    """Per task, the test information ``sum a^2 p (1 - p)`` over the ability grid, summarized."""
    rows = []
    flagged = np.array([f != "" for f in flags])
    bounds = np.searchsorted(resp.item_task, np.arange(len(resp.tasks) + 1))
    for t, task in enumerate(resp.tasks):
        sl = slice(bounds[t], bounds[t + 1])
        a, b = fit.a[sl], fit.b[sl]
        ok = np.isfinite(b) & (a > 0)
        p = expit(a[ok][None, :] * (GRID[:, None] - b[ok][None, :]))
        info = (a[ok] ** 2 * p * (1 - p)).sum(axis=1)
        k = int(np.argmax(info)) if info.size else 0
        peak = float(info[k]) if info.size else 0.0
        above = GRID[info >= peak / 2] if peak > 0 else GRID[:0]
        rows.append({"task": task, "n_items": int(sl.stop - sl.start), "n_flagged": int(flagged[sl].sum()),
                     "mean_discrimination": float(np.mean(fit.a[sl])), "peak_ability": float(GRID[k]),
                     "peak_information": peak, "half_low": float(above.min()) if above.size else np.nan,
                     "half_high": float(above.max()) if above.size else np.nan,
                     "information_at_models": float(np.mean((a[ok] ** 2 * expit(
                         a[ok][None, :] * (fit.theta[:, None] - b[ok][None, :])) * (1 - expit(
                             a[ok][None, :] * (fit.theta[:, None] - b[ok][None, :])))).sum(axis=1)))})
    return pd.DataFrame(rows)
