"""Scales: only ratios of weights, and of decision values, matter.

Products and squares of numbers near 1e-154 or 1e154 under- or overflow in
float64. Measures depend on ratios of weights only, and most recalibrators
on ratios of decision values only, so both are brought near 1 before any
arithmetic: weights by their maximum, scores by a power of two (an exact
division, which changes no digit).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np


def normalized_weights(sample_weight):
    """Weights divided by a power of two so that the largest is in [1, 2).

    The measures depend on ratios of weights only. Products and squares of
    raw weights under- or overflow at extreme scales (weights near 1e-154
    or 1e154 square to 0 or infinity), and their sum may exceed the largest
    float; scaled, they stay within [0, 2) whatever the scale. The division
    by a power of two is exact, so every weighted mean is what it was.

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights with a positive maximum.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,) or None
        The same array when its scale is already 1 (or None).
    """
    if sample_weight is None:
        return None
    scale = power_of_two_scale(sample_weight)
    if scale == 1.0:
        return sample_weight
    return sample_weight / scale


def effective_size(sample_weight, n_samples):
    """Kish's effective sample size ``(sum w)**2 / sum w**2``.

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights; None means ``n_samples`` equal weights.
    n_samples : int
        The number of rows.

    Returns
    -------
    n_effective : float
    """
    if sample_weight is None:
        return float(n_samples)
    w = normalized_weights(sample_weight)
    return float(w.sum() ** 2 / np.dot(w, w))


def drop_zero_weight(sample_weight, *arrays):
    """Remove the rows of zero weight, so that ``0 * inf`` never arises.

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights.
    *arrays : ndarray
        Arrays whose first axis has length ``n_samples``.

    Returns
    -------
    sample_weight, *arrays
        The same objects, restricted to the rows of positive weight.
    """
    if sample_weight is None or sample_weight.min() > 0:
        return (sample_weight, *arrays)
    keep = sample_weight > 0
    return (sample_weight[keep], *(a[keep] for a in arrays))


def power_of_two_scale(values):
    """The power of two nearest below the largest absolute value (1 for zeros).

    Dividing by it is exact (no rounding, barring subnormal results) and
    brings the largest absolute value into [1, 2).

    Parameters
    ----------
    values : ndarray
        Finite numbers.

    Returns
    -------
    scale : float
    """
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    if largest == 0.0:
        return 1.0
    return math.ldexp(1.0, math.frexp(largest)[1] - 1)
