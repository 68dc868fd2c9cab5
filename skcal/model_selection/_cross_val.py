"""Cross-validated calibration: measures on pooled out-of-fold predictions.

A calibration error is not an average over samples of a per-sample loss, so
the mean of per-fold errors is not the error of the model: each fold's value
carries the noise of a small sample (binned and kernel estimates are biased
upwards on small samples), and averaging does not remove that bias. The
out-of-fold predictions of all folds are instead pooled, every measure is
computed once on the pool, and a bootstrap of the pool gives its interval.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from sklearn import get_config
from sklearn.base import clone
from sklearn.model_selection import check_cv, cross_val_predict
from sklearn.utils import Bunch, check_random_state, indexable
from sklearn.utils.validation import has_fit_parameter

from skcal._docstrings import fill_doc
from skcal._param_validation import HasMethods, Interval, validate_params
from skcal._typing import ArrayLike, CVLike, RandomStateLike
from skcal._utils._bootstrap import N_BOOTSTRAP
from skcal._utils._progress import VERBOSE_CONSTRAINT
from skcal._utils._scaling import normalized_weights
from skcal._validation import (
    check_groups,
    check_partition,
    check_recalibration_target,
    check_sample_weight,
)
from skcal.metrics._groups import GroupedResult
from skcal.metrics._interval import measure_intervals
from skcal.metrics._registry import MEASURES_BY_NAME, custom_measure

# A calibration error alone rewards the mean-replacement baseline; the
# default always pairs them with proper scores.
DEFAULT_METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "brier_score_loss",
    "log_loss",
)


def _callable_name(metric):
    """A name for a callable metric (a function, a ``functools.partial``, ...)."""
    if not callable(metric):
        raise TypeError(f"metric {metric!r} must be a name or a callable.")
    inner = getattr(metric, "func", metric)
    return getattr(inner, "__name__", type(inner).__name__)


def resolve_metrics(metrics):
    """``{name: Measure}`` from registered names, callables or a dict of both."""
    if isinstance(metrics, dict):
        items = list(metrics.items())
    else:
        items = [(m if isinstance(m, str) else _callable_name(m), m) for m in metrics]
    resolved = {}
    for name, metric in items:
        if isinstance(metric, str):
            if metric not in MEASURES_BY_NAME:
                raise ValueError(
                    f"Unknown metric {metric!r}; use a callable or one of "
                    f"{sorted(MEASURES_BY_NAME)}."
                )
            resolved[name] = MEASURES_BY_NAME[metric]
        elif callable(metric):
            resolved[name] = custom_measure(name, metric)
        else:
            raise TypeError(f"metric {name!r} must be a name or a callable.")
    if not resolved:
        raise ValueError("metrics is empty: pass at least one measure.")
    return resolved


def _partition(cv, X, y):
    """The folds of ``cv``; their test sets must partition the samples."""
    splits = list(check_cv(cv, y, classifier=True).split(X, y))
    check_partition(splits, len(y), "The out-of-fold predictions are pooled")
    return splits


def _out_of_fold_probabilities(estimator, X, y, sample_weight, splits, n_jobs):
    """``predict_proba`` of each test fold by the model fitted on the rest."""
    params = {}
    if sample_weight is not None and (
        get_config().get("enable_metadata_routing", False)
        or has_fit_parameter(estimator, "sample_weight")
    ):
        # With metadata routing, scikit-learn routes the weights to what
        # requests them (and refuses them when nothing does).
        params["sample_weight"] = sample_weight
    return cross_val_predict(
        clone(estimator),
        X,
        y,
        cv=splits,
        method="predict_proba",
        n_jobs=n_jobs,
        params=params,
    )


class _Pooled:
    """The measures of the pooled out-of-fold predictions, of folds and resamples."""

    def __init__(self, measures, y, y_prob, classes, sample_weight):
        self.measures, self.classes = measures, classes
        self.y, self.y_prob, self.original_weight = y, y_prob, sample_weight
        # Every measure depends on ratios of weights only: scaled, they never
        # overflow in the measures or the bootstrap.
        self.sample_weight = normalized_weights(sample_weight)

    def problem(self, rows=None):
        """``(y_true, y_prob, classes, sample_weight, pos_label)`` of the rows
        ``rows`` (all of them when None), as the intervals take it."""
        if rows is None:
            return self.y, self.y_prob, self.classes, self.sample_weight, None
        weights = None if self.sample_weight is None else self.sample_weight[rows]
        return self.y[rows], self.y_prob[rows], self.classes, weights, None

    def value(self, name, rows=None):
        """The measure ``name`` of the rows ``rows`` (all of them when None)."""
        y, y_prob, classes, weights, _ = self.problem(rows)
        return self.measures[name].evaluate(
            y, y_prob, classes=classes, sample_weight=weights
        )


def _group_table(name, grouped, level):
    """The lines of one measure's values and intervals by group."""
    labels = [str(g) for g in grouped.groups]
    width = max(len("group"), *(len(s) for s in labels))
    lines = [
        f"{name} by group (worst: {grouped.worst_group!r})",
        f"{'group':<{width}}  {'n':>8}  {'pooled':>8}  {level:>19}",
    ]
    for i, label in enumerate(labels):
        interval = f"[{grouped.low[i]:.4f}, {grouped.high[i]:.4f}]"
        lines.append(
            f"{label:<{width}}  {grouped.n_samples[i]:>8d}  "
            f"{grouped.value[i]:>8.4f}  {interval:>19}"
        )
    return "\n".join(lines)


