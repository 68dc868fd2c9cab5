"""Kernel (Nadaraya-Watson) estimate of the calibration error induced by a
proper score, and the pointwise sharpness gap (Chidambaram & Ge)."""

# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Real

import numpy as np
from scipy.fft import irfft, next_fast_len, rfft
from sklearn.utils import Bunch

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import (
    REDUCTION_CONSTRAINTS,
    binary_views,
    reduce_measure,
    resolve_reduction,
)
from skcal._utils._ties import Ties
from skcal._validation import DATA_CONSTRAINTS, check_calibration_inputs
from skcal.metrics._proper import (
    LOSSES,
    binary_divergence,
    full_scores,
)

KERNELS = ("gaussian", "epanechnikov")

# Integral of the unnormalised kernel (value 1 at 0) over the real line, in
# bandwidths: the Gaussian exp(-u**2 / 2) and the Epanechnikov (1 - u**2)_+.
_KERNEL_MASS = {"gaussian": math.sqrt(2.0 * math.pi), "epanechnikov": 4.0 / 3.0}

# Gaussian sums on a grid: boxes of _BOX bandwidths and Taylor expansions of
# total degree below _ORDER. The truncation error of one term is at most
# 1.0865 * _BOX**_ORDER / sqrt(_ORDER!) ~ 6e-17 of its weight (Cramer's bound
# |He_m(x)| exp(-x**2 / 4) <= 1.0865 sqrt(m!) on Hermite polynomials).
_BOX = 0.25
_ORDER = 16
# exp(-x**2 / 2) and its derivatives underflow to 0 beyond this many bandwidths.
_UNDERFLOW = 38.5
# Direct sums skip the terms beyond this many bandwidths: exp(-81 / 2) < 3e-18.
_DIRECT_CUTOFF = 9.0
# Direct sums are used when there are at most this many pairs per point.
_DIRECT_PAIRS_PER_POINT = 32
# Target boxes per FFT segment, and point pairs per block of direct sums.
_SEGMENT = 1 << 14
_PAIR_BLOCK = 1 << 21


# ---------------------------------------------------------------------------
# Kernel sums: sum_i values[i] * K(query - points[i]), in bandwidth units
# ---------------------------------------------------------------------------


def _epanechnikov_sums(zq, zs, values):
    """Sums of ``values[i] * (1 - (zq - zs[i])**2)_+`` by sorted prefix sums.

    The kernel is a quadratic polynomial on its window, so each sum is a
    combination of the window's sums of ``1, z, z**2`` times the values. To
    keep rounding errors proportional to the weights rather than to
    ``(z / bandwidth)**2``, coordinates are taken relative to the left edge of
    boxes of width 2: a window ``(zq - 1, zq + 1)`` meets at most two boxes,
    split at the even integer ``edge`` inside it.
    """
    n_targets = values.shape[1]
    box_edge = 2.0 * np.floor(0.5 * zs)
    u = zs - box_edge  # in [0, 2)
    del box_edge
    left = np.searchsorted(zs, zq - 1.0, side="right")
    right = np.searchsorted(zs, zq + 1.0, side="left")
    edge = 2.0 * np.floor(0.5 * zq)
    edge += np.where(zq - edge < 1.0, 0.0, 2.0)
    mid = np.searchsorted(zs, edge, side="left")
    # Offsets of the query from the left edges of the boxes right of `edge`
    # (in [-1, 1)) and left of it (in [1, 3)).
    a_right = zq - edge
    a_left = a_right + 2.0
    del edge
    # 1 - (a - u)**2 = (1 - a**2) * u**0 + (2 a) * u**1 - u**2.
    coefficients = [
        (1.0 - a_left**2, 1.0 - a_right**2),
        (2.0 * a_left, 2.0 * a_right),
        (-1.0, -1.0),
    ]
    out = np.zeros((zq.shape[0], n_targets))
    cumulative = np.zeros(zs.shape[0] + 1)
    power = np.ones_like(zs)
    for k, (c_left, c_right) in enumerate(coefficients):
        if k:
            power *= u
        for t in range(n_targets):
            np.cumsum(values[:, t] * power, out=cumulative[1:])
            at_mid = cumulative[mid]
            out[:, t] += c_left * (at_mid - cumulative[left])
            out[:, t] += c_right * (cumulative[right] - at_mid)
    return out


