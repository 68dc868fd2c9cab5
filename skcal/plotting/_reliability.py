"""Reliability diagrams, smooth (kernel regression) or binned, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from skcal._param_validation import Interval, StrOptions
from skcal._reduction import REDUCTIONS, binary_views, resolve_reduction
from skcal._utils._bins import STRATEGIES
from skcal._validation import DATA_CONSTRAINTS, check_calibration_inputs
from skcal.metrics import (
    expected_calibration_error,
    reliability_table,
    smooth_reliability_curve,
)
from skcal.plotting._base import (
    check_matplotlib,
    doc_filler,
    draw_ref_line,
    estimator_predictions,
    grid_axes,
    pooled_cv_predictions,
    single_axes,
    validate,
)
from skcal.plotting._compute import binned_intervals, smooth_band, smooth_bootstrap
from skcal.plotting._style import merge_style_kwargs

# The fixed-point tolerance of smooth_reliability_curve's default.
_EPS = 1e-3

# Width in points of the smooth curve where the density is largest, and the
# thinnest it gets where there is (almost) no data.
_MAX_WIDTH = 4.0
_MIN_WIDTH = 0.5

# Height, in axes data units, of the tallest bar of the counts strip.
_HIST_HEIGHT = 0.2

_OPTION_CONSTRAINTS = {
    "sample_weight": DATA_CONSTRAINTS["sample_weight"],
    "pos_label": DATA_CONSTRAINTS["pos_label"],
    "labels": DATA_CONSTRAINTS["labels"],
    "reduction": [StrOptions(set(REDUCTIONS))],
    "kind": [StrOptions({"smooth", "binned"})],
    "sigma": [StrOptions({"auto"}), Interval(Real, 1e-4, None, closed="left")],
    "n_points": [Interval(Integral, 2, None, closed="left")],
    "n_bins": [Interval(Integral, 1, None, closed="left"), StrOptions({"cube_root"})],
    "strategy": [StrOptions(set(STRATEGIES))],
    "interval": [StrOptions({"wilson", "bootstrap"}), None],
    "n_bootstrap": [Interval(Integral, 0, None, closed="left")],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "random_state": ["random_state"],
    "name": [str, None],
}

_PLOT_CONSTRAINTS = {
    "name": [str, None],
    "ref_line": ["boolean"],
    "show_counts": ["boolean"],
    "line_kwargs": [dict, None],
    "band_kwargs": [dict, None],
    "ref_line_kwargs": [dict, None],
    "hist_kwargs": [dict, None],
    "errorbar_kwargs": [dict, None],
}

# The per-view data of each kind, as attributes of the Display.
_SMOOTH_FIELDS = (
    "grid",
    "curve",
    "density",
    "band_low",
    "band_high",
    "sigma",
    "smooth_ece",
    "smooth_ece_ci",
)
_BINNED_FIELDS = ("table", "ece", "interval_low", "interval_high")

_DOC = {
    "reduction": """\
reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
    The binary view drawn. ``"positive"``: the probability of
    ``pos_label`` against its indicator. ``"top_label"``: the confidence
    (largest probability) against the correctness of the argmax.
    ``"classwise"``: one small diagram per class, one-vs-rest. ``"auto"``
    is ``"positive"`` for binary problems (and when ``pos_label`` is
    given) and ``"top_label"`` otherwise.""",
    "kind": """\
kind : {"smooth", "binned"}, default="smooth"
    Kernel regression of the outcomes at the SmoothECE bandwidth, or
    per-bin event rates.""",
    "sigma": """\
sigma : "auto" or float, default="auto"
    Bandwidth of the smooth curve, at least 1e-4; ``"auto"`` is the
    SmoothECE fixed point (see
    :func:`~skcal.metrics.smooth_reliability_curve`).""",
    "n_points": """\
