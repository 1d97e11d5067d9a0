"""Profile-likelihood intervals of REML variance components and of their shares of a variance.

A variance component estimated from a few levels (3 seeds, 6 prompts), or near 0, has a restricted likelihood far
from quadratic: a Satterthwaite chi-square pivot built from the observed information then rests on a fraction of a
degree of freedom and gives bounds such as 1e59, or an interval that misses its own estimate. The profile of the
likelihood does not approximate it: the interval holds the values ``x`` of a quantity at which the restricted
likelihood, maximized over every other variance with the quantity held at ``x``, is within
``chi2_1(level) / 2`` of its maximum (the likelihood-ratio test inverted; what lme4's ``confint(fit,
method = "profile")`` does, there on the ML deviance, Bates et al. 2015, section 5.1; here on the REML criterion,
which does not shrink components of few levels toward 0).

Two kinds of quantity are profiled, both linear constraints on the variances ``v``:

* a component (or the sum of a few, e.g. a pair's two trial sources): ``sum_{i in g} v_i = x``;
* a share of a variance ``sum_i w_i v_i`` (the variance of a reported mean): ``sum_{i in g} w_i v_i = r sum_i w_i
  v_i``, homogeneous, so it is profiled with the scale free.

Each profile point is a bound-constrained minimization over the other variances (projected quasi-Newton from the
Hessian at the optimum, updated by BFGS, warm-started from the previous point); the bound is found by the secant
method on the signed root ``zeta = sign(x - x_hat) sqrt(D(x) - D_hat)``, nearly linear on the standard-deviation
scale (Bates & Watts 1988), to ``|zeta - z| < 1e-4``. A bound the profile does not reach below ``limit`` (for
components: the most a score in the observed range can vary) is returned as ``inf``: the data do not bound it.
"""

from __future__ import annotations

import numpy as np

from .._distributions import norm_ppf

__all__ = ["Profiler", "profile_intervals"]

_TOL_ZETA = 1e-4     # |zeta - z| at a bound
_MAX_STEPS = 30      # secant steps per bound
_GROW = 4.0          # largest factor by which a secant step may grow the distance from the estimate


