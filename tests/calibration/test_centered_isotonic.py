"""Tests of the centered isotonic recalibrator (Oron and Flournoy, 2017)."""

# SPDX-License-Identifier: BSD-3-Clause

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.frozen import FrozenEstimator
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from skcal._param_validation import InvalidParameterError
from skcal.calibration import CenteredIsotonicRecalibrator, IsotonicRecalibrator


def _reference_cir(x, y, sample_weight=None):
    """Oron and Flournoy's algorithm, as the R package cir runs it, exactly.

    Rational arithmetic: distinct scores with their weights and mean
    outcomes; while some adjacent pair violates (a decrease, or a tie of
    means other than 0 or 1), pool the first such pair into one point at
    their weighted mean score and outcome; then add the smallest and largest
    scores with the end levels, and interpolate linearly.
    """
    w = np.ones(len(x)) if sample_weight is None else sample_weight
    totals = {}
    for xi, yi, wi in zip(x, y, w, strict=True):
        if wi > 0:
            total = totals.setdefault(Fraction(xi), [Fraction(0), Fraction(0)])
            total[0] += Fraction(wi)
            total[1] += Fraction(wi) * int(yi)
    scores = sorted(totals)
    points = [(s, totals[s][1] / totals[s][0], totals[s][0]) for s in scores]
    while True:
        for i in range(len(points) - 1):
            a, b = points[i][1], points[i + 1][1]
            if a > b or (a == b and a not in (0, 1)):
                break
        else:
            break
        (x1, y1, w1), (x2, y2, w2) = points[i], points[i + 1]
        merged = ((w1 * x1 + w2 * x2) / (w1 + w2), (w1 * y1 + w2 * y2) / (w1 + w2))
        points[i : i + 2] = [(*merged, w1 + w2)]
    knots = [(p[0], p[1]) for p in points]
    if knots[0][0] > scores[0]:
        knots.insert(0, (scores[0], knots[0][1]))
    if knots[-1][0] < scores[-1]:
        knots.append((scores[-1], knots[-1][1]))
    return (
        np.array([float(k[0]) for k in knots]),
        np.array([float(k[1]) for k in knots]),
    )


def _logistic_data(rng, n, ties=False, slope=2.0):
    """Decision values and labels drawn from a logistic curve, both classes."""
    x = rng.normal(size=n)
    if ties:
        x = np.round(x, 1)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-slope * x))).astype(int)
    y[:2] = [0, 1]
    return x, y


def _grid(x, n=400):
    """The scores, points between them and points beyond their range."""
    return np.concatenate([x, np.linspace(x.min() - 1, x.max() + 1, n)])


def _map(recal, x):
    return recal.predict_proba(x)[:, 1]


def _inner_range(knots):
    """Where the map is strictly increasing: between the inner end knots."""
    y = knots.y_
    lo = knots.x_[np.flatnonzero(y == y[0])[-1]]
    hi = knots.x_[np.flatnonzero(y == y[-1])[0]]
    return lo, hi


# ---------------------------------------------------------------------------
# Agreement with the algorithm and with cir-model
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_slow_reference(global_random_seed, ties, weighted):
    """Check the fit against the paper's algorithm run pair by pair, exactly."""
    rng = np.random.RandomState(global_random_seed)
    for n in (2, 5, 30, 80):
        x, y = _logistic_data(rng, n, ties=ties)
        w = None
        if weighted:
            w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], size=n)
            w[:2] = 1.0
        recal = CenteredIsotonicRecalibrator(input="logit")
        recal.fit(x, y, sample_weight=w)
        kx, ky = _reference_cir(x, y, w)
        grid = _grid(x)
        assert_allclose(_map(recal, grid), np.interp(grid, kx, ky), atol=1e-12)


