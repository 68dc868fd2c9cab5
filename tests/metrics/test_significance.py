"""Tests of the classical tests of perfect calibration."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, stats
from scipy.special import expit, logit

from skcal._param_validation import InvalidParameterError
from skcal.metrics import cutoff_calibration_error
from skcal.metrics._significance import (
    NULL_HYPOTHESIS,
    _cumulative_residuals,
    brownian_range_sf,
    brownian_sup_sf,
    hosmer_lemeshow_test,
    kolmogorov_smirnov_test,
    kuiper_test,
    spiegelhalter_test,
)
from tests.metrics._reference import (
    random_binary,
    random_multiclass,
    random_weights,
    ref_table,
    ref_views,
)
from tests.metrics._strategies import binary_data

TESTS = [kolmogorov_smirnov_test, kuiper_test, spiegelhalter_test, hosmer_lemeshow_test]
CUMULATIVE = [kolmogorov_smirnov_test, kuiper_test]

# ---------------------------------------------------------------------------
# Brute-force references
# ---------------------------------------------------------------------------


def _floats(y, p, w):
    y = [float(v) for v in y]
    p = [float(v) for v in p]
    w = [1.0] * len(p) if w is None else [float(v) for v in w]
    return y, p, w


def ref_cumulative(y, p, w=None):
    """``(ks, kuiper, sigma)`` by loops over the distinct predictions.

    C(u) is the weighted residual over the rows with prediction at most u,
    divided by the total weight; C_0 = 0 is included.
    """
    y, p, w = _floats(y, p, w)
    total = sum(w)
    sums = [0.0] + [
        sum(wi * (yi - pi) for yi, pi, wi in zip(y, p, w, strict=True) if pi <= u)
        / total
        for u in sorted(set(p))
    ]
    variance = sum(wi * wi * pi * (1 - pi) for pi, wi in zip(p, w, strict=True))
    ks = max(abs(c) for c in sums)
    return ks, max(sums) - min(sums), math.sqrt(variance) / total


def ref_spiegelhalter(y, p, w=None):
    """``(z, two-sided p-value)`` by a loop, with scipy's normal law."""
    y, p, w = _floats(y, p, w)
    numerator = variance = 0.0
    for yi, pi, wi in zip(y, p, w, strict=True):
        numerator += wi * (yi - pi) * (1 - 2 * pi)
        variance += wi * wi * (1 - 2 * pi) ** 2 * pi * (1 - pi)
    z = numerator / math.sqrt(variance)
    return z, 2 * stats.norm.sf(abs(z))


def ref_hosmer_lemeshow(y, p, w=None, n_groups=10, in_sample=False):
    """``(H, dof, p-value, observed, expected, size)`` from the reference table."""
    y, p, w = _floats(y, p, w)
    _, rows = ref_table(y, p, w, n_groups, "quantile")
    h, dof, observed, expected, size = 0.0, 0, [], [], []
    for weight, _, _, mean_p, mean_y in rows:
        if weight <= 0:
            continue
        o, e = weight * mean_y, weight * mean_p
        observed.append(o)
        expected.append(e)
        size.append(weight)
        if e * (1 - e / weight) > 0:
            h += (o - e) ** 2 / (e * (1 - e / weight))
            dof += 1
    dof -= 2 if in_sample else 0
    return h, dof, stats.chi2.sf(h, dof), observed, expected, size


def _weighted_case(rng, n, ties, weighted):
    y, p = random_binary(rng, n, ties=ties)
    return y, p, (random_weights(rng, n) if weighted else None)


# ---------------------------------------------------------------------------
# The laws of sup |B| and of the range of B on [0, 1]
# ---------------------------------------------------------------------------

LAWS = [brownian_sup_sf, brownian_range_sf]


def test_brownian_laws_match_mapie():
    """Check both survival functions against one minus MAPIE's CDFs.

    MAPIE truncates its series for an error of about 1e-8 relative to its
    ``EPSILON``; the largest difference seen is 1.3e-11.
    """
    calibration = pytest.importorskip("mapie.metrics.calibration")
    for x in np.linspace(0.3, 6.0, 58):
        assert_allclose(
            brownian_sup_sf(x),
            1 - calibration.kolmogorov_smirnov_cdf(x),
            rtol=0,
            atol=1e-10,
        )
        assert_allclose(
            brownian_range_sf(x), 1 - calibration.kuiper_cdf(x), rtol=0, atol=1e-10
        )


def _mp_sup_sf(mp, x):
    """P(sup |B| >= x) in 50-digit arithmetic, from 300 terms of the theta series."""
    x = mp.mpf(x)
    cdf = mp.fsum(
        (-1) ** k / mp.mpf(2 * k + 1) * mp.exp(-(((2 * k + 1) * mp.pi / x) ** 2) / 8)
        for k in range(300)
    )
    return 1 - 4 / mp.pi * cdf


