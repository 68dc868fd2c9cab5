"""Tests of cross_val_calibration and its result, CrossValCalibration."""

# SPDX-License-Identifier: BSD-3-Clause

from functools import partial

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import (
    KFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.naive_bayes import GaussianNB

from skcal._utils._bootstrap import seed_of
from skcal.calibration import IsotonicRecalibrator, RecalibratedClassifierCV
from skcal.discovery import all_measures
from skcal.metrics import expected_calibration_error
from skcal.model_selection import CrossValCalibration, cross_val_calibration

SKCAL_MEASURES = {m.name: m.function for m in all_measures(kind="calibration_error")}
ALL_NAMES = [m.name for m in all_measures()]
# Cheap measures for the tests that bootstrap.
FAST = ["expected_calibration_error", "cutoff_calibration_error", "brier_score_loss"]


class _FixedProbabilities(ClassifierMixin, BaseEstimator):
    """A "classifier" whose predicted probabilities are its features.

    Row ``i`` of ``X`` holds the probabilities of the classes; fitting only
    records the classes, so out-of-fold predictions are known in advance.
    """

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=float)
        if X.shape[1] == 1:
            return np.column_stack([1 - X[:, 0], X[:, 0]])
        return X

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _data(rng, n=150, n_classes=2, labels=None):
    """Features and labels of a noisy linear problem, every class present."""
    X = rng.normal(size=(n, 3))
    coef = rng.normal(scale=1.5, size=(3, n_classes))
    y = np.argmax(X @ coef + rng.gumbel(size=(n, n_classes)), axis=1)
    y[: 10 * n_classes] = np.repeat(np.arange(n_classes), 10)
    if labels is not None:
        y = np.asarray(labels)[y]
    return X, y


def _expected(name, y, proba, classes, sample_weight=None):
    """A measure computed by hand on probabilities whose columns are classes."""
    if name == "log_loss":
        return log_loss(y, proba, sample_weight=sample_weight, labels=classes)
    if proba.shape[1] == 2:
        p = proba[:, 1]
        if name == "brier_score_loss":
            return brier_score_loss(
                y, p, sample_weight=sample_weight, pos_label=classes[1]
            )
        return SKCAL_MEASURES[name](
            y, p, sample_weight=sample_weight, pos_label=classes[1]
        )
    if name == "brier_score_loss":
        return brier_score_loss(y, proba, sample_weight=sample_weight, labels=classes)
    return SKCAL_MEASURES[name](y, proba, sample_weight=sample_weight, labels=classes)


# ---------------------------------------------------------------------------
# Pooled and per-fold values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_pooled_and_per_fold_values(global_random_seed, n_classes):
    """Check the pooled values against cross_val_predict, and each fold's value."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n_classes=n_classes)
    cv = StratifiedKFold(4, shuffle=True, random_state=global_random_seed)
    result = cross_val_calibration(
        GaussianNB(), X, y, cv=cv, metrics=ALL_NAMES, n_bootstrap=0
    )
    proba = cross_val_predict(GaussianNB(), X, y, cv=cv, method="predict_proba")
    classes = np.unique(y)
    assert isinstance(result, CrossValCalibration)
    assert result.metrics == ALL_NAMES
    assert_allclose(result.y_prob, proba, rtol=1e-12)
    assert_array_equal(result.y_true, y)
    assert_array_equal(result.classes, classes)
    for name in ALL_NAMES:
        assert isinstance(result.value[name], float)
        assert_allclose(
            result.value[name], _expected(name, y, proba, classes), rtol=1e-10
        )
        per_fold = [
            _expected(name, y[test], proba[test], classes) for _, test in cv.split(X, y)
        ]
        assert result.per_fold[name].shape == (4,)
        assert_allclose(result.per_fold[name], per_fold, rtol=1e-10, atol=1e-14)


def test_test_indices_partition_the_rows(global_random_seed):
    """Check that test_indices are the folds of cv and partition the rows."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=100)
    cv = StratifiedKFold(5, shuffle=True, random_state=global_random_seed)
    result = cross_val_calibration(
        GaussianNB(), X, y, cv=cv, metrics=FAST, n_bootstrap=0
    )
    assert len(result.test_indices) == 5
    for got, (_, test) in zip(result.test_indices, cv.split(X, y), strict=True):
        assert_array_equal(got, test)
    assert_array_equal(np.sort(np.concatenate(result.test_indices)), np.arange(100))


