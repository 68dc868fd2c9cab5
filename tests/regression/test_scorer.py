"""Tests of the regression scorers: get_scorer names of the regression measures."""

# SPDX-License-Identifier: BSD-3-Clause

import copy
import pickle

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.exceptions import NotFittedError, UnsetMetadataPassedError
from sklearn.linear_model import BayesianRidge, LinearRegression, QuantileRegressor
from sklearn.metrics import get_scorer_names as sklearn_get_scorer_names
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcal._param_validation import InvalidParameterError
from skcal.metrics import (
    get_scorer,
    get_scorer_names,
    get_scorers,
    make_calibration_scorer,
)
from skcal.regression import (
    ConformalQuantileRecalibrator,
    MultiQuantileRegressor,
    RecalibratedRegressorCV,
    VarianceRecalibrator,
    dawid_sebastiani_score,
    gaussian_crps,
    gaussian_log_loss,
    pinball_loss,
    pit_calibration_error,
    quantile_calibration_error,
)

GAUSSIAN = {
    "neg_dawid_sebastiani_score": dawid_sebastiani_score,
    "neg_gaussian_log_loss": gaussian_log_loss,
    "neg_gaussian_crps": gaussian_crps,
    "neg_pit_calibration_error": pit_calibration_error,
}
QUANTILE = {
    "neg_pinball_loss": pinball_loss,
    "neg_quantile_calibration_error": quantile_calibration_error,
}
NAMES = sorted({**GAUSSIAN, **QUANTILE})
LEVELS = [0.1, 0.5, 0.9]


def _data(seed, n=120):
    """A linear problem whose noise grows with the first feature."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] + (0.5 + np.abs(X[:, 0])) * rng.normal(size=n)
    return X, y


def _quantile_model():
    return MultiQuantileRegressor(
        QuantileRegressor(alpha=0.0, solver="highs"), quantiles=LEVELS
    )


def _model(name):
    """An unfitted model the scorer of ``name`` can score."""
    return BayesianRidge() if name in GAUSSIAN else _quantile_model()


def _expected(name, estimator, X, y, sample_weight=None):
    """Minus the measure on the estimator's predictions, by hand."""
    if name in GAUSSIAN:
        mean, std = estimator.predict(X, return_std=True)
        return -GAUSSIAN[name](y, mean, std, sample_weight=sample_weight)
    levels = getattr(estimator, "quantiles_", None)
    return -QUANTILE[name](
        y, estimator.predict(X), quantiles=levels, sample_weight=sample_weight
    )


# ---------------------------------------------------------------------------
# scorer(estimator, X, y) == -measure(y, predictions)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_scorer_equals_negated_measure(global_random_seed, name, weighted):
    """Check that each regression scorer is minus its measure on the predictions."""
    X, y = _data(global_random_seed)
    w = np.random.RandomState(global_random_seed).uniform(0.1, 3, size=y.shape[0])
    w = w if weighted else None
    estimator = _model(name).fit(X[:80], y[:80])
    scorer = get_scorer(name)
    got = scorer(estimator, X[80:], y[80:], sample_weight=None if w is None else w[80:])
    expected = _expected(name, estimator, X[80:], y[80:], None if w is None else w[80:])
    assert isinstance(got, float)
    assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    if weighted:
        assert abs(scorer(estimator, X[80:], y[80:]) - got) > 1e-8


@pytest.mark.parametrize("name", sorted(GAUSSIAN))
def test_gaussian_scorers_on_recalibrated_models(global_random_seed, name):
    """Check the Gaussian scorers on recalibrators and RecalibratedRegressorCV."""
    X, y = _data(global_random_seed, n=180)
    regressor = BayesianRidge().fit(X[:60], y[:60])
    recalibrator = VarianceRecalibrator(regressor).fit(X[60:120], y[60:120])
    cross_fitted = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(X[:120], y[:120])
    for estimator in (recalibrator, cross_fitted):
        got = get_scorer(name)(estimator, X[120:], y[120:])
        expected = _expected(name, estimator, X[120:], y[120:])
        assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(QUANTILE))
