"""Tests of Venn-Abers predictors (skcal/calibration/_venn_abers.py)."""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from skcal._param_validation import InvalidParameterError
from skcal.calibration import (
    IsotonicRecalibrator,
    RecalibratedClassifierCV,
    VennAbersRecalibrator,
)
from skcal.calibration._base import top_label_proba
from skcal.calibration._venn_abers import (
    _hull_tree,
    cross_venn_abers,
    venn_abers_tables,
)

# ---------------------------------------------------------------------------
# The reference: refit the isotonic regression for every test score
# ---------------------------------------------------------------------------


def _brute_force(x, y, w, tests):
    """``(p0, p1)`` of each test score, by two isotonic fits with it added.

    scikit-learn pools equal scores into one weighted point, so a test score
    equal to a calibration score joins its group.
    """
    w = np.ones(x.shape[0]) if w is None else w
    pairs = np.empty((len(tests), 2))
    for i, s in enumerate(tests):
        for label in (0, 1):
            fit = IsotonicRegression().fit(
                np.append(x, s), np.append(y, label), sample_weight=np.append(w, 1.0)
            )
            pairs[i, label] = fit.predict([s])[0]
    return pairs


def _test_scores(rng, x, n_random=6):
    """Every calibration score, the midpoints, points outside, random points."""
    distinct = np.unique(x)
    return np.concatenate(
        [
            distinct,
            (distinct[1:] + distinct[:-1]) / 2,
            [distinct[0] - 1.0, distinct[-1] + 1.0],
            rng.uniform(distinct[0] - 0.5, distinct[-1] + 0.5, size=n_random),
        ]
    )


def _random_case(rng):
    """A small calibration set: ties, weights, runs of one label, both labels."""
    n = rng.randint(2, 30)
    if rng.uniform() < 0.5:
        x = rng.randint(0, rng.randint(1, 10), size=n) / 8.0
    else:
        x = rng.normal(size=n)
    kind = rng.randint(4)
    if kind == 0:
        y = rng.randint(0, 2, size=n)
    elif kind == 1:  # runs of zeros and ones along the scores
        y = (np.sort(x) > np.median(x)).astype(int)[np.argsort(np.argsort(x))]
    elif kind == 2:
        y = (rng.uniform(size=n) < 1 / (1 + np.exp(-3 * x))).astype(int)
    else:  # one label only, but for one sample
        y = np.full(n, rng.randint(2))
        y[rng.randint(n)] = 1 - y[0]
    y[:2] = [0, 1]
    choice = rng.randint(3)
    w = [None, rng.randint(1, 4, size=n).astype(float), rng.uniform(0.05, 5, n)][choice]
    return x, y, w


@pytest.mark.parametrize("input", ["logit", "probability"])
def test_matches_brute_force(global_random_seed, input):
    """Check (p0, p1) against isotonic refits with each label, on 40 small sets.

    Ties (between calibration scores, and of test scores with them), integer
    and real weights, runs of one label and scores outside the calibration
    range are all covered.
    """
    rng = np.random.RandomState(global_random_seed)
    for _ in range(40):
        x, y, w = _random_case(rng)
        if input == "probability":
            x = 1 / (1 + np.exp(-x))
        tests = _test_scores(rng, x)
        if input == "probability":
            tests = np.clip(tests, 0.0, 1.0)
        recal = VennAbersRecalibrator(input=input).fit(x, y, sample_weight=w)
        pairs = recal.predict_interval(tests)
        assert_allclose(pairs, _brute_force(x, y, w, tests), rtol=0, atol=1e-12)
        p = recal.predict_proba(tests)[:, 1]
        assert_allclose(p, pairs[:, 1] / (1 - pairs[:, 0] + pairs[:, 1]), atol=1e-15)


