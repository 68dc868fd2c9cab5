"""Tests of the proper scores of Gaussian and quantile predictions, and the ratio."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
import scoringrules
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, stats
from sklearn.metrics import mean_pinball_loss

from skcal.regression import (
    dawid_sebastiani_score,
    error_variance_ratio,
    gaussian_crps,
    gaussian_log_loss,
    pinball_loss,
)
from tests.regression._strategies import gaussian_rows as shared_gaussian_rows
from tests.regression._strategies import integer_weights, repeat_counts

GAUSSIAN_SCORES = [dawid_sebastiani_score, gaussian_log_loss, gaussian_crps]
LEVELS = np.array([0.05, 0.25, 0.5, 0.8, 0.95])

# ---------------------------------------------------------------------------
# Data and slow references, written from the definitions.
# ---------------------------------------------------------------------------


def _gaussian_data(rng, n):
    """Outcomes and Gaussian predictions, neither calibrated nor far from it."""
    y_mean = rng.normal(size=n)
    y_std = rng.uniform(0.2, 3.0, size=n)
    y_true = y_mean + rng.normal(scale=1.5, size=n)
    return y_true, y_mean, y_std


def _weights(rng, n, weighted):
    return rng.uniform(0.0, 3.0, size=n) if weighted else None


def _mean(values, sample_weight):
    return float(np.average(values, weights=sample_weight))


def ref_dawid_sebastiani(y, mu, sigma, sample_weight):
    terms = [
        (yi - mi) ** 2 / si**2 + math.log(si**2)
        for yi, mi, si in zip(y, mu, sigma, strict=True)
    ]
    return _mean(terms, sample_weight)


def ref_crps_integral(y, mu, sigma):
    """The integral of (F(t) - 1{y <= t})**2 over the line, split at y."""
    below, _ = integrate.quad(
        lambda t: stats.norm.cdf(t, mu, sigma) ** 2, -np.inf, y, epsabs=1e-13
    )
    above, _ = integrate.quad(
        lambda t: stats.norm.sf(t, mu, sigma) ** 2, y, np.inf, epsabs=1e-13
    )
    return below + above


def _quantile_data(rng, n):
    """Outcomes and predicted quantiles: shifted Gaussian quantiles, some crossing."""
    center = rng.normal(size=n)
    y_true = center + rng.normal(size=n)
    y_quantiles = center[:, None] + 1.3 * stats.norm.ppf(LEVELS)[None, :]
    y_quantiles += rng.normal(scale=0.3, size=y_quantiles.shape)
    return y_true, y_quantiles


# ---------------------------------------------------------------------------
# Agreement with the references
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_dawid_sebastiani_matches_definition(global_random_seed, weighted):
    """Check the Dawid-Sebastiani score against its formula, term by term."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40)
    w = _weights(rng, 40, weighted)
    got = dawid_sebastiani_score(y, mu, sigma, sample_weight=w)
    assert type(got) is float
    assert_allclose(got, ref_dawid_sebastiani(y, mu, sigma, w), rtol=1e-13)


