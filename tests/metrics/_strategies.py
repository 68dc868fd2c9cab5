"""Hypothesis strategies shared by the measure tests."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from hypothesis import strategies as st

probabilities = st.floats(0.0, 1.0, allow_nan=False, width=64)

# Predictions on a coarse grid produce ties and values on bin edges.
coarse_probabilities = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])


@st.composite
def binary_data(draw, min_size=1, max_size=30):
    """``(y, p)``: 0/1 labels and probabilities, on a coarse grid half of the time."""
    n = draw(st.integers(min_size, max_size))
    values = coarse_probabilities if draw(st.booleans()) else probabilities
    p = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return y, p
