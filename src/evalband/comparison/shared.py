"""Pairs compared on the items both models have, when no item is shared by every model.

A sparse design (each model run on part of the test set, or on overlapping subsets) can leave no item that every
model has, while each pair of models shares many. :func:`~evalband.comparison.compare` then compares every pair on
the items both models have (per task; an aggregate over the tasks on which both have items), each pair from its
own paired bootstrap, and puts the pairs in one family for the correction: the intervals of 'bonferroni' and
'holm' are at ``1 - alpha / P`` for the ``P`` pairs compared (as with common items), the adjusted p-values are
the family's own. 'bh' and 'max-t' need one replicate set for the family: Bonferroni is used instead (it controls
the family-wise error rate, hence the false discovery rate too), with a note. The counts are in the output
(``n_units`` per pair: the items, or clusters, both models have), and a note says that the pairs rest on
different items, so their differences are not on one common test set (and no ranking is made from them).

Each pair's random stream is keyed by the two models' names (:mod:`evalband._random`), so a pair's numbers do not
depend on the other models or on their order.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from .._lists import and_names
from .._random import block_generator, name_key, run_entropy
from .._validate import InputError, as_generator
from ..estimation.confidence import ConfidenceInterval
from ..selection import missing_tasks, pair_items
from ..data.table import COVERAGE_UNSHARED
from .pairwise import PairwiseComparison, adjusted
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["needs_pairs", "compare_pairs", "PairReplicateSets", "lacks_tasks", "pair_tasks"]

#: corrections that a family of pairs compared one at a time can apply (the others fall back to Bonferroni)
PAIR_CORRECTIONS = ("none", "bonferroni", "holm")


@displayed


@dataclass(frozen=True, repr=False)
class PairReplicateSets:
    """The replicate sets behind a comparison on shared items: one per pair compared, each on its own items.

    Attributes
    ----------
    pairs : tuple of (str, str)
    sets : tuple of ReplicateSet
        The replicate set of each pair (its two models, the tasks on which both have items).
    n_resamples : int
    resampling : str
        'paired' (each pair on the items both models have).
    notes : tuple of str
    """

    pairs: tuple
    sets: tuple
    n_resamples: int
    resampling: str = "paired"
    notes: tuple = ()

    def __repr__(self) -> str:
        return (f"PairReplicateSets({len(self.pairs)} pairs, each on its shared items; {self.n_resamples:,}"
                " replicates each)")


def needs_pairs(sel, *, resampling: str, ppi: str) -> bool:
    """Whether a comparison of ``sel`` must compare pairs on their shared items: paired item-level data of at
    least three models on which no task keeps an item that every model has (each pair may still share items)."""
    table = sel.table
    if getattr(table, "level", None) != "item" or not table.paired_items or resampling == "independent" \
            or len(sel.models) < 3 or not sel.tasks:
        return False
    from ..selection.judgements import uses_ppi  # human labels: every item counts, nothing is left out

    if uses_ppi(table, ppi):
        return False
    lacking = missing_tasks(table, shared_items=True)
    return all(t in lacking for t in sel.tasks)


NOTE_NOT_COMPARED_NO_TASK = NoteKind('comparison.not-compared-no-task', 'excluded',
                                      'not compared, no task in common: {value}')
NOTE_NOT_COMPARED_NO_ITEM = NoteKind('comparison.not-compared-no-item', 'excluded',
                                      'not compared, no item in common: {value}')
NOTE_AGGREGATES_PAIR_OVER_TASKS = NoteKind(
    'comparison.aggregates-pair-over-tasks', 'info',
    'aggregates of {n_fewer} pair{value} are over the tasks on which both models have items: {value2}{value3}')
NOTE_CORRECTION_NEEDS_ONE_REPLICATE = NoteKind(
    'comparison.correction-needs-one-replicate', 'info',
    'correction {correction!r} needs one replicate set for the family; pairs on their own items have one each: '
    'Bonferroni is used instead (it controls the family-wise error rate)')


def lacks_tasks(sel) -> bool:
    """Whether some selected model of ``sel`` has no result on some selected task (``missing='common'`` then
    compares pair by pair)."""
    lacking = missing_tasks(sel.table, shared_items=False)
    return any(t in lacking for t in sel.tasks)


def pair_tasks(sel) -> np.ndarray:
    """(models x models) counts of the selected tasks on which both models have results (diagonal: each model's
    tasks)."""
    counts = pair_items(sel.table)
    return sum((counts[t] > 0).astype(np.int64) for t in sel.tasks)


NOTE_NOT_COMPARED = NoteKind("comparison.not-compared", "excluded", "not compared: {pairs}{more}")


def compare_pairs(sel, compare, *, correction: str, per_task, permutation: bool, rng, common_tasks: bool = False,
                  **options):
    """:func:`~evalband.comparison.compare` of every pair of ``sel``'s models on the items both have (see the
    module notes); ``compare`` is that function, ``options`` its other arguments. With ``common_tasks``
    (``missing='common'``) each pair is compared on the tasks both models have results on."""
    from .comparison import PER_TASK_ROWS, Comparison

    models = tuple(sel.models)
    counts = pair_items(sel.table)
    named = sel._spec.get("tasks")
    pairs = []
    for i in range(len(models)):
        for j in range(i + 1, len(models)):
            shared = [t for t in sel.tasks if counts[t][i, j] > 0]
            pairs.append((models[i], models[j], shared))
    comparable = [p for p in pairs if p[2]]
    if not comparable:
        raise InputError(f"no two of the {len(models)} selected models share an item on any task; nothing can be"
                         " compared", source=sel.table.source)
    used = correction if correction in PAIR_CORRECTIONS else "bonferroni"
    family = {"aggregate": len(comparable),
              "tasks": {t: sum(t in p[2] for p in comparable) for t in sel.tasks}}
    if isinstance(per_task, str) and per_task == "auto":
        rows = sum(family["tasks"].values())
        per_task = bool(permutation) or rows <= PER_TASK_ROWS
    entropy = run_entropy(as_generator(rng))
    subs, not_compared = [], []
    for a, b, shared in comparable:
        tasks = None if named is None else [t for t in sel.tasks if t in shared]
        key = tuple(sorted((name_key(a), name_key(b))))
        try:
            sub = compare(sel, models=[a, b], tasks=tasks, correction=used, per_task=per_task,
                          permutation=permutation, rng=block_generator(entropy, (0x5A12ED,) + key),
                          _family=family if used != "none" else None, **options)
        except InputError as exc:  # e.g. task weights on a task the pair cannot be compared on
            not_compared.append(f"{a} vs {b} ({exc.problem})")
            continue
        subs.append(sub)
    if not subs:
        raise InputError(f"no pair of the selected models could be compared on shared items: "
                         f"{'; '.join(not_compared[:3])}", source=sel.table.source)
    position = {m: k for k, m in enumerate(models)}
    aggregates = tuple(_family_of([s.aggregates[k] for s in subs], [s.models for s in subs], position, used)
                       for k in range(len(subs[0].aggregates)))
    task_results = []
    for t in sel.tasks:
        parts = [(pc, s.models) for s in subs for pc in s.tasks if pc.statistic == t]
        if parts:
            task_results.append(_family_of([p for p, _ in parts], [m for _, m in parts], position, used))
    none_share = [f"{a} vs {b}" for a, b, shared in pairs if not shared]
    if common_tasks:
        notes = [words("{arg:missing='common'}: each pair is compared on the tasks both models have ({n_subs} of"
                       " {n_pairs} pairs; n_tasks gives each pair's count), from its own bootstrap; pairs rest on"
                       " different tasks, so their differences are not on one common set of tasks",
                       n_subs=len(subs), n_pairs=len(pairs))]
    else:
        notes = [f"no item is shared by all {len(models)} models: each pair is compared on the items both have"
                 f" ({len(subs)} of {len(pairs)} pairs; n_units gives each pair's count), from its own paired"
                 " bootstrap; pairs rest on different items, so their differences are not on one common test set"]
    if none_share:
        kind = NOTE_NOT_COMPARED_NO_TASK if common_tasks else NOTE_NOT_COMPARED_NO_ITEM
        notes.append(kind(value=and_names(none_share, limit=8, noun='pairs')))
    if not_compared:
        notes.append(NOTE_NOT_COMPARED(pairs="; ".join(not_compared[:5]), more=" ..." if len(not_compared) > 5 else ""))
    fewer = [f"{a} vs {b} ({len(shared)} of {len(sel.tasks)})" for a, b, shared in comparable
             if len(shared) < len(sel.tasks)]
    if fewer and len(sel.tasks) > 1 and not common_tasks:
        notes.append(NOTE_AGGREGATES_PAIR_OVER_TASKS(n_fewer=len(fewer), value='s' if len(fewer) > 1 else '', value2=', '.join(fewer[:8]), value3=' ...' if len(fewer) > 8 else ''))
    if used != correction:
        notes.append(NOTE_CORRECTION_NEEDS_ONE_REPLICATE(correction=correction))
    left = {t: () for t in sel.tasks if not any(t in p[2] for p in comparable)}
    for s in subs:  # each pair's own notes, but what its selection left out (said above for the family) and the
        own = set(s.selection.notes) if s.selection is not None else set()  # table's note on unshared items
        notes += [n for n in s.notes if n not in own and getattr(n, "code", None) != COVERAGE_UNSHARED.code]
    replicates = PairReplicateSets(tuple((s.models[0], s.models[1]) for s in subs), tuple(s.replicates for s in subs),
                                   int(subs[0].replicates.n_resamples))
    return Comparison(models, aggregates, tuple(task_results), (), replicates, True, tuple(dict.fromkeys(notes)),
                      left, sel, (), on_shared_items=not common_tasks,
                      pair_tasks=pair_tasks(sel) if common_tasks else None)


def _family_of(parts, part_models, position, correction) -> PairwiseComparison:
    """The pairs of ``parts`` (each compared on its own items) as one family: fields stacked, model positions
    those of the whole comparison, adjusted p-values the family's own."""
    values = {}
    for f in fields(PairwiseComparison):
        got = [getattr(p, f.name) for p in parts]
        first = got[0]
        if f.name in ("index_a", "index_b"):
            values[f.name] = np.array([position[names[k]] for p, names in zip(parts, part_models)
                                       for k in getattr(p, f.name)], dtype=np.int64)
        elif isinstance(first, ConfidenceInterval):
            values[f.name] = ConfidenceInterval(np.concatenate([np.atleast_1d(g.low) for g in got]),
                                                np.concatenate([np.atleast_1d(g.high) for g in got]))
        elif isinstance(first, tuple) or (first is None and f.name in ("verdict_basis", "verdict_detail")):
            values[f.name] = None if any(g is None for g in got) else tuple(x for g in got for x in g)
        elif isinstance(first, np.ndarray) or f.name in ("replicate_correlation", "n_units"):
            if any(g is None for g in got):
                values[f.name] = None
            else:
                values[f.name] = np.concatenate(got, axis=1 if f.name == "replicates" else 0)
        else:
            values[f.name] = first
    out = PairwiseComparison(**values)
    p_adj = adjusted(out.p_value, correction)
    return replace(out, p_adjusted=np.where(np.isfinite(out.p_value), p_adj, np.nan))
