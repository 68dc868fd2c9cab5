"""Tests of the regression recalibrators and of MultiQuantileRegressor."""

# SPDX-License-Identifier: BSD-3-Clause

import math
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from scipy.special import ndtr
from scipy.stats import norm
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import BayesianRidge, LinearRegression, QuantileRegressor

from skcal.regression import (
    ConformalQuantileRecalibrator,
    IsotonicPITRecalibrator,
    MultiQuantileRegressor,
    RecalibratedRegressorCV,
    VarianceRecalibrator,
    dawid_sebastiani_score,
    error_variance_ratio,
    quantile_calibration_error,
    quantile_coverage,
)

GAUSSIAN_RECALIBRATORS = [VarianceRecalibrator, IsotonicPITRecalibrator]
LEVELS = np.array([0.05, 0.25, 0.5, 0.75, 0.95])


def _gaussian(seed, n=400, *, factor=1.5, intercept=0.7, df=None):
    """Predicted means and standard deviations ``(n, 2)`` and outcomes.

    The errors have variance ``factor * std**2 + intercept`` (Gaussian, or
    Student's t with ``df`` degrees of freedom, scaled to that variance when
    ``df > 2``), so the predicted standard deviations are wrong.
    """
    rng = np.random.RandomState(seed)
    mean = rng.normal(scale=3.0, size=n)
    std = rng.uniform(0.5, 2.0, size=n)
    if df is None:
        noise = rng.normal(size=n)
    else:
        noise = rng.standard_t(df, size=n) / math.sqrt(df / (df - 2))
    y = mean + np.sqrt(factor * std**2 + intercept) * noise
    return np.column_stack([mean, std]), y


def _features(seed, n=150):
    """A linear problem whose noise grows with the first feature."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] + (0.5 + np.abs(X[:, 0])) * rng.normal(size=n)
    return X, y


def _dss(predictions, y, w, b):
    """The mean Dawid-Sebastiani score of the variances ``w * std**2 + b``."""
    mean, std = predictions.T
    return dawid_sebastiani_score(y, mean, np.sqrt(w * std**2 + b))


def _integer_weights(seed, n):
    rng = np.random.RandomState(seed + 1)
    weights = rng.randint(0, 4, size=n)
    weights[:2] = 1
    return weights


# ---------------------------------------------------------------------------
# VarianceRecalibrator
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_variance_without_intercept_closed_form(global_random_seed, weighted):
    """Check w = mean((y - mu)**2 / sigma**2), after which the ratio's mean is 1."""
    X, y = _gaussian(global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    w = rng.uniform(0.1, 3.0, size=y.shape[0]) if weighted else None
    recal = VarianceRecalibrator(fit_intercept=False).fit(X, y, sample_weight=w)
    ratio = ((y - X[:, 0]) / X[:, 1]) ** 2
    assert_allclose(recal.coef_, np.average(ratio, weights=w), rtol=1e-12)
    assert recal.intercept_ == 0.0
    mean, std = recal.predict(X, return_std=True)
    assert_allclose(std, np.sqrt(recal.coef_) * X[:, 1], rtol=1e-12)
    after = error_variance_ratio(y, mean, std, sample_weight=w)
    assert_allclose(after.mean, 1.0, rtol=1e-12)
    before = error_variance_ratio(y, X[:, 0], X[:, 1], sample_weight=w)
    assert abs(before.mean - 1.0) > 0.1


def test_variance_with_intercept_minimises_dss(global_random_seed):
    """Check that (w, b) minimise the mean DSS, against Nelder-Mead on logs."""
    X, y = _gaussian(global_random_seed)
    recal = VarianceRecalibrator().fit(X, y)
    w, b = recal.coef_, recal.intercept_
    assert w > 0 and b > 0

    def objective(log_params):
        return _dss(X, y, *np.exp(log_params))

    brute = minimize(
        objective,
        x0=[0.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000},
    )
    fitted = _dss(X, y, w, b)
    assert fitted <= brute.fun + 1e-9
    assert_allclose([w, b], np.exp(brute.x), rtol=1e-3)
    # Not worse than no intercept, nor than the identity map.
    no_intercept = VarianceRecalibrator(fit_intercept=False).fit(X, y)
    assert fitted <= _dss(X, y, no_intercept.coef_, 0.0) + 1e-12
    assert fitted <= _dss(X, y, 1.0, 0.0) + 1e-12
    # The true variances (1.5 std**2 + 0.7) are recovered on average.
    mean_variance = np.mean(w * X[:, 1] ** 2 + b)
    assert_allclose(mean_variance, np.mean(1.5 * X[:, 1] ** 2 + 0.7), rtol=0.3)


def test_variance_intercept_on_calibrated_variances(global_random_seed):
    """Check that calibrated variances are kept: w near 1, b near its floor."""
    X, y = _gaussian(global_random_seed, n=5000, factor=1.0, intercept=0.0)
    recal = VarianceRecalibrator().fit(X, y)
    assert abs(recal.coef_ - 1.0) < 0.1
    assert recal.intercept_ < 0.1


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_variance_keeps_the_means(global_random_seed, fit_intercept):
    """Check that the means are untouched and std' = sqrt(w std**2 + b)."""
    X, y = _gaussian(global_random_seed)
    recal = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X, y)
    X_new, _ = _gaussian(global_random_seed + 1, n=50)
    mean, std = recal.predict(X_new, return_std=True)
    assert_array_equal(mean, X_new[:, 0])
    assert_array_equal(recal.predict(X_new), X_new[:, 0])
    expected = np.sqrt(recal.coef_ * X_new[:, 1] ** 2 + recal.intercept_)
    assert_allclose(std, expected, rtol=1e-14)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("a", [2.0**-20, 0.125, 2.0**30])