class Profiler:
    """Profiles of the restricted likelihood of one fit under linear constraints on its variances.

    Parameters
    ----------
    model : evalband.facets.reml._Restricted
        The criterion, on the fit's scaled data.
    variance : numpy.ndarray
        The REML estimates on the same scale.
    scale : float
        The fit's data were divided by ``scale``: intervals of components are returned times ``scale ** 2`` and
        their ``limit`` divided by it.
    hessian : numpy.ndarray, optional
        Hessian of the criterion at the estimates (over every variance); computed when omitted.
    """

    def __init__(self, model, variance, *, scale: float = 1.0, hessian=None):
        self.model = model
        self.scale2 = float(scale) ** 2
        self.v = np.asarray(variance, dtype=np.float64)
        self.n = self.v.size
        self.src0 = model.n_t + model.top            # the first residual source (sigma2 > 0)
        self.floor = np.zeros(self.n)
        self.floor[self.src0:] = 1e-10 * max(float(self.v[self.src0:].max()), 1e-300)
        self.evaluations = 0
        self.dev = float(model.full(self.v))
        self.hess = self._hessian() if hessian is None else np.asarray(hessian, dtype=np.float64)

    # ------------------------------------------------------------------ criterion
    def _fg(self, v):
        self.evaluations += 1
        if (v < 0).any() or (v[self.src0:] <= 0).any():  # outside the domain (a split's last share below 0)
            return 1e300, None
        val, g = self.model.full_with_gradient(v)
        if g is None and val < 1e299:  # no analytic gradient for the layout: central differences
            h = np.maximum(1e-6 * np.abs(v), 1e-9)
            g = np.array([(self.model.full(v + h[j] * e) - self.model.full(np.maximum(v - h[j] * e, 0.0)))
                          / (h[j] + min(h[j], v[j])) for j, e in enumerate(np.eye(v.size))])
        return val, g

    def _hessian(self) -> np.ndarray:
        """Hessian of the criterion at the estimates over every variance, by differences of the gradient (forward
        from an estimate at 0)."""
        v, n = self.v, self.n
        h = np.maximum(1e-4 * np.abs(v), 1e-6 * max(float(v.max()), 1e-12))
        g0 = self._fg(v)[1]
        out = np.zeros((n, n))
        for j in range(n):
            e = np.zeros(n)
            e[j] = h[j]
            if v[j] > h[j]:
                out[:, j] = (self._fg(v + e)[1] - self._fg(v - e)[1]) / (2 * h[j])
            else:
                out[:, j] = (self._fg(v + e)[1] - g0) / h[j]
        return (out + out.T) / 2

    # ------------------------------------------------------------------ inner minimization
    def _minimize(self, param, u0, lower, b0):
        """Minimize the criterion at ``v = param(u)`` over ``u >= lower`` from ``u0``: projected quasi-Newton with
        the initial curvature ``b0`` (BFGS updates). Returns (value, u, curvature)."""
        u = np.maximum(u0, lower)
        v, jac = param(u)
        f, gv = self._fg(v)
        if gv is None:
            return np.inf, u, b0
        g = jac.T @ gv
        b = _positive(b0)
        for _ in range(200):
            active = (u <= lower + 1e-14 * np.maximum(1.0, np.abs(lower))) & (g > 0)
            free = ~active
            if not free.any():
                break
            d = np.zeros_like(u)
            try:
                d[free] = -np.linalg.solve(b[np.ix_(free, free)], g[free])
            except np.linalg.LinAlgError:  # a curvature gone bad: restart from steepest descent
                b = np.eye(u.size)
                d[free] = -g[free]
            decrement = -float(g[free] @ d[free])
            if decrement < 1e-11:
                break
            t, accepted = 1.0, False
            while t > 1e-12:
                un = np.maximum(u + t * d, lower)
                vn, jn = param(un)
                fn, gvn = self._fg(vn)
                if gvn is not None and fn <= f + 1e-4 * float(g @ (un - u)):
                    accepted = True
                    break
                t *= 0.25
            if not accepted:
                break
            gn = jn.T @ gvn
            s, y = un - u, gn - g
            b = _bfgs(b, s, y)
            done = f - fn < 1e-12 * max(1.0, abs(f))
            u, f, g = un, fn, gn
            if done and decrement < 1e-8:
                break
        return f, u, b

    # ------------------------------------------------------------------ constraints
    def _component(self, group):
        """Parametrization of ``sum_{i in group} v_i = x``: the other variances, and for two or more members the
        fraction of ``x`` each holds (the first member's fraction; a pair's two trial sources)."""
        group = list(group)
        rest = [i for i in range(self.n) if i not in group]
        split = self.v[group] / self.v[group].sum() if self.v[group].sum() > 0 else np.full(len(group), 1 / len(group))

        def build(x):
            def param(u):
                v = np.empty(self.n)
                jac = np.zeros((self.n, u.size))
                v[rest] = u[:len(rest)]
                jac[rest, np.arange(len(rest))] = 1.0
                if len(group) == 1:
                    v[group[0]] = x
                else:  # fractions t (first len(group) - 1 members), the last member the rest of x
                    t = u[len(rest):]
                    v[group[:-1]] = x * t
                    v[group[-1]] = x * (1 - t.sum())
                    jac[group[:-1], len(rest) + np.arange(t.size)] = x
                    jac[group[-1], len(rest):] = -x
                return v, jac
            return param

        u0 = np.r_[self.v[rest], split[:-1]] if len(group) > 1 else self.v[rest].copy()
        lower = np.r_[self.floor[rest], np.full(len(group) - 1, 1e-9)]
        return build, u0, lower, rest

    def component_interval(self, group, *, confidence_level: float, limit: float = np.inf):
        """Interval of ``sum_{i in group} v_i`` (0 when the profile at 0 is within the cutoff; ``inf`` when it
        does not reach the cutoff below ``limit``)."""
        group = list(group)
        build, u0, lower, _ = self._component(group)
        x_hat = float(self.v[group].sum())
        se = np.sqrt(max(2 * float(np.linalg.pinv(self.hess)[np.ix_(group, group)].sum()), 0.0))
        low, high = self._interval(lambda s: build(s * s), np.sqrt(x_hat), np.sqrt(limit / self.scale2), se, u0,
                                   lower, confidence_level)
        return low ** 2 * self.scale2, high ** 2 * self.scale2

    def share_interval(self, group, weights, *, confidence_level: float):
        """Interval of ``sum_{i in group} w_i v_i / sum_i w_i v_i`` (weights >= 0)."""
        group = list(group)
        w = np.asarray(weights, dtype=np.float64)
        total = float(w @ self.v)
        if not (w[group] > 0).any() or total <= 0:
            return 0.0, 0.0
        r_hat = float(w[group] @ self.v[group]) / total
        members = [i for i in group if w[i] > 0]
        rest = [i for i in range(self.n) if i not in members]
        k = len(rest)
        frac0 = self.v[members] * w[members]
        frac0 = frac0 / frac0.sum() if frac0.sum() > 0 else np.full(len(members), 1 / len(members))

        def build(root):  # the share r = root^2: members hold r / (1 - r) of the rest's part
            r = min(root * root, 1 - 1e-12)
            rho = r / (1 - r)

            def param(u):
                v = np.empty(self.n)
                jac = np.zeros((self.n, u.size))
                v[rest] = u[:k]
                jac[rest, np.arange(k)] = 1.0
                other = float(w[rest] @ u[:k])
                t = np.r_[u[k:], 1 - u[k:].sum()] if len(members) > 1 else np.ones(1)
                v[members] = rho * other * t / w[members]
                jac[np.ix_(members, range(k))] = rho * np.outer(t / w[members], w[rest])
                if len(members) > 1:
                    jac[members[:-1], k + np.arange(len(members) - 1)] = rho * other / w[members[:-1]]
                    jac[members[-1], k:] = -rho * other / w[members[-1]]
                return v, jac
            return param

        u0 = np.r_[self.v[rest], frac0[:-1]]
        lower = np.r_[self.floor[rest], np.full(len(members) - 1, 1e-9)]
        # the share's standard error by the delta method (a first step only)
        grad = -w * r_hat / total
        grad[members] += w[members] / total
        se = np.sqrt(max(2 * float(grad @ np.linalg.pinv(self.hess) @ grad), 1e-8))
        low, high = self._interval(build, np.sqrt(r_hat), np.sqrt(1 - 1e-12), se, u0, lower, confidence_level)
        return low ** 2, min(high ** 2, 1.0)

    def _interval(self, build, x_hat, end, se, u0, lower, confidence_level):
        """Both bounds of a quantity profiled on a square-root scale ``x`` (``build(x)``: the parametrization
        with the quantity at ``x ** 2``) from its estimate ``x_hat`` (its standard error ``se`` on the squared
        scale guides the first step) up to ``end``."""
        z = float(norm_ppf((1 + confidence_level) / 2))
        b0 = (lambda jac: jac.T @ self.hess @ jac)(build(max(x_hat, 1e-150))(u0)[1])
        solved = [(x_hat, u0, b0)]  # warm starts: the solution at the nearest point profiled so far

        def zeta(x):
            near = sorted(solved, key=lambda p: abs(p[0] - x))
            _, u_start, b_start = near[0]
            f, u, b = self._minimize(build(x), u_start, lower, b_start)
            if not f - self.dev < 4 * z * z:  # far beyond the cut (or failed): confirm from the estimates
                for _, u_s, b_s in solved[:1]:
                    f2, u2, b2 = self._minimize(build(x), u_s, lower, b_s)
                    if f2 < f:
                        f, u, b = f2, u2, b2
            if np.isfinite(f):
                solved.append((x, u, b))
            return _signed_root(x - x_hat, f - self.dev)

        step = max(z * se / (2 * x_hat) if x_hat > 0 else np.sqrt(z * se), 1e-3 * (x_hat + np.sqrt(se)))
        low = 0.0 if x_hat <= 0 else self._bound(zeta, x_hat, -z, 0.0, guess=max(x_hat - step, x_hat / 4))
        high = self._bound(zeta, x_hat, z, end, guess=min(x_hat + step, (x_hat + end) / 2))
        return low, high

    # ------------------------------------------------------------------ root finding
    def _bound(self, zeta, x_hat, target, end, *, guess):
        """Where ``zeta`` reaches ``target`` between ``x_hat`` (zeta 0) and ``end``: secant steps outward (growth
        limited) until bracketed, then the Illinois variant of regula falsi, to ``|zeta - target| < 1e-4``. A lower
        ``end`` inside the interval is returned as is (a bound of 0); an upper ``end`` not reached gives ``inf``."""
        d = 1.0 if target > 0 else -1.0
        x_out = z_out = None
        if d < 0:
            z_end = zeta(end)
            if z_end >= target:
                return end
            x_out, z_out = end, z_end
        x_in, z_in = x_hat, 0.0
        prev = None                     # the inside point before x_in (secant extrapolation)
        x = guess
        side = 0
        for _ in range(_MAX_STEPS):
            if x_out is not None:
                lo, hi = sorted((x_in, x_out))
                if not lo < x < hi:
                    x = (x_in + x_out) / 2
            elif d > 0 and x >= end:
                x = end
            zx = zeta(x)
            if abs(zx - target) < _TOL_ZETA:
                return x
            if d * (zx - target) < 0:   # still inside
                if x_out is None and d > 0 and x >= end:
                    return np.inf
                prev, (x_in, z_in) = (x_in, z_in), (x, zx)
                if side == -1 and x_out is not None:
                    z_out = target + (z_out - target) / 2
                side = -1
            else:
                x_out, z_out = x, zx
                if side == 1:
                    z_in = target + (z_in - target) / 2
                side = 1
            if x_out is None:           # extrapolate through the last two inside points
                px, pz = prev
                slope = (z_in - pz) / (x_in - px) if x_in != px else 0.0
                span = abs(x_in - x_hat) + abs(x_in - px)
                nxt = x_in + (target - z_in) / slope if d * slope > 0 else x_in + d * span
                x = x_in + d * min(max(d * (nxt - x_in), 1e-3 * span), _GROW * span)
            elif np.isfinite(z_out):
                x = x_in + (target - z_in) * (x_out - x_in) / (z_out - z_in)
            else:
                x = (x_in + x_out) / 2
        return np.inf if x_out is None and d > 0 else x


