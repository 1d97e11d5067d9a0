"""Where the variance comes from: facets (prompts, seeds, judges, runs), crossed intervals, few clusters, plans.

The design, the crossed and few-cluster estimators and replicates, and the dispatch live in the layers they belong
to (selection, estimation, resample); this package re-exports them beside the analyses built on them.

Array cores and table-level entries (each table-level entry takes a ResultsTable, a DataFrame or a path):

* :func:`facet_design` — which factors are crossed or nested, which cells are missing (:mod:`evalband.selection.facet_design`);
* :func:`variance_components` — components per model and pair, shares of the variance of the mean, standard
  errors with facets random or fixed, G coefficients (:mod:`.components`); array cores
  :func:`anova_components` (balanced, expected mean squares, :mod:`.anova`) and :func:`reml_components`
  (unbalanced, REML, :mod:`.reml`);
* :func:`crossed_bootstrap` — replicates (B, M, T) that resample items and facet levels independently, paired
  across models, as a :class:`~evalband.resample.Replicates` for compare, rank and summarize (:mod:`evalband.resample.crossed`);
  array core :func:`multiplier_replicates`;
* :func:`cluster_robust` — CR2 standard errors with Bell-McCaffrey degrees of freedom for per-model means and
  paired differences of linear aggregates with few clusters; :func:`cr2_factors`, :func:`bell_mccaffrey_df`,
  :func:`pair_contrasts` (:mod:`evalband.estimation.small_clusters`);
* :func:`crossed_estimates` — the closed form of the crossed replicates: per-task means with standard errors that
  generalize over items and facet levels, on Satterthwaite t references (what ``summarize`` shows with facets;
  :mod:`evalband.estimation.crossed`);
* :func:`default_replicates` — the one dispatch of compare, rank and report: crossed replicates when facets are
  random, the small-sample wild cluster bootstrap with few clusters (:data:`SMALL_CLUSTER_DF`), else None
  (:mod:`evalband.resample.dispatch`);
* :func:`plan_design` — D-study: items, facet levels and trials that reach a target SE, cheapest first;
  :func:`predicted_se` (:mod:`.dstudy`);
* :func:`facet_summary` — all of it for one table: what ``evalband variance`` prints and the report's section
  "Where the variance comes from" shows (:mod:`.summary`);
* :func:`run_spread` — spread across runs and the inflation of best-of-n reporting; :func:`expected_best`,
  :func:`normal_max_factor` (:mod:`.runs`).
"""

from .._lazy import lazy_exports

# names are imported from their modules on first use: compare and rank need only the default replicates
__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "anova": ["AnovaTable", "anova_components"],
    "components": ["METHODS", "VarianceComponents", "variance_components"],
    "evalband.resample.crossed": ["CROSSED_METHODS", "crossed_bootstrap", "multiplier_replicates"],
    "evalband.estimation.crossed": ["CrossedEstimates", "crossed_estimates", "crossed_variance"],
    "evalband.resample.dispatch": ["SMALL_CLUSTER_DF", "check_fixed", "cluster_df", "default_replicates", "random_facets"],
    "evalband.selection.facet_design": ["facet_design", "facet_table"],
    "evalband.selection.task_design": ["FacetDesign", "TaskDesign"],
    "dstudy": ["DEFAULT_LEVELS", "DEFAULT_TRIALS", "DStudy", "plan_design", "predicted_se"],
    "reml": ["RemlFit", "reml_components"],
    "runs": ["RunSpread", "expected_best", "normal_max_factor", "run_spread"],
    "summary": ["RUN_FACET", "FacetSummary", "facet_summary"],
    "evalband.estimation.small_clusters": ["SMALL_SAMPLE_METHODS", "ClusterRobust", "bell_mccaffrey_df", "cluster_robust", "cr2_factors",
                       "pair_contrasts"],
})
