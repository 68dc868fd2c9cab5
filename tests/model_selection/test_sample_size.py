"""Tests of sample_size_curve: measures on subsamples of growing size."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.utils.random import sample_without_replacement

from skcal._param_validation import InvalidParameterError
from skcal.metrics import expected_calibration_error, smooth_ece
from skcal.model_selection._sample_size import (
    check_sizes,
    protocol_repeats,
    protocol_sizes,
    sample_size_curve,
)

FAST = ["expected_calibration_error", "brier_score_loss"]


def _calibrated(rng, n, power=1.0):
    """Binary labels drawn from ``y_prob``; predictions ``y_prob**power``."""
    y_prob = rng.uniform(size=n)
    y_true = (rng.uniform(size=n) < y_prob).astype(int)
    return y_true, y_prob**power


class _Spy:
    """A measure that records the rows it is given (y_prob) and their weights."""

    def __init__(self):
        self.calls = []
        self.__name__ = "spy"

    def __call__(self, y_true, y_prob, *, sample_weight=None, labels=None):
        self.calls.append((np.array(y_true), np.array(y_prob), sample_weight))
        return float(np.mean(y_prob))


# ---------------------------------------------------------------------------
# The sizes and repetitions of the protocol
# ---------------------------------------------------------------------------

# The tick sizes of Gruber and Buettner (the notes checked them against the
# authors' hard-coded lists).
PAPER_TICKS = {
    10000: [100, 167, 278, 464, 774, 1292, 2154, 3594, 5995, 10000],
    25000: [100, 185, 341, 630, 1163, 2149, 3969, 7329, 13536, 25000],
    2897: [100, 145, 211, 307, 446, 649, 943, 1371, 1993, 2897],
}
# The repetitions per tick of their runs (two runs of start_rep = 10000).
PAPER_REPEATS = [20000, 15842, 12168, 8978, 6272, 4050, 2312, 1058, 288, 2]


@pytest.mark.parametrize("n_samples", sorted(PAPER_TICKS))
def test_protocol_sizes_are_the_papers_ticks(n_samples):
    """Check that the default sizes are the paper's ten log2-spaced ticks."""
    sizes, positions = protocol_sizes(n_samples, 100, 10)
    assert_array_equal(sizes, PAPER_TICKS[n_samples])
    assert_allclose(positions, np.linspace(0, 1, 10))
    # The 26032 rows of SVHN: the last two ticks of the notes.
    assert protocol_sizes(26032, 100, 10)[0][-2:].tolist() == [14032, 26032]


@pytest.mark.parametrize("n_repeats", [1, 4, 100, 10000])
def test_protocol_repeats_are_the_papers(n_repeats):
    """Check round(linspace(1, sqrt(R), 10)**2), the smallest size getting R."""
    sizes, positions = protocol_sizes(10000, 100, 10)
    repeats = protocol_repeats(sizes, positions, 10000, n_repeats)
    expected = np.rint(np.linspace(1, math.sqrt(n_repeats), 10) ** 2)[::-1]
    assert_array_equal(repeats, expected)
    if n_repeats == 10000:
        # Twice these are the paper's numbers per tick.
        assert_array_equal(2 * repeats, PAPER_REPEATS)


def test_curve_uses_the_protocol():
    """Check the sizes and repetitions sample_size_curve reports by default."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 2897)
    curve = sample_size_curve(
        y_true, y_prob, metrics=["brier_score_loss"], n_repeats=4, random_state=0
    )
    assert_array_equal(curve.sizes, PAPER_TICKS[2897])
    assert_array_equal(curve.n_repeats, [4, 4, 3, 3, 2, 2, 2, 1, 1, 1])
    assert [v.shape[0] for v in curve.subsample_values["brier_score_loss"]] == list(
        curve.n_repeats
    )
    assert curve.n_samples == 2897


def test_int_sizes_and_merged_duplicates():
    """Check an int of sizes, a single size, and sizes merged by rounding."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 400)
    curve = sample_size_curve(
        y_true, y_prob, metrics=FAST, sizes=3, min_size=25, random_state=0
    )
    assert_array_equal(curve.sizes, [25, 100, 400])
    assert_array_equal(curve.n_repeats, [100, 30, 1])
    single = sample_size_curve(y_true, y_prob, metrics=FAST, sizes=1)
    assert_array_equal(single.sizes, [400]) and single.n_repeats.tolist() == [1]
    # 10 log2-spaced sizes between 395 and 400 round to 6 distinct ones.
    merged = sample_size_curve(
        y_true, y_prob, metrics=FAST, min_size=395, n_repeats=9, random_state=0
    )
    assert_array_equal(merged.sizes, [395, 396, 397, 398, 399, 400])
    # min_size equal to the rows: only the whole set, once.
    whole = sample_size_curve(y_true, y_prob, metrics=FAST, min_size=400)
    assert_array_equal(whole.sizes, [400]) and whole.n_repeats.tolist() == [1]


