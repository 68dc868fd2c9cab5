"""Checks shared by every Display: constructors, artists, styles, validation."""

# SPDX-License-Identifier: BSD-3-Clause

import ast
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_validate

import skcal.plotting
from skcal._param_validation import InvalidParameterError
from skcal.model_selection import cross_val_calibration
from skcal.plotting import CalibrationSharpnessDisplay, ReliabilityDisplay
from skcal.plotting._style import merge_style_kwargs

# Each Display with the options that keep it fast; ids name the kind.
DISPLAYS = [
    pytest.param(
        ReliabilityDisplay, {"n_bootstrap": 20, "random_state": 0}, id="smooth"
    ),
    pytest.param(ReliabilityDisplay, {"kind": "binned", "n_bins": 10}, id="binned"),
    pytest.param(CalibrationSharpnessDisplay, {}, id="sharpness"),
]
BINNED_BOOTSTRAP = pytest.param(
    ReliabilityDisplay,
    {"kind": "binned", "interval": "bootstrap", "n_bootstrap": 20, "random_state": 0},
    id="binned-bootstrap",
)


# The computed (non-artist) attributes of each Display.
ARRAYS = {
    ReliabilityDisplay: [
        "grid",
        "curve",
        "density",
        "band_low",
        "band_high",
        "sigma",
        "smooth_ece",
        "smooth_ece_ci",
        "ece",
        "interval_low",
        "interval_high",
    ],
    CalibrationSharpnessDisplay: [
        "grid",
        "curve",
        "density",
        "sharpness_gap",
        "band_low",
        "band_high",
        "calibration_error",
        "total_loss",
    ],
}


def _data(rng, n=300, n_classes=2):
    """Features and labels with a signal, for fitting a small classifier."""
    X = rng.normal(size=(n, 3))
    if n_classes == 2:
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    else:
        y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=n), [-0.5, 0.5])
    return X, y


def _assert_same_arrays(a, b):
    for name in ARRAYS[type(a)]:
        left, right = getattr(a, name), getattr(b, name)
        if left is None or right is None:
            assert left is None and right is None, name
            continue
        assert_allclose(
            np.asarray(left, dtype=float),
            np.asarray(right, dtype=float),
            rtol=1e-12,
            atol=1e-14,
            equal_nan=True,
            err_msg=name,
        )
    if isinstance(a, ReliabilityDisplay) and a.table is not None:
        for key in a.table:
            assert_allclose(a.table[key], b.table[key], equal_nan=True, err_msg=key)


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize("Display, options", [*DISPLAYS, BINNED_BOOTSTRAP])
@pytest.mark.parametrize("n_classes", [2, 3])
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
    _assert_same_arrays(from_estimator, from_predictions)
    assert from_estimator.name == "LogisticRegression"
    assert from_predictions.name is None
    assert "LogisticRegression" in _legend_texts(from_estimator.ax_)[0]


@pytest.mark.parametrize("Display, options", DISPLAYS)
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
    _assert_same_arrays(display, expected)
    assert display.pos_label == "no"
    assert "positive class: no" in display.ax_.get_xlabel()


@pytest.mark.parametrize("Display, options", DISPLAYS)
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
    _, ax = pyplot.subplots()
    assert display.plot(ax=ax, ref_line=False).ax_ is ax
    assert display.ref_line_ is None
    assert "Perfectly calibrated" not in _legend_texts(ax)


@pytest.mark.parametrize("Display, options", DISPLAYS)
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
    # One entry per model and one diagonal, drawn once.
    assert len(texts) == 4
    assert [t.split()[0] for t in texts if "calibrated" not in t] == [
        "first",
        "second",
        "third",
    ]
    assert third.ref_line_ is first.ref_line_
    # Each model gets its own colour from the cycle.
    colors = {
        tuple(to_rgba_array(d.line_.get_color())[0]) for d in (first, second, third)
    }
    assert len(colors) == 3


