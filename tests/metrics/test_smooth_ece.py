"""Tests of SmoothECE and the smooth reliability curve."""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import brentq, linprog

from skcal._param_validation import InvalidParameterError
from skcal._utils._bootstrap import Chunk, Draws, _batch_replicates, seed_of
from skcal._utils._grid import CHANNELS, linear_binning
from skcal.metrics import smooth_ece, smooth_reliability_curve
from skcal.metrics._smooth_ece import (
    _abs_integral,
    _n_intervals,
    _ReflectedGaussianSmoother,
    smooth_ece_replicates,
)
from tests.metrics._reference import plugin_ece, ref_views
from tests.metrics._strategies import binary_data as _binary_data

# The discretisation error bound documented in the Notes of smooth_ece.
DISCRETISATION_ATOL = 1.5e-5

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


# ---------------------------------------------------------------------------
# Brute-force reference: the definition, summed over kernel images and
# integrated by Gauss-Legendre quadrature between the sign changes.
# ---------------------------------------------------------------------------


def ref_kernel(t, x, sigma):
    """The reflected Gaussian kernel K(t_a, x_b), shape (len(t), len(x)).

    The sum over k of phi(t - x - 2k) + phi(t + x - 2k): at x = 0 or 1 both
    families of images are counted, so every K(., x) has mass 1 on [0, 1].
    """
    t = np.asarray(t, dtype=np.float64)[:, None]
    x = np.asarray(x, dtype=np.float64)[None, :]
    n_images = math.ceil(6 * sigma) + 2
    norm = 1.0 / (sigma * math.sqrt(2.0 * math.pi))
    out = np.zeros((t.shape[0], x.shape[1]))
    for k in range(-n_images, n_images + 1):
        for sign in (-1.0, 1.0):
            ends = [t.min() + sign * x.min(), t.max() + sign * x.max()]
            if min(ends) - 2 * k > 40 * sigma or max(ends) - 2 * k < -40 * sigma:
                continue  # below 1e-300 everywhere
            d = t + sign * x - 2 * k
            out += norm * np.exp(-0.5 * (d / sigma) ** 2)
    return out


def ref_smoothed(t, p, values, sigma):
    """sum_i values_i K(t, p_i) at every point of t, in chunks."""
    t = np.atleast_1d(np.asarray(t, dtype=np.float64))
    out = np.empty(t.shape[0])
    for start in range(0, t.shape[0], 1024):
        out[start : start + 1024] = (
            ref_kernel(t[start : start + 1024], p, sigma) @ values
        )
    return out


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(10)


def ref_smooth_ece_sigma(y, p, w, sigma):
    """smECE_sigma by quadrature of |sum_i w_i (p_i - y_i) K(t, p_i)| / W."""
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    c = w * (p - y) / w.sum()

    def h(t):
        return ref_smoothed(t, p, c, sigma)

    edges = np.linspace(0.0, 1.0, max(200, math.ceil(8.0 / sigma)) + 1)
    values = h(edges)
    # Roots of h inside panels with a sign change, by vectorised bisection.
    change = np.flatnonzero(values[:-1] * values[1:] < 0)
    lo, hi = edges[change], edges[change + 1]
    lo_sign = np.sign(values[change])
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        same = np.sign(h(mid)) == lo_sign
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
    points = np.unique(np.concatenate([edges, 0.5 * (lo + hi)]))
    a, b = points[:-1], points[1:]
    nodes = (0.5 * (b - a))[:, None] * _GL_NODES + (0.5 * (a + b))[:, None]
    absolute = np.abs(h(nodes.ravel())).reshape(nodes.shape)
    return float(np.sum(0.5 * (b - a) * (absolute @ _GL_WEIGHTS)))


def ref_fixed_point(y, p, w):
    """The root of sigma -> smECE_sigma - sigma of the reference, by Brent."""
    return brentq(lambda s: ref_smooth_ece_sigma(y, p, w, s) - s, 1e-3, 1.0, xtol=1e-8)


def ref_curve(y, p, w, sigma, grid):
    """Reference density of the predictions and regression of the outcomes."""
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    kernel = ref_kernel(grid, p, sigma)
    mass = kernel @ w
    return mass / w.sum(), (kernel @ (w * y)) / mass


def weak_calibration_error(y, p, w=None):
    """wCE: max of E[(p - y) g(p)] over 1-Lipschitz g with values in [-1, 1].

    A linear program on the sorted distinct predictions (Kakade and Foster).
    """
    p = np.asarray(p, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    values, index = np.unique(p, return_inverse=True)
    m = len(values)
    coef = np.bincount(index, weights=w * (p - np.asarray(y)), minlength=m) / w.sum()
    gaps = np.diff(values)
    rows = np.zeros((2 * (m - 1), m))
    for j in range(m - 1):
        rows[2 * j, [j, j + 1]] = [1.0, -1.0]
        rows[2 * j + 1, [j, j + 1]] = [-1.0, 1.0]
    result = linprog(
        -coef,
        A_ub=rows if m > 1 else None,
        b_ub=np.repeat(gaps, 2) if m > 1 else None,
        bounds=[(-1.0, 1.0)] * m,
        method="highs",
    )
    return float(-result.fun)


def diagram_error(curve):
    """The diagram measure: integral of |y_hat(t) - t| times the density."""
    gap = np.abs(curve.calibration - curve.grid) * curve.density
    gap = np.where(np.isnan(gap), 0.0, gap)  # where the density is negligible
    return float(np.trapezoid(gap, curve.grid))


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _skew(x):
    """The synthetic calibration curve of the paper's Fig. 6 (smooth_ece.md §3)."""
    z = 2 * x - 1
    z = z + 0.2 * np.sin(4 * np.pi * z)
    return (z + 1) / 2


def _random_binary(rng, n, endpoints=True):
    """Predictions with some ties and, optionally, some exactly 0 or 1."""
    p = rng.uniform(size=n) ** rng.choice([0.5, 1.0, 2.0])
    if n > 4:
        p[: n // 10] = np.round(p[: n // 10], 1)  # ties
    if endpoints and n > 4:
        p[-2:] = [0.0, 1.0]
    y = (rng.uniform(size=n) < p**1.3).astype(int)
    return y, p


def _random_multiclass(rng, n, k):
    logits = rng.normal(scale=2.0, size=(n, k))
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in prob])
    return y, prob


# ---------------------------------------------------------------------------
# Agreement with the brute-force reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.01, 0.05, 0.3, 2.0])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 13, 150])
def test_fixed_sigma_matches_quadrature(global_random_seed, sigma, weighted, n):
    """Check that smECE_sigma matches quadrature of the definition (error bound)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, n)
    w = rng.uniform(0, 3, size=n) if weighted else None
    if weighted and n > 1:
        w[0] = 0.0
    got = smooth_ece(y, p, sample_weight=w, sigma=sigma)
    assert isinstance(got, float)
    expected = ref_smooth_ece_sigma(y, p, w, sigma)
    assert_allclose(got, expected, atol=DISCRETISATION_ATOL, rtol=0)


def test_small_sigma_matches_quadrature(global_random_seed):
    """Check that bandwidths near the floor, on the finest grid, match quadrature."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 20)
    for sigma in [1e-4, 2e-3]:
        got = smooth_ece(y, p, sigma=sigma)
        expected = ref_smooth_ece_sigma(y, p, None, sigma)
        assert_allclose(got, expected, atol=DISCRETISATION_ATOL, rtol=0)


