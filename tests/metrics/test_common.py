"""Checks every calibration measure must pass, over the registry.

Every calibration error of :func:`skcal.discovery.all_measures` inherits
every check here, with its default options and with the option variants
below; measure-specific tests live in the measure's own file.
"""

# SPDX-License-Identifier: BSD-3-Clause

from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skcal.discovery import all_measures
from skcal.metrics import (
    binned_calibration_error,
    cutoff_calibration_error,
    kernel_calibration_error,
    logit_smoothed_ece,
    smooth_calibration_error,
    smooth_ece,
)
from tests.metrics._strategies import binary_data

# Non-default options of registered measures, checked as measures of their own.
VARIANTS = {
    "binned_l2": partial(binned_calibration_error, norm="l2"),
    "binned_max": partial(binned_calibration_error, norm="max"),
    "binned_l2_debiased": partial(binned_calibration_error, norm="l2", debias=True),
    "binned_quantile": partial(binned_calibration_error, strategy="quantile", n_bins=5),
    "smooth_calibration_error_grid": partial(
        smooth_calibration_error, method="grid", n_grid=50
    ),
    "kernel_calibration_error_epanechnikov": partial(
        kernel_calibration_error, kernel="epanechnikov"
    ),
    "kernel_calibration_error_log": partial(kernel_calibration_error, loss="log"),
    "logit_smoothed_ece_uniform": partial(logit_smoothed_ece, noise="uniform"),
    "smooth_ece_fixed_sigma": partial(smooth_ece, sigma=0.05),
}

ALL_MEASURES = {
    **{m.name: m.function for m in all_measures(kind="calibration_error")},
    **VARIANTS,
}

# Measures for which integer weights are not repeated rows, with the reason.
NOT_REPETITION_INVARIANT = {
    "binned_l2_debiased": "its bias correction depends on the sample size",
    "squared_kernel_calibration_error": (
        "a U-statistic over pairs of distinct rows: copies of a row would pair "
        "with each other, integer weights do not"
    ),
}

# Measures that are not 0 on a perfectly calibrated sample, with the reason.
NOT_ZERO_WHEN_CALIBRATED = {
    "logit_smoothed_ece": (
        "noise on the logits leaves an O(sigma) error on calibrated predictions "
        "(Chidambaram et al. 2024; logit_smoothed_ece.md, C20 and C23)"
    ),
    "logit_smoothed_ece_uniform": "as logit_smoothed_ece",
    "squared_kernel_calibration_error": (
        "an unbiased estimate: its mean over calibrated samples is 0, not its "
        "value on each (Widmann et al. 2019)"
    ),
}

# Measures undefined on fewer than two rows of positive weight (they refuse
# them), with the reason.
NEEDS_TWO_ROWS = {"squared_kernel_calibration_error": "a mean over pairs of rows"}

# Measures that can be negative, with the reason.
SIGNED = {
    "squared_kernel_calibration_error": "an unbiased estimate of a value >= 0",
}

MEASURE_NAMES = sorted(ALL_MEASURES)


def _data(seed, n=120, k=None):
    rng = np.random.RandomState(seed)
    if k is None:
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p**1.3).astype(int)
        return y, p
    logits = rng.normal(scale=2.0, size=(n, k))
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = rng.randint(k, size=n)
    return y, prob


@pytest.fixture(params=MEASURE_NAMES)
def measure(request):
    return request.param, ALL_MEASURES[request.param]


def test_returns_python_float(measure):
    """Check that every measure returns a Python float in [0, 1] ([-1, 1] if
    it may be negative)."""
    name, func = measure
    y, p = _data(0)
    value = func(y, p)
    assert type(value) is float
    assert (-1.0 if name in SIGNED else 0.0) <= value <= 1.0


@pytest.mark.parametrize("k", [None, 3])
def test_array_types_give_the_same_value(measure, k):
    """Check that lists, ndarrays and pandas objects give the same value."""
    _, func = measure
    y, p = _data(1, k=k)
    expected = func(y, p)
    assert func(y.tolist(), p.tolist()) == expected
    p_pandas = pd.Series(p) if k is None else pd.DataFrame(p)
    assert func(pd.Series(y), p_pandas) == expected


