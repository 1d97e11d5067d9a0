"""Readers: one per source, all ending through :func:`read` in one of the three tables: a
:class:`~evalband.data.table.ResultsTable` (scores of models on items or tasks), a :class:`~evalband.data.battles.BattleTable`
(pairwise preferences) or a :class:`~evalband.data.ratings.RatingsTable` (raters' ratings of units)."""

from __future__ import annotations

import os

import pandas as pd

from ..data.table import ResultsTable
from .._validate import check_choice
from .folders import detect as _detect_harness
from .cruxeval import read_cruxeval
from .examples import load_example
from .helm import read_helm
from .inspect import read_inspect
from .lm_eval import read_lm_eval
from .rliable import read_rliable
from .tabular import STDIN, TABULAR_SUFFIXES, read_tabular
from .._validate import ArgumentError, ArgumentTypeError
from ..data.battles import BattleTable
from ..data.battle_counts import BattleCounts
from ..data.ratings import RatingsTable
from .battles import looks_like_battles, read_battles
from .ratings import read_ratings
from ..data.costs import CostTable
from .costs import read_costs
from .arrow import ScoreMatrices, read_score_matrices
from .inputs import read_input
from .._words import words

__all__ = ["read", "SOURCES", "load_example", "BATTLE_SOURCES", "read_score_matrices", "ScoreMatrices",
           "read_input"]


def _battles(kind):
    def reader(data, **options):
        return read_battles(data, source=kind, **options)
    reader.__name__ = f"read_battles_{kind}"
    return reader


#: sources of pairwise battles (:func:`read_battles`): column layouts and the three public formats
BATTLE_SOURCES = ("battles", "fastchat", "arena-hard", "alpaca-eval")

#: source name -> reader; harness readers register here too.
SOURCES = {"csv": read_tabular, "tsv": read_tabular, "parquet": read_tabular, "jsonl": read_tabular,
           "json": read_tabular, "table": read_tabular,
           "lm-eval": read_lm_eval, "inspect": read_inspect, "helm": read_helm, "rliable": read_rliable,
           "cruxeval": read_cruxeval,
           "battles": _battles("columns"), "fastchat": _battles("fastchat"), "arena-hard": _battles("arena-hard"),
           "alpaca-eval": _battles("alpaca-eval"), "ratings": read_ratings, "costs": read_costs}


def read(data, *, source: str = "auto", executor=None, client=None, storage_options=None, **options) -> ResultsTable:
    """Read evaluation results from a file, a folder of logs, a DataFrame or a bundled example.

    Parameters
    ----------
    data : str, os.PathLike, list, pandas.DataFrame or ResultsTable
        A path, a glob (``"results/*.csv"``: the tables are read as one) or a list of paths, a DataFrame, an
        existing table (returned unchanged), ``"example:NAME"``, or ``"-"`` for a table (CSV, TSV or JSON
        Lines, told apart by content) on standard input.
    source : str
        'auto' (by file suffix and content), or one of :data:`SOURCES`.
    **options
        Passed to the reader, e.g. ``model_col=``, ``shape=``, ``unbounded=``.
    executor, client : optional
        A Dask executor (:func:`evalband.resample.distributed.dask_executor`) or ``distributed.Client``: a folder, glob, list or
        fsspec URL (``s3://``, ``file://``, ``memory://``, ...) of Parquet, CSV or TSV shards is then read and
        reduced on the cluster (:func:`evalband.io.distributed_read.read_distributed`), into the same table; battle
        shards are counted there (:func:`evalband.io.distributed_battles.read_battles_distributed`, a BattleCounts).
    storage_options : dict, optional
        fsspec options (credentials, endpoint) for URLs read on a cluster.
    trials : {'keep', 'average'}, optional
        Item-level results with repeated trials: 'keep' (the default) one row per trial; 'average' each item's
        trials as one row (their mean and count), for analyses that read no single trial (compare, rank), and
        only where no sum depends on its order (:func:`evalband.data.trial_means.average_trials`). On a cluster
        the workers reduce the trials, so the table read holds one row per item.

    Returns
    -------
    ResultsTable, BattleTable, RatingsTable or CostTable
        Pairwise battles (``model_a, model_b, winner``; Chatbot Arena, Arena-Hard, AlpacaEval files) are detected
        and read as a BattleTable; ratings are read with ``source='ratings'``, per-model costs (a summary or
        per-response measures) with ``source='costs'``.

    Examples
    --------
    >>> import evalband as eb
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"model": ["a", "a", "b", "b"], "task": "qa", "item": [1, 2, 1, 2],
    ...                       "score": [1, 0, 1, 1]})
    >>> table = eb.read(frame)
    >>> table.models, table.tasks, table.level
    (('a', 'b'), ('qa',), 'item')
    >>> eb.read("example:vtab").level
    'summary'
    """
    trials = check_choice(options.pop("trials", "keep"), ("keep", "average"), "trials")
    if trials == "average" and not _on_cluster(data, source, executor, client, options):
        from ..data.trial_means import average_trials

        table = read(data, source=source, executor=executor, client=client, storage_options=storage_options,
                     **options)
        return average_trials(table) if isinstance(table, ResultsTable) else table
    if isinstance(data, (ResultsTable, BattleTable, BattleCounts, RatingsTable, CostTable)):
        return data
    if _on_cluster(data, source, executor, client, options):
        from .distributed_battles import read_battles_distributed, shards_hold_battles
        from .distributed_read import read_distributed

        if source in ("battles", "columns") or BATTLE_OPTIONS & set(options) or (source == "auto" and shards_hold_battles(
                data, executor=executor, client=client, storage_options=storage_options)):
            return read_battles_distributed(data, executor=executor, client=client, storage_options=storage_options,
                                            source="battles" if source == "auto" else source, **options)

        if source in TABULAR_SUFFIXES.values():
            options.setdefault("file_format", source)
        return read_distributed(data, executor=executor, client=client, storage_options=storage_options,
                                trials=trials, **options)
    if isinstance(data, str) and data.startswith("example:"):
        from .examples import load_example

        return load_example(data.split(":", 1)[1])
    if source == "auto":
        if _battle_input(data, options):
            return _read_with(read_battles, data, options)
        if isinstance(data, pd.DataFrame):
            return _read_with(read_tabular, data, options)
        if not isinstance(data, (str, os.PathLike, list, tuple)):
            raise ArgumentTypeError(f"`data` must be a path, a DataFrame or a ResultsTable; got {type(data).__name__}.")
        if isinstance(data, str) and data == STDIN:
            return _read_with(read_tabular, data, options)
        detected = _detect(data)
        return _read_with(SOURCES[detected], data, options)
    if source not in SOURCES:
        raise ArgumentError(words("`{arg:source}` must be 'auto' or one of {value}; got {source!r}.", value=', '.join(map(repr, SOURCES)), source=source))
    reader = SOURCES[source]
    if isinstance(data, str) and data == STDIN and reader is not read_tabular:
        raise ArgumentError(f"standard input ('-') must hold a table (CSV, TSV, JSON Lines); {source} logs need a file,"
                         " a folder or a glob.")
    if reader is read_tabular and source in TABULAR_SUFFIXES.values():
        options.setdefault("file_format", source)
    return _read_with(reader, data, options)


