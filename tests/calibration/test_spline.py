"""Tests of spline calibration (skcal/calibration/_spline.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.integrate import quad
from scipy.interpolate import CubicSpline
from scipy.optimize import minimize
from scipy.special import expit, logit
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from skcal._param_validation import InvalidParameterError
from skcal.calibration import PlattRecalibrator, SplineRecalibrator
from skcal.calibration._spline import (
    SplineDesign,
    curvature_matrices,
    demmler_reinsch_basis,
)
from skcal.datasets import (
    load_cifar10_resnet110_top_label,
    load_imagenet_resnet34_top_label,
)

# ---------------------------------------------------------------------------
# Reference: scipy's natural cubic splines, integrals and minimiser
# ---------------------------------------------------------------------------


def _natural_spline(knots, values, u):
    """scipy's natural cubic spline through (knots, values), linear beyond them."""
    cs = CubicSpline(knots, values, bc_type="natural")
    lo, hi = knots[0], knots[-1]
    inside = cs(np.clip(u, lo, hi))
    return np.where(
        u < lo,
        cs(lo) + (u - lo) * cs(lo, 1),
        np.where(u > hi, cs(hi) + (u - hi) * cs(hi, 1), inside),
    )


def _curvature(knots, values_a, values_b):
    """``int f_a'' f_b''`` over the knots' range, by quadrature."""
    a = CubicSpline(knots, values_a, bc_type="natural")
    b = CubicSpline(knots, values_b, bc_type="natural")
    return sum(
        quad(lambda v: a(v, 2) * b(v, 2), knots[i], knots[i + 1])[0]
        for i in range(knots.shape[0] - 1)
    )


def reference_basis(x, knots):
    """The basis ``Z`` and the penalty ``S`` of the rescaled log-odds, by scipy."""
    t = (knots - knots[0]) / (knots[-1] - knots[0])
    u = (x - knots[0]) / (knots[-1] - knots[0])
    eye = np.eye(t.shape[0])
    Z = np.column_stack([_natural_spline(t, e, u) for e in eye])
    S = np.array([[_curvature(t, a, b) for b in eye] for a in eye])
    return Z, S


def reference_fit(Z, S, y, w, alpha):
    """Knot values minimising ``2 sum w l + alpha g' S g`` (scipy's trust-exact)."""

    def fun(g):
        f = Z @ g
        value = np.sum(w * (np.logaddexp(0.0, f) - y * f)) + 0.5 * alpha * g @ S @ g
        return value, Z.T @ (w * (expit(f) - y)) + alpha * S @ g

    def hess(g):
        p = expit(Z @ g)
        return Z.T @ (Z * (w * p * (1 - p))[:, None]) + alpha * S

    result = minimize(
        fun,
        np.zeros(Z.shape[1]),
        jac=True,
        hess=hess,
        method="trust-exact",
        options={"gtol": 1e-10, "maxiter": 1000},
    )
    return result.x


def reference_aic(Z, S, y, w, alpha, f):
    """``D + 2 edf`` at logits ``f``, the edf as ``tr((H + alpha S)^-1 H)``."""
    p = expit(f)
    deviance = 2.0 * np.sum(w * (np.logaddexp(0.0, f) - y * f))
    H = Z.T @ (Z * (w * p * (1 - p))[:, None])
    return deviance + 2.0 * np.trace(np.linalg.solve(H + alpha * S, H))


def _distorted(rng, n):
    """Decision values whose calibration map is a sigmoid with a wiggle."""
    s = 2.0 * rng.normal(size=n)
    y = (rng.uniform(size=n) < expit(0.5 * s + 0.4 * np.sin(2.0 * s))).astype(int)
    return s, y


def _mean_loss(y, q, w=None):
    q = np.clip(q, 1e-15, 1 - 1e-15)
    return float(np.average(-(y * np.log(q) + (1 - y) * np.log1p(-q)), weights=w))


# ---------------------------------------------------------------------------
# The spline basis and its penalty
# ---------------------------------------------------------------------------


