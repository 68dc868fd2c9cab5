"""Tests of the recalibration improvement with its paired standard error."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.metrics import brier_score_loss

from skcal._param_validation import InvalidParameterError
from skcal.metrics import calibration_decomposition, recalibration_improvement

# ---------------------------------------------------------------------------
# Reference: scores by loops, the weighted mean and its sandwich variance.
# ---------------------------------------------------------------------------


def ref_score(row, k, loss):
    if loss == "brier":
        return sum((row[j] - (j == k)) ** 2 for j in range(len(row)))
    return math.inf if row[k] == 0 else -math.log(row[k])


def ref_improvement(y, before, after, w, loss, level):
    """Improvement, standard error and t interval, written out."""
    before = np.asarray(before, dtype=float)
    after = np.asarray(after, dtype=float)
    # scikit-learn's Brier score of a binary problem: half that of (1 - p, p).
    scale = 0.5 if before.ndim == 1 and loss == "brier" else 1.0
    if before.ndim == 1:
        before = np.column_stack([1 - before, before])
        after = np.column_stack([1 - after, after])
    w = [1.0] * len(y) if w is None else list(w)
    rows = [
        (scale * (ref_score(b, k, loss) - ref_score(a, k, loss)), wi)
        for b, a, k, wi in zip(before, after, y, w, strict=True)
        if wi > 0
    ]
    total = sum(wi for _, wi in rows)
    mean = sum(d * wi for d, wi in rows) / total
    n = len(rows)
    if n < 2:
        return mean, math.nan, (math.nan, math.nan), n
    variance = n / (n - 1) * sum((wi / total) ** 2 * (d - mean) ** 2 for d, wi in rows)
    se = math.sqrt(variance)
    half = stats.t.ppf((1 + level) / 2, n - 1) * se
    return mean, se, (mean - half, mean + half), n


def _multiclass(rng, n, k, n_rows=None):
    if n_rows is None:
        P = rng.dirichlet(np.ones(k), size=n) * 0.97 + 0.03 / k
    else:
        pool = rng.dirichlet(np.ones(k), size=n_rows) * 0.97 + 0.03 / k
        P = pool[rng.randint(n_rows, size=n)]
    y = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in P])
    return y, P


def _temperature(P, temperature):
    scaled = P ** (1.0 / temperature)
    return scaled / scaled.sum(axis=1, keepdims=True)


def _check(result, expected):
    mean, se, interval, n = expected
    assert_allclose(result.improvement, mean, rtol=1e-12, atol=1e-15)
    assert_allclose(result.standard_error, se, rtol=1e-10, atol=1e-15)
    assert_allclose(result.confidence_interval, interval, rtol=1e-10, atol=1e-15)
    assert result.n_samples == n


# ---------------------------------------------------------------------------
# Agreement with the reference and with scipy's paired t test
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["brier", "log"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [None, 4])
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_matches_reference(global_random_seed, loss, weighted, k, level):
    """Check the improvement, its standard error and interval against the loops."""
    rng = np.random.RandomState(global_random_seed)
    n = 150
    if k is None:
        before = rng.uniform(0.02, 0.98, size=n)
        y = (rng.uniform(size=n) < before**2).astype(int)
        after = before**2
    else:
        y, before = _multiclass(rng, n, k)
        after = _temperature(before, 1.7)
    w = None
    if weighted:
        w = rng.uniform(0, 3, size=n)
        w[rng.uniform(size=n) < 0.1] = 0.0
    got = recalibration_improvement(
        y,
        before,
        after,
        sample_weight=w,
        loss=loss,
        confidence_level=level,
        labels=None if k is None else np.arange(k),
    )
    expected = ref_improvement(y, before, after, w, loss, level)
    _check(got, expected)
    assert type(got.improvement) is float
    assert type(got.standard_error) is float
    assert_allclose(got.score_before - got.score_after, got.improvement, atol=1e-14)
    assert (got.loss, got.confidence_level) == (loss, level)


def test_unweighted_is_the_paired_t_interval(global_random_seed):
    """Check that without weights the interval is scipy's paired t interval."""
    rng = np.random.RandomState(global_random_seed)
    y, before = _multiclass(rng, 80, 3)
    after = _temperature(before, 0.8)
    got = recalibration_improvement(y, before, after, labels=np.arange(3))
    rows = np.arange(80)
    score_before = np.sum((before - np.eye(3)[y]) ** 2, axis=1)
    score_after = np.sum((after - np.eye(3)[y]) ** 2, axis=1)
    test = stats.ttest_rel(score_before, score_after)
    interval = test.confidence_interval(0.95)
    assert_allclose(got.confidence_interval, (interval.low, interval.high), rtol=1e-10)
    differences = score_before - score_after
    assert_allclose(
        got.standard_error, differences.std(ddof=1) / math.sqrt(len(rows)), rtol=1e-12
    )


