r"""Penalised softmax maps of score features, fitted by preconditioned L-BFGS.

Vector scaling, matrix scaling and Dirichlet calibration all map a feature
vector :math:`x \in \mathbb{R}^K` (centred logits, or log-probabilities) to
:math:`\mathrm{softmax}(W x + b)` and fit :math:`W` (diagonal or full) and
:math:`b` by minimising

.. math::

    F(W, b) = \frac{1}{\sum_i w_i} \sum_i w_i \left[\log \sum_k e^{\eta_{ik}}
    - \eta_{i y_i}\right]
    + \frac{\lambda}{K (K - 1)} \sum_{j \ne k} W_{kj}^2
    + \frac{\mu}{K} \sum_k b_k^2, \qquad \eta_i = W x_i + b,

the weighted mean log loss with Kull et al.'s off-diagonal and intercept
penalties (ODIR). This module holds that fit once.

The optimiser works on the features divided by an exact power of two
:math:`s` near their largest absolute value (so that nothing under- or
overflows at any scale), with one row of parameters per class:
:math:`\theta_k` = (row :math:`k` of :math:`s W`, :math:`b_k`). The
penalties are then a diagonal quadratic form in :math:`\theta`, and the
objective's Hessian couples the parameters of one class far more than those
of two classes. The data's curvature differs by orders of magnitude between
classes (a confident classifier leaves little curvature for rare
confusions), so L-BFGS runs on :math:`\phi_k = L_k^\top \theta_k`, with
:math:`L_k L_k^\top` the diagonal block of the Hessian for class :math:`k`
(penalties included), rebuilt after ``_REFRESH_AFTER`` iterations: a
block-Jacobi preconditioner, which leaves the minimiser unchanged and, on a
hundred classes, cuts the iterations tenfold or more. Computing the blocks
costs :math:`O(n K q^2)` for :math:`q` parameters per class, as much as
:math:`q` iterations; blocks from a subsample of the rows underestimate the
curvature of directions that few rows inform, and slowed the search down
fourfold. The search starts from the better of the identity map and the
best multiple of it (temperature scaling of the features, found by
:func:`~skcal.calibration._temperature._log_loss_beta`), where the penalties
are zero: the fitted objective is never above that of the features' own
softmax.

References
----------
.. [1] M. Kull, M. Perello-Nieto, M. Kängsepp, T. Silva Filho, H. Song and
   P. Flach, "Beyond temperature scaling: obtaining well-calibrated
   multiclass probabilities with Dirichlet calibration", NeurIPS 2019,
   arXiv:1910.12656.
.. [2] D. C. Liu and J. Nocedal, "On the limited memory BFGS method for
   large scale optimization", Mathematical Programming 45, 1989,
   doi:10.1007/BF01589116.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize
from scipy.special import softmax
from sklearn.exceptions import ConvergenceWarning

from skcal._utils._scaling import (
    drop_zero_weight,
    normalized_weights,
    power_of_two_scale,
)
from skcal.calibration._temperature import _log_loss_beta

# L-BFGS iterations after which the preconditioner is rebuilt at the
# current point (then it is kept until the end).
_REFRESH_AFTER = (50, 100)
# L-BFGS memory, and its stopping rules: the relative decrease of the
# objective, and the largest component of the preconditioned gradient.
_MEMORY = 50
_FTOL = 1e-15
_GTOL = 1e-10
# Ridge added to each curvature block, relative to each diagonal entry.
_RIDGE = 1e-10
# Penalty coefficients and logits are capped here, so that penalties on
# coefficients of features near 1e-300 stay finite.
_BIG = 1e200


class LinearSoftmax(NamedTuple):
    """A fitted map ``softmax(W x + b)`` (``W`` diagonal when ``coef`` is 1-D)."""

    coef: np.ndarray
    intercept: np.ndarray
    n_iter: int

    def logits(self, x):
        """``W x + b`` for each row of ``x``, finite whatever the scale of ``x``."""
        scale = power_of_two_scale(x)
        x = x / scale
        eta = x * self.coef if self.coef.ndim == 1 else x @ self.coef.T
        with np.errstate(over="ignore"):
            eta = eta * scale
        return np.clip(eta, -_BIG, _BIG) + self.intercept

    def __call__(self, x):
        return softmax(self.logits(x), axis=1)


class _Design(NamedTuple):
    """Scaled features and the linear map from parameters to logits.

    ``theta`` has one row per class: the coefficients of that class's logit
    (on all features, or on its own with a diagonal map), then the intercept.
    """

    u: np.ndarray
    diagonal: bool

    def logits(self, theta):
        if self.diagonal:
            return self.u * theta[:, 0] + theta[:, 1]
        return self.u @ theta[:, :-1].T + theta[:, -1]

    def adjoint(self, r):
        """The gradient in ``theta`` of ``sum(r * logits(theta))``."""
        if self.diagonal:
            return np.column_stack([np.einsum("ik,ik->k", r, self.u), r.sum(axis=0)])
        return np.column_stack([(self.u.T @ r).T, r.sum(axis=0)])

    def curvature(self, theta, w):
        """Hessian blocks ``sum_i w_i p_ik (1 - p_ik) f_ik f_ik'``, one per class.

        ``f_ik`` are the features of class ``k``'s parameters, with a 1 for
        the intercept.
        """
        p = softmax(self.logits(theta), axis=1)
        v = w[:, None] * p * (1.0 - p)
        if self.diagonal:
            uv = v * self.u
            first = np.stack([np.einsum("ik,ik->k", uv, self.u), uv.sum(axis=0)], -1)
            second = np.stack([uv.sum(axis=0), v.sum(axis=0)], -1)
            return np.stack([first, second], axis=1)
        f = np.column_stack([self.u, np.ones(self.u.shape[0])])
        root = np.sqrt(v)
        return np.stack([_gram(f * root[:, [k]]) for k in range(v.shape[1])])


def _gram(g):
    """``g' g``, which BLAS computes as a symmetric rank-k update."""
    return g.T @ g


