"""Tests of Platt scaling (skcal/calibration/_platt.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from skcal.calibration import IsotonicRecalibrator, PlattRecalibrator
from skcal.calibration._platt import fit_sigmoid
from skcal.metrics import cutoff_calibration_error

# The example of Rossellini et al. (2025), Figure 4: forecasts uniform on four
# values, outcome 1 at the two ends and 0 in the middle.
FIG4_SCORES = np.array([0.0, 0.25, 0.5, 1.0])
FIG4_LABELS = np.array([1, 0, 0, 1])
# The population Platt fit (cutoff_calibration.md, section 4.2).
FIG4_BETA = (-0.40580424, 0.93089507)
FIG4_H = np.array([0.39991861, 0.45683758, 0.51490641, 0.62833740])
FIG4_CUTOFF = 0.242936

# ---------------------------------------------------------------------------
# Reference: scipy's minimiser on the same loss
# ---------------------------------------------------------------------------


def _targets(y, w):
    n_pos, n_neg = w[y].sum(), w[~y].sum()
    return np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def _loss(theta, x, t, v):
    f = theta[0] * x + theta[1]
    return float(np.dot(v, np.logaddexp(0.0, f) - t * f))


def reference_sigmoid(x, y, sample_weight=None, targets=None):
    """``(coef, intercept)`` minimising ``sum w [log(1 + e^f) - t f]``, f = a x + b.

    Platt's targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)`` from the
    weighted counts (or the ``targets`` given), minimised by L-BFGS-B in the
    original parametrisation with tight tolerances. The weights are divided
    by their sum, which leaves the minimiser unchanged.
    """
    y = np.asarray(y, dtype=bool)
    w = np.ones(x.shape[0]) if sample_weight is None else sample_weight
    t = _targets(y, w) if targets is None else targets
    v = w / w.sum()

    def fun(theta):
        f = theta[0] * x + theta[1]
        d = v * (expit(f) - t)
        return _loss(theta, x, t, v), np.array([np.dot(d, x), d.sum()])

    result = minimize(
        fun,
        np.zeros(2),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 0.0, "maxiter": 10_000},
    )
    return result.x


def _random_problem(rng, n=200):
    x = 2.0 * rng.normal(size=n) + rng.normal()
    y = rng.uniform(size=n) < expit(rng.uniform(-1.0, 2.0) * x + rng.normal())
    y[:2] = [True, False]
    return x, y


# ---------------------------------------------------------------------------
# fit_sigmoid against the reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_fit_sigmoid_matches_reference(global_random_seed, weighted):
    """Check that fit_sigmoid minimises the weighted Platt loss, as scipy finds it."""
    rng = np.random.RandomState(global_random_seed)
    x, y = _random_problem(rng)
    w = rng.uniform(0.1, 3.0, size=x.shape[0]) if weighted else None
    sigmoid = fit_sigmoid(x, y, w)
    a, b = reference_sigmoid(x, y, w)
    assert_allclose([sigmoid.coef, sigmoid.intercept], [a, b], rtol=1e-6, atol=1e-6)
    # Never a worse loss than the reference's.
    v = np.ones_like(x) if w is None else w
    t, v = _targets(y, v), v / v.sum()
    ours = _loss([sigmoid.coef, sigmoid.intercept], x, t, v)
    assert ours <= _loss([a, b], x, t, v) + 1e-12
    assert_allclose(sigmoid(x), expit(sigmoid.coef * x + sigmoid.intercept))


def test_fit_sigmoid_uses_platt_targets():
    """Check the smoothed targets: the fit is that of the targets, not of the labels."""
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1], dtype=bool)
    t = np.where(y, 5.0 / 6.0, 1.0 / 6.0)  # N+ = N- = 4
    sigmoid = fit_sigmoid(x, y)
    expected = reference_sigmoid(x, y, targets=t)
    assert_allclose([sigmoid.coef, sigmoid.intercept], expected, rtol=1e-6, atol=1e-8)
    raw = reference_sigmoid(x, y, targets=y.astype(float))
    assert not np.allclose([sigmoid.coef, sigmoid.intercept], raw, rtol=1e-2)


# ---------------------------------------------------------------------------
# Agreement with scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Since FrozenEstimator:UserWarning")
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_calibrated_classifier_cv(global_random_seed, n_classes, weighted):
    """Check agreement with CalibratedClassifierCV(method="sigmoid")."""
    rng = np.random.RandomState(global_random_seed)
    X, y = make_classification(
        n_samples=600,
        n_features=5,
        n_informative=3,
        n_classes=n_classes,
        n_clusters_per_class=1,
        flip_y=0.2,
        random_state=rng,
    )
    lr = LogisticRegression(C=0.05).fit(X[:300], y[:300])
    X_cal, y_cal, X_test = X[300:], y[300:], rng.normal(size=(50, 5))
    w = rng.uniform(0.1, 3.0, size=300) if weighted else None
    ours = PlattRecalibrator(FrozenEstimator(lr)).fit(X_cal, y_cal, sample_weight=w)
    theirs = CalibratedClassifierCV(FrozenEstimator(lr), method="sigmoid").fit(
        X_cal, y_cal, sample_weight=w
    )
    assert ours.input_ == "logit"
    assert ours.coef_.shape == (1 if n_classes == 2 else n_classes,)
    # scikit-learn stops L-BFGS at gtol 1e-6.
    for data in (X_cal, X_test):
        assert_allclose(ours.predict_proba(data), theirs.predict_proba(data), atol=1e-5)
    # Its fitted map is expit(-(a x + b)).
    a = [c.a_ for c in theirs.calibrated_classifiers_[0].calibrators]
    assert_allclose(ours.coef_, -np.array(a), rtol=1e-3, atol=1e-4)


# ---------------------------------------------------------------------------
# Numerical robustness
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_separable_data(global_random_seed, weighted):
    """Check a finite fit, the reference's, on perfectly separated classes."""
    rng = np.random.RandomState(global_random_seed)
    n = 100
    y = rng.uniform(size=n) < 0.5
    y[:2] = [True, False]
    x = np.where(y, rng.uniform(0.1, 2.0, n), rng.uniform(-2.0, -0.1, n))
    w = rng.uniform(0.1, 3.0, size=n) if weighted else None
    sigmoid = fit_sigmoid(x, y, w)
    assert np.isfinite([sigmoid.coef, sigmoid.intercept]).all()
    assert sigmoid.coef > 1.0
    expected = reference_sigmoid(x, y, w)
    assert_allclose([sigmoid.coef, sigmoid.intercept], expected, rtol=1e-6, atol=1e-6)
    # The targets cap the probabilities away from 0 and 1.
    p = PlattRecalibrator().fit(x, y, sample_weight=w).predict_proba(x)[:, 1]
    assert p.min() > 0.0 and p.max() < 1.0


