"""Tests of RecalibratedRegressorCV: cross-fitted regressor and recalibrator."""

# SPDX-License-Identifier: BSD-3-Clause

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import NotFittedError, UnsetMetadataPassedError
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.linear_model import (
    ARDRegression,
    BayesianRidge,
    LinearRegression,
    QuantileRegressor,
)
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcal._param_validation import InvalidParameterError
from skcal.calibration import PlattRecalibrator
from skcal.metrics import get_scorer
from skcal.regression import (
    ConformalQuantileRecalibrator,
    IsotonicPITRecalibrator,
    MultiQuantileRegressor,
    RecalibratedRegressorCV,
    VarianceRecalibrator,
    dawid_sebastiani_score,
)

GAUSSIAN_RECALIBRATORS = [
    VarianceRecalibrator(),
    VarianceRecalibrator(fit_intercept=False),
    IsotonicPITRecalibrator(),
]
LEVELS = [0.1, 0.5, 0.9]


def _data(seed, n=120):
    """A linear problem whose noise grows with the first feature."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] + (0.5 + np.abs(X[:, 0])) * rng.normal(size=n)
    return X, y


def _weights(seed, n):
    return np.random.RandomState(seed + 1).uniform(0.1, 3.0, size=n)


def _quantile_model():
    return MultiQuantileRegressor(
        QuantileRegressor(alpha=0.0, solver="highs"), quantiles=LEVELS
    )


def _gaussian_process():
    kernel = RBF(length_scale=2.0) + WhiteKernel(noise_level=1.0)
    return GaussianProcessRegressor(kernel, optimizer=None)


def _out_of_fold(estimator, X, y, folds, weight=None, gaussian=True):
    """Out-of-fold predictions of clones fitted on each training part."""
    columns = []
    rows = []
    for train, test in folds:
        params = {} if weight is None else {"sample_weight": weight[train]}
        fitted = clone(estimator).fit(X[train], y[train], **params)
        if gaussian:
            columns.append(np.column_stack(fitted.predict(X[test], return_std=True)))
        else:
            columns.append(fitted.predict(X[test]))
        rows.append(test)
    predictions = np.empty((y.shape[0], columns[0].shape[1]))
    for test, block in zip(rows, columns, strict=True):
        predictions[test] = block
    return predictions


class _RecordingRidge(BayesianRidge):
    """A BayesianRidge that keeps the sample_weight its fit was given."""

    def fit(self, X, y, sample_weight=None):
        self.sample_weight_ = sample_weight
        return super().fit(X, y, sample_weight=sample_weight)


# ---------------------------------------------------------------------------
# Definition: the manual procedure
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("recalibrator", GAUSSIAN_RECALIBRATORS, ids=repr)
@pytest.mark.parametrize("model", ["bayesian_ridge", "gaussian_process"])
def test_equals_manual_procedure(global_random_seed, recalibrator, model):
    """Check out-of-fold predictions on KFold(5), then a refit on all the data."""
    X, y = _data(global_random_seed)
    estimator = BayesianRidge() if model == "bayesian_ridge" else _gaussian_process()
    fitted = RecalibratedRegressorCV(estimator, recalibrator).fit(X, y)
    oof = _out_of_fold(estimator, X, y, KFold(5).split(X))
    manual = clone(recalibrator).fit(oof, y)
    full = clone(estimator).fit(X, y)
    X_new, _ = _data(global_random_seed + 1, n=30)
    new = np.column_stack(full.predict(X_new, return_std=True))
    for got, expected in zip(
        fitted.predict(X_new, return_std=True),
        manual.predict(new, return_std=True),
        strict=True,
    ):
        assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert_allclose(fitted.predict(X_new), manual.predict(new), rtol=1e-10)
    assert_allclose(
        fitted.predict_quantiles(X_new, LEVELS),
        manual.predict_quantiles(new, LEVELS),
        rtol=1e-10,
        atol=1e-12,
    )
    assert fitted.recalibrator_.estimator is None
    assert fitted.recalibrator_ is not recalibrator
    assert_allclose(
        fitted.estimator_.predict(X_new), full.predict(X_new), rtol=1e-10, atol=1e-12
    )
    # The user's objects are left unfitted.
    assert not hasattr(recalibrator, "n_features_in_")
    assert not hasattr(estimator, "n_features_in_")
    assert fitted.n_features_in_ == 3


def test_default_recalibrator_is_variance(global_random_seed):
    """Check that recalibrator=None is VarianceRecalibrator()."""
    X, y = _data(global_random_seed)
    default = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(X, y)
    explicit = RecalibratedRegressorCV(
        BayesianRidge(), VarianceRecalibrator(), cv=3
    ).fit(X, y)
    assert isinstance(default.recalibrator_, VarianceRecalibrator)
    assert default.recalibrator_.fit_intercept
    assert default.recalibrator_.coef_ == explicit.recalibrator_.coef_
    assert default.recalibrator_.intercept_ == explicit.recalibrator_.intercept_


def test_quantile_model_with_conformal(global_random_seed):
    """Check a quantile model and conformal shifts: quantiles_, (n, L) predictions."""
    X, y = _data(global_random_seed)
    model = _quantile_model()
    fitted = RecalibratedRegressorCV(model, ConformalQuantileRecalibrator(), cv=3).fit(
        X, y
    )
    assert_array_equal(fitted.quantiles_, LEVELS)
    folds = list(KFold(3).split(X))
    oof = _out_of_fold(model, X, y, folds, gaussian=False)
    manual = ConformalQuantileRecalibrator(quantiles=LEVELS).fit(oof, y)
    full = clone(model).fit(X, y)
    predictions = fitted.predict(X)
    assert predictions.shape == (y.shape[0], 3)
    assert_allclose(fitted.recalibrator_.adjustments_, manual.adjustments_, atol=1e-9)
    assert_allclose(predictions, manual.predict(full.predict(X)), atol=1e-9)
    with pytest.raises(ValueError, match="return_std=True needs a Gaussian"):
        fitted.predict(X, return_std=True)
    with pytest.raises(AttributeError, match="predict_quantiles needs a Gaussian"):
        fitted.predict_quantiles(X, LEVELS)
    # Explicit levels of the recalibrator are kept.
    explicit = RecalibratedRegressorCV(
        model, ConformalQuantileRecalibrator(quantiles=[0.2, 0.5, 0.8]), cv=3
    ).fit(X, y)
    assert_array_equal(explicit.quantiles_, [0.2, 0.5, 0.8])


# ---------------------------------------------------------------------------
# Model selection
# ---------------------------------------------------------------------------


def test_grid_search_selects_the_recalibrator(global_random_seed):
    """Check GridSearchCV over the recalibrators by the Dawid-Sebastiani scorer."""
    X, y = _data(global_random_seed, n=150)
    candidates = [clone(r) for r in GAUSSIAN_RECALIBRATORS]
    outer = list(KFold(3, shuffle=True, random_state=0).split(X))
    search = GridSearchCV(
        RecalibratedRegressorCV(BayesianRidge(), cv=3),
        {"recalibrator": candidates},
        scoring=get_scorer("neg_dawid_sebastiani_score"),
        cv=outer,
    ).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert scores.shape == (3,) and np.all(np.isfinite(scores))
    for i, candidate in enumerate(candidates):
        expected = []
        for train, test in outer:
            model = RecalibratedRegressorCV(BayesianRidge(), candidate, cv=3)
            mean, std = model.fit(X[train], y[train]).predict(X[test], return_std=True)
            expected.append(-dawid_sebastiani_score(y[test], mean, std))
        assert_allclose(scores[i], np.mean(expected), rtol=1e-10)
    best = int(np.argmax(scores))
    assert search.best_params_["recalibrator"] is candidates[best]
    refit = RecalibratedRegressorCV(BayesianRidge(), candidates[best], cv=3).fit(X, y)
    assert_allclose(
        search.predict(X), refit.predict(X), rtol=1e-12
    )  # the refitted best model


def test_in_pipeline(global_random_seed):
    """Check that a Pipeline gives the regressor the scaled data."""
    X, y = _data(global_random_seed)
    X = X * [1.0, 100.0, 0.01] + 5.0
    pipe = make_pipeline(
        StandardScaler(), RecalibratedRegressorCV(BayesianRidge(), cv=3)
    ).fit(X, y)
    scaled = StandardScaler().fit_transform(X)
    direct = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(scaled, y)
    for got, expected in zip(
        pipe.predict(X, return_std=True),
        direct.predict(scaled, return_std=True),
        strict=True,
    ):
        assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------


def test_recalibrator_with_estimator_raises():
    """Check that a recalibrator wrapping a regressor is refused."""
    X, y = _data(0)
    wrapped = VarianceRecalibrator(BayesianRidge().fit(X, y))
    with pytest.raises(ValueError, match="recalibrator must have estimator=None"):
        RecalibratedRegressorCV(BayesianRidge(), wrapped).fit(X, y)


@pytest.mark.parametrize(
    "recalibrator", [PlattRecalibrator(), LinearRegression()], ids=repr
)
def test_non_regression_recalibrator_raises(recalibrator):
    """Check that a classification recalibrator or a regressor raises TypeError."""
    X, y = _data(0)
    with pytest.raises(
        TypeError,
        match=f"recalibrators of skcal.regression, got {type(recalibrator).__name__}",
    ):
        RecalibratedRegressorCV(BayesianRidge(), recalibrator).fit(X, y)


def test_regressor_without_std_raises():
    """Check that a Gaussian recalibrator needs predict(X, return_std=True)."""
    X, y = _data(0)
    with pytest.raises(TypeError, match="LinearRegression.predict.*return_std"):
        RecalibratedRegressorCV(LinearRegression(), cv=3).fit(X, y)
    with pytest.raises(TypeError, match="MultiQuantileRegressor.predict.*return_std"):
        RecalibratedRegressorCV(_quantile_model(), cv=3).fit(X, y)


def test_needs_a_partition(global_random_seed):
    """Check that test parts that are not a partition are refused."""
    X, y = _data(global_random_seed)
    cv = ShuffleSplit(n_splits=2, test_size=0.3, random_state=global_random_seed)
    with pytest.raises(ValueError, match="partition"):
        RecalibratedRegressorCV(BayesianRidge(), cv=cv).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"cv": "five"}, "'cv' parameter"),
        ({"n_jobs": 1.5}, "'n_jobs' parameter"),
        ({"recalibrator": "variance"}, "'recalibrator' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid hyper-parameters raise InvalidParameterError at fit."""
    X, y = _data(0)
    with pytest.raises(InvalidParameterError, match=match):
        RecalibratedRegressorCV(BayesianRidge(), **params).fit(X, y)