def _penalty_weights(
    scale, n_classes, diagonal, off_diagonal_penalty, intercept_penalty
):
    r"""``d`` such that the penalties are ``sum(d * theta**2)``.

    An off-diagonal coefficient of :math:`W` is ``theta / scale``, whence
    :math:`\lambda / (K (K - 1) s^2)` (capped at ``_BIG``); the intercepts
    get :math:`\mu / K`.
    """
    d = np.zeros((n_classes, 2 if diagonal else n_classes + 1))
    d[:, -1] = intercept_penalty / n_classes
    if not diagonal and off_diagonal_penalty > 0:
        lam = off_diagonal_penalty / (n_classes * (n_classes - 1))
        with np.errstate(over="ignore"):
            per_coefficient = min(lam / scale / scale, _BIG)
        d[:, :-1] = per_coefficient * (1.0 - np.eye(n_classes))
    return d


class _Objective(NamedTuple):
    """The objective of :func:`fit_linear_softmax` on the scaled features.

    ``w`` are the weights divided by their sum; ``d`` the penalty weights of
    :func:`_penalty_weights`.
    """

    design: _Design
    y: np.ndarray
    w: np.ndarray
    d: np.ndarray

    def value_and_gradient(self, theta):
        e = self.design.logits(theta)
        e -= e.max(axis=1, keepdims=True)
        rows = np.arange(self.y.shape[0])
        true = e[rows, self.y]
        np.exp(e, out=e)
        total = e.sum(axis=1)
        value = float(self.w @ (np.log(total) - true))
        # The residuals w (softmax - onehot), in place of the exponentials.
        e *= (self.w / total)[:, None]
        e[rows, self.y] -= self.w
        value += float(np.einsum("kj,kj->", self.d, theta * theta))
        return value, self.design.adjoint(e) + 2.0 * self.d * theta

    def preconditioner(self, theta):
        """Lower Cholesky factors of the Hessian's diagonal blocks, and inverses."""
        blocks = self.design.curvature(theta, self.w)
        size = blocks.shape[1]
        diag = np.einsum("kii->ki", blocks) + 2.0 * self.d
        # A parameter that nothing informs (a column of zeros, unpenalised)
        # gets curvature 1; the others a relative ridge, so that a singular
        # block (collinear features) becomes definite without moving its
        # well-determined directions.
        diag = np.where(np.isfinite(diag) & (diag > 0), diag * (1.0 + _RIDGE), 1.0)
        eye = np.eye(size, dtype=bool)
        blocks[:, eye] = diag
        try:
            lower = np.linalg.cholesky(blocks)
        except np.linalg.LinAlgError:
            # Rounding made a block indefinite: its diagonal (Jacobi) will do.
            lower = np.sqrt(diag)[..., None] * np.eye(size)
        return lower, np.linalg.inv(lower)


