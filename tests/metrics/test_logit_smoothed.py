"""Tests of the logit-smoothed ECE (LS-ECE).

Claims C1-C27 are those of ``shared/notes/logit_smoothed_ece.md`` section 5;
each test citing one says so in its docstring.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, optimize, stats
from scipy.special import expit, logit

from skcal._param_validation import InvalidParameterError
from skcal.datasets import (
    load_cifar10_lenet,
    load_cifar10_vgg16,
    load_cifar10_wideresnet,
    load_cifar100_wideresnet,
)
from skcal.metrics import expected_calibration_error, logit_smoothed_ece
from skcal.metrics._logit_smoothed import (
    _MAX_LOGIT,
    _ClassSums,
    _integrate_abs,
    _monte_carlo,
    _target_cells,
)
from tests.metrics._reference import ref_views
from tests.metrics._strategies import binary_data as _binary_data

NOISES = ["gaussian", "uniform"]
SQRT_2PI = math.sqrt(2 * math.pi)

# ---------------------------------------------------------------------------
# Slow, independent references
# ---------------------------------------------------------------------------


def _ref_gaussian(h, y, w, sigma):
    """LS-ECE with Gaussian noise by adaptive quadrature of the explicit sums.

    The integrand ``sum_i w_i K(u - h_i) (y_i - rho(u))`` is evaluated with
    the full kernel, its roots are located on a fine grid and refined by
    ``brentq``, and each piece between roots is integrated by ``quad``.
    """
    h, y = np.asarray(h, float), np.asarray(y, float)
    w = np.ones_like(h) if w is None else np.asarray(w, float)
    wy = w * y

    def f(u):
        k = np.exp(-0.5 * ((u - h) / sigma) ** 2)
        return (k @ wy - expit(u) * (k @ w)) / (sigma * SQRT_2PI)

    lo, hi = h.min() - 12 * sigma, h.max() + 12 * sigma
    grid = np.linspace(lo, hi, int((hi - lo) / (min(sigma, 1.0) / 40)) + 2)
    values = np.concatenate(
        [
            (kernel @ wy - expit(chunk) * (kernel @ w))
            for chunk in np.array_split(grid, max(1, len(grid) // 2000))
            for kernel in [np.exp(-0.5 * ((chunk[:, None] - h) / sigma) ** 2)]
        ]
    )
    roots = [
        optimize.brentq(f, grid[i], grid[i + 1], xtol=1e-15)
        for i in np.flatnonzero(values[:-1] * values[1:] < 0)
    ]
    # Pieces between the roots, also cut around every logit so that quad
    # cannot miss a narrow bump; the sign is constant on each piece.
    around = (h[:, None] + sigma * np.array([-8, -4, -2, -1, 0, 1, 2, 4, 8])).ravel()
    cuts = np.unique(np.r_[lo, hi, roots, around[(around > lo) & (around < hi)]])
    total = 0.0
    for a, b in itertools.pairwise(cuts):
        total += abs(integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-11, limit=200)[0])
    return total / w.sum()


def _ref_uniform(h, y, w, sigma):
    """LS-ECE with uniform noise: explicit window sums and ``quad`` per interval."""
    h, y = np.asarray(h, float), np.asarray(y, float)
    w = np.ones_like(h) if w is None else np.asarray(w, float)
    edges = np.unique(np.r_[h - sigma / 2, h + sigma / 2])
    total = 0.0
    for a, b in itertools.pairwise(edges):
        inside = [i for i in range(len(h)) if abs(0.5 * (a + b) - h[i]) < sigma / 2]
        a1 = sum(w[i] * y[i] for i in inside)
        a0 = sum(w[i] * (1 - y[i]) for i in inside)

        def g(u, a1=a1, a0=a0):
            return abs(a1 * (1 - expit(u)) - a0 * expit(u))

        points = None
        if a1 > 0 and a0 > 0 and a < math.log(a1 / a0) < b:
            points = [math.log(a1 / a0)]
        total += integrate.quad(g, a, b, points=points, epsabs=1e-15, epsrel=1e-13)[0]
    return total / (sigma * w.sum())


def _ref(y, p, w, sigma, noise):
    """The reference on probabilities (kept away from 0 and 1 by the callers)."""
    h = logit(np.asarray(p, dtype=float))
    if noise == "gaussian":
        return _ref_gaussian(h, y, w, sigma)
    return _ref_uniform(h, y, w, sigma)


def _authors_gaps(h, y, w, sigma, noise, n_samples, seed):
    """Per-draw gaps of the authors' estimator, reimplemented with errata fixed.

    Rows are drawn with probability proportional to their weight (inverse CDF
    of a uniform draw), then the noise; the Nadaraya-Watson mean uses the
    noise density itself as kernel over all rows (the draw included), with a
    uniform kernel as wide as the sampled noise. The kernel matrix is dense.
    """
    h, y = np.asarray(h, float), np.asarray(y, float)
    w = np.ones_like(h) if w is None else np.asarray(w, float)
    rng = np.random.RandomState(seed)
    cum = np.cumsum(w)
    index = np.searchsorted(cum, rng.random(n_samples) * cum[-1], side="right")
    if noise == "gaussian":
        u = h[index] + sigma * rng.standard_normal(n_samples)
        kernel = np.exp(-0.5 * ((u[:, None] - h) / sigma) ** 2)
    else:
        u = h[index] + sigma * (rng.random(n_samples) - 0.5)
        kernel = (np.abs(u[:, None] - h) <= sigma / 2).astype(float)
    mean = (kernel @ (w * y)) / (kernel @ w)
    return np.abs(mean - expit(u))


def _expected_smoothed_prediction(h, sigma, noise):
    """``E[rho(h + xi)]`` for each logit: exactly (uniform) or by trapezoids.

    The Gaussian expectation is a trapezoidal sum on [-12, 12] with step
    0.006, exact to rounding for this analytic, fast-decaying integrand.
    """
    h = np.asarray(h, float)
    if noise == "uniform":
        softplus = np.logaddexp(0.0, h + sigma / 2) - np.logaddexp(0.0, h - sigma / 2)
        return softplus / sigma
    z = np.linspace(-12, 12, 4001)
    weights = stats.norm.pdf(z) * (z[1] - z[0])
    return expit(h[:, None] + sigma * z) @ weights


def _random_binary(rng, n):
    p = rng.uniform(0.02, 0.98, size=n)
    y = (rng.uniform(size=n) < p**1.4).astype(int)
    return y, p


def _random_multiclass(rng, n, k):
    logits = rng.normal(scale=1.5, size=(n, k))
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in prob])
    return y, prob


def _two_point(a):
    """Definition 3.1 with h = +-a: two atoms of equal mass, labels 0 and 1."""
    return np.array([0, 1]), expit(np.array([-a, a]))


# ---------------------------------------------------------------------------
# Agreement with the references
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("sigma", [0.05, 0.3, 2.0])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 7, 60])
def test_binary_matches_reference(global_random_seed, noise, sigma, weighted, n):
    """Check that the quadrature equals the slow reference on binary data."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, n)
    w = rng.uniform(0.1, 3.0, size=n) if weighted else None
    if weighted and n > 1:
        w[rng.uniform(size=n) < 0.2] = 0.0
        w[0] = 1.0
    got = logit_smoothed_ece(y, p, sample_weight=w, sigma=sigma, noise=noise)
    assert isinstance(got, float)
    assert_allclose(got, _ref(y, p, w, sigma, noise), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_matches_reference(global_random_seed, noise, reduction, weighted):
    """Check that top-label and classwise values equal the reference."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _random_multiclass(rng, 40, 3)
    w = rng.uniform(0.0, 2.0, size=40) if weighted else None
    expected = [_ref(yv, pv, w, 0.2, noise) for yv, pv in ref_views(y, prob, reduction)]
    got = logit_smoothed_ece(
        y, prob, sample_weight=w, sigma=0.2, noise=noise, reduction=reduction
    )
    assert_allclose(got, np.mean(expected), rtol=1e-9, atol=1e-12)
    if reduction == "classwise":
        vector = logit_smoothed_ece(
            y,
            prob,
            sample_weight=w,
            sigma=0.2,
            noise=noise,
            reduction=reduction,
            return_per_class=True,
        )
        assert vector.shape == (3,)
        assert_allclose(vector, expected, rtol=1e-9, atol=1e-12)


def test_sigma_above_one_matches_reference(global_random_seed):
    """Check that large sigma (cells split near u = 0) matches the reference."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 30)
    for sigma in (1.7, 6.0):
        assert_allclose(
            logit_smoothed_ece(y, p, sigma=sigma),
            _ref(y, p, None, sigma, "gaussian"),
            rtol=1e-9,
        )
    # Uniform windows longer than 30 use the long-interval primitive.
    assert_allclose(
        logit_smoothed_ece(y, p, sigma=40.0, noise="uniform"),
        _ref(y, p, None, 40.0, "uniform"),
        rtol=1e-9,
    )


def test_small_sigma_sparse_blocks_match_reference(global_random_seed):
    """Check that a sigma far below the logits' spacing matches the reference."""
    # The occupied blocks are then indexed sparsely.
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 12)
    p[:3] = p[3]  # a tied group, whose level set is shared
    got = logit_smoothed_ece(y, p, sigma=1e-4)
    assert_allclose(got, _ref(y, p, None, 1e-4, "gaussian"), rtol=1e-9)


