"""Tests of the binned calibration errors and the reliability table."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import norm as normal
from sklearn.calibration import calibration_curve

from skcal.datasets import load_cifar10_lenet, load_cifar10_vgg16
from skcal.metrics import (
    binned_calibration_error,
    expected_calibration_error,
    reliability_table,
)
from tests.metrics._reference import ref_binned_error, ref_table, ref_views
from tests.metrics._strategies import binary_data as _binary_data

NORMS = ["l1", "l2", "max"]
STRATEGIES = ["uniform", "quantile"]


def _random_binary(rng, n):
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    return y, p


def _random_multiclass(rng, n, k):
    logits = rng.normal(scale=2.0, size=(n, k))
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    y = np.array(
        [rng.choice(k, p=row) for row in prob**1.3 / (prob**1.3).sum(1)[:, None]]
    )
    return y, prob


# ---------------------------------------------------------------------------
# Agreement with the brute-force reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_bins", [1, 7, 15, "cube_root"])
def test_binary_matches_reference(global_random_seed, strategy, norm, weighted, n_bins):
    """Check that the binary error equals the brute-force reference."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 200)
    w = rng.uniform(0, 3, size=200) if weighted else None
    if weighted:
        w[rng.uniform(size=200) < 0.1] = 0.0
    got = binned_calibration_error(
        y, p, sample_weight=w, n_bins=n_bins, strategy=strategy, norm=norm
    )
    expected = ref_binned_error(y, p, w, n_bins=n_bins, strategy=strategy, norm=norm)
    assert isinstance(got, float)
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("weighted", [False, True])
def test_debiased_matches_reference(global_random_seed, strategy, weighted):
    """Check that the debiased L2 error equals the brute-force reference."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 300)
    w = rng.uniform(0.2, 3, size=300) if weighted else None
    got = binned_calibration_error(
        y, p, sample_weight=w, n_bins=10, strategy=strategy, norm="l2", debias=True
    )
    expected = ref_binned_error(
        y, p, w, n_bins=10, strategy=strategy, norm="l2", debias=True
    )
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_matches_reference(
    global_random_seed, reduction, strategy, norm, weighted
):
    """Check every reduction of a multiclass problem against the reference."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _random_multiclass(rng, 150, 4)
    w = rng.uniform(0, 2, size=150) if weighted else None
    kwargs = dict(n_bins=6, strategy=strategy, norm=norm)
    per_class = [
        ref_binned_error(yv, pv, w, **kwargs)
        for yv, pv in ref_views(y, prob, reduction)
    ]
    got = binned_calibration_error(
        y, prob, sample_weight=w, reduction=reduction, **kwargs
    )
    assert_allclose(got, np.mean(per_class), rtol=1e-12, atol=1e-14)
    if reduction == "classwise":
        vector = binned_calibration_error(
            y,
            prob,
            sample_weight=w,
            reduction=reduction,
            return_per_class=True,
            **kwargs,
        )
        assert vector.shape == (4,)
        assert_allclose(vector, per_class, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_reliability_table_matches_reference(global_random_seed, strategy):
    """Check every column of the reliability table against the reference."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 120)
    w = rng.uniform(0, 2, size=120)
    table = reliability_table(y, p, sample_weight=w, n_bins=9, strategy=strategy)
    edges, rows = ref_table(list(y), list(p), list(w), 9, strategy)
    assert_allclose(table.bin_lower, edges[:-1])
    assert_allclose(table.bin_upper, edges[1:])
    weight, count, _, mean_p, mean_y = (np.array(c) for c in zip(*rows, strict=True))
    assert_allclose(table.weight, weight, rtol=1e-12)
    assert_array_equal(table.count, count)
    assert_allclose(table.mean_predicted, mean_p, rtol=1e-12)
    assert_allclose(table.event_rate, mean_y, rtol=1e-12, atol=1e-15)
    assert_allclose(table.gap, mean_p - mean_y, rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------------------
# Agreement with scikit-learn and with the authors' code of Kumar et al.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_bins", [3, 10, 15])
def test_uniform_bins_match_calibration_curve(global_random_seed, n_bins):
    """Check that the non-empty uniform bins are those of calibration_curve."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 80)
    p[:3] = [0.0, 1.0, 0.5]  # exactly on the outer edges and a dyadic inner edge
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins)
    table = reliability_table(y, p, n_bins=n_bins)
    nonempty = table.weight > 0
    assert_allclose(table.event_rate[nonempty], prob_true, rtol=1e-12)
    assert_allclose(table.mean_predicted[nonempty], prob_pred, rtol=1e-12)


