"""Tests of the probability integral transform: values, distances and test."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, stats

from skcal.regression import pit_calibration_error, pit_uniformity_test, pit_values
from tests.regression._strategies import gaussian_rows, integer_weights, repeat_counts

NORMS = ("l1", "l2", "max")

# ---------------------------------------------------------------------------
# Data and slow references
# ---------------------------------------------------------------------------


def _gaussian_data(rng, n, ties=False):
    """Outcomes and slightly over-confident Gaussian predictions.

    With ``ties``, half the rows repeat others, so that PIT values are tied.
    """
    y_mean = rng.normal(size=n)
    y_std = rng.uniform(0.5, 2.0, size=n)
    y_true = y_mean + 1.2 * y_std * rng.normal(size=n)
    if ties:
        source = rng.randint(n // 2, size=n - n // 2)
        for a in (y_true, y_mean, y_std):
            a[n // 2 :] = a[source]
    return y_true, y_mean, y_std


def _weights(rng, n, weighted):
    if not weighted:
        return None
    w = rng.uniform(0.0, 3.0, size=n)
    w[rng.uniform(size=n) < 0.1] = 0.0
    w[0] = 1.0
    return w


def ref_ecdf(u, w, t):
    """The weighted share of the values at most t, at each point of t."""
    w = np.ones_like(u) if w is None else np.asarray(w, dtype=float)
    order = np.argsort(u)
    cumulative = np.r_[0.0, np.cumsum(w[order])] / w.sum()
    return cumulative[np.searchsorted(u[order], t, side="right")]


def ref_integrated_distances(u, w, n_grid=200_000):
    """L1 and L2 distances of the ECDF from the identity, by the midpoint rule."""
    t = (np.arange(n_grid) + 0.5) / n_grid
    gap = ref_ecdf(u, w, t) - t
    return np.mean(np.abs(gap)), math.sqrt(np.mean(gap**2))


def ref_sup_distance(u, w):
    """sup |G(t) - t|: at each value, the ECDF and its left limit, by loops."""
    w = np.ones_like(u) if w is None else np.asarray(w, dtype=float)
    total = w.sum()
    sup = 0.0
    for v in u:
        at = w[u <= v].sum() / total
        before = w[u < v].sum() / total
        sup = max(sup, abs(at - v), abs(before - v))
    return sup


def _pit(y, mu, sigma):
    return stats.norm.cdf(y, mu, sigma)


# ---------------------------------------------------------------------------
# PIT values
# ---------------------------------------------------------------------------


def test_pit_values_match_scipy(global_random_seed):
    """Check the PIT values against scipy's normal distribution function."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 50)
    got = pit_values(y, mu, sigma)
    assert got.shape == (50,)
    assert got.dtype == np.float64
    assert_allclose(got, _pit(y, mu, sigma), rtol=1e-13, atol=1e-16)


def test_pit_values_known_values():
    """Check the PIT at the mean, one std above and far in the tails."""
    got = pit_values([2.0, 3.0, -100.0, 100.0], [2.0, 1.0, 0.0, 0.0], [1, 2, 1, 1])
    assert_allclose(got, [0.5, stats.norm.cdf(1.0), 0.0, 1.0], atol=1e-300)


# ---------------------------------------------------------------------------
# PIT calibration error
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_pit_error_matches_numerical_integral(global_random_seed, weighted, ties):
    """Check the L1 and L2 distances against a dense numerical integral."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40, ties)
    w = _weights(rng, 40, weighted)
    l1, l2 = ref_integrated_distances(_pit(y, mu, sigma), w)
    got = [
        pit_calibration_error(y, mu, sigma, sample_weight=w, norm=norm)
        for norm in ("l1", "l2")
    ]
    assert all(type(v) is float for v in got)
    assert_allclose(got, [l1, l2], atol=1e-4)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_pit_max_error_matches_reference(global_random_seed, weighted, ties):
    """Check the sup distance against the ECDF and its left limits, by loops."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40, ties)
    w = _weights(rng, 40, weighted)
    got = pit_calibration_error(y, mu, sigma, sample_weight=w, norm="max")
    assert_allclose(got, ref_sup_distance(_pit(y, mu, sigma), w), rtol=1e-12)


