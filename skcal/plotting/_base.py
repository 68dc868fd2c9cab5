"""What every Display shares: one validation of the data and its binary views,
``from_estimator`` and ``from_cv_results`` written once, axes and diagonal.

A Display computes nothing itself: its ``from_predictions`` validates the
data once (:func:`canonical_views`), asks a public function of
:mod:`skcal.metrics` for the numbers of each view, stores them and draws. A
subclass defines ``from_predictions``, ``__init__`` and ``_draw_view``;
:class:`CalibrationDisplay` writes its ``from_estimator`` and
``from_cv_results`` from the signature and docstring of its
``from_predictions`` (so that the three keep the same options), and its
``plot`` draws one axes per view.
"""

# SPDX-License-Identifier: BSD-3-Clause

import inspect
import re
import textwrap

import numpy as np

from skcal._docstrings import fill_doc_from
from skcal._param_validation import (
    HasMethods,
    StrOptions,
    parameter_constraints,
    validate_params,
)
from skcal._reduction import REDUCTIONS, resolve_reduction
from skcal._utils._indexing import take_rows
from skcal._validation import (
    check_calibration_inputs,
    check_fitted_classifier,
    check_groups,
    check_partition,
    check_sample_weight,
)
from skcal.plotting._style import merge_style_kwargs

REF_LINE_LABEL = "Perfectly calibrated"

# Constraints of the parameters that every Display's methods share.
PLOT_CONSTRAINTS = {
    "name": [str, None],
    "ax": [HasMethods(["plot"]), None],
    "ref_line": ["boolean"],
    "ref_line_kwargs": [dict, None],
}

# Parameter descriptions shared by the Displays; a docstring line holding
# only ``%(name)s`` is replaced, like skcal's own `fill_doc`.
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


def doc_filler(entries=None):
    """A decorator filling ``%(name)s`` docstring lines from ``entries``.

    Lines naming an entry of ``entries`` or of the plotting entries above
    are replaced first, then skcal's shared entries (``y_true``, ...).
    """
    return fill_doc_from({**_PLOT_DOC, **(entries or {})})


# ---------------------------------------------------------------------------
# Data: one validation, then the arguments of the public function per view
# ---------------------------------------------------------------------------


