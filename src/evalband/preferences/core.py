"""``arena()``: a preference leaderboard with honest intervals, from one seeded, clustered bootstrap."""

from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np
import pandas as pd

from .._random import run_entropy
from .._validate import (ArgumentError, ArgumentTypeError, InputError, as_generator, check_choice,
                         check_confidence_level, check_positive_int, renamed)
from ..estimation.confidence import ConfidenceInterval
from ..data.battles import (NOTE_BATTLES_WITHOUT_BASELINE, NOTE_MODELS_LEFT_WITH_BATTLES, NOTE_TIES_DROPPED,
                            BattleTable, partial_style_error)
from ..data.battle_counts import BattleCounts
from .bradley_terry import RIDGE, TIES
from .lc_glm import LC_GLMS
from .edges import edge_win_rates
from .replicates import average_ratings, baseline_ratings, bt_ratings, elo_ratings, style_ratings
from ..resample.battles import ClusterBootstrap, resampling_units, unit_column
from .result import ArenaResult
from .scales import SCALES, parse_anchor, to_scale
from .style import style_names
from ..display.notes import NoteKind
from .._words import words

__all__ = ["arena", "METHODS", "INTERVALS"]

METHODS = ("bt", "elo", "rao-kupper", "davidson", "win-rate")
INTERVALS = ("percentile", "bca")
_UNITS = {"elo": "Elo points", "logit": "logits", "prob": ""}


#: arena()'s ``source`` -> the source of :func:`evalband.read` ('columns' is the column layout, read's 'battles')
_SOURCES = {"auto": "auto", "columns": "battles", "battles": "battles", "fastchat": "fastchat",
            "arena-hard": "arena-hard", "alpaca-eval": "alpaca-eval"}


def _select(data, source, options, baseline, models):
    """The selection of battles (:func:`evalband.select`: ``models`` keeps the battles between them, counted in
    its notes); the table and the notes of the table and the selection."""
    from ..selection import Selection, select

    source = check_choice(source, tuple(_SOURCES), "source")
    if isinstance(data, (Selection, BattleTable, BattleCounts)):
        if options or source != "auto":
            given = [f"source={source!r}"] * (source != "auto") + list(options)
            raise ArgumentTypeError(f"reader options ({', '.join(given)}) do not apply to a"
                                    f" {type(data).__name__}; they apply when a file or DataFrame is read.")
        sel = select(data, models=models)
    else:
        # `baseline` is a battle reader's option (the Arena-Hard files do not name it): giving it sends the
        # input to the battle readers, whatever its columns
        sel = select(data, models=models, source=_SOURCES[source], baseline=baseline, **options)
    table = sel.table
    if not isinstance(table, (BattleTable, BattleCounts)):
        raise InputError("holds no pairwise battles (model_a, model_b and winner columns, or a Chatbot Arena,"
                         " Arena-Hard or AlpacaEval file)", source=getattr(table, "source", None))
    return table, tuple(dict.fromkeys((*table.notes, *sel.notes)))


def _subset(table: BattleTable, keep, note: str) -> BattleTable:
    """The battles in ``keep``; a note says how many were left out and which models went with them."""
    if keep.all():
        return table
    out = table.subset(keep, note=note)
    gone = [m for m in table.models if m not in out.models]
    if gone:
        shown = ", ".join(map(repr, gone[:5])) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
        out = replace(out, notes=out.notes + (NOTE_MODELS_LEFT_WITH_BATTLES(shown=shown),))
    return out


def _counted(table, method: str, style, length_control, cluster):
    """The battles compressed to counts (:meth:`BattleTable.counted`) when the fit needs no single battle: every
    model but online Elo, without style or length control, resampling questions, judges or clusters. Battles
    reduced to counts on a cluster (:mod:`evalband.io.distributed_battles`) come as counts already; a fit that
    needs the battles themselves is refused for them."""
    needs = ("model 'elo' (online Elo runs over the battles in order)" if method == "elo" else
             "style control (per-battle style features)" if style is not None else
             "length control (per-battle lengths)" if length_control else
             "independent battles (--cluster none resamples single battles)"
             if unit_column(table, cluster) == "none" else None)
    if isinstance(table, BattleCounts):
        if needs is not None:
            raise ArgumentError(f"the battles were reduced to counts per question and pair of models (read on a"
                                f" cluster); {needs} needs the battles themselves: read them without --scheduler"
                                f" (Python: without executor=)")
        return table
    return table if needs is not None else table.counted()


