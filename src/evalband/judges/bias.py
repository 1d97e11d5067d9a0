"""Biases of pairwise judges: position (the first-shown answer wins more often) and length (longer answers win
more often), with bootstrap intervals.

* :func:`position_bias`: over *swapped* games (the same two answers judged in both orders) the first position's
  win rate is 0.5 for an unbiased judge, whatever the answers' quality; the share of swapped games where the judge
  picks the same answer both times is its position consistency. Without swapped games the first position's win
  rate is a bias only if positions were assigned at random; against a reference judge (e.g. the crowd) on the
  same games, the difference of first-position win rates holds the content fixed.
* :func:`length_bias`: the slope of the win probability on the length difference (first minus second), from a
  linear probability model with optional strata (e.g. which pair of models is compared), per judge.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import (ArgumentError, InputError, as_generator, check_choice, check_confidence_level,
                         check_positive_int)
from ..display.numbers import format_estimate
from ..display.reprs import html_head, titled_repr
from ..resample.units import INTERVAL_METHODS, replicate_sums, summarize
from .._random import name_key, run_entropy
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["BiasResult", "position_bias", "length_bias"]


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class BiasResult:
    """Judge biases with bootstrap intervals.

    Attributes
    ----------
    kind : {'position', 'length'}
    statistics : pandas.DataFrame
        judge, statistic, design, estimate, se, ci_low, ci_high, n_units, and the reference when one was given.
        Position: 'first_position_win_rate' (0.5 = no bias), 'position_consistency' (swapped games),
        'first_position_vs_reference'. Length: 'length_slope' (change of the first answer's win probability per
        ``per`` units of length difference), 'length_slope_vs_reference'.
    confidence_level : float
    notes : tuple of str
    """

    #: coefficients and rates as fractions, as `evalband agreement` prints them (a kappa is no share of items)
    __display__ = {"scale": 1.0}

    kind: str
    statistics: pd.DataFrame
    confidence_level: float
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        return self.statistics.copy()

    def __repr__(self) -> str:
        lines = [f"{r['judge']} {r['statistic']}: {format_estimate(r['estimate'], r['se'])} ({format_estimate(r['ci_low'], r['se'])},"
                 f" {format_estimate(r['ci_high'], r['se'])}), {int(r['n_units']):,} units" for _, r in self.statistics.iterrows()]
        return titled_repr(f"BiasResult({self.kind}, {self.statistics['judge'].nunique()} judge(s))", lines[:20],
                          self.notes)

    def _repr_html_(self) -> str:
        return html_head(self.statistics)


def _outcomes(frame, winner_col, first_value, second_value, tie_value, source):
    """The first answer's score per row: 1 (first wins), 0 (second), 0.5 (tie); numbers in [0, 1] as given."""
    col = frame[winner_col]
    num = pd.to_numeric(col, errors="coerce")
    if num.notna().all():
        x = num.to_numpy(dtype=np.float64)
        bad = np.flatnonzero((x < 0) | (x > 1))
    else:
        text = col.astype(str).str.strip()
        mapping = {str(first_value): 1.0, str(second_value): 0.0}
        if tie_value is not None:
            mapping[str(tie_value)] = 0.5
        x = text.map(mapping).to_numpy(dtype=np.float64)
        bad = np.flatnonzero(np.isnan(x))
    if bad.size:
        allowed = f"{first_value!r}, {second_value!r}" + (f" or {tie_value!r}" if tie_value is not None else "")
        raise InputError(f"winner {col.iloc[bad[0]]!r} is not {allowed} (nor a number in [0, 1])", source=source,
                         row=frame.index[bad[0]], column=winner_col)
    return x


def _interval_rows(names, obs, samples, method, level, extra):
    low, high, se, undefined = summarize(obs, samples, method="percentile" if method == "bca" else method,
                                         confidence_level=level)
    rows = []
    for k, (judge, stat, design, n_units) in enumerate(names):
        rows.append({"judge": judge, "statistic": stat, "design": design, "estimate": obs[k], "se": se[k],
                     "ci_low": low[k], "ci_high": high[k], "n_units": n_units, **extra})
    return rows


