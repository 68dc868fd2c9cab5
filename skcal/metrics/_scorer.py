"""Scorers: calibration measures as ``scoring=`` objects for model selection.

A scorer is called as ``scorer(estimator, X, y_true)`` and returns a number
to maximise. scikit-learn builds its scorers with ``make_scorer``, whose score
function never sees the estimator; but a calibration measure needs to know
the class of each column of ``predict_proba``: on a binary problem with string
labels to know which class is positive, and on a cross-validation fold that
lacks a class to know that the matrix still has a column for it. So skcal's
scorers are small objects that read ``estimator.classes_`` and pass it on as
``labels`` (and ``pos_label``), with the same calling convention, greater-is-
better sign and metadata routing (``set_score_request``) as scikit-learn's.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from sklearn import get_config
from sklearn.metrics import get_scorer as _sklearn_get_scorer
from sklearn.metrics import get_scorer_names as _sklearn_get_scorer_names
from sklearn.utils.metadata_routing import MetadataRequest

from skcal._param_validation import validate_parameter_constraints, validate_params
from skcal._validation import check_fitted_classifier
from skcal.metrics._registry import MEASURES, accepted_keywords, custom_measure


class RoutedScorer:
    """A scorer of a measure with fixed options: its sign and metadata routing.

    Subclasses define ``__call__(estimator, X, y_true, sample_weight=None,
    **kwargs)``: how the estimator's predictions reach the measure.
    """

    def __init__(self, score_func, sign, kwargs):
        self._score_func = score_func
        self._sign = sign
        self._kwargs = kwargs
        # Like scikit-learn's scorers: sample_weight is neither requested nor
        # refused until set_score_request says so.
        self._score_request = {"sample_weight": None}

    def __repr__(self):
        options = "".join(f", {k}={v!r}" for k, v in self._kwargs.items())
        greater = "" if self._sign < 0 else ", greater_is_better=True"
        return f"make_calibration_scorer({self._score_func.__name__}{greater}{options})"

    def set_score_request(self, **kwargs):
        """Request metadata, such as ``sample_weight``, for the ``score`` call.

        Parameters
        ----------
        **kwargs : dict
            ``param=True`` to request it, ``False`` to refuse it, or a string
            alias, as in scikit-learn's ``set_score_request``.

        Returns
        -------
        self : object
            The scorer.
        """
        if not get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                "set_score_request is only available when metadata routing is "
                "enabled: sklearn.set_config(enable_metadata_routing=True)."
            )
        self._score_request = {**self._score_request, **kwargs}
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests, for scikit-learn's routing.

        Returns
        -------
        routing : :class:`~sklearn.utils.metadata_routing.MetadataRequest`
            The requests of the ``score`` method.
        """
        request = MetadataRequest(owner=self)
        for param, alias in self._score_request.items():
            request.score.add_request(param=param, alias=alias)
        return request


