"""Kernel (Nadaraya-Watson) estimates of the calibration error induced by a
proper score and of the pointwise sharpness gap (Chidambaram & Ge), at the
predictions and on a grid (the calibration-sharpness diagram's numbers)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral, Real
from typing import Literal

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
from skcal._typing import ArrayLike, Label
from skcal._utils._kernel_sums import KERNEL_MASS, KERNELS, GaussianSums, kernel_sums
from skcal._utils._ties import Ties
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups
from skcal.metrics._proper import (
    LOSSES,
    binary_divergence,
    full_scores,
)

# Where the kernel weight of the data at a point of the grid is below this
# fraction of its maximum, the curve of calibration_sharpness_curve is NaN:
# an extrapolation from a handful of distant predictions.
_SUPPORT_RTOL = 1e-3

# Predictions spread over less than this are a constant predictor.
_CONSTANT_SPREAD = 1e-6

# Rows per block of the streamed Gaussian error.
_BLOCK = 1 << 16

# ---------------------------------------------------------------------------
# Nadaraya-Watson regression of one binary view, at any sorted points
# ---------------------------------------------------------------------------


def _reaches(query, points, carriers, kernel, bandwidth):
    """Whether a point in ``carriers`` has positive kernel weight at each query.

    The Gaussian kernel is positive everywhere; the Epanechnikov kernel on
    the open interval of half-width ``bandwidth``. Deciding this by counting,
    not from rounded sums, keeps the exact zeros of the estimates exact.
    """
    if kernel == "gaussian":
        return np.full(query.shape[0], bool(np.any(carriers)))
    z = points[carriers] / bandwidth
    zq = query / bandwidth
    inside = np.searchsorted(z, zq + 1.0, side="left") - np.searchsorted(
        z, zq - 1.0, side="right"
    )
    return inside > 0


def _rate_and_divergence(query, sums, has_event, has_nonevent, loss):
    """The estimated event rate at ``query`` and its divergence from ``query``.

    From the kernel sums of the weights and of the events (the first two
    columns of ``sums``); the rate is exactly 0 (1) where no event
    (non-event) has kernel weight, ``has_event`` and ``has_nonevent`` being
    booleans of the queries or of all of them.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.clip(sums[:, 1] / sums[:, 0], 0.0, 1.0)
    has_event = np.broadcast_to(has_event, rate.shape)
    has_nonevent = np.broadcast_to(has_nonevent, rate.shape)
    rate[~has_event] = 0.0
    rate[~has_nonevent] = 1.0
    with np.errstate(invalid="ignore"):
        pointwise = binary_divergence(query, rate, loss)
    if loss == "log":
        pointwise[(query == 0.0) & has_event] = np.inf
        pointwise[(query == 1.0) & has_nonevent] = np.inf
    return rate, pointwise


def _regression(ties, y, query, *, loss, kernel, bandwidth, full_loss=None):
    """Kernel sums and Nadaraya-Watson estimates at the sorted points ``query``.

    Returns a Bunch with ``weight`` (the kernel sum of the weights), ``rate``
    (the estimated event rate, exactly 0 (1) where no event (non-event) has
    kernel weight, whatever the rounding of the sums: the log loss of a
    prediction of 0 or 1 depends on it), ``pointwise`` (the divergence of
    the score between ``query`` and ``rate``), ``expected_loss`` (the
    smoothed full loss, with ``full_loss``), the data's ``points`` of
    positive weight and their ``total`` weight.
    """
    events = ties.sum(y)
    nonevents = ties.sum(1.0 - np.asarray(y, dtype=np.float64))
    source = ties.weight > 0
    points = ties.values[source]
    columns = [ties.weight[source], events[source]]
    if full_loss is not None:
        finite = np.isfinite(full_loss)
        columns.append(ties.sum(np.where(finite, full_loss, 0.0))[source])
        infinite = ties.sum(~finite)[source] > 0
    sums = kernel_sums(query, points, np.column_stack(columns), kernel, bandwidth)
    has_event = _reaches(query, points, events[source] > 0, kernel, bandwidth)
    has_nonevent = _reaches(query, points, nonevents[source] > 0, kernel, bandwidth)
    rate, pointwise = _rate_and_divergence(query, sums, has_event, has_nonevent, loss)
    weight = sums[:, 0]
    result = Bunch(
        weight=weight,
        rate=rate,
        pointwise=pointwise,
        points=points,
        total=float(ties.weight[source].sum()),
    )
    if full_loss is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = sums[:, 2] / weight
        expected[_reaches(query, points, infinite, kernel, bandwidth)] = np.inf
        result.expected_loss = expected
    return result