def canonical_views(
    y_true, y_prob, sample_weight, pos_label, labels, reduction, groups=None
):
    """Validate the data once; the public functions' arguments for each view.

    Every view is described to the public function in one canonical form:
    labels as column indices, an ``(n, n_classes)`` matrix (a binary
    problem's two columns as given, or ``(1 - p, p)`` in the order of the
    classes for a 1-D ``y_prob``), ``labels=range(n_classes)`` and, for a
    one-vs-rest view, the column as ``pos_label``. A classwise diagram is
    one such view per class.

    Returns
    -------
    data : CalibrationData
        The validated inputs (classes, weight scale, ...).
    reduction : {"positive", "top_label", "classwise"}
        The resolved reduction.
    views : list of dict
        Keyword arguments of the public function, one dict per view (per
        group with ``groups``, see :func:`group_views`).
    panels : tuple or None
        With ``groups``, the labels and sizes of the groups drawn.
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    reduction = resolve_reduction(data, reduction)
    n_classes = len(data.classes)
    if not data.binary:
        y_index, matrix = data.y_true, data.y_prob
    else:
        other = 1 - data.pos_index
        y_index = np.where(data.y_true, data.pos_index, other)
        if np.ndim(y_prob) == 2 and np.shape(y_prob)[1] == 2:
            matrix = np.asarray(y_prob, dtype=np.float64)  # the user's two columns
        else:
            matrix = np.empty((data.y_prob.shape[0], 2))
            matrix[:, data.pos_index] = data.y_prob
            matrix[:, other] = 1.0 - data.y_prob
    weight = None
    if data.sample_weight is not None:
        weight = data.sample_weight * data.weight_scale
    common = {
        "y_true": y_index,
        "y_prob": matrix,
        "sample_weight": weight,
        "labels": np.arange(n_classes),
    }
    if reduction == "classwise":
        views = [
            {**common, "pos_label": k, "reduction": "positive"}
            for k in range(n_classes)
        ]
    elif reduction == "positive":
        views = [{**common, "pos_label": data.pos_index, "reduction": "positive"}]
    else:
        views = [{**common, "reduction": "top_label"}]
    if groups is None:
        return data, reduction, views, None
    labels, sizes, views = group_views(data, reduction, views, groups)
    return data, reduction, views, (labels, sizes)


def group_views(data, reduction, views, groups):
    """One view per group: the rows of each group in the one view of ``views``.

    A diagram by group draws one panel per group, so it takes a single view
    (``"positive"`` or ``"top_label"``). Groups whose weights are all zero
    are left out.

    Returns
    -------
    labels : ndarray of shape (n_groups,)
        The groups drawn, sorted.
    sizes : ndarray of shape (n_groups,)
        Their numbers of rows.
    views : list of dict
        Keyword arguments of the public function, one dict per group.
    """
    if reduction == "classwise":
        raise ValueError(
            "groups= draws one panel per group, and reduction='classwise' one "
            "panel per class: pass pos_label= to draw one class by group, or "
            "reduction='top_label'."
        )
    (view,) = views
    split = check_groups(groups, data.y_true.shape[0])
    labels, members = split.weighted_members(view["sample_weight"])
    per_group = [
        {
            **view,
            **{
                key: None if view[key] is None else view[key][rows]
                for key in ("y_true", "y_prob", "sample_weight")
            },
        }
        for rows in members
    ]
    sizes = np.array([rows.shape[0] for rows in members])
    return labels, sizes, per_group


def positive_class(data, reduction):
    """The positive class of a ``"positive"`` view, as a Python value; else None."""
    if reduction != "positive":
        return None
    label = data.classes[data.pos_index]
    return label.item() if hasattr(label, "item") else label


# ---------------------------------------------------------------------------
# Predictions of estimators and of cross-validation results
# ---------------------------------------------------------------------------


def estimator_predictions(estimator, X, y, sample_weight, caller):
    """``predict_proba(X)`` of a fitted classifier, with its classes.

    Returns
    -------
    y_true, y_prob, classes, sample_weight, name
        ``y``, the ``(n, n_classes)`` probabilities with columns in the
        order of ``estimator.classes_``, the classes, the weights and the
        estimator's class name.
    """
    check_fitted_classifier(estimator, caller, "predict_proba", "it must be fitted.")
    y_prob = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    classes = np.asarray(estimator.classes_)
    return y, y_prob, classes, sample_weight, type(estimator).__name__


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
        return (
            np.asarray(cv_results.y_true),
            np.asarray(cv_results.y_prob, dtype=np.float64),
            np.asarray(cv_results.classes),
            weight,
            getattr(cv_results, "name", None),
        )
    estimators, tests = _folds(cv_results, X, y, caller)
    y_all = np.asarray(y)
    check_partition(
        [(None, t) for t in tests],
        y_all.shape[0],
        f"{caller} pools the test folds",
        cover=False,
    )
    sample_weight = check_sample_weight(sample_weight, y_all.shape[0])
    predictions = [
        estimator_predictions(e, take_rows(X, t), None, None, caller)[1:3]
        for e, t in zip(estimators, tests, strict=True)
    ]
    y_true = np.concatenate([y_all[t] for t in tests])
    classes = np.unique(np.concatenate([c for _, c in predictions] + [y_true]))
    y_prob = np.zeros((y_true.shape[0], classes.shape[0]))
    start = 0
    for proba, fold_classes in predictions:
        stop = start + proba.shape[0]
        y_prob[start:stop, np.searchsorted(classes, fold_classes)] = proba
        start = stop
    weight = None
    if sample_weight is not None:
        weight = np.concatenate([sample_weight[t] for t in tests])
    return y_true, y_prob, classes, weight, type(estimators[0]).__name__


def _folds(cv_results, X, y, caller):
    """The fitted estimators and test indices of a ``cross_validate`` dict."""
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
    return estimators, tests


# ---------------------------------------------------------------------------
# from_estimator and from_cv_results, written from from_predictions
# ---------------------------------------------------------------------------

_P = inspect.Parameter

# The leading parameters of each constructor, and the source of predictions.
_SOURCES = {
    "estimator": (
        [
            _P("estimator", _P.POSITIONAL_OR_KEYWORD, annotation="Any"),
            _P("X", _P.POSITIONAL_OR_KEYWORD, annotation="ArrayLike"),
            _P("y", _P.POSITIONAL_OR_KEYWORD, annotation="ArrayLike"),
        ],
        estimator_predictions,
    ),
    "cv_results": (
        [
            _P(
                "cv_results",
                _P.POSITIONAL_OR_KEYWORD,
                annotation="dict | CrossValCalibration",
            ),
            _P(
                "X",
                _P.POSITIONAL_OR_KEYWORD,
                default=None,
                annotation="ArrayLike | None",
            ),
            _P(
                "y",
                _P.POSITIONAL_OR_KEYWORD,
                default=None,
                annotation="ArrayLike | None",
            ),
        ],
        pooled_cv_predictions,
    ),
}

# What the docstring of each says before its parameters.
_SUMMARIES = {
    "estimator": (
        "Draw the {title} of a fitted classifier on data.\n\n"
        "``estimator.predict_proba(X)`` gives the probabilities, whose columns\n"
        "follow ``estimator.classes_``; the rest is :meth:`from_predictions`,\n"
        "with the estimator's class name as the default ``name``."
    ),
    "cv_results": (
        "Draw one {title} of pooled out-of-fold predictions.\n\n"
        "The test rows of every fold, predicted by the model fitted without\n"
        "them, are pooled and drawn by :meth:`from_predictions`; the columns\n"
        "of folds whose model lacks a class are filled with zeros."
    ),
}

_HEAD_DOCS = {
    "estimator": ("estimator", "X", "y"),
    "cv_results": ("cv_results", "X_cv", "y_cv"),
}

# Parameters of from_predictions that the other constructors fill in.
_FILLED = ("y_true", "y_prob", "labels")


def _parameter_entries(docstring):
    """``{name: text}`` of the entries of a numpydoc Parameters section."""
    section = docstring.split("Parameters\n", 1)[1].split("\n\n", 1)[0]
    lines = textwrap.dedent(section).splitlines()[1:]  # drop the dashes
    entries, name = {}, None
    for line in lines:
        if line and not line.startswith(" "):
            name = line.split(" : ")[0]
            entries[name] = [line]
        elif name is not None:
            entries[name].append(line)
    return {k: "\n".join(v) for k, v in entries.items()}


# The "Read more in the User Guide" line of a docstring.
_READ_MORE = re.compile(r"^ *(Read more in the :ref:`[^`]+`\.)$", flags=re.MULTILINE)


def _relay_docstring(display, source, parameters):
    """The docstring of a generated constructor, from ``from_predictions``'.

    It keeps the "Read more" line of ``from_predictions``, after its summary.
    """
    doc = display.from_predictions.__doc__
    if doc is None:  # docstrings stripped (python -OO)
        return None
    entries = _parameter_entries(doc)
    head = [_PLOT_DOC[name] for name in _HEAD_DOCS[source]]
    rest = [entries[p.name] for p in parameters if p.name in entries]
    summary = _SUMMARIES[source].format(title=display._title)
    read_more = _READ_MORE.search(doc)
    if read_more is not None:
        summary += f"\n\n{read_more.group(1)}"
    body = "\n".join([*head, *rest])
    return (
        f"{summary}\n\nParameters\n----------\n{body}\n\n"
        f"Returns\n-------\ndisplay : {display.__name__}\n    The drawn display.\n"
    )


def _relay(display, source):
    """``from_<source>`` of ``display``: predictions, then ``from_predictions``."""
    head, predictions = _SOURCES[source]
    options = [
        p
        for name, p in inspect.signature(display.from_predictions).parameters.items()
        if name not in _FILLED
    ]
    signature = inspect.Signature(
        [_P("cls", _P.POSITIONAL_OR_KEYWORD), *head, *options],
        return_annotation=display.__name__,
    )
    qualname = f"{display.__name__}.from_{source}"

    def relay(cls, *args, **kwargs):
        bound = signature.bind(cls, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["cls"]
        first, X, y = (arguments.pop(p.name) for p in head)
        y_true, y_prob, classes, weight, default = predictions(
            first, X, y, arguments["sample_weight"], qualname
        )
        arguments["sample_weight"] = weight
        if arguments["name"] is None:
            arguments["name"] = default
        return cls.from_predictions(y_true, y_prob, labels=classes, **arguments)

    relay.__signature__ = signature
    relay.__name__ = f"from_{source}"
    relay.__qualname__ = qualname
    relay.__module__ = display.__module__
    relay.__doc__ = _relay_docstring(display, source, options)
    # The options are checked once, here, under this method's name and
    # before any prediction; from_predictions then skips its own check.
    constraints = parameter_constraints(display.from_predictions)
    for name in _FILLED:
        del constraints[name]
    constraints.update({p.name: [object, None] for p in head})
    return classmethod(
        validate_params(constraints, prefer_skip_nested_validation=True)(relay)
    )


# ---------------------------------------------------------------------------
# The base class
# ---------------------------------------------------------------------------


class CalibrationDisplay:
    """Base of skcal's Displays (see the module docstring).

    Subclasses set ``_title`` (for generated docstrings), ``_view_fields``
    (the attributes that hold one entry per view when ``reduction`` is
    ``"classwise"``) and ``_ref_line_style``, and define ``_draw_view(ax,
    view, name, styles)`` returning ``{artist attribute: artist}`` and
    ``_decorate(ax, index, name)``. A classwise grid gets one legend for
    the figure (:func:`figure_legend`), a single axes its own
    (:func:`axes_legend`).
    """

    _title = "diagram"
    _view_fields: tuple[str, ...] = ()
    _ref_line_style = {"color": "black", "linestyle": ":", "linewidth": 1.0}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "from_predictions" in cls.__dict__:
            cls.from_estimator = _relay(cls, "estimator")
            cls.from_cv_results = _relay(cls, "cv_results")

    @property
    def _panels(self):
        """The label of each panel: the classes of a classwise diagram, the
        groups of a diagram by group; None for a single diagram."""
        if getattr(self, "groups", None) is not None:
            return self.groups
        return self.classes if self.reduction == "classwise" else None

    @classmethod
    def _from_views(cls, data, reduction, per_view, *, panels=None, **options):
        """The Display of computed views: ``per_view`` is ``{attribute: [value
        of each view]}``, stored as lists for a classwise diagram or a diagram
        by group (``panels``, the groups' labels and sizes) and as the single
        value otherwise; ``options`` are the other constructor keywords.
        """
        paneled = reduction == "classwise" or panels is not None
        if reduction == "classwise":
            options["classes"] = data.classes
        if panels is not None:
            options["groups"], options["group_sizes"] = panels
        return cls(
            **{
                key: values if paneled else values[0]
                for key, values in per_view.items()
            },
            reduction=reduction,
            pos_label=positive_class(data, reduction),
            **options,
        )

    def _view(self, index):
        """The per-view attributes of view ``index``, as a dict."""
        paneled = self._panels is not None
        return {
            f: (getattr(self, f)[index] if paneled else getattr(self, f))
            for f in self._view_fields
        }

    def _draw(self, ax, *, name, ref_line, ref_line_kwargs, styles):
        """Draw every view on its axes; store the artists; return ``self``."""
        paneled = self._panels is not None
        if paneled:
            axes, figure, n_cols = grid_axes(ax, len(self._panels))
        else:
            single, figure = single_axes(ax)
            axes = np.array([single], dtype=object)
        name = self.name if name is None else name
        ref_style = merge_style_kwargs(
            self._ref_line_style, ref_line_kwargs, name="ref_line_kwargs"
        )
        artists = {}
        for index, view_ax in enumerate(axes):
            drawn = self._draw_view(view_ax, self._view(index), name, styles)
            drawn["ref_line_"] = draw_ref_line(view_ax, ref_line, ref_style)
            for key, artist in drawn.items():
                artists.setdefault(key, []).append(artist)
            self._decorate(view_ax, index, name)
        if paneled:
            if n_cols is not None:
                label_outer(axes, n_cols)
            figure_legend(figure, axes)
        for key, values in artists.items():
            setattr(self, key, values if paneled else values[0])
        self.axes_ = axes
        self.ax_ = axes if paneled else axes[0]
        self.figure_ = figure
        return self


# ---------------------------------------------------------------------------
# Axes
# ---------------------------------------------------------------------------


# Size in inches of a new figure of one diagram: a square axes with room for
# the legend below it; and of each axes of a new classwise grid.
SINGLE_FIGSIZE = (5.2, 6.4)
GRID_AXES_SIZE = 2.5


def single_axes(ax):
    """The axes to draw on, created when None; and their figure.

    A new figure has a constrained layout, which makes room for a legend
    outside the axes.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=SINGLE_FIGSIZE, layout="constrained")
    elif not hasattr(ax, "plot"):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax)}.")
    return ax, ax.figure


