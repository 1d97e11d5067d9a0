"""Cost, latency and the decision: quality-cost frontiers with uncertainty.

Quality and cost are bootstrapped from the same item draws (:func:`joint_bootstrap`), so every judgement that
involves both is paired. On top of them: mean cost per item with intervals (:func:`mean_cost`, or
:func:`cost_from_summary`), paired cost differences and ratios (:func:`cost_differences`), latency quantiles
(:func:`latency_quantiles`), the Pareto frontier with domination decided at a confidence level
(:func:`frontier`), the cheapest model decidedly above a quality level, and the decision table for one pair
(:func:`decision`).
"""

from ._inputs import Quality, quality_from_replicates
from ._pareto import pareto_front
from .decision import Decision, decision, decision_from
from .frontier import FrontierResult, Reach, frontier
from .joint import JointReplicates, joint_bootstrap, joint_from_arrays
from .latency import LatencyEstimates, latency_quantiles
from .differences import CostComparison, cost_differences
from .measures import COST_METHODS, CostEstimates, cost_from_summary, costs_from_replicates, mean_cost

__all__ = ["COST_METHODS", "CostComparison", "CostEstimates", "Decision", "FrontierResult", "JointReplicates",
           "LatencyEstimates", "Quality", "Reach", "cost_differences", "cost_from_summary", "costs_from_replicates",
           "decision", "decision_from", "frontier", "joint_bootstrap", "joint_from_arrays", "latency_quantiles",
           "mean_cost", "pareto_front", "quality_from_replicates"]