@pytest.mark.parametrize("value", [0.1, 2.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_constant_feature(global_random_seed, value, weighted):
    """Check that a constant feature gives the weighted mean target at every score.

    A constant whose (weighted) mean is not computed exactly, such as 0.1,
    must not be taken for a spread-out feature (a slope of 1e14).
    """
    rng = np.random.RandomState(global_random_seed)
    n = 37
    y = rng.uniform(size=n) < 0.3
    y[:2] = [True, False]
    w = rng.uniform(0.1, 3.0, size=n) if weighted else np.ones(n)
    expected = np.dot(w, _targets(y, w)) / w.sum()

    sigmoid = fit_sigmoid(np.full(n, value), y, w if weighted else None)
    assert abs(sigmoid.coef) < 1e-8
    at = np.array([value, value - 0.05, value + 0.05, -7.0, 1e6])
    assert_allclose(sigmoid(at), expected, rtol=1e-9)

    recal = PlattRecalibrator(input="logit").fit(
        np.full(n, value), y, sample_weight=w if weighted else None
    )
    assert_allclose(recal.predict_proba(at)[:, 1], expected, rtol=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
def test_features_of_magnitude_1e6(global_random_seed, weighted):
    """Check that scaling or shifting the feature by 1e6 moves only the map."""
    rng = np.random.RandomState(global_random_seed)
    x, y = _random_problem(rng)
    w = rng.uniform(0.1, 3.0, size=x.shape[0]) if weighted else None
    base = fit_sigmoid(x, y, w)

    scaled = fit_sigmoid(1e6 * x, y, w)
    assert_allclose(scaled.coef * 1e6, base.coef, rtol=1e-6, atol=1e-8)
    assert_allclose(scaled.intercept, base.intercept, rtol=1e-6, atol=1e-8)

    shifted = fit_sigmoid(x + 1e6, y, w)
    assert_allclose(shifted.coef, base.coef, rtol=1e-6, atol=1e-7)
    assert_allclose(shifted(x + 1e6), base(x), rtol=1e-6)

    recal = PlattRecalibrator(input="logit").fit(1e6 * x, y, sample_weight=w)
    assert_allclose(recal.predict_proba(1e6 * x)[:, 1], base(x), rtol=1e-7)


def test_weight_scale(global_random_seed):
    """Check tiny and huge weights: the reference's fit, flat when the counts vanish.

    The targets use the weighted counts, so scaling the weights changes the
    fit; it stops changing once the counts are large.
    """
    rng = np.random.RandomState(global_random_seed)
    x, y = _random_problem(rng)
    w = rng.uniform(0.5, 2.0, size=x.shape[0])
    fits = {}
    for scale in [1e-300, 1e-6, 1e-2, 1.0, 1e3, 1e12, 1e300]:
        sigmoid = fit_sigmoid(x, y, scale * w)
        fits[scale] = np.array([sigmoid.coef, sigmoid.intercept])
        assert np.isfinite(fits[scale]).all()
        recal = PlattRecalibrator(input="logit").fit(x, y, sample_weight=scale * w)
        assert_allclose([recal.coef_[0], recal.intercept_[0]], fits[scale])
        if scale < 1e300:  # the reference's counts would overflow
            expected = reference_sigmoid(x, y, scale * w)
            assert_allclose(fits[scale], expected, rtol=1e-6, atol=1e-7)
    # Vanishing counts: every target is 1/2.
    assert_allclose(fits[1e-300], 0.0, atol=1e-12)
    # Large counts: the targets are the labels to 1e-12.
    assert_allclose(fits[1e300], fits[1e12], rtol=1e-6, atol=1e-8)
    assert_allclose(
        fits[1e12],
        reference_sigmoid(x, y, w, targets=y.astype(float)),
        rtol=1e-6,
        atol=1e-7,
    )


def test_probabilities_zero_and_one(global_random_seed):
    """Check that probabilities of exactly 0 and 1 are clipped at 1e-12."""
    rng = np.random.RandomState(global_random_seed)
    n = 200
    p = rng.uniform(size=n)
    p[:20], p[20:40] = 0.0, 1.0
    y = (rng.uniform(size=n) < 0.2 + 0.6 * p).astype(int)
    recal = PlattRecalibrator().fit(p, y)
    assert recal.input_ == "probability"
    assert np.isfinite(recal.coef_).all() and np.isfinite(recal.intercept_).all()

    clipped = np.clip(p, 1e-12, 1.0 - 1e-12)
    expected = fit_sigmoid(np.log(clipped / (1.0 - clipped)), y == 1)
    assert_allclose(recal.coef_, [expected.coef], rtol=1e-6)
    assert_allclose(recal.intercept_, [expected.intercept], rtol=1e-6, atol=1e-9)

    proba = recal.predict_proba([0.0, 1e-13, 1e-12, 1.0 - 1e-12, 1.0])[:, 1]
    assert np.isfinite(proba).all()
    assert proba.min() > 0.0 and proba.max() < 1.0
    assert_allclose(proba[:3], proba[2], rtol=1e-12)
    assert_allclose(proba[3:], proba[4], rtol=1e-12)


def test_probabilities_are_mapped_on_their_log_odds(global_random_seed):
    """Check that probabilities are recalibrated on their log-odds by default.

    Calibrated probabilities then keep a near-identity map (slope 1,
    intercept 0), which a sigmoid of the probabilities themselves (scikit-learn's
    choice, ``input="logit"`` here) cannot represent.
    """
    rng = np.random.RandomState(global_random_seed)
    p = rng.beta(0.5, 0.5, size=20_000)
    y = (rng.uniform(size=p.shape[0]) < p).astype(int)
    log_odds = PlattRecalibrator().fit(p, y)
    assert log_odds.input_ == "probability"
    # Over seeds 0-99: |slope - 1| <= 0.043, |intercept| <= 0.061, largest
    # distance to the identity 0.019 on the log-odds and >= 0.057 raw.
    assert_allclose(log_odds.coef_, [1.0], atol=0.1)
    assert_allclose(log_odds.intercept_, [0.0], atol=0.1)
    raw = PlattRecalibrator(input="logit").fit(p, y)
    assert raw.input_ == "logit"
    mapped = log_odds.predict_proba(p)[:, 1]
    assert np.abs(mapped - p).max() < 0.03
    assert np.abs(raw.predict_proba(p)[:, 1] - p).max() > 0.045


# ---------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("input", ["probability", "logit"])
def test_integer_weights_are_repeated_rows(global_random_seed, input):
    """Check that integer weights equal repeated rows and zero weights dropped rows."""
    rng = np.random.RandomState(global_random_seed)
    n = 150
    p = rng.uniform(0.01, 0.99, size=n)
    y = (rng.uniform(size=n) < p**2).astype(int)
    y[:2] = [0, 1]
    w = rng.randint(0, 4, size=n)
    w[:2] = 1
    weighted = PlattRecalibrator(input=input).fit(p, y, sample_weight=w)
    repeated = PlattRecalibrator(input=input).fit(np.repeat(p, w), np.repeat(y, w))
    dropped = PlattRecalibrator(input=input).fit(
        p[w > 0], y[w > 0], sample_weight=w[w > 0]
    )
    for other in (repeated, dropped):
        assert_allclose(weighted.coef_, other.coef_, rtol=1e-6)
        assert_allclose(weighted.intercept_, other.intercept_, rtol=1e-6, atol=1e-8)
        assert_allclose(weighted.predict_proba(p), other.predict_proba(p), rtol=1e-6)


# ---------------------------------------------------------------------------
# Rossellini et al. (2025), Figure 4: Platt stays miscalibrated
# ---------------------------------------------------------------------------


def test_counterexample_population_fit():
    """Check the population Platt fit of the Figure 4 example (4 rows, weight 1e6)."""
    w = np.full(4, 0.25e6)
    recal = PlattRecalibrator(input="logit").fit(
        FIG4_SCORES, FIG4_LABELS, sample_weight=w
    )
    # The smoothed targets move the fit by O(1e-6) from the population's.
    assert_allclose(recal.intercept_, [FIG4_BETA[0]], atol=1e-5)
    assert_allclose(recal.coef_, [FIG4_BETA[1]], atol=1e-5)
    h = recal.predict_proba(FIG4_SCORES)[:, 1]
    assert_allclose(h, FIG4_H, atol=1e-5)
    assert_allclose(h, [0.39992, 0.45684, 0.51491, 0.62834], atol=1e-5)

    # Larger weights approach the unsmoothed minimiser.
    exact = reference_sigmoid(
        FIG4_SCORES, FIG4_LABELS == 1, targets=FIG4_LABELS.astype(float)
    )
    assert_allclose(exact, FIG4_BETA[::-1], atol=1e-6)
    big = fit_sigmoid(FIG4_SCORES, FIG4_LABELS == 1, np.full(4, 1e10))
    assert_allclose([big.coef, big.intercept], exact, atol=1e-7)


def test_counterexample_platt_stays_miscalibrated():
    """Check that Platt's cutoff error stays 0.24294 where isotonic reaches 0."""
    w = np.full(4, 0.25e6)
    platt = PlattRecalibrator(input="logit").fit(
        FIG4_SCORES, FIG4_LABELS, sample_weight=w
    )
    h = platt.predict_proba(FIG4_SCORES)[:, 1]
    error = cutoff_calibration_error(FIG4_LABELS, h, sample_weight=w)
    assert_allclose(error, FIG4_CUTOFF, atol=1e-5)
    # Attained on the middle two forecasts.
    assert_allclose(error, 0.25 * (h[1] + h[2]), rtol=1e-12)

    iso = IsotonicRecalibrator(input="logit").fit(
        FIG4_SCORES, FIG4_LABELS, sample_weight=w
    )
    g = iso.predict_proba(FIG4_SCORES)[:, 1]
    assert_allclose(g, [1 / 3, 1 / 3, 1 / 3, 1.0], rtol=1e-12)
    assert_allclose(
        cutoff_calibration_error(FIG4_LABELS, g, sample_weight=w), 0.0, atol=1e-12
    )


def test_counterexample_tiled_sample():
    """Check the tiled Figure 4 sample: rows give the fit that weights give."""
    reps = 2_500
    scores, labels = np.tile(FIG4_SCORES, reps), np.tile(FIG4_LABELS, reps)
    tiled = PlattRecalibrator(input="logit").fit(scores, labels)
    weighted = PlattRecalibrator(input="logit").fit(
        FIG4_SCORES, FIG4_LABELS, sample_weight=np.full(4, reps)
    )
    assert_allclose(tiled.coef_, weighted.coef_, rtol=1e-9)
    assert_allclose(tiled.intercept_, weighted.intercept_, rtol=1e-9)
    assert_allclose(tiled.coef_, [FIG4_BETA[1]], atol=1e-3)
    h = tiled.predict_proba(scores)[:, 1]
    assert_allclose(cutoff_calibration_error(labels, h), FIG4_CUTOFF, atol=1e-3)
