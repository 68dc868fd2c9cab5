"""The smooth reliability diagram (Blasiok and Nakkiran), as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

import inspect
import textwrap
from numbers import Real
from typing import Any, Literal

import numpy as np
from sklearn.utils import check_random_state

from skcal._docstrings import BOOTSTRAP_JOBS_DOC
from skcal._param_validation import (
    Interval,
    StrOptions,
    parameter_constraints,
    validate_params,
)
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._bootstrap import N_BOOTSTRAP
from skcal.metrics import smooth_reliability_curve
from skcal.plotting._base import (
    PLOT_CONSTRAINTS,
    RELIABILITY_CONSTRAINTS,
    RELIABILITY_DOC,
    RELIABILITY_PLOT_CONSTRAINTS,
    ReliabilityDiagram,
    canonical_views,
    doc_filler,
    drawn_points,
    legend_label_once,
)
from skcal.plotting._binned_reliability import BinnedReliabilityDisplay
from skcal.plotting._style import merge_style_kwargs

# Width in points of the curve where the density is largest, and the
# thinnest it gets where there is (almost) no data.
_MAX_WIDTH = 4.0
_MIN_WIDTH = 0.5

# When the smooth diagram says too little (see `_verdict`): the curve is
# drawn over less than this share of the range of the predictions, or its
# band is on average higher than this share of the square where drawn.
_MIN_DRAWN_SHARE = 0.5
_MAX_BAND_SHARE = 0.5

# Characters per line of the legend's note on a fallback.
_NOTE_WIDTH = 46

_STYLE_CONSTRAINTS = {"line_kwargs": [dict, None], "band_kwargs": [dict, None]}
_DRAW_CONSTRAINTS = {
    "min_effective_count": [Interval(Real, 0, None, closed="left")],
    "fallback": [StrOptions({"binned"}), None],
}

# The Display's arrays and the keys of smooth_reliability_curve they hold.
_FIELDS = {
    "grid": "grid",
    "curve": "calibration",
    "density": "density",
    "n_effective": "n_effective",
    "mean_prediction": "mean_prediction",
    "prediction_range": "prediction_range",
    "sigma": "sigma",
    "smooth_ece": "smooth_ece",
    "band_low": "band_low",
    "band_high": "band_high",
    "smooth_ece_interval": "smooth_ece_interval",
}

_DOC = {
    "sigma": """\
sigma : "auto" or float, default="auto"
    Bandwidth of the curve, at least 1e-4; ``"auto"`` is the SmoothECE
    fixed point (see :func:`~skcal.metrics.smooth_reliability_curve`).""",
    "n_points": """\
n_points : int, default=201
    Number of points of the curve's grid on [0, 1].""",
    "n_bootstrap": """\
n_bootstrap : int, default=1000
    Number of bootstrap resamples of the rows for the band of the curve
    and the interval of its SmoothECE; 0 draws no band.""",
    "confidence_level": """\
confidence_level : float, default=0.95
    Level of the band and of the interval (and of the per-bin Wilson
    intervals of a binned fallback).""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seeds the bootstrap. Pass an int for reproducible output across
    multiple function calls.""",
    "n_jobs": BOOTSTRAP_JOBS_DOC,
    "min_effective_count": """\
min_effective_count : float, default=10
    The curve and its band are drawn only where the effective number of
    predictions near the point, ``n_effective``, is at least this (and
    within the range of the predictions; see Notes). With 10 the curve's
    standard error is about at most 0.16 where it is drawn.""",
    "fallback": """\
fallback : "binned" or None, default="binned"
    What to draw when the smooth diagram says too little (see Notes):
    ``"binned"`` draws the binned diagram of
    :class:`BinnedReliabilityDisplay` instead (15 equal-width bins, Wilson
    intervals, counts), and says why in the legend; None always draws the
    smooth curve (with the same note). When the curves alone already rule
    out the smooth diagram, the bootstrap band is not computed (its
    resamples are the bulk of the time), so the display has no band to
    draw if plotted again with ``fallback=None``; pass None here to have
    it.""",
    "fallback_plot": """\
fallback : "binned" or None, default="binned"
    ``"binned"`` draws the ``binned`` diagram, when there is one, instead
    of a smooth diagram that says too little (see Notes); None always
    draws the smooth curve.""",
    "line_kwargs": """\
line_kwargs : dict, default=None
    Keywords of the curve (matplotlib aliases such as ``c``, ``lw`` and
    ``ls`` are accepted), e.g. ``{"color": "C3"}``; ``linewidth`` is the
    width where the density is largest. A binned fallback's line takes
    them as they are.""",
    "band_kwargs": """\
band_kwargs : dict, default=None
    Keywords of the bootstrap band
    (:meth:`~matplotlib.axes.Axes.fill_between`).""",
}

