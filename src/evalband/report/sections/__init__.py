"""Section builders of capability analyses (:mod:`evalband.analysis.extensions`), by the same key.

Each builder reads its analysis result and the :class:`~evalband.analysis.Analysis` and returns a
:class:`~evalband.report.section.Section` (or None when there is nothing to show); it computes no statistic:

    builder(result, analysis) -> Section or None

Builders are imported only when their result is present.
"""

from __future__ import annotations

import importlib

__all__ = ["SECTIONS", "sections_for"]

#: key -> "module:function" (or the function)
SECTIONS: dict = {
    "variance": "evalband.report.sections.variance:variance_section",
    "arena": "evalband.report.sections.preferences:arena_section",
    "judges": "evalband.report.sections.judges:ppi_section",
    "costs": "evalband.report.sections.costs:cost_section",
    "subset": "evalband.report.sections.subset:subset_section",
    "sparse": "evalband.report.sections.sparse:sparse_section",
    "items": "evalband.report.sections.items:items_section",
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
