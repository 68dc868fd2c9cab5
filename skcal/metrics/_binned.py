"""Binned calibration errors (ECE, L2 and maximum calibration error) and the
reliability table they are computed from."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import itertools
from numbers import Integral, Real
from typing import Literal

import numpy as np
from scipy.special import ndtri
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
from skcal._utils._bins import STRATEGIES, bin_sums, make_binning
from skcal._utils._bootstrap import (
    N_BOOTSTRAP,
    Atoms,
    Replicates,
    add_segment_sums,
    percentile_band,
    segment_sums,
    segments_within,
    sorted_view,
)
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups

_COMMON_CONSTRAINTS = {
    **DATA_CONSTRAINTS,
    **GROUPS_CONSTRAINT,
    "n_bins": [Interval(Integral, 1, None, closed="left"), StrOptions({"cube_root"})],
    "strategy": [StrOptions(set(STRATEGIES))],
}


def table_of_sums(edges, sums, weight_scale, interval, confidence_level):
    """The reliability table of per-bin sums, with Wilson intervals or none.

    ``sums`` needs ``n_rows`` and ``n_effective``; ``weight_scale`` turns
    its weights back into the user's units.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = sums.sum_p / sums.weight
        mean_y = sums.sum_y / sums.weight
    empty = sums.weight <= 0
    mean_p[empty] = np.nan
    mean_y[empty] = np.nan
    with np.errstate(over="ignore"):  # a total beyond the largest float is inf
        weight = sums.weight * weight_scale
    table = Bunch(
        bin_lower=edges[:-1].copy(),
        bin_upper=edges[1:].copy(),
        weight=weight,
        count=sums.n_rows.astype(np.int64),
        mean_predicted=mean_p,
        event_rate=mean_y,
        gap=mean_p - mean_y,
    )
    if interval == "wilson":
        low, high = _wilson_interval(mean_y, sums.n_effective, confidence_level)
        table.update(interval_low=low, interval_high=high)
    return table


def _binned_error_core(y, p, sample_weight, *, n_bins, strategy, norm, debias):
    """The binned calibration error of one binary view (float64 inputs)."""
    binning = make_binning(p, sample_weight, n_bins, strategy)
    sums = bin_sums(binning, y, p, sample_weight, moments=debias)
    return _error_of_sums(sums, norm, debias)


def _error_of_sums(sums, norm, debias):
    """The binned calibration error of per-bin sums (``count`` and
    ``n_effective`` needed with ``debias``)."""
    nonempty = sums.weight > 0
    weight = sums.weight[nonempty]
    fraction = weight / weight.sum()
    rate = sums.sum_y[nonempty] / weight
    gap = sums.sum_p[nonempty] / weight - rate
    if not debias:
        return float(_norm_of_gaps(fraction, gap, norm))
    # Kumar et al. (2019): subtract the variance of the bin's event rate,
    # ybar (1 - ybar) / (n_eff - 1) from the squared gap (the L2 error);
    # bins with fewer than two rows give 0.
    squared = gap**2
    count = sums.n_rows[nonempty]
    n_eff = sums.n_effective[nonempty]
    # A bin whose weight sits on one row (n_eff = 1 to rounding) is a
    # single observation, whatever the count of negligible weights.
    enough = (count >= 2) & (n_eff - 1.0 > 1e-9)
    correction = np.zeros_like(squared)
    correction[enough] = rate[enough] * (1.0 - rate[enough]) / (n_eff[enough] - 1.0)
    total = np.dot(fraction, np.where(enough, squared - correction, 0.0))
    # A difference within rounding of the terms it subtracts is 0: its
    # square root would turn 1e-17 of noise into 3e-9.
    scale = np.dot(fraction, np.where(enough, squared + correction, 0.0))
    if total <= 16 * np.finfo(np.float64).eps * scale:
        return 0.0
    return float(np.sqrt(total))


