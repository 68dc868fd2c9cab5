"""The calibration-sharpness diagram of Chidambaram and Ge, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np

from skcal._param_validation import Interval, StrOptions
from skcal._reduction import binary_views, resolve_reduction
from skcal._validation import DATA_CONSTRAINTS, check_calibration_inputs
from skcal.metrics import kernel_calibration_error
from skcal._utils._kernel_sums import KERNELS
from skcal.metrics._proper import LOSSES
from skcal.plotting._base import (
    check_matplotlib,
    doc_filler,
    draw_ref_line,
    estimator_predictions,
    pooled_cv_predictions,
    single_axes,
    validate,
)
from skcal.plotting._compute import kernel_curve
from skcal.plotting._style import merge_style_kwargs

# Confidences spread over less than this are drawn as a constant predictor.
_CONSTANT_SPREAD = 1e-6

_OPTION_CONSTRAINTS = {
    "sample_weight": DATA_CONSTRAINTS["sample_weight"],
    "pos_label": DATA_CONSTRAINTS["pos_label"],
    "labels": DATA_CONSTRAINTS["labels"],
    "reduction": [StrOptions({"auto", "positive", "top_label"})],
    "loss": [StrOptions(set(LOSSES))],
    "kernel": [StrOptions(set(KERNELS))],
    "bandwidth": [Interval(Real, 0, None, closed="neither")],
    "n_points": [Interval(Integral, 2, None, closed="left")],
    "name": [str, None],
}

_PLOT_CONSTRAINTS = {
    "name": [str, None],
    "ref_line": ["boolean"],
    "show_density": ["boolean"],
    "line_kwargs": [dict, None],
    "band_kwargs": [dict, None],
    "density_kwargs": [dict, None],
    "ref_line_kwargs": [dict, None],
}

_LOSS_NAMES = {"brier": "Brier", "log": "log loss"}

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
    "show_density": """\
show_density : bool, default=True
    Draw the density of the predictions, scaled to a peak of 1.""",
    "band_kwargs": """\
band_kwargs : dict, default=None
    Keywords of the sharpness band
    (:meth:`~matplotlib.axes.Axes.fill_between`).""",
    "density_kwargs": """\
