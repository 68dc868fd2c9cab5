"""Smooth (weak) calibration error: the supremum over 1-Lipschitz test functions.

The smooth calibration error is a linear program over the values of a
Lipschitz function at the distinct predictions. Its dual is a weighted L1
isotonic regression of the cumulative residuals, which a heap solves exactly
in O(m log m) for m distinct predictions (derived in the User Guide,
doc/user_guide/consistent.rst).
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import functools
import heapq
import math
from numbers import Integral
from typing import Literal

import numpy as np

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import REDUCTION_CONSTRAINTS, reduce_measure
from skcal._typing import ArrayLike, Label
from skcal._utils._bins import make_binning
from skcal._utils._cumulative import residual_prefix_sums
from skcal._utils._ties import Ties
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups


def _lipschitz_dual(values, prefix):
    """Exact smooth calibration error from cumulative residuals.

    Parameters
    ----------
    values : ndarray of shape (m,)
        Increasing prediction values ``u_1 < ... < u_m``.
    prefix : ndarray of shape (m,)
        Normalised cumulative residuals ``P_k`` at each value.

    Returns
    -------
    value : float
        ``|P_m| + min sum_k d_k |P_k - A_k|`` over non-decreasing ``A`` from
        0 to ``|P_m|`` (signs flipped so that ``P_m >= 0``), with
        ``d_k = u_{k+1} - u_k``; see the Notes of
        :func:`smooth_calibration_error`.
    """
    total = float(prefix[-1])
    if total < 0.0:
        prefix = -prefix
        total = -total
    gaps = np.diff(values).tolist()
    points = prefix[:-1].tolist()
    # F(a), the least cost of the terms seen so far with every A_k <= a, is
    # convex and non-increasing: ``cost + sum(weight * max(h - a, 0))`` over
    # the breakpoints ``h`` kept in a max-heap of [-h, weight] lists. The
    # breakpoint at 0 with infinite weight is the constraint A_k >= 0.
    heap = [[-0.0, math.inf]]
    cost = 0.0
    heappush, heappop = heapq.heappush, heapq.heappop
    for x, d in zip(points, gaps, strict=True):
        if x >= -heap[0][0]:
            heappush(heap, [-x, d])
            continue
        # Adding d |x - a| and taking the running minimum over a pushes x
        # with weight 2 d and removes weight d from the largest breakpoints.
        need = d
        while True:
            node = heap[0]
            h = -node[0]
            if h <= x:
                break
            weight = node[1]
            if weight > need:
                cost += need * (h - x)
                node[1] = weight - need  # the root only gets smaller
                need = 0.0
                break
            cost += weight * (h - x)
            need -= weight
            heappop(heap)
        heappush(heap, [-x, 2.0 * d - need])
    # The last constraint, A_k <= P_m: evaluate F at P_m.
    for neg_h, weight in heap:
        if -neg_h > total:
            cost += weight * (-neg_h - total)
    return total + cost


def _smooth_core(y, p, sample_weight, *, method, n_grid):
    """The smooth calibration error of one binary view (float64 inputs)."""
    ties = Ties(p, sample_weight)
    prefix = residual_prefix_sums(ties, y)
    values = ties.values
    del ties  # the sort order is no longer needed
    if method == "exact" or (method == "auto" and values.shape[0] <= n_grid):
        return float(_lipschitz_dual(values, prefix))
    # Move the residual of every distinct value to the centre of its cell
    # among n_grid equal-width cells of [0, 1].
    cells = make_binning(values, None, n_grid, "uniform").assign(values)
    sums = np.bincount(cells, weights=np.diff(prefix, prepend=0.0), minlength=n_grid)
    occupied = np.bincount(cells, minlength=n_grid) > 0
    centres = (np.flatnonzero(occupied) + 0.5) / n_grid
    return float(_lipschitz_dual(centres, np.cumsum(sums[occupied])))


def smooth_error_core(*, method, n_grid):
    """The smooth calibration error of one binary view, ``measure(y, p, w)``."""
    return functools.partial(_smooth_core, method=method, n_grid=n_grid)


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "method": [StrOptions({"auto", "exact", "grid"})],
        "n_grid": [Interval(Integral, 1, None, closed="left")],
        **REDUCTION_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def smooth_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    method: Literal["auto", "exact", "grid"] = "auto",
    n_grid: int = 100_000,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
) -> float | np.ndarray:
    r"""Smooth calibration error: the supremum over 1-Lipschitz test functions.

    The smooth (or weak) calibration error is the largest value of
    :math:`\mathbb{E}[(y - p)\, w(p)]` over functions
    :math:`w: [0, 1] \to [-1, 1]` that are 1-Lipschitz. It is within a factor
    of 2 of the (lower) distance to calibration of Błasiok et al. (2023):
    half the distance is at most the smooth error, which is at most twice
    the distance. Test functions cannot jump, so a miscalibration that
    alternates quickly between over- and under-prediction is discounted; the
    :func:`cutoff calibration error <cutoff_calibration_error>`, whose test
    functions are interval indicators, is at least two thirds of it.

    Read more in the :ref:`User Guide <smooth_calibration_error>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    method : {"auto", "exact", "grid"}, default="auto"
        ``"exact"``: the exact value, in :math:`O(m \log m)` time for
        :math:`m` distinct predictions (a few seconds per million).
        ``"grid"``: the exact value after moving every prediction to the
        centre of its cell among ``n_grid`` equal-width cells, within
        ``1 / (2 * n_grid)`` times the mean absolute residual of the exact
        value (see the User Guide). ``"auto"``: ``"exact"`` when there are
        at most ``n_grid`` distinct predictions, ``"grid"`` otherwise.
    n_grid : int, default=100_000
        Number of cells of the grid approximation, and the largest number of
        distinct predictions that ``"auto"`` solves exactly.
    %(reduction)s
    %(return_per_class)s

    Returns
    -------
    error : float or ndarray of shape (n_classes,)
        The smooth calibration error, in [0, 1]; the per-class values when
        ``return_per_class=True``.

    See Also
    --------
    cutoff_calibration_error : The supremum over interval indicators.
    expected_calibration_error : The binned ECE.

    Notes
    -----
    With weights :math:`w_i` (all 1 when unweighted),
    :math:`W = \sum_i w_i` and residuals :math:`r_i = y_i - p_i`, the
    estimator is the plug-in

    .. math::

        \mathrm{smCE} = \sup_{g} \frac{1}{W} \sum_i w_i r_i\, g(p_i),
        \quad g: [0, 1] \to [-1, 1], \ |g(s) - g(t)| \le |s - t|.

    With :math:`u_1 < \dots < u_m` the distinct predictions,
    :math:`d_k = u_{k+1} - u_k` and :math:`P_k` the normalised sum of the
    residuals over :math:`p_i \le u_k`, taking :math:`P_m \ge 0` (otherwise
    flip all signs), linear-programming duality gives

    .. math::

        \mathrm{smCE} = P_m + \min_{0 \le A_1 \le \dots \le A_{m-1} \le P_m}
        \sum_{k < m} d_k |P_k - A_k|,

    a weighted L1 isotonic regression of the cumulative residuals, solved
    exactly with a heap in :math:`O(m \log m)`. The population smCE is
    within a factor 2 of the lower distance to calibration dCE [1]_:
    :math:`\mathrm{dCE}/2 \le \mathrm{smCE} \le 2\,\mathrm{dCE}`. The User
    Guide derives the dual and the algorithm, bounds the error of the grid,
    and compares smCE with the cutoff calibration error [3]_ and the
    SmoothECE [2]_.

    References
    ----------
    .. [1] J. Błasiok, P. Gopalan, L. Hu and P. Nakkiran, "A Unifying Theory
       of Distance from Calibration", STOC 2023, arXiv:2211.16886.
    .. [2] J. Błasiok and P. Nakkiran, "Smooth ECE: Principled Reliability
       Diagrams via Kernel Smoothing", ICLR 2024, arXiv:2309.12236.
    .. [3] R. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.

    Examples
    --------
    >>> from skcal.metrics import smooth_calibration_error
    >>> y_true = [0, 1]
    >>> y_prob = [0.25, 0.75]

    The residuals are -0.25 at 0.25 and 0.25 at 0.75; the best test function
    rises by 0.5 between them, so the error is (0.25 * 0.5) / 2:

    >>> smooth_calibration_error(y_true, y_prob)
    0.0625

    An interval indicator can pick the residual at 0.75 alone:

    >>> from skcal.metrics import cutoff_calibration_error
    >>> cutoff_calibration_error(y_true, y_prob)
    0.125
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    measure = smooth_error_core(method=method, n_grid=n_grid)
    return reduce_measure(data, reduction, measure, return_per_class=return_per_class)
