"""Tests of the isotonic recalibrator."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from skcal.calibration import IsotonicRecalibrator
from skcal.metrics import cutoff_calibration_error
from tests.calibration._top_label import assert_top_label_rows, calibrated_confidence
from tests.metrics._reference import random_binary, random_weights

# CalibratedClassifierCV warns that FrozenEstimator.fit takes no sample_weight;
# the weights are meant for the calibration only, which is what is compared.
_IGNORE_FROZEN_WEIGHTS = pytest.mark.filterwarnings(
    "ignore:Since FrozenEstimator does not appear to accept sample_weight"
)


def _sklearn_isotonic():
    """scikit-learn's isotonic regression configured as a probability map."""
    return IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0)


def _classification_data(rng, n, n_classes):
    """Features and labels that depend on them, every class present."""
    X = rng.normal(size=(n, 3))
    z = X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n)
    if n_classes == 2:
        y = (z > 0).astype(int)
    else:
        y = np.digitize(z, np.quantile(z, np.linspace(0, 1, n_classes + 1)[1:-1]))
    y[:n_classes] = np.arange(n_classes)
    return X, y


def _subsample(rng, labels, probs, n):
    """``n`` random rows of real outputs, as float64."""
    idx = rng.permutation(labels.shape[0])[:n]
    return labels[idx], probs[idx].astype(np.float64)


class _ScoresAsProbabilities(ClassifierMixin, BaseEstimator):
    """A "classifier" whose predict_proba returns X: feeds stored outputs to sklearn."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return self.classes_[np.argmax(X, axis=1)]

    def predict_proba(self, X):
        return np.asarray(X, dtype=np.float64)


# ---------------------------------------------------------------------------
# Agreement with scikit-learn
# ---------------------------------------------------------------------------


@_IGNORE_FROZEN_WEIGHTS
@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize(
    "classifier", [LogisticRegression, GaussianNB], ids=lambda c: c.__name__
)
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_calibrated_classifier_cv(
    global_random_seed, n_classes, classifier, weighted
):
    """Check that a frozen classifier gives CalibratedClassifierCV's isotonic output.

    LogisticRegression is calibrated on its decision values, GaussianNB (no
    decision_function) on its probabilities; multiclass problems one-vs-rest
    with rows renormalised, in both libraries.
    """
    rng = np.random.RandomState(global_random_seed)
    X, y = _classification_data(rng, 400, n_classes)
    clf = classifier().fit(X[:150], y[:150])
    w = rng.uniform(0.1, 3, size=250) if weighted else None
    ours = IsotonicRecalibrator(FrozenEstimator(clf)).fit(
        X[150:], y[150:], sample_weight=w
    )
    theirs = CalibratedClassifierCV(FrozenEstimator(clf), method="isotonic").fit(
        X[150:], y[150:], sample_weight=w
    )
    expected_input = "logit" if classifier is LogisticRegression else "probability"
    assert ours.input_ == expected_input
    assert len(ours.calibrators_) == (1 if n_classes == 2 else n_classes)
    assert_array_equal(ours.classes_, theirs.classes_)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_real_ovr_matches_calibrated_classifier_cv(real_multiclass, global_random_seed):
    """Check that one-vs-rest on real probabilities equals CalibratedClassifierCV's."""
    rng = np.random.RandomState(global_random_seed)
    labels, probs = _subsample(rng, *real_multiclass, 4000)
    fit, new = slice(0, 2000), slice(2000, None)
    ours = IsotonicRecalibrator().fit(probs[fit], labels[fit])
    stored = _ScoresAsProbabilities().fit(probs, labels)
    theirs = CalibratedClassifierCV(FrozenEstimator(stored), method="isotonic")
    theirs.fit(probs[fit], labels[fit])
    assert ours.input_ == "probability"
    assert_allclose(ours.predict_proba(probs[new]), theirs.predict_proba(probs[new]))