def test_pit_max_error_is_kolmogorov_smirnov_statistic(global_random_seed):
    """Check the unweighted sup distance is scipy's Kolmogorov-Smirnov statistic."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 60)
    expected = stats.kstest(_pit(y, mu, sigma), "uniform").statistic
    got = pit_calibration_error(y, mu, sigma, norm="max")
    assert_allclose(got, expected, rtol=1e-12)


def test_pit_error_known_values():
    """Check the distances of PIT values all at 1/2, and of two tied pairs."""
    y, mu, sigma = np.zeros(3), np.zeros(3), np.ones(3)
    # The ECDF is 1{t >= 1/2}: L1 = 1/4, L2 = sqrt(1/12), sup = 1/2.
    got = [pit_calibration_error(y, mu, sigma, norm=norm) for norm in NORMS]
    assert_allclose(got, [0.25, math.sqrt(1 / 12), 0.5], rtol=1e-14)
    # PIT values 1/4, 1/4, 3/4, 3/4: G - t is -t, 1/2 - t, 1 - t on the steps.
    z = stats.norm.ppf([0.25, 0.25, 0.75, 0.75])
    got = [pit_calibration_error(z, 0 * z, 1 + 0 * z, norm=norm) for norm in NORMS]
    l1 = 0.25**2 / 2 + 2 * 0.25**2 / 2 + 0.25**2 / 2
    l2 = math.sqrt(4 * 0.25**3 / 3)
    assert_allclose(got, [l1, l2, 0.25], rtol=1e-12)


def test_pit_error_weights_are_repeated_rows(global_random_seed):
    """Check integer weights (zero included) equal repeating each row as often."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 30)
    w = rng.randint(0, 4, size=30)
    w[0] = 1
    repeated = [np.repeat(a, w) for a in (y, mu, sigma)]
    for norm in NORMS:
        got = pit_calibration_error(y, mu, sigma, sample_weight=w, norm=norm)
        expected = pit_calibration_error(*repeated, norm=norm)
        assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_pit_l1_error_of_calibrated_predictions(global_random_seed):
    """Check the mean L1 distance of n uniform PIT values is sqrt(pi / 32 n)."""
    # E int |G_n(t) - t| dt -> int E|B(t)| dt / sqrt(n), B a Brownian bridge.
    rng = np.random.RandomState(global_random_seed)
    n, repetitions = 100, 600
    y = rng.normal(size=(repetitions, n))
    errors = [pit_calibration_error(row, 0 * row, 1 + 0 * row) for row in y]
    assert_allclose(np.mean(errors) * math.sqrt(n), math.sqrt(math.pi / 32), rtol=0.1)


def test_pit_error_converges_to_population_value(global_random_seed):
    """Check the L1 distance of too narrow predictions against its population value."""
    # Predicted std half the true one: the PIT is Phi(2 Z), G(t) = Phi(Phi^-1(t) / 2).
    population, _ = integrate.quad(
        lambda t: abs(stats.norm.cdf(stats.norm.ppf(t) / 2) - t), 0, 1, points=[0.5]
    )
    rng = np.random.RandomState(global_random_seed)
    n = 20_000
    mu, sigma = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
    y = rng.normal(mu, sigma)
    assert_allclose(pit_calibration_error(y, mu, sigma / 2), population, atol=0.01)
    assert pit_calibration_error(y, mu, sigma) < 0.02


# ---------------------------------------------------------------------------
# Uniformity test
# ---------------------------------------------------------------------------


def test_pit_test_matches_exact_kolmogorov_smirnov(global_random_seed):
    """Check the unweighted test against scipy's exact Kolmogorov-Smirnov test."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40)
    expected = stats.kstest(_pit(y, mu, sigma), "uniform", method="exact")
    got = pit_uniformity_test(y, mu, sigma)
    assert_allclose(got.statistic, expected.statistic, rtol=1e-12)
    assert_allclose(got.p_value, expected.pvalue, rtol=1e-9, atol=1e-15)
    assert got.n_effective == 40.0
    assert got.method == "Kolmogorov-Smirnov"
    assert "uniform" in got.null_hypothesis
    assert all(type(got[k]) is float for k in ("statistic", "p_value", "n_effective"))


@pytest.mark.parametrize("ties", [False, True])
def test_weighted_pit_test_is_stephens_approximation(global_random_seed, ties):
    """Check the weighted p-value: Stephens' formula at Kish's effective size."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40, ties)
    w = _weights(rng, 40, weighted=True)
    got = pit_uniformity_test(y, mu, sigma, sample_weight=w)
    statistic = ref_sup_distance(_pit(y, mu, sigma), w)
    m = w.sum() ** 2 / (w**2).sum()
    root = math.sqrt(m)
    p_value = stats.kstwobign.sf(statistic * (root + 0.12 + 0.11 / root))
    assert_allclose(got.statistic, statistic, rtol=1e-12)
    assert_allclose(got.n_effective, m, rtol=1e-12)
    assert_allclose(got.p_value, p_value, rtol=1e-9, atol=1e-15)
    assert_allclose(
        got.statistic,
        pit_calibration_error(y, mu, sigma, sample_weight=w, norm="max"),
        rtol=1e-15,
    )


