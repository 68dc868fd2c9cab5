"""Tests of the smooth reliability diagram (skcal/plotting/_smooth_reliability.py).

The numbers are those of :func:`~skcal.metrics.smooth_reliability_curve`
(checked in test_common.py, and the function itself in test_numbers.py);
these tests check what is drawn.
"""

# SPDX-License-Identifier: BSD-3-Clause

import re

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal.metrics import smooth_ece, smooth_reliability_curve
from skcal.plotting import BinnedReliabilityDisplay, SmoothReliabilityDisplay
from skcal.plotting._base import drawn_points


def _binary(rng, n=600):
    """Miscalibrated binary predictions: the event rate is p**1.5."""
    y_prob = rng.beta(2.0, 3.0, size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.5).astype(int)
    return y_true, y_prob


def _multiclass(rng, n=600, k=3):
    y_prob = rng.dirichlet(np.full(k, 0.7), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


def to_rgba(color, alpha=None):
    """matplotlib's to_rgba, imported when a test runs (matplotlib is optional)."""
    from matplotlib.colors import to_rgba

    return to_rgba(color, alpha)


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _drawn(display, min_effective_count=10):
    """Where the stored numbers say the curve of a single view is drawn."""
    return drawn_points(
        display.grid,
        display.curve,
        n_effective=display.n_effective,
        mean_prediction=display.mean_prediction,
        prediction_range=display.prediction_range,
        sigma=display.sigma,
        min_effective_count=min_effective_count,
    )


def _segment_starts(display):
    """The x of the first end of each drawn segment of the curve."""
    segments = np.asarray(display.line_.get_segments())
    return segments[:, 0, 0] if segments.size else np.empty(0)


@pytest.mark.parametrize("problem", ["binary", "multiclass", "weighted"])
def test_smooth_ece_is_the_measure(pyplot, global_random_seed, problem):
    """Check that the SmoothECE shown is smooth_ece's, on the default view."""
    rng = np.random.RandomState(global_random_seed)
    if problem == "multiclass":
        y_true, y_prob = _multiclass(rng)
    else:
        y_true, y_prob = _binary(rng)
    weights = rng.uniform(0.2, 3.0, size=600) if problem == "weighted" else None
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, sample_weight=weights, n_bootstrap=10, random_state=0
    )
    value, sigma = smooth_ece(y_true, y_prob, sample_weight=weights, return_sigma=True)
    assert display.smooth_ece == value
    assert display.sigma == sigma
    assert display.reduction == ("top_label" if problem == "multiclass" else "positive")
    assert _legend_texts(display.ax_)[0].startswith(f"SmoothECE = {value:.3f} [")


def test_smooth_given_sigma(pyplot):
    """Check that a given bandwidth is used for the curve and the band."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, sigma=0.1, n_bootstrap=20, random_state=0
    )
    expected = smooth_reliability_curve(
        y_true, y_prob, sigma=0.1, n_bootstrap=20, random_state=0
    )
    assert display.sigma == 0.1
    assert_array_equal(display.curve, expected.calibration)
    assert_array_equal(display.band_low, expected.band_low)
    assert display.smooth_ece == smooth_ece(y_true, y_prob, sigma=0.1)


def test_smooth_without_bootstrap(pyplot):
    """Check that n_bootstrap=0 draws no band and shows no interval."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = SmoothReliabilityDisplay.from_predictions(y_true, y_prob, n_bootstrap=0)
    assert display.band_low is None and display.band_high is None
    assert display.smooth_ece_interval is None
    assert display.band_ is None
    assert len(display.ax_.collections) == 1  # the curve only
    label = _legend_texts(display.ax_)[0]
    assert label == f"SmoothECE = {display.smooth_ece:.3f}"