def _mp_range_sf(mp, x):
    """P(R >= x) in 50-digit arithmetic, from 300 terms of the theta series."""
    x = mp.mpf(x)

    def term(k):
        half = (k + mp.mpf(1) / 2) * mp.pi
        return (8 / x**2 + 2 / half**2) * mp.exp(-2 * (half / x) ** 2)

    return 1 - mp.fsum(term(k) for k in range(300))


@pytest.mark.parametrize("x", [0.15, 0.5, 0.99, 1.0, 1.49, 1.5, 2.5, 4.0, 6.0, 9.0])
def test_brownian_laws_to_full_relative_precision(x):
    """Check both laws, tails included, against 50-digit theta series."""
    mp = pytest.importorskip("mpmath").mp
    mp.dps = 50
    assert_allclose(brownian_sup_sf(x), float(_mp_sup_sf(mp, x)), rtol=1e-13)
    assert_allclose(brownian_range_sf(x), float(_mp_range_sf(mp, x)), rtol=1e-13)


def test_brownian_laws_moments():
    """Check known moments: E sup|B| = sqrt(pi/2), E sup|B|^-2 = 1 (the mean
    exit time of (-1, 1)), E R = 2 sqrt(2/pi) and E R^2 = 4 log 2 (Feller, 1951).
    """

    def moment(function, power):
        # E X^a = int a x^(a-1) P(X >= x) dx for a > 0.
        value, _ = integrate.quad(
            lambda x: power * x ** (power - 1) * function(x), 0, np.inf, limit=200
        )
        return value

    assert_allclose(moment(brownian_sup_sf, 1), math.sqrt(math.pi / 2), rtol=1e-9)
    assert_allclose(moment(brownian_range_sf, 1), 2 * math.sqrt(2 / math.pi), rtol=1e-9)
    assert_allclose(moment(brownian_range_sf, 2), 4 * math.log(2), rtol=1e-9)
    # E X^-2 = int 2 x^-3 P(X <= x) dx.
    inverse, _ = integrate.quad(
        lambda x: 2 * x**-3 * (1 - brownian_sup_sf(x)), 0, np.inf, limit=200
    )
    assert_allclose(inverse, 1.0, rtol=1e-9)


def test_brownian_laws_match_simulated_random_walks(global_random_seed):
    """Check both laws against Gaussian random walks of 1000 steps.

    The maximum of a discrete walk falls short of the continuous one by
    about 0.5826 / sqrt(steps) (Siegmund's correction, -zeta(1/2) /
    sqrt(2 pi)) at each end it reaches; the comparison makes up for it.
    """
    rng = np.random.RandomState(global_random_seed)
    steps, paths = 1000, 4000
    walks = np.cumsum(rng.normal(size=(paths, steps)), axis=1) / math.sqrt(steps)
    top = np.maximum(walks.max(axis=1), 0.0)
    bottom = np.minimum(walks.min(axis=1), 0.0)
    shift = 0.5826 / math.sqrt(steps)
    for x in [0.8, 1.2, 1.6, 2.0, 2.5]:
        for sample, law, ends in [
            (np.maximum(top, -bottom), brownian_sup_sf, 1),
            (top - bottom, brownian_range_sf, 2),
        ]:
            expected = law(x + ends * shift)
            error = 4.5 * math.sqrt(expected * (1 - expected) / paths) + 1e-3
            assert abs(np.mean(sample >= x) - expected) <= error


@pytest.mark.parametrize("law", LAWS, ids=lambda f: f.__name__)
def test_brownian_laws_are_survival_functions(law):
    """Check bounds, limits, monotonicity, continuity at the crossovers, shapes."""
    grid = np.linspace(0.0, 12.0, 4001)
    values = law(grid)
    assert values.shape == grid.shape
    assert np.all(np.diff(values) <= 0)
    assert values[0] == 1.0
    assert np.all((values >= 0) & (values <= 1))
    assert law(math.inf) == 0.0
    assert law(-1.0) == 1.0
    assert math.isnan(law(math.nan))
    assert isinstance(law(1.0), float)
    assert law(np.ones((2, 3))).shape == (2, 3)
    for crossover in (0.1, 1.0, 1.5):
        below = law(np.nextafter(crossover, 0))
        assert_allclose(below, law(crossover), rtol=1e-13)


def test_sup_law_is_not_the_brownian_bridge_law():
    """Check that sup|B| is stochastically larger than kstwobign (the bridge).

    The cumulative residual is not pinned to 0 at its end, so the
    classical Kolmogorov-Smirnov law would give p-values far too small.
    """
    x = np.linspace(0.5, 3.0, 26)
    assert np.all(brownian_sup_sf(x) > stats.kstwobign.sf(x) + 1e-3)
    # At the bridge's 5% critical value, 1.358, the motion's p-value is 0.35.
    assert_allclose(stats.kstwobign.sf(1.358), 0.05, atol=1e-3)
    assert brownian_sup_sf(1.358) > 0.3


