"""Shared machinery of the regression recalibrators: predictions from ``X``
or from a fitted regressor, validation and the fitted-map bookkeeping."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
from scipy.special import ndtri
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.metrics import d2_pinball_score
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, validate_data

from skcal._param_validation import HasMethods, fit_context
from skcal._validation import MissingMethodError, check_sample_weight
from skcal.regression._validation import (
    check_fit_target,
    check_quantile_inputs,
    check_quantile_levels,
    check_quantile_predictions,
    check_standard_deviations,
)

GAUSSIAN = "gaussian"
QUANTILES = "quantiles"

# The levels of Gaussian predictions' quantiles when none are given.
DEFAULT_LEVELS = np.round(np.linspace(0.05, 0.95, 19), 2)


def check_fitted_regressor(estimator, owner):
    """Reject a regressor that is not fitted, saying what to do."""
    if not callable(getattr(estimator, "predict", None)):
        raise MissingMethodError(
            f"{owner} needs a regressor with predict; {type(estimator).__name__} "
            "has none."
        )
    try:
        check_is_fitted(estimator)
    except NotFittedError as exc:
        raise NotFittedError(
            f"The estimator {type(estimator).__name__} given to {owner} is not "
            "fitted; it is never refitted: fit it first, or use "
            "RecalibratedRegressorCV to fit it on folds."
        ) from exc


def gaussian_predictions(estimator, X):
    """``(n_samples, 2)`` means and standard deviations of a fitted regressor.

    The regressor's ``predict(X, return_std=True)`` gives them, as for
    scikit-learn's Gaussian process and Bayesian ridge (and skcal's Gaussian
    recalibrators, which can be chained).
    """
    try:
        mean, std = estimator.predict(X, return_std=True)
    except TypeError as exc:
        raise MissingMethodError(
            f"{type(estimator).__name__}.predict(X, return_std=True) failed ({exc}); "
            "a Gaussian prediction needs a regressor that returns its standard "
            "deviations, such as GaussianProcessRegressor or BayesianRidge."
        ) from exc
    return np.column_stack([np.ravel(mean), np.ravel(std)])


def quantile_predictions(estimator, X, n_levels):
    """``(n_samples, n_levels)`` predicted quantiles of a fitted quantile model."""
    return check_quantile_predictions(estimator.predict(X), n_levels, "predict(X)")


def model_levels(estimator):
    """The quantile levels a model predicts, or None for a point or Gaussian model.

    Its fitted ``quantiles_``, else its ``quantiles`` parameter; for a
    :class:`~sklearn.pipeline.Pipeline`, those of its final step.
    """
    while isinstance(estimator, Pipeline):
        estimator = estimator[-1]
    levels = getattr(estimator, "quantiles_", None)
    return getattr(estimator, "quantiles", None) if levels is None else levels


def _own_columns(estimator, own, levels):
    """The columns of a quantile model's predictions at ``levels``.

    Each level must be one of the model's own levels, ``own``.
    """
    columns = np.clip(np.searchsorted(own, levels), 0, own.shape[0] - 1)
    missing = levels[~np.isclose(own[columns], levels, rtol=0.0, atol=1e-12)]
    if missing.size:
        raise ValueError(
            f"{type(estimator).__name__} predicts the quantiles of the levels "
            f"{own.tolist()} only, not {missing.tolist()}: ask for some of its "
            "levels, or use a model with predict_quantiles."
        )
    return columns


def predicted_quantiles(estimator, X, quantiles=None, *, gaussian_owner=None):
    """Predicted quantiles of a fitted regressor and their levels.

    A quantile model (see :func:`model_levels`) predicts its own levels
    when ``quantiles`` is None, and a subset of them when asked; a model
    with ``predict_quantiles`` (skcal's Gaussian recalibrators) predicts
    ``quantiles``; any other model predicts means and standard deviations,
    whose Gaussian quantiles are taken, unless ``gaussian_owner`` (who asks,
    for the message) says they may not be. Without levels from either side,
    0.05, 0.10, ..., 0.95.
    """
    own = model_levels(estimator)
    if own is not None:
        own = check_quantile_levels(own, "the quantiles of the estimator")
        if quantiles is None:
            return quantile_predictions(estimator, X, own.shape[0]), own
    levels = DEFAULT_LEVELS if quantiles is None else check_quantile_levels(quantiles)
    if callable(getattr(estimator, "predict_quantiles", None)):
        try:
            return estimator.predict_quantiles(X, levels), levels
        except AttributeError:  # a cross-fitted quantile model
            pass
    if own is not None:
        columns = _own_columns(estimator, own, levels)
        return quantile_predictions(estimator, X, own.shape[0])[:, columns], levels
    if gaussian_owner is not None:
        raise ValueError(
            f"{type(estimator).__name__} has no quantiles: {gaussian_owner} needs "
            "a quantile model (such as MultiQuantileRegressor), or quantiles=[...] "
            "and a model with predict_quantiles."
        )
    mean, std = gaussian_predictions(estimator, X).T
    return mean[:, None] + std[:, None] * ndtri(levels), levels


def split_gaussian(predictions, name="X"):
    """Means and (validated, positive) standard deviations of ``(n, 2)`` columns."""
    if predictions.ndim != 2 or predictions.shape[1] != 2:
        raise ValueError(
            f"{name} must have two columns, the predicted means and standard "
            f"deviations, got an array of shape {predictions.shape}."
        )
    mean = predictions[:, 0]
    std = check_standard_deviations(predictions[:, 1], f"the second column of {name}")
    return mean, std


class QuantileScoreMixin:
    """``score`` of a model that predicts quantiles: the mean D² pinball score.

    A model without fitted ``quantiles_`` (a Gaussian one) keeps the
    :math:`R^2` of :class:`~sklearn.base.RegressorMixin`.
    """

    def score(self, X, y, sample_weight=None):
        r"""Return the D² pinball score of the predicted quantiles, over the levels.

        For a level :math:`\tau` with mean pinball loss :math:`L_\tau`,
        :math:`D^2_\tau = 1 - L_\tau(\text{model}) / L_\tau(\text{constant})`,
        the constant being the (weighted) :math:`\tau`-quantile of ``y``: the
        fraction of pinball loss explained (Koenker and Machado's :math:`R^1`,
        :func:`sklearn.metrics.d2_pinball_score`), 1 for a perfect prediction
        and 0 for the constant's. The score is the mean of :math:`D^2_\tau`
        over the levels of ``quantiles_``, so that ``GridSearchCV`` without a
        ``scoring`` ranks quantile models by a proper score. A Gaussian model
        returns the :math:`R^2` of its means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test samples (the predictions themselves for a recalibrator
            without ``estimator``).
        y : array-like of shape (n_samples,)
            The observed values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            The mean D² pinball score (or :math:`R^2`).
        """
        check_is_fitted(self)
        levels = getattr(self, "quantiles_", None)
        if levels is None:
            return super().score(X, y, sample_weight=sample_weight)
        y = check_fit_target(y, type(self).__name__)
        data = check_quantile_inputs(y, self.predict(X), levels, sample_weight)
        scores = [
            d2_pinball_score(
                data.y_true, column, alpha=level, sample_weight=data.sample_weight
            )
            for column, level in zip(data.y_quantiles.T, levels.tolist(), strict=True)
        ]
        return float(np.mean(scores))


class BaseRegressionRecalibrator(RegressorMixin, BaseEstimator, metaclass=ABCMeta):
    """Base of the regression recalibrators.

    Subclasses set ``_kind`` (:data:`GAUSSIAN`: ``X`` holds means and standard
    deviations, or a wrapped regressor returns them from
    ``predict(X, return_std=True)``; :data:`QUANTILES`: ``X`` holds one
    column per quantile level, or a wrapped model's ``predict`` returns
    them) and define ``_fit_predictions``.
    """

    _kind = GAUSSIAN

    _parameter_constraints: dict = {"estimator": [HasMethods(["predict"]), None]}

    @abstractmethod
    def _fit_predictions(self, predictions, y, sample_weight):
        """Learn the map from validated predictions and targets."""

    def _n_levels(self):
        """The number of quantile columns expected (quantile models only)."""
        return None

    def _raw_predictions(self, X, *, reset):
        """The predictions of ``X``: ``X`` itself or the wrapped regressor's."""
        if self.estimator is None:
            return validate_data(self, X, reset=reset, dtype=np.float64)
        if reset:
            check_fitted_regressor(self.estimator, type(self).__name__)
            for attr in ("n_features_in_", "feature_names_in_"):
                if hasattr(self.estimator, attr):
                    setattr(self, attr, getattr(self.estimator, attr))
                elif hasattr(self, attr):
                    delattr(self, attr)
        if self._kind == GAUSSIAN:
            return gaussian_predictions(self.estimator, X)
        return quantile_predictions(self.estimator, X, self._n_levels())

    def _predictions(self, X, *, reset):
        """Validated predictions: ``(mean, std)`` or the quantile matrix."""
        raw = self._raw_predictions(X, reset=reset)
        if self._kind == GAUSSIAN:
            return split_gaussian(raw)
        return check_quantile_predictions(raw, self._n_levels(), "X")

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the recalibration map on a calibration set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_columns) or (n_samples, n_features)
            With ``estimator=None``, the predictions themselves (the means
            and standard deviations, or one column per quantile level);
            otherwise the samples the wrapped regressor predicts.
        y : array-like of shape (n_samples,)
            The observed values of the calibration set.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None weighs every sample equally.

        Returns
        -------
        self : object
            The fitted recalibrator.
        """
        self._check_levels()
        predictions = self._predictions(X, reset=True)
        y = check_fit_target(y, type(self).__name__)
        n = (predictions[0] if self._kind == GAUSSIAN else predictions).shape[0]
        if n != y.shape[0]:
            raise ValueError(f"X has {n} samples but y has {y.shape[0]} values.")
        sample_weight = check_sample_weight(sample_weight, n)
        self._fit_predictions(predictions, y, sample_weight)
        return self

    def _check_levels(self):
        """Validate the quantile levels before fitting (quantile models)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            inner = get_tags(self.estimator).input_tags
            tags.input_tags.sparse = inner.sparse
            tags.input_tags.allow_nan = inner.allow_nan
            tags.input_tags.string = inner.string
            tags.input_tags.categorical = inner.categorical
        return tags


