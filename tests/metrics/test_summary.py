"""CalibrationSummary against the in-memory measures, and its stated bounds."""

import itertools
import pickle

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss

from skcal.metrics import (
    CalibrationSummary,
    binned_calibration_error,
    calibration_decomposition,
    cutoff_calibration_error,
    reliability_table,
    smooth_calibration_error,
    smooth_ece,
    smooth_reliability_curve,
)
from skcal.metrics._smooth_ece import _residual_nodes_per_sigma

RTOL, ATOL = 1e-12, 1e-15


def _binary(n=3000, seed=0, weighted=True):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, size=n)
    y = (rng.uniform(size=n) < p**1.3 + 0.1 * np.sin(9 * p)).astype(int)
    w = rng.exponential(size=n) if weighted else None
    if weighted:
        w[rng.uniform(size=n) < 0.05] = 0.0
    return y, p, w


def _multiclass(n=3000, k=4, seed=1):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 2
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row**1.5 / (row**1.5).sum()) for row in probs])
    return y, probs, rng.exponential(size=n)


def _splits(n, seed=2):
    """Uneven batch boundaries, with an empty batch among them."""
    cuts = np.sort(np.random.default_rng(seed).choice(n, size=5, replace=False))
    return np.sort(np.concatenate(([0], cuts, cuts[2:3], [n])))


def _summary(y, p, w, **options):
    """A summary updated batch by batch, with batches merged in two halves."""
    bounds = _splits(len(y))
    halves = [CalibrationSummary(**options), CalibrationSummary(**options)]
    for j, (a, b) in enumerate(itertools.pairwise(bounds)):
        halves[j % 2].update(y[a:b], p[a:b], None if w is None else w[a:b])
    return halves[0].merge(halves[1])


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


DATA = {
    "binary": (_binary(), {}),
    "unweighted": (_binary(weighted=False), {}),
    "top_label": (_multiclass(), {}),
    "classwise": (_multiclass(), {"reduction": "classwise"}),
}


@pytest.mark.parametrize("case", list(DATA))
def test_exact_measures_equal_the_in_memory_ones(case):
    (y, p, w), options = DATA[case]
    summary = _summary(y, p, w, **options)
    kw = {"sample_weight": w, "reduction": options.get("reduction", "auto")}
    for n_bins, norm, debias in [
        (15, "l1", False),
        (10, "l2", True),
        (20, "max", False),
    ]:
        _close(
            summary.binned_calibration_error(n_bins=n_bins, norm=norm, debias=debias),
            binned_calibration_error(
                y, p, n_bins=n_bins, norm=norm, debias=debias, **kw
            ),
        )
    _close(summary.smooth_ece(), smooth_ece(y, p, **kw))
    _close(
        summary.smooth_calibration_error(),
        smooth_calibration_error(y, p, method="grid", n_grid=summary.n_cells, **kw),
    )
    for loss in ("brier", "log"):
        expected = calibration_decomposition(
            y,
            p,
            sample_weight=w,
            method="binned",
            loss=loss,
            reduction=summary.reduction_,
        )
        got = summary.calibration_decomposition(loss=loss)
        for term in ("score", "miscalibration", "discrimination", "uncertainty"):
            _close(got[term], expected[term])
    _close(summary.brier_score_loss(), brier_score_loss(y, p, sample_weight=w))
    _close(summary.log_loss(), log_loss(y, p, sample_weight=w))


@pytest.mark.parametrize("case", ["binary", "unweighted", "top_label"])
def test_table_and_curve_equal_the_in_memory_ones(case):
    (y, p, w), _ = DATA[case]
    summary = _summary(y, p, w)
    table = reliability_table(y, p, sample_weight=w, n_bins=12)
    got = summary.reliability_table(n_bins=12)
    assert list(got) == list(table)
    for key in table:
        _close(got[key], table[key])
    curve = smooth_reliability_curve(y, p, sample_weight=w, n_points=51)
    got = summary.smooth_reliability_curve(n_points=51)
    for key in ("grid", "calibration", "density", "n_effective", "mean_prediction"):
        np.testing.assert_allclose(got[key], curve[key], rtol=1e-10, atol=1e-12)
    assert got.prediction_range == curve.prediction_range
    _close(got.sigma, curve.sigma)


def test_per_class_values():
    (y, p, w), options = DATA["classwise"]
    summary = _summary(y, p, w, **options)
    _close(
        summary.expected_calibration_error(return_per_class=True),
        binned_calibration_error(
            y, p, sample_weight=w, reduction="classwise", return_per_class=True
        ),
    )
    values, sigmas = summary.smooth_ece(return_per_class=True, return_sigma=True)
    assert values.shape == sigmas.shape == (4,)
    with pytest.raises(ValueError, match="one binary view"):
        summary.reliability_table()
    with pytest.raises(ValueError, match='reduction="classwise"'):
        _summary(*DATA["binary"][0]).smooth_ece(return_per_class=True)