def test_explicit_sizes_follow_the_rule_in_log_size():
    """Check the repetitions of explicit sizes against the formula, by hand."""
    n, R = 1000, 64
    sizes, positions = check_sizes([1000, 10, 100, 10, 500.0], n)
    assert_array_equal(sizes, [10, 100, 500, 1000])
    expected = [
        round((1 + (math.sqrt(R) - 1) * (1 - math.log(s / 10) / math.log(n / 10))) ** 2)
        for s in sizes
    ]
    assert expected[0] == R and expected[-1] == 1
    assert protocol_repeats(sizes, positions, n, R).tolist() == expected
    # Sizes below n only: the largest still gets several repetitions.
    sizes, positions = check_sizes([10, 100], n)
    assert protocol_repeats(sizes, positions, n, R).tolist() == [64, 20]


# ---------------------------------------------------------------------------
# Values: the whole set, subsamples without replacement, reproducibility
# ---------------------------------------------------------------------------


def test_whole_set_value_is_the_public_functions(global_random_seed):
    """Check that the value at all the rows is each public measure's value."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _calibrated(rng, 600, power=1.5)
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics=["expected_calibration_error", "smooth_ece", "brier_score_loss"],
        sizes=[50, 600],
        n_repeats=3,
        random_state=global_random_seed,
    )
    expected = {
        "expected_calibration_error": expected_calibration_error(y_true, y_prob),
        "smooth_ece": smooth_ece(y_true, y_prob),
        "brier_score_loss": brier_score_loss(y_true, y_prob),
    }
    for name, value in expected.items():
        assert_allclose(curve.full_value[name], value, rtol=1e-12, atol=1e-15)
        assert_allclose(
            curve.subsample_values[name][-1], [value], rtol=1e-12, atol=1e-15
        )
        assert curve.mean[name][-1] == curve.low[name][-1] == curve.high[name][-1]
        assert curve.std[name][-1] == 0.0
    assert curve.metrics == list(expected)
    assert isinstance(curve.full_value["smooth_ece"], float)


def test_subsamples_are_drawn_without_replacement(global_random_seed):
    """Check that each subsample has ``size`` distinct rows of the data."""
    rng = np.random.RandomState(global_random_seed)
    n = 300
    y_prob = rng.permutation(np.arange(1, n + 1) / (n + 1))  # distinct: row ids
    y_true = (rng.uniform(size=n) < y_prob).astype(int)
    spy = _Spy()
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics={"spy": spy},
        sizes=[5, 50, 299, 300],
        n_repeats=20,
        random_state=global_random_seed,
    )
    # The whole set first, then each subsample, size by size.
    calls = spy.calls[1:]
    assert len(calls) == curve.n_repeats[:-1].sum()
    start = 0
    for size, count in zip(curve.sizes[:-1], curve.n_repeats[:-1], strict=True):
        for y_sub, p_sub, _ in calls[start : start + count]:
            assert p_sub.shape == (size,)
            assert np.unique(p_sub).shape == (size,)  # no row twice
            rows = np.searchsorted(np.sort(y_prob), p_sub)
            assert_array_equal(np.sort(y_prob)[rows], p_sub)  # rows of the data
            assert_array_equal(y_sub, y_true[np.argsort(y_prob)][rows])
        start += count
    # Different subsamples at the same size.
    first = [p for _, p, _ in calls[: curve.n_repeats[0]]]
    assert len({tuple(p) for p in first}) > 1


def test_reference_protocol(global_random_seed):
    """Check every number against a direct implementation with the same draws."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _calibrated(rng, 500, power=2.0)
    sizes, n_repeats, quantiles = [20, 100, 500], 12, (0.1, 0.8)
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics=FAST,
        sizes=sizes,
        n_repeats=n_repeats,
        quantiles=quantiles,
        random_state=global_random_seed,
    )
    # The reference: the repetitions by the formula, subsamples drawn in the
    # same order from the same stream, the public functions on each.
    draw = np.random.RandomState(global_random_seed)
    functions = {
        "expected_calibration_error": lambda y, p: expected_calibration_error(
            y, p, labels=[0, 1]
        ),
        "brier_score_loss": lambda y, p: brier_score_loss(y, p, labels=[0, 1]),
    }
    for i, size in enumerate(sizes):
        t = math.log(size / 20) / math.log(500 / 20)
        count = round((1 + (math.sqrt(n_repeats) - 1) * (1 - t)) ** 2)
        assert curve.n_repeats[i] == count
        if size == 500:
            values = {k: [f(y_true, y_prob)] for k, f in functions.items()}
        else:
            values = {k: [] for k in functions}
            for _ in range(count):
                rows = np.sort(sample_without_replacement(500, size, random_state=draw))
                for k, f in functions.items():
                    values[k].append(f(y_true[rows], y_prob[rows]))
        for k, v in values.items():
            assert_allclose(curve.subsample_values[k][i], v, rtol=1e-12, atol=1e-15)
            assert_allclose(curve.mean[k][i], np.mean(v), rtol=1e-12)
            std = np.std(v, ddof=1) if len(v) > 1 else 0.0
            assert_allclose(curve.std[k][i], std, rtol=1e-10, atol=1e-15)
            assert_allclose(curve.low[k][i], np.quantile(v, 0.1), rtol=1e-12)
            assert_allclose(curve.high[k][i], np.quantile(v, 0.8), rtol=1e-12)
    assert curve.quantiles == (0.1, 0.8)


