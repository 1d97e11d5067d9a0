"""Capability analyses an :class:`~evalband.analysis.Analysis` adds when the data call for them.

A capability (variance facets, judges' human labels, costs and latency, ...) registers one function here under a
key. :func:`evalband.analyze` calls each registered function on the selection it analysed, with the same seed,
replicate count and confidence level, and keeps what it returns in :attr:`Analysis.extras` under the key:

    function(selection, *, aggregate, n_resamples, confidence_level, rng, replicates) -> result or None

(``rng`` is the run's integer seed; a function written for 0.1, taking ``seed=`` instead, is still called with it
for one release, with a DeprecationWarning.)

The function returns None when its data are absent (no facet column, no cost column: nothing to say), raises
:class:`Skip` with the reason when the data are there but the analysis does not apply (recorded in
:attr:`Analysis.skipped`), and otherwise returns its frozen result. The report renders each result with the
section builder registered under the same key in :data:`evalband.report.sections.SECTIONS`. Analyses are imported
only when called, so an unused capability costs nothing.
"""

from __future__ import annotations

import importlib
from .._words import words

__all__ = ["EXTENSIONS", "ON_REQUEST", "Skip", "check_sections", "run_extensions"]

from .costs import cost_analysis
from .judges import human_labels
from .latent import items_extension, sparse_extension
from .preferences import arena_extension
from .variance import variance_extension

#: key -> (title used when skipped, the function); the order is the order of the report's sections. Each adapter
#: imports its capability when called, so registering it costs an import of the adapter module only. (A
#: ``"module:function"`` string is still accepted for an adapter registered from outside the package.)
EXTENSIONS: dict[str, tuple] = {
    "variance": ("Where the variance comes from", variance_extension),
    "arena": ("Preference leaderboard", arena_extension),
    "judges": ("Judge and human labels", human_labels),
    "costs": ("Cost and quality", cost_analysis),
    "sparse": ("Sparse leaderboard", sparse_extension),
    "items": ("Items", items_extension),
}

#: capabilities a report shows only when asked (``sections=`` of :func:`evalband.analyze`, ``--sections``): the
#: others run whenever their data are present.
ON_REQUEST = frozenset({"items"})


#: capabilities whose replicates refit a model (ratings, variance components); the others re-average the scores.
#: With no replicate count given, each gets the count of its kind (:mod:`evalband._defaults`: 2,000 refits,
#: 10,000 re-averaged), the count its own command uses, so the report's section and the command agree.
REFITS = frozenset({"variance", "arena", "sparse", "items"})


class Skip(Exception):
    """Raised by a capability analysis whose data are present but which does not apply; the message is why."""


def _function(target):
    if callable(target):
        return target
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


def _seed_keyword(function, rng) -> dict:
    """``{'rng': rng}``, or ``{'seed': rng}`` for a function of the 0.1 convention (warned)."""
    import inspect
    import warnings

    parameters = inspect.signature(function).parameters
    if "seed" in parameters and "rng" not in parameters:
        warnings.warn(f"capability analysis {getattr(function, '__name__', function)!r} takes `seed=`: since 0.2"
                      " the adapters take `rng=` (the old keyword is passed for one release)", DeprecationWarning,
                      stacklevel=3)
        return {"seed": rng}
    return {"rng": rng}


def check_sections(sections) -> tuple:
    """The sections asked for (``sections=`` / ``--sections``) as a tuple of keys of :data:`ON_REQUEST`; an
    unknown name is an error listing the valid ones.

    Examples
    --------
    >>> check_sections("items")
    ('items',)
    >>> check_sections(None)
    ()
    """
    from .._lists import split_names
    from .._validate import ArgumentError, ArgumentTypeError, closest_name

    if sections is None:
        return ()
    if isinstance(sections, str):
        names = split_names(sections)
    elif isinstance(sections, (list, tuple, set, frozenset)) and all(isinstance(s, str) for s in sections):
        names = [s.strip() for s in sections]
    else:
        raise ArgumentTypeError(words('`{arg:sections}` must be a section name or a sequence of them ({value}); got {sections!r}.', value=', '.join(sorted(ON_REQUEST)), sections=sections))
    valid = sorted(ON_REQUEST)
    for name in names:
        if name not in ON_REQUEST:
            close = closest_name(name, valid)
            hint = f"; did you mean {close!r}?" if close else ""
            raise ArgumentError(words('`{arg:sections}` names {name!r}, which is not a section shown on request; the sections shown on request are {value} (the others appear whenever their data are present){hint}', name=name, value=', '.join(map(repr, valid)), hint=hint))
    return tuple(dict.fromkeys(names))


def run_extensions(selection, *, aggregate, n_resamples, confidence_level, rng=None, replicates=None,
                   registry=None, sections=(), **deprecated) -> tuple[tuple, list]:
    """``(extras, skipped)``: each registered analysis's result as ``(key, result)`` pairs, and the
    ``(title, reason)`` of those that were skipped. ``n_resamples`` None: each its kind's count (:data:`REFITS`).
    The analyses of :data:`ON_REQUEST` run only when ``sections`` names them."""
    from .._defaults import n_resamples_for
    from .._validate import no_other_keywords, renamed

    rng = renamed(deprecated, old="seed", new="rng", function="run_extensions", value=rng, default=None)
    no_other_keywords(deprecated, "run_extensions")
    extras, skipped = [], []
    for key, (title, target) in (EXTENSIONS if registry is None else registry).items():
        if key in ON_REQUEST and key not in sections:
            continue
        count = n_resamples_for("refit" if key in REFITS else "average", n_resamples)
        try:
            function = _function(target)
            result = function(selection, aggregate=aggregate, n_resamples=count, confidence_level=confidence_level,
                              replicates=replicates, **_seed_keyword(function, rng))
        except Skip as exc:
            skipped.append((title, str(exc)))
            continue
        if result is not None:
            extras.append((key, result))
    return tuple(extras), skipped