@pytest.mark.parametrize("Display, options", DISPLAYS)
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


@pytest.mark.parametrize("Display, options", DISPLAYS)
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
    _assert_same_arrays(display, expected)
    assert display.name == "LogisticRegression"


def test_from_cv_results_fold_missing_a_class(pyplot):
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
    display = ReliabilityDisplay.from_cv_results(
        results, X, y, kind="binned", interval=None
    )
    est_a, est_b = results["estimator"]
    manual = np.zeros((60, 3))
    manual[:30, 1:] = est_a.predict_proba(X[:30])
    manual[30:, :2] = est_b.predict_proba(X[60:])
    expected = ReliabilityDisplay.from_predictions(
        np.r_[y[:30], y[60:]], manual, labels=[0, 1, 2], kind="binned", interval=None
    )
    _assert_same_arrays(display, expected)


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


@pytest.mark.parametrize("Display, options", DISPLAYS)
def test_from_cv_results_of_cross_val_calibration(
    pyplot, weighted_cv_result, Display, options
):
    """Check that a cross_val_calibration result is drawn from its pooled rows."""
    result, weights = weighted_cv_result
    display = Display.from_cv_results(result, **options)
    expected = Display.from_predictions(
        result.y_true, result.y_prob[:, 1], sample_weight=weights, **options
    )
    _assert_same_arrays(display, expected)
    assert display.name == "LogisticRegression"


def test_from_cv_results_errors(pyplot):
    """Check the errors of from_cv_results on unusable inputs."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=60)
    results = cross_validate(LogisticRegression(), X, y, cv=3)
    with pytest.raises(ValueError, match="return_estimator=True, return_indices"):
        ReliabilityDisplay.from_cv_results(results, X, y)
    results = cross_validate(
        LogisticRegression(), X, y, cv=3, return_estimator=True, return_indices=True
    )
    with pytest.raises(ValueError, match="X and y"):
        CalibrationSharpnessDisplay.from_cv_results(results)
    with pytest.raises(TypeError, match="cv_results must be"):
        ReliabilityDisplay.from_cv_results([1, 2], X, y)


@pytest.mark.parametrize("Display", [ReliabilityDisplay, CalibrationSharpnessDisplay])
def test_from_estimator_errors(pyplot, Display):
    """Check the errors on unfitted models, no predict_proba and a bad pos_label."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=60)
    with pytest.raises(TypeError, match="predict_proba"):
        Display.from_estimator(object(), X, y)
    with pytest.raises(Exception, match="not fitted"):
        Display.from_estimator(LogisticRegression(), X, y)
    clf = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="pos_label=7 is not a class"):
        Display.from_estimator(clf, X, y, pos_label=7)


# Invalid values of the options of from_predictions, with the message.
INVALID = {
    ReliabilityDisplay: [
        ({"kind": "histogram"}, "'kind' parameter"),
        ({"reduction": "mean"}, "'reduction' parameter"),
        ({"sigma": 0.0}, "'sigma' parameter"),
        ({"n_points": 1}, "'n_points' parameter"),
        ({"n_bins": 0}, "'n_bins' parameter"),
        ({"strategy": "kmeans"}, "'strategy' parameter"),
        ({"interval": "exact"}, "'interval' parameter"),
        ({"n_bootstrap": -1}, "'n_bootstrap' parameter"),
        ({"confidence_level": 1.0}, "'confidence_level' parameter"),
        ({"random_state": "seed"}, "'random_state' parameter"),
        ({"name": 3}, "'name' parameter"),
        ({"ref_line": "yes"}, "'ref_line' parameter"),
        ({"line_kwargs": ["red"]}, "'line_kwargs' parameter"),
    ],
    CalibrationSharpnessDisplay: [
        ({"reduction": "classwise"}, "'reduction' parameter"),
        ({"loss": "hinge"}, "'loss' parameter"),
        ({"kernel": "box"}, "'kernel' parameter"),
        ({"bandwidth": 0.0}, "'bandwidth' parameter"),
        ({"n_points": 1}, "'n_points' parameter"),
        ({"name": 3}, "'name' parameter"),
        ({"show_density": 1}, "'show_density' parameter"),
        ({"band_kwargs": "red"}, "'band_kwargs' parameter"),
    ],
}