_fill_doc = doc_filler({**RELIABILITY_DOC, **_DOC})


def _fmt(value):
    return f"{value:.3f}"


def _drawn(view, min_effective_count):
    """Where a view's curve is drawn (:func:`drawn_points`)."""
    return drawn_points(
        view["grid"],
        view["curve"],
        n_effective=view["n_effective"],
        mean_prediction=view["mean_prediction"],
        prediction_range=view["prediction_range"],
        sigma=view["sigma"],
        min_effective_count=min_effective_count,
    )


def _verdict(view, min_effective_count):
    """Why the smooth diagram of a view says too little, or None.

    It does when the predictions span less than two points of the grid,
    when the curve is drawn over less than half of their range, or when its
    band is on average higher than half the square where it is drawn.
    """
    grid = np.asarray(view["grid"], dtype=np.float64)
    low, high = view["prediction_range"] or (grid[0], grid[-1])
    inside = (grid >= low) & (grid <= high)
    if np.count_nonzero(inside) < 2:
        return f"all predictions lie in [{low:.3g}, {high:.3g}]"
    drawn = _drawn(view, min_effective_count)
    share = np.count_nonzero(drawn & inside) / np.count_nonzero(inside)
    if share < _MIN_DRAWN_SHARE:
        return (
            f"predictions too few or too concentrated: a smooth curve would "
            f"cover {share:.0%} of their range [{low:.2f}, {high:.2f}]"
        )
    if view["band_low"] is None or view["band_high"] is None:
        return None
    height = np.asarray(view["band_high"]) - np.asarray(view["band_low"])
    shown = drawn & np.isfinite(height)
    cover = height[shown].mean() if shown.any() else 1.0
    if cover > _MAX_BAND_SHARE:
        return f"the band covers {cover:.0%} of the square where the curve is"
    return None


def _segments(grid, curve, density, drawn, max_width):
    """The curve's segments between drawn points, with widths by density."""
    points = np.column_stack([grid, curve])
    segments = np.stack([points[:-1], points[1:]], axis=1)
    both = drawn[:-1] & drawn[1:]
    middle = 0.5 * (density[:-1] + density[1:])
    peak = middle[both].max() if both.any() else 0.0
    widths = np.full(middle.shape, _MIN_WIDTH)
    if peak > 0:
        widths = np.maximum(max_width * middle / peak, _MIN_WIDTH)
    return segments[both], widths[both]