def _kernel_estimate(y, p, sample_weight, *, loss, kernel, bandwidth, full_loss=None):
    """Nadaraya-Watson estimates at every distinct prediction.

    Returns the Bunch of :func:`_regression` at the distinct predictions
    (``ties.values``), with ``ties`` and the ``calibration_error``; the rate
    is NaN at a prediction of zero weight that no prediction of positive
    weight reaches.
    """
    ties = Ties(p, sample_weight)
    result = _regression(
        ties,
        y,
        ties.values,
        loss=loss,
        kernel=kernel,
        bandwidth=bandwidth,
        full_loss=full_loss,
    )
    source = ties.weight > 0
    everywhere = np.ones(result.points.shape[0], dtype=bool)
    reached = _reaches(ties.values, result.points, everywhere, kernel, bandwidth)
    result.rate[~(source | reached)] = np.nan
    weight = ties.weight[source]
    result.calibration_error = float(
        np.dot(weight, result.pointwise[source]) / result.total
    )
    result.ties = ties
    return result


def _row_blocks(y, p, w):
    """Blocks of rows: predictions, weights and outcomes."""
    for start in range(0, p.shape[0], _BLOCK):
        rows = slice(start, start + _BLOCK)
        weight = np.ones(p[rows].shape[0]) if w is None else w[rows]
        yield p[rows], weight, y[rows]


def _streamed_sums(y, p, w, bandwidth, full_loss=None):
    """Gaussian kernel sums of the rows, read block by block, and their totals.

    The sums (:meth:`GaussianSums.streamed`) are of the weights, the
    weighted outcomes and, with ``full_loss``, the weighted finite full
    losses; the totals are the weights of the events, of the non-events and
    of the rows of infinite full loss.
    """
    totals = Bunch(events=0.0, nonevents=0.0, infinite=0.0)

    def moment_blocks():
        for index, (prediction, weight, outcome) in enumerate(_row_blocks(y, p, w)):
            events = weight * outcome
            totals.events += events.sum()
            totals.nonevents += np.dot(weight, 1 - outcome)
            columns = [weight, events]
            if full_loss is not None:
                loss = full_loss[index * _BLOCK : (index + 1) * _BLOCK]
                finite = np.isfinite(loss)
                totals.infinite += np.dot(weight, ~finite)
                columns.append(weight * np.where(finite, loss, 0.0))
            yield prediction / bandwidth, np.column_stack(columns)

    n_targets = 2 if full_loss is None else 3
    sums = GaussianSums.streamed(moment_blocks(), 0.0, 1.0 / bandwidth, n_targets)
    return sums, totals


def _streamed_regression(streamed, query, *, loss, bandwidth):
    """:func:`_regression` at the points ``query``, from the ``(sums, totals)``
    of :func:`_streamed_sums` with the full losses.

    For the Gaussian kernel, whose weights reach everywhere.
    """
    sums, totals = streamed
    kernel = sums(query / bandwidth)
    has_event, has_nonevent = totals.events > 0, totals.nonevents > 0
    rate, pointwise = _rate_and_divergence(query, kernel, has_event, has_nonevent, loss)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = kernel[:, 2] / kernel[:, 0]
    if totals.infinite > 0:
        expected[:] = np.inf
    return Bunch(
        weight=kernel[:, 0],
        rate=rate,
        pointwise=pointwise,
        total=totals.events + totals.nonevents,
        expected_loss=expected,
    )