# ---------------------------------------------------------------------------
# Private machinery
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.1, 1e-4])
def test_kernel_regression_matches_nadaraya_watson(global_random_seed, sigma):
    """Check that the smoothed event rate is the explicit NW formula (C12, §5)."""
    # Eqs. (5.5)/(5.6): E[Y | T = rho(u)] = sum_i K(u - h_i) y_i / sum_i K(u - h_i).
    # sigma=1e-4 exercises the direct sums (sparse logits).
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 50)
    w = rng.uniform(0.5, 2.0, size=50)
    h = logit(p)
    sums = _ClassSums(p, y.astype(np.uint8), w, sigma)
    u = h[rng.randint(50, size=200)] + sigma * rng.uniform(-3, 3, size=200)
    a1, a0 = sums((u / sigma)[:, None])
    kernel = np.exp(-0.5 * ((u[:, None] - h) / sigma) ** 2) * w
    # Far from every logit the sums are tiny: compare them on the weights' scale.
    # (At sigma=1e-4, v = h / sigma ~ 1e4 carries rounding errors ~1e-12.)
    assert_allclose(a1[:, 0], kernel @ y, rtol=1e-9, atol=1e-14)
    assert_allclose(a0[:, 0], kernel @ (1 - y), rtol=1e-9, atol=1e-14)
    near = kernel.sum(1) > 1e-3
    assert near.sum() > 100
    assert_allclose(
        (a1[:, 0] / (a1[:, 0] + a0[:, 0]))[near],
        (kernel @ y / kernel.sum(1))[near],
        rtol=0,
        atol=1e-12,
    )


