"""Bootstrap engine: one replicate set per run, stratified by task, paired across models, clusters kept whole.

>>> from evalband.resample import bootstrap, interval
>>> reps = bootstrap("example:mmlu-pro", n_resamples=2000, rng=1)      # doctest: +SKIP
>>> ci = interval(reps.replicates.mean(axis=2), reps.observed.mean(axis=1))  # doctest: +SKIP
"""

from ._kernels import draw_counts, draw_indices
from .columns import ItemColumns
from .engine import RESAMPLING, bootstrap
from .execution import available_cores, use_executor, use_threads
from .items import ItemReplicates, bootstrap_items
from .intervals import INTERVAL_METHODS, bca_acceleration, central_se, interval
from .replicates import Replicates, ReplicateSet
from .prepare import replicates_for, require_clusters
from .statistics import STATISTICS, Statistic, get_statistic

__all__ = ["bootstrap", "use_executor", "use_threads", "available_cores", "Replicates", "interval", "ItemColumns", "Statistic", "STATISTICS", "get_statistic",
           "INTERVAL_METHODS", "central_se", "RESAMPLING", "bca_acceleration", "bootstrap_items", "ItemReplicates",
           "draw_counts", "draw_indices", "ReplicateSet", "replicates_for", "require_clusters"]