class _CalibrationScorer(RoutedScorer):
    """Score ``predict_proba`` with a calibration measure (see the module docstring)."""

    def __init__(self, score_func, sign, kwargs):
        super().__init__(score_func, sign, kwargs)
        self._measure = custom_measure(_name(score_func), score_func)

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Evaluate the measure on ``estimator.predict_proba(X)`` against ``y_true``.

        Parameters
        ----------
        estimator : fitted classifier
            It must have ``predict_proba`` and ``classes_``.
        X : array-like of shape (n_samples, n_features)
            The samples.
        y_true : array-like of shape (n_samples,)
            The true labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights passed to the measure.
        **kwargs : dict
            Other metadata passed to the measure (overriding the scorer's
            own options).

        Returns
        -------
        score : float
            The measure times -1 for an error (greater is better).
        """
        check_fitted_classifier(
            estimator, "a calibration scorer", "predict_proba", "it must be fitted."
        )
        proba = np.asarray(estimator.predict_proba(X))
        value = self._measure.evaluate(
            y_true,
            proba,
            classes=np.asarray(estimator.classes_),
            sample_weight=sample_weight,
            **{**self._kwargs, **kwargs},
        )
        return self._sign * value


def _name(function):
    return getattr(function, "__name__", type(function).__name__)


def _check_scorer_options(score_func, options, passed):
    """Reject, at construction, what would make the scorer fail in every fold.

    scikit-learn's model selection turns a scorer's failures into NaN
    scores: a function of skcal that is not a measure (it returns a table or
    a result, not one number), an option the measure does not take, one
    that changes what it returns (``return_*``), an argument the scorer
    passes itself (``passed``: the target and the predictions), or a value
    the measure's constraints refuse.
    """
    from skcal.regression._scorer import REGRESSION_SCORERS

    name = _name(score_func)
    registered = {m.function for m in MEASURES} | set(REGRESSION_SCORERS.values())
    if _is_skcal(score_func) and score_func not in registered:
        measures = [m.name for m in MEASURES if m.module == "skcal.metrics"]
        measures += [f.__name__ for f in REGRESSION_SCORERS.values()]
        raise TypeError(
            f"{name} is not a measure of one number, so it cannot be a scorer; "
            f"the measures of skcal are {', '.join(measures)}."
        )
    for argument in passed:
        if argument in options:
            raise TypeError(
                f"make_calibration_scorer got {argument}=...: the scorer passes "
                f"{', '.join(passed)} at every call."
            )
    if "sample_weight" in options:
        raise TypeError(
            "make_calibration_scorer got sample_weight=...: weights reach the "
            "scorer at every call, through metadata routing "
            "(scorer.set_score_request(sample_weight=True))."
        )
    accepted = accepted_keywords(score_func)
    unknown = [] if accepted is None else sorted(set(options) - accepted)
    if unknown:
        taken = sorted(accepted - set(passed) - {"sample_weight"})
        offer = f"its options are {', '.join(taken)}" if taken else "it has none"
        raise TypeError(f"{name} has no parameter {unknown[0]!r}; {offer}.")
    returning = [
        f"{k}={v!r}"
        for k, v in sorted(options.items())
        if (k.startswith("return_") and v) or (k, v) == ("multioutput", "raw_values")
    ]
    if returning:
        raise TypeError(
            f"make_calibration_scorer got {returning[0]}: a scorer returns one "
            f"number, and this option makes {name} return more."
        )
    constraints = getattr(score_func, "_skcal_parameter_constraints", None)
    if constraints is not None:
        validate_parameter_constraints(constraints, options, caller_name=name)


def _is_skcal(function):
    """Whether a callable (or the function of a partial) is one of skcal's."""
    inner = getattr(function, "func", function)
    return getattr(inner, "__module__", "").startswith("skcal.")


@validate_params(
    {"score_func": [callable], "greater_is_better": ["boolean"], "kwargs": [dict]},
    prefer_skip_nested_validation=True,
)
def make_calibration_scorer(
    score_func: Callable[..., Any], *, greater_is_better: bool = False, **kwargs: Any
) -> Callable[..., float]:
    """Make a scorer from a calibration measure and fixed options.

    The scorer calls ``predict_proba`` and passes the estimator's classes to
    the measure (as ``labels``, and for a binary problem the second class as
    ``pos_label`` unless one is given), so it works with labels of any type
    and on cross-validation folds that lack a class. The options are checked
    at once: a name the measure does not take, or a value its parameter
    constraints refuse, raises here rather than in every fold.

    A measure of :mod:`skcal.regression` makes a scorer of a regressor: a
    Gaussian measure (such as
    :func:`~skcal.regression.dawid_sebastiani_score`) scores the means and
    standard deviations of ``predict(X, return_std=True)``; a quantile
    measure (such as :func:`~skcal.regression.pinball_loss`) the quantiles
    of a quantile model, or, with the option ``quantiles=[...]``, those of
    the model's ``predict_quantiles`` at these levels.

    Read more in the :ref:`User Guide <grid_search>`.

    Parameters
    ----------
    score_func : callable
        A measure with the signature ``score_func(y_true, y_prob, *,
        sample_weight=None, pos_label=None, labels=None, **kwargs)``, such
        as :func:`expected_calibration_error`, or a measure of
        :mod:`skcal.regression`.
    greater_is_better : bool, default=False
        Whether larger values are better. Calibration errors are not, so
        the scorer returns their negation.
    **kwargs : dict
        Options passed to ``score_func`` on every call (e.g. ``n_bins=10``).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, sample_weight=None)``, with
        ``set_score_request`` for metadata routing.

    Raises
    ------
    TypeError
        When ``score_func`` has no parameter of an option's name, or an
        option is one the scorer passes itself (``y_true``, the
        predictions, ``sample_weight``).
    InvalidParameterError
        When an option's value violates the constraints of a skcal measure.

    See Also
    --------
    get_scorer : The named scorers.
    get_scorers : A ``{name: scorer}`` dict for ``scoring=``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcal.metrics import expected_calibration_error, make_calibration_scorer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> scorer = make_calibration_scorer(expected_calibration_error, n_bins=10)
    >>> cross_val_score(GaussianNB(), X, y, scoring=scorer).round(3).tolist()
    [-0.076, -0.082, -0.046, -0.052, -0.046]
    """
    from skcal.regression._scorer import RegressionScorer, regression_arguments

    sign = 1 if greater_is_better else -1
    passed = regression_arguments(score_func)
    if passed is not None:
        _check_scorer_options(score_func, kwargs, passed)
        return RegressionScorer(score_func, sign, kwargs)
    _check_scorer_options(score_func, kwargs, ("y_true", "y_prob"))
    return _CalibrationScorer(score_func, sign, kwargs)


