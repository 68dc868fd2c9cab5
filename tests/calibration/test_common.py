"""Checks that every recalibrator is a well-behaved scikit-learn estimator."""

# SPDX-License-Identifier: BSD-3-Clause

import inspect
import pickle

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import skcal.calibration
from skcal._param_validation import InvalidParameterError
from skcal.calibration import (
    CenteredIsotonicRecalibrator,
    EnsembleTemperatureRecalibrator,
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    KernelSmoothingRecalibrator,
    MatrixScalingRecalibrator,
    MeanReplacementRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
    RecalibratedClassifierCV,
    SplineRecalibrator,
    TemperatureRecalibrator,
    VectorScalingRecalibrator,
    VennAbersRecalibrator,
)
from skcal.discovery import all_recalibrators

RECALIBRATORS = [cls for _, cls in all_recalibrators()]


def _frozen_logistic_regression():
    """A LogisticRegression fitted on 2 features and the classes {0, 1}, frozen."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    return FrozenEstimator(LogisticRegression().fit(X, y))


# With estimator=None, X is one column of scores per class (one or two for a
# binary problem). These checks fit on feature matrices whose number of
# columns differs from their number of classes (e.g. 2 columns for 3 classes,
# 10 columns for 2), which such a recalibrator must reject.
_SCORE_SHAPE = (
    "X holds one column of scores per class (1 or 2 for a binary problem); this "
    "check fits on a feature matrix whose number of columns does not match its "
    "number of classes, which is rejected"
)
_SCORE_LEVEL_XFAIL = dict.fromkeys(
    [
        "check_all_zero_sample_weights_error",
        "check_classifiers_classes",
        "check_classifiers_train",
        "check_dtype_object",
        "check_estimators_dtypes",
        "check_estimators_fit_returns_self",
        "check_estimators_nan_inf",
        "check_estimators_overwrite_params",
        "check_estimators_pickle",
        "check_n_features_in_after_fitting",
        "check_non_transformer_estimators_n_iter",
        "check_pipeline_consistency",
        "check_positive_only_tag_during_fit",
        "check_readonly_memmap_input",
        "check_sample_weight_equivalence_on_dense_data",
        "check_transformer_data_not_an_array",
        "check_transformer_general",
        "check_transformer_n_iter",
        "check_transformer_preserve_dtypes",
    ],
    _SCORE_SHAPE,
)

# A frozen classifier is never refitted: it scores only data with its own
# number of features (2) and labels among its classes ({0, 1}). These checks
# fit on other feature counts or labels (or expect a fitted model to reach an
# accuracy that a model frozen on other data cannot).
_FROZEN = (
    "the wrapped LogisticRegression is frozen, fitted on 2 features and the "
    "classes {0, 1}, and is never refitted: this check fits on data with another "
    "number of features or other labels, which it cannot score"
)
_FROZEN_XFAIL = dict.fromkeys(
    [
        "check_all_zero_sample_weights_error",
        "check_classifier_data_not_an_array",
        "check_classifiers_classes",
        "check_classifiers_one_label_sample_weights",
        "check_classifiers_train",
        "check_dict_unchanged",
        "check_dont_overwrite_parameters",
        "check_dtype_object",
        "check_estimator_sparse_array",
        "check_estimator_sparse_matrix",
        "check_estimator_sparse_tag",
        "check_estimators_dtypes",
        "check_estimators_fit_returns_self",
        "check_estimators_nan_inf",
        "check_estimators_overwrite_params",
        "check_estimators_pickle",
        "check_f_contiguous_array_estimator",
        "check_fit2d_1feature",
        "check_fit2d_predict1d",
        "check_fit_score_takes_y",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_n_features_in_after_fitting",
        "check_non_transformer_estimators_n_iter",
        "check_pipeline_consistency",
        "check_positive_only_tag_during_fit",
        "check_readonly_memmap_input",
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
        "check_sample_weights_list",
        "check_sample_weights_not_an_array",
        "check_sample_weights_not_overwritten",
        "check_sample_weights_pandas_series",
        "check_sample_weights_shape",
        "check_supervised_y_2d",
        "check_transformer_data_not_an_array",
        "check_transformer_general",
        "check_transformer_n_iter",
        "check_transformer_preserve_dtypes",
    ],
    _FROZEN,
)


# The randomized kernel-smoothing recalibrator draws its noise row by row.
_RANDOMIZED = (
    "randomized=True draws the noise row by row, so a row's prediction depends "
    "on its position in X: predicting a subset or a permutation of the rows "
    "draws other noise for it"
)
_RANDOMIZED_XFAIL = dict.fromkeys(
    ["check_methods_sample_order_invariance", "check_methods_subset_invariance"],
    _RANDOMIZED,
)


# scikit-learn runs these only for estimators with a max_iter parameter.
_N_ITER_CHECKS = ("check_non_transformer_estimators_n_iter", "check_transformer_n_iter")


def _expected_failed_checks(estimator):
    if isinstance(estimator, RecalibratedClassifierCV):
        return {}
    if estimator.estimator is None:
        expected = dict(_SCORE_LEVEL_XFAIL)
        if getattr(estimator, "randomized", False):
            expected.update(_RANDOMIZED_XFAIL)
    else:
        expected = dict(_FROZEN_XFAIL)
    if "max_iter" not in estimator.get_params():
        for name in _N_ITER_CHECKS:
            expected.pop(name)
    return expected


# Scores from a wrapped classifier come through one code path,
# BaseRecalibrator._raw_scores, which no recalibrator overrides; scikit-learn's
# checks of that path run on one recalibrator of each kind (a binary map, a
# multiclass map, one with max_iter), and test_wrapped_equals_score_level
# checks every recalibrator's wrapped fit against its score-level fit.
_FROZEN_CHECKED = [
    PlattRecalibrator,
    IsotonicRecalibrator,
    TemperatureRecalibrator,
    MatrixScalingRecalibrator,
]

_CHECKED = (
    [cls() for cls in RECALIBRATORS]
    + [KernelSmoothingRecalibrator(randomized=True, random_state=0)]
    + [cls(_frozen_logistic_regression()) for cls in _FROZEN_CHECKED]
    # Cross-fitting: the default (Platt, one pair per fold) and the pooled
    # variant; every recalibrator goes through it in test_cross_fit.py.
    + [
        RecalibratedClassifierCV(LogisticRegression(), cv=3),
        RecalibratedClassifierCV(
            LogisticRegression(), IsotonicRecalibrator(), cv=3, ensemble=False
        ),
    ]
)


@parametrize_with_checks(_CHECKED, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    """Check that every recalibrator passes scikit-learn's estimator checks."""
    check(estimator)