n_points : int, default=201
    Number of points of the smooth curve's grid on [0, 1].""",
    "interval": """\
interval : {"wilson", "bootstrap"} or None, default="wilson"
    Per-bin intervals of the event rate (binned kind): Wilson score
    intervals, or percentile intervals over ``n_bootstrap`` resamples of
    the rows with the bins fixed; None draws none.""",
    "n_bootstrap": """\
n_bootstrap : int, default=100
    Number of bootstrap resamples of the rows: for the band of the smooth
    curve and the interval of its SmoothECE, and for
    ``interval="bootstrap"``. 0 gives no band.""",
    "confidence_level": """\
confidence_level : float, default=0.95
    Level of the band and of the intervals.""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seeds the bootstrap. Pass an int for reproducible output across
    multiple function calls.""",
    "show_counts": """\
show_counts : bool, default=True
    Binned kind: draw the total weight of each bin as a strip of bars
    along the bottom of the axes (the tallest 0.2 high).""",
    "line_kwargs": """\
line_kwargs : dict, default=None
    Keywords of the curve (matplotlib aliases such as ``c``, ``lw`` and
    ``ls`` are accepted), e.g. ``{"color": "C3"}``. For the smooth kind,
    ``linewidth`` is the width where the density is largest.""",
    "band_kwargs": """\
band_kwargs : dict, default=None
    Keywords of the bootstrap band of the smooth curve
    (:meth:`~matplotlib.axes.Axes.fill_between`).""",
    "hist_kwargs": """\
hist_kwargs : dict, default=None
    Keywords of the counts strip (:meth:`~matplotlib.axes.Axes.bar`).""",
    "errorbar_kwargs": """\
errorbar_kwargs : dict, default=None
    Keywords of the per-bin intervals
    (:meth:`~matplotlib.axes.Axes.errorbar`).""",
}

_fill_doc = doc_filler(_DOC)


def _fmt(value):
    return f"{value:.3f}"


