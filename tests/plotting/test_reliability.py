"""Tests of the smooth and binned reliability diagrams."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import norm

from skcal.metrics import (
    expected_calibration_error,
    reliability_table,
    smooth_ece,
    smooth_reliability_curve,
)
from skcal.plotting import ReliabilityDisplay
from skcal.plotting._compute import _Atoms, smooth_bootstrap, wilson_interval


def _binary(rng, n=600):
    """Miscalibrated binary predictions: the event rate is p**1.5."""
    y_prob = rng.beta(2.0, 3.0, size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.5).astype(int)
    return y_true, y_prob


def _multiclass(rng, n=600, k=3):
    y_prob = rng.dirichlet(np.full(k, 0.7), size=n)
    y_true = np.array([rng.choice(k, p=row**2 / (row**2).sum()) for row in y_prob])
    return y_true, y_prob


# ---------------------------------------------------------------------------
# Smooth diagram
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("problem", ["binary", "multiclass", "weighted"])
def test_smooth_arrays_are_the_metric(pyplot, global_random_seed, problem):
    """Check that the curve, density, sigma and SmoothECE are the metric's."""
    rng = np.random.RandomState(global_random_seed)
    if problem == "multiclass":
        y_true, y_prob = _multiclass(rng)
    else:
        y_true, y_prob = _binary(rng)
    weights = rng.uniform(0.2, 3.0, size=600) if problem == "weighted" else None
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, sample_weight=weights, n_bootstrap=10, random_state=0
    )
    expected = smooth_reliability_curve(y_true, y_prob, sample_weight=weights)
    assert_array_equal(display.grid, expected.grid)
    assert_array_equal(display.curve, expected.calibration)
    assert_array_equal(display.density, expected.density)
    assert display.sigma == expected.sigma
    assert display.smooth_ece == expected.smooth_ece
    assert display.smooth_ece == smooth_ece(y_true, y_prob, sample_weight=weights)
    assert display.reduction == ("top_label" if problem == "multiclass" else "positive")
    assert display.kind == "smooth" and display.table is None


