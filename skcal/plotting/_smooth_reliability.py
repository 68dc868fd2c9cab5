"""The smooth reliability diagram (Blasiok and Nakkiran), as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils import check_random_state

from skcal._param_validation import (
    parameter_constraints,
    validate_params,
)
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
)
from skcal.plotting._style import merge_style_kwargs

# Width in points of the curve where the density is largest, and the
# thinnest it gets where there is (almost) no data.
_MAX_WIDTH = 4.0
_MIN_WIDTH = 0.5

_STYLE_CONSTRAINTS = {"line_kwargs": [dict, None], "band_kwargs": [dict, None]}

# The Display's arrays and the keys of smooth_reliability_curve they hold.
_FIELDS = {
    "grid": "grid",
    "curve": "calibration",
    "density": "density",
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
    Level of the band and of the interval.""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seeds the bootstrap. Pass an int for reproducible output across
    multiple function calls.""",
    "line_kwargs": """\
line_kwargs : dict, default=None
    Keywords of the curve (matplotlib aliases such as ``c``, ``lw`` and
    ``ls`` are accepted), e.g. ``{"color": "C3"}``; ``linewidth`` is the
    width where the density is largest.""",
    "band_kwargs": """\
band_kwargs : dict, default=None
    Keywords of the bootstrap band
    (:meth:`~matplotlib.axes.Axes.fill_between`).""",
}

_fill_doc = doc_filler({**RELIABILITY_DOC, **_DOC})


def _fmt(value):
    return f"{value:.3f}"


