"""Tests of the linear binning grid helpers."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skcal._utils._grid import CHANNELS, halve_grid, linear_binning
from tests.utils._rows import read_only_rows

_unit = st.floats(0.0, 1.0, allow_nan=False)


@given(
    p=st.lists(_unit, min_size=1, max_size=60),
    seed=st.integers(0, 2**32 - 1),
    coarse=st.integers(1, 40),
    halvings=st.integers(1, 3),
    weighted=st.booleans(),
)
def test_halving_equals_binning_onto_the_coarse_grid(
    p, seed, coarse, halvings, weighted
):
    """Check that halving a fine grid's masses bins the rows onto the coarse grid.

    Predictions at 0, 1, on nodes of either grid and between them; outcomes
    and weights drawn at random.
    """
    rng = np.random.default_rng(seed)
    p = np.array(p)
    # Some predictions exactly on fine and coarse nodes.
    fine = coarse * 2**halvings
    on_nodes = rng.uniform(size=p.shape[0]) < 0.3
    p[on_nodes] = rng.integers(0, fine + 1, size=on_nodes.sum()) / fine
    y = (rng.uniform(size=p.shape[0]) < 0.5).astype(np.uint8)
    w = rng.uniform(0.0, 3.0, size=p.shape[0]) if weighted else None
    masses = linear_binning(p, y, w, fine, CHANNELS)
    for _ in range(halvings):
        masses = halve_grid(masses)
    expected = linear_binning(p, y, w, coarse, CHANNELS)
    assert_allclose(masses, expected, rtol=1e-12, atol=1e-12)


def test_halving_keeps_batch_dimensions():
    """Check that leading dimensions are kept and each is halved alone."""
    rng = np.random.default_rng(0)
    masses = rng.normal(size=(3, 2, 9))
    halved = halve_grid(masses)
    assert halved.shape == (3, 2, 5)
    for index in np.ndindex(3, 2):
        assert_allclose(halved[index], halve_grid(masses[index]))
    # The total of each row is kept.
    assert_allclose(halved.sum(axis=-1), masses.sum(axis=-1))


@pytest.mark.parametrize("block", [7, 1 << 15])
@pytest.mark.parametrize("weighted", [False, True])
def test_linear_binning_equals_a_loop_over_rows(
    global_random_seed, monkeypatch, block, weighted
):
    """Check the blocked, in-place binning against spreading each row by hand.

    Read-only inputs (as validated data are) with predictions at 0, 1 and
    on nodes, and zero weights; the inputs are left as they were.
    """
    import skcal._utils._grid as grid_module

    n_intervals = 16
    special = [0.0, 1.0, 0.5, 3 / 16]  # 0, 1 and nodes
    y, p, w = read_only_rows(global_random_seed, special, weighted)
    monkeypatch.setattr(grid_module, "_BLOCK", block)
    masses = linear_binning(p, y, w, n_intervals, CHANNELS)
    expected = np.zeros((len(CHANNELS), n_intervals + 1))
    for i in range(p.size):
        weight = 1.0 if w is None else w[i]
        values = {"residual": weight * (p[i] - y[i]), "weight": weight}
        values["outcome"] = weight * y[i]
        j, s = divmod(p[i] * n_intervals, 1.0)
        j = int(j)
        for c, channel in enumerate(CHANNELS):
            expected[c, j] += (1.0 - s) * values[channel]
            if s > 0:
                expected[c, j + 1] += s * values[channel]
    assert_allclose(masses, expected, rtol=1e-12, atol=1e-13)
    assert not p.flags.writeable and p[-4] == 0.0