def _streamed_error(y, p, w, *, loss, bandwidth, streamed=None):
    """The Gaussian kernel error in two passes over blocks of rows, unsorted.

    The estimates of :func:`_kernel_estimate` at every row instead of every
    distinct prediction (equal predictions have equal estimates, so the
    weighted mean is the same), with the sums of
    :meth:`GaussianSums.streamed`: no sort, and no array as long as the data.
    ``streamed``, the ``(sums, totals)`` of :func:`_streamed_sums` when
    already computed, saves the first pass.
    """
    if streamed is None:
        streamed = _streamed_sums(y, p, w, bandwidth)
    sums, totals = streamed
    has_event, has_nonevent = totals.events > 0, totals.nonevents > 0
    error = 0.0
    for prediction, weight, _ in _row_blocks(y, p, w):
        kernel = sums(prediction / bandwidth)
        pointwise = _rate_and_divergence(
            prediction, kernel, has_event, has_nonevent, loss
        )[1]
        used = weight > 0
        error += np.dot(weight[used], pointwise[used])
    return float(error / (totals.events + totals.nonevents))


def _curve_estimates(y, p, w, grid, *, loss, kernel, bandwidth, full_loss):
    """The regression at the points of ``grid``, and the calibration error.

    From one set of streamed sums (:func:`_streamed_regression` and
    :func:`_streamed_error`) when :func:`_streams` says so, from the sorted
    distinct predictions otherwise.
    """
    options = dict(loss=loss, bandwidth=bandwidth)
    if _streams(p, kernel, bandwidth):
        streamed = _streamed_sums(y, p, w, bandwidth, full_loss)
        estimate = _streamed_regression(streamed, grid, **options)
        return estimate, _streamed_error(y, p, w, **options, streamed=streamed)
    at_data = _kernel_estimate(y, p, w, **options, kernel=kernel)
    estimate = _regression(
        at_data.ties, y, grid, **options, kernel=kernel, full_loss=full_loss
    )
    return estimate, at_data.calibration_error


def _constant_prediction(p, w):
    """The mean prediction when those of positive weight lie within
    ``_CONSTANT_SPREAD`` of each other (a constant predictor), else None."""
    positive = True if w is None else w > 0
    low = p.min(where=positive, initial=np.inf)
    high = p.max(where=positive, initial=-np.inf)
    if high - low < _CONSTANT_SPREAD:
        return float(np.average(p, weights=w))
    return None


def _streams(p, kernel, bandwidth):
    """Whether the error of ``p`` goes by :func:`_streamed_error`.

    For the Gaussian kernel when the data outnumber the grid's moments.
    """
    moments = GaussianSums.streamed_size(0.0, 1.0 / bandwidth, 2)
    return kernel == "gaussian" and p.shape[0] >= moments


def _mean_full_loss(full_loss, sample_weight):
    """The mean score of the whole predicted distributions (rows of positive weight)."""
    if sample_weight is None:
        return float(full_loss.mean())
    rows = sample_weight > 0
    return float(np.average(full_loss[rows], weights=sample_weight[rows]))