# ---------------------------------------------------------------------------
# Targeted checks on data a recalibrator is meant for: scores, and a fitted
# classifier scoring its own kind of data.
# ---------------------------------------------------------------------------


def _binary_problem(rng, n=300):
    X, y = make_classification(
        n_samples=n, n_features=4, n_informative=3, n_redundant=0, random_state=rng
    )
    return X, y


def _multiclass_problem(rng, n=400, n_classes=4):
    X, y = make_classification(
        n_samples=n,
        n_features=6,
        n_informative=4,
        n_redundant=0,
        n_classes=n_classes,
        random_state=rng,
    )
    return X, y


@pytest.fixture(params=["binary", "multiclass"])
def problem(request, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    maker = _binary_problem if request.param == "binary" else _multiclass_problem
    X, y = maker(rng)
    clf = LogisticRegression().fit(X[::2], y[::2])
    return X[1::2], y[1::2], clf


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_init_params_match_constraints(cls):
    """Check that the constraints declare exactly the parameters of __init__."""
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert params == set(cls._parameter_constraints)
    assert cls().get_params().keys() == params


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("wrapped", [True, False])
def test_probabilities_are_distributions(cls, wrapped, problem):
    """Check that predict_proba rows are probability distributions over classes_."""
    X, y, clf = problem
    if wrapped:
        recal = cls(FrozenEstimator(clf)).fit(X, y)
        Xp = X
    else:
        Xp = clf.predict_proba(X)
        recal = cls().fit(Xp, y)
    proba = recal.predict_proba(Xp)
    assert proba.shape == (X.shape[0], np.unique(y).shape[0])
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_array_equal(recal.classes_, clf.classes_)
    assert_allclose(recal.transform(Xp), proba)
    if cls is not MeanReplacementRecalibrator:
        assert_array_equal(recal.predict(Xp), recal.classes_[proba.argmax(axis=1)])


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_wrapped_equals_score_level(cls, problem):
    """Check that wrapping a classifier equals passing its scores as X."""
    X, y, clf = problem
    wrapped = cls(FrozenEstimator(clf)).fit(X, y)
    scores = cls(input="logit").fit(clf.decision_function(X), y)
    assert_allclose(
        wrapped.predict_proba(X), scores.predict_proba(clf.decision_function(X))
    )
    via_proba = cls(clf, response_method="predict_proba").fit(X, y)
    from_proba = cls().fit(clf.predict_proba(X), y)
    assert via_proba.input_ == from_proba.input_ == "probability"
    assert_allclose(
        via_proba.predict_proba(X), from_proba.predict_proba(clf.predict_proba(X))
    )


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_clone_and_pickle_keep_the_fit(cls, problem):
    """Check that clone keeps a frozen classifier and pickling keeps the fit."""
    X, y, clf = problem
    recal = cls(FrozenEstimator(clf)).fit(X, y)
    restored = pickle.loads(pickle.dumps(recal))
    assert_allclose(restored.predict_proba(X), recal.predict_proba(X))
    refit = clone(recal).fit(X, y)
    assert_allclose(refit.predict_proba(X), recal.predict_proba(X))


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_integer_weights_are_repetitions(cls, problem, global_random_seed):
    """Check that integer weights equal repeated rows, zero weights dropped rows."""
    X, y, clf = problem
    scores = clf.predict_proba(X)
    rng = np.random.RandomState(global_random_seed)
    weights = rng.randint(0, 4, size=y.shape[0])
    weights[:2] = 1  # keep both classes
    weights[np.flatnonzero(y == y[0])[:1]] = 2
    weights[np.flatnonzero(y != y[0])[:1]] = 2
    repeated = np.repeat(np.arange(y.shape[0]), weights)
    kwargs = {"random_state": 0} if cls is ModifiedPlattRecalibrator else {}
    weighted = cls(**kwargs).fit(scores, y, sample_weight=weights)
    expanded = cls(**kwargs).fit(scores[repeated], y[repeated])
    assert_allclose(
        weighted.predict_proba(scores), expanded.predict_proba(scores), atol=1e-6
    )


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_inputs_are_not_modified(cls, problem):
    """Check that fit and predict leave X, y and sample_weight untouched."""
    X, y, clf = problem
    scores = clf.predict_proba(X)
    weights = np.linspace(0.5, 2.0, y.shape[0])
    copies = scores.copy(), y.copy(), weights.copy()
    recal = cls().fit(scores, y, sample_weight=weights)
    recal.predict_proba(scores)
    for before, after in zip(copies, (scores, y, weights), strict=True):
        assert_array_equal(before, after)


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_pandas_output_and_feature_names(cls, problem):
    """Check set_output(transform="pandas") and feature names copied from the model."""
    pd = pytest.importorskip("pandas")
    X, y, _ = problem
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    clf = LogisticRegression().fit(frame, y)
    recal = cls(FrozenEstimator(clf)).set_output(transform="pandas").fit(frame, y)
    assert_array_equal(recal.feature_names_in_, frame.columns)
    assert recal.n_features_in_ == X.shape[1]
    out = recal.transform(frame)
    assert list(out.columns) == [f"proba_{c}" for c in clf.classes_]
    assert_allclose(out.to_numpy(), recal.predict_proba(frame))


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_string_labels(cls, global_random_seed):
    """Check that labels of any type come back from predict, in sorted order."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _multiclass_problem(rng, n_classes=3)
    labels = np.array(["cat", "dog", "emu"])[y]
    clf = GaussianNB().fit(X, labels)
    recal = cls(FrozenEstimator(clf)).fit(X, labels)
    assert_array_equal(recal.classes_, ["cat", "dog", "emu"])
    assert set(recal.predict(X)) <= {"cat", "dog", "emu"}


def test_pipeline_and_grid_search(global_random_seed):
    """Check that GridSearchCV selects a recalibrator inside a pipeline."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _binary_problem(rng, n=200)
    model = make_pipeline(
        StandardScaler(), RecalibratedClassifierCV(LogisticRegression(), cv=3)
    )
    grid = GridSearchCV(
        model,
        {
            "recalibratedclassifiercv__recalibrator": [
                PlattRecalibrator(),
                IsotonicRecalibrator(),
                HistogramBinningRecalibrator(n_bins=5),
                TemperatureRecalibrator(),
            ]
        },
        scoring="neg_log_loss",
        cv=3,
    ).fit(X, y)
    assert len(grid.cv_results_["params"]) == 4
    assert grid.predict_proba(X).shape == (200, 2)


# ---------------------------------------------------------------------------
# Bad input: a clear error, naming the problem.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_wrong_number_of_score_columns_at_predict(cls, problem):
    """Check that predict refuses scores with another number of columns than fit."""
    X, y, clf = problem
    scores = clf.predict_proba(X)
    recal = cls().fit(scores, y)
    with pytest.raises(ValueError, match="features"):
        recal.predict_proba(np.column_stack([scores, scores]))


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_score_columns_must_match_the_classes(cls):
    """Check that fit refuses a number of score columns that is not the classes'."""
    scores = np.full((6, 3), 1 / 3)
    with pytest.raises(ValueError, match="3 feature\\(s\\).*2 classes"):
        cls().fit(scores, [0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_labels_unseen_by_the_classifier(cls, problem):
    """Check that fit refuses labels the wrapped classifier does not know."""
    X, y, clf = problem
    y = y.copy()
    y[:3] = 99
    with pytest.raises(ValueError, match="3 label\\(s\\) not among the classes"):
        cls(FrozenEstimator(clf)).fit(X, y)


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_single_class_at_fit(cls, problem):
    """Check that fit refuses labels of one class, or weights on one class only."""
    X, y, clf = problem
    with pytest.raises(ValueError, match="one class only"):
        cls(FrozenEstimator(clf)).fit(X, np.full_like(y, y[0]))
    weights = (y == y[0]).astype(float)
    with pytest.raises(ValueError, match="zero for every sample but those of one"):
        cls(FrozenEstimator(clf)).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_nan_scores(cls):
    """Check that NaN or infinite scores are refused at fit and predict."""
    scores = np.array([0.1, 0.4, np.nan, 0.8])
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(scores, [0, 1, 0, 1])
    recal = cls().fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="NaN|infinity"):
        recal.predict_proba([0.2, np.inf])


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_unfitted_classifier(cls):
    """Check that an unfitted classifier is refused with the three ways out."""
    with pytest.raises(
        NotFittedError, match="FrozenEstimator.*RecalibratedClassifierCV"
    ):
        cls(LogisticRegression()).fit(np.zeros((4, 2)), [0, 1, 0, 1])


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_probability_input_out_of_range(cls):
    """Check that input="probability" refuses values outside [0, 1]."""
    with pytest.raises(ValueError, match="1 value\\(s\\) outside \\[0, 1\\]"):
        cls(input="probability").fit([0.1, 0.4, 1.5, 0.8], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="2 row\\(s\\) that do not sum to 1"):
        cls(input="probability").fit(
            [[0.2, 0.2, 0.6], [0.5, 0.5, 0.5], [0.1, 0.1, 0.1]], [0, 1, 2]
        )


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_kind_of_scores_is_kept_from_fit(cls):
    """Check that probabilities at fit make logits at predict an error."""
    recal = cls().fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    assert recal.input_ == "probability"
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        recal.predict_proba([-2.0, 3.0])


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "params, match",
    [
        ({"input": "proba"}, "'input' parameter"),
        ({"response_method": "predict"}, "'response_method' parameter"),
        ({"estimator": "lr"}, "'estimator' parameter"),
    ],
)
def test_invalid_parameters(cls, params, match):
    """Check that invalid parameters are refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match=match):
        cls(**params).fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])


def test_missing_response_method():
    """Check that a response method the classifier lacks is refused."""
    rng = np.random.RandomState(0)
    X, y = _binary_problem(rng)
    clf = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="GaussianNB has no decision_function"):
        PlattRecalibrator(clf, response_method="decision_function").fit(X, y)


def test_public_names():
    """Check that the package exports every recalibrator and nothing private."""
    assert sorted(skcal.calibration.__all__) == sorted(
        [cls.__name__ for cls in RECALIBRATORS] + ["RecalibratedClassifierCV"]
    )


# Recalibrators whose map cannot change the predicted class.
_ARGMAX_PRESERVING = (
    EnsembleTemperatureRecalibrator,
    MeanReplacementRecalibrator,
    TemperatureRecalibrator,
)


_MULTICLASS_OPTIONS = [
    (cls, {"multiclass": option} if "multiclass" in cls().get_params() else {})
    for cls in RECALIBRATORS
    for option in ("ovr", "top_label")
    if option == "ovr" or "multiclass" in cls().get_params()
]


@pytest.mark.parametrize(
    "cls, params",
    _MULTICLASS_OPTIONS,
    ids=[
        f"{c.__name__}-{p.get('multiclass', 'native')}" for c, p in _MULTICLASS_OPTIONS
    ],
)
def test_real_multiclass_outputs(cls, params, real_multiclass):
    """Check every recalibrator on real CIFAR outputs: distributions, argmax rules."""
    labels, proba = real_multiclass
    proba = proba.astype(np.float64)
    proba /= proba.sum(axis=1, keepdims=True)
    fit_rows, test_rows = slice(0, None, 2), slice(1, None, 2)
    recal = cls(**params).fit(proba[fit_rows], labels[fit_rows])
    out = recal.predict_proba(proba[test_rows])
    assert out.shape == proba[test_rows].shape
    assert np.all((out >= 0) & (out <= 1))
    assert_allclose(out.sum(axis=1), 1.0, rtol=1e-10)
    predicted = recal.predict(proba[test_rows])
    if cls in _ARGMAX_PRESERVING or params.get("multiclass") == "top_label":
        # Top-label recalibration keeps the predicted class (issue 12).
        assert_array_equal(predicted, proba[test_rows].argmax(axis=1))
    if cls is TemperatureRecalibrator:
        assert_array_equal(out.argmax(axis=1), proba[test_rows].argmax(axis=1))
    if cls is not MeanReplacementRecalibrator:
        assert_array_equal(predicted, recal.classes_[out.argmax(axis=1)])


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
def test_classes_for_scores_missing_a_class(cls, global_random_seed):
    """Check that classes= lets score columns name classes absent from y."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(4), size=60)
    y = np.where(proba[:, 0] > proba[:, 1], "a", "b")
    with pytest.raises(ValueError, match="4 feature\\(s\\).*2 classes"):
        cls().fit(proba, y)
    recal = cls(classes=["a", "b", "c", "d"]).fit(proba, y)
    assert_array_equal(recal.classes_, ["a", "b", "c", "d"])
    out = recal.predict_proba(proba)
    assert out.shape == (60, 4)
    assert_allclose(out.sum(axis=1), 1.0, rtol=1e-12)
    unknown = y.copy()
    unknown[0] = "z"
    with pytest.raises(ValueError, match="1 label\\(s\\) not among the classes"):
        cls(classes=["a", "b", "c", "d"]).fit(proba, unknown)
    with pytest.raises(ValueError, match="classes is for estimator=None"):
        X, y_bin = _binary_problem(rng)
        clf = LogisticRegression().fit(X, y_bin)
        cls(clf, classes=[0, 1]).fit(X, y_bin)
    with pytest.raises(ValueError, match="classes contains 1 duplicated"):
        cls(classes=["a", "b", "b", "d"]).fit(proba, y)


# ---------------------------------------------------------------------------
# Weights and scores at every representable scale (issue 11)
# ---------------------------------------------------------------------------

# Recalibrators whose fit depends on the scale of the weights by design.
WEIGHT_SCALE_DEPENDENT = {
    PlattRecalibrator: (
        "Platt's targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2) count weighted "
        "samples, as scikit-learn's do"
    ),
    ModifiedPlattRecalibrator: "Platt's targets, as PlattRecalibrator",
    SplineRecalibrator: (
        "weights count samples: the AIC's 2 edf is not scaled with the weighted "
        "deviance, and the penalty weighs against the sum of the weights"
    ),
    VennAbersRecalibrator: (
        "the test object counts as one sample in the units of the weights, "
        "which count as repetitions"
    ),
}
# Recalibrators of decision values whose predictions do not depend on the
# scale of the scores (the others map probabilities of the scores).
SCORE_SCALE_INVARIANT = [
    CenteredIsotonicRecalibrator,
    IsotonicRecalibrator,
    MeanReplacementRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
    SplineRecalibrator,
    TemperatureRecalibrator,
    VectorScalingRecalibrator,
    VennAbersRecalibrator,
]


def _decision_values(seed, n=80):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-1.5 * x))).astype(int)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], size=n)
    w[:2] = 1.0
    return x, y, w


