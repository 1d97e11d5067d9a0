"""The defaults of random work that every command and analysis share: one seed, and bootstrap replicate counts by
the kind of work. One rule, stated once here and in each command's ``--help``.

**Seed.** Every command's default ``--seed`` is :data:`SEED` (0): the same command on the same data prints the same
numbers, and two commands on the same data agree (``evalband compare`` and the report's pairwise table, ``evalband
arena`` and the report's leaderboard). Another seed draws other replicates and shows the Monte Carlo variation. The
Python API follows SciPy: ``rng=None`` draws fresh entropy (:func:`evalband.analyze` records the seed it drew).

**Replicates.** By what one replicate costs and what it decides:

* :data:`AVERAGES` (10,000) where each replicate re-averages the scores (items resampled, means and aggregates
  recomputed: ``compare``, ``rank``, ``report``, ``frontier`` on results, ``bayes --compare``). A replicate is
  cheap, and the verdicts rest on tail probabilities: p-values down to 2/10,001 = 0.0002 survive Holm over many
  pairs, and the ends of a 95% interval come from 250 replicates in each tail.
* :data:`REFITS` (2,000) where each replicate refits a model (Bradley-Terry or Elo ratings in ``arena`` and in
  ``frontier`` or ``report`` on battles, agreement coefficients in ``agreement``, variance components in
  ``variance``): 50 replicates in each tail of a 95% interval, the 1,000-2,000 that Efron & Tibshirani (1993,
  ch. 19) recommend for percentile intervals, at a fifth of the time of 10,000 refits.

``--n-resamples N`` sets one count for everything a command computes.
"""

from __future__ import annotations

__all__ = ["SEED", "AVERAGES", "REFITS", "n_resamples_for", "SEED_HELP", "RESAMPLES_HELP"]

#: the default seed of every command
SEED = 0
#: bootstrap replicates where each replicate re-averages the scores
AVERAGES = 10_000
#: bootstrap replicates where each replicate refits a model
REFITS = 2_000

_KINDS = {"average": AVERAGES, "refit": REFITS}

#: the seed rule, as every command's --help says it
SEED_HELP = ("Random seed (default 0 in every command: the same command on the same data prints the same numbers,"
             " and commands agree with each other and with the report); another seed draws other replicates.")
#: the replicate rule, as every command's --help says it
RESAMPLES_HELP = ("Bootstrap replicates. Default by the kind of work, the same in every command: 10,000 where each"
                  " replicate re-averages the scores (compare, rank, report, frontier), 2,000 where each refits a"
                  " model (arena ratings, agreement coefficients, variance components).")


def n_resamples_for(kind: str, n_resamples=None) -> int:
    """``n_resamples`` when given, else the default count of the kind of work: 'average' (:data:`AVERAGES`) or
    'refit' (:data:`REFITS`).

    Examples
    --------
    >>> n_resamples_for("average"), n_resamples_for("refit"), n_resamples_for("refit", 500)
    (10000, 2000, 500)
    """
    if n_resamples is not None:
        return n_resamples
    return _KINDS[kind]
