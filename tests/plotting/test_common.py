"""Checks shared by every Display of :func:`skcal.discovery.all_displays`.

Each Display draws numbers computed by public functions of
:mod:`skcal.metrics`; its ``from_estimator`` and ``from_cv_results`` have the
options of its ``from_predictions`` (minus ``labels``); every parameter is
validated; the constructor only stores. A new Display is picked up by the
parametrization through ``all_displays()``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from numpydoc.docscrape import NumpyDocString
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_validate

import skcal.plotting
from skcal._param_validation import InvalidParameterError
from skcal.discovery import all_displays
from skcal.metrics import (
    calibration_sharpness_curve,
    expected_calibration_error,
    reliability_table,
    smooth_reliability_curve,
)
from skcal.model_selection import cross_val_calibration
from skcal.plotting import (
    BinnedReliabilityDisplay,
    CalibrationSharpnessDisplay,
    SmoothReliabilityDisplay,
)

# The Displays of views of predictions (binary, top-label, classwise);
# SampleSizeDisplay, a curve over evaluation-set sizes, and the diagrams of
# regression have their own tests (tests/plotting/test_sample_size.py,
# tests/plotting/test_regression.py).
OTHER_DISPLAYS = {
    "MeanReliabilityDisplay",
    "PITHistogramDisplay",
    "QuantileReliabilityDisplay",
    "SampleSizeDisplay",
}
DISPLAYS = [(n, D) for n, D in all_displays() if n not in OTHER_DISPLAYS]

# Options that keep each Display fast in the common tests.
FAST_OPTIONS = {
    "BinnedReliabilityDisplay": {"n_bins": 10},
    "CalibrationSharpnessDisplay": {},
    "SmoothReliabilityDisplay": {"n_bootstrap": 20, "random_state": 0},
}

# Each Display, with its fast options; ids are the class names.
DISPLAY_PARAMS = [
    pytest.param(Display, FAST_OPTIONS.get(name, {}), id=name)
    for name, Display in DISPLAYS
]
BINNED_BOOTSTRAP = pytest.param(
    BinnedReliabilityDisplay,
    {"interval": "bootstrap", "n_bootstrap": 20, "random_state": 0},
    id="BinnedReliabilityDisplay-bootstrap",
)

# Non-default options of each Display's numbers, for the check that they reach
# the public function.
OPTION_CASES = {
    "BinnedReliabilityDisplay": [
        {"n_bins": 7, "strategy": "quantile", "confidence_level": 0.8},
        {
            "n_bins": 5,
            "interval": "bootstrap",
            "n_bootstrap": 15,
            "confidence_level": 0.8,
            "random_state": 3,
        },
        {"interval": None, "n_bins": "cube_root"},
    ],
    "CalibrationSharpnessDisplay": [
        {"loss": "log", "kernel": "epanechnikov", "bandwidth": 0.1, "n_points": 51},
        {"bandwidth": 0.02, "n_points": 301},
    ],
    "SmoothReliabilityDisplay": [
        {"n_bootstrap": 0},
        {
            "sigma": 0.1,
            "n_points": 51,
            "n_bootstrap": 10,
            "confidence_level": 0.8,
            "random_state": 3,
        },
        {"eps": 1e-2, "n_bootstrap": 5, "random_state": np.random.RandomState(7)},
    ],
}


def _sharpness_support(
    y_true,
    y_prob,
    *,
    sample_weight=None,
    pos_label=None,
    labels=None,
    reduction="auto",
    kernel="gaussian",
    bandwidth=0.05,
    n_points=201,
):
    """Where the predictions of a calibration-sharpness diagram are.

    The public function it calls, at the standard deviation of the kernel.
    """
    scale = bandwidth if kernel == "gaussian" else bandwidth / np.sqrt(5.0)
    return smooth_reliability_curve(
        y_true,
        y_prob,
        sample_weight=sample_weight,
        pos_label=pos_label,
        labels=labels,
        reduction=reduction,
        sigma=max(scale, 1e-4),
        n_points=n_points,
    )


# The public functions behind each Display: for each, which attribute holds
# which key of its result (None: the whole result).
PUBLIC_NUMBERS = {
    "BinnedReliabilityDisplay": [
        (reliability_table, {"table": None}),
        (expected_calibration_error, {"ece": None}),
    ],
    "CalibrationSharpnessDisplay": [
        (
            calibration_sharpness_curve,
            {
                "grid": "grid",
                "curve": "calibration",
                "density": "density",
                "sharpness_gap": "sharpness_gap",
                "band_low": "band_low",
                "band_high": "band_high",
                "calibration_error": "calibration_error",
                "total_loss": "total_loss",
                "constant_prediction": "constant_prediction",
            },
        ),
        (
            _sharpness_support,
            {
                "n_effective": "n_effective",
                "mean_prediction": "mean_prediction",
                "prediction_range": "prediction_range",
            },
        ),
    ],
    "SmoothReliabilityDisplay": [
        (
            smooth_reliability_curve,
            {
                "grid": "grid",
                "curve": "calibration",
                "density": "density",
                "n_effective": "n_effective",
                "mean_prediction": "mean_prediction",
                "prediction_range": "prediction_range",
                "sigma": "sigma",
                "smooth_ece": "smooth_ece",
                "band_low": "band_low",
                "band_high": "band_high",
                "smooth_ece_interval": "smooth_ece_interval",
            },
        )
    ],
}

# Constructor parameters that describe the view or its options, not numbers.
DESCRIPTIVE = {
    "reduction",
    "classes",
    "name",
    "pos_label",
    "loss",
    "kernel",
    "bandwidth",
    "interval",
    "confidence_level",
    # A diagram by group: the labels of its panels and their numbers of rows.
    "groups",
    "group_sizes",
}

# Constructor parameters holding another Display: the smooth diagram's binned
# fallback, checked in test_smooth_reliability.py.
NESTED = {"binned"}

# Parameters of from_predictions that from_estimator and from_cv_results fill.
FILLED = ("y_true", "y_prob", "labels")

# Invalid values of the options of from_predictions, from_estimator and
# from_cv_results: the parameter each one names.
INVALID_OPTIONS = {
    "common": [
        ("reduction", "mean"),
        ("sample_weight", "heavy"),
        ("name", 3),
        ("ax", "left"),
        ("ref_line", "yes"),
        ("line_kwargs", ["red"]),
        ("ref_line_kwargs", "black"),
    ],
    "BinnedReliabilityDisplay": [
        ("n_bins", 0),
        ("strategy", "kmeans"),
        ("interval", "exact"),
        ("confidence_level", 1.0),
        ("n_bootstrap", 0),
        ("random_state", "seed"),
        ("show_counts", 1),
        ("errorbar_kwargs", "red"),
        ("hist_kwargs", 0.5),
    ],
    "CalibrationSharpnessDisplay": [
        ("reduction", "classwise"),
        ("loss", "hinge"),
        ("kernel", "box"),
        ("bandwidth", 0.0),
        ("n_points", 1),
        ("show_density", 1),
        ("band_kwargs", "red"),
        ("density_kwargs", ("red",)),
        ("min_effective_count", -1),
    ],
    "SmoothReliabilityDisplay": [
        ("min_effective_count", -1),
        ("fallback", "smooth"),
        ("sigma", 0.0),
        ("sigma", "scott"),
        ("eps", 1.0),
        ("n_points", 1),
        ("n_bootstrap", -1),
        ("confidence_level", 0.0),
        ("random_state", "seed"),
        ("band_kwargs", "red"),
    ],
}

# Invalid values of the options of plot.
INVALID_PLOT = {
    "common": [
        ("name", 3),
        ("ax", "left"),
        ("ref_line", "yes"),
        ("line_kwargs", ["red"]),
        ("ref_line_kwargs", "black"),
    ],
    "BinnedReliabilityDisplay": [
        ("show_counts", 1),
        ("errorbar_kwargs", "red"),
        ("hist_kwargs", 0.5),
    ],
    "CalibrationSharpnessDisplay": [
        ("show_density", 1),
        ("band_kwargs", "red"),
        ("density_kwargs", ("red",)),
    ],
    "SmoothReliabilityDisplay": [
        ("band_kwargs", "red"),
        ("min_effective_count", "ten"),
        ("fallback", "auto"),
    ],
}


def _invalid_cases(table, methods):
    return [
        pytest.param(
            Display,
            method,
            parameter,
            value,
            id=f"{name}-{method}-{parameter}-{value!r}",
        )
        for name, Display in DISPLAYS
        for parameter, value in table["common"] + table.get(name, [])
        for method in methods
    ]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _data(rng, n=300, n_classes=2):
    """Features and labels with a signal, for fitting a small classifier."""
    X = rng.normal(size=(n, 3))
    if n_classes == 2:
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    else:
        y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [-0.5, 0.5])
    return X, y


def _predictions(rng, problem, n=400):
    """``(y_true, y_prob, sample_weight, view options)`` of a named problem."""
    if problem in ("binary", "weighted"):
        y_prob = rng.beta(2.0, 3.0, size=n)
        y_true = (rng.uniform(size=n) < y_prob**1.5).astype(int)
        weights = rng.uniform(0.2, 3.0, size=n) if problem == "weighted" else None
        return y_true, y_prob, weights, {}
    y_prob = rng.dirichlet(np.full(3, 0.7), size=n)
    y_true = np.array([rng.choice(3, p=row**2 / (row**2).sum()) for row in y_prob])
    labels = np.array(["ant", "bee", "cat"])
    view = {"pos_label": "cat"} if problem == "one-vs-rest" else {}
    return labels[y_true], y_prob, None, view


def _constructor_parameters(Display):
    """Names of the constructor's parameters (the stored attributes)."""
    parameters = inspect.signature(Display.__init__).parameters
    return [name for name in parameters if name != "self"]