def test_quantile_scorers_on_recalibrated_models(global_random_seed, name):
    """Check the quantile scorers on conformal models and on predict_quantiles."""
    X, y = _data(global_random_seed, n=180)
    model = _quantile_model().fit(X[:60], y[:60])
    conformal = ConformalQuantileRecalibrator(model).fit(X[60:120], y[60:120])
    cross_fitted = RecalibratedRegressorCV(
        _quantile_model(), ConformalQuantileRecalibrator(), cv=3
    ).fit(X[:120], y[:120])
    for estimator in (conformal, cross_fitted):
        got = get_scorer(name)(estimator, X[120:], y[120:])
        expected = _expected(name, estimator, X[120:], y[120:])
        assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    # A Gaussian model with predict_quantiles, given the levels at the call.
    gaussian = VarianceRecalibrator(BayesianRidge().fit(X[:60], y[:60]))
    gaussian.fit(X[60:120], y[60:120])
    got = get_scorer(name)(gaussian, X[120:], y[120:], quantiles=LEVELS)
    expected = QUANTILE[name](
        y[120:], gaussian.predict_quantiles(X[120:], LEVELS), quantiles=LEVELS
    )
    assert_allclose(got, -expected, rtol=1e-12, atol=1e-15)


def test_gaussian_scorer_in_a_pipeline(global_random_seed):
    """Check that a Pipeline's predict passes return_std to its last step."""
    X, y = _data(global_random_seed)
    pipe = make_pipeline(StandardScaler(), BayesianRidge()).fit(X, y)
    got = get_scorer("neg_gaussian_crps")(pipe, X, y)
    assert_allclose(got, _expected("neg_gaussian_crps", pipe, X, y), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(QUANTILE))
def test_quantile_scorer_in_a_pipeline(global_random_seed, name):
    """Check that a quantile scorer reads the levels of a Pipeline's last step."""
    X, y = _data(global_random_seed)
    pipe = make_pipeline(StandardScaler(), _quantile_model()).fit(X, y)
    got = get_scorer(name)(pipe, X, y)
    expected = QUANTILE[name](y, pipe.predict(X), quantiles=LEVELS)
    assert_allclose(got, -expected, rtol=1e-12)


def test_conformal_recalibration_of_a_pipeline(global_random_seed):
    """Check that the conformal recalibrators take the levels of a Pipeline."""
    X, y = _data(global_random_seed, n=200)
    pipe = make_pipeline(StandardScaler(), _quantile_model())
    model = RecalibratedRegressorCV(pipe, ConformalQuantileRecalibrator(), cv=3)
    assert_allclose(model.fit(X, y).quantiles_, LEVELS)
    fitted = clone(pipe).fit(X[:100], y[:100])
    recalibrator = ConformalQuantileRecalibrator(fitted).fit(X[100:], y[100:])
    assert_allclose(recalibrator.quantiles_, LEVELS)


def test_one_level_as_a_number(global_random_seed):
    """Check that quantiles=0.9 (a number) is one level, as [0.9] is."""
    X, y = _data(global_random_seed, n=200)
    model = MultiQuantileRegressor(
        QuantileRegressor(alpha=0.0, solver="highs"), quantiles=0.9
    ).fit(X, y)
    assert model.predict(X).shape == (200, 1)
    recal = ConformalQuantileRecalibrator(quantiles=0.9).fit(model.predict(X), y)
    assert_allclose(recal.quantiles_, [0.9])
    predictions = model.predict(X)
    assert pinball_loss(y, predictions, quantiles=0.9) == pinball_loss(
        y, predictions, quantiles=[0.9]
    )
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(InvalidParameterError, match="quantiles"):
            pinball_loss(y, predictions, quantiles=bad)
        with pytest.raises(InvalidParameterError, match="quantiles"):
            MultiQuantileRegressor(QuantileRegressor(), quantiles=bad).fit(X, y)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(QUANTILE))
def test_quantile_scorer_without_quantiles_raises(name):
    """Check that a quantile scorer on a model without levels raises ValueError."""
    X, y = _data(0)
    estimator = BayesianRidge().fit(X, y)
    with pytest.raises(
        ValueError, match="BayesianRidge has no quantiles: a quantile scorer needs"
    ):
        get_scorer(name)(estimator, X, y)


