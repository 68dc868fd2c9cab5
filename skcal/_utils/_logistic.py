r"""Logistic regressions of a few coefficients, penalised or not, by Newton's method.

Recalibration maps that are logistic in a handful of features (Platt's
sigmoid, beta calibration, splines of the log-odds) all minimise

.. math::

    F(\theta) = \frac{1}{W} \sum_i w_i \left[\log(1 + e^{f_i}) - t_i f_i\right]
    + \frac{1}{2} \theta^\top P \theta, \qquad f = Z \theta,

with :math:`W = \sum_i w_i`, targets :math:`t_i \in [0, 1]` (labels, or
Platt's smoothed ones) and a positive semi-definite penalty :math:`P`. With
few columns the Hessian is a small dense matrix, and Newton's method with a
backtracking line search (as Lin, Lin and Weng, 2007, fit Platt's sigmoid)
converges in a few iterations of :math:`O(n d^2)` each. A structured
design (such as a spline basis, each row of which has a few non-zero
entries in another basis) may replace the dense ``Z``: any object with
``shape``, ``matvec(theta)`` (``Z theta``), ``rmatvec(r)`` (``Z' r``) and
``weighted_gram(v)`` (``Z' diag(v) Z``).

References
----------
.. [1] H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's
   probabilistic outputs for support vector machines", Machine Learning
   68, 2007, doi:10.1007/s10994-007-5018-6.
"""

# SPDX-License-Identifier: BSD-3-Clause

from typing import NamedTuple

import numpy as np
from scipy.special import expit

# Newton's method stops when the largest component of the gradient of the
# objective is below this, or after _MAX_ITER iterations.
_GTOL = 1e-12
_MAX_ITER = 100
# ... or when Newton's decrement (the decrease a full step promises) is this
# small relative to the objective.
_DECREMENT_RTOL = 1e-14
# Lin, Lin and Weng's ridge added to the Hessian, the sufficient decrease of
# the (Armijo) line search, and its smallest step.
_RIDGE = 1e-12
_ARMIJO = 1e-4
_MIN_STEP = 1e-10


class LogisticFit(NamedTuple):
    """The minimiser of a (penalised) logistic loss.

    ``hessian`` is the Hessian of the mean loss alone (no penalty, no ridge)
    at ``coef`` when it was asked for, else None.
    """

    coef: np.ndarray
    objective: float
    n_iter: int
    hessian: np.ndarray | None


def softplus(f):
    """``log(1 + e^f)`` as ``max(f, 0) + log1p(e^-|f|)``: no overflow, no cancellation.

    The same values as ``np.logaddexp(0, f)`` (to rounding), several times
    faster.
    """
    out = np.negative(np.abs(f))
    np.exp(out, out=out)
    np.log1p(out, out=out)
    out += np.maximum(f, 0.0)
    return out


def _mean_log_loss(f, t, w, total):
    """Mean of ``log(1 + e^f) - t f``, the logistic loss of targets ``t``."""
    return float((w * (softplus(f) - t * f)).sum()) / total


def _matvec(Z, theta):
    return Z @ theta if isinstance(Z, np.ndarray) else Z.matvec(theta)


def _rmatvec(Z, r):
    return Z.T @ r if isinstance(Z, np.ndarray) else Z.rmatvec(r)


def _weighted_gram(Z, v):
    if isinstance(Z, np.ndarray):
        return Z.T @ (Z * v[:, None])
    return Z.weighted_gram(v)


def mean_hessian(Z, f, w, total):
    """Hessian ``Z' diag(w p (1 - p)) Z / W`` of the mean loss at ``f = Z theta``."""
    return _hessian(Z, expit(f), w, total)


def _hessian(Z, p, w, total):
    return _weighted_gram(Z, w * p * (1.0 - p)) / total


def _objective(f, theta, t, w, total, penalty):
    loss = _mean_log_loss(f, t, w, total)
    if penalty is None:
        return loss
    return loss + 0.5 * float(theta @ penalty @ theta)


def _newton_step(Z, f, theta, t, w, total, penalty):
    """The gradient of the objective and Newton's direction (None at a minimum)."""
    p = expit(f)
    grad = _rmatvec(Z, w * (p - t)) / total
    if penalty is not None:
        grad = grad + penalty @ theta
    if np.max(np.abs(grad)) < _GTOL:
        return grad, None
    hessian = _hessian(Z, p, w, total)
    if penalty is not None:
        hessian = hessian + penalty
    hessian[np.diag_indices_from(hessian)] += _RIDGE
    try:
        return grad, -np.linalg.solve(hessian, grad)
    except np.linalg.LinAlgError:
        return grad, -np.linalg.lstsq(hessian, grad, rcond=None)[0]


def fit_logistic(Z, t, sample_weight=None, *, penalty=None, start=None, hessian=False):
    """Minimise the penalised mean logistic loss by Newton's method.

    Each iteration solves the Newton system (with a ridge of 1e-12 on the
    Hessian's diagonal) and halves the step until the Armijo condition holds.
    The losses are computed as ``log(1 + e^f) - t f`` with :func:`softplus`,
    which neither overflows nor cancels. The iteration stops when the
    largest component of the gradient is below 1e-12; or when Newton's
    decrement is at the rounding floor of the objective (then after one
    last full step: a line search could only chase rounding); or when no
    step of at least 1e-10 decreases the objective (or the accepted step
    is below the rounding of the coefficients); or after 100 iterations
    (e.g. on separable data, where the minimum is not attained). A penalty
    is best diagonal: ``theta' P theta`` of a dense ``P`` with a null space
    cancels, and its rounding error may exceed the decrease a step promises.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_coef) or structured design
        The features, columns of moderate scale (the caller centres or
        scales them): an intercept is a column of ones.
    t : ndarray of shape (n_samples,)
        Targets in [0, 1].
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights of moderate scale (see
        :func:`~skcal._utils._scaling.normalized_weights`), not all 0.
    penalty : ndarray of shape (n_coef, n_coef) or None
        The positive semi-definite matrix ``P`` of the penalty
        ``theta' P theta / 2``.
    start : ndarray of shape (n_coef,) or None
        The first iterate (zeros when None).
    hessian : bool
        Whether to return the Hessian of the mean loss at the minimiser.

    Returns
    -------
    fit : LogisticFit
        The coefficients, the objective there, the number of iterations and
        the Hessian asked for.
    """
    w = np.ones(Z.shape[0]) if sample_weight is None else sample_weight
    total = float(w.sum())
    theta = np.zeros(Z.shape[1]) if start is None else np.asarray(start, dtype=float)
    f = _matvec(Z, theta)
    value = _objective(f, theta, t, w, total, penalty)
    n_iter = 0
    while n_iter < _MAX_ITER:
        n_iter += 1
        grad, direction = _newton_step(Z, f, theta, t, w, total, penalty)
        if direction is None:
            break
        slope = float(grad @ direction)
        if -slope <= _DECREMENT_RTOL * abs(value):
            theta = theta + direction
            f = _matvec(Z, theta)
            value = _objective(f, theta, t, w, total, penalty)
            break
        step = 1.0
        while step >= _MIN_STEP:
            candidate = theta + step * direction
            f_new = _matvec(Z, candidate)
            new_value = _objective(f_new, candidate, t, w, total, penalty)
            if new_value <= value + _ARMIJO * step * slope:
                break
            step /= 2.0
        if step < _MIN_STEP or np.array_equal(candidate, theta):
            break
        theta, f, value = candidate, f_new, new_value
    hess = mean_hessian(Z, f, w, total) if hessian else None
    return LogisticFit(theta, value, n_iter, hess)
