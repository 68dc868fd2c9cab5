"""Tests of kernel-smoothing recalibration (skcal/calibration/_kernel_smoothing.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, logit
from scipy.stats import kstest, norm
from sklearn.utils.estimator_checks import (
    check_methods_sample_order_invariance,
    check_methods_subset_invariance,
)

from skcal._param_validation import InvalidParameterError
from skcal.calibration import KernelSmoothingRecalibrator
from skcal.metrics import smooth_ece, smooth_reliability_curve
from skcal.metrics._smooth_ece import reflected_gaussian_noise

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

# ---------------------------------------------------------------------------
# Reference: the reflected Gaussian kernel summed over its images, and the
# Nadaraya-Watson regression it defines; Gauss-Legendre quadrature on [0, 1].
# ---------------------------------------------------------------------------


def ref_kernel(t, x, sigma):
    """K(t_a, x_b) = sum_k phi(t - x - 2k) + phi(t + x - 2k), shape (len(t), len(x))."""
    t = np.asarray(t, dtype=np.float64)[:, None]
    x = np.asarray(x, dtype=np.float64)[None, :]
    n_images = math.ceil(6 * sigma) + 2
    scale = 1.0 / (sigma * math.sqrt(2.0 * math.pi))
    out = np.zeros((t.shape[0], x.shape[1]))
    for k in range(-n_images, n_images + 1):
        for sign in (-1.0, 1.0):
            out += scale * np.exp(-0.5 * ((t + sign * x - 2 * k) / sigma) ** 2)
    return out


def ref_regression(t, p, y, w, sigma):
    """Density of the predictions and kernel regression of the outcomes at t."""
    w = np.ones_like(p) if w is None else w
    kernel = ref_kernel(t, p, sigma)
    return kernel @ w / w.sum(), kernel @ (w * y) / (kernel @ w)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)


def quadrature(n_panels=2000):
    """Gauss-Legendre nodes and weights on [0, 1], 8 per panel."""
    edges = np.linspace(0.0, 1.0, n_panels + 1)
    half = 0.5 * np.diff(edges)[:, None]
    nodes = half * _GL_NODES + 0.5 * (edges[:-1] + edges[1:])[:, None]
    return nodes.ravel(), (half * _GL_WEIGHTS).ravel()


def _miscalibrated(rng, n):
    """Uniform predictions with outcomes of probability p**2 (overconfident)."""
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**2).astype(int)
    y[:2] = [0, 1]
    return p, y


# ---------------------------------------------------------------------------
# The deterministic map: the smooth reliability curve
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", ["auto", 0.01, 0.05, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_curve_is_the_kernel_regression(global_random_seed, sigma, weighted):
    """Check predict_proba against the exact Nadaraya-Watson curve, within 1e-6.

    Predictions of exactly 0 and 1 are included: their kernels are folded
    at the boundary with their full weight.
    """
    rng = np.random.RandomState(global_random_seed)
    p, y = _miscalibrated(rng, 300)
    p[2:12] = [0.0] * 5 + [1.0] * 5
    w = rng.uniform(0.1, 3.0, size=300) if weighted else None
    recal = KernelSmoothingRecalibrator(sigma=sigma).fit(p, y, sample_weight=w)
    used = recal.sigma_[0]
    if sigma == "auto":
        assert used == smooth_ece(y, p, sample_weight=w, return_sigma=True)[1]
    else:
        assert used == sigma
    t = np.concatenate([rng.uniform(size=500), [0.0, 1.0], p[:50]])
    _, expected = ref_regression(t, p, y, w, used)
    assert_allclose(recal.predict_proba(t)[:, 1], expected, rtol=0, atol=1e-6)
    assert_allclose(recal.calibrators_[0](t), expected, rtol=0, atol=1e-6)
    grid = recal.curve_grid_[0]
    assert_allclose(grid, np.linspace(0.0, 1.0, grid.shape[0]))
    assert grid.shape[0] - 1 >= 512 / used


def test_curve_equals_smooth_reliability_curve(global_random_seed):
    """Check the fitted curve against smooth_reliability_curve on its own grid."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _miscalibrated(rng, 1000)
    w = rng.uniform(0.5, 2.0, size=1000)
    recal = KernelSmoothingRecalibrator().fit(p, y, sample_weight=w)
    curve = smooth_reliability_curve(y, p, sample_weight=w, n_points=401)
    assert recal.sigma_[0] == curve.sigma
    # The same code on a four times finer grid: both within 1.5e-6.
    assert_allclose(
        recal.predict_proba(curve.grid)[:, 1], curve.calibration, rtol=0, atol=3e-6
    )


