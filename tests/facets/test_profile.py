"""Profile-likelihood intervals of REML variance components (issue 22: few levels of a random facet).

Oracle: lme4's REML deviance profiled in R (tests/facets/reml_profile_lme4.R; lme4's own confint(method =
"profile") profiles the ML deviance, whose intervals it prints beside as comments), and lme4's deviance at a point
our profile found where R's optimizer stopped early (tests/facets/reml_profile_point_lme4.R). Theory: the chi-square
pivot these intervals replaced gave bounds such as 1e59 (and a lower bound above the estimate) for a component of 3
prompt levels; a component of scores in [0, 1] is at most 0.25. Coverage: a simulation judged with a binomial test.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from evalband.facets import reml_components, variance_components
from evalband.io import read

R1 = Path(__file__).resolve().parents[1] / "fixtures" / "facets" / "reml_r1.csv"

# R 4.2.2, lme4 1.1.31, minqa 1.2.5: `Rscript tests/facets/reml_profile_lme4.R tests/fixtures/facets/reml_r1.csv`
# component: ((variance low, high), (share low, high)) at 95%, chi2_1 cut on the REML criterion
PROFILE = {
    "m0": {  # REML criterion 1258.7028224385
        "item x prompt": ((0, 0.03356913679), (0, 0.09828340298)),  # variance 0.0152951, share 0.03416
        "item x seed": ((0, 0.01949290476), (0, 0.1027174687)),  # variance 0.00592298, share 0.02586
        "item": ((0.0205485716, 0.06276188461), (0.1558390355, 0.7405581661)),  # variance 0.0370694, share 0.474347
        "prompt x seed": ((0, 0.003726971305), (0, 0.1756026531)),  # variance 0, share 0
        "prompt": ((0, 0.01667032904), (0, 0.7595332487)),  # variance 0.00232009, share 0.297098
        "seed": ((0, 0.01268254968), (0, 0.7751473748)),  # variance 3.30496e-05, share 0.00845918
        "item x prompt x seed, residual": ((0.168160685, 0.2166766869), (0.03755438937, 0.2831908003)),
        # lme4 confint(method = 'profile') (ML deviance), variance sd_(Intercept)|item:prompt: (0.0000000, 0.03363459)
        # lme4 confint(method = 'profile') (ML deviance), variance sd_(Intercept)|item:seed: (0.0000000, 0.01949402)
        # lme4 confint(method = 'profile') (ML deviance), variance sd_(Intercept)|item: (0.0201198, 0.06151201)
        # lme4 confint(method = 'profile') (ML deviance), variance sd_(Intercept)|prompt:seed: (0.0000000, 0.00372828)
        # lme4 confint(method = 'profile') (ML deviance), variance sd_(Intercept)|prompt: (0.0000000, 0.01289740)
        # lme4 confint(method = 'profile') (ML deviance), variance sd_(Intercept)|seed: (0.0000000, 0.00693382)
        # lme4 confint(method = 'profile') (ML deviance), variance sigma: (0.1681608, 0.21666984)
    },
    "m1": {  # REML criterion 1205.69748289074
        "item x prompt": ((0.006916713379, 0.04132617932), (0.0088892426, 0.08979103989)),  # 0.0230108, 0.0367892
        "item x seed": ((0.001164799079, 0.02655076394), (0.00349309131, 0.1054291613)),  # 0.0120769, 0.0377107
        "item": ((0.02375751005, 0.07168415462), (0.1147051015, 0.6581777519)),  # variance 0.042456, share 0.387812
        "prompt x seed": ((0, 0.002893958237), (0, 0.09827132227)),  # variance 0, share 0
        "prompt": ((0.0007200477214, 0.02830769029), (0.1011053037, 0.8258204872)),  # variance 0.00477375, 0.436184
        "seed": ((0, 0.008609807325), (0, 0.624763179)),  # variance 1.40476e-19, share 2.56714e-17
        "item x prompt x seed, residual": ((0.1480055336, 0.1921719551), (0.03823268084, 0.1824855144)),
    },
    "m0 - m1": {  # REML criterion 1444.30224118087
        "item x prompt": ((0, 0.02518795265), (0, 0.1317631786)),  # variance 0, share 0
        "item x seed": ((0, 0.01638156201), (0, 0.1654158611)),  # variance 0, share 0
        "item": ((0, 0.009486080745), (0, 0.2289663099)),  # variance 0, share 0
        "prompt x seed": ((0, 0.006086495608), (0, 0.4194459721)),  # variance 0, share 0
        "prompt": ((0, 0.008684301362), (0, 0.7081886787)),  # variance 0, share 0
        "seed": ((0, 0.04726087382), (0, 0.9712290961)),  # variance 0.00139353, share 0.498529
        "item x prompt x seed, residual": ((0.3227571679, 0.399675555), (0.02877090387, 0.9730326175)),
    },
}

# `Rscript tests/facets/reml_profile_point_lme4.R tests/fixtures/facets/reml_r1.csv`: lme4's REML deviance at the
# point (standard deviations of item, prompt, seed, item x prompt, item x seed, prompt x seed, residual) where our
# profile puts the lower bound of m0's item share (0.10779): "REML criterion at the estimates 1258.7028224385, at
# the point 1262.5442492534, rise 3.8414268149". R's bobyqa, started from the estimates, stays in another mode
# (share 0.1558: variance moving from the item to the seed term is the lower profile); ours is within the cut.
POINT_SD = [0.1848726458045089, 0.05013139655001066, 0.10963385544188874, 0.12688021801727556, 0.0775400968578375,
            0.0, 0.4358813204526985]
POINT_RISE = 3.8414268149
# And the share of the residual in m0 - m1 reaches 1 (every other component 0: the model of pure noise) within
# the cut: R 4.2.2, d = reml_r1.csv, y = the m0 - m1 differences on shared cells,
# -2 * logLik(lm(y ~ 1), REML = TRUE) - 1444.30224118087 = 0.6195926931 (sd(y) = 0.6019986179); R's bobyqa,
# moving from one point to the next, stopped at 0.973.
# A share's profile minimizes over six variances on a surface with several modes (either side can stop in a local
# one): the bounds agree to 1% (m1's residual share_low 0.03862 against 0.03823), the components' to 1e-3.
SHARE_REL = 1.5e-2
NULL_RISE, NULL_SD = 0.6195926931, 0.6019986179
LOCAL_IN_R = {("m0", "item", "share_low"), ("m0 - m1", "item x prompt x seed, residual", "share_high")}


@pytest.fixture(scope="module")
def r1():
    df = pd.read_csv(R1)
    vc = variance_components(read(df, unbounded=True, facets=["prompt", "seed"]), method="reml", rng=0,
                             n_resamples=200)
    return vc


def _frames(vc):
    f = vc.to_frame()
    d = vc.difference_frame().assign(model=lambda x: x["model_a"] + " - " + x["model_b"])
    return pd.concat([f, d[f.columns]], ignore_index=True).set_index(["model", "component"])


@pytest.mark.parametrize("entity", list(PROFILE))
def test_profile_intervals_equal_lme4_reml_profile(r1, entity):
    f = _frames(r1)
    for comp, ((lo, hi), (slo, shi)) in PROFILE[entity].items():
        row = f.loc[(entity, comp)]
        assert row["ci_low"] == pytest.approx(lo, rel=1e-3, abs=1e-7), comp
        assert row["ci_high"] == pytest.approx(hi, rel=1e-3), comp
        if (entity, comp, "share_low") in LOCAL_IN_R:
            assert row["share_low"] < slo  # a lower profile than R's local optimum: checked at its point below
        else:
            assert row["share_low"] == pytest.approx(slo, rel=SHARE_REL, abs=1e-6), comp
        if (entity, comp, "share_high") in LOCAL_IN_R:
            assert row["share_high"] == pytest.approx(1.0) and shi < 1.0, comp  # R stopped below 1
        else:
            assert row["share_high"] == pytest.approx(shi, rel=SHARE_REL), comp
        assert row["ci_low"] <= row["variance"] <= row["ci_high"]
    assert any("profile-likelihood intervals" in n for n in r1.notes)


def test_profile_point_has_lme4_deviance(r1):
    """Where our profile of m0's item share differs from R's, lme4's own deviance at our point is within the cut."""
    fit = r1._fits[("t", "m0")]
    profiler, _, mult, _ = fit.profile
    v = np.square(POINT_SD) / profiler.scale2
    rise = profiler.model.full(v) - profiler.dev
    assert rise == pytest.approx(POINT_RISE, abs=1e-6)
    assert rise <= 3.841458820694124 + 1e-4
    share = mult[0] * v[0] / (mult @ v)
    assert share == pytest.approx(_frames(r1).loc[("m0", "item"), "share_low"], rel=1e-6)