def test_variance_units_power_of_two(global_random_seed, fit_intercept, a):
    """Check that scaling y, mu, sigma by a power of two keeps w, b times a**2."""
    X, y = _gaussian(global_random_seed)
    recal = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X, y)
    scaled = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X * a, y * a)
    # The division by a power of two is exact: the same fit, to the bit.
    assert scaled.coef_ == recal.coef_
    assert scaled.intercept_ == recal.intercept_ * a**2


@pytest.mark.parametrize("a", [1e-3, 7.3, 1e4])
def test_variance_units(global_random_seed, a):
    """Check that scaling y, mu, sigma by a keeps w and scales b by a**2."""
    X, y = _gaussian(global_random_seed)
    recal = VarianceRecalibrator().fit(X, y)
    scaled = VarianceRecalibrator().fit(X * a, y * a)
    assert_allclose(scaled.coef_, recal.coef_, rtol=1e-6)
    assert_allclose(scaled.intercept_, recal.intercept_ * a**2, rtol=1e-6)
    assert_allclose(
        scaled.predict(X * a, return_std=True)[1],
        a * recal.predict(X, return_std=True)[1],
        rtol=1e-6,
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("a", [1e-170, 3e-160, 7e155, 1e170])
def test_variance_extreme_units(global_random_seed, fit_intercept, a):
    """Check the fit and predictions at scales whose squares leave the float range.

    Standard deviations near 1e-170 square to 0 and near 1e170 to infinity;
    the map is fitted and applied without squaring them.
    """
    X, y = _gaussian(global_random_seed)
    w = _integer_weights(global_random_seed, y.shape[0])
    recal = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X, y, w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X * a, y * a, w)
        mean, std = scaled.predict(X * a, return_std=True)
        quantiles = scaled.predict_quantiles(X * a, [0.1, 0.9])
    assert_allclose(scaled.coef_, recal.coef_, rtol=1e-6)
    assert_allclose(mean, a * recal.predict(X), rtol=1e-12)
    assert_allclose(std, a * recal.predict(X, return_std=True)[1], rtol=1e-6)
    assert_allclose(quantiles, a * recal.predict_quantiles(X, [0.1, 0.9]), rtol=1e-6)
    assert np.all(std > 0)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_variance_weights_are_repetitions(global_random_seed, fit_intercept):
    """Check that integer weights equal repeated rows, zero weights dropped rows."""
    X, y = _gaussian(global_random_seed, n=200)
    weights = _integer_weights(global_random_seed, y.shape[0])
    rows = np.repeat(np.arange(y.shape[0]), weights)
    weighted = VarianceRecalibrator(fit_intercept=fit_intercept).fit(
        X, y, sample_weight=weights
    )
    repeated = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X[rows], y[rows])
    assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-6)
    assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-6, atol=1e-12)
    unweighted = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X, y)
    assert abs(unweighted.coef_ - weighted.coef_) > 1e-6


