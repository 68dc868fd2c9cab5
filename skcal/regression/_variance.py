"""Variance recalibration: Platt scaling of the predicted variance (Gruber and
Buettner, section 5)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import ndtri

from skcal._utils._scaling import normalized_weights, power_of_two_scale
from skcal.regression._base import BaseRegressionRecalibrator, GaussianRecalibratorMixin

# The lower bound of both parameters (on variances divided by their mean),
# as in the authors' code: the map stays injective.
_FLOOR = 1e-10


def _dss_and_gradient(params, variance, squared_error, weight):
    """Mean Dawid-Sebastiani score of ``w * variance + b`` and its gradient."""
    w, b = params
    s = w * variance + b
    per_sample = squared_error / s + np.log(s)
    slope = (1.0 / s - squared_error / s**2) * weight
    return float(per_sample @ weight), np.array([slope @ variance, slope.sum()])


def fit_variance_map(std, error, sample_weight, fit_intercept):
    """``(w, sqrt(b))`` minimising the mean DSS of ``w * std**2 + b``, ``w, b > 0``.

    ``error`` is ``y - mean``. The standard deviations and errors are
    divided by a power of two ``s`` (exactly) and the variances by their
    mean ``c`` then, which shifts every score by a constant and leaves the
    minimiser's ``w`` unchanged (``b`` scales by ``c * s**2``): the floor of
    the parameters is scale-free, and no square under- or overflows at
    standard deviations of 1e-170 or 1e170. So ``sqrt(b)`` is returned,
    ``b`` itself being out of the float range there. Without intercept the
    minimum is at ``w = mean((error / std)**2)``; with it, L-BFGS-B starts
    there.
    """
    n = std.shape[0]
    if sample_weight is None:
        weight = np.full(n, 1.0 / n)
    else:
        weight = normalized_weights(sample_weight)
        weight = weight / weight.sum()
    w0 = max(float(((error / std) ** 2) @ weight), _FLOOR)
    if not fit_intercept:
        return w0, 0.0
    s = power_of_two_scale(std[weight > 0])
    v, r2 = (std / s) ** 2, (error / s) ** 2
    c = float(v @ weight)
    v, r2 = v / c, r2 / c
    result = minimize(
        _dss_and_gradient,
        x0=np.array([w0, _FLOOR]),
        args=(v, r2, weight),
        jac=True,
        method="L-BFGS-B",
        bounds=[(_FLOOR, None), (_FLOOR, None)],
    )
    # L-BFGS-B may stop on a flat stretch above its start; keep the better.
    start, _ = _dss_and_gradient(np.array([w0, _FLOOR]), v, r2, weight)
    w, b = result.x if result.fun <= start else (w0, _FLOOR)
    return float(w), float(np.sqrt(b * c)) * s


class VarianceRecalibrator(GaussianRecalibratorMixin, BaseRegressionRecalibrator):
    r"""Recalibrate predicted variances by ``w * var + b`` (Platt scaling).

    The predicted mean is kept; the predicted variance :math:`\sigma^2` is
    mapped to :math:`w \sigma^2 + b` with :math:`w, b > 0`, chosen to
    minimise the mean Dawid-Sebastiani score on the calibration set

    .. math::

        \frac{1}{n} \sum_i \frac{(y_i - \mu_i)^2}{w \sigma_i^2 + b}
        + \log(w \sigma_i^2 + b),

    the recalibration of Gruber and Buettner [1]_ (section 5, appendix
    G.5). The map is injective, so the score's change equals the change of
    the proper calibration error it induces (their Proposition 4.5).
    Without intercept the minimiser has the closed form
    :math:`w = \frac1n \sum_i (y_i - \mu_i)^2 / \sigma_i^2`, the mean of
    :func:`error_variance_ratio`: afterwards that mean is exactly 1.
    Because the DSS depends on the first two moments only, fitting by the
    Gaussian negative log-likelihood gives the same map.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    estimator : regressor or None, default=None
        A fitted regressor whose ``predict(X, return_std=True)`` returns
        means and standard deviations (``GaussianProcessRegressor``,
        ``BayesianRidge``, ...); it is never refitted. With None, ``X`` is
        the ``(n_samples, 2)`` array of predicted means and standard
        deviations.
    fit_intercept : bool, default=True
        Whether to fit ``b``; False fits ``w`` alone, in closed form.

    Attributes
    ----------
    coef_ : float
        The fitted ``w``.
    intercept_ : float
        The fitted ``b``, in squared units of the target (0 without
        intercept). The map is computed from its square root, so that
        standard deviations near the ends of the float range (where ``b``
        itself would under- or overflow) are recalibrated as well.
    n_features_in_ : int
        The number of columns of ``X`` seen at fit (2 with
        ``estimator=None``; the regressor's otherwise).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The column names of ``X``, when it had string names.

    See Also
    --------
    IsotonicPITRecalibrator : A monotone map of the whole distribution.
    RecalibratedRegressorCV : Fits a regressor and this on folds.
    dawid_sebastiani_score : The score it minimises.

    References
    ----------
    .. [1] S. G. Gruber and F. Buettner, "Better Uncertainty Calibration
       via Proper Scores for Classification and Beyond", NeurIPS 2022,
       arXiv:2203.07835.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.regression import VarianceRecalibrator
    >>> rng = np.random.RandomState(0)
    >>> mean = rng.normal(size=1000)
    >>> y = mean + rng.normal(scale=2.0, size=1000)  # the errors' std is 2
    >>> X = np.column_stack([mean, np.ones(1000)])  # but 1 is predicted
    >>> recalibrator = VarianceRecalibrator(fit_intercept=False).fit(X, y)
    >>> round(recalibrator.coef_, 2)
    3.75
    >>> recalibrator.predict(X[:2], return_std=True)[1].round(2).tolist()
    [1.94, 1.94]
    """

    _parameter_constraints: dict = {
        **BaseRegressionRecalibrator._parameter_constraints,
        "fit_intercept": ["boolean"],
    }

    def __init__(self, estimator: Any = None, *, fit_intercept: bool = True) -> None:
        self.estimator = estimator
        self.fit_intercept = fit_intercept

    def _fit_predictions(self, predictions, y, sample_weight):
        mean, std = predictions
        self.coef_, self._root_intercept = fit_variance_map(
            std, y - mean, sample_weight, self.fit_intercept
        )
        with np.errstate(over="ignore", under="ignore"):
            self.intercept_ = float(np.square(self._root_intercept))
        self._standard_moments = (0.0, 1.0)

    def _location_scale(self, mean, std):
        # hypot: sqrt(w std**2 + b) without squaring std or b.
        return mean, np.hypot(np.sqrt(self.coef_) * std, self._root_intercept)

    @staticmethod
    def _standard_quantile(levels):
        return ndtri(levels)
