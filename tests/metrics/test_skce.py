"""Tests of the squared kernel calibration error (SKCE) and its test."""

# SPDX-License-Identifier: BSD-3-Clause

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.integrate import dblquad

from skcal.metrics import _skce
from skcal.metrics._skce import (
    _decay_scan,
    kernel_calibration_test,
    squared_kernel_calibration_error,
)
from tests.metrics._reference import (
    random_binary,
    random_multiclass,
    random_weights,
    ref_views,
)
from tests.metrics._strategies import binary_data

skce = squared_kernel_calibration_error

# ---------------------------------------------------------------------------
# Brute-force references: explicit pairs, written from the definitions
# ---------------------------------------------------------------------------


def residual_vectors(y, prob):
    """``e_y - p`` for labels 0..K-1 and a probability matrix (or binary p)."""
    prob = np.asarray(prob, dtype=np.float64)
    if prob.ndim == 1:
        prob = np.column_stack([1 - prob, prob])
    return np.eye(prob.shape[1])[np.asarray(y, dtype=int)] - prob, prob


def ref_pairs(vectors, residuals, w, bandwidth, pairs):
    """``sum w_i w_j h_ij / sum w_i w_j`` over the ordered pairs ``pairs``."""
    num = den = 0.0
    for i, j in pairs:
        distance = math.sqrt(
            sum((a - b) ** 2 for a, b in zip(vectors[i], vectors[j], strict=True))
        )
        kernel = math.exp(-distance / bandwidth)
        num += w[i] * w[j] * kernel * float(np.dot(residuals[i], residuals[j]))
        den += w[i] * w[j]
    return num / den


def all_pairs(n):
    return [(i, j) for i in range(n) for j in range(n) if i != j]


