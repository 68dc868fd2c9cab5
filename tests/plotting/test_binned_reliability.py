"""Tests of the binned reliability diagram (skcal/plotting/_binned_reliability.py).

The numbers are those of :func:`~skcal.metrics.reliability_table` and
:func:`~skcal.metrics.expected_calibration_error` (checked in
test_common.py, and the intervals themselves in test_numbers.py); these
tests check what is drawn.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal._param_validation import InvalidParameterError
from skcal.metrics import expected_calibration_error, reliability_table
from skcal.plotting import BinnedReliabilityDisplay


def _binary(rng, n=600):
    """Miscalibrated binary predictions: the event rate is p**1.5."""
    y_prob = rng.beta(2.0, 3.0, size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.5).astype(int)
    return y_true, y_prob


def _multiclass(rng, n=600, k=3):
    y_prob = rng.dirichlet(np.full(k, 0.7), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _error_segments(display):
    """The drawn vertical segments of the intervals: x, lower and upper ends."""
    (bars,) = display.errorbar_.lines[2]
    segments = np.asarray(bars.get_segments())
    assert_array_equal(segments[:, 0, 0], segments[:, 1, 0])
    ends = segments[:, :, 1]
    return segments[:, 0, 0], ends.min(axis=1), ends.max(axis=1)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("problem", ["binary", "multiclass", "weighted"])
def test_line_is_the_reliability_table(pyplot, global_random_seed, strategy, problem):
    """Check that the line joins the table's points and the legend shows the ECE."""
    rng = np.random.RandomState(global_random_seed)
    if problem == "multiclass":
        y_true, y_prob = _multiclass(rng)
    else:
        y_true, y_prob = _binary(rng)
    weights = rng.uniform(0.2, 3.0, size=600) if problem == "weighted" else None
    options = dict(sample_weight=weights, n_bins=12, strategy=strategy)
    display = BinnedReliabilityDisplay.from_predictions(y_true, y_prob, **options)
    expected = reliability_table(y_true, y_prob, **options)
    assert set(display.table) == set(expected)
    for key in expected:
        assert_allclose(
            display.table[key], expected[key], rtol=1e-12, equal_nan=True, err_msg=key
        )
    assert_allclose(
        display.ece, expected_calibration_error(y_true, y_prob, **options), rtol=1e-12
    )
    line_x, line_y = display.line_.get_data()
    assert_array_equal(line_x, display.table.mean_predicted)
    assert_array_equal(line_y, display.table.event_rate)
    assert display.line_.get_marker() == "s"
    assert _legend_texts(display.ax_)[0] == f"ECE = {display.ece:.3f} (12 bins)"
    display.plot(name="model")
    assert _legend_texts(display.ax_)[0] == f"model: ECE = {display.ece:.3f} (12 bins)"


def test_empty_bins_are_absent(pyplot, global_random_seed):
    """Check that empty bins have no point, no interval and a zero bar."""
    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.uniform(0.0, 0.38, size=300)
    y_prob[:50] = rng.uniform(0.82, 1.0, size=50)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    for interval in ("wilson", "bootstrap"):
        display = BinnedReliabilityDisplay.from_predictions(
            y_true,
            y_prob,
            n_bins=10,
            interval=interval,
            n_bootstrap=30,
            random_state=0,
        )
        table = display.table
        empty = table.weight == 0
        assert_array_equal(np.flatnonzero(empty), [4, 5, 6, 7])
        assert np.isnan(display.line_.get_ydata()[empty]).all()
        # The counts strip: bar heights follow the weights, 0 for empty bins.
        heights = np.array([bar.get_height() for bar in display.hist_])
        assert_allclose(heights, 0.2 * table.weight / table.weight.max())
        assert_array_equal(heights[empty], 0.0)
        # Intervals are drawn only for the non-empty bins, from the table.
        x, low, high = _error_segments(display)
        assert x.shape[0] == (~empty).sum()
        assert_allclose(x, table.mean_predicted[~empty])
        assert_allclose(low, table.interval_low[~empty], atol=1e-12)
        assert_allclose(high, table.interval_high[~empty], atol=1e-12)


