"""The calibration-sharpness diagram of Chidambaram and Ge, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

import math
from numbers import Real
from typing import Literal

import numpy as np

from skcal._param_validation import Interval, parameter_constraints, validate_params
from skcal._typing import ArrayLike, Label
from skcal.metrics import calibration_sharpness_curve, smooth_reliability_curve
from skcal.plotting._base import (
    PLOT_CONSTRAINTS,
    CalibrationDisplay,
    axes_legend,
    canonical_views,
    doc_filler,
    drawn_points,
    legend_label_once,
)
from skcal.plotting._style import merge_style_kwargs

_STYLE_CONSTRAINTS = {
    "min_effective_count": [Interval(Real, 0, None, closed="left")],
    "show_density": ["boolean"],
    "line_kwargs": [dict, None],
    "band_kwargs": [dict, None],
    "density_kwargs": [dict, None],
}

_LOSS_NAMES = {"brier": "Brier", "log": "log loss"}

# The legend entries of the band and of the density.
BAND_LABEL = "sharpness gap \u00d7 density"
DENSITY_LABEL = "density of predictions (peak = 1)"

# The keys of smooth_reliability_curve that say where the predictions are.
_SUPPORT_FIELDS = ("n_effective", "mean_prediction", "prediction_range")

# The Display's arrays and the keys of calibration_sharpness_curve they hold.
_FIELDS = {
    "grid": "grid",
    "curve": "calibration",
    "density": "density",
    "sharpness_gap": "sharpness_gap",
    "band_low": "band_low",
    "band_high": "band_high",
    "calibration_error": "calibration_error",
    "total_loss": "total_loss",
    "constant_prediction": "constant_prediction",
}

_DOC = {
    "reduction": """\
reduction : {"auto", "positive", "top_label"}, default="auto"
    The binary view drawn. ``"top_label"``: the confidence (largest
    probability) against the correctness of the argmax, as in the paper.
    ``"positive"``: the probability of ``pos_label`` against its
    indicator. ``"auto"`` is ``"positive"`` for binary problems (and when
    ``pos_label`` is given) and ``"top_label"`` otherwise.""",
    "loss": """\
loss : {"brier", "log"}, default="brier"
    The proper score whose calibration term and sharpness gap are drawn
    (see :func:`~skcal.metrics.kernel_calibration_error`).""",
    "kernel": """\
kernel : {"gaussian", "epanechnikov"}, default="gaussian"
    The smoothing kernel.""",
    "bandwidth": """\
bandwidth : float, default=0.05
    The kernel's standard deviation (Gaussian) or half-width
    (Epanechnikov), as in the paper.""",
    "n_points": """\
n_points : int, default=201
    Number of points of the uniform grid on [0, 1]; it should resolve
    the bandwidth (spacing well below ``bandwidth``).""",
    "min_effective_count": """\
min_effective_count : float, default=10
    The curve is drawn only where the effective number of predictions
    near the point is at least this (see Notes).""",
    "show_density": """\
show_density : bool, default=True
    Draw the density of the predictions, scaled to a peak of 1.""",
    "band_kwargs": """\
band_kwargs : dict, default=None
    Keywords of the sharpness band
    (:meth:`~matplotlib.axes.Axes.fill_between`), whose drawing is
    clipped to [0, 1].""",
    "density_kwargs": """\
