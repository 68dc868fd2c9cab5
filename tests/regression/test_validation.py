"""Tests of the input checks of the regression scores and measures."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal._param_validation import InvalidParameterError
from skcal.regression import (
    dawid_sebastiani_score,
    error_variance_ratio,
    gaussian_crps,
    gaussian_log_loss,
    mean_calibration_decomposition,
    mean_reliability_curve,
    pinball_loss,
    pit_calibration_error,
    pit_uniformity_test,
    pit_values,
    quantile_calibration_error,
    quantile_coverage,
)

# A small valid problem of four samples, so that each check fails on the one
# argument under test.
Y_TRUE = np.array([0.5, -1.0, 2.0, 0.0])
GAUSSIAN = {
    "y_true": Y_TRUE,
    "y_mean": np.array([0.0, 0.0, 1.0, 0.5]),
    "y_std": np.array([1.0, 2.0, 0.5, 1.0]),
}
QUANTILE = {
    "y_true": Y_TRUE,
    "y_quantiles": np.array([[-1.0, 1.0], [-2.0, 0.0], [0.0, 3.0], [-0.5, 0.5]]),
    "quantiles": np.array([0.2, 0.8]),
}
MEAN = {"y_true": Y_TRUE, "y_pred": np.array([0.0, -0.5, 1.5, 0.5])}
WEIGHT = np.array([1.0, 2.0, 0.5, 1.5])

GAUSSIAN_FUNCTIONS = [
    dawid_sebastiani_score,
    gaussian_log_loss,
    gaussian_crps,
    pit_calibration_error,
    pit_uniformity_test,
    error_variance_ratio,
]
QUANTILE_FUNCTIONS = [pinball_loss, quantile_coverage, quantile_calibration_error]
MEAN_FUNCTIONS = [mean_calibration_decomposition, mean_reliability_curve]
WEIGHTED_FUNCTIONS = GAUSSIAN_FUNCTIONS + QUANTILE_FUNCTIONS + MEAN_FUNCTIONS
FUNCTIONS = [*WEIGHTED_FUNCTIONS, pit_values]


def _data(func):
    """The valid data arguments of ``func`` (without weights)."""
    if func in QUANTILE_FUNCTIONS:
        return dict(QUANTILE)
    if func in MEAN_FUNCTIONS:
        return dict(MEAN)
    return dict(GAUSSIAN)


def _vector_names(func):
    """The names of the 1-D per-sample arrays of ``func``."""
    return [name for name, value in _data(func).items() if name != "quantiles"]


def _call(func, **overrides):
    return func(**{**_data(func), **overrides})


def _cases(functions, names=None):
    """(function, argument name) pairs over the data arguments of the functions."""
    return [
        pytest.param(func, name, id=f"{func.__name__}-{name}")
        for func in functions
        for name in (names(func) if names else _data(func))
    ]


def _flat(result):
    """Any result (float, array, Bunch, tuple of arrays) as one float vector."""
    if isinstance(result, dict):
        result = [v for v in result.values() if not isinstance(v, str)]
    if isinstance(result, (tuple, list)):
        return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in result])
    return np.ravel(np.asarray(result, dtype=float))


# ---------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_empty_input(func):
    """Check empty arrays are rejected, naming the first one checked."""
    empty = {name: [] for name in _data(func) if name != "quantiles"}
    with pytest.raises(ValueError, match="y_true is empty; at least one sample"):
        _call(func, **empty)


@pytest.mark.parametrize(("func", "name"), _cases(FUNCTIONS, _vector_names))
def test_rejects_one_empty_array(func, name):
    """Check one empty array among valid ones is rejected by its name."""
    empty = np.empty((0, 2)) if name == "y_quantiles" else []
    with pytest.raises(ValueError, match=f"{name} is empty; at least one sample"):
        _call(func, **{name: empty})


@pytest.mark.parametrize("func", QUANTILE_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_empty_levels(func):
    """Check an empty list of quantile levels is rejected."""
    with pytest.raises(ValueError, match="quantiles is empty"):
        _call(func, quantiles=[])


@pytest.mark.parametrize(("func", "name"), _cases(FUNCTIONS, _vector_names))
def test_rejects_inconsistent_lengths(func, name):
    """Check arrays of different lengths are rejected, naming both."""
    short = _data(func)[name][:3]
    if name == "y_true":
        other = _vector_names(func)[1]
        message = f"y_true and {other} have inconsistent numbers of samples: 3 and 4"
    else:
        message = f"y_true and {name} have inconsistent numbers of samples: 4 and 3"
    with pytest.raises(ValueError, match=message):
        _call(func, **{name: short})


@pytest.mark.parametrize("func", WEIGHTED_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_weights_of_another_length(func):
    """Check weights of the wrong length are rejected with both lengths."""
    with pytest.raises(ValueError, match="sample_weight has 3 entries but there are 4"):
        _call(func, sample_weight=WEIGHT[:3])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize(("func", "name"), _cases(FUNCTIONS))
def test_rejects_non_finite_values(func, name, bad):
    """Check NaN and infinite values are rejected with their count."""
    value = np.array(_data(func)[name], dtype=float)
    value.flat[1] = bad
    if name == "quantiles":
        value = np.array([0.2, bad])
    with pytest.raises(ValueError, match=f"{name} contains 1 NaN or infinite value"):
        _call(func, **{name: value})


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("func", WEIGHTED_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_non_finite_weights(func, bad):
    """Check NaN and infinite weights are rejected."""
    w = WEIGHT.copy()
    w[2] = bad
    with pytest.raises(ValueError, match="sample_weight contains 1 NaN or infinite"):
        _call(func, sample_weight=w)


@pytest.mark.parametrize("func", [*GAUSSIAN_FUNCTIONS, pit_values])
def test_rejects_non_positive_std(func):
    """Check zero and negative standard deviations are rejected with their count."""
    y_std = np.array([1.0, 0.0, -2.0, 1.0])
    message = r"y_std contains 2 standard deviation\(s\) that are not positive"
    with pytest.raises(ValueError, match=message):
        _call(func, y_std=y_std)
    with pytest.raises(ValueError, match=r"y_std contains 1 standard deviation\(s\)"):
        _call(func, y_std=[1.0, 1.0, -0.0, 1.0])


@pytest.mark.parametrize(("func", "name"), _cases(FUNCTIONS, _vector_names))
def test_rejects_two_dimensional_vectors(func, name):
    """Check a column or a matrix where a 1-D array is expected."""
    if name == "y_quantiles":
        value, message = np.zeros((4, 2, 1)), r"y_quantiles must have one column"
    else:
        value = np.reshape(_data(func)[name], (4, 1))
        message = rf"{name} must be 1-D, got an array of shape \(4, 1\)"
    with pytest.raises(ValueError, match=message):
        _call(func, **{name: value})


@pytest.mark.parametrize("func", WEIGHTED_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_two_dimensional_weights(func):
    """Check a column of weights is rejected."""
    with pytest.raises(ValueError, match="sample_weight must be 1-D"):
        _call(func, sample_weight=WEIGHT[:, None])


@pytest.mark.parametrize(
    "levels", [[0.0, 0.8], [0.2, 1.0], [-0.1, 0.5], [0.5, 1.5]], ids=str
)
@pytest.mark.parametrize("func", QUANTILE_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_levels_outside_unit_interval(func, levels):
    """Check levels at or beyond 0 and 1 are rejected with their count."""
    message = r"quantiles contains 1 level\(s\) outside the open interval \(0, 1\)"
    with pytest.raises(ValueError, match=message):
        _call(func, quantiles=levels)


@pytest.mark.parametrize("levels", [[0.8, 0.2], [0.5, 0.5]], ids=str)
@pytest.mark.parametrize("func", QUANTILE_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_levels_not_increasing(func, levels):
    """Check decreasing or repeated levels are rejected."""
    with pytest.raises(ValueError, match="quantiles must be strictly increasing"):
        _call(func, quantiles=levels)


@pytest.mark.parametrize("func", QUANTILE_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_wrong_number_of_columns(func):
    """Check predicted quantiles with a column count other than the levels'."""
    message = r"one column per quantile level \(2\), got an array of shape \(4, 3\)"
    with pytest.raises(ValueError, match=message):
        _call(func, y_quantiles=np.zeros((4, 3)))
    message = r"one column per quantile level \(2\), got an array of shape \(4,\)"
    with pytest.raises(ValueError, match=message):
        _call(func, y_quantiles=np.zeros(4))
    with pytest.raises(
        ValueError, match=r"level \(3\), got an array of shape \(4, 2\)"
    ):
        _call(func, quantiles=[0.1, 0.5, 0.9])


