"""Tests of the calibration-sharpness diagram."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import rel_entr

from skcal.calibration import MeanReplacementRecalibrator
from skcal.metrics import kernel_calibration_error
from skcal.plotting import CalibrationSharpnessDisplay

KERNEL_MASS = {"gaussian": math.sqrt(2 * math.pi), "epanechnikov": 4.0 / 3.0}


def _multiclass(rng, n=400, k=4):
    y_prob = rng.dirichlet(np.full(k, 0.6), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


def _reference(y_true, y_prob, weights, grid, loss, kernel, bandwidth):
    """Dense O(n * grid) kernel estimates of the top-label (or binary) view."""
    if y_prob.ndim == 1:  # binary, positive class 1
        p, y = y_prob, (y_true == 1).astype(float)
        full = np.column_stack([1 - y_prob, y_prob])
        index = (y_true == 1).astype(int)
    else:
        p = y_prob.max(axis=1)
        y = (y_prob.argmax(axis=1) == y_true).astype(float)
        full, index = y_prob, y_true
    onehot = np.eye(full.shape[1])[index]
    if loss == "brier":
        score = ((full - onehot) ** 2).sum(axis=1)
    else:
        score = -np.log(full[np.arange(len(index)), index])
    w = np.ones_like(p) if weights is None else weights
    u = (grid[:, None] - p[None, :]) / bandwidth
    K = np.exp(-0.5 * u**2) if kernel == "gaussian" else np.clip(1 - u**2, 0, None)
    total = K @ w
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = (K @ (w * y)) / total
        # No non-event in the window: exactly 1 (the sums may round).
        rate[(K @ (w * (1 - y)) == 0) & (total > 0)] = 1.0
        expected = (K @ (w * score)) / total
        if loss == "brier":
            pointwise = (grid - rate) ** 2
        else:
            pointwise = rel_entr(rate, grid) + rel_entr(1 - rate, 1 - grid)
    density = total / (w.sum() * bandwidth * KERNEL_MASS[kernel])
    return rate, density, expected - pointwise, total


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov"])
@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("problem", ["multiclass", "weighted-binary"])
def test_curve_is_the_kernel_regression(
    pyplot, global_random_seed, kernel, loss, problem
):
    """Check the grid arrays against a dense kernel regression."""
    rng = np.random.RandomState(global_random_seed)
    weights = None
    if problem == "multiclass":
        y_true, y_prob = _multiclass(rng)
    else:
        y_prob = rng.uniform(0.02, 0.98, size=400)
        y_true = (rng.uniform(size=400) < y_prob**1.3).astype(int)
        weights = rng.uniform(0.1, 3.0, size=400)
    display = CalibrationSharpnessDisplay.from_predictions(
        y_true,
        y_prob,
        sample_weight=weights,
        loss=loss,
        kernel=kernel,
        bandwidth=0.08,
        n_points=101,
    )
    rate, density, gap, total = _reference(
        y_true, y_prob, weights, display.grid, loss, kernel, 0.08
    )
    assert_array_equal(display.grid, np.linspace(0, 1, 101))
    defined = np.isfinite(display.curve)
    # Undefined only where the kernel weight is negligible.
    assert np.all(total[~defined] <= 1e-3 * total.max())
    assert defined.sum() > 40
    assert_allclose(display.curve[defined], rate[defined], rtol=1e-9, atol=1e-12)
    assert_allclose(display.density, density, rtol=1e-9, atol=1e-12)
    assert_allclose(display.sharpness_gap[defined], gap[defined], rtol=1e-7, atol=1e-9)
    length = density * gap
    assert_allclose(
        display.band_high[defined], (rate + length / 2)[defined], rtol=1e-7, atol=1e-9
    )
    assert_allclose(
        display.band_low[defined],
        np.maximum(rate - length / 2, 0)[defined],
        rtol=1e-7,
        atol=1e-9,
    )
    expected = kernel_calibration_error(
        y_true,
        y_prob,
        sample_weight=weights,
        loss=loss,
        kernel=kernel,
        bandwidth=0.08,
        return_sharpness=True,
    )
    assert display.calibration_error == expected.calibration_error
    assert display.total_loss == expected.total_loss


def test_grid_agrees_with_the_metric_at_the_predictions(pyplot, global_random_seed):
    """Check that at grid predictions, the arrays are the metric's pointwise ones."""
    rng = np.random.RandomState(global_random_seed)
    grid = np.linspace(0, 1, 21)
    y_prob = grid[rng.randint(3, 18, size=300)]
    y_true = (rng.uniform(size=300) < y_prob**2).astype(int)
    display = CalibrationSharpnessDisplay.from_predictions(
        y_true, y_prob, n_points=21, bandwidth=0.1
    )
    result = kernel_calibration_error(
        y_true, y_prob, bandwidth=0.1, return_sharpness=True
    )
    index = np.rint(y_prob * 20).astype(int)
    assert_allclose(display.curve[index], result.event_rate, rtol=1e-12)
    assert_allclose(display.density[index], result.density, rtol=1e-12)
    assert_allclose(
        display.sharpness_gap[index], result.pointwise_sharpness_gap, rtol=1e-10
    )
    assert display.reduction == "positive" and display.pos_label == 1
    assert display.ax_.get_xlabel() == "Predicted probability (positive class: 1)"


def test_artists_and_band_drawn(pyplot):
    """Check the drawn curve, band, normalised density, limits and legend."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng)
    display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob, name="model")
    assert_array_equal(display.line_.get_xdata(), display.grid)
    assert_array_equal(display.line_.get_ydata(), display.curve)
    density_top = display.density_.get_paths()[0].vertices[:, 1].max()
    assert_allclose(density_top, 1.0)
    assert display.ax_.get_ylim()[1] >= np.nanmax(display.band_high)
    band_top = display.band_.get_paths()[0].vertices[:, 1].max()
    assert_allclose(band_top, np.nanmax(display.band_high))
    text = display.ax_.get_legend().get_texts()[0].get_text()
    assert text == (
        f"model\ncalibration {display.calibration_error:.4f}, "
        f"total {display.total_loss:.4f} (Brier)"
    )
    assert display.ax_.get_xlabel() == "Confidence"
    assert display.plot(show_density=False).density_ is None


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
    texts = [t.get_text() for t in base.ax_.get_legend().get_texts()]
    assert "constant prediction" in texts[-1]
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