@pytest.mark.parametrize("name", sorted(GAUSSIAN))
def test_gaussian_scorer_without_std_raises(name):
    """Check that a Gaussian scorer needs predict(X, return_std=True)."""
    X, y = _data(0)
    for estimator in (LinearRegression(), _quantile_model()):
        estimator.fit(X, y)
        with pytest.raises(
            AttributeError,
            match=rf"{type(estimator).__name__}.predict\(X, return_std=True\) failed",
        ):
            get_scorer(name)(estimator, X, y)


@pytest.mark.parametrize("name", NAMES)
def test_scorer_of_an_unfitted_model_raises(name):
    """Check that scoring an unfitted model raises NotFittedError."""
    X, y = _data(0)
    with pytest.raises(NotFittedError, match="is not fitted"):
        get_scorer(name)(_model(name), X, y)


# ---------------------------------------------------------------------------
# Names, copies, pickling
# ---------------------------------------------------------------------------


def test_names_are_listed():
    """Check that the regression names are in get_scorer_names, once each."""
    names = get_scorer_names()
    assert set(NAMES) <= set(names)
    assert names == sorted(names)
    assert len(names) == len(set(names))
    # No regression name shadows one of scikit-learn's.
    assert not set(NAMES) & set(sklearn_get_scorer_names())


@pytest.mark.parametrize("name", NAMES)
def test_get_scorer_returns_fresh_copies(name):
    """Check that each get_scorer call gives a scorer whose request is its own."""
    function = name.removeprefix("neg_")
    assert repr(get_scorer(name)) == f"make_calibration_scorer({function})"
    with sklearn.config_context(enable_metadata_routing=True):
        first = get_scorer(name)
        second = get_scorer(name)
        assert first is not second
        first.set_score_request(sample_weight=True)
        assert first.get_metadata_routing().score.requests["sample_weight"] is True
        requests = second.get_metadata_routing().score.requests
        assert requests.get("sample_weight") is not True


@pytest.mark.parametrize("name", NAMES)
def test_scorers_survive_deepcopy_and_pickle(global_random_seed, name):
    """Check that deepcopy and pickle keep a scorer, its value and its request."""
    X, y = _data(global_random_seed)
    estimator = _model(name).fit(X, y)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_scorer(name).set_score_request(sample_weight=True)
        for other in (copy.deepcopy(scorer), pickle.loads(pickle.dumps(scorer))):
            assert other is not scorer
            assert repr(other) == repr(scorer)
            assert_allclose(other(estimator, X, y), scorer(estimator, X, y))
            requests = other.get_metadata_routing().score.requests
            assert requests["sample_weight"] is True


# ---------------------------------------------------------------------------
# Model selection
# ---------------------------------------------------------------------------


def _manual_folds(name, model, X, y, splits, weight=None):
    """Minus the measure on each test part, fitting and scoring by hand."""
    scores = []
    for train, test in splits:
        params = {} if weight is None else {"sample_weight": weight[train]}
        fitted = clone(model).fit(X[train], y[train], **params)
        w = None if weight is None else weight[test]
        scores.append(_expected(name, fitted, X[test], y[test], w))
    return np.array(scores)


def test_get_scorers_mix_with_sklearn_in_cross_validate(global_random_seed):
    """Check a dict of regression and scikit-learn names in cross_validate."""
    X, y = _data(global_random_seed)
    names = [*sorted(GAUSSIAN), "neg_mean_squared_error", "r2"]
    scoring = get_scorers(names)
    assert list(scoring) == names
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    result = cross_validate(
        BayesianRidge(), X, y, cv=splits, scoring=scoring, return_estimator=True
    )
    for name in GAUSSIAN:
        expected = _manual_folds(name, BayesianRidge(), X, y, splits)
        assert_allclose(result[f"test_{name}"], expected, rtol=1e-10)
    for estimator, (_, test), mse, r2 in zip(
        result["estimator"],
        splits,
        result["test_neg_mean_squared_error"],
        result["test_r2"],
        strict=True,
    ):
        prediction = estimator.predict(X[test])
        assert_allclose(mse, -mean_squared_error(y[test], prediction), rtol=1e-12)
        assert_allclose(r2, r2_score(y[test], prediction), rtol=1e-12)