def test_smooth_band_contains_the_curve(pyplot, global_random_seed):
    """Check that the bootstrap band contains the curve and has positive width."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _binary(rng, n=1000)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=50, random_state=global_random_seed
    )
    defined = np.isfinite(display.curve)
    assert defined.sum() > 150
    assert_array_equal(np.isfinite(display.band_low), defined)
    low, high = display.band_low[defined], display.band_high[defined]
    curve = display.curve[defined]
    assert np.all(low <= curve) and np.all(curve <= high)
    assert np.all(high - low > 0)
    # The band is narrow where the predictions are dense.
    density = display.density[defined]
    dense = density >= np.quantile(density, 0.9)
    sparse = density <= np.quantile(density, 0.1)
    assert np.mean((high - low)[dense]) < np.mean((high - low)[sparse])
    # The SmoothECE interval of a miscalibrated model contains the estimate.
    lo, hi = display.smooth_ece_ci
    assert lo < display.smooth_ece < hi


def test_smooth_bootstrap_replicates_are_resampled_metrics(global_random_seed):
    """Check that each replicate is the metric on resampled rows, at the same sigma.

    With predictions on a few distinct values, the rows of an atom are
    identical, so the multinomial atom counts are an exact resample: giving
    each atom's count to one of its rows reproduces it.
    """
    rng = np.random.RandomState(global_random_seed)
    n = 400
    y_prob = rng.choice([0.0, 0.15, 0.3, 0.55, 0.8, 1.0], size=n)
    y_true = (rng.uniform(size=n) < y_prob**1.3).astype(np.uint8)
    bandwidth = smooth_reliability_curve(y_true, y_prob).sigma
    for sigma in ("auto", 0.07):
        used = bandwidth if sigma == "auto" else sigma
        curves, values = smooth_bootstrap(
            y_true,
            y_prob,
            None,
            sigma=sigma,
            bandwidth=used,
            eps=1e-3,
            n_points=51,
            n_bootstrap=5,
            rng=np.random.RandomState(global_random_seed),
        )
        # The same draws, row by row.
        replay = np.random.RandomState(global_random_seed)
        assert curves.shape == (5, 51) and values.shape == (5,)
        for b in range(5):
            atoms = _replay_atoms(y_true, y_prob, used)
            weight = atoms.resample(replay)
            rows = np.zeros(n)
            first = np.unique(atoms.inverse, return_index=True)[1]
            rows[first] = weight
            expected = smooth_reliability_curve(
                y_true, y_prob, sample_weight=rows, sigma=used, n_points=51
            )
            assert_allclose(curves[b], expected.calibration, atol=1e-4)
            value = smooth_ece(y_true, y_prob, sample_weight=rows, sigma=sigma)
            # The fixed point is found within eps = 1e-3 on either grid.
            assert_allclose(values[b], value, atol=1e-4 if sigma != "auto" else 1e-3)


def _replay_atoms(y, p, bandwidth):
    """The atoms smooth_bootstrap builds (its grid, cell and outcome keys)."""
    from scipy import fft

    import skcal.plotting._compute as compute

    needed = int(np.ceil(compute._BOOTSTRAP_NODES_PER_SIGMA / (0.5 * bandwidth)))
    n_intervals = fft.next_fast_len(max(needed, compute._MIN_NODES))
    cell = (p * n_intervals).astype(np.intp)
    return _Atoms(2 * cell + y, None)


def test_atoms_resample_is_a_bootstrap(global_random_seed):
    """Check that atom totals have the moments of a bootstrap of the rows."""
    rng = np.random.RandomState(global_random_seed)
    key = rng.randint(0, 5, size=200)
    weights = rng.choice([0.5, 2.0], size=200)
    atoms = _Atoms(key, weights)
    draws = np.array([atoms.resample(rng) for _ in range(2000)])
    assert_allclose(draws.sum(axis=1).mean(), weights.sum(), rtol=0.02)
    # The total of each atom is weight * Binomial(n, rows / n).
    n_rows = atoms.n_rows
    assert_allclose(draws.mean(axis=0), atoms.weight * n_rows, rtol=0.1)
    variance = atoms.weight**2 * n_rows * (1 - n_rows / 200)
    assert_allclose(draws.var(axis=0), variance, rtol=0.25)
    # Drawing rows (many atoms) and multinomial counts (few) agree in law.
    many = _Atoms(np.arange(200), weights)
    draws_rows = np.array([many.resample(rng) for _ in range(2000)])
    assert_allclose(draws_rows.mean(axis=0).mean(), weights.mean(), rtol=0.05)
    assert_allclose(draws_rows.var(axis=0).mean(), np.mean(weights**2), rtol=0.1)


def test_smooth_without_bootstrap(pyplot):
    """Check that n_bootstrap=0 gives no band and no interval."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(y_true, y_prob, n_bootstrap=0)
    assert display.band_low is None and display.band_high is None
    assert display.smooth_ece_ci is None
    assert display.band_ is None
    label = display.ax_.get_legend().get_texts()[0].get_text()
    assert label == f"SmoothECE = {display.smooth_ece:.3f}"


def test_smooth_given_sigma(pyplot):
    """Check that a given bandwidth is used for the curve and the band."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, sigma=0.1, n_bootstrap=20, random_state=0
    )
    expected = smooth_reliability_curve(y_true, y_prob, sigma=0.1)
    assert display.sigma == 0.1
    assert_array_equal(display.curve, expected.calibration)
    assert display.smooth_ece == smooth_ece(y_true, y_prob, sigma=0.1)


def test_smooth_line_width_follows_density(pyplot):
    """Check that the segment widths are proportional to the density, floored."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=0, line_kwargs={"lw": 6.0}
    )
    widths = np.asarray(display.line_.get_linewidths())
    middle = 0.5 * (display.density[:-1] + display.density[1:])
    expected = np.maximum(6.0 * middle / middle.max(), 0.5)
    assert_allclose(widths, expected)
    assert_allclose(widths.max(), 6.0)
    segments = display.line_.get_segments()
    assert len(segments) == 200
    assert_allclose(
        segments[10], [[0.05, display.curve[10]], [0.055, display.curve[11]]]
    )


