"""What the Displays share: predictions from estimators and cross-validation
results, axes, reference lines and the shared parameter descriptions."""

# SPDX-License-Identifier: BSD-3-Clause

import re
import textwrap

import numpy as np
from sklearn.utils.validation import check_is_fitted

from skcal._docstrings import fill_doc
from skcal._param_validation import validate_parameter_constraints
from skcal._utils._indexing import take_rows

REF_LINE_LABEL = "Perfectly calibrated"

# Parameter descriptions shared by the Displays' methods; a docstring line
# holding only ``%(name)s`` is replaced, like skcal's own `fill_doc`.
_PLOT_DOC = {
    "estimator": """\
estimator : fitted classifier
    A fitted classifier with ``predict_proba`` and ``classes_``; it is
    not refitted.""",
    "X": """\
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Input values.""",
    "y": """\
y : array-like of shape (n_samples,)
    True labels.""",
    "cv_results": """\
cv_results : dict or CrossValCalibration
    Either the dict returned by
    :func:`sklearn.model_selection.cross_validate` with
    ``return_estimator=True`` and ``return_indices=True`` (keys
    ``"estimator"`` and ``"indices"``): each fold's estimator predicts
    its test rows of ``X``; or the result of
    :func:`skcal.model_selection.cross_val_calibration`, whose pooled
    out-of-fold predictions (``y_true``, ``y_prob``, ``classes``,
    ``sample_weight``) are used as they are. Either way the out-of-fold
    predictions of all folds are pooled into one diagram: calibration
    errors are not averages of per-fold errors.""",
    "X_cv": """\
X : {array-like, sparse matrix} of shape (n_samples, n_features), default=None
    The data ``cross_validate`` was run on; not used for a
    ``CrossValCalibration``.""",
    "y_cv": """\
y : array-like of shape (n_samples,), default=None
    The labels ``cross_validate`` was run on; not used for a
    ``CrossValCalibration``.""",
    "sample_weight_cv": """\
sample_weight : array-like of shape (n_samples,), default=None
    Sample weights of the rows of ``X``. For a ``CrossValCalibration``,
    None uses its own ``sample_weight``.""",
    "name": """\
name : str, default=None
    Name of the curve in the legend. None uses the estimator's class
    name in ``from_estimator`` and ``from_cv_results``, and no name
    otherwise.""",
    "name_plot": """\
name : str, default=None
    Name of the curve in the legend; None uses the ``name`` attribute.""",
    "ax": """\
ax : matplotlib Axes, default=None
    Axes to draw on; a new figure and axes are created when None. Pass
    the ``ax_`` of another Display to draw several models on one axes.""",
    "ref_line": """\
ref_line : bool, default=True
    Draw the diagonal of perfect calibration (once per axes).""",
    "line_kwargs": """\
line_kwargs : dict, default=None
    Keywords of the curve (matplotlib aliases such as ``c``, ``lw``
    and ``ls`` are accepted), e.g. ``{"color": "C3"}``.""",
    "ref_line_kwargs": """\
ref_line_kwargs : dict, default=None
    Keywords of the diagonal.""",
}

_PLACEHOLDER = re.compile(r"^( *)%\((\w+)\)s$", flags=re.MULTILINE)


def doc_filler(entries=None):
    """A decorator filling ``%(name)s`` docstring lines from ``entries``.

    Lines naming an entry of ``entries`` or of the plotting entries above
    are replaced first, then skcal's shared entries (``y_true``, ...).
    """
    table = {**_PLOT_DOC, **(entries or {})}

    def replace(match):
        indent, name = match.groups()
        if name not in table:
            return match.group(0)
        return textwrap.indent(table[name], indent)

    def decorator(func):
        if func.__doc__ is not None:
            func.__doc__ = _PLACEHOLDER.sub(replace, func.__doc__)
        return fill_doc(func)

    return decorator


fill_plot_doc = doc_filler()