def _intervals(pooled, rows, values, options):
    """``{name: (low, high)}`` of the measures of the pooled rows ``rows``
    (all of them when None); NaN without resamples."""
    if not options["n_bootstrap"]:
        return dict.fromkeys(pooled.measures, (np.nan, np.nan))
    return measure_intervals(pooled.measures, pooled.problem(rows), values, **options)


def _by_group(pooled, split, value, intervals, options):
    """``{name: GroupedResult}``: each measure and its interval per group.

    Groups whose weights are all zero are left out.
    """
    labels, members = split.weighted_members(pooled.sample_weight)
    answers = []
    for rows in members:
        values = {name: pooled.value(name, rows) for name in pooled.measures}
        answers.append((values, _intervals(pooled, rows, values, options)))
    sizes = np.array([rows.shape[0] for rows in members])
    totals = sizes.astype(np.float64)
    if pooled.original_weight is not None:
        totals = np.array([pooled.original_weight[rows].sum() for rows in members])

    def answer(values, bounds, name):
        low, high = bounds[name]
        return Bunch(value=values[name], low=low, high=high)

    return {
        name: GroupedResult(
            function=name,
            groups=labels,
            results=[answer(v, b, name) for v, b in answers],
            n_samples=sizes,
            weight=totals,
            overall=answer(value, intervals, name),
        )
        for name in pooled.measures
    }