@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_log_loss_matches_scipy(global_random_seed, weighted):
    """Check the log loss against the mean negative log-density of scipy."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40)
    w = _weights(rng, 40, weighted)
    got = gaussian_log_loss(y, mu, sigma, sample_weight=w)
    assert type(got) is float
    expected = _mean(-stats.norm.logpdf(y, mu, sigma), w)
    assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.parametrize("weighted", [False, True])
def test_scores_match_scoringrules(global_random_seed, weighted):
    """Check CRPS, log score and quantile score against the scoringrules package.

    scoringrules (PyPI) gives each sample's score; skcal's are their
    weighted means. The data include standardized errors up to 30, where a
    CRPS written with the Gaussian density and distribution function of
    ``y`` itself loses precision.
    """
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 60)
    y[:3] = mu[:3] + np.array([-30.0, 12.0, 30.0]) * sigma[:3]
    w = _weights(rng, 60, weighted)
    crps = scoringrules.crps_normal(y, mu, sigma)
    assert_allclose(
        gaussian_crps(y, mu, sigma, sample_weight=w), _mean(crps, w), rtol=1e-12
    )
    log_score = scoringrules.logs_normal(y, mu, sigma)
    assert_allclose(
        gaussian_log_loss(y, mu, sigma, sample_weight=w),
        _mean(log_score, w),
        rtol=1e-12,
    )
    y_quantiles = mu[:, None] + sigma[:, None] * stats.norm.ppf(LEVELS)
    per_level = [
        _mean(scoringrules.quantile_score(y, y_quantiles[:, j], level), w)
        for j, level in enumerate(LEVELS)
    ]
    got = pinball_loss(
        y, y_quantiles, quantiles=LEVELS, sample_weight=w, multioutput="raw_values"
    )
    assert_allclose(got, per_level, rtol=1e-12)


@pytest.mark.parametrize("level", [1e-9, 1e-4, 0.5, 1 - 1e-4, 1 - 1e-9])
def test_pinball_loss_exact_at_extreme_levels(global_random_seed, level):
    """Check the pinball loss to rounding at levels near 0 and 1 (review).

    A form tau * mean(d) - mean(min(d, 0)) lost up to 7e-8 of the value at
    tau = 1 - 1e-9; the reference takes each entry's maximum.
    """
    rng = np.random.RandomState(global_random_seed)
    y = rng.normal(scale=100.0, size=300)
    q = rng.normal(scale=100.0, size=(300, 1))
    d = y[:, None] - q
    expected = np.mean(np.maximum(level * d, (level - 1.0) * d))
    assert_allclose(pinball_loss(y, q, quantiles=[level]), expected, rtol=1e-14)


def test_pinball_loss_of_overflowing_differences():
    """Check an outcome infinitely far from its quantile gives inf, not NaN."""
    got = pinball_loss([-1e308, 0.0], [[1e308], [0.0]], quantiles=[0.5])
    assert got == np.inf


@pytest.mark.parametrize("weighted", [False, True])
def test_dawid_sebastiani_is_twice_log_loss(global_random_seed, weighted):
    """Check DSS = 2 NLL - log(2 pi) for Gaussian predictions."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 30)
    w = _weights(rng, 30, weighted)
    dss = dawid_sebastiani_score(y, mu, sigma, sample_weight=w)
    nll = gaussian_log_loss(y, mu, sigma, sample_weight=w)
    assert_allclose(dss, 2 * nll - math.log(2 * math.pi), rtol=1e-12, atol=1e-13)


def test_gaussian_scores_known_values():
    """Check the scores of a standard normal prediction at its mean by hand."""
    # CRPS(N(0, 1), 0) = 2 phi(0) - 1 / sqrt(pi) = (sqrt(2) - 1) / sqrt(pi).
    assert_allclose(
        gaussian_crps([0.0], [0.0], [1.0]), (math.sqrt(2) - 1) / math.sqrt(math.pi)
    )
    assert_allclose(gaussian_log_loss([0.0], [0.0], [1.0]), 0.5 * math.log(2 * math.pi))
    assert_allclose(dawid_sebastiani_score([3.0], [1.0], [2.0]), 1 + math.log(4))


def test_crps_matches_numerical_integral(global_random_seed):
    """Check the closed-form CRPS against the integral of its definition."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 5)
    y[0] = mu[0]  # an outcome at the mean
    y[1] = mu[1] + 6 * sigma[1]  # and one far in a tail
    for yi, mi, si in zip(y, mu, sigma, strict=True):
        got = gaussian_crps([yi], [mi], [si])
        assert_allclose(got, ref_crps_integral(yi, mi, si), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_crps_is_weighted_mean_of_sample_scores(global_random_seed, weighted):
    """Check the CRPS of many samples is the weighted mean of their single CRPS."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 25)
    w = _weights(rng, 25, weighted)
    single = [
        gaussian_crps([a], [b], [c]) for a, b, c in zip(y, mu, sigma, strict=True)
    ]
    got = gaussian_crps(y, mu, sigma, sample_weight=w)
    assert_allclose(got, _mean(single, w), rtol=1e-13)


@pytest.mark.parametrize("sigma", [1e-6, 1e-9, 1e-12])
def test_crps_tends_to_absolute_error(global_random_seed, sigma):
    """Check the CRPS of an almost sure prediction is the absolute error."""
    rng = np.random.RandomState(global_random_seed)
    y, mu = rng.normal(size=20), rng.normal(size=20)
    mu[0] = y[0]  # the error is 0, the CRPS 0.2337 sigma
    got = gaussian_crps(y, mu, np.full(20, sigma))
    assert_allclose(got, np.mean(np.abs(y - mu)), rtol=0, atol=2 * sigma)