def _relplot_curve(kernel_class, p, y, t, sigma, eval_points):
    """relplot's kernel regression at t, on a grid of eval_points // 2 + 1 nodes."""
    kernel = kernel_class(sigma)
    outcome = kernel.apply(p, y.astype(float), t, eval_points=eval_points)
    weight = kernel.apply(p, np.ones_like(p), t, eval_points=eval_points)
    return outcome / (weight + 1e-4)


def _relplot_data(rng):
    """Predictions in [0.02, 0.98], mildly overconfident: sigma* about 0.03-0.07."""
    p = rng.uniform(0.02, 0.98, size=1000)
    y = (rng.uniform(size=1000) < expit(1.4 * logit(p))).astype(int)
    return p, y


@pytest.mark.parametrize("sigma", ["auto", 0.02, 0.05])
def test_curve_matches_relplot(global_random_seed, sigma):
    """Check the curve against relplot's reflected-Gaussian smoother, within 1e-6.

    relplot (the authors' package) bins onto a grid of 1001 nodes by
    default; on the grid of 20001 nodes used here its own discretisation
    error (and the 1e-4 it adds to the density) is below 1e-6. Predictions
    stay inside [0.02, 0.98], where relplot's single reflection at each end
    counts them fully (it halves the weight of those at 0 and 1).
    """
    relplot_kernels = pytest.importorskip("relplot.kernels")
    rng = np.random.RandomState(global_random_seed)
    p, y = _relplot_data(rng)
    recal = KernelSmoothingRecalibrator(sigma=sigma).fit(p, y)
    used = recal.sigma_[0]
    # relplot's kernel is truncated at a distance of 0.5, ten times 0.05.
    assert 0.015 <= used < 0.08
    t = rng.uniform(size=1000)
    theirs = _relplot_curve(
        relplot_kernels.ReflectedGaussianKernel, p, y, t, used, 40001
    )
    assert_allclose(recal.predict_proba(t)[:, 1], theirs, rtol=0, atol=1e-6)


def test_curve_matches_relplot_defaults(global_random_seed):
    """Check relplot's KernelSmoother with its default grid of 1001 nodes, to 2e-4."""
    relplot = pytest.importorskip("relplot")
    from relplot.estimators import KernelSmoother
    from relplot.kernels import ReflectedGaussianKernel

    rng = np.random.RandomState(global_random_seed)
    p, y = _relplot_data(rng)
    recal = KernelSmoothingRecalibrator().fit(p, y)
    # relplot's bandwidth is a multiple of 1/1024 within 2/1024 of sigma*.
    _, width = relplot.smECE(p, y, return_width=True)
    assert abs(width - recal.sigma_[0]) <= 2 / 1024
    smoother = KernelSmoother(ReflectedGaussianKernel(recal.sigma_[0]))
    t = np.linspace(0.0, 1.0, 200)
    theirs = smoother.fit(p[:, None], y).predict(t[:, None])
    assert_allclose(recal.predict_proba(t)[:, 1], theirs, rtol=0, atol=2e-4)