@pytest.mark.parametrize("weighted", [False, True])
def test_real_binary_log_odds_match_isotonic_regression(
    real_multiclass, global_random_seed, weighted
):
    """Check a one-vs-rest view of real outputs, as log-odds, against sklearn."""
    rng = np.random.RandomState(global_random_seed)
    labels, probs = _subsample(rng, *real_multiclass, 4000)
    k = rng.randint(probs.shape[1])
    # float32 probabilities can be exactly 0 or 1: clip before the log-odds.
    z = logit(np.clip(probs[:, k], 1e-7, 1 - 1e-7))
    target = (labels == k).astype(int)
    w = rng.uniform(0.1, 3, size=2000) if weighted else None
    fit, new = slice(0, 2000), slice(2000, None)
    ours = IsotonicRecalibrator(input="logit")
    ours.fit(z[fit], target[fit], sample_weight=w)
    expected = _sklearn_isotonic().fit(z[fit], target[fit], sample_weight=w)
    # Held-out log-odds: linear interpolation and clipping beyond the range.
    assert_allclose(ours.predict_proba(z[new])[:, 1], expected.predict(z[new]))
    assert_allclose(ours.predict_proba(z[new])[:, 0], 1 - expected.predict(z[new]))


# ---------------------------------------------------------------------------
# Cutoff calibration (Rossellini et al., 2025)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("interpolation", ["linear", "step"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [30, 300])
def test_in_sample_cutoff_error_is_zero(global_random_seed, interpolation, weighted, n):
    """Check the exact in-sample mean matching of Lemma D.1, with heavy ties.

    On its own calibration set the isotonic fit has cutoff calibration error
    0, and for any set A of fitted levels the weighted sums of predictions
    and of outcomes over the samples predicted in A agree.
    """
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n, ties=True)
    y[:2] = [0, 1]
    w = random_weights(rng, n) if weighted else None
    recal = IsotonicRecalibrator(interpolation=interpolation)
    recal.fit(p, y, sample_weight=w)
    h = recal.predict_proba(p)[:, 1]
    assert cutoff_calibration_error(y, h, sample_weight=w) <= 1e-12
    weights = np.ones(n) if w is None else w
    for _ in range(5):
        levels = np.unique(h)
        chosen = levels[rng.uniform(size=levels.shape[0]) < 0.5]
        inside = np.isin(h, chosen)
        assert_allclose(
            np.sum(weights * h * inside),
            np.sum(weights * y * inside),
            rtol=1e-12,
            atol=1e-12,
        )