def test_smooth_legend_text(pyplot):
    """Check the legend: name, SmoothECE and its bootstrap interval."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=20, random_state=0, name="model"
    )
    lo, hi = display.smooth_ece_ci
    text = display.ax_.get_legend().get_texts()[0].get_text()
    assert text == (
        f"model (SmoothECE = {display.smooth_ece:.3f} [{lo:.3f}, {hi:.3f}])"
    )
    assert display.plot(name="other").ax_.get_legend().get_texts()[0].get_text() == (
        f"other (SmoothECE = {display.smooth_ece:.3f} [{lo:.3f}, {hi:.3f}])"
    )


def test_random_state_makes_the_band_reproducible(pyplot):
    """Check that random_state fixes the band and that seeds change it."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    a, b, c = (
        ReliabilityDisplay.from_predictions(
            y_true, y_prob, n_bootstrap=20, random_state=seed
        )
        for seed in (1, 1, 2)
    )
    assert_array_equal(a.band_low, b.band_low)
    assert a.smooth_ece_ci == b.smooth_ece_ci
    assert not np.array_equal(a.band_low, c.band_low, equal_nan=True)


# ---------------------------------------------------------------------------
# Binned diagram
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("problem", ["binary", "multiclass", "weighted"])
def test_binned_table_is_reliability_table(
    pyplot, global_random_seed, strategy, problem
):
    """Check that the table and ECE are reliability_table's and the metric's."""
    rng = np.random.RandomState(global_random_seed)
    if problem == "multiclass":
        y_true, y_prob = _multiclass(rng)
    else:
        y_true, y_prob = _binary(rng)
    weights = rng.uniform(0.2, 3.0, size=600) if problem == "weighted" else None
    options = dict(sample_weight=weights, n_bins=12, strategy=strategy)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, kind="binned", **options
    )
    expected = reliability_table(y_true, y_prob, **options)
    assert set(display.table) == set(expected)
    for key in expected:
        assert_array_equal(display.table[key], expected[key], err_msg=key)
    assert display.ece == expected_calibration_error(y_true, y_prob, **options)
    line_x, line_y = display.line_.get_data()
    assert_array_equal(line_x, expected.mean_predicted)
    assert_array_equal(line_y, expected.event_rate)
    text = display.ax_.get_legend().get_texts()[0].get_text()
    assert text == f"ECE = {display.ece:.3f}"
    assert display.curve is None and display.smooth_ece is None


def test_binned_empty_bins_are_absent(pyplot, global_random_seed):
    """Check that empty bins are NaN in the table, line and intervals, not 0."""
    rng = np.random.RandomState(global_random_seed)
    y_prob = rng.uniform(0.0, 0.38, size=300)
    y_prob[:50] = rng.uniform(0.82, 1.0, size=50)
    y_true = (rng.uniform(size=300) < y_prob).astype(int)
    for interval in ("wilson", "bootstrap"):
        display = ReliabilityDisplay.from_predictions(
            y_true,
            y_prob,
            kind="binned",
            n_bins=10,
            interval=interval,
            n_bootstrap=30,
            random_state=0,
        )
        empty = display.table.weight == 0
        assert_array_equal(np.flatnonzero(empty), [4, 5, 6, 7])
        assert np.isnan(display.table.event_rate[empty]).all()
        assert np.isnan(display.line_.get_ydata()[empty]).all()
        assert np.isnan(display.interval_low[empty]).all()
        assert np.isnan(display.interval_high[empty]).all()
        assert np.isfinite(display.interval_low[~empty]).all()
        # The counts strip: bar heights follow the weights, 0 for empty bins.
        heights = np.array([bar.get_height() for bar in display.hist_])
        weight = display.table.weight
        assert_allclose(heights, 0.2 * weight / weight.max())
        assert_array_equal(heights[empty], 0.0)
        # Intervals are drawn only for the non-empty bins.
        (bars,) = display.errorbar_.lines[2]
        assert len(bars.get_segments()) == (~empty).sum()


def _wilson_reference(successes, n, z):
    """The Wilson interval as the roots of (r - p)**2 = z**2 p (1 - p) / n."""
    r = successes / n
    # (1 + z^2/n) p^2 - (2 r + z^2/n) p + r^2 = 0
    roots = np.roots([1 + z**2 / n, -(2 * r + z**2 / n), r**2])
    return np.sort(roots.real)


def test_wilson_interval_reference():
    """Check the Wilson score interval against the roots of its defining quadratic."""
    z = norm.ppf(0.975)
    for successes, n in [(0, 5), (3, 10), (10, 10), (47, 100), (1, 1)]:
        low, high = wilson_interval(np.array([successes / n]), np.array([n]), 0.95)
        assert_allclose([low[0], high[0]], _wilson_reference(successes, n, z))
    low, high = wilson_interval(np.array([np.nan, 0.5]), np.array([0, 0]), 0.95)
    assert np.isnan(low).all() and np.isnan(high).all()