@pytest.mark.parametrize("weighted", [False, True])
def test_rare_class_grid_is_coarse_and_as_accurate(global_random_seed, weighted):
    """Check the residual's grid of a rare class against its error bound.

    A class rarely predicted and rarely true (one column of a classwise view
    of many classes) has a small mean absolute residual r: its grids have
    128 sqrt(r) intervals per bandwidth (at least 16), not 128, and the
    smECE stays within 0.242 r / (M sigma)**2 < 1.5e-5 of quadrature.
    """
    rng = np.random.RandomState(global_random_seed)
    p = rng.beta(0.3, 30.0, size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    y[rng.randint(300)] = 1  # at least one event
    w = rng.uniform(0.2, 2, size=300) if weighted else None
    mean_abs = np.average(np.abs(p - y), weights=w)
    assert mean_abs < 0.05
    for sigma in [1e-3, 4e-3, 0.03]:
        smoother = _ReflectedGaussianSmoother.from_samples(
            p, y, w, sigma, ("residual",)
        )
        got = float(smoother.error_at(sigma))
        # Binned on the coarsest grid of the ladder with per_sigma / sigma
        # intervals, evaluated on at least as many.
        per_sigma = max(128 * math.sqrt(mean_abs), 16)
        binned = max(smoother._coef)
        assert per_sigma / sigma <= binned < 2 * max(per_sigma / sigma, 256)
        assert binned < _n_intervals(sigma) / 2
        evaluated = _n_intervals(sigma, per_sigma)
        assert per_sigma / sigma <= evaluated <= binned
        expected = ref_smooth_ece_sigma(y, p, w, sigma)
        bound = 0.121 * mean_abs * ((binned * sigma) ** -2 + (evaluated * sigma) ** -2)
        assert abs(got - expected) <= min(bound, DISCRETISATION_ATOL)
        assert got == smooth_ece(y, p, sample_weight=w, sigma=sigma)


def test_rows_are_binned_once_below_the_floor(global_random_seed, monkeypatch):
    """Check that a fixed point near eps bins its many rows once.

    The search's lower bound on the fixed point can fall below eps; no
    bandwidth below eps is ever smoothed, so the grid of eps is the finest
    binned, and it comes from the rows once.
    """
    from skcal.metrics import _smooth_ece

    rng = np.random.RandomState(global_random_seed)
    p = rng.beta(0.3, 30.0, size=40_000)
    y = (rng.uniform(size=p.shape[0]) < p).astype(int)
    calls = []

    def counted(*args):
        calls.append(args[3])
        return linear_binning(*args)

    monkeypatch.setattr(_smooth_ece, "linear_binning", counted)
    value = smooth_ece(y, p, eps=5e-3)
    assert value < 5e-3  # the fixed point is below eps
    assert len(calls) == 1


def test_ceiling_of_a_smoother_of_rows_alone(global_random_seed):
    """Check a smoother built from rows, without their residual total."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 50)
    grid = _n_intervals(1e-3)
    plain = _ReflectedGaussianSmoother(
        None, grid, 50.0, ("residual",), samples=(p, y, None)
    )
    assert_allclose(plain.error_ceiling(), np.abs(p - y).mean(), rtol=1e-8)
    expected = ref_smooth_ece_sigma(y, p, None, 0.05)
    assert_allclose(plain.error_at(0.05), expected, atol=DISCRETISATION_ATOL, rtol=0)


@pytest.mark.parametrize("reduction", ["top_label", "classwise"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_matches_quadrature(global_random_seed, reduction, weighted):
    """Check that top-label and classwise reductions match the reference."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _random_multiclass(rng, 60, 4)
    w = rng.uniform(0, 2, size=60) if weighted else None
    per_class = [
        ref_smooth_ece_sigma(yv, pv, w, 0.05)
        for yv, pv in ref_views(y, prob, reduction)
    ]
    got = smooth_ece(y, prob, sample_weight=w, sigma=0.05, reduction=reduction)
    assert_allclose(got, np.mean(per_class), atol=DISCRETISATION_ATOL, rtol=0)
    if reduction == "classwise":
        vector, sigmas = smooth_ece(
            y,
            prob,
            sample_weight=w,
            sigma=0.05,
            reduction=reduction,
            return_per_class=True,
            return_sigma=True,
        )
        assert vector.shape == sigmas.shape == (4,)
        assert_allclose(vector, per_class, atol=DISCRETISATION_ATOL, rtol=0)
        assert_allclose(sigmas, 0.05)


@pytest.mark.parametrize("eps", [1e-3, 1e-2])
@pytest.mark.parametrize("weighted", [False, True])
def test_fixed_point_matches_quadrature(global_random_seed, eps, weighted):
    """Check that sigma* is within eps of the reference's fixed point."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=80)
    y = (rng.uniform(size=80) < _skew(p)).astype(int)
    w = rng.uniform(0.2, 2, size=80) if weighted else None
    value, sigma = smooth_ece(y, p, sample_weight=w, eps=eps, return_sigma=True)
    assert value == sigma
    expected = ref_fixed_point(y, p, w)
    assert abs(value - expected) <= eps
    # The chord of the final bracket is much closer than the tolerance.
    assert abs(value - expected) <= eps / 10


@given(
    st.lists(
        st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.25, -2.5, 1e-300]),
        min_size=2,
        max_size=12,
    )
)
def test_abs_integral_is_that_of_the_interpolant(nodes):
    """Check the integral of |L| against the interval-by-interval formula.

    Each interval's integral of the absolute linear interpolant is the
    trapezoid unless the ends' product is negative, and (a^2 + b^2) /
    (2 (|a| + |b|)) where it is; signed zeros and ends of zero count as no
    crossing.
    """
    values = np.array(nodes)
    width = 1.0 / (len(nodes) - 1)
    expected = 0.0
    for a, b in itertools.pairwise(values):
        if a * b < 0:
            expected += width * (a * a + b * b) / (2 * (abs(a) + abs(b)))
        else:
            expected += width * (abs(a) + abs(b)) / 2
    assert_allclose(_abs_integral(values), expected, rtol=1e-12, atol=1e-300)
    batch = np.stack([values, -values, 2 * values])
    assert_allclose(_abs_integral(batch), [expected, expected, 2 * expected])


def test_search_from_a_guess_finds_the_bisection_fixed_points(global_random_seed):
    """Check the bootstrap's search from a guess against the bisection.

    A batch holds calibrated data, mild and strong miscalibration, a
    constant wrong prediction (fixed point near 0.5), exact predictions
    (fixed point below eps: smECE_eps, 0, is returned) and the worst ones
    (fixed point 1); from any guess, each fixed point is within eps of the
    reference's, as the bisection's is.
    """
    rng = np.random.RandomState(global_random_seed)
    n, eps, n_intervals = 300, 1e-3, 4096
    p = rng.uniform(size=n)
    datasets = [
        (rng.uniform(size=n) < p, p),
        (rng.uniform(size=n) < _skew(p), p),
        (rng.uniform(size=n) < p**3, p),
        (np.ones(n), np.full(n, 0.5)),
        (np.arange(n) % 2, (np.arange(n) % 2).astype(float)),  # smECE 0
        (np.ones(n), np.zeros(n)),  # smECE 1 at every bandwidth
    ]
    masses = np.stack(
        [
            linear_binning(q, y.astype(np.uint8), None, n_intervals, CHANNELS)
            for y, q in datasets
        ]
    )
    smoother = _ReflectedGaussianSmoother(
        masses, n_intervals, np.full(len(datasets), float(n)), CHANNELS
    )
    bisection = smoother.fixed_point(eps)
    expected = [ref_fixed_point(y.astype(int), q, None) for y, q in datasets[:4]]
    expected += [0.0, 1.0]  # where the reference's root finder has no bracket
    for guess in [1e-3, 0.02, 0.3, 1.0]:
        near = smoother.fixed_point(eps, guess=guess)
        assert_allclose(near, bisection, atol=eps)
        assert_allclose(np.maximum(near, eps), np.maximum(expected, eps), atol=eps)


def test_search_from_a_guess_gives_each_sample_its_own_result(global_random_seed):
    """Check that a batch's search gives each sample what it gets alone.

    The samples of a batch stop after different numbers of evaluations
    (fixed points near and far from the guess, at the floor and at 1); a
    sample that stopped is not moved by the evaluations of the others. (The
    grid is the coarsest, so that no bandwidth of the batch chooses
    another.)
    """
    rng = np.random.RandomState(global_random_seed)
    n, eps, n_intervals = 300, 1e-3, 256
    p = rng.uniform(size=n)
    datasets = [
        (rng.uniform(size=n) < p, p),
        (rng.uniform(size=n) < p**2, p),
        (rng.uniform(size=n) < p**4, p),
        (np.arange(n) % 2, (np.arange(n) % 2).astype(float)),
        (np.ones(n), np.zeros(n)),
    ]
    masses = np.stack(
        [
            linear_binning(q, y.astype(np.uint8), None, n_intervals, ("residual",))
            for y, q in datasets
        ]
    )
    totals = np.full(len(datasets), float(n))
    batch = _ReflectedGaussianSmoother(masses, n_intervals, totals, ("residual",))
    together = batch.fixed_point(eps, guess=0.05)
    for i in range(len(datasets)):
        alone = _ReflectedGaussianSmoother(
            masses[i : i + 1], n_intervals, totals[i : i + 1], ("residual",)
        )
        assert_allclose(
            together[i : i + 1], alone.fixed_point(eps, guess=0.05), rtol=1e-12
        )


# ---------------------------------------------------------------------------
# Grids sized to the bandwidth, and the bisection's shortcuts.
# ---------------------------------------------------------------------------


def _search_datasets(rng, n=400):
    """Data whose fixed points span the search: calibrated, miscalibrated,
    constant and wrong, exact (below the floor), and rare events predicted
    near 0 (a classwise view: every trial above the error's ceiling)."""
    p = rng.uniform(size=n)
    rare = rng.uniform(0.0, 0.004, size=n)
    return {
        "calibrated": ((rng.uniform(size=n) < p).astype(int), p),
        "miscalibrated": ((rng.uniform(size=n) < p**3).astype(int), p),
        "constant": (np.ones(n, dtype=int), np.full(n, 0.5)),
        "exact": (np.arange(n) % 2, (np.arange(n) % 2).astype(float)),
        "rare": ((rng.uniform(size=n) < rare).astype(int), rare),
    }


def _plain_bisection(error_at, eps):
    """The documented bisection, evaluating every trial: the reference."""
    lo, hi, g_lo, g_hi = eps, 1.0, None, None
    while hi - lo > eps:
        mid = 0.5 * (lo + hi)
        g_mid = error_at(mid) - mid
        if g_mid < 0.0:
            hi, g_hi = mid, g_mid
        else:
            lo, g_lo = mid, g_mid
    if g_lo is None:
        error = error_at(lo)
        if error <= lo:
            return error
        g_lo = error - lo
    if g_hi is None:
        g_hi = error_at(hi) - hi
        if g_hi >= 0.0:
            return hi
    return lo + (hi - lo) * g_lo / (g_lo - g_hi)


@pytest.mark.parametrize(
    "name", ["calibrated", "miscalibrated", "constant", "exact", "rare"]
)
@pytest.mark.parametrize("weighted", [False, True])
def test_search_equals_the_plain_bisection(global_random_seed, name, weighted):
    """Check the bisection's shortcuts against one evaluating every trial.

    The reference evaluates every trial on the finest grid; the search skips
    trials above the error's ceiling and sizes its grids to the bandwidths.
    Both take the same steps; the fixed points differ by the binning on
    coarser grids only (well within the documented discretisation bound).
    """
    rng = np.random.RandomState(global_random_seed)
    y, p = _search_datasets(rng)[name]
    w = rng.uniform(0.2, 2.0, size=p.shape[0]) if weighted else None
    eps = 1e-3
    reference = _ReflectedGaussianSmoother.from_samples(p, y, w, eps, ("residual",))
    expected = _plain_bisection(lambda s: float(reference.error_at(s, 0.0)), eps)
    assert_allclose(smooth_ece(y, p, sample_weight=w), expected, atol=1e-6)


def test_search_sizes_its_grids_to_the_bandwidths(global_random_seed):
    """Check that a large fixed point is searched on coarse grids only,
    and that trials above the error's ceiling are not evaluated."""
    rng = np.random.RandomState(global_random_seed)
    data = _search_datasets(rng, n=20000)
    y, p = data["miscalibrated"]  # fixed point about 0.2
    smoother = _ReflectedGaussianSmoother.from_samples(p, y, None, 1e-3, ("residual",))
    assert smoother.fixed_point(1e-3) > 0.1
    # Every grid resolves bandwidths down to about 0.06, not to eps.
    assert max(smoother._coef) <= smoother.n_intervals // 32
    assert max(smoother._masses) <= smoother.n_intervals // 32

    y, p = data["rare"]
    smoother = _ReflectedGaussianSmoother.from_samples(p, y, None, 1e-3, ("residual",))
    trials = []
    evaluate = smoother.error_at
    smoother.error_at = lambda s, resolve=np.inf: (
        trials.append(s) or evaluate(s, resolve)
    )
    smoother.fixed_point(1e-3)
    ceiling = smoother.error_ceiling()
    assert ceiling < 0.01
    # The ten trials above the ceiling are skipped: at most one more, then
    # the end of the bracket.
    assert len(trials) <= 3
    assert all(s <= 2 * ceiling for s in trials)


@pytest.mark.parametrize("weighted", [False, True])
def test_lazy_and_eager_smoothers_agree(global_random_seed, weighted):
    """Check that rows binned onto each grid when needed smooth as masses
    binned once onto the finest grid and halved do, and that the error's
    ceiling bounds both at every bandwidth."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 300)
    w = rng.uniform(0.0, 2.0, size=300) if weighted else None
    n_intervals = 4096
    eager = _ReflectedGaussianSmoother(
        linear_binning(p, y, w, n_intervals, CHANNELS),
        n_intervals,
        300.0 if w is None else w.sum(),
        CHANNELS,
    )
    lazy = _ReflectedGaussianSmoother(
        None, n_intervals, eager.total_weight, CHANNELS, samples=(p, y, w)
    )
    # Each grid first binned (lazy) or halved (eager), then reused.
    sigmas = [0.5, 0.1, 0.03, 0.1, 0.5]
    for sigma in sigmas:
        for channel in CHANNELS:
            assert_allclose(
                lazy.smooth(channel, sigma),
                eager.smooth(channel, sigma),
                rtol=1e-10,
                atol=1e-10,
            )
    for smoother in (eager, lazy):
        for sigma in np.geomspace(0.03, 10.0, 8):
            assert smoother.error_at(sigma) <= smoother.error_ceiling()
    assert eager.error_ceiling() <= lazy.error_ceiling() * (1 + 1e-12)


@pytest.mark.parametrize("sigma", ["auto", 0.02])
@pytest.mark.parametrize("weighted", [False, True])
def test_curve_matches_reference(global_random_seed, sigma, weighted):
    """Check that the density and outcome rate match direct kernel sums."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 200)
    w = rng.uniform(0, 2, size=200) if weighted else None
    curve = smooth_reliability_curve(y, p, sample_weight=w, sigma=sigma, n_points=101)
    assert_allclose(curve.grid, np.linspace(0, 1, 101))
    assert curve.smooth_ece == smooth_ece(y, p, sample_weight=w, sigma=sigma)
    if sigma == "auto":
        assert curve.sigma == curve.smooth_ece
    else:
        assert curve.sigma == sigma
    density, calibration = ref_curve(y, p, w, curve.sigma, curve.grid)
    assert_allclose(curve.density, density, rtol=1e-4, atol=1e-6)
    assert_allclose(curve.calibration, calibration, rtol=0, atol=1e-4)


# ---------------------------------------------------------------------------
# relplot (the authors' package): same numbers where the conventions agree
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.02, 0.05, 0.1])
def test_matches_relplot_away_from_endpoints(global_random_seed, sigma):
    """Check that relplot.smECE_sigma agrees for predictions inside (0, 1)."""
    relplot = pytest.importorskip("relplot")
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.05, 0.95, size=500)
    y = (rng.uniform(size=500) < p**1.3).astype(float)
    expected = relplot.smECE_sigma(p, y, sigma)
    # relplot's grid, Riemann sum and kernel truncation cost it ~0.3 %.
    assert_allclose(smooth_ece(y, p, sigma=sigma), expected, rtol=1e-2)