@pytest.mark.parametrize("labels", ["calibrated", "steep", "reversed", "threshold"])
def test_matches_brute_force_on_long_hulls(global_random_seed, labels):
    """Check larger sets whose diagrams have many hull vertices, or few."""
    rng = np.random.RandomState(global_random_seed)
    n = 300
    x = rng.uniform(size=n)
    chance = {
        "calibrated": x,
        "steep": x**4,
        "reversed": 1 - x,
        "threshold": (x > 0.5).astype(float),
    }[labels]
    y = (rng.uniform(size=n) < chance).astype(int)
    y[:2] = [0, 1]
    w = rng.uniform(0.1, 3, size=n)
    tests = np.concatenate([x[:25], rng.uniform(-0.1, 1.1, size=25)])
    recal = VennAbersRecalibrator(input="logit").fit(x, y, sample_weight=w)
    expected = _brute_force(x, y, w, tests)
    assert_allclose(recal.predict_interval(tests), expected, rtol=0, atol=1e-11)


def test_tables_against_brute_force_at_every_place(global_random_seed):
    """Check the k + 1 table entries, and a tied score's value, one by one.

    A tied test score with label 1 is worth a score just below its group,
    with label 0 a score just above it (the isotonic block of a label-1 point
    cannot end at it without being all ones).
    """
    rng = np.random.RandomState(global_random_seed)
    k = 25
    scores = np.arange(k, dtype=float)
    weight = rng.randint(1, 4, size=k).astype(float)
    positive = np.minimum(rng.randint(0, 4, size=k), weight)
    p0, p1 = venn_abers_tables(weight, positive, 1.0)
    x = np.repeat(scores, weight.astype(int))
    y = np.concatenate(
        [[1] * int(p) + [0] * int(n - p) for p, n in zip(positive, weight, strict=True)]
    )
    between = np.concatenate([[-0.5], scores + 0.5])
    expected = _brute_force(x, y, None, between)
    assert_allclose(p0, expected[:, 0], atol=1e-12)
    assert_allclose(p1, expected[:, 1], atol=1e-12)
    tied = _brute_force(x, y, None, scores)
    assert_allclose(tied[:, 1], p1[:-1], atol=1e-12)
    assert_allclose(tied[:, 0], p0[1:], atol=1e-12)


def test_hull_tree_parents_are_steepest_chords(global_random_seed):
    """Check that each point's parent maximises the slope from the earlier points.

    The parent of v in the prefix-hull tree is the vertex before it on the
    lower hull of the points up to v: the earlier point of largest slope to
    it (the farthest one among equal slopes).
    """
    rng = np.random.RandomState(global_random_seed)
    x = np.cumsum(rng.uniform(0.1, 2, size=200))
    y = np.cumsum(rng.randint(0, 2, size=200) * 1.0)
    parent, depth = _hull_tree(x, y)
    for v in range(1, 200):
        slopes = (y[v] - y[:v]) / (x[v] - x[:v])
        assert parent[v] == np.flatnonzero(slopes >= slopes.max() - 1e-12)[0]
    lengths = [0] * 200
    for v in range(1, 200):
        lengths[v] = lengths[parent[v]] + 1
    assert depth == max(lengths)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 6), st.booleans(), st.integers(1, 3)),
        min_size=2,
        max_size=15,
    ),
    tests=st.lists(st.integers(-1, 14), min_size=1, max_size=5),
)
def test_brute_force_property(rows, tests):
    """Check (p0, p1) against the refits on small sets with heavy ties."""
    x = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows], dtype=int)
    w = np.array([r[2] for r in rows], dtype=float)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    tests = np.array(tests, dtype=float) / 2
    recal = VennAbersRecalibrator(input="logit").fit(x, y, sample_weight=w)
    expected = _brute_force(x, y, w, tests)
    assert_allclose(recal.predict_interval(tests), expected, atol=1e-12)


def test_ties_join_the_group():
    """Check a tie by hand: the test score pools with the tied group.

    Calibration (0.5, 0), (0.5, 1): a test score of 0.5 makes the group
    (0, 1, 0) with label 0 and (0, 1, 1) with label 1, so (1/3, 2/3). Below
    0.5, label 0 stays alone (0) and label 1 pools with the group (2/3);
    above, label 0 pools (1/3) and label 1 stays alone (1).
    """
    recal = VennAbersRecalibrator(input="logit").fit([0.5, 0.5], [0, 1])
    pairs = recal.predict_interval([0.5, 0.4, 0.6])
    assert_allclose(pairs, [[1 / 3, 2 / 3], [0.0, 2 / 3], [1 / 3, 1.0]], atol=1e-15)