def test_binned_wilson_intervals(pyplot, global_random_seed):
    """Check per-bin Wilson intervals: counts unweighted, Kish size when weighted."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, kind="binned", n_bins=8, confidence_level=0.9
    )
    table = display.table
    low, high = wilson_interval(table.event_rate, table.count, 0.9)
    assert_allclose(display.interval_low, low, atol=1e-15, equal_nan=True)
    assert_allclose(display.interval_high, high, atol=1e-15, equal_nan=True)
    nonempty = table.weight > 0
    rate = table.event_rate[nonempty]
    assert np.all(display.interval_low[nonempty] <= rate)
    assert np.all(rate <= display.interval_high[nonempty])
    # Equal weights: the effective size is the count, so nothing changes.
    same = ReliabilityDisplay.from_predictions(
        y_true,
        y_prob,
        sample_weight=np.full(600, 3.7),
        kind="binned",
        n_bins=8,
        confidence_level=0.9,
    )
    assert_allclose(same.interval_low, display.interval_low, atol=1e-15, equal_nan=True)
    # Unequal weights: (sum w)**2 / sum w**2 rows per bin.
    weights = rng.uniform(0.1, 5.0, size=600)
    weighted = ReliabilityDisplay.from_predictions(
        y_true, y_prob, sample_weight=weights, kind="binned", n_bins=8
    )
    bins = np.minimum(np.ceil(y_prob * 8).astype(int) - 1, 7).clip(0)
    total = np.bincount(bins, weights=weights, minlength=8)
    squares = np.bincount(bins, weights=weights**2, minlength=8)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(total > 0, total**2 / squares, 0.0)
    low, _ = wilson_interval(weighted.table.event_rate, n_eff, 0.95)
    assert_allclose(weighted.interval_low, low, atol=1e-15, equal_nan=True)


def test_binned_bootstrap_intervals(pyplot, global_random_seed):
    """Check that bootstrap intervals of large bins are close to Wilson's."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _binary(rng, n=3000)
    options = dict(kind="binned", n_bins=5)
    boot = ReliabilityDisplay.from_predictions(
        y_true, y_prob, interval="bootstrap", n_bootstrap=300, random_state=0, **options
    )
    wilson = ReliabilityDisplay.from_predictions(y_true, y_prob, **options)
    large = boot.table.count >= 200
    assert large.sum() >= 3
    width_boot = (boot.interval_high - boot.interval_low)[large]
    width_wilson = (wilson.interval_high - wilson.interval_low)[large]
    assert_allclose(width_boot, width_wilson, rtol=0.25)
    rate = boot.table.event_rate[large]
    assert np.all(boot.interval_low[large] <= rate)
    assert np.all(rate <= boot.interval_high[large])


def test_binned_without_intervals_or_counts(pyplot):
    """Check that interval=None and show_counts=False draw neither."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, kind="binned", interval=None, show_counts=False
    )
    assert display.interval_low is None and display.errorbar_ is None
    assert display.hist_ is None
    assert len(display.ax_.patches) == 0
    with pytest.raises(ValueError, match='interval="bootstrap" needs n_bootstrap'):
        ReliabilityDisplay.from_predictions(
            y_true, y_prob, kind="binned", interval="bootstrap", n_bootstrap=0
        )


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def test_top_label_is_the_multiclass_default(pyplot, global_random_seed):
    """Check that a multiclass model is drawn as confidence against correctness."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _multiclass(rng)
    display = ReliabilityDisplay.from_predictions(y_true, y_prob, n_bootstrap=5)
    confidence = y_prob.max(axis=1)
    correct = (y_prob.argmax(axis=1) == y_true).astype(int)
    expected = smooth_reliability_curve(correct, confidence)
    assert_array_equal(display.curve, expected.calibration)
    assert display.reduction == "top_label"
    assert (display.ax_.get_xlabel(), display.ax_.get_ylabel()) == (
        "Confidence",
        "Accuracy",
    )
    # pos_label on a multiclass problem draws that class against the rest.
    one_vs_rest = ReliabilityDisplay.from_predictions(
        y_true, y_prob, pos_label=2, kind="binned"
    )
    table = reliability_table(y_true == 2, y_prob[:, 2])
    assert_array_equal(one_vs_rest.table.event_rate, table.event_rate)
    assert one_vs_rest.reduction == "positive" and one_vs_rest.pos_label == 2


