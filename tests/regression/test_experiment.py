"""The variance-recalibration experiment of Gruber and Buettner, in shape."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcal.regression import (
    VarianceRecalibrator,
    dawid_sebastiani_score,
    error_variance_ratio,
)


def _modified_friedman1(n_samples, seed):
    """Friedman 1 with noise of standard deviation 0.5 + X6 (paper, G.5.2)."""
    X, y = make_friedman1(n_samples=n_samples, noise=0.0, random_state=seed)
    noise = np.random.RandomState(seed + 1).normal(size=n_samples)
    return X, y + noise * (0.5 + X[:, 5])


def _overconfident_gp():
    kernel = ConstantKernel() * RBF(length_scale=np.ones(10))
    gp = GaussianProcessRegressor(kernel, alpha=1e-2, normalize_y=True)
    return make_pipeline(StandardScaler(), gp)


def _friedman_split(seed):
    return (
        _modified_friedman1(100, 3 * seed),
        _modified_friedman1(100, 3 * seed + 1),
        _modified_friedman1(1000, 3 * seed + 2),
    )


def _diabetes_split(seed):
    X, y = load_diabetes(return_X_y=True)
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, train_size=150, random_state=seed
    )
    X_cal, X_test, y_cal, y_test = train_test_split(
        X_rest, y_rest, train_size=146, random_state=seed
    )
    return (X_train, y_train), (X_cal, y_cal), (X_test, y_test)


def _before_and_after(split):
    (X_train, y_train), (X_cal, y_cal), (X_test, y_test) = split
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = _overconfident_gp().fit(X_train, y_train)
    recalibrated = VarianceRecalibrator(model).fit(X_cal, y_cal)
    before = model.predict(X_test, return_std=True)
    after = recalibrated.predict(X_test, return_std=True)
    return y_test, before, after


@pytest.mark.parametrize("data", ["friedman1", "diabetes"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recalibration_moves_as_in_tables_1_and_2(data, seed):
    """Check the directions of Tables 1-2 of Gruber and Buettner (2022)."""
    split = _friedman_split(seed) if data == "friedman1" else _diabetes_split(seed)
    y, (mean, std), (mean_after, std_after) = _before_and_after(split)
    mse = np.mean((y - mean) ** 2)
    # The mean is untouched, so the MSE is the same before and after.
    np.testing.assert_array_equal(mean_after, mean)
    # Table 1: the uncalibrated average variance is far below the MSE, and
    # recalibration raises it to the MSE's order (within a factor of 2).
    assert np.mean(std**2) < 0.8 * mse
    assert np.mean(std_after**2) > np.mean(std**2)
    assert 0.5 * mse < np.mean(std_after**2) < 2.0 * mse
    # Table 2: the error-variance ratio falls from well above 1 to about 1,
    # with a smaller spread.
    ratio, ratio_after = (
        error_variance_ratio(y, mean, std),
        error_variance_ratio(y, mean_after, std_after),
    )
    assert ratio.mean > 1.5
    assert 0.6 < ratio_after.mean < 1.7
    assert ratio_after.variance < ratio.variance
    # The DSS, the score the map is fitted by, improves on test data.
    assert dawid_sebastiani_score(y, mean_after, std_after) < dawid_sebastiani_score(
        y, mean, std
    )