# ---------------------------------------------------------------------------
# Statistics and p-values against the brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 7, 40])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_cumulative_tests_match_brute_force(global_random_seed, n, ties, weighted):
    """Check the KS and Kuiper statistics, sigma and p-values against loops."""
    rng = np.random.RandomState(global_random_seed)
    y, p, w = _weighted_case(rng, n, ties, weighted)
    ks_ref, kuiper_ref, sigma_ref = ref_cumulative(y, p, w)
    for test, statistic, law in [
        (kolmogorov_smirnov_test, ks_ref, brownian_sup_sf),
        (kuiper_test, kuiper_ref, brownian_range_sf),
    ]:
        result = test(y, p, sample_weight=w)
        assert_allclose(result.statistic, statistic, rtol=1e-12, atol=1e-15)
        assert_allclose(result.sigma, sigma_ref, rtol=1e-12, atol=1e-300)
        if sigma_ref > 0:
            z = statistic / sigma_ref
            assert_allclose(result.normalized_statistic, z, rtol=1e-10, atol=1e-14)
            assert_allclose(result.p_value, law(z), rtol=1e-9, atol=1e-15)
        assert isinstance(result.p_value, float)
        assert result.per_class is None


def test_sigma_is_the_null_spread_of_the_total_residual(global_random_seed):
    """Check sigma against the spread of C_m over outcomes drawn from p."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.beta(1.0, 3.0, size=200)
    w = rng.uniform(0.2, 3.0, size=200)
    residuals = (rng.uniform(size=(4000, 200)) < p) - p
    for weights in (None, w):
        ones = np.ones(200) if weights is None else weights
        totals = residuals @ ones / ones.sum()
        sigma = kolmogorov_smirnov_test(np.ones(200), p, sample_weight=weights).sigma
        # The sample sd of 4000 draws has a relative error of about 1.1%.
        assert_allclose(totals.std(), sigma, rtol=0.06)


def test_kuiper_statistic_is_the_cutoff_calibration_error(global_random_seed):
    """Check that the Kuiper statistic equals cutoff_calibration_error, per view."""
    rng = np.random.RandomState(global_random_seed)
    for ties in (False, True):
        y, p, w = _weighted_case(rng, 200, ties, weighted=True)
        assert_allclose(
            kuiper_test(y, p, sample_weight=w).statistic,
            cutoff_calibration_error(y, p, sample_weight=w),
            rtol=1e-13,
        )
    y, prob = random_multiclass(rng, 150, 4)
    prob = np.round(prob, 2)
    prob /= prob.sum(axis=1, keepdims=True)
    assert_allclose(
        kuiper_test(y, prob, reduction="top_label").statistic,
        cutoff_calibration_error(y, prob, reduction="top_label"),
        rtol=1e-13,
    )
    assert_allclose(
        kuiper_test(y, prob, reduction="classwise").per_class.statistic,
        cutoff_calibration_error(y, prob, reduction="classwise", return_per_class=True),
        rtol=1e-13,
    )


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_spiegelhalter_matches_brute_force(global_random_seed, ties, weighted):
    """Check Z and its two-sided p-value against a loop and scipy's normal law."""
    rng = np.random.RandomState(global_random_seed)
    y, p, w = _weighted_case(rng, 60, ties, weighted)
    z, p_value = ref_spiegelhalter(y, p, w)
    result = spiegelhalter_test(y, p, sample_weight=w)
    assert_allclose(result.statistic, z, rtol=1e-12, atol=1e-12)
    assert_allclose(result.p_value, p_value, rtol=1e-10, atol=1e-12)


def test_spiegelhalter_standardises_the_brier_score(global_random_seed):
    """Check Spiegelhalter's identity: Z * spread = Brier sum - its null mean."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 300)
    spread = math.sqrt(np.sum((1 - 2 * p) ** 2 * p * (1 - p)))
    brier_gap = np.sum((y - p) ** 2) - np.sum(p * (1 - p))
    assert_allclose(spiegelhalter_test(y, p).statistic * spread, brier_gap, rtol=1e-10)


@pytest.mark.parametrize("n", [1, 9, 60])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_groups", [1, 4, 10])
def test_hosmer_lemeshow_matches_brute_force(
    global_random_seed, n, ties, weighted, n_groups
):
    """Check H, dof, p-value and the group table against the reference bins."""
    rng = np.random.RandomState(global_random_seed)
    y, p, w = _weighted_case(rng, n, ties, weighted)
    h, dof, p_value, observed, expected, size = ref_hosmer_lemeshow(y, p, w, n_groups)
    result = hosmer_lemeshow_test(y, p, sample_weight=w, n_groups=n_groups)
    assert_allclose(result.statistic, h, rtol=1e-10, atol=1e-12)
    assert result.dof == dof
    if dof > 0:
        assert_allclose(result.p_value, p_value, rtol=1e-9, atol=1e-15)
    else:
        assert math.isnan(result.p_value)
    assert_allclose(result.observed, observed, rtol=1e-12, atol=1e-12)
    assert_allclose(result.expected, expected, rtol=1e-12, atol=1e-12)
    assert_allclose(result.size, size, rtol=1e-12)
    assert result.edges.shape == (len(size) + 1,)


def test_hosmer_lemeshow_is_the_textbook_decile_table(global_random_seed):
    """Check H on deciles of risk, written as Pearson's chi-square of a 2 x 10 table."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 200)
    order = np.argsort(p)
    pearson = 0.0
    for rows in np.array_split(order, 10):
        for outcome, prob in ((y[rows], p[rows]), (1 - y[rows], 1 - p[rows])):
            pearson += (outcome.sum() - prob.sum()) ** 2 / prob.sum()
    result = hosmer_lemeshow_test(y, p)
    assert_allclose(result.statistic, pearson, rtol=1e-10)
    assert_allclose(result.size, np.full(10, 20.0))
    assert result.dof == 10
    in_sample = hosmer_lemeshow_test(y, p, in_sample=True)
    assert in_sample.dof == 8
    assert_allclose(in_sample.p_value, stats.chi2.sf(pearson, 8), rtol=1e-9)