def grid_axes(ax, n_views):
    """One small axes per class: new, from an array of axes, or inside ``ax``.

    The axes that this function creates share their x and y axes: the
    panels are compared with each other. Only the outer ones carry tick
    labels and axis labels.

    Returns
    -------
    axes : ndarray of shape (n_views,)
        The axes, in class order.
    figure : matplotlib Figure
    n_cols : int or None
        The number of columns of a grid made here; None for axes given.
    """
    n_cols = int(np.ceil(np.sqrt(n_views)))
    n_rows = int(np.ceil(n_views / n_cols))
    if ax is None:
        import matplotlib.pyplot as plt

        figure, grid = plt.subplots(
            n_rows,
            n_cols,
            figsize=(GRID_AXES_SIZE * n_cols + 0.8, GRID_AXES_SIZE * n_rows + 1.2),
            squeeze=False,
            sharex=True,
            sharey=True,
            layout="constrained",
        )
        grid = grid.ravel()
        for extra in grid[n_views:]:
            extra.set_visible(False)
        return grid[:n_views], figure, n_cols
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
        axes = [figure.add_subplot(inner[0])]
        axes += [
            figure.add_subplot(inner[i], sharex=axes[0], sharey=axes[0])
            for i in range(1, n_views)
        ]
        return np.array(axes, dtype=object), figure, n_cols
    axes = np.asarray(ax, dtype=object).ravel()
    if axes.shape[0] < n_views or not all(hasattr(a, "plot") for a in axes):
        raise ValueError(
            f"A classwise diagram of {n_views} classes needs {n_views} axes; got "
            f"{axes.shape[0]} object(s)."
        )
    return axes[:n_views], axes[0].figure, None


