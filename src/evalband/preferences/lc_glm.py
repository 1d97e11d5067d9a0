"""AlpacaEval's length-controlled win rate, ``length_controlled_v1`` (Dubois et al. 2024), as alpaca_eval computes it.

For each model m judged against the baseline b on instructions x, alpaca_eval's ``metrics/glm_winrate.py`` fits the
logistic GLM (patsy formula ``np.tanh(std_delta_len) + instruction_difficulty + not_gamed_baseline.astype(float) -
1``, no intercept)

    logit P(m preferred on x) = w_len tanh(std_delta_len_x) + w_diff difficulty_x + w_m not_gamed_baseline

* ``std_delta_len``: the baseline's answer length minus the model's, in characters, divided by its standard
  deviation over the model's annotations (ddof 1);
* ``difficulty_x``: a fixed per-instruction covariate (AlpacaEval's ``instruction_difficulty``, fitted once on its
  leaderboard and read from its ``df_gamed.csv``);
* the targets are the continuous preferences ``p`` in [0, 1] (a preference 0, AlpacaEval's old draw, is 0.5):
  each row enters the log-likelihood as ``p log q + (1 - p) log(1 - q)``;
* **regularization toward the gamed baselines**: the rows of two "gamed" versions of the baseline (told to be
  verbose, concise; ``not_gamed_baseline`` = 0, their own length differences and difficulties) join the fit with
  weight ``lambda / 2`` each, ``lambda`` = 0.2, so the length and difficulty coefficients are pulled toward values
  under which length alone does not change a model's quality;
* an L1 penalty ``|w|_1 + C sum_rows weight loss`` (scikit-learn's liblinear ``LogisticRegressionCV``), with C
  chosen among ``logspace(-4, 4, 10)`` by 5-fold grouped cross-validation on the weighted continuous log loss
  (``GroupKFold`` over rows; scikit-learn >= 1.6 assigns row r of n to fold ``(n - 1 - r) % 5``), then refitted
  on every row at that C.

The length-controlled win rate is the mean over the model's instructions of the prediction at equal lengths,
``logistic(w_m + w_diff difficulty_x)``.

The fit here is the same penalized likelihood solved to convergence (proximal Newton), where liblinear stops at
its tolerance 1e-4: the values agree with alpaca_eval's to about 1e-3 points. alpaca_eval reports no uncertainty
for the GLM; here it is refitted on every bootstrap replicate (instructions resampled, the gamed rows fixed, C
kept at the data's choice), so the interval includes the fit. Without AlpacaEval's ``df_gamed.csv`` the
regularization cannot be applied and the instruction difficulty is estimated from the annotations themselves
(:func:`estimate_difficulty`, the joint fit of AlpacaEval's ``instruction_difficulty`` notebook); both are said in
notes, and the values then differ from the leaderboard's.

References
----------
Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. (2024). Length-controlled AlpacaEval: a simple way to
debias automatic evaluators. arXiv:2404.04475. github.com/tatsu-lab/alpaca_eval, ``metrics/glm_winrate.py``
(``GLM_INFO['length_controlled_v1']``, ``fit_LogisticRegressionCV``) and ``notebooks/instruction_difficulty``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .._validate import ArgumentError, InputError
from .._words import words

__all__ = ["LC_GLMS", "GAMED_LAMBDA", "CS", "N_SPLITS", "GamedRows", "l1_logistic", "choose_c", "fit_v1",
           "estimate_difficulty", "read_reference", "difficulty_of_questions"]

#: the length-control GLMs: AlpacaEval's, and the minimal one (intercept and length slope per model, no
#: difficulty, no regularization; :func:`evalband.preferences.winrate.length_controlled_win_rates`)
LC_GLMS = ("length_controlled_v1", "length-only")
#: AlpacaEval's ``regularize_to_baseline_lambda``: the gamed rows' total weight (half for each of the two)
GAMED_LAMBDA = 0.2
#: the penalties cross-validated (scikit-learn's ``LogisticRegressionCV(Cs=10)``)
CS = np.logspace(-4, 4, 10)
N_SPLITS = 5


@dataclass(frozen=True)
class GamedRows:
    """The gamed baselines' rows of AlpacaEval's ``df_gamed.csv``: features and targets, and the instruction
    difficulty it holds per instruction index."""

    tanh_len: np.ndarray
    difficulty: np.ndarray
    preference: np.ndarray
    index_difficulty: dict
    source: str


# ------------------------------------------------------------------------------------------------ the solver
def _loss(eta, y, w):
    """Weighted logistic loss of each problem: sum_r w_r [log(1 + e^eta_r) - y_r eta_r] (stable)."""
    loss = np.maximum(eta, 0.0) + np.log1p(np.exp(-np.abs(eta))) - y[None, :] * eta
    return np.einsum("cn,cn->c", w, loss)


def l1_logistic(X, y, w, C, *, beta0=None, tol: float = 1e-10, max_iter: int = 200) -> np.ndarray:
    """Minimize ``|beta|_1 + C sum_r w_r [log(1 + e^eta_r) - y_r eta_r]``, ``eta = X beta``, for a batch of
    weight rows (proximal Newton with an exact coordinate-descent inner solve and Armijo backtracking).

    Parameters
    ----------
    X : array_like, shape (n, k)
    y : array_like, shape (n,)
        Continuous targets in [0, 1].
    w : array_like, shape (c, n)
        Row weights of each problem of the batch.
    C : float or array_like, shape (c,)
    beta0 : array_like, shape (c, k), optional
        Starting values (warm start).
    tol : float
        Stop when no coefficient moves by more than ``tol``.

    Returns
    -------
    numpy.ndarray, shape (c, k)
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    c, k = w.shape[0], X.shape[1]
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), (c,)).copy()
    beta = np.zeros((c, k)) if beta0 is None else np.array(np.broadcast_to(beta0, (c, k)), dtype=np.float64)
    outer = (X[:, :, None] * X[:, None, :]).reshape(X.shape[0], k * k)  # x x^T of each row, for the Hessians
    eta = beta @ X.T
    f = np.abs(beta).sum(axis=1) + C * _loss(eta, y, w)
    idx = np.arange(c)
    for _ in range(max_iter):
        if not idx.size:
            break
        b, ww, cc, e = beta[idx], w[idx], C[idx], eta[idx]
        p = expit(e)
        g = cc[:, None] * ((ww * (p - y[None, :])) @ X)
        h = cc[:, None, None] * ((ww * p * (1 - p)) @ outer).reshape(-1, k, k)
        h += 1e-12 * np.eye(k)[None]
        z = b.copy()
        for _sweep in range(200):  # the L1 quadratic model, coordinate by coordinate (k is small)
            z_old = z.copy()
            for j in range(k):
                hjj = h[:, j, j]
                r = g[:, j] + np.einsum("cl,cl->c", h[:, j, :], z - b) - hjj * (z[:, j] - b[:, j])
                u = b[:, j] - r / hjj
                z[:, j] = np.sign(u) * np.maximum(np.abs(u) - 1.0 / hjj, 0.0)
            if np.max(np.abs(z - z_old)) < 1e-14:
                break
        d = z - b
        decrease = np.einsum("ck,ck->c", g, d) + np.abs(z).sum(axis=1) - np.abs(b).sum(axis=1)
        t = np.ones(idx.size)
        f0 = f[idx]
        new, e_new = z, z @ X.T
        f_new = np.abs(new).sum(axis=1) + cc * _loss(e_new, y, ww)
        for _ls in range(60):
            bad = np.flatnonzero(f_new > f0 + 1e-4 * t * decrease + 1e-13 * np.abs(f0))
            if not bad.size:
                break
            t[bad] *= 0.5
            new[bad] = b[bad] + t[bad, None] * d[bad]
            e_new[bad] = new[bad] @ X.T
            f_new[bad] = np.abs(new[bad]).sum(axis=1) + cc[bad] * _loss(e_new[bad], y, ww[bad])
        beta[idx], eta[idx], f[idx] = new, e_new, f_new
        idx = idx[np.max(np.abs(t[:, None] * d), axis=1) > tol]
    return beta