def _errors_of_gap_sums(weights, gap_sums, norm):
    """The binned calibration error of each row of per-bin weights and sums of
    ``w (p - y)``, shape ``(n_replicates, n_bins)``.

    An empty bin has no gap (0, and a fraction of 0). NaN for a row of zero
    weight (a resample that drew only rows of zero weight).
    """
    totals = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        fractions = weights / totals[:, None]
    gaps = np.divide(gap_sums, weights, out=np.zeros_like(gap_sums), where=weights > 0)
    errors = _norm_of_gaps(fractions, gaps, norm)
    errors[~(totals > 0)] = np.nan
    return errors


def _norm_of_gaps(fraction, gap, norm):
    """The L1, L2 or max norm of the per-bin gaps, bins weighted by ``fraction``.

    Along the last axis: a float for one set of bins, an array for rows of
    them.
    """
    if norm == "max":
        return np.max(np.abs(gap), axis=-1)
    terms = fraction * (np.abs(gap) if norm == "l1" else np.square(gap))
    total = terms.sum(axis=-1)
    return total if norm == "l1" else np.sqrt(total)


class _BinnedCore:
    """The binned calibration error of one binary view, ``measure(y, p, w)``.

    :meth:`replicates` bins a view's predictions once for the resamples
    (new weights) and relabellings (new outcomes) of an interval, when the
    bins do not depend on the weights (a fixed number of equal-width bins).
    """

    def __init__(self, **options):
        self.options = options

    def __call__(self, y, p, sample_weight):
        return _binned_error_core(y, p, sample_weight, **self.options)

    def replicates(self, y, p, sample_weight):
        """The error of one view on :class:`~skcal._utils._bootstrap.Draws`, or None.

        None when the bins depend on the weights (quantile bins, a number of
        bins from the sample size) or the debiasing needs per-bin moments.
        """
        n_bins, strategy = self.options["n_bins"], self.options["strategy"]
        if strategy != "uniform" or self.options["debias"] or isinstance(n_bins, str):
            return None
        return _BinnedReplicates(
            sorted_view(y, p, sample_weight), n_bins, self.options["norm"]
        )


class _BinnedReplicates(Replicates):
    """A binned error on resamples and calibrated draws of one sorted view.

    The rows sorted by prediction fill each equal-width bin contiguously, so
    a replicate's per-bin weights and residual sums ``sum w (p - y)`` are
    sums over fixed segments; without debiasing, the error depends on
    nothing else. A resample's are products of its counts with the rows'
    ``(w, w (p - y))``, one matrix product per bin and chunk of a batch,
    which reads the counts once.
    """

    def __init__(self, view, n_bins, norm):
        self.view, self.norm, self.order = view, norm, view.order
        bins = make_binning(view.p, None, n_bins, "uniform").assign(view.p)
        self.starts = np.flatnonzero(np.diff(bins, prepend=-1))
        w = np.ones(view.p.shape[0]) if view.weight is None else view.weight
        # The columns (w, w (p - y)) of the rows, in sorted order.
        self.columns = np.column_stack([w, w * (view.p - view.y)])
        self.weight_sums = segment_sums(w, self.starts)
        self.prediction_sums = segment_sums(w * view.p, self.starts)

    def resampling(self, draws):
        """The accumulator of the errors of a batch's bootstrap resamples."""
        return _ResampledBins(self, draws.size)

    def relabeling(self, draws):
        """The accumulator of the errors of a batch's calibrated draws."""
        return _RelabeledBins(self, draws.size)


class _ResampledBins:
    """Each resample's per-bin sums of ``(w, w (p - y))``, chunk by chunk."""

    def __init__(self, replicates, size):
        self.replicates = replicates
        self.sums = np.zeros((size, replicates.starts.shape[0], 2))

    def add(self, chunk):
        first, local = segments_within(self.replicates.starts, chunk)
        bounds = [*local.tolist(), chunk.stop - chunk.start]
        columns = self.replicates.columns[chunk.start : chunk.stop]
        for k, (start, stop) in enumerate(itertools.pairwise(bounds), start=first):
            self.sums[:, k] += chunk.counts[:, start:stop] @ columns[start:stop]

    def result(self):
        sums, norm = self.sums, self.replicates.norm
        return _errors_of_gap_sums(sums[..., 0], sums[..., 1], norm)


