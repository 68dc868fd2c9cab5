"""Cutoff calibration error and the test that certifies it is small.

The cutoff calibration error of Rossellini et al. (2025) is the largest mean
residual over intervals of predictions. Its plug-in estimate is the range of
the cumulative residual along the sorted predictions, so one sort and one
cumulative sum give it in O(n log n). The sorted prefix sums computed here are
also the input of the smooth calibration error
(:func:`skcal.metrics._smooth_calibration.smooth_calibration_error`).
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral, Real
from typing import Literal

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
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._bootstrap import N_BOOTSTRAP, NullLabels
from skcal._utils._cumulative import (
    bootstrap_margin,
    bound_margin,
    cutoff_statistic,
    null_statistics,
    range_with_zero,
    residual_prefix_sums,
)
from skcal._utils._scaling import effective_size
from skcal._utils._ties import Ties
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups


@validate_params(
    {**DATA_CONSTRAINTS, **GROUPS_CONSTRAINT, **REDUCTION_CONSTRAINTS},
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def cutoff_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
) -> float | np.ndarray:
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

    Read more in the :ref:`User Guide <cutoff_calibration>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
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
    \mathbf{1}\{p \in I\}]|`. With :math:`u_1 < \dots < u_m` the distinct
    predictions and :math:`P_k` the weighted sum of the residuals over
    :math:`p_i \le u_k`, divided by :math:`W` (:math:`P_0 = 0`), it is the
    range of this cumulative residual,

    .. math::

        \widehat\Delta_{\mathrm{Cutoff}} = \max_{0 \le k \le m} P_k
        - \min_{0 \le k \le m} P_k,

    computed after one sort; a Kuiper-type statistic close to the
    cumulative calibration metrics of Arrieta-Ibarra et al. [2]_. The
    estimate is within :math:`(20 + \sqrt{2 \log(1/\delta)}) / \sqrt{n}`
    of the population value with probability at least :math:`1 - \delta`
    (Proposition 4.1 of [1]_). The User Guide derives the formula and
    relates the error to the ECE and the distance to calibration.

    References
    ----------
    .. [1] R. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.
    .. [2] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu,
       "Metrics of calibration for probabilistic predictions", JMLR 23(351),
       2022, arXiv:2205.09680.

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
        data, reduction, cutoff_statistic, return_per_class=return_per_class
    )


# ---------------------------------------------------------------------------
# Certification test
# ---------------------------------------------------------------------------


def _null_statistics(data, reduction, ties, n_bootstrap, rng):
    """The test statistic on ``n_bootstrap`` label sets drawn from the model.

    The predictions do not change between draws, so every view is sorted
    once (``ties``) and each draw costs a cumulative sum per view. With a
    single view (``"positive"``, ``"top_label"``) its labels are independent
    Bernoulli draws with the view's probabilities, drawn in sorted order;
    ``"classwise"`` draws whole labels from each row
    (:class:`~skcal._utils._bootstrap.NullLabels`), so that the classes are
    drawn jointly.
    """
    if len(ties) == 1:
        return null_statistics(ties[0], n_bootstrap, rng)
    labels = NullLabels(data, reduction)
    null = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        views = labels.draw_views(rng.random_sample(data.y_prob.shape[0]))
        null[b] = np.mean(
            [
                float(range_with_zero(residual_prefix_sums(t, y)))
                for t, (y, _) in zip(ties, views, strict=True)
            ]
        )
    return null


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions({"bound", "bootstrap"})],
        "n_bootstrap": [Interval(Integral, 1, None, closed="left")],
        "reduction": REDUCTION_CONSTRAINTS["reduction"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def cutoff_calibration_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    tolerance: float,
    alpha: float = 0.05,
    method: Literal["bootstrap", "bound"] = "bound",
    n_bootstrap: int = N_BOOTSTRAP,
    random_state: RandomStateLike = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Test that certifies a cutoff calibration error below a tolerance.

    The null hypothesis is that the model is miscalibrated by more than the
    tolerance, :math:`H_0: \Delta_{\mathrm{Cutoff}} > \varepsilon`, and the
    alternative is :math:`\Delta_{\mathrm{Cutoff}} \le \varepsilon`.
    Rejecting :math:`H_0` *certifies*, at level ``alpha``, that the
    population cutoff calibration error is at most ``tolerance``
    (Rossellini et al., 2025, Section 4.1). Not rejecting it means that the
    data are not enough to certify the tolerance; it is no evidence of
    miscalibration.

    Read more in the :ref:`User Guide <cutoff_calibration>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
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
    :math:`1 - \alpha`, so certifying when
    :math:`\widehat\Delta \le \varepsilon - \mathrm{margin}` is wrong with
    probability at most :math:`\alpha`, whatever the distribution. With
    weights, :math:`n` is Kish's effective size
    :math:`(\sum_i w_i)^2 / \sum_i w_i^2`.

    **Bootstrap.** With :math:`D_b` the statistic of the :math:`b`-th of
    :math:`B` label sets drawn from the predicted probabilities, the
    p-value of :math:`H_0` is

    .. math::

        \frac{1 + \#\{b : D_b \ge \varepsilon - \widehat\Delta\}}{B + 1},

    and ``calibration_p_value`` is
    :math:`(1 + \#\{b : D_b \ge \widehat\Delta\})/(B + 1)`, an exact
    p-value of perfect calibration. The first is not in [1]_ and has no
    finite-sample guarantee: where predictions near 0 or 1 face event rates
    far from them, its margin is too small (100 predictions of 0.01 for
    events of rate 0.2, error 0.19, are certified below a tolerance of
    0.185 a quarter of the time at ``alpha=0.05``). Use ``"bound"`` when a
    guarantee is needed. The User Guide gives the reasoning behind both
    methods and their extensions to weights and classwise errors.

    References
    ----------
    .. [1] R. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
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
    ties = [Ties(p, data.sample_weight) for _, p in views]
    statistic = float(
        np.mean(
            [
                cutoff_statistic(y, p, data.sample_weight, t)
                for t, (y, p) in zip(ties, views, strict=True)
            ]
        )
    )
    n_effective = effective_size(data.sample_weight, data.y_prob.shape[0])
    if method == "bound":
        margin = bound_margin(n_effective, alpha)
        threshold = tolerance - margin
        p_value = calibration_p_value = None
        certified = statistic <= threshold
    else:
        rng = check_random_state(random_state)
        null = _null_statistics(data, reduction, ties, n_bootstrap, rng)
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
