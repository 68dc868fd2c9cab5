"""Tests of the histogram-binning recalibrator."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, softmax

from skcal.calibration import HistogramBinningRecalibrator
from skcal.metrics import binned_calibration_error, reliability_table
from tests.calibration._top_label import assert_top_label_rows, calibrated_confidence
from tests.metrics._reference import (
    random_binary,
    random_multiclass,
    random_weights,
    ref_edges,
)

STRATEGIES = ["uniform", "quantile"]


def _brute_force_bin_values(y, p, w, edges):
    """Each bin's weighted mean label (its midpoint when empty), by loops.

    Bins are ``(edges[j], edges[j + 1]]``, the first one also holding 0.
    """
    values = []
    for j in range(len(edges) - 1):
        lo, hi = edges[j], edges[j + 1]
        weight = events = 0.0
        for yi, pi, wi in zip(y, p, w, strict=True):
            if (pi > lo or (j == 0 and pi >= lo)) and pi <= hi:
                weight += wi
                events += wi * yi
        values.append(events / weight if weight > 0 else 0.5 * (lo + hi))
    return values


def _subsample(rng, labels, probs, n):
    """``n`` random rows of real outputs, as float64."""
    idx = rng.permutation(labels.shape[0])[:n]
    return labels[idx], probs[idx].astype(np.float64)


# ---------------------------------------------------------------------------
# The bins are the reliability table's, and their values its event rates
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [1, 7, 15, "cube_root"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_bins_match_reliability_table(
    global_random_seed, strategy, n_bins, weighted, ties
):
    """Check that bins, weights and values are those of reliability_table."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 200, ties=ties)
    w = random_weights(rng, 200) if weighted else None
    recal = HistogramBinningRecalibrator(n_bins=n_bins, strategy=strategy)
    recal.fit(p, y, sample_weight=w)
    table = reliability_table(y, p, sample_weight=w, n_bins=n_bins, strategy=strategy)
    assert len(recal.bin_edges_) == len(recal.bin_values_) == 1
    edges, values = recal.bin_edges_[0], recal.bin_values_[0]
    assert_array_equal(edges[:-1], table.bin_lower)
    assert_array_equal(edges[1:], table.bin_upper)
    assert_allclose(recal.bin_weights_[0], table.weight, rtol=1e-12)
    full = table.weight > 0
    assert_allclose(values[full], table.event_rate[full], rtol=1e-12, atol=1e-15)
    midpoints = 0.5 * (table.bin_lower + table.bin_upper)
    assert_allclose(values[~full], midpoints[~full], rtol=1e-15)
    # Each prediction is its bin's value.
    bins = np.searchsorted(edges, p, side="left") - 1
    assert_allclose(recal.predict_proba(p)[:, 1], values[np.maximum(bins, 0)])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [1, 4, 10, "cube_root"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_matches_brute_force(global_random_seed, strategy, n_bins, weighted, ties):
    """Check edges and bin values against a loop over bins on random data."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 150, ties=ties)
    w = random_weights(rng, 150) if weighted else np.ones(150)
    recal = HistogramBinningRecalibrator(n_bins=n_bins, strategy=strategy)
    recal.fit(p, y, sample_weight=w if weighted else None)
    edges = ref_edges(p, w, n_bins, strategy)
    assert_allclose(recal.bin_edges_[0], edges, rtol=0, atol=0)
    expected = _brute_force_bin_values(y.tolist(), p.tolist(), w.tolist(), edges)
    assert_allclose(recal.bin_values_[0], expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_bins", [4, 10])
def test_empty_bin_predicts_its_midpoint(global_random_seed, n_bins):
    """Check that a bin without calibration samples predicts its midpoint."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0, 0.49, size=100)
    y = (rng.uniform(size=100) < p).astype(int)
    y[:2] = [0, 1]
    recal = HistogramBinningRecalibrator(n_bins=n_bins).fit(p, y)
    edges = np.arange(n_bins + 1) / n_bins
    empty = edges[:-1] >= 0.5
    assert_array_equal(recal.bin_weights_[0][empty], 0.0)
    assert_allclose(recal.bin_values_[0][empty], (edges[:-1] + 0.5 / n_bins)[empty])
    new = np.array([0.55, 0.8, 0.99, 1.0])
    expected = (np.ceil(new * n_bins) - 0.5) / n_bins
    assert_allclose(recal.predict_proba(new)[:, 1], expected, rtol=1e-12)


# ---------------------------------------------------------------------------
# Piecewise constant, and calibrated in sample with its own bins
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [3, 15])
@pytest.mark.parametrize("n", [5, 200])
def test_outputs_take_at_most_n_bins_values(global_random_seed, strategy, n_bins, n):
    """Check claim 18: at most n_bins values per map, min(n, n_bins) in sample."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n)
    y[:2] = [0, 1]
    recal = HistogramBinningRecalibrator(n_bins=n_bins, strategy=strategy)
    recal.fit(p, y)
    grid = np.linspace(0, 1, 5001)
    assert np.unique(recal.predict_proba(grid)[:, 1]).shape[0] <= n_bins
    in_sample = np.unique(recal.predict_proba(p)[:, 1]).shape[0]
    assert in_sample <= min(n, n_bins)
    assert np.isin(recal.predict_proba(grid)[:, 1], recal.bin_values_[0]).all()


@pytest.mark.parametrize("multiclass", ["ovr", "top_label"])
def test_multiclass_maps_take_at_most_n_bins_values(global_random_seed, multiclass):
    """Check that each fitted multiclass map takes at most n_bins values."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 300, 4)
    y[:4] = np.arange(4)
    recal = HistogramBinningRecalibrator(n_bins=6, multiclass=multiclass)
    recal.fit(prob, y)
    grid = np.linspace(0, 1, 2001)
    for fitted_map in recal.calibrators_:
        assert np.unique(fitted_map(grid)).shape[0] <= 6
    if multiclass == "top_label":
        _, new = random_multiclass(rng, 500, 4)
        top = np.argmax(new, axis=1)
        confidence = recal.predict_proba(new)[np.arange(500), top]
        assert np.unique(confidence).shape[0] <= 6


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [1, 5, 15, "cube_root"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("norm", ["l1", "max"])
def test_in_sample_binned_error_is_zero(
    global_random_seed, strategy, n_bins, weighted, norm
):
    """Check that the recalibrated calibration set has binned error 0, same bins."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 300, ties=bool(global_random_seed % 2))
    w = random_weights(rng, 300) if weighted else None
    kwargs = {"n_bins": n_bins, "strategy": strategy}
    recal = HistogramBinningRecalibrator(**kwargs).fit(p, y, sample_weight=w)
    q = recal.predict_proba(p)[:, 1]
    error = binned_calibration_error(y, q, sample_weight=w, norm=norm, **kwargs)
    assert_allclose(error, 0.0, atol=1e-12)
    # The raw predictions are miscalibrated (labels drawn from p ** 1.4).
    if n_bins != 1:
        raw = binned_calibration_error(y, p, sample_weight=w, norm=norm, **kwargs)
        assert raw > 1e-3


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "n, n_zero, expected", [(27, 0, 3), (28, 0, 4), (200, 0, 6), (130, 5, 5)]
)
def test_cube_root_n_bins(global_random_seed, strategy, n, n_zero, expected):
    """Check n_bins="cube_root": ceil of the cube root of the positive-weight count."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n)
    y[:2] = [0, 1]
    w = np.ones(n)
    w[2 : 2 + n_zero] = 0.0
    recal = HistogramBinningRecalibrator(n_bins="cube_root", strategy=strategy)
    recal.fit(p, y, sample_weight=w)
    assert recal.bin_values_[0].shape[0] <= expected
    if strategy == "uniform":
        assert_allclose(recal.bin_edges_[0], np.arange(expected + 1) / expected)
    table = reliability_table(
        y, p, sample_weight=w, n_bins="cube_root", strategy=strategy
    )
    assert_array_equal(recal.bin_edges_[0][1:], table.bin_upper)
    fixed = HistogramBinningRecalibrator(n_bins=expected, strategy=strategy)
    fixed.fit(p, y, sample_weight=w)
    assert_array_equal(recal.bin_edges_[0], fixed.bin_edges_[0])
    assert_array_equal(recal.bin_values_[0], fixed.bin_values_[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [3, 10])
def test_integer_weights_equal_repeated_rows(global_random_seed, strategy, n_bins):
    """Check that integer weights give the edges and values of repeated rows."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 120, ties=bool(global_random_seed % 2))
    w = rng.randint(0, 4, size=120)
    w[0] = 1
    kwargs = {"n_bins": n_bins, "strategy": strategy}
    weighted = HistogramBinningRecalibrator(**kwargs).fit(p, y, sample_weight=w)
    repeated = HistogramBinningRecalibrator(**kwargs)
    repeated.fit(np.repeat(p, w), np.repeat(y, w))
    assert_array_equal(weighted.bin_edges_[0], repeated.bin_edges_[0])
    assert_allclose(weighted.bin_values_[0], repeated.bin_values_[0], rtol=1e-12)
    assert_allclose(weighted.bin_weights_[0], repeated.bin_weights_[0])
    grid = np.linspace(0, 1, 501)
    assert_allclose(
        weighted.predict_proba(grid), repeated.predict_proba(grid), rtol=1e-12
    )


# ---------------------------------------------------------------------------
# Logits and multiclass problems
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("multiclass", ["ovr", "top_label"])
def test_logits_are_binned_after_logistic_or_softmax(
    global_random_seed, strategy, n_classes, multiclass
):
    """Check that logit scores give the fit of their logistic or softmax."""
    rng = np.random.RandomState(global_random_seed)
    logits = rng.normal(scale=2.5, size=(300, n_classes))
    if n_classes == 2:
        logits = logits[:, 1]
        prob = expit(logits)
        y = (rng.uniform(size=300) < prob**1.5).astype(int)
    else:
        prob = softmax(logits, axis=1)
        y = np.array([rng.choice(n_classes, p=row) for row in prob])
    y[:n_classes] = np.arange(n_classes)
    kwargs = {"n_bins": 8, "strategy": strategy, "multiclass": multiclass}
    on_logits = HistogramBinningRecalibrator(input="logit", **kwargs).fit(logits, y)
    on_prob = HistogramBinningRecalibrator(input="probability", **kwargs)
    on_prob.fit(prob, y)
    assert on_logits.input_ == "logit"
    for a, b in zip(on_logits.bin_edges_, on_prob.bin_edges_, strict=True):
        assert_allclose(a, b, rtol=1e-12)
    for a, b in zip(on_logits.bin_values_, on_prob.bin_values_, strict=True):
        assert_allclose(a, b, rtol=1e-12)
    new = rng.normal(scale=2.5, size=(200, n_classes))
    new = new[:, 1] if n_classes == 2 else new
    new_prob = expit(new) if n_classes == 2 else softmax(new, axis=1)
    assert_allclose(
        on_logits.predict_proba(new), on_prob.predict_proba(new_prob), rtol=1e-12
    )
    # "auto" recognises unbounded scores as logits.
    auto = HistogramBinningRecalibrator(**kwargs).fit(logits * 3 + 2, y)
    assert auto.input_ == "logit"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_real_ovr(real_multiclass, global_random_seed, strategy):
    """Check one-vs-rest on real outputs: per-class tables, rows renormalised."""
    rng = np.random.RandomState(global_random_seed)
    labels, probs = _subsample(rng, *real_multiclass, 3000)
    recal = HistogramBinningRecalibrator(n_bins=10, strategy=strategy)
    recal.fit(probs, labels)
    n_classes = probs.shape[1]
    assert len(recal.calibrators_) == len(recal.bin_values_) == n_classes
    per_class = np.empty_like(probs)
    for k in rng.permutation(n_classes)[:5]:
        target = (labels == k).astype(int)
        table = reliability_table(target, probs[:, k], n_bins=10, strategy=strategy)
        assert_array_equal(recal.bin_edges_[k][1:], table.bin_upper)
        full = table.weight > 0
        assert_allclose(recal.bin_values_[k][full], table.event_rate[full])
    for k in range(n_classes):
        per_class[:, k] = recal.calibrators_[k](probs[:, k])
    proba = recal.predict_proba(probs)
    assert proba.shape == probs.shape
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert proba.min() >= 0.0
    assert proba.max() <= 1.0
    total = per_class.sum(axis=1, keepdims=True)
    expected = np.divide(
        per_class, total, out=np.full_like(per_class, 1 / n_classes), where=total > 0
    )
    assert_allclose(proba, expected, rtol=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_real_top_label(real_multiclass, global_random_seed, strategy):
    """Check top-label on real outputs: the top-label table, the prediction kept."""
    rng = np.random.RandomState(global_random_seed)
    labels, probs = _subsample(rng, *real_multiclass, 3000)
    recal = HistogramBinningRecalibrator(
        n_bins=10, strategy=strategy, multiclass="top_label"
    )
    recal.fit(probs, labels)
    assert len(recal.calibrators_) == 1
    table = reliability_table(
        labels, probs, n_bins=10, strategy=strategy, reduction="top_label"
    )
    assert_array_equal(recal.bin_edges_[0][1:], table.bin_upper)
    full = table.weight > 0
    assert_allclose(recal.bin_values_[0][full], table.event_rate[full])
    proba = recal.predict_proba(probs)
    assert proba.shape == probs.shape
    assert proba.max() <= 1.0
    top = np.argmax(probs, axis=1)
    correct = (top == labels).astype(int)
    # The map's output: binned error 0 in sample. The top class gets it
    # clipped to [1/K, 1] and stays the argmax; the others share the rest.
    mapped = calibrated_confidence(recal, probs)
    error = binned_calibration_error(correct, mapped, n_bins=10, strategy=strategy)
    assert_allclose(error, 0.0, atol=1e-12)
    assert_top_label_rows(probs[:300], proba[:300], mapped[:300])
    assert_array_equal(np.argmax(proba, axis=1), top)