def kernel_error_core(*, loss, kernel, bandwidth):
    """The kernel calibration error of one binary view, ``measure(y, p, w)``."""

    def measure(y, p, w):
        if _streams(p, kernel, bandwidth):
            return _streamed_error(y, p, w, loss=loss, bandwidth=bandwidth)
        return _kernel_estimate(
            y, p, w, loss=loss, kernel=kernel, bandwidth=bandwidth
        ).calibration_error

    return measure


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "loss": [StrOptions(set(LOSSES))],
        "kernel": [StrOptions(set(KERNELS))],
        "bandwidth": [Interval(Real, 0, None, closed="neither")],
        **REDUCTION_CONSTRAINTS,
        "return_sharpness": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def kernel_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    loss: Literal["brier", "log"] = "brier",
    kernel: Literal["epanechnikov", "gaussian"] = "gaussian",
    bandwidth: float = 0.05,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
    return_sharpness: bool = False,
) -> float | np.ndarray | Bunch:
    r"""Kernel-smoothed calibration error induced by a proper score.

    The probability of the event given the prediction is estimated by
    Nadaraya-Watson kernel regression, and the divergence of the proper score
    between each prediction and that estimate is averaged over the samples
    (Chidambaram & Ge). For the Brier score this is the squared L2
    calibration error; for the log loss, the mean binary Kullback-Leibler
    divergence. With ``return_sharpness=True`` the pointwise sharpness gap,
    the part of the full loss that calibration does not explain, is
    returned as well.

    Read more in the :ref:`User Guide <sharpness>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
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
          (:math:`d_{\phi,TOT}`; :func:`sklearn.metrics.brier_score_loss`
          or :func:`~sklearn.metrics.log_loss`);
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
    authors' ``sharpcal`` code (no leave-one-out, no boundary correction at
    0 and 1), averaged exactly over all samples rather than over random
    subsamples, so the value is deterministic. It estimates
    :math:`E[d_\varphi(E[Y \mid p], p)]`, consistently when :math:`\sigma
    \to 0` slowly as :math:`n` grows (Theorem 4.9), and with a bias at a
    fixed bandwidth. With the log loss, a prediction of exactly 0 or 1 whose
    smoothed event rate differs from it has an infinite divergence; with the
    Gaussian kernel, whose weights are all positive, this happens as soon as
    both outcomes occur in the sample.

    The pointwise sharpness gap is

    .. math::

        \hat\rho(x) = \hat m_\ell(x) - d_\varphi(\hat m(x), x),

    where :math:`\hat m_\ell` is the same regression applied to the
    per-sample score :math:`\ell_i` of the whole probability vector (the
    Brier score summed over classes, or :math:`-\log` of the probability of
    the observed class). A binary problem is scored as scikit-learn scores
    it, by its positive class, :math:`(p - y)^2`, so that
    :math:`\hat\rho(x)` estimates :math:`m(x)(1 - m(x))`; the authors' code
    scores the vector :math:`(1 - p, p)`, whose Brier score is twice
    that.
    Its population value is non-negative (Proposition 4.8); the estimate is
    not guaranteed to be. The mean of :math:`\hat m_\ell(p_i)` differs from
    ``total_loss`` by the smoothing, so ``sharpness_gap`` need not equal
    ``total_loss - calibration_error``.

    The kernel sums take O(n log n) time and O(n) memory, without any
    n x n matrix, and are within about :math:`10^{-14} W` of the dense sums.
    With the Gaussian kernel and more rows than the kernel's grid has
    moments (about 55,000 at the default bandwidth), the error is computed
    in two passes over blocks of rows, unsorted: O(n) time and no array as
    long as the data.

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

    The total is :func:`sklearn.metrics.brier_score_loss`:

    >>> result.total_loss
    0.1875
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    options = dict(loss=loss, kernel=kernel, bandwidth=bandwidth)
    if not return_sharpness:
        return reduce_measure(
            data,
            reduction,
            kernel_error_core(**options),
            return_per_class=return_per_class,
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
    inverse = estimate.ties.inverse
    gap = estimate.expected_loss - estimate.pointwise
    positive = estimate.ties.weight > 0
    mass = estimate.total * bandwidth * KERNEL_MASS[kernel]
    return Bunch(
        calibration_error=estimate.calibration_error,
        total_loss=_mean_full_loss(full_loss, w),
        sharpness_gap=float(
            np.dot(estimate.ties.weight[positive], gap[positive]) / estimate.total
        ),
        prediction=np.array(p, dtype=np.float64),
        event_rate=estimate.rate[inverse],
        density=(estimate.weight / mass)[inverse],
        expected_loss=estimate.expected_loss[inverse],
        pointwise_calibration_error=estimate.pointwise[inverse],
        pointwise_sharpness_gap=gap[inverse],
    )


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "loss": [StrOptions(set(LOSSES))],
        "kernel": [StrOptions(set(KERNELS))],
        "bandwidth": [Interval(Real, 0, None, closed="neither")],
        "n_points": [Interval(Integral, 2, None, closed="left")],
        "reduction": [StrOptions({"auto", "positive", "top_label"})],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def calibration_sharpness_curve(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    loss: Literal["brier", "log"] = "brier",
    kernel: Literal["epanechnikov", "gaussian"] = "gaussian",
    bandwidth: float = 0.05,
    n_points: int = 201,
    reduction: Literal["auto", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Kernel calibration curve, density and sharpness gap on a grid.

    The numbers of the calibration-sharpness diagram of Chidambaram and Ge:
    on a uniform grid of predictions :math:`x`, the Nadaraya-Watson estimate
    :math:`\hat m(x)` of the event rate, the kernel density :math:`\hat
    p(x)` of the predictions and the pointwise sharpness gap :math:`\hat
    \rho(x)` of a proper score, the estimates of
    :func:`kernel_calibration_error` evaluated on the grid instead of at the
    predictions; with the calibration term and the total loss of the data.
    A constant predictor (mean replacement) has a small calibration error,
    but a density that is a single spike and a large sharpness gap.

    Read more in the :ref:`User Guide <sharpness>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    loss : {"brier", "log"}, default="brier"
        The proper score whose calibration term and sharpness gap are
        estimated (see :func:`kernel_calibration_error`).
    kernel : {"gaussian", "epanechnikov"}, default="gaussian"
        The smoothing kernel.
    bandwidth : float, default=0.05
        The kernel's standard deviation (Gaussian) or half-width
        (Epanechnikov), as in the paper.
    n_points : int, default=201
        Number of points of the uniform grid on [0, 1]; it should resolve
        the bandwidth (spacing well below ``bandwidth``).
    reduction : {"auto", "positive", "top_label"}, default="auto"
        ``"top_label"``: the confidence against the correctness of the
        argmax, as in the paper; ``"positive"``: the probability of
        ``pos_label`` against its indicator; ``"auto"`` is ``"positive"``
        for binary problems (and when ``pos_label`` is given) and
        ``"top_label"`` otherwise.

    Returns
    -------
    curve : :class:`~sklearn.utils.Bunch`
        With the arrays of shape (n_points,)

        - ``grid``: ``linspace(0, 1, n_points)``;
        - ``calibration``: :math:`\hat m(x)`, NaN where the kernel weight of
          the data is below 1e-3 of its maximum (an extrapolation from a few
          distant predictions);
        - ``density``: :math:`\hat p(x)`, the kernel density of the
          predictions (not corrected at 0 and 1);
        - ``expected_loss``: :math:`\hat m_\ell(x)`, the smoothed score of the
          whole predicted distributions;
        - ``pointwise_calibration_error``: :math:`d_\varphi(\hat m(x), x)`;
        - ``sharpness_gap``: :math:`\hat\rho(x)`;
        - ``band_low``, ``band_high``: the sharpness band
          :math:`\max(\hat m - \hat p\hat\rho/2, 0)` and
          :math:`\hat m + \hat p\hat\rho/2` (its height is the density times
          the gap: where, and how much, the loss is not explained by
          miscalibration);

        and the floats

        - ``calibration_error``: :math:`d_{\varphi,\mathrm{CAL}}`, as
          :func:`kernel_calibration_error` returns it;
        - ``total_loss``: :math:`d_{\phi,\mathrm{TOT}}`, the mean score of
          the predicted distributions (scikit-learn's Brier score,
          or the log loss);
        - ``constant_prediction``: the prediction when all of them (of
          positive weight) lie within 1e-6 of each other, such as mean
          replacement's; None otherwise.

    See Also
    --------
    kernel_calibration_error : The same estimates at the predictions.
    skcal.plotting.CalibrationSharpnessDisplay : The diagram of these numbers.

    Notes
    -----
    With the notation of :func:`kernel_calibration_error`,

    .. math::

        \hat p(x) = \frac{\sum_i w_i K_\sigma(x - p_i)}{\sum_i w_i}, \qquad
        \hat\rho(x) = \hat m_\ell(x) - d_\varphi(\hat m(x), x),

    with :math:`K_\sigma` the kernel normalised to integrate to 1. The
    band's area approximates the mean sharpness gap when the predictions
    stay away from 0 and 1. The estimated gap can be negative, which inverts
    the band. With the log loss, a row whose predicted distribution gives
    its class probability 0 has an infinite loss, and the expected loss is
    infinite wherever that row has kernel weight.

    The curve takes the kernel sums of :func:`kernel_calibration_error`:
    with the Gaussian kernel and many rows, two passes over blocks of rows,
    without sorting them or holding any array as long as the data.

    References
    ----------
    .. [1] M. Chidambaram and R. Ge, "Reassessing How to Compare and Improve
       the Calibration of Machine Learning Models", arXiv:2406.04068.

    Examples
    --------
    >>> from skcal.metrics import calibration_sharpness_curve
    >>> curve = calibration_sharpness_curve(
    ...     [0, 1, 1, 1], [0.25, 0.25, 0.75, 0.75], bandwidth=0.25, n_points=5)
    >>> curve.grid.tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> curve.calibration.round(3).tolist()
    [0.509, 0.56, 0.75, 0.94, 0.991]

    A constant prediction has a curve only near its value, no calibration
    error beyond its gap to the event rate, and a large total loss:

    >>> curve = calibration_sharpness_curve([0, 1, 1, 1], [0.5] * 4, n_points=5)
    >>> curve.calibration.tolist()
    [nan, nan, 0.75, nan, nan]
    >>> curve.calibration_error, curve.total_loss, curve.constant_prediction
    (0.0625, 0.25, 0.5)
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    reduction = resolve_reduction(data, reduction)
    ((y, p),) = binary_views(data, reduction)
    w = data.sample_weight
    full_loss = full_scores(data, loss)
    grid = np.linspace(0.0, 1.0, n_points)
    estimate, error = _curve_estimates(
        y,
        p,
        w,
        grid,
        loss=loss,
        kernel=kernel,
        bandwidth=bandwidth,
        full_loss=full_loss,
    )
    weight = np.maximum(estimate.weight, 0.0)
    defined = weight > _SUPPORT_RTOL * weight.max()
    calibration = np.where(defined, estimate.rate, np.nan)
    expected = np.where(defined, estimate.expected_loss, np.nan)
    pointwise = np.where(defined, estimate.pointwise, np.nan)
    with np.errstate(invalid="ignore"):  # inf - inf at 0 and 1 (log loss)
        gap = expected - pointwise
    density = weight / (estimate.total * bandwidth * KERNEL_MASS[kernel])
    length = density * gap
    return Bunch(
        grid=grid,
        calibration=calibration,
        density=density,
        expected_loss=expected,
        pointwise_calibration_error=pointwise,
        sharpness_gap=gap,
        band_low=np.maximum(calibration - 0.5 * length, 0.0),
        band_high=calibration + 0.5 * length,
        calibration_error=error,
        total_loss=_mean_full_loss(full_loss, w),
        constant_prediction=_constant_prediction(p, w),
    )