def test_lowers_smooth_ece_on_miscalibrated_data(global_random_seed):
    """Check that the deterministic map removes most of its data's SmoothECE."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=2000)
    y = (rng.uniform(size=2000) < expit(0.4 * logit(p) + 0.5)).astype(int)
    before = smooth_ece(y, p)
    recal = KernelSmoothingRecalibrator().fit(p, y)
    after = smooth_ece(y, recal.predict_proba(p)[:, 1])
    assert before > 0.1
    assert after < 0.5 * before


@settings(max_examples=15)
@given(
    data=st.lists(
        st.tuples(st.floats(0.0, 1.0), st.booleans(), st.floats(0.1, 3.0)),
        min_size=2,
        max_size=40,
    ),
    sigma=st.sampled_from(["auto", 0.03, 0.3]),
)
def test_mirrored_data_give_the_mirrored_curve(data, sigma):
    """Check that (1 - p, 1 - y) gives t -> 1 - curve(1 - t) (note, claim 24).

    The reflected kernel is symmetric, K(1 - t, 1 - x) = K(t, x), and the
    SmoothECE, hence sigma*, is unchanged by the flip.
    """
    p, y, w = (np.array(column) for column in zip(*data, strict=True))
    y = y.astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    recal = KernelSmoothingRecalibrator(sigma=sigma).fit(p, y, sample_weight=w)
    flipped = KernelSmoothingRecalibrator(sigma=sigma)
    flipped.fit(1.0 - p, 1 - y, sample_weight=w)
    assert_allclose(recal.sigma_, flipped.sigma_, rtol=1e-6)
    t = np.linspace(0.0, 1.0, 101)
    assert_allclose(
        recal.predict_proba(t)[:, 1],
        1.0 - flipped.predict_proba(1.0 - t)[:, 1],
        atol=1e-6,
    )


def test_far_from_the_data_the_nearest_group_decides():
    """Check the curve between two far groups: the nearer group's rate, not NaN."""
    p = np.array([0.1] * 10 + [0.9] * 10)
    y = np.array([0] * 8 + [1] * 2 + [1] * 9 + [0])
    recal = KernelSmoothingRecalibrator(sigma=0.005).fit(p, y)
    assert np.isnan(smooth_reliability_curve(y, p, sigma=0.005).calibration).any()
    out = recal.predict_proba([0.0, 0.1, 0.3, 0.45, 0.55, 0.7, 0.9, 1.0])[:, 1]
    # Far nodes take the value of the last node where the curve is defined,
    # at the edge of the density, within the curve's 1e-7 of the exact ratio
    # (interpolable_curve): 2.3e-8 off in a fresh environment of 2026-11-25
    # (scipy 1.17.1), where 1e-9 had held before.
    assert_allclose(out, [0.2, 0.2, 0.2, 0.2, 0.9, 0.9, 0.9, 0.9], atol=1e-7)


def test_top_label_fits_the_confidence_curve(global_random_seed):
    """Check multiclass="top_label": the curve of (confidence, correctness)."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.full(4, 0.5), size=600)
    y = np.array([rng.choice(4, p=row**2 / (row**2).sum()) for row in proba])
    recal = KernelSmoothingRecalibrator(multiclass="top_label").fit(proba, y)
    confidence, correct = proba.max(axis=1), proba.argmax(axis=1) == y
    binary = KernelSmoothingRecalibrator().fit(confidence, correct)
    assert recal.sigma_[0] == binary.sigma_[0]
    assert_array_equal(recal.curve_values_[0], binary.curve_values_[0])
    out = recal.predict_proba(proba)
    top = np.clip(binary.predict_proba(confidence)[:, 1], 0.25, 1.0)
    assert_allclose(out.max(axis=1), top, rtol=1e-9)
    assert_array_equal(recal.predict(proba), proba.argmax(axis=1))


def test_one_vs_rest_fits_a_curve_per_class(global_random_seed):
    """Check multiclass="ovr": each class's curve is the binary fit of its column."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(3), size=400)
    y = rng.randint(3, size=400)
    recal = KernelSmoothingRecalibrator(sigma=0.1).fit(proba, y)
    assert recal.sigma_.shape == (3,)
    columns = np.column_stack(
        [
            KernelSmoothingRecalibrator(sigma=0.1)
            .fit(proba[:, k], y == k)
            .predict_proba(proba[:, k])[:, 1]
            for k in range(3)
        ]
    )
    expected = columns / columns.sum(axis=1, keepdims=True)
    assert_allclose(recal.predict_proba(proba), expected, rtol=1e-12)