def test_unfitted_predict_raises():
    """Check that predicting before fit raises NotFittedError."""
    X, _ = _data(0)
    with pytest.raises(NotFittedError):
        RecalibratedRegressorCV(BayesianRidge()).predict(X)


# ---------------------------------------------------------------------------
# sample_weight and metadata routing
# ---------------------------------------------------------------------------


def test_sample_weight_reaches_regressor_and_recalibrator(global_random_seed):
    """Check that without routing the weights reach a regressor that takes them."""
    X, y = _data(global_random_seed)
    w = _weights(global_random_seed, y.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        fitted = RecalibratedRegressorCV(_RecordingRidge(), cv=3)
        fitted.fit(X, y, sample_weight=w)
    assert_array_equal(fitted.estimator_.sample_weight_, w)
    oof = _out_of_fold(BayesianRidge(), X, y, KFold(3).split(X), weight=w)
    manual = VarianceRecalibrator().fit(oof, y, sample_weight=w)
    assert_allclose(fitted.recalibrator_.coef_, manual.coef_, rtol=1e-8)
    assert_allclose(fitted.recalibrator_.intercept_, manual.intercept_, rtol=1e-8)
    unweighted = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(X, y)
    std = fitted.predict(X, return_std=True)[1]
    assert np.abs(unweighted.predict(X, return_std=True)[1] - std).max() > 1e-6


def test_regressor_without_sample_weight_warns(global_random_seed):
    """Check the warning when the regressor's fit has no sample_weight."""
    X, y = _data(global_random_seed)
    w = _weights(global_random_seed, y.shape[0])
    model = RecalibratedRegressorCV(ARDRegression(), cv=3)
    with pytest.warns(
        UserWarning,
        match=r"sample_weight is not passed to ARDRegression, whose fit has no "
        r"sample_weight parameter: the regressors are fitted unweighted",
    ) as record:
        model.fit(X, y, sample_weight=w)
    assert record[0].filename == __file__
    # The recalibrator is weighted, the regressors are not.
    oof = _out_of_fold(ARDRegression(), X, y, KFold(3).split(X))
    manual = VarianceRecalibrator().fit(oof, y, sample_weight=w)
    assert_allclose(model.recalibrator_.coef_, manual.coef_, rtol=1e-8)


@pytest.mark.parametrize("requested", [True, False])
def test_metadata_routing_sample_weight(global_random_seed, requested):
    """Check that with routing the regressor gets the weights only on request."""
    X, y = _data(global_random_seed)
    w = _weights(global_random_seed, y.shape[0])
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = _RecordingRidge().set_fit_request(sample_weight=requested)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            fitted = RecalibratedRegressorCV(estimator, cv=3)
            fitted.fit(X, y, sample_weight=w)
    if requested:
        assert_array_equal(fitted.estimator_.sample_weight_, w)
    else:
        assert fitted.estimator_.sample_weight_ is None
    folds = KFold(3).split(X)
    oof = _out_of_fold(BayesianRidge(), X, y, folds, weight=w if requested else None)
    manual = VarianceRecalibrator().fit(oof, y, sample_weight=w)
    assert_allclose(fitted.recalibrator_.coef_, manual.coef_, rtol=1e-8)
    assert not sklearn.get_config()["enable_metadata_routing"]


def test_metadata_routing_unset_request_raises():
    """Check that routed weights need the regressor's explicit request."""
    X, y = _data(0)
    with sklearn.config_context(enable_metadata_routing=True):
        model = RecalibratedRegressorCV(BayesianRidge(), cv=3)
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            model.fit(X, y, sample_weight=np.ones(y.shape[0]))
        model.fit(X, y)
    assert model.predict(X).shape == (y.shape[0],)


# ---------------------------------------------------------------------------
# Meta-estimator behaviour
# ---------------------------------------------------------------------------


def test_clone_pickle_and_n_jobs(global_random_seed):
    """Check that pickling keeps the fit, and n_jobs=2 fits the same model."""
    X, y = _data(global_random_seed)
    model = RecalibratedRegressorCV(BayesianRidge(), IsotonicPITRecalibrator(), cv=3)
    fitted = clone(model).fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    parallel = clone(model).set_params(n_jobs=2)
    # Threads: worker processes take seconds to start on a loaded machine.
    with parallel_config(backend="threading"):
        parallel.fit(X, y)
    for other in (restored, parallel):
        assert_allclose(
            other.predict_quantiles(X, LEVELS),
            fitted.predict_quantiles(X, LEVELS),
            rtol=1e-12,
        )


def test_dataframe_feature_names(global_random_seed):
    """Check feature names from a DataFrame, dropped after a refit on an array."""
    pd = pytest.importorskip("pandas")
    X, y = _data(global_random_seed)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(frame, y)
    assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    assert model.n_features_in_ == 3
    on_array = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(X, y)
    assert_allclose(model.predict(frame), on_array.predict(X), rtol=1e-9, atol=1e-12)
    model.fit(X, y)
    assert not hasattr(model, "feature_names_in_")


def test_cross_fit_of_a_one_level_quantile_model():
    """Check that a quantile model predicting a 1-D array is one column."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 2))
    y = X[:, 0] + rng.normal(size=120)
    model = RecalibratedRegressorCV(
        QuantileRegressor(alpha=0.0, solver="highs"),
        ConformalQuantileRecalibrator(quantiles=[0.5]),
    ).fit(X, y)
    assert model.predict(X[:3]).shape == (3, 1)
    with pytest.raises(ValueError, match="one column per quantile level"):
        RecalibratedRegressorCV(
            BayesianRidge(), ConformalQuantileRecalibrator(quantiles=[0.1, 0.9])
        ).fit(X, y)