@pytest.mark.parametrize("cls", GAUSSIAN_RECALIBRATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("model", ["bayesian_ridge", "gaussian_process"])
def test_wrapped_regressor_equals_predictions(global_random_seed, cls, model):
    """Check that wrapping a fitted regressor equals passing its predictions."""
    X, y = _features(global_random_seed)
    if model == "bayesian_ridge":
        regressor = BayesianRidge().fit(X[:80], y[:80])
    else:
        kernel = RBF(length_scale=2.0) + WhiteKernel(noise_level=1.0)
        regressor = GaussianProcessRegressor(kernel, optimizer=None)
        regressor.fit(X[:80], y[:80])
    X_cal, y_cal, X_new = X[80:], y[80:], X[:30]
    wrapped = cls(regressor).fit(X_cal, y_cal)
    predictions = np.column_stack(regressor.predict(X_cal, return_std=True))
    direct = cls().fit(predictions, y_cal)
    new = np.column_stack(regressor.predict(X_new, return_std=True))
    for got, expected in zip(
        wrapped.predict(X_new, return_std=True),
        direct.predict(new, return_std=True),
        strict=True,
    ):
        assert_allclose(got, expected, rtol=1e-12)
    assert_allclose(
        wrapped.predict_quantiles(X_new, LEVELS),
        direct.predict_quantiles(new, LEVELS),
        rtol=1e-12,
    )
    assert wrapped.n_features_in_ == 3 and direct.n_features_in_ == 2


def test_gaussian_recalibrators_can_be_chained(global_random_seed):
    """Check that a recalibrator wraps another, which gives it its predictions."""
    X, y = _features(global_random_seed)
    regressor = BayesianRidge().fit(X[:80], y[:80])
    X_cal, y_cal = X[80:], y[80:]
    inner = VarianceRecalibrator(regressor, fit_intercept=False).fit(X_cal, y_cal)
    assert abs(inner.coef_ - 1.0) > 1e-3
    # Refitted on the same data, the mean ratio is already 1.
    outer = VarianceRecalibrator(inner, fit_intercept=False).fit(X_cal, y_cal)
    assert_allclose(outer.coef_, 1.0, rtol=1e-12)
    # The isotonic map after a rescaling: the same quantiles at the knots'
    # levels as the map of the raw predictions (there they are mu + std * z_i).
    chained = IsotonicPITRecalibrator(inner).fit(X_cal, y_cal)
    direct = IsotonicPITRecalibrator(regressor).fit(X_cal, y_cal)
    levels = direct.recalibrated_knots_[1:-1]
    assert_allclose(chained.recalibrated_knots_, direct.recalibrated_knots_)
    assert_allclose(
        chained.predict_quantiles(X[:20], levels),
        direct.predict_quantiles(X[:20], levels),
        rtol=1e-9,
        atol=1e-9,
    )


@pytest.mark.parametrize(
    "recalibrator",
    [
        VarianceRecalibrator(BayesianRidge()),
        IsotonicPITRecalibrator(BayesianRidge()),
        ConformalQuantileRecalibrator(QuantileRegressor(), quantiles=[0.5]),
    ],
    ids=lambda r: type(r).__name__,
)
def test_unfitted_regressor_raises(recalibrator):
    """Check that an unfitted regressor is refused, saying to fit it first."""
    X, y = _features(0)
    with pytest.raises(
        NotFittedError,
        match=r"given to \w+Recalibrator is not fitted.*fit it first.*"
        "RecalibratedRegressorCV",
    ):
        recalibrator.fit(X, y)


@pytest.mark.parametrize("cls", GAUSSIAN_RECALIBRATORS, ids=lambda c: c.__name__)
def test_regressor_without_return_std_raises(cls):
    """Check that a regressor without return_std is refused with a clear error."""
    X, y = _features(0)
    regressor = LinearRegression().fit(X, y)
    with pytest.raises(
        TypeError,
        match=r"LinearRegression.predict\(X, return_std=True\) failed.*"
        "GaussianProcessRegressor or BayesianRidge",
    ):
        cls(regressor).fit(X, y)
    # The same error is an AttributeError, as scikit-learn's scorers raise.
    with pytest.raises(AttributeError, match="return_std"):
        cls(regressor).fit(X, y)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_variance_predict_quantiles(global_random_seed, fit_intercept):
    """Check predict_quantiles = mu + std' * norm.ppf(levels)."""
    X, y = _gaussian(global_random_seed)
    recal = VarianceRecalibrator(fit_intercept=fit_intercept).fit(X, y)
    mean, std = recal.predict(X[:40], return_std=True)
    levels = [0.001, 0.1, 0.5, 0.8, 0.999]
    expected = mean[:, None] + std[:, None] * norm.ppf(levels)
    assert_allclose(recal.predict_quantiles(X[:40], levels), expected, rtol=1e-12)


@pytest.mark.parametrize("cls", GAUSSIAN_RECALIBRATORS, ids=lambda c: c.__name__)
def test_gaussian_input_contract(cls):
    """Check that X must be two columns with a positive second column."""
    X, y = _gaussian(0, n=20)
    bad = X.copy()
    bad[3, 1] = 0.0
    bad[5, 1] = -1.0
    with pytest.raises(ValueError, match="2 standard deviation\\(s\\) that are not"):
        cls().fit(bad, y)
    with pytest.raises(ValueError, match="two columns.*shape \\(20, 3\\)"):
        cls().fit(np.column_stack([X, X[:, 1]]), y)
    with pytest.raises(ValueError, match="X has 20 samples but y has 19"):
        cls().fit(X, y[:-1])
    recal = cls().fit(X, y)
    with pytest.raises(ValueError, match="not positive"):
        recal.predict(bad)
    with pytest.raises(ValueError, match="not positive"):
        recal.predict_quantiles(bad, [0.5])
    with pytest.raises(ValueError, match="outside the open interval"):
        recal.predict_quantiles(X, [0.0, 0.5])
    with pytest.raises(NotFittedError):
        cls().predict(X)


def _target_cases():
    """Each regression estimator with data it fits on."""
    gaussian, y = _gaussian(0, n=40)
    quantiles = gaussian[:, :1] + np.array([-1.0, 1.0]) * gaussian[:, 1:]
    X, y_features = _features(0, n=40)
    return [
        (VarianceRecalibrator(), gaussian, y),
        (IsotonicPITRecalibrator(), gaussian, y),
        (ConformalQuantileRecalibrator(quantiles=[0.2, 0.8]), quantiles, y),
        (RecalibratedRegressorCV(BayesianRidge(), cv=3), X, y_features),
    ]


@pytest.mark.parametrize(
    "estimator, X, y", _target_cases(), ids=lambda v: type(v).__name__
)
def test_fit_target_contract(estimator, X, y):
    """Check the target a model is fitted on, as scikit-learn's regressors take it.

    A missing target, strings, NaN and a matrix are refused with a clear
    message; a column vector is raveled with a DataConversionWarning and
    numbers in an object array are converted, giving the same fit.
    """
    name = type(estimator).__name__
    with pytest.raises(ValueError, match=f"{name} requires y to be passed"):
        clone(estimator).fit(X, None)
    with pytest.raises(TypeError, match="y must hold real numbers"):
        clone(estimator).fit(X, np.array(["a"] * len(y), dtype=object))
    with pytest.raises(TypeError, match="y must hold real numbers"):
        clone(estimator).fit(X, y.astype(str))
    bad = y.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        clone(estimator).fit(X, bad)
    with pytest.raises(ValueError, match="y must be 1-D.*\\(40, 2\\)"):
        clone(estimator).fit(X, np.column_stack([y, y]))
    expected = clone(estimator).fit(X, y).predict(X)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = clone(estimator).fit(X, y[:, None])
    assert_allclose(column.predict(X), expected, rtol=1e-12)
    as_objects = clone(estimator).fit(X, y.astype(object))
    assert_allclose(as_objects.predict(X), expected, rtol=1e-12)
    y_copy = y.copy()
    clone(estimator).fit(X, y_copy)
    assert_array_equal(y_copy, y)


# ---------------------------------------------------------------------------
# IsotonicPITRecalibrator
# ---------------------------------------------------------------------------


def test_pit_map_matches_kuleshov_isotonic(global_random_seed):
    """Check the map against IsotonicRegression of the PIT's ECDF (Kuleshov)."""
    X, y = _gaussian(global_random_seed, n=300, df=3)
    n = y.shape[0]
    recal = IsotonicPITRecalibrator().fit(X, y)
    u = ndtr((y - X[:, 0]) / X[:, 1])
    ecdf = np.searchsorted(np.sort(u), u, side="right") / n
    reference = IsotonicRegression(out_of_bounds="clip").fit(u, ecdf).predict(u)
    ours = np.interp(u, recal.pit_knots_, recal.recalibrated_knots_)
    # Compared where the PIT values are apart from the ends: from z = 8.3 on,
    # Phi(z) rounds to 1.0, and IsotonicRegression merges values closer than
    # 1e-15 (skcal keeps such errors apart, in z).
    inside = (u > 1e-9) & (u < 1.0 - 1e-9)
    assert inside.sum() >= n - 10
    assert np.abs(ours - reference)[inside].max() <= 1 / (2 * n) + 1e-12
    # Exactly the middle of each jump of the empirical distribution function.
    assert_allclose(ours[inside], reference[inside] - 0.5 / n, atol=1e-12)
    assert_allclose(recal.pit_knots_, np.r_[0.0, np.sort(u), 1.0], atol=1e-15)
    assert_allclose(recal.recalibrated_knots_, np.r_[0, np.arange(n) + 0.5, n] / n)


def test_pit_quantiles_invert_the_map(global_random_seed):
    """Check that R(F(q_tau)) = tau for the predicted quantiles q_tau."""
    X, y = _gaussian(global_random_seed, n=300, df=4)
    recal = IsotonicPITRecalibrator().fit(X, y)
    levels = np.linspace(0.01, 0.99, 37)
    X_new, _ = _gaussian(global_random_seed + 1, n=20)
    quantiles = recal.predict_quantiles(X_new, levels)
    u = ndtr((quantiles - X_new[:, [0]]) / X_new[:, [1]])
    mapped = np.interp(u, recal.pit_knots_, recal.recalibrated_knots_)
    assert_allclose(mapped, np.broadcast_to(levels, mapped.shape), atol=1e-9)


@pytest.mark.parametrize("misspecified", ["heavy_tails", "std_too_small"])
def test_pit_recalibration_repairs_coverage(global_random_seed, misspecified):
    """Check held-out coverage within binomial tolerance, and better than before."""
    options = {"df": 3} if misspecified == "heavy_tails" else {"factor": 4.0}
    X, y = _gaussian(global_random_seed, n=6000, intercept=0.0, **options)
    if misspecified == "heavy_tails":
        X[:, 1] *= math.sqrt(1.5)  # the variance is right, the shape is not
    n_cal = 2000
    recal = IsotonicPITRecalibrator().fit(X[:n_cal], y[:n_cal])
    X_test, y_test = X[n_cal:], y[n_cal:]
    after = recal.predict_quantiles(X_test, LEVELS)
    coverage = quantile_coverage(y_test, after, quantiles=LEVELS)
    sd = np.sqrt(LEVELS * (1 - LEVELS) * (1 / n_cal + 1 / y_test.shape[0]))
    assert np.all(np.abs(coverage - LEVELS) <= 4.5 * sd), coverage
    before = X_test[:, [0]] + X_test[:, [1]] * norm.ppf(LEVELS)
    error_before = quantile_calibration_error(y_test, before, quantiles=LEVELS)
    error_after = quantile_calibration_error(y_test, after, quantiles=LEVELS)
    assert error_after < error_before
    assert error_before > 0.015


def test_pit_moments_match_the_quantiles(global_random_seed):
    """Check that the predicted mean and std are those of predict_quantiles."""
    X, y = _gaussian(global_random_seed, n=300, df=3)
    recal = IsotonicPITRecalibrator().fit(X, y)
    X_new = X[:4]
    # The midpoint rule over the levels converges slowly where a far knot
    # (|z| near 20 under t(3) errors) stretches the quantile function.
    n_grid = 200_000
    levels = (np.arange(n_grid) + 0.5) / n_grid
    quantiles = recal.predict_quantiles(X_new, levels)
    mean, std = recal.predict(X_new, return_std=True)
    assert_allclose(mean, quantiles.mean(axis=1), atol=1e-3 * X_new[:, 1].max())
    assert_allclose(std, quantiles.std(axis=1), rtol=1e-3)
    # Not the moments of the Gaussian predictions: t(3) errors are wider.
    assert np.all(std > X_new[:, 1])


def test_pit_calibrated_model_is_nearly_identity(global_random_seed):
    """Check that calibrated predictions are kept: coverage, mean and std."""
    X, y = _gaussian(global_random_seed, n=30_000, factor=1.0, intercept=0.0)
    n_cal = 15_000
    recal = IsotonicPITRecalibrator().fit(X[:n_cal], y[:n_cal])
    X_test, y_test = X[n_cal:], y[n_cal:]
    coverage = quantile_coverage(
        y_test, recal.predict_quantiles(X_test, LEVELS), quantiles=LEVELS
    )
    sd = np.sqrt(LEVELS * (1 - LEVELS) * 2 / n_cal)
    assert np.all(np.abs(coverage - LEVELS) <= 4.5 * sd)
    mean, std = recal.predict(X_test, return_std=True)
    assert np.abs((mean - X_test[:, 0]) / X_test[:, 1]).max() < 0.03
    assert np.abs(std / X_test[:, 1] - 1.0).max() < 0.03
    z = recal.predict_quantiles(np.array([[0.0, 1.0]]), LEVELS)[0]
    assert_allclose(z, norm.ppf(LEVELS), atol=0.06)


def test_pit_quantiles_are_monotone(global_random_seed):
    """Check that predict_quantiles increases with the level."""
    X, y = _gaussian(global_random_seed, n=200, df=3)
    recal = IsotonicPITRecalibrator().fit(X, y)
    levels = np.linspace(1e-4, 1 - 1e-4, 5001)
    quantiles = recal.predict_quantiles(X[:10], levels)
    assert np.all(np.diff(quantiles, axis=1) > 0)


def test_pit_extreme_standardized_errors(global_random_seed):
    """Check finite, monotone quantiles and moments with |z| up to 40."""
    rng = np.random.RandomState(global_random_seed)
    z = np.r_[rng.normal(size=40), rng.uniform(-40, 40, size=10), 40.0, -40.0]
    X = np.column_stack([np.zeros(z.shape[0]), np.ones(z.shape[0])])
    levels = np.r_[1e-6, np.linspace(1e-5, 1 - 1e-5, 999), 1 - 1e-6]
    for y in (z, np.abs(z) + 35.0, -np.abs(z) - 35.0):
        recal = IsotonicPITRecalibrator().fit(X, y)
        quantiles = recal.predict_quantiles(X[:1], levels)
        assert np.all(np.isfinite(quantiles))
        assert np.all(np.diff(quantiles) >= 0)
        mean, std = recal.predict(X[:1], return_std=True)
        assert np.isfinite(mean[0]) and np.isfinite(std[0]) and std[0] > 0


def test_pit_weights_are_repetitions(global_random_seed):
    """Check that integer weights equal repeated rows, zero weights dropped rows."""
    X, y = _gaussian(global_random_seed, n=150, df=3)
    weights = _integer_weights(global_random_seed, y.shape[0])
    rows = np.repeat(np.arange(y.shape[0]), weights)
    weighted = IsotonicPITRecalibrator().fit(X, y, sample_weight=weights)
    repeated = IsotonicPITRecalibrator().fit(X[rows], y[rows])
    assert_allclose(weighted.pit_knots_, repeated.pit_knots_, rtol=1e-14)
    assert_allclose(weighted.recalibrated_knots_, repeated.recalibrated_knots_)
    levels = np.linspace(0.01, 0.99, 21)
    assert_allclose(
        weighted.predict_quantiles(X, levels), repeated.predict_quantiles(X, levels)
    )
    for got, expected in zip(
        weighted.predict(X, return_std=True),
        repeated.predict(X, return_std=True),
        strict=True,
    ):
        assert_allclose(got, expected, rtol=1e-12)
    # Weights scaled by a constant fit the same map.
    scaled = IsotonicPITRecalibrator().fit(X, y, sample_weight=weights * 1e-7)
    assert_allclose(scaled.recalibrated_knots_, weighted.recalibrated_knots_)


def test_pit_ties_share_a_knot():
    """Check that tied standardized errors make one knot at their middle level."""
    X = np.column_stack([np.zeros(4), np.ones(4)])
    recal = IsotonicPITRecalibrator().fit(X, [0.0, 1.0, 1.0, 2.0])
    assert_allclose(recal.pit_knots_, [0.0, 0.5, ndtr(1.0), ndtr(2.0), 1.0])
    assert_allclose(recal.recalibrated_knots_, [0.0, 0.125, 0.5, 0.875, 1.0])
    assert np.all(np.diff(recal.recalibrated_knots_) > 0)


# ---------------------------------------------------------------------------
# ConformalQuantileRecalibrator
# ---------------------------------------------------------------------------


def _conformal_rank(n, level):
    """``ceil((n + 1) * level)`` in exact arithmetic."""
    return math.ceil(Fraction(str(level)) * (n + 1))


@pytest.mark.parametrize("n", [9, 29, 39, 99, 137])
def test_conformal_adjustment_is_the_conformal_rank(global_random_seed, n):
    """Check c_tau = the ceil((n + 1) tau)-th smallest residual of each level."""
    levels = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(n, levels.shape[0])) + levels * 4
    y = rng.normal(scale=2.0, size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # n >= 9: no level too high
        recal = ConformalQuantileRecalibrator(quantiles=levels).fit(X, y)
    residuals = np.sort(y[:, None] - X, axis=0)
    expected = [residuals[_conformal_rank(n, t) - 1, j] for j, t in enumerate(levels)]
    assert_array_equal(recal.adjustments_, expected)
    assert_array_equal(recal.quantiles_, levels)
    X_new = rng.normal(size=(7, levels.shape[0]))
    assert_array_equal(recal.predict(X_new), X_new + recal.adjustments_)


def test_conformal_coverage_guarantee(global_random_seed):
    """Check tau <= mean held-out coverage <= tau + 1/(n+1), over 300 repetitions."""
    levels = np.array([0.1, 0.5, 0.9])
    n_cal, n_test, n_rep = 50, 200, 300
    rng = np.random.RandomState(global_random_seed)
    x = rng.uniform(-2, 2, size=(n_rep, n_cal + n_test))
    y = x + (0.5 + np.abs(x)) * rng.normal(size=x.shape)
    # A wrong quantile model: half the slope, unit-variance noise.
    predicted = 0.5 * x[..., None] + norm.ppf(levels)
    coverage = np.empty((n_rep, levels.shape[0]))
    for r in range(n_rep):
        recal = ConformalQuantileRecalibrator(quantiles=levels)
        recal.fit(predicted[r, :n_cal], y[r, :n_cal])
        adjusted = recal.predict(predicted[r, n_cal:])
        coverage[r] = (y[r, n_cal:, None] <= adjusted).mean(axis=0)
    average = coverage.mean(axis=0)
    # The exact expectation is rank / (n + 1); the spread of the average is
    # that of a Beta(rank, n + 1 - rank) and of the test draws.
    ranks = np.array([_conformal_rank(n_cal, t) for t in levels])
    expected = ranks / (n_cal + 1)
    sd = np.sqrt(
        expected * (1 - expected) / (n_cal + 2) / n_rep
        + expected * (1 - expected) / n_test / n_rep
    )
    tolerance = 4.5 * sd
    assert np.all(average >= levels - tolerance), average
    assert np.all(average <= levels + 1 / (n_cal + 1) + tolerance), average
    # Unadjusted, the wrong model misses the levels by far.
    raw = (y[:, n_cal:, None] <= predicted[:, n_cal:]).mean(axis=(0, 1))
    assert np.abs(raw - levels).max() > 0.05


def test_conformal_warns_when_too_few_samples():
    """Check the warning when n < tau / (1 - tau), and the largest residual."""
    rng = np.random.RandomState(0)
    levels = [0.5, 0.9, 0.95]
    X = rng.normal(size=(8, 3))
    y = rng.normal(size=8)
    with pytest.warns(
        UserWarning,
        match=r"The calibration set has 8 samples: too few for the conformal "
        r"guarantee at the level\(s\) \[0\.9, 0\.95\], which needs at least "
        r"1 / \(1 - level\) - 1 of them; the largest residual is used",
    ) as record:
        recal = ConformalQuantileRecalibrator(quantiles=levels).fit(X, y)
    # The warning points at the caller's fit.
    assert record[0].filename == __file__
    residuals = y[:, None] - X
    assert_array_equal(recal.adjustments_[1:], residuals[:, 1:].max(axis=0))
    assert recal.adjustments_[0] == np.sort(residuals[:, 0])[4]
    # With 9 samples, level 0.9 is within reach (rank 9 of 9): no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        ConformalQuantileRecalibrator(quantiles=[0.5, 0.9]).fit(
            np.zeros((9, 2)), rng.normal(size=9)
        )