class CrossValCalibration:
    """The result of :func:`cross_val_calibration`, printable as a table.

    Read more in the :ref:`User Guide <recalibration_cross_val>`.

    Parameters
    ----------
    metrics : list of str
        The measures, in the order of the table.
    value : dict
        Each measure on the pooled out-of-fold predictions.
    ci_low, ci_high : dict
        The bounds of each measure's bootstrap interval (NaN without
        resamples).
    per_fold : dict
        Each measure on each test fold, as an ndarray of shape (n_folds,).
    y_true : ndarray of shape (n_samples,)
        The labels.
    y_prob : ndarray of shape (n_samples, n_classes)
        The pooled out-of-fold probabilities, columns in the order of
        ``classes``: the input of reliability diagrams.
    classes : ndarray of shape (n_classes,)
        The classes.
    sample_weight : array-like of shape (n_samples,) or None
        The sample weights.
    test_indices : list of ndarray
        The rows of each test fold.
    confidence_level : float
        The level of the intervals.
    n_bootstrap : int
        The number of bootstrap resamples.
    name : str
        The estimator's class name.
    by_group : dict or None, default=None
        With ``groups``, ``{measure: GroupedResult}``: each group's value,
        ``low`` and ``high`` (its interval) and size.

    See Also
    --------
    cross_val_calibration : The function that returns it.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcal.model_selection import cross_val_calibration
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> result = cross_val_calibration(
    ...     GaussianNB(), X, y, metrics=["brier_score_loss"], n_bootstrap=0)
    >>> result.metrics, result.per_fold["brier_score_loss"].shape
    (['brier_score_loss'], (5,))
    """

    def __init__(
        self,
        *,
        metrics: list[str],
        value: dict[str, float],
        ci_low: dict[str, float],
        ci_high: dict[str, float],
        per_fold: dict[str, np.ndarray],
        y_true: np.ndarray,
        y_prob: np.ndarray,
        classes: np.ndarray,
        sample_weight: ArrayLike | None,
        test_indices: list[np.ndarray],
        confidence_level: float,
        n_bootstrap: int,
        name: str,
        by_group: dict[str, GroupedResult] | None = None,
    ) -> None:
        self.metrics = metrics
        self.value = value
        self.ci_low = ci_low
        self.ci_high = ci_high
        self.per_fold = per_fold
        self.y_true = y_true
        self.y_prob = y_prob
        self.classes = classes
        self.sample_weight = sample_weight
        self.test_indices = test_indices
        self.confidence_level = confidence_level
        self.n_bootstrap = n_bootstrap
        self.name = name
        self.by_group = by_group

    def to_frame(self):
        """The table as a pandas DataFrame, one row per measure.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``value``, ``ci_low``, ``ci_high``, ``fold_mean``,
            ``fold_std`` and ``fold_1``, ``fold_2``, ...
        """
        import pandas as pd

        rows = {}
        for name in self.metrics:
            folds = self.per_fold[name]
            rows[name] = {
                "value": self.value[name],
                "ci_low": self.ci_low[name],
                "ci_high": self.ci_high[name],
                "fold_mean": float(np.mean(folds)),
                "fold_std": float(np.std(folds)),
                **{f"fold_{i + 1}": float(v) for i, v in enumerate(folds)},
            }
        return pd.DataFrame.from_dict(rows, orient="index")

    def __str__(self):
        level = f"{100 * self.confidence_level:g}% CI"
        header = (
            f"{self.name}: {len(self.test_indices)}-fold cross-validation, "
            f"{self.y_true.shape[0]} samples, measures on the pooled "
            f"out-of-fold predictions ({self.n_bootstrap} bootstrap resamples)"
        )
        width = max(len("measure"), *(len(m) for m in self.metrics))
        lines = [
            header,
            f"{'measure':<{width}}  {'pooled':>8}  {level:>19}  "
            f"{'per-fold mean (sd)':>19}",
        ]
        for name in self.metrics:
            folds = self.per_fold[name]
            interval = f"[{self.ci_low[name]:.4f}, {self.ci_high[name]:.4f}]"
            lines.append(
                f"{name:<{width}}  {self.value[name]:>8.4f}  {interval:>19}  "
                f"{np.mean(folds):>10.4f} ({np.std(folds):.4f})"
            )
        for name, grouped in (self.by_group or {}).items():
            lines += ["", _group_table(name, grouped, level)]
        return "\n".join(lines)

    def __repr__(self):
        return str(self)


