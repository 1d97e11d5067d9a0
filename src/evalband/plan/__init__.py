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

from .design import (binary_variance_of_difference, design_effect, effective_sample_size, recommend_trials,
                     trial_variance, variance_of_difference, variance_reduction)
from .gate import EXIT_CODES, GateResult, paired_runs, release_gate
from .pilot import PilotEstimates, estimate_pilot, plan_from_pilot
from .planner import ComparisonPlan, plan_comparison
from .power import adjusted_alpha, power_of_test, solve_power, z_factor
from .sequential import SequentialComparison, SequentialState, betting_confidence_sequence

__all__ = [
    "z_factor", "adjusted_alpha", "power_of_test", "solve_power",
    "variance_of_difference", "binary_variance_of_difference", "design_effect", "effective_sample_size",
    "trial_variance", "variance_reduction", "recommend_trials",
    "plan_comparison", "ComparisonPlan", "plan_from_pilot", "estimate_pilot", "PilotEstimates",
    "SequentialComparison", "SequentialState", "betting_confidence_sequence",
    "release_gate", "GateResult", "paired_runs", "EXIT_CODES",
]