def test_reproducible_with_random_state():
    """Check that a seed reproduces the curve and a RandomState is advanced."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 400)
    options = {"metrics": FAST, "sizes": [30, 100], "n_repeats": 10}
    first = sample_size_curve(y_true, y_prob, random_state=7, **options)
    second = sample_size_curve(y_true, y_prob, random_state=7, **options)
    other = sample_size_curve(y_true, y_prob, random_state=8, **options)
    for name in FAST:
        for a, b, c in zip(
            first.subsample_values[name],
            second.subsample_values[name],
            other.subsample_values[name],
            strict=True,
        ):
            assert_array_equal(a, b)
            assert not np.array_equal(a, c)
    state = np.random.RandomState(7)
    from_state = sample_size_curve(y_true, y_prob, random_state=state, **options)
    assert_array_equal(
        from_state.mean["brier_score_loss"], first.mean["brier_score_loss"]
    )
    again = sample_size_curve(y_true, y_prob, random_state=state, **options)
    assert not np.array_equal(
        again.subsample_values["brier_score_loss"][0],
        first.subsample_values["brier_score_loss"][0],
    )


def test_single_subsample_of_fewer_rows_has_unknown_spread():
    """Check that one subsample of fewer rows than the data has a NaN std."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 200)
    curve = sample_size_curve(
        y_true, y_prob, metrics=FAST, sizes=[50, 200], n_repeats=1, random_state=0
    )
    assert curve.n_repeats.tolist() == [1, 1]
    assert np.isnan(curve.std["brier_score_loss"][0])
    assert curve.std["brier_score_loss"][1] == 0.0


# ---------------------------------------------------------------------------
# The paper's point: binned ECE biased upwards at small sizes, Brier flat
# ---------------------------------------------------------------------------


def _finite_population_se(losses, size, count):
    """The standard error of the mean of ``count`` subsample means of losses."""
    n = losses.shape[0]
    variance = losses.var() / size * (n - size) / (n - 1)
    return math.sqrt(variance / count)