def test_basis_is_the_natural_cubic_spline(global_random_seed):
    """Check the basis against scipy's natural spline, and the curvature penalty."""
    rng = np.random.RandomState(global_random_seed)
    knots = np.sort(rng.uniform(size=7))
    knots[0], knots[-1] = 0.0, 1.0
    S, G = curvature_matrices(knots)
    u = np.sort(rng.uniform(-0.5, 1.5, size=500))
    design = SplineDesign(u, knots, G)
    for values in rng.normal(size=(3, 7)):
        assert_allclose(
            design.matvec(values), _natural_spline(knots, values, u), atol=1e-10
        )
        cs = CubicSpline(knots, values, bc_type="natural")
        assert_allclose(G @ values, cs(knots, 2), rtol=1e-8, atol=1e-8)
        assert_allclose(
            values @ S @ values, _curvature(knots, values, values), rtol=1e-8
        )
    # Zero exactly on linear functions, positive definite elsewhere.
    linear = 0.3 - 2.0 * knots
    assert np.abs(S @ linear).max() < 1e-8 * np.abs(S).max()
    assert np.sort(np.linalg.eigvalsh(S))[2] > 0


def test_design_products_and_demmler_reinsch_basis(global_random_seed):
    """Check the sparse products against the dense basis, and the diagonal penalty."""
    rng = np.random.RandomState(global_random_seed)
    knots = np.concatenate([[0.0], np.sort(rng.uniform(size=6)), [1.0]])
    S, G = curvature_matrices(knots)
    B, s = demmler_reinsch_basis(knots, S)
    assert_allclose(B.T @ B, np.eye(8), atol=1e-12)
    assert_allclose(B.T @ S @ B, np.diag(s), atol=1e-8 * s.max())
    assert s[0] == s[1] == 0.0 and np.all(s[2:] > 0)
    # The first two columns are linear functions of the knots.
    for column in B[:, :2].T:
        slope, intercept = np.polyfit(knots, column, 1)
        assert_allclose(column, slope * knots + intercept, atol=1e-12)
    u = np.sort(rng.uniform(-0.2, 1.2, size=400))
    r, v = rng.normal(size=400), rng.uniform(size=400)
    for basis in (None, B):
        design = SplineDesign(u, knots, G, basis)
        Z = np.column_stack([design.matvec(e) for e in np.eye(8)])
        assert_allclose(design.rmatvec(r), Z.T @ r, atol=1e-9)
        assert_allclose(design.weighted_gram(v), Z.T @ (Z * v[:, None]), atol=1e-8)


# ---------------------------------------------------------------------------
# The fit for a given penalty, against scipy
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alpha", [0.0, 1e-6, 1e-4, 1e-2])
def test_fixed_alpha_matches_reference(global_random_seed, alpha, weighted):
    """Check the penalised fit and its edf against scipy's splines and minimiser."""
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 300)
    w = rng.uniform(0.2, 3.0, size=300) if weighted else None
    recal = SplineRecalibrator(n_knots=6, alpha=alpha).fit(s, y, sample_weight=w)
    (knots,) = recal.knots_
    assert knots.shape == (6,)
    Z, S = reference_basis(s, knots)
    v = np.ones(300) if w is None else w
    g = reference_fit(Z, S, y, v, alpha)
    grid = np.linspace(s.min() - 1.0, s.max() + 1.0, 301)
    Z_grid, _ = reference_basis(grid, knots)
    assert_allclose(recal.predict_proba(grid)[:, 1], expit(Z_grid @ g), atol=1e-6)
    assert recal.alpha_[0] == alpha
    p = expit(Z @ g)
    H = Z.T @ (Z * (v * p * (1 - p))[:, None])
    edf = np.trace(np.linalg.solve(H + alpha * S, H))
    assert_allclose(recal.edf_, [edf], rtol=1e-5)
    # The edf as the trace of the influence matrix (the same number).
    influence = Z @ np.linalg.solve(H + alpha * S, Z.T * (v * p * (1 - p)))
    assert_allclose(np.trace(influence), edf, rtol=1e-8)
    assert 2.0 - 1e-6 < recal.edf_[0] < 6.0 + 1e-6