def test_integer_ties_of_block_means_are_pooled():
    """Check that blocks of equal means (1/3 = 2/6) become one point.

    Isotonic regression is flat at 1/3 over the first six scores; CIR keeps
    one point at their mean score 3.5, the first block also keeping the
    smallest score, and the block of ones both its ends.
    """
    x = np.arange(1.0, 9.0)
    y = np.array([1, 0, 0, 1, 0, 0, 1, 1])
    w = np.array([1, 1, 1, 2, 2, 2, 1, 1])
    for weights in (None, w, w * 0.1):
        recal = CenteredIsotonicRecalibrator(input="logit")
        knots = recal.fit(x, y, sample_weight=weights).calibrators_[0]
        centre = 3.5 if weights is None else np.average(x[:6], weights=w[:6])
        assert_allclose(knots.x_, [1.0, centre, 7.0, 8.0], rtol=1e-15)
        assert_allclose(knots.y_, [1 / 3, 1 / 3, 1.0, 1.0], rtol=1e-15)


def test_levels_zero_and_one_keep_their_ends():
    """Check the rule for ties at 0 or 1: such a run stays flat, as in R's cir."""
    x = np.arange(1.0, 9.0)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    knots = CenteredIsotonicRecalibrator(input="logit").fit(x, y).calibrators_[0]
    assert_array_equal(knots.x_, [1.0, 3.0, 4.5, 6.0, 8.0])
    assert_array_equal(knots.y_, [0.0, 0.0, 0.5, 1.0, 1.0])
    # Another level at the ends: its block keeps the end score and its centre.
    y = np.array([1, 0, 0, 1, 0, 1, 1, 0])
    knots = CenteredIsotonicRecalibrator(input="logit").fit(x, y).calibrators_[0]
    assert_allclose(knots.x_, [1.0, 2.0, 4.5, 7.0, 8.0], rtol=1e-15)
    assert_allclose(knots.y_, [1 / 3, 1 / 3, 1 / 2, 2 / 3, 2 / 3], rtol=1e-15)


def _tie_lost_to_rounding(x, y, sample_weight):
    """Whether scikit-learn's isotonic fit has two levels equal but for rounding.

    Its pool-adjacent-violators updates means incrementally, so two adjacent
    blocks of equal means (8/15 and 8/15) may come out one ulp apart and stay
    apart: cir-model then keeps a point for each, where the algorithm (and
    this implementation, which computes means from block sums) pools them.
    """
    fitted = IsotonicRegression().fit(x, y, sample_weight=sample_weight).predict(x)
    levels = np.unique(fitted)
    gaps = np.diff(levels)
    return bool(np.any(gaps <= 1e-12 * levels[1:]))


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_cir_model(global_random_seed, ties, weighted):
    """Check the map against cir-model's CenteredIsotonicRegression.

    cir-model's points beyond the data are NaN unless out_of_bounds="clip".
    Data whose isotonic levels scikit-learn leaves split by a rounding error
    are skipped (see ``_tie_lost_to_rounding``): there the exact reference
    is the judge (test_matches_slow_reference and
    test_ties_split_by_rounding_are_pooled).
    """
    cir_model = pytest.importorskip("cir_model")
    rng = np.random.RandomState(global_random_seed)
    compared = 0
    for n in (3, 50, 500):
        x, y = _logistic_data(rng, n, ties=ties)
        w = rng.uniform(0.1, 3.0, size=n) if weighted else None
        if _tie_lost_to_rounding(x, y, w):
            continue
        recal = CenteredIsotonicRecalibrator(input="logit")
        recal.fit(x, y, sample_weight=w)
        theirs = cir_model.CenteredIsotonicRegression(out_of_bounds="clip")
        theirs.fit(x, y, sample_weight=w)
        grid = _grid(x)
        assert_allclose(_map(recal, grid), theirs.predict(grid), atol=1e-10)
        compared += 1
    assert compared >= 1