class _RelabeledBins:
    """Each calibrated draw's per-bin outcomes, chunk by chunk."""

    def __init__(self, replicates, size):
        self.replicates = replicates
        self.outcomes = np.zeros((size, replicates.starts.shape[0]))

    def add(self, chunk):
        outcomes = self.replicates.view.weighted_outcomes(chunk)
        add_segment_sums(self.outcomes, outcomes, self.replicates.starts, chunk)

    def result(self):
        replicates = self.replicates
        gap_sums = replicates.prediction_sums - self.outcomes
        weights = np.broadcast_to(replicates.weight_sums, gap_sums.shape)
        return _errors_of_gap_sums(weights, gap_sums, replicates.norm)


def binned_error_core(*, n_bins, strategy, norm, debias):
    """The binned calibration error of one binary view, ``measure(y, p, w)``."""
    return _BinnedCore(n_bins=n_bins, strategy=strategy, norm=norm, debias=debias)


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "norm": [StrOptions({"l1", "l2", "max"})],
        "debias": ["boolean"],
        **REDUCTION_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def binned_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_bins: int | Literal["cube_root"] = 15,
    strategy: Literal["quantile", "uniform"] = "uniform",
    norm: Literal["l1", "l2", "max"] = "l1",
    debias: bool = False,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
) -> float | np.ndarray:
    r"""Binned calibration error: ECE (L1), L2 calibration error or MCE (max).

    The predictions are grouped into bins and, in each bin, the mean
    prediction is compared with the observed event rate. The gaps are then
    averaged (``"l1"``, the usual *expected calibration error*), root-mean-
    squared (``"l2"``) or maximised (``"max"``, the *maximum calibration
    error*). The value depends on the bins, and the plug-in estimate is biased
    upwards on small samples; ``debias=True`` corrects the L2 error.

    Read more in the :ref:`User Guide <binned_measures>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    %(n_bins)s
    %(strategy)s
    norm : {"l1", "l2", "max"}, default="l1"
        How the per-bin gaps are combined (see Notes).
    debias : bool, default=False
        Subtract the estimated sampling variance of each bin's event rate
        (Kumar et al., 2019). Only defined for ``norm="l2"``.
    %(reduction)s
    %(return_per_class)s

    Returns
    -------
    error : float or ndarray of shape (n_classes,)
        The calibration error, in [0, 1]; the per-class values when
        ``return_per_class=True``.

    See Also
    --------
    expected_calibration_error : The same with ``norm="l1"``.
    reliability_table : The per-bin numbers behind this measure.

    Notes
    -----
    With bins :math:`B_1, \dots, B_M`, bin weights
    :math:`W_m = \sum_{i \in B_m} w_i`, :math:`W = \sum_m W_m`, mean
    predictions :math:`\bar p_m = \sum_{i \in B_m} w_i p_i / W_m` and event
    rates :math:`\bar y_m = \sum_{i \in B_m} w_i y_i / W_m`:

    .. math::

        \mathrm{ECE} = \sum_m \frac{W_m}{W} |\bar p_m - \bar y_m|, \quad
        \mathrm{L2} = \Big(\sum_m \frac{W_m}{W} (\bar p_m - \bar y_m)^2\Big)^{1/2},
        \quad \mathrm{MCE} = \max_{m: W_m > 0} |\bar p_m - \bar y_m|.

    The debiased L2 estimator of Kumar et al. (2019) is

    .. math::

        \Big(\max\Big(0, \sum_{m: n_m \ge 2} \frac{W_m}{W}
        \Big[(\bar p_m - \bar y_m)^2 - \frac{\bar y_m (1 - \bar y_m)}
        {n^{\mathrm{eff}}_m - 1}\Big]\Big)\Big)^{1/2},

    where :math:`n_m` counts the rows of positive weight in bin :math:`m`
    and :math:`n^{\mathrm{eff}}_m = W_m^2 / \sum_{i \in B_m} w_i^2` is its
    effective size (:math:`n_m` itself when unweighted, as in the paper); a
    bin with :math:`n^{\mathrm{eff}}_m - 1 \le 10^{-9}` counts as a single
    row. Integer weights are therefore not equivalent to repeated rows for
    this estimator. Empty bins contribute nothing, and ``"classwise"``
    averages the per-class errors. The User Guide derives the correction
    and explains why a binned error depends on the bins.

    References
    ----------
    .. [1] M. P. Naeini, G. Cooper and M. Hauskrecht, "Obtaining Well Calibrated
       Probabilities Using Bayesian Binning", AAAI 2015.
    .. [2] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of
       Modern Neural Networks", ICML 2017, arXiv:1706.04599.
    .. [3] A. Kumar, P. Liang and T. Ma, "Verified Uncertainty Calibration",
       NeurIPS 2019, arXiv:1909.10155.

    Examples
    --------
    >>> from skcal.metrics import binned_calibration_error
    >>> y_true = [0, 1, 0, 1]
    >>> y_prob = [0.25, 0.25, 0.75, 1.0]

    With two bins, [0, 0.5] holds a mean prediction of 0.25 against an event
    rate of 0.5, and (0.5, 1] a mean prediction of 0.875 against 0.5:

    >>> binned_calibration_error(y_true, y_prob, n_bins=2)
    0.3125
    >>> binned_calibration_error(y_true, y_prob, n_bins=2, norm="max")
    0.375
    """
    if debias and norm != "l2":
        raise ValueError(
            f'debias=True is only defined for norm="l2" (Kumar et al., 2019), got '
            f"norm={norm!r}."
        )
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    measure = binned_error_core(
        n_bins=n_bins, strategy=strategy, norm=norm, debias=debias
    )
    return reduce_measure(data, reduction, measure, return_per_class=return_per_class)


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        **REDUCTION_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def expected_calibration_error(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_bins: int | Literal["cube_root"] = 15,
    strategy: Literal["quantile", "uniform"] = "uniform",
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
) -> float | np.ndarray:
    r"""Expected calibration error (ECE): the weighted mean per-bin gap.

    This is :func:`binned_calibration_error` with ``norm="l1"``: the
    predictions are binned and the absolute difference between each bin's
    mean prediction and its event rate is averaged, weighted by the bin's
    share of the samples. For a multiclass model the default is *confidence*
    (top-label) ECE, as in Guo et al. (2017).

    Read more in the :ref:`User Guide <binned_measures>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    %(n_bins)s
    %(strategy)s
    %(reduction)s
    %(return_per_class)s

    Returns
    -------
    ece : float or ndarray of shape (n_classes,)
        The expected calibration error, in [0, 1].

    See Also
    --------
    binned_calibration_error : L2 and maximum errors, and debiasing.
    reliability_table : The per-bin numbers behind this measure.

    Notes
    -----
    .. math::

        \mathrm{ECE} = \sum_m \frac{W_m}{W} |\bar p_m - \bar y_m|,

    with :math:`W_m` the weight, :math:`\bar p_m` the mean prediction and
    :math:`\bar y_m` the event rate of bin :math:`m`, and :math:`W` the total
    weight.

    References
    ----------
    .. [1] M. P. Naeini, G. Cooper and M. Hauskrecht, "Obtaining Well Calibrated
       Probabilities Using Bayesian Binning", AAAI 2015.
    .. [2] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of
       Modern Neural Networks", ICML 2017, arXiv:1706.04599.

    Examples
    --------
    >>> from skcal.metrics import expected_calibration_error
    >>> expected_calibration_error([0, 1, 0, 1], [0.25, 0.25, 0.75, 1.0], n_bins=2)
    0.3125

    Confidence (top-label) ECE of a three-class model: the confidences are
    0.75, 0.75 and 0.5, and only the first two predictions are right.

    >>> y_prob = [[0.75, 0.25, 0.0], [0.25, 0.75, 0.0], [0.5, 0.25, 0.25]]
    >>> expected_calibration_error([0, 1, 2], y_prob, n_bins=2)
    0.3333333333333333
    """
    return binned_calibration_error(
        y_true,
        y_prob,
        sample_weight=sample_weight,
        pos_label=pos_label,
        labels=labels,
        n_bins=n_bins,
        strategy=strategy,
        norm="l1",
        reduction=reduction,
        return_per_class=return_per_class,
    )


