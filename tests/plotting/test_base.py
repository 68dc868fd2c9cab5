"""Tests of the machinery the Displays share (skcal/plotting/_base.py).

Views and their axes: the top-label view's labels, the classwise grid (new,
inside one axes, or an array of axes), and several Displays on one axes.
The generated ``from_estimator`` and ``from_cv_results`` are checked for
every Display in test_common.py.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skcal.metrics import reliability_table, smooth_reliability_curve
from skcal.plotting import BinnedReliabilityDisplay, SmoothReliabilityDisplay

# The Displays with a classwise view, with options that keep them fast.
CLASSWISE = [
    pytest.param(
        SmoothReliabilityDisplay,
        {"n_bootstrap": 5, "random_state": 0},
        id="SmoothReliabilityDisplay",
    ),
    pytest.param(BinnedReliabilityDisplay, {}, id="BinnedReliabilityDisplay"),
]


def _multiclass(rng, n=600, k=3):
    y_prob = rng.dirichlet(np.full(k, 0.7), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize("Display, options", CLASSWISE)
def test_top_label_is_the_multiclass_default(
    pyplot, global_random_seed, Display, options
):
    """Check that a multiclass model is drawn as confidence against correctness."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _multiclass(rng)
    display = Display.from_predictions(y_true, y_prob, **options)
    assert display.reduction == "top_label" and display.pos_label is None
    assert (display.ax_.get_xlabel(), display.ax_.get_ylabel()) == (
        "Confidence",
        "Accuracy",
    )
    assert display.ax_.get_title() == ""


@pytest.mark.parametrize("Display, options", CLASSWISE)
def test_classwise_grid(pyplot, global_random_seed, Display, options):
    """Check that classwise draws one small axes per class, with its curve."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _multiclass(rng, k=5)
    labels = np.array(["a", "b", "c", "d", "e"])
    display = Display.from_predictions(
        labels[y_true], y_prob, reduction="classwise", name="model", **options
    )
    assert display.axes_.shape == (5,)
    assert display.ax_ is display.axes_
    assert_array_equal(display.classes, labels)
    # A 3 x 2 grid, the sixth axes hidden.
    visible = [ax for ax in display.figure_.axes if ax.get_visible()]
    assert len(display.figure_.axes) == 6 and len(visible) == 5
    for k, ax in enumerate(display.axes_):
        measure = display._measure_text(display._view(k)).replace(" = ", " ")
        assert ax.get_title() == f"Class {labels[k]}\nmodel: {measure}"
        # Axis labels on the outer panels only: the bottom one of each
        # column (class c, above the hidden sixth axes, included) and the
        # first column.
        assert ax.get_xlabel() == ("Predicted probability" if k >= 2 else "")
        assert ax.get_ylabel() == ("Fraction of class" if k % 3 == 0 else "")
        assert display.line_[k].axes is ax
        assert display.ref_line_[k].axes is ax
        if Display is SmoothReliabilityDisplay:
            expected = smooth_reliability_curve(y_true == k, y_prob[:, k])
            assert_array_equal(display.curve[k], expected.calibration)
        else:
            expected = reliability_table(y_true == k, y_prob[:, k])
            assert_array_equal(display.table[k].event_rate, expected.event_rate)
    assert len(display.line_) == len(display.ref_line_) == 5
    # The panels are compared: they share their axes (issue 12).
    first = display.axes_[0]
    for ax in display.axes_[1:]:
        assert first.get_shared_x_axes().joined(first, ax)
        assert first.get_shared_y_axes().joined(first, ax)
    # One legend for the figure, none in the panels.
    assert all(ax.get_legend() is None for ax in display.axes_)
    (legend,) = display.figure_.legends
    assert legend.get_texts()[0].get_text() == "model"
    # A second model on the same grid adds its measure to every title and
    # its entry to the figure's legend (which replaces the first).
    second = Display.from_predictions(
        labels[y_true],
        np.full_like(y_prob, 0.2),
        reduction="classwise",
        name="uniform",
        ax=display.ax_,
        **options,
    )
    assert second.ax_ is not display.ax_
    assert all(a is b for a, b in zip(second.axes_, display.axes_, strict=True))
    for ax in display.axes_:
        lines = ax.get_title().split("\n")
        assert len(lines) == 3 and lines[2].startswith("uniform: ")
    (legend,) = display.figure_.legends
    names = [t.get_text().split("\n")[0] for t in legend.get_texts()]
    assert "model" in names and "uniform" in names


@pytest.mark.parametrize("Display, options", CLASSWISE)
def test_classwise_inside_one_axes(pyplot, Display, options):
    """Check that a single axes given for classwise is divided into a grid."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng, k=3)
    fig, (left, right) = pyplot.subplots(1, 2)
    display = Display.from_predictions(
        y_true, y_prob, reduction="classwise", ax=right, **options
    )
    assert display.axes_.shape == (3,)
    assert not right.axison and left.axison
    assert display.figure_ is fig
    assert all(ax.figure is fig for ax in display.axes_)
    first = display.axes_[0]
    assert all(first.get_shared_y_axes().joined(first, ax) for ax in display.axes_)
    with pytest.raises(ValueError, match="needs 3 axes"):
        display.plot(ax=[left])
    # An array of axes is used as it is, the extra ones left alone.
    _, grid = pyplot.subplots(2, 2)
    display.plot(ax=grid)
    assert all(a is b for a, b in zip(display.axes_, grid.ravel()[:3], strict=True))
    assert not grid.ravel()[3].lines