def test_y_prob_columns_follow_classes(global_random_seed):
    """Check that the columns of y_prob are the sorted classes, whatever the order."""
    rng = np.random.RandomState(global_random_seed)
    n = 150
    # Class "c" holds 60% of the rows, "a" 30% and "b" 10%.
    y = np.array(["c"] * 90 + ["a"] * 45 + ["b"] * 15)[rng.permutation(n)]
    X = rng.normal(size=(n, 2))
    result = cross_val_calibration(
        DummyClassifier(strategy="prior"),
        X,
        y,
        metrics=["brier_score_loss"],
        n_bootstrap=0,
    )
    assert result.classes.tolist() == ["a", "b", "c"]
    # Stratified folds keep the priors of the training sets exact.
    assert_allclose(result.y_prob, np.tile([0.3, 0.1, 0.6], (n, 1)), rtol=1e-12)


def test_pooling_beats_averaging_folds(global_random_seed):
    """Check that the mean of per-fold ECE overstates a calibrated model's ECE.

    Labels are drawn from the predicted probabilities, so the model is
    perfectly calibrated and every ECE estimate is pure small-sample bias,
    which is larger on a fold (60 rows) than on the pool (600 rows).
    """
    rng = np.random.RandomState(global_random_seed)
    pooled, fold_mean = [], []
    for _ in range(3):
        p = rng.uniform(size=600)
        y = (rng.uniform(size=600) < p).astype(int)
        result = cross_val_calibration(
            _FixedProbabilities(),
            p[:, None],
            y,
            cv=10,
            metrics=["expected_calibration_error"],
            n_bootstrap=0,
        )
        assert_allclose(
            result.value["expected_calibration_error"],
            expected_calibration_error(y, p),
            rtol=1e-12,
        )
        pooled.append(result.value["expected_calibration_error"])
        fold_mean.append(result.per_fold["expected_calibration_error"].mean())
    # Over seeds 0-99 the ratio is at least 2.3 (median 3).
    assert np.mean(fold_mean) > 1.8 * np.mean(pooled)


# ---------------------------------------------------------------------------
# Bootstrap intervals
# ---------------------------------------------------------------------------


