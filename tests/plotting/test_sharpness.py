"""Tests of the calibration-sharpness diagram (skcal/plotting/_sharpness.py).

The numbers are those of :func:`~skcal.metrics.calibration_sharpness_curve`
(checked in test_common.py, and the function itself against dense kernel
sums in test_numbers.py); these tests check what is drawn, and that mean
replacement is a visible failure.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal.calibration import MeanReplacementRecalibrator
from skcal.metrics import calibration_sharpness_curve
from skcal.plotting import CalibrationSharpnessDisplay


def _multiclass(rng, n=400, k=4):
    y_prob = rng.dirichlet(np.full(k, 0.6), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_binary_view_and_labels(pyplot, global_random_seed):
    """Check the binary view: positive class 1, labelled axes, the function's curve."""
    rng = np.random.RandomState(global_random_seed)
    grid = np.linspace(0, 1, 21)
    y_prob = grid[rng.randint(3, 18, size=300)]
    y_true = (rng.uniform(size=300) < y_prob**2).astype(int)
    display = CalibrationSharpnessDisplay.from_predictions(
        y_true, y_prob, n_points=21, bandwidth=0.1
    )
    expected = calibration_sharpness_curve(y_true, y_prob, n_points=21, bandwidth=0.1)
    assert_array_equal(display.curve, expected.calibration)
    assert display.reduction == "positive" and display.pos_label == 1
    assert display.ax_.get_xlabel() == "Predicted probability (positive class: 1)"
    assert display.ax_.get_ylabel() == "Event rate given prediction"