@pytest.mark.parametrize("weighted", [False, True])
def test_infinite_alpha_is_logistic_regression(global_random_seed, weighted):
    """Check alpha -> inf: the likelihood's sigmoid of the log-odds (Platt's map)."""
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 400)
    w = rng.uniform(0.2, 3.0, size=400) if weighted else None
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000)
    expected = lr.fit(s[:, None], y, sample_weight=w).predict_proba
    grid = np.linspace(-15.0, 15.0, 301)
    linear = SplineRecalibrator(alpha=np.inf).fit(s, y, sample_weight=w)
    assert_allclose(linear.predict_proba(grid), expected(grid[:, None]), atol=1e-7)
    assert linear.alpha_[0] == np.inf and linear.edf_[0] == 2.0
    large = SplineRecalibrator(alpha=1e12).fit(s, y, sample_weight=w)
    assert_allclose(large.predict_proba(grid), expected(grid[:, None]), atol=1e-5)
    # Platt scaling with large weights: its smoothed targets become the labels.
    big = 1e12 * (np.ones(400) if w is None else w)
    platt = PlattRecalibrator(input="logit").fit(s, y, sample_weight=big)
    assert_allclose(platt.predict_proba(grid), linear.predict_proba(grid), atol=1e-7)


def test_zero_alpha_is_the_unpenalised_spline(global_random_seed):
    """Check alpha -> 0: the unpenalised fit, with one degree of freedom per knot."""
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 400)
    zero = SplineRecalibrator(n_knots=8, alpha=0.0).fit(s, y)
    tiny = SplineRecalibrator(n_knots=8, alpha=1e-12).fit(s, y)
    grid = np.linspace(s.min(), s.max(), 101)
    assert_allclose(tiny.predict_proba(grid), zero.predict_proba(grid), atol=1e-7)
    assert_allclose(zero.edf_, [8.0], rtol=1e-6)
    Z, _ = reference_basis(s, zero.knots_[0])
    lr = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-12, max_iter=10_000)
    lr.fit(Z, y)
    assert_allclose(zero.predict_proba(s)[:, 1], lr.predict_proba(Z)[:, 1], atol=1e-6)


# ---------------------------------------------------------------------------
# The penalty chosen by the AIC
# ---------------------------------------------------------------------------


def _knot_log_odds(recal):
    return logit(recal.predict_proba(recal.knots_[0])[:, 1])


def _edf(Z, S, w, alpha, f):
    p = expit(f)
    H = Z.T @ (Z * (w * p * (1 - p))[:, None])
    return np.trace(np.linalg.solve(H + alpha * S, H))


def test_alpha_minimises_the_aic(global_random_seed):
    """Check that alpha_ minimises D + 2 edf over a grid computed independently."""
    rng = np.random.RandomState(global_random_seed)
    n = 500
    s, y = _distorted(rng, n)
    w = np.ones(n)
    chosen = SplineRecalibrator(n_knots=8).fit(s, y)
    (knots,) = chosen.knots_
    Z, S = reference_basis(s, knots)

    def aic(recal):
        f = logit(recal.predict_proba(s)[:, 1])
        return reference_aic(Z, S, y, w, recal.alpha_[0], f)

    linear = SplineRecalibrator(n_knots=8, alpha=np.inf).fit(s, y)
    bound = np.abs(_knot_log_odds(linear)).max() + 10.0
    fits = [
        SplineRecalibrator(n_knots=8, alpha=a).fit(s, y)
        for a in 10.0 ** np.arange(-9.0, 3.0, 0.5)
    ]
    # Fits that diverge on runs of one class are not candidates.
    grid = [aic(r) for r in fits if np.abs(_knot_log_odds(r)).max() <= bound]
    linear_aic = 2 * n * _mean_loss(y, linear.predict_proba(s)[:, 1]) + 4.0
    if not np.isfinite(chosen.alpha_[0]):  # the linear map was chosen
        assert linear_aic <= min(grid) + 1e-6
        return
    best = aic(chosen)
    assert best <= min(grid) + 1e-3
    assert best <= linear_aic + 1e-6
    f = logit(chosen.predict_proba(s)[:, 1])
    assert_allclose(chosen.edf_[0], _edf(Z, S, w, chosen.alpha_[0], f), rtol=1e-5)


