"""Release gate: is a candidate run non-inferior to a baseline run on the same items?

The candidate and baseline are paired on their common items; the interval for the mean difference
``candidate - baseline`` (paired t, cluster-robust when items are clustered, or an anytime-valid betting
confidence sequence) is compared with the non-inferiority margin ``-margin``:

* **pass** (exit 0): the whole interval lies above ``-margin``: the candidate is non-inferior;
* **fail** (exit 1): the whole interval lies below ``-margin``: a regression larger than the margin is decided;
* **undecided** (exit 3): the interval contains ``-margin``; the result says how many more items would decide
  it (80% power if the true difference equals the observed one, from :func:`~evalband.plan.power.solve_power`).

Exit code 2 stays reserved for usage and input errors. With a two-sided interval at ``confidence_level`` each
of the two decisions is a one-sided test at level ``(1 - confidence_level) / 2`` (the CONSORT convention for
non-inferiority trials, Piaggio et al. 2012).

References
----------
Piaggio, G., Elbourne, D. R., Pocock, S. J., Evans, S. J. W. and Altman, D. G. (2012). Reporting of
noninferiority and equivalence randomized trials: extension of the CONSORT 2010 statement. JAMA 308, 2594-2604.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.special import ndtri
import pandas as pd

from ..data.labels import natural_order
from .._random import block_generator, name_key, run_entropy
from .._validate import (ArgumentError, InputError, as_generator, check_choice, check_confidence_level,
                         check_probability)
from ..estimation.cluster import cluster_interval
from ..estimation.mean import mean_interval
from ..estimation.confidence import ConfidenceInterval
from .power import _solve_power
from .sequential import SequentialComparison
from ..display.reprs import displayed
from ..display.notes import NoteKind
from .._words import words

__all__ = ["release_gate", "GateResult", "paired_runs", "GATE_METHODS", "EXIT_CODES"]

GATE_METHODS = ("t", "betting")
#: decision -> process exit code (2 is usage/input error in every evalband command)
EXIT_CODES = {"pass": 0, "fail": 1, "undecided": 3}
#: fewest paired items (or clusters) for the gate to decide; fewer is always 'undecided' (see release_gate Notes)
MIN_UNITS = 10


NOTE_GATE_MEANS = NoteKind("plan.gate-means", "info", "candidate {candidate} and baseline {baseline} points on {n:,}"
                           " paired items; margin {margin:g} points{more}")


@displayed


@dataclass(frozen=True, repr=False)
class GateResult:
    """Outcome of :func:`release_gate` (fractions, unrounded).

    Attributes
    ----------
    decision : {'pass', 'fail', 'undecided'}
    exit_code : int
        0, 1 or 3 (see :data:`EXIT_CODES`).
    n : int
        Paired items compared.
    baseline_mean, candidate_mean, difference, se_difference : float
    ci : ConfidenceInterval
        Two-sided interval for ``candidate - baseline`` at ``confidence_level``.
    margin, confidence_level : float
    method : {'t', 'betting'}
    more_items : float
        Undecided only: additional paired items for 80% power to decide if the true difference is the observed
        one (``inf`` when it sits exactly on the margin); nan otherwise.
        With ``method='betting'`` it is the fixed-sample figure, a rough guide (see ``more_items_basis``).
    n_clusters : int
        Clusters used by the cluster-robust interval (0 when not clustered).
    left_out : dict
        Items only the baseline or only the candidate has (excluded from the pairing).
    models : tuple of two str
        Baseline and candidate model names.
    notes : tuple of str
    """

    decision: str
    exit_code: int
    n: int
    baseline_mean: float
    candidate_mean: float
    difference: float
    se_difference: float
    ci: ConfidenceInterval
    margin: float
    confidence_level: float
    method: str
    more_items: float
    n_clusters: int
    left_out: dict = field(default_factory=dict)
    models: tuple[str, str] = ("baseline", "candidate")
    notes: tuple[str, ...] = ()
    reason: str = ""
    """Why an 'undecided' cannot be resolved by the usual count: 'too few units' (fewer than MIN_UNITS items or
    clusters), 'no spread' (every per-item difference is the same, so no item count can be estimated), or ''."""
    more_items_basis: str = ""
    """How ``more_items`` was found: 'fixed-sample t formula', 'fixed-sample normal formula (rough for the betting
    interval)' (the anytime-valid interval narrows more slowly than a fixed-sample one, so the count is a rough
    guide only), 'exact bound' (no spread), 'minimum units', or '' when not undecided."""

    @property
    def message(self) -> str:
        """The one line a CI log shows: the decision, the difference with its interval, the margin and what
        follows (the means and the number of items are in :attr:`means_text`, a note below the line). Intervals
        are written ``(a, b)`` as in every command."""
        from ..display import format_level, format_signed

        lo, hi = 100 * self.ci.low, 100 * self.ci.high
        d = self._decimals()
        head = {"pass": "PASS", "fail": "FAIL", "undecided": "UNDECIDED"}[self.decision]
        m = 100 * self.margin
        text = (f"{head}: candidate {format_signed(100 * self.difference, d)} points vs baseline,"
                f" {format_level(self.confidence_level)} {'anytime-valid ' if self.method == 'betting' else ''}CI"
                f" ({format_signed(lo, d)}, {format_signed(hi, d)})")
        if self.decision == "pass":
            return text + f" above the margin -{m:g}: non-inferior."
        if self.decision == "fail":
            return text + f" below the margin -{m:g}: regression."
        if self.reason == "too few units":
            what = f"{self.n_clusters} clusters" if self.n_clusters else f"{self.n} paired items"
            more = (f"only {what}, too few to decide (at least {MIN_UNITS})"
                    + (f"; collect at least {int(self.more_items):,} more paired items" if math.isfinite(self.more_items)
                       else "; collect more clusters"))
            return text + f": undecided, {more}."
        if self.reason == "no spread":
            more = "every per-item difference is the same: collect more items"
        elif not math.isfinite(self.more_items):
            more = "the difference sits on the margin: no number of items decides it"
        elif self.method == "betting":
            more = f"roughly {_rough(self.more_items):,} more paired items (fixed-sample formula; likely more)"
        else:
            more = f"about {int(self.more_items):,} more paired items would decide it"
        return text + f" across the margin -{m:g}; {more}."

    def _decimals(self) -> int:
        from ..display import decimals_for

        width = 100 * (self.ci.high - self.ci.low)
        width = width if math.isfinite(width) else float("nan")
        return decimals_for(width / 4) if width > 0 else 2  # the standard error, about a quarter of a 95% interval

    @property
    def means_text(self) -> str:
        """The note below the line: each run's mean in points and the items they were compared on."""
        from ..display import format_value

        d = self._decimals()
        more = ""
        if self.decision == "undecided" and self.more_items_basis and math.isfinite(self.more_items):
            more = f"; more items: {self.more_items_basis}, for 80% power if the observed difference is the true one"
        return NOTE_GATE_MEANS(candidate=format_value(100 * self.candidate_mean, d),
                               baseline=format_value(100 * self.baseline_mean, d), n=self.n,
                               margin=100 * self.margin, more=more)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("ci")
        d["ci_low"], d["ci_high"] = float(self.ci.low), float(self.ci.high)
        d["models"] = list(self.models)
        d["notes"] = list(self.notes)
        d["message"] = self.message
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}

    def to_frame(self) -> pd.DataFrame:
        d = self.to_dict()
        d.pop("left_out")
        d.pop("notes")
        d["models"] = ",".join(d["models"])
        return pd.DataFrame([d])