# ---------------------------------------------------------------------------
# Checkable claims: Prop. 4.5 of Gruber & Buettner (proper note §4 item 13)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_injective_recalibration_is_the_calibration_improvement(
    global_random_seed, loss
):
    """Check Delta score = Delta CE exactly for injective maps, and the ranking."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 500, 4, n_rows=25)
    labels = np.arange(4)
    before = calibration_decomposition(y, P, loss=loss, labels=labels)
    improvements, errors = [], []
    for temperature in (0.5, 0.8, 1.5, 3.0):
        Q = _temperature(P, temperature)
        after = calibration_decomposition(y, Q, loss=loss, labels=labels)
        got = recalibration_improvement(y, P, Q, loss=loss, labels=labels)
        delta = before.miscalibration - after.miscalibration
        assert_allclose(got.improvement, delta, rtol=1e-10, atol=1e-14)
        assert_allclose(after.discrimination, before.discrimination, rtol=1e-10)
        improvements.append(got.improvement)
        errors.append(after.miscalibration)
    assert np.array_equal(np.argsort(improvements), np.argsort(errors)[::-1])


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_monotone_binary_map_is_the_calibration_improvement(global_random_seed, loss):
    """Check the identity for a strictly increasing map of binary probabilities."""
    rng = np.random.RandomState(global_random_seed)
    pool = rng.uniform(0.05, 0.95, size=15)
    p = pool[rng.randint(15, size=400)]
    y = (rng.uniform(size=400) < np.sqrt(p)).astype(int)
    after = np.sqrt(p)
    got = recalibration_improvement(y, p, after, loss=loss)
    delta = (
        calibration_decomposition(y, p, loss=loss).miscalibration
        - calibration_decomposition(y, after, loss=loss).miscalibration
    )
    assert_allclose(got.improvement, delta, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss", ["brier", "log"])
def test_non_injective_map_underestimates(global_random_seed, loss):
    """Check Delta score <= Delta CE and a loss of DSC for a merging map (§2.8)."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 500, 3, n_rows=60)
    labels = np.arange(3)
    merged = np.round(P, 1) + 0.02
    merged /= merged.sum(axis=1, keepdims=True)
    before = calibration_decomposition(y, P, loss=loss, labels=labels)
    after = calibration_decomposition(y, merged, loss=loss, labels=labels)
    got = recalibration_improvement(y, P, merged, loss=loss, labels=labels)
    assert got.improvement <= before.miscalibration - after.miscalibration + 1e-12
    assert after.discrimination <= before.discrimination + 1e-12
    lost = before.discrimination - after.discrimination
    assert_allclose(
        got.improvement,
        before.miscalibration - after.miscalibration - lost,
        rtol=1e-10,
        atol=1e-14,
    )


# ---------------------------------------------------------------------------
# Weights and invariances
# ---------------------------------------------------------------------------


