"""scikit-learn's tests of CalibratedClassifierCV, for RecalibratedClassifierCV.

The cases come from ``sklearn/tests/test_calibration.py`` (scikit-learn 1.9)
and keep its test names in their docstrings: splitters and iterables as
``cv``, folds that miss a class, and sample weights (issue 12, item 7).
Where skcal behaves differently on purpose, the test says how and checks
the message. scikit-learn's ``method`` becomes a recalibrator:
"sigmoid" -> :class:`PlattRecalibrator`, "isotonic" ->
:class:`IsotonicRecalibrator`, "temperature" -> :class:`TemperatureRecalibrator`.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, LeaveOneOut
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from skcal.calibration import (
    IsotonicRecalibrator,
    PlattRecalibrator,
    RecalibratedClassifierCV,
    TemperatureRecalibrator,
)

N_SAMPLES = 200

METHODS = {
    "sigmoid": PlattRecalibrator,
    "isotonic": IsotonicRecalibrator,
    "temperature": TemperatureRecalibrator,
}


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=N_SAMPLES, n_features=6, random_state=42)


class _ParamsClassifier(ClassifierMixin, BaseEstimator):
    """A logistic regression that checks and keeps the fit parameters it gets.

    ``expected`` names parameters that must be given and hold one entry per
    training row; ``sample_weight`` is kept as ``sample_weight_``.
    """

    def __init__(self, expected=()):
        self.expected = expected

    def fit(self, X, y, sample_weight=None, **fit_params):
        for name in self.expected:
            assert name in fit_params, name
            assert len(fit_params[name]) == len(X), name
        self.clf_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.clf_.classes_
        self.sample_weight_ = sample_weight
        self.fit_params_ = fit_params
        return self

    def decision_function(self, X):
        return self.clf_.decision_function(X)


# ---------------------------------------------------------------------------
# cv: splitters, iterables, numbers of folds
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ensemble", [True, False])
def test_calibration_cv_splitter(data, ensemble):
    """Check a splitter as cv: one pair per fold, or one pooled recalibrator."""
    X, y = data
    kfold = KFold(n_splits=5)
    model = RecalibratedClassifierCV(LinearSVC(random_state=0), cv=kfold)
    model.set_params(ensemble=ensemble)
    assert model.cv is kfold
    model.fit(X, y)
    assert len(model.calibrated_classifiers_) == (5 if ensemble else 1)


def test_calibration_cv_nfold(data):
    """Check the folds with fewer samples of a class than folds.

    scikit-learn refuses ``KFold(101)`` and ``LeaveOneOut`` whatever the
    folds hold. Here an int ``cv`` is refused in the same words; a splitter's
    folds are judged one by one: those whose test part holds one class are
    skipped with a warning, and only when no fold is left is ``cv`` refused.
    """
    X, y = data
    model = RecalibratedClassifierCV(LogisticRegression(), cv=101)
    with pytest.raises(ValueError, match="Requesting 101-fold cross-validation"):
        model.fit(X, y)

    model = RecalibratedClassifierCV(LogisticRegression(), cv=LeaveOneOut())
    with pytest.raises(
        ValueError,
        match=r"No fold of cv can be recalibrated: .*fold 0: its test part holds "
        r"the class \d only; .*Use StratifiedKFold",
    ):
        model.fit(X, y)

    kfold = KFold(n_splits=101)
    two_classes = sum(np.unique(y[test]).shape[0] == 2 for _, test in kfold.split(X, y))
    model = RecalibratedClassifierCV(LogisticRegression(), cv=kfold)
    with pytest.warns(UserWarning, match=rf"{101 - two_classes} of 101 folds"):
        model.fit(X, y)
    assert len(model.calibrated_classifiers_) == two_classes


def test_error_less_class_samples_than_folds():
    """Check string labels with 10 samples per class and 3 folds (sklearn #28841)."""
    X = np.random.RandomState(0).normal(size=(20, 3))
    y = ["a"] * 10 + ["b"] * 10
    model = RecalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
    assert_array_equal(model.classes_, ["a", "b"])
    assert len(model.calibrated_classifiers_) == 3


@pytest.mark.parametrize("ensemble", [True, False])
def test_calibration_less_classes(ensemble):
    """Check training folds that lack a class.

    KFold(3) on these labels trains fold 0 without class 0 and fold 2
    without class 3. scikit-learn keeps those folds, its classifier giving
    the unseen class probability 0. Here ``ensemble=True`` skips them with a
    warning and keeps fold 1; ``ensemble=False`` refuses, naming fold 0.
    """
    X = np.random.RandomState(0).randn(12, 5)
    y = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]  # test parts: rows 0-3, 4-7, 8-11
    model = RecalibratedClassifierCV(
        DecisionTreeClassifier(random_state=7), cv=KFold(3), ensemble=ensemble
    )
    if not ensemble:
        with pytest.raises(
            ValueError,
            match=r"fold 0: its training part lacks the class\(es\) \[0\]; "
            r"fold 2: its training part lacks the class\(es\) \[3\]\. "
            r"Use StratifiedKFold",
        ):
            model.fit(X, y)
        return
    with pytest.warns(
        UserWarning,
        match=r"2 of 3 folds of cv are skipped.*fold 0: its training part lacks "
        r"the class\(es\) \[0\]; fold 2: its training part lacks the "
        r"class\(es\) \[3\]",
    ):
        model.fit(X, y)
    (recal,) = model.calibrated_classifiers_
    assert_array_equal(recal.estimator.classes_, [0, 1, 2, 3])
    proba = model.predict_proba(X)
    assert proba.shape == (12, 4)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba > 0)


