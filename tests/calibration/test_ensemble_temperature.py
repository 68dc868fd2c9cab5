"""Tests of ensemble temperature scaling (calibration/_ensemble_temperature.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax

from skcal._param_validation import InvalidParameterError
from skcal.calibration import (
    EnsembleTemperatureRecalibrator,
    TemperatureRecalibrator,
)
from skcal.calibration._ensemble_temperature import (
    _brier_weights,
    _log_weights,
)
from skcal.calibration._temperature import _brier_slope

LOSSES = ["brier", "log"]


# ---------------------------------------------------------------------------
# Reference: the mixture and its loss, written from the formula
# ---------------------------------------------------------------------------


def _mixture(logits, temperature, weights):
    """w_1 softmax(z / T) + w_2 softmax(z) + w_3 / K."""
    k = logits.shape[1]
    return (
        weights[0] * softmax(logits / temperature, axis=1)
        + weights[1] * softmax(logits, axis=1)
        + weights[2] / k
    )


def _mean_loss(proba, y, sample_weight, loss):
    """Weighted mean Brier score (sum over classes) or log loss of rows of proba."""
    rows = np.arange(y.shape[0])
    if loss == "log":
        per_row = -np.log(proba[rows, y])
    else:
        per_row = ((proba - np.eye(proba.shape[1])[y]) ** 2).sum(axis=1)
    return float(np.average(per_row, weights=sample_weight))


def _ts_loss(logits, y, sample_weight, temperature, loss):
    """Mean loss of softmax(z / T) (temperature scaling)."""
    scaled = logits / temperature
    if loss == "log":
        rows = np.arange(y.shape[0])
        per_row = -log_softmax(scaled, axis=1)[rows, y]
        return float(np.average(per_row, weights=sample_weight))
    return _mean_loss(softmax(scaled, axis=1), y, sample_weight, loss)


def _random_logits(rng, n, k, noise=0.0):
    """Overconfident logits; labels from softmax(z / T), some drawn at random."""
    logits = rng.normal(scale=rng.uniform(2.0, 5.0), size=(n, k))
    proba = softmax(logits / math.exp(rng.uniform(0.0, 1.2)), axis=1)
    u = rng.uniform(size=(n, 1))
    y = np.minimum((proba.cumsum(axis=1) < u).sum(axis=1), k - 1)
    flip = rng.uniform(size=n) < noise
    y[flip] = rng.randint(k, size=flip.sum())
    y[:k] = np.arange(k)
    return logits, y


def _simplex_grid(step):
    """Every (w_1, w_2, w_3) with coordinates multiple of 1/step on the simplex."""
    i, j = np.meshgrid(np.arange(step + 1), np.arange(step + 1), indexing="ij")
    keep = i + j <= step
    w1, w2 = i[keep] / step, j[keep] / step
    return np.column_stack([w1, w2, 1.0 - w1 - w2])


def brute_force_weights(logits, y, sample_weight, temperature, loss):
    """The best weights of a grid of the simplex, polished by scipy on (w1, w2).

    The grid (step 1/100) is evaluated row by row of the formula; the best
    point seeds a bounded Nelder-Mead search on the triangle, with the loss
    set to infinity outside.
    """
    grid = _simplex_grid(100)
    values = [
        _mean_loss(_mixture(logits, temperature, w), y, sample_weight, loss)
        for w in grid
    ]
    start = grid[int(np.argmin(values))]

    def objective(v):
        if v.min() < 0 or v.sum() > 1:
            return np.inf
        w = np.array([v[0], v[1], 1.0 - v[0] - v[1]])
        return _mean_loss(_mixture(logits, temperature, w), y, sample_weight, loss)

    result = minimize(
        objective,
        start[:2],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-15, "maxiter": 4000},
    )
    return min(*values, result.fun)


# ---------------------------------------------------------------------------
# Stage 1: the temperature is temperature scaling's
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_temperature_is_temperature_scaling(global_random_seed, weighted):
    """Check T: TemperatureRecalibrator's, refined to the Brier derivative's root."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 300, 4)
    w = rng.uniform(0.2, 3.0, size=300) if weighted else None
    log_ets = EnsembleTemperatureRecalibrator(loss="log").fit(logits, y, w)
    log_ts = TemperatureRecalibrator(loss="log").fit(logits, y, w)
    assert log_ets.temperature_ == log_ts.temperature_

    ets = EnsembleTemperatureRecalibrator(loss="brier").fit(logits, y, w)
    ts = TemperatureRecalibrator(loss="brier").fit(logits, y, w)
    # Brent on function values stops ~1e-8 from the minimiser; the refinement
    # stays there and sets the derivative to rounding.
    assert_allclose(ets.temperature_, ts.temperature_, rtol=1e-6)
    weights = None if w is None else w / w.sum()
    assert abs(_brier_slope(logits, y, weights, ets.temperature_)) < 1e-12
    assert abs(_brier_slope(logits, y, weights, ets.temperature_ * 1.001)) > 1e-7
    assert _ts_loss(logits, y, w, ets.temperature_, "brier") <= (
        _ts_loss(logits, y, w, ts.temperature_, "brier") + 1e-15
    )