@pytest.mark.parametrize("Display, options", CLASSWISE)
def test_classwise_needs_divisible_axes(pyplot, Display, options):
    """Check that an axes outside a subplot grid cannot be divided."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng, k=3)
    fig = pyplot.figure()
    free = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    with pytest.raises(ValueError, match="needs one axes per class"):
        Display.from_predictions(
            y_true, y_prob, reduction="classwise", ax=free, **options
        )


def test_displays_share_one_axes(pyplot):
    """Check that different Displays on one axes share its diagonal and legend."""
    rng = np.random.RandomState(0)
    y_prob = rng.uniform(size=300)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    smooth = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=5, random_state=0, name="smooth"
    )
    binned = BinnedReliabilityDisplay.from_predictions(
        y_true, y_prob, ax=smooth.ax_, name="binned"
    )
    assert binned.ref_line_ is smooth.ref_line_
    texts = _legend_texts(smooth.ax_)
    assert [t.split(":")[0] for t in texts][:5] == [
        "smooth",
        "95% bootstrap band",
        "Perfectly calibrated",
        "binned",
        "95% Wilson interval per bin",
    ]


def test_real_data_smooth_and_binned(pyplot, real_multiclass, tmp_path):
    """Check both kinds on real outputs: metric arrays, band, and a saved PNG."""
    labels, probs = real_multiclass
    rows = np.random.RandomState(1).choice(labels.shape[0], 3000, replace=False)
    y_true, y_prob = labels[rows], probs[rows].astype(np.float64)
    y_prob /= y_prob.sum(axis=1, keepdims=True)
    smooth = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=30, random_state=0, name="smooth"
    )
    expected = smooth_reliability_curve(y_true, y_prob)
    assert_array_equal(smooth.curve, expected.calibration)
    defined = np.isfinite(smooth.curve)
    assert np.all(smooth.band_low[defined] <= smooth.band_high[defined])
    binned = BinnedReliabilityDisplay.from_predictions(
        y_true, y_prob, ax=smooth.ax_, name="binned"
    )
    table = reliability_table(y_true, y_prob)
    assert_array_equal(binned.table.event_rate, table.event_rate)
    path = tmp_path / "reliability.png"
    smooth.figure_.savefig(path)
    assert path.stat().st_size > 1000


def test_legends_of_small_panels_are_smaller(pyplot):
    """Check that panels of a larger figure get a smaller legend text (issue 12)."""
    rng = np.random.RandomState(0)
    y_prob = rng.uniform(size=300)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    _, axes = pyplot.subplots(1, 4, figsize=(12, 4), layout="constrained")
    small = BinnedReliabilityDisplay.from_predictions(y_true, y_prob, ax=axes[0])
    size = small.ax_.get_legend().get_texts()[0].get_fontsize()
    alone = BinnedReliabilityDisplay.from_predictions(y_true, y_prob)
    assert size < alone.ax_.get_legend().get_texts()[0].get_fontsize()
    # Both below their axes.
    for display in (small, alone):
        display.figure_.canvas.draw()
        legend = display.ax_.get_legend().get_window_extent()
        assert legend.y1 < display.ax_.get_window_extent().y0
