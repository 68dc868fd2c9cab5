"""Confidence intervals of the measures: bootstrap resamples and calibrated draws.

One engine serves :func:`confidence_interval`,
:func:`~skcal.model_selection.cross_val_calibration` and the command line:
the data are validated once, each measure is evaluated on resamples (and, for
a calibration error, on labels drawn from the predictions) without validating
again, and the rules of :mod:`skcal._utils._bootstrap` make the intervals.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import resolve_reduction
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._bootstrap import (
    N_BOOTSTRAP,
    Gathered,
    NullLabels,
    Replicates,
    ResampledTotals,
    calibration_error_interval,
    draw_replicates,
    score_interval,
    seed_of,
    sharing_views,
)
from skcal._utils._progress import VERBOSE_CONSTRAINT, Progress
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups
from skcal.metrics._registry import MEASURES_BY_NAME, custom_measure

# What each kind of interval is an interval for, in the words of the tables.
METHODS = {
    "calibration_error": (
        "calibration error: upper end the bootstrap percentile, lower end the "
        "estimate minus the same percentile of the measure on outcomes drawn "
        "from the predictions (0 when the data are consistent with a "
        "calibrated model)"
    ),
    "proper_score": "proper score: bootstrap percentile interval",
    None: (
        "user's measure: bootstrap percentile interval (its coverage has not "
        "been measured)"
    ),
}


def _resample_weights(draws, sample_weight):
    """``(i, weights)`` of each resample of a batch that drew a row of positive
    weight (the others keep their NaN)."""
    for i, counts in enumerate(draws.counts):
        weight = counts if sample_weight is None else counts * sample_weight
        if weight.any():
            yield i, weight


class _ViewReplicates(Replicates):
    """A calibration error's core on the views of resampled or relabelled rows.

    For cores that cannot prepare a view (see :func:`_replicates`) and for
    several views (``"classwise"``), whose labels are drawn jointly: each
    draw's rows are gathered whole.
    """

    def __init__(self, core, labels):
        self.core, self.labels = core, labels
        self.weight = labels.data.sample_weight

    def _value(self, views, weight):
        return float(np.mean([self.core(y, p, weight) for y, p in views]))

    def resampling(self, draws):
        return Gathered(self._resampled_whole, draws, "counts")

    def relabeling(self, draws):
        return Gathered(self._relabeled_whole, draws, "bits")

    def _resampled_whole(self, draws):
        values = np.full(draws.size, math.nan)
        for i, weight in _resample_weights(draws, self.weight):
            values[i] = self._value(self.labels.views, weight)
        return values

    def _relabeled_whole(self, draws):
        return np.array(
            [
                self._value(self.labels.draw_views(u), self.weight)
                for u in draws.uniforms
            ]
        )


class _RowLossReplicates(Replicates):
    """A proper score, the weighted mean of per-row losses, on resamples."""

    def __init__(self, losses, weight):
        self.weight = weight
        self.losses = losses if weight is None else losses * weight

    def resampling(self, draws):
        return _LossSums(self, draws)


class _LossSums:
    """The accumulator of :class:`_RowLossReplicates`: the resamples' sums
    of weighted losses and of weights."""

    def __init__(self, replicates, draws):
        self.losses = replicates.losses
        self.sums = np.zeros(draws.size)
        self.totals = ResampledTotals(draws, replicates.weight)

    def add(self, chunk):
        self.sums += chunk.counts @ self.losses[chunk.start : chunk.stop]
        self.totals.add(chunk)

    def result(self):
        return self.totals.per_weight(self.sums)


class _EvaluatedReplicates(Replicates):
    """Any measure, called through :meth:`Measure.evaluate` on each resample."""

    def __init__(self, measure, problem, options):
        self.measure, self.problem, self.options = measure, problem, options

    def resampling(self, draws):
        return Gathered(self._resampled_whole, draws, "counts")

    def _resampled_whole(self, draws):
        y_true, y_prob, classes, sample_weight, pos_label = self.problem
        values = np.full(draws.size, math.nan)
        for i, weight in _resample_weights(draws, sample_weight):
            values[i] = self.measure.evaluate(
                y_true,
                y_prob,
                classes=classes,
                sample_weight=weight,
                pos_label=pos_label,
                **self.options,
            )
        return values


class _Validated:
    """The inputs of one call's measures, each validated once, and their views.

    The measures of an interval read the same arrays: the matrix, or the
    positive column of a binary problem, with the same weights and labels.
    Each distinct set of them is checked once (:meth:`data`), and the views
    of each reduction of it are built once (:meth:`labels`): the measures of
    a view then hold the same arrays, and :func:`~skcal._utils._bootstrap.
    sorted_view` sorts them once between them.
    """

    def __init__(self, y_true):
        self.y_true = y_true
        # Keyed by the memory the arrays read, which the values keep alive.
        self._data, self._labels = {}, {}

    def data(self, y_prob, sample_weight, pos_label, labels):
        """:func:`~skcal._validation.check_calibration_inputs` of the arguments."""
        key = (_memory(y_prob), _memory(sample_weight), pos_label, _memory(labels))
        if key not in self._data:
            data = check_calibration_inputs(
                self.y_true, y_prob, sample_weight, pos_label, labels
            )
            self._data[key] = (y_prob, sample_weight, labels, data)
        return self._data[key][-1]

    def labels(self, data, reduction):
        """The :class:`~skcal._utils._bootstrap.NullLabels` of a view of ``data``."""
        key = (id(data), reduction)
        if key not in self._labels:
            self._labels[key] = NullLabels(data, reduction)
        return self._labels[key]


def _memory(array):
    """What identifies the values an array reads: its buffer and its layout."""
    if not isinstance(array, np.ndarray):
        return id(array)
    return (
        array.__array_interface__["data"][0],
        array.shape,
        array.strides,
        array.dtype.str,
    )


def _replicates(measure, problem, options, validated):
    """The object that computes a measure's replicates, and whether it relabels.

    A calibration error of one view whose core has ``replicates(y, p, w)``
    (not None) evaluates the draws on arrays it prepared once (sorted,
    binned); other cores are called on each replicate's weights or labels.
    ``validated`` is the call's :class:`_Validated`.
    """
    _, y_prob, classes, sample_weight, pos_label = problem
    fast = measure.core is not None or (measure.row_losses is not None and not options)
    if not fast:
        return _EvaluatedReplicates(measure, problem, options), False
    y_arg, arguments = measure.arguments(
        y_prob,
        classes=classes,
        sample_weight=sample_weight,
        pos_label=pos_label,
        **options,
    )
    data = validated.data(
        y_arg,
        arguments.get("sample_weight"),
        arguments.get("pos_label"),
        arguments.get("labels"),
    )
    if measure.core is None:
        return _RowLossReplicates(measure.row_losses(data), data.sample_weight), False
    reduction = resolve_reduction(data, options.get("reduction", "auto"))
    core = measure.core(**measure.core_options(options))
    labels = validated.labels(data, reduction)
    views = labels.views
    prepare = getattr(core, "replicates", None)
    if prepare is not None and len(views) == 1:
        ((y, p),) = views
        prepared = prepare(y, p, data.sample_weight)
        if prepared is not None:
            return prepared, True
    return _ViewReplicates(core, labels), True


def measure_intervals(
    measures,
    problem,
    values,
    *,
    n_bootstrap,
    confidence_level,
    rng,
    verbose="auto",
    options=None,
    n_jobs=None,
    joint=None,
):
    """Intervals of several measures of the same predictions.

    The measures share their random draws (:class:`~skcal._utils._bootstrap.
    Draws`): each batch of resamples and of calibrated outcomes is drawn
    once for all of them, and for the ``joint`` statistics.

    Parameters
    ----------
    measures : dict
        ``{name: Measure}``.
    problem : tuple
        ``(y_true, y_prob, classes, sample_weight, pos_label)`` as
        :meth:`Measure.evaluate` takes them (``y_prob`` a matrix).
    values : dict
        ``{name: value on the rows}``.
    n_bootstrap : int
        Resamples (and calibrated draws) per measure.
    confidence_level : float
        The level of the intervals.
    rng : numpy.random.RandomState
        The source of randomness.
    verbose : "auto" or bool, default="auto"
        Progress (see :mod:`skcal._utils._progress`).
    options : dict, default=None
        ``{name: options of that measure}``.
    n_jobs : int or None, default=None
        Threads drawing batches of replicates at once.
    joint : dict, default=None
        ``{name: statistic}``: other statistics of the same rows, drawn on
        the same draws, each with ``resampling(draws)`` and
        ``relabeling(draws)`` (see :class:`~skcal._utils._bootstrap.Replicates`)
        and ``finish(resampled, null)``, which gives its interval from its
        replicates (e.g. :class:`~skcal.metrics._smooth_ece.CurveBootstrap`,
        which also completes its curve's band).

    Returns
    -------
    intervals : dict
        ``{name: (low, high)}``, the measures' then the joint statistics'.
    """
    options = options or {}
    joint = joint or {}
    n = problem[0].shape[0]
    statistics = []
    validated = _Validated(problem[0])
    with sharing_views():  # measures of the same view sort it once
        for name, measure in measures.items():
            replicates, relabel = _replicates(
                measure, problem, options.get(name, {}), validated
            )
            statistics.append(
                (replicates.resampling, replicates.relabeling if relabel else None)
            )
    statistics += [(s.resampling, s.relabeling) for s in joint.values()]
    total = n_bootstrap * sum(1 if r is None else 2 for _, r in statistics)
    with Progress(
        total, f"intervals: {n_bootstrap} resamples of {n} rows", verbose
    ) as progress:
        replicates = draw_replicates(
            statistics, n, n_bootstrap, seed_of(rng), progress, n_jobs
        )
    intervals = {}
    n_measures = len(measures)
    for name, (resampled, null) in zip(measures, replicates[:n_measures], strict=True):
        draws = np.concatenate(resampled)
        intervals[name] = (
            calibration_error_interval(values[name], draws, null, confidence_level)
            if null is not None
            else score_interval(values[name], draws, confidence_level)
        )
    for (name, statistic), (resampled, null) in zip(
        joint.items(), replicates[n_measures:], strict=True
    ):
        intervals[name] = statistic.finish(resampled, null)
    return intervals


def problem_of(data):
    """``(y_true, y_prob, classes, sample_weight, pos_label)`` of validated data.

    The labels keep their classes; a binary problem becomes its two columns
    ``[1 - p, p]`` in the order of ``data.classes``.
    """
    classes = data.classes
    if data.binary:
        y_prob = np.empty((data.y_prob.shape[0], 2))
        y_prob[:, data.pos_index] = data.y_prob
        y_prob[:, 1 - data.pos_index] = 1.0 - data.y_prob
        y_index = np.where(data.y_true, data.pos_index, 1 - data.pos_index)
    else:
        y_prob, y_index = data.y_prob, data.y_true
    pos_label = None if data.pos_index is None else classes[data.pos_index]
    return classes[y_index], y_prob, classes, data.sample_weight, pos_label


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "metric": [StrOptions(set(MEASURES_BY_NAME)), callable],
        "metric_params": [dict, None],
        "n_bootstrap": [Interval(Integral, 1, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": VERBOSE_CONSTRAINT,
    },
    # The measure checks metric_params, the user's options, itself.
    prefer_skip_nested_validation=False,
)
@accepts_groups
@fill_doc
def confidence_interval(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    # A name of skcal.discovery.all_measures(), checked at run time.
    metric: str | Callable[..., Any] = "expected_calibration_error",
    metric_params: dict | None = None,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_bootstrap: int = N_BOOTSTRAP,
    confidence_level: float = 0.95,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    verbose: Literal["auto"] | bool = "auto",
) -> Bunch:
    r"""A measure of calibration with a confidence interval for its population value.

    The interval is meant to contain the value the measure would have on the
    whole population the rows are drawn from (the model held fixed): 0 for
    a calibrated model's calibration error. Its coverage has been measured by
    simulation (see Notes).

    Read more in the :ref:`User Guide <intervals>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    metric : str or callable, default="expected_calibration_error"
        A name of :func:`skcal.discovery.all_measures`, or a callable
        ``f(y_true, y_prob, *, sample_weight, labels)``, lower being better,
        called as skcal's measures are: with the positive class's
        probabilities for a binary problem (and ``pos_label`` if it takes
        it), the probability matrix otherwise, and the classes as
        ``labels``.
    metric_params : dict, default=None
        Options of the measure, e.g. ``{"n_bins": 10}`` or
        ``{"reduction": "classwise"}``.
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    n_bootstrap : int, default=1000
        Number of bootstrap resamples (and, for a calibration error, of
        label sets drawn from the predictions).
    confidence_level : float, default=0.95
        The level of the interval, in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the draws. Pass an int for reproducible output across
        multiple function calls.
    %(n_jobs_bootstrap)s
    %(verbose)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With ``value`` (the measure of the rows), ``low`` and ``high`` (the
        interval), ``confidence_level``, ``n_bootstrap`` and ``method`` (in
        words, what the interval is).

    See Also
    --------
    skcal.model_selection.cross_val_calibration : The same intervals for
        cross-validated predictions.
    cutoff_calibration_test : A test that certifies a small calibration
        error.

    Notes
    -----
    Let :math:`T` be the measure of the rows, :math:`a = (1 + \text{level})
    / 2`, :math:`q^*_a` the :math:`a` quantile of :math:`T` over
    ``n_bootstrap`` resamples of the rows (drawn with replacement, as
    multinomial weights), and :math:`q^0_a` that over as many sets of
    outcomes drawn from the predictions themselves (each row's class drawn
    from its probabilities: what a calibrated model would give).

    *A calibration error* gets

    .. math::

        \Big[\max\big(0,\ \min(T - q^0_a,\ 2T - q^*_a,\ q^*_{1-a})\big),\
        \max(q^*_a, T)\Big].

    The lower end of a calibration error's interval is 0 exactly when the
    data are consistent with a calibrated model at level :math:`1 - a`; it
    bounds the population value whatever the shape of the miscalibration,
    where percentile intervals (biased upwards, like the plug-in estimate)
    would exclude 0 for a calibrated model. *A proper score* (a mean of
    per-row losses) gets the percentile interval :math:`[q^*_{1-a},
    q^*_a]`. Both are widened to contain :math:`T`, and to the range of the
    draws if the percentiles coincide while the draws differ. The rows are
    a sample of the population and the model is fixed.

    The coverage of nominal 95% intervals, measured by simulation
    (``benchmarks/bench_interval_coverage.py``), is 95.5% to 100% for the
    ECE and the SmoothECE and 90.5% to 97.5% for the Brier score and the
    log loss at n = 300 and 3,000; the User Guide gives the derivation and
    the full table.

    References
    ----------
    .. [1] D. W. K. Andrews, "Inconsistency of the Bootstrap when a Parameter
       is on the Boundary of the Parameter Space", Econometrica 68(2), 2000.
    .. [2] J. Broecker and L. A. Smith, "Increasing the Reliability of
       Reliability Diagrams", Weather and Forecasting 22(3), 2007
       (consistency resampling: outcomes drawn from the forecasts).
    .. [3] A. Kumar, P. Liang and T. Ma, "Verified Uncertainty Calibration",
       NeurIPS 2019 (the upward bias of plug-in calibration errors).

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import confidence_interval
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=2000)
    >>> y_true = (rng.uniform(size=2000) < y_prob).astype(int)  # calibrated
    >>> result = confidence_interval(y_true, y_prob, random_state=0)
    >>> round(result.value, 3), result.low, round(result.high, 3)
    (0.015, 0.0, 0.041)

    The interval of a calibrated model's ECE starts at 0. Events that are
    rarer than predicted (here with probability ``y_prob**2``) give one
    that does not:

    >>> y_rarer = (rng.uniform(size=2000) < y_prob**2).astype(int)
    >>> result = confidence_interval(y_rarer, y_prob, random_state=0)
    >>> round(result.value, 3), round(result.low, 3), round(result.high, 3)
    (0.166, 0.128, 0.181)
    """
    measure = (
        MEASURES_BY_NAME[metric]
        if isinstance(metric, str)
        else custom_measure(getattr(metric, "__name__", "metric"), metric)
    )
    options = dict(metric_params or {})
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    problem = problem_of(data)
    y_true, y_matrix, classes, weight, positive = problem
    value = measure.evaluate(
        y_true,
        y_matrix,
        classes=classes,
        sample_weight=weight,
        pos_label=positive,
        **options,
    )
    ((low, high),) = measure_intervals(
        {measure.name: measure},
        problem,
        {measure.name: value},
        n_bootstrap=n_bootstrap,
        confidence_level=confidence_level,
        rng=check_random_state(random_state),
        verbose=verbose,
        options={measure.name: options},
        n_jobs=n_jobs,
    ).values()
    return Bunch(
        value=value,
        low=low,
        high=high,
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap,
        method=METHODS[measure.kind],
    )