def block_pairs(n, size):
    blocks = [range(b * size, (b + 1) * size) for b in range(n // size)]
    return [(i, j) for block in blocks for i in block for j in block if i != j]


def ref_skce_1d(y, p, w, bandwidth, pairs=None):
    """The SKCE of a binary view: scalar residuals, distances |p_i - p_j|."""
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    keep = w > 0
    y, p, w = y[keep], p[keep], w[keep]
    pairs = all_pairs(len(p)) if pairs is None else pairs(len(p))
    return ref_pairs(p[:, None], (y - p)[:, None], w, bandwidth, pairs)


def ref_skce_canonical(y, prob, w, bandwidth, pairs=None):
    """The SKCE of the paper on probability vectors."""
    residuals, prob = residual_vectors(y, prob)
    w = np.ones(len(prob)) if w is None else np.asarray(w, dtype=np.float64)
    keep = w > 0
    pairs = all_pairs(int(keep.sum())) if pairs is None else pairs(int(keep.sum()))
    return ref_pairs(prob[keep], residuals[keep], w[keep], bandwidth, pairs)


def ref_median(distances, weights=None):
    """Median of pair distances: np.median, weighted by sorting; the fallback
    to the positive distances when it is 0; 1 when all are 0."""
    distances = np.asarray(distances, dtype=np.float64)
    weights = np.ones_like(distances) if weights is None else np.asarray(weights)
    median = _weighted_median(distances, weights)
    if median == 0.0:
        positive = distances > 0
        if not positive.any():
            return 1.0
        median = _weighted_median(distances[positive], weights[positive])
    return median


def _weighted_median(distances, weights):
    if np.all(weights == weights[0]):
        return float(np.median(distances))
    order = np.argsort(distances, kind="stable")
    cumulative = np.cumsum(weights[order])
    k = int(np.searchsorted(cumulative, cumulative[-1] / 2))
    return float(distances[order][k])


def pair_distances_1d(p, w=None):
    p = np.asarray(p, dtype=np.float64)
    i, j = np.triu_indices(len(p), 1)
    weights = None if w is None else np.asarray(w)[i] * np.asarray(w)[j]
    return np.abs(p[i] - p[j]), weights


def ref_median_1d(p, w=None):
    return ref_median(*pair_distances_1d(p, w))


# ---------------------------------------------------------------------------
# Agreement with the brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 17, 40])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_full_matches_brute_force(global_random_seed, n, ties, weighted):
    """Check the full estimator against the double loop, fixed and median bandwidth."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n, ties=ties)
    w = random_weights(rng, n) if weighted else None
    if weighted:
        w[1] = 0.5 + w[1]  # at least two rows of positive weight
    got = skce(y, p, sample_weight=w, bandwidth=0.3)
    assert isinstance(got, float)
    assert_allclose(got, ref_skce_1d(y, p, w, 0.3), rtol=1e-12, atol=1e-15)
    keep = np.ones(n, bool) if w is None else w > 0
    median = ref_median_1d(p[keep], None if w is None else w[keep])
    assert_allclose(
        skce(y, p, sample_weight=w), ref_skce_1d(y, p, w, median), rtol=1e-12
    )


@pytest.mark.parametrize("reduction", ["positive", "top_label", "classwise"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_views_match_brute_force(global_random_seed, reduction, weighted):
    """Check every binary view of a multiclass problem, and per-class values."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 35, 4)
    prob = np.round(prob, 2)  # ties, also in the argmax
    prob /= prob.sum(axis=1, keepdims=True)
    w = random_weights(rng, 35) if weighted else None
    expected = [
        ref_skce_1d(yv, pv, w, 0.25) for yv, pv in ref_views(y, prob, reduction, 2)
    ]
    kw = {"pos_label": 2} if reduction == "positive" else {}
    got = skce(y, prob, sample_weight=w, reduction=reduction, bandwidth=0.25, **kw)
    assert_allclose(got, np.mean(expected), rtol=1e-12, atol=1e-15)
    if reduction == "classwise":
        vector = skce(
            y,
            prob,
            sample_weight=w,
            reduction=reduction,
            bandwidth=0.25,
            return_per_class=True,
        )
        assert vector.shape == (4,)
        assert_allclose(vector, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("estimator", ["full", "block"])
def test_canonical_matches_brute_force(global_random_seed, weighted, estimator):
    """Check the canonical (vector) estimators against the double loop."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 31, 4)
    w = random_weights(rng, 31) if weighted else None
    for size in [2, 3, 7]:
        pairs = None if estimator == "full" else (lambda n, s=size: block_pairs(n, s))
        got = skce(
            y,
            prob,
            sample_weight=w,
            reduction="canonical",
            bandwidth=0.4,
            estimator=estimator,
            block_size=size,
        )
        expected = ref_skce_canonical(y, prob, w, 0.4, pairs)
        assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("size", [2, 3, 7, 64, 65, 100])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_block_matches_brute_force(global_random_seed, size, weighted):
    """Check the block estimator (both of its code paths) and its dropped tail."""
    rng = np.random.RandomState(global_random_seed)
    n = 2 * size + size // 2 + 1  # an incomplete last block
    y, p = random_binary(rng, n, ties=True)
    w = rng.uniform(0.2, 3.0, size=n) if weighted else None
    got = skce(y, p, sample_weight=w, estimator="block", block_size=size, bandwidth=0.2)
    expected = ref_skce_1d(y, p, w, 0.2, lambda m: block_pairs(m, size))
    assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("reduction", ["positive", "canonical"])
def test_block_of_all_rows_is_the_full_estimator(global_random_seed, reduction):
    """Check that block_size=n gives the full estimator (the Julia convention)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 130)
    full = skce(y, p, reduction=reduction)
    block = skce(y, p, reduction=reduction, estimator="block", block_size=130)
    assert_allclose(block, full, rtol=1e-12)


def test_scan_agrees_with_brute_force_on_thousands_of_rows(global_random_seed):
    """Check the O(n log n) path against a full kernel matrix to 1e-12."""
    rng = np.random.RandomState(global_random_seed)
    n = 3000
    p = rng.beta(0.5, 0.5, size=n)
    y = rng.uniform(size=n) < p**1.5
    w = rng.uniform(0.1, 2.0, size=n)
    for bandwidth in [0.01, 0.3, 5.0]:
        r = w * (y - p)
        terms = np.exp(-np.abs(p[:, None] - p[None, :]) / bandwidth) * np.outer(r, r)
        np.fill_diagonal(terms, 0.0)
        pair_weight = w.sum() ** 2 - (w * w).sum()
        expected = terms.sum() / pair_weight
        got = skce(y, p, sample_weight=w, bandwidth=bandwidth)
        assert abs(got - expected) <= 1e-12 * abs(expected)
        assert abs(got - expected) <= 1e-12 * np.abs(terms).sum() / pair_weight


def test_decay_scan_is_the_recurrence(global_random_seed):
    """Check the blocked scan against the sequential recurrence, 1-D and 2-D."""
    rng = np.random.RandomState(global_random_seed)
    for n in [1, 5, 64, 65, 4097, 9000]:
        decay = rng.uniform(size=n) ** 3
        decay[rng.uniform(size=n) < 0.2] = 1.0  # ties
        decay[rng.uniform(size=n) < 0.05] = 0.0
        values = rng.normal(size=(3, n))
        expected = np.zeros((3, n))
        running = np.zeros(3)
        for j in range(n):
            running = decay[j] * running + values[:, j]
            expected[:, j] = running
        assert_allclose(_decay_scan(decay, values), expected, rtol=1e-12, atol=1e-12)
        per_row = np.tile(decay, (3, 1))
        assert_allclose(_decay_scan(per_row, values), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bandwidth", [1e-12, 1e6])
def test_extreme_bandwidths(global_random_seed, bandwidth):
    """Check that tiny and huge bandwidths neither under- nor overflow."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 60, ties=True)
    got = skce(y, p, bandwidth=bandwidth)
    assert_allclose(got, ref_skce_1d(y, p, None, bandwidth), rtol=1e-9, atol=1e-15)


# ---------------------------------------------------------------------------
# The median heuristic
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["continuous", "grid", "heavy_ties", "u_shaped"])
@pytest.mark.parametrize("weighted", [False, True])
def test_median_heuristic_is_exact(global_random_seed, kind, weighted):
    """Check the exact median (with pivots: 2.4 million pairs) against np.median."""
    rng = np.random.RandomState(global_random_seed)
    n = 2200
    p = {
        "continuous": lambda: rng.uniform(size=n),
        "grid": lambda: np.round(rng.uniform(size=n), 2),
        "heavy_ties": lambda: np.where(
            rng.uniform(size=n) < 0.75, 0.5, rng.uniform(size=n)
        ),
        "u_shaped": lambda: rng.beta(0.1, 0.1, size=n),
    }[kind]()
    w = rng.uniform(0.5, 2.0, size=n) if weighted else None
    y = np.zeros(n)
    result = kernel_calibration_test(
        y, p, sample_weight=w, estimator="block", block_size=2
    )
    assert result.bandwidth == ref_median_1d(p, w)


def test_median_heuristic_small_cases():
    """Check even counts (mean of the middle two), two rows and equal predictions."""
    bandwidth = _skce._median_distance_1d
    from skcal._utils._ties import Ties

    p = np.array([0.1, 0.2, 0.5, 0.9])  # 6 pairs: 0.1 0.3 0.4 0.4 0.7 0.8
    assert bandwidth(Ties(p, np.ones(4))) == float(np.median(pair_distances_1d(p)[0]))
    assert bandwidth(Ties(p[:2], np.ones(2))) == float(p[1] - p[0])
    assert bandwidth(Ties(np.full(5, 0.3), np.ones(5))) == 1.0
    for values in [
        [0.2, 0.2, 0.6],  # distances 0, 0.4, 0.4: the median is 0.4
        [0.2, 0.2, 0.2, 0.6, 0.6],  # 4 ties in 10 pairs
        [0.2, 0.2, 0.2, 0.6],  # half the pairs tied: the mean of 0 and 0.4
    ]:
        p = np.array(values)
        expected = float(np.median(pair_distances_1d(p)[0]))
        assert expected > 0.0
        assert bandwidth(Ties(p, np.ones(len(p)))) == expected


def test_canonical_median_on_a_subsample(global_random_seed):
    """Check the canonical median: all pairs up to 1000 rows, else 1000 rows
    evenly spaced in lexicographic order (independent of the row order)."""
    rng = np.random.RandomState(global_random_seed)
    for n in [300, 1000, 1500]:
        y, prob = random_multiclass(rng, n, 3)
        w = rng.uniform(0.5, 2.0, size=n)
        got = kernel_calibration_test(
            y, prob, sample_weight=w, reduction="canonical", estimator="block"
        ).bandwidth
        rows = np.arange(n)
        if n > 1000:
            order = np.lexsort((w, prob[:, 2], prob[:, 1], prob[:, 0]))
            rows = order[(np.arange(1000) * n) // 1000]
        i, j = np.triu_indices(len(rows), 1)
        sub, ws = prob[rows], w[rows]
        distances = np.sqrt(((sub[i] - sub[j]) ** 2).sum(axis=1))
        assert_allclose(got, ref_median(distances, ws[i] * ws[j]), rtol=1e-14)
        perm = rng.permutation(n)
        again = kernel_calibration_test(
            y[perm],
            prob[perm],
            sample_weight=w[perm],
            reduction="canonical",
            estimator="block",
        ).bandwidth
        assert again == got


# ---------------------------------------------------------------------------
# Relations between reductions, weights and invariances
# ---------------------------------------------------------------------------


def test_binary_canonical_is_twice_positive(global_random_seed):
    """Check the Notes: canonical at h equals 2 x positive at h / sqrt(2)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 200)
    canonical = skce(y, p, reduction="canonical", bandwidth=0.3)
    positive = skce(y, p, bandwidth=0.3 / math.sqrt(2))
    assert_allclose(canonical, 2 * positive, rtol=1e-10)
    # The median heuristic scales alike (all pairs up to 1000 rows).
    assert_allclose(skce(y, p, reduction="canonical"), 2 * skce(y, p), rtol=1e-10)
    # The two one-vs-rest views of a binary problem are the same view.
    assert_allclose(skce(y, p, reduction="classwise"), skce(y, p), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["positive", "top_label", "canonical"])
@pytest.mark.parametrize("estimator", ["full", "block"])
def test_sample_weight_rules(global_random_seed, reduction, estimator):
    """Check None == ones, zero weight == dropped row, and scale invariance."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 60, 3)
    kw = {"reduction": reduction, "estimator": estimator, "block_size": 3}
    if reduction == "positive":
        kw["pos_label"] = 1
    assert skce(y, prob, sample_weight=np.ones(60), **kw) == skce(y, prob, **kw)
    w = rng.uniform(0.5, 2.0, size=60)
    w[::7] = 0.0
    kept = w > 0
    assert_allclose(
        skce(y, prob, sample_weight=w, **kw),
        skce(y[kept], prob[kept], sample_weight=w[kept], **kw),
        rtol=1e-12,
    )
    assert_allclose(
        skce(y, prob, sample_weight=w * 1e-200, **kw),
        skce(y, prob, sample_weight=w, **kw),
        rtol=1e-12,
    )


def test_integer_weights_are_repeated_rows_without_pairs_of_copies(global_random_seed):
    """Check the documented meaning of integer weights: repeated rows whose
    copies do not pair with each other (the U-statistic never pairs a row
    with itself), which differs from plain repetition."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 25)
    counts = rng.randint(1, 4, size=25)
    counts[0] = 3
    rows = np.repeat(np.arange(25), counts)
    y_rep, p_rep = y[rows], p[rows]
    pairs = [
        (i, j) for i in range(len(rows)) for j in range(len(rows)) if rows[i] != rows[j]
    ]
    expected = ref_pairs(
        p_rep[:, None], (y_rep - p_rep)[:, None], np.ones(len(rows)), 0.2, pairs
    )
    got = skce(y, p, sample_weight=counts, bandwidth=0.2)
    assert_allclose(got, expected, rtol=1e-12)
    assert abs(skce(y_rep, p_rep, bandwidth=0.2) - got) > 1e-6


@pytest.mark.parametrize(
    "reduction", ["positive", "top_label", "classwise", "canonical"]
)
def test_full_estimator_ignores_row_order(global_random_seed, reduction):
    """Check that a permutation of the rows changes nothing (full estimator)."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 1200, 3)
    w = rng.uniform(0.5, 2.0, size=1200)
    perm = rng.permutation(1200)
    kw = {"reduction": reduction, "pos_label": 1 if reduction == "positive" else None}
    assert_allclose(
        skce(y[perm], prob[perm], sample_weight=w[perm], **kw),
        skce(y, prob, sample_weight=w, **kw),
        rtol=1e-11,
        atol=1e-15,
    )


@given(data=binary_data(min_size=2, max_size=25), seed=st.integers(0, 2**31 - 1))
def test_properties_on_binary_data(data, seed):
    """Check, on arbitrary data, the brute force, row order and weight scale."""
    y, p = data
    rng = np.random.RandomState(seed)
    w = rng.uniform(0.1, 3.0, size=len(y))
    value = skce(y, p, sample_weight=w)
    assert_allclose(
        value, ref_skce_1d(y, p, w, ref_median_1d(p, w)), rtol=1e-9, atol=1e-14
    )
    perm = rng.permutation(len(y))
    assert_allclose(
        skce(y[perm], p[perm], sample_weight=w[perm]), value, rtol=1e-9, atol=1e-14
    )
    assert_allclose(skce(y, p, sample_weight=w * 7.5), value, rtol=1e-9, atol=1e-14)
    assert -1.0 - 1e-12 <= value <= 1.0 + 1e-12


def test_inputs_are_not_modified(global_random_seed):
    """Check that the inputs are left untouched."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 50, 3)
    w = rng.uniform(size=50)
    copies = [y.copy(), prob.copy(), w.copy()]
    for reduction in ["classwise", "canonical"]:
        skce(y, prob, sample_weight=w, reduction=reduction)
        kernel_calibration_test(
            y, prob, sample_weight=w, reduction=reduction, n_resamples=9
        )
    for original, copy in zip([y, prob, w], copies, strict=True):
        assert_allclose(original, copy)


# ---------------------------------------------------------------------------
# Unbiasedness, the population value, and the paper's checkable claims
# ---------------------------------------------------------------------------


def test_unbiased_under_calibration_with_the_median_bandwidth(global_random_seed):
    """Check that the mean estimate on calibrated data is 0, with the median
    heuristic (which depends on the predictions only), and the
    distribution-free tail bound of the unbiased estimator under H0."""
    rng = np.random.RandomState(global_random_seed)
    n, repeats = 20, 1500
    values = np.empty(repeats)
    for r in range(repeats):
        p = rng.uniform(size=n)
        values[r] = skce(rng.uniform(size=n) < p, p)
    error = values.std() / math.sqrt(repeats)
    assert abs(values.mean()) <= 4 * error
    # Hoeffding's bound for U-statistics with |h| <= 1 (Widmann et al.,
    # 2019, and the authors' DistributionFreeSKCETest): P(SKCE >= t) <=
    # exp(-floor(n/2) t**2 / 2).
    for t in [0.1, 0.3, 0.5]:
        bound = math.exp(-(n // 2) * t**2 / 2)
        tail = np.mean(values >= t)
        assert tail <= bound + 3 * math.sqrt(bound * (1 - bound) / repeats)


def _discrete_model(rng, n, support, truth, weights):
    k = rng.choice(len(support), size=n, p=weights)
    return rng.uniform(size=n) < truth[k], support[k]


@pytest.mark.parametrize("estimator", ["full", "block"])
def test_unbiased_on_a_miscalibrated_discrete_model(global_random_seed, estimator):
    """Check that the mean estimate is the population SKCE (a finite sum)."""
    rng = np.random.RandomState(global_random_seed)
    support = np.array([0.1, 0.4, 0.8])
    truth = np.array([0.3, 0.4, 0.6])
    weights = np.array([0.3, 0.3, 0.4])
    bandwidth = 0.5
    kernel = np.exp(-np.abs(support[:, None] - support[None, :]) / bandwidth)
    bias = weights * (truth - support)
    population = float(bias @ kernel @ bias)
    values = [
        skce(
            *_discrete_model(rng, 30, support, truth, weights),
            bandwidth=bandwidth,
            estimator=estimator,
            block_size=3,
        )
        for _ in range(1000)
    ]
    error = np.std(values) / math.sqrt(len(values))
    assert abs(np.mean(values) - population) <= 4 * error
    assert population > 0.0  # a universal kernel sees the miscalibration


def test_canonical_is_unbiased_on_a_discrete_model(global_random_seed):
    """Check the canonical estimator's mean against the population SKCE."""
    rng = np.random.RandomState(global_random_seed)
    support = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    truth = np.array([[0.4, 0.4, 0.2], [0.2, 0.5, 0.3], [0.3, 0.1, 0.6]])
    weights = np.array([0.4, 0.3, 0.3])
    bandwidth = 0.7
    distances = np.sqrt(((support[:, None] - support[None, :]) ** 2).sum(axis=2))
    bias = weights[:, None] * (truth - support)
    population = float(np.sum(np.exp(-distances / bandwidth) * (bias @ bias.T)))
    values = []
    for _ in range(600):
        k = rng.choice(3, size=25, p=weights)
        cumulative = np.cumsum(truth[k], axis=1)
        y = (rng.uniform(size=25)[:, None] >= cumulative).sum(axis=1).clip(0, 2)
        values.append(
            skce(
                y,
                support[k],
                labels=[0, 1, 2],
                reduction="canonical",
                bandwidth=bandwidth,
            )
        )
    error = np.std(values) / math.sqrt(len(values))
    assert abs(np.mean(values) - population) <= 4 * error


def test_population_value_of_a_continuous_model(global_random_seed):
    """Check the estimate at large n against the closed-form integral for
    p ~ U(0, 1), P(Y = 1 | p) = p**2."""
    bandwidth = 0.2
    half, _ = dblquad(
        lambda t, s: math.exp(-(s - t) / bandwidth) * (s * s - s) * (t * t - t),
        0,
        1,
        0,
        lambda s: s,
        epsabs=1e-13,
    )
    population = 2 * half
    assert_allclose(population, 0.0107302604, rtol=1e-8)
    rng = np.random.RandomState(global_random_seed)
    values = []
    for _ in range(5):
        p = rng.uniform(size=200_000)
        values.append(skce(rng.uniform(size=200_000) < p**2, p, bandwidth=bandwidth))
    # The standard deviation of one estimate is about 1.1e-4 (simulated).
    assert abs(np.mean(values) - population) <= 4 * 1.2e-4 / math.sqrt(5)


# ---------------------------------------------------------------------------
# The test: size, power, exactness and its result
# ---------------------------------------------------------------------------

ALPHA = 0.05


def _rejection_rate(rng, repeats, n, power, **kw):
    rejected = 0
    for _ in range(repeats):
        p = rng.uniform(size=n)
        y = rng.uniform(size=n) < (p**2 if power else p)
        result = kernel_calibration_test(y, p, random_state=rng, **kw)
        rejected += result.p_value <= ALPHA
    return rejected / repeats


def _limit(alpha, repeats):
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / repeats)


def test_size_and_power_of_the_resampling_test(global_random_seed):
    """Check the size (at most alpha) and the power on P(Y = 1 | p) = p**2."""
    rng = np.random.RandomState(global_random_seed)
    size = _rejection_rate(rng, 300, 100, False, n_resamples=99)
    assert size <= _limit(ALPHA, 300)
    power = _rejection_rate(rng, 100, 100, True, n_resamples=99)
    assert power >= 0.6  # about 0.76 in the benchmark


def test_size_and_power_of_the_block_test(global_random_seed):
    """Check the block test's size and that the full test is more powerful."""
    rng = np.random.RandomState(global_random_seed)
    size = _rejection_rate(rng, 400, 400, False, estimator="block")
    assert size <= _limit(ALPHA, 400)
    power = _rejection_rate(rng, 200, 400, True, estimator="block")
    full = _rejection_rate(rng, 100, 400, True, n_resamples=99)
    assert 0.15 <= power < full


def test_resampling_test_is_exact_with_few_rows_and_ties(global_random_seed):
    """Check that ties between the statistic and its draws keep the level
    (5 rows on a coarse grid: only a few label sets are possible)."""
    rng = np.random.RandomState(global_random_seed)
    rejected, repeats, alpha = 0, 400, 0.2
    for _ in range(repeats):
        p = rng.choice([0.2, 0.5, 0.9], size=5)
        y = rng.uniform(size=5) < p
        result = kernel_calibration_test(y, p, n_resamples=49, random_state=rng)
        rejected += result.p_value <= alpha
    assert rejected / repeats <= _limit(alpha, repeats)


@pytest.mark.parametrize("reduction", ["classwise", "canonical"])
def test_size_of_multiclass_resampling(global_random_seed, reduction):
    """Check the level of the classwise and canonical tests (classes drawn jointly)."""
    rng = np.random.RandomState(global_random_seed)
    rejected, repeats = 0, 120
    for _ in range(repeats):
        y, prob = random_multiclass(rng, 40, 3)
        result = kernel_calibration_test(
            y, prob, reduction=reduction, n_resamples=49, random_state=rng
        )
        rejected += result.p_value <= ALPHA
    assert rejected / repeats <= _limit(ALPHA, repeats)


def test_test_result(global_random_seed):
    """Check the fields of the result against the measure and the formulas."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 101, 3)
    w = rng.uniform(0.5, 2.0, size=101)
    full = kernel_calibration_test(
        y, prob, sample_weight=w, reduction="classwise", random_state=0
    )
    assert full.statistic == skce(y, prob, sample_weight=w, reduction="classwise")
    assert full.z_score is None and full.estimator == "full"
    assert 1 / 1001 <= full.p_value <= 1.0
    assert full.bandwidth.shape == (3,)
    assert_allclose(full.n_effective, w.sum() ** 2 / (w * w).sum())
    assert "P(Y | g(X)) = g(X)" in full.null_hypothesis
    again = kernel_calibration_test(
        y, prob, sample_weight=w, reduction="classwise", random_state=0
    )
    assert again.p_value == full.p_value

    block = kernel_calibration_test(y, prob, estimator="block", block_size=4)
    assert_allclose(
        block.statistic, skce(y, prob, estimator="block", block_size=4), rtol=1e-12
    )
    yv, pv = ref_views(y, prob, "top_label")[0]
    values = [
        ref_skce_1d(yv[4 * b : 4 * b + 4], pv[4 * b : 4 * b + 4], None, block.bandwidth)
        for b in range(25)
    ]
    z = np.mean(values) / (np.std(values, ddof=1) / 5)
    assert_allclose(block.z_score, z, rtol=1e-10)
    assert_allclose(block.p_value, 0.5 * math.erfc(z / math.sqrt(2)), rtol=1e-10)
    assert isinstance(block.bandwidth, float)


def test_block_test_of_identical_blocks():
    """Check the p-value when every block has the same value (no spread)."""
    result = kernel_calibration_test([1] * 6, [0.5] * 6, estimator="block")
    assert result.statistic == 0.25 and result.p_value == 0.0
    result = kernel_calibration_test([1, 0] * 3, [1.0, 0.0] * 3, estimator="block")
    assert result.statistic == 0.0 and result.p_value == 0.5


# ---------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("func", [skce, kernel_calibration_test])
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bandwidth": 0.0}, "'bandwidth' parameter"),
        ({"bandwidth": -1.0}, "'bandwidth' parameter"),
        ({"bandwidth": math.inf}, "'bandwidth' parameter"),
        ({"bandwidth": math.nan}, "'bandwidth' parameter"),
        ({"bandwidth": "mean"}, "'bandwidth' parameter"),
        ({"block_size": 1}, "'block_size' parameter"),
        ({"block_size": 2.0}, "'block_size' parameter"),
        ({"estimator": "linear"}, "'estimator' parameter"),
        ({"reduction": "pairs"}, "'reduction' parameter"),
        ({"estimator": "block", "block_size": 11}, "block_size=11 exceeds"),
    ],
)
def test_rejections(func, kwargs, match):
    """Check the errors of bad hyper-parameters."""
    with pytest.raises(ValueError, match=match):
        func([0, 1] * 5, [0.2, 0.7] * 5, **kwargs)


def test_rejections_of_the_data_and_the_options():
    """Check the errors that depend on the data or on combined options."""
    with pytest.raises(ValueError, match="at least 2 samples of positive weight"):
        skce([0, 1], [0.2, 0.7], sample_weight=[1.0, 0.0])
    with pytest.raises(ValueError, match="at least 2 samples"):
        skce([1], [0.3])
    with pytest.raises(ValueError, match="at least 2 blocks"):
        kernel_calibration_test([0, 1, 1], [0.2, 0.7, 0.5], estimator="block")
    with pytest.raises(ValueError, match="return_per_class=True needs"):
        skce([0, 1], [0.2, 0.7], reduction="canonical", return_per_class=True)
    with pytest.raises(ValueError, match="'n_resamples' parameter"):
        kernel_calibration_test([0, 1], [0.2, 0.7], n_resamples=0)
    with pytest.raises(ValueError, match="'random_state' parameter"):
        kernel_calibration_test([0, 1], [0.2, 0.7], random_state="seed")


def test_canonical_cost_guards(monkeypatch):
    """Check the warning of a large canonical estimate and the test's refusal."""
    rng = np.random.RandomState(0)
    y, prob = random_multiclass(rng, 40, 3)
    monkeypatch.setattr(_skce, "_CANONICAL_WARN_ROWS", 30)
    with pytest.warns(UserWarning, match="cost grows as n\\*\\*2"):
        skce(y, prob, reduction="canonical")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skce(y, prob, reduction="canonical", estimator="block")
    monkeypatch.setattr(_skce, "_CANONICAL_TEST_BUDGET", 1e5)
    with pytest.raises(ValueError, match='estimator="block"'):
        kernel_calibration_test(y, prob, reduction="canonical", n_resamples=99)
    kernel_calibration_test(y, prob, reduction="canonical", estimator="block")


# ---------------------------------------------------------------------------
# The PyPI reference: probcal (binary SKCE, O(n**2) memory)
# ---------------------------------------------------------------------------


def test_agrees_with_probcal(global_random_seed):
    """Check the binary SKCE against probcal's, which is twice skcal's
    ``"positive"`` value (the two-class factor 2, distances |p_i - p_j|)."""
    kernel = pytest.importorskip("probcal.metrics.kernel")
    rng = np.random.RandomState(global_random_seed)
    for n in [2, 10, 300, 3000]:
        p = rng.uniform(0.01, 0.99, size=n)
        y = (rng.uniform(size=n) < p**1.5).astype(int)
        y[:2] = [0, 1]  # probcal needs both classes
        for bandwidth in [0.05, 0.2, 1.0]:
            assert_allclose(
                kernel.skce(y, p, bandwidth=bandwidth),
                2 * skce(y, p, bandwidth=bandwidth),
                rtol=1e-12,
                atol=1e-14,  # values near 0 are sums of terms near 1e-2
            )
        # The same median heuristic up to probcal's 4096 rows.
        assert_allclose(kernel.skce(y, p), 2 * skce(y, p), rtol=1e-12, atol=1e-14)
