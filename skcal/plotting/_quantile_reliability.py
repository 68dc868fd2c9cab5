"""Observed against nominal coverage of predicted quantiles, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

import numpy as np

from skcal._param_validation import validate_params
from skcal._typing import ArrayLike
from skcal._utils._scaling import effective_size
from skcal.plotting._base import axes_legend, draw_ref_line, single_axes
from skcal.plotting._regression_base import (
    REGRESSION_PLOT_CONSTRAINTS,
    binomial_band,
    estimator_name,
    fill_regression_doc,
    legend_label,
    regressor_quantiles,
)
from skcal.plotting._style import merge_style_kwargs
from skcal.regression._coverage import coverage_error, coverage_of
from skcal.regression._validation import LEVELS_CONSTRAINT, check_quantile_inputs

_CONSTRAINTS = {
    **REGRESSION_PLOT_CONSTRAINTS,
    "sample_weight": ["array-like", None],
    "line_kwargs": [dict, None],
}


@fill_regression_doc
class QuantileReliabilityDisplay:
    """Quantile reliability diagram: observed against nominal coverage.

    For each level :math:`\\tau`, the share of outcomes at or below the
    predicted :math:`\\tau`-quantile
    (:func:`~skcal.regression.quantile_coverage`) is drawn against
    :math:`\\tau`. Calibrated
    quantiles lie on the diagonal; a curve flatter than the diagonal shows
    intervals that are too narrow (over-confident), a steeper one intervals
    that are too wide. The grey band is where the coverage of each level
    lies with probability 0.95 for calibrated quantiles (binomial, at
    Kish's effective sample size), and the legend gives
    :func:`~skcal.regression.quantile_calibration_error`.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    quantiles : ndarray of shape (n_quantiles,)
        The nominal levels.
    coverage : ndarray of shape (n_quantiles,)
        The observed coverage of each.
    band : tuple of two ndarrays or None, default=None
        The lower and upper ends of the 0.95 range of each level's coverage
        for calibrated quantiles.
    error : float or None, default=None
        The quantile calibration error shown in the legend.
    %(name)s

    Attributes
    ----------
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        Its figure.
    line_ : matplotlib Line2D
        The curve.

    See Also
    --------
    PITHistogramDisplay : The same calibration at every level, as a histogram.
    MeanReliabilityDisplay : Calibration of the predicted mean.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from skcal.plotting import QuantileReliabilityDisplay
    >>> rng = np.random.RandomState(0)
    >>> y = rng.normal(scale=2.0, size=1000)
    >>> levels = np.array([0.1, 0.5, 0.9])
    >>> too_narrow = np.tile(norm.ppf(levels), (1000, 1))
    >>> display = QuantileReliabilityDisplay.from_predictions(
    ...     y, too_narrow, quantiles=levels)
    >>> display.coverage.round(2).tolist()
    [0.28, 0.52, 0.76]
    """

    def __init__(
        self,
        *,
        quantiles: np.ndarray,
        coverage: np.ndarray,
        band: tuple[np.ndarray, np.ndarray] | None = None,
        error: float | None = None,
        name: str | None = None,
    ) -> None:
        self.quantiles = quantiles
        self.coverage = coverage
        self.band = band
        self.error = error
        self.name = name

    @fill_regression_doc
    def plot(
        self,
        ax: Axes | None = None,
        *,
        name: str | None = None,
        ref_line: bool = True,
        line_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> QuantileReliabilityDisplay:
        """Draw the diagram.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        ref_line : bool, default=True
            Draw the diagonal and the band of calibrated quantiles.
        %(line_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : QuantileReliabilityDisplay
            This Display, with ``ax_``, ``figure_`` and ``line_``.
        """
        self.ax_, self.figure_ = single_axes(ax)
        ax = self.ax_
        label = legend_label(self, name, "QCE", self.error, ".3f")
        if ref_line:
            style = merge_style_kwargs(
                {"color": "0.3", "linestyle": "--", "linewidth": 1.0},
                ref_line_kwargs,
                name="ref_line_kwargs",
            )
            drawn = draw_ref_line(ax, True, style)
            if self.band is not None and getattr(drawn, "_skcal_band", None) is None:
                drawn._skcal_band = ax.fill_between(
                    self.quantiles,
                    *self.band,
                    color="0.85",
                    zorder=0,
                    label="95% range if calibrated",
                )
        style = merge_style_kwargs(
            {"marker": "o", "markersize": 4, "label": label},
            line_kwargs,
            name="line_kwargs",
        )
        self.line_ = ax.plot(self.quantiles, self.coverage, **style)[0]
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.0)
        ax.set_aspect("equal")
        ax.set_xlabel("Nominal level of the predicted quantile")
        ax.set_ylabel("Observed share of outcomes below it")
        axes_legend(ax)
        return self

    @classmethod
    @validate_params(
        {
            **_CONSTRAINTS,
            "y_true": ["array-like"],
            "y_quantiles": ["array-like"],
            "quantiles": LEVELS_CONSTRAINT,
        },
        prefer_skip_nested_validation=True,
    )
    @fill_regression_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_quantiles: ArrayLike,
        *,
        quantiles: ArrayLike,
        sample_weight: ArrayLike | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        line_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> QuantileReliabilityDisplay:
        """Draw the diagram of predicted quantiles.

        Parameters
        ----------
        %(y_true)s
        %(y_quantiles)s
        %(quantiles)s
        %(sample_weight)s
        %(name)s
        %(ax)s
        ref_line : bool, default=True
            Draw the diagonal and the band of calibrated quantiles.
        %(line_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : QuantileReliabilityDisplay
            The drawn Display.
        """
        data = check_quantile_inputs(y_true, y_quantiles, quantiles, sample_weight)
        coverage = coverage_of(data)
        error = coverage_error(coverage, data.quantiles, "l1")
        n_effective = effective_size(data.sample_weight, data.y_true.shape[0])
        display = cls(
            quantiles=data.quantiles,
            coverage=coverage,
            band=binomial_band(data.quantiles, n_effective),
            error=error,
            name=name,
        )
        return display.plot(
            ax,
            ref_line=ref_line,
            line_kwargs=line_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )

    @classmethod
    @fill_regression_doc
    def from_estimator(
        cls,
        estimator: Any,
        X: ArrayLike,
        y: ArrayLike,
        *,
        quantiles: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        line_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> QuantileReliabilityDisplay:
        """Draw the diagram of a fitted regressor's quantiles.

        Parameters
        ----------
        estimator : fitted regressor
            A quantile model (``predict`` gives one column per level of its
            ``quantiles``), a model with ``predict_quantiles(X, quantiles)``
            (skcal's Gaussian recalibrators), or one whose
            ``predict(X, return_std=True)`` gives Gaussian predictions.
        X : array-like of shape (n_samples, n_features)
            The samples.
        %(y)s
        quantiles : array-like of shape (n_quantiles,), float or None, default=None
            The levels to draw; None takes a quantile model's own levels,
            or 0.05, 0.10, ..., 0.95.
        %(sample_weight)s
        %(name)s
        %(ax)s
        ref_line : bool, default=True
            Draw the diagonal and the band of calibrated quantiles.
        %(line_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : QuantileReliabilityDisplay
            The drawn Display.
        """
        y_quantiles, levels = regressor_quantiles(
            estimator, X, quantiles, "QuantileReliabilityDisplay"
        )
        return cls.from_predictions(
            y,
            y_quantiles,
            quantiles=levels,
            sample_weight=sample_weight,
            name=estimator_name(estimator, name),
            ax=ax,
            ref_line=ref_line,
            line_kwargs=line_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