def test_matches_kumar_package_on_random_data(global_random_seed):
    """Check plug-in ECE and debiased L2 error against Kumar et al.'s package."""
    calibration_utils = pytest.importorskip("calibration.utils")
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 500)
    edges = list(np.arange(1, 16) / 15)
    ece = calibration_utils.get_ece(p, y, num_bins=15)
    assert_allclose(expected_calibration_error(y, p), ece, rtol=1e-12)
    binned = calibration_utils.bin(list(zip(p, y, strict=True)), edges)
    debiased = calibration_utils.unbiased_l2_ce(binned)
    got = binned_calibration_error(y, p, n_bins=15, norm="l2", debias=True)
    assert_allclose(got, debiased, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize(
    "y_prob, y_true, strategy, n_bins, expected",
    [
        # Test vectors of Kumar et al.'s util_test.py (closed forms).
        ([0.6, 0.7, 0.8, 0.9], [0, 0, 1, 1], "uniform", 2, 0.25),
        ([0.6, 0.7, 0.8, 0.9], [0, 0, 1, 1], "quantile", 2, 0.4),
        ([0.1, 0.7, 0.5, 0.9], [0, 1, 1, 1], "quantile", 4, 0.25),
        ([0.1, 0.7, 0.5, 0.9], [0, 1, 1, 1], "quantile", 2, 0.2),
        ([0.9, 0.1, 0.3], [0, 0, 0], "uniform", 1, 1.3 / 3),
    ],
)
def test_kumar_test_vectors(y_prob, y_true, strategy, n_bins, expected):
    """Check the closed-form values of Kumar et al.'s unit tests."""
    got = expected_calibration_error(y_true, y_prob, n_bins=n_bins, strategy=strategy)
    assert_allclose(got, expected, rtol=1e-12)


def test_kumar_top_label_vector():
    """Check top-label ECE on a two-column input from Kumar et al.'s tests."""
    got = expected_calibration_error(
        [0, 0], [[0.9, 0.1], [0.8, 0.2]], reduction="top_label"
    )
    assert_allclose(got, 0.15, rtol=1e-12)


def test_debiased_smaller_than_plugin_on_discrete_predictions():
    """Check that debiasing lowers the L2 error of a binned model (Kumar et al.)."""
    p = [0.5, 0.5, 0.5, 0.6, 0.5, 0.6, 0.6, 0.6, 0.6]
    y = [0, 1, 0, 1, 0, 1, 1, 1, 0]
    plugin = binned_calibration_error(y, p, n_bins=10, norm="l2")
    # Closed form with one bin per distinct value (0.5 and 0.6 fall in two bins).
    assert_allclose(plugin, np.sqrt(4 / 9 * 0.25**2 + 5 / 9 * 0.2**2), rtol=1e-12)
    debiased = binned_calibration_error(y, p, n_bins=10, norm="l2", debias=True)
    assert debiased < plugin


# ---------------------------------------------------------------------------
# Closed forms and edge cases
# ---------------------------------------------------------------------------


def test_perfectly_calibrated_bins_give_zero():
    """Check that bins whose event rate equals the prediction give 0."""
    p = [0.25] * 4 + [0.75] * 4
    y = [1, 0, 0, 0, 1, 1, 1, 0]
    for norm in NORMS:
        assert binned_calibration_error(y, p, n_bins=4, norm=norm) == pytest.approx(
            0.0, abs=1e-15
        )


def test_predictions_exactly_zero_and_one():
    """Check that 0 lies in the first bin and 1 in the last."""
    table = reliability_table([0, 1, 1], [0.0, 1.0, 1.0], n_bins=5)
    assert_array_equal(table.count, [1, 0, 0, 0, 2])
    assert expected_calibration_error([0, 1, 1], [0.0, 1.0, 1.0], n_bins=5) == 0.0
    assert expected_calibration_error([1, 0], [0.0, 1.0], n_bins=5) == 1.0


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_ties_on_edges_go_to_the_lower_bin(strategy):
    """Check that bins are right-closed: a prediction on an edge is in the lower bin."""
    p = [0.25, 0.5, 0.5, 0.75, 1.0]
    table = reliability_table([0, 1, 0, 1, 1], p, n_bins=4, strategy=strategy)
    if strategy == "uniform":
        assert_array_equal(table.count, [1, 2, 1, 1])
    else:
        # Quantile edges are data values; equal predictions share a bin.
        for value in set(p):
            inside = (table.bin_lower < value) & (value <= table.bin_upper)
            if value == 0:
                inside[0] = True
            assert inside.sum() == 1
        assert table.count.sum() == 5


def test_empty_bins_are_kept():
    """Check that empty bins appear with weight 0 and NaN means."""
    table = reliability_table([0, 1], [0.05, 0.95], n_bins=10)
    assert table.weight.shape == (10,)
    assert_array_equal(table.weight, [1, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    assert np.isnan(table.mean_predicted[1:9]).all()
    assert np.isnan(table.event_rate[1:9]).all()
    assert np.isnan(table.gap[1:9]).all()


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("norm", NORMS)
def test_single_sample(strategy, norm):
    """Check that one sample gives |p - y|."""
    got = binned_calibration_error([1], [0.3], strategy=strategy, norm=norm)
    assert_allclose(got, 0.7, rtol=1e-12)


@pytest.mark.parametrize("y_true", [[0, 0, 0, 0], [1, 1, 1, 1]])
def test_one_class_present(y_true):
    """Check that a single class still gives a value."""
    p = [0.1, 0.2, 0.3, 0.4]
    expected = np.mean(np.abs(np.array(p) - y_true[0]))
    got = expected_calibration_error(y_true, p, n_bins=1)
    assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_all_weight_on_one_point(strategy):
    """Check that zero-weight rows are ignored when one row has all the weight."""
    p = [0.1, 0.4, 0.8, 0.9]
    y = [1, 0, 1, 0]
    w = [0, 0, 2.5, 0]
    for norm in NORMS:
        got = binned_calibration_error(
            y, p, sample_weight=w, strategy=strategy, norm=norm
        )
        assert_allclose(got, 0.2, rtol=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_more_bins_than_samples(strategy):
    """Check that n_bins larger than n works and gives per-sample gaps."""
    p = [0.12, 0.47, 0.93]
    y = [0, 1, 1]
    got = expected_calibration_error(y, p, n_bins=1000, strategy=strategy)
    assert_allclose(got, (0.12 + 0.53 + 0.07) / 3, rtol=1e-12)
    table = reliability_table(y, p, n_bins=1000, strategy=strategy)
    assert table.count.sum() == 3
    if strategy == "quantile":
        assert len(table.count) <= 4


@pytest.mark.parametrize(
    "n, expected",
    [(1, 1), (7, 2), (8, 2), (9, 3), (27, 3), (28, 4), (1000, 10), (1001, 11)],
)
def test_cube_root_bins(n, expected):
    """Check that "cube_root" is the exact integer ceil(n ** (1/3))."""
    table = reliability_table(
        np.zeros(n, dtype=int), np.linspace(0, 1, n), n_bins="cube_root"
    )
    assert len(table.weight) == expected


def test_cube_root_counts_positive_weights_only():
    """Check that zero-weight rows do not count towards the cube-root rule."""
    w = np.r_[np.ones(8), np.zeros(100)]
    table = reliability_table(
        np.zeros(108, dtype=int),
        np.linspace(0, 1, 108),
        sample_weight=w,
        n_bins="cube_root",
    )
    assert len(table.weight) == 2


def test_quantile_bins_have_equal_weight():
    """Check that quantile bins hold equal weight on distinct predictions."""
    rng = np.random.RandomState(0)
    p = rng.uniform(size=1000)
    table = reliability_table(
        np.zeros(1000, dtype=int), p, n_bins=10, strategy="quantile"
    )
    assert_array_equal(table.count, np.full(10, 100))


def test_expected_calibration_error_is_l1():
    """Check that expected_calibration_error is the L1 binned error."""
    rng = np.random.RandomState(1)
    y, p = _random_binary(rng, 100)
    assert expected_calibration_error(y, p, n_bins=7) == binned_calibration_error(
        y, p, n_bins=7, norm="l1"
    )


# ---------------------------------------------------------------------------
# Invariances (hypothesis)
# ---------------------------------------------------------------------------

_options = st.fixed_dictionaries(
    {
        "n_bins": st.integers(1, 12),
        "strategy": st.sampled_from(STRATEGIES),
        "norm": st.sampled_from(NORMS),
    }
)


@given(data=_binary_data(), n_bins=st.integers(1, 12), norm=st.sampled_from(NORMS))
def test_label_flip_uniform(data, n_bins, norm):
    """Check that flipping labels and predictions mirrors uniform bins (no ties)."""
    y, p = data
    p = np.round(p * 997) / 997 * 0.999 + 0.0003  # keep clear of the bin edges
    on_edge = np.isclose((p * n_bins) % 1, 0, atol=1e-9)
    p = p[~on_edge]
    y = y[~on_edge]
    if len(p) == 0:
        return
    assert_allclose(
        binned_calibration_error(1 - y, 1 - p, n_bins=n_bins, norm=norm),
        binned_calibration_error(y, p, n_bins=n_bins, norm=norm),
        rtol=1e-9,
        atol=1e-12,
    )


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------


def _fast_reference(y, p, n_bins):
    """Uniform-bin ECE by masks per bin (independent of skcal's binning)."""
    edges = np.arange(n_bins + 1) / n_bins
    total = 0.0
    for j in range(n_bins):
        inside = (p > edges[j]) & (p <= edges[j + 1])
        if j == 0:
            inside |= p == 0
        if inside.any():
            total += inside.sum() * abs(p[inside].mean() - y[inside].mean())
    return total / len(p)


@pytest.mark.parametrize("n_bins", [10, 15])
def test_real_data_top_label_and_classwise(real_multiclass, n_bins):
    """Check top-label and classwise ECE of real image classifiers."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    confidence = prob64.max(axis=1)
    correct = (prob64.argmax(axis=1) == labels).astype(float)
    top = expected_calibration_error(labels, probs, n_bins=n_bins)
    assert_allclose(top, _fast_reference(correct, confidence, n_bins), rtol=1e-10)
    per_class = expected_calibration_error(
        labels, probs, n_bins=n_bins, reduction="classwise", return_per_class=True
    )
    expected = [
        _fast_reference((labels == k).astype(float), prob64[:, k], n_bins)
        for k in range(probs.shape[1])
    ]
    assert_allclose(per_class, expected, rtol=1e-10, atol=1e-15)


def test_real_data_agrees_with_kumar_package():
    """Check top-label ECE of the CIFAR-10 VGG outputs against Kumar et al.'s code."""
    calibration_utils = pytest.importorskip("calibration.utils")
    data = load_cifar10_vgg16()
    probs, labels = data.probabilities.astype(np.float64), data.target
    expected = calibration_utils.get_ece(probs, labels, num_bins=15)
    assert_allclose(expected_calibration_error(labels, probs), expected, rtol=1e-10)


def test_real_data_lenet_is_overconfident():
    """Check that the over-confident LeNet has a large positive gap at the top."""
    data = load_cifar10_lenet()
    probs, labels = data.probabilities, data.target
    table = reliability_table(labels, probs, n_bins=10)
    top = table.weight > 0
    assert np.nansum(table.gap[top] * table.weight[top]) > 0
    assert expected_calibration_error(labels, probs) > 0.1


# ---------------------------------------------------------------------------
# Regression tests from the first review
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_bins", [7, 13, 25, 50, 100])
def test_grid_predictions_match_reference(global_random_seed, n_bins):
    """Check predictions rounded to 2 decimals (many on edges) against the reference.

    Regression test: ``ceil(p * n_bins)`` put 0.28 with 25 bins in the bin above
    its edge.
    """
    rng = np.random.RandomState(global_random_seed)
    p = np.round(rng.uniform(size=400), 2)
    y = (rng.uniform(size=400) < p).astype(int)
    for norm in NORMS:
        assert_allclose(
            binned_calibration_error(y, p, n_bins=n_bins, norm=norm),
            ref_binned_error(y, p, None, n_bins=n_bins, norm=norm),
            rtol=1e-10,
            atol=1e-14,
        )


def test_prediction_on_a_decimal_edge_is_in_the_lower_bin():
    """Check that 0.28 with 25 bins lies in (0.24, 0.28], as in calibration_curve."""
    table = reliability_table([1, 0], [0.28, 0.2], n_bins=25)
    assert_array_equal(np.flatnonzero(table.count), [4, 6])


def test_many_bins_match_reference(global_random_seed):
    """Check that n_bins far above n gives the per-sample gaps, fast."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 50)
    for norm in NORMS:
        assert_allclose(
            binned_calibration_error(y, p, n_bins=20_000, norm=norm),
            ref_binned_error(y, p, None, n_bins=20_000, norm=norm),
            rtol=1e-12,
        )


def test_weights_summing_beyond_the_largest_float():
    """Check that weights whose sum is not a float give the value of their ratios.

    They were refused (issue 4: an overflowing sum must not be turned into
    0); since issue 11 weights are scaled before they are added up.
    """
    got = expected_calibration_error([0, 1], [0.1, 0.9], sample_weight=[1e308, 1e308])
    assert got == expected_calibration_error([0, 1], [0.1, 0.9])


@pytest.mark.parametrize("scale", [1e-170, 1e-20, 1e20, 1e170])
def test_debiased_error_is_scale_invariant_at_extreme_scales(scale):
    """Check that extreme weight scales do not underflow the debiased error."""
    rng = np.random.RandomState(0)
    y, p = _random_binary(rng, 200)
    w = rng.uniform(0.5, 2, size=200)
    kwargs = dict(n_bins=5, norm="l2", debias=True)
    assert_allclose(
        binned_calibration_error(y, p, sample_weight=w * scale, **kwargs),
        binned_calibration_error(y, p, sample_weight=w, **kwargs),
        rtol=1e-9,
    )


def test_debiased_bin_with_one_effective_row():
    """Check that a bin whose weight sits on one row counts as a single row."""
    p, y = [0.5, 0.5, 0.9, 0.8], [1, 1, 0, 1]
    kwargs = dict(n_bins=2, norm="l2", debias=True)
    tiny = binned_calibration_error(y, p, sample_weight=[1, 1e-20, 1, 1], **kwargs)
    dropped = binned_calibration_error(y, p, sample_weight=[1, 0, 1, 1], **kwargs)
    assert np.isfinite(tiny)
    assert_allclose(tiny, dropped, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_debias_and_reductions_match_reference(global_random_seed, norm, strategy):
    """Check top-label and classwise debiased errors, and top-label tables."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _random_multiclass(rng, 200, 3)
    for reduction in ("top_label", "classwise"):
        expected = np.mean(
            [
                ref_binned_error(
                    yv, pv, None, n_bins=5, strategy=strategy, norm="l2", debias=True
                )
                for yv, pv in ref_views(y, prob, reduction)
            ]
        )
        got = binned_calibration_error(
            y,
            prob,
            n_bins=5,
            strategy=strategy,
            norm="l2",
            debias=True,
            reduction=reduction,
        )
        assert_allclose(got, expected, rtol=1e-10, atol=1e-14)
    ((yv, pv),) = ref_views(y, prob, "top_label")
    table = reliability_table(y, prob, n_bins=5, strategy=strategy)
    _, rows = ref_table(yv, list(pv), [1.0] * len(yv), 5, strategy)
    assert_allclose(table.mean_predicted, [r[3] for r in rows], rtol=1e-12)
    assert_allclose(table.event_rate, [r[4] for r in rows], rtol=1e-12, atol=1e-15)


@given(data=_binary_data(min_size=2), options=_options)
def test_float32_rounding_changes_little(data, options):
    """Check that rounding predictions to float32 moves the error by at most 1e-6.

    Rounding cannot move a prediction across an edge unless it lies within
    float32 precision of it, which such examples exclude.
    """
    from hypothesis import assume

    from skcal._utils._bins import make_binning

    y, p64 = data
    p32 = p64.astype(np.float32).astype(np.float64)
    bins64 = make_binning(p64, None, options["n_bins"], options["strategy"])
    bins32 = make_binning(p32, None, options["n_bins"], options["strategy"])
    assume(bins64.edges.shape == bins32.edges.shape)
    assume(np.array_equal(bins64.assign(p64), bins32.assign(p32)))
    assert_allclose(
        binned_calibration_error(y, p64.astype(np.float32), **options),
        binned_calibration_error(y, p64, **options),
        rtol=0,
        atol=1e-6,
    )


# ---------------------------------------------------------------------------
# The numbers behind the diagrams (issue 11)
# ---------------------------------------------------------------------------


def _curve_binary(rng, n=600):
    """Miscalibrated binary predictions: the event rate is p**1.5."""
    y_prob = rng.beta(2.0, 3.0, size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.5).astype(int)
    return y_true, y_prob


def _row_groups(*keys):
    """Sorted distinct rows of the keys; the group of each row; group sizes."""
    _, inverse, counts = np.unique(
        np.column_stack(keys), axis=0, return_inverse=True, return_counts=True
    )
    return inverse.ravel(), counts


# ---------------------------------------------------------------------------
# reliability_table: per-bin intervals
# ---------------------------------------------------------------------------


def _wilson_reference(successes, n, z):
    """The Wilson interval as the roots of (r - p)**2 = z**2 p (1 - p) / n."""
    r = successes / n
    # (1 + z^2/n) p^2 - (2 r + z^2/n) p + r^2 = 0
    roots = np.roots([1 + z**2 / n, -(2 * r + z**2 / n), r**2])
    return np.sort(roots.real)


def test_wilson_intervals_solve_their_quadratic():
    """Check reliability_table's Wilson intervals against their defining quadratic."""
    cases = [(0, 5), (3, 10), (10, 10), (47, 100), (1, 1)]
    y_prob, y_true = [], []
    for index, (successes, n) in enumerate(cases):
        y_prob += [0.1 + 0.2 * index] * n
        y_true += [1] * successes + [0] * (n - successes)
    for level in (0.95, 0.8):
        table = reliability_table(
            y_true, y_prob, n_bins=5, interval="wilson", confidence_level=level
        )
        z = normal.ppf(0.5 + 0.5 * level)
        assert_array_equal(table.count, [n for _, n in cases])
        for index, (successes, n) in enumerate(cases):
            assert_allclose(
                [table.interval_low[index], table.interval_high[index]],
                _wilson_reference(successes, n, z),
                atol=1e-12,
            )
    # Exactly 0 and 1 at the extreme rates.
    assert table.interval_low[0] == 0.0 and table.interval_high[2] == 1.0


def test_wilson_intervals_of_weighted_bins(global_random_seed):
    """Check Wilson intervals: counts unweighted, Kish's size when weighted."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _curve_binary(rng)
    table = reliability_table(y_true, y_prob, n_bins=8, confidence_level=0.9)
    z = normal.ppf(0.95)
    nonempty = table.weight > 0
    for k in np.flatnonzero(nonempty):
        successes = table.event_rate[k] * table.count[k]
        assert_allclose(
            [table.interval_low[k], table.interval_high[k]],
            _wilson_reference(successes, table.count[k], z),
            atol=1e-12,
        )
    rate = table.event_rate[nonempty]
    assert np.all(table.interval_low[nonempty] <= rate)
    assert np.all(rate <= table.interval_high[nonempty])
    # Equal weights: the effective size is the count, so nothing changes.
    same = reliability_table(
        y_true,
        y_prob,
        sample_weight=np.full(600, 3.7),
        n_bins=8,
        confidence_level=0.9,
    )
    assert_allclose(same.interval_low, table.interval_low, atol=1e-12, equal_nan=True)
    assert_allclose(same.interval_high, table.interval_high, atol=1e-12, equal_nan=True)
    # Unequal weights: (sum w)**2 / sum w**2 rows per bin.
    weights = rng.uniform(0.1, 5.0, size=600)
    weighted = reliability_table(y_true, y_prob, sample_weight=weights, n_bins=8)
    bins = np.minimum(np.ceil(y_prob * 8).astype(int) - 1, 7).clip(0)
    total = np.bincount(bins, weights=weights, minlength=8)
    squares = np.bincount(bins, weights=weights**2, minlength=8)
    z = normal.ppf(0.975)
    for k in np.flatnonzero(total > 0):
        n_eff = total[k] ** 2 / squares[k]
        successes = weighted.event_rate[k] * n_eff
        assert_allclose(
            [weighted.interval_low[k], weighted.interval_high[k]],
            _wilson_reference(successes, n_eff, z),
            atol=1e-12,
        )


def test_bootstrap_intervals_are_percentiles_of_resampled_rates(global_random_seed):
    """Check that bootstrap intervals are percentiles of rates of resampled rows.

    A resample of the rows is drawn as multinomial counts of the groups of
    rows that share a bin and an outcome (in that order), as the Notes of
    ``reliability_table`` describe: replaying the draws gives each bin's
    event rate in every resample.
    """
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _curve_binary(rng, n=3000)
    n_bootstrap, level = 40, 0.8
    table = reliability_table(
        y_true,
        y_prob,
        n_bins=5,
        interval="bootstrap",
        n_bootstrap=n_bootstrap,
        confidence_level=level,
        random_state=global_random_seed,
    )
    bins = np.searchsorted(table.bin_upper, y_prob, side="left")
    group, sizes = _row_groups(bins, y_true)
    group_bin = np.zeros(sizes.shape[0], dtype=int)
    group_bin[group] = bins
    group_event = np.zeros(sizes.shape[0])
    group_event[group] = y_true
    replay = np.random.RandomState(global_random_seed)
    rates = []
    for _ in range(n_bootstrap):
        counts = replay.multinomial(3000, sizes / 3000)
        totals = np.bincount(group_bin, weights=counts, minlength=5)
        events = np.bincount(group_bin, weights=counts * group_event, minlength=5)
        rates.append(events / totals)
    tail = 50.0 * (1.0 - level)
    low, high = np.percentile(np.array(rates), [tail, 100.0 - tail], axis=0)
    assert_allclose(table.interval_low, low, rtol=1e-12)
    assert_allclose(table.interval_high, high, rtol=1e-12)


def test_bootstrap_intervals_of_large_bins_are_close_to_wilson(global_random_seed):
    """Check that bootstrap intervals of large bins are close to Wilson's."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _curve_binary(rng, n=3000)
    boot = reliability_table(
        y_true,
        y_prob,
        n_bins=5,
        interval="bootstrap",
        n_bootstrap=300,
        random_state=0,
    )
    wilson = reliability_table(y_true, y_prob, n_bins=5)
    large = boot.count >= 200
    assert large.sum() >= 3
    width_boot = (boot.interval_high - boot.interval_low)[large]
    width_wilson = (wilson.interval_high - wilson.interval_low)[large]
    assert_allclose(width_boot, width_wilson, rtol=0.25)
    rate = boot.event_rate[large]
    assert np.all(boot.interval_low[large] <= rate)
    assert np.all(rate <= boot.interval_high[large])


@pytest.mark.parametrize("interval", ["wilson", "bootstrap", None])
def test_empty_bins_have_no_interval(global_random_seed, interval):
    """Check that empty bins are NaN in the table and intervals, not 0."""
    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.uniform(0.0, 0.38, size=300)
    y_prob[:50] = rng.uniform(0.82, 1.0, size=50)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    table = reliability_table(
        y_true,
        y_prob,
        n_bins=10,
        interval=interval,
        n_bootstrap=30,
        random_state=0,
    )
    empty = table.weight == 0
    assert_array_equal(np.flatnonzero(empty), [4, 5, 6, 7])
    assert_array_equal(table.count[empty], 0)
    assert np.isnan(table.event_rate[empty]).all()
    assert np.isnan(table.mean_predicted[empty]).all()
    if interval is None:
        assert "interval_low" not in table and "interval_high" not in table
        return
    assert np.isnan(table.interval_low[empty]).all()
    assert np.isnan(table.interval_high[empty]).all()
    assert np.isfinite(table.interval_low[~empty]).all()
    assert np.isfinite(table.interval_high[~empty]).all()


def test_tiny_weight_ratios_keep_bins_exact():
    """Check that bins of weights 1e-300 times the others' are sized exactly.

    Regression test of the review of issue 11: Kish's effective size of a
    bin, computed as (sum w)**2 / sum w**2 over all weights, underflowed to
    0/0, so the bin lost its Wilson interval and debiasing warned.
    """
    y = [0, 1, 0, 1, 1, 0]
    p = [0.1, 0.15, 0.5, 0.55, 0.9, 0.95]
    tiny = np.array([1.0, 1.0, 1e-300, 1e-300, 1.0, 1.0])
    table = reliability_table(y, p, sample_weight=tiny, n_bins=3)
    unweighted = reliability_table(y, p, n_bins=3)
    assert_allclose(table.interval_low, unweighted.interval_low, rtol=1e-12)
    assert_allclose(table.interval_high, unweighted.interval_high, rtol=1e-12)
    with np.errstate(all="raise"):
        debiased = binned_calibration_error(
            y, p, sample_weight=tiny, n_bins=3, norm="l2", debias=True
        )
    assert debiased == binned_calibration_error(y, p, n_bins=3, norm="l2", debias=True)


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_errors_of_a_batch_are_each_replicates_error(norm, global_random_seed):
    """Check the batch errors of the replicates against a loop over them.

    Each row is one replicate's per-bin weights and gap sums, some bins
    empty; a row of zero weight (a resample that drew only rows of zero
    weight) gives NaN.
    """
    from skcal.metrics._binned import _errors_of_gap_sums

    rng = np.random.default_rng(global_random_seed)
    weights = rng.poisson(2.0, size=(50, 15)) * rng.uniform(0.5, 2.0, size=(50, 15))
    weights[7] = 0.0
    gap_sums = weights * rng.uniform(-1.0, 1.0, size=(50, 15))
    expected = []
    for weight, sums in zip(weights, gap_sums, strict=True):
        kept = weight > 0
        if not kept.any():
            expected.append(np.nan)
            continue
        fraction, gap = weight[kept] / weight[kept].sum(), sums[kept] / weight[kept]
        expected.append(
            {
                "l1": sum(f * abs(g) for f, g in zip(fraction, gap, strict=True)),
                "l2": sum(f * g * g for f, g in zip(fraction, gap, strict=True)) ** 0.5,
                "max": max(abs(g) for g in gap),
            }[norm]
        )
    assert_allclose(_errors_of_gap_sums(weights, gap_sums, norm), expected, rtol=1e-12)