def test_matches_relplot_fixed_point(global_random_seed):
    """Check that relplot's bandwidth (a multiple of 1/1024) brackets ours."""
    relplot = pytest.importorskip("relplot")
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.05, 0.95, size=500)
    y = (rng.uniform(size=500) < p**1.3).astype(float)
    value, width = relplot.smECE(p, y, return_width=True)
    ours = smooth_ece(y, p)
    assert abs(width - ours) <= 2 / 1024
    assert_allclose(smooth_ece(y, p, sigma=float(width)), value, rtol=1e-2)


def test_relplot_halves_predictions_at_zero_and_one(global_random_seed):
    """Check that relplot counts predictions at 0 or 1 half (the documented gap)."""
    relplot = pytest.importorskip("relplot")
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.05, 0.95, size=400)
    y = (rng.uniform(size=400) < p).astype(float)
    # A saturated classifier: 30 % of the predictions are 1 and 10 % are 0,
    # each wrong one time in five.
    p[:120], y[:120] = 1.0, np.arange(120) < 96
    p[120:160], y[120:160] = 0.0, np.arange(40) < 8
    sigma = 0.05
    theirs = relplot.smECE_sigma(p, y, sigma)
    # relplot equals the exact definition with half weight on those rows ...
    half = np.where((p == 0) | (p == 1), 0.5, 1.0)
    assert_allclose(theirs, ref_smooth_ece_sigma(y, p, half, sigma), rtol=3e-2)
    assert_allclose(
        smooth_ece(y, p, sample_weight=half, sigma=sigma), theirs, rtol=3e-2
    )
    # ... while smooth_ece counts them fully, as the definition does.
    ours = smooth_ece(y, p, sigma=sigma)
    expected = ref_smooth_ece_sigma(y, p, None, sigma)
    assert_allclose(ours, expected, atol=DISCRETISATION_ATOL, rtol=0)
    assert ours > 1.1 * theirs


