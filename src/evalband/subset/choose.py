"""``choose``: a probability sample of a benchmark's items, each with its inclusion probability."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validate import ArgumentTypeError, as_generator, check_choice, check_positive_int
from ..display.reprs import displayed
from .anchors import anchor_points
from .design import difficulty_strata, draw, neyman_allocation
from .population import population_of
from .._words import words
from ..display.notes import NoteKind

__all__ = ["choose", "SubsetChoice", "METHODS"]

METHODS = ("random", "stratified", "anchors")
#: most difficulty bins per task of the stratified design
MAX_BINS = 4


#: the items chosen (SubsetChoice.headline)
NOTE_CHOICE_ANCHORS = NoteKind(
    "subset.choice-anchors", "info", "{n:,} of {n_items:,} items ({share:.1%}): a simple random sample of {m:,} (the"
    " intervals) and {k:,} anchor points (point estimates with no valid interval), {both:,} in both")
NOTE_CHOICE = NoteKind("subset.choice", "info",
                       "{n:,} of {n_items:,} items ({share:.1%}), {method} sample in {n_strata} {strata}")


@displayed
@dataclass(frozen=True, eq=False, repr=False)
class SubsetChoice:
    """Items drawn from a benchmark, with their inclusion probabilities.

    Attributes
    ----------
    method : {'random', 'stratified', 'anchors'}
    budget : int
    n_items : int
        Items of the benchmark (the population).
    frame : pandas.DataFrame
        One row per chosen item in the order to evaluate them: ``task, item, inclusion_prob, stratum, order``;
        with 'anchors' also ``anchor_weight`` (the anchor's cluster share; empty for an item of the random sample
        only), and ``inclusion_prob`` and ``stratum`` are empty for an anchor outside the random sample.
    strata : pandas.DataFrame
        One row per stratum: ``stratum, task, n_items, n_chosen, sd`` (``sd``: the reference models' mean
        within-stratum standard deviation, the S_h of the Neyman allocation).
    notes : tuple of str
    source : str
    """

    method: str
    budget: int
    n_items: int
    frame: pd.DataFrame
    strata: pd.DataFrame
    notes: tuple
    source: str

    def to_frame(self) -> pd.DataFrame:
        """The chosen items: ``task, item, inclusion_prob, stratum, order``."""
        return self.frame.copy()

    def headline(self) -> str:
        n = len(self.frame)
        if self.method == "anchors":
            k = int(self.frame["anchor_weight"].notna().sum())
            m = int(self.frame["inclusion_prob"].notna().sum())
            return NOTE_CHOICE_ANCHORS(n=n, n_items=self.n_items, share=n / self.n_items, m=m, k=k, both=m + k - n)
        return NOTE_CHOICE(n=n, n_items=self.n_items, share=n / self.n_items, method=self.method,
                           n_strata=len(self.strata), strata="stratum" if len(self.strata) == 1 else "strata")


def _stratum_sd(scores, strata, H):
    """Each stratum's within-stratum standard deviation of a reference model's scores, averaged over models."""
    out = np.zeros(H)
    for h in range(H):
        block = scores[:, strata == h]
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = np.isfinite(block).sum(axis=1) > 1
            v = np.nanvar(block[ok], axis=1, ddof=1) if ok.any() else np.zeros(1)
        out[h] = float(np.sqrt(np.mean(v))) if len(v) else 0.0
    return out


NOTE_ANCHOR_POINTS_NOT_RANDOM = NoteKind(
    'subset.anchor-points-not-random', 'caveat',
    "anchor points are not a random sample: the intervals come from the random sample's items only; the anchors' "
    "point estimates have no valid interval")
NOTE_ANCHOR_POINTS_REFERENCE_MODELS = NoteKind(
    'subset.anchor-points-reference-models', 'caveat',
    "{value} anchor points: the reference models' response patterns form fewer than {n_anchors} distinct clusters")
NOTE_BUDGET_CANNOT_GIVE_ITEMS = NoteKind(
    'subset.budget-cannot-give-items', 'caveat',
    'a budget of {budget} cannot give 2 items to each of {t} tasks: strata are {n_bins} difficulty bins across '
    'tasks')


def choose(reference, budget: int, *, method: str = "random", n_bins: int | None = None,
           n_anchors: int | None = None, rng=None, **read_options) -> SubsetChoice:
    """Draw ``budget`` items of a benchmark at random, each with its inclusion probability.

    Parameters
    ----------
    reference : Selection, ResultsTable, DataFrame, path or ``'example:NAME'``
        Item-level results of earlier models on the full benchmark: its items (task, item) are the population.
    budget : int
        Items to draw.
    method : {'random', 'stratified', 'anchors'}
        'random': a simple random sample (every item ``budget / N``). 'stratified': strata from each task crossed
        with bins of the item's difficulty (the reference models' mean score), at least 2 items per stratum, the
        rest allocated in proportion to ``N_h S_h`` (Neyman), with ``S_h`` the reference models' within-stratum
        standard deviation; an item's inclusion probability is ``n_h / N_h``. 'anchors': tinyBenchmarks' anchor
        points (k-means on the reference models' response patterns, the item nearest each centre; see
        :mod:`evalband.subset.anchors`) *beside* a simple random sample, which alone gives the intervals: the
        anchors are not drawn at random, and their estimates are printed with "no valid interval".
    n_bins : int, optional
        Difficulty bins per task (default: the most, up to 4, that leave 2 items per stratum within the budget;
        when even one bin per task does not, strata are difficulty bins across tasks).
    n_anchors : int, optional
        With 'anchors': the anchor points (default half the budget); the random sample has the rest, and items
        in both are evaluated once (so fewer than ``budget`` items may be chosen).
    rng : None, int or numpy.random.Generator
    **read_options
        Options of :func:`evalband.read`.

    Returns
    -------
    SubsetChoice

    Examples
    --------
    >>> import evalband as eb
    >>> from evalband.subset import choose
    >>> c = choose(eb.load_example("mmlu-pro"), 200, method="stratified", rng=1)
    >>> c.to_frame()[["task", "item", "inclusion_prob"]].shape
    (200, 3)
    """
    method = check_choice(method, METHODS, "method")
    budget = check_positive_int(budget, "budget")
    gen = as_generator(rng)
    pop = population_of(reference, **read_options)
    N = pop.n_items
    if budget > N:
        from .._validate import ArgumentError
        raise ArgumentError(f"`budget` {budget} exceeds the {N:,} items of the benchmark ({pop.source}).")
    notes = list(pop.notes)
    task_codes = pop.task_codes
    anchors = None
    if method == "anchors":
        if n_anchors is None:
            n_anchors = budget // 2
        n_anchors = check_positive_int(n_anchors, "n_anchors")
        if budget - n_anchors < 12:
            from .._validate import ArgumentError
            raise ArgumentError(words('`budget` {budget} leaves {value} items for the random sample beside {n_anchors} anchors; the intervals need at least 12 (raise the budget or lower `{arg:n_anchors}`).', budget=budget, value=budget - n_anchors, n_anchors=n_anchors))
        anchors = anchor_points(pop.scores, n_anchors, rng=gen)
        if len(anchors[0]) < n_anchors:
            notes.append(NOTE_ANCHOR_POINTS_REFERENCE_MODELS(value=len(anchors[0]), n_anchors=n_anchors))
        budget -= n_anchors
    if method in ("random", "anchors"):
        strata = np.zeros(N, dtype=np.int64)
        n_h = np.array([budget])
    else:
        if n_bins is not None and (isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer))):
            raise ArgumentTypeError(words('`{arg:n_bins}` must be a positive integer; got {n_bins!r}.', n_bins=n_bins))
        T = len(pop.tasks)
        if n_bins is None:
            n_bins = max((b for b in range(1, MAX_BINS + 1) if 2 * T * b <= budget), default=0)
            if n_bins == 0:
                task_codes = np.zeros(N, dtype=np.int64)
                n_bins = max(1, min(MAX_BINS, budget // 2))
                notes.append(NOTE_BUDGET_CANNOT_GIVE_ITEMS(budget=budget, t=T, n_bins=n_bins))
        n_bins = check_positive_int(n_bins, "n_bins")
        strata = difficulty_strata(task_codes, pop.reference_mean(), n_bins)
        H = int(strata.max()) + 1
        sizes = np.bincount(strata, minlength=H)
        n_h = neyman_allocation(sizes, _stratum_sd(pop.scores, strata, H), budget)
    H = len(n_h)
    sizes = np.bincount(strata, minlength=H)
    picked = draw(strata, n_h, gen)
    prob = (n_h / sizes)[strata[picked]]
    tasks = np.asarray(pop.tasks, dtype=object)
    frame = pd.DataFrame({"task": tasks[pop.task_codes[picked]], "item": np.asarray(pop.items, dtype=object)[picked],
                          "inclusion_prob": prob, "stratum": strata[picked], "order": np.arange(1, budget + 1)})
    if anchors is not None:
        frame = _with_anchors(frame, picked, anchors, pop, gen)
        notes.append(NOTE_ANCHOR_POINTS_NOT_RANDOM())
    first_task = np.array([pop.task_codes[np.argmax(strata == h)] for h in range(H)])
    one_task = np.array([len(np.unique(pop.task_codes[strata == h])) == 1 for h in range(H)])
    sd = _stratum_sd(pop.scores, strata, H)
    table = pd.DataFrame({"stratum": np.arange(H),
                          "task": np.where(one_task, tasks[first_task], "(several)"),
                          "n_items": sizes, "n_chosen": n_h, "sd": sd})
    return SubsetChoice(method, len(frame), N, frame, table, tuple(notes), pop.source)


def _with_anchors(frame, picked, anchors, pop, gen) -> pd.DataFrame:
    """The random sample's rows and the anchors' (``anchor_weight``), items in both once, in a random order."""
    apos, weight = anchors
    wmap = pd.Series(weight, index=apos)
    frame = frame.assign(anchor_weight=wmap.reindex(picked).to_numpy())
    extra = np.setdiff1d(apos, picked)
    tasks = np.asarray(pop.tasks, dtype=object)
    more = pd.DataFrame({"task": tasks[pop.task_codes[extra]], "item": np.asarray(pop.items, dtype=object)[extra],
                         "inclusion_prob": np.nan, "stratum": pd.array([pd.NA] * len(extra), dtype="Int64"),
                         "order": 0, "anchor_weight": wmap.reindex(extra).to_numpy()})
    out = pd.concat([frame.astype({"stratum": "Int64"}), more], ignore_index=True)
    out = out.iloc[gen.permutation(len(out))].reset_index(drop=True)
    out["order"] = np.arange(1, len(out) + 1)
    return out