def test_brier_slope_is_the_derivative(global_random_seed):
    """Check the analytic derivative in log T against central differences."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 100, 3)
    w = rng.uniform(0.1, 2.0, size=100)
    for t in (0.3, 1.0, 4.0):
        h = 1e-5
        up = _ts_loss(logits, y, w, t * math.exp(h), "brier")
        down = _ts_loss(logits, y, w, t * math.exp(-h), "brier")
        expected = (up - down) / (2 * h)
        assert_allclose(_brier_slope(logits, y, w / w.sum(), t), expected, rtol=1e-6)


# ---------------------------------------------------------------------------
# Stage 2: the weights minimise the loss on the simplex
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
def test_weights_minimise_loss_on_simplex(global_random_seed, loss, weighted):
    """Check that the fitted loss is no worse than a grid search polished by scipy."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 150, 3, noise=rng.uniform(0.0, 0.5))
    w = rng.uniform(0.2, 3.0, size=150) if weighted else None
    recal = EnsembleTemperatureRecalibrator(loss=loss, input="logit").fit(
        logits, y, sample_weight=w
    )
    assert recal.weights_.min() >= 0.0
    assert_allclose(recal.weights_.sum(), 1.0, rtol=1e-15)
    ours = _mean_loss(recal.predict_proba(logits), y, w, loss)
    assert_allclose(
        ours,
        _mean_loss(_mixture(logits, recal.temperature_, recal.weights_), y, w, loss),
        rtol=1e-13,
    )
    reference = brute_force_weights(logits, y, w, recal.temperature_, loss)
    assert ours <= reference + 1e-12


def _kkt_residual(gradient, weights):
    """How far weights on the simplex are from its KKT conditions for a gradient.

    At a minimiser, the gradient's entries equal a multiplier on the support
    of the weights and are at least that multiplier off it.
    """
    support = weights > 1e-9
    level = gradient[support].mean()
    return max(
        np.abs(gradient[support] - level).max(),
        max(0.0, level - gradient[~support].min()) if (~support).any() else 0.0,
    )


