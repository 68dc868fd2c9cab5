"""The sample-size curve of calibration measures, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

from collections.abc import Sequence
from typing import Literal

import numpy as np

from skcal._param_validation import (
    HasMethods,
    parameter_constraints,
    validate_params,
)
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal.discovery import all_measures
from skcal.model_selection._sample_size import DEFAULT_METRICS, sample_size_curve
from skcal.plotting._base import (
    PLOT_CONSTRAINTS,
    CalibrationDisplay,
    _parameter_entries,
    doc_filler,
    figure_legend,
    legend_label_once,
)
from skcal.plotting._style import merge_style_kwargs

# One axes per measure, or an array of them.
_PLOT_CONSTRAINTS = {
    **PLOT_CONSTRAINTS,
    "ax": [HasMethods(["plot"]), "array-like", None],
    "line_kwargs": [dict, None],
    "band_kwargs": [dict, None],
}

# Size in inches of each panel of a new figure; at most three side by side.
_PANEL_SIZE = (3.4, 3.0)
_MAX_COLUMNS = 3

_DOC = {
    "ax": """\
ax : matplotlib Axes or array of Axes, default=None
    Axes to draw on, one per measure (a single Axes for a single
    measure); a new figure with one panel per measure is created when
    None. Pass the ``ax_`` of another Display of the same measures to
    draw several models on the same panels.""",
    "ref_line": """\
ref_line : bool, default=True
    Draw each measure's value on all the rows as a dashed horizontal
    line.""",
    "line_kwargs": """\
line_kwargs : dict, default=None
    Keywords of the curves of means (matplotlib aliases such as ``c``,
    ``lw`` and ``ls`` are accepted), e.g. ``{"color": "C3"}``.""",
    "band_kwargs": """\
band_kwargs : dict, default=None
    Keywords of the bands (:meth:`~matplotlib.axes.Axes.fill_between`).""",
    "ref_line_kwargs": """\
