"""The reading policy of a command: a file PATH or a bundled example, with the options a user gave as text.

:func:`read_input` is what every command of the command line calls to read its input (the CLI only parses options
and passes those it was given); Python users call :func:`evalband.read` with keywords instead. The rules live here,
once: a bundled example is read as bundled (reading options given with it are refused, each named); a battle file
is detected, or named by ``source``, when the command reads battles; ``drop_cols``, ``facets`` and ``models`` come
as comma-separated text (CSV quoting, ``@FILE``); ``facets='none'`` means no facet, ``cluster='none'`` that items are
independent.
"""

from __future__ import annotations

from .._lists import split_names
from .._validate import ArgumentError

__all__ = ["read_input"]

#: the reading options of a results file and their defaults (an option at its default counts as not given)
DEFAULTS = dict(shape="auto", model_col="model", task_col="task", item_col="item", score_col="score",
                trial_col="trial", cluster=None, group_col="group", unbounded=False, count_rule="floor",
                drop_cols=None, accuracy_scale=None)


def _given(options: dict) -> list[str]:
    """The reading options given (not at their defaults), as the command line spells them."""
    given = []
    for key, value in options.items():
        if value != DEFAULTS.get(key) if key in DEFAULTS else value is not None:
            given.append(f"--{key.strip('_').replace('_', '-')}")
    return given


def read_input(path=None, example=None, *, source: str = "auto", battles: bool = False, models=None,
               executor=None, trials: str = "keep", **options):
    """Read a results file or a bundled example under the command line's rules.

    Parameters
    ----------
    path : str, optional
        A results file, glob, log folder or ``"-"`` (exactly one of ``path`` and ``example``).
    example : str, optional
        A bundled example's name (read as bundled: reading options given with it are refused).
    source : str
        'auto' or a reader of :data:`evalband.io.SOURCES`.
    battles : bool
        The command reads pairwise battles: a battle file (named by ``source`` or detected when no option of a
        results table was given) is read as a BattleTable.
    models : str, optional
        Comma-separated model names; with ``shape='wide'`` they are the model columns chosen at read time.
    executor : optional
        A Dask executor (``--scheduler``): sharded input (a folder, glob or URL) is read and reduced on its
        cluster (:mod:`evalband.io.distributed_read`); other input is read here.
    trials : {'keep', 'average'}
        'average': the command reads no single trial (compare, rank), so sharded input read on ``executor``'s
        cluster has each item's trials reduced to their mean and count on the workers
        (:func:`evalband.data.trial_means.average_trials`; same numbers), and a single file read with an
        executor is averaged the same way here; without an executor the trials are kept.
    **options
        The reader's options as given: ``shape``, ``model_col``, ..., ``cluster`` ('none': items independent),
        ``drop_cols`` and ``facets`` as comma-separated text (``facets='none'``: no facet), and reader-specific
        options (``metric``, ``filter``, ``split``, ``baselines``, ``human_col``, ...), passed on only when not
        None.

    Returns
    -------
    ResultsTable or BattleTable

    Raises
    ------
    ArgumentError
        Neither or both of ``path`` and ``example``; an option of a results file given with an example or with
        a battle source; an empty ``drop_cols``.

    Examples
    --------
    >>> from evalband.io import read_input
    >>> read_input(example="vtab").models[:2]
    ('Cond-BigGAN', 'Exemplar')
    >>> read_input(example="vtab", model_col="system")
    Traceback (most recent call last):
    ...
    evalband._validate.ArgumentError: --model-col applies to a results file, not to --example (the bundled example is read as it is)
    """
    from . import BATTLE_SOURCES, load_example, read

    if (path is None) == (example is None):
        raise ArgumentError("give either a results file PATH or --example NAME (one of them)")
    options = {**{k: v for k, v in DEFAULTS.items()}, **options}
    given = _given(options)
    if example is not None and (given or source != "auto"):  # one rule: an example is read as bundled
        named = given + (["--source"] if source != "auto" else [])
        raise ArgumentError(f"{', '.join(named)} appl{'ies' if len(named) == 1 else 'y'} to a results file, not to"
                            f" --example (the bundled example is read as it is)")
    if battles and example is None:
        if source in BATTLE_SOURCES:
            if given:
                raise ArgumentError(f"{', '.join(given)} apply to a results table, not to battles (--source"
                                    f" {source})")
            return read(path, source=source)
        if source == "auto" and not given:
            from .battles import looks_like_battles

            if looks_like_battles(path):
                return read(path)
    names = None if models is None else split_names(models, name="models")
    if example is not None:
        return load_example(example)
    shape, cluster, trial_col = options.pop("shape"), options.pop("cluster"), options["trial_col"]
    drop_cols = options.pop("drop_cols")
    if drop_cols is not None:
        drop_cols = split_names(drop_cols, name="--drop-cols")
        if not drop_cols:
            raise ArgumentError("`--drop-cols` is empty; give comma-separated column names (or leave the option out)")
        options["drop_cols"] = drop_cols
    facets = options.pop("facets", None)
    if facets is not None:
        facets = [] if facets.strip().lower() == "none" else split_names(facets, name="--facets")
        # trials are always a facet nested in cells (the --trial-col column), never a label column of their own
        options["facets"] = [f for f in facets if f not in ("trial", trial_col)]
    if cluster is not None and cluster.strip().lower() == "none":
        cluster = False  # items are independent: a 'cluster' column is then named as not used
    if shape == "wide" and names:
        options["models"] = names  # the model columns, chosen when the file is read
    # reader-specific options (--metric, --filter, --split, --baselines) reach the reader only when given
    options = {k: v for k, v in options.items() if v is not None}
    if executor is not None:
        options["executor"] = executor
        if trials != "keep":
            options["trials"] = trials
    return read(path, source=source, cluster_col=cluster, shape=shape, **options)
