"""The input contract of probabilistic regression: one place for its checks.

A Gaussian prediction is a mean and a standard deviation per sample (what
``predict(X, return_std=True)`` of scikit-learn's Gaussian process and
Bayesian ridge returns); a quantile prediction is a matrix of predicted
quantiles, one column per level. The arrays are converted and checked with
the shared pieces of :mod:`skcal._validation` (conversion, finiteness,
lengths and weights), so a rejection reads the same as for classification.
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import column_or_1d

from skcal._param_validation import Interval
from skcal._validation import (
    _as_array,
    _as_float_array,
    _check_consistent_samples,
    _finite_range,
    _readonly,
    check_sample_weight,
)

# Quantile levels: an array, or one level as a number.
LEVELS_CONSTRAINT = ["array-like", Interval(Real, 0, 1, closed="neither")]

# The parameter constraints of the data arguments, shared by the functions.
GAUSSIAN_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_mean": ["array-like"],
    "y_std": ["array-like"],
    "sample_weight": ["array-like", None],
}
QUANTILE_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_quantiles": ["array-like"],
    "quantiles": LEVELS_CONSTRAINT,
    "sample_weight": ["array-like", None],
}


class GaussianData(NamedTuple):
    """Validated Gaussian predictions: read-only float64 arrays of one length."""

    y_true: np.ndarray
    y_mean: np.ndarray
    y_std: np.ndarray
    sample_weight: np.ndarray | None


class QuantileData(NamedTuple):
    """Validated quantile predictions.

    ``y_quantiles`` has one column per level of ``quantiles`` (increasing,
    in (0, 1)).
    """

    y_true: np.ndarray
    y_quantiles: np.ndarray
    quantiles: np.ndarray
    sample_weight: np.ndarray | None


def _finite_vector(x, name):
    """A finite, non-empty 1-D float64 array."""
    arr, _ = _as_float_array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed.")
    _finite_range(arr, name)
    return arr


def check_standard_deviations(y_std, name="y_std"):
    """A finite 1-D array of positive standard deviations."""
    std = _finite_vector(y_std, name)
    if not std.min() > 0:
        n_bad = int(np.count_nonzero(std <= 0))
        raise ValueError(
            f"{name} contains {n_bad} standard deviation(s) that are not positive; "
            "a Gaussian prediction needs a positive standard deviation."
        )
    return std


def check_gaussian_inputs(y_true, y_mean, y_std, sample_weight=None):
    """Validate a target and its Gaussian predictions.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The observed values.
    y_mean : array-like of shape (n_samples,)
        The predicted means.
    y_std : array-like of shape (n_samples,)
        The predicted standard deviations, positive.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, not all zero.

    Returns
    -------
    data : GaussianData
        Read-only float64 views (copies only where a conversion was needed).
    """
    y = _finite_vector(y_true, "y_true")
    mean = _finite_vector(y_mean, "y_mean")
    std = check_standard_deviations(y_std)
    _check_consistent_samples(y_true=y, y_mean=mean)
    _check_consistent_samples(y_true=y, y_std=std)
    weight = check_sample_weight(sample_weight, y.shape[0])
    return GaussianData(*(_readonly(a) for a in (y, mean, std, weight)))


def check_quantile_levels(quantiles, name="quantiles"):
    """Validate quantile levels: a non-empty increasing 1-D array in (0, 1)."""
    levels = _finite_vector(np.atleast_1d(np.asarray(quantiles)), name)
    if not (levels.min() > 0 and levels.max() < 1):
        n_bad = int(np.count_nonzero((levels <= 0) | (levels >= 1)))
        raise ValueError(
            f"{name} contains {n_bad} level(s) outside the open interval (0, 1)."
        )
    if np.any(np.diff(levels) <= 0):
        raise ValueError(f"{name} must be strictly increasing, got {levels.tolist()}.")
    return levels


def check_quantile_predictions(y_quantiles, n_levels, name="y_quantiles"):
    """A finite ``(n_samples, n_levels)`` float64 matrix of predicted quantiles.

    A 1-D array is one level's predictions when there is one level.
    """
    pred, _ = _as_float_array(y_quantiles, name)
    if pred.ndim == 1 and n_levels == 1:
        pred = pred.reshape(-1, 1)
    if pred.ndim != 2 or pred.shape[1] != n_levels:
        raise ValueError(
            f"{name} must have one column per quantile level ({n_levels}), got an "
            f"array of shape {pred.shape}."
        )
    if pred.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one sample is needed.")
    _finite_range(pred, name)
    return pred


def check_quantile_inputs(y_true, y_quantiles, quantiles, sample_weight=None):
    """Validate a target and its predicted quantiles.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The observed values.
    y_quantiles : array-like of shape (n_samples, n_quantiles)
        The predicted quantiles, one column per level. Rows need not be
        increasing (separately fitted quantile models may cross).
    quantiles : array-like of shape (n_quantiles,)
        The levels, strictly increasing in (0, 1).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, not all zero.

    Returns
    -------
    data : QuantileData
        Read-only float64 views.
    """
    y = _finite_vector(y_true, "y_true")
    levels = check_quantile_levels(quantiles)
    pred = check_quantile_predictions(y_quantiles, levels.shape[0])
    _check_consistent_samples(y_true=y, y_quantiles=pred)
    weight = check_sample_weight(sample_weight, y.shape[0])
    return QuantileData(*(_readonly(a) for a in (y, pred, levels, weight)))


def check_regression_target(y_true, name="y"):
    """A finite, non-empty 1-D float64 array of observed (or predicted) values."""
    return _finite_vector(y_true, name)


def check_fit_target(y, owner):
    """The observed values an estimator is fitted on, as a 1-D float64 array.

    As scikit-learn's regressors do, a column vector is raveled with a
    :class:`~sklearn.exceptions.DataConversionWarning`, and numbers held in
    an object array are converted; ``owner`` (the estimator's name) tells who
    asks when ``y`` is missing.
    """
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    arr = _as_array(y, "y")
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"y must hold real numbers; its values could not be converted to "
                f"floats ({exc})."
            ) from exc
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = column_or_1d(arr, warn=True)
    return _finite_vector(arr, "y")