def test_sample_weight_rules(global_random_seed):
    """Check None == ones, zero weight == dropped row and scale invariance."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 120, 3)
    Q = _temperature(P, 1.4)
    labels = np.arange(3)
    plain = recalibration_improvement(y, P, Q, labels=labels)
    ones = recalibration_improvement(y, P, Q, sample_weight=np.ones(120), labels=labels)
    _check(
        ones, (plain.improvement, plain.standard_error, plain.confidence_interval, 120)
    )
    w = rng.uniform(0.5, 2, size=120)
    w[::5] = 0.0
    kept = w > 0
    weighted = recalibration_improvement(y, P, Q, sample_weight=w, labels=labels)
    dropped = recalibration_improvement(
        y[kept], P[kept], Q[kept], sample_weight=w[kept], labels=labels
    )
    scaled = recalibration_improvement(y, P, Q, sample_weight=w * 1e4, labels=labels)
    for other in (dropped, scaled):
        _check(
            other,
            (
                weighted.improvement,
                weighted.standard_error,
                weighted.confidence_interval,
                int(kept.sum()),
            ),
        )


def test_integer_weights_are_not_repetitions(global_random_seed):
    """Check that integer weights keep the mean of repetition but not its spread."""
    rng = np.random.RandomState(global_random_seed)
    y, P = _multiclass(rng, 60, 3)
    Q = _temperature(P, 2.0)
    counts = rng.randint(1, 4, size=60)
    labels = np.arange(3)
    weighted = recalibration_improvement(y, P, Q, sample_weight=counts, labels=labels)
    repeated = recalibration_improvement(
        np.repeat(y, counts),
        np.repeat(P, counts, axis=0),
        np.repeat(Q, counts, axis=0),
        labels=labels,
    )
    assert_allclose(weighted.improvement, repeated.improvement, rtol=1e-12)
    assert repeated.standard_error < weighted.standard_error


@given(
    data=st.lists(
        st.tuples(st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.integers(0, 1)),
        min_size=2,
        max_size=30,
    ),
    loss=st.sampled_from(["brier", "log"]),
)
def test_antisymmetry_and_permutation_property(data, loss):
    """Check that swapping before and after negates, and order does not matter."""
    before, after, y = (np.array(c) for c in zip(*data, strict=True))
    y = y.astype(int)
    got = recalibration_improvement(y, before, after, loss=loss)
    swapped = recalibration_improvement(y, after, before, loss=loss)
    assert_allclose(swapped.improvement, -got.improvement, atol=1e-14)
    assert_allclose(swapped.standard_error, got.standard_error, rtol=1e-9, atol=1e-15)
    order = np.argsort(before, kind="stable")[::-1]
    permuted = recalibration_improvement(
        y[order], before[order], after[order], loss=loss
    )
    assert_allclose(permuted.improvement, got.improvement, rtol=1e-12, atol=1e-14)
    assert_allclose(permuted.standard_error, got.standard_error, rtol=1e-9, atol=1e-15)
    low, high = got.confidence_interval
    if math.isfinite(got.standard_error):
        assert low <= got.improvement <= high


def test_binary_formats_and_labels(global_random_seed):
    """Check that 1-D and two-column inputs, and string labels, agree."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.05, 0.95, size=100)
    y = (rng.uniform(size=100) < p).astype(int)
    q = p**1.5
    base = recalibration_improvement(y, p, q)
    mixed = recalibration_improvement(y, p, np.column_stack([1 - q, q]))
    assert_allclose(mixed.improvement, base.improvement, rtol=1e-12)
    names = np.where(y == 1, "yes", "no")
    named = recalibration_improvement(names, p, q, pos_label="yes")
    assert_allclose(named.improvement, base.improvement, rtol=1e-12)
    # One Brier score: scikit-learn's, (p - y)**2 for a binary problem.
    assert_allclose(base.score_before, brier_score_loss(y, p), rtol=1e-12)


# ---------------------------------------------------------------------------
# Edge cases and errors
# ---------------------------------------------------------------------------