def test_crps_is_kernel_score_monte_carlo(global_random_seed):
    """Check CRPS = E|X - y| - E|X - X'| / 2 by Monte Carlo, loosely."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 3)
    for yi, mi, si in zip(y, mu, sigma, strict=True):
        x = rng.normal(mi, si, size=(2, 100_000))
        expected = np.mean(np.abs(x[0] - yi)) - 0.5 * np.mean(np.abs(x[0] - x[1]))
        assert_allclose(gaussian_crps([yi], [mi], [si]), expected, atol=0.02 * si)


@pytest.mark.parametrize("weighted", [False, True])
def test_pinball_loss_matches_sklearn(global_random_seed, weighted):
    """Check each level's pinball loss against scikit-learn's mean_pinball_loss."""
    rng = np.random.RandomState(global_random_seed)
    y, q = _quantile_data(rng, 50)
    w = _weights(rng, 50, weighted)
    raw = pinball_loss(
        y, q, quantiles=LEVELS, sample_weight=w, multioutput="raw_values"
    )
    assert raw.shape == LEVELS.shape
    expected = [
        mean_pinball_loss(y, q[:, j], alpha=level, sample_weight=w)
        for j, level in enumerate(LEVELS)
    ]
    assert_allclose(raw, expected, rtol=1e-13)
    average = pinball_loss(y, q, quantiles=LEVELS, sample_weight=w)
    assert type(average) is float
    assert_allclose(average, np.mean(expected), rtol=1e-13)


def test_pinball_loss_one_level_as_vector(global_random_seed):
    """Check a 1-D array of predictions is the one level's column."""
    rng = np.random.RandomState(global_random_seed)
    y, q = _quantile_data(rng, 30)
    column = pinball_loss(y, q[:, [1]], quantiles=[LEVELS[1]])
    vector = pinball_loss(y, q[:, 1], quantiles=[LEVELS[1]])
    assert_allclose(vector, column, rtol=1e-15)
    assert_allclose(vector, mean_pinball_loss(y, q[:, 1], alpha=LEVELS[1]))


def test_pinball_loss_known_values():
    """Check the pinball loss of one outcome above and below its quantiles."""
    raw = pinball_loss(
        [1.0, 1.0],
        [[0.0, 3.0], [2.0, 1.0]],
        quantiles=[0.2, 0.7],
        multioutput="raw_values",
    )
    # Level 0.2: 0.2 * 1 above, 0.8 * 1 below; level 0.7: 0.3 * 2 below, 0 at q.
    assert_allclose(raw, [0.5, 0.3])


def test_pinball_over_many_levels_approaches_crps(global_random_seed):
    """Check twice the pinball loss of dense Gaussian quantiles is nearly the CRPS."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 20)
    levels = (np.arange(2000) + 0.5) / 2000
    q = mu[:, None] + sigma[:, None] * stats.norm.ppf(levels)[None, :]
    twice = 2 * pinball_loss(y, q, quantiles=levels)
    assert_allclose(twice, gaussian_crps(y, mu, sigma), rtol=2e-3)


@pytest.mark.parametrize("score", GAUSSIAN_SCORES)
def test_gaussian_scores_are_proper(global_random_seed, score):
    """Check the true Gaussian scores better than a biased, wider or narrower one."""
    rng = np.random.RandomState(global_random_seed)
    n = 5000
    mu, sigma = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
    y = rng.normal(mu, sigma)
    truth = score(y, mu, sigma)
    assert truth < score(y, mu + 0.4 * sigma, sigma)
    assert truth < score(y, mu, 1.5 * sigma)
    assert truth < score(y, mu, 0.6 * sigma)


def test_pinball_loss_is_proper(global_random_seed):
    """Check the true quantiles score better than shifted or wider ones."""
    rng = np.random.RandomState(global_random_seed)
    n = 5000
    mu = rng.normal(size=n)
    y = mu + rng.normal(size=n)
    z = stats.norm.ppf(LEVELS)[None, :]
    truth = pinball_loss(y, mu[:, None] + z, quantiles=LEVELS, multioutput="raw_values")
    shifted = pinball_loss(
        y, mu[:, None] + z + 0.4, quantiles=LEVELS, multioutput="raw_values"
    )
    wider = pinball_loss(
        y, mu[:, None] + 1.6 * z, quantiles=LEVELS, multioutput="raw_values"
    )
    assert np.all(truth < shifted)
    assert np.all(truth[LEVELS != 0.5] < wider[LEVELS != 0.5])


# ---------------------------------------------------------------------------
# Error-variance ratio
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_error_variance_ratio_matches_definition(global_random_seed, weighted):
    """Check the mean, variance and std of the squared standardized errors."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 40)
    w = _weights(rng, 40, weighted)
    ratio = ((y - mu) / sigma) ** 2
    mean = np.average(ratio, weights=w)
    variance = np.average((ratio - mean) ** 2, weights=w)
    got = error_variance_ratio(y, mu, sigma, sample_weight=w)
    assert set(got) == {"mean", "variance", "std"}
    assert all(type(v) is float for v in got.values())
    assert_allclose(got.mean, mean, rtol=1e-13)
    assert_allclose(got.variance, variance, rtol=1e-12)
    assert_allclose(got.std, math.sqrt(variance), rtol=1e-12)