class GaussianRecalibratorMixin:
    """``predict`` and ``predict_quantiles`` of a location-scale recalibration.

    The recalibrated prediction of a sample with predicted mean ``m`` and
    standard deviation ``s`` is ``loc + scale * Z`` for a standard variable
    ``Z`` that is the same for every sample; subclasses define
    ``_location_scale(mean, std)``, ``_standard_quantile(levels)`` and the
    fitted ``_standard_moments`` (the mean and standard deviation of ``Z``).
    """

    def predict(self, X, return_std=False):
        """Recalibrated predictive means, and standard deviations if asked.

        Parameters
        ----------
        X : array-like of shape (n_samples, 2) or (n_samples, n_features)
            Predicted means and standard deviations (``estimator=None``), or
            samples for the wrapped regressor.
        return_std : bool, default=False
            Whether to return the standard deviations too, as
            :meth:`sklearn.gaussian_process.GaussianProcessRegressor.predict`
            does.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
            The recalibrated means.
        y_std : ndarray of shape (n_samples,)
            The recalibrated standard deviations, if ``return_std``.
        """
        check_is_fitted(self)
        loc, scale = self._location_scale(*self._predictions(X, reset=False))
        center, spread = self._standard_moments
        mean = loc + scale * center
        if return_std:
            return mean, scale * spread
        return mean

    def predict_quantiles(self, X, quantiles):
        """Predict the quantiles of the recalibrated distributions.

        Parameters
        ----------
        X : array-like of shape (n_samples, 2) or (n_samples, n_features)
            Predicted means and standard deviations (``estimator=None``), or
            samples for the wrapped regressor.
        quantiles : array-like of shape (n_quantiles,) or float
            Levels, strictly increasing in (0, 1).

        Returns
        -------
        y_quantiles : ndarray of shape (n_samples, n_quantiles)
            One column per level.
        """
        check_is_fitted(self)
        levels = check_quantile_levels(quantiles)
        loc, scale = self._location_scale(*self._predictions(X, reset=False))
        return loc[:, None] + scale[:, None] * self._standard_quantile(levels)