# ---------------------------------------------------------------------------
# sample_weight and fit parameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("ensemble", [True, False])
def test_sample_weight(data, method, ensemble):
    """Check that the weights change the predictions."""
    X, y = data
    n = N_SAMPLES // 2
    w = np.random.RandomState(42).uniform(size=len(y))
    model = RecalibratedClassifierCV(
        LinearSVC(random_state=42), METHODS[method](), ensemble=ensemble
    )
    with_weights = model.fit(X[:n], y[:n], sample_weight=w[:n]).predict_proba(X[n:])
    without = model.fit(X[:n], y[:n]).predict_proba(X[n:])
    assert np.linalg.norm(with_weights - without) > 0.1


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("ensemble", [True, False])
def test_calibrated_classifier_cv_double_sample_weights_equivalence(method, ensemble):
    """Check that weights of 2 equal every row twice (rows interlaced for 2 folds)."""
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:100]
    y = y[:100]
    X_twice = np.repeat(X, 2, axis=0)
    y_twice = np.repeat(y, 2)
    model = RecalibratedClassifierCV(
        LogisticRegression(), METHODS[method](), cv=2, ensemble=ensemble
    )
    weighted = clone(model).fit(X, y, sample_weight=np.full(len(y), 2.0))
    repeated = clone(model).fit(X_twice, y_twice)
    assert len(weighted.calibrated_classifiers_) == len(
        repeated.calibrated_classifiers_
    )
    if ensemble:
        pairs = zip(
            weighted.calibrated_classifiers_,
            repeated.calibrated_classifiers_,
            strict=True,
        )
        for with_weights, with_rows in pairs:
            assert_allclose(
                with_weights.estimator.coef_, with_rows.estimator.coef_, rtol=1e-5
            )
    assert_allclose(
        weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-5, atol=1e-7
    )


@pytest.mark.parametrize("container", [list, np.asarray])
def test_calibration_with_fit_params(data, container):
    """Check that fit parameters reach the classifier, one entry per row (sklearn
    #12384)."""
    X, y = data
    fit_params = {"a": container(y), "b": container(y)}
    model = RecalibratedClassifierCV(_ParamsClassifier(expected=("a", "b")))
    model.fit(X, y, **fit_params)
    assert len(model.calibrated_classifiers_) == 5


@pytest.mark.parametrize("sample_weight", [[1.0] * N_SAMPLES, np.ones(N_SAMPLES)])
def test_calibration_with_sample_weight_estimator(sample_weight, data):
    """Check that the weights reach a classifier whose fit takes them."""
    X, y = data
    model = RecalibratedClassifierCV(_ParamsClassifier(), cv=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model.fit(X, y, sample_weight=sample_weight)
    for recal in model.calibrated_classifiers_:
        fold_weights = recal.estimator.sample_weight_
        assert fold_weights is not None
        assert_allclose(fold_weights, 1.0)


def test_calibration_without_sample_weight_estimator(data):
    """Check that weights a classifier cannot take are dropped with a warning."""
    X, y = data

    class _NoWeights(_ParamsClassifier):
        def fit(self, X, y, **fit_params):
            assert "sample_weight" not in fit_params
            return super().fit(X, y, **fit_params)

    model = RecalibratedClassifierCV(_NoWeights())
    with pytest.warns(UserWarning, match="sample_weight is not passed to _NoWeights"):
        model.fit(X, y, sample_weight=np.ones_like(y))


def test_calibration_with_non_sample_aligned_fit_param(data):
    """Check that a fit parameter of another length is passed whole."""
    X, y = data
    extra = np.ones(len(y) + 1)

    class _Extra(_ParamsClassifier):
        def fit(self, X, y, sample_weight=None, fit_param=None):
            assert fit_param is extra
            return super().fit(X, y, sample_weight=sample_weight)

    RecalibratedClassifierCV(_Extra()).fit(X, y, fit_param=extra)