# ---------------------------------------------------------------------------
# The randomized map: reflected noise, then the curve (Theorem 20, A.8)
# ---------------------------------------------------------------------------


def _folded_normal_cdf(s, p, sigma):
    """P(pi_R(p + sigma Z) <= s): the normal mass of the union of [2k - s, 2k + s]."""
    k = np.arange(-5, 6)[:, None] * 2.0
    return (norm.cdf((k + s - p) / sigma) - norm.cdf((k - s - p) / sigma)).sum(axis=0)


@pytest.mark.parametrize("p", [0.0, 0.02, 0.5, 1.0])
@pytest.mark.parametrize("sigma", [0.05, 0.7])
def test_noise_is_drawn_from_the_reflected_kernel(global_random_seed, p, sigma):
    """Check the noisy predictions' law (KS test), against clipping as a control."""
    rng = np.random.RandomState(global_random_seed)
    draws = reflected_gaussian_noise(np.full(50_000, p), sigma, rng)
    assert draws.min() >= 0.0 and draws.max() <= 1.0

    def cdf(s):
        return _folded_normal_cdf(s, p, sigma)

    assert kstest(draws, cdf).pvalue > 1e-4
    # The law's density is the kernel of the measure.
    s = np.linspace(0.01, 0.99, 7)
    h = 1e-6
    density = (cdf(s + h) - cdf(s - h)) / (2 * h)
    assert_allclose(density, ref_kernel(s, [p], sigma)[:, 0], rtol=1e-5, atol=1e-8)
    if p in (0.02, 0.5) and sigma == 0.7:
        # Clipped instead of folded: the test sees it at once.
        clipped = np.clip(p + sigma * rng.standard_normal(50_000), 0.0, 1.0)
        assert kstest(clipped, cdf).pvalue < 1e-10


def _weighted_problem(rng, n=200):
    p, y = _miscalibrated(rng, n)
    return p, y, rng.uniform(0.5, 2.0, size=n)


def _exact_output_law(recal, p, y, w, sigma, fold=True):
    """The law of (kappa, y) on the weighted data, by quadrature over the noise.

    Returns the quadrature's kappa values, their density and the density
    times the outcome rate (for noise of scale sigma, folded or clipped).
    """
    t, q = quadrature()
    kappa = recal.calibrators_[0](t)
    if fold:
        kernel = ref_kernel(t, p, sigma)
    else:
        kernel = norm.pdf(t[:, None] - p[None, :], scale=sigma)
    density = q * (kernel @ w) / w.sum()
    outcome = q * (kernel @ (w * y)) / w.sum()
    if not fold:
        # Clipping puts the noise's mass beyond 0 and 1 on the ends.
        low, high = norm.cdf(-p / sigma), norm.sf((1.0 - p) / sigma)
        kappa = np.concatenate([kappa, recal.calibrators_[0](np.array([0.0, 1.0]))])
        density = np.concatenate([density, [w @ low, w @ high] / w.sum()])
        outcome = np.concatenate([outcome, [w @ (y * low), w @ (y * high)] / w.sum()])
    return kappa, density, outcome


def _binned_gap(kappa, density, outcome, n_bins=20):
    """sum over bins of kappa of |E[(y - kappa) 1{kappa in bin}]|."""
    edges = np.quantile(kappa, np.linspace(0.0, 1.0, n_bins + 1))
    bins = np.clip(np.searchsorted(edges, kappa, side="right") - 1, 0, n_bins - 1)
    gaps = np.bincount(bins, weights=outcome - kappa * density, minlength=n_bins)
    return float(np.abs(gaps).sum())


