"""D-study plans: the variance formula (theory), and the predicted SE of a planned design against simulation."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

from evalband.facets import plan_design, predicted_se, variance_components
from evalband.io import read


def _population(rng, n_items, n_prompts, n_trials, sd_item=1.0, sd_prompt=0.4, sd_ip=0.5, n_sets=1):
    """0/1 scores, logit p = 0.2 + item + prompt + item x prompt; ``n_sets`` independent datasets at once."""
    a = rng.normal(0, sd_item, (n_sets, n_items, 1, 1))
    b = rng.normal(0, sd_prompt, (n_sets, 1, n_prompts, 1))
    c = rng.normal(0, sd_ip, (n_sets, n_items, n_prompts, 1))
    p = 1 / (1 + np.exp(-(0.2 + a + b + c)))
    return (rng.random((n_sets, n_items, n_prompts, n_trials)) < p).astype(float)


def _frame(y):
    n_i, n_p, n_t = y.shape
    return pd.DataFrame({"model": "m", "task": "t", "item": np.repeat(np.arange(n_i), n_p * n_t),
                         "prompt": np.tile(np.repeat(np.arange(n_p), n_t), n_i),
                         "trial": np.tile(np.arange(n_t), n_i * n_p), "score": y.ravel()})


def test_predicted_se_of_the_pilot_design_is_its_se_random():
    y = _population(np.random.default_rng(0), 40, 5, 3)[0]
    vc = variance_components(read(_frame(y)), rng=0, n_resamples=200)
    comps = {f: v for f, v in zip(vc._fits[("t", "m")].factors, vc._fits[("t", "m")].raw)}
    assert predicted_se(comps, {"item": 40, "prompt": 5}, trials=3) == pytest.approx(vc.se_random[0, 0])
    assert predicted_se(comps, {"item": 40, "prompt": 5}, trials=3, fixed=["prompt"]) == pytest.approx(
        vc.se_fixed[0, 0])


def test_plan_contract_and_ordering():
    y = _population(np.random.default_rng(1), 60, 6, 2)[0]
    vc = variance_components(read(_frame(y)), rng=0, n_resamples=200)
    plan = plan_design(vc, target_se=0.02, cost={"item": 1, "prompt": 5, "trial": 0.2})
    f = plan.to_frame()
    assert list(f.columns) == ["item", "prompt", "trials", "predicted_se", "observations", "cost"]
    assert len(f) > 0 and (f["predicted_se"] <= 0.02 + 1e-12).all()
    assert f["cost"].is_monotonic_increasing
    cost = f["item"] + 5 * f["prompt"] + 0.2 * f["observations"]
    np.testing.assert_allclose(f["cost"], cost)
    # each row uses the fewest items that reach the target: one item less misses it
    comps = {fa: max(v, 0) for fa, v in zip(vc._fits[("t", "m")].factors, vc._fits[("t", "m")].raw)}
    r = f.iloc[0]
    assert predicted_se(comps, {"item": int(r["item"]) - 1, "prompt": int(r["prompt"])}, trials=int(r["trials"])) > 0.02
    assert repr(plan).startswith("DStudy") and len(repr(plan)) < 2000


def test_effect_with_power_sets_the_target():
    rng = np.random.default_rng(2)
    y = _population(rng, 50, 5, 2, n_sets=2)
    df = pd.concat([_frame(y[0]), _frame(y[1]).assign(model="n")])
    vc = variance_components(read(df), rng=0, n_resamples=200)
    plan = plan_design(vc, effect=0.03, power=0.8)
    assert plan.target_se == pytest.approx(0.03 / (ndtri(0.975) + ndtri(0.8)))
    assert "pair" in plan.basis


def test_errors():
    y = _population(np.random.default_rng(3), 20, 3, 2)[0]
    vc = variance_components(read(_frame(y)), rng=0, n_resamples=200, differences=False)
    with pytest.raises(ValueError, match="exactly one"):
        plan_design(vc)
    with pytest.raises(ValueError, match="`cost`"):
        plan_design(vc, target_se=0.05, cost={"judge": 2})
    with pytest.raises(ValueError, match="differences"):
        plan_design(vc, effect=0.05)


@pytest.mark.slow
def test_predicted_se_matches_the_simulated_se_of_the_planned_design():
    """Pilot 200 items x 60 prompts x 2 trials from a known population; the cheapest plan for SE 0.03 (costs item
    1, prompt 5, trial 0.2) is then drawn 400 times from the same population, and so is the cheapest plan with 3
    trials per cell. Measured (seed 5): 90 items x 15 prompts x 1 trial, predicted 0.0299, simulated 0.0295;
    73 x 15 x 3, predicted 0.0300, simulated 0.0309."""
    rng = np.random.default_rng(5)
    pilot = _population(rng, 200, 60, 2)[0]
    vc = variance_components(read(_frame(pilot)), rng=0, n_resamples=200)
    plan = plan_design(vc, target_se=0.03, cost={"item": 1, "prompt": 5, "trial": 0.2})
    best = plan.to_frame().iloc[0]
    n_i, n_p, n_t = int(best["item"]), int(best["prompt"]), int(best["trials"])
    sims = _population(rng, n_i, n_p, n_t, n_sets=400)
    simulated = sims.mean(axis=(1, 2, 3)).std(ddof=1)
    print(f"plan {n_i} items x {n_p} prompts x {n_t} trials: predicted {best['predicted_se']:.4f},"
          f" simulated {simulated:.4f}")
    assert best["predicted_se"] == pytest.approx(simulated, rel=0.10)
    assert n_p > 1  # the prompt variance makes more prompts pay off
    f = plan.to_frame()
    three = f[f["trials"] == 3].iloc[0]
    sims = _population(rng, int(three["item"]), int(three["prompt"]), 3, n_sets=400)
    simulated = sims.mean(axis=(1, 2, 3)).std(ddof=1)
    print(f"plan {int(three['item'])} x {int(three['prompt'])} x 3: predicted {three['predicted_se']:.4f},"
          f" simulated {simulated:.4f}")
    assert three["predicted_se"] == pytest.approx(simulated, rel=0.10)


def test_a_tight_target_extends_the_facet_levels():
    # the prompt term alone sets a floor s2_prompt / n_prompts: SE 0.004 needs more than 50 prompts
    y = _population(np.random.default_rng(4), 80, 6, 2, sd_prompt=0.6)[0]
    vc = variance_components(read(_frame(y)), rng=0, n_resamples=200)
    plan = plan_design(vc, target_se=0.004, cost={"item": 1, "prompt": 5, "trial": 0.2})
    f = plan.to_frame()
    assert len(f) > 0 and f["prompt"].min() > 50 and (f["predicted_se"] <= 0.004 + 1e-12).all()
    assert any("larger numbers" in n for n in plan.notes)
