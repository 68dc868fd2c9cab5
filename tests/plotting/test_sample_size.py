"""Tests of SampleSizeDisplay, the sample-size curve of the measures."""

# SPDX-License-Identifier: BSD-3-Clause

import inspect

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression

from skcal._param_validation import InvalidParameterError
from skcal.model_selection import cross_val_calibration
from skcal.model_selection._sample_size import sample_size_curve
from skcal.plotting._sample_size import SampleSizeDisplay

# Small and fast: three sizes, few subsamples.
FAST = {"sizes": [20, 80, 300], "n_repeats": 6, "random_state": 0}
METRICS = ["expected_calibration_error", "smooth_ece", "brier_score_loss"]


def _data(rng, n=300):
    y_prob = rng.beta(2.0, 3.0, size=n)
    y_true = (rng.uniform(size=n) < y_prob).astype(int)
    return y_true, y_prob


def _figure_legend_texts(display):
    (legend,) = display.figure_.legends
    return [t.get_text() for t in legend.get_texts()]


def _assert_same_numbers(a, b):
    assert_array_equal(a.sizes, b.sizes)
    assert_array_equal(a.n_repeats, b.n_repeats)
    assert a.metrics == b.metrics and a.quantiles == b.quantiles
    for field in ("mean", "low", "high"):
        for name in a.metrics:
            assert_allclose(
                getattr(a, field)[name], getattr(b, field)[name], rtol=1e-10
            )
    for name in a.metrics:
        assert_allclose(a.full_value[name], b.full_value[name], rtol=1e-10)


def test_numbers_are_sample_size_curve(pyplot, global_random_seed):
    """Check that the Display stores what sample_size_curve returns."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _data(rng)
    weights = rng.uniform(0.5, 2.0, size=300)
    display = SampleSizeDisplay.from_predictions(
        y_true, y_prob, sample_weight=weights, quantiles=(0.1, 0.9), **FAST
    )
    curve = sample_size_curve(
        y_true, y_prob, sample_weight=weights, quantiles=(0.1, 0.9), **FAST
    )
    for field in ("sizes", "n_repeats", "metrics", "quantiles"):
        assert_array_equal(getattr(display, field), curve[field])
    for field in ("mean", "low", "high", "full_value"):
        assert getattr(display, field) is not None
        for name in curve.metrics:
            assert_array_equal(getattr(display, field)[name], curve[field][name])


def test_one_panel_per_measure_with_line_band_and_value(pyplot):
    """Check the artists: mean line, band between quantiles, dashed value."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng)
    display = SampleSizeDisplay.from_predictions(y_true, y_prob, **FAST)
    assert display.ax_.shape == (3,) and display.axes_ is display.ax_
    assert display.figure_ is display.ax_[0].figure
    assert [ax.get_title() for ax in display.ax_] == ["ECE", "SmoothECE", "Brier"]
    for ax, name, line, band, ref in zip(
        display.ax_,
        METRICS,
        display.line_,
        display.band_,
        display.ref_line_,
        strict=True,
    ):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
        assert ax.get_xlabel() == "Subsample size (rows)"
        assert line.axes is ax and band.axes is ax and ref.axes is ax
        assert_array_equal(line.get_xdata(), display.sizes)
        assert_allclose(line.get_ydata(), display.mean[name])
        assert_allclose(ref.get_ydata(), [display.full_value[name]] * 2)
        assert ref.get_linestyle() == "--"
        # The band's outline runs along the two quantile curves.
        vertices = band.get_paths()[0].vertices
        assert_allclose(vertices[:, 1].min(), display.low[name].min())
        assert_allclose(vertices[:, 1].max(), display.high[name].max())
        # Band, line and dashed value share the colour of the model.
        assert_allclose(band.get_facecolor()[0][:3], _rgb(line.get_color()))
        assert _rgb(ref.get_color()) == _rgb(line.get_color())
        # The whole set's mean is its value.
        assert line.get_ydata()[-1] == display.full_value[name]
    assert display.ax_[0].get_ylabel() == "Estimate"
    assert _figure_legend_texts(display) == [
        "mean of the subsamples",
        "5%-95% of the subsamples",
        "value on all rows",
    ]