@pytest.mark.parametrize("sigma", ["auto", 0.05])
def test_randomized_is_perfectly_calibrated_exactly(global_random_seed, sigma):
    """Check E[y - kappa | kappa] = 0 on the fitted data, integrating over the noise.

    By the tower property, E[y | pi_R(p + sigma Z) = s] is the curve at s,
    so the binned calibration error of kappa is 0 up to the curve's error.
    Noise of twice the scale, or clipped instead of folded, is off by far.
    """
    rng = np.random.RandomState(global_random_seed)
    p, y, w = _weighted_problem(rng)
    recal = KernelSmoothingRecalibrator(sigma=sigma, randomized=True)
    recal.fit(p, y, sample_weight=w)
    used = recal.sigma_[0]
    kappa, density, outcome = _exact_output_law(recal, p, y, w, used)
    assert_allclose(density.sum(), 1.0, rtol=1e-10)
    assert _binned_gap(kappa, density, outcome) < 1e-6
    assert abs(np.sum(outcome - kappa * density)) < 1e-6
    wrong = _exact_output_law(recal, p, y, w, 2 * used)
    assert _binned_gap(*wrong) > 1e-2
    clipped = _exact_output_law(recal, p, y, w, used, fold=False)
    assert_allclose(clipped[1].sum(), 1.0, rtol=1e-10)
    assert _binned_gap(*clipped) > 1e-5


def _z_scores(kappa, y, w, n_bins=10):
    """Per bin of kappa: sum of w (y - kappa) over its standard error."""
    edges = np.quantile(kappa, np.linspace(0.0, 1.0, n_bins + 1))
    bins = np.clip(np.searchsorted(edges, kappa, side="right") - 1, 0, n_bins - 1)
    r = w * (y - kappa)
    total = np.bincount(bins, weights=r, minlength=n_bins)
    return total / np.sqrt(np.bincount(bins, weights=r * r, minlength=n_bins))


def test_randomized_is_perfectly_calibrated_monte_carlo(global_random_seed):
    """Check predict_proba's noisy outputs with 2500 draws per row (z-scores < 5).

    The in-sample calibration gaps of each bin have mean 0 exactly: their
    sums over 500 000 draws stay within a few standard errors of 0, while
    noise of twice the scale, or no noise, gives z-scores above 20.
    """
    rng = np.random.RandomState(global_random_seed)
    p, y, w = _weighted_problem(rng)
    recal = KernelSmoothingRecalibrator(randomized=True, random_state=rng)
    recal.fit(p, y, sample_weight=w)
    repeats = 2500
    P, Y, W = np.tile(p, repeats), np.tile(y, repeats), np.tile(w, repeats)
    kappa = recal.predict_proba(P)[:, 1]
    assert np.abs(_z_scores(kappa, Y, W)).max() < 5.0
    sigma = recal.sigma_[0]
    wrong = recal.calibrators_[0](reflected_gaussian_noise(P, 2 * sigma, rng))
    assert np.abs(_z_scores(wrong, Y, W)).max() > 20.0
    deterministic = recal.calibrators_[0](P)
    assert np.abs(_z_scores(deterministic, Y, W)).max() > 20.0


@pytest.mark.parametrize("sigma", ["auto", 0.02, 0.1])
def test_randomized_moves_predictions_by_at_most_the_bound(global_random_seed, sigma):
    """Check E|kappa(p) - p| <= smECE_sigma + 2 sqrt(2/pi) sigma (note section 2.13).

    The paper's section 3 states smECE_sigma + sigma; the construction of
    A.8 bounds it by smECE~_sigma + sqrt(2/pi) sigma, which Lemma 13 bounds
    by the above.
    """
    rng = np.random.RandomState(global_random_seed)
    p, y, w = _weighted_problem(rng)
    recal = KernelSmoothingRecalibrator(sigma=sigma, randomized=True)
    recal.fit(p, y, sample_weight=w)
    used = recal.sigma_[0]
    t, q = quadrature()
    kernel = ref_kernel(t, p, used)
    gap = np.abs(recal.calibrators_[0](t)[:, None] - p[None, :])
    movement = float(w @ ((q[:, None] * kernel * gap).sum(axis=0)) / w.sum())
    error = smooth_ece(y, p, sample_weight=w, sigma=used)
    assert movement <= error + 2 * SQRT_2_OVER_PI * used
    # The noise alone moves a prediction by about sqrt(2/pi) sigma: the
    # bound is not far from the movement.
    assert movement >= 0.5 * SQRT_2_OVER_PI * used


