"""Tests of the coverage of predicted quantiles and its calibration error."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from skcal.regression import (
    pit_calibration_error,
    quantile_calibration_error,
    quantile_coverage,
)
from tests.regression._strategies import integer_weights, repeat_counts

LEVELS = np.array([0.05, 0.25, 0.5, 0.8, 0.95])
NORMS = ("l1", "l2", "max")

# ---------------------------------------------------------------------------
# Data and slow references
# ---------------------------------------------------------------------------


def _quantile_data(rng, n, grid=False):
    """Outcomes and noisy Gaussian quantiles (crossing at times).

    With ``grid``, outcomes and quantiles are multiples of 1/2, so that many
    outcomes equal a predicted quantile.
    """
    center = rng.normal(size=n)
    y = center + rng.normal(size=n)
    q = center[:, None] + stats.norm.ppf(LEVELS)[None, :]
    q += rng.normal(scale=0.4, size=q.shape)
    if grid:
        y, q = np.round(2 * y) / 2, np.round(2 * q) / 2
    return y, q


def _weights(rng, n, weighted):
    if not weighted:
        return None
    w = rng.uniform(0.0, 3.0, size=n)
    w[rng.uniform(size=n) < 0.1] = 0.0
    w[0] = 1.0
    return w


def ref_coverage(y, q, w):
    """The weighted share of outcomes at most each level's quantile, by loops."""
    n, m = q.shape
    w = [1.0] * n if w is None else list(w)
    total = sum(w)
    return [sum(w[i] for i in range(n) if y[i] <= q[i, j]) / total for j in range(m)]


def ref_calibration_error(coverage, levels, norm):
    gaps = [abs(c - t) for c, t in zip(coverage, levels, strict=True)]
    if norm == "l1":
        return sum(gaps) / len(gaps)
    if norm == "l2":
        return math.sqrt(sum(g * g for g in gaps) / len(gaps))
    return max(gaps)


# ---------------------------------------------------------------------------
# Agreement with the references
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("grid", [False, True])
def test_quantile_coverage_matches_loop(global_random_seed, weighted, grid):
    """Check the coverage of each level against an explicit loop (y <= q counts)."""
    rng = np.random.RandomState(global_random_seed)
    y, q = _quantile_data(rng, 60, grid)
    w = _weights(rng, 60, weighted)
    got = quantile_coverage(y, q, quantiles=LEVELS, sample_weight=w)
    assert got.shape == LEVELS.shape
    assert got.dtype == np.float64
    assert_allclose(got, ref_coverage(y, q, w), rtol=1e-13, atol=1e-15)


def test_quantile_coverage_counts_ties_as_covered():
    """Check an outcome equal to its quantile is covered, one above it is not."""
    y = [1.0, 1.0, 2.0, 0.0]
    q = [[1.0], [0.5], [2.0], [1.0]]
    assert_array_equal(quantile_coverage(y, q, quantiles=[0.5]), [0.75])
    assert_array_equal(
        quantile_coverage(y, [1.0, 0.5, 2.0, 1.0], quantiles=[0.5]), [0.75]
    )


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("weighted", [False, True])
def test_quantile_error_matches_formula(global_random_seed, norm, weighted):
    """Check each norm of the coverage gaps against its formula."""
    rng = np.random.RandomState(global_random_seed)
    y, q = _quantile_data(rng, 50, grid=True)
    w = _weights(rng, 50, weighted)
    coverage = ref_coverage(y, q, w)
    got = quantile_calibration_error(y, q, quantiles=LEVELS, sample_weight=w, norm=norm)
    assert type(got) is float
    assert_allclose(got, ref_calibration_error(coverage, LEVELS, norm), rtol=1e-12)


def test_quantile_error_known_values():
    """Check the three norms of gaps 0.15 and 0.05 by hand."""
    y = [-2.0, 0.0, 0.5, 2.0]
    q = [[-1.0, 1.0]] * 4
    # Coverage 0.25 and 0.75 at levels 0.1 and 0.8: gaps 0.15 and 0.05.
    got = [
        quantile_calibration_error(y, q, quantiles=[0.1, 0.8], norm=norm)
        for norm in NORMS
    ]
    assert_allclose(got, [0.1, math.sqrt((0.15**2 + 0.05**2) / 2), 0.15])


def test_coverage_of_true_quantiles_is_nominal(global_random_seed):
    """Check the true Gaussian quantiles cover about their levels."""
    rng = np.random.RandomState(global_random_seed)
    n = 4000
    mu, sigma = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
    y = rng.normal(mu, sigma)
    q = mu[:, None] + sigma[:, None] * stats.norm.ppf(LEVELS)[None, :]
    coverage = quantile_coverage(y, q, quantiles=LEVELS)
    # Binomial standard errors, and five of them as the tolerance.
    tolerance = 5 * np.sqrt(LEVELS * (1 - LEVELS) / n)
    assert np.all(np.abs(coverage - LEVELS) <= tolerance)
    assert quantile_calibration_error(y, q, quantiles=LEVELS, norm="max") <= max(
        tolerance
    )