def test_smooth_band_is_drawn_between_its_edges(pyplot, global_random_seed):
    """Check that the band fills band_low to band_high, in the curve's colour."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _binary(rng)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, line_kwargs={"color": "C2"}
    )
    defined = np.isfinite(display.band_low) & _drawn(display)
    vertices = np.concatenate([p.vertices for p in display.band_.get_paths()])
    # Every vertex lies on an edge of the band, at a grid point where it is defined.
    grid = display.grid
    index = np.searchsorted(grid, vertices[:, 0])
    index = np.clip(index, 0, grid.shape[0] - 1)
    assert_allclose(grid[index], vertices[:, 0], atol=1e-12)
    assert defined[index].all()
    on_edge = np.isclose(vertices[:, 1], display.band_low[index], atol=1e-12) | (
        np.isclose(vertices[:, 1], display.band_high[index], atol=1e-12)
    )
    assert on_edge.all()
    # Both edges are drawn wherever the curve is.
    assert_allclose(vertices[:, 1].max(), display.band_high[defined].max())
    assert_allclose(vertices[:, 1].min(), display.band_low[defined].min())
    assert_allclose(display.band_.get_facecolor()[0][:3], to_rgba("C2")[:3])
    assert display.band_.get_alpha() == 0.25
    display.plot(band_kwargs={"fc": "red", "alpha": 0.5})
    assert_allclose(display.band_.get_facecolor()[0], to_rgba("red", 0.5))


def test_smooth_line_width_follows_density(pyplot):
    """Check that the segment widths are proportional to the density, floored."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=0, line_kwargs={"lw": 6.0}
    )
    widths = np.asarray(display.line_.get_linewidths())
    drawn = _drawn(display)
    both = drawn[:-1] & drawn[1:]
    middle = 0.5 * (display.density[:-1] + display.density[1:])[both]
    expected = np.maximum(6.0 * middle / middle.max(), 0.5)
    assert_allclose(widths, expected)
    assert_allclose(widths.max(), 6.0)
    segments = display.line_.get_segments()
    assert len(segments) == both.sum() > 100
    first = np.flatnonzero(both)[0]
    assert_allclose(
        segments[0],
        [
            [display.grid[first], display.curve[first]],
            [display.grid[first + 1], display.curve[first + 1]],
        ],
    )


def test_smooth_curve_is_not_drawn_where_undefined(pyplot):
    """Check that no segment is drawn where the curve is NaN, far from the data."""
    rng = np.random.RandomState(0)
    y_prob = rng.uniform(0.0, 0.1, size=500)
    y_true = (rng.uniform(size=500) < y_prob).astype(int)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, sigma=0.01, n_bootstrap=5, random_state=0
    )
    defined = np.isfinite(display.curve)
    assert 0 < defined.sum() < 100
    segments = np.asarray(display.line_.get_segments())
    assert np.isfinite(segments).all()
    # Drawn where defined, and only there: within the predictions' range.
    drawn = _drawn(display)
    assert not (drawn & ~defined).any()
    both = drawn[:-1] & drawn[1:]
    assert segments.shape[0] == both.sum() > 5
    assert segments[:, :, 0].max() <= display.prediction_range[1]


def test_smooth_legend_text(pyplot):
    """Check the legend: name, SmoothECE and its bootstrap interval."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, name="model"
    )
    lo, hi = display.smooth_ece_interval
    value = display.smooth_ece
    text = _legend_texts(display.ax_)[0]
    assert text == f"model: SmoothECE = {value:.3f} [{lo:.3f}, {hi:.3f}]"
    assert _legend_texts(display.plot(name="other").ax_)[0] == (
        f"other: SmoothECE = {value:.3f} [{lo:.3f}, {hi:.3f}]"
    )
    # The band has its own entry.
    assert _legend_texts(display.ax_)[1] == "95% bootstrap band"
    # The legend's line has a fixed width and the curve's colour.
    handle = display.ax_.get_legend().legend_handles[0]
    assert handle.get_linewidth() == 2.0
    assert_allclose(to_rgba(handle.get_color()), display.line_.get_color()[0])


def test_smooth_classwise_measures_in_titles(pyplot):
    """Check that a classwise grid has the measures in its titles (issue 12)."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng, n=300)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, reduction="classwise", n_bootstrap=0, name="model"
    )
    assert display.kind_ == "smooth"
    for k, ax in enumerate(display.axes_):
        assert ax.get_title() == (
            f"Class {k}\nmodel: SmoothECE {display.smooth_ece[k]:.3f}"
        )
        assert ax.get_legend() is None
    (legend,) = display.figure_.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "model",
        "Perfectly calibrated",
    ]


