"""Hypothesis strategies shared by the tests of skcal.regression."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from hypothesis import strategies as st


@st.composite
def gaussian_rows(draw, max_size=15, *, spread=5.0, std=(0.2, 5.0)):
    """``(y, mu, sigma, w)``: Gaussian predictions and positive weights.

    Outcomes and means in ``[-spread, spread]``, standard deviations in
    ``std``, weights in ``[0.1, 10]``.
    """
    n = draw(st.integers(1, max_size))

    def vector(lo, hi):
        values = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
        return np.array(draw(st.lists(values, min_size=n, max_size=n)))

    return (
        vector(-spread, spread),
        vector(-spread, spread),
        vector(*std),
        vector(0.1, 10),
    )


def repeat_counts(max_size=15):
    """Integer weights (zero included) for up to ``max_size`` rows."""
    return st.lists(st.integers(0, 3), min_size=max_size, max_size=max_size)


def integer_weights(counts, n):
    """The first ``n`` counts as weights, the first row kept (at least 1)."""
    w = np.array(counts[:n])
    w[0] = max(w[0], 1)
    return w
