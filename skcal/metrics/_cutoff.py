"""Cutoff calibration error and the test that certifies it is small.

The cutoff calibration error of Rossellini et al. (2025) is the largest mean
residual over intervals of predictions. Its plug-in estimate is the range of
the cumulative residual along the sorted predictions, so one sort and one
cumulative sum give it in O(n log n). The sorted prefix sums computed here are
also the input of the smooth calibration error
(:func:`skcal.metrics._smooth_calibration.smooth_calibration_error`).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import (
    REDUCTION_CONSTRAINTS,
    binary_views,
    reduce_measure,
    resolve_reduction,
)
from skcal._validation import DATA_CONSTRAINTS, check_calibration_inputs

# The constants of Proposition 4.1 of Rossellini et al. (2025): with
# probability at least 1 - delta, the plug-in estimate is within
# (20 + sqrt(2 log(1 / delta))) / sqrt(n) of the population error.
_RADEMACHER_CONSTANT = 20.0

# Bootstrap labels drawn per block (a block of draws is one 2-D array).
_BOOTSTRAP_BLOCK = 1 << 18


class SortedGroups(NamedTuple):
    """One binary view's predictions, sorted once, with their tie groups.

    Attributes
    ----------
    order : ndarray of shape (n_samples,)
        The permutation that sorts the predictions.
    p_sorted : ndarray of shape (n_samples,)
        The sorted predictions.
    w_sorted : ndarray of shape (n_samples,) or None
        The sample weights in sorted order, divided by the largest one (only
        ratios matter, and products with tiny weights would underflow), or
        None when unweighted.
    ends : ndarray of shape (n_groups,)
        The position, in sorted order, of the last row of each group of
        identical predictions.
    total_weight : float
        The sum of the weights in ``w_sorted`` (the number of rows when
        unweighted).
    """

    order: np.ndarray
    p_sorted: np.ndarray
    w_sorted: np.ndarray | None
    ends: np.ndarray
    total_weight: float

    @property
    def values(self):
        """The distinct predictions, in increasing order."""
        if self.ends.shape[0] == self.p_sorted.shape[0]:
            return self.p_sorted
        return self.p_sorted[self.ends]


def sort_groups(p, sample_weight):
    """Sort the predictions of one binary view and find their tie groups."""
    order = np.argsort(p)
    p_sorted = p[order]
    ends = np.flatnonzero(p_sorted[1:] != p_sorted[:-1])
    ends = np.append(ends, p.shape[0] - 1)
    if sample_weight is None:
        return SortedGroups(order, p_sorted, None, ends, float(p.shape[0]))
    w_sorted = sample_weight[order]
    w_sorted /= w_sorted.max()
    return SortedGroups(order, p_sorted, w_sorted, ends, float(w_sorted.sum()))


def residual_prefix_sums(groups, y, *, presorted=False):
    """Normalised cumulative residuals at the end of each tie group.

    Parameters
    ----------
    groups : SortedGroups
        The sorted predictions (see :func:`sort_groups`).
    y : ndarray of shape (n_samples,) or (n_draws, n_samples)
        Outcomes in [0, 1], in the original row order; one set per row of a
        2-D array.
    presorted : bool, default=False
        Whether ``y`` is already in the sorted order of the predictions.

    Returns
    -------
    prefix : ndarray of shape (n_groups,) or (n_draws, n_groups)
        ``prefix[..., k]`` is the weighted sum of ``y - p`` over the rows
        whose prediction is at most the ``k``-th distinct prediction,
        divided by the total weight.
    """
    residual = (y if presorted else y[..., groups.order]).astype(np.float64)
    residual -= groups.p_sorted
    if groups.w_sorted is not None:
        residual *= groups.w_sorted
    np.cumsum(residual, axis=-1, out=residual)
    if groups.ends.shape[0] < groups.p_sorted.shape[0]:
        # `take` keeps rows contiguous (fancy indexing would not), and
        # reductions along them fast.
        residual = residual.take(groups.ends, axis=-1)
    residual /= groups.total_weight
    return residual


def _range_with_zero(prefix):
    """``max(0, prefix) - min(0, prefix)`` along the last axis: the cutoff error."""
    return np.maximum(prefix.max(axis=-1), 0.0) - np.minimum(prefix.min(axis=-1), 0.0)


def _cutoff_core(y, p, sample_weight):
    """The cutoff calibration error of one binary view (float64 inputs)."""
    prefix = residual_prefix_sums(sort_groups(p, sample_weight), y)
    return float(_range_with_zero(prefix))


@validate_params(
    {**DATA_CONSTRAINTS, **REDUCTION_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
@fill_doc
def cutoff_calibration_error(
    y_true,
    y_prob,
    *,
    sample_weight=None,
    pos_label=None,
    labels=None,
    reduction="auto",
    return_per_class=False,
):
    r"""Cutoff calibration error: the largest mean residual over an interval.

    Over every interval of predicted probabilities, the residuals
    ``y - p`` of the samples whose prediction falls in the interval are
    summed, and divided by the total number (or weight) of samples. The
    largest absolute value is the cutoff calibration error of Rossellini et
    al. (2025). Unlike binned errors it has no tuning parameter, and unlike
    the (unbinned) ECE it can be estimated at the rate
    :math:`n^{-1/2}` whatever the distribution, which makes it testable
    (see :func:`cutoff_calibration_test`). It bounds the loss of any
    threshold decision rule against the best monotone post-processing.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(reduction)s
    %(return_per_class)s

    Returns
    -------
    error : float or ndarray of shape (n_classes,)
        The cutoff calibration error, in [0, 1]; the per-class values when
        ``return_per_class=True``.

    See Also
    --------
    cutoff_calibration_test : Certify that the cutoff calibration error is
        below a tolerance.
    smooth_calibration_error : The same supremum over 1-Lipschitz test
        functions instead of interval indicators.
    expected_calibration_error : The binned ECE.

    Notes
    -----
    With weights :math:`w_i` (all 1 when unweighted) and
    :math:`W = \sum_i w_i`, the estimator is

    .. math::

        \widehat\Delta_{\mathrm{Cutoff}} = \sup_{I \text{ interval}}
        \Big| \frac{1}{W} \sum_{i} w_i (y_i - p_i) \mathbf{1}\{p_i \in I\}
        \Big|,

    the plug-in estimate of
    :math:`\Delta_{\mathrm{Cutoff}} = \sup_I |\mathbb{E}[(Y - p)
    \mathbf{1}\{p \in I\}]|`. Let :math:`u_1 < \dots < u_m` be the distinct
    predictions and :math:`P_k` the weighted sum of residuals over
    :math:`p_i \le u_k`, divided by :math:`W`, with :math:`P_0 = 0`. An
    interval holds either all or none of the samples with a given
    prediction, and selects a run :math:`u_{j+1}, \dots, u_k`, whose sum is
    :math:`P_k - P_j`; hence

    .. math::

        \widehat\Delta_{\mathrm{Cutoff}} = \max_{0 \le k \le m} P_k
        - \min_{0 \le k \le m} P_k,

    computed after one sort. The maximising interval runs from the
    prediction after the minimum of :math:`P` to the one at its maximum
    (outcomes above predictions) or conversely. The value lies between
    :math:`|\bar y - \bar p|` (the interval [0, 1]) and the plug-in ECE
    that groups identical predictions; a constant prediction :math:`c` has
    error :math:`|\bar y - c|`. The estimate is within
    :math:`(20 + \sqrt{2 \log(1/\delta)}) / \sqrt{n}` of the population
    value with probability at least :math:`1 - \delta` (Proposition 4.1 of
    [1]_). Rossellini et al. note that it is close to the cumulative
    calibration metrics of Arrieta-Ibarra et al. [2]_.

    References
    ----------
    .. [1] L. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.
    .. [2] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu,
       "Metrics of calibration for probabilistic predictions", JMLR 23(351),
       2022.

    Examples
    --------
    >>> from skcal.metrics import cutoff_calibration_error
    >>> y_true = [0, 1, 0, 1]
    >>> y_prob = [0.25, 0.25, 0.75, 0.75]

    The residuals are -0.25 and 0.75 at 0.25, -0.75 and 0.25 at 0.75, so
    the cumulative sums are 0, 0.5 and 0; the interval [0, 0.25] has the
    largest mean residual, 0.5 / 4:

    >>> cutoff_calibration_error(y_true, y_prob)
    0.125
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    return reduce_measure(
        data, reduction, _cutoff_core, return_per_class=return_per_class
    )


