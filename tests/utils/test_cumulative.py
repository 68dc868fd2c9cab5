"""Tests of skcal._utils._cumulative: cumulative residuals block by block."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from skcal._utils._cumulative import cumulative_range, cutoff_statistic
from skcal._utils._ties import (
    Ties,
    decode_keys,
    group_ends,
    key_group_ends,
    sorted_outcome_keys,
)


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


@settings(deadline=None, max_examples=60)
@given(
    n=st.integers(1, 50),
    n_values=st.integers(1, 8),
    seed=st.integers(0, 2**32 - 1),
)
def test_cutoff_from_sorted_keys_is_the_argsort_path(n, n_values, seed):
    """Check the unweighted cutoff statistic (one sort of keys) against Ties.

    Predictions repeat (few values) or not, include 0, -0.0 and 1, and the
    key path's tie groups match :func:`group_ends` for every block size.
    """
    rng = np.random.default_rng(seed)
    values = np.r_[0.0, -0.0, 1.0, rng.uniform(size=n_values)]
    p = rng.choice(values, size=n) if n_values < 8 else rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(np.uint8)
    expected = cutoff_statistic(y, p, None, Ties(p))
    assert_allclose(cutoff_statistic(y, p, None), expected, rtol=1e-12, atol=1e-15)
    keys = sorted_outcome_keys(p, y)
    sorted_p, sorted_y = decode_keys(keys)
    assert_array_equal(sorted_p, np.sort(p + 0.0))
    assert sorted_y.sum() == y.sum()
    for block in (1, 3, 1 << 16):
        ends, reference = key_group_ends(keys, block), group_ends(sorted_p)
        assert (ends is None) == (reference is None)
        if reference is not None:
            assert_array_equal(ends, reference)