# ---------------------------------------------------------------------------
# Checkable claims of smooth_ece.md §4
# ---------------------------------------------------------------------------


def test_reference_values_of_the_note():
    """Check that the regression values of smooth_ece.md §4.2 claim 28 hold."""
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < _skew(p)) * 1.0
    table = {
        0.01: (0.111216, 0.110840),
        0.02: (0.087841, 0.087440),
        0.05: (0.054026, 0.055186),
        0.1: (0.034728, 0.039521),
        0.2: (0.027472, 0.047112),
        0.5: (0.026940, 0.172831),
    }
    for sigma, (expected, expected_diagram) in table.items():
        assert_allclose(smooth_ece(y, p, sigma=sigma), expected, atol=1.5e-6)
        curve = smooth_reliability_curve(y, p, sigma=sigma, n_points=20001)
        assert_allclose(diagram_error(curve), expected_diagram, atol=2e-6)
    assert_allclose(smooth_ece(y, p, eps=1e-4), 0.052277, atol=1e-5)
    assert_allclose(smooth_ece(y, p), 0.052277, atol=1e-3)


def test_monotone_in_sigma(global_random_seed):
    """Check that smECE_sigma does not increase with sigma (claim 2, Lemma 2)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 300)
    sigmas = np.geomspace(1e-3, 3.0, 40)
    values = np.array([smooth_ece(y, p, sigma=s) for s in sigmas])
    assert np.all(np.diff(values) <= 2 * DISCRETISATION_ATOL)
    assert values[0] > values[-1]


def test_fixed_point_property(global_random_seed):
    """Check that smECE at sigma* equals sigma* (claim 3, Definition 3)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 500)
    for eps, atol in [(1e-3, 1e-3), (1e-4, 1e-6)]:
        _value, sigma = smooth_ece(y, p, eps=eps, return_sigma=True)
        assert eps < sigma < 1
        assert_allclose(smooth_ece(y, p, sigma=sigma), sigma, atol=atol)


@pytest.mark.parametrize(
    "y, p",
    [
        ([1, 0, 0, 0], [0.25] * 4),
        ([0, 1], [0.5, 0.5]),
        ([0, 1], [0.0, 1.0]),
        ([1, 0, 0, 0, 1, 1, 0, 0], [0.25] * 4 + [0.5] * 4),
    ],
)
def test_zero_on_perfectly_calibrated_data(y, p):
    """Check that calibrated data score 0 at every sigma and as sigma* (claim 4)."""
    for sigma in [1e-4, 0.01, 0.1, 1.0]:
        assert_allclose(smooth_ece(y, p, sigma=sigma), 0.0, atol=1e-12)
    assert_allclose(smooth_ece(y, p), 0.0, atol=1e-12)


def test_below_the_floor_returns_the_error_at_eps(global_random_seed):
    """Check that a fixed point below eps is reported as smECE_eps, within eps."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=20000)
    y = (rng.uniform(size=20000) < p).astype(int)  # calibrated: sigma* ~ 0.01
    value = smooth_ece(y, p, eps=0.05)
    assert value == smooth_ece(y, p, sigma=0.05)
    exact = smooth_ece(y, p, eps=1e-4)
    assert value <= exact <= 0.05


def test_bounded_by_ece_of_distinct_predictions(global_random_seed):
    """Check that smECE_sigma <= ECE <= mean |p - y| (claims 5 and 21)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 200)
    p[:100] = np.round(p[:100], 2)
    w = rng.uniform(0, 2, size=200)
    ece = plugin_ece(y, p, w)
    assert ece <= np.average(np.abs(p - y), weights=w) + 1e-12
    for sigma in [1e-3, 0.01, 0.1, 1.0]:
        assert smooth_ece(y, p, sample_weight=w, sigma=sigma) <= ece + 1e-9
    assert smooth_ece(y, p, sample_weight=w) <= ece + 1e-9