def test_conformal_zero_and_scaled_weights(global_random_seed):
    """Check that zero weights drop rows and scaled weights change nothing."""
    levels = [0.1, 0.5, 0.9]
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(80, 3))
    y = rng.normal(scale=2.0, size=80)
    keep = rng.uniform(size=80) < 0.6
    weighted = ConformalQuantileRecalibrator(quantiles=levels).fit(
        X, y, sample_weight=keep.astype(float)
    )
    dropped = ConformalQuantileRecalibrator(quantiles=levels).fit(X[keep], y[keep])
    assert_array_equal(weighted.adjustments_, dropped.adjustments_)
    w = rng.uniform(0.1, 3.0, size=80)
    reference = ConformalQuantileRecalibrator(quantiles=levels).fit(
        X, y, sample_weight=w
    )
    for scale in (2.0**-40, 1e-3, 1e5, 1e300):
        scaled = ConformalQuantileRecalibrator(quantiles=levels).fit(
            X, y, sample_weight=w * scale
        )
        assert_array_equal(scaled.adjustments_, reference.adjustments_)


def test_conformal_weighted_rank():
    """Check the weighted rank: the first residual whose share reaches tau(1+1/n)."""
    X = np.zeros((4, 1))
    y = np.array([3.0, 1.0, 4.0, 2.0])
    # Sorted residuals 1, 2, 3, 4 with weights 1, 1, 2, 4: shares 1/8, 2/8,
    # 4/8, 1. The target at 0.3 is 0.3 * 5 / 4 = 0.375: the third residual.
    w = np.array([2.0, 1.0, 4.0, 1.0])
    recal = ConformalQuantileRecalibrator(quantiles=[0.3]).fit(X, y, sample_weight=w)
    assert_array_equal(recal.adjustments_, [3.0])
    recal = ConformalQuantileRecalibrator(quantiles=[0.2]).fit(X, y, sample_weight=w)
    assert_array_equal(recal.adjustments_, [2.0])