def _folds(n: int) -> np.ndarray:
    """The fold of each of ``n`` rows in scikit-learn's ``GroupKFold(5)`` with one group per row (>= 1.6: groups
    of equal size are dealt out from the last one)."""
    return (n - 1 - np.arange(n)) % N_SPLITS


def choose_c(X, y, w) -> float:
    """The penalty of ``LogisticRegressionCV(Cs=10, cv=GroupKFold(5))`` on the weighted continuous log loss: the
    C in :data:`CS` with the best mean score over the folds (the first of equals)."""
    X, y, w = np.asarray(X, float), np.asarray(y, float), np.asarray(w, float)
    fold = _folds(y.size)
    train = np.stack([np.where(fold != f, w, 0.0) for f in range(N_SPLITS)])
    weights = np.repeat(train, CS.size, axis=0)
    cs = np.tile(CS, N_SPLITS)
    beta = l1_logistic(X, y, weights, cs)
    q = np.clip(expit(beta @ X.T), 1e-15, 1 - 1e-15)
    loss = -(w[None, :] * (y * np.log(q) + (1 - y) * np.log(1 - q)))
    scores = np.empty((N_SPLITS, CS.size))
    for f in range(N_SPLITS):
        test = fold == f
        scores[f] = -loss[f * CS.size:(f + 1) * CS.size][:, test].mean(axis=1)
    return float(CS[int(np.argmax(scores.sum(axis=0)))])