def _ratio(s, a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        return s[..., a] / s[..., b]


def position_bias(data, *, first_col: str = "left", second_col: str = "right", winner_col: str = "winner",
                  first_value="left", second_value="right", tie_value="tie", item_col: str | None = None,
                  judge_col: str | None = None, reference: str | None = None, cluster_col: str | None = None,
                  n_resamples: int = 2000, method: str = "percentile", confidence_level=0.95,
                  rng=None) -> BiasResult:
    """Position bias of pairwise judges: the first position's win rate, over swapped games where there are any.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per judgement: the two answers in the order shown (``first_col``, ``second_col``: names of the
        models or answers), who won (``winner_col``: ``first_value``, ``second_value`` or ``tie_value``, or a
        number in [0, 1], the first answer's score), the item (prompt) and the judge.
    item_col : str, optional
        The prompt the two answers respond to; a game is (item, unordered pair of answers).
    judge_col : str, optional
        Who judged (several judgements of a game by one judge, e.g. crowd workers pooled as 'crowd', are
        averaged); without it every row is one judge's.
    reference : str, optional
        A judge to compare with on the same games (in the same order): the difference of first-position win
        rates, which needs no random assignment of positions.
    cluster_col : str, optional
        Resample whole clusters of games (e.g. the prompt).
    n_resamples, method, confidence_level, rng
        As for :func:`evalband.judges.agreement` ('bca' is read as 'percentile' here).

    Returns
    -------
    BiasResult

    Notes
    -----
    A game judged in both orders gives the first position's win rate ``(s_AB + s_BA) / 2`` (``s`` the first
    answer's score in each order), 0.5 for a judge without position bias; the bootstrap resamples games. When no
    game was judged in both orders, the first position's win rate over all games measures position bias only if
    the order was random (independent of which answer is better): a note says so, and a reference judge on the
    same games gives a comparison that holds the answers fixed (both judges see the same order).

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena. NeurIPS (position bias,
    swapped positions).
    Wang, P. et al. (2023). Large language models are not fair evaluators. arXiv:2305.17926.

    Examples
    --------
    >>> from evalband.judges import position_bias
    >>> position_bias(games, item_col="prompt", judge_col="judge", reference="crowd", rng=0)  # doctest: +SKIP
    """
    seed_gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    method = check_choice(method, INTERVAL_METHODS, "method")
    level = check_confidence_level(confidence_level)
    source = "<DataFrame>"
    need = [first_col, second_col, winner_col] + [c for c in (item_col, judge_col, cluster_col) if c]
    missing = [c for c in need if c not in data.columns]
    if missing:
        raise InputError(f"no column {', '.join(map(repr, missing))}; found {', '.join(map(repr, data.columns))}",
                         source=source)
    score = _outcomes(data, winner_col, first_value, second_value, tie_value, source)
    a, b = data[first_col].astype(str).to_numpy(), data[second_col].astype(str).to_numpy()
    item = data[item_col].astype(str).to_numpy() if item_col else np.full(len(data), "")
    judge = data[judge_col].astype(str).to_numpy() if judge_col else np.full(len(data), "judge")
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = (a == lo).astype(np.int64)  # 1: shown as (lo, hi); 0: shown swapped
    game = pd.Series(item).str.cat([pd.Series(lo), pd.Series(hi)], sep="\x1f").to_numpy()
    games, g_code = np.unique(game, return_inverse=True)
    judges = list(dict.fromkeys(judge))
    if reference is not None and reference not in judges:
        raise ArgumentError(words('`{arg:reference}`: unknown judge {reference!r}; available: {value}.', reference=reference, value=', '.join(map(repr, judges))))
    n_g = games.size
    groups = None
    if cluster_col:
        clab = data[cluster_col].astype(str).to_numpy()
        first = np.zeros(n_g, dtype=np.int64)
        first[g_code[::-1]] = np.arange(len(data))[::-1]
        _, groups = np.unique(clab[first], return_inverse=True)
    # per judge, game and order: sum of scores and count -> mean score of the first position
    j_code = np.array([judges.index(j) for j in judge])
    sums = np.zeros((len(judges), n_g, 2))
    cnt = np.zeros((len(judges), n_g, 2))
    np.add.at(sums, (j_code, g_code, order), score)
    np.add.at(cnt, (j_code, g_code, order), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / cnt
    have = cnt > 0
    cols, names, notes = [], [], []
    for j, name in enumerate(judges):
        swapped = have[j, :, 0] & have[j, :, 1]
        if swapped.any():
            rate = np.where(swapped, (mean[j, :, 0] + mean[j, :, 1]) / 2, 0.0)
            # consistent: the same answer preferred in both orders (first-position scores on opposite sides of 1/2)
            pref_ab = np.where(swapped, mean[j, :, 1], 0.5)  # shown (lo, hi): score of lo
            pref_ba = np.where(swapped, 1.0 - mean[j, :, 0], 0.5)  # shown (hi, lo): score of lo
            consistent = swapped & (((pref_ab > 0.5) & (pref_ba > 0.5)) | ((pref_ab < 0.5) & (pref_ba < 0.5)))
            cols += [rate, swapped.astype(float), consistent.astype(float)]
            names += [(name, "first_position_win_rate", "swapped", int(swapped.sum())),
                      (name, "position_consistency", "swapped", int(swapped.sum()))]
        else:
            any_order = have[j].any(axis=1)
            rate = np.where(any_order, np.nansum(np.where(have[j], sums[j], 0.0), axis=1)
                            / np.maximum(cnt[j].sum(axis=1), 1.0), 0.0)
            cols += [rate, any_order.astype(float), np.zeros(n_g)]
            names += [(name, "first_position_win_rate", "single order", int(any_order.sum()))]
            notes.append(words("{name}: no game judged in both orders; its first-position win rate is a position"
                               " bias only if the order was random{hint}", name=name, hint="") if reference else
                         words("{name}: no game judged in both orders; its first-position win rate is a position"
                               " bias only if the order was random (compare with a reference judge on the same"
                               " games: {arg:reference=})", name=name))
    ref_cols = []
    if reference is not None:
        r = judges.index(reference)
        for j, name in enumerate(judges):
            if j == r:
                continue
            common = have[j] & have[r]  # same game, same order
            cm = common.astype(float)
            mj = np.where(common, mean[j], 0.0)
            mr = np.where(common, mean[r], 0.0)
            ref_cols.append(np.column_stack([(mj * cm).sum(1), (mr * cm).sum(1), cm.sum(1)]))
            names_ref = (name, "first_position_vs_reference", "same games", int(common.any(axis=1).sum()))
            names.append(names_ref)
    x = np.column_stack(cols + ref_cols) if ref_cols else np.column_stack(cols)
    entropy = run_entropy(seed_gen)
    reps = replicate_sums(x, entropy=entropy, key=(name_key("judges:games"),), n_resamples=n_resamples,
                          groups=groups)
    total = x.sum(axis=0)
    obs, samples = [], []
    k = 0
    for j, name in enumerate(judges):
        swapped_design = bool((have[j, :, 0] & have[j, :, 1]).any())
        obs.append(_ratio(total, k, k + 1))
        samples.append(_ratio(reps, k, k + 1))
        if swapped_design:
            obs.append(_ratio(total, k + 2, k + 1))
            samples.append(_ratio(reps, k + 2, k + 1))
        k += 3
    for _ in ref_cols:
        with np.errstate(invalid="ignore", divide="ignore"):
            obs.append((total[k] - total[k + 1]) / total[k + 2])
            samples.append((reps[:, k] - reps[:, k + 1]) / reps[:, k + 2])
        k += 3
    rows = _interval_rows(names, np.array(obs, dtype=float), np.column_stack(samples), method, level,
                          {"reference": reference or ""})
    stats = pd.DataFrame(rows)
    stats["confidence_level"] = level
    return BiasResult("position", stats, level, tuple(notes))


NOTE_ONE_INTERCEPT_PER_STRATA = NoteKind(
    'judges.one-intercept-per-strata', 'info',
    'one intercept per {strata_col} ({size} strata): slopes compare answers within a stratum')


def length_bias(data, *, outcome_col: str = "winner", length_col: str = "length_diff", judge_col: str | None = None,
                strata_col: str | None = None, cluster_col: str | None = None, first_value="left",
                second_value="right", tie_value="tie", per: float = 1.0, reference: str | None = None,
                n_resamples: int = 2000, method: str = "percentile", confidence_level=0.95, rng=None) -> BiasResult:
    """Length bias of pairwise judges: the slope of the first answer's win probability on the length difference.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per judgement: the outcome (``outcome_col``: 1 / 0 / 0.5 for a first-answer win, loss, tie, or
        the labels ``first_value``, ``second_value``, ``tie_value``) and the length difference, first minus second
        answer (``length_col``).
    judge_col : str, optional
        Who judged; one slope per judge.
    strata_col : str, optional
        Strata with their own intercept (e.g. the pair of models compared), so that the slope compares answers
        within a stratum rather than better models with longer answers.
    cluster_col : str, optional
        Resample whole clusters (e.g. the prompt); otherwise rows are resampled, within each judge.
    per : float
        Report the slope per this many units of length (e.g. 100 characters).
    reference : str, optional
        A judge whose slope is subtracted (e.g. 'Human'): the judge's excess length preference.
    n_resamples, method, confidence_level, rng
        As for :func:`evalband.judges.agreement` ('bca' is read as 'percentile' here).

    Returns
    -------
    BiasResult
        'length_slope' per judge and 'length_slope_vs_reference'.

    Notes
    -----
    The slope is the least-squares coefficient of the outcome on the length difference with one intercept per
    stratum (a linear probability model): the change in the first answer's probability of winning per ``per``
    units of length difference. It equals statsmodels' ``OLS(outcome, [strata dummies, length]).fit()``
    coefficient. A positive slope says longer answers win more often; that is a bias only to the extent that
    length does not make answers better, which is why a human reference's slope is the comparison to make.
    Each judge's rows (clusters) are resampled on their own stream, keyed by the judge's name, so a
    difference between judges scored on different answers is an unpaired bootstrap difference.

    References
    ----------
    Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. B. (2024). Length-controlled AlpacaEval. arXiv:2404.04475.

    Examples
    --------
    >>> from evalband.judges import length_bias
    >>> length_bias(q5, outcome_col="first_is_chosen", judge_col="grader", strata_col="llm_pair",
    ...             per=100, reference="Human", rng=0)                                  # doctest: +SKIP
    """
    seed_gen = as_generator(rng)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    method = check_choice(method, INTERVAL_METHODS, "method")
    level = check_confidence_level(confidence_level)
    source = "<DataFrame>"
    need = [outcome_col, length_col] + [c for c in (judge_col, strata_col, cluster_col) if c]
    missing = [c for c in need if c not in data.columns]
    if missing:
        raise InputError(f"no column {', '.join(map(repr, missing))}; found {', '.join(map(repr, data.columns))}",
                         source=source)
    if isinstance(per, bool) or not isinstance(per, numbers.Real) or not per > 0:
        raise ArgumentError(f"`per` must be a positive number; got {per!r}.")
    y = _outcomes(data, outcome_col, first_value, second_value, tie_value, source)
    length = pd.to_numeric(data[length_col], errors="coerce").to_numpy(dtype=np.float64)
    if not np.isfinite(length).all():
        pos = int(np.flatnonzero(~np.isfinite(length))[0])
        raise InputError(f"length difference {data[length_col].iloc[pos]!r} is not a number", source=source,
                         row=data.index[pos], column=length_col)
    length = length / float(per)
    judge = data[judge_col].astype(str).to_numpy() if judge_col else np.full(len(data), "judge")
    judges = list(dict.fromkeys(judge))
    if reference is not None and reference not in judges:
        raise ArgumentError(words('`{arg:reference}`: unknown judge {reference!r}; available: {value}.', reference=reference, value=', '.join(map(repr, judges))))
    strata = data[strata_col].astype(str).to_numpy() if strata_col else np.full(len(data), "")
    s_labels, s_code = np.unique(strata, return_inverse=True)
    p = s_labels.size + 1
    design = np.zeros((len(data), p))
    design[np.arange(len(data)), s_code] = 1.0
    design[:, -1] = length
    xtx = (design[:, :, None] * design[:, None, :]).reshape(len(data), p * p)
    cols = np.column_stack([xtx, design * y[:, None]])
    entropy = run_entropy(seed_gen)

    def slope(s):
        a = s[..., :p * p].reshape(*s.shape[:-1], p, p)
        rhs = s[..., p * p:]
        det = np.linalg.det(a)
        ok = np.isfinite(det) & (np.abs(det) > 0)  # a stratum absent from a replicate leaves no slope there
        safe = np.where(ok[..., None, None], a, np.eye(p))
        beta = np.linalg.solve(safe, rhs[..., None])[..., 0]
        return np.where(ok, beta[..., -1], np.nan)

    obs, samples, names, notes = [], [], [], []
    by_judge = {}
    for name in judges:
        rows = np.flatnonzero(judge == name)
        if cluster_col:
            _, groups = np.unique(data[cluster_col].astype(str).to_numpy()[rows], return_inverse=True)
        else:
            groups = None
        x = cols[rows]
        reps = replicate_sums(x, entropy=entropy, key=(name_key("judges:length"), name_key(name)),
                              n_resamples=n_resamples, groups=groups)
        by_judge[name] = (slope(x.sum(axis=0)), slope(reps))
        obs.append(by_judge[name][0])
        samples.append(by_judge[name][1])
        names.append((name, "length_slope", f"per {per:g}", int(rows.size if groups is None else groups.max() + 1)))
    if reference is not None:
        r_obs, r_rep = by_judge[reference]
        for name in judges:
            if name == reference:
                continue
            obs.append(by_judge[name][0] - r_obs)
            samples.append(by_judge[name][1] - r_rep)
            names.append((name, "length_slope_vs_reference", f"per {per:g}", names[judges.index(name)][3]))
    rows = _interval_rows(names, np.array(obs, dtype=float), np.column_stack(samples), method, level,
                          {"reference": reference or ""})
    stats = pd.DataFrame(rows)
    stats["confidence_level"] = level
    if strata_col:
        notes.append(NOTE_ONE_INTERCEPT_PER_STRATA(strata_col=strata_col, size=s_labels.size))
    return BiasResult("length", stats, level, tuple(notes))
