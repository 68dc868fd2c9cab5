"""Tests of the Displays of probabilistic regression (PIT, quantiles, mean)."""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import ndtri
from sklearn.linear_model import BayesianRidge, LinearRegression

from skcal._param_validation import InvalidParameterError
from skcal.plotting import (
    MeanReliabilityDisplay,
    PITHistogramDisplay,
    QuantileReliabilityDisplay,
)
from skcal.regression import (
    VarianceRecalibrator,
    mean_calibration_decomposition,
    mean_reliability_curve,
    pit_calibration_error,
    pit_values,
    quantile_calibration_error,
    quantile_coverage,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _gaussian(seed, n=300):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.normal(scale=1.5, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    return X, y, w


def test_pit_histogram_draws_the_histogram_of_pit_values(global_random_seed):
    """Check that the PIT histogram is the density of pit_values' histogram."""
    X, y, w = _gaussian(global_random_seed)
    mean, std = BayesianRidge().fit(X, y).predict(X, return_std=True)
    std = 0.5 * std
    display = PITHistogramDisplay.from_predictions(
        y, mean, std, sample_weight=w, n_bins=8
    )
    counts, edges = np.histogram(
        pit_values(y, mean, std), bins=np.linspace(0, 1, 9), weights=w
    )
    assert_allclose(display.bin_edges, edges)
    assert_allclose(display.density, counts / counts.sum() * 8)
    assert display.error == pit_calibration_error(y, mean, std, sample_weight=w)
    low, high = display.band
    assert low < 1.0 < high
    assert "PIT error" in display.stairs_.get_label()


def test_quantile_diagram_draws_quantile_coverage(global_random_seed):
    """Check that the quantile diagram draws quantile_coverage at each level."""
    X, y, w = _gaussian(global_random_seed)
    mean, std = BayesianRidge().fit(X, y).predict(X, return_std=True)
    levels = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    y_quantiles = mean[:, None] + 0.5 * std[:, None] * ndtri(levels)
    display = QuantileReliabilityDisplay.from_predictions(
        y, y_quantiles, quantiles=levels, sample_weight=w
    )
    options = {"quantiles": levels, "sample_weight": w}
    assert_allclose(display.coverage, quantile_coverage(y, y_quantiles, **options))
    assert display.error == quantile_calibration_error(y, y_quantiles, **options)
    assert_array_equal(display.line_.get_xdata(), levels)
    low, high = display.band
    assert np.all(low <= levels) and np.all(levels <= high)


def test_mean_diagram_draws_the_isotonic_curve(global_random_seed):
    """Check that the mean diagram draws mean_reliability_curve and its MCB."""
    X, y, w = _gaussian(global_random_seed)
    pred = np.round(0.7 * LinearRegression().fit(X, y).predict(X), 1)
    display = MeanReliabilityDisplay.from_predictions(y, pred, sample_weight=w)
    predicted, recalibrated = mean_reliability_curve(y, pred, sample_weight=w)
    assert_allclose(display.predicted, predicted)
    assert_allclose(display.recalibrated, recalibrated)
    terms = mean_calibration_decomposition(y, pred, sample_weight=w)
    assert display.miscalibration == terms.miscalibration
    assert "MCB" in display.line_.get_label()


def test_from_estimator_equals_from_predictions(global_random_seed):
    """Check that each from_estimator draws the same as from_predictions."""
    X, y, _ = _gaussian(global_random_seed)
    model = BayesianRidge().fit(X, y)
    mean, std = model.predict(X, return_std=True)
    pit = PITHistogramDisplay.from_estimator(model, X, y)
    assert_allclose(
        pit.density, PITHistogramDisplay.from_predictions(y, mean, std).density
    )
    assert pit.name == "BayesianRidge"
    levels = np.array([0.25, 0.5, 0.75])
    quantile = QuantileReliabilityDisplay.from_estimator(model, X, y, quantiles=levels)
    expected = quantile_coverage(
        y, mean[:, None] + std[:, None] * ndtri(levels), quantiles=levels
    )
    assert_allclose(quantile.coverage, expected)
    mean_display = MeanReliabilityDisplay.from_estimator(model, X, y, name="br")
    assert_allclose(mean_display.predicted, np.unique(mean))
    assert mean_display.line_.get_label().startswith("br")


def test_quantile_diagram_of_a_recalibrator_uses_predict_quantiles():
    """Check that a recalibrator's quantiles come from its predict_quantiles."""
    X, y, _ = _gaussian(0)
    predictions = np.column_stack(BayesianRidge().fit(X, y).predict(X, return_std=True))
    recalibrator = VarianceRecalibrator().fit(predictions, y)
    display = QuantileReliabilityDisplay.from_estimator(recalibrator, predictions, y)
    levels = display.quantiles
    assert levels.shape[0] == 19
    expected = quantile_coverage(
        y, recalibrator.predict_quantiles(predictions, levels), quantiles=levels
    )
    assert_allclose(display.coverage, expected)


@pytest.mark.parametrize(
    "draw",
    [
        PITHistogramDisplay.from_predictions,
        lambda y, m, s, **kw: QuantileReliabilityDisplay.from_predictions(
            y, m[:, None] + s[:, None] * ndtri([0.2, 0.8]), quantiles=[0.2, 0.8], **kw
        ),
        lambda y, m, s, **kw: MeanReliabilityDisplay.from_predictions(y, m, **kw),
    ],
    ids=["pit", "quantile", "mean"],
)
def test_two_models_on_one_axes_share_one_reference(draw):
    """Check that a second model on the same axes adds its curve, not a reference."""
    X, y, _ = _gaussian(1)
    mean, std = BayesianRidge().fit(X, y).predict(X, return_std=True)
    first = draw(y, mean, std, name="a")
    n_lines = len(first.ax_.get_lines())
    second = draw(y, mean, 2 * std, name="b", ax=first.ax_)
    assert second.ax_ is first.ax_
    labels = [line.get_label() for line in first.ax_.get_lines()]
    assert len(first.ax_.get_lines()) <= n_lines + 2
    assert (
        len([t for t in labels if t.startswith(("Uniform", "Perfectly", "Calibrated"))])
        == 1
    )
    legend = [t.get_text() for t in first.ax_.get_legend().get_texts()]
    assert any(t.startswith("a") for t in legend)
    assert any(t.startswith("b") for t in legend)


def test_style_keywords_reach_the_artists():
    """Check that hist_kwargs and line_kwargs (aliases included) are applied."""
    X, y, _ = _gaussian(2)
    mean, std = BayesianRidge().fit(X, y).predict(X, return_std=True)
    pit = PITHistogramDisplay.from_predictions(y, mean, std, hist_kwargs={"lw": 3.5})
    assert pit.stairs_.get_linewidth() == 3.5
    mean_display = MeanReliabilityDisplay.from_predictions(
        y, mean, line_kwargs={"c": "red"}
    )
    assert mean_display.line_.get_color() == "red"


def test_displays_reject_bad_input():
    """Check that the Displays reject bad options and data with clear errors."""
    X, y, _ = _gaussian(3)
    mean, std = BayesianRidge().fit(X, y).predict(X, return_std=True)
    with pytest.raises(InvalidParameterError, match="n_bins"):
        PITHistogramDisplay.from_predictions(y, mean, std, n_bins=0)
    with pytest.raises(ValueError, match="standard deviation"):
        PITHistogramDisplay.from_predictions(y, mean, -std)
    with pytest.raises(ValueError, match="strictly increasing"):
        QuantileReliabilityDisplay.from_predictions(
            y, np.column_stack([mean, mean]), quantiles=[0.9, 0.1]
        )
    with pytest.raises(TypeError, match="hist_kwargs"):
        PITHistogramDisplay.from_predictions(
            y, mean, std, hist_kwargs={"c": "r", "color": "b"}
        )
    with pytest.raises(TypeError, match="return_std"):
        PITHistogramDisplay.from_estimator(LinearRegression().fit(X, y), X, y)