# ---------------------------------------------------------------------------
# MAPIE (mapie.metrics.calibration) on the same data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("power", [1.0, 1.3])
def test_against_mapie(global_random_seed, power):
    """Check statistics and p-values against MAPIE on tie-free data.

    MAPIE's statistics are normalised: its ``kolmogorov_smirnov_statistic``
    and ``kuiper_statistic`` are our ``normalized_statistic``, computed
    after a relative jitter of 1e-8 of the predictions (so they agree to
    about 1e-7; with the jitter off, its cumulative differences and length
    scale are ours to 1e-12). Its Kuiper range leaves out C_0 = 0, so it
    is ours only when the cumulative residual changes sign. Its
    Spiegelhalter statistic is ours, and its p-value one-sided.
    """
    calibration = pytest.importorskip("mapie.metrics.calibration")
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.01, 0.99, size=500)
    y = (rng.uniform(size=500) < p**power).astype(np.int64)
    ks, kuiper = kolmogorov_smirnov_test(y, p), kuiper_test(y, p)
    # The definitions, without the jitter.
    differences = calibration.cumulative_differences(y, p, noise_amplitude=0.0)
    prefix, sigma = _cumulative_residuals(y.astype(np.uint8), p, None)
    assert_allclose(prefix, differences, rtol=0, atol=1e-12)
    assert_allclose(sigma, calibration.length_scale(p), rtol=1e-13)
    assert_allclose(ks.sigma, calibration.length_scale(p), rtol=1e-13)
    # The public functions, with the jitter.
    assert_allclose(
        ks.normalized_statistic,
        calibration.kolmogorov_smirnov_statistic(y, p),
        rtol=1e-6,
    )
    # MAPIE's p-values are 1 - cdf, with series truncated at 1e-8 relative:
    # absolutely accurate to about 1e-11 only.
    assert_allclose(
        ks.p_value, calibration.kolmogorov_smirnov_p_value(y, p), rtol=1e-5, atol=1e-10
    )
    assert_allclose(
        ks.p_value,
        1 - calibration.kolmogorov_smirnov_cdf(ks.normalized_statistic),
        rtol=0,
        atol=1e-10,
    )
    mapie_kuiper = calibration.kuiper_statistic(y, p)
    with_zero = np.ptp(np.r_[0.0, differences]) / calibration.length_scale(p)
    assert_allclose(kuiper.normalized_statistic, with_zero, rtol=1e-10)
    assert kuiper.normalized_statistic >= mapie_kuiper - 1e-6
    if differences.min() < 0 < differences.max():
        assert_allclose(kuiper.normalized_statistic, mapie_kuiper, rtol=1e-6)
        assert_allclose(
            kuiper.p_value, calibration.kuiper_p_value(y, p), rtol=1e-5, atol=1e-10
        )
    spiegelhalter = spiegelhalter_test(y, p)
    assert_allclose(
        spiegelhalter.statistic, calibration.spiegelhalter_statistic(y, p), rtol=1e-12
    )
    one_sided = calibration.spiegelhalter_p_value(y, p)
    assert_allclose(spiegelhalter.p_value, 2 * min(one_sided, 1 - one_sided), rtol=1e-9)