def test_ties_split_by_rounding_are_pooled():
    """Check exact ties of block means that scikit-learn splits by one ulp.

    Isotonic regression of these 32 outcomes is 1/2 everywhere: the first
    two (1/2) and the other thirty (15/30) tie. scikit-learn 1.9 (SciPy's
    pool adjacent violators) gives 1/2 to the first two and 1/2 + 1 ulp to
    the others, so cir-model keeps two blocks; here, as in the exact
    algorithm, one block, the constant 1/2.
    """
    y = np.array([1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1])
    y = np.concatenate([y, [1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0]])
    x = np.arange(32.0)
    knots = CenteredIsotonicRecalibrator(input="logit").fit(x, y).calibrators_[0]
    assert_array_equal(knots.x_, [0.0, 31.0])
    assert_array_equal(knots.y_, [0.5, 0.5])
    kx, ky = _reference_cir(x, y)
    assert_array_equal(np.interp(_grid(x), kx, ky), 0.5)


def test_real_outputs_match_cir_model(real_multiclass, global_random_seed):
    """Check a one-vs-rest view of real probabilities against cir-model.

    Float32 probabilities closer than 1e-15 (near 0) are one score for
    cir-model (scikit-learn's isotonic merges them), two here; the maps
    still agree at the held-out scores.
    """
    cir_model = pytest.importorskip("cir_model")
    rng = np.random.RandomState(global_random_seed)
    labels, probs = real_multiclass
    idx = rng.permutation(labels.shape[0])[:4000]
    k = rng.randint(probs.shape[1])
    p = probs[idx, k].astype(np.float64)
    target = (labels[idx] == k).astype(int)
    recal = CenteredIsotonicRecalibrator(input="probability")
    recal.fit(p[:2000], target[:2000])
    if _tie_lost_to_rounding(p[:2000], target[:2000], None):
        # cir-model keeps a point for each of two levels that scikit-learn's
        # isotonic fit left one ulp apart; the exact algorithm decides.
        kx, ky = _reference_cir(p[:2000], target[:2000])
        assert_allclose(_map(recal, p), np.interp(p, kx, ky), atol=1e-10)
        return
    theirs = cir_model.CenteredIsotonicRegression(out_of_bounds="clip")
    theirs.fit(p[:2000], target[:2000])
    assert_allclose(_map(recal, p), theirs.predict(p), atol=1e-10)


# ---------------------------------------------------------------------------
# Claims of the paper
# ---------------------------------------------------------------------------