# ---------------------------------------------------------------------------
# Certification test
# ---------------------------------------------------------------------------


def _null_statistics(data, reduction, groups, n_bootstrap, rng):
    """The test statistic on ``n_bootstrap`` label sets drawn from the model.

    The predictions do not change between draws, so every view is sorted
    once (``groups``) and each draw costs a cumulative sum per view. With a
    single view (``"positive"``, ``"top_label"``) its labels are independent
    Bernoulli draws with the view's probabilities, drawn in sorted order;
    ``"classwise"`` draws whole labels from each row, so that the classes
    are drawn jointly.
    """
    if len(groups) == 1:
        return null_statistics_one_view(groups[0], n_bootstrap, rng)
    null = np.empty(n_bootstrap)
    n = data.y_prob.shape[0]
    cumulative = None if data.binary else np.cumsum(data.y_prob, axis=1)
    for b in range(n_bootstrap):
        u = rng.random_sample(n)
        if data.binary:
            y_true = u < data.y_prob
        else:
            # The class of the first cumulative probability above u; rows
            # summing to slightly less than 1 could give n_classes.
            y_true = np.minimum(
                (u[:, None] >= cumulative).sum(axis=1), cumulative.shape[1] - 1
            )
        views = binary_views(data._replace(y_true=y_true), reduction)
        null[b] = np.mean(
            [
                float(_range_with_zero(residual_prefix_sums(g, y)))
                for g, (y, _) in zip(groups, views, strict=True)
            ]
        )
    return null


