"""Tests of beta calibration (skcal/calibration/_beta.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from scipy.optimize import minimize
from scipy.special import betaln, expit, logit
from sklearn.linear_model import LogisticRegression

from skcal._param_validation import InvalidParameterError
from skcal.calibration import BetaRecalibrator, PlattRecalibrator
from skcal.calibration._beta import BetaMap

PARAMETERS = ["abm", "ab", "am"]
# Maps (a, b, c) the labels are drawn from: one inside the constraints, one
# whose fit has a < 0 and one whose fit has b < 0.
TRUE_MAPS = {
    "inside": (1.5, 0.7, 0.2),
    "a_negative": (-0.4, 2.0, 0.0),
    "b_negative": (2.0, -0.4, 0.5),
}
GRID = np.linspace(0.001, 0.999, 999)

# ---------------------------------------------------------------------------
# Reference: scipy's bounded minimiser on the original features
# ---------------------------------------------------------------------------


def _log_features(p):
    p = np.clip(p, 1e-12, 1.0 - 1e-12)
    return np.log(p), -np.log1p(-p)


def _design(p, parameters):
    """Features, bounds, and the map (a, b, c) of the coefficients."""
    lp, lq = _log_features(p)
    ones = np.ones_like(p)
    if parameters == "abm":
        return (
            np.column_stack([lp, lq, ones]),
            [(0, None), (0, None), (None, None)],
            lambda th: (th[0], th[1], th[2]),
        )
    if parameters == "ab":
        return (
            np.column_stack([lp + math.log(2), lq - math.log(2)]),
            [(0, None), (0, None)],
            lambda th: (th[0], th[1], (th[0] - th[1]) * math.log(2)),
        )
    return (
        np.column_stack([lp + lq, ones]),
        [(0, None), (None, None)],
        lambda th: (th[0], th[0], th[1]),
    )


def _mean_loss(q, y, w):
    q = np.clip(q, 1e-300, 1 - 1e-16)
    return float(np.average(-(y * np.log(q) + (1 - y) * np.log1p(-q)), weights=w))


def reference_beta(p, y, w, parameters):
    """``(a, b, c)`` minimising the weighted log loss with ``a, b >= 0`` (L-BFGS-B)."""
    Z, bounds, to_map = _design(p, parameters)
    v = np.ones_like(p) if w is None else w / w.sum()
    v = v / v.sum()

    def fun(theta):
        f = Z @ theta
        return (
            float(np.dot(v, np.logaddexp(0.0, f) - y * f)),
            Z.T @ (v * (expit(f) - y)),
        )

    result = minimize(
        fun,
        np.zeros(Z.shape[1]),
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"gtol": 1e-12, "ftol": 0.0, "maxiter": 20_000},
    )
    return to_map(result.x)


def _beta_map_proba(abc, p):
    a, b, c = abc
    lp, lq = _log_features(p)
    return expit(c + a * lp + b * lq)


def _problem(rng, case, n=400):
    a, b, c = TRUE_MAPS[case]
    p = rng.uniform(0.001, 0.999, size=n)
    y = (rng.uniform(size=n) < _beta_map_proba((a, b, c), p)).astype(int)
    y[:2] = [0, 1]
    return p, y


# ---------------------------------------------------------------------------
# The fit against the reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", list(TRUE_MAPS))
@pytest.mark.parametrize("parameters", PARAMETERS)
def test_matches_bounded_reference(global_random_seed, parameters, case, weighted):
    """Check the constrained maximum likelihood fit against L-BFGS-B with bounds."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _problem(rng, case)
    w = rng.uniform(0.1, 3.0, size=p.shape[0]) if weighted else None
    recal = BetaRecalibrator(parameters=parameters).fit(p, y, sample_weight=w)
    expected = reference_beta(p, y, w, parameters)
    assert recal.a_[0] >= 0 and recal.b_[0] >= 0
    ours = recal.predict_proba(GRID)[:, 1]
    assert_allclose(ours, _beta_map_proba(expected, GRID), atol=1e-6)
    got = _mean_loss(recal.predict_proba(p)[:, 1], y, w)
    assert got <= _mean_loss(_beta_map_proba(expected, p), y, w) + 1e-12
    if parameters == "ab":
        assert_allclose(recal.c_, (recal.a_ - recal.b_) * math.log(2.0), rtol=1e-12)
    if parameters == "am":
        assert_allclose(recal.a_, recal.b_, rtol=0)