def test_random_state_makes_the_band_reproducible(pyplot):
    """Check that random_state fixes the band and that seeds change it."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    a, b, c = (
        SmoothReliabilityDisplay.from_predictions(
            y_true, y_prob, n_bootstrap=20, random_state=seed
        )
        for seed in (1, 1, 2)
    )
    assert_array_equal(a.band_low, b.band_low)
    assert a.smooth_ece_interval == b.smooth_ece_interval
    assert not np.array_equal(a.band_low, c.band_low, equal_nan=True)


def test_plot_of_a_hand_built_display(pyplot):
    """Check that a display built from its arrays draws them, band included."""
    grid = np.linspace(0, 1, 5)
    display = SmoothReliabilityDisplay(
        grid=grid,
        curve=grid,
        density=np.ones(5),
        sigma=0.1,
        smooth_ece=0.0,
        band_low=grid - 0.1,
        band_high=grid + 0.1,
        smooth_ece_interval=(0.0, 0.05),
    )
    display.plot()
    assert_array_equal(np.asarray(display.line_.get_segments())[:, 0, 0], grid[:-1])
    assert display.band_ is not None
    assert _legend_texts(display.ax_)[0] == "SmoothECE = 0.000 [0.000, 0.050]"


# ---------------------------------------------------------------------------
# Readable by default (issue 12): where the curve is drawn, and the fallback
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_predictions():
    """The demo's predictions: GaussianNB on breast cancer, 5-fold out-of-fold."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    proba = cross_val_predict(GaussianNB(), X, y, cv=5, method="predict_proba")
    return y, proba[:, 1]


def _band_x(display):
    """The x of every vertex of the drawn band."""
    return np.concatenate([p.vertices[:, 0] for p in display.band_.get_paths()])


def test_no_curve_where_predictions_are_few(pyplot, demo_predictions):
    """Check that the curve and band stop where almost no predictions are."""
    y_true, y_prob = demo_predictions
    # Almost all predictions at 0 or 1 (issue 12: 14 of 569 in between).
    assert np.histogram(y_prob, bins=10, range=(0, 1))[0][1:-1].sum() < 20
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, fallback=None
    )
    assert display.kind_ == "smooth"
    middle = (display.grid > 0.2) & (display.grid < 0.8)
    # The curve is defined there, but rests on few predictions: not drawn.
    assert np.isfinite(display.curve[middle]).all()
    assert (display.n_effective[middle] < 10).all()
    starts = _segment_starts(display)
    assert not ((starts > 0.2) & (starts < 0.8)).any()
    band_x = _band_x(display)
    assert not ((band_x > 0.2) & (band_x < 0.8)).any()
    # It is drawn where the predictions are, near 0 and 1.
    assert (starts < 0.05).any() and (starts > 0.95).any()
    # The legend still says the smooth diagram says little.
    assert "says little: predictions too few or too" in _legend_texts(display.ax_)[0]
    # With min_effective_count=0, only the mean-prediction rule hides points.
    everywhere = display.plot(min_effective_count=0)
    assert len(_segment_starts(everywhere)) > len(starts)


def test_curve_stays_within_the_range_of_the_predictions(pyplot):
    """Check that the curve starts at the smallest confidence, not at 0 (issue 12)."""
    rng = np.random.RandomState(0)
    # Top-label confidences of a 10-class model are at least 0.1; here >= 0.164.
    y_prob = 0.164 + 0.836 * rng.beta(3.0, 1.5, size=3000)
    y_true = (rng.uniform(size=3000) < y_prob**1.5).astype(int)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0
    )
    assert display.kind_ == "smooth"
    low, high = display.prediction_range
    assert low == y_prob.min() and high == y_prob.max()
    # Defined below the smallest prediction, but not drawn there.
    assert np.isfinite(display.curve[display.grid < low]).any()
    segments = np.asarray(display.line_.get_segments())
    assert segments[:, :, 0].min() >= low and segments[:, :, 0].max() <= high
    assert _band_x(display).min() >= low