def test_bootstrap_interval(global_random_seed):
    """Check that the interval holds the pooled value and is reproducible."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=120)
    metrics = ["brier_score_loss", "log_loss", "expected_calibration_error"]

    def run(random_state, **kwargs):
        return cross_val_calibration(
            GaussianNB(),
            X,
            y,
            metrics=metrics,
            n_bootstrap=100,
            random_state=random_state,
            **kwargs,
        )

    result = run(global_random_seed)
    for name in ["brier_score_loss", "log_loss"]:
        # Proper scores are means of per-row losses: the bootstrap centres on them.
        assert result.ci_low[name] < result.value[name] < result.ci_high[name]
    for name in metrics:
        assert result.ci_low[name] < result.ci_high[name]
    again = run(global_random_seed)
    other = run(np.random.RandomState(global_random_seed + 1))
    for name in metrics:
        assert again.ci_low[name] == result.ci_low[name]
        assert again.ci_high[name] == result.ci_high[name]
    assert other.ci_low != result.ci_low
    # Same draws, a lower level: a narrower interval inside the first (a
    # calibration error's lower end may be 0 at both levels).
    narrow = run(global_random_seed, confidence_level=0.5)
    for name in metrics:
        assert result.ci_low[name] <= narrow.ci_low[name]
        assert narrow.ci_high[name] < result.ci_high[name]
        assert narrow.value[name] == result.value[name]
    for name in ["brier_score_loss", "log_loss"]:
        assert result.ci_low[name] < narrow.ci_low[name]


def test_bootstrap_interval_by_hand(global_random_seed):
    """Check the intervals against the draws written out by hand.

    A proper score gets the percentiles of its resampled values; a
    calibration error those and the percentile of its value on outcomes
    drawn from the pooled predictions (drawn after the resamples). The
    measures share the draws.
    """
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=80)
    w = rng.uniform(0.5, 2, size=80)
    metrics = ["brier_score_loss", "expected_calibration_error"]
    result = cross_val_calibration(
        GaussianNB(),
        X,
        y,
        sample_weight=w,
        metrics=metrics,
        n_bootstrap=50,
        confidence_level=0.9,
        random_state=global_random_seed,
    )
    p = result.y_prob[:, 1]
    # One batch of draws serves both measures, from the first generator spawned
    # from the random state, whose two streams give 80 rows drawn with
    # replacement per resample (their counts) and a uniform per row for the
    # outcomes drawn from p (32 random bits: half a raw word of the generator).
    (batch,) = seed_of(np.random.RandomState(global_random_seed)).spawn(1)
    replay, bit_replay = np.random.default_rng(batch).spawn(2)
    counts = [np.bincount(r, minlength=80) for r in replay.integers(0, 80, (50, 80))]
    uniforms = bit_replay.bit_generator.random_raw(2000).view(np.uint32) / 2.0**32
    uniforms = uniforms.reshape(50, 80)
    draws = np.array([brier_score_loss(y, p, sample_weight=c * w) for c in counts])
    value = result.value["brier_score_loss"]
    low, high = np.percentile(draws, [5, 95])
    assert_allclose(
        [result.ci_low["brier_score_loss"], result.ci_high["brier_score_loss"]],
        [min(low, value), max(high, value)],
        rtol=1e-10,
    )
    # The ECE applies them to its rows sorted by prediction.
    order = np.argsort(p, kind="stable")
    y, p, w = y[order], p[order], w[order]
    draws = [expected_calibration_error(y, p, sample_weight=c * w) for c in counts]
    null = [
        expected_calibration_error((u < p).astype(int), p, sample_weight=w)
        for u in uniforms
    ]
    value = result.value["expected_calibration_error"]
    low_star, high_star = np.percentile(draws, [5, 95])
    low = max(
        0.0, min(value - np.percentile(null, 95), 2 * value - high_star, low_star)
    )
    assert_allclose(
        [
            result.ci_low["expected_calibration_error"],
            result.ci_high["expected_calibration_error"],
        ],
        [low, max(high_star, value)],
        rtol=1e-10,
    )


def test_no_bootstrap_gives_nan_intervals():
    """Check that n_bootstrap=0 gives NaN intervals and the same values."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=80)
    result = cross_val_calibration(GaussianNB(), X, y, metrics=FAST, n_bootstrap=0)
    with_ci = cross_val_calibration(
        GaussianNB(), X, y, metrics=FAST, n_bootstrap=20, random_state=0
    )
    for name in FAST:
        assert np.isnan(result.ci_low[name])
        assert np.isnan(result.ci_high[name])
        assert np.isfinite(with_ci.ci_low[name])
        assert result.value[name] == with_ci.value[name]


# ---------------------------------------------------------------------------
# metrics, sample_weight, labels
# ---------------------------------------------------------------------------


def test_metrics_as_names_callables_and_dict(global_random_seed):
    """Check that metrics may be names, callables or a dict of both."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=100)
    cv = StratifiedKFold(5)
    kwargs = dict(cv=cv, n_bootstrap=0)
    by_name = cross_val_calibration(
        GaussianNB(), X, y, metrics=("expected_calibration_error",), **kwargs
    )
    by_callable = cross_val_calibration(
        GaussianNB(), X, y, metrics=[expected_calibration_error], **kwargs
    )
    assert by_callable.metrics == ["expected_calibration_error"]
    assert by_callable.value == by_name.value

    def mean_prob(y_true, y_prob, sample_weight=None):
        return float(np.average(y_prob, weights=sample_weight))

    by_dict = cross_val_calibration(
        GaussianNB(),
        X,
        y,
        metrics={
            "ece5": partial(expected_calibration_error, n_bins=5),
            "brier": "brier_score_loss",
            "mean": mean_prob,
        },
        **kwargs,
    )
    assert by_dict.metrics == ["ece5", "brier", "mean"]
    p = by_name.y_prob[:, 1]
    assert_allclose(by_dict.value["ece5"], expected_calibration_error(y, p, n_bins=5))
    assert_allclose(by_dict.value["brier"], brier_score_loss(y, p))
    assert_allclose(by_dict.value["mean"], p.mean())


def test_metrics_errors():
    """Check that an unknown name, a non-callable and no metric raise."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=60)
    with pytest.raises(ValueError, match="Unknown metric 'accuracy'"):
        cross_val_calibration(GaussianNB(), X, y, metrics=["accuracy"])
    with pytest.raises(TypeError, match="'ece' must be a name or a callable"):
        cross_val_calibration(GaussianNB(), X, y, metrics={"ece": 15})
    with pytest.raises(ValueError, match="metrics is empty"):
        cross_val_calibration(GaussianNB(), X, y, metrics=[])