ref_line_kwargs : dict, default=None
    Keywords of the dashed lines of the values on all the rows.""",
}

# The options of the curve are described once, in sample_size_curve.
_CURVE_OPTIONS = (
    "metrics",
    "sizes",
    "n_repeats",
    "min_size",
    "quantiles",
    "sample_weight",
    "pos_label",
    "random_state",
)
if sample_size_curve.__doc__ is not None:  # not stripped (python -OO)
    _entries = _parameter_entries(sample_size_curve.__doc__)
    _DOC.update({key: _entries[key] for key in _CURVE_OPTIONS})

_fill_doc = doc_filler(_DOC)


def _panel_axes(ax, n_panels):
    """One axes per measure: new (sharing the x axis), or those given."""
    if ax is None:
        import matplotlib.pyplot as plt

        n_cols = min(n_panels, _MAX_COLUMNS)
        n_rows = -(-n_panels // n_cols)
        figure, grid = plt.subplots(
            n_rows,
            n_cols,
            figsize=(_PANEL_SIZE[0] * n_cols + 0.4, _PANEL_SIZE[1] * n_rows + 1.0),
            squeeze=False,
            sharex=True,
            layout="constrained",
        )
        grid = grid.ravel()
        for extra in grid[n_panels:]:
            extra.set_visible(False)
        return grid[:n_panels], figure
    axes = np.array([ax], dtype=object) if hasattr(ax, "plot") else ax
    axes = np.asarray(axes, dtype=object)
    if axes.shape != (n_panels,) or not all(hasattr(a, "plot") for a in axes):
        raise ValueError(
            f"The sample-size curve of {n_panels} measure(s) needs one axes per "
            f"measure; got {axes.size} object(s). Pass ax=None, or the ax_ of a "
            "display of the same measures."
        )
    return axes, axes[0].figure


def _titles():
    """The short name of each registered measure, e.g. ``"ECE"``."""
    return {m.name: m.short_name for m in all_measures()}


class SampleSizeDisplay(CalibrationDisplay):
    r"""Sample-size curve: each measure's mean on subsamples against their size.

    One panel per measure shows, against the subsample size (log scale),
    the mean of the measure over the subsamples of
    :func:`~skcal.model_selection.sample_size_curve`, a band between two
    quantiles of the subsamples' values, and the value on all the rows
    (dashed). A measure whose curve slopes is biased at the sizes where it
    slopes: the binned ECE of a well-calibrated model falls as the size
    grows, the Brier score stays flat (Gruber and Buettner [1]_). Each
    model drawn on the same panels gets its own colour. Create it with
    :meth:`from_predictions`, :meth:`from_estimator` or
    :meth:`from_cv_results`.

    Read more in the :ref:`User Guide <sample_size>`.

    Parameters
    ----------
    sizes : ndarray of shape (n_sizes,)
        The subsample sizes, increasing.
    n_repeats : ndarray of shape (n_sizes,)
        The number of subsamples at each size.
    metrics : list of str
        The names of the measures, one panel each.
    mean, low, high : dict
        ``{name: ndarray of shape (n_sizes,)}``: the mean of each size's
        values and their ``quantiles``.
    full_value : dict
        ``{name: float}``, each measure on all the rows.
    quantiles : tuple of float, default=(0.05, 0.95)
        The levels of ``low`` and ``high``.
    name : str, default=None
        Name of the model in the legend.

    Attributes
    ----------
    line_ : list of matplotlib Line2D
        The curve of means of each measure.
    band_ : list of matplotlib PolyCollection
        The band of each measure.
    ref_line_ : list of matplotlib Line2D or None
        The value of each measure on all the rows; None when not drawn.
    ax_ : ndarray of matplotlib Axes
        The panels, one per measure.
    axes_ : ndarray of matplotlib Axes
        The same panels.
    figure_ : matplotlib Figure
        The figure.

    See Also
    --------
    skcal.model_selection.sample_size_curve : The numbers drawn.

    Notes
    -----
    At size :math:`n` the curve is the mean of the measure over the
    subsamples of :math:`n` rows drawn without replacement, which estimates
    the expected value of the measure on :math:`n` rows of these data; the
    band holds the central part of its values (5% to 95% by default).
    Sizes near the number of rows have few subsamples, and the band there
    is rough; at all the rows it closes on the dashed line.

    References
    ----------
    .. [1] S. G. Gruber and F. Buettner, "Better Uncertainty Calibration via
       Proper Scores for Classification and Beyond", NeurIPS 2022,
       arXiv:2203.07835.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import SampleSizeDisplay
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=2000)
    >>> y_true = (rng.uniform(size=2000) < y_prob).astype(int)
    >>> display = SampleSizeDisplay.from_predictions(
    ...     y_true, y_prob, n_repeats=20, random_state=0)
    >>> display.sizes.tolist()
    [100, 139, 195, 271, 379, 528, 737, 1028, 1434, 2000]
    >>> [ax.get_title() for ax in display.ax_]
    ['ECE', 'SmoothECE', 'Brier']
    >>> display.ax_[0].get_xscale()
    'log'
    """

    _title = "sample-size curve"

    def __init__(
        self,
        *,
        sizes: np.ndarray,
        n_repeats: np.ndarray,
        metrics: list[str],
        mean: dict[str, np.ndarray],
        low: dict[str, np.ndarray],
        high: dict[str, np.ndarray],
        full_value: dict[str, float],
        quantiles: tuple[float, float] = (0.05, 0.95),
        name: str | None = None,
    ) -> None:
        self.sizes = sizes
        self.n_repeats = n_repeats
        self.metrics = metrics
        self.mean = mean
        self.low = low
        self.high = high
        self.full_value = full_value
        self.quantiles = quantiles
        self.name = name

    @validate_params(_PLOT_CONSTRAINTS, prefer_skip_nested_validation=True)
    @_fill_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        ref_line=True,
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the curves, one panel per measure.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        %(ref_line)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : SampleSizeDisplay
            The display, with its artists stored (``line_``, ``ax_``, ...).
        """
        axes, figure = _panel_axes(ax, len(self.metrics))
        name = self.name if name is None else name
        styles = {
            "line": merge_style_kwargs(
                {"marker": "o", "markersize": 3, "linewidth": 1.5},
                line_kwargs,
                name="line_kwargs",
            ),
            "band": merge_style_kwargs(
                {"alpha": 0.2, "linewidth": 0}, band_kwargs, name="band_kwargs"
            ),
            "ref": merge_style_kwargs(
                {"linestyle": "--", "linewidth": 1.0},
                ref_line_kwargs,
                name="ref_line_kwargs",
            ),
        }
        titles = _titles()
        if not ref_line:
            styles["ref"] = None
        self.line_, self.band_, self.ref_line_ = [], [], []
        for ax_metric, metric in zip(axes, self.metrics, strict=True):
            line, band, ref = self._draw_metric(ax_metric, metric, name, styles)
            self.line_.append(line)
            self.band_.append(band)
            self.ref_line_.append(ref)
            ax_metric.set_xscale("log")
            ax_metric.set_title(titles.get(metric, metric))
            ax_metric.set_xlabel("Subsample size (rows)")
        axes[0].set_ylabel("Estimate")
        figure_legend(figure, axes)
        self.ax_ = self.axes_ = axes
        self.figure_ = figure
        return self

    def _labels(self):
        """The legend texts of the curve of means, the band and the dashed line."""
        low, high = self.quantiles
        return (
            f"{100 * low:g}%-{100 * high:g}% of the subsamples",
            "value on all rows",
        )

    def _draw_metric(self, ax, metric, name, styles):
        """The curve of means, the band and the dashed line of one measure."""
        line_style = dict(styles["line"])
        label = line_style.pop(
            "label", "mean of the subsamples" if name is None else name
        )
        sizes = np.asarray(self.sizes, dtype=np.float64)
        line = ax.plot(sizes, self.mean[metric], label=label, zorder=3, **line_style)[0]
        color = line.get_color()
        band_label, ref_label = self._labels()
        band_style = {"color": color, **styles["band"]}
        band_style.setdefault("label", legend_label_once(ax, band_label))
        band = ax.fill_between(sizes, self.low[metric], self.high[metric], **band_style)
        if styles["ref"] is None:
            return line, band, None
        ref_style = {"color": color, **styles["ref"]}
        ref_style.setdefault("label", legend_label_once(ax, ref_label))
        ref = ax.axhline(self.full_value[metric], zorder=2, **ref_style)
        return line, band, ref

    @classmethod
    @validate_params(
        {**parameter_constraints(sample_size_curve), **_PLOT_CONSTRAINTS},
        prefer_skip_nested_validation=True,
    )
    @_fill_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_prob: ArrayLike,
        *,
        metrics: list | tuple | dict = DEFAULT_METRICS,
        sizes: int | ArrayLike | None = None,
        n_repeats: int = 100,
        min_size: int = 100,
        quantiles: Sequence[float] = (0.05, 0.95),
        sample_weight: ArrayLike | None = None,
        pos_label: Label | None = None,
        labels: ArrayLike | None = None,
        random_state: RandomStateLike = None,
        verbose: Literal["auto"] | bool = "auto",
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        line_kwargs: dict | None = None,
        band_kwargs: dict | None = None,
        ref_line_kwargs: dict | None = None,
    ) -> SampleSizeDisplay:
        """Draw the sample-size curve of predicted probabilities.

        Every number comes from
        :func:`~skcal.model_selection.sample_size_curve`.

        Read more in the :ref:`User Guide <sample_size>`.

        Parameters
        ----------
        %(y_true)s
        %(y_prob)s
        %(metrics)s
        %(sizes)s
        %(n_repeats)s
        %(min_size)s
        %(quantiles)s
        %(sample_weight)s
        %(pos_label)s
        %(labels)s
        %(random_state)s
        %(verbose)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : SampleSizeDisplay
            The drawn display.
        """
        curve = sample_size_curve(
            y_true,
            y_prob,
            metrics=metrics,
            sizes=sizes,
            n_repeats=n_repeats,
            min_size=min_size,
            quantiles=quantiles,
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=labels,
            random_state=random_state,
            verbose=verbose,
        )
        display = cls(
            sizes=curve.sizes,
            n_repeats=curve.n_repeats,
            metrics=curve.metrics,
            mean=curve.mean,
            low=curve.low,
            high=curve.high,
            full_value=curve.full_value,
            quantiles=curve.quantiles,
            name=name,
        )
        return display.plot(
            ax=ax,
            ref_line=ref_line,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