@pytest.mark.parametrize("parameters", PARAMETERS)
def test_constraints_bind(global_random_seed, parameters):
    """Check that data from a map with a < 0 (b < 0) give a = 0 (b = 0)."""
    rng = np.random.RandomState(global_random_seed)
    for case, zero in [("a_negative", "a_"), ("b_negative", "b_")]:
        p, y = _problem(rng, case, n=2000)
        recal = BetaRecalibrator(parameters=parameters).fit(p, y)
        assert recal.a_[0] >= 0.0 and recal.b_[0] >= 0.0
        if parameters == "abm":
            assert getattr(recal, zero)[0] == 0.0
            other = "b_" if zero == "a_" else "a_"
            assert getattr(recal, other)[0] > 0.5


# ---------------------------------------------------------------------------
# The reference implementations: betacal and netcal
# ---------------------------------------------------------------------------


@pytest.fixture
def tight_betacal(monkeypatch):
    """betacal, whose LogisticRegression stops at a gradient of 1e-12, not 1e-4."""
    betacal = pytest.importorskip("betacal")
    module = pytest.importorskip("betacal.beta_calibration")

    class TightLogisticRegression(LogisticRegression):
        def __init__(self, C=1.0, fit_intercept=True):
            super().__init__(C=C, fit_intercept=fit_intercept)
            self.tol, self.max_iter = 1e-12, 100_000

    monkeypatch.setattr(module, "LogisticRegression", TightLogisticRegression)
    return betacal