def test_profile_reaches_the_pure_noise_model(r1):
    """m0 - m1: at a residual share of 1 the criterion is lm(y ~ 1)'s REML, 0.6196 above the optimum (R)."""
    profiler = r1._fits[("t", "m0", "m1")].profile[0]
    v = np.zeros(profiler.n)
    v[-1] = NULL_SD ** 2 / profiler.scale2
    assert profiler.model.full(v) - profiler.dev == pytest.approx(NULL_RISE, abs=1e-6)


def _three_prompts(seed, sd_prompt=0.3, binary=True, items=60, drop=0.15):
    gen = np.random.default_rng(seed)
    rows = []
    for m in ("a", "b"):
        pe, ie = gen.normal(0, sd_prompt, 3), gen.normal(0, 0.8, items)
        for i in range(items):
            for p in range(3):
                if gen.random() < drop:
                    continue
                eta = 0.5 + ie[i] + pe[p]
                score = float(gen.random() < 1 / (1 + np.exp(-eta))) if binary else eta + gen.normal()
                rows.append((m, "t", i, p, score))
    return pd.DataFrame(rows, columns=["model", "task", "item", "prompt", "score"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_three_prompt_levels_give_bounded_honest_intervals(seed):
    # issue 22: with 3 prompt levels the chi-square pivot printed upper bounds up to 2e293 (and a lower bound of
    # 1521 for an estimate of 0.0001); every interval now holds its estimate and stays within what 0/1 scores allow
    vc = variance_components(_three_prompts(seed), facets="prompt", rng=0)
    for frame, top in ((vc.to_frame(), 0.25), (vc.difference_frame(), 1.0)):
        assert (frame["ci_low"] <= frame["variance"] + 1e-12).all()
        assert (frame["variance"] <= frame["ci_high"] + 1e-12).all()
        assert (frame["ci_high"] <= top + 1e-12).all()
        assert (frame["share_low"] <= frame["share"] + 1e-9).all() and (frame["share"] <= frame["share_high"] + 1e-9).all()
        assert (frame["share_high"] <= 1).all()
    capped = (vc.to_frame()["ci_high"] >= 0.25 - 1e-12).sum() + (vc.difference_frame()["ci_high"] >= 1 - 1e-12).sum()
    assert any("the largest variance scores in [0, 1] allow" in n for n in vc.notes) == bool(capped)


def test_unbounded_scores_without_a_bound_are_left_empty():
    # two levels of a facet whose profile cannot reach the cut before the search gives up: NaN and a note, never 1e59
    from evalband.facets.profile import Profiler, profile_intervals

    class Flat:  # a criterion that never rises with the first variance (no information about it)
        n_t, top = 1, False

        def full(self, v):
            return float((v[1] - 1.0) ** 2 * 100)

        def full_with_gradient(self, v):
            return self.full(v), np.array([0.0, 200 * (v[1] - 1.0)])

    prof = Profiler(Flat(), np.array([0.5, 1.0]))
    ci, share, open_ended = profile_intervals(prof, [[0], [1]], np.array([0.0, 0.0]), confidence_level=0.95)
    assert open_ended == 1 and np.isnan(ci[0, 1]) and ci[0, 0] == 0.0
    assert np.all(np.isfinite(ci[1])) and ci[1, 0] < 1 < ci[1, 1]


@pytest.mark.slow
def test_profile_coverage_with_three_levels():
    # 40 items x 3 prompts, 20% of cells missing, normal effects (item 1, prompt 0.25, residual 1): the profile
    # intervals of every component hold the level (measured over 400 sets: item 0.933, prompt 0.988, residual 0.943)
    n, hits = 300, np.zeros(3, dtype=int)
    for seed in range(n):
        gen = np.random.default_rng(seed)
        item, prompt = np.repeat(np.arange(40), 3), np.tile(np.arange(3), 40)
        keep = gen.random(item.size) > 0.2
        item, prompt = np.unique(item[keep], return_inverse=True)[1], prompt[keep]
        y = gen.normal(0, 1, 40)[item] + gen.normal(0, 0.5, 3)[prompt] + gen.normal(0, 1, item.size)
        fit = reml_components(y, [item, prompt], inv_n=np.ones((1, y.size)), within_ss=[0.0], within_df=[0],
                              top=False)
        prof = fit.profiler()
        for k, truth in enumerate((1.0, 0.25, 1.0)):
            lo, hi = prof.component_interval([k], confidence_level=0.95)
            hits[k] += lo <= truth <= hi
    for k in range(3):
        assert binomtest(int(hits[k]), n, 0.93, alternative="less").pvalue > 0.01, (k, hits[k] / n)
