"""Tests of the calibration scorers and of get_scorer / get_scorer_names."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.metrics import get_scorer as sklearn_get_scorer
from sklearn.metrics import get_scorer_names as sklearn_get_scorer_names
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC

from skcal.discovery import all_measures
from skcal.metrics import (
    binned_calibration_error,
    expected_calibration_error,
    make_calibration_scorer,
    smooth_ece,
)
from skcal.metrics._scorer import _SCORERS
from skcal.model_selection import get_scorer, get_scorer_names

MEASURES = {m.scorer: m.function for m in all_measures(kind="calibration_error")}
SCORER_NAMES = sorted(MEASURES)

# scikit-learn scorers mixed with skcal's in the multi-metric tests.
SKLEARN_NAMES = ["neg_brier_score", "neg_log_loss", "accuracy"]


def _data(rng, n=90, kind="binary"):
    """Features and labels of a noisy linear problem.

    ``kind`` is ``"binary"`` (0/1 labels), ``"str"`` (two string labels),
    ``"multiclass"`` (0, 1, 2) or ``"multiclass_str"`` (three strings).
    """
    X = rng.normal(size=(n, 3))
    n_classes = 3 if kind.startswith("multiclass") else 2
    coef = rng.normal(scale=1.5, size=(3, n_classes))
    logits = X @ coef + rng.gumbel(size=(n, n_classes))
    y = np.argmax(logits, axis=1)
    # Every class at least 10 times, so that stratified folds see them all.
    y[: 10 * n_classes] = np.repeat(np.arange(n_classes), 10)
    if kind == "str":
        y = np.array(["no", "yes"])[y]
    elif kind == "multiclass_str":
        y = np.array(["cat", "ant", "bee"])[y]
    return X, y


def _expected(measure, y, proba, sample_weight=None):
    """The measure on an estimator's probabilities, computed by hand."""
    if proba.shape[1] == 2:
        return measure(y, proba[:, 1], sample_weight=sample_weight)
    return measure(y, proba, sample_weight=sample_weight)