@pytest.mark.parametrize("kind", ["smooth", "binned"])
def test_classwise_grid(pyplot, global_random_seed, kind):
    """Check that classwise draws one small axes per class, with its curve."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob = _multiclass(rng, k=5)
    labels = np.array(["a", "b", "c", "d", "e"])
    display = ReliabilityDisplay.from_predictions(
        labels[y_true],
        y_prob,
        reduction="classwise",
        kind=kind,
        n_bootstrap=5,
        random_state=0,
        name="model",
    )
    assert display.axes_.shape == (5,)
    assert display.ax_ is display.axes_
    assert_array_equal(display.classes, labels)
    # A 3 x 2 grid, the sixth axes hidden.
    visible = [ax for ax in display.figure_.axes if ax.get_visible()]
    assert len(display.figure_.axes) == 6 and len(visible) == 5
    for k, ax in enumerate(display.axes_):
        assert ax.get_title() == f"Class {labels[k]}"
        if kind == "smooth":
            expected = smooth_reliability_curve(y_true == k, y_prob[:, k])
            assert_array_equal(display.curve[k], expected.calibration)
            assert display.line_[k].axes is ax
        else:
            expected = reliability_table(y_true == k, y_prob[:, k])
            assert_array_equal(display.table[k].event_rate, expected.event_rate)
    assert len(display.line_) == len(display.ref_line_) == 5
    # A second model on the same grid adds a legend entry to every axes.
    ReliabilityDisplay.from_predictions(
        labels[y_true],
        np.full_like(y_prob, 0.2),
        reduction="classwise",
        kind=kind,
        n_bootstrap=5,
        random_state=0,
        name="uniform",
        ax=display.ax_,
    )
    for ax in display.axes_:
        assert len(ax.get_legend().get_texts()) == 3


def test_classwise_inside_one_axes(pyplot):
    """Check that a single axes given for classwise is divided into a grid."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _multiclass(rng, k=3)
    fig, (left, right) = pyplot.subplots(1, 2)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, reduction="classwise", kind="binned", ax=right
    )
    assert display.axes_.shape == (3,)
    assert not right.axison and left.axison
    assert display.figure_ is fig
    with pytest.raises(ValueError, match="needs 3 axes"):
        display.plot(ax=[left])


def test_binary_classwise_follows_column_order(pyplot):
    """Check that a binary classwise diagram draws the negative class first."""
    rng = np.random.RandomState(0)
    y_true, y_prob = _binary(rng)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, reduction="classwise", kind="binned"
    )
    assert_array_equal(display.classes, [0, 1])
    assert_array_equal(
        display.table[0].event_rate,
        reliability_table(1 - y_true, 1 - y_prob).event_rate,
    )
    assert_array_equal(
        display.table[1].event_rate, reliability_table(y_true, y_prob).event_rate
    )


def test_plot_needs_the_arrays_of_its_kind(pyplot):
    """Check that plot names the arrays a hand-built display lacks."""
    with pytest.raises(ValueError, match="needs grid, curve, density"):
        ReliabilityDisplay().plot()
    with pytest.raises(ValueError, match="needs table"):
        ReliabilityDisplay(kind="binned").plot()
    with pytest.raises(ValueError, match="kind must be"):
        ReliabilityDisplay(kind="kde").plot()


def test_real_data_smooth_and_binned(pyplot, real_multiclass, tmp_path):
    """Check both kinds on real outputs: metric arrays, band, and a saved PNG."""
    labels, probs = real_multiclass
    rows = np.random.RandomState(1).choice(labels.shape[0], 3000, replace=False)
    y_true, y_prob = labels[rows], probs[rows].astype(np.float64)
    y_prob /= y_prob.sum(axis=1, keepdims=True)
    smooth = ReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bootstrap=30, random_state=0, name="smooth"
    )
    expected = smooth_reliability_curve(y_true, y_prob)
    assert_array_equal(smooth.curve, expected.calibration)
    defined = np.isfinite(smooth.curve)
    assert np.all(smooth.band_low[defined] <= smooth.band_high[defined])
    binned = ReliabilityDisplay.from_predictions(
        y_true, y_prob, kind="binned", ax=smooth.ax_, name="binned"
    )
    table = reliability_table(y_true, y_prob)
    assert_array_equal(binned.table.event_rate, table.event_rate)
    path = tmp_path / "reliability.png"
    smooth.figure_.savefig(path)
    assert path.stat().st_size > 1000