# ---------------------------------------------------------------------------
# The reference packages: venn-abers and MAPIE (binary IVAP, no weights)
# ---------------------------------------------------------------------------


def _probability_case(rng, n, ties):
    s = rng.randint(0, 11, size=n) / 10 if ties else rng.uniform(size=n)
    y = (rng.uniform(size=n) < s**2).astype(int)
    y[:2] = [0, 1]
    tests = np.concatenate([np.unique(s), rng.uniform(size=30)])
    return s, y, tests


@pytest.mark.parametrize("ties", [False, True])
def test_matches_venn_abers_package(global_random_seed, ties):
    """Check p0, p1 and p against venn_abers.VennAbers on the same scores.

    Both read a test score tied with calibration scores as joining their
    group; venn-abers takes no weights, so integer weights are compared with
    repeated rows.
    """
    venn_abers = pytest.importorskip("venn_abers.venn_abers")
    rng = np.random.RandomState(global_random_seed)
    s, y, tests = _probability_case(rng, 200, ties)
    weights = rng.randint(1, 4, size=s.shape[0])
    rows = np.repeat(np.arange(s.shape[0]), weights)
    two = np.column_stack([1 - s[rows], s[rows]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = venn_abers.VennAbers().fit(two, y[rows])
        p_theirs, pairs_theirs = theirs.predict_proba(
            np.column_stack([1 - tests, tests])
        )
    ours = VennAbersRecalibrator(input="probability")
    ours.fit(s, y, sample_weight=weights.astype(float))
    assert_allclose(ours.predict_interval(tests), pairs_theirs, atol=1e-12)
    assert_allclose(ours.predict_proba(tests), p_theirs, atol=1e-12)


def test_matches_venn_abers_package_one_vs_rest(global_random_seed):
    """Check multiclass "ovr" against venn-abers' one-vs-all prefitted mode."""
    venn_abers = pytest.importorskip("venn_abers.venn_abers")
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(3), size=300)
    y = np.array([rng.choice(3, p=p**2 / (p**2).sum()) for p in proba])
    tests = np.vstack([proba[:20], rng.dirichlet(np.ones(3), size=20)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p_theirs, pairs_theirs = venn_abers.VennAbersCalibrator().predict_proba(
            p_cal=proba, y_cal=y, p_test=tests, p0_p1_output=True, va_type="one_vs_all"
        )
    ours = VennAbersRecalibrator().fit(proba, y)
    assert_allclose(ours.predict_proba(tests), p_theirs, atol=1e-12)
    assert_allclose(ours.predict_interval(tests), np.stack(pairs_theirs, axis=1))


class _ScoresAsProbabilities(ClassifierMixin, BaseEstimator):
    """A fitted "classifier" whose probability of class 1 is the first column of X."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        s = np.asarray(X, dtype=np.float64)[:, 0]
        return np.column_stack([1 - s, s])


@pytest.mark.parametrize("ties", [False, True])
def test_matches_mapie(global_random_seed, ties):
    """Check p0, p1 and p against MAPIE's VennAbersCalibrator (cv="prefit").

    MAPIE 1.6 copies venn-abers' algorithm but drops its line setting p1 to 1
    for test scores above every calibration score (where the test object
    with label 1 is a block of its own), so those scores are left out; our
    value there is the refit's (test_matches_brute_force).
    """
    calibration = pytest.importorskip("mapie.calibration")
    rng = np.random.RandomState(global_random_seed)
    s, y, tests = _probability_case(rng, 200, ties)
    tests = tests[tests <= s.max()]
    stub = _ScoresAsProbabilities().fit(None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = calibration.VennAbersCalibrator(estimator=stub, cv="prefit")
        theirs.fit(s[:, None], y)
        p_theirs, pairs = theirs.predict_proba(tests[:, None], p0_p1_output=True)
    ours = VennAbersRecalibrator(input="probability").fit(s, y)
    assert_allclose(ours.predict_interval(tests), pairs, atol=1e-12)
    assert_allclose(ours.predict_proba(tests), p_theirs, atol=1e-12)


# ---------------------------------------------------------------------------
# Validity (Vovk and Petej, 2014) and the interval
# ---------------------------------------------------------------------------


def _validity_statistics(rng, n_sets=400, n_cal=30, n_test=10):
    """Per set, mean of (Y - p_Y) g(p_Y) over its test points, and of Y - s.

    Scores are uniform and P(Y = 1 | s) = s**2: a miscalibrated model whose
    (score, label) pairs are exchangeable. Sets with one label (probability
    6e-6) are skipped.
    """
    stats = []
    for _ in range(n_sets):
        s = rng.uniform(size=n_cal + n_test)
        y = (rng.uniform(size=s.shape[0]) < s**2).astype(int)
        if y[:n_cal].min() == y[:n_cal].max():
            continue
        recal = VennAbersRecalibrator(input="probability").fit(s[:n_cal], y[:n_cal])
        pairs = recal.predict_interval(s[n_cal:])
        label = y[n_cal:]
        p_y = pairs[np.arange(n_test), label]
        residual = label - p_y
        stats.append(
            [
                residual.mean(),
                (residual * (p_y > 0.5)).mean(),
                (label - s[n_cal:]).mean(),
            ]
        )
    stats = np.asarray(stats)
    return stats.mean(axis=0) / (stats.std(axis=0, ddof=1) / np.sqrt(len(stats)))


def test_value_of_the_true_label_is_calibrated(global_random_seed):
    """Check E[(Y - p_Y) g(p_Y)] = 0 by simulation, for g = 1 and 1{p_Y > 1/2}.

    With the true label inserted, p_Y is the isotonic fit at one of n + 1
    exchangeable points, calibrated in sample (Vovk and Petej, 2014): z-tests
    on 400 independent sets stay within 4. The same statistic of the raw
    score is far outside, so the test can fail.
    """
    rng = np.random.RandomState(global_random_seed)
    z_constant, z_upper, z_raw = _validity_statistics(rng)
    assert abs(z_constant) < 4
    assert abs(z_upper) < 4
    assert abs(z_raw) > 10


def test_merged_probability_lies_in_the_interval(global_random_seed):
    """Check p0 <= p <= p1 and p = p1 / (1 - p0 + p1), ovr and top-label too."""
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(4), size=200)
    y = np.array([rng.choice(4, p=p) for p in proba])
    tests = rng.dirichlet(np.ones(4), size=100)
    for multiclass in ("ovr", "top_label"):
        recal = VennAbersRecalibrator(multiclass=multiclass).fit(proba, y)
        pairs = recal.predict_interval(tests)
        assert np.all(pairs[..., 0] <= pairs[..., 1])
        assert np.all((pairs >= 0) & (pairs <= 1))
        p = pairs[..., 1] / (1 - pairs[..., 0] + pairs[..., 1])
        assert np.all((pairs[..., 0] <= p) & (p <= pairs[..., 1]))
    binary = VennAbersRecalibrator().fit(proba[:, 0], y == 0)
    pairs = binary.predict_interval(tests[:, 0])
    p = binary.predict_proba(tests[:, 0])[:, 1]
    assert np.all((pairs[:, 0] <= p) & (p <= pairs[:, 1]))


def test_interval_shrinks_as_the_calibration_set_grows(global_random_seed):
    """Check that the mean width p1 - p0 falls as n goes 30, 300, 3000.

    Averaged over 8 calibration sets per size, it falls by a factor of about
    4 per factor of 10 (at least 3.3 for seeds 0 to 99); 2.5 is required.
    """
    rng = np.random.RandomState(global_random_seed)
    tests = rng.uniform(size=500)
    widths = []
    for n in (30, 300, 3000):
        width = 0.0
        for _ in range(8):
            s = rng.uniform(size=n)
            y = (rng.uniform(size=n) < s).astype(int)
            y[:2] = [0, 1]
            recal = VennAbersRecalibrator(input="probability").fit(s, y)
            width += np.diff(recal.predict_interval(tests), axis=1).mean() / 8
        widths.append(width)
    assert widths[0] > 2.5 * widths[1] > 6.25 * widths[2]


# ---------------------------------------------------------------------------
# Weights and scores
# ---------------------------------------------------------------------------


def test_integer_weights_are_repetitions(global_random_seed):
    """Check that integer weights equal repeated rows, zero weights dropped rows."""
    rng = np.random.RandomState(global_random_seed)
    s = rng.randint(0, 20, size=100) / 20
    y = rng.randint(0, 2, size=100)
    y[:2] = [0, 1]
    w = rng.randint(0, 4, size=100)
    w[:2] = 1
    rows = np.repeat(np.arange(100), w)
    tests = np.linspace(-0.1, 1.1, 49)
    weighted = VennAbersRecalibrator(input="logit").fit(s, y, sample_weight=w)
    repeated = VennAbersRecalibrator(input="logit").fit(s[rows], y[rows])
    assert_allclose(
        weighted.predict_interval(tests), repeated.predict_interval(tests), atol=1e-14
    )


def test_fit_depends_on_the_scale_of_the_weights(global_random_seed):
    """Check that the test object weighs 1: doubling weights is duplicating rows.

    Tiny weights leave the test object alone in its block: (p0, p1) = (0, 1)
    and p = 1/2. Huge ones make it negligible: with label 0 it joins the
    block on its left, with label 1 the block on its right, so p0 and p1 are
    the isotonic fit of the calibration set at the nearest calibration
    scores below and above (0 below all of them, 1 above).
    """
    rng = np.random.RandomState(global_random_seed)
    s = rng.uniform(size=60)
    y = (rng.uniform(size=60) < s).astype(int)
    y[:2] = [0, 1]
    tests = np.concatenate([rng.uniform(-0.1, 1.1, size=30), s[:5]])
    doubled = VennAbersRecalibrator(input="logit").fit(
        s, y, sample_weight=np.full(60, 2.0)
    )
    twice = VennAbersRecalibrator(input="logit").fit(np.tile(s, 2), np.tile(y, 2))
    assert_allclose(doubled.predict_interval(tests), twice.predict_interval(tests))
    once = VennAbersRecalibrator(input="logit").fit(s, y)
    assert (
        np.abs(once.predict_interval(tests) - twice.predict_interval(tests)).max()
        > 0.01
    )
    tiny = VennAbersRecalibrator(input="logit").fit(
        s, y, sample_weight=np.full(60, 1e-300)
    )
    assert_allclose(tiny.predict_interval(tests), np.tile([0.0, 1.0], (35, 1)))
    assert_allclose(tiny.predict_proba(tests), 0.5)
    huge = VennAbersRecalibrator(input="logit").fit(
        s, y, sample_weight=np.full(60, 1e300)
    )
    order = np.argsort(s)
    fitted = np.concatenate(
        [[0.0], IsotonicRegression().fit(s, y).predict(s[order]), [1.0]]
    )
    below = np.searchsorted(s[order], tests, side="right")
    above = np.searchsorted(s[order], tests, side="left") + 1
    expected = np.column_stack([fitted[below], fitted[above]])
    assert_allclose(huge.predict_interval(tests), expected, atol=1e-12)


def test_weights_beyond_float_precision():
    """Check a calibration score lost in the running sums: merged, no error.

    A weight of 2**60 next to weights of 1 leaves the sums unchanged by the
    light ones; they are merged into their neighbour and the values stay
    ordered probabilities.
    """
    s = np.array([0.1, 0.2, 0.5, 0.7, 0.8])
    y = np.array([1, 0, 0, 1, 1])
    w = np.array([1.0, 1.0, 2.0**60, 1.0, 1.0])
    recal = VennAbersRecalibrator(input="logit").fit(s, y, sample_weight=w)
    assert recal.calibrators_[0].scores.shape[0] < 5
    pairs = recal.predict_interval(np.linspace(0, 1, 21))
    assert np.all(np.isfinite(pairs))
    assert np.all(
        (pairs[:, 0] >= 0) & (pairs[:, 0] <= pairs[:, 1]) & (pairs[:, 1] <= 1)
    )


def test_only_the_order_of_the_scores_matters(global_random_seed):
    """Check that an increasing transform of the scores changes nothing."""
    rng = np.random.RandomState(global_random_seed)
    z = rng.normal(size=80)
    y = (rng.uniform(size=80) < 1 / (1 + np.exp(-z))).astype(int)
    y[:2] = [0, 1]
    tests = rng.normal(size=40)
    on_logits = VennAbersRecalibrator(input="logit").fit(z, y)
    on_proba = VennAbersRecalibrator(input="probability").fit(1 / (1 + np.exp(-z)), y)
    shifted = VennAbersRecalibrator(input="logit").fit(3 * z - 7, y)
    expected = on_logits.predict_interval(tests)
    assert_allclose(on_proba.predict_interval(1 / (1 + np.exp(-tests))), expected)
    assert_allclose(shifted.predict_interval(3 * tests - 7), expected)


# ---------------------------------------------------------------------------
# Multiclass views
# ---------------------------------------------------------------------------


def test_multiclass_intervals_are_the_binary_ones(global_random_seed):
    """Check "ovr" pairs per class and "top_label" pairs on the confidence.

    Each class's pair is the binary predictor of that class against the
    rest on its column; predict_proba renormalises the merged values. The
    top-label pair is the binary predictor of "the top class is right" on
    the largest probability.
    """
    rng = np.random.RandomState(global_random_seed)
    proba = rng.dirichlet(np.ones(3), size=150)
    y = np.array([rng.choice(3, p=p) for p in proba])
    tests = rng.dirichlet(np.ones(3), size=40)
    ovr = VennAbersRecalibrator().fit(proba, y)
    pairs = ovr.predict_interval(tests)
    assert pairs.shape == (40, 3, 2)
    for k in range(3):
        binary = VennAbersRecalibrator(input="probability").fit(proba[:, k], y == k)
        assert_allclose(pairs[:, k], binary.predict_interval(tests[:, k]))
    merged = pairs[..., 1] / (1 - pairs[..., 0] + pairs[..., 1])
    expected = merged / merged.sum(axis=1, keepdims=True)
    assert_allclose(ovr.predict_proba(tests), expected)
    top = VennAbersRecalibrator(multiclass="top_label").fit(proba, y)
    pairs = top.predict_interval(tests)
    assert pairs.shape == (40, 2)
    correct = proba.argmax(axis=1) == y
    binary = VennAbersRecalibrator(input="probability").fit(proba.max(axis=1), correct)
    assert_allclose(pairs, binary.predict_interval(tests.max(axis=1)))
    assert_array_equal(top.predict(tests), tests.argmax(axis=1))


# ---------------------------------------------------------------------------
# Cross Venn-Abers predictors in RecalibratedClassifierCV
# ---------------------------------------------------------------------------


def test_cross_venn_abers_rule_by_hand():
    """Check G(p1) / (G(1 - p0) + G(p1)) on two folds, and its limits.

    Folds (0.2, 0.5) and (0.4, 0.8): sqrt(0.4) / (sqrt(0.8 * 0.6) +
    sqrt(0.4)) = 0.47723, not the mean 0.47802 of the merged 0.38462 and
    0.57143.
    """
    p = cross_venn_abers(np.array([[0.2], [0.4]]), np.array([[0.5], [0.8]]))
    assert_allclose(p, [np.sqrt(0.4) / (np.sqrt(0.48) + np.sqrt(0.4))])
    assert_allclose(p, [0.47723], atol=5e-6)
    # A fold with p1 = 0 gives 0, with p0 = 1 gives 1; both at once give 1/2.
    p = cross_venn_abers(
        np.array([[0.0, 0.3, 1.0], [0.2, 1.0, 0.0]]),
        np.array([[0.0, 0.6, 1.0], [0.5, 1.0, 0.0]]),
    )
    assert_allclose(p, [0.0, 1.0, 0.5])


def _fold_data(rng, n_classes, n=240):
    X = rng.normal(size=(n, 3))
    logits = X @ rng.normal(size=(3, n_classes)) * 2
    y = np.array([rng.choice(n_classes, p=p) for p in softmax(logits, axis=1)])
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_cross_validation_combines_folds_as_cvap(global_random_seed, n_classes):
    """Check RecalibratedClassifierCV's combination of Venn-Abers folds.

    Per class (one-vs-rest: then renormalised), the folds' pairs are combined
    by the geometric-mean rule, computed here by hand; it differs from the
    mean of the folds' probabilities used by other recalibrators.
    """
    rng = np.random.RandomState(global_random_seed)
    X, y = _fold_data(rng, n_classes)
    model = RecalibratedClassifierCV(
        LogisticRegression(), VennAbersRecalibrator(), cv=4
    )
    proba = model.fit(X, y).predict_proba(X)
    pairs = np.stack([r.predict_interval(X) for r in model.calibrated_classifiers_])
    g1 = np.prod(pairs[..., 1], axis=0) ** (1 / 4)
    g0 = np.prod(1 - pairs[..., 0], axis=0) ** (1 / 4)
    p = g1 / (g0 + g1)
    if n_classes == 2:
        expected = np.column_stack([1 - p, p])
    else:
        expected = p / p.sum(axis=1, keepdims=True)
    assert_allclose(proba, expected, rtol=1e-12)
    mean = np.mean([r.predict_proba(X) for r in model.calibrated_classifiers_], axis=0)
    assert np.abs(proba - mean).max() > 1e-3
    assert_allclose(proba.sum(axis=1), 1.0)


def test_cross_validation_top_label(global_random_seed):
    """Check top-label folds: the rule where the folds agree, the mean elsewhere.

    Where every fold's classifier predicts the same class, its confidence is
    the combination of the folds' pairs and the other classes share the rest
    in proportion to the folds' mean probabilities.
    """
    rng = np.random.RandomState(global_random_seed)
    X, y = _fold_data(rng, 4, n=300)
    recal = VennAbersRecalibrator(multiclass="top_label")
    model = RecalibratedClassifierCV(LogisticRegression(C=0.05), recal, cv=4)
    proba = model.fit(X, y).predict_proba(X)
    folds = model.calibrated_classifiers_
    logits = np.stack([r.estimator.decision_function(X) for r in folds])
    tops = logits.argmax(axis=2)
    agree = np.all(tops == tops[0], axis=0)
    assert 0 < agree.sum() < X.shape[0]
    pairs = np.stack([r.predict_interval(X) for r in folds])
    g1 = np.prod(pairs[..., 1], axis=0) ** (1 / 4)
    g0 = np.prod(1 - pairs[..., 0], axis=0) ** (1 / 4)
    originals = softmax(logits, axis=2).mean(axis=0)
    combined = top_label_proba(originals, tops[0], g1 / (g0 + g1))
    assert_allclose(proba[agree], combined[agree], rtol=1e-10)
    mean = np.mean([r.predict_proba(X) for r in folds], axis=0)
    assert_allclose(proba[~agree], mean[~agree], rtol=1e-12)
    assert_array_equal(proba[agree].argmax(axis=1), tops[0][agree])


def test_other_recalibrators_still_average_their_folds(global_random_seed):
    """Check that the default combination of folds is the mean of probabilities."""
    rng = np.random.RandomState(global_random_seed)
    X, y = _fold_data(rng, 3)
    model = RecalibratedClassifierCV(
        LogisticRegression(), IsotonicRecalibrator(), cv=StratifiedKFold(3)
    )
    proba = model.fit(X, y).predict_proba(X)
    mean = np.mean([r.predict_proba(X) for r in model.calibrated_classifiers_], axis=0)
    assert_allclose(proba, mean, rtol=1e-15)


# ---------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------


def test_predict_interval_before_fit():
    """Check that predict_interval needs a fitted predictor."""
    with pytest.raises(NotFittedError):
        VennAbersRecalibrator().predict_interval([0.2, 0.4])


def test_predict_interval_rejects_scores_unlike_the_fit():
    """Check wrong numbers of columns, NaN and logits after probabilities."""
    recal = VennAbersRecalibrator().fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="features"):
        recal.predict_interval([[0.1, 0.9, 0.0]])
    with pytest.raises(ValueError, match="NaN"):
        recal.predict_interval([0.2, np.nan])
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        recal.predict_interval([-2.0, 3.0])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"multiclass": "ovo"}, "'multiclass' parameter"),
        ({"input": "scores"}, "'input' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid parameters are refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match=match):
        VennAbersRecalibrator(**params).fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])


def test_cross_validation_needs_an_unwrapped_recalibrator():
    """Check that RecalibratedClassifierCV refuses a recalibrator with a classifier."""
    rng = np.random.RandomState(0)
    X, y = _fold_data(rng, 2)
    clf = LogisticRegression().fit(X, y)
    model = RecalibratedClassifierCV(LogisticRegression(), VennAbersRecalibrator(clf))
    with pytest.raises(ValueError, match="estimator=None"):
        model.fit(X, y)