# ---------------------------------------------------------------------------
# scorer(est, X, y) == -measure(y, est.predict_proba(X))
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", SCORER_NAMES)
def test_scorer_binary_equals_negated_measure(global_random_seed, name, weighted):
    """Check that a named scorer is minus its measure on the positive column."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng)
    w = rng.uniform(0.1, 3, size=y.shape[0]) if weighted else None
    est = GaussianNB().fit(X, y)
    scorer = get_scorer(name)
    got = scorer(est, X, y, sample_weight=w)
    expected = -MEASURES[name](y, est.predict_proba(X)[:, 1], sample_weight=w)
    assert isinstance(got, float)
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    if weighted:
        # The weights matter: the unweighted score differs.
        assert abs(scorer(est, X, y) - got) > 1e-8


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", SCORER_NAMES)
def test_scorer_string_labels(global_random_seed, name, weighted):
    """Check that with string labels the positive class is classes_[1]."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind="str")
    w = rng.uniform(0.1, 3, size=y.shape[0]) if weighted else None
    est = GaussianNB().fit(X, y)
    assert est.classes_.tolist() == ["no", "yes"]
    got = get_scorer(name)(est, X, y, sample_weight=w)
    expected = -MEASURES[name](
        y, est.predict_proba(X)[:, 1], sample_weight=w, pos_label="yes"
    )
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kind", ["binary", "str"])
@pytest.mark.parametrize("name", SCORER_NAMES)
def test_scorer_pos_label(global_random_seed, name, kind, weighted):
    """Check that a pos_label given to make_calibration_scorer picks its column."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind=kind)
    w = rng.uniform(0.1, 3, size=y.shape[0]) if weighted else None
    est = GaussianNB().fit(X, y)
    negative = est.classes_[0]
    scorer = make_calibration_scorer(MEASURES[name], pos_label=negative)
    got = scorer(est, X, y, sample_weight=w)
    expected = -MEASURES[name](
        y, est.predict_proba(X)[:, 0], sample_weight=w, pos_label=negative
    )
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kind", ["multiclass", "multiclass_str"])
@pytest.mark.parametrize("name", SCORER_NAMES)
def test_scorer_multiclass(global_random_seed, name, kind, weighted):
    """Check that a multiclass scorer is minus the measure with labels=classes_."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind=kind)
    w = rng.uniform(0.1, 3, size=y.shape[0]) if weighted else None
    est = GaussianNB().fit(X, y)
    got = get_scorer(name)(est, X, y, sample_weight=w)
    expected = -MEASURES[name](
        y, est.predict_proba(X), sample_weight=w, labels=est.classes_
    )
    assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def test_make_calibration_scorer_options(global_random_seed):
    """Check that fixed options and greater_is_better reach the measure."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=200)
    est = GaussianNB().fit(X, y)
    p = est.predict_proba(X)[:, 1]
    scorer = make_calibration_scorer(
        binned_calibration_error, n_bins=4, norm="max", strategy="quantile"
    )
    expected = binned_calibration_error(y, p, n_bins=4, norm="max", strategy="quantile")
    assert_allclose(scorer(est, X, y), -expected, rtol=1e-12)
    assert expected != binned_calibration_error(y, p)
    positive = make_calibration_scorer(
        expected_calibration_error, greater_is_better=True
    )
    assert_allclose(positive(est, X, y), expected_calibration_error(y, p), rtol=1e-12)


# ---------------------------------------------------------------------------
# Errors and folds that lack a class
# ---------------------------------------------------------------------------


def test_scorer_fold_missing_a_class(global_random_seed):
    """Check that a test set lacking a class still scores, with labels=classes_."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=120, kind="multiclass")
    est = GaussianNB().fit(X, y)
    subset = y != 2
    proba = est.predict_proba(X[subset])
    # Without labels, the measure cannot tell which column is which class.
    with pytest.raises(ValueError, match="labels"):
        expected_calibration_error(y[subset], proba)
    for name, measure in MEASURES.items():
        got = get_scorer(name)(est, X[subset], y[subset])
        expected = -measure(y[subset], proba, labels=est.classes_)
        assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def test_cross_val_score_rare_class(global_random_seed):
    """Check that CV folds whose test set lacks a rare class still score."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=100, kind="multiclass")
    y[y == 2] = 0
    rare = np.flatnonzero(y == 0)[:3]
    y[rare] = 2
    others = np.setdiff1d(np.arange(y.shape[0]), rare)
    # Four folds whose test sets hold no row of class 2; the last holds them all
    # (and its training set lacks the class, so it is left out).
    folds = np.array_split(rng.permutation(others), 4)
    splits = [(np.setdiff1d(np.arange(y.shape[0]), test), test) for test in folds]
    for name, measure in MEASURES.items():
        scores = cross_val_score(
            GaussianNB(), X, y, cv=splits, scoring=get_scorer(name)
        )
        expected = []
        for train, test in splits:
            est = GaussianNB().fit(X[train], y[train])
            expected.append(
                -measure(y[test], est.predict_proba(X[test]), labels=est.classes_)
            )
        assert np.all(np.isfinite(scores))
        assert_allclose(scores, expected, rtol=1e-10, atol=1e-14)


def test_scorer_without_predict_proba():
    """Check that an estimator without predict_proba raises AttributeError."""
    rng = np.random.RandomState(0)
    X, y = _data(rng)
    est = LinearSVC().fit(X, y)
    with pytest.raises(AttributeError, match="predict_proba"):
        get_scorer("neg_expected_calibration_error")(est, X, y)


@pytest.mark.parametrize("kind, pos_label", [("binary", 2), ("str", "maybe")])
def test_scorer_pos_label_not_a_class(kind, pos_label):
    """Check that a pos_label that is not a class raises ValueError."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, kind=kind)
    est = GaussianNB().fit(X, y)
    scorer = make_calibration_scorer(expected_calibration_error, pos_label=pos_label)
    with pytest.raises(ValueError, match="not among the classes"):
        scorer(est, X, y)


# ---------------------------------------------------------------------------
# cross_val_score, cross_validate and GridSearchCV
# ---------------------------------------------------------------------------


def _manual_scores(
    estimator, X, y, splits, measure, fit_weight=None, score_weight=None
):
    """Minus the measure on each test fold, fitting and scoring by hand."""
    scores = []
    for train, test in splits:
        fit_params = {} if fit_weight is None else {"sample_weight": fit_weight[train]}
        est = clone(estimator).fit(X[train], y[train], **fit_params)
        w = None if score_weight is None else score_weight[test]
        scores.append(-_expected(measure, y[test], est.predict_proba(X[test]), w))
    return np.array(scores)


