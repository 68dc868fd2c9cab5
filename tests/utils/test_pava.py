"""Tests of skcal._utils._pava: isotonic regression chunk by chunk."""

# SPDX-License-Identifier: BSD-3-Clause

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.isotonic import isotonic_regression

from skcal._utils._pava import IsotonicBlocks


def _chunked_fit(values, weights, cuts):
    blocks = IsotonicBlocks()
    bounds = [0, *sorted(cuts), values.shape[0]]
    for start, stop in itertools.pairwise(bounds):
        blocks.add(values[start:stop], weights[start:stop])
    return blocks


@given(
    values=st.lists(
        st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1), min_size=1
    ),
    data=st.data(),
)
def test_chunked_fit_is_the_fit_of_the_whole_property(values, data):
    """Check the fit, chunk by chunk, against one isotonic regression of all."""
    values = np.array(values)
    n = values.shape[0]
    weights = np.array(data.draw(st.lists(st.floats(0.01, 10), min_size=n, max_size=n)))
    cuts = data.draw(st.lists(st.integers(0, n), max_size=5))
    blocks = _chunked_fit(values, weights, cuts)
    expected = isotonic_regression(values, sample_weight=weights)
    assert_allclose(blocks.fitted(0, n), expected, rtol=1e-12, atol=1e-15)
    assert blocks.ends[-1] == n
    assert np.all(np.diff(blocks.value) > 0)
    assert_allclose(blocks.weight.sum(), weights.sum(), rtol=1e-12)


def test_chunked_fit_of_binary_outcomes(global_random_seed):
    """Check many chunks of 0/1 outcomes: the fit, ranges and few blocks."""
    rng = np.random.RandomState(global_random_seed)
    p = np.sort(rng.uniform(size=20_000))
    y = (rng.uniform(size=20_000) < p).astype(np.float64)
    weights = np.ones_like(y)
    blocks = _chunked_fit(y, weights, range(0, 20_000, 997))
    expected = isotonic_regression(y, sample_weight=weights)
    assert_allclose(blocks.fitted(0, 20_000), expected, rtol=1e-12, atol=1e-15)
    assert_array_equal(
        blocks.fitted(5_000, 5_100), blocks.fitted(0, 20_000)[5_000:5_100]
    )
    assert blocks.value.shape[0] < 200
