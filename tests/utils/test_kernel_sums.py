"""Tests of skcal._utils._kernel_sums: Gaussian and Epanechnikov kernel sums."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skcal._utils._kernel_sums import GaussianSums


def test_gaussian_sums_any_query_shape_and_repeated_calls(global_random_seed):
    """Check queries of any shape and order, and calls that reuse cached segments."""
    rng = np.random.RandomState(global_random_seed)
    points = rng.normal(scale=30.0, size=2000)
    values = rng.uniform(size=(2000, 2))
    for method in ("direct", "grid"):
        sums = GaussianSums(points, values, method=method)
        for _ in range(3):
            query = rng.uniform(-120, 120, size=(40, 7))
            dense = np.exp(-0.5 * (query.ravel()[:, None] - points) ** 2) @ values
            got = sums(query)
            assert got.shape == (40, 7, 2)
            assert_allclose(got.reshape(-1, 2), dense, rtol=0, atol=1e-14 * 2000)


@pytest.mark.parametrize("block", [1, 37, 5000])
def test_streamed_gaussian_sums_match_dense_sums(global_random_seed, block):
    """Check sums from blocks of unsorted points at unsorted queries."""
    rng = np.random.RandomState(global_random_seed)
    points = rng.uniform(0.0, 20.0, size=3000)
    values = rng.uniform(size=(3000, 2))
    blocks = (
        (points[i : i + block], values[i : i + block]) for i in range(0, 3000, block)
    )
    sums = GaussianSums.streamed(blocks, 0.0, 20.0, 2)
    assert sums.moments.size == GaussianSums.streamed_size(0.0, 20.0, 2)
    query = rng.uniform(-50.0, 70.0, size=500)
    dense = np.exp(-0.5 * (query[:, None] - points) ** 2) @ values
    assert_allclose(sums(query), dense, rtol=0, atol=1e-14 * 3000)


def test_gaussian_sums_far_from_the_points_are_zero():
    """Check that queries beyond the reach of every point sum to exactly 0."""
    sums = GaussianSums(np.array([0.0, 1.0]), np.ones((2, 1)), method="grid")
    assert sums(np.array([-100.0, 200.0])).tolist() == [[0.0], [0.0]]
