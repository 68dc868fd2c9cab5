"""The binned reliability diagram, with counts and per-bin intervals, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

from typing import Literal

import numpy as np
from sklearn.utils import Bunch, check_random_state

from skcal._param_validation import (
    parameter_constraints,
    validate_params,
)
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._bootstrap import N_BOOTSTRAP
from skcal.metrics import expected_calibration_error, reliability_table
from skcal.plotting._base import (
    PLOT_CONSTRAINTS,
    RELIABILITY_CONSTRAINTS,
    RELIABILITY_DOC,
    RELIABILITY_PLOT_CONSTRAINTS,
    ReliabilityDiagram,
    canonical_views,
    doc_filler,
    legend_label_once,
)
from skcal.plotting._style import merge_style_kwargs

# Height, in axes data units, of the tallest bar of the counts strip.
_HIST_HEIGHT = 0.2

# The names of the per-bin intervals in the legend.
_INTERVAL_NAMES = {"wilson": "Wilson", "bootstrap": "bootstrap"}

_STYLE_CONSTRAINTS = {
    "show_counts": ["boolean"],
    "line_kwargs": [dict, None],
    "errorbar_kwargs": [dict, None],
    "hist_kwargs": [dict, None],
}

_DOC = {
    "interval": """\
interval : {"wilson", "bootstrap"} or None, default="wilson"
    Per-bin intervals of the event rate (see
    :func:`~skcal.metrics.reliability_table`); None draws none.""",
    "confidence_level": """\
confidence_level : float, default=0.95
    Level of the intervals.""",
    "n_bootstrap": """\
n_bootstrap : int, default=1000
    Number of resamples of the rows for ``interval="bootstrap"``.""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seeds the resamples of ``interval="bootstrap"``. Pass an int for
    reproducible output across multiple function calls.""",
    "show_counts": """\
show_counts : bool, default=True
    Draw the total weight of each bin as a strip of bars along the bottom
    of the axes (the tallest 0.2 high), labelled with the counts (or
    weights) except in the small panels of a classwise grid.""",
    "errorbar_kwargs": """\
errorbar_kwargs : dict, default=None
    Keywords of the per-bin intervals
    (:meth:`~matplotlib.axes.Axes.errorbar`).""",
    "hist_kwargs": """\