@pytest.mark.parametrize("kind", ["binary", "multiclass_str"])
@pytest.mark.parametrize("name", SCORER_NAMES)
def test_cross_val_score(global_random_seed, name, kind):
    """Check that cross_val_score with a scorer gives the per-fold measures."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind=kind)
    cv = StratifiedKFold(3, shuffle=True, random_state=global_random_seed)
    splits = list(cv.split(X, y))
    scores = cross_val_score(GaussianNB(), X, y, cv=splits, scoring=get_scorer(name))
    expected = _manual_scores(GaussianNB(), X, y, splits, MEASURES[name])
    assert_allclose(scores, expected, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_cross_validate_mixes_skcal_and_sklearn_scorers(global_random_seed, kind):
    """Check that cross_validate scores skcal's and scikit-learn's names at once."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind=kind)
    cv = StratifiedKFold(3, shuffle=True, random_state=global_random_seed)
    splits = list(cv.split(X, y))
    names = [*SCORER_NAMES, *SKLEARN_NAMES]
    result = cross_validate(
        GaussianNB(),
        X,
        y,
        cv=splits,
        scoring={name: get_scorer(name) for name in names},
        return_estimator=True,
    )
    for name in SCORER_NAMES:
        expected = _manual_scores(GaussianNB(), X, y, splits, MEASURES[name])
        assert_allclose(result[f"test_{name}"], expected, rtol=1e-10, atol=1e-14)
    for est, (_, test), brier, nll, acc in zip(
        result["estimator"],
        splits,
        result["test_neg_brier_score"],
        result["test_neg_log_loss"],
        result["test_accuracy"],
        strict=True,
    ):
        proba = est.predict_proba(X[test])
        assert_allclose(
            brier,
            -brier_score_loss(y[test], proba[:, 1] if kind == "binary" else proba),
            rtol=1e-10,
        )
        assert_allclose(nll, -log_loss(y[test], proba, labels=est.classes_), rtol=1e-10)
        assert_allclose(acc, np.mean(est.predict(X[test]) == y[test]))


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_cross_validate_routes_sample_weight(global_random_seed, kind):
    """Check that a scorer requesting sample_weight gets each test fold's weights."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind=kind)
    w = rng.uniform(0.1, 3, size=y.shape[0])
    cv = StratifiedKFold(3, shuffle=True, random_state=global_random_seed)
    splits = list(cv.split(X, y))
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = GaussianNB().set_fit_request(sample_weight=True)
        scoring = {
            name: get_scorer(name).set_score_request(sample_weight=True)
            for name in [*SCORER_NAMES, "neg_brier_score"]
        }
        # A scorer that declines the weights scores the folds unweighted.
        scoring["unweighted"] = get_scorer(
            "neg_expected_calibration_error"
        ).set_score_request(sample_weight=False)
        result = cross_validate(
            estimator, X, y, cv=splits, scoring=scoring, params={"sample_weight": w}
        )
    for name in SCORER_NAMES:
        expected = _manual_scores(GaussianNB(), X, y, splits, MEASURES[name], w, w)
        assert_allclose(result[f"test_{name}"], expected, rtol=1e-10, atol=1e-14)
    expected = _manual_scores(
        GaussianNB(), X, y, splits, expected_calibration_error, w, None
    )
    assert_allclose(result["test_unweighted"], expected, rtol=1e-10, atol=1e-14)
    # The same weights reach scikit-learn's own scorer.
    brier = []
    for train, test in splits:
        est = GaussianNB().fit(X[train], y[train], sample_weight=w[train])
        proba = est.predict_proba(X[test])
        brier.append(
            -brier_score_loss(
                y[test],
                proba[:, 1] if kind == "binary" else proba,
                sample_weight=w[test],
            )
        )
    assert_allclose(result["test_neg_brier_score"], brier, rtol=1e-10)


@pytest.mark.parametrize("name", [*SCORER_NAMES, "neg_brier_score"])
def test_unrequested_scorer_raises_like_sklearn(name):
    """Check that sample_weight passed to an unrequested scorer raises.

    scikit-learn's neg_brier_score raises UnsetMetadataPassedError when
    metadata routing passes sample_weight (requested by the estimator's fit)
    and the scorer has not said whether it wants it, rather than scoring
    without the weights; skcal's scorers must do the same.
    """
    rng = np.random.RandomState(0)
    X, y = _data(rng)
    w = rng.uniform(0.1, 3, size=y.shape[0])
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = GaussianNB().set_fit_request(sample_weight=True)
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            cross_validate(
                estimator,
                X,
                y,
                cv=3,
                scoring={name: get_scorer(name)},
                params={"sample_weight": w},
            )


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_grid_search_with_every_scorer(global_random_seed, kind, weighted):
    """Check that GridSearchCV records and refits on skcal's scorers."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=80, kind=kind)
    w = rng.uniform(0.1, 3, size=y.shape[0]) if weighted else None
    cv = StratifiedKFold(3, shuffle=True, random_state=global_random_seed)
    splits = list(cv.split(X, y))
    grid = {"var_smoothing": [1e-9, 0.5]}
    refit = "neg_expected_calibration_error"
    with sklearn.config_context(enable_metadata_routing=True):
        scoring = {
            name: get_scorer(name).set_score_request(sample_weight=True)
            for name in [*SCORER_NAMES, "neg_log_loss"]
        }
        estimator = GaussianNB().set_fit_request(sample_weight=True)
        search = GridSearchCV(estimator, grid, scoring=scoring, cv=splits, refit=refit)
        search.fit(X, y, **({} if w is None else {"sample_weight": w}))
    results = search.cv_results_
    for i, vs in enumerate(grid["var_smoothing"]):
        for name in SCORER_NAMES:
            expected = _manual_scores(
                GaussianNB(var_smoothing=vs), X, y, splits, MEASURES[name], w, w
            )
            got = [results[f"split{k}_test_{name}"][i] for k in range(len(splits))]
            assert_allclose(got, expected, rtol=1e-8, atol=1e-12)
    best = int(np.argmax(results[f"mean_test_{refit}"]))
    assert search.best_index_ == best
    assert search.best_params_ == {"var_smoothing": grid["var_smoothing"][best]}
    assert_allclose(search.best_score_, results[f"mean_test_{refit}"][best])


# ---------------------------------------------------------------------------
# get_scorer, get_scorer_names, repr
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCORER_NAMES)
def test_get_scorer_returns_fresh_copies(name):
    """Check that get_scorer returns a new scorer whose request is its own."""
    with sklearn.config_context(enable_metadata_routing=True):
        first = get_scorer(name)
        second = get_scorer(name)
        assert first is not second
        assert first is not _SCORERS[name]
        first.set_score_request(sample_weight=True)
        assert first.get_metadata_routing().score.requests["sample_weight"] is True
        for other in (second, get_scorer(name), _SCORERS[name]):
            requests = other.get_metadata_routing().score.requests
            assert requests.get("sample_weight") is not True


