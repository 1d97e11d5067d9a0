"""Section builders of capability analyses (:mod:`evalband.analysis.extensions`), by the same key.

Each builder reads its analysis result and the :class:`~evalband.analysis.Analysis` and returns a
:class:`~evalband.report.section.Section` (or None when there is nothing to show); it computes no statistic:

    builder(result, analysis) -> Section or None

The builders are imported with this registry, when a report is built.
"""

from __future__ import annotations

import importlib

__all__ = ["SECTIONS", "sections_for"]

from .costs import cost_section
from .items import items_section
from .judges import ppi_section
from .preferences import arena_section
from .sparse import sparse_section
from .subset import subset_section
from .variance import variance_section

#: key -> the section builder of the capability registered under the same key in
#: :data:`evalband.analysis.extensions.EXTENSIONS` (a ``"module:function"`` string is still accepted for a
#: section registered from outside the package)
SECTIONS: dict = {
    "variance": variance_section,
    "arena": arena_section,
    "judges": ppi_section,
    "costs": cost_section,
    "subset": subset_section,
    "sparse": sparse_section,
    "items": items_section,
}


def sections_for(analysis, registry=None) -> list:
    """The sections of an analysis's extras, in the order of the extras."""
    registry = SECTIONS if registry is None else registry
    out = []
    for key, result in getattr(analysis, "extras", ()):
        if key not in registry:
            continue
        builder = registry[key]
        if not callable(builder):
            module, name = builder.split(":")
            builder = getattr(importlib.import_module(module), name)
        section = builder(result, analysis)
        if section is not None:
            out.append(section)
    return out