def test_integration_finds_roots_between_samples():
    """Check that a zero-crossing lobe between two samples is integrated exactly."""
    nodes, weights = np.polynomial.legendre.leggauss(8)

    def func(j, tau):
        # Roots at 0.13 and 0.23, both between the nodes 0.0917 and 0.2627.
        return (tau - 0.18) ** 2 - 0.0025 + 0.0 * j[:, None]

    got = _integrate_abs(
        func, np.array([0]), np.array([-0.5]), np.array([0.5]), nodes, weights
    )

    def primitive(t):
        return (t - 0.18) ** 3 / 3 - 0.0025 * t

    exact = (
        (primitive(0.13) - primitive(-0.5))
        - (primitive(0.23) - primitive(0.13))
        + (primitive(0.5) - primitive(0.23))
    )
    assert_allclose(got, exact, rtol=1e-12)


def test_cells_are_narrow_where_the_sigmoid_varies():
    """Check that cells tile the blocks and are at most 1 wide in u for sigma > 1."""
    sigma = 2.5
    blocks = np.array([-3, 0, 4], dtype=np.int64)
    j, lower, upper = _target_cells(blocks, sigma)
    assert set(np.unique(j).tolist()) == set(range(-12, 14))
    for b in np.unique(j):
        mine = j == b
        assert_allclose(np.sum(upper[mine] - lower[mine]), 1.0, rtol=1e-12)
    u_lower, u_upper = sigma * (j + lower), sigma * (j + upper)
    near = (u_upper > -40) & (u_lower < 40)
    assert np.all(u_upper[near] - u_lower[near] <= 1 + 1e-12)


class _FixedDraws:
    """A stand-in random source that returns given draws."""

    def __init__(self, uniform, normal):
        self.uniform, self.normal = list(uniform), list(normal)

    def random(self, size):
        return np.array([self.uniform.pop(0) for _ in range(size)])

    def standard_normal(self, size):
        return np.array([self.normal.pop(0) for _ in range(size)])


def test_monte_carlo_far_draw_uses_exact_kernel_regression():
    """Check that a draw beyond 9 sigma of every logit gets the exact NW mean."""
    h = np.array([-1.0, -0.9, 0.4, 2.0])
    y = np.array([0, 1, 1, 0], dtype=np.uint8)
    rng = _FixedDraws(uniform=[0.6], normal=[30.0])  # row 2, u = 0.4 + 3
    got = _monte_carlo(y, expit(h), None, 0.1, "gaussian", 1, rng)
    u = 0.4 + 0.1 * 30.0
    log_k = -0.5 * ((u - h) / 0.1) ** 2
    k = np.exp(log_k - log_k.max())
    assert_allclose(got, abs(k @ y / k.sum() - expit(u)), rtol=1e-12)


def test_monte_carlo_uniform_window_of_tiny_weight():
    """Check that a window holding a tiny share of the weight is summed exactly."""
    h = np.array([-3.0, 0.0, 0.02, 3.0])
    y = np.array([1, 0, 1, 0], dtype=np.uint8)
    w = np.array([1.0, 1e-13, 3e-13, 1.0])
    # Row 2 (cumulative weight 1 + 4e-13 > 0.5 W), xi = 0: the window
    # [-0.03, 0.07] holds rows 1 and 2 only, of weights 1e-13 and 3e-13.
    rng = _FixedDraws(uniform=[0.5, 0.5], normal=[])
    got = _monte_carlo(y, expit(h), w, 0.1, "uniform", 1, rng)
    assert_allclose(got, abs(0.75 - expit(0.02)), rtol=1e-12)