def _rgb(color):
    from matplotlib.colors import to_rgb

    return to_rgb(color)


def test_ref_line_false_and_custom_metrics(pyplot):
    """Check ref_line=False, a user's measure (titled by its name), one panel."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng)
    display = SampleSizeDisplay.from_predictions(
        y_true,
        y_prob,
        metrics={"mean prediction": lambda y, p, **kw: float(np.mean(p))},
        ref_line=False,
        **FAST,
    )
    assert display.ref_line_ == [None]
    (ax,) = display.ax_
    assert ax.get_title() == "mean prediction"
    assert len(ax.get_lines()) == 1
    assert "value on all rows" not in _figure_legend_texts(display)


def test_several_models_on_the_same_panels(pyplot):
    """Check that a second model on ax_ adds its curves, in its own colour."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng)
    first = SampleSizeDisplay.from_predictions(y_true, y_prob, name="first", **FAST)
    second = SampleSizeDisplay.from_predictions(
        y_true, y_prob**2, name="second", ax=first.ax_, **FAST
    )
    assert second.ax_ is first.ax_ and second.figure_ is first.figure_
    for ax, a, b in zip(first.ax_, first.line_, second.line_, strict=True):
        assert a in ax.get_lines() and b in ax.get_lines()
        assert _rgb(a.get_color()) != _rgb(b.get_color())
    texts = _figure_legend_texts(second)
    assert texts.count("first") == texts.count("second") == 1
    assert texts.count("value on all rows") == 1
    assert texts.count("5%-95% of the subsamples") == 1
    assert len(first.figure_.legends) == 1


def test_ax_arguments(pyplot):
    """Check a single axes for one measure, and a wrong number of axes."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng)
    _, ax = pyplot.subplots()
    display = SampleSizeDisplay.from_predictions(
        y_true, y_prob, metrics=["brier_score_loss"], ax=ax, **FAST
    )
    assert display.ax_[0] is ax and display.line_[0].axes is ax
    _, two = pyplot.subplots(1, 2)
    with pytest.raises(ValueError, match="needs one axes per measure; got 2"):
        SampleSizeDisplay.from_predictions(y_true, y_prob, ax=two, **FAST)
    with pytest.raises(ValueError, match="needs one axes per measure; got 1"):
        SampleSizeDisplay.from_predictions(y_true, y_prob, ax=ax, **FAST)


def test_from_estimator_matches_from_predictions(pyplot, global_random_seed):
    """Check that from_estimator draws predict_proba through from_predictions."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(300, 3))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=300), [-0.5, 0.5])
    clf = LogisticRegression().fit(X, y)
    from_estimator = SampleSizeDisplay.from_estimator(clf, X, y, **FAST)
    from_predictions = SampleSizeDisplay.from_predictions(
        y, clf.predict_proba(X), **FAST
    )
    _assert_same_numbers(from_estimator, from_predictions)
    assert from_estimator.name == "LogisticRegression"
    assert from_predictions.name is None
    assert "LogisticRegression" in _figure_legend_texts(from_estimator)
    named = SampleSizeDisplay.from_estimator(clf, X, y, name="mine", **FAST)
    assert "mine" in _figure_legend_texts(named)


def test_from_cv_results(pyplot):
    """Check that a cross_val_calibration result is drawn from its pooled rows."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    result = cross_val_calibration(LogisticRegression(), X, y, n_bootstrap=0, cv=3)
    display = SampleSizeDisplay.from_cv_results(result, **FAST)
    expected = SampleSizeDisplay.from_predictions(
        result.y_true, result.y_prob[:, 1], **FAST
    )
    _assert_same_numbers(display, expected)
    assert display.name == "LogisticRegression"


def test_constructor_only_stores(pyplot):
    """Check that the constructor stores its arguments, and plot draws them."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng)
    drawn = SampleSizeDisplay.from_predictions(y_true, y_prob, name="m", **FAST)
    parameters = [
        p
        for p in inspect.signature(SampleSizeDisplay.__init__).parameters
        if p != "self"
    ]
    arguments = {name: getattr(drawn, name) for name in parameters}
    display = SampleSizeDisplay(**arguments)
    for name, value in arguments.items():
        assert getattr(display, name) is value
    assert not [k for k in vars(display) if k.endswith("_")]
    assert display.plot() is display
    assert _figure_legend_texts(display) == _figure_legend_texts(drawn)
    with pytest.raises(TypeError, match="required keyword-only"):
        SampleSizeDisplay()


