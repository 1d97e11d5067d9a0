"""The cost part of an analysis (registered in :data:`evalband.analysis.extensions.EXTENSIONS` as 'costs'): when
the results carry a cost column, the quality-cost frontier on the analysis's selection and seed, and the decision
between the best model and its cheapest rival, from the same draws."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..display.reprs import displayed

__all__ = ["CostAnalysis", "cost_analysis"]


@displayed
@dataclass(frozen=True, repr=False)
class CostAnalysis:
    """The frontier of an analysis and the decision between its leader and the leader's cheapest rival.

    Attributes
    ----------
    frontier : FrontierResult
    leader : str
        The model of best quality.
    rival : str or None
        The cheapest model on the frontier other than the leader (the cheapest other model when the leader is the
        only one on it).
    decision : Decision or None
        Leader (A) against rival (B).
    """

    frontier: object
    leader: str
    rival: str | None
    decision: object = None

    def to_frame(self) -> pd.DataFrame:
        """The frontier's records (:meth:`FrontierResult.to_frame`)."""
        return self.frontier.to_frame()

    def __repr__(self) -> str:
        head = f"CostAnalysis: leader {self.leader}" + (f", cheapest rival {self.rival}" if self.rival else "")
        return head + ("\n  " + self.decision.sentence if self.decision is not None else "")


def leader_and_rival(result) -> tuple[str, str | None]:
    """The model of best quality and its cheapest rival (see :class:`CostAnalysis`)."""
    sign = 1.0 if result.higher_is_better else -1.0
    leader = int(np.argmax(sign * np.asarray(result.quality)))
    cost = np.asarray(result.cost.estimate, dtype=float)
    others = [k for k in np.flatnonzero(result.on_frontier) if k != leader] or \
        [k for k in range(len(result.models)) if k != leader]
    if not others:
        return result.models[leader], None
    rival = min(others, key=lambda k: (cost[k], k))
    return result.models[leader], result.models[rival]


def cost_analysis(selection, *, aggregate, n_resamples, confidence_level, rng, replicates=None):
    """The registered analysis: None without a cost column; :class:`CostAnalysis` otherwise.

    The frontier runs on the analysis's selection with its seed, so its quality replicates are the analysis's own
    (the joint engine run draws the same items). Data where quality and cost cannot be paired by item (runs of
    independent seeds, models sharing no item) are skipped with the reason.
    """
    from .extensions import Skip
    from .._validate import InputError
    from ..data.table import ResultsTable
    from ..costs.frontier import frontier

    table = getattr(selection, "table", None)
    if not isinstance(table, ResultsTable) or table.level != "item" or "cost" not in table.measures:
        return None
    if not table.paired_items:
        raise Skip("costs are paired with quality by item, but the items are not the same across models")
    try:
        result = frontier(selection, cost="cost", aggregate=aggregate, n_resamples=n_resamples,
                          confidence_level=confidence_level, rng=rng)
    except InputError as exc:
        raise Skip(exc.problem if hasattr(exc, "problem") else str(exc)) from None
    leader, rival = leader_and_rival(result)
    decision = result.decision(leader, rival) if rival is not None else None
    return CostAnalysis(result, leader, rival, decision)
