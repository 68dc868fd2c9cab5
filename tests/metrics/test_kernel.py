"""Tests of the kernel (Nadaraya-Watson) calibration error and sharpness gap."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp, rel_entr

from skcal._param_validation import InvalidParameterError
from skcal._utils._kernel_sums import KERNEL_MASS, kernel_sums
from skcal.metrics import (
    calibration_decomposition,
    calibration_sharpness_curve,
    kernel_calibration_error,
)
from skcal.metrics._kernel import _kernel_estimate, _streamed_error, _streams
from tests.metrics._reference import ref_views

KERNELS = ["gaussian", "epanechnikov"]
LOSSES = ["brier", "log"]

# ---------------------------------------------------------------------------
# Dense O(n^2) reference: the kernel matrix, then the estimator's formulas.
# ---------------------------------------------------------------------------


def ref_kernel_matrix(x, p, kernel, bandwidth):
    """K((x_a - p_b) / bandwidth) with K(0) = 1, shape (len(x), len(p))."""
    u = (np.asarray(x, dtype=float)[:, None] - np.asarray(p, dtype=float)[None, :]) / (
        bandwidth
    )
    if kernel == "gaussian":
        return np.exp(-0.5 * u**2)
    return np.clip(1.0 - u**2, 0.0, None)


def ref_divergence(prediction, truth, loss):
    """d(prediction, truth) for one pair of event probabilities."""
    if loss == "brier":
        return (truth - prediction) ** 2
    total = 0.0
    for a, b in ((prediction, truth), (1.0 - prediction, 1.0 - truth)):
        if b > 0:
            total += math.inf if a == 0 else b * math.log(b / a)
    return total


def ref_full_loss(y_index, P, loss):
    """Per-sample score of each probability vector (rows of P)."""
    out = []
    for k, row in zip(y_index, P, strict=True):
        if loss == "brier":
            out.append(sum((row[j] - (j == k)) ** 2 for j in range(len(row))))
        else:
            out.append(math.inf if row[k] == 0 else -math.log(row[k]))
    return np.array(out)


def ref_smoothed(x, p, values, kernel, bandwidth):
    """sum_b values_b K((x_a - p_b) / bandwidth), without underflow for Gaussians.

    Returns the logarithm of the sums (values >= 0): the Gaussian kernel is
    positive everywhere, so a sum is 0 only when all its values are.
    """
    if kernel == "gaussian":
        u = (np.asarray(x, float)[:, None] - np.asarray(p, float)[None, :]) / bandwidth
        b = np.broadcast_to(np.asarray(values, float)[None, :], u.shape)
        return logsumexp(-0.5 * u**2, b=b, axis=1)
    with np.errstate(divide="ignore"):
        return np.log(ref_kernel_matrix(x, p, kernel, bandwidth) @ values)


def ref_estimate(y, p, w, loss, kernel, bandwidth, full_loss=None):
    """The plug-in estimator with dense kernel sums."""
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=float)
    keep = w > 0
    log_den = ref_smoothed(p, p[keep], w[keep], kernel, bandwidth)
    log_events = ref_smoothed(p, p[keep], (w * y)[keep], kernel, bandwidth)
    log_nonevents = ref_smoothed(p, p[keep], (w * (1 - y))[keep], kernel, bandwidth)
    with np.errstate(invalid="ignore"):
        rate = np.exp(log_events - log_den)
    pointwise = np.array(
        [ref_divergence(a, b, loss) for a, b in zip(p, rate, strict=True)]
    )
    if loss == "log":
        # In log space, a positive rate that underflows still counts: KL(m || 0)
        # and KL(m || 1) are infinite unless m is exactly 0 or 1.
        pointwise[(p == 0) & (log_events > -np.inf)] = np.inf
        pointwise[(p == 1) & (log_nonevents > -np.inf)] = np.inf
    total = w[keep].sum()
    error = np.sum(w[keep] * pointwise[keep]) / total
    out = dict(calibration_error=error, event_rate=rate, pointwise=pointwise)
    if full_loss is not None:
        K = ref_kernel_matrix(p, p[keep], kernel, bandwidth)
        den = K @ w[keep]
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = K @ (w * full_loss)[keep] / den
        mass = math.sqrt(2 * math.pi) if kernel == "gaussian" else 4.0 / 3.0
        out.update(
            expected_loss=expected,
            gap=expected - pointwise,
            density=den / (total * bandwidth * mass),
            total_loss=np.sum(w[keep] * full_loss[keep]) / total,
        )
    return out


def _binary(rng, n):
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    return y, p


def _multiclass(rng, n, k):
    logits = rng.normal(scale=2.0, size=(n, k))
    P = np.exp(logits - logits.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row**1.3 / (row**1.3).sum()) for row in P])
    return y, P


def _weights(rng, n, weighted):
    if not weighted:
        return None
    w = rng.uniform(0, 2, size=n)
    w[rng.uniform(size=n) < 0.1] = 0.0
    w[0] = 1.0
    return w


# ---------------------------------------------------------------------------
# Agreement with the dense reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("bandwidth", [0.01, 0.05, 0.3])
@pytest.mark.parametrize("n", [1, 7, 400])
def test_binary_matches_dense_reference(
    global_random_seed, kernel, loss, weighted, bandwidth, n
):
    """Check the binary estimate against dense kernel sums."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _binary(rng, n)
    p[: n // 10] = np.round(p[: n // 10], 1)  # ties
    w = _weights(rng, n, weighted)
    got = kernel_calibration_error(
        y, p, sample_weight=w, loss=loss, kernel=kernel, bandwidth=bandwidth
    )
    assert type(got) is float
    expected = ref_estimate(y, p, w, loss, kernel, bandwidth)["calibration_error"]
    assert_allclose(got, expected, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
# (1 / 0.013) * 0.013 is not 1: the predictions are not recovered from their
# coordinates in bandwidths.
@pytest.mark.parametrize("bandwidth", [0.01, 0.013, 0.05, 0.3])
@pytest.mark.parametrize("n", [1, 7, 400])
@pytest.mark.parametrize("outcomes", ["both", "events", "nonevents"])
def test_streamed_error_matches_dense_reference(
    global_random_seed, loss, weighted, bandwidth, n, outcomes
):
    """Check the unsorted, blocked Gaussian error against dense kernel sums."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _binary(rng, n)
    p[: n // 10] = np.round(p[: n // 10], 1)  # ties
    p[n // 2 : n // 2 + 3] = [0.0, 1.0, 1.0][: n - n // 2]  # the ends
    if outcomes != "both":
        y[:] = outcomes == "events"
    w = _weights(rng, n, weighted)
    got = _streamed_error(y.astype(np.uint8), p, w, loss=loss, bandwidth=bandwidth)
    expected = ref_estimate(y, p, w, loss, "gaussian", bandwidth)["calibration_error"]
    assert_allclose(got, expected, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_large_samples_stream_and_agree_with_the_sorted_path(
    global_random_seed, loss, weighted
):
    """Check that many rows take the streamed path, with the sorted path's value."""
    rng = np.random.RandomState(global_random_seed)
    n = 50_000
    y, p = _binary(rng, n)
    p[: n // 10] = np.round(p[: n // 10], 2)
    w = _weights(rng, n, weighted)
    assert _streams(p, "gaussian", 0.3)
    assert not _streams(p, "epanechnikov", 0.3)
    assert not _streams(p[:1000], "gaussian", 0.3)
    got = kernel_calibration_error(y, p, sample_weight=w, loss=loss, bandwidth=0.3)
    sorted_path = _kernel_estimate(
        y, p, w, loss=loss, kernel="gaussian", bandwidth=0.3
    ).calibration_error
    assert_allclose(got, sorted_path, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "case", ["binary", "events only", "constant", "multiclass", "infinite loss"]
)
def test_streamed_curve_matches_the_sorted_path(
    global_random_seed, monkeypatch, loss, weighted, case
):
    """Check the curve from streamed sums against the one from sorted ties.

    Ties, predictions of 0 and 1, zero weights, one outcome only, a constant
    predictor, a top-label view, and a row whose full log loss is infinite
    (probability 0 on its class).
    """
    rng = np.random.RandomState(global_random_seed)
    n = 300
    y, p = _binary(rng, n)
    p[: n // 10] = np.round(p[: n // 10], 1)  # ties
    p[n // 2 : n // 2 + 3] = [0.0, 1.0, 1.0]
    if case == "events only":
        y[:] = 1
    elif case == "constant":
        p[:] = 0.3
    elif case in ("multiclass", "infinite loss"):
        y, p = _multiclass(rng, n, 4)
        if case == "infinite loss":
            p[0] = np.eye(4)[(y[0] + 1) % 4]
    w = _weights(rng, n, weighted)
    curves = {}
    for streams in (True, False):
        monkeypatch.setattr(
            "skcal.metrics._kernel._streams", lambda *args, s=streams: s
        )
        curves[streams] = calibration_sharpness_curve(
            y, p, sample_weight=w, loss=loss, bandwidth=0.05, n_points=101
        )
    streamed, sorted_path = curves[True], curves[False]
    assert streamed.keys() == sorted_path.keys()
    for key, expected in sorted_path.items():
        if expected is None:
            assert streamed[key] is None, key
        else:
            assert_allclose(streamed[key], expected, rtol=1e-9, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("reduction", ["top_label", "classwise", "positive"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_views_match_dense_reference(
    global_random_seed, kernel, loss, reduction, weighted
):
    """Check every binary view of a multiclass problem against dense sums."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 300, 4)
    w = _weights(rng, 300, weighted)
    per_view = [
        ref_estimate(yv, pv, w, loss, kernel, 0.05)["calibration_error"]
        for yv, pv in ref_views(y, P, reduction, pos_label=1)
    ]
    kwargs = dict(
        sample_weight=w,
        loss=loss,
        kernel=kernel,
        reduction=reduction,
        labels=np.arange(4),
        pos_label=1 if reduction == "positive" else None,
    )
    got = kernel_calibration_error(y, P, **kwargs)
    assert_allclose(got, np.mean(per_view), rtol=1e-10, atol=1e-14)
    if reduction == "classwise":
        vector = kernel_calibration_error(y, P, return_per_class=True, **kwargs)
        assert vector.shape == (4,)
        assert_allclose(vector, per_view, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("problem", ["binary", "multiclass"])
def test_sharpness_outputs_match_reference(
    global_random_seed, kernel, loss, weighted, problem
):
    """Check every field of return_sharpness=True against dense sums."""
    rng = np.random.RandomState(global_random_seed)
    if problem == "binary":
        y, P = _binary(rng, 300)
        y_index, vectors = y, np.column_stack([1 - P, P])
        views = [(y, P)]
        reduction = "positive"
    else:
        y, P = _multiclass(rng, 300, 3)
        y_index, vectors = y, P
        views = ref_views(y, P, "top_label")
        reduction = "top_label"
    w = _weights(rng, 300, weighted)
    full_loss = ref_full_loss(y_index, vectors, loss)
    if problem == "binary" and loss == "brier":
        full_loss /= 2  # scored by the positive class, as scikit-learn does
    ((yv, pv),) = views
    expected = ref_estimate(yv, pv, w, loss, kernel, 0.05, full_loss)
    got = kernel_calibration_error(
        y,
        P,
        sample_weight=w,
        loss=loss,
        kernel=kernel,
        reduction=reduction,
        return_sharpness=True,
        labels=None if problem == "binary" else np.arange(3),
    )
    assert_allclose(got.calibration_error, expected["calibration_error"], rtol=1e-10)
    assert_allclose(got.total_loss, expected["total_loss"], rtol=1e-12)
    keep = np.ones(300, bool) if w is None else w > 0
    total = 300.0 if w is None else w.sum()
    weights = np.ones(300) if w is None else w
    mean_gap = np.sum(weights[keep] * expected["gap"][keep]) / total
    assert_allclose(got.sharpness_gap, mean_gap, rtol=1e-10)
    assert_allclose(got.prediction, pv)
    for field, key in [
        ("event_rate", "event_rate"),
        ("density", "density"),
        ("expected_loss", "expected_loss"),
        ("pointwise_calibration_error", "pointwise"),
        ("pointwise_sharpness_gap", "gap"),
    ]:
        assert got[field].shape == (300,)
        assert_allclose(got[field][keep], expected[key][keep], rtol=1e-9, atol=1e-13)


# ---------------------------------------------------------------------------
# Checkable claims of the notes (mean_replacement_and_sharpness §4.4, §4.3)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
def test_estimates_are_convex_combinations(global_random_seed, kernel):
    """Check that the estimates lie within the range of their targets (K1)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 400, 5)
    got = kernel_calibration_error(
        y, P, kernel=kernel, return_sharpness=True, labels=np.arange(5)
    )
    assert np.all((got.event_rate >= 0) & (got.event_rate <= 1))
    losses = ref_full_loss(y, P, "brier")
    assert np.all(got.expected_loss >= losses.min() - 1e-12)
    assert np.all(got.expected_loss <= losses.max() + 1e-12)
    assert np.all(got.density >= 0)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("bandwidth", [0.001, 0.05, 3.0])
def test_constant_confidence(global_random_seed, kernel, bandwidth):
    """Check constant predictions: the rate is the mean outcome (K2, M3, M4)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 300, 4)
    predicted = P.argmax(axis=1)
    k = 4
    # Mean replacement fitted on the same data: zero error for any kernel (M3).
    accuracy = np.mean(predicted == y)
    mrr = np.full_like(P, (1 - accuracy) / (k - 1))
    mrr[np.arange(300), predicted] = accuracy
    kwargs = dict(kernel=kernel, bandwidth=bandwidth, labels=np.arange(k))
    assert_allclose(kernel_calibration_error(y, mrr, **kwargs), 0.0, atol=1e-12)
    # On other data, the error is the gap between test accuracy and a_hat (M4).
    a_hat = 0.6 if accuracy > 0.45 else 0.3
    mrr[np.arange(300), predicted] = a_hat
    mrr[mrr != a_hat] = (1 - a_hat) / (k - 1)
    brier = kernel_calibration_error(y, mrr, **kwargs)
    assert_allclose(brier, (accuracy - a_hat) ** 2, rtol=1e-10)
    log = kernel_calibration_error(y, mrr, loss="log", **kwargs)
    assert_allclose(log, ref_divergence(a_hat, accuracy, "log"), rtol=1e-10)


def test_bandwidth_limits(global_random_seed):
    """Check the limits sigma -> infinity and sigma -> 0 (K3)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _binary(rng, 300)
    wide = kernel_calibration_error(y, p, bandwidth=1e6)
    assert_allclose(wide, np.mean((y.mean() - p) ** 2), rtol=1e-9)
    narrow = kernel_calibration_error(y, p, bandwidth=1e-9)
    assert_allclose(narrow, np.mean((y - p) ** 2), rtol=1e-12)
    for kernel in KERNELS:
        assert_allclose(
            kernel_calibration_error(y, p, kernel=kernel, bandwidth=1e6),
            np.mean((y.mean() - p) ** 2),
            rtol=1e-9,
        )


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("loss", LOSSES)
def test_separated_groups_give_the_exact_decomposition(
    global_random_seed, kernel, loss
):
    """Check that well-separated discrete predictions give the grouped error."""
    rng = np.random.RandomState(global_random_seed)
    pool = np.arange(1, 20) / 20
    p = pool[rng.randint(19, size=500)]
    y = (rng.uniform(size=500) < p**1.3).astype(int)
    got = kernel_calibration_error(y, p, loss=loss, kernel=kernel, bandwidth=0.002)
    exact = calibration_decomposition(y, p, loss=loss, reduction="positive")
    assert_allclose(got, exact.miscalibration, rtol=1e-12)


def test_consistency_simulation(global_random_seed):
    """Check the estimate near 1/30 for h ~ U(0.5, 1), P(correct | h) = h^2 (K4)."""
    rng = np.random.RandomState(global_random_seed)
    h = rng.uniform(0.5, 1.0, size=16000)
    correct = (rng.uniform(size=16000) < h**2).astype(int)
    got = kernel_calibration_error(correct, h)
    # The note measured a 5% downward bias and 15% worst misses at this size.
    assert_allclose(got, 1 / 30, rtol=0.2)


@pytest.mark.parametrize("kernel", KERNELS)
def test_density_integrates_to_one(global_random_seed, kernel):
    """Check that the kernel density estimate has mass 1 on the real line (K5)."""
    rng = np.random.RandomState(global_random_seed)
    points = np.unique(rng.beta(5, 1, size=500))
    weights = rng.uniform(size=len(points))
    grid = np.linspace(-0.5, 1.5, 40001)
    bandwidth = 0.05
    sums = kernel_sums(grid, points, weights[:, None], kernel, bandwidth)[:, 0]
    density = sums / (weights.sum() * bandwidth * KERNEL_MASS[kernel])
    assert_allclose(np.trapezoid(density, grid), 1.0, rtol=1e-6)
    inside = (grid >= 0) & (grid <= 1)
    assert np.trapezoid(density[inside], grid[inside]) <= 1.0


def test_deterministic_full_average(global_random_seed):
    """Check that repeated calls agree exactly: no subsampling (K7)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _binary(rng, 6000)
    first = kernel_calibration_error(y, p)
    assert kernel_calibration_error(y, p) == first
    assert_allclose(
        first,
        ref_estimate(y, p, None, "brier", "gaussian", 0.05)["calibration_error"],
        rtol=1e-10,
    )


@pytest.mark.parametrize("kernel", KERNELS)
def test_no_nan_away_from_the_data(kernel):
    """Check finite aggregates with far clusters and isolated zero weights (K8)."""
    p = np.r_[np.full(50, 0.05), np.full(50, 0.95), 0.5]
    y = np.r_[np.zeros(45), np.ones(5), np.ones(40), np.zeros(10), 1]
    w = np.r_[np.ones(100), 0.0]
    got = kernel_calibration_error(
        y, p, sample_weight=w, kernel=kernel, bandwidth=0.01, return_sharpness=True
    )
    assert_allclose(
        got.calibration_error, (0.05 - 0.1) ** 2 / 2 + (0.95 - 0.8) ** 2 / 2
    )
    assert math.isfinite(got.sharpness_gap)
    # No positive weight within the window (Epanechnikov), or all of it
    # underflows (Gaussian, 45 bandwidths away): the rate there is undefined.
    assert math.isnan(got.event_rate[-1])
    assert got.density[-1] == 0.0
    assert np.all(np.isfinite(got.event_rate[:-1]))


def test_pointwise_sharpness_gap_can_be_negative():
    """Check that the estimated pointwise gap can be negative (I4, Prop. 4.8)."""
    p = np.r_[np.full(1000, 0.9), 0.8]
    y = np.ones(1001)
    got = kernel_calibration_error(y, p, return_sharpness=True)
    expected = ref_estimate(y, p, None, "brier", "gaussian", 0.05, (p - y) ** 2)
    assert got.pointwise_sharpness_gap[-1] < 0
    assert_allclose(got.pointwise_sharpness_gap, expected["gap"], rtol=1e-9, atol=1e-14)


# ---------------------------------------------------------------------------
# Invariances
# ---------------------------------------------------------------------------


@given(
    data=st.lists(
        st.tuples(
            st.integers(0, 200).map(lambda k: k / 200),
            st.integers(0, 1),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=25,
    ),
    kernel=st.sampled_from(KERNELS),
    bandwidth=st.sampled_from([0.02, 0.1, 0.5]),
)
def test_invariances_property(data, kernel, bandwidth):
    """Check permutation, repetition, weight scale and label-flip invariance."""
    p, y, counts = (np.array(c, dtype=float) for c in zip(*data, strict=True))
    if counts.sum() == 0:
        counts[0] = 1
    kwargs = dict(kernel=kernel, bandwidth=bandwidth)
    for loss in LOSSES:
        kwargs["loss"] = loss
        weighted = kernel_calibration_error(y, p, sample_weight=counts, **kwargs)
        if math.isinf(weighted):
            continue
        repeated = kernel_calibration_error(
            np.repeat(y, counts.astype(int)), np.repeat(p, counts.astype(int)), **kwargs
        )
        assert_allclose(repeated, weighted, rtol=1e-9, atol=1e-13)
        order = np.argsort(-p, kind="stable")
        permuted = kernel_calibration_error(
            y[order], p[order], sample_weight=counts[order], **kwargs
        )
        assert_allclose(permuted, weighted, rtol=1e-9, atol=1e-13)
        scaled = kernel_calibration_error(y, p, sample_weight=counts * 1e3, **kwargs)
        assert_allclose(scaled, weighted, rtol=1e-9, atol=1e-13)
        flipped = kernel_calibration_error(1 - y, 1 - p, sample_weight=counts, **kwargs)
        assert_allclose(flipped, weighted, rtol=1e-8, atol=1e-12)


# ---------------------------------------------------------------------------
# Edge cases and errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
def test_edge_cases(kernel):
    """Check one sample, one class, predictions 0 and 1, and one weighted point."""
    assert_allclose(kernel_calibration_error([1], [0.3], kernel=kernel), 0.49)
    p = np.array([0.1, 0.3, 0.3, 0.6])
    assert_allclose(
        kernel_calibration_error([0, 0, 0, 0], p, kernel=kernel), np.mean(p**2)
    )
    assert kernel_calibration_error([0, 0, 1, 1], [0, 0, 1, 1], kernel=kernel) == 0.0
    zero_one = kernel_calibration_error(
        [0, 0, 1, 1], [0.0, 0.0, 1.0, 1.0], kernel=kernel, loss="log"
    )
    # The Gaussian kernel gives the events at 1 a positive weight at 0, so
    # the prediction 0 is infinitely wrong under the log loss.
    assert zero_one == (math.inf if kernel == "gaussian" else 0.0)
    assert (
        kernel_calibration_error(
            [0, 1, 1], [0.0, 0.0, 0.02], kernel=kernel, loss="log", bandwidth=0.05
        )
        == math.inf
    )
    w = [0.0, 4.0, 0.0]
    assert_allclose(
        kernel_calibration_error(
            [0, 1, 1], [0.2, 0.4, 0.9], sample_weight=w, kernel=kernel
        ),
        0.36,
    )


@pytest.mark.parametrize("kernel", KERNELS)
def test_infinite_full_loss(kernel):
    """Check that an infinite per-sample loss makes nearby smoothed losses infinite."""
    P = np.array([[0.9, 0.1, 0.0]] * 3 + [[0.1, 0.2, 0.7]] * 3)
    y = np.array([2, 0, 0, 2, 2, 1])
    got = kernel_calibration_error(
        y, P, loss="log", kernel=kernel, bandwidth=0.05, return_sharpness=True
    )
    assert got.total_loss == math.inf
    near = got.prediction == 0.9
    assert np.all(got.expected_loss[near] == math.inf)
    if kernel == "epanechnikov":
        assert np.all(np.isfinite(got.expected_loss[~near]))
    else:
        assert np.all(got.expected_loss == math.inf)


def test_errors():
    """Check the rejections of inconsistent options and invalid parameters."""
    y, P = _multiclass(np.random.RandomState(0), 30, 3)
    labels = np.arange(3)
    with pytest.raises(ValueError, match="return_sharpness=True describes a single"):
        kernel_calibration_error(
            y, P, reduction="classwise", return_sharpness=True, labels=labels
        )
    with pytest.raises(ValueError, match="return_per_class=True needs"):
        kernel_calibration_error(y, P, return_per_class=True, labels=labels)
    with pytest.raises(InvalidParameterError, match="'bandwidth' parameter"):
        kernel_calibration_error(y, P, bandwidth=0.0, labels=labels)
    with pytest.raises(InvalidParameterError, match="'kernel' parameter"):
        kernel_calibration_error(y, P, kernel="box", labels=labels)
    with pytest.raises(InvalidParameterError, match="'return_sharpness' parameter"):
        kernel_calibration_error(y, P, return_sharpness="yes", labels=labels)


# ---------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
def test_real_data_top_label_matches_reference(
    real_multiclass, global_random_seed, kernel
):
    """Check the top-label estimate on real outputs against dense sums."""
    labels, probs = real_multiclass
    rng = np.random.RandomState(global_random_seed)
    rows = rng.choice(len(labels), size=1500, replace=False)
    y, P = labels[rows], probs[rows]
    correct = (P.argmax(axis=1) == y).astype(int)
    confidence = P.max(axis=1).astype(np.float64)
    got = kernel_calibration_error(y, P, kernel=kernel, labels=np.arange(P.shape[1]))
    expected = ref_estimate(correct, confidence, None, "brier", kernel, 0.05)
    assert_allclose(got, expected["calibration_error"], rtol=1e-10)


# ---------------------------------------------------------------------------
# The numbers behind the diagrams (issue 11)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# calibration_sharpness_curve
# ---------------------------------------------------------------------------


def _kernel_reference(y_true, y_prob, weights, grid, loss, kernel, bandwidth):
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
        # scikit-learn's Brier score: a binary problem by its positive class.
        score = ((full - onehot) ** 2).sum(axis=1) / (2 if y_prob.ndim == 1 else 1)
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
    return rate, density, expected, pointwise, total


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov"])
@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("problem", ["multiclass", "weighted-binary"])
def test_sharpness_curve_is_the_kernel_regression(
    global_random_seed, kernel, loss, problem
):
    """Check the grid arrays of calibration_sharpness_curve against dense sums."""
    rng = np.random.RandomState(global_random_seed)
    weights = None
    if problem == "multiclass":
        y_prob = rng.dirichlet(np.full(4, 0.6), size=400)
        y_true = np.array([rng.choice(4, p=r**2 / (r**2).sum()) for r in y_prob])
    else:
        y_prob = rng.uniform(0.02, 0.98, size=400)
        y_true = (rng.uniform(size=400) < y_prob**1.3).astype(int)
        weights = rng.uniform(0.1, 3.0, size=400)
    curve = calibration_sharpness_curve(
        y_true,
        y_prob,
        sample_weight=weights,
        loss=loss,
        kernel=kernel,
        bandwidth=0.08,
        n_points=101,
    )
    rate, density, expected, pointwise, total = _kernel_reference(
        y_true, y_prob, weights, curve.grid, loss, kernel, 0.08
    )
    gap = expected - pointwise
    assert_array_equal(curve.grid, np.linspace(0, 1, 101))
    defined = np.isfinite(curve.calibration)
    # Undefined only where the kernel weight is negligible.
    assert np.all(total[~defined] <= 1e-3 * total.max())
    assert defined.sum() > 40
    close = dict(rtol=1e-7, atol=1e-9)
    assert_allclose(curve.calibration[defined], rate[defined], rtol=1e-9, atol=1e-12)
    assert_allclose(curve.density, density, rtol=1e-9, atol=1e-12)
    assert_allclose(curve.expected_loss[defined], expected[defined], **close)
    assert_allclose(
        curve.pointwise_calibration_error[defined], pointwise[defined], **close
    )
    assert_allclose(curve.sharpness_gap[defined], gap[defined], **close)
    for key in ("expected_loss", "pointwise_calibration_error", "sharpness_gap"):
        assert np.isnan(curve[key][~defined]).all(), key
    length = density * gap
    assert_allclose(curve.band_high[defined], (rate + length / 2)[defined], **close)
    assert_allclose(
        curve.band_low[defined], np.maximum(rate - length / 2, 0)[defined], **close
    )
    result = kernel_calibration_error(
        y_true,
        y_prob,
        sample_weight=weights,
        loss=loss,
        kernel=kernel,
        bandwidth=0.08,
        return_sharpness=True,
    )
    assert curve.calibration_error == result.calibration_error
    assert curve.total_loss == result.total_loss
    assert curve.constant_prediction is None


def test_sharpness_curve_at_the_predictions_is_the_metric(global_random_seed):
    """Check that at grid predictions, the arrays are the metric's pointwise ones."""
    rng = np.random.RandomState(global_random_seed)
    grid = np.linspace(0, 1, 21)
    y_prob = grid[rng.randint(3, 18, size=300)]
    y_true = (rng.uniform(size=300) < y_prob**2).astype(int)
    curve = calibration_sharpness_curve(y_true, y_prob, n_points=21, bandwidth=0.1)
    result = kernel_calibration_error(
        y_true, y_prob, bandwidth=0.1, return_sharpness=True
    )
    index = np.rint(y_prob * 20).astype(int)
    assert_allclose(curve.calibration[index], result.event_rate, rtol=1e-12)
    assert_allclose(curve.density[index], result.density, rtol=1e-12)
    assert_allclose(curve.expected_loss[index], result.expected_loss, rtol=1e-12)
    assert_allclose(
        curve.pointwise_calibration_error[index],
        result.pointwise_calibration_error,
        rtol=1e-10,
        atol=1e-15,
    )
    assert_allclose(
        curve.sharpness_gap[index], result.pointwise_sharpness_gap, rtol=1e-10
    )


@pytest.mark.parametrize("noise", [0.0, 1e-9])
def test_sharpness_curve_of_a_constant_prediction(noise):
    """Check the constant prediction: its value, and a curve only near it."""
    rng = np.random.RandomState(0)
    y_true = rng.randint(0, 2, size=200)
    y_prob = 0.3 + noise * rng.uniform(size=200)
    curve = calibration_sharpness_curve(y_true, y_prob)
    assert_allclose(curve.constant_prediction, np.mean(y_prob), atol=1e-12)
    defined = np.isfinite(curve.calibration)
    # Within 3.72 bandwidths: where the kernel weight is 1e-3 of its peak.
    reach = 0.05 * math.sqrt(2 * math.log(1e3))
    assert_array_equal(defined, np.abs(curve.grid - 0.3) < reach)
    assert_allclose(curve.calibration[defined], y_true.mean(), atol=1e-4)
    # Spread beyond 1e-6: no constant prediction.
    spread = calibration_sharpness_curve(y_true, y_prob + 1e-5 * np.arange(200) / 200)
    assert spread.constant_prediction is None
