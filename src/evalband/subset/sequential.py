"""Evaluate until decided: items in a seeded random order, a look after every batch, an anytime-valid stop.

:class:`Subset` fixes, from the seed, a random order of every item of the benchmark (a simple random sample
drawn one item at a time). After each batch the new model's results so far give the design-based and
prediction-assisted estimates (:func:`evalband.subset.estimate`) and the decision: stop when the
prediction-assisted standard error reaches ``target_se``, or, with ``against``, when the anytime-valid confidence
sequence of the paired difference (the betting CS of :mod:`evalband.plan.sequential`, Waudby-Smith and Ramdas
2023, in its form for sampling without replacement from the benchmark's items, 2020) decides the verdict against
``margin``; since that interval holds at every look at once, looking after every batch does not inflate the error
rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentError, InputError, as_generator, check_confidence_level, check_positive_int
from ..comparison.verdict import check_margin, verdict
from ..display.reprs import displayed
from ..plan.sequential import betting_confidence_sequence
from .estimate import estimate
from .population import population_of, scores_on
from .._words import words
from ..display.notes import NoteKind

__all__ = ["Subset", "SubsetDecision"]


NOTE_DECISION = NoteKind("subset.decision", "info", "{decision}: {reason}")


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class SubsetDecision:
    """Where the evaluation stands after a look.

    Attributes
    ----------
    stop : bool
    reason : str
        Why to stop or go on, in words.
    n_evaluated, n_items : int
    estimates : pandas.DataFrame
        The design and prediction-assisted rows of :func:`evalband.subset.estimate`.
    difference : dict or None
        With ``against``: ``estimate, cs_low, cs_high`` (anytime-valid) and ``verdict``.
    next_items : pandas.DataFrame
        The next batch to evaluate (``task, item, order``); empty when stopping.
    """

    stop: bool
    reason: str
    n_evaluated: int
    n_items: int
    estimates: pd.DataFrame
    difference: dict | None
    next_items: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        row = {"decision": "stop" if self.stop else "continue", "reason": self.reason,
               "n_evaluated": self.n_evaluated, "n_items": self.n_items}
        pa = self.estimates.set_index("method").loc["prediction-assisted"]
        row.update(estimate=pa["estimate"], se=pa["se"], ci_low=pa["ci_low"], ci_high=pa["ci_high"])
        if self.difference is not None:
            row.update({f"difference_{k}" if k != "verdict" else k: v for k, v in self.difference.items()})
        return pd.DataFrame([row])

    def headline(self) -> str:
        return NOTE_DECISION(decision="stop" if self.stop else "continue", reason=self.reason)


class Subset:
    """Evaluate a new model on items in a seeded random order until the estimate is precise enough or decided.

    Parameters
    ----------
    reference : Selection, ResultsTable, DataFrame, path or ``'example:NAME'``
        Item-level results of earlier models on the full benchmark.
    target_se : float, optional
        Stop when the prediction-assisted standard error of the full-benchmark score is at most this.
    against : str, optional
        A reference model: stop when the anytime-valid confidence sequence of the difference decides the verdict.
    margin : float
        Practical margin of the verdict (fractions).
    batch : int
        Items per look.
    min_items : int
        Items before the first decision (the estimators need a few).
    confidence_level : float
    rng : None, int or numpy.random.Generator
        Fixes the order of the items.

    Notes
    -----
    The stop on ``target_se`` is a rule on precision, not on the estimate; the intervals reported at the stop are
    the fixed-sample ones of :func:`evalband.subset.estimate`. The stop on ``against`` uses the betting confidence
    sequence for sampling *without replacement* from the benchmark's ``N`` items (Waudby-Smith and Ramdas 2020;
    :func:`evalband.betting_confidence_sequence` with ``population_size=N``): each bet is against the mean of the
    items not yet evaluated, so the guarantee holds for the benchmark's own mean difference, and the sequence
    shrinks to that exact difference as the evaluation approaches every item. The slow tests of
    ``tests/subset/test_sequential.py`` check its error rate under a null difference with a look every 20 items
    (1,000 simulated evaluations) and measure the items to a decision at a true difference of 3 points.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.subset import Subset
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random((9, 300)) < np.linspace(0.2, 0.8, 9)[:, None]).astype(float)
    >>> df = pd.DataFrame([(f"m{m}", "t", f"q{i}", y[m, i]) for m in range(9) for i in range(300)],
    ...                   columns=["model", "task", "item", "score"])
    >>> run = Subset(df[df["model"] != "m8"], target_se=0.05, batch=20, rng=1)
    >>> todo = run.next_items()
    >>> new = df[(df["model"] == "m8") & df["item"].isin(todo["item"])]
    >>> run.update(new).n_evaluated
    20
    """

    def __init__(self, reference, *, target_se: float | None = None, against: str | None = None,
                 margin: float = 0.0, batch: int = 20, min_items: int = 20, confidence_level: float = 0.95,
                 rng=None, **read_options):
        if target_se is None and against is None:
            raise ArgumentError(words('give `{arg:target_se}` (stop when the SE is small enough) or `{arg:against}` (stop when the difference from that model is decided), or both.'))
        if target_se is not None and not (isinstance(target_se, (int, float)) and 0 < target_se < 1):
            raise ArgumentError(words('`{arg:target_se}` must be a number in (0, 1); got {target_se!r}.', target_se=target_se))
        self.target_se = target_se
        self.margin = check_margin(margin, scale=100.0)
        self.batch = check_positive_int(batch, "batch")
        self.min_items = check_positive_int(min_items, "min_items", minimum=12)
        self.confidence_level = check_confidence_level(confidence_level)
        self._seed = as_generator(rng)
        self._rng_estimate = int(self._seed.integers(0, 2**63))
        self.population = population_of(reference, **read_options)
        self.reference = reference
        self.read_options = read_options
        self.against = against
        if against is not None:
            if against not in self.population.models:
                raise ArgumentError(f"`against` {against!r} is not a reference model.")
            r = self.population.scores[self.population.models.index(against)]
            if not np.isfinite(r).all():
                raise InputError(f"reference model {against!r} lacks items of the benchmark.")
            if not self.population.bounded:
                raise ArgumentError("`against` needs scores in [0, 1] (the confidence sequence is for bounded"
                                    " scores).")
        self.order = self._seed.permutation(self.population.n_items)
        self._rank = np.empty_like(self.order)
        self._rank[self.order] = np.arange(len(self.order))
        self._n = 0

    def items_frame(self, start: int = 0, stop: int | None = None) -> pd.DataFrame:
        """The items in evaluation order, from ``start`` to ``stop``: ``task, item, order`` (1-based)."""
        pos = self.order[start:stop]
        pop = self.population
        return pd.DataFrame({"task": np.asarray(pop.tasks, dtype=object)[pop.task_codes[pos]],
                             "item": np.asarray(pop.items, dtype=object)[pos],
                             "order": np.arange(start, start + len(pos)) + 1})

    def next_items(self) -> pd.DataFrame:
        """The next batch to evaluate (the first ``max(batch, min_items)`` items before any result)."""
        k = self.batch if self._n else max(self.batch, self.min_items)
        return self.items_frame(self._n, self._n + k)

    def update(self, results) -> SubsetDecision:
        """The decision after the new model's results so far (cumulative: every item evaluated up to now).

        The items must be the first ones of the order (any order of rows); a gap is an error naming the first
        item missing, since the confidence sequence needs the items in the order drawn.
        """
        evaluated, _ = scores_on(self.population, results, **self.read_options)
        if len(evaluated) != 1:
            raise InputError(f"the results hold {len(evaluated)} models; give one new model's results.")
        model, (pos, y) = next(iter(evaluated.items()))
        rank = self._rank[pos]
        n = len(pos)
        if n and rank.max() != n - 1:
            missing = np.setdiff1d(np.arange(n), rank)[0]
            first = self.items_frame(int(missing), int(missing) + 1).iloc[0]
            raise InputError(f"{model}: the items evaluated are not the first {n} of the order: task"
                             f" {first['task']!r}, item {first['item']!r} (number {missing + 1}) is missing;"
                             " evaluate the items in the order given.")
        by_rank = np.argsort(rank)
        pos, y = pos[by_rank], y[by_rank]
        self._n = n
        result = estimate(self.population, results, items=None, against=self.against, margin=self.margin,
                          confidence_level=self.confidence_level, rng=self._rng_estimate, **self.read_options) \
            if n >= self.min_items else None
        frame = result.to_frame() if result is not None else pd.DataFrame(
            {"model": [model] * 2, "method": ["design", "prediction-assisted"], "estimate": np.nan, "se": np.nan,
             "ci_low": np.nan, "ci_high": np.nan})
        stop, reasons, difference = False, [], None
        if result is not None and self.target_se is not None:
            se = float(frame.set_index("method").loc["prediction-assisted", "se"])
            if se <= self.target_se:
                stop = True
                reasons.append(f"standard error {se:.4f} <= target {self.target_se:g}")
            else:
                reasons.append(f"standard error {se:.4f} > target {self.target_se:g}")
        if self.against is not None and n:
            r = self.population.scores[self.population.models.index(self.against)][pos]
            cs = betting_confidence_sequence(y, r, confidence_level=self.confidence_level,
                                             population_size=self.population.n_items)
            low, high = float(cs.low[-1]), float(cs.high[-1])
            word = str(verdict([low], [high], margin=self.margin)[0])
            difference = {"estimate": float(np.mean(y - r)), "cs_low": low, "cs_high": high, "verdict": word}
            if word != "not yet decided" and n >= self.min_items:
                stop = True
            reasons.append(f"anytime-valid difference from {self.against}: {word}")
        if n >= self.population.n_items:
            stop = True
            reasons.append("every item evaluated")
        if n < self.min_items:
            reasons.append(f"{n} of the {self.min_items} items before the first decision")
        nxt = self.items_frame(0, 0) if stop else self.next_items()
        return SubsetDecision(stop, "; ".join(reasons), n, self.population.n_items, frame, difference, nxt)
