"""How :func:`evalband.bayes.logistic` computes the posterior: the methods (HMC over whitened coordinates, NUTS,
the Laplace approximation), the automatic choice among them, and the fit's draws as the model's posterior
variables and an ArviZ InferenceData."""

from __future__ import annotations

import numpy as np

from ._nuts import run_nuts
from .logistic_terms import CENTRED_MIN_RATIO, _logistic_model
from .._words import words
from ..display.notes import NoteKind

__all__ = ["METHODS", "HMC_MIN_EFFECTS", "NUTS_WARMUP", "fit", "hmc_unconverged", "auto_method", "posterior_in_order",
           "inference_data", "LazyInferenceData"]


#: The ways :func:`logistic` computes the posterior.
METHODS = ("auto", "hmc", "nuts", "laplace")

#: ``method='auto'`` uses HMC when every level with a scale has at least this many effects and is informed by the
#: data (precision ratio at least ``CENTRED_MIN_RATIO``, 1), NUTS otherwise. With few or weakly informed effects a
#: level's scale has a wide, skewed posterior that no Gaussian whitens: HMC's trajectories of fixed length then
#: mix it slowly (R-hat 1.02-1.03 in the tests), while NUTS adapts its trajectories, and such problems are small.
HMC_MIN_EFFECTS = 10


#: why the logistic model was fitted with NUTS rather than whitened HMC
NOTE_NUTS_CHOSEN = NoteKind("bayes.nuts-chosen", "info", "NUTS (not HMC): {why}: no Gaussian whitens that posterior"
                            " well; {arg:method='hmc'} forces HMC")
NOTE_NUTS_NO_MODE = NoteKind("bayes.nuts-no-mode", "info", "NUTS (not HMC): {exc}")
NOTE_NUTS_UNCONVERGED = NoteKind("bayes.nuts-hmc-unconverged", "caveat", "NUTS (not HMC): HMC's chains ({num_chains} x"
                                 " {num_samples} after {num_warmup} warm-up) failed the convergence checks ({checks}),"
                                 " so the posterior was refitted with NUTS")


def auto_method(obs, n_models, n_tasks, info):
    """'hmc' or 'nuts' for ``method='auto'``, and the note saying why when it is NUTS."""
    counts = {"model": n_models, "task": n_tasks, "model_task": n_models * n_tasks}
    if obs["cluster_index"] is not None:
        counts["cluster"] = int(obs["cluster_index"]["n_units"])
    if obs["item_index"] is not None:
        counts["item"] = int(obs["item_index"]["n_units"])
    names = lambda lv: lv.replace("_", " x ")
    few = [f"{counts[lv]} {names(lv)} effect{'s' if counts[lv] != 1 else ''}" for lv in info
           if counts.get(lv, 0) < HMC_MIN_EFFECTS]
    weak = [f"{names(lv)} (ratio {x:.2g})" for lv, x in info.items() if x < CENTRED_MIN_RATIO]
    if not few and not weak:
        return "hmc", None
    why = []
    if few:
        why.append(f"{', '.join(few)} (fewer than HMC_MIN_EFFECTS = {HMC_MIN_EFFECTS})")
    if weak:
        why.append(f"weakly informed {', '.join(weak)}")
    return "nuts", NOTE_NUTS_CHOSEN(why="; ".join(why))


#: NUTS's warm-up when ``method='auto'`` falls back to it and no ``num_warmup`` was given.
NUTS_WARMUP = 1000


def hmc_unconverged(fitted, diagnostics=None):
    """Why an HMC fit's chains fail the checks NUTS's would pass (R-hat <= 1.01, bulk and tail ESS >= 400, no
    divergence) on the fit's own variables, or None when they pass; ``diagnostics`` (a dict) receives the
    frame, so that the final check reuses it."""
    from .diagnostics import diagnose

    frame, warnings = diagnose(fitted, list(fitted.posterior))
    if diagnostics is not None:
        diagnostics["frame"] = frame
    return "; ".join(warnings) if warnings else None


