"""Conformalised quantile adjustment: shift each predicted quantile by a
conformal quantile of its residuals (Romano, Patterson and Candes, 2019)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from skcal._typing import ArrayLike
from skcal._utils._scaling import drop_zero_weight, normalized_weights
from skcal.regression._base import (
    QUANTILES,
    BaseRegressionRecalibrator,
    QuantileScoreMixin,
    model_levels,
)
from skcal.regression._validation import LEVELS_CONSTRAINT, check_quantile_levels


def conformal_adjustments(residuals, levels, sample_weight):
    """The conformal quantile of each column of ``residuals`` at its level.

    For level ``tau`` it is the smallest residual ``r`` with a share of
    weight at or below ``r`` of at least ``tau * (1 + 1/n)`` (the
    ``ceil((n + 1) tau)``-th smallest residual when unweighted), the rank
    of split conformal prediction. Where that rank exceeds ``n``, the
    largest residual is taken, and a warning says the guarantee is lost.
    """
    sample_weight, residuals = drop_zero_weight(sample_weight, residuals)
    n = residuals.shape[0]
    order = np.argsort(residuals, axis=0, kind="stable")
    ordered = np.take_along_axis(residuals, order, axis=0)
    if sample_weight is None:
        share = np.arange(1, n + 1)[:, None] / n * np.ones_like(ordered)
    else:
        weight = normalized_weights(sample_weight)[order]
        share = np.cumsum(weight, axis=0) / weight.sum(axis=0)
    target = levels * (1.0 + 1.0 / n)
    # A relative slack absorbs the rounding of the cumulative shares.
    reached = share >= target * (1.0 - 1e-12)
    beyond = ~reached[-1]
    if beyond.any():
        warnings.warn(
            f"The calibration set has {n} samples: too few for the conformal "
            f"guarantee at the level(s) {levels[beyond].tolist()}, which needs "
            "at least 1 / (1 - level) - 1 of them; the largest residual is used "
            "there, and the coverage may fall short of the level.",
            UserWarning,
            stacklevel=5,  # the user's fit, past fit_context
        )
    rank = np.where(beyond, n - 1, np.argmax(reached, axis=0))
    return ordered[rank, np.arange(levels.shape[0])]


class ConformalQuantileRecalibrator(QuantileScoreMixin, BaseRegressionRecalibrator):
    r"""Shift predicted quantiles so that each covers its level (conformal).

    For each level :math:`\tau`, the residuals :math:`r_i = y_i - q_\tau(x_i)`
    of a calibration set are computed and the predicted quantile is shifted
    by :math:`c_\tau`, their :math:`\lceil (n + 1)\tau \rceil`-th smallest
    value. For a new sample exchangeable with the calibration set,

    .. math::

        \tau \le P\big(Y \le q_\tau(X) + c_\tau\big)
        \le \tau + \frac{1}{n + 1}

    (the upper bound when the residuals have no ties), whatever the quantile
    model: the one-sided form of conformalized quantile regression of
    Romano, Patterson and Candes [1]_, applied to each level. Two levels
    :math:`\alpha/2` and :math:`1 - \alpha/2` then bound an interval of
    coverage at least :math:`1 - \alpha - 2/(n + 1)`. With weights, the
    rank is that of the weighted shares (sampling weights).

    The shift is one number per level, so crossing quantiles stay crossed
    and the guarantee is marginal (over samples), not conditional on
    :math:`x`.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    estimator : regressor or None, default=None
        A fitted quantile model whose ``predict(X)`` returns one column per
        level (such as :class:`MultiQuantileRegressor`); it is never
        refitted. With None, ``X`` is the ``(n_samples, n_quantiles)``
        array of predicted quantiles.
    quantiles : array-like of shape (n_quantiles,), float or None, default=None
        The levels of the columns, strictly increasing in (0, 1). None
        takes the ``quantiles`` of the wrapped model.

    Attributes
    ----------
    quantiles_ : ndarray of shape (n_quantiles,)
        The levels.
    adjustments_ : ndarray of shape (n_quantiles,)
        The shift :math:`c_\tau` of each level.
    n_features_in_ : int
        The number of columns of ``X`` seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The column names of ``X``, when it had string names.

    See Also
    --------
    MultiQuantileRegressor : One quantile model per level.
    IsotonicPITRecalibrator : The quantiles of a recalibrated Gaussian.
    quantile_coverage : The coverage this repairs.

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized quantile
       regression", NeurIPS 2019, arXiv:1905.03222.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.regression import ConformalQuantileRecalibrator, quantile_coverage
    >>> rng = np.random.RandomState(0)
    >>> y = rng.normal(scale=2.0, size=4000)
    >>> levels = np.array([0.05, 0.5, 0.95])
    >>> too_narrow = np.tile([-1.645, 0.0, 1.645], (4000, 1))  # std 1, not 2
    >>> quantile_coverage(y, too_narrow, quantiles=levels).round(2).tolist()
    [0.21, 0.51, 0.8]
    >>> recalibrator = ConformalQuantileRecalibrator(quantiles=levels)
    >>> recalibrator.fit(too_narrow[:2000], y[:2000]).adjustments_.round(2).tolist()
    [-1.59, -0.03, 1.67]
    >>> adjusted = recalibrator.predict(too_narrow[2000:])
    >>> quantile_coverage(y[2000:], adjusted, quantiles=levels).round(2).tolist()
    [0.05, 0.51, 0.96]
    """

    _kind = QUANTILES

    _parameter_constraints: dict = {
        **BaseRegressionRecalibrator._parameter_constraints,
        "quantiles": [*LEVELS_CONSTRAINT, None],
    }

    def __init__(
        self, estimator: Any = None, *, quantiles: ArrayLike | None = None
    ) -> None:
        self.estimator = estimator
        self.quantiles = quantiles

    def _levels(self):
        if self.quantiles is not None:
            return check_quantile_levels(self.quantiles)
        levels = model_levels(self.estimator)
        if levels is None:
            raise ValueError(
                "ConformalQuantileRecalibrator needs the levels of the quantiles: "
                "pass quantiles=[...], or wrap a model with a quantiles attribute "
                "(or a Pipeline ending in one)."
            )
        return check_quantile_levels(levels, "the quantiles of the estimator")

    def _check_levels(self):
        self.quantiles_ = self._levels()

    def _n_levels(self):
        return self.quantiles_.shape[0]

    def _fit_predictions(self, predictions, y, sample_weight):
        self.adjustments_ = conformal_adjustments(
            y[:, None] - predictions, self.quantiles_, sample_weight
        )

    def predict(self, X):
        """The adjusted quantiles.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_quantiles) or (n_samples, n_features)
            Predicted quantiles (``estimator=None``), or samples for the
            wrapped model.

        Returns
        -------
        y_quantiles : ndarray of shape (n_samples, n_quantiles)
            One column per level of ``quantiles_``.
        """
        check_is_fitted(self)
        return self._predictions(X, reset=False) + self.adjustments_