def test_conformal_levels_from_the_wrapped_model(global_random_seed):
    """Check that quantiles=None takes the levels of a MultiQuantileRegressor."""
    X, y = _features(global_random_seed)
    model = MultiQuantileRegressor(
        QuantileRegressor(alpha=0.0, solver="highs"), quantiles=[0.1, 0.5, 0.9]
    ).fit(X[:90], y[:90])
    wrapped = ConformalQuantileRecalibrator(model).fit(X[90:], y[90:])
    assert_array_equal(wrapped.quantiles_, [0.1, 0.5, 0.9])
    direct = ConformalQuantileRecalibrator(quantiles=[0.1, 0.5, 0.9]).fit(
        model.predict(X[90:]), y[90:]
    )
    assert_array_equal(wrapped.adjustments_, direct.adjustments_)
    assert_array_equal(wrapped.predict(X[:5]), direct.predict(model.predict(X[:5])))
    assert wrapped.n_features_in_ == 3
    # Explicit levels win over the model's.
    explicit = ConformalQuantileRecalibrator(model, quantiles=[0.2, 0.5, 0.8])
    assert_array_equal(explicit.fit(X[90:], y[90:]).quantiles_, [0.2, 0.5, 0.8])


def test_conformal_needs_levels():
    """Check the error when neither quantiles nor the model gives the levels."""
    X, y = _features(0)
    match = "needs the levels of the quantiles: pass quantiles="
    with pytest.raises(ValueError, match=match):
        ConformalQuantileRecalibrator().fit(np.zeros((10, 2)), np.zeros(10))
    regressor = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match=match):
        ConformalQuantileRecalibrator(regressor).fit(X, y)
    # A point regressor is the model of one level.
    one = ConformalQuantileRecalibrator(regressor, quantiles=[0.5]).fit(X, y)
    assert one.predict(X).shape == (X.shape[0], 1)


