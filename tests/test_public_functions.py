"""Common checks of the signature and parameter validation of public functions."""

# SPDX-License-Identifier: BSD-3-Clause

import inspect

import numpy as np
import pytest

import skcal.metrics
from skcal._param_validation import InvalidParameterError

# The measures: public functions of y_true and predictions.
PUBLIC_FUNCTIONS = [
    func
    for func in (getattr(skcal.metrics, name) for name in skcal.metrics.__all__)
    if next(iter(inspect.signature(func).parameters), None) == "y_true"
]
SHARED_KEYWORDS = ("sample_weight", "pos_label", "labels", "groups")
# Parameters that accept any hashable label, so that an arbitrary string is valid.
ACCEPTS_ANY_LABEL = {"pos_label"}

# A small valid binary problem: parameter validation must fail on the parameter
# under test alone.
Y_TRUE = [0, 1, 1, 0]
Y_PROB = [0.2, 0.7, 0.6, 0.4]

# The positional data parameters of each function (y_true first), and the
# required keywords it needs to be called validly.
DATA_PARAMETERS = {
    "recalibration_improvement": ["y_true", "y_prob_before", "y_prob_after"]
}
REQUIRED_KWARGS = {
    "cutoff_calibration_test": {"tolerance": 0.1},
    "calibration_audit": {"groups": {"g": [0, 0, 1, 1]}},
}
# Functions whose groups are their subject, a required argument, rather than
# the optional split of every other function's answer.
GROUPS_REQUIRED = {"calibration_audit"}


def _data_parameters(func):
    return DATA_PARAMETERS.get(func.__name__, ["y_true", "y_prob"])


def _valid_arguments(func):
    """Keyword arguments of a valid call of ``func`` on the small problem."""
    data = {name: Y_PROB for name in _data_parameters(func)[1:]}
    return {"y_true": Y_TRUE, **data, **REQUIRED_KWARGS.get(func.__name__, {})}


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
    return [
        (func, param.name)
        for func in PUBLIC_FUNCTIONS
        for param in _parameters(func)
        if _is_array_parameter(func, param.name) == arrays
    ]


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
    """Check that y_true and the probabilities are the first, positional, parameters."""
    params = _parameters(func)
    names = _data_parameters(func)
    assert [p.name for p in params[: len(names)]] == names
    assert all(name.startswith("y_prob") for name in names[1:])
    for param in params[: len(names)]:
        assert param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert param.default is inspect.Parameter.empty


@parametrize_functions
def test_parameters_after_y_prob_are_keyword_only(func):
    """Check that every parameter after the data is keyword-only."""
    params = _parameters(func)
    n_data = len(_data_parameters(func))
    assert len(params) > n_data
    not_keyword_only = [
        p.name for p in params[n_data:] if p.kind is not inspect.Parameter.KEYWORD_ONLY
    ]
    assert not_keyword_only == []


@parametrize_functions
@pytest.mark.parametrize("name", SHARED_KEYWORDS)
def test_shared_keywords_default_to_none(func, name):
    """Check that the shared data keywords are present and default to None."""
    params = inspect.signature(func).parameters
    assert name in params
    if name == "groups" and func.__name__ in GROUPS_REQUIRED:
        assert params[name].default is inspect.Parameter.empty
    else:
        assert params[name].default is None


@pytest.mark.parametrize("func, param, value", _invalid_value_cases())
def test_invalid_parameter_rejected(func, param, value):
    """Check that an invalid hyper-parameter raises InvalidParameterError."""
    with pytest.raises(
        InvalidParameterError,
        match=rf"The '{param}' parameter of {func.__name__} must be",
    ):
        func(**{**_valid_arguments(func), param: value})


@pytest.mark.parametrize(
    "func, param",
    [pytest.param(f, p, id=f"{f.__name__}-{p}") for f, p in _param_cases(arrays=True)],
)
def test_non_array_like_rejected(func, param):
    """Check that a non-array-like data argument raises InvalidParameterError."""
    kwargs = {**_valid_arguments(func), param: _BadType()}
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
        bad_data = {name: [0.5, 2.0, float("nan")] for name in _data_parameters(func)}
        arguments = {**_valid_arguments(func), **bad_data, "y_true": [0, 1]}
        func(**arguments, pos_label=_BadType())