def _assert_same_values(left, right, where):
    """Recursive comparison of stored numbers: arrays, floats, tuples, tables.

    Equal to rounding: a binary view's other column is rebuilt as ``1 - p``.
    """
    if left is None or right is None:
        assert left is None and right is None, where
    elif isinstance(left, dict):
        assert isinstance(right, dict), where
        assert set(left) == set(right), where
        for key in left:
            _assert_same_values(left[key], right[key], f"{where}[{key!r}]")
    elif isinstance(left, (list, tuple)):
        assert isinstance(right, (list, tuple)) and len(left) == len(right), where
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            _assert_same_values(a, b, f"{where}[{index}]")
    elif isinstance(left, str) or np.asarray(left).dtype.kind in "OUSb":
        assert_array_equal(left, right, err_msg=where)
    else:
        assert_allclose(
            np.asarray(left, dtype=np.float64),
            np.asarray(right, dtype=np.float64),
            rtol=1e-10,
            atol=1e-12,
            equal_nan=True,
            err_msg=where,
        )


def _assert_same_numbers(a, b):
    """Check that two displays store the same numbers of the same view."""
    assert type(a) is type(b)
    for name in _constructor_parameters(type(a)):
        if name not in ("name", "pos_label"):
            _assert_same_values(getattr(a, name), getattr(b, name), name)