def test_weights_of_very_different_scales_across_batches():
    y, p, w = _binary(weighted=True)
    w = w.copy()
    w[:1000] *= 2.0**700  # a batch of huge weights, then ordinary ones
    summary = CalibrationSummary(eps=None)
    summary.update(y[1000:], p[1000:], w[1000:]).update(y[:1000], p[:1000], w[:1000])
    _close(
        summary.binned_calibration_error(norm="l2", debias=True),
        binned_calibration_error(y, p, sample_weight=w, norm="l2", debias=True),
    )
    table = summary.reliability_table()
    np.testing.assert_allclose(
        table.weight, reliability_table(y, p, sample_weight=w).weight
    )


def test_merge_does_not_depend_on_the_split_and_leaves_its_inputs():
    y, p, w = _binary()
    whole = CalibrationSummary().update(y, p, w)
    first = CalibrationSummary().update(y[:100], p[:100], w[:100])
    second = CalibrationSummary().update(y[100:], p[100:], w[100:])
    state = pickle.dumps(first)
    merged = second.merge(first)
    assert pickle.dumps(first) == state
    assert merged.n_samples_ == whole.n_samples_ == len(y)
    _close(merged.smooth_ece(), whole.smooth_ece())
    _close(merged.cutoff_calibration_error(), whole.cutoff_calibration_error())
    assert CalibrationSummary().merge(first).n_samples_ == 100


def test_pickle_size_does_not_grow_with_the_rows():
    sizes = []
    for n in (1000, 100_000):
        y, p, w = _binary(n=n)
        summary = CalibrationSummary(n_cells=600, eps=0.01).update(y, p, w)
        restored = pickle.loads(pickle.dumps(summary))
        _close(
            restored.expected_calibration_error(), summary.expected_calibration_error()
        )
        sizes.append(len(pickle.dumps(summary)))
    assert abs(sizes[0] - sizes[1]) < 16 and sizes[1] < 400_000


@pytest.mark.parametrize(
    "setting, message",
    [
        ({"n_cells": 300}, "n_cells=100800 and 300"),
        ({"eps": 0.01}, "eps"),
        ({"scores": False}, "scores"),
        ({"reduction": "classwise"}, "reduction"),
        ({"labels": [0, 1]}, "labels"),
    ],
)
def test_merge_refuses_a_different_configuration(setting, message):
    with pytest.raises(ValueError, match=message):
        CalibrationSummary().merge(CalibrationSummary(**setting))


def test_merge_refuses_different_classes_and_non_summaries():
    a = CalibrationSummary().update([0, 1, 2], np.eye(3))
    b = CalibrationSummary().update([0, 1, 3], np.eye(3))
    with pytest.raises(ValueError, match="pass labels="):
        a.merge(b)
    with pytest.raises(TypeError, match="CalibrationSummary"):
        a.merge("summary")


def test_batches_that_add_nothing():
    summary = CalibrationSummary()
    summary.update([], []).update([0, 1], [0.2, 0.7], [0.0, 0.0])
    with pytest.raises(ValueError, match="seen no row"):
        summary.expected_calibration_error()
    summary.update([1], [0.9])
    assert summary.n_samples_ == 1
    assert summary.classes_.tolist() == [0, 1]


def test_one_class_batches_keep_the_classes():
    summary = CalibrationSummary().update([1, 1], [0.8, 0.9]).update([0], [0.2])
    _close(summary.expected_calibration_error(), 0.5 / 3)
    strings = CalibrationSummary(pos_label="spam")
    strings.update(["spam"], [0.8]).update(["ham"], [0.3])
    assert strings.classes_.tolist() == ["ham", "spam"]
    with pytest.raises(ValueError, match="not among"):
        strings.update(["eggs"], [0.5])


@pytest.mark.parametrize(
    "batch, message",
    [
        (([0, 1], [0.2, np.nan]), "NaN"),
        (([0, 1], [0.2, 1.5]), r"\[0, 1\]"),
        (([0, 1], [0.2]), "samples"),
        (([0, 1], [0.2, 0.3], [1.0, -1.0]), "negative"),
        (([0, 2], [0.2, 0.3]), "not among"),
    ],
)
def test_bad_batches_are_refused_as_by_the_measures(batch, message):
    summary = CalibrationSummary().update([0, 1], [0.4, 0.6])
    before = pickle.dumps(summary)
    with pytest.raises(ValueError, match=message):
        summary.update(*batch)
    assert pickle.dumps(summary) == before