def label_outer(axes, n_cols):
    """Keep tick labels and axis labels on the outer axes of a grid only.

    The bottom axes of each column (also above an empty place of the last
    row) keep the x labels, the first column the y labels.
    """
    n_views = len(axes)
    for index, ax in enumerate(axes):
        bottom = index + n_cols >= n_views
        ax.tick_params(labelbottom=bottom)
        if not bottom:
            ax.set_xlabel("")
        if index % n_cols:
            ax.tick_params(labelleft=False)
            ax.set_ylabel("")


def draw_ref_line(ax, ref_line, style):
    """The diagonal, reused when the axes already have one."""
    if not ref_line:
        return None
    for line in ax.get_lines():
        if line.get_label() == REF_LINE_LABEL:
            return line
    return ax.plot([0, 1], [0, 1], label=REF_LINE_LABEL, **style)[0]


def drawn_points(
    grid,
    curve,
    *,
    n_effective,
    mean_prediction,
    prediction_range,
    sigma,
    min_effective_count,
):
    """Where a kernel curve is drawn: a boolean mask of its grid.

    The curve is defined; and, for each of the numbers of
    :func:`~skcal.metrics.smooth_reliability_curve` that is not None, the
    grid point lies within ``prediction_range`` and at least
    ``min_effective_count`` predictions are near it (``n_effective``). At
    both ends, the curve starts and stops where the kernel-weighted mean of
    the predictions (``mean_prediction``) is within ``sigma`` of the point:
    beyond, the few predictions at the edge are outweighed by more distant
    ones, whose event rate the curve would show there.
    """
    grid = np.asarray(grid, dtype=np.float64)
    drawn = np.isfinite(np.asarray(curve, dtype=np.float64))
    if n_effective is not None:
        drawn &= np.asarray(n_effective) >= min_effective_count
    if prediction_range is not None:
        low, high = prediction_range
        drawn &= (grid >= low) & (grid <= high)
    if mean_prediction is not None:
        centred = np.flatnonzero(
            drawn & (np.abs(np.asarray(mean_prediction) - grid) <= sigma)
        )
        index = np.arange(grid.shape[0])
        if centred.size:
            drawn &= (index >= centred[0]) & (index <= centred[-1])
        else:
            drawn[:] = False
    return drawn


