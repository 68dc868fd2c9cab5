"""Temperature scaling: one temperature divides every logit (Guo et al., 2017)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, softmax

from skcal._docstrings import fill_doc
from skcal._param_validation import StrOptions
from skcal._typing import ArrayLike
from skcal._utils._scaling import normalized_weights, power_of_two_scale
from skcal.calibration._base import BaseRecalibrator, score_log_probabilities

# The inverse temperature is searched in [e^-20, e^20] divided by an exact
# scale of the logits near their spread, which contains scikit-learn's range
# [e^-10, e^10] for logits spread over less than e^10.
_LOG_BETA_BOUND = 20.0
# Points of the grid that brackets the Brier score's minimum.
_BRIER_GRID = 81
# Above this many rows the grid is evaluated on this many of them, drawn at
# random in proportion to their weights, and the full data's score only near
# the subsample's best minima.
_BRIER_SUBSAMPLE = 4096
# The subsample's local minima followed on the full data: at most this many,
# among those within this many standard errors of its best.
_BRIER_CANDIDATES = 3
_BRIER_MARGIN = 4.0
# The seed of the subsample's draws.
_BRIER_SEED = 0
# The Brier temperature of the bounded Brent search (on function values,
# within about 1e-7 of log T) is refined by the root of the
# derivative within this distance of its log.
_POLISH_RADIUS = 1e-6
# The root's tolerance in log T: about one rounding of T.
_SHIFT_XTOL = 2e-16

# Newton's method on the log loss: relative tolerance on 1/T and most steps
# (70 geometric bisections would already narrow [e^-20, e^20] to 1e-16).
_BETA_RTOL = 1e-12
_MAX_NEWTON = 100


def _tempered(z, beta):
    """``softmax(beta * z)`` of logits ``z`` whose rows have their maximum at 0.

    With ``beta > 0`` every exponential is at most 1 and each row's sum at
    least 1, so no shift is needed at each call.
    """
    s = np.exp(beta * z)
    s /= s.sum(axis=1, keepdims=True)
    return s


def _row_briers(logits, y, log_beta):
    """The Brier score of each row of ``softmax(exp(log_beta) * logits)``.

    The rows of ``logits`` have their maximum at 0.
    """
    p = _tempered(logits, math.exp(log_beta))
    p[np.arange(y.shape[0]), y] -= 1.0
    return np.einsum("ij,ij->i", p, p)


def _brier_loss(logits, y, sample_weight):
    """The mean Brier score of ``softmax(beta * logits)`` as a function of log beta.

    The rows of ``logits`` have their maximum at 0.
    """
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
    total = float(w.sum())

    def mean_brier(log_beta):
        return float(np.dot(w, _row_briers(logits, y, log_beta))) / total

    return mean_brier


def _descend(values, start, evaluate):
    """The grid index of the local minimum reached downhill from ``start``.

    ``values`` caches ``evaluate(index)`` (None where not yet computed).
    """

    def value(i):
        if values[i] is None:
            values[i] = evaluate(i)
        return values[i]

    i, last = start, len(values) - 1
    while True:
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j <= last]
        j = min(neighbours, key=value)
        if value(j) >= value(i):
            return i
        i = j


def _brier_grid_minimum(logits, y, sample_weight, grid):
    """The grid point with the smallest mean Brier score: ``(index, score)``.

    Up to :data:`_BRIER_SUBSAMPLE` rows of positive weight, every grid
    point is evaluated. Beyond, the grid is evaluated on that many rows drawn
    at random (a fixed seed: the fit is deterministic) with probabilities
    proportional to their weights, so that the subsample's mean estimates
    the weighted mean whatever the order of the rows or the spread of the
    weights (rows taken at a fixed stride would miss any structure of that
    period, and a few heavy rows). The subsample's local minima that its
    best does not beat by more than :data:`_BRIER_MARGIN` standard errors
    (of the mean difference of the rows' scores) are the candidates, at most
    :data:`_BRIER_CANDIDATES`, best first; from each, the full data's score
    is followed downhill to a local minimum, and the best of these is
    returned. A full evaluation costs a softmax of all the logits, so this
    takes a handful of them instead of 81.
    """
    full = _brier_loss(logits, y, sample_weight)
    n_positive = (
        y.shape[0] if sample_weight is None else np.count_nonzero(sample_weight)
    )
    if n_positive <= _BRIER_SUBSAMPLE:
        scores = [full(g) for g in grid]
        best = int(np.argmin(scores))
        return best, scores[best]
    rng = np.random.default_rng(_BRIER_SEED)
    if sample_weight is None:
        rows = rng.choice(y.shape[0], size=_BRIER_SUBSAMPLE, replace=False)
    else:
        cumulative = np.cumsum(sample_weight)
        draws = rng.uniform(0.0, cumulative[-1], size=_BRIER_SUBSAMPLE)
        rows = np.minimum(
            np.searchsorted(cumulative, draws, side="right"), y.shape[0] - 1
        )
    sub_logits, sub_y = logits[rows], y[rows]
    per_row = np.array([_row_briers(sub_logits, sub_y, g) for g in grid])
    coarse = per_row.mean(axis=1)
    padded = np.r_[np.inf, coarse, np.inf]
    minima = np.flatnonzero((coarse <= padded[:-2]) & (coarse <= padded[2:]))
    minima = minima[np.argsort(coarse[minima], kind="stable")]
    gap = per_row[minima] - per_row[minima[0]]
    excess = gap.mean(axis=1)
    se = np.sqrt(((gap - excess[:, None]) ** 2).mean(axis=1) / rows.shape[0])
    starts = minima[excess <= _BRIER_MARGIN * se][:_BRIER_CANDIDATES]
    values = [None] * grid.shape[0]
    ends = {_descend(values, int(i), lambda j: full(grid[j])) for i in starts}
    best = min(ends, key=lambda i: values[i])
    return best, values[best]


def _log_loss_beta(logits, y, sample_weight):
    """The inverse temperature that minimises the mean log loss, by Newton's method.

    The mean log loss :math:`f(\\beta) = \\mathrm{mean}_i\\,[\\log\\sum_k
    e^{\\beta z_{ik}} - \\beta z_{i y_i}]` is convex in :math:`\\beta`, with
    :math:`f' = \\mathrm{mean}_i\\,[E_{s_i} z_i - z_{i y_i}]` and
    :math:`f'' = \\mathrm{mean}_i \\operatorname{Var}_{s_i} z_i`, where
    :math:`s_i` is the softmax of :math:`\\beta z_i`. With two classes and
    :math:`d_i = z_{i1} - z_{i0}`, they are :math:`\\mathrm{mean}_i\\,
    (\\sigma(\\beta d_i) - y_i) d_i` and :math:`\\mathrm{mean}_i\\,
    \\sigma(1 - \\sigma) d_i^2`: one exponential per row instead of two and
    a softmax. See :func:`_newton_on_beta` for the search.
    """
    w = np.ones(y.shape[0]) if sample_weight is None else sample_weight
    w = w / w.sum()
    if logits.shape[1] == 2:
        d = logits[:, 1] - logits[:, 0]
        wd = w * d
        target = float(np.dot(wd, y == 1))
        wd2 = wd * d

        def derivatives(beta):
            s = expit(beta * d)
            return float(np.dot(wd, s)) - target, float(np.dot(wd2, s * (1.0 - s)))

        return _newton_on_beta(derivatives)
    # Shift each row by its maximum: softmax and the derivatives are unchanged.
    z = logits - logits.max(axis=1, keepdims=True)
    z_true = np.take_along_axis(z, y[:, None], axis=1)[:, 0]
    z2 = z * z

    def derivatives(beta):
        s = _tempered(z, beta)
        mean_z = np.einsum("ij,ij->i", s, z)
        gradient = float(np.dot(w, mean_z - z_true))
        return gradient, float(np.dot(w, np.einsum("ij,ij->i", s, z2) - mean_z**2))

    return _newton_on_beta(derivatives)


def _newton_on_beta(derivatives):
    """The root of a convex loss's gradient in :math:`\\beta`, by safeguarded Newton.

    ``derivatives(beta)`` gives the gradient and the curvature. Newton steps
    are kept inside a bracket of the minimum, in :math:`[e^{-20}, e^{20}]`,
    and replaced by a geometric bisection of the bracket when they leave
    it: each step costs one pass of exponentials, and a handful of steps
    suffice.
    """
    lo, hi = math.exp(-_LOG_BETA_BOUND), math.exp(_LOG_BETA_BOUND)
    beta = 1.0
    for _ in range(_MAX_NEWTON):
        gradient, curvature = derivatives(beta)
        if gradient == 0.0:  # the minimum itself (else it becomes an end)
            return beta
        if gradient > 0:
            hi = beta
        else:
            lo = beta
        step = beta - gradient / curvature if curvature > 0 else math.nan
        if not lo < step < hi:
            step = math.sqrt(lo * hi)
        if abs(step - beta) <= _BETA_RTOL * beta or hi - lo <= _BETA_RTOL * lo:
            return step
        beta = step
    return beta


def _brier_slope(logits, y, sample_weight, temperature):
    r"""The derivative in :math:`\log T` of the mean Brier score of softmax(z / T).

    With :math:`u = z / T`, :math:`s = \mathrm{softmax}(u)` and
    :math:`\bar u = \sum_k s_k u_k`, a row's Brier score
    :math:`\sum_k (s_k - e_k)^2` has derivative
    :math:`-2 [\sum_k s_k^2 (u_k - \bar u) - s_y (u_y - \bar u)]`. The rows
    of ``logits`` have their maximum at 0.
    """
    u = logits / temperature
    s = _tempered(logits, 1.0 / temperature)
    centred = u - np.einsum("ij,ij->i", s, u)[:, None]
    rows = np.arange(y.shape[0])
    per_row = np.einsum("ij,ij->i", s * s, centred) - s[rows, y] * centred[rows, y]
    return -2.0 * float(np.average(per_row, weights=sample_weight))


def fit_temperature(logits, y, sample_weight, loss):
    """The temperature minimising the mean log loss or Brier score of the logits.

    Parameters
    ----------
    logits : ndarray of shape (n_samples, n_classes)
        Logits whose softmax is the prediction.
    y : ndarray of int of shape (n_samples,)
        The column of the true class of each row.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    loss : {"log", "brier"}
        The loss minimised (see :class:`TemperatureRecalibrator`).

    Returns
    -------
    temperature : float
        The fitted :math:`T > 0`.
    """
    # The temperature is a scale of the logits: it is searched for on logits
    # divided by an exact power of two near their spread, so that its range
    # and arithmetic follow them at every scale.
    logits = logits - logits.max(axis=1, keepdims=True)
    spread = power_of_two_scale(logits)
    logits = logits / spread
    sample_weight = normalized_weights(sample_weight)
    if loss == "log":
        return float(spread / _log_loss_beta(logits, y, sample_weight))
    return float(spread * _brier_temperature(logits, y, sample_weight))


def _brier_temperature(logits, y, sample_weight):
    """The temperature minimising the mean Brier score of row-shifted logits.

    The score need not be unimodal in :math:`\\log \\beta`: a coarse grid
    first brackets its smallest value, and the derivative's root in the
    bracket is the answer. Without a sign change there (a minimum at the end
    of the range), or at a root that is not a minimum, Brent's search on the
    values is refined by the derivative's root within ``_POLISH_RADIUS`` of
    it (function values are flat to rounding over a relative width of about
    1e-8, the root is found to rounding), if there is one.
    """
    mean_brier = _brier_loss(logits, y, sample_weight)
    grid = np.linspace(-_LOG_BETA_BOUND, _LOG_BETA_BOUND, _BRIER_GRID)
    best, best_score = _brier_grid_minimum(logits, y, sample_weight, grid)
    bounds = (grid[max(best - 1, 0)], grid[min(best + 1, _BRIER_GRID - 1)])
    temperature = _brier_root_temperature(logits, y, sample_weight, bounds)
    if temperature is not None and mean_brier(-math.log(temperature)) <= best_score:
        return temperature
    log_beta = minimize_scalar(
        mean_brier,
        bounds=bounds,
        method="bounded",
        options={"xatol": 64 * np.finfo(np.float64).eps},
    ).x
    polish = (log_beta - _POLISH_RADIUS, log_beta + _POLISH_RADIUS)
    temperature = _brier_root_temperature(logits, y, sample_weight, polish)
    return math.exp(-log_beta) if temperature is None else temperature


def _brier_root_temperature(logits, y, sample_weight, bounds):
    """The temperature where the Brier score's derivative vanishes in ``bounds``.

    ``bounds`` are in :math:`\\log \\beta = -\\log T`. None without a sign
    change from negative to positive (in :math:`\\log \\beta`) between them.
    """

    def slope(log_beta):
        return -_brier_slope(logits, y, sample_weight, math.exp(-log_beta))

    if not (slope(bounds[0]) < 0.0 < slope(bounds[1])):
        return None
    root = brentq(slope, *bounds, xtol=_SHIFT_XTOL, rtol=4 * np.finfo(float).eps)
    return math.exp(-root)


@fill_doc
class TemperatureRecalibrator(BaseRecalibrator):
    r"""Recalibrate by dividing every logit by one temperature.

    The calibrated probabilities are :math:`\mathrm{softmax}(z / T)`, with
    :math:`z` the logits and the temperature :math:`T > 0` minimising the
    (weighted) mean log loss or Brier score on the calibration set (Guo et
    al., 2017). Dividing all logits by one positive number keeps their order,
    so the predicted class never changes. Probabilities are turned into
    logits by their logarithm (clipped at :math:`10^{-12}`), so that
    :math:`\mathrm{softmax}(\log p / T) \propto p^{1/T}`; a binary score
    :math:`s` is the pair of logits :math:`(0, s)`.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    loss : {"log", "brier"}, default="log"
        The loss the temperature minimises: the log loss (Guo et al.) or the
        Brier score (squared error summed over classes).
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    temperature_ : float
        The fitted temperature :math:`T`; above 1 softens overconfident
        predictions.
    input_ : {"probability", "logit"}
        The kind of scores seen at fit.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    PlattRecalibrator : A slope and an intercept per class.

    Notes
    -----
    The search is over :math:`1/T \in [e^{-20}/s, e^{20}/s]`, with :math:`s`
    the power of two just below the largest spread of a row of logits, so
    that the fit does not depend on the scale of the logits (it contains
    scikit-learn's :math:`[e^{-10}, e^{10}]` for spreads below :math:`e^{10}`);
    the log loss, convex in :math:`1/T`, is minimised by a
    safeguarded Newton method, and the Brier score, which may have several
    local minima, by a grid of 81 points that brackets the best value,
    bounded Brent minimisation, and the root of its derivative near the
    minimiser found (function values are flat to rounding over about
    :math:`10^{-8}` of :math:`T`, the derivative is not). The probabilities
    equal those of scikit-learn's
    ``CalibratedClassifierCV(method="temperature")`` (to the optimisers'
    tolerance) unless scikit-learn's optimum lies at a bound of
    its narrower range. (For binary decision values scikit-learn takes the
    logits :math:`(-s, s)`; here :math:`(0, s)` keeps :math:`T = 1` the
    identity.) Chidambaram and Ge (2024) compare it with other recalibrators
    on CIFAR and ImageNet models.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", ICML 2017, arXiv:1706.04599.
    .. [2] M. Chidambaram and R. Ge, "Reassessing how to compare and improve
       the calibration of machine learning models", arXiv:2406.04068.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import TemperatureRecalibrator
    >>> logits = np.array([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0],
    ...                    [4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]])
    >>> y = np.array([0, 1, 2, 1, 2, 0])
    >>> recal = TemperatureRecalibrator().fit(logits, y)
    >>> round(recal.temperature_, 2)
    5.77
    >>> recal.predict_proba([[4.0, 0.0, 0.0]]).round(2).tolist()
    [[0.5, 0.25, 0.25]]
    """

    _parameter_constraints: dict = {
        **BaseRecalibrator._parameter_constraints,
        "loss": [StrOptions({"log", "brier"})],
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        loss: Literal["brier", "log"] = "log",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.loss = loss
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_scores(self, X, scores, y, sample_weight):
        logits = score_log_probabilities(scores)
        self.temperature_ = fit_temperature(logits, y, sample_weight, self.loss)

    def _predict_proba_scores(self, X, scores):
        return softmax(score_log_probabilities(scores) / self.temperature_, axis=1)
