"""Where the variance comes from: facets (prompts, seeds, judges, runs), crossed intervals, few clusters, plans.

Array cores and table-level entries:

* :func:`facet_design` — which factors are crossed or nested, which cells are missing (:mod:`.design`);
* :func:`variance_components` — components per model and pair, shares of the variance of the mean, standard
  errors with facets random or fixed, G coefficients; cores :func:`anova_components`, :func:`reml_components`;
"""

from .anova import AnovaTable, anova_components
from .crossed import CROSSED_METHODS, crossed_bootstrap, multiplier_replicates
from .components import VarianceComponents, variance_components
from .dstudy import DEFAULT_LEVELS, DEFAULT_TRIALS, DStudy, plan_design, predicted_se
from .runs import RunSpread, expected_best, normal_max_factor, run_spread
from .design import FacetDesign, TaskDesign, facet_design
from .reml import RemlFit, reml_components
from .small_clusters import (SMALL_SAMPLE_METHODS, ClusterRobust, bell_mccaffrey_df, cluster_robust, cr2_factors,
                             pair_contrasts)

__all__ = ["DEFAULT_LEVELS", "DEFAULT_TRIALS", "DStudy", "plan_design", "predicted_se", "RunSpread",
           "expected_best", "normal_max_factor", "run_spread", "CROSSED_METHODS", "crossed_bootstrap", "multiplier_replicates", "AnovaTable", "ClusterRobust", "FacetDesign", "RemlFit", "SMALL_SAMPLE_METHODS", "TaskDesign",
           "VarianceComponents", "anova_components", "bell_mccaffrey_df", "cluster_robust", "cr2_factors",
           "facet_design", "pair_contrasts", "reml_components", "variance_components"]