def test_smooth_calibration_in_predictions_and_labels(global_random_seed):
    """Check that the Wasserstein-Lipschitz bounds of claim 6 hold (Lemma 25)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 200)
    moved = np.clip(p + rng.normal(scale=0.01, size=200), 0, 1)
    flipped = y.copy()
    flipped[:5] = 1 - flipped[:5]
    for sigma in [0.01, 0.05, 0.3]:
        base = smooth_ece(y, p, sigma=sigma)
        shift = np.mean(np.abs(moved - p))
        assert abs(smooth_ece(y, moved, sigma=sigma) - base) <= (1 + 1 / sigma) * shift
        # A label flip moves one residual by 1, so the error by at most 1/n.
        assert abs(smooth_ece(flipped, p, sigma=sigma) - base) <= 5 / 200 + 1e-12


def test_weak_calibration_error_bounds(global_random_seed):
    """Check that the wCE bounds of claims 7, 8 and 9 hold (Lemma 23, Thm 7)."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=60)
    y = (rng.uniform(size=60) < _skew(p) ** 2).astype(int)
    wce = weak_calibration_error(y, p)
    star = smooth_ece(y, p, eps=1e-4)
    for sigma in [0.01, 0.05, 0.2]:
        value = smooth_ece(y, p, sigma=sigma)
        # Lemma 23 with the kernel's mean displacement sqrt(2/pi) sigma.
        assert wce <= value + SQRT_2_OVER_PI * sigma + 1e-9
        # Lemma 9, with dCE <= 2 wCE (Theorem 22, corrected form).
        assert value <= (1 + 1 / sigma) * 2 * wce + 1e-9
    assert wce <= (1 + SQRT_2_OVER_PI) * star + 1e-9
    assert star <= 2 * math.sqrt(2 * wce)


@pytest.mark.parametrize("sigma", [0.01, 0.05, 0.2])
def test_diagram_measure_is_close(global_random_seed, sigma):
    """Check that |smECE~ - smECE| <= sqrt(2/pi) sigma (claim 10, Lemma 13)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 300)
    curve = smooth_reliability_curve(y, p, sigma=sigma, n_points=4001)
    assert abs(diagram_error(curve) - curve.smooth_ece) <= SQRT_2_OVER_PI * sigma


@pytest.mark.parametrize("sigma", [0.02, 0.05, 0.1])
def test_footnote_five(sigma):
    """Check that f = 1/2, y ~ Bern(1/2) has smECE 0, smECE~ 0.8 sigma (claim 11)."""
    y, p = [0, 1] * 50, [0.5] * 100
    assert_allclose(smooth_ece(y, p, sigma=sigma), 0.0, atol=1e-12)
    curve = smooth_reliability_curve(y, p, sigma=sigma, n_points=20001)
    near = np.abs(curve.grid - 0.5) <= 5 * sigma
    assert_allclose(curve.calibration[near], 0.5, rtol=1e-10)
    assert_allclose(diagram_error(curve), SQRT_2_OVER_PI * sigma, rtol=1e-4)


def test_curve_is_a_regression_of_outcomes():
    """Check that the curve regresses outcomes: in [0, 1], unlike r_hat + t."""
    y, p = [1, 1, 1, 0], [0.6, 0.7, 0.8, 0.1]
    sigma = 0.05
    curve = smooth_reliability_curve(y, p, sigma=sigma, n_points=101)
    density, calibration = ref_curve(y, p, None, sigma, curve.grid)
    near = ~np.isnan(curve.calibration)
    assert near.sum() > 80
    assert_allclose(curve.calibration[near], calibration[near], atol=1e-4)
    assert np.all((calibration >= 0) & (calibration <= 1))
    # The smoothed residual shifted back leaves [0, 1] near t = 1.
    residual = ref_smoothed(curve.grid, np.array(p), np.array(p) - y, sigma)
    shifted = curve.grid - residual / (density * len(p))
    assert shifted.max() > 1.0


@pytest.mark.parametrize("x0", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("sigma", [0.01, 0.1, 1.0])
def test_kernel_mass_and_spread(x0, sigma):
    """Check that the kernel has mass 1 and mean shift <= 0.798 sigma (claim 13)."""
    curve = smooth_reliability_curve([1], [x0], sigma=sigma, n_points=20001)
    assert_allclose(np.trapezoid(curve.density, curve.grid), 1.0, rtol=1e-6)
    spread = np.trapezoid(np.abs(curve.grid - x0) * curve.density, curve.grid)
    assert spread <= SQRT_2_OVER_PI * sigma * (1 + 1e-6)


def test_uniform_predictions_have_flat_density():
    """Check that uniform predictions get a flat density (claim 13)."""
    p = (np.arange(2000) + 0.5) / 2000
    curve = smooth_reliability_curve(np.zeros(2000), p, sigma=0.05, n_points=101)
    assert_allclose(curve.density, 1.0, rtol=1e-6)


def test_large_sigma_limit_is_the_mean_residual(global_random_seed):
    """Check that smECE >= |mean(p - y)|, equal for a large sigma (claims 14, 20)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 100)
    bias = abs(np.mean(p - y))
    for sigma in [1e-3, 0.1, 0.5]:
        assert smooth_ece(y, p, sigma=sigma) >= bias - 1e-12
    for sigma in [5.0, 1e6, np.inf]:
        assert_allclose(smooth_ece(y, p, sigma=sigma), bias, rtol=1e-9, atol=1e-15)
    assert smooth_ece(y, p) >= bias - 1e-12


@pytest.mark.parametrize("c", [0.0, 0.3, 0.5, 1.0])
def test_constant_predictor(global_random_seed, c):
    """Check that a constant predictor scores |c - mean(y)| (claim 22)."""
    rng = np.random.RandomState(global_random_seed)
    y = rng.randint(2, size=200)
    y[:2] = [0, 1]
    expected = abs(c - y.mean())
    for sigma in [1e-3, 0.05, 1.0]:
        assert_allclose(smooth_ece(y, [c] * 200, sigma=sigma), expected, rtol=1e-9)
    assert_allclose(smooth_ece(y, [c] * 200), expected, rtol=1e-9)