# ---------------------------------------------------------------------------
# Weights, ties, row order and invariances
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_weight_rules(global_random_seed, test):
    """Check None == ones, zero weight == dropped row, and the scaling rule."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 80, ties=True)
    w = rng.uniform(0.5, 3, size=80)
    w[::7] = 0.0
    unweighted = test(y, p)
    ones = test(y, p, sample_weight=np.ones(80))
    assert_allclose(ones.statistic, unweighted.statistic, rtol=1e-13)
    assert_allclose(ones.p_value, unweighted.p_value, rtol=1e-12)
    weighted = test(y, p, sample_weight=w)
    dropped = test(y[w > 0], p[w > 0], sample_weight=w[w > 0])
    assert_allclose(weighted.statistic, dropped.statistic, rtol=1e-12, atol=1e-15)
    assert_allclose(weighted.p_value, dropped.p_value, rtol=1e-10)
    assert_allclose(weighted.n_effective, w.sum() ** 2 / np.sum(w**2), rtol=1e-12)
    scaled = test(y, p, sample_weight=w * 1000.0)
    if test is hosmer_lemeshow_test:
        # Weights are frequencies: H scales with them.
        assert_allclose(scaled.statistic, 1000.0 * weighted.statistic, rtol=1e-10)
    else:
        assert_allclose(scaled.statistic, weighted.statistic, rtol=1e-12)
        assert_allclose(scaled.p_value, weighted.p_value, rtol=1e-10)


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_integer_weights_and_repeated_rows(global_random_seed, test):
    """Check integer weights against repeated rows.

    The statistics in probability units agree; Hosmer-Lemeshow reads
    weights as frequencies, so its whole result agrees. The others read
    them as sampling weights, with a larger null spread than repeated
    (independent) rows.
    """
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 50, ties=True)
    counts = rng.randint(1, 4, size=50)
    weighted = test(y, p, sample_weight=counts)
    repeated = test(np.repeat(y, counts), np.repeat(p, counts))
    if test is spiegelhalter_test:
        numerator = weighted.statistic * math.sqrt(
            np.sum(counts**2 * (1 - 2 * p) ** 2 * p * (1 - p))
        )
        repeated_numerator = repeated.statistic * math.sqrt(
            np.sum(counts * (1 - 2 * p) ** 2 * p * (1 - p))
        )
        assert_allclose(numerator, repeated_numerator, rtol=1e-10)
        return
    assert_allclose(weighted.statistic, repeated.statistic, rtol=1e-12, atol=1e-15)
    if test is hosmer_lemeshow_test:
        assert_allclose(weighted.p_value, repeated.p_value, rtol=1e-10)
        assert weighted.dof == repeated.dof
    else:
        assert weighted.sigma > repeated.sigma


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_row_order_does_not_matter(global_random_seed, test):
    """Check that permuting rows, tied rows included, changes nothing."""
    rng = np.random.RandomState(global_random_seed)
    y, p, w = _weighted_case(rng, 120, ties=True, weighted=True)
    order = rng.permutation(120)
    first = test(y, p, sample_weight=w)
    second = test(y[order], p[order], sample_weight=w[order])
    assert_allclose(first.statistic, second.statistic, rtol=1e-12, atol=1e-15)
    assert_allclose(first.p_value, second.p_value, rtol=1e-10)


def test_ties_are_read_at_group_ends():
    """Check that a tie group counts once, whatever the order of its outcomes.

    With jitter or row order, as in MAPIE, the two tied rows below would
    give the cumulative sum a step to 0.5 / 2 or -0.5 / 2 before the group
    ends at 0.
    """
    for y in ([0, 1], [1, 0]):
        result = kolmogorov_smirnov_test(y, [0.5, 0.5])
        assert result.statistic == 0.0
        assert result.p_value == 1.0


@given(data=binary_data(min_size=1, max_size=25))
def test_cumulative_properties(data):
    """Check KS <= Kuiper <= 2 KS, sigma <= 1 / (2 sqrt(n)), and p-values in [0, 1]."""
    y, p = data
    ks, kuiper = kolmogorov_smirnov_test(y, p), kuiper_test(y, p)
    assert ks.statistic <= kuiper.statistic + 1e-15
    assert kuiper.statistic <= 2 * ks.statistic + 1e-15
    assert ks.sigma <= 0.5 / math.sqrt(y.shape[0]) + 1e-15
    for result in (ks, kuiper, spiegelhalter_test(y, p)):
        assert 0.0 <= result.p_value <= 1.0


@given(data=binary_data(min_size=1, max_size=25))
def test_label_flip_invariance(data):
    """Check that Kuiper and Spiegelhalter do not change when the classes swap.

    Swapping (y, p) for (1 - y, 1 - p) reverses the cumulative residual
    and flips its sign, which keeps its range; Spiegelhalter's terms are
    unchanged.
    """
    y, p = data
    p = np.round(p, 6)  # so that 1 - (1 - p) is p up to rounding, not 0
    for test in (kuiper_test, spiegelhalter_test):
        first, second = test(y, p), test(1 - y, 1 - p)
        assert_allclose(first.statistic, second.statistic, rtol=1e-9, atol=1e-12)
        assert_allclose(first.p_value, second.p_value, rtol=1e-9, atol=1e-12)


@given(data=binary_data(min_size=1, max_size=25), seed=st.integers(0, 2**16))
def test_permutation_property(data, seed):
    """Check, as a property, that row order never changes a test's result."""
    y, p = data
    order = np.random.RandomState(seed).permutation(y.shape[0])
    for test in TESTS:
        first, second = test(y, p), test(y[order], p[order])
        assert_allclose(first.statistic, second.statistic, rtol=1e-9, atol=1e-12)
        assert_allclose(first.p_value, second.p_value, rtol=1e-9, atol=1e-12)


