"""Shared parameter descriptions, inserted into docstrings by one decorator.

A docstring line that holds only ``%(name)s`` is replaced by the entry
``name`` below, indented like the placeholder. Nothing else in the docstring
is touched, so LaTeX braces and percent signs need no escaping.
"""

# SPDX-License-Identifier: BSD-3-Clause

import re
import textwrap

# Shared with the Displays, which fill their own templates.
BOOTSTRAP_JOBS_DOC = """\
n_jobs : int or None, default=None
    Threads drawing the bootstrap's batches of resamples at once. None
    means 1 unless in a :func:`joblib.parallel_config` context; -1 means
    all processors. The result does not depend on it."""

# The data of the functions of probabilistic regression (skcal.regression),
# filled with ``fill_doc_from(REGRESSION_DOC)``.
REGRESSION_DOC = {
    "y_true": """\
y_true : array-like of shape (n_samples,)
    The observed values.""",
    "y_mean": """\
y_mean : array-like of shape (n_samples,)
    The predicted means.""",
    "y_std": """\
y_std : array-like of shape (n_samples,)
    The predicted standard deviations, positive (as
    ``predict(X, return_std=True)`` returns them).""",
    "y_quantiles": """\
y_quantiles : array-like of shape (n_samples, n_quantiles)
    The predicted quantiles, one column per level.""",
    "quantiles": """\
quantiles : array-like of shape (n_quantiles,) or float
    The levels of the columns, strictly increasing in (0, 1).""",
    "y": """\
y : array-like of shape (n_samples,)
    The observed values.""",
}

_SHARED = {
    "y_true": """\
y_true : array-like of shape (n_samples,)
    True labels.""",
    "y_prob": """\
y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
    Predicted probabilities: of the positive class (1-D, binary), or one
    column per class in the order of ``labels`` (or of the sorted labels
    of ``y_true``), rows summing to 1.""",
    "sample_weight": """\
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative sample weights; None gives every sample weight 1.""",
    "pos_label": """\
pos_label : int, float, bool, str or other hashable label, default=None
    The positive class. When None, labels in ``{0, 1}`` or ``{-1, 1}``
    make 1 positive, and a two-column ``y_prob`` has its positive class
    in the second column. It need not occur in ``y_true`` (a sample of
    one class is valid data). On a multiclass problem, it selects the
    one-vs-rest view of that class (``reduction="positive"``).""",
    "labels": """\
labels : array-like of shape (n_classes,), default=None
    The class of each column of ``y_prob``. When None, the columns follow
    the sorted labels of ``y_true``, or the column names of a pandas
    ``y_prob`` when they are exactly those labels.""",
    "groups": """\
groups : array-like of shape (n_samples,), default=None
    The group of each sample (e.g. a region or an age band). When given,
    the answer is a :class:`~skcal.metrics.GroupedResult`: the answer of
    each group's rows (with the classes of all the rows), the group sizes,
    the answer on all the rows and the worst group. See :ref:`groups`.""",
    "n_bins": """\
n_bins : int or "cube_root", default=15
    Number of bins; ``"cube_root"`` is ``ceil(n ** (1/3))`` for ``n``
    samples of positive weight.""",
    "strategy": """\
strategy : {"uniform", "quantile"}, default="uniform"
    ``"uniform"``: bins of equal width on [0, 1]. ``"quantile"``: bins of
    equal weight, from weighted quantiles of the predictions; identical
    predictions share a bin, so there may be fewer bins than ``n_bins``.
    Bins are right-closed, with 0 in the first bin and 1 in the last; a
    prediction equal to an edge lies in the bin below it. A quantile edge
    is the smallest prediction whose cumulative weight reaches the level,
    up to a relative rounding tolerance of 1e-10.""",
    "reduction": """\
reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
    How a multiclass problem is reduced to binary ones. ``"positive"``:
    the probability of ``pos_label`` against its indicator.
    ``"top_label"``: the largest probability (confidence) against the
    correctness of the argmax. ``"classwise"``: every one-vs-rest column,
    averaged over classes. ``"auto"`` is ``"positive"`` for binary
    problems (and when ``pos_label`` is given) and ``"top_label"``
    otherwise. See :ref:`multiclass`.""",
    "verbose": """\
verbose : "auto" or bool, default="auto"
    Progress on the standard error stream: ``"auto"`` shows it on a
    terminal once the work has taken a second, and never elsewhere;
    ``True`` always (one line per tenth of the work when not on a
    terminal); ``False`` never.""",
    "n_jobs_bootstrap": BOOTSTRAP_JOBS_DOC,
    "return_per_class": """\
return_per_class : bool, default=False
    With ``reduction="classwise"``, return the value of every class
    instead of their mean.""",
    # Recalibrators (skcal.calibration).
    "estimator": """\
estimator : fitted classifier or None, default=None
    The classifier whose scores are recalibrated; it is never refitted
    (wrap it in :class:`sklearn.frozen.FrozenEstimator` to keep it fitted
    through :func:`~sklearn.base.clone`). With None, ``X`` is the score
    array itself.""",
    "input": """\
input : {"auto", "probability", "logit"}, default="auto"
    The kind of scores. ``"auto"``: the kind of the classifier's response
    (``predict_proba`` gives probabilities, ``decision_function`` logits),
    or with ``estimator=None`` probabilities when the values are in
    [0, 1] (and rows sum to 1), logits otherwise.""",
    "response_method": """\
response_method : {"auto", "decision_function", "predict_proba"}, default="auto"
    The classifier's method that gives the scores; ``"auto"`` prefers
    ``decision_function``. Ignored with ``estimator=None``.""",
    "classes": """\
classes : array-like of shape (n_classes,), default=None
    With ``estimator=None``, the class of each score column, so that a
    calibration set may lack some classes; None means the sorted labels
    of ``y``. A wrapped classifier's ``classes_`` are used otherwise.""",
    "multiclass": """\
multiclass : {"ovr", "top_label"}, default="ovr"
    How a multiclass problem is served: one map per class (class against
    the rest), rows then renormalised, uniform where every map gives 0
    (``"ovr"``); or one map from the top class's score to the probability
    that it is right (``"top_label"``): the top class keeps its rank and
    gets that probability, clipped to [1/K, 1] for K classes, and the other
    classes share the rest in proportion to their original probabilities,
    none above the top class, so that ``predict`` is the classifier's.""",
    "classes_": """\
classes_ : ndarray of shape (n_classes,)
    The classes, in the order of the columns of :meth:`predict_proba`.""",
    "input_": """\
input_ : {"probability", "logit"}
    The kind of scores seen at fit; scores at predict time must be of
    the same kind.""",
    "n_features_in_": """\
n_features_in_ : int
    Number of columns of ``X`` seen at fit (the wrapped classifier's when
    there is one).""",
    "feature_names_in_": """\
feature_names_in_ : ndarray of shape (`n_features_in_`,)
    Names of the columns of ``X``, when they are all strings.""",
}