@pytest.mark.parametrize("loss", LOSSES)
def test_weights_meet_the_kkt_conditions(global_random_seed, loss):
    """Check the optimality conditions of the simplex-constrained minimum."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 400, 5, noise=rng.uniform(0.0, 0.6))
    tempered = softmax(logits / 1.7, axis=1)
    original = softmax(logits, axis=1)
    fit = _brier_weights if loss == "brier" else _log_weights
    weights = fit(tempered, original, y, None)
    parts = np.stack([tempered, original, np.full_like(tempered, 1 / 5)], axis=2)
    proba = parts @ weights
    rows = np.arange(400)
    if loss == "brier":
        residual = proba - np.eye(5)[y]
        gradient = 2.0 * np.einsum("ik,ikj->j", residual, parts) / 400
    else:
        gradient = -(parts[rows, y] / proba[rows, y][:, None]).mean(axis=0)
    tolerance = 1e-12 if loss == "brier" else 1e-7
    assert _kkt_residual(gradient, weights) < tolerance


def test_exact_brier_weights_match_slsqp(global_random_seed):
    """Check the exact QP against SLSQP on the three weights (the authors' solver)."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 300, 4, noise=0.3)
    tempered, original = softmax(logits / 2.0, axis=1), softmax(logits, axis=1)
    ours = _brier_weights(tempered, original, y, None)

    def objective(w):
        return _mean_loss(_mixture(logits, 2.0, w), y, None, "brier")

    slsqp = minimize(
        objective,
        np.array([1.0, 0.0, 0.0]),
        method="SLSQP",
        bounds=[(0.0, 1.0)] * 3,
        constraints={"type": "eq", "fun": lambda w: w.sum() - 1.0},
        options={"ftol": 1e-15, "maxiter": 500},
    )
    assert objective(ours) <= objective(slsqp.x) + 1e-14
    assert_allclose(ours, slsqp.x, atol=1e-5)


# ---------------------------------------------------------------------------
# The authors' two-stage procedure (their code's description), reproduced
# ---------------------------------------------------------------------------


def authors_temperature(logits, y):
    """Stage 1 of Zhang et al.'s code: L-BFGS-B on T in [0.05, 5], from T = 1.

    The loss is the mean of (p - onehot)**2 over all n * K entries, the
    Brier score divided by K.
    """
    onehot = np.eye(logits.shape[1])[y]

    def mse_t(t):
        return float(np.mean((softmax(logits / t[0], axis=1) - onehot) ** 2))

    return minimize(mse_t, [1.0], method="L-BFGS-B", bounds=[(0.05, 5.0)], tol=1e-12).x[
        0
    ]


def authors_weights(logits, y, temperature):
    """Stage 2 of their code: SLSQP on the three weights, from (1, 0, 0).

    Weights in [0, 1] summing to 1; each row of the mixture renormalised
    before the mean squared error.
    """
    onehot = np.eye(logits.shape[1])[y]

    def mse_w(w):
        p = _mixture(logits, temperature, w)
        p = p / p.sum(axis=1, keepdims=True)
        return float(np.mean((p - onehot) ** 2))

    return minimize(
        mse_w,
        [1.0, 0.0, 0.0],
        method="SLSQP",
        bounds=[(0.0, 1.0)] * 3,
        constraints={"type": "eq", "fun": lambda w: np.sum(w) - 1.0},
        tol=1e-12,
    ).x


def test_matches_the_authors_procedure(global_random_seed):
    """Check each stage against the authors' two-stage fit with squared error."""
    rng = np.random.RandomState(global_random_seed)
    # Logits twice too large, labels of a quarter of the rows at random: a
    # temperature well inside the authors' bounds [0.05, 5].
    logits = rng.normal(scale=3.0, size=(400, 4))
    u = rng.uniform(size=(400, 1))
    y = np.minimum((softmax(logits / 2.0, axis=1).cumsum(axis=1) < u).sum(1), 3)
    noisy = rng.uniform(size=400) < 0.25
    y[noisy] = rng.randint(4, size=noisy.sum())
    recal = EnsembleTemperatureRecalibrator().fit(logits, y)
    t = authors_temperature(logits, y)
    assert 0.06 < recal.temperature_ < 4.9  # inside the authors' bounds
    # Stage 1: L-BFGS-B's stopping rule leaves T within about 1e-5, and ours
    # is the better minimiser.
    assert_allclose(recal.temperature_, t, rtol=1e-4)
    assert _ts_loss(logits, y, None, recal.temperature_, "brier") <= (
        _ts_loss(logits, y, None, t, "brier") + 1e-15
    )
    # Stage 2, at our temperature: SLSQP's weights are no better than ours.
    w = authors_weights(logits, y, recal.temperature_)
    ours = _mean_loss(recal.predict_proba(logits), y, None, "brier")
    theirs = _mean_loss(_mixture(logits, recal.temperature_, w), y, None, "brier")
    assert ours <= theirs + 1e-14
    assert_allclose(recal.weights_, w / w.sum(), atol=1e-3)
    # The whole of their fit: the same loss to the optimisers' tolerance.
    w_theirs = authors_weights(logits, y, t)
    whole = _mean_loss(_mixture(logits, t, w_theirs), y, None, "brier")
    assert_allclose(ours, whole, rtol=1e-8)


def test_two_stage_is_not_the_joint_minimum():
    """Check that a joint fit of (T, w) can do better (the paper fits in two stages)."""
    rng = np.random.RandomState(0)
    logits, y = _random_logits(rng, 400, 4, noise=0.4)
    recal = EnsembleTemperatureRecalibrator().fit(logits, y)
    two_stage = _mean_loss(recal.predict_proba(logits), y, None, "brier")

    def joint(params):
        log_t, v1, v2 = params
        if min(v1, v2) < 0 or v1 + v2 > 1:
            return np.inf
        w = [v1, v2, 1.0 - v1 - v2]
        return _mean_loss(_mixture(logits, math.exp(log_t), w), y, None, "brier")

    start = [math.log(recal.temperature_), *recal.weights_[:2]]
    result = minimize(joint, start, method="Nelder-Mead", options={"fatol": 1e-14})
    assert result.fun <= two_stage + 1e-15


# ---------------------------------------------------------------------------
# Claims of the paper: ETS contains TS, and keeps the predicted class
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
def test_loss_not_above_temperature_scaling(global_random_seed, loss, weighted):
    """Check that the fitted loss is at most temperature scaling's (w = (1, 0, 0))."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 300, 4, noise=rng.uniform(0.0, 0.5))
    w = rng.uniform(0.2, 3.0, size=300) if weighted else None
    ets = EnsembleTemperatureRecalibrator(loss=loss).fit(logits, y, sample_weight=w)
    ts = TemperatureRecalibrator(loss=loss).fit(logits, y, sample_weight=w)
    ours = _mean_loss(ets.predict_proba(logits), y, w, loss)
    assert ours <= _mean_loss(ts.predict_proba(logits), y, w, loss) + 1e-12


def test_uniform_part_helps_on_label_noise(global_random_seed):
    """Check that label noise gets weight on the uniform part and beats TS clearly."""
    rng = np.random.RandomState(global_random_seed)
    # Confident logits, but 40 % of the labels drawn uniformly at random:
    # the best calibrated forecast mixes in the uniform distribution.
    logits = rng.normal(scale=6.0, size=(2000, 5))
    y = logits.argmax(axis=1)
    noisy = rng.uniform(size=2000) < 0.4
    y[noisy] = rng.randint(5, size=noisy.sum())
    ets = EnsembleTemperatureRecalibrator().fit(logits, y)
    ts = TemperatureRecalibrator(loss="brier").fit(logits, y)
    assert ets.weights_[2] > 0.2
    ets_loss = _mean_loss(ets.predict_proba(logits), y, None, "brier")
    ts_loss = _mean_loss(ts.predict_proba(logits), y, None, "brier")
    assert ets_loss < ts_loss - 0.01


@pytest.mark.parametrize("loss", LOSSES)
def test_keeps_the_predicted_class(global_random_seed, loss):
    """Check that the argmax of the scores is kept on calibration and new data."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 300, 6, noise=0.5)
    recal = EnsembleTemperatureRecalibrator(loss=loss).fit(logits, y)
    assert recal.weights_[:2].sum() > 0
    new = rng.normal(scale=3.0, size=(500, 6))
    for data in (logits, new):
        assert_array_equal(
            recal.predict_proba(data).argmax(axis=1), data.argmax(axis=1)
        )
        assert_array_equal(recal.predict(data), data.argmax(axis=1))


@pytest.fixture(scope="module")
def fitted_three_classes():
    """An ETS fitted on three classes, whose T and weights the tests overwrite."""
    rng = np.random.RandomState(0)
    logits, y = _random_logits(rng, 60, 3, noise=0.3)
    return EnsembleTemperatureRecalibrator(input="logit").fit(logits, y)


@settings(max_examples=60)
@given(
    row=st.lists(
        st.floats(-30, 30, allow_nan=False), min_size=3, max_size=3, unique=True
    ),
    log_t=st.floats(-3, 3),
    v=st.tuples(st.floats(0, 1), st.floats(0, 1)),
)
def test_every_mixture_ranks_the_classes_as_the_logits(
    fitted_three_classes, row, log_t, v
):
    """Check the accuracy-preservation argument on the map, for any T and weights.

    Each of the three parts is non-decreasing along the logits' order, so
    their mixture is; it is strictly increasing when w_1 + w_2 > 0, up to
    rounding of probabilities that differ by less than an ulp.
    """
    recal = fitted_three_classes
    w1, w2 = v[0], v[1] * (1 - v[0])
    recal.temperature_ = math.exp(log_t)
    recal.weights_ = np.array([w1, w2, 1 - w1 - w2])
    z = np.array([row])
    p = recal.predict_proba(z)[0]
    assert_allclose(p, _mixture(z, recal.temperature_, recal.weights_)[0], rtol=1e-12)
    order = np.argsort(z[0])
    assert np.all(np.diff(p[order]) >= -1e-15)
    tempered = softmax(z[0] / recal.temperature_)
    if w1 + w2 > 0.01 and np.diff(np.sort(tempered)).min() > 1e-9:
        assert p.argmax() == z[0].argmax()


# ---------------------------------------------------------------------------
# The map on binary scores and on probabilities
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", LOSSES)
def test_binary_one_column_equals_two_columns(global_random_seed, loss):
    """Check that 1-D decision values fit as the logit pairs (0, s) and (c, c + s)."""
    rng = np.random.RandomState(global_random_seed)
    s = rng.normal(scale=4.0, size=200)
    y = (rng.uniform(size=200) < 0.15 + 0.7 / (1 + np.exp(-s / 2))).astype(int)
    y[:2] = [0, 1]
    c = rng.normal(size=200)
    one = EnsembleTemperatureRecalibrator(loss=loss).fit(s, y)
    two = EnsembleTemperatureRecalibrator(loss=loss).fit(np.column_stack([c, c + s]), y)
    assert_allclose(one.temperature_, two.temperature_, rtol=1e-6)
    assert_allclose(one.weights_, two.weights_, atol=1e-6)
    p = one.predict_proba(s)
    expected = _mixture(
        np.column_stack([np.zeros(200), s]), one.temperature_, one.weights_
    )
    assert_allclose(p, expected, rtol=1e-12)


@pytest.mark.parametrize("loss", LOSSES)
def test_probabilities_are_their_log_probabilities(global_random_seed, loss):
    """Check that probabilities fit as logits log p (softmax(log p) = p)."""
    rng = np.random.RandomState(global_random_seed)
    logits, y = _random_logits(rng, 200, 3, noise=0.3)
    proba = softmax(logits, axis=1)
    from_proba = EnsembleTemperatureRecalibrator(loss=loss).fit(proba, y)
    from_logits = EnsembleTemperatureRecalibrator(loss=loss).fit(logits, y)
    assert from_proba.input_ == "probability"
    assert_allclose(from_proba.temperature_, from_logits.temperature_, rtol=1e-6)
    assert_allclose(
        from_proba.predict_proba(proba), from_logits.predict_proba(logits), atol=1e-6
    )


@pytest.mark.parametrize("loss", LOSSES)
def test_real_data_lowers_loss_and_keeps_argmax(real_multiclass, loss):
    """Check on real classifiers: argmax kept, loss at most TS's and the original's."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    ets = EnsembleTemperatureRecalibrator(loss=loss).fit(prob64, labels)
    ts = TemperatureRecalibrator(loss=loss).fit(prob64, labels)
    calibrated = ets.predict_proba(prob64)
    assert_array_equal(calibrated.argmax(axis=1), prob64.argmax(axis=1))
    ours = _mean_loss(calibrated, labels, None, loss)
    assert ours <= _mean_loss(ts.predict_proba(prob64), labels, None, loss) + 1e-12
    # w = (0, 1, 0) is the original (clipped) probabilities.
    clipped = np.clip(prob64, 1e-12, 1 - 1e-12)
    clipped /= clipped.sum(axis=1, keepdims=True)
    assert ours <= _mean_loss(clipped, labels, None, loss) + 1e-12


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


def test_invalid_loss():
    """Check that an unknown loss is refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match="'loss' parameter"):
        EnsembleTemperatureRecalibrator(loss="mse").fit(
            [0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1]
        )


def test_separable_data_gives_finite_probabilities():
    """Check a fit on perfectly separated scores: finite, valid probabilities."""
    s = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    for loss in LOSSES:
        recal = EnsembleTemperatureRecalibrator(loss=loss).fit(s, y)
        proba = recal.predict_proba(s)
        assert np.all(np.isfinite(proba))
        assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        assert proba[3:, 1].min() > 0.99