def test_inputs_lists_and_pandas(global_random_seed):
    """Check that inputs are not modified and lists, arrays, pandas agree."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 40)
    w = rng.uniform(size=40)
    copies = (y.copy(), p.copy(), w.copy())
    for test in TESTS:
        expected = test(y, p, sample_weight=w)
        for a, b, c in [
            (y.tolist(), p.tolist(), w.tolist()),
            (pd.Series(y), pd.Series(p), pd.Series(w)),
        ]:
            got = test(a, b, sample_weight=c)
            assert got.statistic == expected.statistic
            assert got.p_value == expected.p_value
    for array, copy in zip((y, p, w), copies, strict=True):
        assert np.array_equal(array, copy)


# ---------------------------------------------------------------------------
# Degenerate data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("test", CUMULATIVE, ids=lambda f: f.__name__)
def test_certain_predictions(test):
    """Check sigma = 0: p-value 1 when all outcomes agree, else 0."""
    right = test([0, 1, 1], [0.0, 1.0, 1.0])
    assert right.sigma == 0.0
    assert (right.statistic, right.normalized_statistic, right.p_value) == (0, 0, 1)
    wrong = test([0, 1, 0], [0.0, 1.0, 1.0])
    assert wrong.statistic > 0
    assert wrong.normalized_statistic == math.inf
    assert wrong.p_value == 0.0
    # A zero-weight wrong row is no evidence.
    assert test([0, 1, 0], [0.0, 1.0, 1.0], sample_weight=[1, 1, 0]).p_value == 1.0


def test_spiegelhalter_zero_denominator():
    """Check predictions in {0, 1/2, 1}: Z = 0 and p-value 1 unless one is wrong."""
    blind = spiegelhalter_test([0, 1, 1, 0], [0.5, 0.5, 1.0, 0.0])
    assert (blind.statistic, blind.p_value) == (0.0, 1.0)
    all_half = spiegelhalter_test([1, 1, 1, 1], [0.5] * 4)
    assert (all_half.statistic, all_half.p_value) == (0.0, 1.0)
    wrong = spiegelhalter_test([0, 1, 0, 0], [0.5, 0.5, 1.0, 0.0])
    assert (wrong.statistic, wrong.p_value) == (math.inf, 0.0)


def test_hosmer_lemeshow_degenerate_groups():
    """Check that groups of certain predictions leave the sum and the dof.

    The groups are {0, 0, 0.3, 0.3}, {0.6, 0.6} and {1, 1}: the last has
    E_g (1 - E_g / N_g) = 0, whether its outcomes are right or wrong.
    """
    p = [0.0, 0.0, 0.3, 0.3, 0.6, 0.6, 1.0, 1.0]
    result = hosmer_lemeshow_test([0, 0, 0, 1, 0, 1, 1, 1], p, n_groups=4)
    assert result.size.tolist() == [4.0, 2.0, 2.0]
    assert_allclose(result.edges, [0.0, 0.3, 0.6, 1.0])
    assert result.dof == 2
    expected = 0.4**2 / (0.6 * (1 - 0.6 / 4)) + 0.2**2 / (1.2 * (1 - 1.2 / 2))
    assert_allclose(result.statistic, expected, rtol=1e-12)
    wrong = hosmer_lemeshow_test([0, 0, 0, 1, 0, 1, 0, 0], p, n_groups=4)
    assert_allclose(wrong.statistic, expected, rtol=1e-12)
    assert wrong.dof == 2
    certain = hosmer_lemeshow_test([1, 1, 0], [1.0, 1.0, 1.0])
    assert certain.dof == 0
    assert certain.statistic == 0.0
    assert math.isnan(certain.p_value)
    # One group in-sample: no degrees of freedom.
    one = hosmer_lemeshow_test([0, 1, 1, 0], [0.4] * 4, in_sample=True)
    assert one.dof == -1
    assert math.isnan(one.p_value)


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_single_class_and_single_row(test):
    """Check that one class in y_true, and one row, are valid data."""
    result = test([1, 1, 1, 1], [0.9, 0.8, 0.95, 0.7])
    assert 0.0 <= result.p_value <= 1.0 or math.isnan(result.p_value)
    result = test([1], [0.3])
    assert result.null_hypothesis == NULL_HYPOTHESIS
    assert result.n_effective == 1.0


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_reductions_match_the_views(global_random_seed, test):
    """Check top-label and classwise results against the test of each view.

    Classwise: Bonferroni's min(1, K min_k p_k), the statistic of the class
    of the smallest p-value, and every class in per_class.
    """
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 90, 3)
    prob = np.round(prob, 2)
    prob /= prob.sum(axis=1, keepdims=True)
    ((y_top, p_top),) = ref_views(y, prob, "top_label")
    top = test(y, prob, reduction="top_label")
    binary = test(np.array(y_top), np.array(p_top))
    assert_allclose(top.statistic, binary.statistic, rtol=1e-12, atol=1e-15)
    assert_allclose(top.p_value, binary.p_value, rtol=1e-10, atol=1e-15)
    views = [test(np.array(a), np.array(b)) for a, b in ref_views(y, prob, "classwise")]
    p_values = np.array([v.p_value for v in views])
    result = test(y, prob, reduction="classwise")
    assert_allclose(result.per_class.p_value, p_values, rtol=1e-10, atol=1e-15)
    assert_allclose(
        result.per_class.statistic, [v.statistic for v in views], rtol=1e-12, atol=1e-15
    )
    best = int(np.argmin(p_values))
    assert_allclose(result.p_value, min(1.0, 3 * p_values[best]), rtol=1e-10)
    assert_allclose(result.statistic, views[best].statistic, rtol=1e-12)
    positive = test(y, prob, pos_label=2)
    assert_allclose(positive.statistic, views[2].statistic, rtol=1e-12)


def test_binary_classwise_has_two_classes(global_random_seed):
    """Check that classwise on a binary problem tests both columns."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 100)
    result = kolmogorov_smirnov_test(y, p, reduction="classwise")
    assert result.per_class.p_value.shape == (2,)
    negative = kolmogorov_smirnov_test(1 - y, 1 - p)
    assert_allclose(result.per_class.p_value[0], negative.p_value, rtol=1e-10)
    assert_allclose(
        result.p_value, min(1.0, 2 * result.per_class.p_value.min()), rtol=1e-12
    )