def test_one_sided_residuals(global_random_seed):
    """Check that one-sided residuals give |mean(p - y)| (claim 23)."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=100)
    for sigma in [0.01, "auto"]:
        assert_allclose(smooth_ece(np.zeros(100), p, sigma=sigma), p.mean(), rtol=1e-9)
        assert_allclose(
            smooth_ece(np.ones(100), p, sigma=sigma), 1 - p.mean(), rtol=1e-9
        )


def test_small_sigma_limit_is_the_mean_absolute_residual(global_random_seed):
    """Check that smECE_sigma -> mean |p - y| as sigma -> 0 (claim 26)."""
    rng = np.random.RandomState(global_random_seed)
    p = np.linspace(0.02, 0.98, 25)
    y = rng.randint(2, size=25)
    assert_allclose(smooth_ece(y, p, sigma=1e-3), np.mean(np.abs(p - y)), rtol=1e-9)


def test_calibrated_error_shrinks_like_cube_root(global_random_seed):
    """Check that sigma* on calibrated data halves per 8x more data (claim 27)."""
    rng = np.random.RandomState(global_random_seed)

    def mean_star(n, reps=8):
        values = []
        for _ in range(reps):
            p = rng.uniform(size=n)
            values.append(smooth_ece((rng.uniform(size=n) < p).astype(int), p))
        return np.mean(values)

    small, large = mean_star(1000), mean_star(8000)
    assert 1.4 < small / large < 2.9
    assert 0.2 < small * 1000 ** (1 / 3) < 0.4


# ---------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------


def test_predictions_exactly_zero_and_one():
    """Check that predictions at 0 and 1 count fully (mass-preserving reflection)."""
    assert_allclose(smooth_ece([0, 1], [0.0, 1.0]), 0.0, atol=1e-12)
    for sigma in [0.01, 0.2]:
        # One point at 0 with y = 1: the residual -1 keeps its full mass.
        assert_allclose(smooth_ece([1], [0.0], sigma=sigma), 1.0, rtol=1e-12)
        expected = ref_smooth_ece_sigma([1, 0], [0.0, 1.0], None, sigma)
        got = smooth_ece([1, 0], [0.0, 1.0], sigma=sigma)
        assert_allclose(got, expected, atol=DISCRETISATION_ATOL)
    value = smooth_ece([1, 0], [0.0, 1.0], eps=1e-4)
    assert_allclose(value, ref_fixed_point([1, 0], [0.0, 1.0], None), atol=1e-4)


@pytest.mark.parametrize("p, y", [(0.3, 1), (0.3, 0), (0.0, 0), (1.0, 0)])
def test_single_sample(p, y):
    """Check that one sample gives |p - y|, at every sigma and as sigma*."""
    expected = abs(p - y)
    for sigma in [1e-3, 0.1, "auto"]:
        assert_allclose(smooth_ece([y], [p], sigma=sigma), expected, atol=1e-12)


def test_all_weight_on_one_point():
    """Check that zero-weight rows are ignored when one row has all the weight."""
    w = [0, 0, 2.5, 0]
    got = smooth_ece([1, 0, 1, 0], [0.1, 0.4, 0.8, 0.9], sample_weight=w)
    assert_allclose(got, 0.2, rtol=1e-9)


def test_ties_equal_aggregated_weights(global_random_seed):
    """Check that tied rows equal one row per (p, y) with summed weights."""
    rng = np.random.RandomState(global_random_seed)
    p = np.round(rng.uniform(size=300), 1)
    y = (rng.uniform(size=300) < p).astype(int)
    keys, counts = np.unique(np.c_[p, y], axis=0, return_counts=True)
    got = smooth_ece(y, p, sigma=0.03)
    merged = smooth_ece(
        keys[:, 1].astype(int), keys[:, 0], sample_weight=counts, sigma=0.03
    )
    assert_allclose(got, merged, rtol=1e-10)


# ---------------------------------------------------------------------------
# Invariances (hypothesis)
# ---------------------------------------------------------------------------

# A coarse eps keeps the fixed-point search fast under hypothesis.
_options = st.sampled_from(
    [
        {"sigma": 0.02},
        {"sigma": 0.1},
        {"sigma": 0.6},
        {"sigma": "auto", "eps": 0.01},
    ]
)


@given(data=_binary_data(), options=_options)
def test_between_bias_and_mean_absolute_residual(data, options):
    """Check that |mean(p - y)| <= smECE <= mean |p - y| <= 1 (claims 1, 20, 21)."""
    y, p = data
    value = smooth_ece(y, p, **options)
    assert abs(np.mean(p - y)) - 1e-12 <= value <= np.mean(np.abs(p - y)) + 1e-12
    assert 0.0 <= value <= 1.0


# ---------------------------------------------------------------------------
# Parameters, reductions and the curve's API
# ---------------------------------------------------------------------------


def test_return_sigma_shapes():
    """Check that the bandwidth returned has the shape of the value."""
    rng = np.random.RandomState(0)
    y, prob = _random_multiclass(rng, 100, 3)
    value, sigma = smooth_ece(y, prob, return_sigma=True)
    assert isinstance(value, float) and value == sigma
    value, sigma = smooth_ece(y, prob, sigma=0.1, return_sigma=True)
    assert isinstance(sigma, float) and sigma == 0.1
    values, sigmas = smooth_ece(
        y, prob, reduction="classwise", return_per_class=True, return_sigma=True
    )
    assert values.shape == sigmas.shape == (3,)
    assert_allclose(values, sigmas)
    value, sigma = smooth_ece(y, prob, reduction="classwise", return_sigma=True)
    assert_allclose([value, sigma], [values.mean(), sigmas.mean()])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sigma": 0.0}, "'sigma' parameter"),
        ({"sigma": 1e-5}, "'sigma' parameter"),
        ({"sigma": "silverman"}, "'sigma' parameter"),
        ({"eps": 0.0}, "'eps' parameter"),
        ({"eps": 1.0}, "'eps' parameter"),
        ({"return_sigma": "yes"}, "'return_sigma' parameter"),
    ],
)
def test_invalid_parameters(kwargs, match):
    """Check that invalid hyper-parameters are rejected with a clear message."""
    with pytest.raises(InvalidParameterError, match=match):
        smooth_ece([0, 1], [0.2, 0.7], **kwargs)


def test_curve_rejects_classwise_and_bad_n_points():
    """Check that the curve takes a single view and at least two points."""
    with pytest.raises(InvalidParameterError, match="'reduction' parameter"):
        smooth_reliability_curve([0, 1], [0.2, 0.7], reduction="classwise")
    with pytest.raises(InvalidParameterError, match="'n_points' parameter"):
        smooth_reliability_curve([0, 1], [0.2, 0.7], n_points=1)


def test_return_per_class_needs_classwise():
    """Check that return_per_class without reduction="classwise" is an error."""
    with pytest.raises(ValueError, match="return_per_class"):
        smooth_ece([0, 1], [0.2, 0.7], return_per_class=True)


def test_curve_views(global_random_seed):
    """Check that top-label and one-vs-rest curves are those of the binary views."""
    rng = np.random.RandomState(global_random_seed)
    y, prob = _random_multiclass(rng, 150, 3)
    top = smooth_reliability_curve(y, prob, sigma=0.05, n_points=51)
    correct = (prob.argmax(axis=1) == y).astype(int)
    binary = smooth_reliability_curve(
        correct, prob.max(axis=1), sigma=0.05, n_points=51
    )
    assert_allclose(top.calibration, binary.calibration, equal_nan=True)
    assert_allclose(top.density, binary.density)
    one_vs_rest = smooth_reliability_curve(y, prob, pos_label=2, n_points=51)
    expected = smooth_reliability_curve(y == 2, prob[:, 2], n_points=51)
    assert_allclose(one_vs_rest.calibration, expected.calibration, equal_nan=True)
    assert one_vs_rest.smooth_ece == smooth_ece(y, prob, pos_label=2)


def test_curve_is_nan_far_from_the_data():
    """Check that the outcome rate is NaN where the density is negligible, not 0."""
    y, p = [1, 0], [0.1, 0.12]
    curve = smooth_reliability_curve(y, p, sigma=0.005, n_points=11)
    far = np.arange(11) != 1  # 20 or more bandwidths from the data
    assert np.isnan(curve.calibration[far]).all()
    assert (curve.density[far] < 1e-9 * curve.density.max()).all()
    # Near the data it is the kernel regression, 1 / (1 + exp(-8)) at t = 0.1.
    _, expected = ref_curve(y, p, None, 0.005, curve.grid[1:2])
    assert_allclose(curve.calibration[1], expected[0], rtol=1e-6)
    assert_allclose(curve.calibration[1], 1 / (1 + math.exp(-8)), rtol=1e-6)


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------


def test_real_data_top_label_matches_reference(real_multiclass, global_random_seed):
    """Check that top-label smECE on real outputs matches the reference."""
    labels, probs = real_multiclass
    probs = probs.astype(np.float64)
    probs /= probs.sum(axis=1, keepdims=True)
    value, sigma = smooth_ece(labels, probs, return_sigma=True)
    correct = (probs.argmax(axis=1) == labels).astype(int)
    confidence = probs.max(axis=1)
    assert abs(np.mean(confidence - correct)) - 1e-12 <= value
    rng = np.random.RandomState(global_random_seed)
    rows = rng.choice(len(labels), size=1000, replace=False)
    got = smooth_ece(labels[rows], probs[rows], sigma=sigma)
    expected = ref_smooth_ece_sigma(correct[rows], confidence[rows], None, sigma)
    assert_allclose(got, expected, atol=DISCRETISATION_ATOL, rtol=0)


@pytest.mark.parametrize(
    "y_true, y_prob",
    [([0, 1, 0, 1], [0.5] * 4), ([0, 1, 0, 1], [0.0, 1.0, 0.0, 1.0])],
    ids=["calibrated", "perfect"],
)
def test_curve_on_calibrated_data(y_true, y_prob):
    """Check that the curve works when the SmoothECE is below the floor eps.

    Regression test: the curve sized its grid by the (zero) SmoothECE.
    """
    curve = smooth_reliability_curve(y_true, y_prob)
    assert curve.smooth_ece == pytest.approx(0.0, abs=1e-12)
    assert curve.sigma == 1e-3
    value, sigma = smooth_ece(y_true, y_prob, return_sigma=True)
    assert sigma == 1e-3
    assert value == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------------------
# The numbers behind the diagrams (issue 11)
# ---------------------------------------------------------------------------


def _curve_binary(rng, n=600):
    """Miscalibrated binary predictions: the event rate is p**1.5."""
    y_prob = rng.beta(2.0, 3.0, size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.5).astype(int)
    return y_true, y_prob


def _curve_multiclass(rng, n=600, k=3):
    y_prob = rng.dirichlet(np.full(k, 0.7), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


def _row_groups(*keys):
    """Sorted distinct rows of the keys; the group of each row; group sizes."""
    _, inverse, counts = np.unique(
        np.column_stack(keys), axis=0, return_inverse=True, return_counts=True
    )
    return inverse.ravel(), counts


def _interval_written_out(estimate, draws, null, confidence_level):
    """The calibration-error interval of skcal._utils._bootstrap, written out."""
    tail = 50.0 * (1.0 - confidence_level)
    low_star, high_star = np.percentile(draws, [tail, 100.0 - tail])
    high_null = np.percentile(null, 100.0 - tail)
    low = max(0.0, min(estimate - high_null, 2 * estimate - high_star, low_star))
    return np.array([low, max(high_star, estimate)])


# ---------------------------------------------------------------------------
# smooth_reliability_curve: the bootstrap band and the SmoothECE interval
# ---------------------------------------------------------------------------


def test_smooth_band_contains_the_curve(global_random_seed):
    """Check that the bootstrap band contains the curve and has positive width."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _curve_binary(rng, n=1000)
    curve = smooth_reliability_curve(
        y_true, y_prob, n_bootstrap=50, random_state=global_random_seed
    )
    defined = np.isfinite(curve.calibration)
    assert defined.sum() > 150
    assert_array_equal(np.isfinite(curve.band_low), defined)
    assert_array_equal(np.isfinite(curve.band_high), defined)
    low, high = curve.band_low[defined], curve.band_high[defined]
    middle = curve.calibration[defined]
    assert np.all(low <= middle) and np.all(middle <= high)
    assert np.all(high - low > 0)
    # The band is narrow where the predictions are dense.
    density = curve.density[defined]
    dense = density >= np.quantile(density, 0.9)
    sparse = density <= np.quantile(density, 0.1)
    assert np.mean((high - low)[dense]) < np.mean((high - low)[sparse])
    # The SmoothECE interval of a miscalibrated model contains the estimate.
    lo, hi = curve.smooth_ece_interval
    assert isinstance(lo, float) and isinstance(hi, float)
    assert lo < curve.smooth_ece < hi