def test_no_violations_give_the_observed_means():
    """Check that without violations CIR and isotonic return the observations."""
    x = np.repeat([1.0, 2.0, 3.0, 4.0, 5.0], 10)
    rates = np.array([0.1, 0.3, 0.5, 0.6, 0.9])
    y = np.concatenate([np.arange(10) < 10 * r for r in rates]).astype(int)
    cir = CenteredIsotonicRecalibrator(input="logit").fit(x, y)
    iso = IsotonicRecalibrator(input="logit").fit(x, y)
    levels = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert_allclose(_map(cir, levels), rates, rtol=1e-15)
    assert_allclose(_map(iso, levels), rates, rtol=1e-15)
    grid = np.linspace(0, 6, 61)
    assert_allclose(_map(cir, grid), _map(iso, grid), rtol=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
def test_strictly_increasing_where_isotonic_is_flat(global_random_seed, weighted):
    """Check that CIR is strictly increasing between its inner end points.

    Isotonic regression is flat over each pooled block there; CIR is flat
    only beyond the first and last centres (or runs of zeros and ones).
    """
    rng = np.random.RandomState(global_random_seed)
    x, y = _logistic_data(rng, 300, ties=True)
    w = rng.uniform(0.1, 3.0, size=300) if weighted else None
    cir = CenteredIsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    iso = IsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    knots = cir.calibrators_[0]
    assert np.all(np.diff(knots.x_) > 0)
    assert np.all(np.diff(knots.y_) >= 0)
    assert knots.x_[0] == x.min()
    assert knots.x_[-1] == x.max()
    lo, hi = _inner_range(knots)
    grid = np.linspace(lo, hi, 5001)
    assert np.all(np.diff(_map(cir, grid)) > 0)
    assert np.any(np.diff(_map(iso, grid)) == 0)
    # Constant beyond: at the end levels.
    assert np.all(_map(cir, np.linspace(x.min() - 5, lo, 50)) == knots.y_[0])
    assert np.all(_map(cir, np.linspace(hi, x.max() + 5, 50)) == knots.y_[-1])


@pytest.mark.parametrize("weighted", [False, True])
def test_agrees_with_isotonic_at_block_centres(global_random_seed, weighted):
    """Check that at each block's mean score CIR gives the isotonic level."""
    rng = np.random.RandomState(global_random_seed)
    x, y = _logistic_data(rng, 300)
    w = rng.uniform(0.1, 3.0, size=300) if weighted else None
    cir = CenteredIsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    iso = IsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    knots = cir.calibrators_[0]
    assert_allclose(_map(iso, knots.x_), knots.y_, rtol=1e-12, atol=1e-15)
    # The knots' levels are the isotonic fit's distinct levels.
    assert_allclose(np.unique(knots.y_), np.unique(_map(iso, x)), rtol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_in_sample_squared_error_is_at_least_isotonic(global_random_seed, ties):
    """Check that isotonic regression, the least-squares fit, is no worse."""
    rng = np.random.RandomState(global_random_seed)
    x, y = _logistic_data(rng, 200, ties=ties)
    w = rng.uniform(0.1, 3.0, size=200)
    cir = CenteredIsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    iso = IsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    cir_error = np.dot(w, (y - _map(cir, x)) ** 2)
    iso_error = np.dot(w, (y - _map(iso, x)) ** 2)
    assert cir_error >= iso_error * (1 - 1e-12)
    # With pooled blocks, strictly worse.
    assert cir_error > iso_error


def test_keeps_the_ranking_of_held_out_scores(global_random_seed):
    """Check that CIR changes the ROC AUC less than isotonic (sklearn #16321).

    Held-out scores without ties, labels from a strictly increasing curve:
    between CIR's inner end points every output is distinct and the AUC is
    exactly the scores'; isotonic ties the scores of each block. On the
    whole held-out set CIR gives at least as many distinct values (its ties
    are among isotonic's) and a smaller change of the AUC.
    """
    rng = np.random.RandomState(global_random_seed)
    cir_change, iso_change = [], []
    for _ in range(5):
        x, y = _logistic_data(rng, 1200)
        fit, new = slice(0, 200), slice(200, None)
        cir = CenteredIsotonicRecalibrator(input="logit").fit(x[fit], y[fit])
        iso = IsotonicRecalibrator(input="logit").fit(x[fit], y[fit])
        s, t = x[new], y[new]
        p_cir, p_iso = _map(cir, s), _map(iso, s)
        assert np.unique(p_cir).shape[0] >= np.unique(p_iso).shape[0]
        lo, hi = _inner_range(cir.calibrators_[0])
        inside = (s > lo) & (s < hi)
        assert np.unique(p_cir[inside]).shape[0] == inside.sum()
        assert roc_auc_score(t[inside], p_cir[inside]) == roc_auc_score(
            t[inside], s[inside]
        )
        assert np.unique(p_iso[inside]).shape[0] < inside.sum()
        auc = roc_auc_score(t, s)
        cir_change.append(abs(roc_auc_score(t, p_cir) - auc))
        iso_change.append(abs(roc_auc_score(t, p_iso) - auc))
    assert np.mean(cir_change) < np.mean(iso_change)


@pytest.mark.parametrize("multiclass", ["ovr", "top_label"])
def test_real_outputs_take_more_distinct_values(real_multiclass, multiclass):
    """Check on real outputs that CIR gives more distinct held-out values."""
    labels, probs = real_multiclass
    probs = probs.astype(np.float64)
    probs /= probs.sum(axis=1, keepdims=True)
    half = labels.shape[0] // 2
    fit, new = slice(0, half), slice(half, None)
    counts = []
    for cls in (CenteredIsotonicRecalibrator, IsotonicRecalibrator):
        recal = cls(multiclass=multiclass).fit(probs[fit], labels[fit])
        proba = recal.predict_proba(probs[new])
        assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        counts.append(np.unique(proba.max(axis=1)).shape[0])
    assert counts[0] > counts[1]


# ---------------------------------------------------------------------------
# Weights, scales, edge cases
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_integer_weights_are_repetitions(global_random_seed, ties):
    """Check that integer weights equal repeated rows and zero weights dropped rows."""
    rng = np.random.RandomState(global_random_seed)
    x, y = _logistic_data(rng, 100, ties=ties)
    w = rng.randint(0, 4, size=100)
    w[:2] = 1
    repeated = np.repeat(np.arange(100), w)
    weighted = CenteredIsotonicRecalibrator(input="logit")
    weighted.fit(x, y, sample_weight=w)
    expanded = CenteredIsotonicRecalibrator(input="logit").fit(x[repeated], y[repeated])
    grid = _grid(x)
    assert_allclose(_map(weighted, grid), _map(expanded, grid), rtol=1e-12)
    assert_allclose(
        weighted.calibrators_[0].x_, expanded.calibrators_[0].x_, rtol=1e-12
    )


@settings(max_examples=30)
@given(
    score_exponent=st.integers(-300, 300),
    weight_exponent=st.integers(-300, 307),
    seed=st.integers(0, 20),
)
# Weights times 1e-16 are rounded: exact ties of block means must stay ties.
@example(score_exponent=0, weight_exponent=-16, seed=18)
@example(score_exponent=300, weight_exponent=307, seed=0)
@example(score_exponent=-300, weight_exponent=-300, seed=1)
def test_scale_invariance(score_exponent, weight_exponent, seed):
    """Check that scores times 10**k and weights times 10**j change nothing."""
    rng = np.random.RandomState(seed)
    x, y = _logistic_data(rng, 60, ties=seed % 2 == 0)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], size=60)
    w[:2] = 1.0
    expected = CenteredIsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    a, b = 10.0**score_exponent, 10.0**weight_exponent
    got = CenteredIsotonicRecalibrator(input="logit").fit(x * a, y, sample_weight=w * b)
    grid = _grid(x, 50)
    proba = got.predict_proba(grid * a)
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba, expected.predict_proba(grid), rtol=1e-9, atol=1e-12)