def test_artists_and_band_drawn(pyplot):
    """Check the drawn curve, band, normalised density, limits and legend."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng)
    display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob, name="model")
    assert_array_equal(display.line_.get_xdata(), display.grid)
    drawn = np.isfinite(display.line_.get_ydata())
    assert_array_equal(display.line_.get_ydata()[drawn], display.curve[drawn])
    assert drawn.sum() > 100
    density_top = display.density_.get_paths()[0].vertices[:, 1].max()
    assert_allclose(density_top, 1.0)
    assert display.ax_.get_xlim() == display.ax_.get_ylim() == (-0.01, 1.01)
    band_top = max(p.vertices[:, 1].max() for p in display.band_.get_paths())
    assert_allclose(band_top, min(1.0, np.nanmax(display.band_high[drawn])))
    text = _legend_texts(display.ax_)[0]
    assert text == (
        f"model: calibration {display.calibration_error:.4f}, "
        f"total {display.total_loss:.4f} (Brier)"
    )
    assert display.ax_.get_xlabel() == "Confidence"
    assert display.ax_.get_ylabel() == "Accuracy given confidence"
    assert display.plot(show_density=False).density_ is None
    log = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob, loss="log")
    assert _legend_texts(log.ax_)[0].endswith("(log loss)")


def test_inverted_band_is_drawn_as_its_extent(pyplot):
    """Check that a band with negative height (a negative gap) is drawn upright."""
    grid = np.linspace(0, 1, 11)
    display = CalibrationSharpnessDisplay(
        grid=grid,
        curve=grid,
        density=np.ones(11),
        sharpness_gap=np.full(11, -0.1),
        band_low=grid + 0.05,
        band_high=grid - 0.05,
        calibration_error=0.0,
        total_loss=0.1,
    ).plot()
    # Drawn upright and clipped to [0, 1], which the legend says.
    vertices = np.concatenate([p.vertices for p in display.band_.get_paths()])
    assert_allclose(vertices[:, 1].max(), 1.0)
    assert_allclose(vertices[:, 1].min(), 0.0)
    heights = np.unique(np.round(np.diff(vertices[:, 1]), 12))
    assert 0.1 in np.abs(heights)
    assert "sharpness gap \u00d7 density (clipped to [0, 1])" in _legend_texts(
        display.ax_
    )


@pytest.mark.parametrize("noise", [0.0, 1e-9])
def test_mean_replacement_is_a_visible_failure(pyplot, global_random_seed, noise):
    """Check that mean replacement draws, with a spike density and a wide band."""
    rng = np.random.RandomState(global_random_seed)
    # A calibrated, sharp model.
    y_prob = rng.dirichlet(np.full(4, 0.6), size=800)
    y_true = np.array([rng.choice(4, p=row) for row in y_prob])
    mrr = MeanReplacementRecalibrator().fit(y_prob[:400], y_true[:400])
    replaced = mrr.predict_proba(y_prob[400:])
    if noise:
        jitter = noise * rng.uniform(size=replaced.shape)
        replaced = (replaced + jitter) / (replaced + jitter).sum(axis=1, keepdims=True)
    base = CalibrationSharpnessDisplay.from_predictions(
        y_true[400:], y_prob[400:], name="base"
    )
    mean = CalibrationSharpnessDisplay.from_predictions(
        y_true[400:], replaced, name="MRR", ax=base.ax_
    )
    assert base.constant_prediction is None
    assert_allclose(mean.constant_prediction, mrr.confidence_, atol=1e-8)
    # The curve is the accuracy wherever it is defined: where the kernel
    # weight is at least 1e-3 of its peak, within 3.72 bandwidths.
    accuracy = np.mean(replaced.argmax(axis=1) == y_true[400:])
    defined = np.isfinite(mean.curve)
    # Kernel sums are accurate to about 1e-14 of the total weight, so near
    # the cutoff (1e-3 of the peak) the ratio is accurate to about 1e-11.
    assert_allclose(mean.curve[defined], accuracy, atol=1e-4)
    reach = 0.05 * math.sqrt(2 * math.log(1e3))
    assert_array_equal(defined, np.abs(mean.grid - mean.constant_prediction) < reach)
    # Calibrated, but not sharp: a spike of density and a wide band.
    assert mean.calibration_error < 0.01
    assert mean.total_loss > base.total_loss + 0.01
    # The band is a spike taller than the unit square, at the one prediction.
    height = np.nan_to_num(mean.band_high - mean.band_low)
    assert height.max() > 1
    near = np.abs(mean.grid - mean.constant_prediction) <= 0.1
    assert height[near].sum() > 0.9 * height.sum()
    offset = np.abs(mean.grid - mean.constant_prediction).min() / 0.05
    peak = np.exp(-0.5 * offset**2) / (0.05 * math.sqrt(2 * math.pi))
    assert_allclose(np.nanmax(mean.density), peak, rtol=1e-9)
    # Both models are in the legend; the band is drawn clipped to [0, 1],
    # which the legend says; the curve of the constant predictor is a dot.
    texts = _legend_texts(base.ax_)
    assert texts[0].startswith("base: ")
    (mrr_text,) = [t for t in texts if t.startswith("MRR: ")]
    assert f"constant prediction {mean.constant_prediction:.3f}" in mrr_text
    assert "sharpness gap \u00d7 density (clipped to [0, 1])" in texts
    assert base.ax_.get_ylim() == (-0.01, 1.01)
    assert mean.line_.get_marker() == "o"
    assert_allclose(mean.line_.get_xdata(), [mean.constant_prediction])
    assert_allclose(mean.line_.get_ydata(), [accuracy], atol=1e-4)
    spike = np.concatenate([p.vertices for p in mean.band_.get_paths()])
    assert_allclose(spike[:, 1].max(), 1.0)
    # A bandwidth below the grid spacing does not crash either.
    narrow = CalibrationSharpnessDisplay.from_predictions(
        y_true[400:], replaced, bandwidth=1e-3
    )
    assert 0 < np.isfinite(narrow.curve).sum() <= 3


# kernel_calibration_error computes inf - inf at a prediction of 0 or 1.
@pytest.mark.filterwarnings("ignore:invalid value encountered in subtract")
def test_log_loss_with_impossible_outcomes(pyplot):
    """Check that an infinite log loss gives an infinite band that is not drawn."""
    y_true = np.array([0, 1, 1, 0, 1])
    y_prob = np.array([0.2, 0.8, 1.0, 0.0, 0.0])
    display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob, loss="log")
    defined = np.isfinite(display.curve)
    assert np.isinf(display.total_loss)
    # Infinite, or NaN at 0 and 1 where the divergence is infinite too.
    assert not np.isfinite(display.band_high[defined]).any()
    inner = defined[1:-1]
    assert inner.any() and np.isinf(display.band_high[1:-1][inner]).all()
    assert display.band_.get_paths() == [] or all(
        np.isfinite(path.vertices).all() for path in display.band_.get_paths()
    )
    assert np.isfinite(display.ax_.get_ylim()).all()


def test_real_data_mean_replacement(pyplot, real_multiclass, tmp_path):
    """Check on real outputs that mean replacement wins on calibration only."""
    labels, probs = real_multiclass
    rows = np.random.RandomState(0).permutation(labels.shape[0])
    cal, test = rows[:3000], rows[3000:5000]
    y_prob = probs.astype(np.float64)
    y_prob /= y_prob.sum(axis=1, keepdims=True)
    classes = np.arange(y_prob.shape[1])
    mrr = MeanReplacementRecalibrator(classes=classes).fit(y_prob[cal], labels[cal])
    base = CalibrationSharpnessDisplay.from_predictions(
        labels[test], y_prob[test], labels=classes, name="model"
    )
    mean = CalibrationSharpnessDisplay.from_predictions(
        labels[test],
        mrr.predict_proba(y_prob[test]),
        labels=classes,
        name="mean replacement",
    )
    assert mean.calibration_error < 0.01
    assert mean.total_loss > base.total_loss + 0.01
    assert np.nanmax(mean.band_high - mean.band_low) > 2 * np.nanmax(
        base.band_high - base.band_low
    )
    path = tmp_path / "sharpness.png"
    mean.figure_.savefig(path)
    assert path.stat().st_size > 1000


# ---------------------------------------------------------------------------
# Readable by default (issue 12)
# ---------------------------------------------------------------------------


def _demo_like(rng, n=569):
    """Predictions almost all at 0 or 1, with a few in between (issue 12)."""
    ends = rng.uniform(size=n) < 0.6
    y_prob = np.where(
        ends, rng.uniform(0.97, 1.0, size=n), rng.uniform(0, 0.03, size=n)
    )
    middle = rng.choice(n, size=14, replace=False)
    y_prob[middle] = rng.uniform(0.1, 0.9, size=14)
    y_true = (rng.uniform(size=n) < y_prob).astype(int)
    return y_true, y_prob


def test_every_drawn_element_has_a_legend_entry(pyplot):
    """Check the legend entries of curve, band, density and diagonal (issue 12)."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng)
    display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob, name="m")
    legend = display.ax_.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert len(texts) == len(legend.legend_handles) == 4
    assert texts[0].startswith("m: calibration ")
    # The band's entry names it (and says when its drawing is clipped).
    assert texts[1].startswith("sharpness gap \u00d7 density")
    assert texts[2:] == ["density of predictions (peak = 1)", "Perfectly calibrated"]
    # Each drawn artist is labelled with its entry.
    assert display.line_.get_label() == texts[0]
    assert display.band_.get_label() == texts[1]
    assert display.density_.get_label() == "density of predictions (peak = 1)"
    assert display.ref_line_.get_label() == "Perfectly calibrated"
    # The legend is below the axes, away from the data.
    figure = display.figure_
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    box, frame = legend.get_window_extent(renderer), display.ax_.get_window_extent()
    assert box.y1 < frame.y0
    assert figure.bbox.contains(box.x0, box.y0) and figure.bbox.contains(box.x1, box.y1)