def test_conformal_input_contract():
    """Check the refusals: columns, levels, and predict on other widths."""
    X = np.zeros((10, 3))
    y = np.arange(10.0)
    with pytest.raises(ValueError, match="one column per quantile level \\(2\\)"):
        ConformalQuantileRecalibrator(quantiles=[0.1, 0.9]).fit(X, y)
    with pytest.raises(ValueError, match="strictly increasing"):
        ConformalQuantileRecalibrator(quantiles=[0.9, 0.5, 0.1]).fit(X, y)
    with pytest.raises(ValueError, match="outside the open interval"):
        ConformalQuantileRecalibrator(quantiles=[0.0, 0.5, 1.0]).fit(X, y)
    recal = ConformalQuantileRecalibrator(quantiles=[0.1, 0.5, 0.9]).fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        recal.predict(np.zeros((2, 2)))


# ---------------------------------------------------------------------------
# MultiQuantileRegressor
# ---------------------------------------------------------------------------


class _EmpiricalQuantile(RegressorMixin, BaseEstimator):
    """The ``quantile`` of the training targets, predicted everywhere; no weights."""

    def __init__(self, quantile=0.5):
        self.quantile = quantile

    def fit(self, X, y):
        self.value_ = float(np.quantile(y, self.quantile))
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.full(np.asarray(X).shape[0], self.value_)