@pytest.mark.parametrize("sigma", ["auto", 0.07])
def test_smooth_band_is_the_percentiles_of_resampled_rows(global_random_seed, sigma):
    """Check that the band and interval are percentiles of metrics on resampled rows.

    With predictions on a few distinct values, the rows that share a
    prediction and an outcome are identical, and a resample of the rows is
    the number of draws in each such group (the groups the Notes of
    ``smooth_reliability_curve`` describe, ordered by prediction, then
    outcome).
    Giving each group's count to one of its rows as a sample weight
    reproduces a replicate; the band is the pointwise percentiles of those
    replicates' curves at the full data's bandwidth. The calibrated draws
    follow the resamples (one batch, from the first generator spawned from
    the random state): outcomes drawn from the predictions.
    The interval combines the percentiles of both SmoothECEs.
    """
    rng = np.random.RandomState(global_random_seed)
    n, n_bootstrap, level = 400, 30, 0.9
    y_prob = rng.choice([0.0, 0.15, 0.3, 0.55, 0.8, 1.0], size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.3).astype(np.uint8)
    result = smooth_reliability_curve(
        y_true,
        y_prob,
        sigma=sigma,
        n_points=51,
        n_bootstrap=n_bootstrap,
        confidence_level=level,
        random_state=global_random_seed,
    )
    group, sizes = _row_groups(y_prob, y_true)
    first = np.unique(group, return_index=True)[1]
    (batch,) = seed_of(np.random.RandomState(global_random_seed)).spawn(1)
    # The counts and the bits come from two streams of the batch's Generator.
    replay, bit_replay = np.random.default_rng(batch).spawn(2)
    # The rows are drawn with replacement and taken in the order of their
    # groups: a group's count is the number of draws in its segment.
    order = np.argsort(group, kind="stable")
    counts = [
        np.bincount(replay.integers(0, n, n), minlength=n) for _ in range(n_bootstrap)
    ]
    curves, values = [], []
    for drawn in counts:
        weight = np.zeros(n)
        weight[first] = np.add.reduceat(drawn, np.cumsum(sizes) - sizes)
        replicate = smooth_reliability_curve(
            y_true, y_prob, sample_weight=weight, sigma=result.sigma, n_points=51
        )
        curves.append(replicate.calibration)
        values.append(smooth_ece(y_true, y_prob, sample_weight=weight, sigma=sigma))
    ordered = y_prob[order]
    # A uniform per row, as 32 random bits: half a raw word of the generator.
    bits = bit_replay.bit_generator.random_raw(n_bootstrap * n // 2).view(np.uint32)
    uniforms = bits.reshape(n_bootstrap, n) / 2.0**32
    outcomes = (uniforms < ordered).astype(int)
    null = [smooth_ece(drawn, ordered, sigma=sigma) for drawn in outcomes]
    curves, values = np.array(curves), np.array(values)
    tail = 50.0 * (1.0 - level)
    low, high = np.nanpercentile(curves, [tail, 100.0 - tail], axis=0)
    # Each replicate's curve is computed on a grid of 32 nodes per bandwidth
    # (binning and evaluation bound: 0.242 (1 / 32**2 + 1 / 32**2) < 5e-4).
    assert_allclose(result.band_low, low, atol=5e-4, equal_nan=True)
    assert_allclose(result.band_high, high, atol=5e-4, equal_nan=True)
    # Replicates find their fixed points within eps = 1e-3 on a coarser grid.
    atol = 2e-3 if sigma == "auto" else 1e-4
    expected = _interval_written_out(result.smooth_ece, values, null, level)
    assert_allclose(result.smooth_ece_interval, expected, atol=atol)


@pytest.mark.parametrize("power", [1.0, 3.0])
def test_smooth_replicates_are_the_measure_of_their_rows(global_random_seed, power):
    """Check each replicate against smooth_ece of the same rows.

    A resample is the rows weighted by their counts, a calibrated draw the
    drawn outcomes (both in the order of the replicates' view). The
    replicates are binned on a grid of 32 nodes per bandwidth of the full
    data, and the calibrated draws of miscalibrated data (power 3) have
    fixed points far below it; each replicate stays within eps = 1e-3, the
    tolerance to which both find the fixed point, of the measure.
    """
    rng = np.random.RandomState(global_random_seed)
    n, size = 3000, 8
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**power).astype(np.uint8)
    replicates = smooth_ece_replicates(y, p, None, sigma="auto", eps=1e-3)
    draws = Draws(np.random.default_rng(global_random_seed), n, size)
    ((resampled, relabeled),) = _batch_replicates(
        [(replicates.resampling, replicates.relabeling)], draws
    )
    view_p, view_y = p[replicates.order], y[replicates.order]
    outcomes = replicates.view.outcomes(Chunk(draws, 0, n, draws.counts, draws.bits))
    for i in range(size):
        weight = draws.counts[i].astype(np.float64)
        expected = smooth_ece(view_y, view_p, sample_weight=weight)
        assert_allclose(resampled[i], expected, atol=1e-3)
        expected = smooth_ece(outcomes[i].astype(np.uint8), view_p)
        assert_allclose(relabeled[i], expected, atol=1e-3)


