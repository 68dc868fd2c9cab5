"""Centered isotonic recalibration (Oron and Flournoy, 2017)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.isotonic import isotonic_regression

from skcal._docstrings import fill_doc
from skcal._utils._scaling import (
    drop_zero_weight,
    normalized_weights,
    power_of_two_scale,
)
from skcal._utils._ties import Ties
from skcal.calibration._base import BinaryMapRecalibrator

# Adjacent block means equal up to this relative difference are tied (and
# pooled): it covers the rounding errors of sums of a million weights.
_TIE_RTOL = 1e-10


class CenteredIsotonicKnots(NamedTuple):
    """The points a centered isotonic map interpolates linearly.

    ``x_`` is strictly increasing and ``y_`` non-decreasing, in [0, 1]; the
    map is constant beyond the first and the last point.
    """

    x_: np.ndarray
    y_: np.ndarray


def pool_adjacent_violators(weight, weighted_y):
    """Blocks of the isotonic regression with ties pooled: levels strictly increase.

    Pool adjacent violators, counting two adjacent blocks of equal mean as
    violators too, so that every block's level is above the previous one's
    by more than ``_TIE_RTOL``. The blocks are the maximal runs of equal
    values of the isotonic regression (a tie never separates two level sets
    of the least-squares fit). The means are recomputed from the block sums
    after each pass, and means equal up to ``_TIE_RTOL`` (the rounding
    errors of the sums: 1/3 and 2/6, or the same weights times 10**-16)
    pooled, until they strictly increase (one pass nearly always suffices).

    Parameters
    ----------
    weight, weighted_y : ndarray of shape (n_distinct,)
        Positive total weights and weighted outcomes, in the order of the
        scores.

    Returns
    -------
    starts : ndarray of int of shape (n_blocks,)
        The index of the first score of each block.
    weight, weighted_y : ndarray of shape (n_blocks,)
        The sums over each block.
    """
    starts = np.arange(weight.shape[0])
    while starts.shape[0] > 1:
        level = weighted_y / weight
        if np.all(level[1:] > level[:-1] * (1.0 + _TIE_RTOL)):
            break
        fitted = isotonic_regression(level, sample_weight=weight)
        first = np.flatnonzero(
            np.r_[True, fitted[1:] > fitted[:-1] * (1.0 + _TIE_RTOL)]
        )
        if first.shape[0] == starts.shape[0]:  # pragma: no cover (never seen)
            break
        starts = starts[first]
        weight = np.add.reduceat(weight, first)
        weighted_y = np.add.reduceat(weighted_y, first)
    return starts, weight, weighted_y


def fit_centered_isotonic(x, y, sample_weight=None):
    """The knots of the centered isotonic regression of ``y`` on ``x``.

    Each pooled block of :func:`pool_adjacent_violators` becomes one knot at
    its weighted mean score, except that the first block keeps its smallest
    score and the last block its largest (the data's range), and a block of
    level 0 or 1 keeps both ends (as the authors' R package ``cir`` leaves
    ties at the bounds of the outcome's range unpooled).

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
        Finite scores, best of magnitude near 1 (weighted means of scores
        are computed).
    y : ndarray of bool of shape (n_samples,)
        Outcomes.
    sample_weight : ndarray of shape (n_samples,) or None
        Positive weights, best below 2 (they are summed).

    Returns
    -------
    x_knots : ndarray of shape (n_knots,)
        Strictly increasing.
    y_knots : ndarray of shape (n_knots,)
        Non-decreasing, in [0, 1].
    """
    ties = Ties(x, sample_weight)
    scores, weight, weighted_y = ties.values, ties.weight, ties.sum(y)
    starts, block_weight, block_y = pool_adjacent_violators(weight, weighted_y)
    level = np.clip(block_y / block_weight, 0.0, 1.0)
    ends = np.r_[starts[1:], scores.shape[0]] - 1
    low, high = scores[starts], scores[ends]
    # The centre lies within the block's scores; rounding must not push it out.
    centre = np.add.reduceat(weight * scores, starts) / block_weight
    centre = np.clip(centre, low, high)
    at_bound = (level == 0.0) | (level == 1.0)
    keep_low, keep_high = at_bound.copy(), at_bound.copy()
    keep_low[0] = keep_high[-1] = True
    left = np.where(keep_low, low, centre)
    right = np.where(keep_high, high, centre)
    # Knots left and right of each block, the right one dropped when the same.
    x_knots = np.column_stack([left, right]).ravel()
    keep = np.ones(x_knots.shape[0], dtype=bool)
    keep[1::2] = right > left
    return x_knots[keep], np.repeat(level, 2)[keep]


@fill_doc
class CenteredIsotonicRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with the centered isotonic regression of the outcome on the score.

    Centered isotonic regression (CIR, Oron and Flournoy, 2017) keeps the
    isotonic fit's levels but not its flat stretches. Pool adjacent violators
    on the distinct scores :math:`s_{(1)} < \dots < s_{(m)}`, counting ties
    of adjacent means as violations, so that the pooled blocks
    :math:`B_1, \dots, B_K` have strictly increasing levels

    .. math::

        \hat y_k = \frac{\sum_{i \in B_k} w_i y_i}{\sum_{i \in B_k} w_i},
        \qquad
        \bar s_k = \frac{\sum_{i \in B_k} w_i s_i}{\sum_{i \in B_k} w_i},

    which are the isotonic regression's values. Each block is replaced by
    the one point :math:`(\bar s_k, \hat y_k)` at its weighted mean score,
    and the map :math:`h` is the linear interpolation between these points,
    constant beyond the first and the last. As in the authors' R package
    ``cir``, the first block keeps its smallest score and the last block its
    largest (:math:`h = \hat y_1` from :math:`s_{(1)}` to :math:`\bar s_1`,
    the isotonic fit there), and a block of level 0 or 1 keeps both its ends.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    %(multiclass)s
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    calibrators_ : list of CenteredIsotonicKnots
        One fitted map per view (one for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``): a named tuple of the
        knots ``x_`` (scores, strictly increasing) and ``y_`` (probabilities,
        non-decreasing), which :func:`numpy.interp` interpolates.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on. The maps read
        probabilities for probability scores and the raw values for logits.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    IsotonicRecalibrator : The isotonic fit, flat on each block.
    PlattRecalibrator : A logistic map of the log-odds.

    Notes
    -----
    The map is strictly increasing between its inner end points, the first
    block's centre :math:`\bar s_1` (or its largest score when
    :math:`\hat y_1 = 0`) and the last block's centre :math:`\bar s_K` (or
    its smallest score when :math:`\hat y_K = 1`), and constant, at
    :math:`\hat y_1` and :math:`\hat y_K`, beyond them; it is constant
    everywhere when pooling leaves one block (:math:`K = 1`). So it
    ties only scores outside that range, where isotonic recalibration ties
    every score of a block, and changes the ranking (and the ROC AUC) of
    fewer predictions (scikit-learn issue #16321). At each centre it equals
    the isotonic fit, :math:`h(\bar s_k) = \hat y_k`, and without
    violations (every block one distinct score, or a run of zeros or ones)
    both interpolate the observed means. Its in-sample squared error is at
    least isotonic regression's, the least-squares monotone fit.

    Scores are merged only when equal, and the means computed on scores and
    weights divided by powers of two, so that the fit does not depend on
    their scale. Fitting takes :math:`O(n \log n)` time (a sort, then pool
    adjacent violators in :math:`O(n)`) and :math:`O(n)` memory. Outputs
    can be exactly 0 or 1, where the log loss is infinite.

    The Python package ``cir-model`` gives the same map with
    ``CenteredIsotonicRegression(out_of_bounds="clip")``, but for two
    details of :class:`~sklearn.isotonic.IsotonicRegression`, on which it
    builds: scores closer than 1e-15 are merged there, and two adjacent
    blocks of equal means (3/11 and 3/11) can come out of its pool adjacent
    violators one rounding error apart and are then kept as two points.
    Here block means are recomputed from the block sums, and means within
    a relative 1e-10 of each other (rounding errors of the sums) count as
    tied, so that such ties are pooled, as in the exact algorithm, at every
    scale of the weights. The R package ``cir`` (``cirPAVA``) compares the
    means rounded to 8 decimals.

    References
    ----------
    .. [1] A. P. Oron and N. Flournoy, "Centered isotonic regression: point
       and interval estimation for dose-response studies", Statistics in
       Biopharmaceutical Research 9(3), 258-267, 2017,
       doi:10.1080/19466315.2017.1286256, arXiv:1701.05964.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import CenteredIsotonicRecalibrator
    >>> scores = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> recal = CenteredIsotonicRecalibrator().fit(scores, y)
    >>> recal.calibrators_[0].x_.round(3).tolist()
    [0.1, 0.2, 0.5, 0.8, 0.9]
    >>> recal.calibrators_[0].y_.round(3).tolist()
    [0.0, 0.0, 0.5, 1.0, 1.0]

    Isotonic regression is flat at 0.5 from 0.3 to 0.7 (two tied blocks);
    CIR pools them into one point at their mean score 0.5:

    >>> recal.predict_proba([0.1, 0.35, 0.5, 0.65, 0.9])[:, 1].round(3).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """

    def _fit_map(self, x, y, sample_weight):
        sample_weight, x, y = drop_zero_weight(sample_weight, x, y)
        # Exact divisions by powers of two: scores in [-2, 2], weights in
        # [0, 2), so that the weighted sums neither over- nor underflow.
        scale = power_of_two_scale(x)
        x_knots, y_knots = fit_centered_isotonic(
            x / scale, y, normalized_weights(sample_weight)
        )
        return CenteredIsotonicKnots(x_knots * scale, y_knots)

    def _apply_map(self, fitted_map, x):
        scale = power_of_two_scale(fitted_map.x_)
        with np.errstate(over="ignore"):
            x = x / scale
        p = np.interp(x, fitted_map.x_ / scale, fitted_map.y_)
        # Interpolation may overshoot the next knot by a rounding error.
        return np.clip(p, 0.0, 1.0)
