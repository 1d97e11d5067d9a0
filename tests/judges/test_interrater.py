"""Agreement coefficients against published values and peer libraries; the bootstrap over units against a
direct recomputation on resampled units."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalband.judges as ej
from evalband.io.ratings import read_ratings
from evalband.judges import _coefficients as coef
from evalband.resample.units import block_generator, run_entropy
from evalband.judges.interrater import UNIT_KEY
from evalband.resample import draw_counts

CODINGS = Path(__file__).resolve().parents[1] / "fixtures" / "krippendorff_codings" / "codings.csv"


def codings() -> np.ndarray:
    """Krippendorff (2011): 4 coders (rows) x 12 units (columns), NaN = missing."""
    return pd.read_csv(CODINGS, header=None).to_numpy(dtype=float)


def codings_long(path: Path) -> Path:
    d = codings()
    rows = [{"unit": f"u{u + 1:02d}", "rater": f"coder {r + 1}", "value": "" if np.isnan(d[r, u]) else int(d[r, u])}
            for r in range(d.shape[0]) for u in range(d.shape[1])]
    out = path / "codings_long.csv"
    pd.DataFrame(rows).to_csv(out, index=False)
    return out


# krippendorff.alpha(reliability_data=codings(), level_of_measurement=LEVEL), krippendorff 0.9.0
KRIPPENDORFF = {"nominal": 0.743421052631579, "ordinal": 0.8153875037548814, "interval": 0.8491071428571428,
                "ratio": 0.7974027747116121}


def test_contract_nominal_alpha_long_form(tmp_path):
    """The CLI contract: long form (unit, rater, value), level nominal -> 0.743 with the value inside the CI."""
    res = ej.agreement(codings_long(tmp_path), measurement="nominal", rng=2026)
    assert round(res.krippendorff_alpha, 3) == 0.743  # Krippendorff (2011), published
    low, high = res.alpha_ci
    assert low < 0.743 < high
    frame = res.to_frame()
    row = frame.loc[frame["statistic"] == "krippendorff_alpha"].iloc[0]
    assert {"estimate", "ci_low", "ci_high", "se", "n_units"} <= set(frame.columns)
    assert row["n_units"] == 11  # unit 12 has a single rating: not pairable


@pytest.mark.parametrize("level", list(KRIPPENDORFF))
def test_alpha_every_level_matches_krippendorff(level):
    table = ej.RatingsTable.from_reliability_data(codings())
    res = ej.agreement(table, measurement=level, n_resamples=50, rng=0)
    assert res.krippendorff_alpha == pytest.approx(KRIPPENDORFF[level], abs=1e-12)


def test_alpha_live_krippendorff():
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(5)
    data = rng.integers(1, 6, size=(5, 40)).astype(float)
    data[rng.uniform(size=data.shape) < 0.2] = np.nan
    table = ej.RatingsTable.from_reliability_data(data)
    for level in KRIPPENDORFF:
        ours = coef.alpha(table.counts, level, table.values).observed()
        assert ours == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement=level),
                                     abs=1e-12)


def test_fleiss_on_complete_units_matches_statsmodels():
    # statsmodels.stats.inter_rater.fleiss_kappa(table, method='fleiss') on the 8 units all four coders rated,
    # table = [[0,3,1,0,0],[0,0,4,0,0],[0,0,4,0,0],[0,4,0,0,0],[1,1,1,1,0],[0,0,0,4,0],[3,1,0,0,0],[0,4,0,0,0]]
    expected = 0.6414565826330533
    res = ej.agreement(ej.RatingsTable.from_reliability_data(codings()), measurement="nominal", rng=0,
                       n_resamples=50)
    frame = res.to_frame().set_index("statistic")
    assert frame.loc["fleiss_kappa", "estimate"] == pytest.approx(expected, abs=1e-12)
    assert frame.loc["fleiss_kappa", "n_units"] == 8
    assert any("Fleiss' kappa needs the same number of ratings" in n for n in res.notes)
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    d = codings()
    full = d[:, ~np.isnan(d).any(axis=0)]
    table = np.array([[np.sum(full[:, u] == c) for c in range(1, 6)] for u in range(full.shape[1])])
    assert inter_rater.fleiss_kappa(table, method="fleiss") == pytest.approx(expected, abs=1e-12)


# sklearn.metrics.cohen_kappa_score(a, b, labels=[1, 2, 3, 4, 5], weights=W) on the units both coders rated
COHEN = {("rater 1", "rater 2"): (0.8448275862068966, 0.8941176470588236, 0.9395973154362416),
         ("rater 2", "rater 3"): (0.5423728813559321, 0.7157894736842105, 0.8571428571428572),
         ("rater 3", "rater 4"): (0.6153846153846154, 0.7727272727272727, 0.8920863309352518)}


def test_cohen_pairs_weighted_match_sklearn():
    res = ej.agreement(ej.RatingsTable.from_reliability_data(codings()), measurement="ordinal", rng=0,
                       n_resamples=50)
    frame = res.to_frame()
    for (a, b), values in COHEN.items():
        for name, value in zip(("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic"), values):
            row = frame[(frame["statistic"] == name) & (frame["rater_a"] == a) & (frame["rater_b"] == b)]
            assert row["estimate"].iloc[0] == pytest.approx(value, abs=1e-12), (a, b, name)


def test_cohen_live_sklearn_and_statsmodels():
    metrics = pytest.importorskip("sklearn.metrics")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, 300)
    b = np.where(rng.uniform(size=300) < 0.6, a, rng.integers(0, 4, 300))
    table = ej.RatingsTable.from_reliability_data(np.vstack([a, b]).astype(float), raters=["a", "b"])
    res = ej.agreement(table, measurement="ordinal", rng=0, n_resamples=20).to_frame().set_index("statistic")
    for w, name in ((None, "cohen_kappa"), ("linear", "cohen_kappa_linear"), ("quadratic", "cohen_kappa_quadratic")):
        assert res.loc[name, "estimate"] == pytest.approx(metrics.cohen_kappa_score(a, b, weights=w), abs=1e-12)
        ct = pd.crosstab(a, b).to_numpy()
        assert res.loc[name, "estimate"] == pytest.approx(inter_rater.cohens_kappa(ct, wt=w).kappa, abs=1e-12)


def test_gwet_ac1_matches_irrcac():
    # irrCAC.raw.CAC(pd.DataFrame(codings().T), categories=[1.0, 2.0, 3.0, 4.0, 5.0]).gwet() -> AC1 0.77544,
    # pa 0.81818 (irrCAC 0.4.4 rounds to 5 digits; without categories= it counts NaN as a sixth category)
    res = ej.agreement(ej.RatingsTable.from_reliability_data(codings()), rng=0, n_resamples=50)
    frame = res.to_frame().set_index("statistic")
    assert frame.loc["gwet_ac1", "estimate"] == pytest.approx(0.77544, abs=5e-6)
    assert frame.loc["percent_agreement", "estimate"] == pytest.approx(0.81818, abs=5e-6)
    # theory: of the 11 pairable units, 8 have all ratings equal (share 1), units 2 and 8 (three equal of four:
    # 6 of 12 ordered pairs agree) have 1/2, unit 6 (1, 2, 3, 4) has 0: (8 + 1/2 + 1/2 + 0) / 11 = 9/11
    assert frame.loc["percent_agreement", "estimate"] == pytest.approx(9 / 11, abs=1e-15)
    irr = pytest.importorskip("irrCAC.raw")
    est = irr.CAC(pd.DataFrame(codings().T), categories=[1.0, 2.0, 3.0, 4.0, 5.0]).gwet()["est"]
    assert frame.loc["gwet_ac1", "estimate"] == pytest.approx(est["coefficient_value"], abs=5e-6)


def test_replicates_equal_recomputation_on_resampled_units():
    """Theory: a replicate from unit draw counts equals alpha recomputed on the units drawn (duplicated)."""
    data = codings()
    table = ej.RatingsTable.from_reliability_data(data)
    res = ej.agreement(table, measurement="interval", n_resamples=7, rng=42)
    entropy = run_entropy(np.random.default_rng(42))
    counts = draw_counts(block_generator(entropy, (*UNIT_KEY, 0)), table.n_units, 7)
    order = np.argsort(np.asarray(table.units))  # table units are sorted labels; columns of data are 01..12
    k = res.statistic.index("krippendorff_alpha")
    for b in range(7):
        cols = np.repeat(np.arange(table.n_units), counts[b].astype(int))
        boot = data[:, order][:, cols]
        direct = ej.RatingsTable.from_reliability_data(boot)
        expected = coef.alpha(direct.counts, "interval", direct.values).observed()
        assert res.samples[b, k] == pytest.approx(expected, abs=1e-12)


def test_same_seed_same_numbers_whatever_the_row_order(tmp_path):
    path = codings_long(tmp_path)
    frame = pd.read_csv(path, keep_default_na=False)
    a = ej.agreement(frame, measurement="nominal", rng=7, n_resamples=300).to_frame()
    shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    b = ej.agreement(shuffled, measurement="nominal", rng=7, n_resamples=300).to_frame()

    def canonical(f):  # raters are listed in order of first appearance: a pair may come the other way round
        pair = np.sort(f[["rater_a", "rater_b"]].to_numpy(dtype=str), axis=1)
        f = f.assign(rater_a=pair[:, 0], rater_b=pair[:, 1])
        return f.sort_values(["statistic", "rater_a", "rater_b"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(canonical(a), canonical(b))
    c = ej.agreement(frame, measurement="nominal", rng=8, n_resamples=300).to_frame()
    assert not np.allclose(a["ci_low"], c["ci_low"])


def test_clusters_resampled_whole():
    rng = np.random.default_rng(3)
    n_clusters, per = 30, 5
    # units within a cluster share their true value: resampling whole clusters widens the interval
    truth = np.repeat(rng.integers(0, 3, n_clusters), per)
    raters = np.array([np.where(rng.uniform(size=truth.size) < 0.8, truth, rng.integers(0, 3, truth.size))
                       for _ in range(3)])
    rows = [{"unit": f"u{u:03d}", "rater": f"r{r}", "value": int(raters[r, u]), "cluster": f"c{u // per:02d}"}
            for r in range(3) for u in range(truth.size)]
    frame = pd.DataFrame(rows)
    flat = ej.agreement(frame, measurement="nominal", rng=1, n_resamples=400)
    clustered = ej.agreement(frame, measurement="nominal", cluster="cluster", rng=1, n_resamples=400)
    assert clustered.krippendorff_alpha == pytest.approx(flat.krippendorff_alpha)
    assert clustered.n_clusters == n_clusters and flat.n_clusters is None
    assert clustered.alpha_ci.width > flat.alpha_ci.width  # whole clusters: fewer independent units


def test_kappa_paradox_note():
    # 50 units, 2 raters, 46 both 'no', 2 disagreements each way: agreement 92%, kappa about -0.04
    a = ["no"] * 46 + ["yes", "yes", "no", "no"]
    b = ["no"] * 46 + ["no", "no", "yes", "yes"]
    table = ej.RatingsTable.from_reliability_data(np.array([a, b], dtype=object), raters=["a", "b"])
    res = ej.agreement(table, rng=0, n_resamples=200)
    assert any(n.startswith("kappa paradox") for n in res.notes)
    frame = res.to_frame().set_index("statistic")
    assert frame.loc["gwet_ac1", "estimate"] > 0.85 > 0.0 > frame.loc["fleiss_kappa", "estimate"]


def test_bca_interval_and_errors():
    table = ej.RatingsTable.from_reliability_data(codings())
    res = ej.agreement(table, measurement="nominal", method="bca", rng=0, n_resamples=500)
    low, high = res.alpha_ci
    assert low < res.krippendorff_alpha < high
    with pytest.raises(ValueError, match="`method`"):
        ej.agreement(table, method="student", rng=0)
    with pytest.raises(ValueError, match="`kappa_weights`"):
        ej.agreement(table, kappa_weights="cubic", rng=0)
    with pytest.raises(ValueError, match="`pairs`: unknown rater 'x'"):
        ej.agreement(table, pairs=[("rater 1", "x")], rng=0)
    assert "krippendorff_alpha" in repr(res) and len(repr(res)) < 2000
    assert "<table" in res._repr_html_()


def test_many_raters_skip_pairs_with_a_note():
    rng = np.random.default_rng(0)
    data = rng.integers(0, 2, size=(12, 30)).astype(float)
    res = ej.agreement(ej.RatingsTable.from_reliability_data(data), rng=0, n_resamples=20)
    assert not any(s.startswith("cohen") for s in res.statistic)
    assert any("Cohen's kappa per pair left out" in n for n in res.notes)
    res = ej.agreement(ej.RatingsTable.from_reliability_data(data), pairs=[("rater 1", "rater 2")], rng=0,
                       n_resamples=20)
    assert sum(s == "cohen_kappa" for s in res.statistic) == 1


def test_read_ratings_wide_equals_long(tmp_path):
    d = codings()
    wide = pd.DataFrame(d.T, columns=[f"coder {r + 1}" for r in range(4)])
    wide.insert(0, "unit", [f"u{u + 1:02d}" for u in range(12)])
    path = tmp_path / "wide.tsv"
    wide.to_csv(path, sep="\t", index=False)
    a = ej.agreement(read_ratings(path, shape="wide"), measurement="nominal", rng=3, n_resamples=200)
    b = ej.agreement(codings_long(tmp_path), measurement="nominal", rng=3, n_resamples=200)
    assert a.krippendorff_alpha == pytest.approx(b.krippendorff_alpha)
    np.testing.assert_allclose(a.to_frame()["ci_low"], b.to_frame()["ci_low"])
