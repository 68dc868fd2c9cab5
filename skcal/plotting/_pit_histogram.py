"""The histogram of the probability integral transform, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

import numpy as np

from skcal._param_validation import Interval, validate_params
from skcal._typing import ArrayLike
from skcal._utils._scaling import effective_size
from skcal.plotting._base import axes_legend, single_axes
from skcal.plotting._regression_base import (
    REGRESSION_PLOT_CONSTRAINTS,
    binomial_band,
    estimator_name,
    fill_regression_doc,
    legend_label,
    regressor_gaussian,
)
from skcal.plotting._style import merge_style_kwargs
from skcal.regression._pit import pit_of, uniform_distance
from skcal.regression._validation import check_gaussian_inputs

_CONSTRAINTS = {
    **REGRESSION_PLOT_CONSTRAINTS,
    "sample_weight": ["array-like", None],
    "n_bins": [Interval(Integral, 1, None, closed="left")],
    "hist_kwargs": [dict, None],
}


_UNIFORM_LABEL = "Uniform (calibrated)"


@fill_regression_doc
class PITHistogramDisplay:
    """Histogram of the probability integral transform (PIT) of predictions.

    The PIT of an outcome is the predictive distribution function at it
    (:func:`~skcal.regression.pit_values`); for calibrated predictions it
    is uniform, so the histogram, scaled as a density, is flat at 1. A
    U shape shows over-confident (too narrow) predictions, a hump
    under-confident ones, a slope a biased mean. The grey band is where a
    bin's density lies with probability 0.95 when the PIT is uniform
    (binomial, at Kish's effective sample size), and the legend gives
    :func:`~skcal.regression.pit_calibration_error`.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    bin_edges : ndarray of shape (n_bins + 1,)
        The edges of the bins, from 0 to 1.
    density : ndarray of shape (n_bins,)
        The (weighted) share of PIT values in each bin times the number of
        bins.
    band : tuple of two floats or None, default=None
        The densities between which a bin lies with probability 0.95 under
        uniformity.
    error : float or None, default=None
        The PIT calibration error shown in the legend.
    %(name)s

    Attributes
    ----------
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        Its figure.
    stairs_ : matplotlib StepPatch
        The histogram.

    See Also
    --------
    QuantileReliabilityDisplay : Coverage of predicted quantiles.
    skcal.regression.pit_uniformity_test : A test of the flatness.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import PITHistogramDisplay
    >>> rng = np.random.RandomState(0)
    >>> y = rng.normal(size=1000)
    >>> display = PITHistogramDisplay.from_predictions(
    ...     y, np.zeros(1000), np.full(1000, 0.5), name="too narrow")
    >>> display.density.round(1).tolist()
    [2.8, 0.7, 0.7, 0.5, 0.6, 0.5, 0.5, 0.7, 0.6, 2.4]
    """

    def __init__(
        self,
        *,
        bin_edges: np.ndarray,
        density: np.ndarray,
        band: tuple[float, float] | None = None,
        error: float | None = None,
        name: str | None = None,
    ) -> None:
        self.bin_edges = bin_edges
        self.density = density
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
        hist_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> PITHistogramDisplay:
        """Draw the histogram.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        ref_line : bool, default=True
            Draw the uniform density (1) and its band.
        hist_kwargs : dict or None, default=None
            Keywords of :meth:`~matplotlib.axes.Axes.stairs`.
        %(ref_line_kwargs)s

        Returns
        -------
        display : PITHistogramDisplay
            This Display, with ``ax_``, ``figure_`` and ``stairs_``.
        """
        self.ax_, self.figure_ = single_axes(ax)
        ax = self.ax_
        label = legend_label(self, name, "PIT error", self.error, ".3f")
        style = merge_style_kwargs(
            {"linewidth": 1.8, "label": label}, hist_kwargs, name="hist_kwargs"
        )
        self.stairs_ = ax.stairs(self.density, self.bin_edges, **style)
        drawn = any(line.get_label() == _UNIFORM_LABEL for line in ax.get_lines())
        if ref_line and not drawn:
            line = merge_style_kwargs(
                {"color": "0.3", "linestyle": "--", "linewidth": 1.0},
                ref_line_kwargs,
                name="ref_line_kwargs",
            )
            ax.axhline(1.0, label=_UNIFORM_LABEL, **line)
            if self.band is not None:
                ax.axhspan(
                    *self.band, color="0.85", zorder=0, label="95% range if uniform"
                )
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(bottom=0.0)
        ax.set_xlabel("PIT value (predictive CDF at the outcome)")
        ax.set_ylabel("Density")
        axes_legend(ax)
        return self

    @classmethod
    @validate_params(
        {
            **_CONSTRAINTS,
            "y_true": ["array-like"],
            "y_mean": ["array-like"],
            "y_std": ["array-like"],
        },
        prefer_skip_nested_validation=True,
    )
    @fill_regression_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_mean: ArrayLike,
        y_std: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        n_bins: int = 10,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        hist_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> PITHistogramDisplay:
        """Draw the PIT histogram of Gaussian predictions.

        Parameters
        ----------
        %(y_true)s
        %(y_mean)s
        %(y_std)s
        %(sample_weight)s
        n_bins : int, default=10
            The number of equal-width bins on [0, 1].
        %(name)s
        %(ax)s
        ref_line : bool, default=True
            Draw the uniform density and its band.
        hist_kwargs : dict or None, default=None
            Keywords of :meth:`~matplotlib.axes.Axes.stairs`.
        %(ref_line_kwargs)s

        Returns
        -------
        display : PITHistogramDisplay
            The drawn Display.
        """
        data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
        pit = pit_of(data)
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        counts, _ = np.histogram(pit, bins=edges, weights=data.sample_weight)
        density = counts / counts.sum() * n_bins
        n_effective = effective_size(data.sample_weight, pit.shape[0])
        low, high = binomial_band(1.0 / n_bins, n_effective)
        error = uniform_distance(pit, data.sample_weight, "l1")
        display = cls(
            bin_edges=edges,
            density=density,
            band=(low * n_bins, high * n_bins),
            error=error,
            name=name,
        )
        return display.plot(
            ax,
            ref_line=ref_line,
            hist_kwargs=hist_kwargs,
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
        sample_weight: ArrayLike | None = None,
        n_bins: int = 10,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        hist_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> PITHistogramDisplay:
        """Draw the PIT histogram of a fitted regressor's Gaussian predictions.

        Parameters
        ----------
        estimator : fitted regressor
            Its ``predict(X, return_std=True)`` gives means and standard
            deviations.
        X : array-like of shape (n_samples, n_features)
            The samples.
        %(y)s
        %(sample_weight)s
        n_bins : int, default=10
            The number of equal-width bins on [0, 1].
        %(name)s
        %(ax)s
        ref_line : bool, default=True
            Draw the uniform density and its band.
        hist_kwargs : dict or None, default=None
            Keywords of :meth:`~matplotlib.axes.Axes.stairs`.
        %(ref_line_kwargs)s

        Returns
        -------
        display : PITHistogramDisplay
            The drawn Display.
        """
        mean, std = regressor_gaussian(estimator, X, "PITHistogramDisplay")
        return cls.from_predictions(
            y,
            mean,
            std,
            sample_weight=sample_weight,
            n_bins=n_bins,
            name=estimator_name(estimator, name),
            ax=ax,
            ref_line=ref_line,
            hist_kwargs=hist_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
