"""Exact Beta-Binomial sampler against closed forms and an independent quadrature."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, special, stats

from evalband import ResultsTable, load_example
from evalband.bayes import beta_binomial, custom, exponential, parse_prior
from evalband.bayes.intervals import equal_tailed, hdi, ranks
from evalband.data.table import Counts


def pinned(a0, b0, sd=1e-4):
    """A prior that fixes alpha = a0 and beta = b0 (log-normal with a tiny sd): the conjugate case."""
    la, lb = np.log(a0), np.log(b0)
    return custom(lambda a, b: -0.5 * ((np.log(a) - la) ** 2 + (np.log(b) - lb) ** 2) / sd**2
                  - np.log(a) - np.log(b), label=f"pinned({a0}, {b0})")


def counts(correct, n, models=None, tasks=None):
    correct = np.atleast_2d(np.asarray(correct, dtype=float))
    n = np.broadcast_to(np.asarray(n, dtype=float), correct.shape).copy()
    m, t = correct.shape
    return Counts(tuple(models or [f"m{i}" for i in range(m)]), tuple(tasks or [f"t{j}" for j in range(t)]),
                  correct, n)


def test_conjugate_one_task_known_alpha_beta():
    # theta | y ~ Beta(a0 + y, b0 + n - y); y_new | y ~ BetaBinomial(n, a0 + y, b0 + n - y)
    a0, b0, y, n = 3.0, 7.0, 12, 40
    res = beta_binomial(counts([[y]], [[n]]), prior=pinned(a0, b0), n_draws=20_000, rng=1)
    post = stats.beta(a0 + y, b0 + n - y)
    theta = res.theta[:, 0, 0]
    assert stats.kstest(theta, post.cdf).pvalue > 0.001
    assert abs(theta.mean() - post.mean()) < 4 * post.std() / np.sqrt(theta.size)
    assert res.grid.theta_mean[0, 0] == pytest.approx(post.mean(), abs=1e-5)  # quadrature, no MC error
    assert res.grid.theta_sd[0, 0] == pytest.approx(post.std(), rel=1e-3)
    lo, hi = res.summary().loc[0, ["ci_low", "ci_high"]]
    assert lo == pytest.approx(post.ppf(0.025), abs=0.006)
    assert hi == pytest.approx(post.ppf(0.975), abs=0.006)
    # posterior predictive counts against the Beta-Binomial pmf (chi-square over cells with expectation >= 5)
    k = np.rint(res.theta_pred[:, 0, 0] * n).astype(int)
    pmf = stats.betabinom(n, a0 + y, b0 + n - y).pmf(np.arange(n + 1)) * k.size
    obs = np.bincount(k, minlength=n + 1)
    keep = pmf >= 5
    exp_k = np.append(pmf[keep], pmf[~keep].sum())
    obs_k = np.append(obs[keep], obs[~keep].sum())
    assert stats.chisquare(obs_k, exp_k * obs_k.sum() / exp_k.sum()).pvalue > 0.001


def test_conjugate_several_tasks_are_independent_given_alpha_beta():
    a0, b0 = 20.0, 5.0
    y, n = np.array([[3, 50, 170]]), np.array([[5, 60, 200]])
    res = beta_binomial(counts(y, n), prior=pinned(a0, b0), n_draws=20_000, rng=2)
    for j in range(3):
        post = stats.beta(a0 + y[0, j], b0 + n[0, j] - y[0, j])
        assert stats.kstest(res.theta[:, 0, j], post.cdf).pvalue > 0.001
    assert abs(np.corrcoef(res.theta[:, 0, 0], res.theta[:, 0, 2])[0, 1]) < 0.03


def _reference_moments(y, n, logprior, lo=-6.0, hi=11.0, size=700):
    """Posterior moments by brute-force quadrature in (log alpha, log beta) with the Beta-Binomial pmf written
    out with scipy.special.betaln: independent of the (log(a+b), logit mean) grid under test."""
    la = np.linspace(lo, hi, size)
    A, B = np.meshgrid(np.exp(la), np.exp(la), indexing="ij")
    lp = logprior(A, B) + np.log(A) + np.log(B)  # Jacobian of (log a, log b)
    for yj, nj in zip(y, n):
        lp = lp + special.betaln(yj + A, nj - yj + B) - special.betaln(A, B)
    w = np.exp(lp - lp.max())
    w /= w.sum()
    assert w[0].sum() + w[-1].sum() + w[:, 0].sum() + w[:, -1].sum() < 1e-8  # the box holds the posterior
    s = A + B
    out = {"u": (w * np.log(s)).sum(), "v": (w * np.log(A / B)).sum()}
    out["theta0"] = (w * (A + y[0]) / (s + n[0])).sum()
    return out


@pytest.mark.parametrize("prior,logprior", [
    (exponential(0.05), lambda a, b: stats.expon.logpdf(a, scale=20) + stats.expon.logpdf(b, scale=20)),
    (parse_prior("half-normal:30"), lambda a, b: stats.halfnorm.logpdf(a, scale=30) + stats.halfnorm.logpdf(b, scale=30)),
    (parse_prior("gamma:2,0.1"), lambda a, b: stats.gamma.logpdf(a, 2, scale=10) + stats.gamma.logpdf(b, 2, scale=10)),
])
def test_grid_matches_independent_quadrature(prior, logprior):
    y = np.array([[12, 30, 55, 9], [40, 41, 38, 44]])
    n = np.array([[40, 50, 80, 30], [50, 50, 50, 50]])
    res = beta_binomial(counts(y, n), prior=prior, n_draws=50, rng=0)
    g = res.grid
    assert g.refinement_shift.max() < 1e-3
    for i in range(2):
        ref = _reference_moments(y[i], n[i], logprior)
        assert g.uv_mean[i, 0] == pytest.approx(ref["u"], abs=2e-3 * g.uv_sd[i, 0] + 1e-4)
        assert g.uv_mean[i, 1] == pytest.approx(ref["v"], abs=2e-3 * g.uv_sd[i, 1] + 1e-4)
        assert g.theta_mean[i, 0] == pytest.approx(ref["theta0"], abs=2e-3 * g.theta_sd[i, 0])


def test_draws_agree_with_quadrature_on_vtab():
    res = beta_binomial(load_example("vtab"), n_draws=10_000, rng=3)
    g = res.grid
    assert g.refinement_shift.max() < 1e-4 and not g.at_limit.any()
    z = (res.theta.mean(axis=0) - g.theta_mean) / (g.theta_sd / np.sqrt(res.n_draws))
    assert np.abs(z).max() < 5  # 304 means: Monte Carlo error only
    u = np.log(res.alpha + res.beta)
    zu = (u.mean(axis=0) - g.uv_mean[:, 0]) / (g.uv_sd[:, 0] / np.sqrt(res.n_draws))
    assert np.abs(zu).max() < 5
    s = res.summary()
    assert s["ci_low"].lt(s["posterior_mean"]).all() and s["pred_low"].lt(s["ci_low"]).all()
    assert s["pred_high"].gt(s["ci_high"]).all()  # predictive intervals are wider, as labelled


def test_hdi_against_closed_form_beta():
    dist = stats.beta(2, 8)
    # closed form: [l, h] with pdf(l) = pdf(h) and mass 0.9, solved by root finding
    def gap(l):
        h = dist.ppf(dist.cdf(l) + 0.9)
        return dist.pdf(l) - dist.pdf(h)
    l = optimize.brentq(gap, 1e-9, dist.ppf(0.0999))
    h = dist.ppf(dist.cdf(l) + 0.9)
    x = dist.rvs(size=(200_000, 2), random_state=np.random.default_rng(5))
    lo, hi = hdi(x, 0.9)
    assert lo == pytest.approx([l, l], abs=0.004) and hi == pytest.approx([h, h], abs=0.004)
    elo, ehi = equal_tailed(x, 0.9)
    assert elo[0] == pytest.approx(dist.ppf(0.05), abs=0.004)
    assert hi[0] - lo[0] < ehi[0] - elo[0]  # the HDI is the shortest


def test_p_best_against_two_independent_betas():
    # with alpha, beta pinned and one task each, theta_A, theta_B are independent Betas:
    # P(A best) = integral f_A(x) F_B(x) dx
    a0 = b0 = 1.0
    res = beta_binomial(counts([[30], [25]], [[50], [50]]), prior=pinned(a0, b0), n_draws=40_000, rng=6)
    fa, fb = stats.beta(31, 21), stats.beta(26, 26)
    p = integrate.quad(lambda x: fa.pdf(x) * fb.cdf(x), 0, 1)[0]
    s = res.summary()
    assert abs(s.loc[0, "p_best"] - p) < 4 * np.sqrt(p * (1 - p) / res.n_draws)
    assert res.pairs().loc[0, "p_a_better"] == pytest.approx(s.loc[0, "p_best"])
    rp = res.rank_probabilities()
    assert rp.to_numpy().sum(axis=1) == pytest.approx([1, 1])
    assert rp.loc["m0", "rank_1"] == pytest.approx(s.loc[0, "p_best"])


def test_other_aggregates_apply_to_every_draw():
    table = load_example("vtab").select(models=["VAE", "WAE-GAN", "Sup-100%"])
    geo = beta_binomial(table, n_draws=300, aggregate="geometric", rng=10)
    np.testing.assert_allclose(geo.aggregate, np.exp(np.log(geo.theta).mean(axis=2)))
    rank = beta_binomial(table, n_draws=300, aggregate="mean-rank", rng=10)
    assert not rank.higher_is_better
    s = rank.summary().set_index("model")
    assert s.loc["Sup-100%", "p_best"] > 0.99  # best mean rank (lowest) is best
    assert rank.pairs().set_index(["model_a", "model_b"]).loc[("WAE-GAN", "Sup-100%"), "p_a_better"] < 0.01


def test_ranks_one_is_best():
    r = ranks(np.array([[0.1, 0.5, 0.3], [0.9, 0.2, 0.4]]))
    assert r.tolist() == [[3, 1, 2], [1, 3, 2]]


def test_item_level_input_gives_the_same_posterior_as_counts():
    rng = np.random.default_rng(7)
    rows = []
    for m, p in (("a", 0.7), ("b", 0.5)):
        for t, size in (("x", 30), ("y", 80)):
            for k in range(size):
                rows.append((m, t, f"{t}{k}", float(rng.random() < p)))
    table = ResultsTable.from_items(pd.DataFrame(rows, columns=["model", "task", "item", "score"]))
    c = table.counts()
    r1 = beta_binomial(table, n_draws=500, rng=8)
    r2 = beta_binomial(c, n_draws=500, rng=8)
    np.testing.assert_array_equal(r1.theta, r2.theta)
    np.testing.assert_allclose(r1.observed, c.correct / c.n)


def test_group_weights_and_task_weights():
    table = load_example("vtab").select(models=["VAE", "WAE-GAN", "Sup-100%"])
    res = beta_binomial(table, n_draws=200, group_weights={"natural": 1, "specialized": 1, "structured": 2},
                        rng=9)
    groups = table.task_groups
    size = {g: sum(1 for t in table.tasks if groups[t] == g) for g in ("natural", "specialized", "structured")}
    w = np.array([{"natural": 1, "specialized": 1, "structured": 2}[groups[t]] / size[groups[t]] for t in table.tasks])
    w /= w.sum()
    np.testing.assert_allclose(res.aggregate, res.theta @ w)
    res2 = beta_binomial(table, n_draws=200, weights={t: float(t == "DTD") for t in table.tasks}, rng=9)
    np.testing.assert_allclose(res2.aggregate[:, 0], res2.theta[:, 0, table.tasks.index("DTD")])


def test_warns_when_the_posterior_reaches_the_grid_limit():
    # identical tasks and a flat (improper) prior: nothing stops alpha + beta from growing without bound
    res = beta_binomial(counts([[50, 500, 5000]], [[100, 1000, 10000]]), prior=custom(lambda a, b: 0.0 * a),
                        n_draws=100, rng=0)
    assert res.grid.at_limit[0]
    assert any("hard limit" in w for w in res.warnings)
    ok = beta_binomial(counts([[50, 500, 5000]], [[100, 1000, 10000]]), n_draws=100, rng=0)
    assert not ok.warnings


@pytest.mark.parametrize("kwargs,message", [
    (dict(prior="cauchy"), "`prior` family must be one of"),
    (dict(prior="gamma:1,2,3"), "takes shape, rate"),
    (dict(prior="exponential:-1"), "`rate` must be a positive"),
    (dict(n_draws=0), "`n_draws`"),
    (dict(weights=[1, 2]), "one entry per task"),
    (dict(weights={"t9": 1}), "unknown task"),  # tasks not named weigh 0 (QA O32); unknown ones are errors
    (dict(group_weights={"g": 1}), "needs `task_groups`"),
    (dict(aggregate="average"), "aggregate"),
    (dict(confidence_level=95), "`confidence_level`"),
])
def test_argument_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        beta_binomial(counts([[1, 2, 3]], [[5, 5, 5]]), **kwargs)


def test_rejects_other_inputs():
    with pytest.raises(TypeError, match="`data`"):
        beta_binomial(np.array([[1, 2]]))