def test_divergent_fits_are_not_chosen(global_random_seed, monkeypatch):
    """Check that the AIC is not followed into fits that diverge on one-class runs.

    On 200 samples of a logistic map, the spline with 16 knots, nearly
    unpenalised, sends runs of one class to log-odds of hundreds, where the
    AIC keeps falling; such fits are left out of the search.
    """
    rng = np.random.RandomState(global_random_seed)
    s = rng.normal(size=200)
    y = (rng.uniform(size=200) < expit(2.0 * s)).astype(int)
    y[:2] = [0, 1]
    recal = SplineRecalibrator().fit(s, y)
    linear = SplineRecalibrator(alpha=np.inf).fit(s, y)
    bound = np.abs(_knot_log_odds(linear)).max() + 10.0
    assert np.abs(_knot_log_odds(recal)).max() <= bound + 1e-6
    assert recal.edf_[0] < 12.0
    # Without the guard, the search ends in a divergent fit (on this sample).
    rng = np.random.RandomState(0)
    s = rng.normal(size=200)
    y = (rng.uniform(size=200) < expit(2.0 * s)).astype(int)
    monkeypatch.setattr("skcal.calibration._spline._DIVERGENCE", np.inf)
    unguarded = SplineRecalibrator().fit(s, y)
    assert unguarded.edf_[0] > 15.0
    assert np.abs(_knot_log_odds(unguarded)).max() > 100.0


def test_aic_counts_samples(global_random_seed):
    """Check that weights count samples: scaled up they free the map, down linearise it.

    The penalised deviance with weights ``c w`` and penalty ``alpha`` is ``c``
    times the one with weights ``w`` and penalty ``alpha / c``: the fits agree.
    The AIC's ``2 edf`` is not scaled, so the chosen penalty moves with ``c``.
    """
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 300)
    w = rng.uniform(0.5, 2.0, size=300)
    grid = np.linspace(-6.0, 6.0, 101)
    for c in (1e-3, 1e3):
        scaled = SplineRecalibrator(n_knots=8, alpha=1e-3).fit(
            s, y, sample_weight=c * w
        )
        base = SplineRecalibrator(n_knots=8, alpha=1e-3 / c).fit(s, y, sample_weight=w)
        assert_allclose(scaled.predict_proba(grid), base.predict_proba(grid), atol=1e-8)
    few = SplineRecalibrator(n_knots=8).fit(s, y, sample_weight=1e-6 * w)
    unit = SplineRecalibrator(n_knots=8).fit(s, y, sample_weight=w)
    many = SplineRecalibrator(n_knots=8).fit(s, y, sample_weight=1e6 * w)
    assert few.edf_[0] == 2.0 and few.alpha_[0] == np.inf
    assert many.edf_[0] >= unit.edf_[0] - 0.05 and many.edf_[0] > 4.0


# ---------------------------------------------------------------------------
# The map: knots, extrapolation, invariances
# ---------------------------------------------------------------------------