def null_statistics_one_view(groups, n_bootstrap, rng):
    """The cutoff error of one binary view on labels redrawn from its predictions.

    Each of the ``n_bootstrap`` draws gives every row an independent
    Bernoulli label with its predicted probability. Draws come in blocks of
    at most ``_BOOTSTRAP_BLOCK`` labels; the stream of random numbers, hence
    the result, does not depend on the block size.
    """
    null = np.empty(n_bootstrap)
    n = groups.p_sorted.shape[0]
    step = max(1, min(n_bootstrap, _BOOTSTRAP_BLOCK // n))
    for start in range(0, n_bootstrap, step):
        stop = min(start + step, n_bootstrap)
        y = rng.random_sample((stop - start, n)) < groups.p_sorted
        null[start:stop] = _range_with_zero(
            residual_prefix_sums(groups, y, presorted=True)
        )
    return null


def effective_sample_size(sample_weight, n_samples):
    """Number of rows, or Kish's effective size ``W**2 / sum(w**2)``."""
    if sample_weight is None:
        return float(n_samples)
    # Rescale first: only ratios matter, and squares may under- or overflow.
    w = sample_weight / sample_weight.max()
    return float(w.sum() ** 2 / np.dot(w, w))


def bound_margin(n_effective, alpha):
    """Proposition 4.1's allowance ``(20 + sqrt(2 log(1 / alpha))) / sqrt(n)``."""
    return (_RADEMACHER_CONSTANT + math.sqrt(2.0 * math.log(1.0 / alpha))) / (
        math.sqrt(n_effective)
    )


def bootstrap_margin(null, alpha):
    """The bootstrap allowance: the ``k``-th largest draw of the null statistic.

    ``k`` is the largest integer with ``k / (B + 1) <= alpha``, so that a
    statistic is beyond the margin exactly when fewer than ``k`` of the
    ``B`` draws reach it; infinite when ``k = 0`` (too few draws).
    """
    n_bootstrap = null.shape[0]
    k = int(math.floor(alpha * (n_bootstrap + 1)))
    while (k + 1) / (n_bootstrap + 1.0) <= alpha:
        k += 1
    while k > 0 and k / (n_bootstrap + 1.0) > alpha:
        k -= 1
    return float(np.sort(null)[-k]) if k > 0 else math.inf


@validate_params(
    {
        **DATA_CONSTRAINTS,
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions({"bound", "bootstrap"})],
        "n_bootstrap": [Interval(Integral, 1, None, closed="left")],
        "reduction": REDUCTION_CONSTRAINTS["reduction"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def cutoff_calibration_test(
    y_true,
    y_prob,
    *,
    sample_weight=None,
    pos_label=None,
    labels=None,
    tolerance,
    alpha=0.05,
    method="bound",
    n_bootstrap=1000,
    random_state=None,
    reduction="auto",
):
    r"""Test that certifies a cutoff calibration error below a tolerance.

    The null hypothesis is that the model is miscalibrated by more than the
    tolerance, :math:`H_0: \Delta_{\mathrm{Cutoff}} > \varepsilon`, and the
    alternative is :math:`\Delta_{\mathrm{Cutoff}} \le \varepsilon`.
    Rejecting :math:`H_0` *certifies*, at level ``alpha``, that the
    population cutoff calibration error is at most ``tolerance``
    (Rossellini et al., 2025, Section 4.1). Not rejecting it means that the
    data are not enough to certify the tolerance; it is no evidence of
    miscalibration.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    tolerance : float
        The tolerance :math:`\varepsilon \ge 0` to certify. As the error is at
        most 1, a tolerance of 1 or more always holds.
    alpha : float, default=0.05
        The level, in (0, 1): the largest probability of certifying a model
        whose cutoff calibration error exceeds ``tolerance``.
    method : {"bound", "bootstrap"}, default="bound"
        ``"bound"``: the distribution-free test of Proposition 4.1 of
        Rossellini et al. (2025), valid at every sample size but
        conservative. ``"bootstrap"``: the margin is the ``1 - alpha``
        quantile of the statistic when labels are redrawn from the
        predicted probabilities (a parametric bootstrap under perfect
        calibration); much more powerful, but only approximately of level
        ``alpha`` (see Notes).
    n_bootstrap : int, default=1000
        Number of bootstrap draws (``method="bootstrap"`` only). With fewer
        than ``1 / alpha - 1`` draws nothing can be certified.
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap draws (``method="bootstrap"`` only). Pass an int
        for reproducible output across multiple function calls.
    reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
        How a multiclass problem is reduced to binary ones. ``"positive"``:
        the probability of ``pos_label`` against its indicator.
        ``"top_label"``: the largest probability (confidence) against the
        correctness of the argmax. ``"classwise"``: the mean of the
        one-vs-rest errors of all classes is tested. ``"auto"`` is
        ``"positive"`` for binary problems and ``"top_label"`` otherwise.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields:

        - ``statistic``: the cutoff calibration error of the data (the mean
          over classes for ``"classwise"``), as
          :func:`cutoff_calibration_error` returns it;
        - ``margin``: the allowance for sampling error;
        - ``threshold``: ``tolerance - margin``; the tolerance is certified
          when ``statistic <= threshold`` (``"bound"``) or
          ``statistic < threshold`` (``"bootstrap"``);
        - ``p_value``: the bootstrap p-value of :math:`H_0`, or None for
          ``"bound"``;
        - ``certified``: whether :math:`\Delta_{\mathrm{Cutoff}} \le`
          ``tolerance`` is certified, i.e. :math:`H_0` rejected;
        - ``reject``: the same decision, named as a test's;
        - ``null_hypothesis``: the text of :math:`H_0`;
        - ``calibration_p_value``: for ``"bootstrap"``, the p-value of
          another null hypothesis, perfect calibration
          (:math:`\mathbb{E}[y \mid p] = p`), from the same draws: small
          values are evidence of miscalibration, whatever the tolerance;
          None for ``"bound"``;
        - ``tolerance``, ``alpha``, ``method``: the arguments;
        - ``n_effective``: the sample size used by ``"bound"`` (the number
          of rows, or Kish's effective size when weighted).

    See Also
    --------
    cutoff_calibration_error : The statistic of this test.

    Notes
    -----
    **Bound.** By Proposition 4.1 of [1]_, for :math:`n` i.i.d. samples the
    estimate :math:`\widehat\Delta` is within
    :math:`\mathrm{margin} = (20 + \sqrt{2\log(1/\alpha)})/\sqrt{n}` of
    :math:`\Delta_{\mathrm{Cutoff}}` with probability at least
    :math:`1 - \alpha`. Certifying when
    :math:`\widehat\Delta \le \varepsilon - \mathrm{margin}` is thus wrong
    with probability at most :math:`\alpha` whenever
    :math:`\Delta_{\mathrm{Cutoff}} > \varepsilon`, whatever the
    distribution. Nothing below the margin can be certified: the margin is
    0.22 at :math:`n = 10^4` and :math:`\alpha = 0.05`. The proof goes
    through for the mean of the classwise errors (the supremum of an
    average of processes, each with the same bound on its values and its
    Rademacher complexity) and, with fixed weights, for weighted data with
    :math:`n` replaced by Kish's effective size
    :math:`(\sum_i w_i)^2 / \sum_i w_i^2` (both derived here, not in [1]_).
    Weights are therefore not equivalent to repeated rows for this test.

    **Bootstrap.** The labels are redrawn :math:`B` times from the
    predicted probabilities (a Bernoulli draw with probability
    :math:`p_i`; a draw from the whole row of probabilities for multiclass
    reductions, so that all classes are drawn jointly), the predictions
    and weights being kept, and :math:`D_b` is the statistic of draw
    :math:`b`. Since :math:`\widehat\Delta \ge \Delta_{\mathrm{Cutoff}} - S`
    with :math:`S` the supremum of the centred residual process, and
    :math:`D_b` is a draw of :math:`S` under perfect calibration, the
    p-value of :math:`H_0` is

    .. math::

        \frac{1 + \#\{b : D_b \ge \varepsilon - \widehat\Delta\}}{B + 1},

    and the tolerance is certified when it is at most :math:`\alpha`. The
    margin is the :math:`\lfloor \alpha (B + 1) \rfloor`-th largest
    :math:`D_b`, about :math:`1.03 / \sqrt{n}` for uniform predictions. This
    is not in [1]_ and carries no finite-sample guarantee: it takes the
    fluctuations of a model that misses the tolerance to be those of a
    calibrated model with the same predictions. The inequality above is
    loose, and in simulations of models whose miscalibration is spread out
    or local the rate of wrong certificates stays well below ``alpha``. But
    where predictions near 0 or 1 face event rates far from them, outcomes
    vary more than the redrawn labels and the margin is too small: for
    instance 100 predictions of 0.01 for events of rate 0.2 (error 0.19)
    are certified below a tolerance of 0.185 a quarter of the time at
    ``alpha=0.05``. Use ``"bound"`` when a guarantee is needed.

    The same draws give an exact Monte Carlo test of perfect calibration
    (for ``"classwise"``, of the whole probability vector): given the
    predictions, a calibrated model's labels are independent draws with
    probabilities :math:`p_i`, so
    :math:`(1 + \#\{b : D_b \ge \widehat\Delta\})/(B + 1)`
    (``calibration_p_value``) is a valid p-value of that hypothesis at
    every sample size. Both cost :math:`O(B\, n)` after one sort per view,
    and :math:`O(n)` memory.

    References
    ----------
    .. [1] L. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import cutoff_calibration_test
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=10_000)
    >>> y_true = rng.uniform(size=10_000) < y_prob

    The distribution-free bound certifies only tolerances above its margin,
    0.22 at this sample size:

    >>> result = cutoff_calibration_test(y_true, y_prob, tolerance=0.05)
    >>> result.certified, round(result.margin, 4)
    (False, 0.2245)
    >>> cutoff_calibration_test(y_true, y_prob, tolerance=0.25).certified
    True

    The bootstrap margin is about a twentieth of it:

    >>> result = cutoff_calibration_test(
    ...     y_true, y_prob, tolerance=0.05, method="bootstrap", random_state=0
    ... )
    >>> result.certified, bool(result.margin < 0.015)
    (True, True)

    Nor do the draws give evidence against perfect calibration:

    >>> bool(result.calibration_p_value > 0.05)
    True
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    reduction = resolve_reduction(data, reduction)
    views = list(binary_views(data, reduction))
    groups = [sort_groups(p, data.sample_weight) for _, p in views]
    statistic = float(
        np.mean(
            [
                float(_range_with_zero(residual_prefix_sums(g, y)))
                for g, (y, _) in zip(groups, views, strict=True)
            ]
        )
    )
    n_effective = effective_sample_size(data.sample_weight, data.y_prob.shape[0])
    if method == "bound":
        margin = bound_margin(n_effective, alpha)
        threshold = tolerance - margin
        p_value = calibration_p_value = None
        certified = statistic <= threshold
    else:
        rng = check_random_state(random_state)
        null = _null_statistics(data, reduction, groups, n_bootstrap, rng)
        exceed = int(np.count_nonzero(null >= tolerance - statistic))
        p_value = (1.0 + exceed) / (n_bootstrap + 1.0)
        certified = p_value <= alpha
        extreme = int(np.count_nonzero(null >= statistic))
        calibration_p_value = (1.0 + extreme) / (n_bootstrap + 1.0)
        margin = bootstrap_margin(null, alpha)
        threshold = tolerance - margin
    return Bunch(
        statistic=statistic,
        margin=float(margin),
        threshold=float(threshold),
        p_value=p_value,
        certified=bool(certified),
        reject=bool(certified),
        null_hypothesis=f"cutoff calibration error > {float(tolerance)!r}",
        calibration_p_value=calibration_p_value,
        tolerance=tolerance,
        alpha=alpha,
        method=method,
        n_effective=n_effective,
    )