# ---------------------------------------------------------------------------
# Monte Carlo: the authors' estimator
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("sigma", [0.1, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_monte_carlo_reproduces_authors_estimator(
    global_random_seed, noise, sigma, weighted
):
    """Check that MC equals the authors' formula on the same draws (§2.7)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 40)
    w = rng.uniform(0.0, 2.0, size=40) if weighted else None
    expected = _authors_gaps(logit(p), y, w, sigma, noise, 3000, global_random_seed)
    got = logit_smoothed_ece(
        y,
        p,
        sample_weight=w,
        sigma=sigma,
        noise=noise,
        method="monte_carlo",
        n_samples=3000,
        random_state=global_random_seed,
    )
    assert_allclose(got, expected.mean(), rtol=1e-10)


@pytest.mark.parametrize("noise", NOISES)
def test_monte_carlo_converges_to_quadrature(noise):
    """Check that |MC(n_t = 1e5) - quadrature| < 3 sd / sqrt(n_t) (C13, §2.7)."""
    rng = np.random.RandomState(0)
    y, p = _random_binary(rng, 200)
    sd = _authors_gaps(logit(p), y, None, 0.1, noise, 5000, 1).std()
    quad = logit_smoothed_ece(y, p, noise=noise)
    mc = logit_smoothed_ece(
        y, p, noise=noise, method="monte_carlo", n_samples=100_000, random_state=0
    )
    assert abs(mc - quad) < 3 * sd / math.sqrt(100_000)


def test_monte_carlo_random_state():
    """Check that random_state fixes the draws and accepts every documented type."""
    rng = np.random.RandomState(3)
    y, p = _random_binary(rng, 30)
    kwargs = dict(method="monte_carlo", n_samples=500)
    first = logit_smoothed_ece(y, p, random_state=7, **kwargs)
    assert first == logit_smoothed_ece(y, p, random_state=7, **kwargs)
    assert first == logit_smoothed_ece(
        y, p, random_state=np.random.RandomState(7), **kwargs
    )
    assert first != logit_smoothed_ece(y, p, random_state=8, **kwargs)
    # As in scikit-learn, a numpy Generator is not a valid random_state.
    with pytest.raises(InvalidParameterError, match="random_state"):
        logit_smoothed_ece(y, p, random_state=np.random.default_rng(7), **kwargs)


def test_monte_carlo_weights_are_draw_probabilities():
    """Check that MC drops zero-weight rows and repeats integer-weighted rows."""
    rng = np.random.RandomState(4)
    y, p = _random_binary(rng, 30)
    counts = rng.randint(0, 4, size=30)
    counts[0] = 1
    kwargs = dict(method="monte_carlo", n_samples=2000, random_state=5)
    kept = counts > 0
    assert logit_smoothed_ece(
        y, p, sample_weight=counts, **kwargs
    ) == logit_smoothed_ece(y[kept], p[kept], sample_weight=counts[kept], **kwargs)
    assert_allclose(
        logit_smoothed_ece(y, p, sample_weight=counts, **kwargs),
        logit_smoothed_ece(np.repeat(y, counts), np.repeat(p, counts), **kwargs),
        rtol=1e-12,
    )


# ---------------------------------------------------------------------------
# Checkable claims of the note (section 5)
# ---------------------------------------------------------------------------


def _section_61_data(seed):
    """§6.1 / §4.1: n = 1000 labels ~ Bernoulli(1/2), logits 1e-3 (y - 1/2)."""
    y = (np.random.default_rng(seed).uniform(size=1000) < 0.5).astype(int)
    return y, expit(1e-3 * (y - 0.5))


def test_synthetic_table_over_50_seeds():
    """Check that the §4.1 table (mean and sd over seeds 0-49) is reproduced."""
    table = {
        1: (0.1751, 0.0006),
        2: (0.0964, 0.0013),
        5: (0.0408, 0.0031),
        10: (0.0221, 0.0058),
        100: (0.0222, 0.0058),
    }
    values = {m: [] for m in table}
    for seed in range(50):
        y, p = _section_61_data(seed)
        for m in table:
            values[m].append(logit_smoothed_ece(y, p, sigma=1 / m))
    for m, (mean, sd) in table.items():
        assert_allclose(np.mean(values[m]), mean, atol=6e-5)
        assert_allclose(np.std(values[m]), sd, atol=6e-5)


def test_no_parity_oscillation_unlike_binned_ece():
    """Check that LS-ECE stays small and smooth in m as binned ECE jumps (C3, C2)."""
    y, p = _section_61_data(0)
    ls = np.array([logit_smoothed_ece(y, p, sigma=1 / m) for m in range(5, 101)])
    assert np.all(ls < 0.06)
    assert np.all(np.abs(np.diff(ls)) < 0.02)
    binned = [expected_calibration_error(y, p, n_bins=m) for m in (10, 11, 12, 13)]
    assert_allclose(binned[::2], 0.499875, atol=1e-9)
    assert np.all(np.abs(np.diff(binned)) > 0.45)


@pytest.mark.parametrize(
    "sigma, expected",
    [
        (1.0, 0.174657),
        (0.5, 0.095544),
        (0.2, 0.038635),
        (0.1, 0.017920),
        (0.05, 0.005981),
        (0.02, 0.005982),
        (0.01, 0.017942),
        (1e-3, 0.191239),
        (5e-4, 0.341199),
        (2e-4, 0.493665),
        (1e-4, 0.499875),
        (1e-5, 0.499875),
    ],
)
def test_population_two_point_distribution(sigma, expected):
    """Check that the population two-point LS-ECE is reproduced (C4, §4.1)."""
    # Definition 3.1 with alpha = 1e-3: the two atoms, with equal weights, are
    # the population itself, so the estimator equals
    # E|sigmoid(2a(a + sZ)/s^2) - sigmoid(a + sZ)| with a = 5e-4.
    a = 5e-4
    y, p = _two_point(a)
    got = logit_smoothed_ece(y, p, sigma=sigma)
    assert_allclose(got, expected, atol=6e-7)

    def gap(z):
        u = a + sigma * z
        return stats.norm.pdf(z) * abs(expit(2 * a * u / sigma**2) - expit(u))

    closed_form = integrate.quad(
        gap, -40, 40, epsabs=1e-14, limit=400, points=[-a / sigma]
    )
    assert_allclose(got, closed_form[0], rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize(
    "a, expected", [(0.0, 0.019914), (1e-5, 0.019874), (1e-4, 0.019515)]
)
def test_continuous_in_the_logits(a, expected):
    """Check that LS-ECE moves smoothly where ECE jumps from 0 to 1/2 (C11, C7)."""
    y, p = _two_point(a)
    assert_allclose(logit_smoothed_ece(y, p, sigma=0.1), expected, atol=6e-7)
    binned = expected_calibration_error(y, p, n_bins=2)
    # Two bins split the atoms as soon as a > 0: ECE jumps to 1/2 - a/4.
    assert binned == (0.0 if a == 0 else pytest.approx(1 - expit(a), abs=1e-12))


def test_small_logit_perturbation_changes_little(global_random_seed):
    """Check that moving every logit by at most 1e-6 moves LS-ECE by < 1e-4 (C11)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 300)
    moved = expit(logit(p) + rng.uniform(-1e-6, 1e-6, size=300))
    for noise in NOISES:
        assert (
            abs(
                logit_smoothed_ece(y, moved, noise=noise)
                - logit_smoothed_ece(y, p, noise=noise)
            )
            < 1e-4
        )


def test_estimation_error_shrinks_like_inverse_root_n_sigma():
    """Check that the error falls like 1/sqrt(n sigma), ~10x from n=1e3 to 1e5 (C14)."""
    # Calibrated data, h ~ N(0, 2^2), sigma = 0.1; the population value is an
    # integral over u of |E[rho(h) | h + xi = u] - rho(u)|.
    sigma, var = 0.1, 4.0
    nodes, node_weights = np.polynomial.hermite_e.hermegauss(60)
    node_weights = node_weights / node_weights.sum()

    def integrand(u):
        mean = u * var / (var + sigma**2)
        sd = math.sqrt(var * sigma**2 / (var + sigma**2))
        rate = node_weights @ expit(mean + sd * nodes)
        return stats.norm.pdf(u, scale=math.sqrt(var + sigma**2)) * abs(rate - expit(u))

    population = integrate.quad(integrand, -np.inf, np.inf, epsabs=1e-13, limit=200)[0]

    def rms_error(n, repeats):
        errors = []
        for seed in range(repeats):
            rng = np.random.default_rng(seed)
            h = rng.normal(0, 2, n)
            y = (rng.uniform(size=n) < expit(h)).astype(int)
            errors.append(logit_smoothed_ece(y, expit(h), sigma=sigma) - population)
        return math.sqrt(np.mean(np.square(errors)))

    ratio = rms_error(1000, 20) / rms_error(100_000, 4)
    assert 5 < ratio < 20


@pytest.mark.parametrize("beta, true_ece", [(0.5, 0.096176), (2.0, 0.101762)])
def test_consistent_for_the_ece_with_shrinking_sigma(beta, true_ece):
    """Check that LS-ECE with sigma = n^(-1/3) is near the true ECE (C15)."""

    def gap(h):
        return stats.norm.pdf(h, scale=1.5) * abs(expit(beta * h) - expit(h))

    assert_allclose(integrate.quad(gap, -np.inf, np.inf)[0], true_ece, atol=1e-6)
    n = 20_000
    rng = np.random.default_rng(0)
    h = rng.normal(0, 1.5, n)
    y = (rng.uniform(size=n) < expit(beta * h)).astype(int)
    assert abs(logit_smoothed_ece(y, expit(h), sigma=n ** (-1 / 3)) - true_ece) < 0.01


@pytest.mark.parametrize("method", ["quadrature", "monte_carlo"])
def test_top_label_is_binary_on_confidence_and_correctness(global_random_seed, method):
    """Check that top-label equals binary on (max p, argmax correct) (C16)."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _random_multiclass(rng, 80, 4)
    correct = (prob.argmax(axis=1) == y).astype(int)
    kwargs = dict(method=method, n_samples=1000, random_state=0)
    assert logit_smoothed_ece(y, prob, **kwargs) == logit_smoothed_ece(
        correct, prob.max(axis=1), **kwargs
    )


@pytest.mark.parametrize("noise", NOISES)
def test_predictions_exactly_zero_and_one(noise):
    """Check that 0 and 1 give finite values equal to clipping at 1e-6 (C17)."""
    y = [0, 1, 1, 0, 1]
    p = np.array([0.0, 1.0, 0.7, 1.0, 0.0])
    got = logit_smoothed_ece(y, p, noise=noise)
    assert np.isfinite(got)
    clipped = np.clip(p, 1e-6, 1 - 1e-6)
    assert_allclose(got, logit_smoothed_ece(y, clipped, noise=noise), rtol=1e-9)
    beyond = np.where(p == 0, 1e-9, np.where(p == 1, 1 - 1e-9, p))
    assert got == logit_smoothed_ece(y, beyond, noise=noise)
    mc = logit_smoothed_ece(y, p, noise=noise, method="monte_carlo", random_state=0)
    assert np.isfinite(mc)


def test_clipping_is_symmetric():
    """Check that 0 and 1 get opposite logits, of size logit(1 - 1e-6)."""
    assert_allclose(_MAX_LOGIT, logit(1 - 1e-6), rtol=1e-10)
    assert logit_smoothed_ece([1, 0], [0.0, 1.0]) == logit_smoothed_ece(
        [0, 1], [1.0, 0.0]
    )


@pytest.mark.parametrize(
    "y, prob_one, values",
    [
        ([0, 1], 0.5, {0.01: 0.0019947, 0.1: 0.019914, 0.5: 0.095943, 1: 0.174857}),
        ([0, 1], 0.5, {2: 0.277990, 10: 0.445392}),
        ([1, 0, 0, 0, 0], 0.2, {0.1: 0.012768, 0.5: 0.063877, 1: 0.125783}),
        ([0, 1], 0.7, {0.01: 0.199996, 0.1: 0.199582, 1: 0.219784}),
    ],
)
def test_constant_logits_closed_form(y, prob_one, values):
    """Check that constant predictions give E_Z |ybar - rho(c + sigma Z)| (C20)."""
    # Quadrature to 1e-6 (the printed digits); Monte Carlo within 0.005 at
    # n_samples = 1e4. ``prob_one`` is the constant prediction.
    p = np.full(len(y), prob_one)
    for sigma, expected in values.items():
        assert_allclose(logit_smoothed_ece(y, p, sigma=sigma), expected, atol=6e-7)
        mc = logit_smoothed_ece(y, p, sigma=sigma, method="monte_carlo", random_state=0)
        assert abs(mc - expected) < 0.005


def test_small_sigma_tends_to_level_set_ece():
    """Check that LS-ECE tends to the level-set ECE as sigma -> 0 (C21)."""
    h = np.array([-1.0, 0.0, 0.5, 2.0])
    counts = [30, 50, 20, 40]
    positives = [20, 10, 15, 10]
    y = np.concatenate(
        [
            np.r_[np.ones(k), np.zeros(c - k)]
            for c, k in zip(counts, positives, strict=True)
        ]
    ).astype(int)
    p = expit(np.repeat(h, counts))
    level_set = sum(
        c * abs(k / c - expit(v)) for v, c, k in zip(h, counts, positives, strict=True)
    ) / sum(counts)
    assert_allclose(level_set, 0.390818, atol=6e-7)
    assert_allclose(logit_smoothed_ece(y, p, sigma=1e-2), 0.390816, atol=6e-7)
    assert_allclose(logit_smoothed_ece(y, p, sigma=1e-3), level_set, atol=6e-7)


def test_large_sigma_tends_to_one_half():
    """Check that LS-ECE is about 0.49 at sigma = 100 on calibrated data (C22)."""
    rng = np.random.default_rng(0)
    h = rng.normal(0, 2, 10_000)
    y = (rng.uniform(size=10_000) < expit(h)).astype(int)
    assert abs(logit_smoothed_ece(y, expit(h), sigma=100) - 0.490) < 0.003


@pytest.mark.parametrize("sigma", [0.1, 0.3, 1.0])
def test_calibrated_predictor_bias_is_of_order_sigma(sigma):
    """Check that 0 < LS-ECE <= 0.2 sigma (uniform sigma/16) + 3/sqrt(n sigma), C23."""
    n = 100_000
    rng = np.random.default_rng(1)
    h = rng.normal(0, 2, n)
    y = (rng.uniform(size=n) < expit(h)).astype(int)
    noise_bound = 3 / math.sqrt(n * sigma)
    gaussian = logit_smoothed_ece(y, expit(h), sigma=sigma)
    uniform = logit_smoothed_ece(y, expit(h), sigma=sigma, noise="uniform")
    assert 0 < gaussian <= 0.2 * sigma + noise_bound
    assert 0 < uniform <= sigma / 16 + noise_bound


def _section_45_data(beta=0.7):
    """§4.5: h ~ N(1.5, 1.5^2), y ~ Bernoulli(sigmoid(beta h)), n = 1e4, seed 5."""
    rng = np.random.default_rng(5)
    h = rng.normal(1.5, 1.5, 10_000)
    y = (rng.uniform(size=10_000) < expit(beta * h)).astype(int)
    return y, expit(h)


def test_tracks_binned_ece_on_a_smooth_predictor():
    """Check that the §4.5 values hold and |LS - binned ECE| < 0.01, m >= 10 (C25)."""
    y, p = _section_45_data()
    expected = {1: 0.0984, 10: 0.0608, 20: 0.0613, 50: 0.0637, 100: 0.0692}
    for m, value in expected.items():
        ls = logit_smoothed_ece(y, p, sigma=1 / m)
        assert_allclose(ls, value, atol=6e-5)
        if m >= 10:
            assert abs(ls - expected_calibration_error(y, p, n_bins=m)) < 0.01


def test_model_ranking_agrees_with_binned_ece():
    """Check that LS-ECE and binned ECE rank three models alike for every m (C25)."""
    models = [_section_45_data(beta) for beta in (0.5, 0.7, 0.9)]
    for m in (10, 20, 50, 100):
        ls = [logit_smoothed_ece(y, p, sigma=1 / m) for y, p in models]
        binned = [expected_calibration_error(y, p, n_bins=m) for y, p in models]
        assert np.argsort(ls).tolist() == np.argsort(binned).tolist()


def test_uniform_noise_close_to_gaussian():
    """Check that uniform and Gaussian noise give the §4.5 values (C26)."""
    y, p = _section_45_data()
    expected = {0.1: (0.0608, 0.0628), 0.05: (0.0613, 0.0659)}
    expected.update({0.02: (0.0637, 0.0785), 0.01: (0.0692, 0.0945)})
    for sigma, (gaussian, uniform) in expected.items():
        got_gaussian = logit_smoothed_ece(y, p, sigma=sigma)
        got_uniform = logit_smoothed_ece(y, p, sigma=sigma, noise="uniform")
        assert_allclose([got_gaussian, got_uniform], [gaussian, uniform], atol=6e-5)
        if sigma >= 0.05:
            assert abs(got_gaussian - got_uniform) < 0.01


# ---------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("sigma", [0.1, 40.0])
def test_single_sample(noise, sigma):
    """Check that one sample gives E|y - rho(h + xi)|."""
    # With sigma = 40 a uniform window is one interval longer than 30.
    smoothed = _expected_smoothed_prediction([logit(0.3)], sigma, noise)[0]
    one = logit_smoothed_ece([1], [0.3], sigma=sigma, noise=noise)
    zero = logit_smoothed_ece([0], [0.3], sigma=sigma, noise=noise)
    assert_allclose(one, 1 - smoothed, rtol=1e-10)
    assert_allclose(zero, smoothed, rtol=1e-10)


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("label", [0, 1])
def test_one_class_present(noise, label):
    """Check that with one class the value is the mean distance of E[rho(h + xi)]."""
    p = np.array([0.1, 0.35, 0.8, 0.95])
    smoothed = _expected_smoothed_prediction(logit(p), 0.3, noise)
    got = logit_smoothed_ece([label] * 4, p, sigma=0.3, noise=noise)
    assert_allclose(got, np.mean(np.abs(label - smoothed)), rtol=1e-10)


@pytest.mark.parametrize("noise", NOISES)
def test_all_weight_on_one_point(noise):
    """Check that zero-weight rows vanish when one row holds all the weight."""
    p, y = [0.1, 0.4, 0.8, 0.9], [1, 0, 1, 0]
    got = logit_smoothed_ece(y, p, sample_weight=[0, 0, 2.5, 0], noise=noise)
    assert_allclose(got, logit_smoothed_ece([1], [0.8], noise=noise), rtol=1e-12)
    # Weights below the rounding of the others change nothing either.
    tiny = logit_smoothed_ece(y, p, sample_weight=[1e-300, 0, 2.5, 1e-300], noise=noise)
    assert_allclose(tiny, got, rtol=1e-12)


@pytest.mark.parametrize("noise", NOISES)
def test_tied_predictions(noise):
    """Check that tied predictions act through their mean label."""
    y, p = [1, 0, 1, 1], [0.6] * 4
    expected = integrate.quad(
        lambda z: stats.norm.pdf(z) * abs(0.75 - expit(logit(0.6) + 0.1 * z)),
        -40,
        40,
        points=[(logit(0.75) - logit(0.6)) / 0.1],
        epsabs=1e-14,
    )[0]
    if noise == "uniform":
        expected = _ref_uniform([logit(0.6)], [0.75], None, 0.1)
    assert_allclose(logit_smoothed_ece(y, p, noise=noise), expected, rtol=1e-10)


def test_parameter_validation():
    """Check that invalid sigma, noise, method and n_samples are rejected."""
    y, p = [0, 1], [0.2, 0.7]
    for kwargs in (
        dict(sigma=0.0),
        dict(sigma=-1.0),
        dict(sigma=1e-11),
        dict(sigma=1e11),
        dict(noise="laplace"),
        dict(method="exact"),
        dict(n_samples=0),
        dict(random_state="seed"),
    ):
        name = next(iter(kwargs))
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
            logit_smoothed_ece(y, p, **kwargs)


def test_classwise_vector_and_mean():
    """Check that classwise is the mean of the per-class vector, each class binary."""
    rng = np.random.RandomState(0)
    y, prob = _random_multiclass(rng, 60, 4)
    vector = logit_smoothed_ece(y, prob, reduction="classwise", return_per_class=True)
    assert vector.shape == (4,)
    assert_allclose(logit_smoothed_ece(y, prob, reduction="classwise"), vector.mean())
    for k in range(4):
        assert_allclose(vector[k], logit_smoothed_ece(y == k, prob[:, k]), rtol=1e-12)


# ---------------------------------------------------------------------------
# Invariances (hypothesis)
# ---------------------------------------------------------------------------

_options = st.fixed_dictionaries(
    {"sigma": st.sampled_from([0.1, 0.5, 2.0]), "noise": st.sampled_from(NOISES)}
)


@given(data=_binary_data(), options=_options)
def test_bounds_and_jensen_lower_bound(data, options):
    """Check that 0 <= LS-ECE <= 1 and LS >= |E[Y] - E[rho(h + xi)]| (C18, C19)."""
    y, p = data
    value = logit_smoothed_ece(y, p, **options)
    assert 0.0 <= value <= 1.0 + 1e-12
    h = np.clip(logit(p), -_MAX_LOGIT, _MAX_LOGIT)
    smoothed = _expected_smoothed_prediction(h, options["sigma"], options["noise"])
    assert value >= abs(y.mean() - smoothed.mean()) - 1e-9


@given(data=_binary_data(), options=_options)
def test_two_columns_equal_one_column(data, options):
    """Check that a binary (n, 2) input equals its positive column."""
    y, p = data
    two = np.column_stack([1 - p, p])
    assert logit_smoothed_ece(y, two, **options) == logit_smoothed_ece(y, p, **options)


@given(data=_binary_data(), options=_options)
def test_relabelling_with_pos_label(data, options):
    """Check that string labels with pos_label give the value of 0/1 labels."""
    y, p = data
    names = np.where(y == 1, "spam", "ham")
    assert logit_smoothed_ece(
        names, p, pos_label="spam", **options
    ) == logit_smoothed_ece(y, p, **options)


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------

# Top-label LS-ECE (sigma=0.1, Gaussian, quadrature) of the full files,
# float64 input; recorded from this implementation, whose agreement with the
# reference is checked on subsamples below.
REAL_TOP_LABEL = {
    load_cifar10_vgg16: 0.03995026219501874,
    load_cifar10_wideresnet: 0.05370162686223266,
    load_cifar10_lenet: 0.10782115310270328,
    load_cifar100_wideresnet: 0.057572841094508304,
}


@pytest.mark.parametrize("loader", list(REAL_TOP_LABEL), ids=lambda f: f.__name__)
def test_real_data_recorded_values(loader):
    """Check that the recorded full-data top-label values are reproduced."""
    data = loader()
    probs, labels = data.probabilities, data.target
    assert_allclose(
        logit_smoothed_ece(labels, probs), REAL_TOP_LABEL[loader], rtol=1e-9
    )
    assert logit_smoothed_ece(labels, probs) == logit_smoothed_ece(
        labels, probs.astype(np.float64)
    )


def test_real_data_top_label(real_multiclass):
    """Check that real top-label values match the reference, MC and binned ECE."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    confidence = prob64.max(axis=1)
    correct = (prob64.argmax(axis=1) == labels).astype(int)
    rows = np.random.RandomState(0).choice(len(labels), size=300, replace=False)
    sub = logit_smoothed_ece(
        labels[rows], probs[rows], labels=np.arange(probs.shape[1])
    )
    expected = _ref_gaussian(
        np.clip(logit(confidence[rows]), -_MAX_LOGIT, _MAX_LOGIT),
        correct[rows],
        None,
        0.1,
    )
    assert_allclose(sub, expected, rtol=1e-9)

    full = logit_smoothed_ece(labels, probs)
    assert full == logit_smoothed_ece(correct, confidence)
    mc = logit_smoothed_ece(labels, probs, method="monte_carlo", random_state=0)
    assert abs(mc - full) < 0.004
    assert (
        abs(
            logit_smoothed_ece(labels, probs, sigma=1 / 15)
            - expected_calibration_error(labels, probs)
        )
        < 0.005
    )


@pytest.mark.parametrize("scale", [1e-300, 1e-250, 1e-100, 1e100, 1e300])
def test_extreme_weight_scales(scale):
    """Check that weights of extreme magnitude give the value of unit-scale weights.

    Regression test: products of tiny kernel sums underflowed and hid roots.
    """
    rng = np.random.RandomState(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p**1.3).astype(int)
    w = rng.uniform(0.5, 2.0, size=300)
    assert_allclose(
        logit_smoothed_ece(y, p, sample_weight=w * scale),
        logit_smoothed_ece(y, p, sample_weight=w),
        rtol=1e-9,
    )