def _fit_betacal(betacal, parameters, p, y, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = betacal.BetaCalibration(parameters=parameters)
        return model.fit(p, y, sample_weight=w)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("case", list(TRUE_MAPS))
@pytest.mark.parametrize("parameters", PARAMETERS)
def test_matches_betacal(tight_betacal, global_random_seed, parameters, case, weighted):
    """Check predict_proba against betacal, to 1e-6 where both solve one problem.

    betacal refits "abm" without a negative coefficient, as here; it leaves
    "ab" and "am" unconstrained, where a negative coefficient then differs.
    """
    rng = np.random.RandomState(global_random_seed)
    p, y = _problem(rng, case)
    w = rng.uniform(0.1, 3.0, size=p.shape[0]) if weighted else None
    recal = BetaRecalibrator(parameters=parameters).fit(p, y, sample_weight=w)
    model = _fit_betacal(tight_betacal, parameters, p, y, w)
    a, b, _ = model.calibrator_.map_
    ours, theirs = recal.predict_proba(GRID)[:, 1], model.predict(GRID)
    if a >= 0 and b >= 0:
        assert_allclose(ours, theirs, atol=1e-6)
        assert_allclose([recal.a_[0], recal.b_[0]], [a, b], rtol=1e-5, atol=1e-6)
    else:
        # Unconstrained, betacal's loss is lower and its map not monotone.
        assert parameters != "abm"
        assert recal.a_[0] >= 0 and recal.b_[0] >= 0
        ours = _mean_loss(recal.predict_proba(p)[:, 1], y, w)
        assert ours >= _mean_loss(model.predict(p), y, w) - 1e-12


@pytest.mark.parametrize("case", list(TRUE_MAPS))
@pytest.mark.parametrize("parameters", PARAMETERS)
def test_no_worse_than_default_betacal(global_random_seed, parameters, case):
    """Check a loss at most betacal's (default tolerance) where its map is feasible."""
    betacal = pytest.importorskip("betacal")
    rng = np.random.RandomState(global_random_seed)
    p, y = _problem(rng, case)
    recal = BetaRecalibrator(parameters=parameters).fit(p, y)
    model = _fit_betacal(betacal, parameters, p, y, None)
    a, b, _ = model.calibrator_.map_
    if a >= 0 and b >= 0:
        ours = _mean_loss(recal.predict_proba(p)[:, 1], y, None)
        assert ours <= _mean_loss(model.predict(p), y, None) + 1e-12


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("case", list(TRUE_MAPS))
def test_no_worse_than_netcal(global_random_seed, case):
    """Check the loss against netcal's BetaCalibration (likelihood, a, b >= 0)."""
    scaling = pytest.importorskip("netcal.scaling")
    rng = np.random.RandomState(global_random_seed)
    p, y = _problem(rng, case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = scaling.BetaCalibration()
        model.fit(p, y)
        theirs = model.transform(p)
    ours = BetaRecalibrator().fit(p, y).predict_proba(p)[:, 1]
    assert _mean_loss(ours, y, None) <= _mean_loss(theirs, y, None) + 1e-12
    assert_allclose(ours, theirs, atol=1e-3)


# ---------------------------------------------------------------------------
# Claims of Kull, Silva Filho and Flach (2017)
# ---------------------------------------------------------------------------


def test_family_contains_the_identity(global_random_seed):
    """Check that a = b = 1, c = 0 is the identity, which calibrated scores fit."""
    assert_allclose(BetaMap(1.0, 1.0, 0.0)(GRID), GRID, rtol=1e-12)
    assert_allclose(BetaMap(1.0, 1.0, 0.0, False)(logit(GRID)), GRID, rtol=1e-12)
    assert_allclose(BetaMap(1.0, 1.0 + 1e-300, 0.0)(GRID), GRID, rtol=1e-12)
    assert BetaMap(1.0, 1.0, 0.0).midpoint() == 0.5
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.001, 0.999, size=20_000)
    y = (rng.uniform(size=p.shape[0]) < p).astype(int)
    recal = BetaRecalibrator().fit(p, y)
    inner = GRID[(GRID > 0.01) & (GRID < 0.99)]
    assert np.abs(recal.predict_proba(inner)[:, 1] - inner).max() < 0.03


@pytest.mark.parametrize("weighted", [False, True])
def test_am_is_logistic_regression_on_log_odds(global_random_seed, weighted):
    """Check "am": the likelihood's sigmoid of the log-odds (Platt, raw labels)."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _problem(rng, "inside")
    w = rng.uniform(0.1, 3.0, size=p.shape[0]) if weighted else None
    recal = BetaRecalibrator(parameters="am").fit(p, y, sample_weight=w)
    s = logit(p)[:, None]
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000)
    lr.fit(s, y, sample_weight=w)
    assert_allclose(recal.a_, lr.coef_[0], rtol=1e-6)
    assert_allclose(recal.c_, lr.intercept_, rtol=1e-6, atol=1e-8)
    # Platt scaling with large weights: its smoothed targets become the labels.
    big = (np.ones_like(p) if w is None else w) * 1e12
    platt = PlattRecalibrator().fit(p, y, sample_weight=big)
    assert_allclose(platt.predict_proba(GRID), recal.predict_proba(GRID), atol=1e-8)


def test_maps_are_monotone(global_random_seed):
    """Check non-decreasing maps where the unconstrained fit is not monotone."""
    # a < 0 < b: the map tends to 1 at both ends (U shape).
    u_shape = BetaMap(-1.0, 1.0, 0.0)(GRID)
    assert np.any(np.diff(u_shape) < 0) and np.any(np.diff(u_shape) > 0)
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.001, 0.999, size=3000)
    y = (rng.uniform(size=p.shape[0]) < _beta_map_proba((-1.0, 1.0, 0.0), p)).astype(
        int
    )
    for parameters in PARAMETERS:
        recal = BetaRecalibrator(parameters=parameters).fit(p, y)
        assert recal.a_[0] >= 0 and recal.b_[0] >= 0
        assert np.all(np.diff(recal.predict_proba(GRID)[:, 1]) >= 0)


def test_midpoint(global_random_seed):
    """Check m: the score mapped to 1/2, in closed form where there is one."""
    rng = np.random.RandomState(global_random_seed)
    for parameters in PARAMETERS:
        p, y = _problem(rng, "inside")
        recal = BetaRecalibrator(parameters=parameters).fit(p, y)
        a, b, c, m = recal.a_[0], recal.b_[0], recal.c_[0], recal.m_[0]
        assert_allclose(a * math.log(m) - b * math.log1p(-m) + c, 0.0, atol=1e-10)
        assert_allclose(recal.predict_proba([m])[0, 1], 0.5, atol=1e-10)
        if parameters == "ab":
            assert_allclose(m, 0.5, rtol=1e-12)
        if parameters == "am":
            assert_allclose(m, 1.0 / (1.0 + math.exp(c / a)), rtol=1e-12)
    # One shape parameter 0: closed forms, or an end of [0, 1].
    assert_allclose(BetaMap(2.0, 0.0, 0.6).midpoint(), math.exp(-0.3), rtol=1e-15)
    assert BetaMap(2.0, 0.0, -0.6).midpoint() == 1.0
    assert_allclose(BetaMap(0.0, 2.0, -0.6).midpoint(), -math.expm1(-0.3), rtol=1e-15)
    assert BetaMap(0.0, 2.0, 0.6).midpoint() == 0.0
    assert BetaMap(0.0, 0.0, 0.6).midpoint() == 0.0
    assert BetaMap(0.0, 0.0, -0.6).midpoint() == 1.0
    assert BetaMap(0.0, 0.0, 0.0).midpoint() == 0.5


def test_posterior_of_beta_distributed_scores(global_random_seed):
    """Check the derivation: beta-distributed class scores give a beta map posterior.

    Scores ``Beta(a1, b1)`` on positives and ``Beta(a0, b0)`` on negatives,
    positives with prior ``pi``, have the posterior of the map ``a = a1 - a0``,
    ``b = b0 - b1``, ``c = log(pi / (1 - pi)) + log B(a0, b0) - log B(a1, b1)``;
    the fit on such a sample is close to it.
    """
    a1, b1, a0, b0, pi = 4.0, 2.0, 2.0, 3.0, 0.4
    c = math.log(pi / (1 - pi)) + betaln(a0, b0) - betaln(a1, b1)
    positive = pi * stats.beta.pdf(GRID, a1, b1)
    posterior = positive / (positive + (1 - pi) * stats.beta.pdf(GRID, a0, b0))
    assert_allclose(BetaMap(a1 - a0, b0 - b1, c)(GRID), posterior, rtol=1e-10)

    rng = np.random.RandomState(global_random_seed)
    n = 20_000
    y = rng.uniform(size=n) < pi
    s = np.where(y, rng.beta(a1, b1, size=n), rng.beta(a0, b0, size=n))
    recal = BetaRecalibrator().fit(s, y)
    inner = (GRID > 0.05) & (GRID < 0.95)
    fitted = recal.predict_proba(GRID[inner])[:, 1]
    assert np.abs(fitted - posterior[inner]).max() < 0.04


def test_beta_beats_a_sigmoid_of_the_log_odds(global_random_seed):
    """Check the paper's point: where a != b, "abm" beats "am" on held-out data."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(0.01, 0.99, size=10_000)
    truth = _beta_map_proba((3.0, 0.1, 1.5), p)
    y = (rng.uniform(size=p.shape[0]) < truth).astype(int)
    fit, test = slice(0, 5000), slice(5000, None)
    losses = {
        parameters: _mean_loss(
            BetaRecalibrator(parameters=parameters)
            .fit(p[fit], y[fit])
            .predict_proba(p[test])[:, 1],
            y[test],
            None,
        )
        for parameters in PARAMETERS
    }
    assert losses["abm"] < losses["am"] - 0.003


# ---------------------------------------------------------------------------
# Inputs and invariances
# ---------------------------------------------------------------------------


def test_decision_values_are_read_as_probabilities(global_random_seed):
    """Check that decision values s give the fit of the probabilities expit(s)."""
    rng = np.random.RandomState(global_random_seed)
    p, y = _problem(rng, "inside")
    s = logit(p)
    from_logits = BetaRecalibrator().fit(s, y)
    from_proba = BetaRecalibrator().fit(p, y)
    assert (from_logits.input_, from_proba.input_) == ("logit", "probability")
    assert_allclose(from_logits.a_, from_proba.a_, rtol=1e-8)
    assert_allclose(from_logits.c_, from_proba.c_, rtol=1e-8, atol=1e-10)
    assert_allclose(
        from_logits.predict_proba(logit(GRID)),
        from_proba.predict_proba(GRID),
        atol=1e-10,
    )


def test_clipping_of_extreme_scores():
    """Check that probabilities 0 and 1 (huge decision values) are clipped at 1e-12."""
    p = np.array([0.0, 1e-14, 0.2, 0.4, 0.6, 0.8, 1.0 - 1e-14, 1.0])
    y = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    recal = BetaRecalibrator().fit(p, y)
    proba = recal.predict_proba([0.0, 1e-12, 1.0 - 1e-12, 1.0])[:, 1]
    assert np.isfinite(proba).all()
    assert proba[0] == proba[1] and proba[2] == proba[3]
    logits = BetaRecalibrator(input="logit").fit(logit(np.clip(p, 1e-12, 1 - 1e-12)), y)
    assert_allclose(logits.predict_proba([-1e300, 1e300]), recal.predict_proba([0, 1]))


def test_multiclass_maps(global_random_seed):
    """Check one map per class for "ovr", one for "top_label", with their attributes."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(3), size=300)
    y = np.array([rng.choice(3, p=row) for row in proba])
    ovr = BetaRecalibrator().fit(proba, y)
    for name in ("a_", "b_", "c_", "m_"):
        assert getattr(ovr, name).shape == (3,)
    out = ovr.predict_proba(proba)
    assert_allclose(out.sum(axis=1), 1.0, rtol=1e-12)
    top = BetaRecalibrator(multiclass="top_label").fit(proba, y)
    assert top.a_.shape == (1,)
    assert (top.predict(proba) == proba.argmax(axis=1)).all()


def test_constant_scores():
    """Check that a constant score gives the mean label everywhere (a = b = 0)."""
    y = np.array([0, 1, 1, 0, 1, 1])
    for parameters in ("abm", "am"):
        recal = BetaRecalibrator(parameters=parameters).fit(np.full(6, 0.3), y)
        assert recal.a_[0] == recal.b_[0] == 0.0
        assert_allclose(recal.predict_proba([0.1, 0.9])[:, 1], 4 / 6, rtol=1e-10)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 1000),
    exponent=st.integers(-200, 200),
    parameters=st.sampled_from(PARAMETERS),
)
def test_weight_scale_and_row_order_do_not_matter(seed, exponent, parameters):
    """Check that scaling every weight, or permuting rows, leaves the fit unchanged."""
    rng = np.random.RandomState(seed)
    p, y = _problem(rng, "inside", n=100)
    w = rng.uniform(0.1, 3.0, size=100)
    base = BetaRecalibrator(parameters=parameters).fit(p, y, sample_weight=w)
    perm = rng.permutation(100)
    other = BetaRecalibrator(parameters=parameters).fit(
        p[perm], y[perm], sample_weight=w[perm] * 10.0**exponent
    )
    assert_allclose(other.predict_proba(GRID), base.predict_proba(GRID), atol=1e-9)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"parameters": "abc"}, "'parameters' parameter"),
        ({"parameters": None}, "'parameters' parameter"),
        ({"multiclass": "ovo"}, "'multiclass' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid parameters are refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match=match):
        BetaRecalibrator(**params).fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