def test_get_scorer_falls_back_to_sklearn():
    """Check that scikit-learn names, callables and None pass to scikit-learn."""
    rng = np.random.RandomState(0)
    X, y = _data(rng)
    est = GaussianNB().fit(X, y)
    for name in SKLEARN_NAMES:
        scorer = get_scorer(name)
        assert repr(scorer) == repr(sklearn_get_scorer(name))
        assert_allclose(scorer(est, X, y), sklearn_get_scorer(name)(est, X, y))

    def custom(estimator, X, y):
        return 0.0

    assert get_scorer(custom) is custom
    assert get_scorer(None) is None


def test_get_scorer_unknown_name():
    """Check that an unknown name raises scikit-learn's ValueError."""
    with pytest.raises(ValueError, match="'neg_nonsense' is not a valid scoring"):
        get_scorer("neg_nonsense")


def test_get_scorer_names():
    """Check that get_scorer_names lists skcal's and scikit-learn's names, sorted."""
    names = get_scorer_names()
    assert names == sorted(names)
    assert len(names) == len(set(names))
    assert set(SCORER_NAMES) <= set(names)
    assert set(sklearn_get_scorer_names()) <= set(names)
    from skcal.regression._scorer import REGRESSION_SCORERS

    assert set(REGRESSION_SCORERS) <= set(names)
    assert len(names) == len(SCORER_NAMES) + len(REGRESSION_SCORERS) + len(
        sklearn_get_scorer_names()
    )
    for name in names:
        assert get_scorer(name) is not None


def test_scorer_repr():
    """Check that a scorer's repr names its measure and options."""
    assert repr(get_scorer("neg_smooth_ece")) == "make_calibration_scorer(smooth_ece)"
    scorer = make_calibration_scorer(
        expected_calibration_error, n_bins=10, pos_label="b"
    )
    assert repr(scorer) == (
        "make_calibration_scorer(expected_calibration_error, n_bins=10, pos_label='b')"
    )
    scorer = make_calibration_scorer(smooth_ece, greater_is_better=True)
    assert repr(scorer) == "make_calibration_scorer(smooth_ece, greater_is_better=True)"


# ---------------------------------------------------------------------------
# get_scorers and the checks of make_calibration_scorer (issue 11)
# ---------------------------------------------------------------------------


def test_scorer_helpers_importable_from_both_modules():
    """Check that the scorer helpers are the same objects in both packages."""
    import skcal.metrics
    import skcal.model_selection

    for name in ("get_scorer", "get_scorers", "get_scorer_names"):
        assert getattr(skcal.metrics, name) is getattr(skcal.model_selection, name)
    assert skcal.metrics.make_calibration_scorer is (
        skcal.model_selection.make_calibration_scorer
    )