def test_error_variance_ratio_known_values():
    """Check the ratio of three errors by hand."""
    got = error_variance_ratio([1.0, -2.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 1.0])
    # ratios 1, 1, 4: mean 2, variance (1 + 1 + 4) / 3.
    assert_allclose([got.mean, got.variance], [2.0, 2.0])


def test_error_variance_ratio_of_calibrated_variances(global_random_seed):
    """Check the ratio is near 1 when the variances are the errors' variances."""
    rng = np.random.RandomState(global_random_seed)
    n = 4000
    mu, sigma = rng.normal(size=n), rng.uniform(0.1, 10.0, size=n)
    y = rng.normal(mu, sigma)
    assert_allclose(error_variance_ratio(y, mu, sigma).mean, 1.0, atol=0.15)
    # Variances four times too small (over-confidence): a ratio near 4.
    assert_allclose(error_variance_ratio(y, mu, sigma / 2).mean, 4.0, atol=0.6)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


def gaussian_rows(max_size=15):
    """Wider rows than the PIT's: outcomes in [-50, 50], deviations in [0.05, 20]."""
    return shared_gaussian_rows(max_size, spread=50.0, std=(0.05, 20.0))


@st.composite
def quantile_rows(draw, max_size=15):
    """``(y, q, levels, w)``: outcomes, quantiles at two levels, positive weights."""
    y, mu, sigma, w = draw(gaussian_rows(max_size))
    low = draw(st.floats(0.01, 0.49))
    levels = np.array([low, 1 - low])
    q = np.column_stack([mu - sigma, mu + sigma])
    return y, q, levels, w


def _gaussian_results(y, mu, sigma, w):
    """Every Gaussian score and the ratio's fields, as one vector."""
    ratio = error_variance_ratio(y, mu, sigma, sample_weight=w)
    scores = [score(y, mu, sigma, sample_weight=w) for score in GAUSSIAN_SCORES]
    return np.array([*scores, ratio.mean, ratio.variance])


@given(rows=gaussian_rows(), data=st.data())
def test_gaussian_scores_invariant_to_row_order(rows, data):
    """Check the Gaussian scores and the ratio do not depend on the rows' order."""
    n = rows[0].shape[0]
    order = np.array(data.draw(st.permutations(range(n))))
    permuted = [a[order] for a in rows]
    assert_allclose(
        _gaussian_results(*permuted), _gaussian_results(*rows), rtol=1e-10, atol=1e-10
    )


