"""Spline calibration: a penalised natural cubic spline of the log-odds (Lucena)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Literal, NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval
from skcal._typing import ArrayLike
from skcal._utils._bins import weighted_quantile_edges
from skcal._utils._logistic import fit_logistic
from skcal._utils._scaling import power_of_two_scale
from skcal.calibration._base import BinaryMapRecalibrator

# The smoothing search runs over relative penalties rho: the penalty alpha
# divided by the total weight W and by trace(H0) / trace(S), with H0 the
# largest possible Hessian of the mean loss (1/4 of the weighted Gram matrix)
# and S the curvature penalty. rho = 1e-4 leaves the spline all but
# unpenalised, rho = 1e8 all but linear; from _RHO_LINEAR on the map is the
# linear limit itself, whose effective degrees of freedom are 2.
_RHO_GRID = 10.0 ** np.arange(-4.0, 9.0)
_RHO_LINEAR = 1e10
# Brent's refinement of log10(rho) between the neighbours of the best grid point.
_LOG_RHO_XATOL = 0.02
# Knots closer than this (on the knots' range scaled to [0, 1]) are merged.
_MIN_KNOT_GAP = 1e-6
# As the penalty vanishes, the fit diverges where the calibration set has
# samples of one class only (its log-odds there grow without bound), and the
# AIC keeps falling: its degrees of freedom shrink with the Hessian p (1 - p)
# there. A fit whose log-odds at a knot exceed the linear map's largest by
# more than this is taken to diverge.
_DIVERGENCE = 10.0
# Ridge added to the penalised Hessian for the effective degrees of freedom.
_EDF_RIDGE = 1e-12
# Scaled log-odds are clipped to this before extrapolation (a map is linear
# there, and its output saturated long before).
_U_BOUND = 1e100


# ---------------------------------------------------------------------------
# Natural cubic splines in the value / second-derivative representation
# (Green and Silverman, 1994, Section 2.1).
# ---------------------------------------------------------------------------


def curvature_matrices(knots):
    """The penalty ``S`` and the map ``G`` from knot values to second derivatives.

    A natural cubic spline with values ``g`` at the knots has second
    derivatives ``G g`` there (0 at the two ends), and ``int f''(u)^2 du =
    g' S g`` with ``S = Q R^{-1} Q'``, where ``Q' g = R gamma`` states that the
    first derivative is continuous at the interior knots.

    Parameters
    ----------
    knots : ndarray of shape (n_knots,)
        Increasing knots.

    Returns
    -------
    penalty : ndarray of shape (n_knots, n_knots)
        ``S``, positive semi-definite, zero exactly on linear functions.
    second : ndarray of shape (n_knots, n_knots)
        ``G``, whose first and last rows are 0.
    """
    k = knots.shape[0]
    second = np.zeros((k, k))
    if k < 3:
        return np.zeros((k, k)), second
    h = np.diff(knots)
    inner = np.arange(k - 2)
    q = np.zeros((k, k - 2))
    q[inner, inner] = 1.0 / h[:-1]
    q[inner + 1, inner] = -1.0 / h[:-1] - 1.0 / h[1:]
    q[inner + 2, inner] = 1.0 / h[1:]
    r = np.diag((h[:-1] + h[1:]) / 3.0)
    r[inner[:-1], inner[:-1] + 1] = r[inner[:-1] + 1, inner[:-1]] = h[1:-1] / 6.0
    second[1:-1] = np.linalg.solve(r, q.T)
    penalty = q @ second[1:-1]
    return 0.5 * (penalty + penalty.T), second


def demmler_reinsch_basis(knots, penalty):
    """An orthogonal basis of knot values in which the penalty is diagonal.

    The first two columns span the linear functions (the penalty's null
    space, built exactly rather than found as rounding-level eigenvalues);
    the others are eigenvectors of the penalty on their complement. In
    these coordinates ``beta' diag(s) beta`` is a sum of non-negative terms,
    which does not cancel as ``g' S g`` does near a linear function.

    Returns
    -------
    basis : ndarray of shape (n_knots, n_knots)
        ``B``, orthogonal: knot values ``g = B beta``.
    eigenvalues : ndarray of shape (n_knots,)
        ``s``, with ``B' S B = diag(s)`` and ``s[:2] = 0``.
    """
    k = knots.shape[0]
    full, _ = np.linalg.qr(np.column_stack([np.ones(k), knots]), mode="complete")
    rest = full[:, 2:]
    inner = rest.T @ penalty @ rest
    eigenvalues, vectors = np.linalg.eigh(0.5 * (inner + inner.T))
    basis = np.column_stack([full[:, :2], rest @ vectors])
    return basis, np.concatenate([[0.0, 0.0], np.maximum(eigenvalues, 0.0)])


def _interval_weights(u, knots):
    """Interval of each point and the weights of ``g_i, g_i+1, gamma_i, gamma_i+1``.

    Inside ``[t_i, t_i+1]`` (``d1 = u - t_i``, ``d2 = t_i+1 - u``, ``h`` the
    width) the spline is ``(d1 g_i+1 + d2 g_i) / h - d1 d2 / 6 [(1 + d1 / h)
    gamma_i+1 + (1 + d2 / h) gamma_i]``; beyond the ends it is the tangent
    line at the end knot (a natural spline's second derivative is 0 there).
    """
    i = np.clip(np.searchsorted(knots, u, side="right") - 1, 0, knots.shape[0] - 2)
    lo, h = knots[i], knots[i + 1] - knots[i]
    d1, d2 = u - lo, knots[i + 1] - u
    a_lo, a_hi = d2 / h, d1 / h
    cubic = d1 * d2 / 6.0
    b_lo, b_hi = -cubic * (1.0 + d2 / h), -cubic * (1.0 + d1 / h)
    left, right = u < knots[0], u > knots[-1]
    b_lo[left], b_hi[left] = 0.0, (-d1 * h / 6.0)[left]
    b_lo[right], b_hi[right] = (-d2 * h / 6.0)[right], 0.0
    return i, a_lo, a_hi, b_lo, b_hi


class SplineDesign:
    """The basis matrix ``Z`` of natural cubic splines at points, kept sparse.

    The spline of knot values ``g`` at ``u`` in ``[t_i, t_i+1]`` is
    ``a_lo g_i + a_hi g_i+1 + b_lo gamma_i + b_hi gamma_i+1`` with ``gamma =
    G g`` (:func:`curvature_matrices`): ``Z = C M`` with ``C`` of 4 non-zero
    entries per row and ``M = [I; G] B``, for coefficients ``beta`` with
    ``g = B beta``. Products with ``Z`` and the weighted Gram matrix
    ``Z' diag(v) Z = M' (C' diag(v) C) M`` take O(n) operations (sums over
    the runs of points in one interval) and O(n) memory, where a dense
    ``Z`` takes O(n K).

    Parameters
    ----------
    u : ndarray of shape (n_samples,)
        Points, in increasing order.
    knots : ndarray of shape (n_knots,)
        Increasing knots, at least 2.
    second : ndarray of shape (n_knots, n_knots)
        The map ``G`` from knot values to second derivatives.
    basis : ndarray of shape (n_knots, n_knots) or None
        ``B``; None is the identity (the coefficients are the knot values).
    """

    def __init__(self, u, knots, second, basis=None):
        self.index, *weights = _interval_weights(u, knots)
        self.weights = np.stack(weights)
        k = knots.shape[0]
        self.shape = (u.shape[0], k)
        self._lift = np.vstack([np.eye(k), second])
        if basis is not None:
            self._lift = self._lift @ basis
        self._starts = np.flatnonzero(
            np.concatenate([[True], self.index[1:] != self.index[:-1]])
        )
        # Column of C of each weight (a_lo, a_hi, b_lo, b_hi) in each run.
        present = self.index[self._starts]
        self._columns = [present, present + 1, present + k, present + k + 1]

    def matvec(self, beta):
        """``Z beta``: the spline of coefficients ``beta`` at the points."""
        c, k = self._lift @ beta, self.shape[1]
        i, (a_lo, a_hi, b_lo, b_hi) = self.index, self.weights
        return a_lo * c[i] + a_hi * c[i + 1] + b_lo * c[k + i] + b_hi * c[k + i + 1]

    def rmatvec(self, r):
        """``Z' r``."""
        sums = np.add.reduceat(self.weights * r, self._starts, axis=1)
        total = np.zeros(2 * self.shape[1])
        for columns, run_sums in zip(self._columns, sums, strict=True):
            total[columns] += run_sums
        return self._lift.T @ total

    def weighted_gram(self, v):
        """``Z' diag(v) Z``, summed over the runs of one interval."""
        k = self.shape[1]
        gram = np.zeros((2 * k, 2 * k))
        for p in range(4):
            sums = np.add.reduceat(
                self.weights[p:] * (v * self.weights[p]), self._starts, axis=1
            )
            rows = self._columns[p]
            for q in range(p, 4):
                cols = self._columns[q]
                gram[rows, cols] += sums[q - p]
                if q != p:
                    gram[cols, rows] += sums[q - p]
        return self._lift.T @ gram @ self._lift


class SplineMap(NamedTuple):
    """A fitted map ``expit(f(u))``: ``f`` a natural cubic spline of scaled log-odds.

    The log-odds ``x`` become ``u = (x / exact - origin) / span``, so that the
    knots span [0, 1]; ``values`` and ``second`` are ``f`` and ``f''`` at the
    knots. ``log_odds_knots`` are the knots in the units of ``x``.
    """

    exact: float
    origin: float
    span: float
    knots: np.ndarray
    values: np.ndarray
    second: np.ndarray
    log_odds_knots: np.ndarray

    def __call__(self, x):
        if self.knots.shape[0] == 1:
            return np.full(np.shape(x), expit(self.values[0]))
        with np.errstate(over="ignore"):
            u = (x / self.exact - self.origin) / self.span
        u = np.clip(u, -_U_BOUND, _U_BOUND)
        i, a_lo, a_hi, b_lo, b_hi = _interval_weights(u, self.knots)
        g, gamma = self.values, self.second
        f = a_lo * g[i] + a_hi * g[i + 1] + b_lo * gamma[i] + b_hi * gamma[i + 1]
        return expit(f)


# ---------------------------------------------------------------------------
# Data, knots, and the fit for one penalty
# ---------------------------------------------------------------------------


class _Problem(NamedTuple):
    """One map's data: distinct scaled log-odds, their weights and mean labels."""

    u: np.ndarray
    t: np.ndarray
    w: np.ndarray
    weight_scale: float  # the weights are w * weight_scale
    knots: np.ndarray
    design: SplineDesign  # in the coordinates beta of the Demmler-Reinsch basis
    basis: np.ndarray
    eigenvalues: np.ndarray
    second: np.ndarray
    rho_unit: float  # the penalty per unit weight of rho = 1


def _distinct(x, y, sample_weight):
    """Sorted distinct values of ``x`` with positive weight, their weights and means.

    Rows with the same ``x`` share ``f(x)``: one row of their total weight and
    weighted mean label has the same loss. The weights are divided by a power
    of two (returned), so that their sums neither overflow nor underflow.
    """
    w = np.ones(x.shape[0]) if sample_weight is None else sample_weight
    scale = 1.0 if sample_weight is None else power_of_two_scale(sample_weight)
    keep = w > 0
    x, y, w = x[keep], y[keep], w[keep] / scale
    order = np.argsort(x, kind="stable")
    x, y, w = x[order], y[order], w[order]
    starts = np.concatenate([[0], np.flatnonzero(x[1:] != x[:-1]) + 1])
    weight = np.add.reduceat(w, starts)
    mean = np.clip(np.add.reduceat(w * y, starts) / weight, 0.0, 1.0)
    return x[starts], mean, weight, scale


def _knots(values, weight, n_knots):
    """Weighted quantiles at levels ``j / (n_knots - 1)``, near duplicates merged."""
    inner = weighted_quantile_edges(values, weight, n_knots - 1)
    knots = np.unique(np.concatenate([values[:1], inner, values[-1:]]))
    if knots.shape[0] < 3:
        return knots
    u = (knots - knots[0]) / (knots[-1] - knots[0])
    keep = [0]
    for j in range(1, u.shape[0] - 1):
        if u[j] - u[keep[-1]] >= _MIN_KNOT_GAP and u[-1] - u[j] >= _MIN_KNOT_GAP:
            keep.append(j)
    keep.append(u.shape[0] - 1)
    return knots[keep]


def _problem(x, y, sample_weight, n_knots):
    """Distinct log-odds scaled so that the knots span [0, 1], and the spline basis.

    Returns None when the log-odds take a single value (with positive weight).
    """
    values, t, w, weight_scale = _distinct(x, y.astype(np.float64), sample_weight)
    if values.shape[0] == 1:
        return None, (values, t, w)
    # Divided by an exact power of two first, so that no span overflows.
    exact = power_of_two_scale(values)
    scaled = values / exact
    knots_scaled = _knots(scaled, w, n_knots)
    origin, span = knots_scaled[0], knots_scaled[-1] - knots_scaled[0]
    u = (scaled - origin) / span
    knots = (knots_scaled - origin) / span
    knots[0], knots[-1] = 0.0, 1.0
    knots_x = knots_scaled * exact
    penalty, second = curvature_matrices(knots)
    basis, eigenvalues = demmler_reinsch_basis(knots, penalty)
    design = SplineDesign(u, knots, second, basis)
    gram = float(np.trace(design.weighted_gram(w))) / (4.0 * float(w.sum()))
    trace_s = float(eigenvalues.sum())
    rho_unit = gram / trace_s if trace_s > 0 else math.inf
    problem = _Problem(
        u, t, w, weight_scale, knots, design, basis, eigenvalues, second, rho_unit
    )
    return problem, (exact, origin, span, knots_x)


def _mean_label_logit(t, w):
    mean = float((w * t).sum()) / float(w.sum())
    if 0.0 < mean < 1.0:
        return math.log(mean) - math.log1p(-mean)
    return 0.0


def _fit_linear(problem):
    """The linear limit: a logistic map of ``u``, as knot values, with its loss."""
    z = np.column_stack([np.ones_like(problem.u), problem.u])
    start = np.array([_mean_label_logit(problem.t, problem.w), 0.0])
    fit = fit_logistic(z, problem.t, problem.w, start=start)
    return fit.coef[0] + fit.coef[1] * problem.knots, fit.objective


class _PenalisedFit(NamedTuple):
    values: np.ndarray
    rho: float
    loss: float  # the mean loss (without penalty)
    edf: float
    criterion: float  # loss + edf / W: the AIC divided by 2 W


def _fit_penalised(problem, rho, start):
    """The fit for the relative penalty ``rho`` (``inf``: the linear limit)."""
    total = float(problem.w.sum()) * problem.weight_scale
    if rho >= _RHO_LINEAR or not math.isfinite(problem.rho_unit):
        values, loss = _fit_linear(problem)
        return _PenalisedFit(values, math.inf, loss, 2.0, loss + 2.0 / total)
    lam = rho * problem.rho_unit
    diagonal = lam * problem.eigenvalues
    fit = fit_logistic(
        problem.design,
        problem.t,
        problem.w,
        penalty=np.diag(diagonal) if lam > 0 else None,
        start=problem.basis.T @ start,
        hessian=True,
    )
    beta, hessian = fit.coef, fit.hessian
    loss = fit.objective - 0.5 * float(diagonal @ beta**2)
    system = hessian + np.diag(diagonal + _EDF_RIDGE)
    edf = float(np.trace(np.linalg.solve(system, hessian)))
    theta = problem.basis @ beta
    return _PenalisedFit(theta, rho, loss, edf, loss + edf / total)


# ---------------------------------------------------------------------------
# The smoothing penalty: given, or chosen by the AIC (UBRE)
# ---------------------------------------------------------------------------


def _search_rho(problem):
    """The fit of least ``loss + edf / W`` over the grid of rho, refined by Brent.

    The grid is scanned from the linear map towards smaller penalties, and
    stops at the first fit that diverges (see :data:`_DIVERGENCE`): that fit
    and smaller penalties are not considered.
    """
    linear = _fit_penalised(problem, math.inf, None)
    bound = float(np.abs(linear.values).max()) + _DIVERGENCE

    def admissible(fit):
        return float(np.abs(fit.values).max()) <= bound

    fits = [linear]
    for rho in _RHO_GRID[::-1]:
        fit = _fit_penalised(problem, rho, fits[-1].values)
        if not admissible(fit):
            break
        fits.append(fit)
    best = min(fits, key=lambda f: f.criterion)
    if not math.isfinite(best.rho):
        return best
    log_grid = np.log10(_RHO_GRID)
    k = int(np.argmin(np.abs(log_grid - math.log10(best.rho))))
    bounds = (log_grid[max(k - 1, 0)], log_grid[min(k + 1, log_grid.shape[0] - 1)])
    refined = [best]

    def criterion(log_rho):
        fit = _fit_penalised(problem, 10.0**log_rho, best.values)
        if not admissible(fit):
            return best.criterion + 1.0
        refined.append(fit)
        return fit.criterion

    minimize_scalar(
        criterion, bounds=bounds, method="bounded", options={"xatol": _LOG_RHO_XATOL}
    )
    return min(refined, key=lambda f: f.criterion)


def fit_spline(x, y, sample_weight, n_knots, alpha):
    """Fit the penalised spline map of the log-odds ``x`` to the outcomes ``y``.

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        Log-odds (or decision values).
    y : ndarray of shape (n_samples,)
        Boolean outcomes.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    n_knots : int
        The number of knots asked for.
    alpha : float or None
        The penalty; None chooses it by the AIC.

    Returns
    -------
    spline_map : SplineMap
    alpha : float
        The penalty used (``inf`` for the linear limit).
    edf : float
        The effective degrees of freedom.
    """
    problem, frame = _problem(x, y, sample_weight, n_knots)
    if problem is None:
        values, t, w = frame
        logit = np.array([_mean_label_logit(t, w)])
        return SplineMap(1.0, 0.0, 1.0, values, logit, np.zeros(1), values), 0.0, 1.0
    start = np.full(problem.knots.shape[0], _mean_label_logit(problem.t, problem.w))
    total = float(problem.w.sum()) * problem.weight_scale
    if alpha is None:
        fit = _search_rho(problem)
    else:
        with np.errstate(over="ignore"):
            rho = alpha / total / problem.rho_unit if alpha > 0 else 0.0
        fit = _fit_penalised(problem, rho, start)
    exact, origin, span, knots_x = frame
    spline = SplineMap(
        exact,
        origin,
        span,
        problem.knots,
        fit.values,
        problem.second @ fit.values,
        knots_x,
    )
    if alpha is not None:
        return spline, float(alpha), fit.edf
    with np.errstate(over="ignore", invalid="ignore"):
        chosen = fit.rho * problem.rho_unit * total if fit.rho > 0 else 0.0
    return spline, float(chosen), fit.edf


@fill_doc
class SplineRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with a smooth logistic map: a penalised spline of the log-odds.

    The map is :math:`h(s) = 1 / (1 + e^{-f(s)})`, with :math:`f` a natural
    cubic spline of the score's log-odds :math:`s` (the decision value, or
    :math:`\log(p / (1 - p))` of a probability clipped to :math:`[10^{-12},
    1 - 10^{-12}]`), as in Lucena (2018). Its knots :math:`t_1 < \dots <
    t_K` are the (weighted) quantiles of the calibration log-odds at levels
    :math:`j / (K - 1)`, the first and last being the smallest and largest;
    :math:`f` is cubic between knots, linear beyond them. It minimises the
    penalised deviance

    .. math::

        D(f) + \alpha \int_0^1 f''(u)^2\, du, \qquad
        D(f) = 2 \sum_i w_i \left[\log(1 + e^{f(s_i)}) - y_i f(s_i)\right],

    where :math:`u = (s - t_1) / (t_K - t_1)` is the log-odds rescaled so
    that the knots span [0, 1]. The curvature penalty vanishes exactly on
    linear functions: :math:`\alpha \to \infty` gives the logistic map
    :math:`\sigma(a s + b)` of maximum likelihood (Platt scaling of the
    log-odds without Platt's smoothed targets), :math:`\alpha = 0` the
    unpenalised spline. With ``alpha=None``, :math:`\alpha` minimises the
    AIC (the UBRE criterion of a binomial model, whose scale is known, as
    in mgcv; Wood, 2017)

    .. math::

        \mathrm{AIC}(\alpha) = D(f_\alpha) + 2\, \mathrm{edf}(\alpha), \qquad
        \mathrm{edf}(\alpha) = \operatorname{tr}\left((H + \alpha S)^{-1}
        H\right),

    with :math:`H` the Hessian of :math:`D / 2` at the fit and
    :math:`S` the penalty's matrix (so that :math:`\mathrm{edf}` runs from
    :math:`K` down to 2), over a grid of penalties spaced by factors of 10,
    refined by Brent's method, the linear limit included.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    n_knots : int, default=16
        The number of knots :math:`K` (fewer when the log-odds take fewer
        distinct values); 2 gives the linear logistic map.
    alpha : float or None, default=None
        The penalty :math:`\alpha \ge 0`; ``np.inf`` gives the linear map.
        None chooses it by the AIC.
    %(multiclass)s
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    alpha_ : ndarray of shape (n_maps,)
        The penalty of each map (one for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``): ``alpha`` when given,
        else the AIC's choice (``inf`` for the linear map).
    edf_ : ndarray of shape (n_maps,)
        The effective degrees of freedom of each map, between 2 and the
        number of knots (1 for a constant map).
    knots_ : list of ndarray
        The knots of each map, in log-odds.
    calibrators_ : list of callables
        The fitted maps, from log-odds to probability.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    PlattRecalibrator : A logistic map of the log-odds.
    BetaRecalibrator : A logistic map of log p and log(1 - p).
    IsotonicRecalibrator : A non-decreasing step map.

    Notes
    -----
    Weights count as repetitions, and the AIC counts samples: multiplying
    every weight by a constant multiplies the deviance but not the edf, so
    it changes the chosen penalty (larger weights, a wigglier map), and a
    given ``alpha`` weighs less against larger weights. The map need not
    be monotone. Rows with the same score are merged before the fit (which
    leaves it unchanged), so heavily tied scores fit fast. Beyond the
    extreme knots the log-odds of the map are linear, as Platt's are: scores
    outside the calibration range are extrapolated. Lucena's
    ``SplineCalib`` differs: its knots are drawn at random, its penalty is
    a ridge on the coefficients of a truncated-power basis, it chooses the
    penalty by cross-validated log loss, and it adds pseudo-data along the
    identity.

    References
    ----------
    .. [1] B. Lucena, "Spline-based probability calibration",
       arXiv:1809.07751, 2018.
    .. [2] S. N. Wood, "Generalized Additive Models: An Introduction with
       R", 2nd edition, Chapman and Hall/CRC, 2017,
       doi:10.1201/9781315370279.
    .. [3] P. J. Green and B. W. Silverman, "Nonparametric Regression and
       Generalized Linear Models", Chapman and Hall, 1994,
       doi:10.1007/978-1-4899-4473-3.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import SplineRecalibrator
    >>> p = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> recal = SplineRecalibrator(n_knots=4).fit(p, y)
    >>> recal.predict_proba([0.1, 0.5, 0.9])[:, 1].round(2).tolist()
    [0.09, 0.5, 0.91]

    On 8 samples the AIC prefers the linear map (2 degrees of freedom):

    >>> recal.edf_.round(2).tolist(), recal.alpha_.tolist()
    ([2.0], [inf])
    """

    _parameter_constraints: dict = {
        **BinaryMapRecalibrator._parameter_constraints,
        "n_knots": [Interval(Integral, 2, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left"), None],
    }

    _feature = "logit"

    def __init__(
        self,
        estimator: Any = None,
        *,
        n_knots: int = 16,
        alpha: float | None = None,
        multiclass: Literal["ovr", "top_label"] = "ovr",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_knots = n_knots
        self.alpha = alpha
        self.multiclass = multiclass
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_map(self, x, y, sample_weight):
        return fit_spline(x, y, sample_weight, self.n_knots, self.alpha)

    def _apply_map(self, fitted_map, x):
        return fitted_map(x)

    def _fit_scores(self, X, scores, y, sample_weight):
        super()._fit_scores(X, scores, y, sample_weight)
        self.alpha_ = np.array([m[1] for m in self.calibrators_])
        self.edf_ = np.array([m[2] for m in self.calibrators_])
        self.knots_ = [m[0].log_odds_knots for m in self.calibrators_]
        self.calibrators_ = [m[0] for m in self.calibrators_]