def test_edge_cases():
    """Check one sample, identical predictions and infinite log scores."""
    one = recalibration_improvement([1], [0.5], [0.75])
    assert_allclose(one.improvement, 0.25 - 0.0625)
    assert math.isnan(one.standard_error)
    assert all(math.isnan(v) for v in one.confidence_interval)
    assert one.n_samples == 1
    same = recalibration_improvement([0, 1, 1], [0.2, 0.6, 0.9], [0.2, 0.6, 0.9])
    assert (same.improvement, same.standard_error) == (0.0, 0.0)
    assert same.confidence_interval == (0.0, 0.0)
    fixed = recalibration_improvement([0, 1], [0.5, 0.0], [0.5, 0.5], loss="log")
    assert fixed.improvement == math.inf
    assert math.isnan(fixed.standard_error)
    broken = recalibration_improvement([0, 1], [0.5, 0.0], [0.5, 0.0], loss="log")
    assert math.isnan(broken.improvement)
    weight_on_one = recalibration_improvement(
        [0, 1, 1], [0.2, 0.6, 0.9], [0.3, 0.8, 0.9], sample_weight=[0, 3, 0]
    )
    assert weight_on_one.n_samples == 1
    assert_allclose(weight_on_one.improvement, 0.16 - 0.04)


def test_errors():
    """Check the rejection of mismatched predictions and invalid parameters."""
    rng = np.random.RandomState(0)
    y, P = _multiclass(rng, 30, 3)
    labels = np.arange(3)
    with pytest.raises(ValueError, match="^y_prob_after has 3 columns"):
        recalibration_improvement(y == 1, P[:, 1], P)
    with pytest.raises(
        ValueError, match="^labels has 3 classes but y_prob_after has 4"
    ):
        recalibration_improvement(y, P, np.c_[P, np.zeros(30)], labels=labels)
    with pytest.raises(ValueError, match="y_prob_before contains 1 NaN"):
        recalibration_improvement(y, np.r_[[[np.nan, 0.5, 0.5]], P[1:]], P)
    # Data frames name their classes: the same columns in another order are
    # another problem.
    names = np.array(["a", "b", "c"])[y]
    frame = pd.DataFrame(P, columns=["a", "b", "c"])
    reordered = frame[["c", "b", "a"]]
    with pytest.raises(ValueError, match="describe different problems"):
        recalibration_improvement(names, frame, reordered)
    same = recalibration_improvement(names, frame, frame.to_numpy())
    assert same.improvement == 0.0
    for level in (0.0, 1.0, 1.5):
        with pytest.raises(InvalidParameterError, match="'confidence_level' parameter"):
            recalibration_improvement(y, P, P, confidence_level=level, labels=labels)
    with pytest.raises(InvalidParameterError, match="'loss' parameter"):
        recalibration_improvement(y, P, P, loss="hinge", labels=labels)
    with pytest.raises(ValueError, match="y_prob"):
        recalibration_improvement(y, P, P[:10], labels=labels)


# ---------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------


# Proposition 4.5 holds for the exact (grouped) decomposition, whose warning
# about rows alone in their group is expected on softmax outputs.
@pytest.mark.filterwarnings("ignore:Exact grouping:UserWarning")
def test_real_data_temperature_scaling(real_multiclass, global_random_seed):
    """Check a temperature scaling of real outputs against the loops and Prop. 4.5."""
    labels, probs = real_multiclass
    P = probs.astype(np.float64)
    P /= P.sum(axis=1, keepdims=True)
    Q = _temperature(np.clip(P, 1e-300, None), 1.5)
    classes = np.arange(P.shape[1])
    got = recalibration_improvement(labels, P, Q, labels=classes)
    rng = np.random.RandomState(global_random_seed)
    rows = rng.choice(len(labels), size=1000, replace=False)
    sub = recalibration_improvement(labels[rows], P[rows], Q[rows], labels=classes)
    _check(sub, ref_improvement(labels[rows], P[rows], Q[rows], None, "brier", 0.95))
    before = calibration_decomposition(labels, P, labels=classes)
    after = calibration_decomposition(labels, Q, labels=classes)
    assert_allclose(
        got.improvement, before.miscalibration - after.miscalibration, rtol=1e-9
    )
