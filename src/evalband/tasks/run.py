"""One entry point for the tests over tasks, so that a command-line option is a thin call.

``run_test(data, test='friedman' | 'wilcoxon' | 'sign' | 'bayes-signed-rank' | 'rm-anova', ...)`` builds the
(models x tasks) matrix, drops incomplete tasks (counted), runs the omnibus test and its post-hoc comparisons,
and returns a :class:`TaskTestResult` with ``.to_frame()`` and ``.summary()``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, InputError, check_choice, check_confidence_level
from ._matrix import as_score_matrix, complete_cases
from .anova import rm_anova
from .bayes_signedrank import bayes_signed_rank_tests
from .friedman import friedman
from .posthoc import nemenyi
from .signedrank import signed_rank_tests
from ..display.reprs import displayed
from .._words import words
from ..display.notes import NoteKind

__all__ = ["TESTS", "TaskTestResult", "run_test"]

TESTS = ("friedman", "wilcoxon", "sign", "bayes-signed-rank", "rm-anova")


#: the lines of a test over tasks (TaskTestResult.summary); the omnibus and post-hoc tests word their own results
NOTE_TASKS_SAMPLE = NoteKind("tasks.tasks-are-the-sample", "info",
                             "{k} models compared over {n} tasks (tasks are the sample).")
NOTE_TASKS_DROPPED = NoteKind("tasks.tasks-dropped", "excluded",
                              "{n} task(s) dropped for missing results (complete cases).")
NOTE_OMNIBUS = NoteKind("tasks.omnibus-test", "info", "{summary}")
NOTE_POSTHOC = NoteKind("tasks.posthoc-test", "info", "{summary}")
NOTE_MEAN_RANKS = NoteKind("tasks.mean-ranks", "info", "Mean ranks (1 = best): {ranks}.")
NOTE_CLIQUES = NoteKind("tasks.not-significantly-different", "info", "Not significantly different: {cliques}.")
NOTE_SIGNED_RANK_TESTS = NoteKind("tasks.signed-rank-tests", "info", "{what} tests {scope}, Holm-corrected at"
                                  " {level:.0%}: {decided} of {n} pairs decided.")
NOTE_BAYES_SIGNED_RANK = NoteKind("tasks.bayes-signed-rank", "info", "Bayesian signed-rank (ROPE {rope}); decisions"
                                  " need posterior probability >= {level:.0%}.")


@displayed
@dataclass(frozen=True, repr=False)
class TaskTestResult:
    """The outcome of :func:`run_test`.

    Attributes
    ----------
    test : str
    omnibus : FriedmanResult, RMAnovaResult or None
        The test of "all models equal" (Friedman for 'friedman', 'wilcoxon' and 'sign').
    posthoc : NemenyiResult, SignedRankResult, BayesSignedRankTests or RMAnovaResult
        Pairwise comparisons.
    models, tasks : tuple of str
        Models and the tasks used.
    dropped_tasks : tuple of str
    notes : tuple of str
    """

    test: str
    omnibus: object
    posthoc: object
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    dropped_tasks: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The pairwise table of the post-hoc comparisons (see each result's ``to_frame``)."""
        return self.posthoc.to_frame()

    def to_dict(self) -> dict:
        """The primary result as plain values: the omnibus test (Friedman chi-square, its df and p-value, the
        Iman-Davenport F; or the RM-ANOVA F), the post-hoc method (Nemenyi critical difference and mean ranks,
        Holm-corrected signed-rank or sign tests, the Bayesian ROPE) and what was left out. The pairwise table is
        :meth:`to_frame` (the command line's JSON puts it under ``records``)."""
        out = {"test": self.test, "models": list(self.models), "n_tasks": len(self.tasks),
               "dropped_tasks": list(self.dropped_tasks)}
        o, p = self.omnibus, self.posthoc
        if self.test == "rm-anova":
            out["omnibus"] = {"test": "rm-anova", "f": o.statistic, "df1": o.df1, "df2": o.df2, "p_value": o.p_value,
                              "p_value_greenhouse_geisser": o.p_value_gg, "epsilon_greenhouse_geisser": o.epsilon_gg,
                              "mauchly_w": o.mauchly_w, "mauchly_p_value": o.mauchly_p_value,
                              "shapiro_w": o.shapiro_w, "shapiro_p_value": o.shapiro_p_value,
                              "assumptions_hold": bool(o.assumptions_hold)}
        elif o is not None:
            out["omnibus"] = {"test": getattr(o, "method", "friedman"), "chi_square": o.statistic, "df": o.df,
                              "p_value": o.p_value, "iman_davenport_f": o.iman_davenport, "iman_davenport_df1": o.df1,
                              "iman_davenport_df2": o.df2, "iman_davenport_p_value": o.iman_davenport_p_value}
            if getattr(o, "exact_method", ""):
                out["omnibus"].update(p_value_exact=o.p_value_exact, p_value_exact_se=o.p_value_exact_se,
                                      exact_method=o.exact_method, n_arrangements=int(o.n_arrangements))
        if self.test == "friedman":
            out["posthoc"] = {"method": "nemenyi", "p_values": p.method, "critical_difference": p.critical_difference,
                              "critical_difference_asymptotic": p.critical_difference_asymptotic,
                              "q_alpha": p.q_alpha, "confidence_level": p.confidence_level,
                              "mean_ranks": {m: float(r) for m, r in zip(self.models, p.mean_ranks)},
                              "cliques": [list(c) for c in p.cliques]}
        elif self.test in ("wilcoxon", "sign"):
            out["posthoc"] = {"method": self.test, "control": p.control, "correction": "holm",
                              "confidence_level": p.confidence_level, "significant": int(np.sum(p.reject)),
                              "rejected": int(np.sum(p.reject)),  # alias of 'significant' (older JSON)
                              "pairs": int(len(p.reject))}
        elif self.test == "bayes-signed-rank":
            out["posthoc"] = {"method": "bayes-signed-rank", "control": p.control, "rope": p.rope,
                              "confidence_level": p.results[0].confidence_level if p.results else None}
        return {k: (float(v) if isinstance(v, np.floating) else v) for k, v in out.items()}

    def summary(self, *, scale: float = 1.0) -> str:
        """A few lines: the omnibus test, the post-hoc method and its verdict, what was dropped. ``scale`` is the
        display multiplier of the scores (100: proportions, whose ROPE is said in points)."""
        return "\n".join(self.summary_notes(scale=scale))

    def summary_notes(self, *, scale: float = 1.0) -> list:
        """The lines of :meth:`summary` as notes (each with its code)."""
        lines = []
        k, n = len(self.models), len(self.tasks)
        lines.append(NOTE_TASKS_SAMPLE(k=k, n=n))
        if self.dropped_tasks:
            lines.append(NOTE_TASKS_DROPPED(n=len(self.dropped_tasks)))
        if self.omnibus is not None and hasattr(self.omnibus, "summary"):
            lines += [NOTE_OMNIBUS(summary=line) for line in self.omnibus.summary().splitlines()]
        p = self.posthoc
        if self.test == "friedman":
            order = np.argsort(p.mean_ranks, kind="stable")
            ranks = ", ".join(f"{self.models[i]} {p.mean_ranks[i]:.3g}" for i in order)
            lines.append(NOTE_MEAN_RANKS(ranks=ranks))
            lines += [NOTE_POSTHOC(summary=line) for line in p.summary().splitlines()]
            if p.cliques:
                lines.append(NOTE_CLIQUES(cliques="; ".join("{" + ", ".join(c) + "}" for c in p.cliques)))
        elif self.test in ("wilcoxon", "sign"):
            what = "Wilcoxon signed-rank" if self.test == "wilcoxon" else "sign"
            scope = f"against control {p.control}" if p.control else "for all pairs"
            lines.append(NOTE_SIGNED_RANK_TESTS(what=what, scope=scope, level=p.confidence_level,
                                                decided=int(p.reject.sum()), n=len(p.reject)))
        elif self.test == "bayes-signed-rank":
            rope = (f"+/- {p.rope * scale:g} point{'s' if p.rope * scale != 1 else ''} ({p.rope:g})" if scale == 100
                    else f"+/- {p.rope:g}")
            lines.append(NOTE_BAYES_SIGNED_RANK(rope=rope, level=p.results[0].confidence_level))
        lines.extend(self.notes)
        return lines


