"""Tests of the proper-score primitives shared by the proper-score measures."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import brier_score_loss, log_loss

from skcal._validation import check_calibration_inputs
from skcal.metrics._proper import (
    LOSSES,
    binary_divergence,
    binary_entropy,
    binary_score,
    full_scores,
    vector_divergence,
    vector_entropy,
    vector_score,
)

# ---------------------------------------------------------------------------
# Reference: the scores written out term by term, and expected scores as the
# explicit sum over outcomes.
# ---------------------------------------------------------------------------


def ref_score(P, k, loss):
    """S(P, k) for one probability vector (a list) and one class."""
    if loss == "brier":
        return sum((P[j] - (j == k)) ** 2 for j in range(len(P)))
    return math.inf if P[k] == 0 else -math.log(P[k])


def ref_expected_score(P, Q, loss):
    """s(P, Q) = sum_k Q_k S(P, k), with 0 * S = 0 for impossible outcomes."""
    return sum(Q[k] * ref_score(P, k, loss) for k in range(len(Q)) if Q[k] > 0)


def _simplex(rng, n, k, alpha=1.0):
    return rng.dirichlet(np.full(k, alpha), size=n)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("k", [2, 3, 7])
def test_vector_score_matches_definition(global_random_seed, loss, k):
    """Check the per-sample scores of probability vectors against the definition."""
    rng = np.random.RandomState(global_random_seed)
    P = _simplex(rng, 40, k)
    y = rng.randint(k, size=40)
    expected = [ref_score(P[i], y[i], loss) for i in range(40)]
    assert_allclose(vector_score(y, P, loss), expected, rtol=1e-13)


@pytest.mark.parametrize("loss", LOSSES)
def test_binary_score_is_the_event_score(global_random_seed, loss):
    """Check the binary score: the vector's log loss, half its Brier score."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=50)
    y = rng.randint(2, size=50)
    vectors = np.column_stack([1 - p, p])
    full = vector_score(y, vectors, loss)
    factor = 2.0 if loss == "brier" else 1.0
    assert_allclose(factor * binary_score(y, p, loss), full)
    # The divergence from the outcome as a probability, whatever its dtype
    # (scipy before 1.14 computes rel_entr(1, p) as log(1 / p): 1e-16 apart).
    divergence = binary_divergence(p, y.astype(np.float64), loss)
    for outcome in (y, y.astype(bool), y.astype(np.uint8), y.astype(np.float64)):
        score = binary_score(outcome, p, loss)
        assert_allclose(score, divergence, rtol=1e-15, atol=1e-15)
        assert not np.signbit(score).any()
    if loss == "brier":
        assert_allclose(binary_score(y, p, loss), (p - y) ** 2)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("k", [2, 4])
def test_expected_score_is_divergence_plus_entropy(global_random_seed, loss, k):
    """Check s(P, Q) = d(P, Q) + g(Q) for vectors and for binary events."""
    rng = np.random.RandomState(global_random_seed)
    P = _simplex(rng, 30, k)
    Q = _simplex(rng, 30, k, alpha=0.5)
    expected = [ref_expected_score(P[i], Q[i], loss) for i in range(30)]
    got = vector_divergence(P, Q, loss) + vector_entropy(Q, loss)
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    p, q = P[:, 0], Q[:, 0]
    binary = [
        ref_expected_score([1 - a, a], [1 - b, b], loss)
        for a, b in zip(p, q, strict=True)
    ]
    factor = 2.0 if loss == "brier" else 1.0
    got = factor * (binary_divergence(p, q, loss) + binary_entropy(q, loss))
    assert_allclose(got, binary, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("loss", LOSSES)
def test_properness(global_random_seed, loss):
    """Check strict properness, s(P, Q) > s(Q, Q) if P != Q (proper note, §4 item 1)."""
    rng = np.random.RandomState(global_random_seed)
    P = _simplex(rng, 200, 4)
    Q = _simplex(rng, 200, 4)
    divergence = vector_divergence(P, Q, loss)
    assert np.all(divergence > 0)
    s_pq = [ref_expected_score(P[i], Q[i], loss) for i in range(200)]
    s_qq = [ref_expected_score(Q[i], Q[i], loss) for i in range(200)]
    assert np.all(np.array(s_pq) > np.array(s_qq))
    assert_allclose(vector_divergence(Q, Q, loss), 0.0, atol=1e-15)
    assert np.all(binary_divergence(P[:, 0], Q[:, 0], loss) > 0)
    assert_allclose(binary_divergence(Q[:, 0], Q[:, 0], loss), 0.0, atol=1e-15)


@given(
    a=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3),
    b=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3),
)
def test_properness_property(a, b):
    """Check that divergences are non-negative on arbitrary simplex points."""
    P = np.array(a) + 1e-3
    Q = np.array(b) + 1e-3
    P, Q = (P / P.sum())[None, :], (Q / Q.sum())[None, :]
    for loss in LOSSES:
        assert vector_divergence(P, Q, loss)[0] >= -1e-15
        assert binary_divergence(P[0, 0], Q[0, 0], loss) >= -1e-15