def _resampling_entry_points():
    """Every public function, method and estimator that takes ``n_bootstrap``."""
    import skcal.calibration
    import skcal.model_selection
    import skcal.plotting

    found = []
    for module in (
        skcal.metrics,
        skcal.model_selection,
        skcal.plotting,
        skcal.calibration,
    ):
        for name in module.__all__:
            obj = getattr(module, name)
            candidates = [obj]
            if inspect.isclass(obj):
                candidates = [
                    obj.__init__,
                    *(getattr(obj, m) for m in dir(obj) if m.startswith("from_")),
                ]
            for func in candidates:
                parameters = inspect.signature(func).parameters
                # A result object records its number (no default); 0 means
                # that nothing is resampled unless asked.
                default = getattr(parameters.get("n_bootstrap"), "default", None)
                if default not in (None, 0, inspect.Parameter.empty):
                    found.append(
                        (
                            f"{module.__name__}.{getattr(func, '__qualname__', name)}",
                            parameters["n_bootstrap"].default,
                        )
                    )
    return found


def test_one_default_number_of_resamples():
    """Check that every entry point that resamples by default uses N_BOOTSTRAP.

    The command line's defaults are checked in tests/cli/test_arguments.py.
    """
    from skcal._utils._bootstrap import N_BOOTSTRAP

    found = _resampling_entry_points()
    assert len(found) >= 8
    wrong = {name: default for name, default in found if default != N_BOOTSTRAP}
    assert not wrong


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.filterwarnings("ignore:Exact grouping:UserWarning")
def test_one_brier_score(n_classes, tmp_path, capsys):
    """Check that everything named Brier is sklearn.metrics.brier_score_loss.

    Functions, the sharpness curve and Display, cross-validation and the
    command line's report, on the same binary and multiclass data.
    """
    import numpy as np
    from sklearn.metrics import brier_score_loss
    from sklearn.naive_bayes import GaussianNB

    from skcal.metrics import (
        calibration_decomposition,
        calibration_sharpness_curve,
        kernel_calibration_error,
        recalibration_improvement,
    )
    from skcal.model_selection import cross_val_calibration
    from skcal.plotting import CalibrationSharpnessDisplay
    from tests.cli._helpers import printed, run

    rng = np.random.RandomState(0)
    y_prob = rng.dirichlet(np.ones(n_classes), size=300)
    y_true = np.array([rng.choice(n_classes, p=row) for row in y_prob])
    if n_classes == 2:
        y_prob = y_prob[:, 1]
    expected = brier_score_loss(y_true, y_prob)
    full = dict(reduction="full")
    got = {
        "decomposition": calibration_decomposition(y_true, y_prob, **full).score,
        "improvement": recalibration_improvement(y_true, y_prob, y_prob).score_before,
        "kernel total": kernel_calibration_error(
            y_true, y_prob, return_sharpness=True
        ).total_loss,
        "sharpness curve": calibration_sharpness_curve(y_true, y_prob).total_loss,
        "sharpness display": CalibrationSharpnessDisplay.from_predictions(
            y_true, y_prob
        ).total_loss,
    }
    path = tmp_path / "predictions.npz"
    columns = y_prob[:, None] if n_classes == 2 else y_prob
    np.savez(path, y=y_true, p=columns)
    status, out, _ = run(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--n-bootstrap", "5"
    )
    assert status == 0
    got["report"] = printed(out, "brier_score_loss")
    for name, value in got.items():
        rounding = 5e-5 if name == "report" else 1e-12
        assert value == pytest.approx(expected, abs=rounding, rel=1e-10), name
    X = rng.normal(size=(300, 3))
    X[:, 0] += y_true
    cv = cross_val_calibration(
        GaussianNB(), X, y_true, metrics=["brier_score_loss"], n_bootstrap=0
    )
    assert cv.value["brier_score_loss"] == pytest.approx(
        brier_score_loss(cv.y_true, cv.y_prob, labels=cv.classes), rel=1e-12
    )


def _assert_same_result(result, expected):
    """Equal floats and arrays, recursively through tuples, dicts and objects."""
    if isinstance(expected, dict):
        assert result.keys() == expected.keys()
        for key in expected:
            _assert_same_result(result[key], expected[key])
    elif isinstance(expected, (tuple, list)):
        assert len(result) == len(expected)
        for a, b in zip(result, expected, strict=True):
            _assert_same_result(a, b)
    elif isinstance(expected, np.ndarray) and expected.dtype.kind in "USOb":
        np.testing.assert_array_equal(result, expected)
    elif isinstance(expected, (float, np.floating, np.ndarray)):
        np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-15)
    elif hasattr(expected, "__dict__"):
        _assert_same_result(vars(result), vars(expected))
    else:
        assert result == expected


