"""Old module paths of the 0.1 layout (before the move of issue 23), kept for one release:
importing one warns (DeprecationWarning) and gives the module at its new path. Nothing in evalband imports them."""

from __future__ import annotations

import importlib
import sys
import warnings

#: old module -> new module
MOVED = {
    'evalband.battles': 'evalband.data.battles',
    'evalband.cost_table': 'evalband.data.costs',
    'evalband.costs.analysis': 'evalband.analysis.costs',
    'evalband.dist': 'evalband.resample.distributed',
    'evalband.examples': 'evalband.io.example_data',
    'evalband.facets.crossed': 'evalband.resample.crossed',
    'evalband.facets.crossed_se': 'evalband.estimation.crossed',
    'evalband.facets.defaults': 'evalband.resample.dispatch',
    'evalband.facets.design': 'evalband.selection.facet_design',
    'evalband.facets.extension': 'evalband.analysis.variance',
    'evalband.facets.small_clusters': 'evalband.estimation.small_clusters',
    'evalband.judges.extension': 'evalband.analysis.judges',
    'evalband.judges.ppi': 'evalband.estimation.ppi',
    'evalband.judges.ppi_replicates': 'evalband.resample.ppi',
    'evalband.judges.ppi_table': 'evalband.estimation.ppi_table',
    'evalband.preferences.resampling': 'evalband.resample.battles',
    'evalband.ratings': 'evalband.data.ratings',
    'evalband.report.cd_diagram': 'evalband.report.plots.cd_diagram',
    'evalband.report.html': 'evalband.report.writers',
    'evalband.report.plot_frontier': 'evalband.report.plots.frontier',
    'evalband.report.plot_intervals': 'evalband.report.plots.intervals',
    'evalband.report.plot_matrices': 'evalband.report.plots.matrices',
    'evalband.report.plot_preferences': 'evalband.report.plots.preferences',
    'evalband.report.plot_ranks': 'evalband.report.plots.ranks',
    'evalband.report.plot_variance': 'evalband.report.plots.variance',
    'evalband.report.plot_weights': 'evalband.report.plots.weights',
    'evalband.report.profiles_plot': 'evalband.report.plots.profiles',
    'evalband.results': 'evalband.estimation.confidence',
    'evalband.table': 'evalband.data.table',
}


class _Alias:
    """A finder and loader for the old names: the module object is the one at the new path (the import system
    sets the alias's spec on it; :meth:`exec_module` gives it back its own, so that it stays a package where it is
    one and ``importlib.resources`` finds its files)."""

    def __init__(self):
        self._specs = {}

    def find_spec(self, name, path=None, target=None):
        if name not in MOVED:
            return None
        from importlib.util import spec_from_loader

        return spec_from_loader(name, self)

    def create_module(self, spec):
        warnings.warn(f"{spec.name} moved to {MOVED[spec.name]}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(MOVED[spec.name])
        self._specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._specs.pop(id(module), module.__spec__)


def install() -> None:
    """Add the finder to ``sys.meta_path`` once (after the path finders, so that real modules come first)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