def _gaussian_direct_sums(zq, zs, values):
    """Gaussian sums over the points within `_DIRECT_CUTOFF` of each query."""
    n_targets = values.shape[1]
    left = np.searchsorted(zs, zq - _DIRECT_CUTOFF, side="left")
    counts = np.searchsorted(zs, zq + _DIRECT_CUTOFF, side="right") - left
    ends = np.cumsum(counts)
    out = np.zeros((zq.shape[0], n_targets))
    start = 0
    while start < zq.shape[0]:
        before = ends[start] - counts[start]
        stop = int(np.searchsorted(ends, before + _PAIR_BLOCK, side="right"))
        stop = max(stop, start + 1)
        block_counts = counts[start:stop]
        query = np.repeat(np.arange(stop - start), block_counts)
        run_starts = ends[start:stop] - block_counts - before
        source = np.arange(query.shape[0]) - run_starts[query] + left[start:stop][query]
        kernel = np.exp(-0.5 * np.square(zq[start:stop][query] - zs[source]))
        for t in range(n_targets):
            out[start:stop, t] = np.bincount(
                query, weights=values[source, t] * kernel, minlength=stop - start
            )
        start = stop
    return out


def _gaussian_derivatives(offsets, n_orders):
    """``g^(m)(x)`` for the Gaussian ``g(x) = exp(-x**2 / 2)``, m < n_orders.

    ``g^(m)(x) = (-1)**m He_m(x) g(x)``; the products ``He_m(x) g(x)`` follow
    the Hermite recurrence directly, so nothing overflows.
    """
    out = np.empty((n_orders, offsets.shape[0]))
    out[0] = np.exp(-0.5 * offsets**2)
    if n_orders > 1:
        out[1] = offsets * out[0]
    for m in range(1, n_orders - 1):
        out[m + 1] = offsets * out[m] - m * out[m - 1]
    out[1::2] *= -1.0
    return out