def test_ece_falls_with_size_and_brier_is_flat(global_random_seed):
    """Check Proposition 3.3 of Gruber and Buettner against the Brier score.

    On a calibrated model the mean plug-in ECE falls with the size, convexly
    (the notes' check 15); the mean Brier score over subsamples equals its
    value on all rows at every size (check 16), within 4.5 exact standard
    errors of a mean of subsample means.
    """
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _calibrated(rng, 3000)
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics=FAST,
        sizes=[100, 300, 1000, 3000],
        n_repeats=100,
        random_state=global_random_seed,
    )
    ece = curve.mean["expected_calibration_error"]
    se = curve.std["expected_calibration_error"] / np.sqrt(curve.n_repeats)
    se[-1] = 0.0
    drops = np.diff(ece)
    assert np.all(-drops > 4 * np.hypot(se[:-1], se[1:]))
    assert -drops[0] > -drops[-1]  # convex: steeper at small sizes
    losses = (y_true - y_prob) ** 2
    brier = curve.mean["brier_score_loss"]
    full = curve.full_value["brier_score_loss"]
    for size, count, mean in zip(curve.sizes, curve.n_repeats, brier, strict=True):
        assert (
            abs(mean - full) <= 4.5 * _finite_population_se(losses, size, count) + 1e-12
        )
    # The spread of the Brier score is that of a mean of sampled rows (a
    # sample standard deviation of r values has a relative error of about
    # 1 / sqrt(2 (r - 1))).
    for size, count, std in zip(
        curve.sizes[:-1],
        curve.n_repeats[:-1],
        curve.std["brier_score_loss"][:-1],
        strict=True,
    ):
        expected = _finite_population_se(losses, size, 1)
        assert abs(std / expected - 1) < 4.5 / math.sqrt(2 * (count - 1))


def test_better_calibration_has_the_larger_bias(global_random_seed):
    """Check that the ECE rises more at small sizes for a calibrated model.

    Gruber and Buettner: "better calibration exacerbates ECE bias with
    respect to the data size".
    """
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _calibrated(rng, 3000)
    rises = []
    for predictions in (y_prob, y_prob**2.5):
        curve = sample_size_curve(
            y_true,
            predictions,
            metrics=["expected_calibration_error"],
            sizes=[100, 3000],
            n_repeats=100,
            random_state=global_random_seed,
        )
        ece = curve.mean["expected_calibration_error"]
        rises.append(ece[0] - ece[-1])
    assert rises[0] > rises[1] + 0.02


# ---------------------------------------------------------------------------
# Weights, labels, multiclass
# ---------------------------------------------------------------------------


def test_subsamples_keep_their_weights(global_random_seed):
    """Check that each subsample passes its rows' weights to the measures."""
    rng = np.random.RandomState(global_random_seed)
    n = 200
    y_prob = rng.permutation(np.arange(1, n + 1) / (n + 1))
    y_true = (rng.uniform(size=n) < y_prob).astype(int)
    weights = rng.uniform(0.5, 3.0, size=n)
    spy = _Spy()
    sample_size_curve(
        y_true,
        y_prob,
        metrics={"spy": spy},
        sizes=[10, 100],
        n_repeats=5,
        sample_weight=weights,
        random_state=0,
    )
    by_prob = dict(zip(y_prob, weights, strict=True))
    for _, p_sub, w_sub in spy.calls[1:]:
        given = np.array([by_prob[p] for p in p_sub])
        # The measures get the weights up to one common (power of two) scale.
        assert_allclose(w_sub / given, np.full(p_sub.shape, w_sub[0] / given[0]))


