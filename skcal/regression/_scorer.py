"""Scorers of probabilistic regression: proper scores and calibration errors
of ``predict(X, return_std=True)`` or of predicted quantiles."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from skcal.metrics._scorer import RoutedScorer
from skcal.regression._base import (
    check_fitted_regressor,
    gaussian_predictions,
    predicted_quantiles,
)
from skcal.regression._coverage import quantile_calibration_error
from skcal.regression._pit import pit_calibration_error
from skcal.regression._scores import (
    dawid_sebastiani_score,
    gaussian_crps,
    gaussian_log_loss,
    pinball_loss,
)
from skcal.regression._validation import check_quantile_levels

GAUSSIAN_MEASURES = (
    dawid_sebastiani_score,
    gaussian_log_loss,
    gaussian_crps,
    pit_calibration_error,
)
QUANTILE_MEASURES = (pinball_loss, quantile_calibration_error)


class RegressionScorer(RoutedScorer):
    """Score a regressor's predictive distributions with a measure.

    A Gaussian measure scores the means and standard deviations of
    ``predict(X, return_std=True)``; a quantile measure the quantiles of
    :func:`~skcal.regression._base.predicted_quantiles`: a quantile model's
    own, or those of ``predict_quantiles`` at the levels given as an
    option; the levels are checked when the scorer is made, as they would
    fail in every fold.
    """

    def __init__(self, score_func, sign, kwargs):
        if kwargs.get("quantiles") is not None:
            check_quantile_levels(kwargs["quantiles"])
        super().__init__(score_func, sign, kwargs)

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Evaluate the measure on the estimator's predictions of ``X``.

        Parameters
        ----------
        estimator : fitted regressor
            It predicts means and standard deviations, or quantiles.
        X : array-like of shape (n_samples, n_features)
            The samples.
        y_true : array-like of shape (n_samples,)
            The observed values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights passed to the measure.
        **kwargs : dict
            Other options of the measure (overriding the scorer's own).

        Returns
        -------
        score : float
            The measure times -1 (greater is better).
        """
        check_fitted_regressor(estimator, "a regression scorer")
        options = {**self._kwargs, **kwargs}
        if self._score_func in GAUSSIAN_MEASURES:
            predictions = gaussian_predictions(estimator, X)
            arrays = (predictions[:, 0], predictions[:, 1])
        else:
            y_quantiles, levels = predicted_quantiles(
                estimator,
                X,
                options.pop("quantiles", None),
                gaussian_owner="a quantile scorer",
            )
            arrays, options = (y_quantiles,), {**options, "quantiles": levels}
        value = self._score_func(
            y_true, *arrays, sample_weight=sample_weight, **options
        )
        return self._sign * value


REGRESSION_SCORERS = {
    f"neg_{f.__name__}": f for f in (*GAUSSIAN_MEASURES, *QUANTILE_MEASURES)
}


def regression_arguments(function):
    """The arguments a scorer passes to a regression measure, or None.

    None when ``function`` is not one of the regression measures.
    """
    if function in GAUSSIAN_MEASURES:
        return ("y_true", "y_mean", "y_std")
    if function in QUANTILE_MEASURES:
        return ("y_true", "y_quantiles")
    return None


def regression_scorer(name):
    """A fresh scorer of a regression measure by its ``neg_<name>``, or None."""
    function = REGRESSION_SCORERS.get(name)
    return None if function is None else RegressionScorer(function, -1, {})