def _gaussian_grid_sums(zq, zs, values):
    """Gaussian sums by Taylor expansions on boxes, convolved by FFT.

    Points and queries are located in boxes of width `_BOX` with centres
    ``c``; for a point ``z = c_j + delta`` and a query ``x = c_l + eps``,

        g(x - z) = sum_{a + b < K} g^(a+b)(c_l - c_j) eps**a / a! (-delta)**b / b!

    up to the truncation error stated at `_BOX`. The box moments
    ``sum values * (-delta)**b / b!`` are convolved with the derivative
    kernels ``g^(m)`` (by FFT, in segments of `_SEGMENT` target boxes) and
    evaluated at each query by Horner's rule: O(n K + (range / _BOX) K**2 log)
    operations.
    """
    h, order = _BOX, _ORDER
    n_targets = values.shape[1]
    lo = min(zs[0], zq[0])
    n_boxes = int((max(zs[-1], zq[-1]) - lo) / h) + 1

    def locate(z):
        box = np.minimum(((z - lo) / h).astype(np.intp), n_boxes - 1)
        return box, z - (lo + (box + 0.5) * h)

    source_box, delta = locate(zs)
    query_box, eps = locate(zq)
    reach = min(n_boxes - 1, math.ceil(_UNDERFLOW / h))
    derivatives = _gaussian_derivatives(np.arange(-reach, reach + 1) * h, order)
    segment = min(_SEGMENT, n_boxes)
    size = next_fast_len(segment + 4 * reach + 1, real=True)
    derivatives_hat = rfft(derivatives, n=size, axis=1)
    out = np.zeros((zq.shape[0], n_targets))
    for first in range(0, n_boxes, segment):
        last = min(first + segment, n_boxes)
        q0, q1 = np.searchsorted(query_box, [first, last])
        if q0 == q1:
            continue
        s_first = max(first - reach, 0)
        s_last = min(last + reach, n_boxes)
        s0, s1 = np.searchsorted(source_box, [s_first, s_last])
        boxes = source_box[s0:s1] - s_first
        starts = np.flatnonzero(np.r_[True, boxes[1:] != boxes[:-1]])
        moments = np.zeros((order, n_targets, s_last - s_first))
        if s1 > s0:
            occupied = boxes[starts]
            term = np.ones(s1 - s0)
            factor = -delta[s0:s1]
            for b in range(order):
                if b:
                    term *= factor
                    term /= b
                for t in range(n_targets):
                    moments[b, t, occupied] = np.add.reduceat(
                        values[s0:s1, t] * term, starts
                    )
        moments_hat = rfft(moments, n=size, axis=2)
        # Coefficient a at target box l is full[l - s_first + reach]; the
        # queries are sorted, so repeating each box's coefficient by its
        # number of queries lines them up with the queries.
        offset = first - s_first + reach
        per_box = np.bincount(query_box[q0:q1] - first, minlength=last - first)
        x = eps[q0:q1]
        result = np.zeros((n_targets, q1 - q0))
        for a in range(order - 1, -1, -1):
            spectrum = np.einsum(
                "btf,bf->tf", moments_hat[: order - a], derivatives_hat[a:order]
            )
            coefficient = irfft(spectrum, n=size, axis=1)[
                :, offset : offset + last - first
            ]
            # Horner: sum_a eps**a / a! T_a = T_0 + eps (T_1 + eps / 2 (T_2 + ...)).
            result *= x / (a + 1)
            result += np.repeat(coefficient, per_box, axis=1)
        out[q0:q1] = result.T
    return out


def _kernel_sums(query, points, values, kernel, bandwidth, *, method=None):
    """Kernel-weighted sums ``sum_i values[i] K((query - points[i]) / bandwidth)``.

    Parameters
    ----------
    query : ndarray of shape (n_queries,)
        Sorted evaluation points.
    points : ndarray of shape (n_points,)
        Sorted data points.
    values : ndarray of shape (n_points, n_targets)
        What is summed (weights, weighted outcomes, ...).
    kernel : {"gaussian", "epanechnikov"}
        ``exp(-u**2 / 2)`` or ``(1 - u**2)_+`` (value 1 at 0, not normalised).
    bandwidth : float
        The bandwidth.
    method : {None, "direct", "grid"}, default=None
        For the Gaussian kernel, direct sums within 9 bandwidths or the
        grid expansion; None chooses the cheaper.

    Returns
    -------
    sums : ndarray of shape (n_queries, n_targets)
    """
    zq = query / bandwidth
    zs = points / bandwidth
    if kernel == "epanechnikov":
        return _epanechnikov_sums(zq, zs, values)
    if method is None:
        pairs = np.sum(
            np.searchsorted(zs, zq + _DIRECT_CUTOFF, side="right")
            - np.searchsorted(zs, zq - _DIRECT_CUTOFF, side="left")
        )
        n_boxes = (max(zs[-1], zq[-1]) - min(zs[0], zq[0])) / _BOX
        budget = _DIRECT_PAIRS_PER_POINT * (zq.shape[0] + zs.shape[0])
        method = "direct" if pairs <= budget or n_boxes > 4 * budget else "grid"
    if method == "direct":
        return _gaussian_direct_sums(zq, zs, values)
    return _gaussian_grid_sums(zq, zs, values)


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
    kernel_sums = _kernel_sums(
        groups.values, groups.values[source], values, kernel, bandwidth
    )
    denominator = kernel_sums[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = kernel_sums[:, 1] / denominator
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
            expected = kernel_sums[:, 2] / denominator
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
    mass = estimate.total * bandwidth * _KERNEL_MASS[kernel]
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