@pytest.mark.parametrize("func", WEIGHTED_FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_bad_weights(func):
    """Check negative and all-zero weights are rejected."""
    with pytest.raises(ValueError, match="sample_weight contains 2 negative value"):
        _call(func, sample_weight=[1.0, -1.0, -0.5, 1.0])
    with pytest.raises(ValueError, match="all 4 weights are zero; at least one"):
        _call(func, sample_weight=np.zeros(4))


@pytest.mark.parametrize(("func", "name"), _cases(FUNCTIONS))
def test_rejects_strings(func, name):
    """Check strings where numbers are expected raise a TypeError."""
    value = np.asarray(_data(func)[name]).astype(str)
    with pytest.raises(TypeError, match=f"{name} must hold real numbers"):
        _call(func, **{name: value})


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_strings_in_series(func):
    """Check a pandas Series of strings as y_true raises a TypeError."""
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="y_true must hold real numbers"):
        _call(func, y_true=pd.Series(["a", "b", "c", "d"]))


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_rejects_scalar_target(func):
    """Check a number where an array is expected fails parameter validation."""
    with pytest.raises(InvalidParameterError, match="'y_true' parameter"):
        _call(func, y_true=1.0)


@pytest.mark.parametrize(
    "func",
    [pit_calibration_error, quantile_calibration_error],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("norm", ["l3", "L1", None])
def test_rejects_unknown_norm(func, norm):
    """Check an unknown norm fails parameter validation, naming the parameter."""
    message = f"The 'norm' parameter of {func.__name__} must be"
    with pytest.raises(InvalidParameterError, match=message):
        _call(func, norm=norm)


@pytest.mark.parametrize("multioutput", ["variance_weighted", [0.5, 0.5], None])
def test_rejects_unknown_multioutput(multioutput):
    """Check an unknown multioutput fails parameter validation."""
    message = "The 'multioutput' parameter of pinball_loss must be"
    with pytest.raises(InvalidParameterError, match=message):
        _call(pinball_loss, multioutput=multioutput)


# ---------------------------------------------------------------------------
# Accepted inputs, left unchanged
# ---------------------------------------------------------------------------


def _arguments(func, weighted):
    arguments = {k: np.array(v, dtype=float) for k, v in _data(func).items()}
    if weighted:
        arguments["sample_weight"] = WEIGHT.copy()
    return arguments


def _weight_options(func):
    return [False, True] if func in WEIGHTED_FUNCTIONS else [False]


_WEIGHTED_CASES = [
    pytest.param(func, weighted, id=f"{func.__name__}-{weighted}")
    for func in FUNCTIONS
    for weighted in _weight_options(func)
]


@pytest.mark.parametrize(("func", "weighted"), _WEIGHTED_CASES)
def test_inputs_are_not_modified(func, weighted):
    """Check the arrays passed are left as they were."""
    arguments = _arguments(func, weighted)
    # Unsorted with ties and a zero weight, so that sorting or dropping in
    # place would show.
    arguments["y_true"][:] = [2.0, -1.0, 2.0, 0.0]
    if "y_pred" in arguments:
        arguments["y_pred"][:] = [1.0, -0.5, 1.0, 0.0]
    if weighted:
        arguments["sample_weight"][1] = 0.0
    copies = {k: v.copy() for k, v in arguments.items()}
    func(**arguments)
    for name, value in arguments.items():
        assert_array_equal(value, copies[name])
        assert value.flags.writeable


@pytest.mark.parametrize(("func", "weighted"), _WEIGHTED_CASES)
def test_read_only_inputs_are_accepted(func, weighted):
    """Check read-only arrays give the result of writeable ones."""
    arguments = _arguments(func, weighted)
    expected = _flat(func(**arguments))
    for value in arguments.values():
        value.flags.writeable = False
    assert_allclose(_flat(func(**arguments)), expected, rtol=1e-15)


@pytest.mark.parametrize(("func", "weighted"), _WEIGHTED_CASES)
def test_other_containers_are_accepted(func, weighted):
    """Check lists, pandas objects (index ignored) and float32 arrays work alike."""
    pd = pytest.importorskip("pandas")
    arguments = _arguments(func, weighted)
    expected = _flat(func(**arguments))
    as_lists = {k: v.tolist() for k, v in arguments.items()}
    assert_allclose(_flat(func(**as_lists)), expected, rtol=1e-15)
    index = [3, 0, 2, 1]  # a pandas index is ignored, not aligned on

    def as_pandas(name, value):
        if name == "quantiles":
            return pd.Series(value)
        if value.ndim == 2:
            return pd.DataFrame(value, index=index)
        return pd.Series(value, index=index)

    pandas_arguments = {k: as_pandas(k, v) for k, v in arguments.items()}
    assert_allclose(_flat(func(**pandas_arguments)), expected, rtol=1e-15)
    # The values are exact in float32 (the levels are kept in float64).
    as_float32 = {
        k: v if k == "quantiles" else v.astype(np.float32) for k, v in arguments.items()
    }
    assert_allclose(_flat(func(**as_float32)), expected, rtol=1e-15)


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_integer_inputs_are_accepted(func):
    """Check integer targets (and predictions) are read as floats."""
    arguments = _arguments(func, weighted=False)
    arguments["y_true"] = np.array([1, -1, 2, 0])
    expected = _flat(func(**{**arguments, "y_true": arguments["y_true"] * 1.0}))
    assert_allclose(_flat(func(**arguments)), expected, rtol=1e-15)


@pytest.mark.parametrize("func", QUANTILE_FUNCTIONS, ids=lambda f: f.__name__)
def test_one_level_as_vector(func):
    """Check a 1-D array of predicted quantiles is accepted for one level."""
    q = QUANTILE["y_quantiles"][:, 1]
    vector = func(Y_TRUE, q, quantiles=[0.8])
    column = func(Y_TRUE, q[:, None], quantiles=[0.8])
    assert_allclose(_flat(vector), _flat(column), rtol=1e-15)