def test_classwise_ignores_undefined_p_values():
    """Check that NaN p-values (no degrees of freedom) do not hide the others.

    Class 0 is never predicted: its column is all 0, a group without
    variance, hence no degrees of freedom. All NaN gives NaN.
    """
    y = np.array([1, 2, 1, 2, 2, 1])
    prob = np.array([[0.0, 0.6, 0.4], [0.0, 0.5, 0.5], [0.0, 0.3, 0.7]] * 2)
    result = hosmer_lemeshow_test(
        y, prob, labels=[0, 1, 2], reduction="classwise", n_groups=1
    )
    p_values = result.per_class.p_value
    assert math.isnan(p_values[0])
    assert np.isfinite(p_values[1:]).all()
    assert_allclose(result.p_value, min(1.0, 3 * p_values[1:].min()), rtol=1e-12)
    certain = hosmer_lemeshow_test([1, 1], [1.0, 1.0], reduction="classwise")
    assert math.isnan(certain.p_value)
    assert np.isnan(certain.per_class.p_value).all()


def test_groups_give_a_result_per_group(global_random_seed):
    """Check groups=: each group's test equals the test on its rows."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 120)
    groups = np.array(["a", "b", "c"])[rng.randint(0, 3, size=120)]
    result = kuiper_test(y, p, groups=groups)
    for i, group in enumerate(result.groups):
        rows = groups == group
        assert_allclose(result.p_value[i], kuiper_test(y[rows], p[rows]).p_value)
    assert result.worst_group == result.groups[int(np.argmin(result.p_value))]


# ---------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_rejections(test):
    """Check that bad reductions and data raise errors naming the argument."""
    with pytest.raises(InvalidParameterError, match="'reduction' parameter"):
        test([0, 1], [0.2, 0.7], reduction="mean")
    with pytest.raises(ValueError, match='reduction="positive"'):
        test([0, 1, 2], np.full((3, 3), 1 / 3), reduction="positive")
    with pytest.raises(ValueError, match="y_prob"):
        test([0, 1], [0.2, 1.7])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_groups": 0}, "'n_groups' parameter"),
        ({"n_groups": 2.5}, "'n_groups' parameter"),
        ({"in_sample": "yes"}, "'in_sample' parameter"),
        ({"in_sample": True, "n_groups": 2}, "in_sample=True needs n_groups >= 3"),
    ],
)
def test_hosmer_lemeshow_rejections(kwargs, message):
    """Check that bad n_groups and in_sample are rejected."""
    with pytest.raises(ValueError, match=message):
        hosmer_lemeshow_test([0, 1, 1], [0.2, 0.7, 0.6], **kwargs)


# ---------------------------------------------------------------------------
# Size and power by simulation
# ---------------------------------------------------------------------------

N_DATASETS, N_SIZE_DATASETS, N_ROWS, ALPHA = 300, 1000, 300, 0.05


def _size_bound(n_datasets):
    """The largest rejection rate of a test of level ALPHA, up to Monte-Carlo error.

    Four standard errors, as several tests must pass for each of the 100
    seeds: Hosmer-Lemeshow's rate is about 0.052 here (over 100 seeds of
    500 datasets its largest was 0.088), its chi-square law being
    approximate; with n_groups - 2 degrees of freedom it would be about 0.12.
    """
    return ALPHA + 4 * math.sqrt(ALPHA * (1 - ALPHA) / n_datasets)


SIZE_BOUND = _size_bound(N_SIZE_DATASETS)


def _rejection_rate(test, draw, rng, n_datasets=N_DATASETS, **kwargs):
    p_values = [test(*draw(rng), **kwargs).p_value for _ in range(n_datasets)]
    return float(np.mean(np.array(p_values) <= ALPHA))


def _calibrated(rng):
    p = rng.beta(0.8, 1.2, size=N_ROWS)
    return rng.uniform(size=N_ROWS) < p, p


def _squared(rng):
    p = rng.uniform(size=N_ROWS)
    return rng.uniform(size=N_ROWS) < p**2, p


def _overconfident(rng):
    q = rng.uniform(0.05, 0.95, size=N_ROWS)
    return rng.uniform(size=N_ROWS) < q, expit(2 * logit(q))


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_size_on_calibrated_data(global_random_seed, test):
    """Check that a test rejects calibrated data at most ALPHA of the time."""
    rng = np.random.RandomState(global_random_seed)
    rate = _rejection_rate(test, _calibrated, rng, n_datasets=N_SIZE_DATASETS)
    assert rate <= SIZE_BOUND


def test_classwise_size(global_random_seed):
    """Check Bonferroni's combination: level ALPHA on calibrated 3-class data."""
    rng = np.random.RandomState(global_random_seed)

    def draw(rng):
        prob = rng.dirichlet(np.ones(3), size=N_ROWS)
        y = (rng.uniform(size=(N_ROWS, 1)) > np.cumsum(prob, axis=1)).sum(axis=1)
        return y, prob

    rate = _rejection_rate(
        kuiper_test, draw, rng, n_datasets=N_SIZE_DATASETS, reduction="classwise"
    )
    assert rate <= SIZE_BOUND