def test_knots_are_quantiles_of_the_log_odds(global_random_seed):
    """Check knots at the quantiles j / (K - 1) of the log-odds, fewer with ties."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.01, 0.99, size=301)
    y = (rng.uniform(size=301) < p).astype(int)
    recal = SplineRecalibrator(n_knots=7).fit(p, y)
    levels = np.linspace(0.0, 1.0, 7)
    expected = np.quantile(logit(p), levels, method="inverted_cdf")
    assert_allclose(recal.knots_[0], expected, rtol=1e-12)
    tied = np.round(p, 1)
    recal = SplineRecalibrator(n_knots=30).fit(tied, y)
    expected = logit(np.clip(np.unique(tied), 1e-12, 1 - 1e-12))
    assert_allclose(recal.knots_[0], expected, rtol=1e-6)
    assert recal.edf_[0] <= np.unique(tied).shape[0] + 1e-9


def test_linear_beyond_the_extreme_knots(global_random_seed):
    """Check that the log-odds of the map are linear beyond the extreme knots."""
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 500)
    recal = SplineRecalibrator(n_knots=8, alpha=1e-4).fit(s, y)
    lo, hi = recal.knots_[0][[0, -1]]
    for side in (np.linspace(lo - 1.0, lo, 11), np.linspace(hi, hi + 1.0, 11)):
        q = recal.predict_proba(side)[:, 1]
        # logit(q) is exact to about 1e-16 / (q (1 - q)).
        tolerance = 1e-14 / (q * (1 - q)).min()
        assert_allclose(np.diff(logit(q), 2), 0.0, atol=tolerance)
    inside = np.linspace(lo, hi, 51)
    assert np.abs(np.diff(logit(recal.predict_proba(inside)[:, 1]), 2)).max() > 1e-4


@pytest.mark.parametrize("alpha", [None, 1e-3])
def test_affine_maps_of_decision_values(global_random_seed, alpha):
    """Check that decision values a s + b (a > 0) are recalibrated as s is."""
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 300)
    base = SplineRecalibrator(alpha=alpha).fit(s, y)
    for a, b in [(1e-5, 3.0), (37.0, -1e4), (2.0**60, 0.0)]:
        moved = SplineRecalibrator(alpha=alpha).fit(a * s + b, y)
        assert_allclose(
            moved.predict_proba(a * s + b), base.predict_proba(s), rtol=1e-6, atol=1e-9
        )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1000), alpha=st.sampled_from([None, 1e-4]))
def test_integer_weights_and_row_order(seed, alpha):
    """Check that integer weights equal repeated rows, and row order does not matter."""
    rng = np.random.RandomState(seed)
    s, y = _distorted(rng, 120)
    w = rng.randint(0, 4, size=120)
    w[:2] = 1
    y[:2] = [0, 1]
    weighted = SplineRecalibrator(n_knots=8, alpha=alpha).fit(s, y, sample_weight=w)
    repeated = SplineRecalibrator(n_knots=8, alpha=alpha).fit(
        np.repeat(s, w), np.repeat(y, w)
    )
    perm = rng.permutation(120)
    permuted = SplineRecalibrator(n_knots=8, alpha=alpha).fit(
        s[perm], y[perm], sample_weight=w[perm]
    )
    grid = np.linspace(-8.0, 8.0, 81)
    for other in (repeated, permuted):
        assert_allclose(other.knots_[0], weighted.knots_[0])
        assert_allclose(
            other.predict_proba(grid), weighted.predict_proba(grid), atol=1e-6
        )


def test_constant_and_two_valued_scores():
    """Check a constant score (the mean label) and two values (a linear map)."""
    y = np.array([0, 1, 1, 0, 1, 1])
    recal = SplineRecalibrator().fit(np.full(6, 0.3), y)
    assert recal.edf_[0] == 1.0
    assert_allclose(recal.predict_proba([0.1, 0.9])[:, 1], 4 / 6, rtol=1e-10)
    p = np.array([0.2, 0.2, 0.2, 0.7, 0.7, 0.7])
    recal = SplineRecalibrator().fit(p, y)
    assert recal.knots_[0].shape == (2,) and recal.edf_[0] == 2.0
    assert_allclose(recal.predict_proba([0.2, 0.7])[:, 1], [2 / 3, 2 / 3], rtol=1e-8)


def test_multiclass_maps(global_random_seed):
    """Check one map per class for "ovr", one for "top_label", with their attributes."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(3), size=300)
    y = np.array([rng.choice(3, p=row) for row in proba])
    ovr = SplineRecalibrator(n_knots=6).fit(proba, y)
    assert ovr.alpha_.shape == ovr.edf_.shape == (3,) and len(ovr.knots_) == 3
    assert_allclose(ovr.predict_proba(proba).sum(axis=1), 1.0, rtol=1e-12)
    top = SplineRecalibrator(n_knots=6, multiclass="top_label").fit(proba, y)
    assert top.edf_.shape == (1,)
    assert (top.predict(proba) == proba.argmax(axis=1)).all()