def _rough(count: float) -> int:
    """A count rounded to 2 significant figures (a rough figure should not look precise)."""
    count = int(count)
    if count < 100:
        return count
    step = 10 ** (len(str(count)) - 2)
    return int(round(count / step) * step)


def _one_model(table, model, role: str) -> str:
    if model is None:
        if len(table.models) != 1:
            raise InputError(f"the {role} file holds {len(table.models)} models ({', '.join(table.models[:8])});"
                             " choose one with --model", source=table.source)
        return table.models[0]
    if model not in table.models:
        raise InputError(f"model '{model}' is not in the {role} file (it has {', '.join(table.models[:8])})",
                         source=table.source)
    return model


def paired_runs(baseline, candidate, *, models=None, tasks=None):
    """Pair two runs on their common (task, item) keys; trial scores are averaged per item.

    Parameters
    ----------
    baseline, candidate : ResultsTable
        Item-level tables (anything :func:`evalband.select` accepts).
    models : str or (str, str), optional
        The model to take from each table (one name for both, or baseline and candidate names); needed only
        when a table holds several models.
    tasks : sequence of str, optional
        The tasks to compare (each must be in both runs); default every task.

    Returns
    -------
    frame : pandas.DataFrame
        Columns ``task, item, baseline, candidate`` and ``cluster`` (when either table has clusters), in the
        baseline's item order.
    names : (str, str)
    left_out : dict
        ``{'baseline_only': int, 'candidate_only': int}``.

    Examples
    --------
    >>> import pandas as pd
    >>> import evalband as eb
    >>> from evalband.plan import paired_runs
    >>> old = eb.read(pd.DataFrame({"model": "v1", "task": "qa", "item": ["a", "b", "c"], "score": [1, 0, 1]}))
    >>> new = eb.read(pd.DataFrame({"model": "v2", "task": "qa", "item": ["a", "b", "d"], "score": [1, 1, 0]}))
    >>> frame, names, left_out = paired_runs(old, new)
    >>> frame
      task item  baseline  candidate
    0   qa    a       1.0        1.0
    1   qa    b       0.0        1.0
    >>> names, left_out
    (('v1', 'v2'), {'baseline_only': 1, 'candidate_only': 1})
    """
    from ..selection import select

    baseline, candidate = select(baseline, tasks=tasks).table, select(candidate, tasks=tasks).table
    for t, role in ((baseline, "baseline"), (candidate, "candidate")):
        if t.level != "item":
            raise InputError(f"the {role} file holds per-task summaries; the gate needs per-item scores",
                             source=t.source)
    if models is None or isinstance(models, str):
        mb = mc = models
    else:
        models = list(models)
        if len(models) == 1:
            mb = mc = models[0]
        elif len(models) == 2:
            mb, mc = models
        else:
            raise ArgumentError(words('`{arg:models}` must be one name or two (baseline, candidate); got {models!r}.', models=models))
    mb, mc = _one_model(baseline, mb, "baseline"), _one_model(candidate, mc, "candidate")

    def per_item(table, model):
        d = table.data.loc[table.data["model"] == model]
        keys = [d["task"].astype(str), d["item"].astype(str)]
        g = d.groupby(keys, sort=False, observed=True)
        out = g["score"].mean().rename("score").to_frame()
        if "cluster" in d.columns:
            out["cluster"] = g["cluster"].first().astype(str)
        out.index.names = ["task", "item"]
        return out

    b, c = per_item(baseline, mb), per_item(candidate, mc)
    joined = b.merge(c, how="inner", left_index=True, right_index=True, suffixes=("_b", "_c"))
    note = None
    tb, tc = b.index.unique(level=0), c.index.unique(level=0)
    if len(joined) == 0 and len(tb) == 1 and len(tc) == 1 and tb[0] != tc[0]:
        # one task each, named differently (e.g. after the file names when there is no task column): pair by item
        c = c.rename(index={tc[0]: tb[0]}, level=0)
        joined = b.merge(c, how="inner", left_index=True, right_index=True, suffixes=("_b", "_c"))
        note = f"each run holds one task, named differently ('{tb[0]}', '{tc[0]}'): items paired by item id"
    left = {"baseline_only": int(len(b) - len(joined)), "candidate_only": int(len(c) - len(joined))}
    if len(joined) == 0:
        raise InputError("the baseline and candidate runs share no (task, item); are they runs of the same"
                         " evaluation?", source=f"{baseline.source} / {candidate.source}")
    frame = pd.DataFrame({"task": joined.index.get_level_values(0), "item": joined.index.get_level_values(1),
                          "baseline": joined["score_b"].to_numpy(), "candidate": joined["score_c"].to_numpy()})
    if "cluster_b" in joined.columns or "cluster_c" in joined.columns or "cluster" in joined.columns:
        col = "cluster_b" if "cluster_b" in joined.columns else "cluster_c" if "cluster_c" in joined.columns \
            else "cluster"
        frame["cluster"] = frame["task"].astype(str) + "\x1f" + joined[col].to_numpy().astype(str)
    if note:
        frame.attrs["note"] = note
    return frame, (str(mb), str(mc)), left