@pytest.mark.parametrize(
    "estimator, name",
    [
        (QuantileRegressor(alpha=0.0, solver="highs"), "quantile"),
        (
            GradientBoostingRegressor(loss="quantile", n_estimators=20, random_state=0),
            "alpha",
        ),
        (HistGradientBoostingRegressor(loss="quantile", max_iter=10), "quantile"),
        (_EmpiricalQuantile(), "quantile"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else v,
)
def test_multi_quantile_columns_are_separate_fits(global_random_seed, estimator, name):
    """Check that each column is the regressor fitted with that level alone."""
    X, y = _features(global_random_seed)
    levels = [0.1, 0.5, 0.9]
    before = estimator.get_params()
    model = MultiQuantileRegressor(estimator, quantiles=levels).fit(X, y)
    predictions = model.predict(X)
    assert predictions.shape == (y.shape[0], 3)
    for j, level in enumerate(levels):
        single = clone(estimator).set_params(**{name: level}).fit(X, y)
        assert_allclose(predictions[:, j], single.predict(X), rtol=1e-10, atol=1e-10)
        assert model.estimators_[j].get_params()[name] == level
    assert_array_equal(model.quantiles_, levels)
    assert model.n_features_in_ == 3
    # The user's estimator is left as it was: unfitted, its level unchanged.
    assert estimator.get_params() == before
    assert not hasattr(estimator, "n_features_in_")


@pytest.mark.parametrize(
    "estimator",
    [LinearRegression(), GradientBoostingRegressor(), BayesianRidge()],
    ids=lambda e: type(e).__name__,
)
def test_multi_quantile_needs_a_level_parameter(estimator):
    """Check that a regressor without a level parameter raises ValueError."""
    X, y = _features(0)
    with pytest.raises(
        ValueError,
        match=f"{type(estimator).__name__} has no parameter that sets a quantile",
    ):
        MultiQuantileRegressor(estimator).fit(X, y)


def test_multi_quantile_sample_weight(global_random_seed):
    """Check that sample_weight reaches every level's regressor."""
    X, y = _features(global_random_seed)
    w = np.random.RandomState(global_random_seed).uniform(0.1, 3.0, size=y.shape[0])
    estimator = QuantileRegressor(alpha=0.0, solver="highs")
    model = MultiQuantileRegressor(estimator, quantiles=[0.2, 0.8])
    model.fit(X, y, sample_weight=w)
    for j, level in enumerate([0.2, 0.8]):
        single = clone(estimator).set_params(quantile=level)
        single.fit(X, y, sample_weight=w)
        assert_allclose(model.predict(X)[:, j], single.predict(X), atol=1e-8)
    unweighted = MultiQuantileRegressor(estimator, quantiles=[0.2, 0.8]).fit(X, y)
    assert np.abs(unweighted.predict(X) - model.predict(X)).max() > 1e-6
    with pytest.raises(TypeError, match="_EmpiricalQuantile.fit takes no sample_w"):
        MultiQuantileRegressor(_EmpiricalQuantile()).fit(X, y, sample_weight=w)


def test_multi_quantile_n_jobs_and_pickle(global_random_seed):
    """Check that n_jobs=2 and pickling give the same predictions."""
    X, y = _features(global_random_seed)
    estimator = QuantileRegressor(alpha=0.0, solver="highs")
    serial = MultiQuantileRegressor(estimator).fit(X, y)
    parallel = MultiQuantileRegressor(estimator, n_jobs=2)
    # Threads: worker processes take seconds to start on a loaded machine.
    with parallel_config(backend="threading"):
        parallel.fit(X, y)
    assert_allclose(parallel.predict(X), serial.predict(X), atol=1e-12)
    restored = pickle.loads(pickle.dumps(serial))
    assert_array_equal(restored.predict(X), serial.predict(X))
    with pytest.raises(NotFittedError):
        MultiQuantileRegressor(estimator).predict(X)


@pytest.mark.parametrize(
    "recalibrator",
    [
        VarianceRecalibrator(),
        VarianceRecalibrator(fit_intercept=False),
        IsotonicPITRecalibrator(),
    ],
    ids=repr,
)
def test_gaussian_recalibrators_pickle_and_clone(global_random_seed, recalibrator):
    """Check that pickling keeps the fit and a clone refits the same map."""
    X, y = _gaussian(global_random_seed, n=200, df=5)
    fitted = clone(recalibrator).fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    for got, expected in zip(
        restored.predict(X, return_std=True),
        fitted.predict(X, return_std=True),
        strict=True,
    ):
        assert_array_equal(got, expected)
    refit = clone(fitted).fit(X, y)
    assert_array_equal(
        refit.predict_quantiles(X, LEVELS), fitted.predict_quantiles(X, LEVELS)
    )
    # fit leaves its inputs untouched.
    copies = X.copy(), y.copy()
    clone(recalibrator).fit(X, y, sample_weight=np.ones(y.shape[0]))
    assert_array_equal(copies[0], X)
    assert_array_equal(copies[1], y)


def test_isotonic_pit_near_ties_in_pit_are_one_knot():
    """Check that errors with one PIT value in floating point give finite output."""
    X = np.array([[0.0, 1.0]] * 4)
    y = np.array([-1.0, 0.5, np.nextafter(0.5, 1.0), 1.0])
    recalibrator = IsotonicPITRecalibrator().fit(X, y)
    mean, std = recalibrator.predict(X[:1], return_std=True)
    assert np.isfinite(mean).all() and np.isfinite(std).all()
    assert np.all(np.diff(recalibrator.pit_knots_) > 0)
    levels = np.linspace(0.01, 0.99, 99)
    assert np.all(np.diff(recalibrator.predict_quantiles(X[:1], levels)) > 0)


def test_variance_recalibrator_weights_whose_sum_overflows():
    """Check that huge weights give the map of equal weights."""
    rng = np.random.RandomState(0)
    mean = rng.normal(size=100)
    X = np.column_stack([mean, np.ones(100)])
    y = mean + rng.normal(scale=2.0, size=100)
    huge = VarianceRecalibrator().fit(X, y, sample_weight=np.full(100, 1e307))
    plain = VarianceRecalibrator().fit(X, y)
    assert_allclose([huge.coef_, huge.intercept_], [plain.coef_, plain.intercept_])


def test_multi_quantile_refuses_a_boosting_model_without_quantile_loss():
    """Check that a gradient boosting model with a mean loss is refused."""
    X = np.random.RandomState(0).normal(size=(50, 2))
    with pytest.raises(ValueError, match="loss='quantile'"):
        MultiQuantileRegressor(HistGradientBoostingRegressor()).fit(X, X[:, 0])


# ---------------------------------------------------------------------------
# score of the quantile models
# ---------------------------------------------------------------------------


def _d2_pinball_reference(y, y_quantiles, levels, weights):
    """The mean D² pinball score, written from its definition.

    The constant of level ``tau`` is found by trying every observed value
    (the weighted pinball loss of a constant is piecewise linear, so one of
    them is a minimiser); no sorting or interpolation is shared with skcal or
    scikit-learn.
    """

    def loss(pred, tau):
        diff = y - pred
        return np.sum(weights * np.maximum(tau * diff, (tau - 1) * diff))

    scores = []
    for column, tau in zip(y_quantiles.T, levels, strict=True):
        constant = min(loss(np.full_like(y, v), tau) for v in y)
        scores.append(1.0 - loss(column, tau) / constant)
    return np.mean(scores)


def _quantile_models():
    regressor = QuantileRegressor(alpha=0.0, solver="highs")
    multi = MultiQuantileRegressor(regressor, quantiles=[0.1, 0.5, 0.9])
    return [
        multi,
        RecalibratedRegressorCV(multi, ConformalQuantileRecalibrator(), cv=3),
    ]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("model", _quantile_models(), ids=lambda m: type(m).__name__)
def test_quantile_model_score_is_mean_d2_pinball(global_random_seed, model, weighted):
    """Check score of a quantile model against the definition of D² pinball."""
    X, y = _features(global_random_seed, n=120)
    w = _integer_weights(global_random_seed, y.shape[0]) if weighted else None
    fitted = clone(model).fit(X[:60], y[:60])
    score = fitted.score(X[60:], y[60:], sample_weight=None if w is None else w[60:])
    weights = np.ones(60) if w is None else w[60:].astype(float)
    expected = _d2_pinball_reference(
        y[60:], fitted.predict(X[60:]), fitted.quantiles_, weights
    )
    assert score == pytest.approx(expected, rel=1e-10)
    # Weights are repetitions.
    if weighted:
        repeated = fitted.score(
            np.repeat(X[60:], w[60:], axis=0), np.repeat(y[60:], w[60:])
        )
        assert score == pytest.approx(repeated, rel=1e-10)


def test_conformal_recalibrator_score_without_estimator(global_random_seed):
    """Check score of ConformalQuantileRecalibrator on given quantiles."""
    X, y = _features(global_random_seed, n=200)
    model = MultiQuantileRegressor(
        QuantileRegressor(alpha=0.0, solver="highs"), quantiles=[0.2, 0.8]
    ).fit(X[:100], y[:100])
    recal = ConformalQuantileRecalibrator(model).fit(X[100:150], y[100:150])
    on_predictions = ConformalQuantileRecalibrator(quantiles=[0.2, 0.8]).fit(
        model.predict(X[100:150]), y[100:150]
    )
    assert recal.score(X[150:], y[150:]) == pytest.approx(
        on_predictions.score(model.predict(X[150:]), y[150:]), rel=1e-12
    )


def test_gaussian_models_keep_r2_score(global_random_seed):
    """Check that a Gaussian model's score is the R² of its means."""
    X, y = _features(global_random_seed)
    model = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(X[:100], y[:100])
    r2 = 1 - np.sum((y[100:] - model.predict(X[100:])) ** 2) / np.sum(
        (y[100:] - y[100:].mean()) ** 2
    )
    assert model.score(X[100:], y[100:]) == pytest.approx(r2, rel=1e-12)
    # Refitted as a Gaussian model after a quantile one, the score is R² again.
    multi = MultiQuantileRegressor(QuantileRegressor(alpha=0.0, solver="highs"))
    model.set_params(estimator=multi, recalibrator=ConformalQuantileRecalibrator())
    model.fit(X[:100], y[:100])
    assert hasattr(model, "quantiles_")
    model.set_params(estimator=BayesianRidge(), recalibrator=VarianceRecalibrator())
    model.fit(X[:100], y[:100])
    assert not hasattr(model, "quantiles_")
    assert model.score(X[100:], y[100:]) == pytest.approx(r2, rel=1e-12)


def test_quantile_model_score_takes_targets_as_fit_does(global_random_seed):
    """Check score takes a column vector, a one-column frame and object numbers.

    fit takes them (as scikit-learn's regressors do); score refusing them
    made model selection with the default scoring return NaN (review).
    """
    pd = pytest.importorskip("pandas")
    X, y = _features(global_random_seed, n=90)
    model = MultiQuantileRegressor(QuantileRegressor(alpha=0.0, solver="highs"))
    model.fit(X[:60], y[:60])
    expected = model.score(X[60:], y[60:])
    assert model.score(X[60:], y[60:, None]) == expected
    assert model.score(X[60:], pd.DataFrame({"y": y[60:]})) == expected
    assert model.score(X[60:], y[60:].astype(object)) == expected


def test_quantile_model_score_rejects_bad_targets():
    """Check that score goes through the quantile input contract."""
    X, y = _features(0, n=60)
    model = MultiQuantileRegressor(QuantileRegressor(alpha=0.0, solver="highs"))
    model.fit(X, y)
    with pytest.raises(NotFittedError):
        clone(model).score(X, y)
    bad = y.copy()
    bad[0] = np.inf
    with pytest.raises(ValueError, match="^y contains 1 NaN or infinite"):
        model.score(X, bad)
    with pytest.raises(ValueError, match="sample_weight contains 1 negative"):
        model.score(X, y, sample_weight=np.r_[-1.0, np.ones(59)])