class SmoothReliabilityDisplay(ReliabilityDiagram):
    r"""Smooth reliability diagram: kernel regression of the outcomes.

    The diagram of Blasiok and Nakkiran (2024): the Nadaraya-Watson
    regression :math:`\hat y(t)` of the outcomes on the predictions, with
    the reflected Gaussian kernel at the SmoothECE bandwidth
    :math:`\sigma^*`, drawn with a width proportional to the density
    :math:`\hat\delta(t)` of the predictions, with a shaded bootstrap band
    and the SmoothECE and its bootstrap interval in the legend (in each
    panel's title for ``reduction="classwise"``, whose figure has one
    legend). A calibrated model's curve follows the diagonal where its
    predictions are. The curve and the band are drawn only where there are
    predictions: inside their range, and where at least
    ``min_effective_count`` of them are near (see Notes).

    When the data are too few or too concentrated for the smooth diagram to
    say anything, the binned diagram (:class:`BinnedReliabilityDisplay`) is
    drawn in its place, and its legend says why (``fallback``).

    Every number comes from :func:`~skcal.metrics.smooth_reliability_curve`
    (and, for the fallback, :func:`~skcal.metrics.reliability_table`).
    Create it with :meth:`from_estimator`, :meth:`from_predictions` or
    :meth:`from_cv_results`; the constructor only stores the arrays. For
    ``reduction="classwise"`` every array attribute is a list with one
    entry per class, in the order of ``classes``.

    Read more in the :ref:`User Guide <reliability_diagrams>`.

    Parameters
    ----------
    grid : ndarray of shape (n_points,)
        The points :math:`t` on [0, 1].
    curve : ndarray of shape (n_points,)
        :math:`\hat y(t)`, NaN where there are no predictions nearby.
    density : ndarray of shape (n_points,)
        :math:`\hat\delta(t)`, the density of the predictions.
    sigma : float
        The bandwidth.
    smooth_ece : float
        The SmoothECE (or :math:`\mathrm{smECE}_\sigma` for a given
        bandwidth).
    n_effective : ndarray of shape (n_points,), default=None
        The effective number of predictions near each point; None draws
        the curve wherever it is defined.
    mean_prediction : ndarray of shape (n_points,), default=None
        The kernel-weighted mean of the predictions near each point; None
        draws the curve wherever it is defined.
    prediction_range : tuple of float, default=None
        The smallest and largest prediction; None draws the curve over the
        whole grid.
    band_low, band_high : ndarray of shape (n_points,), default=None
        The pointwise percentile band of the bootstrap curves, or None.
    smooth_ece_interval : tuple of float, default=None
        The confidence interval of the population SmoothECE (see
        :func:`~skcal.metrics.confidence_interval`), or None.
    confidence_level : float, default=None
        The level of the band, for the legend.
    binned : BinnedReliabilityDisplay, default=None
        The binned diagram of the same data, drawn instead when the smooth
        one says too little; None when it was not needed.
    reduction : {"positive", "top_label", "classwise"}, default="positive"
        The binary view the arrays describe.
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
    kind_ : {"smooth", "binned"}
        The diagram drawn.
    reason_ : str or None
        Why the smooth diagram says too little (then ``kind_`` is
        ``"binned"`` when a binned diagram was available and ``fallback``
        allowed it); None when it says enough.
    line_ : matplotlib LineCollection, Line2D or list
        The curve, whose widths follow the density (for ``kind_="binned"``,
        the binned line; its intervals and counts are the artists of
        ``binned``).
    band_ : matplotlib PolyCollection, list or None
        The bootstrap band.
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
    BinnedReliabilityDisplay : The binned diagram, with counts and per-bin
        intervals.
    CalibrationSharpnessDisplay : The kernel calibration curve with the
        sharpness band of a proper score.
    skcal.metrics.smooth_reliability_curve : The numbers drawn.

    Notes
    -----
    The line width is proportional to :math:`\hat\delta(t)` (the widest 4
    points by default, never below 0.5). The band shows the sensitivity of
    the curve under resampling, **not a confidence interval for the true
    curve** (see :func:`~skcal.metrics.smooth_reliability_curve`).

    *Where the curve is drawn.* Only at grid points :math:`t` between the
    smallest and the largest prediction, where the effective number of
    predictions :math:`n_{\mathrm{eff}}(t)` (each prediction counting
    :math:`e^{-(t - p_i)^2 / (2\sigma^2)}`) is at least
    ``min_effective_count``; and it starts and stops where the
    kernel-weighted mean :math:`\bar p(t)` of the predictions is within
    :math:`\sigma` of :math:`t` (``n_effective`` and ``mean_prediction``
    of :func:`~skcal.metrics.smooth_reliability_curve`), a rule that trims
    only the two ends. Elsewhere the kernel regression extrapolates from
    distant predictions (the User Guide shows what that looks like).

    *When it says too little.* The smooth diagram of a view says too little
    when its predictions span less than two grid points, when the curve is
    drawn over less than half of the range of the predictions, or when its
    band is on average higher than half of the square where the curve is
    drawn. A classwise diagram (or one by group) falls back when any class
    (or group) does, so that the
    panels stay comparable. ``reason_`` and the legend say which rule
    applied.

    References
    ----------
    .. [1] J. Blasiok and P. Nakkiran, "Smooth ECE: Principled Reliability
       Diagrams via Kernel Smoothing", ICLR 2024, arXiv:2309.12236.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import SmoothReliabilityDisplay
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=1000)
    >>> y_true = (rng.uniform(size=1000) < y_prob**2).astype(int)
    >>> display = SmoothReliabilityDisplay.from_predictions(
    ...     y_true, y_prob, n_bootstrap=50, random_state=0)
    >>> display.kind_
    'smooth'
    >>> display.curve.shape
    (201,)
    >>> bool(np.all(display.band_low[50:150] <= display.curve[50:150]))
    True

    Ten predictions are too few for a smooth curve: the binned diagram is
    drawn, and ``reason_`` says why.

    >>> small = SmoothReliabilityDisplay.from_predictions(
    ...     y_true[:10], y_prob[:10], n_bootstrap=50, random_state=0)
    >>> small.kind_
    'binned'
    >>> print(small.reason_)  # doctest: +NORMALIZE_WHITESPACE
    predictions too few or too concentrated: a smooth curve would cover 0%
    of their range [0.38, 0.96]
    """

    _title = "smooth reliability diagram"
    _view_fields = (
        "grid",
        "curve",
        "density",
        "n_effective",
        "mean_prediction",
        "prediction_range",
        "sigma",
        "smooth_ece",
        "band_low",
        "band_high",
        "smooth_ece_interval",
    )
    _default_name = "smooth curve"

    def __init__(
        self,
        *,
        grid: np.ndarray,
        curve: np.ndarray,
        density: np.ndarray,
        sigma: float,
        smooth_ece: float,
        n_effective: np.ndarray | None = None,
        mean_prediction: np.ndarray | None = None,
        prediction_range: tuple[float, float] | None = None,
        band_low: np.ndarray | None = None,
        band_high: np.ndarray | None = None,
        smooth_ece_interval: tuple[float, float] | None = None,
        confidence_level: float | None = None,
        binned: BinnedReliabilityDisplay | None = None,
        reduction: Literal["positive", "top_label", "classwise"] = "positive",
        classes: np.ndarray | None = None,
        name: str | None = None,
        pos_label: Label | None = None,
        groups: np.ndarray | None = None,
        group_sizes: np.ndarray | None = None,
    ) -> None:
        self.grid = grid
        self.curve = curve
        self.density = density
        self.sigma = sigma
        self.smooth_ece = smooth_ece
        self.n_effective = n_effective
        self.mean_prediction = mean_prediction
        self.prediction_range = prediction_range
        self.band_low = band_low
        self.band_high = band_high
        self.smooth_ece_interval = smooth_ece_interval
        self.confidence_level = confidence_level
        self.binned = binned
        self.reduction = reduction
        self.classes = classes
        self.name = name
        self.pos_label = pos_label
        self.groups = groups
        self.group_sizes = group_sizes

    @validate_params(
        {
            **PLOT_CONSTRAINTS,
            **RELIABILITY_PLOT_CONSTRAINTS,
            **_DRAW_CONSTRAINTS,
            **_STYLE_CONSTRAINTS,
        },
        prefer_skip_nested_validation=True,
    )
    @_fill_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        ref_line=True,
        min_effective_count=10,
        fallback="binned",
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the diagram.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        %(ref_line)s
        %(min_effective_count)s
        %(fallback_plot)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : SmoothReliabilityDisplay
            The display, with its artists stored (``line_``, ``ax_``, ...)
            and what it drew (``kind_``, ``reason_``).
        """
        reason = self._verdict(min_effective_count)
        if reason is not None and fallback == "binned" and self.binned is not None:
            return self._plot_binned(
                ax, name, reason, ref_line, line_kwargs, ref_line_kwargs
            )
        styles = {
            "line": line_kwargs,
            "band": band_kwargs,
            "min_effective_count": min_effective_count,
        }
        self._legend_note = None if reason is None else _note("says little", reason)
        try:
            self._draw(
                ax,
                name=name,
                ref_line=ref_line,
                ref_line_kwargs=ref_line_kwargs,
                styles=styles,
            )
        finally:
            del self._legend_note
        self.kind_, self.reason_ = "smooth", reason
        return self

    def _verdict(self, min_effective_count):
        """Why the smooth diagram says too little (the first such view), or None."""
        panels = self._panels
        n_views = 1 if panels is None else len(panels)
        reasons = [
            (index, _verdict(self._view(index), min_effective_count))
            for index in range(n_views)
        ]
        failed = [(index, reason) for index, reason in reasons if reason is not None]
        if not failed:
            return None
        index, reason = failed[0]
        if panels is None:
            return reason
        kinds, kind = (
            ("classes", "class")
            if self.reduction == "classwise"
            else (
                "groups",
                "group",
            )
        )
        return (
            f"{len(failed)} of {n_views} {kinds}, e.g. {kind} {panels[index]}: {reason}"
        )

    def _plot_binned(self, ax, name, reason, ref_line, line_kwargs, ref_line_kwargs):
        """Draw ``binned`` instead, saying why in its legend."""
        binned = self.binned
        binned._legend_note = _note("binned", reason)
        try:
            binned.plot(
                ax=ax,
                name=self.name if name is None else name,
                ref_line=ref_line,
                line_kwargs=line_kwargs,
                ref_line_kwargs=ref_line_kwargs,
            )
        finally:
            del binned._legend_note
        self.line_, self.ref_line_ = binned.line_, binned.ref_line_
        paneled = self._panels is not None
        self.band_ = [None] * len(binned.axes_) if paneled else None
        self.ax_, self.axes_, self.figure_ = binned.ax_, binned.axes_, binned.figure_
        self.kind_, self.reason_ = "binned", reason
        return self

    def _measure_text(self, view):
        """SmoothECE and its interval."""
        text = f"SmoothECE = {_fmt(view['smooth_ece'])}"
        interval = view["smooth_ece_interval"]
        if interval is not None and np.all(np.isfinite(interval)):
            text += f" [{_fmt(interval[0])}, {_fmt(interval[1])}]"
        return text

    def _draw_view(self, ax, view, name, styles):
        """The curve where it is drawn, its width following the density; the band."""
        from matplotlib.collections import LineCollection

        style = merge_style_kwargs(
            {"linewidth": _MAX_WIDTH}, styles["line"], name="line_kwargs"
        )
        max_width = style.pop("linewidth")
        label = style.pop("label", self._legend_label(name, view))
        # The legend shows an empty line of the same style: a LineCollection's
        # legend entry would take the width of its first segment.
        proxy_style = {
            k: v for k, v in style.items() if k in ("color", "alpha", "linestyle")
        }
        proxy = ax.plot([], [], label=label, linewidth=2.0, **proxy_style)[0]
        style["color"] = proxy.get_color()
        grid, curve = np.asarray(view["grid"]), np.asarray(view["curve"])
        drawn = _drawn(view, styles["min_effective_count"])
        segments, widths = _segments(
            grid, curve, np.asarray(view["density"]), drawn, max_width
        )
        style.setdefault("capstyle", "round")
        style.setdefault("zorder", 3)
        line = LineCollection(segments, linewidths=widths, **style)
        ax.add_collection(line)
        if ax.figure.get_layout_engine() is None:
            # The legend goes inside: an invisible copy of the curve, which
            # matplotlib's "best" legend place avoids (a LineCollection's
            # segments are not looked at).
            ax.plot(grid, np.where(drawn, curve, np.nan), visible=False)
        band = self._draw_band(ax, view, drawn, style["color"], styles["band"])
        return {"line_": line, "band_": band}

    def _draw_band(self, ax, view, drawn, color, band_kwargs):
        """The bootstrap band where the curve is drawn, or None."""
        if view["band_low"] is None or view["band_high"] is None:
            return None
        low, high = np.asarray(view["band_low"]), np.asarray(view["band_high"])
        shown = drawn & np.isfinite(low) & np.isfinite(high)
        level = self.confidence_level
        label = "bootstrap band" if level is None else f"{level:.0%} bootstrap band"
        band_style = merge_style_kwargs(
            {
                "color": color,
                "alpha": 0.25,
                "linewidth": 0.0,
                "label": legend_label_once(ax, label),
            },
            band_kwargs,
            name="band_kwargs",
        )
        return ax.fill_between(
            np.asarray(view["grid"]),
            np.where(shown, low, 0.0),
            np.where(shown, high, 0.0),
            where=shown,
            **band_style,
        )

    @classmethod
    @validate_params(
        {
            **parameter_constraints(smooth_reliability_curve),
            **PLOT_CONSTRAINTS,
            **RELIABILITY_CONSTRAINTS,
            **_DRAW_CONSTRAINTS,
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
        sigma: Literal["auto"] | float = "auto",
        eps: float = 1e-3,
        n_points: int = 201,
        n_bootstrap: int = N_BOOTSTRAP,
        confidence_level: float = 0.95,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        verbose: Literal["auto"] | bool = "auto",
        min_effective_count: float = 10,
        fallback: Literal["binned"] | None = "binned",
        name: str | None = None,
        ax: Axes | ArrayLike | None = None,
        ref_line: bool = True,
        line_kwargs: dict | None = None,
        band_kwargs: dict | None = None,
        ref_line_kwargs: dict | None = None,
    ) -> SmoothReliabilityDisplay:
        """Draw the smooth reliability diagram of predicted probabilities.

        The numbers of each view come from
        :func:`~skcal.metrics.smooth_reliability_curve`; those of a binned
        fallback from :class:`BinnedReliabilityDisplay`'s functions, at its
        defaults.

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
        %(sigma)s
        eps : float, default=1e-3
            Tolerance of the SmoothECE fixed-point search, in [1e-4, 1).
        %(n_points)s
        %(n_bootstrap)s
        %(confidence_level)s
        %(random_state)s
        %(n_jobs)s
        %(verbose)s
        %(min_effective_count)s
        %(fallback)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : SmoothReliabilityDisplay
            The drawn display; ``kind_`` says which diagram was drawn.
        """
        data, reduction, views, panels = canonical_views(
            y_true, y_prob, sample_weight, pos_label, labels, reduction, groups
        )
        options: dict[str, Any] = {"sigma": sigma, "eps": eps, "n_points": n_points}
        options.update(n_bootstrap=0, confidence_level=confidence_level)
        inputs = (y_true, y_prob, sample_weight, pos_label, labels, groups)
        settings = dict(
            confidence_level=confidence_level,
            min_effective_count=min_effective_count,
            fallback=fallback,
            name=name,
        )
        curves = [smooth_reliability_curve(**view, **options) for view in views]
        display = cls._from_curves(
            inputs, (data, reduction, curves, panels), **settings
        )
        if n_bootstrap and display.binned is None:
            # The resamples of the band (and of the SmoothECE's interval) only
            # for a smooth diagram that its curves alone do not rule out.
            options.update(n_bootstrap=n_bootstrap, n_jobs=n_jobs, verbose=verbose)
            options.update(random_state=check_random_state(random_state))
            curves = [smooth_reliability_curve(**view, **options) for view in views]
            display = cls._from_curves(
                inputs, (data, reduction, curves, panels), **settings
            )
        return display.plot(
            ax=ax,
            ref_line=ref_line,
            min_effective_count=min_effective_count,
            fallback=fallback,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )

    @classmethod
    def _from_curves(
        cls,
        inputs,
        computed,
        *,
        confidence_level,
        min_effective_count=10,
        fallback="binned",
        name=None,
    ):
        """The display of computed curves, not drawn, with its binned fallback.

        ``inputs`` are ``(y_true, y_prob, sample_weight, pos_label, labels,
        groups)`` and ``computed`` is ``(data, reduction, curves, panels)``:
        what :func:`~skcal.plotting._base.canonical_views` gave for them and
        the :func:`~skcal.metrics.smooth_reliability_curve` of each view. The
        report computes its curve once, for its SmoothECE interval and for
        the diagram.
        """
        data, reduction, curves, panels = computed
        per_view = {field: [c[key] for c in curves] for field, key in _FIELDS.items()}
        display = cls._from_views(
            data,
            reduction,
            per_view,
            panels=panels,
            # The level of a band, when the curves have one.
            confidence_level=(
                confidence_level if curves[0].band_low is not None else None
            ),
            name=name,
        )
        if fallback == "binned" and display._verdict(min_effective_count):
            display.binned = _binned_fallback(
                inputs,
                reduction=reduction,
                confidence_level=confidence_level,
                name=name,
            )
        return display


def _binned_fallback(data, *, reduction, confidence_level, name):
    """The binned diagram of ``data = (y_true, y_prob, sample_weight,
    pos_label, labels, groups)``, at BinnedReliabilityDisplay's defaults, not
    drawn."""
    y_true, y_prob, sample_weight, pos_label, labels, groups = data
    defaults = inspect.signature(BinnedReliabilityDisplay.from_predictions).parameters
    return BinnedReliabilityDisplay._compute(
        y_true,
        y_prob,
        sample_weight=sample_weight,
        pos_label=pos_label,
        labels=labels,
        reduction=reduction,
        **{
            key: defaults[key].default
            for key in ("n_bins", "strategy", "interval", "n_bootstrap", "random_state")
        },
        confidence_level=confidence_level,
        name=name,
        groups=groups,
    )


def _note(kind, reason):
    """The legend's note on a diagram that says little, wrapped."""
    text = f"{kind}: {reason}"
    return "\n".join(textwrap.wrap(text, _NOTE_WIDTH))