def _rejection_rate(rng, n, repetitions, std_factor, weighted):
    rejected = 0
    for _ in range(repetitions):
        mu, sigma = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
        y = rng.normal(mu, sigma)
        w = rng.uniform(0.5, 2.0, size=n) if weighted else None
        result = pit_uniformity_test(y, mu, std_factor * sigma, sample_weight=w)
        rejected += result.p_value < 0.05
    return rejected / repetitions


@pytest.mark.parametrize("weighted", [False, True])
def test_pit_test_size(global_random_seed, weighted):
    """Check the test rejects calibrated predictions at about its 5% level."""
    rng = np.random.RandomState(global_random_seed)
    rate = _rejection_rate(rng, 50, 400, 1.0, weighted)
    # A binomial band around 0.05 for 400 tests, 1e-4 in each tail.
    assert 0.015 <= rate <= 0.095


@pytest.mark.parametrize("weighted", [False, True])
def test_pit_test_power(global_random_seed, weighted):
    """Check the test nearly always rejects over-confident predictions (half std)."""
    rng = np.random.RandomState(global_random_seed)
    assert _rejection_rate(rng, 200, 60, 0.5, weighted) >= 0.9


def test_pit_test_p_value_extremes():
    """Check p-values of perfectly spread and of all-equal PIT values."""
    u = (np.arange(20) + 0.5) / 20
    z = stats.norm.ppf(u)
    spread = pit_uniformity_test(z, 0 * z, 1 + 0 * z)
    assert_allclose(spread.statistic, 0.5 / 20, rtol=1e-12)
    assert spread.p_value > 0.999
    tied = pit_uniformity_test(np.full(20, 40.0), np.zeros(20), np.ones(20))
    assert tied.statistic == 1.0
    assert 0.0 <= tied.p_value < 1e-12


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


def _pit_results(y, mu, sigma, w):
    """The three distances, the test's statistic and p-value, as one vector."""
    errors = [
        pit_calibration_error(y, mu, sigma, sample_weight=w, norm=norm)
        for norm in NORMS
    ]
    test = pit_uniformity_test(y, mu, sigma, sample_weight=w)
    return np.array([*errors, test.statistic, test.p_value])


@given(rows=gaussian_rows(), data=st.data(), weighted=st.booleans())
def test_pit_invariant_to_row_order(rows, data, weighted):
    """Check the PIT distances and test do not depend on the rows' order."""
    y, mu, sigma, w = rows
    w = w if weighted else None
    order = np.array(data.draw(st.permutations(range(y.shape[0]))))
    permuted = [None if a is None else a[order] for a in (y, mu, sigma, w)]
    assert_allclose(_pit_results(*permuted), _pit_results(y, mu, sigma, w), atol=1e-12)
    assert_allclose(pit_values(*permuted[:3]), pit_values(y, mu, sigma)[order])


@given(
    rows=gaussian_rows(),
    a=st.floats(0.1, 10.0),
    b=st.floats(-10.0, 10.0),
    weighted=st.booleans(),
)
def test_pit_invariant_to_change_of_units(rows, a, b, weighted):
    """Check the PIT, its distances and test do not depend on the target's units."""
    y, mu, sigma, w = rows
    w = w if weighted else None
    moved = (a * y + b, a * mu + b, a * sigma)
    assert_allclose(pit_values(*moved), pit_values(y, mu, sigma), atol=1e-9)
    assert_allclose(_pit_results(*moved, w), _pit_results(y, mu, sigma, w), atol=1e-9)


@given(rows=gaussian_rows(), scale=st.floats(1e-6, 1e6))
def test_pit_invariant_to_weight_scale(rows, scale):
    """Check multiplying every weight by a positive constant changes nothing."""
    y, mu, sigma, w = rows
    assert_allclose(
        _pit_results(y, mu, sigma, scale * w),
        _pit_results(y, mu, sigma, w),
        rtol=1e-9,
        atol=1e-12,
    )


@given(
    rows=gaussian_rows(),
    counts=repeat_counts(),
)
def test_pit_integer_weights_are_repeated_rows(rows, counts):
    """Check integer weights give the distances of the repeated rows."""
    y, mu, sigma, _ = rows
    w = integer_weights(counts, y.shape[0])
    repeated = [np.repeat(a, w) for a in (y, mu, sigma)]
    # The p-value is not: weights are sampling weights (Kish's effective size).
    assert_allclose(
        _pit_results(y, mu, sigma, w)[:4],
        _pit_results(*repeated, None)[:4],
        atol=1e-12,
    )


@given(rows=gaussian_rows())
def test_pit_distances_are_ordered(rows):
    """Check L1 <= L2 <= sup, all in [0, 1], and the p-value in [0, 1]."""
    l1, l2, sup, statistic, p_value = _pit_results(*rows[:3], None)
    assert 0.0 <= l1 <= l2 + 1e-15
    assert l2 <= sup + 1e-15
    assert sup <= 1.0
    assert statistic == sup
    assert 0.0 <= p_value <= 1.0
