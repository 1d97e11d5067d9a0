"""The seeded bootstrap of battles: whole clusters (questions, judges) resampled, streams keyed by names.

A replicate draws the resampling units (clusters of battles) with replacement and keeps every battle of a drawn
unit, as many times as the unit was drawn. Units are sorted by name (or, for independent battles, put in an order
that depends only on their content), and the counts of each block of replicates come from the stream
``SFC64(SeedSequence(entropy, spawn_key=(crc32(name), block)))`` with a block size fixed by the number of units, so
the replicates do not depend on the order of the rows or on how the work is split. Models that share every unit
(e.g. two copies of one model judged on the same questions) are resampled together and get identical intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._random import block_generator, name_key
from ._kernels import draw_counts
from ..data.battles import LABELS, BattleTable
from ..display.reprs import displayed
from .._validate import ArgumentError, ArgumentTypeError
from ..display.notes import NoteKind
from .._words import words

__all__ = ["CLUSTERS", "Units", "resampling_units", "unit_column", "ClusterBootstrap", "block_size", "MIN_CLUSTERS"]

#: values of ``cluster`` besides a label column's name
CLUSTERS = ("auto", "none")
#: replicates per random block at most, and draws per block (replicates x units) above which it shrinks
MAX_BLOCK = 1000
BLOCK_ELEMENTS = 4_000_000
#: fewer clusters than this and the cluster bootstrap understates the uncertainty
MIN_CLUSTERS = 20


def block_size(n_units: int) -> int:
    """Replicates per random block (fixed by the number of units alone, never by how the work is split)."""
    return int(max(1, min(MAX_BLOCK, BLOCK_ELEMENTS // max(1, int(n_units)))))


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class Units:
    """The resampling unit of every battle.

    Attributes
    ----------
    codes : numpy.ndarray of int, shape (n,)
        Unit of each battle, in ``[0, n_units)``.
    names : numpy.ndarray or None
        Sorted unit names (None for independent battles).
    column : str or None
        The label column clustered on ('question', 'judge', 'cluster'); None for independent battles.
    n_units : int
    notes : tuple of str
    """

    codes: np.ndarray
    names: np.ndarray | None
    column: str | None
    n_units: int
    notes: tuple = ()

    @property
    def unit_name(self) -> str:
        """How the units are called in readings ('questions', 'judges', 'clusters', 'battles')."""
        return {"question": "questions", "judge": "judges", "cluster": "clusters", "turn": "turns",
                None: "battles"}[self.column]


NOTE_ONLY_CLUSTER_BOOTSTRAP_UNDERSTATES = NoteKind(
    'resample.only-cluster-bootstrap-understates', 'caveat',
    'only {k} {unit}: the cluster bootstrap understates the uncertainty with fewer than about {min_clusters} '
    'clusters')
NOTE_BATTLES_RESAMPLED_QUESTION_JUDGES = NoteKind(
    'resample.battles-resampled-question-judges', 'caveat',
    "battles resampled by question; judges who rated several questions are not resampled as a unit "
    "({arg:cluster='judge'} resamples them instead)")
NOTE_NO_QUESTION_OR_CLUSTER = NoteKind(
    'resample.no-question-or-cluster', 'caveat',
    'no question or cluster labels: battles resampled as if independent, which understates the uncertainty when '
    'battles share a prompt')


def resampling_units(table: BattleTable, cluster="auto") -> Units:
    """The resampling units for ``cluster``.

    Parameters
    ----------
    table : BattleTable or BattleCounts
    cluster : str or None
        'auto' (the default): the table's 'cluster' labels if it has them, else its questions, else independent
        battles; 'none' or None: independent battles; 'question', 'judge', 'cluster': that label column.

    Returns
    -------
    Units

    Examples
    --------
    >>> t = BattleTable.build(["x", "y", "x"], ["y", "x", "y"], [1.0, 0.0, 1.0],
    ...                       labels={"question": ["q2", "q1", "q2"]})
    >>> u = resampling_units(t)
    >>> u.column, u.n_units, u.codes.tolist()
    ('question', 2, [1, 0, 1])
    """
    key = unit_column(table, cluster)
    notes = []
    if key == "none" and str(cluster).strip().lower() == "auto":
        notes.append(NOTE_NO_QUESTION_OR_CLUSTER())
    if key == "none":
        order = table.canonical_order()
        codes = np.empty(table.n_battles, dtype=np.int64)
        codes[order] = np.arange(table.n_battles)
        return Units(codes, None, None, table.n_battles, tuple(notes))
    if key not in LABELS or key not in table.labels:
        have = [k for k in LABELS if k in table.labels]
        raise ArgumentError(f"`cluster`: the battles have no {cluster!r} labels; valid: 'auto', 'none'"
                         + (f", {', '.join(map(repr, have))}" if have else "") + ".")
    codes, names = table.label_codes(key)
    k = names.size
    unit = {"question": "question", "judge": "judge"}.get(key, "cluster") + ("s" if k != 1 else "")
    if k < MIN_CLUSTERS:
        notes.append(NOTE_ONLY_CLUSTER_BOOTSTRAP_UNDERSTATES(k=k, unit=unit, min_clusters=MIN_CLUSTERS))
    if key == "question" and "judge" in table.labels and _judges_span_questions(table):
        notes.append(NOTE_BATTLES_RESAMPLED_QUESTION_JUDGES())
    return Units(codes, names, key, int(k), tuple(notes))


def unit_column(table, cluster="auto") -> str:
    """The label column ``cluster`` resamples by ('question', 'judge', 'cluster', 'turn'), or 'none' for
    independent battles (aliases and 'auto' resolved as :func:`resampling_units` does).

    Examples
    --------
    >>> t = BattleTable.build(["x", "y"], ["y", "x"], [1.0, 0.0], labels={"question": ["q1", "q2"]})
    >>> unit_column(t), unit_column(t, "prompt"), unit_column(t, None)
    ('question', 'question', 'none')
    """
    if cluster is None:
        cluster = "none"
    if not isinstance(cluster, str):
        raise ArgumentTypeError(words("`{arg:cluster}` must be 'auto', 'none' or a label column name; got {cluster!r}.", cluster=cluster))
    key = cluster.strip().lower()
    if key in ("question_id", "prompt", "questions"):
        key = "question"
    if key in ("worker", "annotator", "judges"):
        key = "judge"
    if key == "auto":
        key = "cluster" if "cluster" in table.labels else "question" if "question" in table.labels else "none"
    return key


def _judges_span_questions(table) -> bool:
    """Whether several judges each rated more than one question (so judges link questions)."""
    jc, judges = table.label_codes("judge")
    if judges.size < 2:
        return False
    qc = table.label_codes("question")[0]
    pairs = np.unique(jc.astype(np.int64) * (qc.max() + 1) + qc)
    return bool((np.bincount(pairs // (qc.max() + 1)) > 1).sum() > 1)


@displayed


@dataclass(frozen=True, eq=False, repr=False)
class ClusterBootstrap:
    """Bootstrap counts of the units, block by block, from streams keyed by name and block.

    Attributes
    ----------
    units : Units
    n_resamples : int
    entropy : tuple of int
        The run's entropy (:func:`evalband._random.run_entropy`).
    """

    units: Units
    n_resamples: int
    entropy: tuple

    @property
    def block(self) -> int:
        return block_size(self.units.n_units)

    @property
    def n_blocks(self) -> int:
        return math.ceil(self.n_resamples / self.block)

    @property
    def key(self) -> int:
        return name_key(f"preferences:{self.units.column or 'battle'}")

    def counts(self, b: int) -> np.ndarray:
        """Counts of block ``b``: ``(c, K)`` float64, how often each unit is drawn in each replicate."""
        c = min(self.block, self.n_resamples - b * self.block)
        gen = block_generator(self.entropy, (self.key, b))
        return draw_counts(gen, self.units.n_units, c, np.float64)

    def generator(self, b: int, purpose: str) -> np.random.Generator:
        """A second stream of block ``b`` for another purpose (e.g. the order of battles for online Elo)."""
        return block_generator(self.entropy, (self.key, b, name_key(purpose)))

    def blocks(self):
        """Yield ``(first replicate, counts (c, K))`` for every block."""
        for b in range(self.n_blocks):
            yield b * self.block, self.counts(b)
