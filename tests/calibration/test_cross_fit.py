"""Tests of RecalibratedClassifierCV: cross-fitted classifier and recalibrator."""

# SPDX-License-Identifier: BSD-3-Clause

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    LeaveOneOut,
    PredefinedSplit,
    ShuffleSplit,
    StratifiedKFold,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcal._param_validation import InvalidParameterError
from skcal.calibration import (
    CenteredIsotonicRecalibrator,
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    MeanReplacementRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
    RecalibratedClassifierCV,
    TemperatureRecalibrator,
)

RECALIBRATORS = [
    IsotonicRecalibrator(),
    IsotonicRecalibrator(multiclass="top_label", interpolation="step"),
    HistogramBinningRecalibrator(n_bins=5),
    CenteredIsotonicRecalibrator(),
    PlattRecalibrator(),
    ModifiedPlattRecalibrator(n_bootstrap=20, random_state=0),
    MeanReplacementRecalibrator(),
    TemperatureRecalibrator(),
]

# A classifier with decision_function and one with predict_proba only.
CLASSIFIERS = [LogisticRegression(), GaussianNB()]


def _name(estimator):
    return type(estimator).__name__


# Class logits are X @ _COEF[:, :n_classes]: informative but noisy, so that
# no fold is separable (where a temperature or sigmoid fit runs to its bound).
_COEF = np.array(
    [
        [1.5, 0.0, -1.5],
        [0.0, 1.5, -1.0],
        [0.5, -0.5, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
    ]
)


def _data(seed, n_classes, n_samples=120):
    """Features and labels drawn from a multinomial logistic model."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, 5))
    proba = softmax(X @ _COEF[:, :n_classes], axis=1)
    y = (rng.uniform(size=(n_samples, 1)) > np.cumsum(proba, axis=1)).sum(axis=1)
    return X, y


def _weights(seed, n):
    return np.random.RandomState(seed + 1).uniform(0.1, 3.0, size=n)


def _manual_ensemble(estimator, recalibrator, X, y, X_test, n_splits, **kwargs):
    """The mean over stratified folds of (classifier on train, recalibrator on test).

    ``kwargs`` may hold ``clf_weight`` (given to every classifier's fit) and
    ``recal_weight`` (given to every recalibrator's fit), both full-length.
    """
    clf_weight = kwargs.get("clf_weight")
    recal_weight = kwargs.get("recal_weight")
    probas = []
    for train, test in StratifiedKFold(n_splits).split(X, y):
        clf = clone(estimator)
        if clf_weight is None:
            clf.fit(X[train], y[train])
        else:
            clf.fit(X[train], y[train], sample_weight=clf_weight[train])
        recal = clone(recalibrator).set_params(estimator=clf)
        weight = None if recal_weight is None else recal_weight[test]
        recal.fit(X[test], y[test], sample_weight=weight)
        probas.append(recal.predict_proba(X_test))
    return np.mean(probas, axis=0)


def _scores(clf, X, response_method):
    """The scores the recalibrator reads, and their kind."""
    if response_method == "auto":
        if hasattr(clf, "decision_function"):
            return clf.decision_function(X), "logit"
        return clf.predict_proba(X), "probability"
    kind = "probability" if response_method == "predict_proba" else "logit"
    return getattr(clf, response_method)(X), kind


class _RecordingClassifier(ClassifierMixin, BaseEstimator):
    """A logistic regression that keeps the fit parameters it was given."""

    def fit(self, X, y, sample_weight=None, marker=None):
        self.clf_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.clf_.classes_
        self.n_features_in_ = self.clf_.n_features_in_
        self.sample_weight_ = sample_weight
        self.marker_ = marker
        return self

    def decision_function(self, X):
        return self.clf_.decision_function(X)

    def predict(self, X):
        return self.clf_.predict(X)


# ---------------------------------------------------------------------------
# Definition: fold pairs (ensemble=True) and pooled scores (ensemble=False)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("recalibrator", RECALIBRATORS, ids=_name)
@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=_name)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_ensemble_matches_manual_folds(
    global_random_seed, recalibrator, estimator, n_classes
):
    """Check that ensemble=True averages the fold pairs of a stratified split."""
    X, y = _data(global_random_seed, n_classes)
    model = RecalibratedClassifierCV(estimator, recalibrator, cv=3).fit(X, y)
    expected = _manual_ensemble(estimator, recalibrator, X, y, X, n_splits=3)
    assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[expected.argmax(axis=1)])
    assert len(model.calibrated_classifiers_) == 3
    assert not hasattr(model, "estimator_")
    for (train, _), recal in zip(
        StratifiedKFold(3).split(X, y), model.calibrated_classifiers_, strict=True
    ):
        assert type(recal) is type(recalibrator)
        assert recal.estimator is not estimator
        # Each fold's classifier was fitted on that fold's training rows only.
        fold_clf = clone(estimator).fit(X[train], y[train])
        assert_allclose(
            recal.estimator.predict_proba(X), fold_clf.predict_proba(X), atol=1e-12
        )
    # The user's objects are left unfitted.
    assert recalibrator.estimator is None
    assert not hasattr(estimator, "classes_")


@pytest.mark.parametrize("recalibrator", RECALIBRATORS, ids=_name)
@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=_name)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_pooled_matches_manual(global_random_seed, recalibrator, estimator, n_classes):
    """Check that ensemble=False fits one recalibrator on pooled out-of-fold scores."""
    X, y = _data(global_random_seed, n_classes)
    model = RecalibratedClassifierCV(estimator, recalibrator, cv=3, ensemble=False)
    model.fit(X, y)

    response = recalibrator.response_method
    oof = None
    for train, test in StratifiedKFold(3).split(X, y):
        fold_clf = clone(estimator).fit(X[train], y[train])
        fold_scores, kind = _scores(fold_clf, X[test], response)
        if oof is None:
            oof = np.empty((len(y), *fold_scores.shape[1:]))
        oof[test] = fold_scores
    recal = clone(recalibrator).set_params(input=kind).fit(oof, y)
    full_clf = clone(estimator).fit(X, y)
    expected = recal.predict_proba(_scores(full_clf, X, response)[0])

    assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)
    (fitted,) = model.calibrated_classifiers_
    assert fitted.estimator is None
    assert fitted.input_ == kind
    assert_allclose(
        model.estimator_.predict_proba(X), full_clf.predict_proba(X), atol=1e-12
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_pooled_reads_the_requested_response(global_random_seed, n_classes):
    """Check that ensemble=False pools the recalibrator's response_method scores."""
    X, y = _data(global_random_seed, n_classes)
    recalibrator = IsotonicRecalibrator(response_method="predict_proba")
    model = RecalibratedClassifierCV(
        LogisticRegression(), recalibrator, cv=3, ensemble=False
    ).fit(X, y)
    oof = np.empty((len(y), n_classes))
    for train, test in StratifiedKFold(3).split(X, y):
        oof[test] = LogisticRegression().fit(X[train], y[train]).predict_proba(X[test])
    recal = IsotonicRecalibrator(input="probability").fit(oof, y)
    full = LogisticRegression().fit(X, y)
    assert model.calibrated_classifiers_[0].input_ == "probability"
    assert_allclose(
        model.predict_proba(X), recal.predict_proba(full.predict_proba(X)), atol=1e-12
    )


# ---------------------------------------------------------------------------
# Agreement with scikit-learn's CalibratedClassifierCV
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "recalibrator, method, atol",
    [
        # Same isotonic regressions on the same decision values: equal.
        (IsotonicRecalibrator(), "isotonic", 1e-12),
        # Same bounded Brent search of the temperature.
        (TemperatureRecalibrator(), "temperature", 1e-6),
        # Same loss, different optimisers (Newton here, L-BFGS there).
        (PlattRecalibrator(), "sigmoid", 1e-6),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_matches_sklearn(
    global_random_seed, recalibrator, method, atol, ensemble, n_classes
):
    """Check agreement with CalibratedClassifierCV on the same folds."""
    X, y = _data(global_random_seed, n_classes)
    X_test, _ = _data(global_random_seed + 100, n_classes, n_samples=50)
    ours = RecalibratedClassifierCV(
        LogisticRegression(), recalibrator, cv=StratifiedKFold(3), ensemble=ensemble
    ).fit(X, y)
    theirs = CalibratedClassifierCV(
        LogisticRegression(), method=method, cv=StratifiedKFold(3), ensemble=ensemble
    ).fit(X, y)
    assert_array_equal(ours.classes_, theirs.classes_)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=atol)
    assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=atol)


# ---------------------------------------------------------------------------
# Folds that miss a class (issue 12, item 7)
# ---------------------------------------------------------------------------


def _sorted_binary(seed):
    """90 samples of class 0 then 90 of class 1: KFold(3) gives the test parts
    all 0, half and half, all 1."""
    X, y = _data(seed, 2, n_samples=300)
    rows = np.concatenate([np.flatnonzero(y == 0)[:90], np.flatnonzero(y == 1)[:90]])
    return X[rows], y[rows]


def _one_class_test_folds(kind):
    """A cv of the given kind whose first and last test parts hold one class."""
    thirds = np.repeat([0, 1, 2], 60)
    if kind == "kfold":
        return KFold(3)
    if kind == "predefined":
        return PredefinedSplit(thirds)
    rows = np.arange(180)
    return [(rows[thirds != k], rows[thirds == k]) for k in range(3)]


def _pairs_mean(estimator, recalibrator, X, y, folds, X_test):
    """Mean over ``folds`` of (classifier on train, recalibrator on test)."""
    probas = []
    for train, test in folds:
        clf = clone(estimator).fit(X[train], y[train])
        recal = clone(recalibrator).set_params(estimator=clf).fit(X[test], y[test])
        probas.append(recal.predict_proba(X_test))
    return np.mean(probas, axis=0)


@pytest.mark.parametrize("recalibrator", RECALIBRATORS, ids=_name)
@pytest.mark.parametrize("kind", ["kfold", "predefined", "iterable"])
def test_one_class_test_folds_are_skipped(global_random_seed, recalibrator, kind):
    """Check that ensemble=True skips, with a warning, test parts of one class."""
    X, y = _sorted_binary(global_random_seed)
    model = RecalibratedClassifierCV(
        LogisticRegression(), recalibrator, cv=_one_class_test_folds(kind)
    )
    with pytest.warns(
        UserWarning,
        match=r"2 of 3 folds of cv are skipped.*fold 0: its test part holds the "
        r"class 0 only; fold 2: its test part holds the class 1 only\. .*remaining "
        r"1 fold\(s\)\. Use StratifiedKFold",
    ):
        model.fit(X, y)
    assert len(model.calibrated_classifiers_) == 1
    middle = [(np.r_[0:60, 120:180], np.arange(60, 120))]
    expected = _pairs_mean(LogisticRegression(), recalibrator, X, y, middle, X)
    assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "recalibrator, method, atol",
    [
        (IsotonicRecalibrator(), "isotonic", 1e-12),
        (PlattRecalibrator(), "sigmoid", 1e-6),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize("kind", ["kfold", "predefined", "iterable"])
def test_one_class_test_folds_against_sklearn(
    global_random_seed, recalibrator, method, atol, ensemble, kind
):
    """Check one-class test parts against CalibratedClassifierCV on the same cv.

    Pooled, the two agree. With a pair per fold, scikit-learn also keeps the
    folds skipped here (with calibrators fitted on one outcome); the model
    equals the mean of its pairs over the folds kept here.
    """
    X, y = _sorted_binary(global_random_seed)
    X_test, _ = _data(global_random_seed + 100, 2, n_samples=50)
    cv = _one_class_test_folds(kind)
    theirs = CalibratedClassifierCV(
        LogisticRegression(), method=method, cv=cv, ensemble=ensemble
    ).fit(X, y)
    ours = RecalibratedClassifierCV(
        LogisticRegression(), recalibrator, cv=cv, ensemble=ensemble
    )
    if ensemble:
        with pytest.warns(UserWarning, match="2 of 3 folds of cv are skipped"):
            ours.fit(X, y)
        kept = theirs.calibrated_classifiers_[1]
        for data in (X, X_test):
            assert_allclose(
                ours.predict_proba(data), kept.predict_proba(data), atol=atol
            )
    else:
        ours.fit(X, y)
        for data in (X, X_test):
            assert_allclose(
                ours.predict_proba(data), theirs.predict_proba(data), atol=atol
            )


def _test_folds_missing_one_class(rng, y):
    """A PredefinedSplit whose three test parts each miss one class of three;
    every training part holds every class."""
    homes = np.array([[0, 1], [1, 2], [0, 2]])  # class k lies in folds homes[k]
    return PredefinedSplit(homes[y, rng.randint(2, size=len(y))])


@pytest.mark.parametrize(
    "recalibrator, method, atol",
    [
        (IsotonicRecalibrator(), "isotonic", 1e-12),
        (PlattRecalibrator(), "sigmoid", 1e-6),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
@pytest.mark.parametrize("ensemble", [True, False])
def test_test_folds_missing_a_class_of_three(
    global_random_seed, recalibrator, method, atol, ensemble
):
    """Check that test parts with two classes of three are used, as in scikit-learn."""
    X, y = _data(global_random_seed, 3, n_samples=150)
    cv = _test_folds_missing_one_class(np.random.RandomState(global_random_seed), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no fold is skipped
        ours = RecalibratedClassifierCV(
            LogisticRegression(), recalibrator, cv=cv, ensemble=ensemble
        ).fit(X, y)
    theirs = CalibratedClassifierCV(
        LogisticRegression(), method=method, cv=cv, ensemble=ensemble
    ).fit(X, y)
    assert len(ours.calibrated_classifiers_) == (3 if ensemble else 1)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=atol)


@pytest.mark.parametrize(
    "cv",
    [LeaveOneOut(), KFold(3)],
    ids=["LeaveOneOut", "KFold-sorted-3-classes"],
)
def test_no_fold_can_be_recalibrated_raises(cv):
    """Check that ensemble=True refuses when every fold would be skipped."""
    X, y = _data(0, 3, n_samples=60)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    model = RecalibratedClassifierCV(LogisticRegression(), cv=cv)
    with pytest.raises(
        ValueError,
        match=r"No fold of cv can be recalibrated: .*; fold 0: its (test part holds "
        r"the class 0 only|training part lacks the class\(es\) \[0\]).* Use "
        r"StratifiedKFold",
    ):
        model.fit(X, y)


def test_skipped_folds_are_listed_up_to_five():
    """Check that the message names the first five folds and counts the rest."""
    X, y = _data(0, 2, n_samples=40)
    model = RecalibratedClassifierCV(LogisticRegression(), cv=LeaveOneOut())
    with pytest.raises(ValueError, match=r"fold 4: [^;]*; and 35 more\. Use"):
        model.fit(X, y)


def test_test_fold_of_one_weighted_class_is_skipped(global_random_seed):
    """Check that a test part whose other classes weigh 0 is skipped, so named."""
    X, y = _data(global_random_seed, 2, n_samples=150)
    folds = list(StratifiedKFold(3).split(X, y))
    w = np.ones(len(y))
    first_test = folds[0][1]
    w[first_test[y[first_test] == 1]] = 0.0
    model = RecalibratedClassifierCV(LogisticRegression(), cv=folds)
    with pytest.warns(
        UserWarning,
        match=r"fold 0: its test part holds the class 0 only \(among samples of "
        r"positive weight\)",
    ):
        model.fit(X, y, sample_weight=w)
    assert len(model.calibrated_classifiers_) == 2
    # The other two folds are the model, with the weights.
    expected = []
    for train, test in folds[1:]:
        clf = LogisticRegression().fit(X[train], y[train], sample_weight=w[train])
        recal = PlattRecalibrator(clf).fit(X[test], y[test], sample_weight=w[test])
        expected.append(recal.predict_proba(X))
    assert_allclose(model.predict_proba(X), np.mean(expected, axis=0), atol=1e-12)


def test_pooled_accepts_one_class_test_folds(global_random_seed):
    """Check that ensemble=False pools one-class test parts without a warning."""
    X, y = _sorted_binary(global_random_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = RecalibratedClassifierCV(
            LogisticRegression(), IsotonicRecalibrator(), cv=KFold(3), ensemble=False
        ).fit(X, y)
    oof = np.empty(len(y))
    for train, test in KFold(3).split(X):
        oof[test] = (
            LogisticRegression().fit(X[train], y[train]).decision_function(X[test])
        )
    recal = IsotonicRecalibrator(input="logit").fit(oof, y)
    full = LogisticRegression().fit(X, y)
    assert_allclose(
        model.predict_proba(X),
        recal.predict_proba(full.decision_function(X)),
        atol=1e-12,
    )


# ---------------------------------------------------------------------------
# sample_weight and fit parameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ensemble", [True, False])
def test_sample_weight_reaches_classifier_and_recalibrators(
    global_random_seed, ensemble
):
    """Check that sample_weight reaches a classifier that accepts it and the maps."""
    X, y = _data(global_random_seed, 3)
    w = _weights(global_random_seed, len(y))
    recalibrator = PlattRecalibrator()
    model = RecalibratedClassifierCV(
        LogisticRegression(), recalibrator, cv=3, ensemble=ensemble
    ).fit(X, y, sample_weight=w)
    if ensemble:
        expected = _manual_ensemble(
            LogisticRegression(), recalibrator, X, y, X, 3, clf_weight=w, recal_weight=w
        )
    else:
        oof = np.empty((len(y), 3))
        for train, test in StratifiedKFold(3).split(X, y):
            clf = LogisticRegression().fit(X[train], y[train], sample_weight=w[train])
            oof[test] = clf.decision_function(X[test])
        recal = PlattRecalibrator(input="logit").fit(oof, y, sample_weight=w)
        full = LogisticRegression().fit(X, y, sample_weight=w)
        expected = recal.predict_proba(full.decision_function(X))
    assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)
    unweighted = RecalibratedClassifierCV(
        LogisticRegression(), recalibrator, cv=3, ensemble=ensemble
    ).fit(X, y)
    assert np.abs(model.predict_proba(X) - unweighted.predict_proba(X)).max() > 1e-4


def test_sample_weight_reaches_recalibrators_only(global_random_seed):
    """Check that a classifier without sample_weight is fitted unweighted."""
    X, y = _data(global_random_seed, 2)
    w = _weights(global_random_seed, len(y))
    knn = KNeighborsClassifier(n_neighbors=10)
    recalibrator = IsotonicRecalibrator()
    model = RecalibratedClassifierCV(knn, recalibrator, cv=3)
    with pytest.warns(UserWarning, match="not passed to KNeighborsClassifier"):
        model.fit(X, y, sample_weight=w)
    expected = _manual_ensemble(knn, recalibrator, X, y, X, 3, recal_weight=w)
    assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)
    unweighted = _manual_ensemble(knn, recalibrator, X, y, X, 3)
    assert np.abs(expected - unweighted).max() > 1e-4


class _NoWeightClassifier(ClassifierMixin, BaseEstimator):
    """A logistic regression whose fit takes extra parameters but no weights."""

    def fit(self, X, y, **fit_params):
        assert "sample_weight" not in fit_params
        self.clf_ = LogisticRegression().fit(X, y)
        self.classes_ = self.clf_.classes_
        return self

    def decision_function(self, X):
        return self.clf_.decision_function(X)


@pytest.mark.parametrize("ensemble", [True, False])
def test_dropped_sample_weight_warns(global_random_seed, ensemble):
    """Check that weights the classifier cannot take are dropped with a warning."""
    X, y = _data(global_random_seed, 2)
    w = _weights(global_random_seed, len(y))
    model = RecalibratedClassifierCV(_NoWeightClassifier(), cv=3, ensemble=ensemble)
    with pytest.warns(
        UserWarning,
        match=r"sample_weight is not passed to _NoWeightClassifier, whose fit has "
        r"no sample_weight parameter: the classifiers are fitted unweighted",
    ):
        model.fit(X, y, sample_weight=w)
    # As routing with the classifier's request for weights declined: the
    # recalibrators are weighted, the classifiers are not.
    with sklearn.config_context(enable_metadata_routing=True):
        unweighted_clf = LogisticRegression().set_fit_request(sample_weight=False)
        reference = RecalibratedClassifierCV(unweighted_clf, cv=3, ensemble=ensemble)
        reference.fit(X, y, sample_weight=w)
    assert_allclose(
        model.predict_proba(X), reference.predict_proba(X), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("routing", [False, True])
def test_no_weight_warning_when_not_needed(global_random_seed, routing):
    """Check that no warning is given without weights, for a classifier taking
    them, or when metadata routing decides where the weights go."""
    X, y = _data(global_random_seed, 2)
    w = _weights(global_random_seed, len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        with sklearn.config_context(enable_metadata_routing=routing):
            RecalibratedClassifierCV(_NoWeightClassifier(), cv=3).fit(X, y)
            if routing:
                # The classifier requests nothing: the weights go to the
                # recalibrators only, as routing says.
                model = RecalibratedClassifierCV(KNeighborsClassifier(), cv=3)
                model.fit(X, y, sample_weight=w)
            else:
                estimator = LogisticRegression()
                model = RecalibratedClassifierCV(estimator, cv=3)
                model.fit(X, y, sample_weight=w)


@pytest.mark.parametrize("requested", [True, False])
@pytest.mark.parametrize("ensemble", [True, False])
def test_metadata_routing_sample_weight(global_random_seed, requested, ensemble):
    """Check that with metadata routing the classifier gets weights only on request."""
    X, y = _data(global_random_seed, 2)
    w = _weights(global_random_seed, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = _RecordingClassifier().set_fit_request(sample_weight=requested)
        model = RecalibratedClassifierCV(
            estimator, PlattRecalibrator(), cv=3, ensemble=ensemble
        ).fit(X, y, sample_weight=w)
    clf_weight = w if requested else None
    if ensemble:
        folds = StratifiedKFold(3).split(X, y)
        for (train, _), recal in zip(folds, model.calibrated_classifiers_, strict=True):
            if requested:
                assert_array_equal(recal.estimator.sample_weight_, w[train])
            else:
                assert recal.estimator.sample_weight_ is None
        expected = _manual_ensemble(
            LogisticRegression(), PlattRecalibrator(), X, y, X, 3,
            clf_weight=clf_weight, recal_weight=w,
        )  # fmt: skip
        assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)
    else:
        if requested:
            assert_array_equal(model.estimator_.sample_weight_, w)
        else:
            assert model.estimator_.sample_weight_ is None
        full = LogisticRegression().fit(X, y, sample_weight=clf_weight)
        assert_allclose(
            model.estimator_.decision_function(X), full.decision_function(X), atol=1e-12
        )
        # The pooled recalibrator is weighted either way.
        oof = np.empty(len(y))
        for train, test in StratifiedKFold(3).split(X, y):
            weight = None if clf_weight is None else clf_weight[train]
            clf = LogisticRegression().fit(X[train], y[train], sample_weight=weight)
            oof[test] = clf.decision_function(X[test])
        recal = PlattRecalibrator(input="logit").fit(oof, y, sample_weight=w)
        assert_allclose(model.calibrated_classifiers_[0].coef_, recal.coef_, rtol=1e-10)


def test_metadata_routing_unset_request_raises():
    """Check that routed weights need the classifier's explicit request."""
    X, y = _data(0, 2)
    with sklearn.config_context(enable_metadata_routing=True):
        model = RecalibratedClassifierCV(LogisticRegression(), cv=3)
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            model.fit(X, y, sample_weight=np.ones(len(y)))
        # Without weights no request is needed.
        model.fit(X, y)
    assert len(model.calibrated_classifiers_) == 3


@pytest.mark.parametrize("routing", [False, True])
@pytest.mark.parametrize("ensemble", [True, False])
def test_fit_params_routed_to_classifier(global_random_seed, routing, ensemble):
    """Check that extra fit parameters reach the classifier, sliced to its rows."""
    X, y = _data(global_random_seed, 3)
    marker = np.arange(len(y)) * 10
    with sklearn.config_context(enable_metadata_routing=routing):
        estimator = _RecordingClassifier()
        if routing:
            estimator.set_fit_request(marker=True)
        model = RecalibratedClassifierCV(estimator, cv=3, ensemble=ensemble)
        model.fit(X, y, marker=marker)
    if ensemble:
        folds = StratifiedKFold(3).split(X, y)
        for (train, _), recal in zip(folds, model.calibrated_classifiers_, strict=True):
            assert_array_equal(recal.estimator.marker_, marker[train])
            assert recal.estimator.sample_weight_ is None
    else:
        assert_array_equal(model.estimator_.marker_, marker)
        assert model.estimator_.sample_weight_ is None


# ---------------------------------------------------------------------------
# Meta-estimator behaviour
# ---------------------------------------------------------------------------

GRID_RECALIBRATORS = [
    PlattRecalibrator(),
    IsotonicRecalibrator(),
    HistogramBinningRecalibrator(n_bins=10),
    TemperatureRecalibrator(),
]


def test_grid_search_over_recalibrators(global_random_seed):
    """Check that GridSearchCV can choose the recalibrator by log loss."""
    X, y = _data(global_random_seed, 3, n_samples=150)
    search = GridSearchCV(
        RecalibratedClassifierCV(LogisticRegression(), cv=3),
        {"recalibrator": GRID_RECALIBRATORS},
        scoring="neg_log_loss",
        cv=3,
    ).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert scores.shape == (4,) and np.all(np.isfinite(scores))
    best = search.best_params_["recalibrator"]
    assert best is GRID_RECALIBRATORS[int(np.argmax(scores))]
    # The refitted model uses the chosen recalibrator (a clone of it).
    chosen = search.best_estimator_.calibrated_classifiers_[0]
    assert type(chosen) is type(best) and chosen is not best
    expected = RecalibratedClassifierCV(LogisticRegression(), best, cv=3).fit(X, y)
    assert_allclose(search.predict_proba(X), expected.predict_proba(X), atol=1e-12)


def test_in_pipeline(global_random_seed):
    """Check that a Pipeline with a scaler gives the model the scaled data."""
    X, y = _data(global_random_seed, 3)
    X = X * np.array([1.0, 10.0, 100.0, 0.1, 1000.0]) + 5.0
    pipe = make_pipeline(
        StandardScaler(), RecalibratedClassifierCV(LogisticRegression(), cv=3)
    ).fit(X, y)
    scaled = StandardScaler().fit_transform(X)
    direct = RecalibratedClassifierCV(LogisticRegression(), cv=3).fit(scaled, y)
    assert_allclose(pipe.predict_proba(X), direct.predict_proba(scaled), atol=1e-12)

    search = GridSearchCV(
        pipe,
        {"recalibratedclassifiercv__recalibrator": GRID_RECALIBRATORS},
        scoring="neg_log_loss",
        cv=3,
    ).fit(X, y)
    assert search.best_params_["recalibratedclassifiercv__recalibrator"] in (
        GRID_RECALIBRATORS
    )
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


@pytest.mark.parametrize("ensemble", [True, False])
def test_clone_and_pickle(global_random_seed, ensemble):
    """Check that clone keeps the parameters and pickling keeps the fit."""
    X, y = _data(global_random_seed, 3)
    model = RecalibratedClassifierCV(
        LogisticRegression(C=0.5), IsotonicRecalibrator(), cv=4, ensemble=ensemble
    )
    cloned = clone(model)
    assert cloned.get_params()["estimator__C"] == 0.5
    assert isinstance(cloned.recalibrator, IsotonicRecalibrator)
    assert cloned.recalibrator is not model.recalibrator
    assert (cloned.cv, cloned.ensemble) == (4, ensemble)
    model.fit(X, y)
    assert not hasattr(clone(model), "calibrated_classifiers_")
    restored = pickle.loads(pickle.dumps(model))
    assert_allclose(restored.predict_proba(X), model.predict_proba(X), atol=0)
    assert_array_equal(restored.predict(X), model.predict(X))


@pytest.mark.parametrize("ensemble", [True, False])
def test_string_labels(global_random_seed, ensemble):
    """Check that string labels give the same model as their integer codes."""
    X, y = _data(global_random_seed, 3)
    names = np.array(["cat", "ant", "bee"])
    y_str = names[y]
    model = RecalibratedClassifierCV(
        LogisticRegression(), IsotonicRecalibrator(), cv=3, ensemble=ensemble
    ).fit(X, y_str)
    assert_array_equal(model.classes_, ["ant", "bee", "cat"])
    # Sorting the names reorders the codes: ant=1, bee=2, cat=0.
    y_sorted = np.searchsorted(model.classes_, y_str)
    reference = RecalibratedClassifierCV(
        LogisticRegression(), IsotonicRecalibrator(), cv=3, ensemble=ensemble
    ).fit(X, y_sorted)
    assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[reference.predict(X)])


@pytest.mark.parametrize("ensemble", [True, False])
def test_dataframe_feature_names(global_random_seed, ensemble):
    """Check that a DataFrame's feature names are copied from the classifier."""
    X, y = _data(global_random_seed, 2)
    columns = ["a", "b", "c", "d", "e"]
    frame = pd.DataFrame(X, columns=columns)
    model = RecalibratedClassifierCV(LogisticRegression(), cv=3, ensemble=ensemble).fit(
        frame, y
    )
    assert model.n_features_in_ == 5
    assert_array_equal(model.feature_names_in_, columns)
    reference = RecalibratedClassifierCV(
        LogisticRegression(), cv=3, ensemble=ensemble
    ).fit(X, y)
    assert not hasattr(reference, "feature_names_in_")
    assert_allclose(model.predict_proba(frame), reference.predict_proba(X), atol=1e-12)


def test_refit_on_array_drops_feature_names(global_random_seed):
    """Check that refitting on an array forgets the feature names of a DataFrame."""
    X, y = _data(global_random_seed, 2)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    model = RecalibratedClassifierCV(LogisticRegression(), cv=3).fit(frame, y)
    model.fit(X, y)
    assert not hasattr(model, "feature_names_in_")


@pytest.mark.parametrize("ensemble", [True, False])
def test_n_jobs(global_random_seed, ensemble):
    """Check that fitting the folds in parallel gives the same model."""
    X, y = _data(global_random_seed, 3)
    kwargs = dict(cv=3, ensemble=ensemble)
    serial = RecalibratedClassifierCV(LogisticRegression(), **kwargs).fit(X, y)
    parallel = RecalibratedClassifierCV(LogisticRegression(), n_jobs=2, **kwargs)
    # Threads: worker processes take seconds to start on a loaded machine.
    with parallel_config(backend="threading"):
        parallel.fit(X, y)
    assert_allclose(parallel.predict_proba(X), serial.predict_proba(X), atol=1e-12)


def test_default_recalibrator_is_platt(global_random_seed):
    """Check that recalibrator=None means PlattRecalibrator."""
    X, y = _data(global_random_seed, 3)
    default = RecalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
    platt = RecalibratedClassifierCV(
        LogisticRegression(), PlattRecalibrator(), cv=3
    ).fit(X, y)
    assert default.recalibrator is None
    assert all(
        isinstance(r, PlattRecalibrator) for r in default.calibrated_classifiers_
    )
    assert_allclose(default.predict_proba(X), platt.predict_proba(X), atol=1e-12)
    # It is not the identity: the fold pairs differ from the plain classifier.
    plain = LogisticRegression().fit(X, y).predict_proba(X)
    assert np.abs(default.predict_proba(X) - plain).max() > 1e-3


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def test_recalibrator_with_estimator_raises():
    """Check that a recalibrator already holding a classifier is rejected."""
    X, y = _data(0, 2)
    fitted = LogisticRegression().fit(X, y)
    model = RecalibratedClassifierCV(
        LogisticRegression(), IsotonicRecalibrator(estimator=fitted)
    )
    with pytest.raises(ValueError, match="recalibrator must have estimator=None"):
        model.fit(X, y)


@pytest.mark.parametrize("ensemble", [True, False])
def test_too_few_samples_of_a_class_raises(ensemble):
    """Check that a class with fewer samples than folds is rejected."""
    X, y = _data(0, 3, n_samples=60)
    y = y.copy()
    y[np.flatnonzero(y == 2)[2:]] = 0  # class 2 keeps 2 samples
    model = RecalibratedClassifierCV(LogisticRegression(), cv=3, ensemble=ensemble)
    with pytest.raises(ValueError, match=r"3-fold.*has only 2 sample"):
        model.fit(X, y)
    # Two folds are enough.
    model.set_params(cv=2).fit(X, y)
    assert_array_equal(model.classes_, [0, 1, 2])


def _one_fold_without_z():
    """Labels x, y, z and two folds; the first trains without "z"."""
    X, y = _data(0, 3, n_samples=60)
    labels = np.array(["x", "y", "z"])[y]
    rest = np.flatnonzero(labels != "z")
    has_z = np.flatnonzero(labels == "z")
    splits = [
        (rest[::2], np.concatenate([rest[1::2], has_z])),
        (np.concatenate([rest[1::2], has_z]), rest[::2]),
    ]
    return X, labels, splits


def test_pooled_training_fold_without_a_class_raises():
    """Check that ensemble=False refuses a training fold without a class, naming it."""
    X, labels, splits = _one_fold_without_z()
    model = RecalibratedClassifierCV(LogisticRegression(), cv=splits, ensemble=False)
    with pytest.raises(
        ValueError,
        match=r"fold 0: its training part lacks the class\(es\) \['z'\]\. "
        r"Use StratifiedKFold .*or ensemble=True",
    ):
        model.fit(X, labels)


def test_ensemble_skips_training_fold_without_a_class():
    """Check that ensemble=True skips a fold whose training part lacks a class."""
    X, labels, splits = _one_fold_without_z()
    model = RecalibratedClassifierCV(LogisticRegression(), cv=splits)
    with pytest.warns(
        UserWarning,
        match=r"1 of 2 folds of cv are skipped.*fold 0: its training part lacks "
        r"the class\(es\) \['z'\]",
    ):
        model.fit(X, labels)
    assert len(model.calibrated_classifiers_) == 1
    train, test = splits[1]
    clf = LogisticRegression().fit(X[train], labels[train])
    expected = PlattRecalibrator(clf).fit(X[test], labels[test]).predict_proba(X)
    assert_allclose(model.predict_proba(X), expected, rtol=1e-10, atol=1e-12)


def test_classifier_dropping_a_class_raises():
    """Check that a fold's classifier that drops a class is refused, naming the fold."""

    class _DropsUnweighted(ClassifierMixin, BaseEstimator):
        """Knows only the classes of positive weight."""

        def fit(self, X, y, sample_weight=None):
            keep = np.ones(len(y), bool) if sample_weight is None else sample_weight > 0
            self.clf_ = LogisticRegression().fit(X[keep], y[keep])
            self.classes_ = self.clf_.classes_
            return self

        def decision_function(self, X):
            return self.clf_.decision_function(X)

    X, y = _data(0, 3, n_samples=90)
    w = np.ones(len(y))
    w[y == 2] = 0.0  # the classifier never learns class 2
    w[np.flatnonzero(y == 2)[:1]] = 1.0  # one row of class 2 weighs in one fold
    model = RecalibratedClassifierCV(_DropsUnweighted(), cv=3)
    with pytest.raises(
        ValueError,
        match=r"classifier fitted on the training part of fold \d of cv lacks the "
        r"class\(es\) \[2\]: use StratifiedKFold",
    ):
        model.fit(X, y, sample_weight=w)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"cv": "five"}, "'cv' parameter"),
        ({"cv": 1.5}, "'cv' parameter"),
        ({"ensemble": "yes"}, "'ensemble' parameter"),
        ({"n_jobs": 1.5}, "'n_jobs' parameter"),
        ({"recalibrator": LogisticRegression()}, "'recalibrator' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid hyper-parameters raise InvalidParameterError at fit."""
    X, y = _data(0, 2)
    model = RecalibratedClassifierCV(LogisticRegression(), **params)
    with pytest.raises(InvalidParameterError, match=match):
        model.fit(X, y)


def test_pooled_needs_a_partition(global_random_seed):
    """Check that ensemble=False rejects test folds that are not a partition."""
    X, y = _data(global_random_seed, 2)
    # Test folds of 30% each, twice: some rows are in no test fold, some in two.
    cv = ShuffleSplit(n_splits=2, test_size=0.3, random_state=global_random_seed)
    model = RecalibratedClassifierCV(
        LogisticRegression(), IsotonicRecalibrator(), cv=cv, ensemble=False
    )
    with pytest.raises(ValueError, match="partition"):
        model.fit(X, y)