def test_curve_not_drawn_where_it_reports_other_predictions(pyplot):
    """Check the mean-prediction rule at the ends: |mean_prediction - t| <= sigma.

    Issue 12: at the low end of a sparse tail, the curve reports the event
    rate of the far more numerous predictions above.
    """
    rng = np.random.RandomState(0)
    # Many predictions near 0.9 and a sparse tail down to 0.3.
    y_prob = np.concatenate([rng.uniform(0.85, 0.95, 3000), rng.uniform(0.3, 0.85, 60)])
    y_true = (rng.uniform(size=y_prob.shape[0]) < y_prob - 0.2).astype(int)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, sigma=0.15, n_bootstrap=0, fallback=None
    )
    shifted = np.abs(display.mean_prediction - display.grid) > display.sigma
    inside = (display.grid >= 0.3) & (display.grid <= 0.95)
    assert (shifted & inside & (display.n_effective >= 10)).any()
    starts = _segment_starts(display)
    assert not np.isin(np.round(starts, 9), np.round(display.grid[shifted], 9)).any()


def test_fallback_to_binned_on_the_demo(pyplot, demo_predictions):
    """Check that the demo's data get the binned diagram, with the reason shown.

    Issue 12: on 569 rows mostly at 0 or 1 the smooth curve swung between 0
    and 1 and its band filled the square.
    """
    y_true, y_prob = demo_predictions
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, name="GaussianNB"
    )
    assert display.kind_ == "binned"
    assert display.reason_.startswith("predictions too few or too concentrated")
    assert "of their range [0.00, 1.00]" in display.reason_
    # The binned diagram drawn is BinnedReliabilityDisplay's, at its defaults.
    expected = BinnedReliabilityDisplay.from_predictions(y_true, y_prob)
    assert isinstance(display.binned, BinnedReliabilityDisplay)
    assert_allclose(display.binned.ece, expected.ece)
    for key in ("weight", "event_rate", "interval_low", "interval_high"):
        assert_allclose(display.binned.table[key], expected.table[key], equal_nan=True)
    assert display.line_ is display.binned.line_ and display.band_ is None
    assert display.binned.errorbar_ is not None and display.binned.hist_ is not None
    assert display.ax_ is display.binned.ax_
    # The figure says which diagram it drew and why.
    texts = _legend_texts(display.ax_)
    assert texts[0].startswith("GaussianNB: ECE = ")
    assert "\nbinned: predictions too few or too" in texts[0]
    assert "95% Wilson interval per bin" in texts
    # The counts are written on the bars.
    counts = [t.get_text() for t in display.ax_.texts if t.get_text()]
    assert sum(int(c) for c in counts) == y_true.shape[0]
    # Asked not to, it draws the smooth curve (with the same note). Its band
    # was not computed: the curve alone ruled it out.
    smooth = display.plot(fallback=None)
    assert smooth.kind_ == "smooth" and smooth.reason_ == display.reason_
    assert display.band_low is None and smooth.band_ is None
    # Asked from the start, the smooth diagram has the band of the curve's
    # function, with the same resamples.
    kept = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, fallback=None
    )
    curve = smooth_reliability_curve(y_true, y_prob, n_bootstrap=20, random_state=0)
    assert kept.kind_ == "smooth" and kept.band_ is not None
    assert_array_equal(kept.band_low, curve.band_low)
    assert_array_equal(kept.band_high, curve.band_high)


def test_no_fallback_on_a_large_calibrated_sample(pyplot, global_random_seed):
    """Check that a large calibrated sample gets the smooth diagram (issue 12)."""
    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.beta(2.0, 2.0, size=5000)
    y_true = (rng.uniform(size=5000) < y_prob).astype(int)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0
    )
    assert display.kind_ == "smooth" and display.reason_ is None
    assert display.binned is None
    assert not any("\n" in t for t in _legend_texts(display.ax_))
    assert _drawn(display)[(display.grid > 0.05) & (display.grid < 0.95)].all()