def test_weight_rules(global_random_seed):
    """Check: zero weight drops a row, scaling changes nothing, ones == None."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _calibrated(rng, 300)
    weights = rng.uniform(0.2, 2.0, size=300)
    options = {
        "metrics": FAST,
        "sizes": [40, 150],
        "n_repeats": 6,
        "random_state": global_random_seed,
    }
    weighted = sample_size_curve(y_true, y_prob, sample_weight=weights, **options)
    scaled = sample_size_curve(
        y_true, y_prob, sample_weight=weights * 1e-200, **options
    )
    padded = sample_size_curve(
        np.r_[y_true, [1, 0, 1]],
        np.r_[y_prob, [0.0, 1.0, 0.3]],
        sample_weight=np.r_[weights, [0.0, 0.0, 0.0]],
        **options,
    )
    assert padded.n_samples == weighted.n_samples == 300
    for other in (scaled, padded):
        for name in FAST:
            for a, b in zip(
                weighted.subsample_values[name],
                other.subsample_values[name],
                strict=True,
            ):
                assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    assert_allclose(
        weighted.full_value["brier_score_loss"],
        brier_score_loss(y_true, y_prob, sample_weight=weights),
        rtol=1e-12,
    )
    ones = sample_size_curve(y_true, y_prob, sample_weight=np.ones(300), **options)
    plain = sample_size_curve(y_true, y_prob, **options)
    for name in FAST:
        assert_allclose(ones.mean[name], plain.mean[name], rtol=1e-12)
    with pytest.raises(ValueError, match=r"sizes must lie in \[1, 300\]"):
        sample_size_curve(
            np.r_[y_true, [1]],
            np.r_[y_prob, [0.5]],
            sample_weight=np.r_[weights, [0.0]],
            sizes=[301],
        )


def test_string_labels_multiclass_and_one_vs_rest(global_random_seed):
    """Check string labels on three classes, top-label and one-vs-rest."""
    rng = np.random.RandomState(global_random_seed)
    n = 400
    y_prob = rng.dirichlet(np.ones(3), size=n)
    classes = np.array(["ant", "bee", "cat"])
    y_true = classes[[rng.choice(3, p=row) for row in y_prob]]
    metrics = [*FAST, "log_loss"]
    curve = sample_size_curve(
        y_true, y_prob, metrics=metrics, sizes=[4, 400], n_repeats=30, random_state=0
    )
    # Subsamples of 4 rows often lack a class: still every value is finite.
    assert all(np.isfinite(curve.subsample_values[m][0]).all() for m in metrics)
    assert_allclose(
        curve.full_value["expected_calibration_error"],
        expected_calibration_error(y_true, y_prob),
        rtol=1e-12,
    )
    assert_allclose(
        curve.full_value["brier_score_loss"],
        brier_score_loss(y_true, y_prob, labels=classes),
        rtol=1e-12,
    )
    assert_allclose(
        curve.full_value["log_loss"], log_loss(y_true, y_prob, labels=classes)
    )
    cat = sample_size_curve(y_true, y_prob, metrics=FAST, pos_label="cat", sizes=[400])
    assert_allclose(
        cat.full_value["expected_calibration_error"],
        expected_calibration_error(y_true, y_prob, pos_label="cat"),
        rtol=1e-12,
    )


def test_subsample_of_one_class_is_valid():
    """Check a binary problem whose small subsamples hold a single class."""
    y_true = np.array(["no"] * 199 + ["yes"])
    y_prob = np.linspace(0.01, 0.3, 200)
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics=FAST,
        pos_label="yes",
        sizes=[3, 200],
        n_repeats=20,
        random_state=0,
    )
    assert all(np.isfinite(curve.subsample_values[m][0]).all() for m in FAST)
    # Most subsamples lack "yes": their Brier score is the mean of p**2.
    assert np.min(curve.subsample_values["brier_score_loss"][0]) < 0.1


def test_inputs_are_not_modified_and_containers_agree():
    """Check that lists, arrays and pandas objects give the same curve."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 200)
    weights = rng.uniform(size=200)
    copies = [a.copy() for a in (y_true, y_prob, weights)]
    options = {"metrics": FAST, "sizes": [20, 200], "n_repeats": 5, "random_state": 1}
    from_arrays = sample_size_curve(y_true, y_prob, sample_weight=weights, **options)
    for original, copy in zip((y_true, y_prob, weights), copies, strict=True):
        assert_array_equal(original, copy)
    from_lists = sample_size_curve(
        list(y_true), list(y_prob), sample_weight=list(weights), **options
    )
    from_pandas = sample_size_curve(
        pd.Series(y_true),
        pd.Series(y_prob),
        sample_weight=pd.Series(weights),
        **options,
    )
    for other in (from_lists, from_pandas):
        for name in FAST:
            assert_allclose(from_arrays.mean[name], other.mean[name], rtol=1e-12)


def test_custom_callables_and_verbose(capsys):
    """Check a dict of named callables and the progress line of verbose=True."""
    from functools import partial

    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 300)
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics={"ECE 5 bins": partial(expected_calibration_error, n_bins=5)},
        sizes=[30, 300],
        n_repeats=4,
        random_state=0,
        verbose=True,
    )
    assert curve.metrics == ["ECE 5 bins"]
    assert_allclose(
        curve.full_value["ECE 5 bins"],
        expected_calibration_error(y_true, y_prob, n_bins=5),
    )
    assert "sample sizes: 5 subsamples of 300 rows" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@settings(max_examples=30)