# ---------------------------------------------------------------------------
# Legends: outside the data
# ---------------------------------------------------------------------------

# Width in inches below which an axes is small: its legend gets smaller text.
_SMALL_AXES = 3.5

# Marks the figure legends of classwise grids, replaced when a model is added.
_FIGURE_LEGEND_GID = "skcal-figure-legend"


def legend_label_once(ax, label):
    """``label``, or a label hidden from the legend if ``ax`` already shows it.

    For the parts of a diagram that mean the same for every model drawn on
    the axes (a band, the counts), so that the legend explains them once.
    """
    handles = ax.get_legend_handles_labels()[1]
    return "_nolegend_" if label in handles else label


def _points_below_axes():
    """Height, in points, of an x axis's ticks, tick labels and label."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties

    def line(key):
        return 1.25 * FontProperties(size=rcParams[key]).get_size_in_points()

    ticks = max(rcParams["xtick.major.size"], 0.0) + rcParams["xtick.major.pad"]
    return (
        ticks
        + line("xtick.labelsize")
        + rcParams["axes.labelpad"]
        + line("axes.labelsize")
    )


def axes_legend(ax, *, fontsize="small"):
    """The legend of one diagram, where it hides no data.

    Below the axes, under the axis label, when the figure has a layout
    engine (which then makes room for it, as in the figures the Displays
    create); otherwise inside the axes, at matplotlib's ``"best"`` place.
    Axes narrower than 3.5 inches (panels of a larger figure) get smaller
    text.
    """
    figure = ax.figure
    if ax.get_position().width * figure.get_figwidth() < _SMALL_AXES:
        fontsize = "x-small"
    if figure.get_layout_engine() is None:
        return ax.legend(loc="best", fontsize=fontsize)
    from matplotlib.transforms import ScaledTranslation

    # A square axes in a taller place sits at its top, leaving the room
    # below to the legend.
    ax.set_anchor("N")

    shift = ScaledTranslation(
        0.0, -(_points_below_axes() + 2.0) / 72.0, figure.dpi_scale_trans
    )
    return ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=ax.transAxes + shift,
        fontsize=fontsize,
    )


def figure_legend(figure, axes, *, fontsize="small"):
    """One legend for a grid of diagrams, below the grid.

    The entries are those of the first axes (every axes of a grid shows the
    same models); a legend drawn earlier by this function is replaced, so
    that a model added to the grid joins the legend.
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    for legend in list(figure.legends):
        if legend.get_gid() == _FIGURE_LEGEND_GID:
            legend.remove()
    handles, labels = axes[0].get_legend_handles_labels()
    if isinstance(figure.get_layout_engine(), ConstrainedLayoutEngine):
        loc = "outside lower center"
    else:
        loc = "lower center"
    # Side by side, unless an entry spans several lines (a note).
    ncols = 1 if any("\n" in label for label in labels) else min(len(labels), 3)
    legend = figure.legend(handles, labels, loc=loc, ncols=ncols, fontsize=fontsize)
    legend.set_gid(_FIGURE_LEGEND_GID)
    return legend


