"""Tests of skcal._utils._cumulative: cumulative residuals block by block."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skcal._utils._cumulative import cumulative_range


@settings(deadline=None, max_examples=60)
@given(
    n_rows=st.integers(1, 4),
    n_columns=st.integers(1, 60),
    block=st.integers(1, 40),
    tied=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_cumulative_range_is_the_range_of_the_whole_cumsum(
    n_rows, n_columns, block, tied, seed
):
    """Check the blocked range against the cumulative sums of the whole array.

    Blocks narrower than a row's columns, blocks that hold no end, and ends
    at every column (None) are included; the values are filled once each.
    """
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_rows, n_columns))
    ends = None
    if tied:
        ends = np.union1d(
            rng.choice(n_columns, size=rng.integers(1, n_columns + 1)), [n_columns - 1]
        )
    filled = np.zeros(n_columns, dtype=int)

    def fill(start, stop, out):
        out[:] = values[:, start:stop]
        filled[start:stop] += 1

    result = cumulative_range(fill, values.shape, ends, block=block)
    sums = np.cumsum(values, axis=1)
    if ends is not None:
        sums = sums[:, ends]
    expected = np.maximum(sums.max(axis=1), 0.0) - np.minimum(sums.min(axis=1), 0.0)
    assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    assert (filled == 1).all()