@settings(max_examples=50)
@given(
    data=st.lists(
        st.tuples(st.integers(-5, 5), st.booleans(), st.integers(1, 3)),
        min_size=2,
        max_size=40,
    )
)
def test_matches_reference_on_small_integer_data(data):
    """Check heavy ties, integer scores and weights against the exact reference."""
    x = np.array([d[0] for d in data], dtype=float)
    y = np.array([d[1] for d in data], dtype=int)
    w = np.array([d[2] for d in data], dtype=float)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    recal = CenteredIsotonicRecalibrator(input="logit").fit(x, y, sample_weight=w)
    kx, ky = _reference_cir(x, y, w)
    grid = np.linspace(-6, 6, 241)
    assert_allclose(_map(recal, grid), np.interp(grid, kx, ky), atol=1e-13)
    knots = recal.calibrators_[0]
    assert np.all(np.diff(knots.x_) > 0)
    assert np.all(np.diff(knots.y_) >= 0)


def test_one_distinct_score_gives_a_constant():
    """Check that a single score (one block) gives its mean outcome everywhere."""
    recal = CenteredIsotonicRecalibrator(input="logit")
    recal.fit([0.5, 0.5, 0.5, 0.5], [0, 1, 1, 1])
    knots = recal.calibrators_[0]
    assert_array_equal(knots.x_, [0.5])
    assert_array_equal(knots.y_, [0.75])
    assert_allclose(_map(recal, [-3.0, 0.5, 7.0]), 0.75, rtol=1e-15)