# ---------------------------------------------------------------------------
# Reliability diagrams: what the smooth and the binned one share
# ---------------------------------------------------------------------------

# Their parameters, beyond those of every Display: arrays of axes (classwise)
# for plot, and the classwise reduction for from_predictions.
RELIABILITY_PLOT_CONSTRAINTS = {"ax": [HasMethods(["plot"]), "array-like", None]}
RELIABILITY_CONSTRAINTS = {
    **RELIABILITY_PLOT_CONSTRAINTS,
    "reduction": [StrOptions(set(REDUCTIONS))],
}

RELIABILITY_DOC = {
    "groups": """\
groups : array-like of shape (n_samples,), default=None
    The group of each sample (e.g. a region or an age band): one small
    diagram per group, on shared axes, each titled with its group and size
    and showing its own measure; the per-view attributes are then lists,
    one entry per group. Groups whose weights are all zero are left out.
    Not with ``reduction="classwise"``. See :ref:`groups`.""",
    "ax": """\
ax : matplotlib Axes or array of Axes, default=None
    Axes to draw on; a new figure is created when None. Pass the ``ax_``
    of another Display to draw several models on the same axes (for
    ``"classwise"``, an array of one axes per class; a single axes is
    divided into a grid).""",
    "reduction": """\
reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
    The binary view drawn. ``"positive"``: the probability of
    ``pos_label`` against its indicator. ``"top_label"``: the confidence
    (largest probability) against the correctness of the argmax.
    ``"classwise"``: one small diagram per class, one-vs-rest. ``"auto"``
    is ``"positive"`` for binary problems (and when ``pos_label`` is
    given) and ``"top_label"`` otherwise.""",
}