def test_row_order_does_not_matter(measure, global_random_seed):
    """Check invariance to a permutation of the samples."""
    _, func = measure
    y, p = _data(global_random_seed, k=3)
    perm = np.random.RandomState(global_random_seed).permutation(len(y))
    assert_allclose(func(y[perm], p[perm]), func(y, p), rtol=1e-12, atol=1e-15)


def test_sample_weight_rules(measure, global_random_seed):
    """Check None == ones, zero weight == dropped row, and scale invariance."""
    name, func = measure
    y, p = _data(global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    assert func(y, p, sample_weight=np.ones(len(y))) == pytest.approx(func(y, p))
    w = rng.uniform(0.5, 2.0, size=len(y))
    w[::7] = 0.0
    kept = w > 0
    assert_allclose(
        func(y, p, sample_weight=w), func(y[kept], p[kept], sample_weight=w[kept])
    )
    assert_allclose(func(y, p, sample_weight=w * 1e3), func(y, p, sample_weight=w))
    if name in NOT_REPETITION_INVARIANT:
        return
    counts = rng.randint(0, 4, size=len(y))
    assert_allclose(
        func(y, p, sample_weight=counts),
        func(np.repeat(y, counts), np.repeat(p, counts)),
        rtol=1e-12,
        atol=1e-15,
    )


def test_relabelling_with_pos_label(measure):
    """Check that renaming the classes, with pos_label, changes nothing."""
    _, func = measure
    y, p = _data(2)
    names = np.where(y == 1, "yes", "no")
    assert func(names, p, pos_label="yes") == func(y, p)
    assert func(names, np.c_[p, 1 - p], labels=["yes", "no"], pos_label="yes") == func(
        y, p
    )


@pytest.mark.parametrize(
    "name", [name for name in MEASURE_NAMES if name not in NOT_ZERO_WHEN_CALIBRATED]
)
def test_zero_on_perfectly_calibrated_input(name):
    """Check that predictions equal to their event rates score 0."""
    func = ALL_MEASURES[name]
    p = np.repeat([0.2, 0.5, 0.8], [10, 10, 10])
    y = np.r_[[1] * 2 + [0] * 8, [1] * 5 + [0] * 5, [1] * 8 + [0] * 2]
    assert func(y, p) == pytest.approx(0.0, abs=1e-12)


def test_multiclass_reductions_are_consistent(measure):
    """Check that classwise is the mean of its per-class vector."""
    _, func = measure
    y, prob = _data(3, k=4)
    vector = func(y, prob, reduction="classwise", return_per_class=True)
    assert vector.shape == (4,)
    assert_allclose(func(y, prob, reduction="classwise"), vector.mean())
    for k in range(4):
        assert_allclose(vector[k], func(y == k, prob[:, k]), rtol=1e-12)


# ---------------------------------------------------------------------------
# Invariances as hypothesis properties, over each measure's options
# ---------------------------------------------------------------------------

# Each measure with a strategy for its options (a coarse eps keeps the
# SmoothECE fixed-point search fast).
PROPERTY_MEASURES = {
    "binned_calibration_error": (
        binned_calibration_error,
        st.fixed_dictionaries(
            {
                "n_bins": st.integers(1, 12),
                "strategy": st.sampled_from(["uniform", "quantile"]),
                "norm": st.sampled_from(["l1", "l2", "max"]),
            }
        ),
    ),
    "cutoff_calibration_error": (cutoff_calibration_error, st.just({})),
    "smooth_calibration_error": (
        smooth_calibration_error,
        st.sampled_from([{}, {"method": "grid", "n_grid": 50}]),
    ),
    "smooth_ece": (
        smooth_ece,
        st.sampled_from(
            [
                {"sigma": 0.02},
                {"sigma": 0.1},
                {"sigma": 0.6},
                {"sigma": "auto", "eps": 0.01},
            ]
        ),
    ),
    "logit_smoothed_ece": (
        logit_smoothed_ece,
        st.fixed_dictionaries(
            {
                "sigma": st.sampled_from([0.1, 0.5, 2.0]),
                "noise": st.sampled_from(["gaussian", "uniform"]),
            }
        ),
    ),
}

parametrize_property_measures = pytest.mark.parametrize(
    "name", sorted(PROPERTY_MEASURES)
)


def _assert_same(a, b):
    assert_allclose(a, b, rtol=1e-10, atol=1e-13)


def _draw(name, data, options=None):
    """Draw binary data and options; return the measure with its options bound."""
    func, default_options = PROPERTY_MEASURES[name]
    y, p = data.draw(binary_data())
    kwargs = data.draw(default_options if options is None else options)
    return partial(func, **kwargs), y, p


@parametrize_property_measures
@given(data=st.data())
def test_permutation_invariance(name, data):
    """Check that the order of the samples does not matter."""
    func, y, p = _draw(name, data)
    perm = data.draw(st.permutations(range(len(y))))
    _assert_same(func(y[perm], p[perm]), func(y, p))


@parametrize_property_measures
@given(data=st.data())
def test_duplication_invariance(name, data):
    """Check that duplicating the data set does not change the value."""
    func, y, p = _draw(name, data)
    _assert_same(func(np.r_[y, y], np.r_[p, p]), func(y, p))


@parametrize_property_measures
@given(data=st.data())
def test_integer_weights_equal_repetition(name, data):
    """Check that integer sample weights equal repeated rows (zero = dropped)."""
    func, y, p = _draw(name, data)
    counts = np.array(
        data.draw(st.lists(st.integers(0, 4), min_size=len(y), max_size=len(y)))
    )
    if counts.sum() == 0:
        counts[0] = 1
    _assert_same(
        func(y, p, sample_weight=counts),
        func(np.repeat(y, counts), np.repeat(p, counts)),
    )


@parametrize_property_measures
@given(data=st.data(), scale=st.floats(1e-3, 1e3))
def test_weight_scaling_invariance(name, data, scale):
    """Check that multiplying every weight by a constant changes nothing."""
    func, y, p = _draw(name, data)
    w = np.linspace(0.5, 2.0, len(y))
    _assert_same(
        func(y, p, sample_weight=w * scale),
        func(y, p, sample_weight=w),
    )


@parametrize_property_measures
@given(data=st.data())
def test_two_columns_equal_one_column(name, data):
    """Check that a binary (n, 2) input equals its positive column, every reduction."""
    func, y, p = _draw(name, data)
    two = np.column_stack([1 - p, p])
    for reduction in ("positive", "top_label", "classwise"):
        assert func(y, two, reduction=reduction) == func(
            y,
            p,
            reduction=reduction,
        )


@parametrize_property_measures
@given(data=st.data())
def test_relabelling_property(name, data):
    """Check that string labels with pos_label give the value of 0/1 labels."""
    func, y, p = _draw(name, data)
    names = np.where(y == 1, "spam", "ham")
    assert func(names, p, pos_label="spam") == func(y, p)
    assert func(y, 1 - p, pos_label=0) == func(1 - y, 1 - p)


# Measures that treat the two classes alike: flipping labels and predictions,
# or averaging over both classes, changes nothing (binned errors are not among
# them: their bins are right-closed).
# The grid approximation of the smooth calibration error is not symmetric.
SYMMETRIC = {
    "cutoff_calibration_error": PROPERTY_MEASURES["cutoff_calibration_error"][1],
    "logit_smoothed_ece": PROPERTY_MEASURES["logit_smoothed_ece"][1],
    "smooth_calibration_error": st.just({"method": "exact"}),
    "smooth_ece": PROPERTY_MEASURES["smooth_ece"][1],
}


@pytest.mark.parametrize("name", sorted(SYMMETRIC))
@given(data=st.data())
def test_label_flip_symmetry(name, data):
    """Check that f(1 - y, 1 - p) = f(y, p), and classwise = positive, on binary data.

    SmoothECE claim 24 and LS-ECE claim C24 (symmetric noise) in the notes.
    """
    func, y, p = _draw(name, data, SYMMETRIC[name])
    _assert_same(func(1 - y, 1 - p), func(y, p))
    _assert_same(func(y, p, reduction="classwise"), func(y, p))


# ---------------------------------------------------------------------------
# Only ratios of weights matter, at every representable scale (issue 11)
# ---------------------------------------------------------------------------


def _other_measures():
    """The measures outside ALL_MEASURES that take sample weights, as scalars."""
    from skcal.metrics import (
        calibration_decomposition,
        calibration_sharpness_curve,
        cutoff_calibration_test,
        recalibration_improvement,
        reliability_table,
        smooth_reliability_curve,
    )

    def decomposition(y, p, **kw):
        return calibration_decomposition(y, p, **kw).miscalibration

    def improvement(y, p, **kw):
        result = recalibration_improvement(y, p, np.clip(p * 0.9, 0, 1), **kw)
        return [result.improvement, result.standard_error]

    def table(y, p, **kw):
        t = reliability_table(y, p, n_bins=5, **kw)
        return np.nansum(t.event_rate) + np.nansum(t.interval_low)

    def curve(y, p, **kw):
        return np.nansum(smooth_reliability_curve(y, p, eps=0.01, **kw).calibration)

    def sharpness(y, p, **kw):
        result = calibration_sharpness_curve(y, p, n_points=21, **kw)
        return np.nansum(result.band_high) + result.calibration_error

    def test(y, p, **kw):
        return cutoff_calibration_test(y, p, tolerance=0.3, **kw).n_effective

    return {
        "calibration_decomposition": decomposition,
        "recalibration_improvement": improvement,
        "reliability_table": table,
        "smooth_reliability_curve": curve,
        "calibration_sharpness_curve": sharpness,
        "cutoff_calibration_test": test,
    }


SCALED_MEASURES = {**ALL_MEASURES, **_other_measures()}


@pytest.mark.parametrize("name", sorted(SCALED_MEASURES))
@given(data=st.data())
def test_weights_matter_by_their_ratios_at_every_scale(name, data):
    """Check that weights with the largest at 10**k (-300 <= k <= 307) give the
    value of the weights divided by their maximum.

    Regression test of issue 11: weights of 1e200 made smooth_ece 0.204
    instead of 0.116 (weighted sums squared before division), and weights
    whose sum exceeds the largest float were refused.
    """
    func = SCALED_MEASURES[name]
    y, p = data.draw(binary_data(min_size=2))
    ratios = st.sampled_from([0.0, 1e-6, 0.25, 0.5, 1.0])
    w = np.array(data.draw(st.lists(ratios, min_size=len(y), max_size=len(y))))
    w[0] = 1.0
    assume(name not in NEEDS_TWO_ROWS or np.count_nonzero(w) >= 2)
    exponent = data.draw(st.integers(-300, 307))
    expected = func(y, p, sample_weight=w)
    got = func(y, p, sample_weight=w * 10.0**exponent)
    # The curve's bandwidth is a fixed point found by iteration, which stops
    # within a tolerance: the 201 values agree to 1e-8 relative, not 1e-9.
    rtol = 1e-8 if name == "smooth_reliability_curve" else 1e-9
    assert_allclose(got, expected, rtol=rtol, atol=1e-12)


def test_smooth_ece_of_huge_weights_is_the_unweighted_value():
    """Check the example of issue 11: equal weights of 1e200 change nothing."""
    y, p = [0, 1, 0, 1, 1, 0], [0.1, 0.3, 0.5, 0.7, 0.9, 0.2]
    for sigma in ("auto", 0.1):
        assert_allclose(
            smooth_ece(y, p, sample_weight=np.full(6, 1e200), sigma=sigma),
            smooth_ece(y, p, sigma=sigma),
            rtol=1e-12,
        )


@pytest.mark.parametrize("name", sorted(SCALED_MEASURES))
def test_weights_summing_beyond_the_largest_float(name):
    """Check that equal weights of 1e308 give the unweighted value (issue 11)."""
    func = SCALED_MEASURES[name]
    rng = np.random.RandomState(0)
    p = rng.uniform(size=40)
    y = (rng.uniform(size=40) < p).astype(int)
    assert_allclose(
        func(y, p, sample_weight=np.full(40, 1e308)),
        func(y, p),
        rtol=1e-12,
        atol=1e-15,
    )
