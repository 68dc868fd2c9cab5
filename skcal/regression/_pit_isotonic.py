"""Isotonic recalibration of the probability integral transform (Kuleshov,
Fenner and Ermon, 2018) for Gaussian predictions."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from skcal._utils._scaling import drop_zero_weight, normalized_weights
from skcal._utils._ties import Ties
from skcal.regression._base import BaseRegressionRecalibrator, GaussianRecalibratorMixin

# Standardized errors beyond this many standard deviations are taken at it:
# both tails of the normal distribution function are still positive there.
_Z_LIMIT = 30.0


class PITMap(NamedTuple):
    """The recalibration map of the PIT, piecewise linear in ``u = Phi(z)``.

    ``z`` are the knots as standardized errors, from -inf to +inf, and
    ``level`` the map's values there, from 0 to 1. Each tail of the normal
    distribution is kept at its own precision: ``lower = Phi(z)`` and
    ``upper = Phi(-z)``, and ``width`` is each segment's length in ``u``,
    from the tail it lies in.
    """

    z: np.ndarray
    level: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    width: np.ndarray


def pit_map(z, sample_weight):
    """The recalibration map of the PIT of the standardized errors ``z``.

    Its knots are the distinct PIT values; the map's value at each is the
    empirical distribution function at the middle of its jump (the weight
    below it plus half its own, over the total), with ``(0, 0)`` and
    ``(1, 1)`` added at the ends. Errors are distinct PIT values when their
    normal tail (the lower one below 0, the upper one above) differs in
    floating point: nearby errors with one PIT value are one knot, so that
    no segment has zero width.
    """
    sample_weight, z = drop_zero_weight(sample_weight, z)
    weight = None if sample_weight is None else normalized_weights(sample_weight)
    groups = Ties(np.clip(z, -_Z_LIMIT, _Z_LIMIT), weight)
    values = groups.values
    lower, upper = ndtr(values), ndtr(-values)
    same = np.where(values[1:] < 0.0, lower[1:] == lower[:-1], upper[1:] == upper[:-1])
    starts = np.flatnonzero(np.r_[True, ~same])
    mass = np.add.reduceat(groups.weight, starts)
    cumulative = np.cumsum(mass)
    level = np.r_[0.0, (cumulative - 0.5 * mass) / cumulative[-1], 1.0]
    knots = np.r_[-np.inf, values[starts], np.inf]
    # The tails at the knots: those of their groups, and exact at +-inf.
    lower, upper = np.r_[0.0, lower[starts], 1.0], np.r_[1.0, upper[starts], 0.0]
    width = np.where(knots[:-1] >= 0.0, upper[:-1] - upper[1:], lower[1:] - lower[:-1])
    return PITMap(knots, level, lower, upper, width)


def standard_quantile(pit, levels):
    """Quantiles of ``Z``, ``P(Z <= z) = R(Phi(z))``, at ``levels``."""
    k = np.clip(
        np.searchsorted(pit.level, levels, side="right") - 1, 0, len(pit.width) - 1
    )
    step = (levels - pit.level[k]) / (pit.level[k + 1] - pit.level[k]) * pit.width[k]
    with np.errstate(divide="ignore"):
        return np.where(
            pit.z[k] >= 0.0, -ndtri(pit.upper[k] - step), ndtri(pit.lower[k] + step)
        )


def standard_moments(pit):
    r"""Mean and standard deviation of ``Z``, ``P(Z <= z) = R(Phi(z))``.

    On a segment where the map is linear in ``u`` with slope ``b``, ``Z``
    has density ``b * phi(z)``, and :math:`\int z\varphi = -\varphi`,
    :math:`\int z^2 \varphi = \Phi - z\varphi`: the moments are exact
    sums over the segments.
    """
    slope = np.diff(pit.level) / pit.width
    inner = pit.z[1:-1]  # both terms vanish at -inf and +inf
    pdf = np.r_[0.0, np.exp(-0.5 * inner**2) / np.sqrt(2.0 * np.pi), 0.0]
    z_pdf = np.r_[0.0, inner * pdf[1:-1], 0.0]
    first = float(slope @ -np.diff(pdf))
    second = float(slope @ (pit.width - np.diff(z_pdf)))
    return first, float(np.sqrt(max(second - first**2, 0.0)))


class IsotonicPITRecalibrator(GaussianRecalibratorMixin, BaseRegressionRecalibrator):
    r"""Recalibrate Gaussian predictions by an isotonic map of their PIT.

    Kuleshov, Fenner and Ermon [1]_ recalibrate a predictive distribution
    function :math:`F_x` to :math:`R \circ F_x`, where :math:`R` is the
    isotonic regression of the empirical distribution function of the
    probability integral transforms :math:`u_i = F_{x_i}(y_i)` of a
    calibration set on those values: afterwards the predicted
    :math:`\tau`-quantiles cover a share :math:`\tau` of that set at every
    level. The targets are already non-decreasing in :math:`u`, so the
    isotonic fit is the empirical distribution function itself; here it is
    taken at the middle of each jump and interpolated linearly between
    :math:`(0, 0)`, the calibration values and :math:`(1, 1)`, which keeps
    the recalibrated distributions continuous and unbounded.

    For Gaussian predictions :math:`F_x(y) = \Phi((y - \mu)/\sigma)`, the
    recalibrated distribution of every sample is :math:`\mu + \sigma Z`
    with one standard variable :math:`Z`, :math:`P(Z \le z) =
    R(\Phi(z))`. Its mean and standard deviation are computed exactly, so
    that :meth:`predict` returns the recalibrated means and standard
    deviations, and :meth:`predict_quantiles` its quantiles
    :math:`\mu + \sigma\, \Phi^{-1}(R^{-1}(\tau))`. The distributions are
    not Gaussian: judge them by their quantiles
    (:func:`quantile_calibration_error`, :func:`pinball_loss`), not by
    Gaussian scores of the two moments.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    estimator : regressor or None, default=None
        A fitted regressor whose ``predict(X, return_std=True)`` returns
        means and standard deviations; it is never refitted. With None,
        ``X`` is the ``(n_samples, 2)`` array of predicted means and
        standard deviations.

    Attributes
    ----------
    pit_knots_ : ndarray of shape (n_knots,)
        The PIT values where the map changes slope, from 0 to 1.
    recalibrated_knots_ : ndarray of shape (n_knots,)
        The map's values there, from 0 to 1, increasing.
    n_features_in_ : int
        The number of columns of ``X`` seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The column names of ``X``, when it had string names.

    See Also
    --------
    VarianceRecalibrator : Rescales the variances, keeping them Gaussian.
    ConformalQuantileRecalibrator : Shifts the quantiles of a quantile model.

    References
    ----------
    .. [1] V. Kuleshov, N. Fenner and S. Ermon, "Accurate uncertainties for
       deep learning using calibrated regression", ICML 2018,
       arXiv:1807.00263.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.regression import IsotonicPITRecalibrator, quantile_coverage
    >>> rng = np.random.RandomState(0)
    >>> mean = rng.normal(size=2000)
    >>> y = mean + rng.standard_t(df=3, size=2000)  # heavy-tailed errors
    >>> X = np.column_stack([mean, np.ones(2000)])
    >>> recalibrator = IsotonicPITRecalibrator().fit(X[:1000], y[:1000])
    >>> levels = [0.05, 0.5, 0.95]
    >>> quantile_coverage(y[1000:], recalibrator.predict_quantiles(X[1000:], levels),
    ...                   quantiles=levels).round(3).tolist()
    [0.049, 0.498, 0.952]
    """

    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator

    def _fit_predictions(self, predictions, y, sample_weight):
        mean, std = predictions
        self._pit_map = pit_map((y - mean) / std, sample_weight)
        self.pit_knots_ = self._pit_map.lower.copy()
        self.recalibrated_knots_ = self._pit_map.level.copy()
        self._standard_moments = standard_moments(self._pit_map)

    @staticmethod
    def _location_scale(mean, std):
        return mean, std

    def _standard_quantile(self, levels):
        return standard_quantile(self._pit_map, levels)
