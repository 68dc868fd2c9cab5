"""Tests of the shared binning module."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcal._utils._bins import (
    bin_sums,
    make_binning,
    outcome_sums,
    resolve_n_bins,
    uniform_binning,
    weighted_quantile_edges,
)
from skcal._utils._totals import CELL_CHANNELS, cell_totals
from tests.utils._rows import read_only_rows


@pytest.mark.parametrize("n", [1, 2, 26, 27, 28, 63, 64, 65, 10**6, 10**6 + 1, 10**9])
def test_cube_root_is_exact(n):
    """Check that "cube_root" is the smallest k with k ** 3 >= n."""
    k = resolve_n_bins("cube_root", n)
    assert k**3 >= n
    assert k == 1 or (k - 1) ** 3 < n


def test_uniform_assignment_matches_linspace_edges_off_the_edges(global_random_seed):
    """Check that uniform bins equal calibration_curve's away from edge ulps."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=10_000)
    for n_bins in (1, 3, 10, 15, 100):
        binning = make_binning(p, None, n_bins, "uniform")
        expected = np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], p)
        assert_array_equal(binning.assign(p), expected)


def test_assign_agrees_with_bin_sums(global_random_seed):
    """Check that Binning.assign and bin_sums put every row in the same bin."""
    rng = np.random.RandomState(global_random_seed)
    p = np.r_[rng.uniform(size=500), 0.0, 1.0, 0.5, 0.25]
    y = (rng.uniform(size=p.size) < p).astype(np.uint8)
    for strategy in ("uniform", "quantile"):
        binning = make_binning(p, None, 8, strategy)
        idx = binning.assign(p)
        sums = bin_sums(binning, y, p)
        assert_array_equal(sums.weight, np.bincount(idx, minlength=binning.n_bins))
        assert_allclose(sums.sum_p, np.bincount(idx, p, minlength=binning.n_bins))
        assert_allclose(sums.sum_y, np.bincount(idx, y, minlength=binning.n_bins))


def test_bin_sums_blocks_do_not_matter(global_random_seed, monkeypatch):
    """Check that processing in blocks gives the result of one pass."""
    import skcal._utils._bins as binning_module

    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=1000)
    y = (rng.uniform(size=1000) < p).astype(np.uint8)
    w = rng.uniform(size=1000)
    binning = make_binning(p, None, 10, "uniform")
    whole = bin_sums(binning, y, p, w, moments=True)
    monkeypatch.setattr(binning_module, "_BLOCK", 7)
    blocked = bin_sums(binning, y, p, w, moments=True)
    for a, b in zip(whole, blocked, strict=True):
        assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("block", [7, 1 << 15])
@pytest.mark.parametrize("weighted", [False, True])
def test_outcome_sums_equal_a_loop_over_rows(
    global_random_seed, monkeypatch, block, weighted
):
    """Check the blocked, buffered pass against sums row by row.

    Read-only inputs (as validated data are) with predictions on the edges,
    at 0 and at 1, and zero weights; the inputs are left as they were.
    """
    import skcal._utils._bins as binning_module

    n_bins = 25
    special = [0.0, 1.0, 0.28, 0.04, 7 / 25]  # 0, 1 and edges
    y, p, w = read_only_rows(global_random_seed, special, weighted)
    binning = make_binning(p, None, n_bins, "uniform")
    monkeypatch.setattr(binning_module, "_BLOCK", block)
    split = outcome_sums(binning, y, p, w, squares=True)
    expected = np.zeros((4 if weighted else 2, n_bins, 2))
    for i in range(p.size):
        # The bin of (e_j, e_{j + 1}], with p = 0 in the first.
        j = max(int(np.searchsorted(binning.edges, p[i], side="left")) - 1, 0)
        weight = 1.0 if w is None else w[i]
        row = [weight, weight * p[i], weight * weight, float(weight > 0)]
        expected[:, j, y[i]] += row[: expected.shape[0]]
    assert_allclose(split, expected, rtol=1e-12, atol=1e-13)
    assert not p.flags.writeable and p[-5] == 0.0 and p[-4] == 1.0


@pytest.mark.parametrize("weighted", [False, True])
def test_cell_totals_equal_a_loop_over_rows(global_random_seed, weighted):
    """Check each channel of a summary's cells against sums row by row."""
    n_cells = 10
    y, p, w = read_only_rows(global_random_seed, [0.0, 1.0, 0.3, 0.7], weighted)
    totals = cell_totals(y, p, w, n_cells)
    expected = np.zeros((len(CELL_CHANNELS), n_cells))
    edges = uniform_binning(n_cells).edges
    for i in range(p.size):
        j = max(int(np.searchsorted(edges, p[i], side="left")) - 1, 0)
        weight = 1.0 if w is None else w[i]
        row = {
            "weight": weight,
            "sum_p": weight * p[i],
            "sum_y": weight * y[i],
            "sum_yp": weight * y[i] * p[i],
            "weight_sq": weight * weight,
            "n_rows": float(weight > 0),
        }
        expected[:, j] += [row[channel] for channel in CELL_CHANNELS]
    assert_allclose(totals, expected, rtol=1e-12, atol=1e-13)


def test_weighted_quantiles_equal_repetition(global_random_seed):
    """Check that integer weights give the quantile edges of repeated rows."""
    rng = np.random.RandomState(global_random_seed)
    p = np.round(rng.uniform(size=60), 2)
    w = rng.randint(0, 4, size=60)
    w[0] = 1
    weighted = weighted_quantile_edges(p, w.astype(float), 7)
    repeated = weighted_quantile_edges(np.repeat(p, w), None, 7)
    assert_array_equal(weighted, repeated)


@pytest.mark.skipif(
    np.lib.NumpyVersion(np.__version__) < "2.0.0",
    reason="np.quantile(weights=...) needs numpy >= 2.0",
)
def test_quantile_edges_are_numpy_inverted_cdf(global_random_seed):
    """Check the weighted quantiles against numpy's inverted_cdf method."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=101)
    w = rng.uniform(0.1, 2.0, size=101)
    levels = np.arange(1, 5) / 5
    expected = np.quantile(p, levels, weights=w, method="inverted_cdf")
    assert_allclose(weighted_quantile_edges(p, w, 5), expected)
