"""Calibration of probabilistic regression: scores, measures and recalibrators.

A regressor that predicts a distribution (a mean and a standard deviation
from ``predict(X, return_std=True)``, or quantiles at several levels) is
calibrated when its distributions match the frequencies of the outcomes.
This module scores such predictions (:func:`dawid_sebastiani_score`,
:func:`gaussian_log_loss`, :func:`gaussian_crps`, :func:`pinball_loss`),
measures their calibration (:func:`error_variance_ratio`,
:func:`pit_calibration_error`, :func:`quantile_calibration_error`,
:func:`mean_calibration_decomposition`, ...) and repairs it
(:class:`VarianceRecalibrator`, :class:`IsotonicPITRecalibrator`,
:class:`ConformalQuantileRecalibrator`, cross-fitted by
:class:`RecalibratedRegressorCV`).
"""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.regression._conformal import ConformalQuantileRecalibrator
from skcal.regression._coverage import quantile_calibration_error, quantile_coverage
from skcal.regression._cross_fit import RecalibratedRegressorCV
from skcal.regression._mean import (
    mean_calibration_decomposition,
    mean_reliability_curve,
)
from skcal.regression._pit import pit_calibration_error, pit_uniformity_test, pit_values
from skcal.regression._pit_isotonic import IsotonicPITRecalibrator
from skcal.regression._quantile_models import MultiQuantileRegressor
from skcal.regression._ratio import error_variance_ratio
from skcal.regression._scores import (
    dawid_sebastiani_score,
    gaussian_crps,
    gaussian_log_loss,
    pinball_loss,
)
from skcal.regression._variance import VarianceRecalibrator

__all__ = [
    "ConformalQuantileRecalibrator",
    "IsotonicPITRecalibrator",
    "MultiQuantileRegressor",
    "RecalibratedRegressorCV",
    "VarianceRecalibrator",
    "dawid_sebastiani_score",
    "error_variance_ratio",
    "gaussian_crps",
    "gaussian_log_loss",
    "mean_calibration_decomposition",
    "mean_reliability_curve",
    "pinball_loss",
    "pit_calibration_error",
    "pit_uniformity_test",
    "pit_values",
    "quantile_calibration_error",
    "quantile_coverage",
]