class ReliabilityDiagram(CalibrationDisplay):
    """Base of the reliability diagrams: labels, limits and legends of a view.

    Subclasses define ``_measure_text(view)``, the measure shown with the
    model's name: in the legend of a single diagram, in the title of each
    panel of a classwise grid (whose figure legend names the models).
    """

    # A line added under the model's legend entry (e.g. why a fallback was
    # drawn); set by the Display that draws this one in its place.
    _legend_note = None

    def _legend_label(self, name, view):
        """The legend entry of a model: its name and measure, and the note."""
        if self._panels is not None:
            # The measure goes in each panel's title.
            label = self._default_name if name is None else name
        else:
            text = self._measure_text(view)
            label = text if name is None else f"{name}: {text}"
        if self._legend_note is not None:
            label = f"{label}\n{self._legend_note}"
        return label

    def _labels(self, index):
        """Axis labels and title of a view."""
        if self.reduction == "classwise":
            return (
                "Predicted probability",
                "Fraction of class",
                f"Class {self.classes[index]}",
            )
        title = None
        if self._panels is not None:
            title = f"{self.groups[index]} (n = {self.group_sizes[index]})"
        if self.reduction == "top_label":
            return "Confidence", "Accuracy", title
        suffix = ""
        if self.pos_label is not None and self._panels is None:
            suffix = f" (positive class: {self.pos_label})"
        # The x label names the positive class; the y label stays short enough
        # for small panels.
        return f"Predicted probability{suffix}", "Fraction of positives", title

    def _decorate(self, ax, index, name):
        """Limits, aspect, labels, title (classwise: with the measure), legend."""
        xlabel, ylabel, title = self._labels(index)
        ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), xlabel=xlabel, ylabel=ylabel)
        ax.set_aspect("equal", adjustable="box")
        if self._panels is None:
            axes_legend(ax)
            return
        # Compact: "SmoothECE 0.021 [0.010, 0.034]" in a small title.
        text = self._measure_text(self._view(index)).replace(" = ", " ")
        if name is not None:
            text = f"{name}: {text}"
        previous = ax.get_title()
        if previous.split("\n")[0] == title:  # another model's measure is there
            title = previous
        ax.set_title(f"{title}\n{text}", fontsize="x-small")
