"""Planning the next evaluation: power, sample size, detectable effects, trials, sequential tests, release gates.

* :mod:`~evalband.plan.power`: power of a difference test (noncentral t or normal), solved for n, effect or power;
  multiplicity-adjusted alpha.
* :mod:`~evalband.plan.design`: variance of the per-item difference (paired, binary), design effect of clusters
  (equal and unequal sizes), repeated trials.
* :mod:`~evalband.plan.planner`: :func:`plan_comparison`, the one-call plan with its two sentences.
* :mod:`~evalband.plan.pilot`: :func:`plan_from_pilot`, the same from a results file.
* :mod:`~evalband.plan.sequential`: anytime-valid betting confidence sequences and a stop/continue decision.
* :mod:`~evalband.plan.gate`: :func:`release_gate`, paired non-inferiority of a candidate run.
"""

from .._lazy import lazy_exports

# names are imported from their modules on first use: a plan from typed numbers loads neither pandas nor the
# estimators that the release gate and the pilot use
__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "power": ["z_factor", "adjusted_alpha", "power_of_test", "solve_power"],
    "design": ["variance_of_difference", "binary_variance_of_difference", "design_effect", "effective_sample_size",
               "trial_variance", "variance_reduction", "recommend_trials"],
    "planner": ["plan_comparison", "ComparisonPlan"],
    "pilot": ["plan_from_pilot", "estimate_pilot", "PilotEstimates"],
    "sequential": ["SequentialComparison", "SequentialState", "betting_confidence_sequence"],
    "gate": ["release_gate", "GateResult", "paired_runs", "EXIT_CODES"],
})