@validate_params(
    {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "X": ["array-like"],
        "y": ["array-like"],
        "sample_weight": ["array-like", None],
        "groups": ["array-like", None],
        "cv": ["cv_object"],
        "metrics": [list, tuple, dict],
        "n_bootstrap": [Interval(Integral, 0, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": VERBOSE_CONSTRAINT,
    },
    prefer_skip_nested_validation=False,
)
@fill_doc
def cross_val_calibration(
    estimator: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    cv: CVLike = 5,
    metrics: list | tuple | dict = DEFAULT_METRICS,
    n_bootstrap: int = N_BOOTSTRAP,
    confidence_level: float = 0.95,
    n_jobs: int | None = None,
    random_state: RandomStateLike = None,
    verbose: Literal["auto"] | bool = "auto",
) -> CrossValCalibration:
    r"""Measure calibration under cross-validation, on pooled out-of-fold predictions.

    The estimator is fitted on the training part of each fold and predicts
    probabilities for the held-out part; the out-of-fold predictions of all
    folds are pooled, and each measure is computed once on the pool, with
    the confidence interval of :func:`skcal.metrics.confidence_interval`
    (see Notes). The value of each fold is reported beside it, but the mean
    of per-fold calibration errors overstates the error and should not be
    used to compare models. The default measures pair two calibration
    errors with two proper scores.

    Read more in the :ref:`User Guide <recalibration_cross_val>`.

    Parameters
    ----------
    estimator : classifier
        An unfitted classifier with ``predict_proba`` (for instance a
        :class:`~skcal.calibration.RecalibratedClassifierCV`, or a pipeline).
    X : array-like of shape (n_samples, n_features)
        The samples.
    y : array-like of shape (n_samples,)
        The labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights, used by the measures and the bootstrap, and passed
        to the estimator's ``fit`` when its signature has ``sample_weight``
        (with metadata routing enabled: when it requests them).
    groups : array-like of shape (n_samples,), default=None
        The subgroup of each sample (a region, an age band, ...): each
        measure is also computed on each group's pooled out-of-fold
        predictions, with its interval (``by_group``). These groups are
        not passed to the splitter; to keep groups of samples out of each
        other's folds, pass the splits, e.g.
        ``cv=list(GroupKFold().split(X, y, other_groups))``. See
        :ref:`groups`.
    cv : int, cross-validation generator or iterable, default=5
        The folds, as in :func:`sklearn.model_selection.check_cv` (stratified
        for an int); the test sets must partition the samples.
    metrics : list, tuple or dict, default=("expected_calibration_error", ...)
        The measures, by default ``"expected_calibration_error"``,
        ``"smooth_ece"``, ``"brier_score_loss"`` and ``"log_loss"``: names
        of :func:`skcal.discovery.all_measures` (skcal's calibration errors
        and scikit-learn's two proper scores), or callables ``f(y_true,
        y_prob, *, sample_weight, labels)``; a dict names them.
    n_bootstrap : int, default=1000
        Number of bootstrap resamples of the pool (and, for a calibration
        error, of outcome sets drawn from the pooled predictions); 0 gives
        no interval.
    confidence_level : float, default=0.95
        The level of the intervals.
    n_jobs : int or None, default=None
        Number of folds fitted in parallel, and of threads drawing the
        bootstrap's batches of resamples (the result does not depend on
        it). None means 1 unless in a :func:`joblib.parallel_config`
        context; -1 means all processors.
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap. Pass an int for reproducible output across
        multiple function calls.
    %(verbose)s

    Returns
    -------
    result : CrossValCalibration
        The pooled values, intervals and per-fold values of every measure,
        and the pooled predictions; ``print(result)`` shows a table and
        ``result.to_frame()`` gives it as a pandas DataFrame.

    See Also
    --------
    sklearn.model_selection.cross_validate : Per-fold scores, for measures
        that do average over folds.

    Notes
    -----
    The intervals are those of :func:`skcal.metrics.confidence_interval`: a
    calibration error's upper end is the bootstrap percentile, its lower
    end the estimate minus the same percentile of the measure on outcomes
    drawn from the pooled predictions (0 when the pool is consistent with a
    calibrated model); a proper score's interval is the bootstrap
    percentile interval. Their coverage of the population value has been
    measured by simulation. They describe the pooled predictions as a
    sample, the fitted models held fixed: the spread from refitting on
    other training sets is not in them. Each resample costs one evaluation
    of every measure; ``logit_smoothed_ece`` takes milliseconds per
    evaluation, so lower ``n_bootstrap`` for quick looks.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcal.model_selection import cross_val_calibration
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> result = cross_val_calibration(GaussianNB(), X, y, n_bootstrap=200,
    ...                                random_state=0)
    >>> round(result.value["expected_calibration_error"], 4)
    0.0598
    >>> result.y_prob.shape
    (569, 2)
    """
    resolved = resolve_metrics(metrics)
    X, y = indexable(X, y)
    _, classes = check_recalibration_target(y)
    y = np.asarray(y)
    sample_weight = check_sample_weight(sample_weight, y.shape[0])
    split = None if groups is None else check_groups(groups, y.shape[0])
    splits = _partition(cv, X, y)
    y_prob = _out_of_fold_probabilities(estimator, X, y, sample_weight, splits, n_jobs)

    pooled = _Pooled(resolved, y, y_prob, classes, sample_weight)
    value = {name: pooled.value(name) for name in resolved}
    per_fold = {
        name: np.array([pooled.value(name, test) for _, test in splits])
        for name in resolved
    }
    rng = check_random_state(random_state)
    interval_options = {
        "n_bootstrap": n_bootstrap,
        "confidence_level": confidence_level,
        "rng": rng,
        "verbose": verbose,
        "n_jobs": n_jobs,
    }
    intervals = _intervals(pooled, None, value, interval_options)
    by_group = None
    if split is not None:
        by_group = _by_group(pooled, split, value, intervals, interval_options)
    ci_low = {name: low for name, (low, _) in intervals.items()}
    ci_high = {name: high for name, (_, high) in intervals.items()}
    return CrossValCalibration(
        metrics=list(resolved),
        value=value,
        ci_low=ci_low,
        ci_high=ci_high,
        per_fold=per_fold,
        y_true=y,
        y_prob=y_prob,
        classes=classes,
        sample_weight=sample_weight,
        test_indices=[test for _, test in splits],
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap,
        name=type(estimator).__name__,
        by_group=by_group,
    )