def test_inputs_are_not_modified():
    y, p, w = _binary()
    copies = [a.copy() for a in (y, p, w)]
    CalibrationSummary().update(y, p, w)
    for a, b in zip((y, p, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)


def test_unavailable_parts_and_bins_say_why():
    y, p, _ = _binary()
    lean = CalibrationSummary(eps=None, scores=False, n_cells=100).update(y, p)
    with pytest.raises(ValueError, match="eps=None"):
        lean.smooth_ece()
    with pytest.raises(ValueError, match="scores=False"):
        lean.log_loss()
    with pytest.raises(ValueError, match="does not divide"):
        lean.expected_calibration_error(n_bins=15)
    with pytest.raises(ValueError, match="debias"):
        lean.binned_calibration_error(debias=True)
    with pytest.raises(ValueError, match="n_cells"):
        CalibrationSummary(n_cells=0)


# --------------------------------------------------------------------------
# Bounds, on data built to be hard for them
# --------------------------------------------------------------------------


def _crowded(n=4000, seed=3):
    """Predictions crowded inside two cells, under- then over-predicting."""
    rng = np.random.default_rng(seed)
    centre = rng.choice([0.301, 0.6042], size=n)
    offset = rng.uniform(0, 1e-4, size=n)
    p = centre + offset
    # Within a cell, the lower half of the predictions come true and the
    # upper half do not: residuals cancel over the cell, not over its halves.
    y = (offset < 5e-5).astype(int)
    return y, p, rng.exponential(size=n)


@pytest.mark.parametrize("data", [_crowded(), _binary()], ids=["crowded", "spread"])
@pytest.mark.parametrize("n_cells", [10, 1000])
def test_cutoff_bound(data, n_cells):
    y, p, w = data
    summary = CalibrationSummary(n_cells=n_cells, eps=None).update(y, p, w)
    value, bound = summary.cutoff_calibration_error(return_bound=True)
    exact = cutoff_calibration_error(y, p, sample_weight=w)
    assert value <= exact + 1e-12
    assert exact - value <= bound + 1e-12
    if n_cells == 10 and len(y) == 4000:
        assert exact - value > 0.25 * bound  # the data do make it bite


@pytest.mark.parametrize("data", [_crowded(), _binary()], ids=["crowded", "spread"])
@pytest.mark.parametrize("n_cells", [7, 1000])
def test_smooth_calibration_bound(data, n_cells):
    y, p, w = data
    summary = CalibrationSummary(n_cells=n_cells, eps=None).update(y, p, w)
    value, bound = summary.smooth_calibration_error(return_bound=True)
    exact = smooth_calibration_error(y, p, sample_weight=w, method="exact")
    assert abs(value - exact) <= bound + 1e-12


@pytest.mark.parametrize("sigma", [0.002, 0.05, 0.3])
def test_smooth_ece_bound_at_a_given_bandwidth(sigma):
    y, p, w = _crowded()
    summary = CalibrationSummary(eps=0.01).update(y, p, w)
    got = summary.smooth_ece(sigma=sigma)
    expected = smooth_ece(y, p, sample_weight=w, sigma=sigma)
    mean_abs = np.average(np.abs(p - y), weights=w)
    m_summary = summary._state.kernel.shape[-1] - 1
    # Both grids have at least this many intervals per bandwidth.
    per_sigma = _residual_nodes_per_sigma(mean_abs, 1.0)
    m_summary = max(min(m_summary, per_sigma / sigma), 256)
    m_memory = max(per_sigma / sigma, 256)
    bound = 0.242 * (m_summary**-2 + m_memory**-2) / sigma**2 * mean_abs
    assert abs(got - expected) <= bound


@pytest.mark.parametrize("data", [_crowded(), _binary()], ids=["crowded", "spread"])
def test_quantile_rank_error_bound(data):
    y, p, w = data
    n_cells, n_bins = 50, 8
    summary = CalibrationSummary(n_cells=n_cells, eps=None).update(y, p, w)
    edges = summary.reliability_table(n_bins=n_bins, strategy="quantile").bin_upper
    exact = reliability_table(
        y, p, sample_weight=w, n_bins=n_bins, strategy="quantile"
    ).bin_upper
    share = (
        np.bincount(
            np.minimum((np.ceil(p * n_cells) - 1).astype(int), n_cells - 1),
            weights=w,
            minlength=n_cells,
        )
        / w.sum()
    )

    def rank(edge):
        return w[p <= edge].sum() / w.sum()

    exact_ranks = [rank(e) for e in exact[:-1]]
    for edge in edges[:-1]:
        nearest = min(exact_ranks, key=lambda r: abs(r - rank(edge)))
        assert abs(rank(edge) - nearest) <= share.max() + 1e-12