def test_closed_forms():
    """Check the closed forms of entropies and divergences (proper note, §4 item 2)."""
    rng = np.random.RandomState(0)
    Q = _simplex(rng, 20, 5)
    P = _simplex(rng, 20, 5)
    vertices = np.eye(5)
    assert_allclose(vector_entropy(vertices, "brier"), 0.0, atol=0)
    assert_allclose(vector_entropy(vertices, "log"), 0.0, atol=0)
    assert_allclose(vector_entropy(Q, "brier"), 1 - (Q**2).sum(1), rtol=1e-13)
    assert_allclose(vector_entropy(Q, "log"), -(Q * np.log(Q)).sum(1), rtol=1e-13)
    assert_allclose(vector_divergence(P, Q, "brier"), ((P - Q) ** 2).sum(1))
    kl = (Q * np.log(Q / P)).sum(1)
    assert_allclose(vector_divergence(P, Q, "log"), kl, rtol=1e-12)
    uniform = np.full((1, 5), 0.2)
    assert_allclose(vector_entropy(uniform, "brier"), 0.8)
    assert_allclose(vector_entropy(uniform, "log"), math.log(5))
    q = np.linspace(0, 1, 11)
    assert_allclose(binary_entropy(q, "brier"), q * (1 - q))
    assert_allclose(binary_entropy(0.5, "log"), math.log(2))


def test_brier_range():
    """Check 0 <= Brier <= 2, 0 at the right vertex (proper note, §4 item 3)."""
    rng = np.random.RandomState(1)
    P = _simplex(rng, 500, 4, alpha=0.2)
    y = rng.randint(4, size=500)
    score = vector_score(y, P, "brier")
    assert np.all((score >= 0) & (score <= 2))
    vertices = np.eye(4)
    assert_array_equal(vector_score(np.arange(4), vertices, "brier"), 0.0)
    assert_array_equal(vector_score((np.arange(4) + 1) % 4, vertices, "brier"), 2.0)


@pytest.mark.parametrize("k", [2, 3, 10])
def test_full_loss_bounds_confidence_loss_per_sample(global_random_seed, k):
    """Check ||e_y - P||^2 >= (acc - h)^2 and -log P_y >= the binary log loss (I2)."""
    rng = np.random.RandomState(global_random_seed)
    # Away from 0: with h near 1, 1 - h loses the digits of the other entries.
    P = _simplex(rng, 300, k, alpha=0.5) * 0.99 + 0.01 / k
    P[:20] = np.round(P[:20], 1) + 0.01  # ties in the argmax
    P[:20] /= P[:20].sum(1, keepdims=True)
    y = rng.randint(k, size=300)
    top = P.argmax(axis=1)
    correct = (top == y).astype(float)
    confidence = P.max(axis=1)
    for loss in LOSSES:
        full = vector_score(y, P, loss)
        view = binary_score(correct, confidence, loss)
        assert np.all(full >= view - 1e-12)


def test_log_conventions():
    """Check 0 log 0 = 0 and an infinite score for probability 0 on the outcome."""
    P = np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    assert_array_equal(vector_score(np.array([0, 0]), P, "log"), [np.inf, 0.0])
    Q = np.array([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])
    assert_allclose(vector_divergence(P, Q, "log"), [0.0, np.inf])
    assert_array_equal(vector_entropy(np.eye(3), "log"), 0.0)
    assert binary_score(np.array([1]), np.array([0.0]), "log")[0] == np.inf
    assert binary_score(np.array([0]), np.array([0.0]), "log")[0] == 0.0
    assert binary_divergence(0.0, 0.0, "log") == 0.0
    assert binary_divergence(1.0, 0.3, "log") == np.inf


def test_unknown_loss_is_rejected():
    """Check that every primitive rejects an unknown loss."""
    p = np.array([0.5])
    P = np.array([[0.5, 0.5]])
    for call in (
        lambda: binary_divergence(p, p, "hinge"),
        lambda: binary_entropy(p, "hinge"),
        lambda: vector_score(np.array([0]), P, "hinge"),
        lambda: vector_divergence(P, P, "hinge"),
        lambda: vector_entropy(P, "hinge"),
    ):
        with pytest.raises(ValueError, match="Unknown loss"):
            call()


@pytest.mark.parametrize("k", [2, 3, 5])
def test_full_scores_match_scikit_learn(global_random_seed, k):
    """Check full scores against scikit-learn (proper note, §4 item 22)."""
    rng = np.random.RandomState(global_random_seed)
    P = (
        _simplex(rng, 100, k) * 0.98 + 0.02 / k
    )  # away from 0, so log_loss does not clip
    y = rng.randint(k, size=100)
    data = check_calibration_inputs(y, P)
    brier = full_scores(data, "brier").mean()
    # One Brier score: scikit-learn's on the same input, whatever k.
    assert_allclose(brier, brier_score_loss(y, P), rtol=1e-12)
    assert_allclose(full_scores(data, "log").mean(), log_loss(y, P), rtol=1e-12)
    p = P[:, 1] / (P[:, 0] + P[:, 1])
    yb = (y == 1).astype(int)
    data = check_calibration_inputs(yb, p)
    assert_allclose(full_scores(data, "brier").mean(), brier_score_loss(yb, p))
    assert_allclose(full_scores(data, "log").mean(), log_loss(yb, p), rtol=1e-12)
