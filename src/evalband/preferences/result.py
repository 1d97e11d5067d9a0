"""The result of :func:`evalband.preferences.arena`: a preference leaderboard with its intervals.

Everything is read from one replicate set: ratings with intervals, ranks with marginal and simultaneous rank
intervals, P(best) and tiers (:func:`evalband.ranking.rank_models`), pairwise differences with verdicts and
multiplicity control (:func:`evalband.comparison.pairwise_differences`), predicted win probabilities and, for win
rates, the paired differences of models judged on the same questions against the same baseline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from ..estimation.confidence import ConfidenceInterval
from ..display.reprs import displayed
from .._validate import ArgumentError
from ..display.notes import NoteKind

__all__ = ["ArenaResult", "METHOD_NAMES"]

METHOD_NAMES = {"bt": "Bradley-Terry", "rao-kupper": "Rao-Kupper", "davidson": "Davidson",
                "elo": "bootstrap Elo", "win-rate": "win rate"}


#: the readings of an arena result (ArenaResult.readings)
NOTE_ARENA_FIT = NoteKind("preferences.arena-fit", "info", "{what} of {n_models} models from {n_battles:,} battles;"
                          " {level} {interval} intervals from {n_resamples:,} bootstrap replicates ({clusters}{seed}).")
NOTE_ARENA_LEADER = NoteKind(
    "preferences.arena-leader", "info", "{model} ranks first: {statistic} {rating}{unit}{interval}, rank interval"
    " {rank_low}-{rank_high} (simultaneous {rank_sim_low}-{rank_sim_high}), P(best) = {p_best:.2f}; {n_top} model(s)"
    " in the top tier.")
NOTE_ARENA_SEPARABILITY = NoteKind(
    "preferences.arena-separability", "info", "separability: {separability:.0%} of the {n_pairs:,} model pairs are"
    " separated pointwise (each pair's own {level} difference interval excludes 0, no multiplicity correction); the"
    " pairwise verdicts, from simultaneous (max-t) intervals that hold for all pairs at once, decide {decided:,} of"
    " {n_pairs:,}.")
NOTE_ARENA_STYLE = NoteKind(
    "preferences.arena-style", "info", "style {feature}: {coefficient:+.3f} log-odds per SD of the normalized"
    " difference ({level} CI {ci_low:+.3f} to {ci_high:+.3f}); ratings shown are style-controlled, rating_raw without"
    " control.")
NOTE_ARENA_TIE_PARAMETER = NoteKind("preferences.arena-tie-parameter", "info",
                                    "tie parameter {name} = {value:.3f} ({level} CI {low:.3f} to {high:.3f}).")


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class ArenaResult:
    """A preference leaderboard: ratings, intervals, ranks and comparisons from one bootstrap replicate set.

    Attributes
    ----------
    method : str
        'bt', 'rao-kupper', 'davidson', 'elo' or 'win-rate'.
    ties : str
        'half', 'drop', 'rao-kupper' or 'davidson'.
    scale : str
        'elo', 'logit' or 'prob' (win rates are fractions whatever the scale; their frames say 'fraction').
    models : tuple of str
    rating : numpy.ndarray, shape (M,)
        The estimate on ``scale`` (for win rates: the win rate against the baseline, the length-controlled win
        rate, or the average win rate).
    samples : numpy.ndarray, shape (B, M)
        Its bootstrap replicates (the one replicate set behind every statistic).
    ranking : evalband.ranking.ModelRanking
        Interval, ranks, rank intervals (marginal and simultaneous), P(best) and tiers.
    counts : pandas.DataFrame
        Per model: n_battles, n_wins, n_ties in the battles analysed.
    separability : float
        Share of model pairs whose difference interval (at ``confidence_level``, uncorrected) excludes 0.
    notes : tuple of str
        What was assumed, converted or left out.
    """

    method: str
    ties: str
    scale: str
    models: tuple
    rating: np.ndarray
    samples: np.ndarray
    ranking: object
    counts: pd.DataFrame
    separability: float
    confidence_level: float
    interval: str
    n_resamples: int
    cluster: str | None
    n_units: int
    unit_name: str
    n_battles: int
    seed: int | None
    notes: tuple
    source: str = ""
    baseline: str | None = None
    anchor: tuple | None = None
    length_control: bool = False
    lc_glm: str | None = None
    """The length-control GLM: 'length_controlled_v1' (AlpacaEval's) or 'length-only'; None without control."""
    lc_fit: pd.DataFrame | None = None
    """length_controlled_v1: each model's GLM coefficients (w_length, w_difficulty, w_model) and penalty C."""
    jackknife: np.ndarray | None = None
    win_probability: np.ndarray | None = None
    """(M, M): predicted probability that the row model beats the column model (a tie counting half)."""
    win_probability_ci: ConfidenceInterval | None = None
    win_rate: np.ndarray | None = None
    """Raw win rate against the baseline (AlpacaEval's definition), for method 'win-rate' with a baseline."""
    win_rate_se: np.ndarray | None = None
    win_rate_ci: ConfidenceInterval | None = None
    rating_raw: np.ndarray | None = None
    """Without style control, when ``style`` is given."""
    rating_raw_ci: ConfidenceInterval | None = None
    style: pd.DataFrame | None = None
    """Style coefficients: feature, coefficient, se, ci_low, ci_high (log-odds per SD of the normalized
    difference)."""
    tie_parameter: float | None = None
    tie_parameter_ci: ConfidenceInterval | None = None
    rating_online: np.ndarray | None = None
    """Online Elo in the order of the rows (method 'elo'), on ``scale``."""
    predicted_win_rate: np.ndarray | None = None
    """Predicted win probability against the baseline (Arena-Hard's score), for rating methods with a baseline."""
    predicted_win_rate_ci: ConfidenceInterval | None = None
    display_scale: float = 1.0
    unit: str = ""
    extras: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ tables
    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first.

        Columns: model, rating, ci_low, ci_high, rank, rank_low, rank_high (marginal rank interval), p_best,
        n_battles, n_wins, n_ties; for win rates also win_rate and se; then rank_sim_low, rank_sim_high
        (simultaneous rank interval), tier, se_bootstrap, rank_mean and what the method adds.

        ``se`` is always the standard error of ``rating``, the one the tables show: for a win rate against a
        baseline AlpacaEval's (``sd / sqrt(n)`` of the preferences); for a length-controlled win rate the
        bootstrap's (AlpacaEval has none for the GLM), also named ``se_lc`` beside ``lc_win_rate``, while the raw
        win rate keeps its own as ``win_rate``, ``win_rate_se`` (AlpacaEval's) and ``win_rate_ci_low/high``; for
        other ratings the bootstrap standard deviation. ``se_bootstrap`` (win rates) is the bootstrap standard
        deviation of the rating.
        """
        r = self.ranking
        counts = self.counts.set_index("model").loc[list(self.models)]
        frame = pd.DataFrame({
            "model": list(self.models), "rating": self.rating, "ci_low": np.asarray(r.ci.low, dtype=float),
            "ci_high": np.asarray(r.ci.high, dtype=float), "rank": r.rank, "rank_low": r.rank_ci.low,
            "rank_high": r.rank_ci.high, "p_best": r.p_best, "n_battles": counts["n_battles"].to_numpy(),
            "n_wins": counts["n_wins"].to_numpy(), "n_ties": counts["n_ties"].to_numpy(),
        })
        if self.method == "win-rate":
            if self.win_rate is not None and not self.length_control:
                frame["win_rate"] = self.win_rate
                frame["se"] = self.win_rate_se
            elif self.length_control:  # the rating is the LC win rate: its se is the bootstrap's
                frame["win_rate"] = self.win_rate
                frame["se"] = r.se
            else:  # the average win rate has no analytic standard error: the bootstrap's
                frame["win_rate"] = self.rating
                frame["se"] = r.se
        frame["rank_sim_low"] = r.rank_simultaneous.low
        frame["rank_sim_high"] = r.rank_simultaneous.high
        frame["tier"] = r.tier
        if "se" not in frame:
            frame["se"] = r.se
        else:
            frame["se_bootstrap"] = r.se
        frame["rank_mean"] = r.rank_mean
        if self.length_control:
            frame["lc_win_rate"] = self.rating
            frame["se_lc"] = r.se
            frame["win_rate_se"] = self.win_rate_se
            frame["win_rate_ci_low"] = np.asarray(self.win_rate_ci.low, dtype=float)
            frame["win_rate_ci_high"] = np.asarray(self.win_rate_ci.high, dtype=float)
            frame["lc_glm"] = self.lc_glm
        if self.rating_raw is not None:
            frame["rating_raw"] = self.rating_raw
            frame["ci_low_raw"] = np.asarray(self.rating_raw_ci.low, dtype=float)
            frame["ci_high_raw"] = np.asarray(self.rating_raw_ci.high, dtype=float)
        if self.rating_online is not None:
            frame["rating_online"] = self.rating_online
        if self.predicted_win_rate is not None:
            frame["predicted_win_rate"] = self.predicted_win_rate
            frame["predicted_win_rate_low"] = np.asarray(self.predicted_win_rate_ci.low, dtype=float)
            frame["predicted_win_rate_high"] = np.asarray(self.predicted_win_rate_ci.high, dtype=float)
        frame["method"] = self.method
        frame["scale"] = self.scale if self.method != "win-rate" else "fraction"
        frame["confidence_level"] = self.confidence_level
        order = np.lexsort((np.arange(len(self.models)), r.rank_mean, r.rank))
        return frame.iloc[order].reset_index(drop=True)

    def comparison(self, *, correction: str = "max-t", margin: float = 0.0):
        """All pairwise rating differences: :class:`evalband.comparison.PairwiseComparison`.

        Parameters
        ----------
        correction : {'holm', 'bonferroni', 'bh', 'max-t', 'none'}
            Multiplicity control over the M (M - 1) / 2 pairs.
        margin : float
            Smallest difference that matters, on the rating's scale (win rates: a fraction, 0.01 = one point).
        """
        from ..comparison import pairwise_differences

        kw = {}
        if self.interval == "bca" and self.jackknife is not None:
            kw = {"method": "bca", "jackknife": self.jackknife}
        return pairwise_differences(self.rating, self.samples, self.models, statistic=self._statistic,
                                    confidence_level=self.confidence_level, correction=correction, margin=margin,
                                    scale=self.display_scale, unit=self.unit, n_units=self.n_units,
                                    unit_name=self.unit_name, **kw)

    def pairwise(self, *, correction: str = "max-t", margin: float = 0.0) -> pd.DataFrame:
        """One row per pair (better model first): the rating difference with interval, p-values before and after
        ``correction``, the verdict ('A better', 'B better', 'equivalent', 'not yet decided') and its reading,
        and, for rating methods, the predicted probability that model_a beats model_b with its interval.

        For win rates against a baseline the difference is the paired difference of the two win rates: both
        models were judged on the same questions against the same baseline, and the questions are resampled
        together.
        """
        comp = self.comparison(correction=correction, margin=margin)
        frame = comp.to_frame().rename(columns={"aggregate": "statistic"})
        if self.win_probability is not None:
            ia, ib = comp.index_a, comp.index_b
            frame["win_probability"] = self.win_probability[ia, ib]
            frame["win_probability_low"] = self.win_probability_ci.low[ia, ib]
            frame["win_probability_high"] = self.win_probability_ci.high[ia, ib]
        return frame

    def win_matrix(self, which: str = "probability") -> pd.DataFrame:
        """``(M, M)`` frame: predicted P(row beats column) ('probability'), or its interval ends ('low', 'high').
        """
        if self.win_probability is None:
            raise ArgumentError("no predicted win probabilities for method 'win-rate' (it fits no model of the pairs).")
        mat = {"probability": self.win_probability, "low": self.win_probability_ci.low,
               "high": self.win_probability_ci.high}
        if which not in mat:
            raise ArgumentError(f"`which` must be 'probability', 'low' or 'high'; got {which!r}.")
        order = self.to_frame()["model"].tolist()
        pos = [self.models.index(mo) for mo in order]
        return pd.DataFrame(mat[which][np.ix_(pos, pos)], index=pd.Index(order, name="model_a"),
                            columns=pd.Index(order, name="model_b"))

    def rank_distribution(self) -> pd.DataFrame:
        """Tidy rank distribution over the replicates: model, rank, probability."""
        return self.ranking.distribution_frame().drop(columns="aggregate")

    @property
    def _statistic(self) -> str:
        if self.method == "win-rate":
            return "lc_win_rate" if self.length_control else "win_rate"
        return "rating"

    # ------------------------------------------------------------------ words
    def _fmt(self, value: float, se: float) -> str:
        from ..comparison.verdict import format_difference

        text, d = format_difference(value, se, scale=self.display_scale)
        return text.lstrip("+")

    def readings(self, *, max_pairs: int = 10) -> list[str]:
        """Findings in plain words: what was fitted, the leader, separability, adjacent pairs, style, ties."""
        frame = self.to_frame()
        r = self.ranking
        lvl = f"{100 * self.confidence_level:.4g}%"
        what = METHOD_NAMES[self.method]
        if self.method == "win-rate":
            what = ("length-controlled win rate" if self.length_control else "win rate") + \
                (f" against {self.baseline}" if self.baseline else " averaged over opponents")
        elif self.ties == "half" and self.method in ("bt", "elo"):
            what += " (a tie counts as half a win)"
        elif self.ties == "drop":
            what += " (ties left out)"
        clusters = (f"{self.n_units:,} {self.unit_name} resampled whole" if self.cluster
                    else f"{self.n_units:,} battles resampled independently")
        seed = f", seed {self.seed}" if self.seed is not None else ""
        out = [NOTE_ARENA_FIT(what=what, n_models=len(self.models), n_battles=self.n_battles, level=lvl,
                              interval=self.interval, n_resamples=self.n_resamples, clusters=clusters, seed=seed)]
        top = frame.iloc[0]
        unit = f" {self.unit}" if self.unit else ""
        out.append(NOTE_ARENA_LEADER(
            model=top['model'], statistic=self._statistic.replace('_', ' '),
            rating=self._fmt(top['rating'], top['se_bootstrap'] if 'se_bootstrap' in top else top['se']), unit=unit,
            interval=(f" ({lvl} CI {self._fmt(top['ci_low'], top['se'])} to {self._fmt(top['ci_high'], top['se'])})"
                      if np.isfinite(top['ci_low']) and np.isfinite(top['ci_high']) else " (no interval)"),
            rank_low=int(top['rank_low']), rank_high=int(top['rank_high']), rank_sim_low=int(top['rank_sim_low']),
            rank_sim_high=int(top['rank_sim_high']), p_best=top['p_best'], n_top=int((r.tier == 1).sum())))
        n_pairs = len(self.models) * (len(self.models) - 1) // 2
        comp = self.comparison(correction="max-t")
        decided = int(np.isin(np.asarray(comp.verdict), ("A better", "B better")).sum())
        # separability is pointwise; the pairwise verdicts hold for all pairs at once: both said, so the two
        # numbers never read as a contradiction
        out.append(NOTE_ARENA_SEPARABILITY(separability=self.separability, n_pairs=n_pairs, level=lvl,
                                           decided=decided))
        order = frame["model"].tolist()
        adjacent = {(order[i], order[i + 1]) for i in range(min(len(order) - 1, max_pairs))}
        for text, a, b in zip(comp.readings, comp.model_a, comp.model_b):
            if (a, b) in adjacent or (b, a) in adjacent:
                out.append(text)
        if self.style is not None:
            for row in self.style.itertuples():
                out.append(NOTE_ARENA_STYLE(feature=row.feature, coefficient=row.coefficient, level=lvl,
                                            ci_low=row.ci_low, ci_high=row.ci_high))
        if self.tie_parameter is not None:
            name = "theta" if self.method == "rao-kupper" else "nu"
            out.append(NOTE_ARENA_TIE_PARAMETER(name=name, value=self.tie_parameter, level=lvl,
                                                low=self.tie_parameter_ci.low, high=self.tie_parameter_ci.high))
        return out

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        frame = self.to_frame()
        head = frame.head(5)
        lines = [f"ArenaResult({METHOD_NAMES[self.method]}, scale={self.scale!r}, {len(self.models)} models,"
                 f" {self.n_battles:,} battles, B={self.n_resamples:,}, {self.interval} {self.confidence_level:.4g},"
                 f" cluster={self.cluster!r} ({self.n_units:,} units), separability={self.separability:.2f})"]
        for row in head.itertuples():
            lines.append(f"  {row.rank:>3} {str(row.model)[:40]:<40} {row.rating:.6g} [{row.ci_low:.6g},"
                         f" {row.ci_high:.6g}] p_best={row.p_best:.3f}")
        if len(frame) > 5:
            lines.append(f"  ... {len(frame) - 5} more")
        if self.notes:
            lines.append(f"  {len(self.notes)} note(s): .notes")
        return "\n".join(lines)[:2000]

    def _repr_html_(self) -> str:
        return self.to_frame().head(20).to_html(index=False)

    @cached_property
    def summary(self) -> dict:
        """Headline numbers: the leader, its P(best), separability, the number of top-tier models."""
        frame = self.to_frame()
        return {"leader": frame["model"].iloc[0], "p_best": float(frame["p_best"].iloc[0]),
                "separability": self.separability, "top_tier": int((frame["tier"] == 1).sum())}