# Floors set about 0.1 below the power measured by the benchmark at n = 300
# (1.00 on p**2 for all but Spiegelhalter, which cannot see it; 0.86, 0.94,
# 1.00 and 1.00 for overconfidence).
POWER_FLOORS = {
    ("kolmogorov_smirnov_test", "squared"): 0.9,
    ("kuiper_test", "squared"): 0.9,
    ("hosmer_lemeshow_test", "squared"): 0.9,
    ("kolmogorov_smirnov_test", "overconfident"): 0.7,
    ("kuiper_test", "overconfident"): 0.8,
    ("spiegelhalter_test", "overconfident"): 0.9,
    ("hosmer_lemeshow_test", "overconfident"): 0.9,
}


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_power_on_miscalibrated_data(global_random_seed, test):
    """Check each test's power on p**2 and on an overconfident model.

    Spiegelhalter's test cannot see y ~ Bernoulli(p**2) with p uniform:
    the mean of (p**2 - p)(1 - 2p) is 0, so it rejects at about ALPHA.
    """
    rng = np.random.RandomState(global_random_seed)
    for name, draw in (("squared", _squared), ("overconfident", _overconfident)):
        rate = _rejection_rate(test, draw, rng)
        floor = POWER_FLOORS.get((test.__name__, name))
        if floor is None:
            assert rate <= _size_bound(N_DATASETS)
        else:
            assert rate >= floor


def test_hosmer_lemeshow_in_sample_degrees_of_freedom(global_random_seed):
    """Check Hosmer and Lemeshow's claim: n_groups - 2 dof for a fitted model.

    On a logistic regression fitted on the rows it is tested on, H has the
    mean of a chi-square law with n_groups - 2 degrees of freedom, and the
    test with ``in_sample=True`` has level ALPHA.
    """
    from sklearn.linear_model import LogisticRegression

    rng = np.random.RandomState(global_random_seed)
    statistics, rejected = [], []
    for _ in range(200):
        x = rng.normal(size=(N_ROWS, 1))
        y = rng.uniform(size=N_ROWS) < expit(0.3 + 1.5 * x[:, 0])
        p = LogisticRegression(C=1e6).fit(x, y).predict_proba(x)[:, 1]
        result = hosmer_lemeshow_test(y, p, in_sample=True)
        assert result.dof == 8
        statistics.append(result.statistic)
        rejected.append(result.p_value <= ALPHA)
    # The mean of chi-square with 8 dof is 8 (its sd 4, so 0.28 for the
    # mean of 200); with 10 dof it would be 10.
    assert abs(np.mean(statistics) - 8.0) <= 1.2
    assert np.mean(rejected) <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 200)


@pytest.mark.parametrize("test", TESTS, ids=lambda f: f.__name__)
def test_large_samples_reject_slight_miscalibration(global_random_seed, test):
    """Check that at n = 200000 a gap of 0.02 is rejected (a p-value is no size)."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.1, 0.7, size=200_000)
    y = rng.uniform(size=200_000) < np.where(p < 0.4, p + 0.02, p - 0.02)
    result = test(y, p)
    assert result.p_value < 1e-3