def _float32_cases():
    """(function, keywords): every measure under each multiclass reduction."""
    cases = []
    for func in PUBLIC_FUNCTIONS:
        parameters = inspect.signature(func).parameters
        kwargs = dict(REQUIRED_KWARGS.get(func.__name__, {}))
        kwargs.update(
            {name: 0 for name in ("random_state",) if name in parameters}
            | {name: 30 for name in ("n_bootstrap",) if name in parameters}
        )
        reductions = [None]
        if "reduction" in parameters:
            (options,) = func._skcal_parameter_constraints["reduction"]
            reductions = sorted(options.options - {"auto"})
        for reduction in reductions:
            extra = {} if reduction is None else {"reduction": reduction}
            if reduction == "positive":
                extra["pos_label"] = 1
            cases.append(
                pytest.param(func, kwargs | extra, id=f"{func.__name__}-{reduction}")
            )
    return cases


@pytest.mark.parametrize("func, kwargs", _float32_cases())
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_float32_matrix_gives_the_value_of_its_float64_cast(func, kwargs):
    """Check that a float32 matrix, read without a float64 copy, changes nothing.

    The validated matrix stays float32 (the reductions cast the column they
    take); every measure must give what it gives on the float64 cast.
    """
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(80, 3))
    y_prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y_prob = y_prob.astype(np.float32)
    y_true = rng.integers(0, 3, size=80)
    if func.__name__ in GROUPS_REQUIRED:
        kwargs = {**kwargs, "groups": {"g": np.arange(80) % 2}, "min_samples": 10}
    data = [y_prob] * (len(_data_parameters(func)) - 1)
    expected = func(y_true, *[p.astype(np.float64) for p in data], **kwargs)
    _assert_same_result(func(y_true, *data, **kwargs), expected)


@pytest.mark.parametrize(
    "func, kwargs",
    # The audit's groups are its subject (tests/metrics/test_audit.py).
    [c for c in _float32_cases() if c.values[0].__name__ not in GROUPS_REQUIRED],
)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_groups_give_the_answer_of_each_group(func, kwargs):
    """Check that ``groups=`` gives the function's answer on each group's rows.

    The third group lacks class 2: it keeps the columns of all the rows.
    Groups of zero weight are left out; the sizes and weights are the
    group's.
    """
    from skcal.metrics import GroupedResult

    rng = np.random.default_rng(1)
    y_prob = rng.dirichlet(np.ones(3), size=120)
    y_true = rng.integers(0, 3, size=120)
    groups = np.array(["north", "south", "east", "west"])[rng.integers(0, 4, 120)]
    y_true[groups == "east"] = rng.integers(0, 2, size=int((groups == "east").sum()))
    weight = rng.uniform(0.5, 2.0, size=120)
    weight[groups == "west"] = 0.0
    data = [y_prob] * (len(_data_parameters(func)) - 1)
    result = func(y_true, *data, sample_weight=weight, groups=groups, **kwargs)
    assert isinstance(result, GroupedResult)
    assert result.groups.tolist() == ["east", "north", "south"]
    for group, answer, size, total in zip(
        result.groups, result.results, result.n_samples, result.weight, strict=True
    ):
        rows = groups == group
        assert size == rows.sum()
        assert total == pytest.approx(weight[rows].sum(), rel=1e-12)
        expected = func(
            y_true[rows],
            *[p[rows] for p in data],
            sample_weight=weight[rows],
            labels=[0, 1, 2],
            **kwargs,
        )
        _assert_same_result(answer, expected)
    _assert_same_result(
        result.overall, func(y_true, *data, sample_weight=weight, **kwargs)
    )


_BAD_GROUPS = [
    ([0, 1, 0], "groups has 3 entries but there are 4 samples"),
    ([0, None, 1, 1], r"groups contains 1 missing value\(s\)"),
    ([0.0, float("nan"), 1.0, 1.0], r"groups contains 1 NaN"),
    ([[0, 1], [1, 0], [0, 1], [1, 0]], "groups must be 1-D"),
    ([0, "a", 0, "a"], "groups mixes labels of types that cannot be compared"),
]


@pytest.mark.parametrize(
    "func, groups, message",
    [
        pytest.param(func, groups, message, id=f"{func.__name__}-{i}")
        for func in PUBLIC_FUNCTIONS
        for i, (groups, message) in enumerate(_BAD_GROUPS)
        # A 2-D array is several grouping columns of the audit, not an error.
        if not (func.__name__ in GROUPS_REQUIRED and np.ndim(groups) == 2)
    ],
)
def test_bad_groups_rejected(func, groups, message):
    """Check that every function rejects bad group labels with the contract's words."""
    with pytest.raises((ValueError, TypeError), match=message):
        func(**{**_valid_arguments(func), "groups": groups})
