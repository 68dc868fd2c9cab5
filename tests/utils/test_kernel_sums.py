"""Tests of skcal._utils._kernel_sums: Gaussian and Epanechnikov kernel sums."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
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


def test_gaussian_sums_far_from_the_points_are_zero():
    """Check that queries beyond the reach of every point sum to exactly 0."""
    sums = GaussianSums(np.array([0.0, 1.0]), np.ones((2, 1)), method="grid")
    assert sums(np.array([-100.0, 200.0])).tolist() == [[0.0], [0.0]]