def _wilson_interval(rate, n, confidence_level):
    """Wilson score interval of a proportion ``rate`` observed on ``n`` trials.

    NaN where ``n`` is 0 or ``rate`` is NaN; exactly 0 (1) at a rate of 0 (1).
    """
    z = ndtri(0.5 + 0.5 * confidence_level)
    low = np.full(rate.shape, np.nan)
    high = np.full(rate.shape, np.nan)
    ok = (n > 0) & np.isfinite(rate)
    r, m = rate[ok], n[ok]
    denominator = 1.0 + z**2 / m
    centre = (r + z**2 / (2.0 * m)) / denominator
    half = z / denominator * np.sqrt(r * (1.0 - r) / m + z**2 / (4.0 * m**2))
    low[ok] = np.where(r == 0.0, 0.0, np.clip(centre - half, 0.0, r))
    high[ok] = np.where(r == 1.0, 1.0, np.clip(centre + half, r, 1.0))
    return low, high


def _bootstrap_rates(binning, y, p, sample_weight, n_bootstrap, rng):
    """Event rate of every bin in each of ``n_bootstrap`` resamples of the rows.

    Returns
    -------
    rates : ndarray of shape (n_bootstrap, n_bins)
        NaN where a resample leaves a bin empty.
    """
    size = binning.n_bins
    atoms = Atoms(2 * binning.assign(p) + y, sample_weight)
    atom_bin = atoms.key // 2
    event = (atoms.key % 2).astype(np.float64)
    rates = np.full((n_bootstrap, size), np.nan)
    for b in range(n_bootstrap):
        weight = atoms.resample(rng)
        totals = np.bincount(atom_bin, weights=weight, minlength=size)
        events = np.bincount(atom_bin, weights=weight * event, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates[b] = events / totals
    return rates


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "interval": [StrOptions({"wilson", "bootstrap"}), None],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "n_bootstrap": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "reduction": [StrOptions({"auto", "positive", "top_label"})],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def reliability_table(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_bins: int | Literal["cube_root"] = 15,
    strategy: Literal["quantile", "uniform"] = "uniform",
    interval: Literal["bootstrap", "wilson"] | None = "wilson",
    confidence_level: float = 0.95,
    n_bootstrap: int = N_BOOTSTRAP,
    random_state: RandomStateLike = None,
    reduction: Literal["auto", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Per-bin numbers of a reliability diagram, empty bins included.

    Unlike :func:`sklearn.calibration.calibration_curve`, which drops empty
    bins without saying which, every bin is returned: an empty bin has
    weight 0 and NaN means. The binned calibration errors are computed from
    exactly these numbers.

    Read more in the :ref:`User Guide <binned_measures>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    %(n_bins)s
    %(strategy)s
    interval : {"wilson", "bootstrap"} or None, default="wilson"
        Per-bin intervals of the event rate (see Notes): Wilson score
        intervals on the bin's effective number of rows, or percentile
        intervals over ``n_bootstrap`` resamples of the rows with the bins
        fixed; None computes none.
    confidence_level : float, default=0.95
        Level of the intervals, in (0, 1).
    n_bootstrap : int, default=1000
        Number of resamples for ``interval="bootstrap"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the resamples of ``interval="bootstrap"``. Pass an int for
        reproducible output across multiple function calls.
    reduction : {"auto", "positive", "top_label"}, default="auto"
        ``"positive"``: the probability of ``pos_label``; ``"top_label"``:
        the confidence against the correctness of the argmax; ``"auto"`` is
        ``"positive"`` for binary problems and ``"top_label"`` otherwise.
        For a per-class table, use ``reduction="positive"`` with each class
        as ``pos_label``.

    Returns
    -------
    table : :class:`~sklearn.utils.Bunch`
        Arrays with one entry per bin in increasing order (``n_bins`` of
        them, or fewer for ``"quantile"`` when ties merge edges):

        - ``bin_lower``, ``bin_upper``: the edges; the bin is
          ``(bin_lower, bin_upper]``, and the first one also holds 0;
        - ``weight``: total sample weight (the count when unweighted; inf
          beyond the largest float);
        - ``count``: number of samples with positive weight;
        - ``mean_predicted``: weighted mean prediction (NaN if empty);
        - ``event_rate``: weighted fraction of positives (NaN if empty);
        - ``gap``: ``mean_predicted - event_rate``; positive means
          over-confident predictions of the event;
        - ``interval_low``, ``interval_high``: the interval of the event
          rate at ``confidence_level`` (NaN for empty bins); absent with
          ``interval=None``.

        ``pandas.DataFrame(table)`` turns it into a data frame.

    See Also
    --------
    binned_calibration_error : The calibration errors summarising this table.
    sklearn.calibration.calibration_curve : Non-empty bins only, binary only.

    Notes
    -----
    ``"wilson"``: the Wilson score interval [1]_ of the bin's event rate
    :math:`\hat r` on :math:`m` rows,

    .. math::

        \frac{\hat r + z^2/(2m) \pm z \sqrt{\hat r(1-\hat r)/m + z^2/(4m^2)}}
        {1 + z^2/m},

    with :math:`z` the normal quantile of ``confidence_level``; it is 0 (1)
    exactly at :math:`\hat r = 0` (1) and always contains :math:`\hat r`.
    With sample weights, :math:`\hat r` is the weighted rate and :math:`m`
    Kish's effective size :math:`(\sum w_i)^2 / \sum w_i^2` of the bin, an
    approximation that is exact for equal weights. Their measured coverage
    is given in the :ref:`User Guide <reliability_diagrams>`. ``"bootstrap"``:
    percentile intervals of the bin's event rate over resamples of the
    rows (``n`` draws with replacement, as multinomial counts of the groups
    of rows that share a bin, an outcome and a weight), the bins fixed.

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and
       statistical inference", J. Amer. Statist. Assoc. 22(158), 1927.

    Examples
    --------
    >>> from skcal.metrics import reliability_table
    >>> table = reliability_table([0, 0, 1, 1], [0.1, 0.2, 0.7, 0.8], n_bins=4)
    >>> table.bin_upper.tolist()
    [0.25, 0.5, 0.75, 1.0]
    >>> table.weight.tolist()
    [2.0, 0.0, 1.0, 1.0]
    >>> table.event_rate.tolist()
    [0.0, nan, 1.0, 1.0]
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    reduction = resolve_reduction(data, reduction)
    ((y, p),) = binary_views(data, reduction)
    w = data.sample_weight
    binning = make_binning(p, w, n_bins, strategy)
    sums = bin_sums(binning, y, p, w, moments=True)
    table = table_of_sums(
        binning.edges, sums, data.weight_scale, interval, confidence_level
    )
    if interval == "bootstrap":
        rng = check_random_state(random_state)
        rates = _bootstrap_rates(binning, y, p, w, n_bootstrap, rng)
        low, high = percentile_band(rates, confidence_level)
        empty = sums.weight <= 0
        low[empty] = high[empty] = np.nan
        table.update(interval_low=low, interval_high=high)
    return table