def test_probability_axis_stays_in_the_unit_square(pyplot, global_random_seed):
    """Check limits [0, 1] (small margin) and a clipped band (issue 12)."""
    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.dirichlet(np.full(4, 0.6), size=800)
    y_true = np.array([rng.choice(4, p=row) for row in y_prob])
    mrr = MeanReplacementRecalibrator().fit(y_prob[:400], y_true[:400])
    display = CalibrationSharpnessDisplay.from_predictions(
        y_true[400:], mrr.predict_proba(y_prob[400:])
    )
    assert np.nanmax(display.band_high) > 1.5  # the stored band is not clipped
    for low, high in (display.ax_.get_xlim(), display.ax_.get_ylim()):
        assert -0.02 <= low <= 0.0 and 1.0 <= high <= 1.02
    vertices = np.concatenate([p.vertices for p in display.band_.get_paths()])
    assert vertices[:, 1].min() >= 0.0 and vertices[:, 1].max() <= 1.0


def test_compared_panels_share_their_axes(pyplot, global_random_seed):
    """Check that panels drawn side by side get the same limits (issue 12)."""
    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.dirichlet(np.full(4, 0.6), size=600)
    y_true = np.array([rng.choice(4, p=row) for row in y_prob])
    mrr = MeanReplacementRecalibrator().fit(y_prob[:300], y_true[:300])
    _, axes = pyplot.subplots(1, 2, layout="constrained")
    CalibrationSharpnessDisplay.from_predictions(y_true[300:], y_prob[300:], ax=axes[0])
    CalibrationSharpnessDisplay.from_predictions(
        y_true[300:], mrr.predict_proba(y_prob[300:]), ax=axes[1]
    )
    assert axes[0].get_xlim() == axes[1].get_xlim() == (-0.01, 1.01)
    assert axes[0].get_ylim() == axes[1].get_ylim() == (-0.01, 1.01)


def test_curve_not_drawn_where_predictions_are_few(pyplot):
    """Check that the curve and band stop where the predictions do (issue 12)."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _demo_like(rng)
    display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob)
    drawn = np.isfinite(display.line_.get_ydata())
    # Defined everywhere, drawn only near 0 and 1.
    assert np.isfinite(display.curve).all()
    low, high = display.prediction_range
    grid = display.grid
    assert drawn[(grid >= low) & (grid <= 0.03)].all()
    assert drawn[(grid >= 0.97) & (grid <= high)].all()
    assert not drawn[(display.grid > 0.2) & (display.grid < 0.8)].any()
    assert (display.n_effective[drawn] >= 10).all()
    band_x = np.concatenate([p.vertices[:, 0] for p in display.band_.get_paths()])
    assert not ((band_x > 0.2) & (band_x < 0.8)).any()
    # Nor outside the range of the predictions.
    narrow = CalibrationSharpnessDisplay.from_predictions(
        y_true, 0.3 + 0.4 * y_prob, bandwidth=0.02
    )
    x = narrow.grid[np.isfinite(narrow.line_.get_ydata())]
    low, high = narrow.prediction_range
    assert x.min() >= low and x.max() <= high
    # With min_effective_count=0 more of it is drawn.
    assert np.isfinite(display.plot(min_effective_count=0).line_.get_ydata()).sum() > (
        drawn.sum()
    )