#: keywords of other tools (and of other functions) a user may reach for, and evalband's name for each
_ALIASES = {"seed": "rng", "random_state": "rng", "random_seed": "rng", "confidence": "confidence_level",
            "alpha": "confidence_level", "level": "confidence_level", "n_boot": "n_resamples",
            "n_bootstrap": "n_resamples", "B": "n_resamples", "resamples": "n_resamples"}


def _read_with(reader, data, options: dict):
    """``reader(data, **options)``, a keyword it does not take refused first, by name, with the likely one
    (``seed`` -> ``rng``): options a public function does not know itself reach the reader, and a bare
    TypeError naming the reader would not tell the user what to write."""
    import inspect

    from .._validate import closest_name

    parameters = inspect.signature(reader).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        known = [n for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD
                                                                                   and n != "data")]
        for key in options:
            if key not in parameters:
                close = _ALIASES.get(key) or closest_name(key, known)
                raise ArgumentTypeError(f"unexpected keyword `{key}`: not an option of this function nor of reading"
                                        f" the data" + (f"; did you mean `{close}`?" if close else
                                                        f" (reading takes {', '.join(known[:12])})"))
    return reader(data, **options)


def _on_cluster(data, source: str, executor, client, options) -> bool:
    """Whether ``data`` is read and reduced on a Dask cluster: tabular shards (a folder, glob, list or URL) with
    a Dask executor or client. A URL without one is an error (it is read on a cluster only)."""
    from .distributed_read import is_sharded, is_url

    dask = client is not None or getattr(executor, "client", None) is not None  # (a thread pool is no cluster)
    if isinstance(data, str) and is_url(data):
        if not dask:
            raise ArgumentError(f"{data!r} is a URL: sharded results behind fsspec URLs are read on a Dask cluster;"
                                " give --scheduler ADDRESS (Python: executor= or client=), or copy the files here")
        return True
    if not dask or not is_sharded(data):
        return False
    if source in ("auto", "battles") and (BATTLE_OPTIONS & set(options) or source == "battles"):
        # battle shards in a column layout; a folder of JSON battle files (Arena-Hard) is read here
        return not (isinstance(data, (str, os.PathLike)) and looks_like_battles(data))
    if source not in ("auto", "table", *TABULAR_SUFFIXES.values()):
        return False
    return not (source == "auto" and _battle_input(data, options)) and _detect(data) == "table"


#: options of the battle readers alone: given to read(), they say the input holds battles
BATTLE_OPTIONS = frozenset({"model_a_col", "model_b_col", "winner_col", "question_col", "judge_col", "turn_col",
                            "weight_col", "style_cols", "baseline", "strong_weight", "anonymous_only"})


def _battle_input(data, options) -> bool:
    """Pairwise battles, by their columns or format (a results table's options say it is not)."""
    results_options = {"model_col", "task_col", "item_col", "score_col", "shape", "n_col", "correct_col",
                       "accuracy_col", "unbounded", "facets"}
    if results_options & set(options):
        return False
    if isinstance(data, str) and data.startswith("example:"):
        return False
    if BATTLE_OPTIONS & set(options):  # options only the battle readers take (evalband.arena gives `baseline`)
        return True
    if isinstance(data, str) and data == STDIN:
        return False
    return isinstance(data, (pd.DataFrame, str, os.PathLike)) and looks_like_battles(data)


def _detect(path) -> str:
    """Name the reader for ``path``; tabular files unless a registered detector claims it."""
    for name, detector in _DETECTORS:
        if detector(path):
            return name
    return "table"


#: (source name, predicate) pairs tried in order by ``source='auto'``; harness readers add theirs.
_DETECTORS: list = []
# one detector per harness source; a folder or glob that mixes them raises InputError (evalband.io.folders)
_DETECTORS.extend((name, lambda path, _name=name: _detect_harness(path) == _name)
                  for name in ("lm-eval", "inspect", "helm", "rliable", "cruxeval"))