def _betting_order(frame: pd.DataFrame, rng) -> np.ndarray:
    """Positions of the paired items in the order the betting sequence takes them: the canonical (natural) order
    of (task, item), permuted by the stream keyed by ``rng`` and 'gate-betting'."""
    tasks = {t: k for k, t in enumerate(natural_order(frame["task"].astype(str)))}
    items = {t: k for k, t in enumerate(natural_order(frame["item"].astype(str)))}
    canonical = np.lexsort((frame["item"].astype(str).map(items).to_numpy(),
                            frame["task"].astype(str).map(tasks).to_numpy()))
    gen = block_generator(run_entropy(as_generator(rng)), (name_key("gate-betting"),))
    return canonical[gen.permutation(canonical.size)]


NOTE_ALL_ITEMS_ONE_CLUSTER = NoteKind('plan.all-items-one-cluster', 'excluded',
                                       'all items are in one cluster; clustering ignored')
NOTE_DIFFERENCE_MEAN_OVER_PAIRED = NoteKind(
    'plan.difference-mean-over-paired', 'info',
    'the difference is the mean over the {n:,} paired items pooled across {n_tasks} tasks (each item counts '
    'once, so larger tasks weigh more); compare and rank report the mean over tasks (each task counts once), '
    'which can differ')
NOTE_INTERVAL_CLUSTER_ROBUST_T = NoteKind('plan.interval-cluster-robust-t', 'info',
                                           'interval: cluster-robust t over {g} clusters ({value} degrees of freedom)')