def test_quantile_scorers_in_cross_validate(global_random_seed):
    """Check the quantile scorers of a MultiQuantileRegressor in cross_validate."""
    X, y = _data(global_random_seed)
    splits = list(KFold(3).split(X))
    result = cross_validate(
        _quantile_model(), X, y, cv=splits, scoring=get_scorers(sorted(QUANTILE))
    )
    for name in QUANTILE:
        expected = _manual_folds(name, _quantile_model(), X, y, splits)
        assert_allclose(result[f"test_{name}"], expected, rtol=1e-10, atol=1e-14)
        assert np.all(np.isfinite(result[f"test_{name}"]))


def test_cross_validate_routes_sample_weight(global_random_seed):
    """Check that scorers requesting sample_weight get each test part's weights."""
    X, y = _data(global_random_seed)
    w = np.random.RandomState(global_random_seed).uniform(0.1, 3, size=y.shape[0])
    splits = list(KFold(3).split(X))
    with sklearn.config_context(enable_metadata_routing=True):
        scoring = {
            name: get_scorer(name).set_score_request(sample_weight=True)
            for name in GAUSSIAN
        }
        scoring["unweighted"] = get_scorer("neg_gaussian_crps").set_score_request(
            sample_weight=False
        )
        estimator = BayesianRidge().set_fit_request(sample_weight=True)
        result = cross_validate(
            estimator, X, y, cv=splits, scoring=scoring, params={"sample_weight": w}
        )
    for name in GAUSSIAN:
        expected = _manual_folds(name, BayesianRidge(), X, y, splits, w)
        assert_allclose(result[f"test_{name}"], expected, rtol=1e-10)
    fitted_weighted = [
        BayesianRidge().fit(X[train], y[train], sample_weight=w[train])
        for train, _ in splits
    ]
    unweighted = [
        _expected("neg_gaussian_crps", est, X[test], y[test])
        for est, (_, test) in zip(fitted_weighted, splits, strict=True)
    ]
    assert_allclose(result["test_unweighted"], unweighted, rtol=1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_unrequested_scorer_raises_like_sklearn(name):
    """Check that routed sample_weight to a scorer without a request raises."""
    X, y = _data(0)
    w = np.ones(y.shape[0])
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = _model(name).set_fit_request(sample_weight=True)
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            cross_validate(
                estimator,
                X,
                y,
                cv=3,
                scoring={name: get_scorer(name)},
                params={"sample_weight": w},
            )


def test_grid_search_with_a_quantile_scorer(global_random_seed):
    """Check that GridSearchCV selects a quantile model by the pinball loss."""
    X, y = _data(global_random_seed)
    splits = list(KFold(3).split(X))
    grid = {"estimator__alpha": [0.0, 0.5]}
    search = GridSearchCV(
        _quantile_model(),
        grid,
        scoring=get_scorer("neg_pinball_loss"),
        cv=splits,
    ).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    for i, alpha in enumerate(grid["estimator__alpha"]):
        model = _quantile_model().set_params(estimator__alpha=alpha)
        expected = _manual_folds("neg_pinball_loss", model, X, y, splits)
        assert_allclose(scores[i], expected.mean(), rtol=1e-8)
    assert search.best_index_ == int(np.argmax(scores))


# ---------------------------------------------------------------------------
# make_calibration_scorer with a regression measure and options
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_make_scorer_with_options(global_random_seed, weighted):
    """Check scorers of regression measures made with options, and their sign."""
    X, y = _data(global_random_seed)
    w = np.random.RandomState(global_random_seed).uniform(0.5, 2.0, y.shape[0])
    w = w if weighted else None
    gaussian = RecalibratedRegressorCV(BayesianRidge(), cv=3).fit(X, y)
    mean, std = gaussian.predict(X, return_std=True)
    levels = [0.25, 0.75]

    scorer = make_calibration_scorer(pit_calibration_error, norm="l2")
    expected = pit_calibration_error(y, mean, std, norm="l2", sample_weight=w)
    assert_allclose(scorer(gaussian, X, y, sample_weight=w), -expected, rtol=1e-12)
    assert repr(scorer) == "make_calibration_scorer(pit_calibration_error, norm='l2')"

    # quantiles=[...]: the levels asked of a Gaussian model's predict_quantiles.
    scorer = make_calibration_scorer(pinball_loss, quantiles=levels)
    expected = pinball_loss(
        y, gaussian.predict_quantiles(X, levels), quantiles=levels, sample_weight=w
    )
    assert_allclose(scorer(gaussian, X, y, sample_weight=w), -expected, rtol=1e-12)

    scorer = make_calibration_scorer(
        quantile_calibration_error, norm="max", greater_is_better=True
    )
    model = _quantile_model().fit(X, y)
    expected = quantile_calibration_error(
        y, model.predict(X), quantiles=LEVELS, norm="max", sample_weight=w
    )
    assert_allclose(scorer(model, X, y, sample_weight=w), expected, rtol=1e-12)


def test_make_scorer_with_options_in_grid_search(global_random_seed):
    """Check a scorer with options inside GridSearchCV, fold by fold."""
    X, y = _data(global_random_seed)
    splits = list(KFold(3).split(X))
    scorer = make_calibration_scorer(pinball_loss, quantiles=[0.1, 0.9])
    grid = {
        "recalibrator": [
            VarianceRecalibrator(),
            VarianceRecalibrator(fit_intercept=False),
        ]
    }
    model = RecalibratedRegressorCV(BayesianRidge(), cv=3)
    search = GridSearchCV(model, grid, scoring=scorer, cv=splits).fit(X, y)
    for i, recalibrator in enumerate(grid["recalibrator"]):
        candidate = clone(model).set_params(recalibrator=recalibrator)
        folds = []
        for train, test in splits:
            fitted = clone(candidate).fit(X[train], y[train])
            predicted = fitted.predict_quantiles(X[test], [0.1, 0.9])
            folds.append(-pinball_loss(y[test], predicted, quantiles=[0.1, 0.9]))
        assert_allclose(search.cv_results_["mean_test_score"][i], np.mean(folds))


@pytest.mark.parametrize(
    "function, options, error, match",
    [
        (dawid_sebastiani_score, {"y_mean": 0.0}, TypeError, "passes y_true, y_mean"),
        (pinball_loss, {"y_quantiles": 0.0}, TypeError, "passes y_true, y_quantiles"),
        (gaussian_crps, {"norm": "l1"}, TypeError, "has no parameter 'norm'"),
        (pinball_loss, {"sample_weight": None}, TypeError, "metadata routing"),
        (
            pinball_loss,
            {"multioutput": "raw_values"},
            TypeError,
            "a scorer returns one number",
        ),
        (pit_calibration_error, {"norm": "l3"}, InvalidParameterError, "norm"),
    ],
)
def test_make_scorer_rejects_bad_options(function, options, error, match):
    """Check that a regression scorer's options are checked when it is made."""
    with pytest.raises(error, match=match):
        make_calibration_scorer(function, **options)


def test_make_scorer_rejects_regression_functions_that_are_not_measures():
    """Check that error_variance_ratio (a Bunch) cannot be a scorer."""
    from skcal.regression import error_variance_ratio

    with pytest.raises(TypeError, match="not a measure of one number.*pinball_loss"):
        make_calibration_scorer(error_variance_ratio)


def test_quantile_model_scored_at_some_of_its_levels(global_random_seed):
    """Check quantiles=[...] picks a quantile model's own columns, or says why not."""
    X, y = _data(global_random_seed)
    model = _quantile_model().fit(X, y)
    scorer = make_calibration_scorer(pinball_loss, quantiles=[0.1, 0.9])
    expected = pinball_loss(y, model.predict(X)[:, [0, 2]], quantiles=[0.1, 0.9])
    assert_allclose(scorer(model, X, y), -expected, rtol=1e-12)
    other = make_calibration_scorer(pinball_loss, quantiles=[0.1, 0.25])
    with pytest.raises(
        ValueError,
        match=r"predicts the quantiles of the levels \[0.1, 0.5, 0.9\] only, not "
        r"\[0.25\]",
    ):
        other(model, X, y)


def test_make_scorer_checks_levels_and_lists_options():
    """Check levels are checked when the scorer is made, and the options message."""
    with pytest.raises(ValueError, match="quantiles must be strictly increasing"):
        make_calibration_scorer(pinball_loss, quantiles=[0.9, 0.1])
    with pytest.raises(TypeError, match="has no parameter 'foo'; it has none"):
        make_calibration_scorer(gaussian_crps, foo=1)
    with pytest.raises(TypeError, match="its options are multioutput, quantiles\\."):
        make_calibration_scorer(pinball_loss, foo=1)