def _signed_root(side: float, rise: float) -> float:
    """``sign(side) sqrt(rise)``; a point outside the criterion's domain (rise inf or 1e300) is infinitely far."""
    if not rise < 1e299:
        return np.copysign(np.inf, side)
    return float(np.sign(side) * np.sqrt(max(rise, 0.0)))


def _positive(b: np.ndarray) -> np.ndarray:
    """``b`` with its eigenvalues floored (a curvature matrix the quasi-Newton step can use)."""
    b = (b + b.T) / 2
    if b.size == 0:
        return b
    if not np.isfinite(b).all():
        return np.eye(len(b))
    w, q = np.linalg.eigh(b)
    top = max(float(w.max()), 1e-12)
    return (q * np.maximum(w, 1e-8 * top)) @ q.T


def _bfgs(b: np.ndarray, s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Damped BFGS update of the curvature ``b`` (Powell 1978): stays positive definite."""
    bs = b @ s
    sbs = float(s @ bs)
    if sbs <= 0:
        return b
    sy = float(s @ y)
    theta = 1.0 if sy >= 0.2 * sbs else 0.8 * sbs / (sbs - sy)
    r = theta * y + (1 - theta) * bs
    sr = float(s @ r)
    if sr <= 1e-300:
        return b
    return b - np.outer(bs, bs) / sbs + np.outer(r, r) / sr


def profile_intervals(profiler: Profiler, groups, weights, *, confidence_level: float, limit: float = np.inf):
    """Profile-likelihood intervals of reported components and of their shares of a variance.

    Parameters
    ----------
    profiler : Profiler
    groups : sequence of sequence of int
        The fit's variances each reported component sums (one index, or a pair's two trial sources).
    weights : array_like
        Multiplier of each of the fit's variances in the variance the shares divide (0 for a fixed facet's).
    confidence_level : float
    limit : float
        The largest value a component can take (the score range's: ``(max - min)^2 / 4``). An upper bound the
        profile does not reach below it is ``limit`` (the interval then says only what the range says; NaN for
        unbounded scores: the data give no upper bound).

    Returns
    -------
    ci, share : numpy.ndarray, shape (len(groups), 2)
        Bounds of each component and of its share (a share's upper bound is at most 1).
    open_ended : int
        Components whose upper bound the profile did not reach below ``limit``.
    """
    w = np.asarray(weights, dtype=np.float64)
    ci = np.zeros((len(groups), 2))
    share = np.zeros((len(groups), 2))
    for j, group in enumerate(groups):
        top = limit if profiler.v[list(group)].sum() * profiler.scale2 < limit else np.inf
        ci[j] = profiler.component_interval(group, confidence_level=confidence_level, limit=top)
        if (w[list(group)] > 0).any():
            share[j] = profiler.share_interval(group, w, confidence_level=confidence_level)
    open_ended = ~np.isfinite(ci[:, 1])
    ci[open_ended, 1] = limit if np.isfinite(limit) else np.nan
    return ci, share, int(open_ended.sum())