@given(
    n=st.integers(2, 60),
    n_repeats=st.integers(1, 30),
    min_size=st.integers(1, 60),
    n_sizes=st.integers(1, 12),
    seed=st.integers(0, 2**16),
)
def test_protocol_properties(n, n_repeats, min_size, n_sizes, seed):
    """Check sizes in range and increasing, repetitions from R down to 1."""
    rng = np.random.RandomState(seed)
    y_true, y_prob = _calibrated(rng, n)
    if min_size > n:
        with pytest.raises(ValueError, match="min_size"):
            sample_size_curve(y_true, y_prob, min_size=min_size)
        return
    curve = sample_size_curve(
        y_true,
        y_prob,
        metrics=["brier_score_loss"],
        sizes=n_sizes,
        min_size=min_size,
        n_repeats=n_repeats,
        random_state=seed,
    )
    sizes, repeats = curve.sizes, curve.n_repeats
    assert np.all(np.diff(sizes) > 0) and sizes[-1] == n
    assert sizes[0] == (n if n_sizes == 1 else min_size)
    assert np.all(np.diff(repeats) <= 0) and repeats[-1] == 1
    if sizes[0] < n:
        assert repeats[0] == n_repeats
    values = curve.subsample_values["brier_score_loss"]
    for v, low, high, mean in zip(
        values,
        curve.low["brier_score_loss"],
        curve.high["brier_score_loss"],
        curve.mean["brier_score_loss"],
        strict=True,
    ):
        assert v.min() <= low <= high <= v.max()
        assert v.min() - 1e-15 <= mean <= v.max() + 1e-15
    assert_allclose(values[-1], [brier_score_loss(y_true, y_prob, labels=[0, 1])])


# ---------------------------------------------------------------------------
# Rejections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"sizes": [0, 10]}, ValueError, r"sizes must lie in \[1, 50\] .*; 1 value"),
        ({"sizes": [10, 51, 60]}, ValueError, r"2 value\(s\) are outside"),
        ({"sizes": [2.5, 10]}, ValueError, r"integers; 1 value\(s\) are not"),
        ({"sizes": [np.nan]}, ValueError, r"integers; 1 value\(s\) are not"),
        ({"sizes": [[10, 20]]}, ValueError, "non-empty 1-D array"),
        ({"sizes": []}, ValueError, "non-empty 1-D array"),
        ({"sizes": ["a", "b"]}, TypeError, "sizes must hold integers"),
        ({"sizes": [True]}, TypeError, "sizes must hold integers"),
        ({"sizes": 0}, InvalidParameterError, "'sizes' parameter"),
        ({"min_size": 51}, ValueError, "min_size=51 exceeds the 50 rows"),
        ({"min_size": 0}, InvalidParameterError, "'min_size' parameter"),
        ({"n_repeats": 0}, InvalidParameterError, "'n_repeats' parameter"),
        ({"metrics": "brier_score_loss"}, InvalidParameterError, "'metrics'"),
        ({"metrics": ["ece"]}, ValueError, "Unknown metric 'ece'"),
        ({"metrics": []}, ValueError, "metrics is empty"),
        ({"metrics": [3]}, TypeError, "must be a name or a callable"),
        ({"quantiles": (0.9, 0.1)}, ValueError, "0 <= low <= high <= 1"),
        ({"quantiles": (-0.1, 0.5)}, ValueError, "0 <= low <= high <= 1"),
        ({"quantiles": (0.1,)}, ValueError, "two numbers"),
        ({"quantiles": ("a", "b")}, ValueError, "two numbers"),
        ({"quantiles": 0.9}, InvalidParameterError, "'quantiles' parameter"),
        ({"random_state": "seed"}, InvalidParameterError, "'random_state'"),
        ({"verbose": "yes"}, InvalidParameterError, "'verbose' parameter"),
    ],
)
def test_rejections(options, error, match):
    """Check that invalid options raise errors naming them."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _calibrated(rng, 50)
    with pytest.raises(error, match=match):
        sample_size_curve(y_true, y_prob, **options)


def test_invalid_data_is_rejected():
    """Check that the data contract of the measures applies."""
    with pytest.raises(ValueError, match="outside"):
        sample_size_curve([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        sample_size_curve([0, 1, 1], [0.5, 0.5])
    with pytest.raises(ValueError, match="pos_label"):
        sample_size_curve(["a", "b", "a"], [0.5, 0.2, 0.4])
