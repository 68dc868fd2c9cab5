"""Rows of a binary view for the tests of the blocked passes."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np


def read_only_rows(seed, special, weighted, n=200):
    """Read-only ``(y, p, w)``: uniform predictions, then ``special`` ones.

    Validated inputs are read-only views, so the passes are tested on such
    arrays; a fifth of the weights are zero (``w`` is None unweighted).
    """
    rng = np.random.RandomState(seed)
    p = np.r_[rng.uniform(size=n), special]
    y = (rng.uniform(size=p.size) < p).astype(np.uint8)
    w = rng.exponential(size=p.size) * (rng.uniform(size=p.size) > 0.2)
    w = w if weighted else None
    for array in (y, p, w):
        if array is not None:
            array.flags.writeable = False
    return y, p, w