def _expected_numbers(Display, y_true, y_prob, options, views):
    """The numbers of each view, computed by calling the public functions.

    The arguments are those of ``from_predictions`` (its defaults updated
    with ``options``) that the public function takes; one ``RandomState`` is
    shared by the views in order, as a seed passed to the Display is.
    """
    arguments = {
        name: p.default
        for name, p in inspect.signature(Display.from_predictions).parameters.items()
    }
    arguments.update(options)
    if "random_state" in arguments and not isinstance(
        arguments["random_state"], np.random.RandomState
    ):
        arguments["random_state"] = np.random.RandomState(arguments["random_state"])
    found = []
    for view in views:
        numbers = {}
        for function, fields in PUBLIC_NUMBERS[Display.__name__]:
            accepted = inspect.signature(function).parameters
            kwargs = {
                k: v
                for k, v in arguments.items()
                if k in accepted and k not in ("y_true", "y_prob", "reduction")
            }
            kwargs.update(view)
            result = function(y_true, y_prob, **kwargs)
            for attribute, key in fields.items():
                numbers[attribute] = result if key is None else result[key]
        found.append(numbers)
    return found


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _panel_titles(display):
    """The first line of each panel's title (the class; the measures follow)."""
    return [ax.get_title().split("\n")[0] for ax in display.axes_]


def _docstring_parameters(obj):
    """Names listed in the Parameters section of a numpydoc docstring."""
    doc = NumpyDocString(inspect.getdoc(obj))
    return [name for entry in doc["Parameters"] for name in entry.name.split(", ")]


@pytest.fixture(scope="module")
def fitted():
    """A small fitted classifier with its data, and cross_validate results."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=120)
    clf = LogisticRegression().fit(X, y)
    results = cross_validate(
        LogisticRegression(), X, y, cv=3, return_estimator=True, return_indices=True
    )
    return clf, X, y, results


# ---------------------------------------------------------------------------
# The list of Displays
# ---------------------------------------------------------------------------


def test_all_displays_lists_the_displays():
    """Check that all_displays lists the public Displays, each with options here."""
    names = [name for name, _ in DISPLAYS]
    assert names == [
        "BinnedReliabilityDisplay",
        "CalibrationSharpnessDisplay",
        "SmoothReliabilityDisplay",
    ]
    assert set(names) | OTHER_DISPLAYS == set(skcal.plotting.__all__)
    for name, Display in DISPLAYS:
        assert getattr(skcal.plotting, name) is Display
    # Every Display has its public functions and test options listed here.
    assert set(names) == set(PUBLIC_NUMBERS) == set(FAST_OPTIONS) == set(OPTION_CASES)


# ---------------------------------------------------------------------------
# The numbers come from the public functions of skcal.metrics
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("problem", ["binary", "weighted", "multiclass", "one-vs-rest"])
@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_numbers_are_the_public_functions(
    pyplot, global_random_seed, Display, options, problem
):
    """Check that every number a Display stores is a public function's output."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob, weights, view = _predictions(rng, problem)
    display = Display.from_predictions(
        y_true, y_prob, sample_weight=weights, **view, **options
    )
    (expected,) = _expected_numbers(
        Display, y_true, y_prob, {"sample_weight": weights, **options}, [view]
    )
    # Every stored number is accounted for by a public function.
    numeric = set(_constructor_parameters(Display)) - DESCRIPTIVE - NESTED
    assert set(expected) == numeric
    for attribute, value in expected.items():
        _assert_same_values(getattr(display, attribute), value, attribute)
    reduction = "positive" if problem != "multiclass" else "top_label"
    assert display.reduction == reduction
    assert (
        display.pos_label
        == {
            "binary": 1,
            "weighted": 1,
            "multiclass": None,
            "one-vs-rest": "cat",
        }[problem]
    )