def test_integer_weights_are_repeated_rows(global_random_seed):
    """Check that integer weights give the pooled value of repeated rows."""
    rng = np.random.RandomState(global_random_seed)
    n = 120
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    w = rng.randint(0, 4, size=n)
    w[:2] = 1
    metrics = ["expected_calibration_error", "smooth_ece", *FAST[1:], "log_loss"]
    weighted = cross_val_calibration(
        _FixedProbabilities(),
        p[:, None],
        y,
        sample_weight=w,
        metrics=metrics,
        n_bootstrap=0,
    )
    repeated = cross_val_calibration(
        _FixedProbabilities(),
        np.repeat(p, w)[:, None],
        np.repeat(y, w),
        metrics=metrics,
        n_bootstrap=0,
    )
    unweighted = cross_val_calibration(
        _FixedProbabilities(), p[:, None], y, metrics=metrics, n_bootstrap=0
    )
    for name in metrics:
        assert_allclose(weighted.value[name], repeated.value[name], rtol=1e-10)
        assert weighted.value[name] != unweighted.value[name]
        per_fold = [
            _expected(name, y[t], weighted.y_prob[t], [0, 1], w[t])
            for t in weighted.test_indices
        ]
        assert_allclose(weighted.per_fold[name], per_fold, rtol=1e-10, atol=1e-14)
    assert_array_equal(weighted.sample_weight, w)


def test_sample_weight_reaches_the_estimator(global_random_seed):
    """Check that sample_weight is passed to the estimator's fit."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=100)
    w = rng.uniform(0.1, 3, size=100)
    cv = StratifiedKFold(5)
    result = cross_val_calibration(
        GaussianNB(), X, y, sample_weight=w, cv=cv, metrics=FAST, n_bootstrap=0
    )
    proba = cross_val_predict(
        GaussianNB(),
        X,
        y,
        cv=cv,
        method="predict_proba",
        params={"sample_weight": w},
    )
    assert_allclose(result.y_prob, proba, rtol=1e-12)
    for name in FAST:
        expected = _expected(name, y, proba, [0, 1], w)
        assert_allclose(result.value[name], expected, rtol=1e-10)


def test_string_labels(global_random_seed):
    """Check that with string labels the second class is the positive one."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=100, labels=["spam", "ham"])
    result = cross_val_calibration(
        GaussianNB(), X, y, metrics=[*FAST, "log_loss"], n_bootstrap=10
    )
    assert result.classes.tolist() == ["ham", "spam"]
    p_spam = result.y_prob[:, 1]
    assert_allclose(
        result.value["expected_calibration_error"],
        expected_calibration_error(y, p_spam, pos_label="spam"),
    )
    assert_allclose(
        result.value["brier_score_loss"],
        brier_score_loss(y, p_spam, pos_label="spam"),
    )
    assert_allclose(result.value["log_loss"], log_loss(y, result.y_prob))


def test_cv_not_a_partition():
    """Check that folds whose test sets do not partition the rows raise."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=60)
    with pytest.raises(ValueError, match="must partition the samples"):
        cross_val_calibration(
            GaussianNB(), X, y, cv=ShuffleSplit(3, test_size=0.2, random_state=0)
        )
    folds = list(KFold(3).split(X))
    overlapping = [*folds, folds[0]]
    with pytest.raises(ValueError, match="must partition the samples"):
        cross_val_calibration(GaussianNB(), X, y, cv=overlapping)


# ---------------------------------------------------------------------------
# The result: printing, DataFrame, recalibrated estimators
# ---------------------------------------------------------------------------


def test_str_and_to_frame():
    """Check that the table names every measure and the DataFrame has its columns."""
    rng = np.random.RandomState(0)
    X, y = _data(rng, n=90)
    metrics = [*FAST, "log_loss"]
    result = cross_val_calibration(
        GaussianNB(), X, y, cv=3, metrics=metrics, n_bootstrap=30, random_state=0
    )
    text = str(result)
    assert repr(result) == text
    assert "GaussianNB" in text and "3-fold" in text and "95% CI" in text
    for name in metrics:
        line = next(row for row in text.splitlines() if row.startswith(name))
        assert f"{result.value[name]:.4f}" in line
        assert f"[{result.ci_low[name]:.4f}, {result.ci_high[name]:.4f}]" in line

    pd = pytest.importorskip("pandas")
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.tolist() == metrics
    assert frame.columns.tolist() == [
        "value",
        "ci_low",
        "ci_high",
        "fold_mean",
        "fold_std",
        "fold_1",
        "fold_2",
        "fold_3",
    ]
    for name in metrics:
        row = frame.loc[name]
        assert row["value"] == result.value[name]
        assert row["ci_low"] == result.ci_low[name]
        assert row["ci_high"] == result.ci_high[name]
        assert_allclose(row["fold_mean"], result.per_fold[name].mean())
        assert_allclose(row["fold_std"], result.per_fold[name].std())
        assert_allclose(row[["fold_1", "fold_2", "fold_3"]], result.per_fold[name])


def test_recalibrated_classifier(global_random_seed):
    """Check that a RecalibratedClassifierCV is cross-validated like any classifier."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _data(rng, n=150, n_classes=3)
    estimator = RecalibratedClassifierCV(GaussianNB(), IsotonicRecalibrator(), cv=3)
    cv = StratifiedKFold(3, shuffle=True, random_state=global_random_seed)
    result = cross_val_calibration(
        estimator, X, y, cv=cv, metrics=[*FAST, "log_loss"], n_bootstrap=10
    )
    proba = cross_val_predict(estimator, X, y, cv=cv, method="predict_proba")
    assert result.name == "RecalibratedClassifierCV"
    assert_allclose(result.y_prob, proba, rtol=1e-12)
    assert_allclose(result.y_prob.sum(axis=1), 1.0)
    assert_allclose(
        result.value["expected_calibration_error"],
        expected_calibration_error(y, proba),
    )
    for name in result.metrics:
        assert np.isfinite(result.value[name])


