"""The default replicate set of analyses over tasks when the data have facets or few clusters.

:func:`default_replicates` is the one dispatch behind ``compare``, ``rank`` and ``report`` (through
:func:`evalband.resample.replicates_for` and :func:`evalband.analyze`): every later statistic is computed on the
replicates it returns, unchanged.

* Facet columns (prompt, judge, run, ...) that are crossed with items and not ``fixed`` are random: the replicates
  are the crossed wild bootstrap (:func:`crossed_bootstrap`), which resamples items (or clusters) and facet levels
  independently, paired across models, so intervals generalize to new prompts as well as to new items.
* Few clusters: when the items come in clusters and the Bell-McCaffrey degrees of freedom of the mean over tasks
  are below :data:`SMALL_CLUSTER_DF`, the replicates are the wild cluster bootstrap with CR2 rescaling and a
  t scale mixture (the same function, no facet), whose percentile intervals are the CR2 t intervals of linear
  aggregates; the percentile cluster bootstrap under-covers there (0.90 with 10 clusters).
* Otherwise None: the engine's paired bootstrap (:func:`evalband.resample.bootstrap`), as before.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._validate import ArgumentError
from .crossed import CROSSED_BOOTSTRAP, SMALL_SAMPLE, SMALL_SAMPLE_POOLED, crossed_bootstrap
from ..selection.facet_design import facet_table
from ..estimation.small_clusters import bell_mccaffrey_df
from ..selection.facet_design import check_fixed, random_facets  # noqa: F401
from .._words import words
from ..display.notes import NoteKind

__all__ = ["SMALL_CLUSTER_DF", "BCA_FEW_CLUSTERS_NOTE", "check_fixed", "cluster_df", "default_replicates", "few_clusters",
           "random_facets"]

#: below these Bell-McCaffrey degrees of freedom of the mean over tasks (about 30 equal clusters in all), the
#: default replicates of clustered data are the small-sample wild cluster bootstrap
SMALL_CLUSTER_DF = 30.0


def cluster_df(data) -> float:
    """Bell-McCaffrey degrees of freedom of the CR2 variance of the equally weighted mean over tasks, from the
    cluster sizes of the items every model has (``inf`` without clusters).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evalband.facets import cluster_df
    >>> df = pd.DataFrame({"model": "m", "task": "t", "item": np.arange(60), "cluster": np.arange(60) // 10,
    ...                    "score": np.random.default_rng(0).integers(0, 2, 60)})
    >>> round(cluster_df(df), 2)
    5.0
    """
    table = facet_table(data)
    if table.level != "item" or not table.has_clusters:
        return float("inf")
    shares, strata, sizes = [], [], []
    for k, task in enumerate(table.tasks):
        td = table.task_data(task)
        counts = np.bincount(np.unique(np.asarray(td.clusters), return_inverse=True)[1].reshape(-1))
        counts = counts[counts > 0]
        shares.append(counts / counts.sum())
        strata.append(np.full(counts.size, k))
        sizes.append(float(counts.sum()))
    return float(bell_mccaffrey_df(np.concatenate(shares), np.concatenate(strata), None, np.array(sizes)))


def few_clusters(data, *, cluster=None) -> bool:
    """Whether the default analysis would take the small-sample wild cluster bootstrap: item-level data with
    clusters (not ignored with ``cluster=False``) whose Bell-McCaffrey degrees of freedom for the mean over tasks
    fall below :data:`SMALL_CLUSTER_DF`."""
    table = facet_table(data)
    if table.level != "item" or not table.has_clusters or cluster is False:
        return False
    return bool(cluster_df(table) < SMALL_CLUSTER_DF)


#: the crossed bootstrap's own notes, replaced by the few-clusters note when it stands in for the cluster bootstrap
_WILD_CODES = (SMALL_SAMPLE.code, SMALL_SAMPLE_POOLED.code)


def _wild(note) -> bool:
    code = getattr(note, "code", None)
    return code in _WILD_CODES or (code == CROSSED_BOOTSTRAP.code and note.params["scheme"] == "wild multiplier")


#: said when BCa intervals are asked for with few clusters (the wild replicates have no jackknife)
BCA_FEW_CLUSTERS_NOTE = ("few clusters: BCa intervals need the jackknife of the ordinary cluster bootstrap, so the"
                         " small-cluster correction of the default percentile intervals is not applied; with few"
                         " clusters the cluster bootstrap under-covers (percentile intervals, the default, keep"
                         " their level)")


NOTE_FACETS_RANDOM = NoteKind(
    "resample.facets-random", "info", "facet{s} {facets} random (the default): replicates resample {units} and the"
    " levels of {facets} independently, so intervals generalize to new levels; `{arg:fixed}` conditions on the"
    " levels used")


def default_replicates(data, *, fixed=None, cluster=None, n_resamples: int = 10_000, rng=None,
                       jackknife: bool = False):
    """The replicate set a default analysis draws when facets or few clusters call for it, else None.

    Parameters
    ----------
    data : Selection or ResultsTable
        The selection of the analysis (item level, items paired across models).
    fixed : str, sequence of str, True or None
        Facets to condition on (True: every facet). Default: every facet crossed with items is random.
    cluster : bool or None
        As for :func:`evalband.resample.bootstrap`: None uses the table's clusters, False ignores them.
    n_resamples : int
    rng : seed or Generator
    jackknife : bool
        The analysis needs the delete-one values of an ordinary bootstrap (BCa intervals). The wild replicates
        have none: with random facets that is an error naming the way out; with few clusters the engine's cluster
        bootstrap is used (None is returned) and :data:`BCA_FEW_CLUSTERS_NOTE` says the correction is not applied.

    Returns
    -------
    Replicates or None
        The crossed wild bootstrap (random facets), the small-sample wild cluster bootstrap (few clusters), or
        None: the engine's bootstrap applies unchanged.

    Notes
    -----
    The threshold for few clusters is on the degrees of freedom of the aggregate's reference, not on the clusters
    of one task: MMLU-Pro's 91 sub-sources in 14 categories (3 to 11 per category) give 39, so it keeps the
    engine's bootstrap, while one task of 10 or 20 clusters (9 or 19) takes the corrected replicates. In the
    simulation of ``tests/facets/test_defaults.py`` (paired differences, 300 datasets of G clusters of 20 binary
    items) the default then covers 0.943, 0.957 and 0.947 at G = 5, 10 and 20, where the percentile cluster
    bootstrap covers 0.827, 0.903 and 0.927, and is the engine's bootstrap (0.947) at G = 50.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from evalband.facets import default_replicates
    >>> df = pd.DataFrame({"model": np.repeat(["a", "b"], 40), "task": "t", "item": np.tile(np.repeat(range(10), 4), 2),
    ...                    "prompt": np.tile(list("wxyz"), 20), "score": np.tile([1, 0, 1, 1, 0], 16)})
    >>> reps = default_replicates(df, n_resamples=200, rng=0)
    >>> reps.replicates.shape, default_replicates(df, fixed="prompt") is None
    ((200, 2, 1), True)
    """
    table = facet_table(data)
    if table.level != "item":
        return None
    fixed = check_fixed(table, fixed)
    facets = random_facets(table, fixed)
    use_clusters = table.has_clusters and cluster is not False
    if facets and jackknife:
        raise ArgumentError(words("BCa intervals (`{arg:method='bca'}`) need the jackknife of an ordinary bootstrap, which the crossed bootstrap over the random facet{value} {value2} does not have: use percentile intervals (the default), or condition on the facets with `{arg:fixed}`", value='s' if len(facets) > 1 else '', value2=', '.join(facets)))
    if facets:
        reps = crossed_bootstrap(data, fixed=fixed, cluster=None if use_clusters else False,
                                 n_resamples=n_resamples, rng=rng)
        note = NOTE_FACETS_RANDOM(s="s" if len(facets) > 1 else "", facets=", ".join(facets),
                                  units="clusters" if reps.unit == "cluster" else "items")
        return replace(reps, notes=tuple(dict.fromkeys((*reps.notes, note))))
    if not use_clusters:
        return None
    df = cluster_df(table)
    if not df < SMALL_CLUSTER_DF or jackknife:  # BCa: the engine's cluster bootstrap (see BCA_FEW_CLUSTERS_NOTE)
        return None
    reps = crossed_bootstrap(data, facets=(), cluster=True, n_resamples=n_resamples, rng=rng)
    kept = [n for n in reps.notes if not _wild(n)]
    n_min = int(np.min(reps.n_units))
    note = (f"few clusters (as few as {n_min} in a task; {df:.3g} Bell-McCaffrey degrees of freedom for the mean"
            f" over tasks, below {SMALL_CLUSTER_DF:g}): replicates are the wild cluster bootstrap with CR2"
            " rescaling and a t scale mixture on those degrees of freedom (Bell & McCaffrey 2002; Imbens & Kolesar"
            " 2016), so percentile intervals of means and differences are CR2 t intervals; the percentile cluster"
            " bootstrap under-covers with few clusters")
    if table.facets and set(table.facets) <= set(fixed):
        note += f"; facets fixed: {', '.join(fixed)}"
    return replace(reps, notes=tuple(dict.fromkeys((*kept, note))))