def _position(name, models, what: str) -> int:
    if name not in models:
        shown = ", ".join(map(repr, models[:12])) + (" ..." if len(models) > 12 else "")
        raise ArgumentError(words("`{arg:{what}}`: unknown model {name!r}; models: {shown}.", what=what, name=name, shown=shown))
    return list(models).index(name)


def _check_k(k) -> float:
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not (np.isfinite(k) and k > 0):
        raise ArgumentError(words('`{arg:k}` must be a finite number > 0; got {k!r}.', k=k))
    return float(k)


def _win_probabilities(method, theta, samples, tie, tie_samples, level):
    """Predicted P(i beats j) + half P(tie), (M, M), with percentile intervals from the replicates."""
    from ..resample import interval

    def prob(th, t):
        d = th[..., :, None] - th[..., None, :]
        if method == "rao-kupper":
            eta = np.log(t)[..., None, None]
            win, loss = 1 / (1 + np.exp(-(d - eta))), 1 / (1 + np.exp(-(-d - eta)))
            return win + 0.5 * (1 - win - loss)
        if method == "davidson":
            nu = np.asarray(t)[..., None, None]
            e, f = np.exp(d / 2), np.exp(-d / 2)
            return (e + 0.5 * nu) / (e + f + nu)
        return 1 / (1 + np.exp(-d))

    obs = prob(theta, tie)
    m = theta.size
    out_lo, out_hi = np.full((m, m), np.nan), np.full((m, m), np.nan)
    block = max(1, 20_000_000 // max(m * m, 1))
    reps = []
    for s0 in range(0, samples.shape[0], block):
        reps.append(prob(samples[s0:s0 + block], None if tie_samples is None else tie_samples[s0:s0 + block]))
    ci = interval(np.concatenate(reps), obs, confidence_level=level)
    out_lo[:], out_hi[:] = ci.low, ci.high
    np.fill_diagonal(obs, np.nan)
    np.fill_diagonal(out_lo, np.nan)
    np.fill_diagonal(out_hi, np.nan)
    return obs, ConfidenceInterval(out_lo, out_hi)


def _withhold_flat(ranking, anchor_pos, label, base_pos=None):
    """No interval for a rating whose replicates never vary (one battle, or one question resampled over and
    over): the bootstrap says nothing about it (:func:`evalband.resample.floors.withhold_degenerate`); the
    anchored model's point interval is the anchor's definition and stays."""
    from ..resample.floors import withhold_degenerate

    keep = np.zeros(len(ranking.models), dtype=bool)
    if anchor_pos is not None:
        keep[anchor_pos[0]] = True
    if base_pos is not None:  # the reference: no interval, said by edges.NOTE_BASELINE_IS_REFERENCE
        keep[base_pos] = True
    low, high, se = (np.where(keep, np.nan, np.asarray(x, dtype=float))
                     for x in (ranking.ci.low, ranking.ci.high, ranking.se))
    w = withhold_degenerate(low, high, se, ranking.models, what=f"the {label.replace('_', ' ')}")
    if not w.withheld.any():
        return ranking, []
    ci = ConfidenceInterval(np.where(keep, ranking.ci.low, w.ci.low), np.where(keep, ranking.ci.high, w.ci.high))
    return replace(ranking, ci=ci, se=np.where(keep, ranking.se, w.se)), list(w.notes)


def _extras(method, res, scale, anchor_pos, base_pos, level) -> dict:
    """What a method adds to the result: win probabilities, raw win rates, style, tie parameter, online Elo."""
    from ..resample import interval as boot_interval

    extra = {}
    if method != "win-rate":
        wp, wp_ci = _win_probabilities(method if method in ("rao-kupper", "davidson") else "bt", res.observed,
                                       res.samples, res.extras.get("tie"), res.extras.get("tie_samples"), level)
        extra.update(win_probability=wp, win_probability_ci=wp_ci)
        if base_pos is not None:  # Arena-Hard's score: the predicted win rate against the baseline
            low, high = wp_ci.low[:, base_pos].copy(), wp_ci.high[:, base_pos].copy()
            est = wp[:, base_pos].copy()
            est[base_pos] = low[base_pos] = high[base_pos] = 0.5
            extra.update(predicted_win_rate=est, predicted_win_rate_ci=ConfidenceInterval(low, high))
    elif base_pos is not None:
        se = np.array(res.extras["se"], dtype=float)
        se[base_pos] = np.nan  # the reference: 0.5 by definition
        extra.update(win_rate=res.extras["win_rate"], win_rate_se=se,
                     win_rate_ci=boot_interval(res.extras["win_rate_samples"], res.extras["win_rate"],
                                               confidence_level=level))
    if "raw" in res.extras:
        raw = to_scale(res.extras["raw"], scale, anchor_pos)
        extra.update(rating_raw=raw, rating_raw_ci=boot_interval(to_scale(res.extras["raw_samples"], scale,
                                                                          anchor_pos), raw, confidence_level=level))
        betas = res.extras["beta_samples"]
        ci = boot_interval(betas, res.extras["beta"], confidence_level=level)
        extra["style"] = pd.DataFrame({"feature": res.extras["style_names"], "coefficient": res.extras["beta"],
                                       "se": betas.std(axis=0, ddof=1), "ci_low": ci.low, "ci_high": ci.high,
                                       "confidence_level": level})
    if "tie" in res.extras:
        extra.update(tie_parameter=res.extras["tie"],
                     tie_parameter_ci=boot_interval(res.extras["tie_samples"], res.extras["tie"],
                                                    confidence_level=level))
    if "online" in res.extras:
        extra["rating_online"] = to_scale(res.extras["online"], scale, anchor_pos)
    return extra


NOTE_ANCHORED_EVERY_REPLICATE_SO = NoteKind(
    'preferences.anchored-every-replicate-so', 'info',
    "anchored: {value!r} = {value2:g} in every replicate, so its interval is a point and the others' intervals "
    "are relative to it")
NOTE_INTERVALS_ARENA_HARD_SHOWS = NoteKind(
    'preferences.intervals-arena-hard-shows', 'caveat',
    '90% intervals, as Arena-Hard shows them (its bootstrap also resamples battles as if independent); 95% '
    'intervals are wider')
NOTE_ONLY_BOOTSTRAP_REPLICATES_ENDS = NoteKind(
    'preferences.only-bootstrap-replicates-ends', 'caveat',
    'only {n_resamples:,} bootstrap replicates: the ends of a {level:.0%} interval are poorly estimated with '
    'fewer than about 1,000')
NOTE_BATTLES_CARRY_WEIGHTS_E = NoteKind(
    'preferences.battles-carry-weights-e', 'caveat',
    "battles carry weights (e.g. Arena-Hard's strong votes): the fits use them; n_battles, n_wins and n_ties "
    "count battles, not weights")
NOTE_WIN_RATE_AGAINST_BASELINE = NoteKind(
    'preferences.win-rate-against-baseline', 'info',
    "win rate against the baseline: the mean preference (AlpacaEval's definition; a tie is 0.5); se is "
    "AlpacaEval's standard error of that mean, which treats battles as independent; the interval comes from the "
    "cluster bootstrap; the baseline is 0.5 by definition")
NOTE_STYLE_CONTROL_RATINGS_BRADLEY = NoteKind(
    'preferences.style-control-ratings-bradley', 'info',
    "style control on {value}: ratings are Bradley-Terry log-strengths with the normalized style differences "
    "held at 0 (FastChat's normalization, exact maximum likelihood); rating_raw is the fit without style")


def _model_and_method(model, method, options: dict):
    """``arena``'s keywords after the renames of 0.2: ``interval=`` is now ``method=``; a rating model given to
    ``method`` (its meaning before 0.2; the two sets of values are disjoint) is read as ``model``. Each warns."""
    import warnings

    method = renamed(options, old="interval", new="method", function="arena", value=method, default="percentile")
    if isinstance(method, str) and method.strip().lower() in METHODS:
        if model != "bt":
            raise ArgumentError(words("`{arg:method={method!r}}` is a rating model and `{arg:model={model!r}}` is given too; give the rating model as `{arg:model=}` and the interval method ('percentile', 'bca') as `{arg:method=}`.", method=method, model=model))
        warnings.warn(f"`arena(method={method!r})` names the rating model: use `model={method!r}` (since 0.2"
                      " `method=` is the interval method, 'percentile' or 'bca'; the old meaning is kept one"
                      " release)", DeprecationWarning, stacklevel=3)
        model, method = method, "percentile"
    return model, method


def arena(data, *, model: str = "bt", ties: str = "half", baseline=None, scale: str = "elo", anchor=None,
          cluster="auto", style=None, length_control: bool | str = False, lc_glm: str = "length_controlled_v1",
          lc_reference=None, instruction_difficulty="auto", k: float = 4.0, n_resamples: int = 2000,
          confidence_level=0.95, method: str = "percentile", rng=None, models=None,
          simultaneous: str = "max-t", ridge: float = RIDGE, source: str = "auto", **read_options) -> ArenaResult:
    """A preference leaderboard with intervals, ranks and comparisons from one seeded, clustered bootstrap.

    Parameters
    ----------
    data : Selection, BattleTable, path, list of paths or DataFrame
        Battles: anything :func:`evalband.select` accepts, selected once (a path or DataFrame is read by
        :func:`evalband.read`, which reads CSV/TSV/JSONL/Parquet column layouts, Chatbot Arena clean battles,
        Arena-Hard judgments and AlpacaEval annotations).
    model : {'bt', 'elo', 'rao-kupper', 'davidson', 'win-rate'}
        The rating model (``method=`` before 0.2: a model's name given to ``method`` still means the model for
        one release, with a DeprecationWarning). 'bt': Bradley-Terry maximum likelihood (exact, Newton's method). 'rao-kupper', 'davidson': Bradley-Terry
        with that tie model (its parameter fitted). 'elo': FastChat's bootstrap Elo (online Elo, ``k``, on
        resampled battles in random order; the median is the rating). 'win-rate': the win rate against
        ``baseline`` (AlpacaEval, Arena-Hard), or without a baseline the average win rate against all opponents.
    ties : {'half', 'drop', 'rao-kupper', 'davidson'}
        'half' (default): a tie is half a win for each side, as evalica and FastChat count it; 'drop': ties are
        left out (counted in a note); the tie models as for ``model``.
    baseline : str, optional
        The reference model for win rates; with a rating method, adds the predicted win rate against it
        (Arena-Hard's score). Also tells the Arena-Hard reader which model the judgments compare against.
    scale : {'elo', 'logit', 'prob'}
        'elo': 400 / ln 10 points per logit, mean 1000 (or anchored); 'logit': log-strengths, mean 0; 'prob':
        strengths normalized to sum 1 (as evalica prints Bradley-Terry scores). Win rates are fractions.
    anchor : dict, tuple or str, optional
        ``{'model': 1000}``, ``('model', 1000)`` or ``'model=1000'``: that model's rating is fixed.
    cluster : str or None
        'auto' (default): whole questions (or a 'cluster' column) are resampled when the battles have them,
        else battles; 'none' or None: battles resampled independently; 'question', 'judge', 'cluster': that
        label.
    style : str or sequence, optional
        Style control: 'length', 'markdown' (header, list and bold counts) or any style feature names, comma
        separated. Ratings are then style-controlled; the raw ones are reported beside them.
    length_control : bool or str
        For win rates against a baseline: the length-controlled win rate (needs a 'length' feature), by the GLM
        ``lc_glm`` (a GLM's name here chooses it too).
    lc_glm : {'length_controlled_v1', 'length-only'}
        'length_controlled_v1' (default): AlpacaEval's GLM as alpaca_eval fits it (instruction difficulty,
        regularization toward the gamed baselines, L1 penalty chosen by cross-validation;
        :mod:`evalband.preferences.lc_glm`). 'length-only': per model an intercept and a slope on tanh(length
        difference / its SD) (no difficulty, no regularization; not AlpacaEval's values).
    lc_reference : path or DataFrame, optional
        AlpacaEval's ``df_gamed.csv`` (Hugging Face dataset tatsu-lab/alpaca_eval): the instruction difficulties
        and the gamed baselines' annotations that length_controlled_v1 is regularized toward. Without it the
        regularization is left out and the difficulties are estimated (notes say so).
    instruction_difficulty : 'auto', mapping or path
        The difficulty of each instruction (by its text, or AlpacaEval's index: its position in the order of the
        annotations); 'auto': from ``lc_reference``, else estimated from the annotations of three or more
        models.
    k : float
        Elo's K-factor (method 'elo').
    n_resamples : int
        Bootstrap replicates B (default 2,000: every replicate refits the ratings, the rule of every command,
        :mod:`evalband._defaults`).
    confidence_level : float or str
        0.95 by default; Arena-Hard shows 90% intervals (0.9, said in the notes).
    method : {'percentile', 'bca'}
        The interval method (``interval=`` before 0.2, deprecated). 'bca' uses delete-one-cluster jackknife values (one Newton step from the fit, exact for win rates).
    rng : None, int, SeedSequence, BitGenerator or Generator
        Turned into one Generator, from which the run's entropy is drawn once. Same seed, same numbers.
    models : sequence of str or str, optional
        Only the battles between these models (:func:`evalband.select`; the battles left out are counted in the
        notes).
    simultaneous : {'max-t', 'bonferroni', 'holm', 'bh', 'none'}
        Pairwise intervals behind the simultaneous rank intervals and the tiers.
    ridge : float
        Penalty ``ridge / 2 * sum(theta^2)`` keeping ratings finite (see
        :mod:`evalband.preferences.bradley_terry`).
    source : {'auto', 'columns', 'fastchat', 'arena-hard', 'alpaca-eval'}
        Reader to use for a path or DataFrame ('auto' detects it; 'columns' is a column layout, ``evalband.read``'s
        source 'battles').
    **read_options
        Passed through :func:`evalband.select` to the reader (``winner_col=``, ``question_col=``,
        ``style_cols=``, ...); ``baseline`` also tells the Arena-Hard reader its baseline.

    Returns
    -------
    ArenaResult
        ``.to_frame()``: model, rating, ci_low, ci_high, rank, rank_low, rank_high, p_best, n_battles, n_wins,
        n_ties (win rates: also win_rate and se), rank_sim_low, rank_sim_high, tier, ...; ``.pairwise()``;
        ``.readings()``; ``.notes``.

    Notes
    -----
    Battles that share a question are not independent (the same prompt favours some models); resampling them
    as if independent, as FastChat and Arena-Hard do, makes the intervals too narrow. Here whole questions are
    resampled when the battles name them, so models judged on the same questions are compared pairwise, and two
    copies of one model get identical intervals. With fewer than about 20 clusters the cluster bootstrap
    understates the uncertainty. The Bradley-Terry model assumes a transitive strength per model; its
    intervals describe the uncertainty of that model's fit to these battles, not the variation between judges
    or prompts outside them. Ranks, rank intervals, P(best), tiers, pairwise verdicts and win probabilities
    come from the same (B, M) replicates.

    References
    ----------
    Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human preference.
    ICML. arXiv:2403.04132.
    Li, T. et al. (2024). From crowdsourced data to high-quality benchmarks: Arena-Hard and BenchBuilder.
    arXiv:2406.11939.
    Dubois, Y. et al. (2024). Length-controlled AlpacaEval. arXiv:2404.04475.
    Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. JRSS B 69(3), 369-390.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalband.preferences import arena
    >>> battles = pd.DataFrame({"model_a": ["x", "y", "x", "z", "y", "z"] * 5,
    ...                         "model_b": ["y", "z", "z", "x", "x", "y"] * 5,
    ...                         "winner": ["model_a", "model_a", "model_a", "model_b", "tie", "model_b"] * 5})
    >>> res = arena(battles, n_resamples=200, rng=1)
    >>> res.to_frame()["model"].tolist()
    ['x', 'y', 'z']
    """
    model, method = _model_and_method(model, method, read_options)
    method, interval = check_choice(model, METHODS, "model"), method  # the body's names: the model, the interval
    ties = check_choice(ties, TIES, "ties")
    scale = check_choice(scale, SCALES, "scale")
    interval = check_choice(interval, INTERVALS, "method")
    level = check_confidence_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    k = _check_k(k)
    if isinstance(ridge, bool) or not isinstance(ridge, numbers.Real) or not (np.isfinite(ridge) and ridge >= 0):
        raise ArgumentError(f"`ridge` must be a finite number >= 0; got {ridge!r}.")
    if method in ("rao-kupper", "davidson"):
        if ties not in ("half", method):
            raise ArgumentError(words("`{arg:model={method!r}}` models ties itself; `{arg:ties}` must be left at 'half' or be {method!r}; got {ties!r}.", method=method, ties=ties))
        ties = method
    elif method == "bt" and ties in ("rao-kupper", "davidson"):
        method = ties
    elif ties in ("rao-kupper", "davidson"):
        raise ArgumentError(words("`{arg:ties={ties!r}}` is a Bradley-Terry tie model; use it with model 'bt'.", ties=ties))
    if isinstance(length_control, str):
        lc_glm, length_control = length_control, True
    lc_glm = check_choice(lc_glm, LC_GLMS, "lc_glm")
    if length_control and (method != "win-rate" or baseline is None):
        raise ArgumentError(words("`{arg:length_control}` needs `{arg:model}` 'win-rate' and a `{arg:baseline}`."))
    if style is not None and method not in ("bt",):
        raise ArgumentError(words("`{arg:style}` control fits a Bradley-Terry model with ties 'half' or 'drop'; got model {method!r}.", method=method))
    if interval == "bca" and method == "elo":
        raise ArgumentError(words("`{arg:method='bca'}` is not available for model 'elo' (online Elo has no jackknife); use 'percentile'."))
    seed = int(rng) if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) else None
    gen = as_generator(rng)

    table, read_notes = _select(data, source, read_options, baseline, models)
    table = _counted(replace(table, notes=read_notes), method, style, length_control, cluster)
    base_pos = None if baseline is None else _position(baseline, table.models, "baseline")
    if ties == "drop":
        if table.tie.all():
            raise ArgumentError(words("{arg:ties='drop'} leaves no battle: every battle is a tie."))
        table = _subset(table, ~table.tie, NOTE_TIES_DROPPED(n=table.battles(table.tie)))
    if method == "win-rate" and base_pos is not None:
        pos = table.models.index(baseline)
        involved = (table.model_a == pos) | (table.model_b == pos)
        table = _subset(table, involved, NOTE_BATTLES_WITHOUT_BASELINE(n=table.battles(~involved),
                                                                        baseline=baseline))
    if table.n_models < 2:
        raise ArgumentError(f"a leaderboard needs at least two models; the battles have {table.n_models}.")
    base_pos = None if baseline is None else _position(baseline, table.models, "baseline")
    if method == "win-rate" and anchor is not None:
        raise ArgumentError(words('`{arg:anchor}` does not apply to win rates (they are fractions).'))
    anchor_pos = parse_anchor(anchor, table.models, scale)
    notes = list(table.notes)
    units = resampling_units(table, cluster)
    notes.extend(units.notes)
    boot = ClusterBootstrap(units, n_resamples, run_entropy(gen))
    jack = interval == "bca"

    if method == "win-rate":
        if base_pos is not None:
            res = baseline_ratings(table, units, boot, base_pos, length_control=length_control, lc_glm=lc_glm,
                                   lc_reference=lc_reference, instruction_difficulty=instruction_difficulty,
                                   jackknife=jack)
            notes.append(NOTE_WIN_RATE_AGAINST_BASELINE())
        else:
            res = average_ratings(table, units, boot, jackknife=jack)
    elif method == "elo":
        res = elo_ratings(table, units, boot, k=k)
    elif style is not None:
        partial = [n for n in getattr(table, "notes", ()) if getattr(n, "code", None) == "io.partial-conv-metadata"]
        if partial and not table.features:  # Chatbot Arena records with style counts on some battles only
            raise ArgumentError(partial_style_error(partial[0].params))
        names = style_names(style, list(table.features))
        if not names:
            raise ArgumentError(words('`{arg:style}` names no feature.'))
        res = style_ratings(table, units, boot, names, ridge=ridge, jackknife=jack)
        notes.append(NOTE_STYLE_CONTROL_RATINGS_BRADLEY(value=', '.join(names)))
    else:
        res = bt_ratings(table, units, boot, model=method, ridge=ridge, jackknife=jack)
    notes.extend(res.notes)

    if res.space == "logit":
        rating, samples = to_scale(res.observed, scale, anchor_pos), to_scale(res.samples, scale, anchor_pos)
        jk = None if res.jackknife is None else to_scale(res.jackknife, scale, anchor_pos)
        display, unit = (100.0, "points") if scale == "prob" else (1.0, _UNITS[scale])
        if scale == "prob":
            unit = "points of strength share"
    else:
        rating, samples, jk, display, unit = res.observed, res.samples, res.jackknife, 100.0, "points"
    edge = None
    if method == "win-rate" and not length_control:  # a win rate at 0 or 1, few battles, the baseline
        edge = edge_win_rates(table, rating, samples, base_pos)
        samples = edge.samples
        notes.extend(edge.notes)
        if base_pos is not None:
            res.extras["win_rate_samples"] = samples
            res.extras["se"] = np.where(edge.at_edge, np.nan, res.extras["se"])
    if anchor_pos is not None:
        notes.append(NOTE_ANCHORED_EVERY_REPLICATE_SO(value=table.models[anchor_pos[0]], value2=anchor_pos[1]))

    from ..ranking import rank_models
    from ..comparison import pairwise_differences

    label = "win_rate" if res.space == "rate" else "rating"
    ranking = rank_models(rating, samples, table.models, aggregate=label, confidence_level=level,
                          method=interval, simultaneous=simultaneous, jackknife=jk, scale=display,
                          n_units=units.n_units)
    if edge is not None:
        ranking = edge.apply(ranking, rating, base_pos, level)
    ranking, held = _withhold_flat(ranking, anchor_pos, label, base_pos if edge is not None else None)
    notes.extend(held)
    plain = pairwise_differences(rating, samples, table.models, statistic=label, confidence_level=level,
                                 correction="none", keep_replicates=False, n_units=units.n_units,
                                 scale=display, unit=unit)
    separability = float(np.mean(np.isin(plain.verdict, ("A better", "B better")))) if plain.verdict.size else 0.0

    extra = _extras(method, res, scale, anchor_pos, base_pos, level)
    if abs(level - 0.9) < 1e-12:
        notes.append(NOTE_INTERVALS_ARENA_HARD_SHOWS())
    if n_resamples < 1000:
        notes.append(NOTE_ONLY_BOOTSTRAP_REPLICATES_ENDS(n_resamples=n_resamples, level=level))

    counts = table.model_counts()
    if not np.all(table.weight == 1):
        notes.append(NOTE_BATTLES_CARRY_WEIGHTS_E())
    return ArenaResult(
        method=method, ties=ties, scale=scale, models=tuple(table.models), rating=np.asarray(rating, dtype=float),
        samples=np.asarray(samples, dtype=float), ranking=ranking, counts=counts, separability=separability,
        confidence_level=level, interval=interval, n_resamples=n_resamples, cluster=units.column,
        n_units=units.n_units, unit_name=units.unit_name, n_battles=table.n_battles, seed=seed,
        notes=tuple(dict.fromkeys(notes)), source=table.source, baseline=baseline, anchor=anchor_pos,
        length_control=bool(length_control), lc_glm=lc_glm if length_control else None,
        lc_fit=res.extras.get("lc_fit"), jackknife=jk, display_scale=display, unit=unit, **extra)