# ---------------------------------------------------------------------------
# Randomness: random_state
# ---------------------------------------------------------------------------


def test_random_state_conventions(global_random_seed):
    """Check the draws: an int repeats them, None and an instance draw afresh."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _miscalibrated(rng, 300)
    X = rng.uniform(size=50)
    seeded = KernelSmoothingRecalibrator(randomized=True, random_state=7).fit(p, y)
    assert_array_equal(seeded.predict_proba(X), seeded.predict_proba(X))
    deterministic = KernelSmoothingRecalibrator(random_state=7).fit(p, y)
    assert np.abs(seeded.predict_proba(X) - deterministic.predict_proba(X)).max() > 1e-3
    assert_array_equal(
        seeded.predict(X), seeded.classes_[seeded.predict_proba(X).argmax(1)]
    )
    assert_array_equal(seeded.transform(X), seeded.predict_proba(X))

    unseeded = KernelSmoothingRecalibrator(randomized=True).fit(p, y)
    assert not np.array_equal(unseeded.predict_proba(X), unseeded.predict_proba(X))

    first = KernelSmoothingRecalibrator(
        randomized=True, random_state=np.random.RandomState(3)
    ).fit(p, y)
    second = KernelSmoothingRecalibrator(
        randomized=True, random_state=np.random.RandomState(3)
    ).fit(p, y)
    calls = [first.predict_proba(X), first.predict_proba(X)]
    assert not np.array_equal(calls[0], calls[1])
    assert_array_equal(calls[0], second.predict_proba(X))
    # random_state does not change the fit.
    assert_array_equal(first.curve_values_[0], deterministic.curve_values_[0])


def test_randomized_fails_the_row_invariance_checks():
    """Check the scikit-learn checks to mark as expected failures for randomized=True.

    A row's noise depends on its position in X, so predicting a subset or
    a permutation of the rows draws other noise for it; the deterministic
    map passes both checks.
    """
    name = "KernelSmoothingRecalibrator"
    for check in (
        check_methods_subset_invariance,
        check_methods_sample_order_invariance,
    ):
        check(name, KernelSmoothingRecalibrator())
        with pytest.raises(AssertionError, match="not invariant"):
            check(name, KernelSmoothingRecalibrator(randomized=True, random_state=0))


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, match",
    [
        ({"sigma": 0.0}, "'sigma' parameter"),
        ({"sigma": 5e-5}, "'sigma' parameter"),
        ({"sigma": "scott"}, "'sigma' parameter"),
        ({"randomized": "yes"}, "'randomized' parameter"),
        ({"random_state": "seed"}, "'random_state' parameter"),
        ({"multiclass": "ovo"}, "'multiclass' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid parameters are refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match=match):
        KernelSmoothingRecalibrator(**params).fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])


def test_smallest_bandwidth_and_calibrated_data():
    """Check sigma=1e-4 and perfectly calibrated data (sigma* at its floor)."""
    p = np.repeat([0.25, 0.5], 8)
    y = np.array([1, 0, 0, 0] * 2 + [1, 0] * 4)
    recal = KernelSmoothingRecalibrator().fit(p, y)
    assert recal.sigma_[0] == 1e-3  # smooth_ece's tolerance, its floor
    assert_allclose(recal.predict_proba([0.25, 0.5])[:, 1], [0.25, 0.5], atol=1e-9)
    tiny = KernelSmoothingRecalibrator(sigma=1e-4).fit(p, y)
    assert_allclose(tiny.predict_proba([0.25, 0.5])[:, 1], [0.25, 0.5], atol=1e-9)