def test_smooth_ece_interval_of_a_calibrated_model():
    """Check that a calibrated model's SmoothECE interval holds the estimate and 0.

    The issue's report: a bias-corrected interval collapsed to a point above
    the estimate ([0.0106, 0.0106] around 0.0098).
    """
    rng = np.random.RandomState(0)
    y_prob = rng.uniform(size=10_000)
    y_true = (rng.uniform(size=10_000) < y_prob).astype(int)
    curve = smooth_reliability_curve(y_true, y_prob, n_bootstrap=200, random_state=0)
    low, high = curve.smooth_ece_interval
    assert low == 0.0 <= curve.smooth_ece <= high
    assert high - low > 0.1 * curve.smooth_ece


def test_smooth_without_bootstrap():
    """Check that n_bootstrap=0 gives no band and no interval."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _curve_binary(rng)
    curve = smooth_reliability_curve(y_true, y_prob, n_bootstrap=0)
    assert curve.band_low is None and curve.band_high is None
    assert curve.smooth_ece_interval is None
    # The band's resamples do not change the curve.
    banded = smooth_reliability_curve(y_true, y_prob, n_bootstrap=5, random_state=0)
    for key in ("grid", "calibration", "density", "sigma", "smooth_ece"):
        assert_array_equal(banded[key], curve[key])


def test_smooth_random_state_makes_the_band_reproducible():
    """Check that random_state fixes the band and interval; other seeds change them."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _curve_binary(rng)
    a, b, c = (
        smooth_reliability_curve(y_true, y_prob, n_bootstrap=20, random_state=seed)
        for seed in (1, 1, 2)
    )
    assert_array_equal(a.band_low, b.band_low)
    assert a.smooth_ece_interval == b.smooth_ece_interval
    assert not np.array_equal(a.band_low, c.band_low, equal_nan=True)
    # A RandomState instance is used as it is: the same stream gives the same band.
    d = smooth_reliability_curve(
        y_true, y_prob, n_bootstrap=20, random_state=np.random.RandomState(1)
    )
    assert_array_equal(a.band_high, d.band_high)


def test_smooth_given_sigma():
    """Check that a given bandwidth is used for the curve, its value and the band."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _curve_binary(rng)
    curve = smooth_reliability_curve(
        y_true, y_prob, sigma=0.1, n_bootstrap=20, random_state=0
    )
    assert curve.sigma == 0.1
    assert curve.smooth_ece == smooth_ece(y_true, y_prob, sigma=0.1)
    defined = np.isfinite(curve.calibration)
    assert np.all(curve.band_low[defined] <= curve.band_high[defined])


def test_smooth_top_label_is_confidence_against_correctness(global_random_seed):
    """Check that the multiclass default is the curve of confidence and correctness."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _curve_multiclass(rng)
    curve = smooth_reliability_curve(y_true, y_prob, n_bootstrap=5, random_state=0)
    confidence = y_prob.max(axis=1)
    correct = (y_prob.argmax(axis=1) == y_true).astype(int)
    expected = smooth_reliability_curve(
        correct, confidence, n_bootstrap=5, random_state=0
    )
    for key in ("calibration", "density", "band_low", "band_high"):
        assert_array_equal(curve[key], expected[key], err_msg=key)
    assert curve.smooth_ece == smooth_ece(y_true, y_prob)


# ---------------------------------------------------------------------------
# Where the data are: n_effective and prediction_range (issue 12)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", ["auto", 0.03, 0.8])
@pytest.mark.parametrize("weighted", [False, True])
def test_n_effective_matches_kernel_sums(global_random_seed, sigma, weighted):
    """Check n_effective and mean_prediction against direct kernel sums (issue 12)."""
    rng = np.random.RandomState(global_random_seed)
    y, p = _random_binary(rng, 150)
    w = rng.uniform(0, 2, size=150) if weighted else None
    curve = smooth_reliability_curve(y, p, sample_weight=w, sigma=sigma, n_points=51)
    weights = np.ones_like(p) if w is None else w
    kish = weights.sum() ** 2 / (weights**2).sum()
    relative = (
        ref_kernel(curve.grid, p, curve.sigma)
        / np.diag(ref_kernel(curve.grid, curve.grid, curve.sigma))[:, None]
    )
    expected = kish * (relative @ weights) / weights.sum()
    assert_allclose(curve.n_effective, expected, rtol=1e-4, atol=1e-8)
    mean = (ref_kernel(curve.grid, p, curve.sigma) @ (weights * p)) / (
        ref_kernel(curve.grid, p, curve.sigma) @ weights
    )
    assert_allclose(curve.mean_prediction, mean, rtol=0, atol=1e-5)
    kept = p[weights > 0]
    assert curve.prediction_range == (kept.min(), kept.max())
    assert all(isinstance(v, float) for v in curve.prediction_range)


def test_n_effective_counts_rows_at_their_position():
    """Check that a row counts 1 at its own prediction, 0 or 1 included (issue 12)."""
    p = [0.0] * 40 + [0.5] * 25 + [1.0] * 7
    y = np.arange(72) % 2
    curve = smooth_reliability_curve(y, p, sigma=0.02, n_points=5)
    assert_allclose(curve.n_effective, [40, 0, 25, 0, 7], atol=1e-6)
    # Repeating every row twice doubles it; weights of 2 do not.
    twice = smooth_reliability_curve(np.r_[y, y], p + p, sigma=0.02, n_points=5)
    assert_allclose(twice.n_effective, 2 * curve.n_effective, atol=1e-6)
    weighted = smooth_reliability_curve(
        y, p, sample_weight=np.full(72, 2.0), sigma=0.02, n_points=5
    )
    assert_allclose(weighted.n_effective, curve.n_effective, atol=1e-6)
    # Each group's mean prediction is its own prediction.
    assert_allclose(curve.mean_prediction[[0, 2, 4]], [0.0, 0.5, 1.0], atol=1e-9)