# ------------------------------------------------------------------------------------------------ the GLM
def fit_v1(tanh_len, difficulty, preference, gamed: GamedRows | None, *, weights=None, C=None, beta0=None,
           tol: float = 1e-10):
    """One model's ``length_controlled_v1`` fit: ``(coefficients (c, 3) as w_len, w_diff, w_m; C)``.

    ``weights`` (c, n): the model's rows' weights in each of c replicates (default one problem, weight 1); the
    gamed rows keep their weight ``lambda / 2``. ``C`` None: chosen by cross-validation on the data.
    """
    n = np.asarray(preference).size
    X = np.column_stack([tanh_len, difficulty, np.ones(n)])
    y = np.asarray(preference, dtype=np.float64)
    w = np.ones((1, n)) if weights is None else np.atleast_2d(np.asarray(weights, dtype=np.float64))
    if gamed is not None and gamed.preference.size:
        # AlpacaEval puts the gamed rows first (the folds of the cross-validation depend on the order)
        X = np.vstack([np.column_stack([gamed.tanh_len, gamed.difficulty, np.zeros(gamed.preference.size)]), X])
        y = np.concatenate([gamed.preference, y])
        w = np.hstack([np.full((w.shape[0], gamed.preference.size), GAMED_LAMBDA / 2), w])
    if C is None:
        C = choose_c(X, y, w[0])
    return l1_logistic(X, y, w, C, beta0=beta0, tol=tol), C


def lc_win_rate(beta, difficulty, weights=None) -> np.ndarray:
    """The win rate at equal lengths: the (weighted) mean over the model's instructions of
    ``logistic(w_m + w_diff difficulty)``, for each row of ``beta`` (c, 3)."""
    q = expit(beta[:, 2:3] + beta[:, 1:2] * np.asarray(difficulty, dtype=np.float64)[None, :])
    if weights is None:
        return q.mean(axis=1)
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w * q).sum(axis=1) / w.sum(axis=1)