def run_test(data, models=None, tasks=None, *, test: str = "friedman", control=None, rope: float = 0.0,
             confidence_level=0.95, higher_is_better: bool = True, rng=None, n_draws: int = 20_000,
             tie_correction: bool = True, missing: str = "complete-case") -> TaskTestResult:
    """Run a test over tasks: omnibus plus post-hoc comparisons.

    Parameters
    ----------
    data : ResultsTable, ScoreMatrix, DataFrame or array_like, shape (n_models, n_tasks)
        Per-task scores (a table is reduced to per-task means, or correct / n).
    models, tasks : sequence of str, optional
        Labels for an array, or subsets of a table.
    test : {'friedman', 'wilcoxon', 'sign', 'bayes-signed-rank', 'rm-anova'}
        'friedman': Friedman + Iman-Davenport, Nemenyi critical difference for all pairs (below 10 tasks from
        the permutation distribution of the largest mean-rank difference: see :func:`nemenyi`).
        'wilcoxon' / 'sign': Friedman as omnibus, then Holm-corrected paired tests (against ``control`` or all
        pairs). 'bayes-signed-rank': Bayesian signed-rank with ROPE ``rope`` (against ``control`` or all pairs).
        'rm-anova': repeated-measures ANOVA with assumption checks and Tukey HSD.
    control : str, optional
        Model to compare each other model with (not used by 'friedman' and 'rm-anova', which compare all pairs).
    rope : float, default 0
        Bayesian test only: half-width of the region of practical equivalence in score units.
    confidence_level : float, default 0.95
    higher_is_better : bool, default True
    rng : None, int or numpy.random.Generator
        Bayesian test, and the Monte Carlo permutation p-values of the Friedman and Nemenyi tests (few tasks, many
        models).
    n_draws : int, default 20_000
        Bayesian test only: posterior draws per pair.
    tie_correction : bool, default True
        Friedman statistic corrected for tied ranks.
    missing : {'complete-case', 'skillings-mack'}
        Tasks where some model has no score: dropped (counted and named), or, for the omnibus test of
        'friedman', 'wilcoxon' and 'sign', kept by the Skillings-Mack test; the pairwise comparisons always use
        complete cases.

    Returns
    -------
    TaskTestResult

    Examples
    --------
    >>> import evalband as eb
    >>> res = eb.run_test(eb.load_example("vtab"), models=["Exemplar", "Rotation", "VAE"])
    >>> type(res).__name__
    'TaskTestResult'
    """
    test = check_choice(test, TESTS, "test")
    level = check_confidence_level(confidence_level)
    missing = check_choice(missing, ("complete-case", "skillings-mack"), "missing")
    m = as_score_matrix(data, models, tasks)
    if m.n_models < 2:
        raise InputError(f"a test over tasks needs at least 2 models; found {m.n_models}"
                         f" ({', '.join(map(str, m.models))})", source=m.source)
    full = m
    if control is not None and test in ("friedman", "rm-anova"):
        raise ArgumentError(words('`{arg:control}` applies to the wilcoxon, sign and bayes-signed-rank tests, not to {test!r} (which compares all pairs).', test=test))
    if rope and test != "bayes-signed-rank":
        raise ArgumentError(words('`{arg:rope}` applies to the bayes-signed-rank test only.'))
    m = complete_cases(m, min_tasks=2, what=f"the {test} test")
    omnibus = None
    omnibus_data, sm = (full, "skillings-mack") if missing == "skillings-mack" else (m, "complete-case")
    if test == "friedman":
        omnibus = friedman(omnibus_data, higher_is_better=higher_is_better, tie_correction=tie_correction,
                           missing=sm, rng=rng)
        posthoc = nemenyi(m, confidence_level=level, higher_is_better=higher_is_better, rng=rng)
    elif test in ("wilcoxon", "sign"):
        if m.n_models > 2:
            omnibus = friedman(omnibus_data, higher_is_better=higher_is_better, tie_correction=tie_correction,
                               missing=sm, rng=rng)
        posthoc = signed_rank_tests(m, control=control, method=test, confidence_level=level,
                                    higher_is_better=higher_is_better)
    elif test == "bayes-signed-rank":
        posthoc = bayes_signed_rank_tests(m, control=control, rope=rope, n_draws=n_draws,
                                          confidence_level=level, higher_is_better=higher_is_better, rng=rng)
    else:
        omnibus = posthoc = rm_anova(m, confidence_level=level)
    return TaskTestResult(test, omnibus, posthoc, m.models, m.tasks, m.dropped_tasks, m.notes)