_SCORERS = {
    m.scorer: make_calibration_scorer(m.function)
    for m in MEASURES
    if m.module == "skcal.metrics"
}


def get_scorer(
    scoring: str | Callable[..., Any] | None,
) -> Callable[..., float] | None:
    """Get a scorer by name: skcal's ``neg_<measure>`` names, then scikit-learn's.

    Read more in the :ref:`User Guide <grid_search>`.

    Parameters
    ----------
    scoring : str, callable or None
        A scorer name (``"neg_expected_calibration_error"``,
        ``"neg_brier_score"``, ...), a callable (returned as it is) or None.

    Returns
    -------
    scorer : callable or None
        A fresh copy of the named scorer, the callable given, or None for
        None (as scikit-learn's ``get_scorer``).

    See Also
    --------
    get_scorers : Several scorers at once, as a dict for ``scoring=``.
    get_scorer_names : All the names.

    Examples
    --------
    >>> from skcal.metrics import get_scorer
    >>> get_scorer("neg_smooth_ece")
    make_calibration_scorer(smooth_ece)
    """
    if isinstance(scoring, str):
        return _named_scorer(scoring)
    return _sklearn_get_scorer(scoring)


def _named_scorer(name):
    """A fresh copy of the scorer named ``name``, skcal's or scikit-learn's."""
    if name in _SCORERS:
        return copy.deepcopy(_SCORERS[name])
    from skcal.regression._scorer import regression_scorer

    scorer = regression_scorer(name)
    if scorer is not None:
        return scorer
    if name not in _sklearn_get_scorer_names():
        raise ValueError(
            f"{name!r} is not a valid scoring value; skcal.metrics."
            "get_scorer_names() lists the names of skcal and scikit-learn."
        )
    return _sklearn_get_scorer(name)


def get_scorers(names: str | Iterable[str]) -> dict[str, Callable[..., float]]:
    """Get scorers by name for ``scoring=``, skcal's and scikit-learn's mixed.

    scikit-learn resolves a string or a list of strings given as
    ``scoring=`` from its own names only, and has no public way to add
    names, so ``scoring="neg_expected_calibration_error"`` fails inside
    :func:`~sklearn.model_selection.cross_val_score`. A dict of scorer
    objects works everywhere: in ``cross_validate``, ``GridSearchCV`` (with
    ``refit=`` one of the names) and ``cross_val_score`` (with one scorer).

    Read more in the :ref:`User Guide <grid_search>`.

    Parameters
    ----------
    names : str or iterable of str
        Scorer names from :func:`get_scorer_names`, e.g.
        ``["neg_log_loss", "neg_smooth_ece"]``.

    Returns
    -------
    scoring : dict
        ``{name: scorer}``, in the order of ``names``, each a fresh scorer.

    See Also
    --------
    get_scorer : One scorer.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcal.metrics import get_scorers
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> scoring = get_scorers(["neg_log_loss", "neg_expected_calibration_error"])
    >>> result = cross_validate(GaussianNB(), X, y, scoring=scoring)
    >>> sorted(key for key in result if key.startswith("test_"))
    ['test_neg_expected_calibration_error', 'test_neg_log_loss']
    >>> float(-result["test_neg_expected_calibration_error"].mean()) < 0.1
    True
    """
    if isinstance(names, str):
        names = [names]
    scoring = {}
    for name in names:
        if not isinstance(name, str):
            raise TypeError(
                f"get_scorers takes scorer names (str), got {type(name).__name__}; "
                "a callable scorer goes into the dict by hand."
            )
        scoring[name] = _named_scorer(name)
    if not scoring:
        raise ValueError("get_scorers needs at least one scorer name.")
    return scoring


def get_scorer_names() -> list[str]:
    """The names accepted by :func:`get_scorer`: skcal's and scikit-learn's.

    Read more in the :ref:`User Guide <grid_search>`.

    Returns
    -------
    names : list of str
        Sorted scorer names.

    Examples
    --------
    >>> from skcal.metrics import get_scorer_names
    >>> [name for name in get_scorer_names() if "calibration" in name]
    ['neg_binned_calibration_error', 'neg_cutoff_calibration_error', \
'neg_expected_calibration_error', 'neg_kernel_calibration_error', \
'neg_pit_calibration_error', 'neg_quantile_calibration_error', \
'neg_smooth_calibration_error', 'neg_squared_kernel_calibration_error']
    """
    from skcal.regression._scorer import REGRESSION_SCORERS

    return sorted(
        set(_SCORERS) | set(REGRESSION_SCORERS) | set(_sklearn_get_scorer_names())
    )