def _assert_probabilities(proba):
    assert np.all(np.isfinite(proba))
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
@settings(max_examples=15)
@given(exponent=st.integers(-300, 307), seed=st.integers(0, 5))
@example(exponent=307, seed=0)
@example(exponent=-300, seed=0)
def test_weights_at_every_scale(cls, exponent, seed):
    """Check that weights times 10**k (-300 <= k <= 307) fit the map of the weights.

    From k = 306 on, the weights sum beyond the largest float.
    """
    x, y, w = _decision_values(seed)
    expected = cls(input="logit").fit(x, y, sample_weight=w).predict_proba(x)
    got = cls(input="logit").fit(x, y, sample_weight=w * 10.0**exponent)
    proba = got.predict_proba(x)
    _assert_probabilities(proba)
    if cls not in WEIGHT_SCALE_DEPENDENT:
        assert_allclose(proba, expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("cls", RECALIBRATORS, ids=lambda c: c.__name__)
@settings(max_examples=15)
@given(exponent=st.integers(-300, 300), seed=st.integers(0, 5))
@example(exponent=154, seed=0)
@example(exponent=300, seed=0)
def test_decision_values_at_every_scale(cls, exponent, seed):
    """Check that decision values times 10**k (|k| <= 300) are recalibrated alike.

    Regression test of issue 11: Platt scaling predicted 0.5 everywhere on
    decision values near 1e154.
    """
    x, y, _w = _decision_values(seed)
    scale = 10.0**exponent
    expected = cls(input="logit").fit(x, y).predict_proba(x)
    proba = cls(input="logit").fit(x * scale, y).predict_proba(x * scale)
    _assert_probabilities(proba)
    if cls in SCORE_SCALE_INVARIANT:
        assert_allclose(proba, expected, rtol=1e-6, atol=1e-8)