# The datasets' loaders.
_SHARED["as_frame"] = """\
as_frame : bool, default=False
    Return pandas objects (requires pandas) instead of arrays."""
_SHARED["softmax_bunch"] = """\
data : :class:`~sklearn.utils.Bunch`
    Dictionary-like object, with the following attributes.

    probabilities : ndarray of shape (n_samples, n_classes), float32
        The softmax outputs, as recorded upstream; a DataFrame with one
        column per class name when ``as_frame=True``.
    target : ndarray of shape (n_samples,)
        The true class index of each sample; a Series when
        ``as_frame=True``.
    target_names : ndarray of shape (n_classes,)
        The class names, in the order of the columns.
    frame : DataFrame of shape (n_samples, n_classes + 1) or None
        The probabilities and the target, when ``as_frame=True``.
    DESCR : str
        What the data are, where they come from, and their licence."""
_SHARED["top_label_bunch"] = """\
data : :class:`~sklearn.utils.Bunch`
    Dictionary-like object, with the following attributes.

    target : ndarray of shape (n_samples,)
        The true class index of each sample.
    predicted : ndarray of shape (n_samples,)
        The predicted class index.
    confidence : ndarray of shape (n_samples,), float32
        The predicted class's probability, as recorded upstream.
    target_names : ndarray of shape (n_classes,) or None
        The class names, when known.
    frame : DataFrame of shape (n_samples, 3) or None
        The three columns, when ``as_frame=True`` (the attributes are
        then its Series).
    DESCR : str
        What the data are, where they come from, and their licence."""

_PLACEHOLDER = re.compile(r"^( *)%\((\w+)\)s$", flags=re.MULTILINE)


def fill_doc_from(entries):
    """A decorator replacing the placeholder lines named in ``entries`` first.

    Lines naming an entry of ``entries`` are replaced by it, then the
    shared entries above (:func:`fill_doc`), for modules whose functions
    share more descriptions among themselves (the tests, the Displays).
    """

    def replace(match):
        indent, name = match.groups()
        if name not in entries:
            return match.group(0)
        return textwrap.indent(entries[name], indent)

    def decorator(func):
        if func.__doc__ is not None:  # docstrings are stripped under python -OO
            func.__doc__ = _PLACEHOLDER.sub(replace, func.__doc__)
        return fill_doc(func)

    return decorator


def fill_doc(func):
    """Replace ``%(name)s`` placeholder lines of ``func``'s docstring."""

    def replace(match):
        indent, name = match.groups()
        return textwrap.indent(_SHARED[name], indent)

    if func.__doc__ is not None:  # docstrings are stripped under python -OO
        func.__doc__ = _PLACEHOLDER.sub(replace, func.__doc__)
    return func