def check_matplotlib(caller):
    """Import matplotlib or raise an ImportError that says what needs it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:  # pragma: no cover - matplotlib is a dependency
        raise ImportError(
            f"{caller} requires matplotlib; install it with `pip install matplotlib`."
        ) from exc


def validate(constraints, params, caller):
    """Check the parameters of a Display method against their constraints."""
    validate_parameter_constraints(constraints, params, caller_name=caller)


# ---------------------------------------------------------------------------
# Predictions
# ---------------------------------------------------------------------------


def estimator_predictions(estimator, X, pos_label, caller):
    """``predict_proba(X)`` of a fitted classifier, with its classes.

    Returns
    -------
    y_prob : ndarray of shape (n_samples, n_classes)
        Columns in the order of ``estimator.classes_``.
    classes : ndarray of shape (n_classes,)
        ``estimator.classes_``.
    """
    if not callable(getattr(estimator, "predict_proba", None)):
        raise TypeError(
            f"{caller} needs a classifier with predict_proba; "
            f"{type(estimator).__name__} has none."
        )
    check_is_fitted(estimator)
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise TypeError(
            f"{caller}: {type(estimator).__name__} has no classes_ attribute; pass "
            "a fitted classifier."
        )
    classes = np.asarray(classes)
    if pos_label is not None and not np.any(classes == pos_label):
        raise ValueError(
            f"pos_label={pos_label!r} is not a class of {type(estimator).__name__} "
            f"(classes_ = {classes.tolist()})."
        )
    return np.asarray(estimator.predict_proba(X), dtype=np.float64), classes


def pooled_cv_predictions(cv_results, X, y, sample_weight, caller):
    """Pool the out-of-fold predictions of cross-validation results.

    Returns
    -------
    y_true, y_prob, classes, sample_weight, name
        The pooled labels, the ``(n, n_classes)`` probabilities with columns
        in the order of ``classes``, the pooled weights (or None) and the
        estimator's class name.
    """
    if all(hasattr(cv_results, a) for a in ("y_true", "y_prob", "classes")):
        weight = sample_weight
        if weight is None:
            weight = getattr(cv_results, "sample_weight", None)
        name = getattr(cv_results, "name", None)
        return (
            np.asarray(cv_results.y_true),
            np.asarray(cv_results.y_prob, dtype=np.float64),
            np.asarray(cv_results.classes),
            weight,
            name,
        )
    if not isinstance(cv_results, dict):
        raise TypeError(
            f"{caller}: cv_results must be the dict of "
            "sklearn.model_selection.cross_validate or the result of "
            f"skcal.model_selection.cross_val_calibration, got "
            f"{type(cv_results).__name__}."
        )
    indices = cv_results.get("indices")
    if "estimator" not in cv_results or not isinstance(indices, dict):
        raise ValueError(
            f"{caller}: cv_results has no 'estimator' or 'indices' entry; run "
            "cross_validate(..., return_estimator=True, return_indices=True)."
        )
    if X is None or y is None:
        raise ValueError(
            f"{caller}: X and y (the data given to cross_validate) are needed to "
            "predict the test rows of each fold."
        )
    estimators = list(cv_results["estimator"])
    tests = [np.asarray(t) for t in indices["test"]]
    if len(estimators) != len(tests) or not estimators:
        raise ValueError(
            f"{caller}: cv_results has {len(estimators)} estimators and "
            f"{len(tests)} test folds."
        )
    y_all = np.asarray(y)
    n = y_all.shape[0]
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)
        if sample_weight.shape != (n,):
            raise ValueError(
                f"sample_weight has shape {sample_weight.shape}; expected ({n},)."
            )
    folds = []
    for estimator, test in zip(estimators, tests, strict=True):
        proba, classes = estimator_predictions(
            estimator, take_rows(X, test), None, caller
        )
        folds.append((proba, classes))
    y_true = np.concatenate([y_all[t] for t in tests])
    classes = np.unique(np.concatenate([c for _, c in folds] + [y_true]))
    y_prob = np.zeros((y_true.shape[0], classes.shape[0]))
    start = 0
    for proba, fold_classes in folds:
        stop = start + proba.shape[0]
        columns = np.searchsorted(classes, fold_classes)
        y_prob[start:stop, columns] = proba
        start = stop
    weight = None
    if sample_weight is not None:
        weight = np.concatenate([sample_weight[t] for t in tests])
    return y_true, y_prob, classes, weight, type(estimators[0]).__name__


# ---------------------------------------------------------------------------
# Axes
# ---------------------------------------------------------------------------


def single_axes(ax):
    """The axes to draw on, created when None; and their figure."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    elif not hasattr(ax, "plot"):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax)}.")
    return ax, ax.figure


def grid_axes(ax, n_views):
    """One small axes per class: new, from an array of axes, or inside ``ax``.

    Returns
    -------
    axes : ndarray of shape (n_views,)
        The axes, in class order.
    figure : matplotlib Figure
    """
    n_cols = int(np.ceil(np.sqrt(n_views)))
    n_rows = int(np.ceil(n_views / n_cols))
    if ax is None:
        import matplotlib.pyplot as plt

        figure, grid = plt.subplots(
            n_rows,
            n_cols,
            figsize=(2.6 * n_cols + 0.6, 2.6 * n_rows + 0.6),
            squeeze=False,
            layout="constrained",
        )
        grid = grid.ravel()
        for extra in grid[n_views:]:
            extra.set_visible(False)
        return grid[:n_views], figure
    if hasattr(ax, "plot"):
        # One axes given: split its area into the grid.
        spec = ax.get_subplotspec()
        if spec is None:
            raise ValueError(
                "A classwise diagram needs one axes per class: pass an array of "
                f"{n_views} axes, or axes made by subplots that can be divided."
            )
        figure = ax.figure
        ax.set_axis_off()
        inner = spec.subgridspec(n_rows, n_cols)
        axes = [figure.add_subplot(inner[i]) for i in range(n_views)]
        return np.array(axes, dtype=object), figure
    axes = np.asarray(ax, dtype=object).ravel()
    if axes.shape[0] < n_views or not all(hasattr(a, "plot") for a in axes):
        raise ValueError(
            f"A classwise diagram of {n_views} classes needs {n_views} axes; got "
            f"{axes.shape[0]} object(s)."
        )
    return axes[:n_views], axes[0].figure


def draw_ref_line(ax, ref_line, style):
    """The diagonal, reused when the axes already have one."""
    if not ref_line:
        return None
    for line in ax.get_lines():
        if line.get_label() == REF_LINE_LABEL:
            return line
    return ax.plot([0, 1], [0, 1], label=REF_LINE_LABEL, **style)[0]