class ReliabilityDisplay:
    r"""Reliability diagram: the observed event rate against the prediction.

    A calibrated model's predictions :math:`p` satisfy
    :math:`E[Y \mid p] = p`, so its diagram follows the diagonal. Two kinds
    are drawn:

    - ``kind="smooth"`` (Blasiok and Nakkiran, 2024): the Nadaraya-Watson
      regression :math:`\hat y(t)` of the outcomes on the predictions with
      the reflected Gaussian kernel at the SmoothECE bandwidth
      :math:`\sigma^*` (:func:`~skcal.metrics.smooth_reliability_curve`),
      drawn with a width proportional to the density :math:`\hat\delta(t)`
      of the predictions at the same bandwidth, with a shaded bootstrap band
      and the SmoothECE and its bootstrap interval in the legend;
    - ``kind="binned"``: the event rate of each bin against its mean
      prediction (:func:`~skcal.metrics.reliability_table`), with per-bin
      intervals, the weight of each bin as a strip of bars, and the ECE in
      the legend. Empty bins have no point (NaN), so the line breaks there.

    Create it with :meth:`from_estimator`, :meth:`from_predictions` or
    :meth:`from_cv_results`; the constructor only stores computed arrays.
    For ``reduction="classwise"`` every per-view attribute below is a list
    with one entry per class, in the order of ``classes``.

    Parameters
    ----------
    kind : {"smooth", "binned"}, default="smooth"
        Which diagram the arrays describe.
    grid : ndarray of shape (n_points,), default=None
        Smooth kind: the points :math:`t` on [0, 1].
    curve : ndarray of shape (n_points,), default=None
        Smooth kind: :math:`\hat y(t)`, NaN where there are no predictions
        nearby.
    density : ndarray of shape (n_points,), default=None
        Smooth kind: :math:`\hat\delta(t)`, the density of the predictions.
    band_low, band_high : ndarray of shape (n_points,), default=None
        Smooth kind: the pointwise percentile band of the bootstrap curves,
        or None.
    sigma : float, default=None
        Smooth kind: the bandwidth.
    smooth_ece : float, default=None
        Smooth kind: the SmoothECE (or :math:`\mathrm{smECE}_\sigma` for a
        given bandwidth).
    smooth_ece_ci : tuple of float, default=None
        Smooth kind: the bias-corrected bootstrap percentile interval of
        ``smooth_ece``.
    table : :class:`~sklearn.utils.Bunch`, default=None
        Binned kind: the result of :func:`~skcal.metrics.reliability_table`
        (edges, ``weight``, ``count``, ``mean_predicted``, ``event_rate``,
        ``gap`` per bin).
    ece : float, default=None
        Binned kind: the expected calibration error of the same bins.
    interval_low, interval_high : ndarray of shape (n_bins,), default=None
        Binned kind: per-bin intervals of the event rate (NaN for empty
        bins), or None.
    reduction : {"positive", "top_label", "classwise"}, default="positive"
        The binary view the arrays describe.
    classes : ndarray of shape (n_classes,), default=None
        For ``reduction="classwise"``, the class of each view.
    confidence_level : float, default=0.95
        The level of the band and of the intervals.
    name : str, default=None
        Name of the curve in the legend.
    pos_label : int, float, bool or str, default=None
        The positive class of a ``"positive"`` view, for the axis labels.

    Attributes
    ----------
    line_ : matplotlib artist or list
        The curve: a :class:`~matplotlib.collections.LineCollection` whose
        widths follow the density (smooth), or a
        :class:`~matplotlib.lines.Line2D` (binned).
    band_ : matplotlib PolyCollection, list or None
        The bootstrap band (smooth kind).
    errorbar_ : matplotlib ErrorbarContainer, list or None
        The per-bin intervals (binned kind).
    hist_ : matplotlib BarContainer, list or None
        The counts strip (binned kind).
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
    CalibrationSharpnessDisplay : The kernel calibration curve with the
        sharpness band of a proper score.
    skcal.metrics.smooth_reliability_curve : The smooth curve's numbers.
    skcal.metrics.reliability_table : The binned diagram's numbers.
    sklearn.calibration.CalibrationDisplay : The binary binned diagram,
        without counts or intervals.

    Notes
    -----
    With weights :math:`w_i`, the smooth curve and density are

    .. math::

        \hat y(t) = \frac{\sum_i w_i y_i \tilde K_\sigma(t, p_i)}
        {\sum_i w_i \tilde K_\sigma(t, p_i)}, \qquad
        \hat\delta(t) = \frac{\sum_i w_i \tilde K_\sigma(t, p_i)}{\sum_i w_i},

    with the reflected Gaussian kernel :math:`\tilde K_\sigma`. The line
    width is proportional to :math:`\hat\delta(t)` (the widest 4 points by
    default, never below 0.5).

    *Band.* Each of ``n_bootstrap`` replicates resamples the rows with
    replacement and recomputes :math:`\hat y` at the full-data bandwidth on
    the same grid, and the SmoothECE (its own fixed point); the band and
    the interval are the pointwise percentiles at ``confidence_level``. The
    band shows the **sensitivity of the curve under resampling, not a
    confidence interval for the true curve** [1]_: the kernel regression is
    biased at any fixed bandwidth, and the band says nothing about that
    bias. It need not contain the curve where predictions are rare. A
    replicate is drawn as multinomial counts of groups of rows that share
    an outcome, a weight and a cell of a grid of width at most
    :math:`\sigma/64` (the rows of a cell are given the cell's mean
    position), so its cost does not grow with the number of rows once they
    are grouped: about a second for a million unweighted rows and 100
    replicates. With many distinct sample weights every row is its own
    group and a replicate costs O(n); for calibrated data the bandwidth is
    small and the grid fine, which costs a few seconds. For nearly
    calibrated data the SmoothECE is mostly sampling noise, which
    resampling adds to, so its interval is Efron's bias-corrected percentile
    interval (a plain percentile interval would lie above the estimate); it
    describes the estimate's variability, not the population value.

    *Binned intervals.* ``"wilson"``: the Wilson score interval [2]_ of the
    bin's event rate :math:`\hat r` on :math:`m` rows,

    .. math::

        \frac{\hat r + z^2/(2m) \pm z \sqrt{\hat r(1-\hat r)/m + z^2/(4m^2)}}
        {1 + z^2/m},

    with :math:`z` the normal quantile of ``confidence_level``. With sample
    weights, :math:`\hat r` is the weighted rate and :math:`m` is Kish's
    effective size :math:`(\sum w_i)^2 / \sum w_i^2` of the bin, an
    approximation that is exact for equal weights. ``"bootstrap"``:
    percentile intervals of the bin's event rate over resamples of the rows,
    with the bins fixed.

    References
    ----------
    .. [1] J. Blasiok and P. Nakkiran, "Smooth ECE: Principled Reliability
       Diagrams via Kernel Smoothing", ICLR 2024, arXiv:2309.12236.
    .. [2] E. B. Wilson, "Probable inference, the law of succession, and
       statistical inference", J. Amer. Statist. Assoc. 22(158), 1927.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import ReliabilityDisplay
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.uniform(size=1000)
    >>> y_true = (rng.uniform(size=1000) < y_prob**2).astype(int)
    >>> display = ReliabilityDisplay.from_predictions(
    ...     y_true, y_prob, n_bootstrap=50, random_state=0)
    >>> display.curve.shape
    (201,)
    >>> bool(np.all(display.band_low[50:150] <= display.curve[50:150]))
    True
    >>> binned = ReliabilityDisplay.from_predictions(
    ...     y_true, y_prob, kind="binned", n_bins=10, ax=display.ax_)
    >>> len(display.ax_.get_legend().get_texts())
    3
    """

    def __init__(
        self,
        *,
        kind="smooth",
        grid=None,
        curve=None,
        density=None,
        band_low=None,
        band_high=None,
        sigma=None,
        smooth_ece=None,
        smooth_ece_ci=None,
        table=None,
        ece=None,
        interval_low=None,
        interval_high=None,
        reduction="positive",
        classes=None,
        confidence_level=0.95,
        name=None,
        pos_label=None,
    ):
        self.kind = kind
        self.grid = grid
        self.curve = curve
        self.density = density
        self.band_low = band_low
        self.band_high = band_high
        self.sigma = sigma
        self.smooth_ece = smooth_ece
        self.smooth_ece_ci = smooth_ece_ci
        self.table = table
        self.ece = ece
        self.interval_low = interval_low
        self.interval_high = interval_high
        self.reduction = reduction
        self.classes = classes
        self.confidence_level = confidence_level
        self.name = name
        self.pos_label = pos_label

    # ------------------------------------------------------------------
    # Drawing
    # ------------------------------------------------------------------

    def _view(self, index, classwise):
        """The data of one view, as a dict."""
        fields = _SMOOTH_FIELDS if self.kind == "smooth" else _BINNED_FIELDS
        return {
            f: (getattr(self, f)[index] if classwise else getattr(self, f))
            for f in fields
        }

    def _labels(self, classwise, index):
        """Axis labels and title of a view."""
        if classwise:
            return (
                "Predicted probability",
                "Fraction of class",
                (f"Class {self.classes[index]}"),
            )
        if self.reduction == "top_label":
            return "Confidence", "Accuracy", None
        suffix = (
            "" if self.pos_label is None else f" (positive class: {self.pos_label})"
        )
        return f"Predicted probability{suffix}", f"Fraction of positives{suffix}", None

    @_fill_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        ref_line=True,
        show_counts=True,
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
        hist_kwargs=None,
        errorbar_kwargs=None,
    ):
        """Draw the diagram.

        Parameters
        ----------
        ax : matplotlib Axes or array of Axes, default=None
            Axes to draw on; a new figure is created when None. Pass the
            ``ax_`` of another Display to draw several models on the same
            axes (for ``"classwise"``, an array of one axes per class; a
            single axes is divided into a grid).
        %(name_plot)s
        %(ref_line)s
        %(show_counts)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s
        %(hist_kwargs)s
        %(errorbar_kwargs)s

        Returns
        -------
        display : ReliabilityDisplay
            The display, with its artists stored (``line_``, ``ax_``, ...).
        """
        check_matplotlib("ReliabilityDisplay.plot")
        validate(
            _PLOT_CONSTRAINTS,
            {
                "name": name,
                "ref_line": ref_line,
                "show_counts": show_counts,
                "line_kwargs": line_kwargs,
                "band_kwargs": band_kwargs,
                "ref_line_kwargs": ref_line_kwargs,
                "hist_kwargs": hist_kwargs,
                "errorbar_kwargs": errorbar_kwargs,
            },
            "ReliabilityDisplay.plot",
        )
        if self.kind not in ("smooth", "binned"):
            raise ValueError(f'kind must be "smooth" or "binned", got {self.kind!r}.')
        required = ("grid", "curve", "density") if self.kind == "smooth" else ("table",)
        missing = [f for f in required if getattr(self, f) is None]
        if missing:
            raise ValueError(
                f"A {self.kind} ReliabilityDisplay needs {', '.join(missing)}; use "
                "from_predictions or from_estimator to compute them."
            )
        classwise = self.reduction == "classwise"
        name = self.name if name is None else name
        ref_style = merge_style_kwargs(
            {"color": "black", "linestyle": ":", "linewidth": 1.0},
            ref_line_kwargs,
            name="ref_line_kwargs",
        )
        if classwise:
            if self.classes is None:
                raise ValueError('A "classwise" ReliabilityDisplay needs classes.')
            axes, figure = grid_axes(ax, len(self.classes))
        else:
            single, figure = single_axes(ax)
            axes = np.array([single], dtype=object)
        artists = {"line_": [], "band_": [], "errorbar_": [], "hist_": []}
        ref_lines = []
        for index, view_ax in enumerate(axes):
            view = self._view(index, classwise)
            if self.kind == "smooth":
                drawn = self._draw_smooth(view_ax, view, name, line_kwargs, band_kwargs)
            else:
                drawn = self._draw_binned(
                    view_ax,
                    view,
                    name,
                    show_counts,
                    line_kwargs,
                    hist_kwargs,
                    errorbar_kwargs,
                )
            for key, value in drawn.items():
                artists[key].append(value)
            ref_lines.append(draw_ref_line(view_ax, ref_line, ref_style))
            xlabel, ylabel, title = self._labels(classwise, index)
            view_ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01))
            view_ax.set_aspect("equal", adjustable="box")
            view_ax.set_xlabel(xlabel)
            view_ax.set_ylabel(ylabel)
            if title is not None:
                view_ax.set_title(title)
            view_ax.legend(
                loc="upper left", fontsize="xx-small" if classwise else "small"
            )
        for key, values in artists.items():
            setattr(self, key, values if classwise else values[0])
        self.ref_line_ = ref_lines if classwise else ref_lines[0]
        self.axes_ = axes
        self.ax_ = axes if classwise else axes[0]
        self.figure_ = figure
        return self

    def _legend_label(self, name, view):
        if self.kind == "smooth":
            text = f"SmoothECE = {_fmt(view['smooth_ece'])}"
            ci = view["smooth_ece_ci"]
            if ci is not None and np.all(np.isfinite(ci)):
                text += f" [{_fmt(ci[0])}, {_fmt(ci[1])}]"
        else:
            text = f"ECE = {_fmt(view['ece'])}"
        if name is None:
            return text
        # The small axes of a classwise grid get the name on its own line.
        return (
            f"{name}\n{text}" if self.reduction == "classwise" else f"{name} ({text})"
        )

    def _draw_smooth(self, ax, view, name, line_kwargs, band_kwargs):
        """The curve, its width following the density, and the band."""
        from matplotlib.collections import LineCollection

        style = merge_style_kwargs(
            {"linewidth": _MAX_WIDTH}, line_kwargs, name="line_kwargs"
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
        grid = np.asarray(view["grid"], dtype=np.float64)
        curve = np.asarray(view["curve"], dtype=np.float64)
        density = np.asarray(view["density"], dtype=np.float64)
        points = np.column_stack([grid, curve])
        segments = np.stack([points[:-1], points[1:]], axis=1)
        drawn = np.isfinite(curve[:-1]) & np.isfinite(curve[1:])
        middle = 0.5 * (density[:-1] + density[1:])
        peak = middle[drawn].max() if drawn.any() else 0.0
        widths = np.full(middle.shape, _MIN_WIDTH)
        if peak > 0:
            widths = np.maximum(max_width * middle / peak, _MIN_WIDTH)
        style.setdefault("capstyle", "round")
        style.setdefault("zorder", 3)
        line = LineCollection(segments[drawn], linewidths=widths[drawn], **style)
        ax.add_collection(line)
        band = None
        if view["band_low"] is not None and view["band_high"] is not None:
            low = np.asarray(view["band_low"], dtype=np.float64)
            high = np.asarray(view["band_high"], dtype=np.float64)
            finite = np.isfinite(low) & np.isfinite(high)
            band_style = merge_style_kwargs(
                {"color": style["color"], "alpha": 0.25, "linewidth": 0.0},
                band_kwargs,
                name="band_kwargs",
            )
            band = ax.fill_between(
                grid,
                np.where(finite, low, 0.0),
                np.where(finite, high, 0.0),
                where=finite,
                **band_style,
            )
        return {"line_": line, "band_": band, "errorbar_": None, "hist_": None}

    def _draw_binned(
        self, ax, view, name, show_counts, line_kwargs, hist_kwargs, errorbar_kwargs
    ):
        """Event rate against mean prediction, intervals and counts strip."""
        table = view["table"]
        mean_predicted = np.asarray(table["mean_predicted"], dtype=np.float64)
        rate = np.asarray(table["event_rate"], dtype=np.float64)
        style = merge_style_kwargs(
            {"marker": "s", "markersize": 4.0, "linestyle": "-"},
            line_kwargs,
            name="line_kwargs",
        )
        label = style.pop("label", self._legend_label(name, view))
        line = ax.plot(mean_predicted, rate, label=label, **style)[0]
        color = line.get_color()
        errorbar = None
        if view["interval_low"] is not None and view["interval_high"] is not None:
            low = np.asarray(view["interval_low"], dtype=np.float64)
            high = np.asarray(view["interval_high"], dtype=np.float64)
            shown = np.isfinite(low) & np.isfinite(high) & np.isfinite(rate)
            yerr = np.vstack(
                [np.maximum(rate - low, 0.0), np.maximum(high - rate, 0.0)]
            )[:, shown]
            errorbar_style = merge_style_kwargs(
                {"fmt": "none", "ecolor": color, "elinewidth": 1.0, "capsize": 2.0},
                errorbar_kwargs,
                name="errorbar_kwargs",
            )
            errorbar = ax.errorbar(
                mean_predicted[shown], rate[shown], yerr=yerr, **errorbar_style
            )
        hist = None
        if show_counts:
            weight = np.asarray(table["weight"], dtype=np.float64)
            peak = weight.max()
            heights = _HIST_HEIGHT * weight / peak if peak > 0 else weight
            lower = np.asarray(table["bin_lower"], dtype=np.float64)
            upper = np.asarray(table["bin_upper"], dtype=np.float64)
            hist_style = merge_style_kwargs(
                {"color": color, "alpha": 0.25, "linewidth": 0.0},
                hist_kwargs,
                name="hist_kwargs",
            )
            hist = ax.bar(
                lower, heights, width=upper - lower, align="edge", **hist_style
            )
        return {"line_": line, "band_": None, "errorbar_": errorbar, "hist_": hist}

    # ------------------------------------------------------------------
    # Constructors
    # ------------------------------------------------------------------

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
        kind,
        sigma,
        n_points,
        n_bins,
        strategy,
        interval,
        n_bootstrap,
        confidence_level,
        random_state,
        name,
    ):
        """Compute the arrays of every view and build the Display."""
        data = check_calibration_inputs(
            y_true, y_prob, sample_weight, pos_label, labels
        )
        reduction = resolve_reduction(data, reduction)
        rng = check_random_state(random_state)
        w = (
            None
            if data.sample_weight is None
            else data.sample_weight * data.weight_scale
        )
        views = []
        for y, p in binary_views(data, reduction):
            if kind == "smooth":
                curve = smooth_reliability_curve(
                    y, p, sample_weight=w, labels=[0, 1], sigma=sigma, n_points=n_points
                )
                view = {
                    "grid": curve.grid,
                    "curve": curve.calibration,
                    "density": curve.density,
                    "band_low": None,
                    "band_high": None,
                    "sigma": curve.sigma,
                    "smooth_ece": curve.smooth_ece,
                    "smooth_ece_ci": None,
                }
                if n_bootstrap:
                    curves, values = smooth_bootstrap(
                        y,
                        p,
                        w,
                        sigma=sigma,
                        bandwidth=curve.sigma,
                        eps=_EPS,
                        n_points=n_points,
                        n_bootstrap=n_bootstrap,
                        rng=rng,
                    )
                    low, high, ci = smooth_band(
                        curve.calibration,
                        curves,
                        curve.smooth_ece,
                        values,
                        confidence_level,
                    )
                    view.update(band_low=low, band_high=high, smooth_ece_ci=ci)
            else:
                options = dict(
                    sample_weight=w, labels=[0, 1], n_bins=n_bins, strategy=strategy
                )
                table = reliability_table(y, p, **options)
                view = {
                    "table": table,
                    "ece": expected_calibration_error(y, p, **options),
                    "interval_low": None,
                    "interval_high": None,
                }
                if interval is not None:
                    low, high = binned_intervals(
                        y,
                        p,
                        w,
                        table.event_rate,
                        n_bins=n_bins,
                        strategy=strategy,
                        interval=interval,
                        n_bootstrap=n_bootstrap,
                        confidence_level=confidence_level,
                        rng=rng,
                    )
                    view.update(interval_low=low, interval_high=high)
            views.append(view)
        classwise = reduction == "classwise"
        fields = {
            key: ([v[key] for v in views] if classwise else views[0][key])
            for key in views[0]
        }
        if reduction == "positive":
            pos_label = data.classes[data.pos_index]
            pos_label = pos_label.item() if hasattr(pos_label, "item") else pos_label
        return cls(
            kind=kind,
            reduction=reduction,
            classes=data.classes if classwise else None,
            confidence_level=confidence_level,
            name=name,
            pos_label=pos_label,
            **fields,
        )

    @classmethod
    @_fill_doc
    def from_predictions(
        cls,
        y_true,
        y_prob,
        *,
        sample_weight=None,
        pos_label=None,
        labels=None,
        reduction="auto",
        kind="smooth",
        sigma="auto",
        n_points=201,
        n_bins=15,
        strategy="uniform",
        interval="wilson",
        n_bootstrap=100,
        confidence_level=0.95,
        random_state=None,
        name=None,
        ax=None,
        ref_line=True,
        show_counts=True,
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
        hist_kwargs=None,
        errorbar_kwargs=None,
    ):
        """Draw the reliability diagram of predicted probabilities.

        The numbers come from :func:`~skcal.metrics.smooth_reliability_curve`,
        or from :func:`~skcal.metrics.reliability_table` and
        :func:`~skcal.metrics.expected_calibration_error`, on the binary
        view chosen by ``reduction``.

        Parameters
        ----------
        %(y_true)s
        %(y_prob)s
        %(sample_weight)s
        %(pos_label)s
        %(labels)s
        %(reduction)s
        %(kind)s
        %(sigma)s
        %(n_points)s
        %(n_bins)s
        %(strategy)s
        %(interval)s
        %(n_bootstrap)s
        %(confidence_level)s
        %(random_state)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(show_counts)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s
        %(hist_kwargs)s
        %(errorbar_kwargs)s

        Returns
        -------
        display : ReliabilityDisplay
            The drawn display.
        """
        check_matplotlib("ReliabilityDisplay.from_predictions")
        options = dict(
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=labels,
            reduction=reduction,
            kind=kind,
            sigma=sigma,
            n_points=n_points,
            n_bins=n_bins,
            strategy=strategy,
            interval=interval,
            n_bootstrap=n_bootstrap,
            confidence_level=confidence_level,
            random_state=random_state,
            name=name,
        )
        validate(_OPTION_CONSTRAINTS, options, "ReliabilityDisplay.from_predictions")
        if kind == "binned" and interval == "bootstrap" and n_bootstrap == 0:
            raise ValueError(
                'interval="bootstrap" needs n_bootstrap > 0; use interval="wilson" '
                "or interval=None."
            )
        plot_options = dict(
            ref_line=ref_line,
            show_counts=show_counts,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            ref_line_kwargs=ref_line_kwargs,
            hist_kwargs=hist_kwargs,
            errorbar_kwargs=errorbar_kwargs,
        )
        validate(_PLOT_CONSTRAINTS, plot_options, "ReliabilityDisplay.from_predictions")
        display = cls._compute(y_true, y_prob, **options)
        return display.plot(ax=ax, **plot_options)

    @classmethod
    @_fill_doc
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        sample_weight=None,
        pos_label=None,
        reduction="auto",
        kind="smooth",
        sigma="auto",
        n_points=201,
        n_bins=15,
        strategy="uniform",
        interval="wilson",
        n_bootstrap=100,
        confidence_level=0.95,
        random_state=None,
        name=None,
        ax=None,
        ref_line=True,
        show_counts=True,
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
        hist_kwargs=None,
        errorbar_kwargs=None,
    ):
        """Draw the reliability diagram of a fitted classifier on data.

        ``estimator.predict_proba(X)`` gives the probabilities, whose
        columns follow ``estimator.classes_``; for a binary classifier the
        column of ``pos_label`` (by default ``classes_[1]``) is drawn. The
        rest is :meth:`from_predictions`.

        Parameters
        ----------
        %(estimator)s
        %(X)s
        %(y)s
        %(sample_weight)s
        pos_label : int, float, bool or str, default=None
            The positive class, one of ``estimator.classes_``; None means
            ``classes_[1]`` for a binary classifier. On a multiclass
            problem it selects the one-vs-rest view of that class.
        %(reduction)s
        %(kind)s
        %(sigma)s
        %(n_points)s
        %(n_bins)s
        %(strategy)s
        %(interval)s
        %(n_bootstrap)s
        %(confidence_level)s
        %(random_state)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(show_counts)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s
        %(hist_kwargs)s
        %(errorbar_kwargs)s

        Returns
        -------
        display : ReliabilityDisplay
            The drawn display.
        """
        check_matplotlib("ReliabilityDisplay.from_estimator")
        y_prob, classes = estimator_predictions(
            estimator, X, pos_label, "ReliabilityDisplay.from_estimator"
        )
        return cls.from_predictions(
            y,
            y_prob,
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=classes,
            reduction=reduction,
            kind=kind,
            sigma=sigma,
            n_points=n_points,
            n_bins=n_bins,
            strategy=strategy,
            interval=interval,
            n_bootstrap=n_bootstrap,
            confidence_level=confidence_level,
            random_state=random_state,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            ref_line=ref_line,
            show_counts=show_counts,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            ref_line_kwargs=ref_line_kwargs,
            hist_kwargs=hist_kwargs,
            errorbar_kwargs=errorbar_kwargs,
        )

    @classmethod
    @_fill_doc
    def from_cv_results(
        cls,
        cv_results,
        X=None,
        y=None,
        *,
        sample_weight=None,
        pos_label=None,
        reduction="auto",
        kind="smooth",
        sigma="auto",
        n_points=201,
        n_bins=15,
        strategy="uniform",
        interval="wilson",
        n_bootstrap=100,
        confidence_level=0.95,
        random_state=None,
        name=None,
        ax=None,
        ref_line=True,
        show_counts=True,
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
        hist_kwargs=None,
        errorbar_kwargs=None,
    ):
        """Draw one reliability diagram of pooled out-of-fold predictions.

        The test rows of every fold, predicted by the model fitted without
        them, are pooled and drawn as one curve by
        :meth:`from_predictions`; the columns of folds whose model lacks a
        class are filled with zeros.

        Parameters
        ----------
        %(cv_results)s
        %(X_cv)s
        %(y_cv)s
        %(sample_weight_cv)s
        pos_label : int, float, bool or str, default=None
            The positive class; None means the second class of a binary
            problem. On a multiclass problem it selects the one-vs-rest
            view of that class.
        %(reduction)s
        %(kind)s
        %(sigma)s
        %(n_points)s
        %(n_bins)s
        %(strategy)s
        %(interval)s
        %(n_bootstrap)s
        %(confidence_level)s
        %(random_state)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(show_counts)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s
        %(hist_kwargs)s
        %(errorbar_kwargs)s

        Returns
        -------
        display : ReliabilityDisplay
            The drawn display.
        """
        check_matplotlib("ReliabilityDisplay.from_cv_results")
        y_true, y_prob, classes, weight, default_name = pooled_cv_predictions(
            cv_results, X, y, sample_weight, "ReliabilityDisplay.from_cv_results"
        )
        return cls.from_predictions(
            y_true,
            y_prob,
            sample_weight=weight,
            pos_label=pos_label,
            labels=classes,
            reduction=reduction,
            kind=kind,
            sigma=sigma,
            n_points=n_points,
            n_bins=n_bins,
            strategy=strategy,
            interval=interval,
            n_bootstrap=n_bootstrap,
            confidence_level=confidence_level,
            random_state=random_state,
            name=default_name if name is None else name,
            ax=ax,
            ref_line=ref_line,
            show_counts=show_counts,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            ref_line_kwargs=ref_line_kwargs,
            hist_kwargs=hist_kwargs,
            errorbar_kwargs=errorbar_kwargs,
        )