def fit(method, obs, fit_m, fit_t, centred, info, *, num_warmup, num_samples, num_chains, seed, target_accept,
         max_tree_depth, nuts_warmup=None):
    """Run the method: (the fit, notes (the first completes 'logistic model with ... effects, '), checks).

    With ``method='auto'`` an HMC fit whose chains fail the convergence checks is replaced by a NUTS fit (warm-up
    ``nuts_warmup``, by default ``num_warmup``), and a note says so: the automatic choice never returns
    unconverged chains where NUTS would converge."""
    m, t = len(fit_m), len(fit_t)
    fallback = []
    if method == "auto":
        method, why = auto_method(obs, m, t, info)
        fallback = [why] if why else []
        auto = True
    else:
        auto = False
    if method in ("hmc", "laplace"):
        from ._laplace_fit import ModeNotFound

        try:
            if method == "laplace":
                from .laplace import fit_laplace

                fit = fit_laplace(obs, m, t, centred, num_draws=num_chains * num_samples, seed=seed)
            else:
                from .whitened_hmc import fit_hmc

                fit = fit_hmc(obs, m, t, centred, num_warmup=num_warmup, num_samples=num_samples,
                              num_chains=num_chains, seed=seed, target_accept=target_accept)
                checked = {}
                why = hmc_unconverged(fit, checked) if auto else None
                if why:
                    raise _Unconverged(why)
                if checked:  # the chains' diagnostics, reused when theta is added to them
                    return fit, list(fit.notes), dict(fit.checks, diagnostics=checked["frame"])
            return fit, list(fit.notes), dict(fit.checks)
        except ModeNotFound as exc:
            if not auto:
                raise ValueError(words("`{arg:method}`={method!r} needs the posterior's mode, which was not found ({exc}); use {arg:method='nuts'}", method=method, exc=exc)) from None
            fallback = [NOTE_NUTS_NO_MODE(exc=exc)]
        except _Unconverged as exc:
            fallback = [NOTE_NUTS_UNCONVERGED(num_chains=num_chains, num_samples=num_samples, num_warmup=num_warmup,
                                              checks=str(exc)[:160])]
        if nuts_warmup is not None:
            num_warmup = nuts_warmup
    import jax.numpy as jnp

    arrays = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in obs.items()}
    _, idata = run_nuts(_logistic_model, dict(arrays, n_models=m, n_tasks=t, centred=centred),
                        num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains, seed=seed,
                        target_accept=target_accept, max_tree_depth=max_tree_depth,
                        vectorize=obs["item_index"] is None)  # small programs: compiling NUTS costs ~10x sampling
    return idata, [f"fitted with NUTS: {num_chains} chains x {num_samples} draws after {num_warmup} warm-up",
                   *fallback], {"method": "nuts"}


class _Unconverged(Exception):
    """An HMC fit under ``method='auto'`` that failed its convergence checks."""


def posterior_in_order(fit, fit_m, fit_t, m_names, t_names):
    """Posterior variables (chains, draws, ...) as NumPy arrays, model and task axes in the order asked for."""
    if hasattr(fit, "posterior") and isinstance(fit.posterior, dict):
        post = dict(fit.posterior)
    else:
        post = {k: np.asarray(v) for k, v in fit.posterior.data_vars.items()}
    om = [fit_m.index(x) for x in m_names]
    ot = [fit_t.index(x) for x in t_names]
    if "model_effect" in post:
        post["model_effect"] = post["model_effect"][:, :, om]
    if "task_effect" in post:
        post["task_effect"] = post["task_effect"][:, :, ot]
    if "model_task_effect" in post:
        post["model_task_effect"] = post["model_task_effect"][:, :, om][:, :, :, ot]
    return post


def inference_data(fit, post, m_names, t_names):
    """The ArviZ InferenceData of the fit with theta (NUTS: NumPyro's, theta added; HMC and Laplace: built from
    the draws, with the sample statistics, on first use: a :class:`LazyInferenceData`)."""
    from .diagnostics import import_arviz

    dims = {"theta": ["model", "task"], "model_effect": ["model"], "task_effect": ["task"],
            "model_task_effect": ["model", "task"]}
    coords = {"model": list(m_names), "task": list(t_names)}
    if not isinstance(getattr(fit, "posterior", None), dict):  # NUTS: NumPyro's InferenceData
        idata = fit
        p = idata.posterior
        p["theta"] = (("chain", "draw", "model", "task"), post["theta"])
        idata.posterior = p.assign_coords(model=list(m_names), task=list(t_names))
        return idata
    return LazyInferenceData(lambda: import_arviz().from_dict(
        posterior=post, sample_stats=fit.sample_stats, coords=coords, dims={k: v for k, v in dims.items() if k in post}))


class LazyInferenceData:
    """An ArviZ InferenceData built on first use: importing ArviZ and building its xarray groups take seconds
    that a command printing intervals never needs. Attribute access (``.posterior``, ``.sample_stats``, ...),
    ``in``, ``repr`` and notebook display go to the real object; :meth:`BayesResult.to_inference_data` returns it
    (for ``isinstance`` checks and functions that take an InferenceData, such as ``arviz.plot_trace``)."""

    __slots__ = ("_build", "_value")

    def __init__(self, build):
        self._build, self._value = build, None

    def resolve(self):
        """The InferenceData itself (built now if it was not yet)."""
        if self._value is None:
            self._value = self._build()
            self._build = None
        return self._value

    def __getattr__(self, name):
        return getattr(self.resolve(), name)

    def __contains__(self, key):
        return key in self.resolve()

    def __iter__(self):
        return iter(self.resolve())

    def __repr__(self):
        return repr(self.resolve())

    def _repr_html_(self):
        return self.resolve()._repr_html_()
