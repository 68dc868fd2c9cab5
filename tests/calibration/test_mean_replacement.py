"""Tests of mean-replacement recalibration (Chidambaram and Ge, 2024).

The properties M1-M7 are those of /work/shared/notes/mean_replacement_and_sharpness.md
(sections 2.2 and 4.1).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import FixedThresholdClassifier

from skcal.calibration import MeanReplacementRecalibrator, TemperatureRecalibrator
from skcal.metrics import expected_calibration_error

STRATEGIES = ["uniform", "quantile"]


def _scores(rng, n, k, accuracy):
    """Probabilities, labels and argmax, the argmax right with rate ``accuracy``."""
    proba = rng.dirichlet(np.ones(k), size=n)
    predicted = proba.argmax(axis=1)
    correct = rng.uniform(size=n) < accuracy
    wrong = (predicted + rng.randint(1, k, size=n)) % k
    return proba, np.where(correct, predicted, wrong), predicted


def _exact_scores(rng, n, k, n_correct):
    """One-hot logits and labels whose argmax is right on exactly ``n_correct`` rows.

    Every class is among the labels (``n`` is a multiple of ``k``).
    """
    y = rng.permutation(np.arange(n) % k)
    correct = np.zeros(n, dtype=bool)
    correct[rng.choice(n, size=n_correct, replace=False)] = True
    predicted = np.where(correct, y, (y + rng.randint(1, k, size=n)) % k)
    logits = np.zeros((n, k), dtype=np.float32)
    logits[np.arange(n), predicted] = 1.0
    return logits, y


def _nll(y, proba):
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log(proba[np.arange(y.shape[0]), y])))


def _brier(y, proba):
    """The multiclass Brier score, summed over classes (the paper's MSE)."""
    onehot = np.eye(proba.shape[1])[y]
    return float(np.mean(((proba - onehot) ** 2).sum(axis=1)))


def _closed_form(accuracy, confidence, k):
    """NLL and Brier (sum form) of mean replacement with test accuracy A, â."""
    A, a = accuracy, confidence
    rest = (1 - a) / (k - 1)
    nll = -A * math.log(a) - (1 - A) * math.log(rest)
    brier = 1 - 2 * A * a - 2 * (1 - A) * rest + a**2 + (1 - a) ** 2 / (k - 1)
    return nll, brier


# ---------------------------------------------------------------------------
# M1: the prediction is the base model's
# ---------------------------------------------------------------------------


def test_predict_is_wrapped_classifier_predict(global_random_seed):
    """Check that predict is the wrapped classifier's predict, not the score argmax."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(600, 2))
    y = np.array(["no", "yes"])[(X[:, 0] + rng.normal(size=600) > 0).astype(int)]
    logistic = LogisticRegression().fit(X[:200], y[:200])
    # A cost-sensitive decision rule: predict disagrees with the score argmax.
    clf = FixedThresholdClassifier(
        FrozenEstimator(logistic), threshold=0.25, response_method="predict_proba"
    ).fit(X[:200], y[:200])
    for rows in (slice(200, 400), slice(400, None)):
        assert np.any(clf.predict(X[rows]) != logistic.predict(X[rows]))

    recal = MeanReplacementRecalibrator(FrozenEstimator(clf)).fit(
        X[200:400], y[200:400]
    )
    X_test = X[400:]
    assert_array_equal(recal.predict(X_test), clf.predict(X_test))
    assert recal.confidence_ == np.mean(clf.predict(X[200:400]) == y[200:400])
    proba = recal.predict_proba(X_test)
    column = np.searchsorted(recal.classes_, clf.predict(X_test))
    assert_array_equal(proba[np.arange(200), column], recal.confidence_)
    assert_allclose(proba[np.arange(200), 1 - column], 1 - recal.confidence_)


def test_predict_multiclass_string_labels(global_random_seed):
    """Check predict and predict_proba of a wrapped multiclass classifier."""
    rng = np.random.RandomState(global_random_seed)
    k = 4
    centers = rng.normal(size=(k, 3))
    codes = rng.randint(k, size=600)
    X = centers[codes] + rng.normal(size=(600, 3))
    y = np.array(["ant", "bee", "cat", "dog"])[codes]
    clf = LogisticRegression().fit(X[:200], y[:200])
    recal = MeanReplacementRecalibrator(FrozenEstimator(clf)).fit(
        X[200:400], y[200:400]
    )
    assert_array_equal(recal.classes_, clf.classes_)
    X_test = X[400:]
    assert_array_equal(recal.predict(X_test), clf.predict(X_test))
    a = np.mean(clf.predict(X[200:400]) == y[200:400])
    assert recal.confidence_ == a
    expected = np.full((200, k), (1 - a) / (k - 1))
    expected[np.arange(200), np.searchsorted(clf.classes_, clf.predict(X_test))] = a
    assert_allclose(recal.predict_proba(X_test), expected, rtol=1e-15)


@pytest.mark.parametrize("input", ["probability", "logit"])
def test_predict_is_score_argmax_without_estimator(global_random_seed, input):
    """Check that with estimator=None predict is the argmax of the scores."""
    rng = np.random.RandomState(global_random_seed)
    proba, y, predicted = _scores(rng, 300, 5, accuracy=0.6)
    # Logits with another order of magnitude than the probabilities.
    scores = proba if input == "probability" else 10.0 * np.log(proba) + 3.0
    recal = MeanReplacementRecalibrator().fit(scores[:100], y[:100])
    assert recal.input_ == input
    assert_array_equal(recal.predict(scores), predicted)
    assert recal.confidence_ == np.mean(predicted[:100] == y[:100])


# ---------------------------------------------------------------------------
# M2: the output rows
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [2, 3, 10])
def test_predict_proba_rows(global_random_seed, k, weighted):
    """Check confidence_ (weighted accuracy) and the rows of predict_proba."""
    rng = np.random.RandomState(global_random_seed)
    proba, y, predicted = _scores(rng, 400, k, accuracy=0.7)
    w = None
    if weighted:
        w = rng.uniform(0.0, 3.0, size=200)
        w[rng.uniform(size=200) < 0.2] = 0.0
    recal = MeanReplacementRecalibrator().fit(proba[:200], y[:200], sample_weight=w)
    a = np.average(predicted[:200] == y[:200], weights=w)
    assert isinstance(recal.confidence_, float)
    assert_allclose(recal.confidence_, a, rtol=1e-14)
    if weighted:
        assert recal.confidence_ != np.mean(predicted[:200] == y[:200])

    out = recal.predict_proba(proba[200:])
    rows = np.arange(200)
    assert out.shape == (200, k)
    assert_array_equal(out[rows, predicted[200:]], recal.confidence_)
    others = np.ones((200, k), dtype=bool)
    others[rows, predicted[200:]] = False
    assert_allclose(out[others], (1 - a) / (k - 1), rtol=1e-14)
    assert_allclose(out.sum(axis=1), 1.0, rtol=1e-14)
    assert_array_equal(recal.transform(proba[200:]), out)


@pytest.mark.parametrize("k", [2, 5])
def test_sample_weight_is_repetition(global_random_seed, k):
    """Check that integer weights give the fit of the repeated rows."""
    rng = np.random.RandomState(global_random_seed)
    proba, y, _ = _scores(rng, 60, k, accuracy=0.6)
    y[:2] = [0, 1]
    w = rng.randint(0, 4, size=60)
    w[:2] = 1
    weighted = MeanReplacementRecalibrator().fit(proba, y, sample_weight=w)
    repeated = MeanReplacementRecalibrator().fit(
        np.repeat(proba, w, axis=0), np.repeat(y, w)
    )
    assert_allclose(weighted.confidence_, repeated.confidence_, rtol=1e-14)


# ---------------------------------------------------------------------------
# M3, M4: binned ECE on the calibration set and on new data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [1, 2, 15, 100])
@pytest.mark.parametrize("k", [2, 10])
def test_ece_is_zero_on_calibration_set(
    global_random_seed, k, n_bins, strategy, weighted
):
    """Check that the top-label ECE on the calibration set is 0 (M3)."""
    rng = np.random.RandomState(global_random_seed)
    proba, y, _ = _scores(rng, 300, k, accuracy=0.75)
    w = rng.uniform(0.0, 3.0, size=300) if weighted else None
    recal = MeanReplacementRecalibrator().fit(proba, y, sample_weight=w)
    ece = expected_calibration_error(
        y,
        recal.predict_proba(proba),
        sample_weight=w,
        labels=np.arange(k),
        reduction="top_label",
        n_bins=n_bins,
        strategy=strategy,
    )
    assert_allclose(ece, 0.0, atol=1e-12)
    # The base model is not calibrated: the zero is the recalibrator's doing.
    base = expected_calibration_error(
        y, proba, sample_weight=w, labels=np.arange(k), reduction="top_label"
    )
    assert base > 1e-3


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n_bins", [1, 15, 100])
@pytest.mark.parametrize("k", [2, 10])
def test_ece_on_new_data_is_accuracy_gap(global_random_seed, k, n_bins, strategy):
    """Check that the top-label ECE on new data is |A_test - a| (M4)."""
    rng = np.random.RandomState(global_random_seed)
    proba, y, predicted = _scores(rng, 400, k, accuracy=0.75)
    recal = MeanReplacementRecalibrator().fit(proba[:150], y[:150])
    accuracy = np.mean(predicted[150:] == y[150:])
    ece = expected_calibration_error(
        y[150:],
        recal.predict_proba(proba[150:]),
        labels=np.arange(k),
        reduction="top_label",
        n_bins=n_bins,
        strategy=strategy,
    )
    assert_allclose(ece, abs(accuracy - recal.confidence_), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# M5, M6: proper scores in closed form, and the paper's numbers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [3, 10, 50])
def test_closed_form_nll_and_brier(global_random_seed, k):
    """Check the closed-form NLL and Brier score against direct computation (M5)."""
    rng = np.random.RandomState(global_random_seed)
    proba, y, predicted = _scores(rng, 500, k, accuracy=0.8)
    y[:k] = np.arange(k)  # every class in the calibration set
    recal = MeanReplacementRecalibrator().fit(proba[:200], y[:200])
    out = recal.predict_proba(proba[200:])
    y_test = y[200:]
    nll, brier = _closed_form(np.mean(predicted[200:] == y_test), recal.confidence_, k)
    assert_allclose(_nll(y_test, out), nll, rtol=1e-12)
    assert_allclose(_brier(y_test, out), brier, rtol=1e-12)
    labels = np.arange(k)
    assert_allclose(log_loss(y_test, out, labels=labels), nll, rtol=1e-12)
    assert_allclose(brier_score_loss(y_test, out, labels=labels), brier, rtol=1e-12)


@pytest.mark.parametrize(
    "k, n_correct, nll_100, brier_100",
    [
        # ImageNet ViT (Table 1): accuracy 85.14%.
        (1000, 4257, 144.66, 27.51),
        # CIFAR-10 ResNet-32 (Table 5): accuracy 93.46%; the paper prints
        # 38.52, the closed form rounds to 38.53 (notes, section 4.1 M6).
        (10, 4673, 38.53, 12.60),
    ],
)
def test_paper_numbers(global_random_seed, k, n_correct, nll_100, brier_100):
    """Check the NLL and Brier score of the paper's tables (M6)."""
    rng = np.random.RandomState(global_random_seed)
    # Calibration and test sets of 5000 rows, each with the paper's accuracy.
    X_cal, y_cal = _exact_scores(rng, 5000, k, n_correct)
    X_test, y_test = _exact_scores(rng, 5000, k, n_correct)
    recal = MeanReplacementRecalibrator(input="logit").fit(X_cal, y_cal)
    assert recal.confidence_ == n_correct / 5000
    out = recal.predict_proba(X_test)
    assert_allclose(100 * _nll(y_test, out), nll_100, atol=0.005)
    assert_allclose(100 * _brier(y_test, out), brier_100, atol=0.005)


# ---------------------------------------------------------------------------
# M7: real classifiers
# ---------------------------------------------------------------------------


def test_real_data_lower_ece_but_worse_proper_scores(real_multiclass):
    """Check on real classifiers: lower ECE, but worse NLL and Brier than TS (M7)."""
    labels, probs = real_multiclass
    prob64 = probs.astype(np.float64)
    order = np.random.RandomState(0).permutation(labels.shape[0])
    n_cal = labels.shape[0] // 5
    cal, test = order[:n_cal], order[n_cal:]
    y_test = labels[test]

    mean_repl = MeanReplacementRecalibrator().fit(prob64[cal], labels[cal])
    temperature = TemperatureRecalibrator().fit(prob64[cal], labels[cal])
    p_mean = mean_repl.predict_proba(prob64[test])
    p_temp = temperature.predict_proba(prob64[test])
    p_base = prob64[test]

    assert_array_equal(mean_repl.predict(prob64[test]), p_base.argmax(axis=1))
    classes = np.arange(probs.shape[1])
    ece_mean = expected_calibration_error(y_test, p_mean, labels=classes)
    assert ece_mean < expected_calibration_error(y_test, p_base, labels=classes)
    assert _brier(y_test, p_mean) > _brier(y_test, p_temp)
    assert _nll(y_test, p_mean) > _nll(y_test, p_temp)
    # ... and worse than the model it recalibrates (Tables 1-6).
    assert _brier(y_test, p_mean) > _brier(y_test, p_base)
    assert _nll(y_test, p_mean) > _nll(y_test, p_base)


# ---------------------------------------------------------------------------
# Edge cases (notes, section 2.2)
# ---------------------------------------------------------------------------


def test_accuracy_below_chance_moves_proba_argmax(global_random_seed):
    """Check that with a < 1/k predict is kept while predict_proba's argmax moves."""
    rng = np.random.RandomState(global_random_seed)
    k = 4
    proba, y, predicted = _scores(rng, 200, k, accuracy=0.0)
    y[:10] = predicted[:10]  # a = 0.05 < 1/4
    recal = MeanReplacementRecalibrator().fit(proba, y)
    assert recal.confidence_ == 0.05
    out = recal.predict_proba(proba)
    assert_array_equal(recal.predict(proba), predicted)
    assert np.all(out.argmax(axis=1) != predicted)
    assert_allclose(out[np.arange(200), out.argmax(axis=1)], 0.95 / 3)


@pytest.mark.parametrize("k", [2, 5])
def test_perfect_accuracy_gives_zeros(global_random_seed, k):
    """Check that a = 1 gives one-hot rows, and an infinite log loss on an error."""
    rng = np.random.RandomState(global_random_seed)
    proba, _, predicted = _scores(rng, 100, k, accuracy=1.0)
    recal = MeanReplacementRecalibrator().fit(proba, predicted)
    assert recal.confidence_ == 1.0
    out = recal.predict_proba(proba)
    assert_array_equal(out, np.eye(k)[predicted])
    wrong = (predicted + 1) % k
    assert _nll(wrong, out) == math.inf


@pytest.mark.parametrize("input", ["probability", "logit"])
def test_binary_one_column_scores(global_random_seed, input):
    """Check that 1-D binary scores give the fit of their two-column form."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p**2).astype(int)
    if input == "probability":
        one, two = p, np.column_stack([1 - p, p])
    else:
        one = np.log(p) - np.log1p(-p)
        two = np.column_stack([np.zeros(300), one])
    predicted = (p > 0.5).astype(int)

    rec_one = MeanReplacementRecalibrator(input=input).fit(one[:100], y[:100])
    rec_two = MeanReplacementRecalibrator(input=input).fit(two[:100], y[:100])
    a = np.mean(predicted[:100] == y[:100])
    assert rec_one.confidence_ == rec_two.confidence_ == a
    assert_array_equal(rec_one.predict(one[100:]), predicted[100:])
    out = rec_one.predict_proba(one[100:])
    assert_array_equal(out, rec_two.predict_proba(two[100:]))
    assert_allclose(out[:, 1], np.where(predicted[100:] == 1, a, 1 - a), rtol=1e-15)
