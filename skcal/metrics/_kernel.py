"""Kernel (Nadaraya-Watson) estimate of the calibration error induced by a
proper score, and the pointwise sharpness gap (Chidambaram & Ge)."""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Real

import numpy as np
from sklearn.utils import Bunch

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import (
    REDUCTION_CONSTRAINTS,
    binary_views,
    reduce_measure,
    resolve_reduction,
)
from skcal._utils._kernel_sums import KERNEL_MASS, KERNELS, kernel_sums
from skcal._utils._ties import Ties
from skcal._validation import DATA_CONSTRAINTS, check_calibration_inputs
from skcal.metrics._proper import (
    LOSSES,
    binary_divergence,
    full_scores,
)

# ---------------------------------------------------------------------------
# The estimator on one binary view
# ---------------------------------------------------------------------------


def _reaches(groups, carriers, kernel, bandwidth):
    """Whether some group in ``carriers`` has positive kernel weight at each group.

    The Gaussian kernel is positive everywhere; the Epanechnikov kernel on
    the open interval of half-width ``bandwidth``. Deciding this by counting,
    not from rounded sums, keeps the exact zeros of the estimates exact.
    """
    if kernel == "gaussian":
        return np.full(groups.values.shape[0], carriers.any())
    z = groups.values / bandwidth
    z_carriers = z[carriers]
    inside = np.searchsorted(z_carriers, z + 1.0, side="left") - np.searchsorted(
        z_carriers, z - 1.0, side="right"
    )
    return inside > 0