NOTE_INTERVAL_PAIRED_T_PER = NoteKind('plan.interval-paired-t-per', 'info',
                                       'interval: paired t on the per-item differences (items taken as independent)')
NOTE_BETTING_PAIRED_ITEMS_TAKEN = NoteKind(
    'plan.betting-paired-items-taken', 'caveat',
    'betting: the {n:,} paired items are taken in a random order fixed by the seed ({arg:rng={seed}}; a permutation'
    ' of the items in their canonical order), so the decision does not depend on the order of the rows')
NOTE_BETTING_GIVEN_RNG = NoteKind(
    'plan.betting-paired-items-taken-rng', 'caveat',
    'betting: the {n:,} paired items are taken in a random order fixed by the seed (the given rng; a permutation'
    ' of the items in their canonical order), so the decision does not depend on the order of the rows')
NOTE_EVERY_PER_ITEM_DIFFERENCE = NoteKind(
    'plan.every-per-item-difference', 'caveat',
    'every per-item difference is {value:+.4g} points (standard error 0): the interval is the exact bound on the '
    'share of items that could differ (Clopper-Pearson), not a t interval')
NOTE_ONLY_NO_INTERVAL_FROM = NoteKind(
    'plan.only-no-interval-from', 'caveat',
    'only {units} {value}: no interval from fewer than {min_units} is trusted, so the gate does not decide')
NOTE_BETTING_INTERVAL_TREATS_ITEMS = NoteKind(
    'plan.betting-interval-treats-items', 'excluded',
    'the betting interval treats items as independent; clusters are not used')


NOTE_GATE_UNPAIRED = NoteKind("plan.gate-unpaired-items", "excluded", "items left out of the pairing:"
                              " {baseline_only:,} only in the baseline, {candidate_only:,} only in the candidate")


NOTE_MORE_ITEMS_ROUGH = NoteKind("plan.more-items-rough", "caveat", "more items: a rough figure from the"
                                 " fixed-sample normal formula; the anytime-valid interval narrows more slowly{here},"
                                 " so expect to need more")