class SmoothReliabilityDisplay(ReliabilityDiagram):
    r"""Smooth reliability diagram: kernel regression of the outcomes.

    The diagram of Blasiok and Nakkiran (2024): the Nadaraya-Watson
    regression :math:`\hat y(t)` of the outcomes on the predictions, with
    the reflected Gaussian kernel at the SmoothECE bandwidth
    :math:`\sigma^*`, drawn with a width proportional to the density
    :math:`\hat\delta(t)` of the predictions, with a shaded bootstrap band
    and the SmoothECE and its bootstrap interval in the legend. A calibrated
    model's curve follows the diagonal where its predictions are.

    Every number comes from :func:`~skcal.metrics.smooth_reliability_curve`.
    Create it with :meth:`from_estimator`, :meth:`from_predictions` or
    :meth:`from_cv_results`; the constructor only stores the arrays. For
    ``reduction="classwise"`` every array attribute is a list with one
    entry per class, in the order of ``classes``.

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
    band_low, band_high : ndarray of shape (n_points,), default=None
        The pointwise percentile band of the bootstrap curves, or None.
    smooth_ece_interval : tuple of float, default=None
        The confidence interval of the population SmoothECE (see
        :func:`~skcal.metrics.confidence_interval`), or None.
    reduction : {"positive", "top_label", "classwise"}, default="positive"
        The binary view the arrays describe.
    classes : ndarray of shape (n_classes,), default=None
        For ``reduction="classwise"``, the class of each view.
    name : str, default=None
        Name of the curve in the legend.
    pos_label : int, float, bool or str, default=None
        The positive class of a ``"positive"`` view, for the axis labels.

    Attributes
    ----------
    line_ : matplotlib LineCollection or list
        The curve, whose widths follow the density.
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
    >>> display.curve.shape
    (201,)
    >>> bool(np.all(display.band_low[50:150] <= display.curve[50:150]))
    True
    """

    _title = "smooth reliability diagram"
    _view_fields = (
        "grid",
        "curve",
        "density",
        "sigma",
        "smooth_ece",
        "band_low",
        "band_high",
        "smooth_ece_interval",
    )

    def __init__(
        self,
        *,
        grid,
        curve,
        density,
        sigma,
        smooth_ece,
        band_low=None,
        band_high=None,
        smooth_ece_interval=None,
        reduction="positive",
        classes=None,
        name=None,
        pos_label=None,
    ):
        self.grid = grid
        self.curve = curve
        self.density = density
        self.sigma = sigma
        self.smooth_ece = smooth_ece
        self.band_low = band_low
        self.band_high = band_high
        self.smooth_ece_interval = smooth_ece_interval
        self.reduction = reduction
        self.classes = classes
        self.name = name
        self.pos_label = pos_label

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
        %(line_kwargs)s
        %(band_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : SmoothReliabilityDisplay
            The display, with its artists stored (``line_``, ``ax_``, ...).
        """
        styles = {"line": line_kwargs, "band": band_kwargs}
        return self._draw(
            ax,
            name=name,
            ref_line=ref_line,
            ref_line_kwargs=ref_line_kwargs,
            styles=styles,
        )

    def _measure_text(self, view):
        """SmoothECE and its interval, for the legend."""
        text = f"SmoothECE = {_fmt(view['smooth_ece'])}"
        interval = view["smooth_ece_interval"]
        if interval is not None and np.all(np.isfinite(interval)):
            text += f" [{_fmt(interval[0])}, {_fmt(interval[1])}]"
        return text

    def _draw_view(self, ax, view, name, styles):
        """The curve, its width following the density, and the band."""
        from matplotlib.collections import LineCollection

        style = merge_style_kwargs(
            {"linewidth": _MAX_WIDTH}, styles["line"], name="line_kwargs"
        )
        max_width = style.pop("linewidth")
        label = style.pop("label", self._legend_label(name, self._measure_text(view)))
        # The legend shows an empty line of the same style: a LineCollection's
        # legend entry would take the width of its first segment.
        proxy_style = {
            k: v for k, v in style.items() if k in ("color", "alpha", "linestyle")
        }
        proxy = ax.plot([], [], label=label, linewidth=2.0, **proxy_style)[0]
        style["color"] = proxy.get_color()
        grid, curve = np.asarray(view["grid"]), np.asarray(view["curve"])
        density = np.asarray(view["density"])
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
            low, high = np.asarray(view["band_low"]), np.asarray(view["band_high"])
            finite = np.isfinite(low) & np.isfinite(high)
            band_style = merge_style_kwargs(
                {"color": style["color"], "alpha": 0.25, "linewidth": 0.0},
                styles["band"],
                name="band_kwargs",
            )
            band = ax.fill_between(
                grid,
                np.where(finite, low, 0.0),
                np.where(finite, high, 0.0),
                where=finite,
                **band_style,
            )
        return {"line_": line, "band_": band}

    @classmethod
    @validate_params(
        {
            **parameter_constraints(smooth_reliability_curve),
            **PLOT_CONSTRAINTS,
            **RELIABILITY_CONSTRAINTS,
            **_STYLE_CONSTRAINTS,
        },
        prefer_skip_nested_validation=True,
    )
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
        sigma="auto",
        eps=1e-3,
        n_points=201,
        n_bootstrap=N_BOOTSTRAP,
        confidence_level=0.95,
        random_state=None,
        verbose="auto",
        name=None,
        ax=None,
        ref_line=True,
        line_kwargs=None,
        band_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the smooth reliability diagram of predicted probabilities.

        The numbers of each view come from
        :func:`~skcal.metrics.smooth_reliability_curve`.

        Parameters
        ----------
        %(y_true)s
        %(y_prob)s
        %(sample_weight)s
        %(pos_label)s
        %(labels)s
        %(reduction)s
        %(sigma)s
        eps : float, default=1e-3
            Tolerance of the SmoothECE fixed-point search, in [1e-4, 1).
        %(n_points)s
        %(n_bootstrap)s
        %(confidence_level)s
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
        display : SmoothReliabilityDisplay
            The drawn display.
        """
        data, reduction, views = canonical_views(
            y_true, y_prob, sample_weight, pos_label, labels, reduction
        )
        rng = check_random_state(random_state)
        curves = [
            smooth_reliability_curve(
                **view,
                sigma=sigma,
                eps=eps,
                n_points=n_points,
                n_bootstrap=n_bootstrap,
                confidence_level=confidence_level,
                random_state=rng,
                verbose=verbose,
            )
            for view in views
        ]
        per_view = {field: [c[key] for c in curves] for field, key in _FIELDS.items()}
        display = cls._from_views(data, reduction, per_view, name=name)
        return display.plot(
            ax=ax,
            ref_line=ref_line,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