def test_decreasing_outcomes_give_one_block():
    """Check that outcomes against the scores pool into one constant block."""
    recal = CenteredIsotonicRecalibrator().fit([0.1, 0.2, 0.3, 0.4], [1, 1, 0, 0])
    knots = recal.calibrators_[0]
    assert_array_equal(knots.x_, [0.1, 0.4])
    assert_array_equal(knots.y_, [0.5, 0.5])
    assert_allclose(_map(recal, [0.0, 0.25, 1.0]), 0.5, rtol=1e-15)


def test_class_absent_from_y():
    """Check that a class without samples gets the constant map 0 (one-vs-rest)."""
    rng = np.random.RandomState(0)
    proba = rng.dirichlet(np.ones(3), size=50)
    y = np.where(proba[:, 0] > proba[:, 1], "a", "b")
    recal = CenteredIsotonicRecalibrator(classes=["a", "b", "c"]).fit(proba, y)
    assert_array_equal(recal.calibrators_[2].y_, [0.0, 0.0])
    out = recal.predict_proba(proba)
    assert_array_equal(out[:, 2], 0.0)
    assert_allclose(out.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("multiclass", ["ovr", "top_label"])
def test_real_multiclass_outputs(real_multiclass, multiclass):
    """Check probability rows on real outputs, and the kept top class."""
    labels, probs = real_multiclass
    probs = probs[:3000].astype(np.float64)
    probs /= probs.sum(axis=1, keepdims=True)
    labels = labels[:3000]
    recal = CenteredIsotonicRecalibrator(multiclass=multiclass)
    recal.fit(probs[:2000], labels[:2000])
    assert recal.input_ == "probability"
    n_maps = probs.shape[1] if multiclass == "ovr" else 1
    assert len(recal.calibrators_) == n_maps
    proba = recal.predict_proba(probs[2000:])
    assert proba.shape == probs[2000:].shape
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    if multiclass == "top_label":
        assert_array_equal(recal.predict(probs[2000:]), probs[2000:].argmax(axis=1))


def test_wrapped_classifier_equals_its_scores(global_random_seed):
    """Check a frozen classifier against its decision values and probabilities."""
    rng = np.random.RandomState(global_random_seed)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    clf = LogisticRegression().fit(X[:200], y[:200])
    wrapped = CenteredIsotonicRecalibrator(FrozenEstimator(clf)).fit(X[200:], y[200:])
    assert wrapped.input_ == "logit"
    scores = clf.decision_function(X)
    direct = CenteredIsotonicRecalibrator(input="logit").fit(scores[200:], y[200:])
    assert_allclose(wrapped.predict_proba(X), direct.predict_proba(scores))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"multiclass": "all"}, "'multiclass' parameter"),
        ({"input": "proba"}, "'input' parameter"),
        ({"response_method": "predict"}, "'response_method' parameter"),
    ],
)
def test_invalid_parameters(params, match):
    """Check that invalid parameters are refused at fit, naming the parameter."""
    with pytest.raises(InvalidParameterError, match=match):
        CenteredIsotonicRecalibrator(**params).fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])


def test_nan_scores_are_refused():
    """Check that NaN scores at fit and infinite scores at predict are refused."""
    with pytest.raises(ValueError, match="NaN"):
        CenteredIsotonicRecalibrator().fit([0.1, np.nan, 0.6, 0.8], [0, 1, 0, 1])
    recal = CenteredIsotonicRecalibrator().fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="NaN|infinity"):
        recal.predict_proba([0.2, np.inf])
