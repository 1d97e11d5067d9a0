"""Style control: a contextual Bradley-Terry model with normalized style differences as covariates.

Chatbot Arena's style control (Li et al. 2024) asks which model would win if both answers had the same style:
``logit P(A beats B) = theta_A - theta_B + beta . z``, where ``z`` holds the battle's style differences (answer
length, markdown headers, lists, bold text), each normalized as FastChat does: for a feature with values ``x_A``
and ``x_B``, ``(x_A - x_B) / (x_A + x_B + 1)``, then standardized over the battles (mean 0, standard deviation 1).
A feature given directly as a difference A - B is only standardized. The ``theta`` are the style-controlled
ratings; ``beta`` says how much one standard deviation of each style difference moves the log-odds.

The fit is exact maximum likelihood (with the same tiny ridge as the ratings), by Newton's method vectorized over
bootstrap replicates; ties count as half a win (FastChat's duplication of tied battles into a win and a loss is the
same likelihood). FastChat fits the same model with scikit-learn's default L2 penalty (C = 1), which shrinks the
coefficients slightly.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import expit

from .bradley_terry import RIDGE, incidence, laplacian, log_sigmoid, newton_maximize
from .._validate import ArgumentError
from .._words import words

__all__ = ["MARKDOWN", "style_names", "style_design", "fit_style", "style_jackknife"]

#: what ``style='markdown'`` stands for
MARKDOWN = ("header_count", "list_count", "bold_count")


def style_names(style, available) -> list[str]:
    """The feature names ``style`` asks for: a comma-separated string or a list; 'markdown' stands for the header,
    list and bold counts; unknown names are refused with the available ones listed."""
    if style is None:
        return []
    items = [s.strip() for s in style.split(",")] if isinstance(style, str) else [str(s).strip() for s in style]
    names = []
    for item in items:
        if not item:
            continue
        if item == "markdown" and "markdown" not in available:
            missing = [f for f in MARKDOWN if f not in available]
            if missing:
                raise ArgumentError(words("`{arg:style}`: 'markdown' needs the features {value}; the battles lack {value2} (available: {value3}).", value=', '.join(MARKDOWN), value2=', '.join(missing), value3=', '.join(available) or 'none'))
            names.extend(MARKDOWN)
        elif item in available:
            names.append(item)
        else:
            raise ArgumentError(words('`{arg:style}`: no style feature {item!r}; available: {value} (numeric columns NAME_a and NAME_b, or columns named with {arg:style_cols=}).', item=item, value=', '.join(available) or 'none'))
    if len(set(names)) != len(names):
        raise ArgumentError(words('`{arg:style}` names a feature twice: {names!r}.', names=names))
    return names


def style_design(features: dict, names) -> np.ndarray:
    """The normalized style differences ``z`` (n, k): ratio differences for per-side features, standardized.

    Raises
    ------
    ValueError
        When a feature does not vary over the battles (its coefficient is not identified).

    Examples
    --------
    >>> import numpy as np
    >>> from evalband.preferences import style_design
    >>> features = {"length": np.array([[900, 300], [200, 600], [500, 500], [800, 100]]),
    ...             "markdown": np.array([[3, 0], [0, 1], [2, 2], [5, 0]])}
    >>> style_design(features, ["length", "markdown"]).round(3)
    array([[ 0.626,  0.87 ],
           [-1.422, -1.399],
           [-0.398, -0.492],
           [ 1.195,  1.021]])
    """
    cols = []
    for name in names:
        v = np.asarray(features[name], dtype=np.float64)
        if v.ndim == 2:
            x = (v[:, 0] - v[:, 1]) / (v[:, 0] + v[:, 1] + 1.0)
        else:
            x = v
        sd = x.std()
        if not sd > 0:
            raise ArgumentError(f"style feature {name!r} has the same difference in every battle; it cannot be"
                             " controlled for.")
        cols.append((x - x.mean()) / sd)
    return np.column_stack(cols)


def _battle_maps(a, b, n_models):
    i, j = np.minimum(a, b), np.maximum(a, b)
    key, pair = np.unique(i * n_models + j, return_inverse=True)
    pi, pj = key // n_models, key % n_models
    pmap = sparse.csr_matrix((np.ones(a.size), (np.arange(a.size), pair)), shape=(a.size, key.size))
    return pi.astype(np.int64), pj.astype(np.int64), pmap


def fit_style(model_a, model_b, outcome, z, n_models: int, weights, *, ridge: float = RIDGE, theta0=None,
              beta0=None, tol: float = 1e-10, max_iter: int = 200):
    """Style-controlled log-strengths and style coefficients for each row of battle weights.

    Parameters
    ----------
    model_a, model_b : array of int, shape (n,)
    outcome : array, shape (n,)
        Probability that A won (ties 0.5).
    z : array, shape (n, k)
        Normalized style differences (:func:`style_design`).
    n_models : int
    weights : array, shape (c, n)
        Battle weights of each replicate (bootstrap count of its unit times its own weight).
    ridge, theta0, beta0, tol, max_iter
        As for :func:`~evalband.preferences.bradley_terry.fit_pairs`; the ridge applies to ``beta`` too.

    Returns
    -------
    theta : numpy.ndarray, shape (c, M)
        Centred log-strengths with style held equal.
    beta : numpy.ndarray, shape (c, k)
        Log-odds per standard deviation of each normalized style difference.
    converged : numpy.ndarray of bool, shape (c,)

    References
    ----------
    Li, T., Angelopoulos, A. & Chiang, W.-L. (2024). Does style matter? Disentangling style and substance in
    Chatbot Arena. lmsys.org/blog/2024-08-28-style-control.

    Examples
    --------
    Two equally strong models; the longer answer wins whenever lengths differ:

    >>> import numpy as np
    >>> z = np.array([[1.0], [-1.0], [1.0], [-1.0], [0.0], [0.0]])
    >>> theta, beta, ok = fit_style([0, 0, 1, 1, 0, 1], [1, 1, 0, 0, 1, 0], [0.9, 0.1, 0.9, 0.1, 0.5, 0.5], z, 2,
    ...                             np.ones((1, 6)))
    >>> theta.round(6).tolist(), beta.round(4).tolist(), bool(ok[0])
    ([[0.0, 0.0]], [[2.1972]], True)
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    y = np.asarray(outcome, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    m, k = int(n_models), z.shape[1]
    c = w.shape[0]
    pi, pj, pmap = _battle_maps(a, b, m)
    D = incidence(pi, pj, m)
    dn = sparse.csr_matrix((np.tile([1.0, -1.0], a.size), (np.repeat(np.arange(a.size), 2),
                                                           np.column_stack([a, b]).ravel())), shape=(a.size, m))
    x0 = np.zeros((c, m + k))
    if theta0 is not None:
        x0[:, :m] = theta0
    if beta0 is not None:
        x0[:, m:] = beta0

    def eta_of(x):
        return np.asarray((dn @ x[:, :m].T).T) + x[:, m:] @ z.T

    def objective(x, rows):
        eta = eta_of(x)
        ll = (w[rows] * (y * log_sigmoid(eta) + (1.0 - y) * log_sigmoid(-eta))).sum(axis=1)
        return ll - 0.5 * ridge * (x ** 2).sum(axis=1)

    def system(x, rows):
        wr = w[rows]
        eta = eta_of(x)
        p = expit(eta)
        r = wr * (y - p)
        v = wr * p * (1.0 - p)
        obj = (wr * (y * log_sigmoid(eta) + (1.0 - y) * log_sigmoid(-eta))).sum(axis=1) \
            - 0.5 * ridge * (x ** 2).sum(axis=1)
        grad = np.concatenate([np.asarray((dn.T @ r.T).T), r @ z], axis=1) - ridge * x
        h = np.asarray((pmap.T @ v.T).T)
        big = laplacian(h, pi, pj, D, m + k, ridge)
        for f in range(k):
            cross = np.asarray((dn.T @ (v * z[:, f]).T).T)
            big[:, :m, m + f] = cross
            big[:, m + f, :m] = cross
        big[:, m:, m:] = np.einsum("rn,nf,ng->rfg", v, z, z) + ridge * np.eye(k)
        return obj, grad, big

    x, converged, _ = newton_maximize(x0, system, objective, m, tol=tol, max_iter=max_iter)
    return x[:, :m], x[:, m:], converged


def style_jackknife(model_a, model_b, outcome, z, weight, unit_codes, n_units: int, theta, beta, *,
                    ridge: float = RIDGE) -> np.ndarray:
    """One-step delete-one-unit jackknife of (theta, beta) from the full fit: ``x_(-k) = x_hat - I^-1 g_k``.

    Returns
    -------
    numpy.ndarray, shape (K, M + k)
    """
    a = np.asarray(model_a, dtype=np.int64)
    b = np.asarray(model_b, dtype=np.int64)
    m, k = theta.size, beta.size
    dn = sparse.csr_matrix((np.tile([1.0, -1.0], a.size), (np.repeat(np.arange(a.size), 2),
                                                           np.column_stack([a, b]).ravel())), shape=(a.size, m))
    eta = np.asarray(dn @ theta).ravel() + z @ beta
    p = expit(eta)
    r = weight * (outcome - p)
    v = weight * p * (1.0 - p)
    units = sparse.csr_matrix((np.ones(a.size), (unit_codes, np.arange(a.size))), shape=(n_units, a.size))
    g = np.column_stack([np.asarray((units @ dn.multiply(r[:, None])).todense()), units @ (z * r[:, None])])
    pi, pj, pmap = _battle_maps(a, b, m)
    info = laplacian(np.asarray(pmap.T @ v).ravel()[None, :], pi, pj, incidence(pi, pj, m), m + k, ridge)[0]
    for f in range(k):
        cross = np.asarray(dn.T @ (v * z[:, f])).ravel()
        info[:m, m + f] = cross
        info[m + f, :m] = cross
    info[m:, m:] = (z * v[:, None]).T @ z + ridge * np.eye(k)
    step = np.linalg.solve(info, g.T).T
    return np.concatenate([theta, beta])[None, :] - step