@pytest.mark.parametrize(
    "scores, kwargs",
    [
        ([0.0, 0.25, 0.5, 1.0], {}),
        ([0.0, 0.25, 0.5, 1.0], {"input": "probability"}),
        ([0.0, 0.25, 0.5, 1.0], {"input": "logit"}),
        ([0.0, 0.25, 0.5, 1.0], {"interpolation": "step"}),
        ([[1.0, 0.0], [0.75, 0.25], [0.5, 0.5], [0.0, 1.0]], {}),
        ([-3.0, -1.0, 0.0, 2.0], {}),
    ],
)
@pytest.mark.parametrize("weights", [None, [0.25] * 4, [3, 3, 3, 3]])
def test_platt_counterexample(scores, kwargs, weights):
    """Check isotonic on the Fig. 4 population: (1/3, 1/3, 1/3, 1), cutoff error 0."""
    y = np.array([1, 0, 0, 1])
    recal = IsotonicRecalibrator(**kwargs).fit(scores, y, sample_weight=weights)
    h = recal.predict_proba(scores)[:, 1]
    assert_allclose(h, [1 / 3, 1 / 3, 1 / 3, 1], rtol=1e-12)
    assert_allclose(recal.predict_proba(scores).sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(
        cutoff_calibration_error(y, h, sample_weight=weights), 0.0, atol=1e-12
    )
    # The forecast itself is miscalibrated (cutoff error 0.25).
    assert_allclose(
        cutoff_calibration_error(y, [0.0, 0.25, 0.5, 1.0], sample_weight=weights),
        0.25,
        rtol=1e-12,
    )


# ---------------------------------------------------------------------------
# Interpolation: a step function or scikit-learn's linear interpolation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_step_outputs_are_fitted_levels(global_random_seed, ties):
    """Check that step outputs are the fit at the nearest calibration score below.

    They take only the in-sample fitted levels, so at most as many values as
    there are distinct calibration scores (claim 18), whereas the linear map
    takes values in between.
    """
    rng = np.random.RandomState(global_random_seed)
    z = rng.normal(scale=2.0, size=100)
    if ties:
        z = np.round(z)
    y = (rng.uniform(size=100) < 1 / (1 + np.exp(-z))).astype(int)
    y[:2] = [0, 1]
    w = rng.uniform(0.1, 3, size=100)
    step = IsotonicRecalibrator(input="logit", interpolation="step")
    step.fit(z, y, sample_weight=w)
    fitted = _sklearn_isotonic().fit(z, y, sample_weight=w).predict(z)
    grid = np.concatenate([z, np.linspace(z.min() - 1, z.max() + 1, 2001)])
    got = step.predict_proba(grid)[:, 1]
    # Brute force: the in-sample fit at the largest calibration score <= x,
    # or at the smallest one below the range.
    expected = np.empty_like(grid)
    for i, x in enumerate(grid):
        below = np.flatnonzero(z <= x)
        j = below[np.argmax(z[below])] if below.size else np.argmin(z)
        expected[i] = fitted[j]
    assert_allclose(got, expected, rtol=1e-12)
    # The levels are the fitted ones, exactly. (scikit-learn's own fit may
    # differ in the last bit: a tie group's weighted mean is summed in
    # another order.)
    assert np.isin(got, step.predict_proba(z)[:, 1]).all()
    assert np.unique(got).shape[0] <= np.unique(z).shape[0]
    linear = IsotonicRecalibrator(input="logit").fit(z, y, sample_weight=w)
    between = linear.predict_proba(grid)[:, 1]
    if np.unique(fitted).shape[0] > 1:
        assert not np.isin(between, fitted).all()
    # Both maps agree at the calibration scores.
    assert_allclose(between[: z.shape[0]], got[: z.shape[0]], rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_linear_interpolation_matches_isotonic_regression(global_random_seed, weighted):
    """Check that interpolation="linear" predicts as IsotonicRegression does."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, 150)
    y[:2] = [0, 1]
    w = random_weights(rng, 150) if weighted else None
    recal = IsotonicRecalibrator(interpolation="linear")
    recal.fit(p, y, sample_weight=w)
    expected = _sklearn_isotonic().fit(p, y, sample_weight=w)
    grid = np.linspace(0, 1, 1001)
    assert_allclose(recal.predict_proba(grid)[:, 1], expected.predict(grid))
    assert_allclose(recal.predict_proba(p)[:, 1], expected.predict(p))


# ---------------------------------------------------------------------------
# Multiclass problems on real outputs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("multiclass", ["ovr", "top_label"])
@pytest.mark.parametrize("interpolation", ["linear", "step"])
def test_real_multiclass_outputs(
    real_multiclass, global_random_seed, multiclass, interpolation
):
    """Check that real CIFAR outputs give probability rows, one map per view."""
    rng = np.random.RandomState(global_random_seed)
    labels, probs = _subsample(rng, *real_multiclass, 3000)
    recal = IsotonicRecalibrator(multiclass=multiclass, interpolation=interpolation)
    recal.fit(probs[:2000], labels[:2000])
    n_classes = probs.shape[1]
    assert len(recal.calibrators_) == (n_classes if multiclass == "ovr" else 1)
    for rows in (slice(0, 2000), slice(2000, None)):
        proba = recal.predict_proba(probs[rows])
        assert proba.shape == probs[rows].shape
        assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        assert proba.min() >= 0.0
        assert proba.max() <= 1.0
        assert_array_equal(
            recal.predict(probs[rows]), recal.classes_[np.argmax(proba, axis=1)]
        )


def test_real_top_label(real_multiclass, global_random_seed):
    """Check top-label: isotonic correctness on confidence, the prediction kept.

    The map is sklearn's isotonic fit of "top class is right" on the
    confidence, with cutoff calibration error 0 in sample; the top class gets
    it clipped to [1/K, 1] and stays the argmax, the other classes share the
    rest in proportion, capped below it (issue 12).
    """
    rng = np.random.RandomState(global_random_seed)
    labels, probs = _subsample(rng, *real_multiclass, 3000)
    rows = np.arange(probs.shape[0])
    top = np.argmax(probs, axis=1)
    confidence = probs[rows, top]
    correct = (top == labels).astype(int)
    fit = slice(0, 2000)
    recal = IsotonicRecalibrator(multiclass="top_label").fit(probs[fit], labels[fit])
    proba = recal.predict_proba(probs)
    expected = _sklearn_isotonic().fit(confidence[fit], correct[fit])
    mapped = calibrated_confidence(recal, probs)
    assert_allclose(mapped, expected.predict(confidence), atol=1e-12)
    assert_top_label_rows(probs[:300], proba[:300], mapped[:300])
    assert_array_equal(np.argmax(proba, axis=1), top)
    assert_array_equal(recal.predict(probs), recal.classes_[top])
    assert cutoff_calibration_error(correct[fit], mapped[fit]) <= 1e-12
    assert cutoff_calibration_error(correct[fit], confidence[fit]) > 1e-3
