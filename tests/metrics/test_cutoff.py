"""Tests of the cutoff calibration error and its certification test."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.isotonic import IsotonicRegression

from skcal.metrics import cutoff_calibration_error, cutoff_calibration_test
from tests.metrics._reference import (
    plugin_ece,
    random_binary,
    random_multiclass,
    random_weights,
    ref_views,
)
from tests.metrics._strategies import binary_data as _binary_data

# ---------------------------------------------------------------------------
# Reference implementation: brute force over all closed intervals
# ---------------------------------------------------------------------------


def brute_force_cutoff(y, p, w=None):
    """Largest |weighted mean residual| over every interval [a, b] of data values.

    Written as the definition reads (Rossellini et al., Definition 2.1, and
    the authors' ``cutoff_hat``): O(n^3), with the empty interval giving 0.
    """
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    residual = w * (y - p)
    best = 0.0
    values = sorted(set(p.tolist()))
    for i, a in enumerate(values):
        for b in values[i:]:
            inside = (p >= a) & (p <= b)
            best = max(best, abs(residual[inside].sum()))
    return best / w.sum()


# ---------------------------------------------------------------------------
# Agreement with the reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 17, 40])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_matches_brute_force(global_random_seed, n, ties, weighted):
    """Check the binary error against the brute force over all intervals."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n, ties=ties)
    w = random_weights(rng, n) if weighted else None
    got = cutoff_calibration_error(y, p, sample_weight=w)
    assert isinstance(got, float)
    assert_allclose(got, brute_force_cutoff(y, p, w), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n, k", [(30, 3), (45, 5)])
def test_multiclass_matches_brute_force(global_random_seed, reduction, weighted, n, k):
    """Check top-label and classwise errors against the brute force per view."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, n, k)
    prob = np.round(prob, 2)  # ties, including ties in the argmax
    prob /= prob.sum(axis=1, keepdims=True)
    w = random_weights(rng, n) if weighted else None
    per_class = [
        brute_force_cutoff(yv, pv, w) for yv, pv in ref_views(y, prob, reduction)
    ]
    got = cutoff_calibration_error(y, prob, sample_weight=w, reduction=reduction)
    assert_allclose(got, np.mean(per_class), rtol=1e-12, atol=1e-15)
    if reduction == "classwise":
        vector = cutoff_calibration_error(
            y, prob, sample_weight=w, reduction=reduction, return_per_class=True
        )
        assert vector.shape == (k,)
        assert_allclose(vector, per_class, rtol=1e-12, atol=1e-15)


def test_positive_reduction_of_a_multiclass_problem(global_random_seed):
    """Check that pos_label selects the one-vs-rest view of that class."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = random_multiclass(rng, 40, 4)
    got = cutoff_calibration_error(y, prob, pos_label=2)
    assert_allclose(got, brute_force_cutoff(y == 2, prob[:, 2]), rtol=1e-12)


# ---------------------------------------------------------------------------
# Checkable claims of the paper note (cutoff_calibration.md, section 5)
# ---------------------------------------------------------------------------


def test_heavy_ties_and_all_ties_match_brute_force(global_random_seed):
    """Check claim 1: heavy ties, all ties and one sample agree with brute force."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(20):
        n = rng.randint(1, 40)
        p = np.round(rng.uniform(size=n), 1)
        y = rng.randint(2, size=n)
        assert_allclose(
            cutoff_calibration_error(y, p),
            brute_force_cutoff(y, p),
            rtol=1e-12,
            atol=1e-15,
        )
    y = rng.randint(2, size=25)
    assert_allclose(
        cutoff_calibration_error(y, np.full(25, 0.3)),
        brute_force_cutoff(y, np.full(25, 0.3)),
        rtol=1e-12,
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_chain_of_bounds(global_random_seed, weighted):
    """Check claim 2: |mean residual| <= cutoff <= plug-in ECE <= mean |y - p| <= 1."""
    rng = np.random.RandomState(global_random_seed)
    for ties in (False, True):
        y, p = random_binary(rng, 80, ties=ties)
        w = random_weights(rng, 80) if weighted else np.ones(80)
        cutoff = cutoff_calibration_error(y, p, sample_weight=w)
        mean_residual = abs(np.average(y - p, weights=w))
        mean_absolute = np.average(np.abs(y - p), weights=w)
        ece = plugin_ece(y, p, w)
        assert mean_residual <= cutoff + 1e-15
        assert cutoff <= ece + 1e-15
        assert ece <= mean_absolute + 1e-15
        assert mean_absolute <= 1.0


@pytest.mark.parametrize("c", [0.0, 0.1, 0.37, 0.5, 1.0])
def test_constant_forecast(global_random_seed, c):
    """Check claim 3: a constant forecast c has error |mean(y) - c|."""
    rng = np.random.RandomState(global_random_seed)
    y = rng.randint(2, size=101)
    got = cutoff_calibration_error(y, np.full(101, c))
    assert_allclose(got, abs(y.mean() - c), rtol=1e-12, atol=1e-15)


def test_constant_forecast_at_the_mean_is_zero(global_random_seed):
    """Check claim 3: forecasting the event rate everywhere scores 0 (ties grouped)."""
    rng = np.random.RandomState(global_random_seed)
    y = rng.randint(2, size=64)
    y[0] = 1
    got = cutoff_calibration_error(y, np.full(64, y.mean()))
    assert_allclose(got, 0.0, atol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_isotonic_fit_has_zero_in_sample_error(global_random_seed, ties):
    """Check claim 4: isotonic regression has no in-sample cutoff error (Lemma D.1)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 300, ties=ties)
    w = rng.uniform(0.5, 2.0, size=300)
    for weights in (None, w):
        fitted = IsotonicRegression(y_min=0, y_max=1).fit_transform(
            p, y, sample_weight=weights
        )
        got = cutoff_calibration_error(y, fitted, sample_weight=weights)
        assert_allclose(got, 0.0, atol=1e-12)


def test_isotonic_fit_with_fractional_outcomes(global_random_seed):
    """Check claim 4 for outcomes in [0, 1], written as two weighted rows each."""
    rng = np.random.RandomState(global_random_seed)
    p = np.round(rng.uniform(size=150), 2)
    mean = rng.uniform(size=150)  # the outcome of row i is mean[i]
    fitted = IsotonicRegression(y_min=0, y_max=1).fit_transform(p, mean)
    got = cutoff_calibration_error(
        np.r_[np.ones(150), np.zeros(150)],
        np.r_[fitted, fitted],
        sample_weight=np.r_[mean, 1 - mean],
    )
    assert_allclose(got, 0.0, atol=1e-12)


def _population_platt(f, y, weight):
    """Logistic regression of y on the raw forecast f, by Newton's method."""
    x = np.column_stack([np.ones_like(f), f])
    beta = np.zeros(2)
    for _ in range(100):
        prob = 1 / (1 + np.exp(-x @ beta))
        gradient = x.T @ (weight * (y - prob))
        hessian = (x * (weight * prob * (1 - prob))[:, None]).T @ x
        beta += np.linalg.solve(hessian, gradient)
    return beta


def test_platt_counterexample():
    """Check claims 6 and 7: population Platt keeps a cutoff error, isotonic none."""
    f = np.array([0.0, 0.25, 0.5, 1.0])
    y = np.array([1, 0, 0, 1])
    weight = np.full(4, 0.25)
    beta = _population_platt(f, y, weight)
    assert_allclose(beta, [-0.40580, 0.93090], atol=1e-4)
    h = 1 / (1 + np.exp(-(beta[0] + beta[1] * f)))
    assert_allclose(h, [0.39992, 0.45684, 0.51491, 0.62834], atol=1e-5)
    assert_allclose(
        cutoff_calibration_error(y, h, sample_weight=weight), 0.242936, atol=1e-6
    )
    # The maximising interval is {0.25, 0.5}.
    assert_allclose(
        cutoff_calibration_error(y, h, sample_weight=weight),
        0.25 * (h[1] + h[2]),
        rtol=1e-12,
    )
    assert_allclose(cutoff_calibration_error(y, f, sample_weight=weight), 0.25)
    isotonic = np.array([1, 1, 1, 3]) / 3
    assert_allclose(
        cutoff_calibration_error(y, isotonic, sample_weight=weight), 0.0, atol=1e-15
    )


def test_default_tolerance_of_modified_platt():
    """Check claims 9 and 15: the margin is 0.2244775 at n = 10**4, >= 1 to n = 503."""
    rng = np.random.RandomState(0)

    def margin(n):
        y, p = random_binary(rng, n)
        return cutoff_calibration_test(y, p, tolerance=0.1).margin

    assert_allclose(margin(10_000), 0.2244775, atol=1e-7)
    assert margin(503) >= 1.0 > margin(504)


@pytest.mark.parametrize("eps", [0.01, 0.05, 0.1])
def test_example_3_1(eps):
    """Check claim 11: Example 3.1 has cutoff error 3/16 + 3 eps / 4."""
    y = [1, 0]
    p = [0.75 - eps, 0.75 + eps]
    got = cutoff_calibration_error(y, p, sample_weight=[0.75, 0.25])
    assert_allclose(got, 3 / 16 + 3 * eps / 4, rtol=1e-12)
    # The risk gap of the plug-in rule at tau = 0.75 (3/8 over both directions
    # of monotone rules) is within twice the cutoff error.
    assert 2 * got >= 3 / 8


def _risk(y, decision, tau):
    """Mean binary-decision loss tau (1 - y) d + (1 - tau) y (1 - d)."""
    return np.mean(tau * (1 - y) * decision + (1 - tau) * y * (1 - decision))


def test_monotone_risk_gap_is_at_most_twice_the_cutoff_error(global_random_seed):
    """Check claim 12(b): plug-in risk minus best monotone risk <= 2 cutoff."""
    rng = np.random.RandomState(global_random_seed)
    for _ in range(30):
        n = rng.randint(5, 60)
        y, p = random_binary(rng, n, ties=bool(rng.randint(2)))
        tau = rng.uniform()
        plug_in = _risk(y, (p >= tau).astype(float), tau)
        cuts = np.r_[-np.inf, np.unique(p), np.inf]
        best = min(
            *(_risk(y, (p >= t).astype(float), tau) for t in cuts),
            *(_risk(y, (p <= t).astype(float), tau) for t in cuts),
        )
        assert plug_in - best <= 2 * cutoff_calibration_error(y, p) + 1e-12


def test_population_fixtures():
    """Check claim 13: the all-wrong, Prop. A.1 and quadratic examples."""
    # Y = 0 while f = 1: every measure is 1.
    assert cutoff_calibration_error([0, 0, 0], [1.0, 1.0, 1.0]) == 1.0
    # Prop. A.1: f = (1 + b) / 2 with Y = 0, or (1 - b) / 2 with Y = 1, each
    # with probability 1/2: cutoff error (1 + b) / 4.
    for b in (0.1, 0.5, 0.9):
        got = cutoff_calibration_error([0, 1], [(1 + b) / 2, (1 - b) / 2])
        assert_allclose(got, (1 + b) / 4, rtol=1e-12)
    # Quadratic example: f ~ U(0, 1), E[Y | f] = (i - 1/2) / N on the i-th of N
    # equal bins; cutoff error 1 / (8 N^2). A midpoint grid whose cells align
    # with the half bins integrates the linear residual exactly; each grid
    # point is two rows, Y = 1 and Y = 0, weighted by E[Y | f] and 1 - E[Y | f].
    for n_bins in (1, 2, 5, 10):
        cells = 200 * n_bins
        f = (np.arange(cells) + 0.5) / cells
        rate = (np.floor(f * n_bins) + 0.5) / n_bins
        got = cutoff_calibration_error(
            np.r_[np.ones(cells), np.zeros(cells)],
            np.r_[f, f],
            sample_weight=np.r_[rate, 1 - rate],
        )
        assert_allclose(got, 1 / (8 * n_bins**2), rtol=1e-9)


@pytest.mark.parametrize("n_bins", [2, 5, 10])
def test_histogram_binning_construction(global_random_seed, n_bins):
    """Check claim 14: binning is calibrated in-sample, E|g - f| <= N cutoff + 1/N."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 500)
    bins = np.maximum(np.ceil(p * n_bins) - 1, 0)
    g = np.zeros_like(p)
    for j in np.unique(bins):
        g[bins == j] = y[bins == j].mean()
    assert_allclose(cutoff_calibration_error(y, g), 0.0, atol=1e-12)
    assert np.mean(np.abs(g - p)) <= n_bins * cutoff_calibration_error(y, p) + (
        1 / n_bins
    )


@pytest.mark.parametrize("n_sub_bins", [4, 10, 40])
def test_oscillating_miscalibration(n_sub_bins):
    """Check claim 19: a residual of +-a alternating on K sub-bins has error a / K."""
    a, cells_per_sub_bin = 0.08, 25
    cells = n_sub_bins * cells_per_sub_bin
    f = 0.1 + 0.8 * (np.arange(cells) + 0.5) / cells
    sign = np.where(np.arange(cells) // cells_per_sub_bin % 2 == 0, 1.0, -1.0)
    rate = f + a * sign
    got = cutoff_calibration_error(
        np.r_[np.ones(cells), np.zeros(cells)],
        np.r_[f, f],
        sample_weight=np.r_[rate, 1 - rate],
    )
    # a h / 0.8 with sub-bins of width h = 0.8 / K: small, while the ECE is a.
    assert_allclose(got, a / n_sub_bins, rtol=1e-9)


def test_null_distribution_scaling():
    """Check claim 16: sqrt(n) times the error of calibrated data has mean 0.652."""
    rng = np.random.RandomState(0)
    n = 10_000
    scaled = np.empty(600)
    for r in range(600):
        p = rng.uniform(size=n)
        y = rng.uniform(size=n) < p
        scaled[r] = math.sqrt(n) * cutoff_calibration_error(y, p)
    # The Brownian-range limit 2 sqrt(2 / pi) sqrt(E[p (1 - p)]) = 0.6515.
    brownian_range = 2 * math.sqrt(2 / math.pi) * math.sqrt(1 / 6)
    assert_allclose(scaled.mean(), brownian_range, atol=0.03)
    assert_allclose(np.quantile(scaled, 0.95), 1.026, atol=0.06)


def test_bootstrap_margin_is_the_null_quantile():
    """Check claim 16 through the bootstrap: its margin is about 1.026 / sqrt(n)."""
    rng = np.random.RandomState(1)
    n = 10_000
    p = rng.uniform(size=n)
    y = rng.uniform(size=n) < p
    result = cutoff_calibration_test(
        y, p, tolerance=0.1, method="bootstrap", n_bootstrap=2000, random_state=0
    )
    assert_allclose(math.sqrt(n) * result.margin, 1.026, atol=0.06)


# ---------------------------------------------------------------------------
# The certification test
# ---------------------------------------------------------------------------


def test_bound_decision_and_fields(global_random_seed):
    """Check the fields of the bound test and its decision rule."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 2000)
    statistic = cutoff_calibration_error(y, p)
    margin = (20 + math.sqrt(2 * math.log(1 / 0.05))) / math.sqrt(2000)
    for tolerance in (0.1, 0.5, 0.6, 1.0):
        result = cutoff_calibration_test(y, p, tolerance=tolerance)
        assert result.statistic == statistic
        assert_allclose(result.margin, margin, rtol=1e-14)
        assert_allclose(result.threshold, tolerance - margin, rtol=1e-14)
        assert result.p_value is None and result.calibration_p_value is None
        assert result.certified is (statistic <= tolerance - margin)
        assert result.reject is result.certified
        assert result.method == "bound"
        assert result.n_effective == 2000
        assert result.tolerance == tolerance and result.alpha == 0.05
        assert "> " in result.null_hypothesis


def test_bound_never_certifies_below_the_margin(global_random_seed):
    """Check claim 15: a tolerance below the margin is never certified."""
    rng = np.random.RandomState(global_random_seed)
    y = np.array([1, 1, 0, 0])
    margin = cutoff_calibration_test(y, np.full(4, 0.5), tolerance=1.0).margin
    assert not cutoff_calibration_test(
        y, np.full(4, 0.5), tolerance=margin * 0.999
    ).certified
    # At a tolerance equal to the margin, a zero statistic is certified.
    assert cutoff_calibration_test(y, np.full(4, 0.5), tolerance=margin).certified
    y, p = random_binary(rng, 300)
    for alpha in (0.01, 0.05, 0.5):
        result = cutoff_calibration_test(y, p, tolerance=1.0, alpha=alpha)
        below = cutoff_calibration_test(
            y, p, tolerance=0.999 * result.margin, alpha=alpha
        )
        assert not below.certified


def test_bound_margin_uses_the_effective_sample_size(global_random_seed):
    """Check that weights enter the bound through Kish's effective size."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 400)
    w = rng.uniform(0.1, 3.0, size=400)
    result = cutoff_calibration_test(y, p, tolerance=0.9, sample_weight=w)
    n_eff = w.sum() ** 2 / (w**2).sum()
    assert_allclose(result.n_effective, n_eff, rtol=1e-12)
    margin = (20 + math.sqrt(2 * math.log(20))) / math.sqrt(n_eff)
    assert_allclose(result.margin, margin, rtol=1e-12)
    assert result.statistic == cutoff_calibration_error(y, p, sample_weight=w)
    # Scaling the weights changes nothing, with the bound or the bootstrap.
    for method in ("bound", "bootstrap"):
        a = cutoff_calibration_test(
            y, p, tolerance=0.1, sample_weight=w, method=method, random_state=3
        )
        b = cutoff_calibration_test(
            y, p, tolerance=0.1, sample_weight=w * 1e3, method=method, random_state=3
        )
        assert_allclose(a.statistic, b.statistic, rtol=1e-12)
        assert_allclose(a.margin, b.margin, rtol=1e-9)
        assert a.certified == b.certified


def test_bootstrap_decision_and_fields(global_random_seed):
    """Check that the bootstrap certifies iff p_value <= alpha, as threshold says."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 500)
    for tolerance in (0.01, 0.03, 0.06, 0.2):
        for n_bootstrap in (19, 99, 200):
            result = cutoff_calibration_test(
                y,
                p,
                tolerance=tolerance,
                method="bootstrap",
                n_bootstrap=n_bootstrap,
                random_state=global_random_seed,
            )
            assert result.method == "bootstrap"
            assert 0 < result.p_value <= 1
            assert result.certified is (result.p_value <= 0.05)
            assert result.reject is result.certified
            assert result.certified is (result.statistic < result.threshold)
            assert_allclose(result.threshold, tolerance - result.margin)
            assert 0 < result.calibration_p_value <= 1


def test_bootstrap_is_reproducible():
    """Check that random_state fixes the bootstrap draws."""
    rng = np.random.RandomState(0)
    y, p = random_binary(rng, 300)
    kwargs = dict(tolerance=0.05, method="bootstrap", n_bootstrap=200)
    a = cutoff_calibration_test(y, p, random_state=7, **kwargs)
    b = cutoff_calibration_test(y, p, random_state=np.random.RandomState(7), **kwargs)
    c = cutoff_calibration_test(y, p, random_state=8, **kwargs)
    assert a.p_value == b.p_value and a.margin == b.margin
    assert a.margin != c.margin


def test_bootstrap_with_too_few_draws_never_certifies():
    """Check that fewer than 1 / alpha - 1 draws cannot certify anything."""
    rng = np.random.RandomState(0)
    p = rng.uniform(size=200)
    y = rng.uniform(size=200) < p
    result = cutoff_calibration_test(
        y, p, tolerance=1.0, method="bootstrap", n_bootstrap=18, random_state=0
    )
    assert result.margin == math.inf
    assert not result.certified
    assert result.p_value == pytest.approx(1 / 19)


@pytest.mark.parametrize("method", ["bound", "bootstrap"])
def test_decision_is_monotone_in_the_tolerance(global_random_seed, method):
    """Check that a certified tolerance stays certified when it grows."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 3000)
    decisions = [
        cutoff_calibration_test(
            y, p, tolerance=t, method=method, n_bootstrap=99, random_state=0
        ).certified
        for t in np.linspace(0, 1, 21)
    ]
    assert decisions == sorted(decisions)
    assert decisions[-1]


def _shifted_data(rng, n, shift):
    """Predictions on [0, 1 - shift] whose event rate is p + shift: error = shift."""
    p = rng.uniform(0, 1 - shift, size=n)
    y = rng.uniform(size=n) < p + shift
    return y, p


@pytest.mark.parametrize("method", ["bound", "bootstrap"])
def test_level_under_the_null(method):
    """Check that a model whose error exceeds the tolerance is rarely certified."""
    rng = np.random.RandomState(0)
    shift, n, repetitions, alpha = 0.06, 400, 150, 0.1
    certified = 0
    for _ in range(repetitions):
        y, p = _shifted_data(rng, n, shift)
        certified += cutoff_calibration_test(
            y,
            p,
            tolerance=0.999 * shift,
            alpha=alpha,
            method=method,
            n_bootstrap=99,
            random_state=rng,
        ).certified
    rate = certified / repetitions
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / repetitions)


def test_power_on_calibrated_and_miscalibrated_models():
    """Check that the bootstrap certifies a calibrated model, not a wrong one."""
    rng = np.random.RandomState(1)
    calibrated = miscalibrated = bound_certified = 0
    for _ in range(20):
        p = rng.uniform(size=2000)
        y = rng.uniform(size=2000) < p
        kwargs = dict(tolerance=0.08, method="bootstrap", n_bootstrap=99)
        calibrated += cutoff_calibration_test(
            y, p, random_state=rng, **kwargs
        ).certified
        bound_certified += cutoff_calibration_test(y, p, tolerance=0.08).certified
        # Outcomes that ignore the predictions: a cutoff error of 1/8.
        y_bad = rng.uniform(size=2000) < 0.5
        miscalibrated += cutoff_calibration_test(
            y_bad, p, random_state=rng, **kwargs
        ).certified
    assert calibrated >= 18
    assert miscalibrated == 0
    # The distribution-free margin is 0.50 at n = 2000: nothing is certified.
    assert bound_certified == 0


def test_certification_can_fail_where_outcomes_vary_more_than_labels():
    """Check the documented limit of the bootstrap (predictions 0.01, rate 0.2)."""
    rng = np.random.RandomState(0)
    certified = 0
    for _ in range(200):
        y = rng.uniform(size=100) < 0.2
        certified += cutoff_calibration_test(
            y,
            np.full(100, 0.01),
            tolerance=0.185,
            method="bootstrap",
            n_bootstrap=199,
            random_state=rng,
        ).certified
    # About a quarter, as the docstring says, far above alpha = 0.05.
    assert 0.15 <= certified / 200 <= 0.4


@pytest.mark.parametrize("reduction", ["positive", "top_label", "classwise"])
def test_calibration_p_value_level_and_power(reduction):
    """Check the level of the calibration p-value under the null, and its power."""
    rng = np.random.RandomState(0)
    repetitions, alpha = 100, 0.05
    rejected = detected = 0
    for _ in range(repetitions):
        if reduction == "positive":
            prob = rng.uniform(size=300)
            y = rng.uniform(size=300) < prob
            y_bad = rng.uniform(size=300) < 0.5 + 0.5 * (prob - 0.5)
        else:
            logits = rng.normal(scale=1.5, size=(300, 3))
            prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
            y = np.argmax(np.log(prob) - np.log(-np.log(rng.uniform(size=(300, 3)))), 1)
            # Labels drawn from tempered probabilities: an over-confident model.
            soft = np.sqrt(prob) / np.sqrt(prob).sum(axis=1, keepdims=True)
            y_bad = np.argmax(
                np.log(soft) - np.log(-np.log(rng.uniform(size=(300, 3)))), 1
            )
        kwargs = dict(
            tolerance=0.1,
            method="bootstrap",
            n_bootstrap=49,
            reduction=reduction,
            random_state=rng,
        )
        rejected += (
            cutoff_calibration_test(y, prob, **kwargs).calibration_p_value <= alpha
        )
        detected += (
            cutoff_calibration_test(y_bad, prob, **kwargs).calibration_p_value <= alpha
        )
    assert rejected / repetitions <= alpha + 3 * math.sqrt(
        alpha * (1 - alpha) / repetitions
    )
    assert detected / repetitions >= 0.9


@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
def test_bootstrap_margin_matches_the_simulated_null(reduction):
    """Check the multiclass bootstrap margin against the simulated null quantile."""
    rng = np.random.RandomState(0)
    y, prob = random_multiclass(rng, 300, 3)
    null = []
    for _ in range(1000):
        # Labels drawn from each row by the Gumbel-max trick.
        gumbel = -np.log(-np.log(rng.uniform(size=prob.shape)))
        drawn = np.argmax(np.log(prob) + gumbel, axis=1)
        null.append(cutoff_calibration_error(drawn, prob, reduction=reduction))
    result = cutoff_calibration_test(
        y,
        prob,
        tolerance=0.2,
        method="bootstrap",
        n_bootstrap=1000,
        reduction=reduction,
        random_state=0,
    )
    assert_allclose(result.margin, np.quantile(null, 0.95), rtol=0.1)
    assert result.statistic == cutoff_calibration_error(y, prob, reduction=reduction)


def test_binary_classwise_bootstrap_equals_positive_in_distribution():
    """Check that the classwise null of a binary problem matches the positive one."""
    rng = np.random.RandomState(0)
    y, p = random_binary(rng, 400)
    kwargs = dict(tolerance=0.2, method="bootstrap", n_bootstrap=600, random_state=1)
    classwise = cutoff_calibration_test(y, p, reduction="classwise", **kwargs)
    positive = cutoff_calibration_test(y, p, reduction="positive", **kwargs)
    assert_allclose(classwise.statistic, positive.statistic, rtol=1e-12)
    assert_allclose(classwise.margin, positive.margin, rtol=0.15)


# ---------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------


def test_predictions_exactly_zero_and_one():
    """Check predictions at 0 and 1, right and wrong."""
    assert cutoff_calibration_error([0, 1], [0.0, 1.0]) == 0.0
    assert cutoff_calibration_error([1, 0], [0.0, 1.0]) == 0.5
    assert cutoff_calibration_error([1, 1, 0], [0.0, 0.0, 1.0]) == pytest.approx(2 / 3)


def test_single_sample():
    """Check that one sample gives |y - p|."""
    assert_allclose(cutoff_calibration_error([1], [0.3]), 0.7, rtol=1e-15)
    result = cutoff_calibration_test([1], [0.3], tolerance=0.5)
    assert result.statistic == pytest.approx(0.7) and not result.certified
    result = cutoff_calibration_test(
        [1], [0.3], tolerance=0.5, method="bootstrap", n_bootstrap=50, random_state=0
    )
    assert not result.certified


@pytest.mark.parametrize("label", [0, 1])
def test_one_class_present(label):
    """Check that all-negative or all-positive data have error |mean(y - p)|."""
    p = np.array([0.1, 0.2, 0.2, 0.7])
    expected = abs(np.mean(label - p))
    assert_allclose(cutoff_calibration_error([label] * 4, p), expected, rtol=1e-12)


def test_all_weight_on_one_point():
    """Check that zero-weight rows are ignored when one row has all the weight."""
    got = cutoff_calibration_error(
        [1, 0, 1, 0], [0.1, 0.4, 0.8, 0.9], sample_weight=[0, 0, 2.5, 0]
    )
    assert_allclose(got, 0.2, rtol=1e-12)
    result = cutoff_calibration_test(
        [1, 0, 1, 0], [0.1, 0.4, 0.8, 0.9], sample_weight=[0, 0, 2.5, 0], tolerance=1
    )
    assert result.n_effective == 1.0


def test_ties_are_all_in_or_all_out():
    """Check that an interval cannot split identical predictions."""
    # Splitting the tie at 0.5 would isolate the residual +0.5 (error 0.25).
    assert cutoff_calibration_error([1, 0], [0.5, 0.5]) == 0.0
    assert cutoff_calibration_error([1, 0, 1], [0.5, 0.5, 0.9]) == pytest.approx(
        0.1 / 3
    )


# ---------------------------------------------------------------------------
# Invariances (hypothesis)
# ---------------------------------------------------------------------------


@given(data=_binary_data(), tolerance=st.floats(0.0, 1.5))
def test_bound_decision_property(data, tolerance):
    """Check that the bound certifies exactly when statistic <= tolerance - margin."""
    y, p = data
    result = cutoff_calibration_test(y, p, tolerance=tolerance)
    margin = (20 + math.sqrt(2 * math.log(20))) / math.sqrt(len(y))
    assert result.certified is (cutoff_calibration_error(y, p) <= tolerance - margin)


# ---------------------------------------------------------------------------
# Parameter checks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tolerance": -0.1}, "'tolerance' parameter"),
        ({"tolerance": 0.1, "alpha": 1.0}, "'alpha' parameter"),
        ({"tolerance": 0.1, "alpha": 0}, "'alpha' parameter"),
        ({"tolerance": 0.1, "method": "paper"}, "'method' parameter"),
        ({"tolerance": 0.1, "n_bootstrap": 0}, "'n_bootstrap' parameter"),
        ({"tolerance": 0.1, "random_state": "seed"}, "'random_state' parameter"),
    ],
)
def test_invalid_test_parameters(kwargs, match):
    """Check that invalid hyper-parameters of the test are rejected."""
    with pytest.raises(ValueError, match=match):
        cutoff_calibration_test([0, 1], [0.2, 0.7], **kwargs)


def test_tolerance_is_required():
    """Check that the tolerance has no default."""
    with pytest.raises(TypeError, match="tolerance"):
        cutoff_calibration_test([0, 1], [0.2, 0.7])


def test_return_per_class_needs_classwise():
    """Check that return_per_class is refused without the classwise reduction."""
    with pytest.raises(ValueError, match="return_per_class"):
        cutoff_calibration_error([0, 1], [0.2, 0.7], return_per_class=True)


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------


def test_real_data_top_label(real_multiclass):
    """Check the top-label error of real classifiers against the brute force."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    confidence = prob64.max(axis=1)
    correct = prob64.argmax(axis=1) == labels
    full = cutoff_calibration_error(labels, prob64)
    # An independent O(n) evaluation of the formula on the full data ...
    order = np.lexsort((correct, confidence))
    residual = correct[order] - confidence[order]
    last = np.r_[confidence[order][1:] != confidence[order][:-1], True]
    prefix = np.r_[0.0, np.cumsum(residual)[last]] / len(labels)
    assert_allclose(full, prefix.max() - prefix.min(), rtol=1e-10)
    # ... and the brute force on a subsample.
    rows = np.random.RandomState(0).choice(len(labels), size=150, replace=False)
    assert_allclose(
        cutoff_calibration_error(
            labels[rows], prob64[rows], labels=np.arange(probs.shape[1])
        ),
        brute_force_cutoff(correct[rows], confidence[rows]),
        rtol=1e-10,
    )
    # Overconfident models: the largest residual is negative, at the top.
    assert prefix.argmin() > prefix.argmax()
    assert full >= abs(np.mean(correct - confidence))


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1e170, 1e300])
def test_extreme_weight_scales(scale):
    """Check that weights of extreme magnitude neither underflow nor overflow."""
    rng = np.random.RandomState(0)
    y, p = random_binary(rng, 200)
    w = rng.uniform(0.5, 2, size=200)
    assert_allclose(
        cutoff_calibration_error(y, p, sample_weight=w * scale),
        cutoff_calibration_error(y, p, sample_weight=w),
        rtol=1e-12,
    )