def test_get_scorers_in_cross_validate(global_random_seed):
    """Check that a dict of mixed names works in cross_validate, fold by fold."""
    from skcal.metrics import get_scorers

    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, kind="multiclass_str")
    names = ["neg_log_loss", "neg_expected_calibration_error", "accuracy"]
    scoring = get_scorers(names)
    assert list(scoring) == names
    splits = list(StratifiedKFold(3).split(X, y))
    result = cross_validate(GaussianNB(), X, y, cv=splits, scoring=scoring)
    expected = _manual_scores(
        GaussianNB(), X, y, splits, MEASURES["neg_expected_calibration_error"]
    )
    assert_allclose(result["test_neg_expected_calibration_error"], expected)
    assert_allclose(
        result["test_neg_log_loss"],
        cross_validate(GaussianNB(), X, y, cv=splits, scoring="neg_log_loss")[
            "test_score"
        ],
    )


def test_get_scorers_in_grid_search_with_refit(global_random_seed):
    """Check GridSearchCV with a dict of mixed scorers and refit by one of them."""
    from skcal.metrics import get_scorers

    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng)
    search = GridSearchCV(
        GaussianNB(),
        {"var_smoothing": [1e-9, 1e-3, 1e-1]},
        scoring=get_scorers(["neg_brier_score", "neg_smooth_ece"]),
        refit="neg_smooth_ece",
        cv=3,
    ).fit(X, y)
    ranks = search.cv_results_["rank_test_neg_smooth_ece"]
    assert search.best_index_ == int(np.argmin(ranks))
    assert "mean_test_neg_brier_score" in search.cv_results_


def test_get_scorers_rejections():
    """Check that get_scorers refuses non-names, unknown names and nothing."""
    from skcal.metrics import get_scorers

    assert list(get_scorers("neg_smooth_ece")) == ["neg_smooth_ece"]
    with pytest.raises(TypeError, match="scorer names"):
        get_scorers([expected_calibration_error])
    with pytest.raises(ValueError, match="'neg_nonsense' is not a valid scoring"):
        get_scorers(["neg_nonsense"])
    with pytest.raises(ValueError, match="at least one"):
        get_scorers([])


def test_make_calibration_scorer_rejects_unknown_options():
    """Check that a misspelt option fails at construction (it scored NaN before)."""
    with pytest.raises(TypeError, match="has no parameter 'nbins'.*n_bins"):
        make_calibration_scorer(expected_calibration_error, nbins=10)
    for argument in ("y_true", "y_prob"):
        with pytest.raises(TypeError, match=f"{argument}=.*at every call"):
            make_calibration_scorer(expected_calibration_error, **{argument: [0]})
    with pytest.raises(TypeError, match="sample_weight=.*metadata routing"):
        make_calibration_scorer(expected_calibration_error, sample_weight=[1])


def test_make_calibration_scorer_rejects_what_returns_more_than_a_number():
    """Check options and functions that would make every fold fail (review)."""
    from skcal.metrics import (
        calibration_decomposition,
        reliability_table,
        smooth_reliability_curve,
    )

    with pytest.raises(TypeError, match="return_per_class=.*one number"):
        make_calibration_scorer(
            expected_calibration_error, reduction="classwise", return_per_class=True
        )
    with pytest.raises(TypeError, match="return_sigma=.*one number"):
        make_calibration_scorer(smooth_ece, return_sigma=True)
    # False is harmless.
    assert make_calibration_scorer(smooth_ece, return_sigma=False) is not None
    for function in (
        reliability_table,
        calibration_decomposition,
        smooth_reliability_curve,
    ):
        with pytest.raises(TypeError, match="is not a measure of one number"):
            make_calibration_scorer(function)


def test_get_scorer_unknown_name_lists_both_libraries():
    """Check that an unknown name points to skcal's list of names."""
    with pytest.raises(ValueError, match=r"skcal\.metrics\.get_scorer_names"):
        get_scorer("neg_nonsense")


def test_make_calibration_scorer_checks_values_against_constraints():
    """Check that a value the measure's constraints refuse fails at construction."""
    from skcal._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="'n_bins' parameter of"):
        make_calibration_scorer(expected_calibration_error, n_bins=0)
    with pytest.raises(InvalidParameterError, match="'sigma' parameter of"):
        make_calibration_scorer(smooth_ece, sigma=-1.0)


def test_make_calibration_scorer_accepts_any_option_of_kwargs_functions():
    """Check that a measure with **kwargs takes options unchecked."""

    def measure(y_true, y_prob, **options):
        return 0.0

    assert make_calibration_scorer(measure, anything=1) is not None
