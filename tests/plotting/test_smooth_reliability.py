"""Tests of the smooth reliability diagram (skcal/plotting/_smooth_reliability.py).

The numbers are those of :func:`~skcal.metrics.smooth_reliability_curve`
(checked in test_common.py, and the function itself in test_numbers.py);
these tests check what is drawn.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal.metrics import smooth_ece, smooth_reliability_curve
from skcal.plotting import SmoothReliabilityDisplay


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
    defined = np.isfinite(display.band_low)
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
    # Both edges are drawn over the whole defined range.
    assert_allclose(vertices[:, 1].max(), np.nanmax(display.band_high))
    assert_allclose(vertices[:, 1].min(), np.nanmin(display.band_low))
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
    middle = 0.5 * (display.density[:-1] + display.density[1:])
    expected = np.maximum(6.0 * middle / middle.max(), 0.5)
    assert_allclose(widths, expected)
    assert_allclose(widths.max(), 6.0)
    segments = display.line_.get_segments()
    assert len(segments) == 200
    assert_allclose(
        segments[10], [[0.05, display.curve[10]], [0.055, display.curve[11]]]
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
    both = defined[:-1] & defined[1:]
    assert segments.shape[0] == both.sum()
    assert segments[:, :, 0].max() <= display.grid[defined].max()


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
    assert text == f"model (SmoothECE = {value:.3f} [{lo:.3f}, {hi:.3f}])"
    assert _legend_texts(display.plot(name="other").ax_)[0] == (
        f"other (SmoothECE = {value:.3f} [{lo:.3f}, {hi:.3f}])"
    )
    # The legend's line has a fixed width and the curve's colour.
    handle = display.ax_.get_legend().legend_handles[0]
    assert handle.get_linewidth() == 2.0
    assert_allclose(to_rgba(handle.get_color()), display.line_.get_color()[0])


def test_smooth_classwise_legend_puts_the_name_on_its_own_line(pyplot):
    """Check that the small axes of a classwise grid get the name on its own line."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng, n=300)
    display = SmoothReliabilityDisplay.from_predictions(
        y_true, y_prob, reduction="classwise", n_bootstrap=0, name="model"
    )
    for k, ax in enumerate(display.axes_):
        assert _legend_texts(ax)[0] == (
            f"model\nSmoothECE = {display.smooth_ece[k]:.3f}"
        )


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