def test_too_narrow_quantiles_cover_too_much_and_too_little(global_random_seed):
    """Check too narrow quantiles: over-coverage at low levels, under at high ones."""
    rng = np.random.RandomState(global_random_seed)
    n = 2000
    mu = rng.normal(size=n)
    y = mu + rng.normal(size=n)
    q = mu[:, None] + 0.5 * stats.norm.ppf(LEVELS)[None, :]
    gap = quantile_coverage(y, q, quantiles=LEVELS) - LEVELS
    assert np.all(gap[LEVELS < 0.5] > 0.05)
    assert np.all(gap[LEVELS > 0.5] < -0.05)
    assert quantile_calibration_error(y, q, quantiles=LEVELS) > 0.05


def test_coverage_of_gaussian_quantiles_is_ecdf_of_pit(global_random_seed):
    """Check the coverage of Gaussian quantiles is the ECDF of the PIT at the levels."""
    rng = np.random.RandomState(global_random_seed)
    n = 300
    mu, sigma = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
    y = mu + 1.3 * rng.normal(size=n)
    levels = np.linspace(0.02, 0.98, 49)
    q = mu[:, None] + sigma[:, None] * stats.norm.ppf(levels)[None, :]
    coverage = quantile_coverage(y, q, quantiles=levels)
    pit = stats.norm.cdf(y, mu, sigma)
    assert_allclose(coverage, np.mean(pit[:, None] <= levels[None, :], axis=0))
    # The sup over every level bounds the gap at these levels.
    sup = pit_calibration_error(y, mu, sigma, norm="max")
    assert quantile_calibration_error(y, q, quantiles=levels, norm="max") <= sup


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@st.composite
def grid_quantile_rows(draw, max_size=15):
    """``(y, q, levels, w)``: integer outcomes and quantiles, so that ties arise."""
    n = draw(st.integers(1, max_size))
    m = draw(st.integers(1, 4))
    integers = st.integers(-6, 6)
    y = np.array(draw(st.lists(integers, min_size=n, max_size=n)), dtype=float)
    q = np.array(
        [draw(st.lists(integers, min_size=m, max_size=m)) for _ in range(n)],
        dtype=float,
    )
    levels = np.sort(
        draw(st.lists(st.floats(0.01, 0.99), min_size=m, max_size=m, unique=True))
    )
    weights = st.floats(0.1, 10.0)
    w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    return y, q, levels, w


def _coverage_results(y, q, levels, w):
    """The coverage and the three errors, as one vector."""
    coverage = quantile_coverage(y, q, quantiles=levels, sample_weight=w)
    errors = [
        quantile_calibration_error(y, q, quantiles=levels, sample_weight=w, norm=norm)
        for norm in NORMS
    ]
    return np.array([*coverage, *errors])


@given(rows=grid_quantile_rows(), data=st.data())
def test_coverage_invariant_to_row_order(rows, data):
    """Check the coverage and its errors do not depend on the rows' order."""
    y, q, levels, w = rows
    order = np.array(data.draw(st.permutations(range(y.shape[0]))))
    assert_allclose(
        _coverage_results(y[order], q[order], levels, w[order]),
        _coverage_results(y, q, levels, w),
        rtol=1e-12,
        atol=1e-14,
    )


@given(
    rows=grid_quantile_rows(),
    exponent=st.integers(-8, 8),
    b=st.integers(-100, 100),
    weighted=st.booleans(),
)
def test_coverage_invariant_to_change_of_units(rows, exponent, b, weighted):
    """Check the coverage and its errors do not depend on the target's units."""
    y, q, levels, w = rows
    w = w if weighted else None
    a = 2.0**exponent  # exact, so that no tie is broken by rounding
    assert_allclose(
        _coverage_results(a * y + b, a * q + b, levels, w),
        _coverage_results(y, q, levels, w),
        rtol=1e-15,
        atol=1e-15,
    )


@given(rows=grid_quantile_rows(), scale=st.floats(1e-6, 1e6))
def test_coverage_invariant_to_weight_scale(rows, scale):
    """Check multiplying every weight by a positive constant changes nothing."""
    y, q, levels, w = rows
    assert_allclose(
        _coverage_results(y, q, levels, scale * w),
        _coverage_results(y, q, levels, w),
        rtol=1e-10,
        atol=1e-12,
    )


@given(
    rows=grid_quantile_rows(),
    counts=repeat_counts(),
)
def test_coverage_integer_weights_are_repeated_rows(rows, counts):
    """Check integer weights (zero included) equal repeating each row as often."""
    y, q, levels, _ = rows
    w = integer_weights(counts, y.shape[0])
    assert_allclose(
        _coverage_results(y, q, levels, w),
        _coverage_results(np.repeat(y, w), np.repeat(q, w, axis=0), levels, None),
        rtol=1e-12,
        atol=1e-14,
    )


@given(rows=grid_quantile_rows())
def test_coverage_errors_are_ordered(rows):
    """Check coverage in [0, 1] and the norms ordered: l1 <= l2 <= max <= 1."""
    y, q, levels, w = rows
    m = levels.shape[0]
    result = _coverage_results(y, q, levels, w)
    coverage, (l1, l2, sup) = result[:m], result[m:]
    assert np.all((coverage >= 0) & (coverage <= 1))
    assert 0.0 <= l1 <= l2 + 1e-15
    assert l2 <= sup + 1e-15
    assert sup <= 1.0