def test_fallback_when_the_band_covers_the_square(pyplot):
    """Check the band rule on a hand-built display: a band 0.6 high on average."""
    grid = np.linspace(0, 1, 11)
    numbers = dict(
        grid=grid,
        curve=grid,
        density=np.ones(11),
        sigma=0.1,
        smooth_ece=0.05,
        n_effective=np.full(11, 50.0),
        mean_prediction=grid,
        prediction_range=(0.0, 1.0),
        band_low=grid - 0.3,
        band_high=grid + 0.3,
    )
    binned = BinnedReliabilityDisplay.from_predictions([0, 1, 1], [0.2, 0.5, 0.9])
    display = SmoothReliabilityDisplay(**numbers, binned=binned).plot()
    assert display.kind_ == "binned"
    assert display.reason_ == "the band covers 60% of the square where the curve is"
    # Without a binned diagram, the smooth one is drawn and says so.
    alone = SmoothReliabilityDisplay(**numbers).plot()
    assert alone.kind_ == "smooth" and alone.reason_ == display.reason_
    assert "says little: the band covers 60%" in _legend_texts(alone.ax_)[0]
    # A narrower band passes.
    narrow = {**numbers, "band_low": grid - 0.2, "band_high": grid + 0.2}
    assert SmoothReliabilityDisplay(**narrow, binned=binned).plot().kind_ == "smooth"


def test_classwise_falls_back_for_every_class(pyplot):
    """Check that a classwise grid falls back as a whole, naming a class."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    proba = cross_val_predict(GaussianNB(), X, y, cv=3, method="predict_proba")
    display = SmoothReliabilityDisplay.from_predictions(
        y, proba, reduction="classwise", n_bootstrap=0
    )
    assert display.kind_ == "binned"
    assert re.match(r"\d+ of 10 classes, e.g. class \d: ", display.reason_)
    assert len(display.line_) == 10 and display.band_ == [None] * 10
    assert all(ax.get_legend() is None for ax in display.axes_)
    (legend,) = display.figure_.legends
    assert "binned: " in legend.get_texts()[0].get_text()


def test_legend_is_outside_the_data(pyplot):
    """Check that the legend does not cover the curve (issue 12).

    Below the axes in the figures the Display creates (and in any figure
    with a layout engine); inside, at matplotlib's best place, otherwise.
    """
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, name="model"
    )
    figure = display.figure_
    figure.canvas.draw()
    box = display.ax_.get_legend().get_window_extent()
    frame = display.ax_.get_window_extent()
    assert box.y1 < frame.y0
    assert box.y0 > 0 and box.x0 > 0 and box.x1 < figure.bbox.x1
    # The x label is above the legend.
    label = display.ax_.xaxis.label.get_window_extent()
    assert label.y0 > box.y1
    # A figure without a layout engine keeps its legend inside.
    _, ax = pyplot.subplots()
    inside = display.plot(ax=ax)
    assert inside.ax_.get_legend().get_bbox_to_anchor().y0 == ax.bbox.y0


def test_no_gap_next_to_a_dense_region(pyplot):
    """Check that the mean-prediction rule cuts the ends only, not the middle."""
    rng = np.random.RandomState(0)
    y_prob = np.concatenate([rng.uniform(0.5, 0.9, 800), rng.uniform(0.96, 1.0, 8000)])
    y_true = (rng.uniform(size=y_prob.shape[0]) < y_prob - 0.05).astype(int)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, sigma=0.05, n_bootstrap=0
    )
    grid = display.grid
    shifted = np.abs(display.mean_prediction - grid) > display.sigma
    between = (grid > 0.6) & (grid < 0.96)
    assert (shifted & between).any()  # a dense region pulls the mean away
    drawn = _drawn(display)
    assert drawn[between].all()
    starts = _segment_starts(display)
    assert np.all(np.diff(starts) < 0.006)  # one piece, no gap
