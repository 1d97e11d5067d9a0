"""The replicate set: one bootstrap sample of every per-task statistic, shared by all later stages."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._kernels import block_generator, name_key
from ..display.reprs import displayed

__all__ = ["ReplicateSet", "Replicates", "TaskUnits", "CountUnits", "JACKKNIFE_MAX_BYTES"]

#: above this size (bytes of the (n_jack, M, T) array) :meth:`Replicates.jackknife` deletes random groups of units
JACKKNIFE_MAX_BYTES = 128 * 2**20


@displayed
@dataclass(frozen=True, repr=False)
class TaskUnits:
    """One task's resampling units: per-unit sufficient sums ``X`` (M, K, k), unit sizes (K,), the finish."""

    task: str
    X: np.ndarray
    sizes: np.ndarray
    finish: object

    @property
    def n_units(self) -> int:
        return self.X.shape[1]

    def observed(self) -> np.ndarray:
        return self.finish(self.X.sum(axis=1), np.array([self.sizes.sum()]))

    @staticmethod
    def group_plan(n_units: int, g: int, gen) -> np.ndarray:
        """The group (0 .. g-1) of each of ``n_units`` units: a random permutation dealt into ``g`` groups."""
        groups = np.empty(n_units, dtype=np.int64)
        groups[gen.permutation(n_units)] = np.arange(n_units) % g
        return groups

    def group_counts(self, g: int, gen) -> np.ndarray:
        return self.group_plan(self.n_units, g, gen)

    def n_groups(self, g: int) -> int:
        return g

    def delete_groups(self, groups: np.ndarray | None) -> np.ndarray:
        """Statistic with each unit (``groups`` None) or each group of units deleted: (n_rows, M)."""
        total_x = self.X.sum(axis=1)  # (M, k)
        total_n = self.sizes.sum()
        if groups is None:
            gx = np.moveaxis(self.X, 1, 0)  # (K, M, k)
            gn = self.sizes
        else:
            n_groups = int(groups.max()) + 1
            gx = np.zeros((n_groups,) + total_x.shape)
            np.add.at(gx, groups, np.moveaxis(self.X, 1, 0))
            gn = np.bincount(groups, weights=self.sizes, minlength=n_groups)
        return self.finish(total_x[None] - gx, (total_n - gn)[:, None])


#: summary units up to this many virtual items per task are grouped exactly as item units are (a permutation of
#: the items, 8 bytes each); beyond it group compositions are drawn without materializing the items
EXACT_GROUPING_MAX = 1 << 22
#: beyond EXACT_GROUPING_MAX items, at most this many delete-groups per task (plenty for the acceleration)
MAX_DRAWN_GROUPS = 1 << 14


