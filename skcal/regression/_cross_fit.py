"""Cross-fitting of regressors: fitted on folds, recalibrated on out-of-fold
predictions, refitted on all the data."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils import indexable
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from skcal._param_validation import HasMethods, fit_context
from skcal._typing import CVLike
from skcal._utils._indexing import take_rows
from skcal._utils._routing import CrossFitMixin, routed_fit_params
from skcal._validation import check_partition, check_sample_weight
from skcal.calibration._cross_fit import _rows_of_params
from skcal.regression._base import (
    GAUSSIAN,
    BaseRegressionRecalibrator,
    QuantileScoreMixin,
    gaussian_predictions,
    model_levels,
)
from skcal.regression._validation import check_fit_target
from skcal.regression._variance import VarianceRecalibrator


def _model_predictions(fitted, X, kind):
    """A fitted model's means and standard deviations, or quantile columns.

    A quantile model of one level may predict a 1-D array: one column.
    """
    if kind == GAUSSIAN:
        return gaussian_predictions(fitted, X)
    predictions = np.asarray(fitted.predict(X), dtype=np.float64)
    return predictions.reshape(predictions.shape[0], -1)


def _out_of_fold(estimator, X, y, train, test, fit_params, kind):
    """Predictions on ``test`` of a clone of ``estimator`` fitted on ``train``."""
    n = len(y)
    fitted = clone(estimator).fit(
        take_rows(X, train), y[train], **_rows_of_params(fit_params, train, n)
    )
    return _model_predictions(fitted, take_rows(X, test), kind)


class RecalibratedRegressorCV(
    QuantileScoreMixin, CrossFitMixin, MetaEstimatorMixin, RegressorMixin, BaseEstimator
):
    """Fit a regressor and recalibrate it on out-of-fold predictions.

    For each split of ``cv``, a clone of ``estimator`` is fitted on the
    training part and predicts the test part; the recalibrator is fitted
    once on these out-of-fold predictions, pooled, and ``estimator`` is then
    refitted on all the data (as scikit-learn's ``CalibratedClassifierCV``
    with ``ensemble=False``: the average of several predictive
    distributions is not one of their family). Predictions are the
    recalibrated predictions of the refitted regressor. Like
    :class:`~skcal.calibration.RecalibratedClassifierCV`, it is an unfitted
    estimator, so ``GridSearchCV`` can select the recalibrator (and the
    regressor's parameters) by a proper score such as
    ``get_scorer("neg_dawid_sebastiani_score")``.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    estimator : regressor
        An unfitted regressor: one whose ``predict(X, return_std=True)``
        returns means and standard deviations for a Gaussian recalibrator,
        or a quantile model (``predict`` returning one column per level,
        such as :class:`MultiQuantileRegressor`) for
        :class:`ConformalQuantileRecalibrator`.
    recalibrator : recalibrator or None, default=None
        A recalibrator of :mod:`skcal.regression` with ``estimator=None``;
        None means :class:`VarianceRecalibrator`.
    cv : int, cross-validation generator or iterable, default=5
        The splits: a number of folds (``KFold``), a splitter or an iterable
        of ``(train, test)`` index arrays. The test parts must partition
        the samples.
    n_jobs : int or None, default=None
        The number of folds fitted in parallel (joblib).

    Attributes
    ----------
    estimator_ : regressor
        ``estimator`` refitted on all the data.
    recalibrator_ : recalibrator
        The recalibrator fitted on the out-of-fold predictions.
    quantiles_ : ndarray of shape (n_quantiles,)
        The levels of the predicted quantiles (quantile models only).
    n_features_in_ : int
        The number of features seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The feature names, when ``X`` had string column names.

    See Also
    --------
    VarianceRecalibrator : The default recalibrator.
    IsotonicPITRecalibrator : A recalibrator of the whole distribution.
    ConformalQuantileRecalibrator : The recalibrator of quantile models.
    skcal.calibration.RecalibratedClassifierCV : The same for classifiers.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sklearn.linear_model import BayesianRidge
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skcal.regression import (
    ...     IsotonicPITRecalibrator, RecalibratedRegressorCV, VarianceRecalibrator)
    >>> from skcal.metrics import get_scorer
    >>> X, y = make_friedman1(n_samples=400, noise=1.0, random_state=0)
    >>> search = GridSearchCV(
    ...     RecalibratedRegressorCV(BayesianRidge()),
    ...     {"recalibrator": [VarianceRecalibrator(),
    ...                       VarianceRecalibrator(fit_intercept=False)]},
    ...     scoring=get_scorer("neg_dawid_sebastiani_score"),
    ... ).fit(X, y)
    >>> search.best_estimator_.predict(X[:2], return_std=True)[1].round(2).tolist()
    [2.63, 2.66]
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "recalibrator": [HasMethods(["fit", "predict"]), None],
        "cv": ["cv_object"],
        "n_jobs": [int, None],
    }

    def __init__(
        self,
        estimator: Any,
        recalibrator: BaseRegressionRecalibrator | None = None,
        *,
        cv: CVLike = 5,
        n_jobs: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.recalibrator = recalibrator
        self.cv = cv
        self.n_jobs = n_jobs

    def _get_recalibrator(self):
        if self.recalibrator is None:
            return VarianceRecalibrator()
        if not isinstance(self.recalibrator, BaseRegressionRecalibrator):
            raise TypeError(
                "recalibrator must be one of the recalibrators of skcal.regression, "
                f"got {type(self.recalibrator).__name__}."
            )
        if self.recalibrator.estimator is not None:
            raise ValueError(
                "recalibrator must have estimator=None: RecalibratedRegressorCV "
                "gives it the out-of-fold predictions of its regressor."
            )
        recalibrator = clone(self.recalibrator)
        if recalibrator._kind != GAUSSIAN and recalibrator.quantiles is None:
            recalibrator.set_params(quantiles=model_levels(self.estimator))
        return recalibrator

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the regressor on folds, the recalibrator on the pooled predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, as the regressor accepts it.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, used by the recalibrator and (when its ``fit``
            has a ``sample_weight`` parameter, or as metadata routing says)
            by the regressor.
        **fit_params : dict
            Further parameters of the regressor's ``fit``.

        Returns
        -------
        self : object
            The fitted model.
        """
        recalibrator = self._get_recalibrator()
        X, y = indexable(X, y)
        y = check_fit_target(y, type(self).__name__)
        sample_weight = check_sample_weight(sample_weight, y.shape[0])
        est_params, split_params = routed_fit_params(
            self, sample_weight, fit_params, "regressor"
        )
        cv = check_cv(self.cv, y, classifier=False)
        folds = list(cv.split(X, y, **split_params))
        check_partition(
            folds, len(y), "the recalibrator is fitted on pooled predictions"
        )
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_out_of_fold)(
                self.estimator, X, y, train, test, est_params, recalibrator._kind
            )
            for train, test in folds
        )
        predictions = np.empty((len(y), results[0].shape[1]))
        for (_, test), fold in zip(folds, results, strict=True):
            predictions[test] = fold
        self.recalibrator_ = recalibrator.fit(
            predictions, y, sample_weight=sample_weight
        )
        if recalibrator._kind != GAUSSIAN:
            self.quantiles_ = self.recalibrator_.quantiles_
        elif hasattr(self, "quantiles_"):  # from an earlier fit
            del self.quantiles_
        self.estimator_ = clone(self.estimator).fit(X, y, **est_params)
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimator_, attr):
                setattr(self, attr, getattr(self.estimator_, attr))
            elif hasattr(self, attr):
                delattr(self, attr)
        return self

    def _predictions(self, X):
        check_is_fitted(self)
        return _model_predictions(self.estimator_, X, self.recalibrator_._kind)

    def predict(self, X, return_std=False):
        """Recalibrated predictions of the refitted regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        return_std : bool, default=False
            With a Gaussian recalibrator, whether to return the recalibrated
            standard deviations too.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_quantiles)
            The recalibrated means, or the adjusted quantiles of a quantile
            model.
        y_std : ndarray of shape (n_samples,)
            The recalibrated standard deviations, if ``return_std``.
        """
        predictions = self._predictions(X)
        if self.recalibrator_._kind != GAUSSIAN:
            if return_std:
                raise ValueError(
                    "return_std=True needs a Gaussian recalibrator; a quantile "
                    "model predicts quantiles."
                )
            return self.recalibrator_.predict(predictions)
        return self.recalibrator_.predict(predictions, return_std=return_std)

    def predict_quantiles(self, X, quantiles):
        """Predict the quantiles of the recalibrated distributions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        quantiles : array-like of shape (n_quantiles,) or float
            Levels, strictly increasing in (0, 1).

        Returns
        -------
        y_quantiles : ndarray of shape (n_samples, n_quantiles)
            One column per level.
        """
        predictions = self._predictions(X)
        if not hasattr(self.recalibrator_, "predict_quantiles"):
            raise AttributeError(
                "predict_quantiles needs a Gaussian recalibrator; the quantile "
                "model's own levels come from predict."
            )
        return self.recalibrator_.predict_quantiles(predictions, quantiles)
