"""Tests of skcal._utils._logistic: penalised logistic regression by Newton's method."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from scipy.special import expit

import skcal._utils._logistic as logistic
from skcal._utils._logistic import fit_logistic, mean_hessian

# ---------------------------------------------------------------------------
# Reference: scipy's minimiser on the same objective
# ---------------------------------------------------------------------------


def _objective(theta, Z, t, w, P):
    f = Z @ theta
    value = np.sum(w * (np.logaddexp(0.0, f) - t * f)) / w.sum()
    grad = Z.T @ (w * (expit(f) - t)) / w.sum()
    if P is not None:
        value += 0.5 * theta @ P @ theta
        grad = grad + P @ theta
    return value, grad


def reference_fit(Z, t, w, P=None):
    """The minimiser by L-BFGS-B with tight tolerances (slow, generic)."""
    result = minimize(
        _objective,
        np.zeros(Z.shape[1]),
        args=(Z, t, w, P),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-13, "ftol": 0.0, "maxiter": 50_000, "maxcor": 30},
    )
    return result.x, result.fun


def _random_problem(rng, n=300, d=4, soft=False):
    Z = np.column_stack([rng.normal(size=(n, d - 1)), np.ones(n)])
    theta = rng.normal(size=d)
    p = expit(Z @ theta)
    t = p if soft else (rng.uniform(size=n) < p).astype(float)
    return Z, t


def _penalty(rng, d, scale):
    A = rng.normal(size=(d, d - 1))  # rank d - 1: positive semi-definite
    return scale * A @ A.T / d


class _DenseAsStructured:
    """A dense matrix behind the structured-design interface."""

    def __init__(self, Z):
        self.Z = Z
        self.shape = Z.shape

    def matvec(self, theta):
        return self.Z @ theta

    def rmatvec(self, r):
        return self.Z.T @ r

    def weighted_gram(self, v):
        return self.Z.T @ (self.Z * v[:, None])


# ---------------------------------------------------------------------------
# The minimiser
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("soft", [False, True])
@pytest.mark.parametrize("penalised", [False, True])
def test_matches_scipy(global_random_seed, weighted, soft, penalised):
    """Check the minimiser against L-BFGS-B: labels or soft targets, penalty or not."""
    rng = np.random.RandomState(global_random_seed)
    Z, t = _random_problem(rng, soft=soft)
    w = rng.uniform(0.1, 3.0, size=t.shape[0]) if weighted else None
    P = _penalty(rng, Z.shape[1], 0.3) if penalised else None
    fit = fit_logistic(Z, t, w, penalty=P)
    v = np.ones_like(t) if w is None else w
    expected, expected_value = reference_fit(Z, t, v, P)
    assert_allclose(fit.coef, expected, rtol=1e-6, atol=1e-6)
    value, grad = _objective(fit.coef, Z, t, v, P)
    assert_allclose(fit.objective, value, rtol=1e-13)
    assert fit.objective <= expected_value + 1e-13
    assert np.abs(grad).max() < 1e-9
    assert fit.n_iter < 20


def test_structured_design_equals_dense(global_random_seed):
    """Check that a design given by its products gives the dense matrix's fit."""
    rng = np.random.RandomState(global_random_seed)
    Z, t = _random_problem(rng, d=5)
    w = rng.uniform(0.1, 3.0, size=t.shape[0])
    P = _penalty(rng, 5, 0.1)
    dense = fit_logistic(Z, t, w, penalty=P, hessian=True)
    structured = fit_logistic(_DenseAsStructured(Z), t, w, penalty=P, hessian=True)
    assert_allclose(structured.coef, dense.coef, rtol=1e-10, atol=1e-12)
    assert_allclose(structured.hessian, dense.hessian, rtol=1e-10, atol=1e-14)
    assert structured.n_iter == dense.n_iter


def test_hessian_at_the_minimiser(global_random_seed):
    """Check the returned Hessian: Z' diag(w p (1 - p)) Z / W, by finite differences."""
    rng = np.random.RandomState(global_random_seed)
    Z, t = _random_problem(rng)
    w = rng.uniform(0.1, 3.0, size=t.shape[0])
    fit = fit_logistic(Z, t, w, hessian=True)
    assert fit_logistic(Z, t, w).hessian is None
    p = expit(Z @ fit.coef)
    expected = (Z * (w * p * (1 - p))[:, None]).T @ Z / w.sum()
    assert_allclose(fit.hessian, expected, rtol=1e-12)
    assert_allclose(mean_hessian(Z, Z @ fit.coef, w, w.sum()), expected, rtol=1e-12)
    eps = 1e-6
    columns = [
        (
            _objective(fit.coef + eps * e, Z, t, w, None)[1]
            - _objective(fit.coef - eps * e, Z, t, w, None)[1]
        )
        / (2 * eps)
        for e in np.eye(Z.shape[1])
    ]
    assert_allclose(np.column_stack(columns), fit.hessian, rtol=1e-5, atol=1e-9)