@given(rows=quantile_rows(), data=st.data())
def test_pinball_loss_invariant_to_row_order(rows, data):
    """Check the pinball loss does not depend on the rows' order."""
    y, q, levels, w = rows
    order = np.array(data.draw(st.permutations(range(y.shape[0]))))
    got = pinball_loss(
        y[order],
        q[order],
        quantiles=levels,
        sample_weight=w[order],
        multioutput="raw_values",
    )
    expected = pinball_loss(
        y, q, quantiles=levels, sample_weight=w, multioutput="raw_values"
    )
    assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@given(
    rows=gaussian_rows(),
    a=st.floats(0.1, 10.0),
    b=st.floats(-10.0, 10.0),
)
def test_gaussian_scores_under_change_of_units(rows, a, b):
    """Check DSS shifts by 2 log a, NLL by log a, CRPS scales by a, the ratio stays."""
    y, mu, sigma, w = rows
    before = _gaussian_results(y, mu, sigma, w)
    after = _gaussian_results(a * y + b, a * mu + b, a * sigma, w)
    dss, nll, crps, ratio_mean, ratio_variance = after
    assert_allclose(dss - 2 * math.log(a), before[0], rtol=1e-8, atol=1e-7)
    assert_allclose(nll - math.log(a), before[1], rtol=1e-8, atol=1e-7)
    assert_allclose(crps / a, before[2], rtol=1e-8, atol=1e-10)
    assert_allclose([ratio_mean, ratio_variance], before[3:], rtol=1e-7, atol=1e-9)


@given(rows=quantile_rows(), a=st.floats(0.1, 10.0), b=st.floats(-10.0, 10.0))
def test_pinball_loss_scales_with_units(rows, a, b):
    """Check the pinball loss is in the target's units: it scales by a."""
    y, q, levels, w = rows
    before = pinball_loss(
        y, q, quantiles=levels, sample_weight=w, multioutput="raw_values"
    )
    after = pinball_loss(
        a * y + b,
        a * q + b,
        quantiles=levels,
        sample_weight=w,
        multioutput="raw_values",
    )
    assert_allclose(after / a, before, rtol=1e-8, atol=1e-9)


@given(rows=gaussian_rows(), scale=st.floats(1e-6, 1e6))
def test_gaussian_scores_invariant_to_weight_scale(rows, scale):
    """Check multiplying every weight by a positive constant changes nothing."""
    y, mu, sigma, w = rows
    assert_allclose(
        _gaussian_results(y, mu, sigma, scale * w),
        _gaussian_results(y, mu, sigma, w),
        rtol=1e-10,
        atol=1e-12,
    )


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_scores_at_extreme_weight_scales(global_random_seed, scale):
    """Check weights near the ends of the float range give the scores of w."""
    rng = np.random.RandomState(global_random_seed)
    y, mu, sigma = _gaussian_data(rng, 30)
    w = rng.uniform(0.5, 2.0, size=30)
    assert_allclose(
        _gaussian_results(y, mu, sigma, scale * w),
        _gaussian_results(y, mu, sigma, w),
        rtol=1e-12,
    )
    q = np.column_stack([mu - sigma, mu + sigma])
    assert_allclose(
        pinball_loss(y, q, quantiles=[0.2, 0.8], sample_weight=scale * w),
        pinball_loss(y, q, quantiles=[0.2, 0.8], sample_weight=w),
        rtol=1e-12,
    )


@given(
    rows=gaussian_rows(),
    counts=repeat_counts(),
)
def test_integer_weights_are_repeated_rows(rows, counts):
    """Check integer weights (zero included) equal repeating each row as often."""
    y, mu, sigma, _ = rows
    n = y.shape[0]
    w = integer_weights(counts, n)
    repeated = [np.repeat(a, w) for a in (y, mu, sigma)]
    expected = _gaussian_results(*repeated, None)
    assert_allclose(
        _gaussian_results(y, mu, sigma, w), expected, rtol=1e-10, atol=1e-10
    )
    q = np.column_stack([mu - sigma, mu + 2 * sigma])
    got = pinball_loss(y, q, quantiles=[0.3, 0.9], sample_weight=w)
    expected = pinball_loss(repeated[0], np.repeat(q, w, axis=0), quantiles=[0.3, 0.9])
    assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@given(rows=gaussian_rows())
def test_unit_weights_equal_no_weights(rows):
    """Check weights all equal to one give the unweighted scores."""
    y, mu, sigma, _ = rows
    assert_allclose(
        _gaussian_results(y, mu, sigma, np.ones_like(y)),
        _gaussian_results(y, mu, sigma, None),
        rtol=1e-12,
        atol=1e-12,
    )