hist_kwargs : dict, default=None
    Keywords of the counts strip (:meth:`~matplotlib.axes.Axes.bar`).""",
}

_fill_doc = doc_filler({**RELIABILITY_DOC, **_DOC})


class BinnedReliabilityDisplay(ReliabilityDiagram):
    r"""Binned reliability diagram: each bin's event rate against its mean prediction.

    The predictions are grouped into bins, and each bin's observed event
    rate is drawn against its mean prediction, with per-bin intervals of
    the rate, the weight of each bin as a strip of bars along the bottom,
    and the ECE of the same bins in the legend (in each panel's title for
    ``reduction="classwise"``, whose figure has one legend). Empty bins
    have no point (NaN), so the line breaks there. Every number comes from
    :func:`~skcal.metrics.reliability_table` and
    :func:`~skcal.metrics.expected_calibration_error`.

    Create it with :meth:`from_estimator`, :meth:`from_predictions` or
    :meth:`from_cv_results`; the constructor only stores the tables. For
    ``reduction="classwise"``, ``table`` and ``ece`` are lists with one
    entry per class, in the order of ``classes``.

    Read more in the :ref:`User Guide <reliability_diagrams>`.

    Parameters
    ----------
    table : :class:`~sklearn.utils.Bunch`
        The result of :func:`~skcal.metrics.reliability_table` (edges,
        ``weight``, ``count``, ``mean_predicted``, ``event_rate``, ``gap``
        and, when computed, ``interval_low`` and ``interval_high`` per bin).
    ece : float
        The expected calibration error of the same bins.
    interval : {"wilson", "bootstrap"}, default=None
        The kind of the per-bin intervals of ``table``, for the legend.
    confidence_level : float, default=None
        Their level, for the legend.
    reduction : {"positive", "top_label", "classwise"}, default="positive"
        The binary view the tables describe.
    classes : ndarray of shape (n_classes,), default=None
        For ``reduction="classwise"``, the class of each view.
    name : str, default=None
        Name of the curve in the legend.
    pos_label : int, float, bool or str, default=None
        The positive class of a ``"positive"`` view, for the axis labels.
    groups : ndarray of shape (n_groups,), default=None
        For a diagram by group, the group of each view.
    group_sizes : ndarray of shape (n_groups,), default=None
        For a diagram by group, the number of rows of each group.

    Attributes
    ----------
    line_ : matplotlib Line2D or list
        The event rates against the mean predictions.
    errorbar_ : matplotlib ErrorbarContainer, list or None
        The per-bin intervals.
    hist_ : matplotlib BarContainer, list or None
        The counts strip (outside a classwise grid, each non-empty bar is
        labelled with its count).
    ref_line_ : matplotlib Line2D, list or None
        The diagonal.
    ax_ : matplotlib Axes or ndarray of Axes
        The axes drawn on (for ``"classwise"``, the array of per-class
        axes); pass it as ``ax=`` to draw another model on them.
    axes_ : ndarray of matplotlib Axes
        Every axes drawn on, one per view.
    figure_ : matplotlib Figure
        The figure.

    See Also
    --------
    SmoothReliabilityDisplay : The smooth diagram, free of bins.
    skcal.metrics.reliability_table : The numbers drawn.
    sklearn.calibration.CalibrationDisplay : The binary binned diagram,
        without counts or intervals.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import BinnedReliabilityDisplay
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=1000)
    >>> y_true = (rng.uniform(size=1000) < y_prob**2).astype(int)
    >>> display = BinnedReliabilityDisplay.from_predictions(y_true, y_prob, n_bins=10)
    >>> display.table.event_rate.shape
    (10,)
    >>> round(display.ece, 3)
    0.165
    """

    _title = "binned reliability diagram"
    _view_fields = ("table", "ece")
    _default_name = "event rate per bin"

    def __init__(
        self,
        *,
        table: Bunch,
        ece: float,
        interval: Literal["wilson", "bootstrap"] | None = None,
        confidence_level: float | None = None,
        reduction: Literal["positive", "top_label", "classwise"] = "positive",
        classes: np.ndarray | None = None,
        name: str | None = None,
        pos_label: Label | None = None,
        groups: np.ndarray | None = None,
        group_sizes: np.ndarray | None = None,
    ) -> None:
        self.table = table
        self.ece = ece
        self.interval = interval
        self.confidence_level = confidence_level
        self.reduction = reduction
        self.classes = classes
        self.name = name
        self.pos_label = pos_label
        self.groups = groups
        self.group_sizes = group_sizes

    @validate_params(
        {**PLOT_CONSTRAINTS, **RELIABILITY_PLOT_CONSTRAINTS, **_STYLE_CONSTRAINTS},
        prefer_skip_nested_validation=True,
    )
    @_fill_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        ref_line=True,
        show_counts=True,
        line_kwargs=None,
        errorbar_kwargs=None,
        hist_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the diagram.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        %(ref_line)s
        %(show_counts)s
        %(line_kwargs)s
        %(errorbar_kwargs)s
        %(hist_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : BinnedReliabilityDisplay
            The display, with its artists stored (``line_``, ``ax_``, ...).
        """
        styles = {
            "show_counts": show_counts,
            "line": line_kwargs,
            "errorbar": errorbar_kwargs,
            "hist": hist_kwargs,
        }
        return self._draw(
            ax,
            name=name,
            ref_line=ref_line,
            ref_line_kwargs=ref_line_kwargs,
            styles=styles,
        )

    def _measure_text(self, view):
        """The ECE and its number of bins."""
        return f"ECE = {view['ece']:.3f} ({len(view['table']['weight'])} bins)"

    def _interval_label(self):
        """The legend entry of the per-bin intervals."""
        kind = _INTERVAL_NAMES.get(self.interval, "")
        level = "" if self.confidence_level is None else f"{self.confidence_level:.0%}"
        return " ".join(w for w in (level, kind, "interval per bin") if w)

    def _draw_view(self, ax, view, name, styles):
        """Event rate against mean prediction, intervals and counts strip."""
        table = view["table"]
        mean_predicted = np.asarray(table["mean_predicted"], dtype=np.float64)
        rate = np.asarray(table["event_rate"], dtype=np.float64)
        style = merge_style_kwargs(
            {"marker": "s", "markersize": 4.0, "linestyle": "-", "linewidth": 1.0},
            styles["line"],
            name="line_kwargs",
        )
        label = style.pop("label", self._legend_label(name, view))
        line = ax.plot(mean_predicted, rate, label=label, **style)[0]
        color = line.get_color()
        errorbar = None
        if "interval_low" in table and "interval_high" in table:
            label = legend_label_once(ax, self._interval_label())
            errorbar = _draw_intervals(ax, table, color, styles["errorbar"], label)
        hist = None
        if styles["show_counts"]:
            numbers = self._panels is None  # too small in a grid
            hist = _draw_counts(ax, table, color, styles["hist"], numbers)
        return {"line_": line, "errorbar_": errorbar, "hist_": hist}

    @classmethod
    def _compute(
        cls,
        y_true,
        y_prob,
        *,
        sample_weight,
        pos_label,
        labels,
        reduction,
        n_bins,
        strategy,
        interval,
        confidence_level,
        n_bootstrap,
        random_state,
        name,
        groups=None,
    ):
        """The display of validated options, not drawn (see from_predictions)."""
        data, reduction, views, panels = canonical_views(
            y_true, y_prob, sample_weight, pos_label, labels, reduction, groups
        )
        rng = check_random_state(random_state)
        bins = {"n_bins": n_bins, "strategy": strategy}
        tables = [
            reliability_table(
                **view,
                **bins,
                interval=interval,
                confidence_level=confidence_level,
                n_bootstrap=n_bootstrap,
                random_state=rng,
            )
            for view in views
        ]
        errors = [expected_calibration_error(**view, **bins) for view in views]
        per_view = {"table": tables, "ece": errors}
        return cls._from_views(
            data,
            reduction,
            per_view,
            panels=panels,
            interval=interval,
            confidence_level=None if interval is None else confidence_level,
            name=name,
        )

    @classmethod
    @validate_params(
        {
            **parameter_constraints(reliability_table),
            **PLOT_CONSTRAINTS,
            **RELIABILITY_CONSTRAINTS,
            **_STYLE_CONSTRAINTS,
        },
        prefer_skip_nested_validation=True,
    )
    @_fill_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_prob: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        pos_label: Label | None = None,
        labels: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
        n_bins: int | Literal["cube_root"] = 15,
        strategy: Literal["quantile", "uniform"] = "uniform",
        interval: Literal["bootstrap", "wilson"] | None = "wilson",
        confidence_level: float = 0.95,
        n_bootstrap: int = N_BOOTSTRAP,
        random_state: RandomStateLike = None,
        name: str | None = None,
        ax: Axes | ArrayLike | None = None,
        ref_line: bool = True,
        show_counts: bool = True,
        line_kwargs: dict | None = None,
        errorbar_kwargs: dict | None = None,
        hist_kwargs: dict | None = None,
        ref_line_kwargs: dict | None = None,
    ) -> BinnedReliabilityDisplay:
        """Draw the binned reliability diagram of predicted probabilities.

        The numbers of each view come from
        :func:`~skcal.metrics.reliability_table` and
        :func:`~skcal.metrics.expected_calibration_error`.

        Read more in the :ref:`User Guide <reliability_diagrams>`.

        Parameters
        ----------
        %(y_true)s
        %(y_prob)s
        %(sample_weight)s
        %(pos_label)s
        %(labels)s
        %(groups)s
        %(reduction)s
        %(n_bins)s
        %(strategy)s
        %(interval)s
        %(confidence_level)s
        %(n_bootstrap)s
        %(random_state)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(show_counts)s
        %(line_kwargs)s
        %(errorbar_kwargs)s
        %(hist_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : BinnedReliabilityDisplay
            The drawn display.
        """
        display = cls._compute(
            y_true,
            y_prob,
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=labels,
            reduction=reduction,
            n_bins=n_bins,
            strategy=strategy,
            interval=interval,
            confidence_level=confidence_level,
            n_bootstrap=n_bootstrap,
            random_state=random_state,
            name=name,
            groups=groups,
        )
        return display.plot(
            ax=ax,
            ref_line=ref_line,
            show_counts=show_counts,
            line_kwargs=line_kwargs,
            errorbar_kwargs=errorbar_kwargs,
            hist_kwargs=hist_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )


def _draw_intervals(ax, table, color, errorbar_kwargs, label):
    """The per-bin intervals of the event rate, as error bars."""
    mean_predicted = np.asarray(table["mean_predicted"], dtype=np.float64)
    rate = np.asarray(table["event_rate"], dtype=np.float64)
    low = np.asarray(table["interval_low"], dtype=np.float64)
    high = np.asarray(table["interval_high"], dtype=np.float64)
    shown = np.isfinite(low) & np.isfinite(high) & np.isfinite(rate)
    yerr = np.vstack([np.maximum(rate - low, 0.0), np.maximum(high - rate, 0.0)])
    style = merge_style_kwargs(
        {
            "fmt": "none",
            "ecolor": color,
            "elinewidth": 1.0,
            "capsize": 2.0,
            "label": label,
        },
        errorbar_kwargs,
        name="errorbar_kwargs",
    )
    return ax.errorbar(mean_predicted[shown], rate[shown], yerr=yerr[:, shown], **style)


def _draw_counts(ax, table, color, hist_kwargs, numbers):
    """The weight of each bin, as bars along the bottom of the axes.

    With ``numbers``, each non-empty bar is labelled with its count (its
    weight, with weights), vertically when some label is long.
    """
    weight = np.asarray(table["weight"], dtype=np.float64)
    peak = weight.max()
    heights = _HIST_HEIGHT * weight / peak if peak > 0 else weight
    lower = np.asarray(table["bin_lower"], dtype=np.float64)
    upper = np.asarray(table["bin_upper"], dtype=np.float64)
    counted = np.array_equal(weight, np.asarray(table["count"], dtype=np.float64))
    text = "predictions per bin" if counted else "weight per bin"
    style = merge_style_kwargs(
        {"color": color, "alpha": 0.25, "linewidth": 0.0, "label": text},
        hist_kwargs,
        name="hist_kwargs",
    )
    style["label"] = legend_label_once(ax, style["label"])
    bars = ax.bar(lower, heights, width=upper - lower, align="edge", **style)
    if numbers:
        texts = [
            "" if w <= 0 else (f"{w:.0f}" if counted else f"{w:.3g}") for w in weight
        ]
        long = max(len(t) for t in texts) > 3
        ax.bar_label(
            bars,
            labels=texts,
            padding=1.0,
            fontsize="xx-small",
            color=color,
            rotation=90 if long else 0,
        )
    return bars
