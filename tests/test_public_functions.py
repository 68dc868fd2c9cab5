"""Common checks of the signature and parameter validation of public functions."""

# SPDX-License-Identifier: BSD-3-Clause

import inspect

import pytest

import skcal.metrics
from skcal._validation import InvalidParameterError

PUBLIC_FUNCTIONS = [getattr(skcal.metrics, name) for name in skcal.metrics.__all__]
SHARED_KEYWORDS = ("sample_weight", "pos_label", "labels")
# Parameters that accept any hashable label, so that an arbitrary string is valid.
ACCEPTS_ANY_LABEL = {"pos_label"}

# A small valid binary problem: parameter validation must fail on the parameter
# under test alone.
Y_TRUE = [0, 1, 1, 0]
Y_PROB = [0.2, 0.7, 0.6, 0.4]


class _BadType:
    """An unhashable object of a type no constraint expects."""

    __hash__ = None

    def __repr__(self):
        return "_BadType()"


def _is_array_parameter(func, name):
    return "array-like" in func._skcal_parameter_constraints.get(name, [])


def _parameters(func):
    return list(inspect.signature(func).parameters.values())


def _param_cases(*, arrays):
    cases = []
    for func in PUBLIC_FUNCTIONS:
        for param in _parameters(func):
            if _is_array_parameter(func, param.name) == arrays:
                cases.append((func, param.name))
    return cases


def _invalid_value_cases():
    """(function, parameter, invalid value) for every non-array parameter."""
    cases = []
    for func, name in _param_cases(arrays=False):
        cases.append(
            pytest.param(func, name, _BadType(), id=f"{func.__name__}-{name}-bad-type")
        )
        if name not in ACCEPTS_ANY_LABEL:
            cases.append(
                pytest.param(
                    func, name, "invalid-value", id=f"{func.__name__}-{name}-string"
                )
            )
    return cases


parametrize_functions = pytest.mark.parametrize(
    "func", PUBLIC_FUNCTIONS, ids=lambda f: f.__name__
)


def test_public_functions_are_listed():
    """Check that skcal.metrics exports at least the binned measures."""
    names = set(skcal.metrics.__all__)
    assert {
        "binned_calibration_error",
        "expected_calibration_error",
        "reliability_table",
    } <= names
    assert len(names) == len(skcal.metrics.__all__)


@parametrize_functions
def test_constraints_match_signature(func):
    """Check that a function has one parameter constraint per signature parameter."""
    assert hasattr(func, "_skcal_parameter_constraints")
    constraints = func._skcal_parameter_constraints
    assert set(constraints) == set(inspect.signature(func).parameters)


@parametrize_functions
def test_y_true_and_y_prob_come_first(func):
    """Check that y_true and y_prob are the first two, positional, parameters."""
    params = _parameters(func)
    assert [p.name for p in params[:2]] == ["y_true", "y_prob"]
    for param in params[:2]:
        assert param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert param.default is inspect.Parameter.empty


@parametrize_functions
def test_parameters_after_y_prob_are_keyword_only(func):
    """Check that every parameter after y_prob is keyword-only."""
    params = _parameters(func)
    assert len(params) > 2
    not_keyword_only = [
        p.name for p in params[2:] if p.kind is not inspect.Parameter.KEYWORD_ONLY
    ]
    assert not_keyword_only == []


@parametrize_functions
@pytest.mark.parametrize("name", SHARED_KEYWORDS)
def test_shared_keywords_default_to_none(func, name):
    """Check that the shared data keywords are present and default to None."""
    params = inspect.signature(func).parameters
    assert name in params
    assert params[name].default is None


@pytest.mark.parametrize("func, param, value", _invalid_value_cases())
def test_invalid_parameter_rejected(func, param, value):
    """Check that an invalid hyper-parameter raises InvalidParameterError."""
    with pytest.raises(
        InvalidParameterError,
        match=rf"The '{param}' parameter of {func.__name__} must be",
    ):
        func(Y_TRUE, Y_PROB, **{param: value})


@pytest.mark.parametrize(
    "func, param",
    [pytest.param(f, p, id=f"{f.__name__}-{p}") for f, p in _param_cases(arrays=True)],
)
def test_non_array_like_rejected(func, param):
    """Check that a non-array-like data argument raises InvalidParameterError."""
    kwargs = {"y_true": Y_TRUE, "y_prob": Y_PROB, param: _BadType()}
    with pytest.raises(
        InvalidParameterError,
        match=rf"The '{param}' parameter of {func.__name__} must be an array-like",
    ):
        func(**kwargs)


@parametrize_functions
def test_parameter_validation_precedes_data_validation(func):
    """Check that parameters are validated before the data are looked at."""
    with pytest.raises(
        InvalidParameterError,
        match=rf"The 'pos_label' parameter of {func.__name__}",
    ):
        func([0, 1], [0.5, 2.0, float("nan")], pos_label=_BadType())