@pytest.mark.parametrize(
    "Display, options",
    [
        pytest.param(Display, options, id=f"{name}-{index}")
        for name, Display in DISPLAYS
        for index, options in enumerate(OPTION_CASES[name])
    ],
)
def test_options_reach_the_public_functions(
    pyplot, global_random_seed, Display, options
):
    """Check that non-default options give the public functions' numbers."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob, _, _ = _predictions(rng, "multiclass", n=300)
    seed = options.get("random_state")
    if isinstance(seed, np.random.RandomState):
        # Two copies of the same stream: one for the Display, one for the check.
        state = seed.get_state()
        copy = np.random.RandomState()
        copy.set_state(state)
        options = {**options, "random_state": copy}
        expected_options = {**options, "random_state": seed}
    else:
        expected_options = options
    display = Display.from_predictions(y_true, y_prob, **options)
    (expected,) = _expected_numbers(Display, y_true, y_prob, expected_options, [{}])
    for attribute, value in expected.items():
        _assert_same_values(getattr(display, attribute), value, attribute)


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_classwise_draws_one_view_per_class(
    pyplot, global_random_seed, Display, options
):
    """Check that classwise calls the public function once per class, in order.

    A Display whose ``reduction`` accepts ``"classwise"`` stores one entry per
    class: the public function's one-vs-rest numbers of that class, computed
    in class order from one random stream. The others reject it.
    """
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob, _, _ = _predictions(rng, "multiclass", n=300)
    reduction_type = next(
        entry.type
        for entry in NumpyDocString(inspect.getdoc(Display.from_predictions))[
            "Parameters"
        ]
        if entry.name == "reduction"
    )
    if "classwise" not in reduction_type:
        with pytest.raises(InvalidParameterError, match="'reduction' parameter"):
            Display.from_predictions(y_true, y_prob, reduction="classwise", **options)
        return
    display = Display.from_predictions(y_true, y_prob, reduction="classwise", **options)
    classes = np.array(["ant", "bee", "cat"])
    assert_array_equal(display.classes, classes)
    views = [{"pos_label": c, "reduction": "positive"} for c in classes]
    expected = _expected_numbers(Display, y_true, y_prob, options, views)
    for attribute in expected[0]:
        stored = getattr(display, attribute)
        assert isinstance(stored, list) and len(stored) == 3, attribute
        _assert_same_values(stored, [e[attribute] for e in expected], attribute)
    assert display.axes_.shape == (3,) and display.ax_ is display.axes_
    assert len(display.line_) == len(display.ref_line_) == 3
    for ax, line in zip(display.axes_, display.line_, strict=True):
        assert line.axes is ax


@pytest.mark.parametrize(
    "Display, options",
    [p for p in DISPLAY_PARAMS if p.values[0] is not CalibrationSharpnessDisplay],
)
def test_binary_classwise_follows_column_order(pyplot, Display, options):
    """Check that a binary classwise diagram follows the columns of y_prob.

    The calibration-sharpness diagram has no classwise view (checked in
    test_classwise_draws_one_view_per_class).
    """
    rng = np.random.RandomState(0)
    y_prob = rng.beta(2.0, 3.0, size=300)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    display = Display.from_predictions(y_true, y_prob, reduction="classwise", **options)
    assert_array_equal(display.classes, [0, 1])
    # A 1-D y_prob is the probability of pos_label: each view of the public
    # function gets both columns.
    views = [{"pos_label": c, "reduction": "positive"} for c in (0, 1)]
    columns = np.column_stack([1.0 - y_prob, y_prob])
    expected = _expected_numbers(Display, y_true, columns, options, views)
    for attribute in expected[0]:
        _assert_same_values(
            getattr(display, attribute), [e[attribute] for e in expected], attribute
        )
    assert _panel_titles(display) == ["Class 0", "Class 1"]
    # With the columns in the order of labels=[1, 0], class 1 comes first.
    matrix = np.column_stack([y_prob, 1.0 - y_prob])
    swapped = Display.from_predictions(
        y_true, matrix, labels=[1, 0], reduction="classwise", **options
    )
    assert_array_equal(swapped.classes, [1, 0])
    assert _panel_titles(swapped) == ["Class 1", "Class 0"]
    expected = _expected_numbers(
        Display, y_true, matrix, {**options, "labels": [1, 0]}, views[::-1]
    )
    for attribute in expected[0]:
        _assert_same_values(
            getattr(swapped, attribute), [e[attribute] for e in expected], attribute
        )


# ---------------------------------------------------------------------------
# from_estimator and from_cv_results
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_generated_constructors_have_the_options_of_from_predictions(Display, options):
    """Check that from_estimator and from_cv_results take from_predictions' options."""
    predictions = inspect.signature(Display.from_predictions).parameters
    assert list(predictions)[:2] == ["y_true", "y_prob"]
    shared = [p for name, p in predictions.items() if name not in FILLED]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in shared)
    empty = inspect.Parameter.empty
    heads = {
        "from_estimator": [("estimator", empty), ("X", empty), ("y", empty)],
        "from_cv_results": [("cv_results", empty), ("X", None), ("y", None)],
    }
    for method, head in heads.items():
        parameters = list(
            inspect.signature(getattr(Display, method)).parameters.values()
        )
        assert [(p.name, p.default) for p in parameters[:3]] == head, method
        assert all(
            p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters[:3]
        )
        # Same names, kinds and defaults, in the same order.
        assert parameters[3:] == shared, method


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_unknown_keyword_arguments_are_rejected(pyplot, fitted, Display, options):
    """Check that no constructor accepts an unknown keyword, nor labels when filled."""
    clf, X, y, results = fitted
    y_prob = clf.predict_proba(X)[:, 1]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Display.from_predictions(y, y_prob, colour="red")
    for call in (
        lambda **kw: Display.from_estimator(clf, X, y, **kw),
        lambda **kw: Display.from_cv_results(results, X, y, **kw),
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
            call(colour="red")
        with pytest.raises(TypeError, match="unexpected keyword argument 'labels'"):
            call(labels=[0, 1])
        with pytest.raises(TypeError, match="unexpected keyword argument 'y_prob'"):
            call(y_prob=y_prob)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Display.from_predictions(y, y_prob).plot(colour="red")


@pytest.mark.parametrize(
    "method", ["from_predictions", "from_estimator", "from_cv_results", "plot"]
)
@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_method_docstrings_list_exactly_their_parameters(Display, options, method):
    """Check that each method's docstring documents its parameters, in order."""
    function = getattr(Display, method)
    signature = [
        name
        for name in inspect.signature(function).parameters
        if name not in ("self", "cls")
    ]
    assert _docstring_parameters(function) == signature
    doc = NumpyDocString(inspect.getdoc(function))
    (returned,) = doc["Returns"]
    assert returned.type == Display.__name__
    assert doc["Summary"] and doc["Summary"][0].endswith(".")


# The artists that plot stores (the attributes ending in "_").
@pytest.mark.parametrize(
    "Display, options",
    [p for p in DISPLAY_PARAMS],
)
def test_class_docstring_lists_parameters_and_attributes(pyplot, Display, options):
    """Check that the class docstring lists the constructor's parameters and artists."""
    assert _docstring_parameters(Display) == _constructor_parameters(Display)
    rng = np.random.RandomState(0)
    y_prob = rng.uniform(size=100)
    y_true = (rng.uniform(size=100) < y_prob).astype(int)
    display = Display.from_predictions(y_true, y_prob, **options)
    artists = sorted(k for k in vars(display) if k.endswith("_"))
    documented = NumpyDocString(inspect.getdoc(Display))["Attributes"]
    assert sorted(entry.name for entry in documented) == artists


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("Display, options", [*DISPLAY_PARAMS, BINNED_BOOTSTRAP])
def test_from_estimator_matches_from_predictions(
    pyplot, global_random_seed, Display, options, n_classes
):
    """Check that from_estimator draws predict_proba through from_predictions."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n_classes=n_classes)
    clf = LogisticRegression().fit(X, y)
    proba = clf.predict_proba(X)
    y_prob = proba[:, 1] if n_classes == 2 else proba
    from_estimator = Display.from_estimator(clf, X, y, **options)
    from_predictions = Display.from_predictions(y, y_prob, **options)
    _assert_same_numbers(from_estimator, from_predictions)
    assert from_estimator.name == "LogisticRegression"
    assert from_predictions.name is None
    assert "LogisticRegression" in _legend_texts(from_estimator.ax_)[0]
    # A name given wins over the class name.
    named = Display.from_estimator(clf, X, y, name="mine", **options)
    assert named.name == "mine" and "mine" in _legend_texts(named.ax_)[0]


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_estimator_pos_label(pyplot, global_random_seed, Display, options):
    """Check that pos_label picks the estimator's column of that class."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng)
    labels = np.array(["no", "yes"])[y]
    clf = LogisticRegression().fit(X, labels)
    display = Display.from_estimator(clf, X, labels, pos_label="no", **options)
    expected = Display.from_predictions(
        labels == "no", clf.predict_proba(X)[:, 0], **options
    )
    _assert_same_numbers(display, expected)
    assert display.pos_label == "no"
    assert "positive class: no" in display.ax_.get_xlabel()


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_cv_results_pools_out_of_fold_predictions(
    pyplot, global_random_seed, Display, options
):
    """Check that from_cv_results draws the pooled out-of-fold predictions."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=240, n_classes=3)
    cv = KFold(3, shuffle=True, random_state=global_random_seed)
    results = cross_validate(
        LogisticRegression(), X, y, cv=cv, return_estimator=True, return_indices=True
    )
    display = Display.from_cv_results(results, X, y, **options)
    tests = results["indices"]["test"]
    manual_true = np.concatenate([y[t] for t in tests])
    manual_prob = np.vstack(
        [
            est.predict_proba(X[t])
            for est, t in zip(results["estimator"], tests, strict=True)
        ]
    )
    expected = Display.from_predictions(manual_true, manual_prob, **options)
    _assert_same_numbers(display, expected)
    assert display.name == "LogisticRegression"


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_cv_results_fold_missing_a_class(pyplot, Display, options):
    """Check that a fold whose model lacks a class gets a zero column for it."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    X[:, 0] += y
    # The first model never sees class 0, the second never sees class 2.
    rows = np.arange(90)
    cv = [(rows[30:], rows[:30]), (rows[:60], rows[60:])]
    results = cross_validate(
        LogisticRegression(), X, y, cv=cv, return_estimator=True, return_indices=True
    )
    display = Display.from_cv_results(results, X, y, **options)
    est_a, est_b = results["estimator"]
    manual = np.zeros((60, 3))
    manual[:30, 1:] = est_a.predict_proba(X[:30])
    manual[30:, :2] = est_b.predict_proba(X[60:])
    expected = Display.from_predictions(
        np.r_[y[:30], y[60:]], manual, labels=[0, 1, 2], **options
    )
    _assert_same_numbers(display, expected)


@pytest.fixture(scope="module")
def weighted_cv_result():
    """A weighted cross_val_calibration result, computed once."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=200)
    weights = rng.uniform(0.5, 2.0, size=200)
    result = cross_val_calibration(
        LogisticRegression(), X, y, sample_weight=weights, n_bootstrap=0, cv=4
    )
    return result, weights


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_cv_results_of_cross_val_calibration(
    pyplot, weighted_cv_result, Display, options
):
    """Check that a cross_val_calibration result is drawn from its pooled rows."""
    result, weights = weighted_cv_result
    display = Display.from_cv_results(result, **options)
    expected = Display.from_predictions(
        result.y_true, result.y_prob[:, 1], sample_weight=weights, **options
    )
    _assert_same_numbers(display, expected)
    assert display.name == "LogisticRegression"


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_cv_results_errors(pyplot, Display, options):
    """Check the errors of from_cv_results on unusable inputs."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=60)
    results = cross_validate(LogisticRegression(), X, y, cv=3)
    with pytest.raises(ValueError, match="return_estimator=True, return_indices"):
        Display.from_cv_results(results, X, y, **options)
    results = cross_validate(
        LogisticRegression(), X, y, cv=3, return_estimator=True, return_indices=True
    )
    with pytest.raises(ValueError, match="X and y"):
        Display.from_cv_results(results, **options)
    with pytest.raises(TypeError, match="cv_results must be"):
        Display.from_cv_results([1, 2], X, y, **options)


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_estimator_errors(pyplot, Display, options):
    """Check the errors on unfitted models, no predict_proba and a bad pos_label."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=60)
    with pytest.raises(TypeError, match="predict_proba"):
        Display.from_estimator(object(), X, y, **options)
    with pytest.raises(Exception, match="not fitted"):
        Display.from_estimator(LogisticRegression(), X, y, **options)
    clf = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="pos_label=7 is not among the classes"):
        Display.from_estimator(clf, X, y, pos_label=7, **options)


# ---------------------------------------------------------------------------
# Parameter and data validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "Display, method, parameter, value",
    _invalid_cases(
        INVALID_OPTIONS, ["from_predictions", "from_estimator", "from_cv_results"]
    ),
)
def test_invalid_parameters(pyplot, fitted, Display, method, parameter, value):
    """Check that invalid options raise InvalidParameterError naming them."""
    clf, X, y, results = fitted
    call = {
        "from_predictions": lambda **kw: Display.from_predictions(
            y, clf.predict_proba(X)[:, 1], **kw
        ),
        "from_estimator": lambda **kw: Display.from_estimator(clf, X, y, **kw),
        "from_cv_results": lambda **kw: Display.from_cv_results(results, X, y, **kw),
    }[method]
    match = f"The '{parameter}' parameter of {Display.__name__}\\.{method} "
    with pytest.raises(InvalidParameterError, match=match):
        call(**{parameter: value})


@pytest.mark.parametrize(
    "Display, method, parameter, value", _invalid_cases(INVALID_PLOT, ["plot"])
)
def test_invalid_plot_parameters(pyplot, Display, method, parameter, value):
    """Check that plot rejects invalid options with InvalidParameterError."""
    display = Display.from_predictions(
        [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4], **FAST_OPTIONS[Display.__name__]
    )
    match = f"The '{parameter}' parameter of {Display.__name__}\\.plot"
    with pytest.raises(InvalidParameterError, match=match):
        display.plot(**{parameter: value})


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_invalid_data_is_rejected(pyplot, Display, options):
    """Check that the data checks of the metrics apply."""
    with pytest.raises(ValueError, match="outside"):
        Display.from_predictions([0, 1], [0.5, 1.5], **options)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Display.from_predictions([0, 1, 1], [0.5, 0.5], **options)
    with pytest.raises(ValueError, match="pos_label"):
        Display.from_predictions(["a", "b", "a"], [0.5, 0.2, 0.4], **options)


# ---------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_plot_returns_display_with_artists(pyplot, Display, options):
    """Check that plot creates axes, stores the artists and returns self."""
    rng = np.random.RandomState(0)
    y_prob = rng.uniform(size=200)
    y_true = (rng.uniform(size=200) < y_prob).astype(int)
    display = Display.from_predictions(y_true, y_prob, **options)
    assert display.plot() is display
    assert display.figure_ is display.ax_.figure
    assert display.ref_line_ in display.ax_.get_lines()
    assert display.line_.axes is display.ax_
    assert display.axes_.shape == (1,) and display.axes_[0] is display.ax_
    _, ax = pyplot.subplots()
    assert display.plot(ax=ax, ref_line=False).ax_ is ax
    assert display.ref_line_ is None
    assert "Perfectly calibrated" not in _legend_texts(ax)


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_several_models_on_one_axes(pyplot, global_random_seed, Display, options):
    """Check that each model drawn on the same axes adds a curve and a legend entry."""
    from matplotlib.colors import to_rgba_array

    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.uniform(size=300)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    first = Display.from_predictions(y_true, y_prob, name="first", **options)
    second = Display.from_predictions(
        y_true, y_prob**2, name="second", ax=first.ax_, **options
    )
    third = Display.from_predictions(
        y_true, np.sqrt(y_prob), name="third", ax=first.ax_, **options
    )
    assert second.ax_ is first.ax_ is third.ax_
    texts = _legend_texts(first.ax_)
    # One entry per model; the diagonal and the other parts (a band, the
    # counts, ...) once each: they mean the same for every model.
    models = [t for t in texts if t.split(":")[0] in ("first", "second", "third")]
    assert [t.split(":")[0] for t in models] == ["first", "second", "third"]
    assert texts.count("Perfectly calibrated") == 1
    parts = [t.split(" (clipped")[0] for t in texts if t not in models]
    assert len(parts) == len(set(parts))
    assert third.ref_line_ is first.ref_line_
    # Each model gets its own colour from the cycle.
    colors = {
        tuple(to_rgba_array(d.line_.get_color())[0]) for d in (first, second, third)
    }
    assert len(colors) == 3


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_rendering_saves_png(pyplot, tmp_path, Display, options):
    """Check that the drawn diagram renders to a non-empty PNG file."""
    rng = np.random.RandomState(0)
    y_prob = rng.dirichlet([1.0, 1.0, 1.0], size=300)
    y_true = np.array([rng.choice(3, p=row) for row in y_prob])
    display = Display.from_predictions(y_true, y_prob, **options)
    path = tmp_path / "diagram.png"
    display.figure_.savefig(path)
    assert path.stat().st_size > 1000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_style_kwargs_reach_the_artists(pyplot, Display, options):
    """Check that line_kwargs and ref_line_kwargs, with aliases, style the artists."""
    from matplotlib.colors import to_rgba, to_rgba_array

    rng = np.random.RandomState(0)
    y_prob = rng.uniform(size=200)
    y_true = (rng.uniform(size=200) < y_prob).astype(int)
    display = Display.from_predictions(
        y_true,
        y_prob,
        line_kwargs={"c": "tab:red"},
        ref_line_kwargs={"ls": "-", "c": "green"},
        **options,
    )
    assert_allclose(to_rgba_array(display.line_.get_color())[0], to_rgba("tab:red"))
    assert display.ref_line_.get_linestyle() == "-"
    assert display.ref_line_.get_color() == "green"
    with pytest.raises(TypeError, match="aliases"):
        display.plot(line_kwargs={"c": "red", "color": "blue"})
    # A label in line_kwargs replaces the legend text.
    display.plot(line_kwargs={"label": "custom"})
    assert _legend_texts(display.ax_)[0] == "custom"


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_real_data_top_label(pyplot, real_multiclass, Display, options):
    """Check that real classifier outputs give finite, drawable diagrams."""
    labels, probs = real_multiclass
    rows = np.random.RandomState(0).choice(labels.shape[0], 2000, replace=False)
    y_true, y_prob = labels[rows], probs[rows].astype(np.float64)
    y_prob /= y_prob.sum(axis=1, keepdims=True)
    display = Display.from_predictions(y_true, y_prob, **options)
    assert display.reduction == "top_label"
    assert display.ax_.get_xlabel() == "Confidence"
    if isinstance(display, CalibrationSharpnessDisplay):
        assert 0 <= display.calibration_error < display.total_loss
        assert np.isfinite(display.curve[-20:]).all()
    elif isinstance(display, SmoothReliabilityDisplay):
        assert 0 < display.smooth_ece < 1
        assert np.isfinite(display.curve[-20:]).all()
    else:
        assert 0 < display.ece < 1
        assert display.table.weight.sum() == 2000


# ---------------------------------------------------------------------------
# The constructor only stores; the plotting modules import no private metric
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_constructor_only_stores(pyplot, Display, options):
    """Check that the constructor stores its arguments, and plot draws them."""
    rng = np.random.RandomState(0)
    y_prob = rng.dirichlet([1.0, 1.0, 1.0], size=200)
    y_true = np.array([rng.choice(3, p=row) for row in y_prob])
    drawn = Display.from_predictions(y_true, y_prob, name="model", **options)
    arguments = {
        name: getattr(drawn, name) for name in _constructor_parameters(Display)
    }
    display = Display(**arguments)
    for name, value in arguments.items():
        assert getattr(display, name) is value, name
    assert not [k for k in vars(display) if k.endswith("_")]
    assert display.plot() is display
    assert _legend_texts(display.ax_) == _legend_texts(drawn.ax_)
    # The numbers are keyword-only and required: a display without them fails
    # at construction, not later in plot.
    parameters = inspect.signature(Display.__init__).parameters
    required = [
        name
        for name, p in parameters.items()
        if p.default is inspect.Parameter.empty and name != "self"
    ]
    assert required and set(required) <= set(arguments) - DESCRIPTIVE
    assert all(parameters[n].kind is inspect.Parameter.KEYWORD_ONLY for n in arguments)
    with pytest.raises(TypeError, match="missing .* required keyword-only"):
        Display()


def _plotting_modules():
    folder = Path(skcal.plotting.__file__).parent
    return sorted(folder.glob("*.py"))


def _private_metric_uses(source):
    """Uses of a private name of skcal.metrics in Python source, as strings."""
    found = []

    def private(dotted):
        parts = dotted.split(".")
        return parts[:2] == ["skcal", "metrics"] and any(
            p.startswith("_") for p in parts[2:]
        )

    def dotted_name(node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            parts.append(node.id)
            return ".".join(reversed(parts))
        return None

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [f"{module}.{alias.name}" for alias in node.names]
            found += [n for n in names if private(n)]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if private(alias.name)]
        elif isinstance(node, ast.Attribute):
            name = dotted_name(node)
            if name is not None and private(name):
                found.append(name)
    return found


def test_private_metric_checker_finds_private_uses():
    """Check that the checker below flags each way of reaching a private name."""
    assert _private_metric_uses("from skcal.metrics._binned import x") == [
        "skcal.metrics._binned.x"
    ]
    assert _private_metric_uses("from skcal.metrics import _wilson") == [
        "skcal.metrics._wilson"
    ]
    assert _private_metric_uses("import skcal.metrics._kernel as k") == [
        "skcal.metrics._kernel"
    ]
    assert "skcal.metrics._smooth_ece._bootstrap" in _private_metric_uses(
        "import skcal\nskcal.metrics._smooth_ece._bootstrap()"
    )
    assert _private_metric_uses("from skcal.metrics import reliability_table") == []
    assert _private_metric_uses("from skcal._utils._bootstrap import Atoms") == []


@pytest.mark.parametrize("module", _plotting_modules(), ids=lambda p: p.name)
def test_plotting_imports_no_private_name_of_metrics(module):
    """Check that skcal.plotting reaches skcal.metrics through its public names."""
    assert _private_metric_uses(module.read_text()) == []


def test_matplotlib_is_imported_lazily():
    """Check that no module of skcal.plotting imports matplotlib at module level."""
    modules = _plotting_modules()
    assert len(modules) >= 5
    for module in modules:
        tree = ast.parse(module.read_text())
        for node in tree.body:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] == "matplotlib" for n in names), module


@pytest.mark.parametrize("Display, options", DISPLAY_PARAMS)
def test_from_cv_results_refuses_overlapping_test_folds(pyplot, Display, options):
    """Check that a row in two test folds is refused, not counted twice (review)."""
    from sklearn.model_selection import ShuffleSplit

    rng = np.random.RandomState(0)
    X, y = _data(rng, n=120)
    results = cross_validate(
        LogisticRegression(),
        X,
        y,
        cv=ShuffleSplit(3, test_size=0.5, random_state=0),
        return_estimator=True,
        return_indices=True,
    )
    with pytest.raises(ValueError, match="must be disjoint"):
        Display.from_cv_results(results, X, y, **options)


GROUPED_DISPLAYS = [
    pytest.param(BinnedReliabilityDisplay, {"n_bins": 10}, id="binned"),
    pytest.param(SmoothReliabilityDisplay, {"n_bootstrap": 0}, id="smooth"),
]


@pytest.mark.parametrize("problem", ["binary", "weighted", "multiclass"])
@pytest.mark.parametrize("Display, options", GROUPED_DISPLAYS)
def test_groups_draw_one_panel_per_group(pyplot, Display, options, problem):
    """Check that a diagram by group draws each group's numbers in its panel.

    Each panel's numbers are the public functions' on the group's rows;
    its title names the group and its size; a group of zero weight is left
    out.
    """
    rng = np.random.RandomState(0)
    y_true, y_prob, weights, view = _predictions(rng, problem)
    n = np.shape(y_prob)[0]
    groups = np.array(["b", "a", "c"])[rng.randint(0, 3, size=n)]
    if weights is not None:
        weights = np.where(groups == "c", 0.0, weights)
    display = Display.from_predictions(
        y_true, y_prob, sample_weight=weights, groups=groups, **view, **options
    )
    drawn = ["a", "b"] if weights is not None else ["a", "b", "c"]
    assert display.groups.tolist() == drawn
    assert display.group_sizes.tolist() == [int((groups == g).sum()) for g in drawn]
    assert len(display.axes_) == len(drawn)
    titles = _panel_titles(display)
    assert titles == [f"{g} (n = {(groups == g).sum()})" for g in drawn]
    labels = np.unique(y_true)
    for index, group in enumerate(drawn):
        rows = groups == group
        (expected,) = _expected_numbers(
            Display,
            np.asarray(y_true)[rows],
            np.asarray(y_prob)[rows],
            {
                "sample_weight": None if weights is None else weights[rows],
                "labels": labels,
                **options,
            },
            [view],
        )
        for attribute, value in expected.items():
            _assert_same_values(getattr(display, attribute)[index], value, attribute)


@pytest.mark.parametrize("Display, options", GROUPED_DISPLAYS)
def test_groups_refuse_classwise(pyplot, Display, options):
    """Check that groups and a classwise grid, two grids at once, are refused."""
    rng = np.random.RandomState(0)
    y_true, y_prob, _, _ = _predictions(rng, "multiclass")
    groups = np.arange(len(y_true)) % 2
    with pytest.raises(ValueError, match="one panel per group"):
        Display.from_predictions(
            y_true, y_prob, groups=groups, reduction="classwise", **options
        )
