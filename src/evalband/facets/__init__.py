"""Where the variance comes from: facets (prompts, seeds, judges, runs), crossed intervals, few clusters, plans.

Array cores and table-level entries:

* :func:`facet_design` — which factors are crossed or nested, which cells are missing (:mod:`.design`);
* :func:`variance_components` — components per model and pair, shares of the variance of the mean, standard
  errors with facets random or fixed, G coefficients; cores :func:`anova_components`, :func:`reml_components`;
"""

from .anova import AnovaTable, anova_components
from .components import VarianceComponents, variance_components
from .design import FacetDesign, TaskDesign, facet_design
from .reml import RemlFit, reml_components
from .small_clusters import (SMALL_SAMPLE_METHODS, ClusterRobust, bell_mccaffrey_df, cluster_robust, cr2_factors,
                             pair_contrasts)

__all__ = ["AnovaTable", "ClusterRobust", "FacetDesign", "RemlFit", "SMALL_SAMPLE_METHODS", "TaskDesign",
           "VarianceComponents", "anova_components", "bell_mccaffrey_df", "cluster_robust", "cr2_factors",
           "facet_design", "pair_contrasts", "reml_components", "variance_components"]