@displayed
@dataclass(frozen=True, repr=False)
class CountUnits:
    """One task's summary counts as virtual 0/1 units (``correct[m]`` ones, then zeros, for every model), without
    materializing them: the jackknife deletes items (or random groups of items) in closed form, so memory does not
    grow with the test-set size ``n``. Every model has the same ``n`` (else the jackknife is unavailable).

    The units fall into at most ``M + 1`` runs of identical items: between consecutive sorted counts the item
    pattern (which models have the item right) is constant.
    """

    task: str
    correct: np.ndarray  # (M,) integer counts
    n: int
    finish: object

    @property
    def n_units(self) -> int:
        return int(self.n)

    def n_groups(self, g: int) -> int:
        """Delete-groups to use when the plan allows ``g``: capped beyond :data:`EXACT_GROUPING_MAX` items."""
        return g if self.n <= EXACT_GROUPING_MAX else min(g, MAX_DRAWN_GROUPS)

    def _runs(self) -> tuple[np.ndarray, np.ndarray]:
        """(run lengths (K,), patterns (K, M)): run k covers items [b_k, b_k+1) with pattern[k, m] = item < c_m."""
        bounds = np.unique(np.concatenate([[0], self.correct.astype(np.int64), [self.n]]))
        lengths = np.diff(bounds)
        pattern = (bounds[:-1, None] < self.correct[None, :]).astype(np.float64)
        keep = lengths > 0
        return lengths[keep], pattern[keep]

    def observed(self) -> np.ndarray:
        return self.finish(self.correct.astype(np.float64)[:, None], np.array([float(self.n)]))

    def group_counts(self, g: int, gen) -> np.ndarray:
        """(K runs, g groups) counts of each run's items in each of ``g`` random groups of equal size (sizes
        differing by at most one), distributed as grouping a random permutation of the items
        (:meth:`TaskUnits.group_plan`): exactly so up to :data:`EXACT_GROUPING_MAX` items, by hypergeometric
        splits beyond (normal approximation of each split once both sides exceed 1e9 items)."""
        lengths, _ = self._runs()
        if self.n <= EXACT_GROUPING_MAX:
            groups = TaskUnits.group_plan(self.n, g, gen)
            run = np.repeat(np.arange(lengths.size), lengths)
            return np.bincount(run * g + groups, minlength=lengths.size * g).reshape(lengths.size, g)
        capacity = np.full(g, self.n // g, dtype=np.int64)
        capacity[:self.n % g] += 1
        out = np.zeros((lengths.size, g), dtype=np.int64)
        for k, count in enumerate(lengths):  # runs of identical items (at most M + 1), not items
            out[k] = _split(gen, int(count), capacity)
            capacity = capacity - out[k]
        return out

    def delete_groups(self, groups) -> np.ndarray:
        """Statistic with each item deleted (``groups`` None) or each group deleted (``groups`` the (K, g) counts
        of :meth:`group_counts`): (rows, M)."""
        lengths, pattern = self._runs()
        total_x = self.correct.astype(np.float64)[:, None]  # (M, 1)
        if groups is None:
            gx = np.repeat(pattern, lengths, axis=0)[..., None]  # (n, M, 1): one row per item
            gn = np.ones(int(self.n))
        else:
            gx = (groups.T.astype(np.float64) @ pattern)[..., None]  # (g, M, 1)
            gn = groups.sum(axis=0).astype(np.float64)
        return self.finish(total_x[None] - gx, (float(self.n) - gn)[:, None])


def _hypergeometric(gen, good: np.ndarray, bad: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Hypergeometric draws (good items among ``draws`` taken from ``good + bad``), elementwise; NumPy's exact
    sampler where it applies (both sides below 1e9), a rounded normal approximation beyond."""
    good, bad, draws = (np.asarray(a, dtype=np.int64) for a in (good, bad, draws))
    out = np.zeros(good.shape, dtype=np.int64)
    live = (draws > 0) & (good > 0)
    small = live & (good < 10**9) & (bad < 10**9)
    if small.any():
        out[small] = gen.hypergeometric(good[small], bad[small], draws[small])
    big = live & ~small
    if big.any():
        N = (good[big] + bad[big]).astype(np.float64)
        p = good[big] / N
        d = draws[big].astype(np.float64)
        sd = np.sqrt(d * p * (1 - p) * (N - d) / np.maximum(N - 1, 1))
        x = np.rint(d * p + sd * gen.standard_normal(int(big.sum())))
        out[big] = np.clip(x, np.maximum(0, draws[big] - bad[big]), np.minimum(good[big], draws[big]))
    return out


def _split(gen, count: int, capacity: np.ndarray) -> np.ndarray:
    """Split ``count`` items among groups with free ``capacity`` (g,) as a uniformly random assignment would:
    a binary tree of hypergeometric splits, one vectorized draw per level (log2 g levels)."""
    g = capacity.size
    size = 1 << max(0, (g - 1).bit_length())
    cap = np.zeros(size, dtype=np.int64)
    cap[:g] = capacity
    levels = [cap]
    while levels[-1].size > 1:
        levels.append(levels[-1].reshape(-1, 2).sum(axis=1))
    counts = np.array([count], dtype=np.int64)
    for level in levels[-2::-1]:  # from the children of the root down to the leaves
        left, right = level[0::2], level[1::2]
        to_left = _hypergeometric(gen, left, right, counts)
        counts = np.stack([to_left, counts - to_left], axis=1).reshape(-1)
    return counts[:g]


class ReplicateSet:
    """What every replicate set of evalband has, whatever made it (the protocol the analyses read).

    ``models``, ``tasks``; ``observed`` and ``replicates`` (B, ...); ``resampling`` ('paired', 'independent',
    'binomial'); ``unit`` ('item' or 'cluster', what was resampled); ``n_units``; ``n_resamples``; ``seed``;
    ``notes``; ``statistic``; ``task_groups``; ``jackknife()`` and ``jackknife_strata()`` (None when
    unavailable). :class:`Replicates` (per-task statistics) and :class:`~evalband.resample.ItemReplicates`
    (statistics of resampled item scores) are the two kinds; analyses test ``isinstance(x, ReplicateSet)``.
    """

    __slots__ = ()

    @property
    def se(self) -> np.ndarray:
        """Bootstrap standard deviation of each observed value."""
        return self.replicates.std(axis=0, ddof=1)

    def jackknife(self):  # pragma: no cover - every kind defines it
        return None

    def jackknife_strata(self):  # pragma: no cover - every kind defines it
        return None


@displayed
@dataclass(frozen=True, repr=False)
class Replicates(ReplicateSet):
    """Bootstrap replicates of a per-task statistic for every model and task.

    Attributes
    ----------
    models, tasks : tuple of str
    observed : numpy.ndarray, shape (M, T)
        The per-task statistic on the data (item mean by default).
    replicates : numpy.ndarray, shape (B, M, T)
        The same statistic on each bootstrap replicate (float64).
    resampling : {'paired', 'independent', 'binomial'}
        'paired': the same items (clusters) drawn for every model; 'independent': each model drawn on its own;
        'binomial': summary counts, a binomial draw per model and task (necessarily independent).
    unit : {'item', 'cluster'}
    n_resamples : int
    n_units : numpy.ndarray, shape (T,)
        Items (or clusters) resampled per task.
    task_groups : dict or None
    seed : int or None
        The integer seed given, for reports (None when a Generator or nothing was given).
    notes : tuple of str
    statistic : str
        Name of the per-task statistic.

    Notes
    -----
    Every statistic of a run (per-task values, aggregates, differences, ranks) should be computed from this one
    replicate set, so that they agree with each other: ``agg(reps.replicates)`` is (B, M) and ``agg(reps.observed)``
    is (M,).
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    observed: np.ndarray
    replicates: np.ndarray
    resampling: str
    unit: str
    n_resamples: int
    n_units: np.ndarray
    task_groups: dict | None = None
    seed: int | None = None
    notes: tuple[str, ...] = ()
    statistic: str = "mean"
    _units: tuple | None = field(default=None, repr=False, compare=False)
    _entropy: object = field(default=None, repr=False, compare=False)
    cells: object = field(default=None, repr=False, compare=False)
    """:class:`~evalband.resample.floors.CellCounts`: the items behind each per-task mean of scores in [0, 1]
    (None for other statistics), which the floor of per-model and per-task intervals reads."""
    heavy_tails: bool = False
    """The replicates are a t scale mixture (the small-sample wild bootstrap of few facet levels or clusters):
    their standard deviation is unstable (infinite on 2 degrees of freedom), so standard errors are read from
    their central spread (:func:`~evalband.resample.central_se`) and the standard deviation is given beside."""
    facets: tuple = ()
    """Random facets whose levels the replicates resample (crossed bootstrap)."""

    @property
    def se(self) -> np.ndarray:
        """Standard error of each observed value: the bootstrap SD, or the central spread of heavy-tailed
        replicates (:attr:`heavy_tails`)."""
        if self.heavy_tails:
            from .intervals import central_se

            return central_se(self.replicates)
        return self.replicates.std(axis=0, ddof=1)

    # ------------------------------------------------------------------ views
    def to_frame(self) -> pd.DataFrame:
        """Tidy frame: model, task, estimate, se (bootstrap SD), n (units resampled)."""
        m, t = len(self.models), len(self.tasks)
        return pd.DataFrame({
            "model": np.repeat(self.models, t),
            "task": np.tile(self.tasks, m),
            "estimate": self.observed.ravel(),
            "se": self.se.ravel(),
            "n": np.tile(self.n_units, m),
        })

    def model_index(self, model: str) -> int:
        return self.models.index(model)

    def subset(self, models=None, tasks=None) -> "Replicates":
        """The replicates of some models and tasks (positions or names), in the order given."""
        from dataclasses import replace

        mi = list(range(len(self.models))) if models is None else [
            m if isinstance(m, (int, np.integer)) else self.models.index(m) for m in models]
        ti = list(range(len(self.tasks))) if tasks is None else [
            t if isinstance(t, (int, np.integer)) else self.tasks.index(t) for t in tasks]
        if mi == list(range(len(self.models))) and ti == list(range(len(self.tasks))):
            return self
        names = tuple(self.tasks[k] for k in ti)
        groups = None if self.task_groups is None else {k: self.task_groups[k] for k in names}
        units = None if self._units is None or ti != list(range(len(self.tasks))) else self._units
        return replace(self, models=tuple(self.models[k] for k in mi), tasks=names,
                       observed=self.observed[np.ix_(mi, ti)], replicates=self.replicates[:, mi][:, :, ti],
                       n_units=np.asarray(self.n_units)[ti], task_groups=groups,
                       cells=None if self.cells is None else self.cells.take(mi, ti),
                       _units=None if units is None else tuple(
                           type(u)(u.task, u.X[mi], u.sizes, u.finish) for u in units))

    def __repr__(self) -> str:
        b, m, t = self.replicates.shape
        return (f"Replicates({self.resampling} resampling of {self.unit}s: {b:,} replicates x {m} models x {t}"
                f" tasks; statistic {self.statistic!r}; seed {self.seed})")

    # ------------------------------------------------------------------ jackknife
    def _jack_plan(self):
        if self._units is None:
            return None
        m, t = len(self.models), len(self.tasks)
        total = int(sum(u.n_units for u in self._units))
        limit = max(2 * t, JACKKNIFE_MAX_BYTES // (8 * m * t))
        plan = []
        for u in self._units:
            if total <= limit:
                plan.append(None)
                continue
            g = u.n_groups(max(2, min(u.n_units, int(u.n_units * limit / total))))
            gen = block_generator(self._entropy, (name_key(u.task), 0xFFFFFFFF))
            plan.append((g, u.group_counts(g, gen)))
        return plan

    def jackknife(self) -> np.ndarray | None:
        """Delete-one jackknife values of the per-task statistic, (n_jack, M, T), for BCa; None if unavailable.

        Row ``j`` deletes one unit (item, or cluster when ``unit == 'cluster'``) of one task and keeps every other
        task at its observed value; rows are grouped by task (see :meth:`jackknife_strata`). For item means the
        value is closed-form, ``(n * mean - x_i) / (n - 1)``.

        Notes
        -----
        When the array would exceed :data:`JACKKNIFE_MAX_BYTES`, each task's units are split into random groups
        (fixed by the run's seed) and one group is deleted per row; the acceleration computed from such
        delete-group values is consistent for smooth statistics (Efron & Tibshirani 1993, section 11.5). Rows
        delete a unit from every model at once (the paired jackknife). Summary input gives one row per virtual 0/1
        item when every model has the same test-set size in a task, and None otherwise.
        """
        plan = self._jack_plan()
        if plan is None:
            return None
        blocks = []
        for t, (u, groups) in enumerate(zip(self._units, plan)):
            vals = u.delete_groups(None if groups is None else groups[1])  # (rows, M)
            block = np.broadcast_to(self.observed, (vals.shape[0],) + self.observed.shape).copy()
            block[:, :, t] = vals
            blocks.append(block)
        return np.concatenate(blocks, axis=0)

    def jackknife_strata(self) -> np.ndarray | None:
        """Task index of each row of :meth:`jackknife`, (n_jack,): pass it to ``interval(jackknife_strata=)``."""
        plan = self._jack_plan()
        if plan is None:
            return None
        sizes = [u.n_units if g is None else g[0] for u, g in zip(self._units, plan)]
        return np.repeat(np.arange(len(self.tasks)), sizes)
