"""Tests of the CORP decomposition and reliability curve of predicted means."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import mean_squared_error

from skcal.regression import mean_calibration_decomposition, mean_reliability_curve
from tests.regression._strategies import integer_weights, repeat_counts

TERMS = ("score", "miscalibration", "discrimination", "uncertainty")

# ---------------------------------------------------------------------------
# Data and slow references
# ---------------------------------------------------------------------------


def _mean_data(rng, n, ties):
    """Outcomes and predicted means, miscalibrated (too steep and shifted).

    With ``ties``, predictions are rounded to one decimal, so that many are equal.
    """
    x = rng.normal(size=n)
    y = 0.3 + 0.6 * x + rng.normal(scale=0.8, size=n)
    if ties:
        x = np.round(x, 1)
    return y, x


def _weights(rng, n, weighted, zeros=False):
    if not weighted:
        return None
    w = rng.uniform(0.1, 3.0, size=n)
    if zeros:
        w[rng.uniform(size=n) < 0.15] = 0.0
        w[0] = 1.0
    return w


def _terms(result):
    return np.array([result[name] for name in TERMS])


def ref_pav(values, weights):
    """Weighted non-decreasing fit by pooling adjacent violators, in loops."""
    blocks = []  # [weighted sum, weight, number of values]
    for v, w in zip(values, weights, strict=True):
        blocks.append([v * w, w, 1])
        while len(blocks) > 1 and (
            blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]
        ):
            last = blocks.pop()
            for j in range(3):
                blocks[-1][j] += last[j]
    fitted = []
    for s, w, count in blocks:
        fitted += [s / w] * count
    return fitted


def ref_curve(y, x, w):
    """Distinct predictions of positive weight and the PAV fit of their means."""
    w = [1.0] * len(y) if w is None else [float(v) for v in w]
    groups = {}
    for xi, yi, wi in zip(x, y, w, strict=True):
        if wi > 0:
            group = groups.setdefault(float(xi), [0.0, 0.0])
            group[0] += wi
            group[1] += wi * yi
    keys = sorted(groups)
    means = [groups[k][1] / groups[k][0] for k in keys]
    return np.array(keys), np.array(ref_pav(means, [groups[k][0] for k in keys]))


def ref_decomposition(y, x, w):
    """(score, MCB, DSC, UNC) as differences of mean squared errors."""
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=float)
    keys, fitted = ref_curve(y, x, w)
    recalibrated = dict(zip(keys.tolist(), fitted.tolist(), strict=True))
    x_hat = np.array([recalibrated.get(float(v), 0.0) for v in x])
    base = np.sum(w * y) / np.sum(w)

    def mean_score(prediction):
        return np.sum(w * (y - prediction) ** 2) / np.sum(w)

    score, fitted_score, base_score = (mean_score(p) for p in (x, x_hat, base))
    return score, score - fitted_score, base_score - fitted_score, base_score


# ---------------------------------------------------------------------------
# Agreement with the references
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_decomposition_matches_model_diagnostics(global_random_seed, weighted, ties):
    """Check the four terms against model-diagnostics' decomposition of the mean."""
    scoring = pytest.importorskip("model_diagnostics.scoring")
    rng = np.random.RandomState(global_random_seed)
    y, x = _mean_data(rng, 120, ties)
    w = _weights(rng, 120, weighted)
    got = mean_calibration_decomposition(y, x, sample_weight=w)
    assert all(type(got[name]) is float for name in TERMS)
    frame = scoring.decompose(y, x, w, scoring_function=scoring.SquaredError())
    expected = [frame[name][0] for name in TERMS]
    assert_allclose(_terms(got), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_decomposition_matches_reference(global_random_seed, weighted, ties):
    """Check the four terms against score differences and a PAV written in loops."""
    rng = np.random.RandomState(global_random_seed)
    y, x = _mean_data(rng, 80, ties)
    w = _weights(rng, 80, weighted, zeros=True)
    got = mean_calibration_decomposition(y, x, sample_weight=w)
    assert_allclose(_terms(got), ref_decomposition(y, x, w), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_score_and_uncertainty(global_random_seed, weighted):
    """Check the score is the mean squared error and UNC the outcomes' variance."""
    rng = np.random.RandomState(global_random_seed)
    y, x = _mean_data(rng, 50, ties=True)
    w = _weights(rng, 50, weighted)
    got = mean_calibration_decomposition(y, x, sample_weight=w)
    assert_allclose(got.score, mean_squared_error(y, x, sample_weight=w), rtol=1e-12)
    mean = np.average(y, weights=w)
    assert_allclose(got.uncertainty, np.average((y - mean) ** 2, weights=w), rtol=1e-12)
    identity = got.miscalibration - got.discrimination + got.uncertainty
    assert_allclose(got.score, identity, rtol=1e-12, atol=1e-14)
    assert got.miscalibration > 0
    assert got.discrimination > 0


def test_decomposition_known_values():
    """Check the terms of four outcomes and two predictions by hand."""
    got = mean_calibration_decomposition([1.0, 2.0, 3.0, 5.0], [2.0, 2.0, 4.0, 4.0])
    # Recalibrated means 1.5 and 4, outcome mean 2.75.
    score = (1 + 0 + 1 + 1) / 4
    fitted = (0.25 + 0.25 + 1 + 1) / 4
    base = (1.75**2 + 0.75**2 + 0.25**2 + 2.25**2) / 4
    assert_allclose(_terms(got), [score, score - fitted, base - fitted, base])


def test_constant_prediction(global_random_seed):
    """Check a constant prediction: MCB its squared bias, DSC zero."""
    rng = np.random.RandomState(global_random_seed)
    y = rng.normal(size=40)
    got = mean_calibration_decomposition(y, np.full(40, 1.5))
    assert_allclose(got.miscalibration, (1.5 - y.mean()) ** 2, rtol=1e-12)
    assert_allclose(got.discrimination, 0.0, atol=1e-14)
    assert_allclose(got.uncertainty, y.var(), rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_isotonic_predictions_are_calibrated(global_random_seed, weighted):
    """Check predictions already isotonic in the outcomes have MCB 0, DSC kept."""
    rng = np.random.RandomState(global_random_seed)
    y, x = _mean_data(rng, 100, ties=False)
    w = _weights(rng, 100, weighted)
    fitted = IsotonicRegression().fit(x, y, sample_weight=w).predict(x)
    got = mean_calibration_decomposition(y, fitted, sample_weight=w)
    assert abs(got.miscalibration) <= 1e-12
    raw = mean_calibration_decomposition(y, x, sample_weight=w)
    assert_allclose(got.discrimination, raw.discrimination, rtol=1e-10)
    predicted, recalibrated = mean_reliability_curve(y, fitted, sample_weight=w)
    assert_allclose(recalibrated, predicted, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_reliability_curve_matches_sklearn_isotonic(global_random_seed, weighted, ties):
    """Check the curve against IsotonicRegression at the distinct predictions."""
    rng = np.random.RandomState(global_random_seed)
    y, x = _mean_data(rng, 90, ties)
    w = _weights(rng, 90, weighted)
    predicted, recalibrated = mean_reliability_curve(y, x, sample_weight=w)
    assert_array_equal(predicted, np.unique(x))
    assert np.all(np.diff(recalibrated) >= 0)
    sklearn_fit = IsotonicRegression().fit(x, y, sample_weight=w).predict(predicted)
    assert_allclose(recalibrated, sklearn_fit, rtol=1e-10, atol=1e-12)
    # scikit-learn pools equal predictions by their (weighted) mean outcome,
    # as the reference in loops does.
    keys, fitted = ref_curve(y, x, w)
    assert_array_equal(keys, predicted)
    assert_allclose(sklearn_fit, fitted, rtol=1e-10, atol=1e-12)


def test_reliability_curve_known_values():
    """Check the curve of a violation pooled and a tie averaged, by hand."""
    predicted, recalibrated = mean_reliability_curve(
        [1.0, 3.0, 0.0, 6.0, 4.0], [0.0, 0.0, 1.0, 2.0, 3.0]
    )
    # Means 2, 0, 6, 4 at 0, 1, 2, 3: pooled into 1, 1 and 5, 5 (weights 2, 1, 1, 1).
    assert_array_equal(predicted, [0.0, 1.0, 2.0, 3.0])
    assert_allclose(recalibrated, [4 / 3, 4 / 3, 5.0, 5.0])


def test_zero_weights_drop_rows(global_random_seed):
    """Check rows of zero weight are as if absent, their predictions too."""
    rng = np.random.RandomState(global_random_seed)
    y, x = _mean_data(rng, 60, ties=True)
    w = _weights(rng, 60, weighted=True, zeros=True)
    w[x == x.max()] = 0.0  # the largest prediction disappears from the curve
    w[np.argmin(x)] = 1.0
    kept = w > 0
    got = mean_calibration_decomposition(y, x, sample_weight=w)
    expected = mean_calibration_decomposition(y[kept], x[kept], sample_weight=w[kept])
    assert_allclose(_terms(got), _terms(expected), rtol=1e-12, atol=1e-14)
    curve = mean_reliability_curve(y, x, sample_weight=w)
    expected_curve = mean_reliability_curve(y[kept], x[kept], sample_weight=w[kept])
    assert x.max() not in curve[0]
    for a, b in zip(curve, expected_curve, strict=True):
        assert_allclose(a, b, rtol=1e-12)


def test_miscalibration_and_the_curve(global_random_seed):
    """Check MCB against the curve's weighted squared gap to the diagonal.

    Without pooling of distinct predictions MCB equals it; pooling adds a
    non-negative term.
    """
    rng = np.random.RandomState(global_random_seed)
    x_values = np.sort(rng.normal(size=6))
    group_means = np.sort(rng.normal(size=6))  # increasing: nothing pooled
    x = np.repeat(x_values, 4)
    y = np.repeat(group_means, 4) + np.tile([-1.0, 1.0, -0.5, 0.5], 6)
    got = mean_calibration_decomposition(y, x)
    predicted, recalibrated = mean_reliability_curve(y, x)
    assert_allclose(recalibrated, group_means, rtol=1e-12, atol=1e-14)
    gap = np.mean((x - np.repeat(recalibrated, 4)) ** 2)
    assert_allclose(got.miscalibration, gap, rtol=1e-12)
    y, x = _mean_data(rng, 200, ties=True)
    got = mean_calibration_decomposition(y, x)
    predicted, recalibrated = mean_reliability_curve(y, x)
    sizes = np.array([np.sum(x == v) for v in predicted])
    gap = np.sum(sizes * (predicted - recalibrated) ** 2) / 200
    assert got.miscalibration >= gap - 1e-12


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@st.composite
def mean_rows(draw, max_size=20):
    """``(y, x, w)``: integer outcomes and predictions (many ties), positive weights."""
    n = draw(st.integers(1, max_size))
    y = draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n))
    x = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    w = draw(st.lists(st.floats(0.1, 10.0), min_size=n, max_size=n))
    return np.array(y, dtype=float), np.array(x, dtype=float), np.array(w)


def _mean_results(y, x, w):
    """The four terms and the curve, as arrays."""
    terms = _terms(mean_calibration_decomposition(y, x, sample_weight=w))
    return terms, mean_reliability_curve(y, x, sample_weight=w)


def _assert_same(got, expected, rtol=1e-10, atol=1e-10):
    assert_allclose(got[0], expected[0], rtol=rtol, atol=atol)
    for a, b in zip(got[1], expected[1], strict=True):
        assert_allclose(a, b, rtol=rtol, atol=atol)


@given(rows=mean_rows(), weighted=st.booleans())
def test_decomposition_identity_and_signs(rows, weighted):
    """Check score = MCB - DSC + UNC, with MCB, DSC, UNC non-negative."""
    y, x, w = rows
    score, mcb, dsc, unc = _mean_results(y, x, w if weighted else None)[0]
    assert_allclose(score, mcb - dsc + unc, rtol=1e-10, atol=1e-10)
    assert mcb >= -1e-10
    assert dsc >= -1e-10
    assert unc >= 0


@given(rows=mean_rows(), data=st.data(), weighted=st.booleans())
def test_mean_invariant_to_row_order(rows, data, weighted):
    """Check the terms and the curve do not depend on the rows' order."""
    y, x, w = rows
    w = w if weighted else None
    order = np.array(data.draw(st.permutations(range(y.shape[0]))))
    permuted = (y[order], x[order], None if w is None else w[order])
    _assert_same(_mean_results(*permuted), _mean_results(y, x, w))


@given(
    rows=mean_rows(),
    exponent=st.integers(-6, 6),
    b=st.integers(-50, 50),
    weighted=st.booleans(),
)
def test_mean_under_change_of_units(rows, exponent, b, weighted):
    """Check the terms scale by a**2 (MCB/DSC unchanged) and the curve moves along."""
    y, x, w = rows
    w = w if weighted else None
    a = 2.0**exponent
    terms, (predicted, recalibrated) = _mean_results(y, x, w)
    moved_terms, (moved_x, moved_fit) = _mean_results(a * y + b, a * x + b, w)
    scale = a * a
    assert_allclose(moved_terms / scale, terms, rtol=1e-9, atol=1e-9)
    if terms[2] > 1e-6:
        assert_allclose(
            moved_terms[1] / moved_terms[2], terms[1] / terms[2], rtol=1e-8, atol=1e-8
        )
    assert_array_equal(moved_x, a * predicted + b)
    assert_allclose(moved_fit, a * recalibrated + b, rtol=1e-10, atol=1e-9 * a)


@given(rows=mean_rows(), scale=st.floats(1e-6, 1e6))
def test_mean_invariant_to_weight_scale(rows, scale):
    """Check multiplying every weight by a positive constant changes nothing."""
    y, x, w = rows
    _assert_same(_mean_results(y, x, scale * w), _mean_results(y, x, w))


@given(
    rows=mean_rows(),
    counts=repeat_counts(20),
)
def test_mean_integer_weights_are_repeated_rows(rows, counts):
    """Check integer weights (zero included) equal repeating each row as often."""
    y, x, _ = rows
    w = integer_weights(counts, y.shape[0])
    repeated = (np.repeat(y, w), np.repeat(x, w), None)
    _assert_same(_mean_results(y, x, w), _mean_results(*repeated))


@given(rows=mean_rows())
def test_unit_weights_equal_no_weights(rows):
    """Check weights all equal to one give the unweighted terms and curve."""
    y, x, _ = rows
    _assert_same(_mean_results(y, x, np.ones_like(y)), _mean_results(y, x, None))