def release_gate(baseline, candidate, *, margin: float = 0.01, confidence_level=0.95, method: str = "t",
                 power: float = 0.8, models=None, tasks=None, rng=0) -> GateResult:
    """Decide whether a candidate run may replace a baseline run (paired non-inferiority).

    Parameters
    ----------
    baseline, candidate : ResultsTable (or anything :func:`evalband.io.read` accepts)
        Item-level results of the two runs on the same items (one model each, or pick with ``models``).
    margin : float
        Largest acceptable drop, as a fraction (0.01 = one point); >= 0.
    confidence_level : float or str
        Two-sided level of the interval; each decision errs with probability at most ``(1 - level) / 2``.
    method : {'t', 'betting'}
        't': paired t interval on the per-item differences (cluster-robust with ``clusters - 1`` degrees of
        freedom when items carry clusters). 'betting': the anytime-valid hedged-capital confidence sequence
        (:mod:`evalband.plan.sequential`), for pipelines that re-run the gate as items accumulate; needs scores
        in [0, 1] and ignores clusters.
    power : float
        Power used for the "more items" estimate when undecided.
    models : str or (str, str), optional
    rng : int, Generator or None, default 0
        'betting' only: the seed of the order in which the confidence sequence takes the items (a permutation of
        the items in their canonical order, see Notes). The default 0 makes a CI gate give the same decision on
        every run; None draws a fresh order.

    Returns
    -------
    GateResult

    Notes
    -----
    The betting confidence sequence depends on the order of the items, so the order is fixed by rule, never by
    the order of the rows in the files: the paired items in the canonical (natural) order of their task and item
    labels, then permuted by a stream keyed by ``rng`` and the name 'gate-betting'. Shuffled rows give the same
    decision; another seed gives another valid anytime interval.

    The t interval is valid when items are an independent sample (or clusters are, with enough clusters,
    roughly 30 or more) and ``n`` is large enough for the mean difference to be near normal.

    With fewer than :data:`MIN_UNITS` (10) paired items (or clusters) the gate never decides: no interval from so
    few items can be trusted (3 items, all right in one run and wrong in the other, give a t interval of zero
    width, while the exact sign test gives p = 0.25). When every per-item difference is the same (standard error
    0) the t interval has zero width; for scores in [0, 1] it is widened to the exact bound on the share of items
    that could differ: with none of ``n`` items deviating, the share is below ``1 - (alpha/2)^(1/n)`` at the
    one-sided level (the Clopper-Pearson bound ``s``), and an item's difference lies in [-1, 1], so such items can
    move the mean difference ``d`` down by at most ``s (1 + d)`` and up by at most ``s (1 - d)``; the interval
    becomes ``[d - s (1 + d), d + s (1 - d)]``. 500 identical items then pass a 1-point margin at 90%
    (``s = 0.006``); 6 do not.

    Examples
    --------
    >>> import evalband as eb
    >>> table = eb.load_example("mmlu-pro")
    >>> gate = eb.release_gate(table, table, models=["gemini-1.5-pro-002", "gemini-1.5-flash-002"], margin=0.02)
    >>> gate.decision
    'fail'
    """
    conf = check_confidence_level(confidence_level)
    method = check_choice(method, GATE_METHODS, "method")
    power = check_probability(power, "power")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not (0 <= margin < 1):
        raise ArgumentError(words('`{arg:margin}` must be a number in [0, 1) (a fraction: 0.01 is one point); got {margin!r}.', margin=margin))
    margin = float(margin)
    frame, names, left = paired_runs(baseline, candidate, models=models, tasks=tasks)
    notes = [frame.attrs["note"]] if frame.attrs.get("note") else []
    if left["baseline_only"] or left["candidate_only"]:
        notes.append(NOTE_GATE_UNPAIRED(baseline_only=left["baseline_only"], candidate_only=left["candidate_only"]))
    b = frame["baseline"].to_numpy(float)
    c = frame["candidate"].to_numpy(float)
    d = c - b
    n = d.size
    if n < 2:
        raise InputError(f"only {n} paired item: too few for an interval", source="gate")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    G = 0
    deff = 1.0
    clustered = "cluster" in frame.columns and frame["cluster"].nunique() >= 2
    if "cluster" in frame.columns and not clustered:
        notes.append(NOTE_ALL_ITEMS_ONE_CLUSTER())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if clustered:
            codes = pd.factorize(frame["cluster"])[0]
            est = cluster_interval(d, codes, confidence_level=conf)
            G = int(est.extras["n_clusters"])
            deff = float(est.extras["design_effect"]) if sd > 0 else 1.0
        else:
            est = mean_interval(d, confidence_level=conf)
    notes.extend(str(w.message) for w in caught)
    se = float(est.se)
    n_tasks = int(frame["task"].nunique())
    if n_tasks > 1:
        notes.append(NOTE_DIFFERENCE_MEAN_OVER_PAIRED(n=n, n_tasks=n_tasks))
    if method == "t":
        low, high = float(est.ci.low), float(est.ci.high)
        notes.append(NOTE_INTERVAL_CLUSTER_ROBUST_T(g=G, value=G - 1) if G else
                     NOTE_INTERVAL_PAIRED_T_PER())
    else:
        if b.min() < 0 or b.max() > 1 or c.min() < 0 or c.max() > 1:
            raise InputError("method 'betting' needs scores in [0, 1]", source="gate")
        order = _betting_order(frame, rng)
        seq = SequentialComparison(confidence_level=conf, names=("candidate", "baseline"))
        state = seq.update(c[order], b[order])
        notes.append(NOTE_BETTING_PAIRED_ITEMS_TAKEN(n=n, seed=rng) if isinstance(rng, int)
                     else NOTE_BETTING_GIVEN_RNG(n=n))
        low, high = float(state.ci.low), float(state.ci.high)
        if G:
            notes.append(NOTE_BETTING_INTERVAL_TREATS_ITEMS())
    units = G if G else n
    bounded = b.min() >= 0 and b.max() <= 1 and c.min() >= 0 and c.max() <= 1
    if sd == 0 and bounded:  # a zero-width interval says only that the items agree; use the exact bound instead
        share = 1 - ((1 - conf) / 2) ** (1 / n)
        low, high = min(low, mean - share * (1 + mean)), max(high, mean + share * (1 - mean))
        notes.append(NOTE_EVERY_PER_ITEM_DIFFERENCE(value=100 * mean))
    reason = ""
    if units < MIN_UNITS:
        decision, reason = "undecided", "too few units"
        notes.append(NOTE_ONLY_NO_INTERVAL_FROM(units=units, value='clusters' if G else 'paired items', min_units=MIN_UNITS))
    elif sd == 0 and not bounded:
        decision, reason = "undecided", "no spread"
    elif low > -margin:
        decision = "pass"
    elif high < -margin:
        decision = "fail"
    else:
        decision = "undecided"
    more, basis = math.nan, ""
    if decision == "undecided":
        gap = mean + margin
        if sd == 0 and gap != 0 and bounded:
            # items until the exact bound clears the margin, if the items keep agreeing
            room = min(gap / (1 + mean) if gap > 0 else -gap / max(1 - mean, 1e-12), 0.999)
            need = math.ceil(math.log((1 - conf) / 2) / math.log(1 - room)) + 1
            more, basis = float(max(need - n, 1)), "exact bound"
        elif sd == 0 and gap != 0:
            reason = reason or "no spread"
            more = math.inf
        elif gap == 0 or sd == 0:
            more = math.inf
        else:
            need = _solve_power(effect=abs(gap), power=power, variance=sd ** 2 * deff, alpha=(1 - conf) / 2,
                               alternative="greater", method="t" if method == "t" else "normal",
                               cluster_size=n / G if G else 1.0)
            more = float(max(math.ceil(need - n), 1)) if math.isfinite(need) else math.inf
            basis = ("fixed-sample t formula" if method == "t" else
                     "fixed-sample normal formula (rough for the betting interval)")
            if method == "betting":
                ratio = (high - low) / float(est.ci.high - est.ci.low) if est.ci.high > est.ci.low else math.nan
                notes.append(NOTE_MORE_ITEMS_ROUGH(
                    here=f" (here it is {ratio:.1f} times as wide as the fixed-sample interval)"
                    if math.isfinite(ratio) else ""))
        if units < MIN_UNITS and not G:
            if not math.isfinite(more) or more < MIN_UNITS - units:
                more, basis = float(MIN_UNITS - units), "minimum units"
    if not se > 0:  # an SE of 0 says only that the items agree: the one the interval implies, or none (issue 22)
        se = float((high - low) / (2 * ndtri(0.5 + conf / 2))) if sd == 0 and bounded else math.nan
    return GateResult(decision, EXIT_CODES[decision], n, float(b.mean()), float(c.mean()), mean, se,
                      ConfidenceInterval(low, high), margin, conf, method, more, G, left, names, tuple(notes),
                      reason, basis)