def test_groups_give_each_group_its_measures_and_intervals():
    """Check that ``groups=`` measures each group's pooled out-of-fold rows.

    The values are the measures of the group's rows of the pool, each inside
    its interval; a group of zero weight is left out; the printed table
    lists the groups.
    """
    rng = np.random.RandomState(0)
    n = 400
    y_prob = rng.dirichlet([2.0, 2.0, 2.0], size=n)
    y = np.array([rng.choice(3, p=row) for row in y_prob])
    groups = np.array(["old", "young", "mid", "none"])[rng.randint(0, 4, size=n)]
    weight = np.where(groups == "none", 0.0, rng.uniform(0.5, 2.0, size=n))
    result = cross_val_calibration(
        _FixedProbabilities(),
        y_prob,
        y,
        sample_weight=weight,
        groups=groups,
        metrics=FAST,
        n_bootstrap=50,
        random_state=0,
    )
    measures = {m.name: m for m in all_measures()}
    for name in FAST:
        grouped = result.by_group[name]
        assert grouped.groups.tolist() == ["mid", "old", "young"]
        for i, group in enumerate(grouped.groups):
            rows = groups == group
            assert grouped.n_samples[i] == rows.sum()
            assert grouped.weight[i] == pytest.approx(weight[rows].sum())
            expected = measures[name].evaluate(
                y[rows], y_prob[rows], classes=np.arange(3), sample_weight=weight[rows]
            )
            assert grouped.value[i] == pytest.approx(expected, rel=1e-12)
            assert grouped.low[i] <= grouped.value[i] <= grouped.high[i]
        assert grouped.overall.value == result.value[name]
        assert grouped.worst_group == grouped.groups[np.argmax(grouped.value)]
    assert "expected_calibration_error by group" in str(result)


def test_groups_are_not_passed_to_the_splitter():
    """Check that the subgroups are measured, not used to make folds."""
    X = np.random.RandomState(0).normal(size=(60, 2))
    y = np.arange(60) % 2
    groups = np.repeat([0, 1, 2], 20)
    with_groups = cross_val_calibration(
        GaussianNB(), X, y, groups=groups, cv=KFold(3), n_bootstrap=0
    )
    without = cross_val_calibration(GaussianNB(), X, y, cv=KFold(3), n_bootstrap=0)
    assert_allclose(with_groups.y_prob, without.y_prob)
    assert np.isnan(with_groups.by_group["log_loss"].low).all()


class _CountingFits(GaussianNB):
    fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        return super().fit(X, y, sample_weight)


def test_bad_groups_rejected_before_fitting():
    """Check that wrong group labels are refused before any model is fitted."""
    X = np.zeros((30, 1))
    y = np.arange(30) % 2
    with pytest.raises(ValueError, match="groups has 29 entries but there are 30"):
        cross_val_calibration(_CountingFits(), X, y, groups=np.zeros(29))
    assert _CountingFits.fits == 0