def test_counts_strip_spans_the_bins(pyplot):
    """Check that the bars span each bin's edges, in the line's colour."""
    from matplotlib.colors import to_rgba

    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = BinnedReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bins=6, strategy="quantile", line_kwargs={"c": "C4"}
    )
    table = display.table
    bars = list(display.hist_)
    assert len(bars) == 6
    assert_allclose([b.get_x() for b in bars], table.bin_lower)
    assert_allclose([b.get_x() + b.get_width() for b in bars], table.bin_upper)
    assert_allclose(bars[0].get_facecolor(), to_rgba("C4", 0.25))
    display.plot(hist_kwargs={"color": "grey", "alpha": 1.0})
    assert_allclose(display.hist_[0].get_facecolor(), to_rgba("grey"))


@pytest.mark.parametrize("weighted", [False, True])
def test_wilson_intervals_drawn(pyplot, global_random_seed, weighted):
    """Check that Wilson error bars span the table's intervals, in the line colour."""
    from matplotlib.colors import to_rgba

    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _binary(rng)
    weights = rng.uniform(0.1, 5.0, size=600) if weighted else None
    display = BinnedReliabilityDisplay.from_predictions(
        y_true, y_prob, sample_weight=weights, n_bins=8, confidence_level=0.9
    )
    expected = reliability_table(
        y_true, y_prob, sample_weight=weights, n_bins=8, confidence_level=0.9
    )
    nonempty = expected.weight > 0
    x, low, high = _error_segments(display)
    assert_allclose(x, expected.mean_predicted[nonempty])
    assert_allclose(low, expected.interval_low[nonempty], atol=1e-12)
    assert_allclose(high, expected.interval_high[nonempty], atol=1e-12)
    (bars,) = display.errorbar_.lines[2]
    assert_allclose(bars.get_color()[0], to_rgba(display.line_.get_color()))
    display.plot(errorbar_kwargs={"ecolor": "black", "capsize": 0.0})
    (bars,) = display.errorbar_.lines[2]
    assert_allclose(bars.get_color()[0], to_rgba("black"))


def test_without_intervals_or_counts(pyplot):
    """Check that interval=None and show_counts=False draw neither."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = BinnedReliabilityDisplay.from_predictions(
        y_true, y_prob, interval=None, show_counts=False
    )
    assert "interval_low" not in display.table
    assert display.errorbar_ is None
    assert display.hist_ is None
    assert len(display.ax_.patches) == 0
    assert len(display.ax_.containers) == 0
    # Counts can be drawn again by plot, from the stored table.
    assert display.plot(show_counts=True).hist_ is not None
    with pytest.raises(InvalidParameterError, match="'n_bootstrap' parameter"):
        BinnedReliabilityDisplay.from_predictions(
            y_true, y_prob, interval="bootstrap", n_bootstrap=0
        )


def test_one_vs_rest_of_a_multiclass_problem(pyplot, global_random_seed):
    """Check that pos_label on a multiclass problem draws one class against the rest."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _multiclass(rng)
    display = BinnedReliabilityDisplay.from_predictions(y_true, y_prob, pos_label=2)
    table = reliability_table(y_true == 2, y_prob[:, 2])
    assert_array_equal(display.table.event_rate, table.event_rate)
    assert_array_equal(display.table.interval_low, table.interval_low)
    assert display.reduction == "positive" and display.pos_label == 2
    assert display.ax_.get_xlabel() == "Predicted probability (positive class: 2)"
    assert display.ax_.get_ylabel() == "Fraction of positives"


def test_classwise_measures_in_titles_and_one_legend(pyplot):
    """Check that a classwise grid has its measures in the titles, one legend.

    Issue 12: the legends of the small panels were unreadable.
    """
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng, n=300)
    display = BinnedReliabilityDisplay.from_predictions(
        y_true, y_prob, reduction="classwise", name="model"
    )
    for k, ax in enumerate(display.axes_):
        assert ax.get_title() == f"Class {k}\nmodel: ECE {display.ece[k]:.3f} (15 bins)"
        assert ax.get_legend() is None
        assert display.hist_[k].patches[0].axes is ax
        # No count labels in the small panels.
        assert not [t for t in ax.texts if t.get_text()]
    (legend,) = display.figure_.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "model",
        "Perfectly calibrated",
        "95% Wilson interval per bin",
        "predictions per bin",
    ]
