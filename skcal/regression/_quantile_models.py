"""One quantile regressor per level, predicting them together."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from skcal._param_validation import HasMethods, fit_context
from skcal._typing import ArrayLike
from skcal.regression._base import QuantileScoreMixin
from skcal.regression._validation import LEVELS_CONSTRAINT, check_quantile_levels


def level_parameter(estimator):
    """The name of the parameter that sets the level of a quantile regressor.

    ``quantile`` (``QuantileRegressor``, ``HistGradientBoostingRegressor``
    with ``loss="quantile"``) or ``alpha`` (``GradientBoostingRegressor``
    with ``loss="quantile"``).
    """
    params = estimator.get_params(deep=False)
    if "quantile" in params and params.get("loss", "quantile") == "quantile":
        return "quantile"
    if "alpha" in params and params.get("loss") == "quantile":
        return "alpha"
    raise ValueError(
        f"{type(estimator).__name__} has no parameter that sets a quantile level: "
        "use a quantile regressor, such as QuantileRegressor, "
        "HistGradientBoostingRegressor(loss='quantile') or "
        "GradientBoostingRegressor(loss='quantile') (a gradient boosting "
        "regressor fits quantiles only with loss='quantile')."
    )


def _fit_level(estimator, name, level, X, y, fit_params):
    return clone(estimator).set_params(**{name: level}).fit(X, y, **fit_params)


class MultiQuantileRegressor(
    QuantileScoreMixin, MetaEstimatorMixin, RegressorMixin, BaseEstimator
):
    """Fit one quantile regressor per level; predict the levels as columns.

    scikit-learn's quantile regressors predict one level each. This fits a
    clone of ``estimator`` per level of ``quantiles`` (setting its
    ``quantile``, or ``alpha`` for ``GradientBoostingRegressor``) and
    predicts the ``(n_samples, n_quantiles)`` matrix that the quantile
    measures, :class:`ConformalQuantileRecalibrator` and
    :class:`RecalibratedRegressorCV` take.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    estimator : regressor
        A quantile regressor, unfitted.
    quantiles : array-like of shape (n_quantiles,) or float, default=(0.05, 0.5, 0.95)
        The levels, strictly increasing in (0, 1).
    n_jobs : int or None, default=None
        The number of levels fitted in parallel (joblib).

    Attributes
    ----------
    estimators_ : list of regressors
        The fitted regressor of each level.
    quantiles_ : ndarray of shape (n_quantiles,)
        The levels.
    n_features_in_ : int
        The number of features seen at fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The feature names, when ``X`` had string column names.

    See Also
    --------
    ConformalQuantileRecalibrator : Repairs the coverage of its quantiles.
    pinball_loss : The score of its predictions.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import QuantileRegressor
    >>> from skcal.regression import MultiQuantileRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(200, 1))
    >>> y = X[:, 0] + rng.normal(scale=0.1, size=200)
    >>> model = MultiQuantileRegressor(QuantileRegressor(alpha=0.0),
    ...                                quantiles=[0.1, 0.9]).fit(X, y)
    >>> model.predict([[0.5]]).round(2).tolist()
    [[0.37, 0.61]]
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "quantiles": LEVELS_CONSTRAINT,
        "n_jobs": [int, None],
    }

    def __init__(
        self,
        estimator: Any,
        *,
        quantiles: ArrayLike = (0.05, 0.5, 0.95),
        n_jobs: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.quantiles = quantiles
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit a regressor per level.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to each regressor's ``fit``.
        **fit_params : dict
            Further parameters of the regressors' ``fit``.

        Returns
        -------
        self : object
            The fitted model.
        """
        self.quantiles_ = check_quantile_levels(self.quantiles)
        name = level_parameter(self.estimator)
        if sample_weight is not None:
            if not has_fit_parameter(self.estimator, "sample_weight"):
                raise TypeError(
                    f"{type(self.estimator).__name__}.fit takes no sample_weight."
                )
            fit_params = {**fit_params, "sample_weight": sample_weight}
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_level)(self.estimator, name, level, X, y, fit_params)
            for level in self.quantiles_.tolist()
        )
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimators_[0], attr):
                setattr(self, attr, getattr(self.estimators_[0], attr))
        return self

    def predict(self, X):
        """The predicted quantiles of each level.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_quantiles : ndarray of shape (n_samples, n_quantiles)
            One column per level of ``quantiles_``.
        """
        check_is_fitted(self)
        return np.column_stack([np.ravel(e.predict(X)) for e in self.estimators_])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        tags.target_tags.multi_output = False
        return tags