# ------------------------------------------------------------------------------------------------ difficulty
def estimate_difficulty(model, question, preference, tanh_len, n_models: int, n_questions: int, *,
                        ridge: float = 1e-4, tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Instruction difficulties from the annotations of several models, as AlpacaEval's notebook computed its own:
    the joint logistic fit ``logit P = a_m + s_m tanh(std_delta_len) + gamma_x`` (an intercept and a length slope
    per model, an effect per instruction, the first instruction's 0; continuous targets), whose ``gamma`` is the
    difficulty. A small ridge penalty (``ridge``) replaces the notebook's cross-validated L1 penalty (the GLM's
    properties do not depend on how the difficulty is fitted; AlpacaEval issue 346). Newton's method with the
    instruction block eliminated (its Hessian is diagonal)."""
    model = np.asarray(model, dtype=np.int64)
    q = np.asarray(question, dtype=np.int64)
    y = np.asarray(preference, dtype=np.float64)
    z = np.asarray(tanh_len, dtype=np.float64)
    a, s, gamma = np.zeros(n_models), np.zeros(n_models), np.zeros(n_questions)
    for _ in range(max_iter):
        p = expit(a[model] + s[model] * z + gamma[q])
        r, v = y - p, p * (1 - p)
        # the model block (a, s per model: 2 x 2 blocks) and the instruction block (diagonal), coupled
        g_a = np.bincount(model, r, n_models) - ridge * a
        g_s = np.bincount(model, r * z, n_models) - ridge * s
        g_g = np.bincount(q, r, n_questions) - ridge * gamma
        g_g[0] = 0.0
        d_gg = np.bincount(q, v, n_questions) + ridge
        d_gg[0] = 1.0
        m2 = 2 * n_models
        H = np.zeros((m2, m2))
        H[np.arange(n_models), np.arange(n_models)] = np.bincount(model, v, n_models) + ridge
        H[n_models + np.arange(n_models), n_models + np.arange(n_models)] = np.bincount(model, v * z * z, n_models) + ridge
        off = np.bincount(model, v * z, n_models)
        H[np.arange(n_models), n_models + np.arange(n_models)] = off
        H[n_models + np.arange(n_models), np.arange(n_models)] = off
        B = np.zeros((m2, n_questions))  # cross terms model parameter x instruction
        np.add.at(B, (model, q), v)
        np.add.at(B, (n_models + model, q), v * z)
        B[:, 0] = 0.0
        schur = H - (B / d_gg[None, :]) @ B.T
        rhs = np.concatenate([g_a, g_s]) - B @ (g_g / d_gg)
        step_m = np.linalg.solve(schur, rhs)
        step_g = (g_g - B.T @ step_m) / d_gg
        step_g[0] = 0.0
        a += step_m[:n_models]
        s += step_m[n_models:]
        gamma += step_g
        if max(np.max(np.abs(step_m)), np.max(np.abs(step_g))) < tol:
            break
    # AlpacaEval's instruction_difficulty is the effect of the instruction on the model's log-odds of winning
    # with the sign of a difficulty (a hard instruction lowers every model's chances)
    return -gamma


# ------------------------------------------------------------------------------------------------ inputs
def read_reference(data, source: str | None = None) -> GamedRows:
    """AlpacaEval's ``df_gamed.csv`` (Hugging Face dataset tatsu-lab/alpaca_eval; columns ``index``,
    ``preference`` in [0, 1], ``std_delta_len``, ``instruction_difficulty``, ``not_gamed_baseline``): a path or
    a DataFrame."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        frame, src = data, source or "<DataFrame>"
    else:
        src = str(data)
        try:
            frame = pd.read_csv(data)
        except FileNotFoundError:
            raise InputError("no such file", source=src) from None
        except Exception as exc:
            raise InputError(f"could not be read as a CSV table ({str(exc).splitlines()[0]})", source=src) from None
    need = ["index", "preference", "std_delta_len", "instruction_difficulty"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise InputError(f"is not AlpacaEval's df_gamed.csv: no column {', '.join(map(repr, missing))} (found"
                         f" {', '.join(map(repr, map(str, frame.columns)))})", source=src)
    rows = frame
    if "not_gamed_baseline" in frame.columns:
        flag = frame["not_gamed_baseline"].astype(str).str.strip().str.lower().isin(["true", "1", "1.0"])
        rows = frame.loc[~flag.to_numpy()]
    numbers = {c: pd.to_numeric(rows[c], errors="coerce").to_numpy(dtype=np.float64) for c in need}
    for c, v in numbers.items():
        bad = np.flatnonzero(~np.isfinite(v)) if c != "preference" else np.flatnonzero(np.isinf(v))
        if bad.size:
            raise InputError(f"{c} {rows[c].iloc[bad[0]]!r} is not a finite number", source=src,
                             row=f"line {int(rows.index[bad[0]]) + 2}", column=c)
    keep = np.isfinite(numbers["preference"])  # AlpacaEval drops rows without a preference
    index = numbers["index"]
    first = {}
    for i, d in zip(index, numbers["instruction_difficulty"]):
        first.setdefault(int(i), float(d))
    return GamedRows(np.tanh(numbers["std_delta_len"][keep]), numbers["instruction_difficulty"][keep],
                     numbers["preference"][keep], first, src)


def difficulty_of_questions(questions: list, given, reference: GamedRows | None, source: str) -> tuple:
    """Each question's difficulty (array in the order of ``questions``, the order in which they first appear in
    the annotations: AlpacaEval's ``index``) and a note; None when none is given (then estimated).

    ``given``: a mapping or Series question (or index) -> difficulty, or a path to a CSV of two columns (AlpacaEval's
    ``instruction_difficulty.csv``: index, instruction_difficulty); else the reference's difficulties by index.
    """
    import pandas as pd

    if given is None and reference is None:
        return None, None
    what = "AlpacaEval's df_gamed.csv" if given is None else "the instruction difficulty given"
    if given is None:
        table = reference.index_difficulty
    elif isinstance(given, (str, bytes)) or hasattr(given, "__fspath__"):
        frame = pd.read_csv(given)
        if frame.shape[1] < 2:
            raise InputError("an instruction difficulty file needs two columns (instruction or index, difficulty)",
                             source=str(given))
        table = dict(zip(frame.iloc[:, 0], pd.to_numeric(frame.iloc[:, -1], errors="coerce")))
    else:
        table = dict(given.items()) if hasattr(given, "items") else None
        if table is None:
            raise ArgumentError(words("`{arg:instruction_difficulty}` must be 'auto', a mapping instruction -> difficulty or a CSV path; got {name}.", name=type(given).__name__))
    by_text = {str(k): v for k, v in table.items()}
    if all(str(q) in by_text for q in questions):
        values = np.array([float(by_text[str(q)]) for q in questions])
        how = "by instruction"
    else:
        by_index = {}
        for k, v in table.items():
            try:
                by_index[int(float(k))] = float(v)
            except (TypeError, ValueError):
                continue
        lacking = [k for k in range(len(questions)) if k not in by_index]
        if lacking:
            pos = lacking[0] if by_index else next(k for k, q in enumerate(questions) if str(q) not in by_text)
            raise InputError(f"{what} has no difficulty for instruction {str(questions[pos])[:60]!r} (matched neither"
                             f" by its text nor by its position {pos} among the {len(questions):,} instructions in"
                             " the order of the annotations, AlpacaEval's index)", source=source)
        values = np.array([by_index[k] for k in range(len(questions))])
        how = "by position (AlpacaEval's index: the order of the instructions in the annotations)"
    if not np.all(np.isfinite(values)):
        raise InputError(f"{what} holds a difficulty that is not a number", source=source)
    return values, f"instruction difficulty from {what}, matched {how}"
