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
    assert display.ax_.get_ylabel() == (
        "Event rate given prediction (positive class: 1)"
    )


def test_artists_and_band_drawn(pyplot):
    """Check the drawn curve, band, normalised density, limits and legend."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng)
    display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob, name="model")
    assert_array_equal(display.line_.get_xdata(), display.grid)
    assert_array_equal(display.line_.get_ydata(), display.curve)
    density_top = display.density_.get_paths()[0].vertices[:, 1].max()
    assert_allclose(density_top, 1.0)
    assert display.ax_.get_xlim() == (0.0, 1.0)
    assert display.ax_.get_ylim()[0] == 0.0
    assert display.ax_.get_ylim()[1] >= np.nanmax(display.band_high)
    band_top = display.band_.get_paths()[0].vertices[:, 1].max()
    assert_allclose(band_top, np.nanmax(display.band_high))
    text = _legend_texts(display.ax_)[0]
    assert text == (
        f"model\ncalibration {display.calibration_error:.4f}, "
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
    vertices = np.concatenate([p.vertices for p in display.band_.get_paths()])
    assert_allclose(vertices[:, 1].max(), 1.05)
    assert_allclose(vertices[:, 1].min(), -0.05)


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
    # Both models are in the legend; the axes grow to show the spike.
    texts = _legend_texts(base.ax_)
    assert texts[0].startswith("base\n") and texts[-1].startswith("MRR\n")
    assert "constant prediction" in texts[-1]
    assert f"constant prediction {mean.constant_prediction:.3f}" in texts[-1]
    assert base.ax_.get_ylim()[1] >= np.nanmax(mean.band_high)
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