density_kwargs : dict, default=None
    Keywords of the density (:meth:`~matplotlib.axes.Axes.fill_between`).""",
}

_fill_doc = doc_filler(_DOC)


class CalibrationSharpnessDisplay:
    r"""Calibration-sharpness diagram: kernel calibration curve and sharpness band.

    The diagram of Chidambaram and Ge [1]_ shows, on a uniform grid of
    predictions :math:`x \in [0, 1]`,

    - the kernel (Nadaraya-Watson) estimate :math:`\hat m(x)` of the event
      rate given the prediction, against the diagonal: calibration;
    - a band centred on :math:`\hat m(x)` of total height
      :math:`\hat p(x)\,\hat\rho(x)`, the density of the predictions
      times the pointwise sharpness gap of the proper score, with its lower
      edge clipped at 0: where, and how much, the loss is *not* explained
      by miscalibration (a wider band is worse);
    - the density :math:`\hat p(x)` of the predictions, scaled to a peak
      of 1;
    - the calibration term :math:`d_{\varphi,\mathrm{CAL}}` and the total
      loss :math:`d_{\phi,\mathrm{TOT}}` in the legend.

    A calibration error alone rewards the mean-replacement baseline, which
    predicts one confidence for every sample: its curve touches the
    diagonal at that confidence and its calibration term is about 0, but
    its density is a single spike and its band explodes there, and its
    total loss is large. Create it with :meth:`from_estimator`,
    :meth:`from_predictions` or :meth:`from_cv_results`.

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
    loss : {"brier", "log"}, default="brier"
        The proper score.
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
        The calibration curve.
    band_ : matplotlib PolyCollection
        The sharpness band.
    density_ : matplotlib PolyCollection or None
        The density of the predictions.
    ref_line_ : matplotlib Line2D or None
        The diagonal.
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure.

    See Also
    --------
    ReliabilityDisplay : Smooth and binned reliability diagrams.
    skcal.metrics.kernel_calibration_error : The calibration term and the
        sharpness gap at the predictions.
    skcal.metrics.calibration_decomposition : The exact decomposition of a
        proper score.

    Notes
    -----
    With kernel :math:`K` of bandwidth :math:`\sigma`, the view's
    predictions :math:`p_i`, outcomes :math:`y_i`, weights :math:`w_i` and
    per-sample scores :math:`\ell_i` of the whole predicted distribution
    (Brier score summed over classes, or log loss):

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
    is drawn as its absolute value). The curve is NaN, and not drawn,
    where the kernel weight of the data is below 1e-3 of its maximum (an
    extrapolation from a few distant predictions): for the Gaussian kernel
    and a constant predictor, beyond 3.7 bandwidths from its single
    prediction. With the log loss, a row whose
    predicted distribution gives its class probability 0 has an infinite
    loss, and the band is infinite wherever it has kernel weight (not
    drawn).

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

    def __init__(
        self,
        *,
        grid,
        curve,
        density,
        sharpness_gap,
        band_low,
        band_high,
        calibration_error,
        total_loss,
        loss="brier",
        constant_prediction=None,
        reduction="top_label",
        name=None,
        pos_label=None,
    ):
        self.grid = grid
        self.curve = curve
        self.density = density
        self.sharpness_gap = sharpness_gap
        self.band_low = band_low
        self.band_high = band_high
        self.calibration_error = calibration_error
        self.total_loss = total_loss
        self.loss = loss
        self.constant_prediction = constant_prediction
        self.reduction = reduction
        self.name = name
        self.pos_label = pos_label

    @_fill_doc
    def plot(
        self,
        ax=None,
        *,
        name=None,
        ref_line=True,
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
        check_matplotlib("CalibrationSharpnessDisplay.plot")
        validate(
            _PLOT_CONSTRAINTS,
            {
                "name": name,
                "ref_line": ref_line,
                "show_density": show_density,
                "line_kwargs": line_kwargs,
                "band_kwargs": band_kwargs,
                "density_kwargs": density_kwargs,
                "ref_line_kwargs": ref_line_kwargs,
            },
            "CalibrationSharpnessDisplay.plot",
        )
        name = self.name if name is None else name
        ax, figure = single_axes(ax)
        grid = np.asarray(self.grid, dtype=np.float64)
        curve = np.asarray(self.curve, dtype=np.float64)
        low = np.asarray(self.band_low, dtype=np.float64)
        high = np.asarray(self.band_high, dtype=np.float64)
        # A negative estimated gap gives an inverted band: draw its extent.
        low, high = np.minimum(low, high), np.maximum(low, high)

        text = (
            f"calibration {self.calibration_error:.4f}, "
            f"total {self.total_loss:.4f} ({_LOSS_NAMES.get(self.loss, self.loss)})"
        )
        if self.constant_prediction is not None:
            text += f"\nconstant prediction {self.constant_prediction:.3f}"
        label = text if name is None else f"{name}\n{text}"
        style = merge_style_kwargs({"linewidth": 1.5}, line_kwargs, name="line_kwargs")
        label = style.pop("label", label)
        line = ax.plot(grid, curve, label=label, zorder=3, **style)[0]
        color = line.get_color()

        band_style = merge_style_kwargs(
            {"color": color, "alpha": 0.4, "linewidth": 0.0},
            band_kwargs,
            name="band_kwargs",
        )
        finite = np.isfinite(low) & np.isfinite(high)
        band = ax.fill_between(
            grid,
            np.where(finite, low, 0.0),
            np.where(finite, high, 0.0),
            where=finite,
            **band_style,
        )

        density_artist = None
        if show_density:
            density = np.asarray(self.density, dtype=np.float64)
            peak = np.nanmax(density) if density.size else 0.0
            scaled = density / peak if peak > 0 else np.zeros_like(density)
            density_style = merge_style_kwargs(
                {
                    "facecolor": "none",
                    "edgecolor": color,
                    "hatch": "//",
                    "alpha": 0.3,
                    "linewidth": 0.0,
                },
                density_kwargs,
                name="density_kwargs",
            )
            density_artist = ax.fill_between(grid, 0.0, scaled, **density_style)

        ref_style = merge_style_kwargs(
            {"color": "black", "linestyle": "--", "linewidth": 1.0},
            ref_line_kwargs,
            name="ref_line_kwargs",
        )
        ref = draw_ref_line(ax, ref_line, ref_style)

        top = max(1.0, ax.get_ylim()[1])
        if finite.any():
            top = max(top, float(np.max(high[finite])) * 1.02)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, top)
        if self.reduction == "top_label":
            ax.set_xlabel("Confidence")
            ax.set_ylabel("Accuracy given confidence")
        else:
            suffix = (
                "" if self.pos_label is None else f" (positive class: {self.pos_label})"
            )
            ax.set_xlabel(f"Predicted probability{suffix}")
            ax.set_ylabel(f"Event rate given prediction{suffix}")
        ax.legend(loc="upper left", fontsize="small")
        self.line_ = line
        self.band_ = band
        self.density_ = density_artist
        self.ref_line_ = ref
        self.ax_ = ax
        self.figure_ = figure
        return self

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
        loss,
        kernel,
        bandwidth,
        n_points,
        name,
    ):
        data = check_calibration_inputs(
            y_true, y_prob, sample_weight, pos_label, labels
        )
        reduction = resolve_reduction(data, reduction)
        result = kernel_calibration_error(
            y_true,
            y_prob,
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=labels,
            loss=loss,
            kernel=kernel,
            bandwidth=bandwidth,
            reduction=reduction,
            return_sharpness=True,
        )
        ((y, p),) = binary_views(data, reduction)
        curve = kernel_curve(
            data,
            (y, p),
            loss=loss,
            kernel=kernel,
            bandwidth=bandwidth,
            n_points=n_points,
        )
        w = data.sample_weight
        used = p if w is None else p[w > 0]
        constant = None
        if used.max() - used.min() < _CONSTANT_SPREAD:
            constant = float(np.mean(used))
        if reduction == "positive":
            pos_label = data.classes[data.pos_index]
            pos_label = pos_label.item() if hasattr(pos_label, "item") else pos_label
        return cls(
            grid=curve.grid,
            curve=curve.calibration,
            density=curve.density,
            sharpness_gap=curve.sharpness_gap,
            band_low=curve.band_low,
            band_high=curve.band_high,
            calibration_error=result.calibration_error,
            total_loss=result.total_loss,
            loss=loss,
            constant_prediction=constant,
            reduction=reduction,
            name=name,
            pos_label=pos_label,
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
        loss="brier",
        kernel="gaussian",
        bandwidth=0.05,
        n_points=201,
        name=None,
        ax=None,
        ref_line=True,
        show_density=True,
        line_kwargs=None,
        band_kwargs=None,
        density_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the calibration-sharpness diagram of predicted probabilities.

        The calibration term and total loss come from
        :func:`~skcal.metrics.kernel_calibration_error` with
        ``return_sharpness=True``; the curves are its estimates on a grid.

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
        check_matplotlib("CalibrationSharpnessDisplay.from_predictions")
        options = dict(
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=labels,
            reduction=reduction,
            loss=loss,
            kernel=kernel,
            bandwidth=bandwidth,
            n_points=n_points,
            name=name,
        )
        validate(
            _OPTION_CONSTRAINTS, options, "CalibrationSharpnessDisplay.from_predictions"
        )
        plot_options = dict(
            ref_line=ref_line,
            show_density=show_density,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            density_kwargs=density_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
        validate(
            _PLOT_CONSTRAINTS,
            plot_options,
            "CalibrationSharpnessDisplay.from_predictions",
        )
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
        loss="brier",
        kernel="gaussian",
        bandwidth=0.05,
        n_points=201,
        name=None,
        ax=None,
        ref_line=True,
        show_density=True,
        line_kwargs=None,
        band_kwargs=None,
        density_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the calibration-sharpness diagram of a fitted classifier.

        ``estimator.predict_proba(X)`` gives the probabilities, whose
        columns follow ``estimator.classes_``; the rest is
        :meth:`from_predictions`.

        Parameters
        ----------
        %(estimator)s
        %(X)s
        %(y)s
        %(sample_weight)s
        pos_label : int, float, bool or str, default=None
            The positive class, one of ``estimator.classes_``; None means
            ``classes_[1]`` for a binary classifier.
        %(reduction)s
        %(loss)s
        %(kernel)s
        %(bandwidth)s
        %(n_points)s
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
        check_matplotlib("CalibrationSharpnessDisplay.from_estimator")
        y_prob, classes = estimator_predictions(
            estimator, X, pos_label, "CalibrationSharpnessDisplay.from_estimator"
        )
        return cls.from_predictions(
            y,
            y_prob,
            sample_weight=sample_weight,
            pos_label=pos_label,
            labels=classes,
            reduction=reduction,
            loss=loss,
            kernel=kernel,
            bandwidth=bandwidth,
            n_points=n_points,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            ref_line=ref_line,
            show_density=show_density,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            density_kwargs=density_kwargs,
            ref_line_kwargs=ref_line_kwargs,
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
        loss="brier",
        kernel="gaussian",
        bandwidth=0.05,
        n_points=201,
        name=None,
        ax=None,
        ref_line=True,
        show_density=True,
        line_kwargs=None,
        band_kwargs=None,
        density_kwargs=None,
        ref_line_kwargs=None,
    ):
        """Draw the calibration-sharpness diagram of pooled out-of-fold predictions.

        The test rows of every fold, predicted by the model fitted without
        them, are pooled and drawn by :meth:`from_predictions`.

        Parameters
        ----------
        %(cv_results)s
        %(X_cv)s
        %(y_cv)s
        %(sample_weight_cv)s
        pos_label : int, float, bool or str, default=None
            The positive class; None means the second class of a binary
            problem.
        %(reduction)s
        %(loss)s
        %(kernel)s
        %(bandwidth)s
        %(n_points)s
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
        check_matplotlib("CalibrationSharpnessDisplay.from_cv_results")
        y_true, y_prob, classes, weight, default_name = pooled_cv_predictions(
            cv_results,
            X,
            y,
            sample_weight,
            "CalibrationSharpnessDisplay.from_cv_results",
        )
        return cls.from_predictions(
            y_true,
            y_prob,
            sample_weight=weight,
            pos_label=pos_label,
            labels=classes,
            reduction=reduction,
            loss=loss,
            kernel=kernel,
            bandwidth=bandwidth,
            n_points=n_points,
            name=default_name if name is None else name,
            ax=ax,
            ref_line=ref_line,
            show_density=show_density,
            line_kwargs=line_kwargs,
            band_kwargs=band_kwargs,
            density_kwargs=density_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