# ---------------------------------------------------------------------------
# Claims of Lucena (2018), and the comparison with splinecalib
# ---------------------------------------------------------------------------


def test_recovers_a_smooth_distortion(global_random_seed):
    """Check that a wiggly calibration map is recovered, where Platt's sigmoid fails."""
    rng = np.random.RandomState(global_random_seed)
    s, y = _distorted(rng, 20_000)
    grid = np.linspace(-3.0, 3.0, 61)
    truth = expit(0.5 * grid + 0.4 * np.sin(2.0 * grid))
    spline = SplineRecalibrator().fit(s, y).predict_proba(grid)[:, 1]
    platt = PlattRecalibrator(input="logit").fit(s, y).predict_proba(grid)[:, 1]
    assert np.abs(spline - truth).max() < 0.04
    assert np.abs(platt - truth).max() > 0.08


def _binary_views():
    """(name, scores, labels) of real and simulated classifiers."""
    data = load_cifar10_resnet110_top_label()
    yield "cifar10_resnet110", data.confidence, data.predicted == data.target
    data = load_imagenet_resnet34_top_label()
    yield (
        "imagenet_resnet34",
        data.confidence[:10_000],
        (data.predicted == data.target)[:10_000],
    )
    X, y = make_classification(
        n_samples=12_000, n_features=20, n_informative=8, random_state=0
    )
    gnb = GaussianNB().fit(X[:2000], y[:2000])
    yield "naive_bayes", gnb.predict_proba(X[2000:])[:, 1], y[2000:]
    forest = RandomForestClassifier(
        n_estimators=50, min_samples_leaf=5, random_state=0
    ).fit(X[:2000], y[:2000])
    yield "random_forest", forest.predict_proba(X[2000:])[:, 1], y[2000:]


# Held-out log loss may exceed splinecalib's by this much (nats).
SPLINECALIB_MARGIN = 0.002


def test_held_out_log_loss_against_splinecalib():
    """Check held-out log loss against splinecalib's SplineCalib (Lucena's own).

    The two solve different problems (random knots, a ridge penalty chosen by
    cross-validation and pseudo-data on the identity there), so only their
    held-out log losses are compared, on fixed halves of four binary views.
    """
    splinecalib = pytest.importorskip("splinecalib")
    for name, scores, labels in _binary_views():
        p, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=int)
        perm = np.random.RandomState(0).permutation(y.shape[0])
        fit, test = perm[: y.shape[0] // 2], perm[y.shape[0] // 2 :]
        ours = SplineRecalibrator().fit(p[fit], y[fit]).predict_proba(p[test])[:, 1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = splinecalib.SplineCalib()
            reference.fit(p[fit], y[fit])
            theirs = reference.calibrate(p[test])
        ours, theirs = _mean_loss(y[test], ours), _mean_loss(y[test], theirs)
        assert ours <= theirs + SPLINECALIB_MARGIN, (name, ours, theirs)
        assert ours < _mean_loss(y[test], p[test]), name


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_knots": 1}, "'n_knots' parameter"),
        ({"n_knots": 2.5}, "'n_knots' parameter"),
        ({"alpha": -1.0}, "'alpha' parameter"),
        ({"alpha": "aic"}, "'alpha' parameter"),
        ({"multiclass": "ovo"}, "'multiclass' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid parameters are refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match=match):
        SplineRecalibrator(**params).fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