def test_style_kwargs_reach_the_artists(pyplot):
    """Check line_kwargs, band_kwargs and ref_line_kwargs, with aliases."""
    from matplotlib.colors import to_rgba

    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng)
    display = SampleSizeDisplay.from_predictions(
        y_true,
        y_prob,
        line_kwargs={"c": "tab:red", "lw": 3},
        band_kwargs={"alpha": 0.5},
        ref_line_kwargs={"ls": ":"},
        **FAST,
    )
    for line, band, ref in zip(
        display.line_, display.band_, display.ref_line_, strict=True
    ):
        assert_allclose(to_rgba(line.get_color()), to_rgba("tab:red"))
        assert line.get_linewidth() == 3
        assert_allclose(band.get_facecolor()[0], to_rgba("tab:red", 0.5))
        assert ref.get_linestyle() == ":"
    with pytest.raises(TypeError, match="aliases"):
        display.plot(line_kwargs={"c": "red", "color": "blue"})
    display.plot(line_kwargs={"label": "custom"})
    assert "custom" in _figure_legend_texts(display)


def test_renders_png(pyplot, tmp_path):
    """Check that the figure renders to a non-empty PNG file."""
    rng = np.random.RandomState(0)
    y_prob = rng.dirichlet([1.0, 1.0, 1.0], size=300)
    y_true = np.array([rng.choice(3, p=row) for row in y_prob])
    display = SampleSizeDisplay.from_predictions(y_true, y_prob, **FAST)
    path = tmp_path / "curve.png"
    display.figure_.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "method", ["from_predictions", "from_estimator", "from_cv_results", "plot"]
)
def test_method_signatures_and_docstrings(method):
    """Check that each method documents exactly its parameters, in order."""
    from numpydoc.docscrape import NumpyDocString

    function = getattr(SampleSizeDisplay, method)
    signature = [
        name
        for name in inspect.signature(function).parameters
        if name not in ("self", "cls")
    ]
    doc = NumpyDocString(inspect.getdoc(function))
    documented = [n for e in doc["Parameters"] for n in e.name.split(", ")]
    assert documented == signature
    if method != "plot":
        options = inspect.signature(SampleSizeDisplay.from_predictions).parameters
        shared = [p for n, p in options.items() if n not in ("y_true", "y_prob")]
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in shared)


@pytest.mark.parametrize(
    "parameter, value",
    [
        ("sizes", 0),
        ("n_repeats", 0),
        ("min_size", -1),
        ("quantiles", 0.5),
        ("metrics", "smooth_ece"),
        ("random_state", "seed"),
        ("name", 3),
        ("ax", "left"),
        ("ref_line", "yes"),
        ("line_kwargs", ["red"]),
        ("band_kwargs", "red"),
        ("ref_line_kwargs", "black"),
    ],
)
def test_invalid_parameters(pyplot, parameter, value):
    """Check that invalid options raise InvalidParameterError naming them."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _data(rng, n=50)
    match = f"The '{parameter}' parameter of SampleSizeDisplay.from_predictions"
    with pytest.raises(InvalidParameterError, match=match):
        SampleSizeDisplay.from_predictions(y_true, y_prob, **{parameter: value})
    clf = LogisticRegression().fit(rng.normal(size=(50, 2)), y_true)
    X = rng.normal(size=(50, 2))
    match = f"The '{parameter}' parameter of SampleSizeDisplay.from_estimator"
    with pytest.raises(InvalidParameterError, match=match):
        SampleSizeDisplay.from_estimator(clf, X, y_true, **{parameter: value})


def test_invalid_data_and_unknown_keywords(pyplot):
    """Check the data contract and unknown keyword arguments."""
    with pytest.raises(ValueError, match="outside"):
        SampleSizeDisplay.from_predictions([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match="min_size=100 exceeds the 4 rows"):
        SampleSizeDisplay.from_predictions([0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4])
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        SampleSizeDisplay.from_predictions([0, 1], [0.5, 0.5], colour="red")