def test_start_does_not_change_the_minimiser(global_random_seed):
    """Check that any first iterate leads to the same minimiser."""
    rng = np.random.RandomState(global_random_seed)
    Z, t = _random_problem(rng)
    base = fit_logistic(Z, t)
    for start in (rng.normal(size=4), 5.0 * rng.normal(size=4)):
        assert_allclose(fit_logistic(Z, t, start=start).coef, base.coef, atol=1e-8)


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


def test_integer_weights_are_repeated_rows(global_random_seed):
    """Check that integer weights equal repeated rows, zero weights dropped rows."""
    rng = np.random.RandomState(global_random_seed)
    Z, t = _random_problem(rng, n=120)
    w = rng.randint(0, 4, size=120).astype(float)
    w[:4] = 1.0
    weighted = fit_logistic(Z, t, w)
    repeated = fit_logistic(
        np.repeat(Z, w.astype(int), axis=0), np.repeat(t, w.astype(int))
    )
    assert_allclose(weighted.coef, repeated.coef, rtol=1e-8, atol=1e-10)
    assert_allclose(weighted.objective, repeated.objective, rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-3, 7.0, 1e5])
def test_weight_scale_does_not_matter(global_random_seed, scale):
    """Check that the objective is a weighted mean: weights times c change nothing."""
    rng = np.random.RandomState(global_random_seed)
    Z, t = _random_problem(rng)
    w = rng.uniform(0.1, 3.0, size=t.shape[0])
    P = _penalty(rng, 4, 0.2)
    base = fit_logistic(Z, t, w, penalty=P)
    scaled = fit_logistic(Z, t, scale * w, penalty=P)
    assert_allclose(scaled.coef, base.coef, rtol=1e-9, atol=1e-11)


# ---------------------------------------------------------------------------
# Stopping rules
# ---------------------------------------------------------------------------


def test_separable_data_stays_finite(global_random_seed):
    """Check that separable data (no minimiser) give finite coefficients, no warning."""
    rng = np.random.RandomState(global_random_seed)
    x = rng.normal(size=200)
    t = (x > 0).astype(float)
    Z = np.column_stack([x, np.ones_like(x)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_logistic(Z, t)
    assert np.isfinite(fit.coef).all()
    assert fit.coef[0] > 10.0
    assert fit.n_iter <= logistic._MAX_ITER
    assert fit.objective < 1e-6


def test_stops_at_rounding_floor(monkeypatch):
    """Check that Newton's method stops once rounding keeps the loss from decreasing.

    The four-score example of Rossellini et al. (2025, Figure 4), scores 0,
    0.25, 0.5 and 1 with outcomes 1, 0, 0, 1, converges in about 4
    iterations; a rule that waits for a gradient below 1e-12 may spend all
    100 iterations on line searches that rounding decides.
    """
    calls = []
    loss = logistic._mean_log_loss

    def counted(*args):
        calls.append(None)
        return loss(*args)

    monkeypatch.setattr(logistic, "_mean_log_loss", counted)
    scores = np.array([0.0, 0.25, 0.5, 1.0])
    evaluations = []
    for seed in range(20):
        rng = np.random.RandomState(seed)
        f = scores[rng.randint(4, size=1_000)]
        t = ((f == 0.0) | (f == 1.0)).astype(float)
        z = (f - f.mean()) / f.std()
        calls.clear()
        fit_logistic(np.column_stack([z, np.ones_like(z)]), t)
        evaluations.append(len(calls))
    assert max(evaluations) < 100, evaluations


def test_step_below_rounding_stops(monkeypatch):
    """Check that a step too small to change the coefficients ends the iteration.

    When rounding errors in the objective exceed the decrease a step
    promises (a dense penalty near its null space does that), the Armijo
    test may accept a step that leaves every coefficient unchanged; iterating
    again could only repeat it, up to the 100 iterations allowed. Here the
    objective is made to decrease at every evaluation, and coefficients of
    order 1e17 (whose columns cancel, so that ``f = 0``) absorb any step of
    order 1.
    """
    values = iter(np.linspace(1.0, 0.0, 10_000))
    monkeypatch.setattr(logistic, "_objective", lambda *args: float(next(values)))
    rng = np.random.RandomState(0)
    z = rng.normal(size=(200, 2))
    t = (rng.uniform(size=200) < expit(z[:, 0])).astype(float)
    Z = np.column_stack([z[:, 0], z[:, 0], z[:, 1], z[:, 1]])
    start = np.array([1e17, -1e17, 1e17, -1e17])
    assert np.all(Z @ start == 0.0)
    fit = fit_logistic(Z, t, start=start)
    assert fit.n_iter == 1
    assert_allclose(fit.coef, start)