density_kwargs : dict, default=None
    Keywords of the density (:meth:`~matplotlib.axes.Axes.fill_between`).""",
}

_fill_doc = doc_filler(_DOC)


class CalibrationSharpnessDisplay(CalibrationDisplay):
    r"""Calibration-sharpness diagram: kernel calibration curve and sharpness band.

    The diagram of Chidambaram and Ge [1]_ shows, on a uniform grid of
    predictions :math:`x \in [0, 1]`,

    - the kernel (Nadaraya-Watson) estimate :math:`\hat m(x)` of the event
      rate given the prediction, against the diagonal: calibration;
    - a band centred on :math:`\hat m(x)` of total height
      :math:`\hat p(x)\,\hat\rho(x)`, the density of the predictions
      times the pointwise sharpness gap of the proper score (the legend's
      "sharpness gap" times "density"): where, and how much, the loss is
      *not* explained by miscalibration (a wider band is worse). It is
      **not** an uncertainty band. Its drawing is clipped to [0, 1], the
      range of probabilities (the stored ``band_low`` and ``band_high``
      are not), and the legend says "clipped" when it was;
    - the density :math:`\hat p(x)` of the predictions, scaled to a peak
      of 1 (hatched);
    - the calibration term :math:`d_{\varphi,\mathrm{CAL}}` and the total
      loss :math:`d_{\phi,\mathrm{TOT}}` in the legend.

    Every drawn part has a legend entry (below the axes, when the figure
    has a layout engine as the figures the Display creates), and both axes
    span [0, 1], so that diagrams drawn side by side share their scales.

    A model calibrated by construction but useless, such as the
    mean-replacement baseline, shows as a single dot on the diagonal over a
    spike of density, with a band taller than the square (drawn clipped)
    and a large total loss. Create it with :meth:`from_estimator`,
    :meth:`from_predictions` or :meth:`from_cv_results`.

    Read more in the :ref:`User Guide <proper_scores>`.

    Parameters
    ----------
    grid : ndarray of shape (n_points,)
        The points :math:`x`, ``linspace(0, 1, n_points)``.
    curve : ndarray of shape (n_points,)
        :math:`\hat m(x)`, NaN where the kernel weight of the data is below
        1e-3 of its maximum.
    density : ndarray of shape (n_points,)
        :math:`\hat p(x)`, the kernel density of the predictions.
    sharpness_gap : ndarray of shape (n_points,)
        :math:`\hat\rho(x)`, the pointwise sharpness gap.
    band_low, band_high : ndarray of shape (n_points,)
        :math:`\max(\hat m - \hat p\hat\rho/2, 0)` and
        :math:`\hat m + \hat p\hat\rho/2`.
    calibration_error : float
        :math:`d_{\varphi,\mathrm{CAL}}`, from
        :func:`~skcal.metrics.kernel_calibration_error`.
    total_loss : float
        :math:`d_{\phi,\mathrm{TOT}}`, the mean score of the predicted
        distributions.
    n_effective, mean_prediction : ndarray of shape (n_points,), default=None
        The effective number of predictions near each point and their
        kernel-weighted mean, from
        :func:`~skcal.metrics.smooth_reliability_curve` at the Gaussian
        bandwidth of the kernel (see Notes); None draws the curve wherever
        it is defined.
    prediction_range : tuple of float, default=None
        The smallest and the largest prediction.
    loss : {"brier", "log"}, default="brier"
        The proper score.
    kernel : {"gaussian", "epanechnikov"}, default="gaussian"
        The kernel of the curve.
    bandwidth : float, default=0.05
        Its bandwidth.
    constant_prediction : float, default=None
        The prediction, when all of them lie within 1e-6 of each other (a
        constant predictor such as mean replacement); None otherwise.
    reduction : {"positive", "top_label"}, default="top_label"
        The binary view.
    name : str, default=None
        Name of the curve in the legend.
    pos_label : int, float, bool or str, default=None
        The positive class of a ``"positive"`` view, for the axis labels.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The calibration curve where it is drawn (for a constant predictor,
        a dot at its prediction).
    band_ : matplotlib PolyCollection
        The sharpness band, drawn clipped to [0, 1].
    density_ : matplotlib PolyCollection or None
        The density of the predictions.
    ref_line_ : matplotlib Line2D or None
        The diagonal.
    ax_ : matplotlib Axes
        The axes drawn on.
    axes_ : ndarray of matplotlib Axes
        The axes drawn on, as an array of one.
    figure_ : matplotlib Figure
        The figure.

    See Also
    --------
    SmoothReliabilityDisplay : The smooth reliability diagram.
    BinnedReliabilityDisplay : The binned reliability diagram.
    skcal.metrics.calibration_sharpness_curve : The numbers drawn.
    skcal.metrics.kernel_calibration_error : The calibration term and the
        sharpness gap at the predictions.
    skcal.metrics.calibration_decomposition : The decomposition of a
        proper score.

    Notes
    -----
    With kernel :math:`K` of bandwidth :math:`\sigma`, the view's
    predictions :math:`p_i`, outcomes :math:`y_i`, weights :math:`w_i` and
    per-sample scores :math:`\ell_i` of the whole predicted distribution
    (:func:`sklearn.metrics.brier_score_loss`, or log loss):

    .. math::

        \hat m(x) = \frac{\sum_i w_i K_\sigma(x - p_i) y_i}
        {\sum_i w_i K_\sigma(x - p_i)}, \qquad
        \hat p(x) = \frac{\sum_i w_i K_\sigma(x - p_i)}{\sum_i w_i},

    .. math::

        \hat\rho(x) = \hat m_\ell(x) - d_\varphi(\hat m(x), x),

    where :math:`\hat m_\ell` is the same regression of :math:`\ell_i` and
    :math:`d_\varphi` the divergence of the score (:math:`(a - b)^2` for
    Brier). These are the estimates of
    :func:`~skcal.metrics.kernel_calibration_error` (which evaluates them
    at the predictions), here on a uniform grid. The band's area
    approximates the mean sharpness gap when the predictions stay away
    from 0 and 1 (the kernel is not corrected at the boundaries). The
    estimated gap can be negative (the band then has negative height and
    is drawn as its absolute value). The curve is NaN where the kernel
    weight of the data is below 1e-3 of its maximum. With the log loss, a
    row whose predicted distribution gives its class probability 0 has an
    infinite loss, and the band is infinite wherever it has kernel weight
    (not drawn).

    *Where the curve is drawn.* As in
    :class:`SmoothReliabilityDisplay`, only between the smallest and the
    largest prediction, where at least ``min_effective_count`` predictions
    are near (each counting :math:`e^{-(x - p_i)^2 / (2 s^2)}`), starting
    and stopping where their kernel-weighted mean is within :math:`s` of
    :math:`x`, with :math:`s` the kernel's standard deviation (``n_effective``,
    ``mean_prediction`` and ``prediction_range`` of
    :func:`~skcal.metrics.smooth_reliability_curve` at bandwidth
    :math:`s`): elsewhere the curve extrapolates from a few distant
    predictions. The band is drawn where the curve is, the density
    everywhere. A constant predictor's curve is a dot at its prediction,
    and its band is drawn wherever it is defined (a spike around the
    prediction).

    References
    ----------
    .. [1] M. Chidambaram and R. Ge, "Reassessing How to Compare and Improve
       the Calibration of Machine Learning Models", arXiv:2406.04068.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import CalibrationSharpnessDisplay
    >>> rng = np.random.RandomState(0)
    >>> y_prob = rng.dirichlet([1.0, 1.0, 1.0], size=500)
    >>> y_true = np.array([rng.choice(3, p=row) for row in y_prob])
    >>> display = CalibrationSharpnessDisplay.from_predictions(y_true, y_prob)
    >>> display.grid.shape
    (201,)
    >>> defined = np.isfinite(display.curve)
    >>> bool(np.all(display.band_low[defined] <= display.band_high[defined]))
    True
    >>> display.calibration_error < display.total_loss
    True
    """

    _title = "calibration-sharpness diagram"
    _view_fields = (
        "grid",
        "curve",
        "density",
        "band_low",
        "band_high",
        "calibration_error",
        "total_loss",
        "constant_prediction",
        "n_effective",
        "mean_prediction",
        "prediction_range",
    )
    _ref_line_style = {"color": "black", "linestyle": "--", "linewidth": 1.0}

    def __init__(
        self,
        *,
        grid: np.ndarray,
        curve: np.ndarray,
        density: np.ndarray,
        sharpness_gap: np.ndarray,
        band_low: np.ndarray,
        band_high: np.ndarray,
        calibration_error: float,
        total_loss: float,
        n_effective: np.ndarray | None = None,
        mean_prediction: np.ndarray | None = None,
        prediction_range: tuple[float, float] | None = None,
        loss: Literal["brier", "log"] = "brier",
        kernel: Literal["gaussian", "epanechnikov"] = "gaussian",
        bandwidth: float = 0.05,
        constant_prediction: float | None = None,
        reduction: Literal["positive", "top_label"] = "top_label",
        name: str | None = None,
        pos_label: Label | None = None,
    ) -> None:
        self.grid = grid
        self.curve = curve
        self.density = density
        self.sharpness_gap = sharpness_gap
        self.band_low = band_low
        self.band_high = band_high
        self.calibration_error = calibration_error
        self.total_loss = total_loss
        self.n_effective = n_effective
        self.mean_prediction = mean_prediction
        self.prediction_range = prediction_range
        self.loss = loss
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.constant_prediction = constant_prediction
        self.reduction = reduction
        self.name = name
        self.pos_label = pos_label

    @validate_params(
        {**PLOT_CONSTRAINTS, **_STYLE_CONSTRAINTS}, prefer_skip_nested_validation=True
    )
    @_fill_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        ref_line=True,
        min_effective_count=10,
        show_density=True,
        line_kwargs=None,
        band_kwargs=None,
        density_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the diagram.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        %(ref_line)s
        %(min_effective_count)s
        %(show_density)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(density_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : CalibrationSharpnessDisplay
            The display, with its artists stored (``line_``, ``ax_``, ...).
        """
        styles = {
            "min_effective_count": min_effective_count,
            "show_density": show_density,
            "line": line_kwargs,
            "band": band_kwargs,
            "density": density_kwargs,
        }
        return self._draw(
            ax,
            name=name,
            ref_line=ref_line,
            ref_line_kwargs=ref_line_kwargs,
            styles=styles,
        )

    def _legend_label(self, name, view):
        text = (
            f"calibration {view['calibration_error']:.4f}, "
            f"total {view['total_loss']:.4f} "
            f"({_LOSS_NAMES.get(self.loss, self.loss)})"
        )
        if view["constant_prediction"] is not None:
            text += f"\nconstant prediction {view['constant_prediction']:.3f}"
        return text if name is None else f"{name}: {text}"

    @staticmethod
    def _band(view):
        """The band's lower and upper edges (an inverted band drawn by its extent)."""
        low = np.asarray(view["band_low"], dtype=np.float64)
        high = np.asarray(view["band_high"], dtype=np.float64)
        return np.minimum(low, high), np.maximum(low, high)

    def _draw_view(self, ax, view, name, styles):
        """The calibration curve, the sharpness band and the density."""
        grid = np.asarray(view["grid"], dtype=np.float64)
        style = merge_style_kwargs(
            {"linewidth": 1.5}, styles["line"], name="line_kwargs"
        )
        label = style.pop("label", self._legend_label(name, view))
        curve = np.asarray(view["curve"], dtype=np.float64)
        drawn = self._drawn(view, styles["min_effective_count"])
        constant = view["constant_prediction"]
        if constant is not None:
            style.setdefault("marker", "o")
            x, y = [constant], [np.interp(constant, grid, curve)]
        else:
            x, y = grid, np.where(drawn, curve, np.nan)
        line = ax.plot(x, y, label=label, zorder=3, **style)[0]
        color = line.get_color()
        band = _draw_band(ax, grid, *self._band(view), drawn, color, styles["band"])
        density = None
        if styles["show_density"]:
            density = _draw_density(ax, grid, view["density"], color, styles["density"])
        return {"line_": line, "band_": band, "density_": density}

    def _drawn(self, view, min_effective_count):
        """Where the curve and the band are drawn, a mask of the grid.

        A constant predictor's band is drawn wherever it is defined (its
        curve is a dot at the prediction).
        """
        grid = np.asarray(view["grid"], dtype=np.float64)
        curve = np.asarray(view["curve"], dtype=np.float64)
        if view["constant_prediction"] is not None:
            return np.isfinite(curve)
        return drawn_points(
            grid,
            curve,
            n_effective=view["n_effective"],
            mean_prediction=view["mean_prediction"],
            prediction_range=view["prediction_range"],
            sigma=gaussian_bandwidth(self.kernel, self.bandwidth),
            min_effective_count=min_effective_count,
        )

    def _decorate(self, ax, index, name):
        """Limits [0, 1] on both axes, labels and legend."""
        ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01))
        ax.set_aspect("equal", adjustable="box")
        if self.reduction == "top_label":
            ax.set_xlabel("Confidence")
            ax.set_ylabel("Accuracy given confidence")
        else:
            suffix = (
                "" if self.pos_label is None else f" (positive class: {self.pos_label})"
            )
            ax.set_xlabel(f"Predicted probability{suffix}")
            ax.set_ylabel("Event rate given prediction")
        axes_legend(ax)

    @classmethod
    @validate_params(
        {
            # One curve of all the rows: the reliability diagrams draw groups.
            **{
                name: constraint
                for name, constraint in parameter_constraints(
                    calibration_sharpness_curve
                ).items()
                if name != "groups"
            },
            **PLOT_CONSTRAINTS,
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
        reduction: Literal["auto", "positive", "top_label"] = "auto",
        loss: Literal["brier", "log"] = "brier",
        kernel: Literal["epanechnikov", "gaussian"] = "gaussian",
        bandwidth: float = 0.05,
        n_points: int = 201,
        min_effective_count: float = 10,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        show_density: bool = True,
        line_kwargs: dict | None = None,
        band_kwargs: dict | None = None,
        density_kwargs: dict | None = None,
        ref_line_kwargs: dict | None = None,
    ) -> CalibrationSharpnessDisplay:
        """Draw the calibration-sharpness diagram of predicted probabilities.

        Every number comes from
        :func:`~skcal.metrics.calibration_sharpness_curve`, and where the
        predictions are (``n_effective``, ``mean_prediction``,
        ``prediction_range``) from
        :func:`~skcal.metrics.smooth_reliability_curve` at the Gaussian
        bandwidth of the kernel.

        Read more in the :ref:`User Guide <proper_scores>`.

        Parameters
        ----------
        %(y_true)s
        %(y_prob)s
        %(sample_weight)s
        %(pos_label)s
        %(labels)s
        %(reduction)s
        %(loss)s
        %(kernel)s
        %(bandwidth)s
        %(n_points)s
        %(min_effective_count)s
        %(name)s
        %(ax)s
        %(ref_line)s
        %(show_density)s
        %(line_kwargs)s
        %(band_kwargs)s
        %(density_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : CalibrationSharpnessDisplay
            The drawn display.
        """
        data, reduction, (view,), _ = canonical_views(
            y_true, y_prob, sample_weight, pos_label, labels, reduction
        )
        curve = calibration_sharpness_curve(
            **view, loss=loss, kernel=kernel, bandwidth=bandwidth, n_points=n_points
        )
        support = smooth_reliability_curve(
            **view, sigma=gaussian_bandwidth(kernel, bandwidth), n_points=n_points
        )
        per_view = {field: [curve[key]] for field, key in _FIELDS.items()}
        per_view.update({key: [support[key]] for key in _SUPPORT_FIELDS})
        display = cls._from_views(
            data,
            reduction,
            per_view,
            loss=loss,
            kernel=kernel,
            bandwidth=bandwidth,
            name=name,
        )
        return display.plot(
            ax=ax,
            ref_line=ref_line,
            min_effective_count=min_effective_count,
            show_density=show_density,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            density_kwargs=density_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )


def gaussian_bandwidth(kernel, bandwidth):
    """The standard deviation of the kernel, at least 1e-4.

    The bandwidth of a Gaussian kernel, that of an Epanechnikov kernel of
    half-width ``bandwidth`` (its standard deviation is ``bandwidth /
    sqrt(5)``), floored at the smallest bandwidth of
    :func:`~skcal.metrics.smooth_reliability_curve`.
    """
    scale = bandwidth if kernel == "gaussian" else bandwidth / math.sqrt(5.0)
    return max(scale, 1e-4)


def _draw_band(ax, grid, low, high, drawn, color, band_kwargs):
    """The sharpness band where ``drawn``, its drawing clipped to [0, 1]."""
    finite = drawn & np.isfinite(low) & np.isfinite(high)
    clipped = bool(np.any(finite & ((low < 0.0) | (high > 1.0))))
    label = BAND_LABEL + (" (clipped to [0, 1])" if clipped else "")
    # One legend entry for the bands of every model on the axes, which says
    # "clipped" when any of them is.
    earlier = [c for c in ax.collections if c.get_label().startswith(BAND_LABEL)]
    if earlier:
        if clipped:
            earlier[0].set_label(label)
        label = "_nolegend_"
    band_style = merge_style_kwargs(
        {"color": color, "alpha": 0.4, "linewidth": 0.0, "label": label},
        band_kwargs,
        name="band_kwargs",
    )
    return ax.fill_between(
        grid,
        np.where(finite, np.clip(low, 0.0, 1.0), 0.0),
        np.where(finite, np.clip(high, 0.0, 1.0), 0.0),
        where=finite,
        **band_style,
    )


def _draw_density(ax, grid, density, color, density_kwargs):
    """The density of the predictions, scaled to a peak of 1."""
    density = np.asarray(density, dtype=np.float64)
    peak = np.nanmax(density) if density.size else 0.0
    scaled = density / peak if peak > 0 else np.zeros_like(density)
    style = merge_style_kwargs(
        {
            "facecolor": "none",
            "edgecolor": color,
            "hatch": "//",
            "alpha": 0.3,
            "linewidth": 0.0,
            "label": legend_label_once(ax, DENSITY_LABEL),
        },
        density_kwargs,
        name="density_kwargs",
    )
    return ax.fill_between(grid, 0.0, scaled, **style)