def _minimize_preconditioned(objective, theta, max_iter):
    """L-BFGS on ``phi_k = L_k' theta_k``; returns ``theta``, iterations, status."""
    lower, inverse = objective.preconditioner(theta)
    shape = theta.shape

    def to_theta(phi):
        return np.einsum("kji,kj->ki", inverse, phi.reshape(shape))

    def fun(phi):
        value, gradient = objective.value_and_gradient(to_theta(phi))
        return value, np.einsum("kij,kj->ki", inverse, gradient).ravel()

    result = minimize(
        fun,
        np.einsum("kji,kj->ki", lower, theta).ravel(),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "maxcor": _MEMORY, "ftol": _FTOL, "gtol": _GTOL},
    )
    return to_theta(result.x), int(result.nit), int(result.status)


def _start(objective, scale):
    """The identity map or the best multiple of it, whichever fits better.

    Both have zero penalties. ``beta`` multiplies the scaled features, so
    the identity is ``beta = scale``.
    """
    u, diagonal = objective.design
    best_beta = _log_loss_beta(u, objective.y, objective.w)
    candidates = []
    for beta in (scale, best_beta):
        n_classes = u.shape[1]
        slopes = np.full((n_classes, 1), beta) if diagonal else beta * np.eye(n_classes)
        theta = np.column_stack([slopes, np.zeros(n_classes)])
        with np.errstate(all="ignore"):
            value, _ = objective.value_and_gradient(theta)
        candidates.append((value if np.isfinite(value) else np.inf, theta))
    return min(candidates, key=lambda c: c[0])[1]


def fit_linear_softmax(
    x,
    y,
    sample_weight=None,
    *,
    diagonal=False,
    off_diagonal_penalty=0.0,
    intercept_penalty=0.0,
    max_iter=1000,
):
    r"""Fit ``softmax(W x + b)`` to the labels ``y`` (see the module docstring).

    Parameters
    ----------
    x : ndarray of shape (n_samples, n_classes)
        Finite features, one column per class.
    y : ndarray of int of shape (n_samples,)
        Column indices of the labels.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights (as repetitions), positive for some sample.
    diagonal : bool, default=False
        Fit a diagonal :math:`W` (a vector :math:`v`), or a full one.
    off_diagonal_penalty : float, default=0.0
        :math:`\lambda`: the penalty on the off-diagonal coefficients is
        :math:`\lambda / (K (K - 1))` times the sum of their squares.
    intercept_penalty : float, default=0.0
        :math:`\mu`: the penalty on the intercepts is :math:`\mu / K` times
        the sum of their squares.
    max_iter : int, default=1000
        Largest number of L-BFGS iterations, in all.

    Returns
    -------
    fitted : LinearSoftmax
        ``coef`` (``(K, K)``, or ``(K,)`` if ``diagonal``) and ``intercept``
        in the units of ``x``; the intercepts sum to 0.
    """
    sample_weight, x, y = drop_zero_weight(sample_weight, x, y)
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
    w = normalized_weights(w)
    w = w / w.sum()
    scale = power_of_two_scale(x)
    d = _penalty_weights(
        scale, x.shape[1], diagonal, off_diagonal_penalty, intercept_penalty
    )
    objective = _Objective(_Design(x / scale, diagonal), y, w, d)
    theta = _start(objective, scale)
    n_iter, status = 0, 1
    for stage in (*_REFRESH_AFTER, max_iter):
        budget = min(stage, max_iter - n_iter)
        if budget <= 0:
            break
        theta, used, status = _minimize_preconditioned(objective, theta, budget)
        n_iter += used
        if status != 1:  # converged (or stopped at the rounding floor)
            break
    if status == 1:
        warnings.warn(
            f"The fit stopped after max_iter={max_iter} iterations without "
            "converging; increase max_iter, or the penalties.",
            ConvergenceWarning,
            stacklevel=2,
        )
    with np.errstate(over="ignore"):
        coef = theta[:, :-1] / scale
    intercept = theta[:, -1] - theta[:, -1].mean()
    return LinearSoftmax(coef[:, 0] if diagonal else coef, intercept, n_iter)