@pytest.mark.parametrize(
    "Display, options, match",
    [
        pytest.param(Display, options, match, id=f"{Display.__name__}-{match[1:-11]}")
        for Display, cases in INVALID.items()
        for options, match in cases
    ],
)
def test_invalid_parameters(pyplot, Display, options, match):
    """Check that invalid options raise InvalidParameterError naming them."""
    with pytest.raises(InvalidParameterError, match=match):
        Display.from_predictions([0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4], **options)


@pytest.mark.parametrize("Display", [ReliabilityDisplay, CalibrationSharpnessDisplay])
def test_invalid_data_is_rejected(pyplot, Display):
    """Check that the data checks of the metrics apply."""
    with pytest.raises(ValueError, match="outside"):
        Display.from_predictions([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Display.from_predictions([0, 1, 1], [0.5, 0.5])


def test_merge_style_kwargs_resolves_aliases():
    """Check that user aliases override the defaults' full names."""
    defaults = {"color": "black", "linestyle": ":", "lw": 1.0}
    style = merge_style_kwargs(defaults, {"c": "red", "ls": "--", "alpha": 0.5})
    assert style == {"color": "red", "linestyle": "--", "linewidth": 1.0, "alpha": 0.5}
    assert merge_style_kwargs(defaults, None) == {
        "color": "black",
        "linestyle": ":",
        "linewidth": 1.0,
    }
    assert defaults == {"color": "black", "linestyle": ":", "lw": 1.0}
    with pytest.raises(TypeError, match="both 'c' and 'color'"):
        merge_style_kwargs(defaults, {"c": "red", "color": "blue"})
    with pytest.raises(TypeError, match="both 'lw' and 'linewidths'"):
        merge_style_kwargs({}, {"lw": 1, "linewidths": 2})
    with pytest.raises(TypeError, match="must be a dict"):
        merge_style_kwargs({}, ["red"], name="line_kwargs")


@pytest.mark.parametrize("Display, options", DISPLAYS)
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


@pytest.mark.parametrize("Display, options", DISPLAYS)
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
    elif display.kind == "smooth":
        assert 0 < display.smooth_ece < 1
        assert np.isfinite(display.curve[-20:]).all()
    else:
        assert 0 < display.ece < 1
        assert display.table.weight.sum() == 2000


def test_matplotlib_is_imported_lazily():
    """Check that no module of skcal.plotting imports matplotlib at module level."""
    folder = Path(skcal.plotting.__file__).parent
    modules = sorted(folder.glob("*.py"))
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


def test_constructor_only_stores(pyplot):
    """Check that the constructors store their arguments unchanged."""
    grid = np.linspace(0, 1, 5)
    display = ReliabilityDisplay(
        grid=grid, curve=grid, density=np.ones(5), sigma=0.1, smooth_ece=0.0
    )
    assert display.grid is grid
    assert not [k for k in vars(display) if k.endswith("_")]
    display.plot()
    assert_array_equal(np.asarray(display.line_.get_segments())[:, 0, 0], grid[:-1])
    sharp = CalibrationSharpnessDisplay(
        grid=grid,
        curve=grid,
        density=np.ones(5),
        sharpness_gap=np.zeros(5),
        band_low=grid,
        band_high=grid,
        calibration_error=0.0,
        total_loss=0.1,
    )
    assert not [k for k in vars(sharp) if k.endswith("_")]
    assert sharp.plot().line_.get_ydata().tolist() == grid.tolist()