def _kernel_estimate(y, p, sample_weight, *, loss, kernel, bandwidth, full_loss=None):
    """Nadaraya-Watson estimates at every distinct prediction.

    Returns a Bunch with the calibration error and, per distinct prediction
    (``groups``), the kernel sum of the weights, the event rate and, when
    ``full_loss`` is given, the smoothed full loss.
    """
    groups = Ties(p, sample_weight)
    events = groups.sum(y)
    sums = [groups.weight, events]
    if full_loss is not None:
        finite = np.isfinite(full_loss)
        sums.append(groups.sum(np.where(finite, full_loss, 0.0)))
        infinite_weight = groups.sum(~finite)
    source = groups.weight > 0
    values = np.column_stack([s[source] for s in sums])
    smoothed = kernel_sums(
        groups.values, groups.values[source], values, kernel, bandwidth
    )
    denominator = smoothed[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = smoothed[:, 1] / denominator
    # The rate is exactly 0 (1) where no event (non-event) has kernel weight,
    # and strictly between otherwise, whatever the rounding of the sums: the
    # log loss of a prediction of exactly 0 or 1 depends on it.
    has_event = _reaches(groups, events > 0, kernel, bandwidth)
    nonevents = groups.sum(1.0 - np.asarray(y, dtype=np.float64))
    has_nonevent = _reaches(groups, nonevents > 0, kernel, bandwidth)
    np.clip(rate, 0.0, 1.0, out=rate)
    rate[~has_event] = 0.0
    rate[~has_nonevent] = 1.0
    rate[~(source | _reaches(groups, source, kernel, bandwidth))] = np.nan
    total = groups.weight[source].sum()
    pointwise = binary_divergence(groups.values, rate, loss)
    if loss == "log":
        pointwise[(groups.values == 0.0) & has_event] = np.inf
        pointwise[(groups.values == 1.0) & has_nonevent] = np.inf
    error = float(np.dot(groups.weight[source], pointwise[source]) / total)
    result = Bunch(
        groups=groups,
        calibration_error=error,
        denominator=denominator,
        rate=rate,
        pointwise=pointwise,
        total=total,
    )
    if full_loss is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = smoothed[:, 2] / denominator
        expected[_reaches(groups, infinite_weight > 0, kernel, bandwidth)] = np.inf
        result.expected_loss = expected
    return result


@validate_params(
    {
        **DATA_CONSTRAINTS,
        "loss": [StrOptions(set(LOSSES))],
        "kernel": [StrOptions(set(KERNELS))],
        "bandwidth": [Interval(Real, 0, None, closed="neither")],
        **REDUCTION_CONSTRAINTS,
        "return_sharpness": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def kernel_calibration_error(
    y_true,
    y_prob,
    *,
    sample_weight=None,
    pos_label=None,
    labels=None,
    loss="brier",
    kernel="gaussian",
    bandwidth=0.05,
    reduction="auto",
    return_per_class=False,
    return_sharpness=False,
):
    r"""Kernel-smoothed calibration error induced by a proper score.

    The probability of the event given the prediction is estimated by
    Nadaraya-Watson kernel regression, and the divergence of the proper score
    between each prediction and that estimate is averaged over the samples
    (Chidambaram & Ge). For the Brier score this is the squared L2
    calibration error; for the log loss, the mean binary Kullback-Leibler
    divergence. With ``return_sharpness=True`` the pointwise sharpness gap,
    the part of the full loss that calibration does not explain, is
    returned as well.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    loss : {"brier", "log"}, default="brier"
        The proper score whose divergence measures the gap: squared
        difference (Brier) or binary Kullback-Leibler divergence (log).
    kernel : {"gaussian", "epanechnikov"}, default="gaussian"
        The smoothing kernel: the normal density, or
        :math:`\tfrac34 (1 - u^2)` on :math:`|u| \le 1`.
    bandwidth : float, default=0.05
        The kernel's standard deviation (Gaussian) or half-width
        (Epanechnikov), in probability units. Chidambaram & Ge use 0.05 and
        find values in [0.01, 0.05] best.
    %(reduction)s
    %(return_per_class)s
    return_sharpness : bool, default=False
        Return a :class:`~sklearn.utils.Bunch` with the sharpness gap and the
        pointwise estimates instead of the calibration error alone. Needs a
        single binary view (``reduction`` ``"positive"`` or
        ``"top_label"``).

    Returns
    -------
    error : float, ndarray of shape (n_classes,) or Bunch
        The calibration error (the per-class values with
        ``return_per_class=True``). With ``return_sharpness=True``, a Bunch
        with the floats

        - ``calibration_error``: the value above (:math:`d_{\varphi,CAL}`);
        - ``total_loss``: the mean score of the whole predicted distribution
          (:math:`d_{\phi,TOT}`; the Brier score summed over classes);
        - ``sharpness_gap``: the mean of the pointwise sharpness gap over
          the samples;

        and arrays of shape (n_samples,), evaluated at each sample's
        prediction in the view:

        - ``prediction``: the view's probability (the confidence for
          ``"top_label"``);
        - ``event_rate``: the kernel estimate of the event's probability
          (NaN at a prediction of zero weight where no sample of positive
          weight has a kernel weight that is non-zero in float64);
        - ``density``: the kernel density estimate of the predictions;
        - ``expected_loss``: the kernel estimate of the full loss;
        - ``pointwise_calibration_error``: the divergence between the
          prediction and ``event_rate``;
        - ``pointwise_sharpness_gap``: ``expected_loss`` minus
          ``pointwise_calibration_error`` (``-inf`` where only the latter is
          infinite).

    See Also
    --------
    calibration_decomposition : The exact (grouped) calibration term and its
        decomposition.
    binned_calibration_error : The binned L2 calibration error.

    Notes
    -----
    With kernel :math:`K`, bandwidth :math:`\sigma`, the binary view's
    predictions :math:`p_i`, outcomes :math:`y_i` and weights :math:`w_i`,
    :math:`W = \sum_i w_i`:

    .. math::

        \hat m(x) = \frac{\sum_i w_i K((x - p_i)/\sigma)\, y_i}
                        {\sum_i w_i K((x - p_i)/\sigma)}, \qquad
        \widehat{\mathrm{CE}} = \frac{1}{W} \sum_i w_i\,
            d_\varphi\big(\hat m(p_i), p_i\big),

    with :math:`d_\varphi(a, b) = (a - b)^2` (Brier) or :math:`a \log(a/b) +
    (1-a) \log((1-a)/(1-b))` (log). This is the plug-in estimator of the
    authors' ``sharpcal`` code: the regression uses every sample, including
    the one it is evaluated at (no leave-one-out), there is no boundary
    correction at 0 and 1, and it is averaged over the predictions
    themselves. ``sharpcal`` averages over 10 resamples of 5000 evaluation
    points when there are more than 5000 samples; here the average over all
    samples is computed exactly, so the value is deterministic. It estimates
    :math:`E[d_\varphi(E[Y \mid p], p)]`, consistently when :math:`\sigma
    \to 0` slowly as :math:`n` grows (Theorem 4.9); at a fixed bandwidth it
    is biased: with predictions uniform on [0.5, 1], :math:`P(Y = 1 \mid p) =
    p^2` and :math:`\sigma = 0.05`, it levels off about 5 percent below the
    true value 1/30 as :math:`n` grows. With the log loss, a prediction of
    exactly 0 or 1 whose smoothed event rate differs from it has an infinite
    divergence; with the Gaussian kernel, whose weights are all positive,
    this happens as soon as both outcomes occur in the sample.

    The pointwise sharpness gap is

    .. math::

        \hat\rho(x) = \hat m_\ell(x) - d_\varphi(\hat m(x), x),

    where :math:`\hat m_\ell` is the same regression applied to the
    per-sample score :math:`\ell_i` of the whole probability vector (the
    Brier score summed over classes, or :math:`-\log` of the probability of
    the observed class; for a binary problem the vector :math:`(1 - p, p)`).
    Its population value is non-negative (Proposition 4.8); the estimate is
    not guaranteed to be. The mean of :math:`\hat m_\ell(p_i)` differs from
    ``total_loss`` by the smoothing, so ``sharpness_gap`` need not equal
    ``total_loss - calibration_error``.

    *Computation.* The sums run in O(n log n) time and O(n) memory, without
    any n x n matrix. The Epanechnikov kernel is a quadratic on its window,
    so sorted prefix sums of :math:`w, w p, w p^2` (and of the same times
    :math:`y`) give exact sums, up to rounding errors of about
    :math:`10^{-14} W`. For the Gaussian kernel, when each prediction has
    few neighbours within :math:`9\sigma`, the terms within :math:`9\sigma`
    are summed directly (the others are below :math:`3\cdot 10^{-18}` of
    their weight); otherwise the predictions are placed in boxes of width
    :math:`\sigma/4`, the kernel is expanded in a Taylor series of total
    degree 15 within each pair of boxes, and the box moments are convolved
    by FFT on a grid of about :math:`4/\sigma` points (independent of
    :math:`n`). The truncation error of each term is below :math:`6 \cdot
    10^{-17}` of its weight; with rounding, each kernel sum is within about
    :math:`10^{-14} W` of the dense sum.

    References
    ----------
    .. [1] M. Chidambaram and R. Ge, "Reassessing How to Compare and Improve
       the Calibration of Machine Learning Models", arXiv:2406.04068.
    .. [2] E. A. Nadaraya, "On estimating regression", Theory Probab. Appl.
       9(1), 1964, doi:10.1137/1109020.

    Examples
    --------
    >>> from skcal.metrics import kernel_calibration_error
    >>> y_true = [0, 1, 1, 1]
    >>> y_prob = [0.25, 0.25, 0.75, 0.75]

    The two predictions are ten bandwidths apart, so the kernel estimate of
    the event rate is 0.5 at 0.25 and 1 at 0.75:

    >>> kernel_calibration_error(y_true, y_prob)
    0.0625
    >>> result = kernel_calibration_error(y_true, y_prob, return_sharpness=True)
    >>> result.event_rate.tolist()
    [0.5, 0.5, 1.0, 1.0]

    The full Brier score of a binary prediction is ``2 (p - y)**2``:

    >>> result.total_loss
    0.375
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    options = dict(loss=loss, kernel=kernel, bandwidth=bandwidth)
    if not return_sharpness:

        def measure(y, p, w):
            return _kernel_estimate(y, p, w, **options).calibration_error

        return reduce_measure(
            data, reduction, measure, return_per_class=return_per_class
        )

    reduction = resolve_reduction(data, reduction)
    if reduction == "classwise" or return_per_class:
        raise ValueError(
            "return_sharpness=True describes a single binary view: use "
            f'reduction="positive" or "top_label", got reduction={reduction!r}'
            f" and return_per_class={return_per_class!r}."
        )
    ((y, p),) = binary_views(data, reduction)
    w = data.sample_weight
    full_loss = full_scores(data, loss)
    estimate = _kernel_estimate(y, p, w, **options, full_loss=full_loss)
    groups = estimate.groups
    inverse = groups.inverse
    gap = estimate.expected_loss - estimate.pointwise
    positive = groups.weight > 0
    weight = groups.weight[positive]
    mass = estimate.total * bandwidth * KERNEL_MASS[kernel]
    if w is None:
        total_loss = float(full_loss.mean())
    else:
        rows = w > 0
        total_loss = float(np.average(full_loss[rows], weights=w[rows]))
    return Bunch(
        calibration_error=estimate.calibration_error,
        total_loss=total_loss,
        sharpness_gap=float(np.dot(weight, gap[positive]) / estimate.total),
        prediction=np.array(p, dtype=np.float64),
        event_rate=estimate.rate[inverse],
        density=(estimate.denominator / mass)[inverse],
        expected_loss=estimate.expected_loss[inverse],
        pointwise_calibration_error=estimate.pointwise[inverse],
        pointwise_sharpness_gap=gap[inverse],
    )
