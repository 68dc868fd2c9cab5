"""The isotonic (CORP) reliability diagram of a predicted mean, as a Display."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is imported only when a Display draws
    from matplotlib.axes import Axes

import numpy as np

from skcal._param_validation import validate_params
from skcal._typing import ArrayLike
from skcal.plotting._base import axes_legend, single_axes
from skcal.plotting._regression_base import (
    REGRESSION_PLOT_CONSTRAINTS,
    estimator_name,
    fill_regression_doc,
    legend_label,
)
from skcal.plotting._style import merge_style_kwargs
from skcal.regression._base import check_fitted_regressor
from skcal.regression._mean import curve_of, decomposition_of, mean_view

_CONSTRAINTS = {
    **REGRESSION_PLOT_CONSTRAINTS,
    "sample_weight": ["array-like", None],
    "line_kwargs": [dict, None],
}

_DIAGONAL_LABEL = "Calibrated mean"


@fill_regression_doc
class MeanReliabilityDisplay:
    """Reliability diagram of predicted means: isotonic recalibration (CORP).

    The isotonic regression of the outcomes on the predicted means
    (:func:`~skcal.regression.mean_reliability_curve`) is drawn against the
    predictions, with the diagonal of calibrated means. Where the curve is
    below the diagonal the model predicts too high, above it too low. The
    legend gives the miscalibration term of
    :func:`~skcal.regression.mean_calibration_decomposition` (MCB, in
    squared units of the target), and a rug on the x axis shows where the
    predictions lie.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    predicted : ndarray of shape (n_points,)
        The distinct predicted means, increasing.
    recalibrated : ndarray of shape (n_points,)
        The isotonic fit of the outcomes at each.
    miscalibration : float or None, default=None
        The MCB term shown in the legend.
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
    QuantileReliabilityDisplay : Calibration of predicted quantiles.
    skcal.plotting.SmoothReliabilityDisplay : The classifiers' diagram.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skcal.plotting import MeanReliabilityDisplay
    >>> rng = np.random.RandomState(0)
    >>> x = rng.uniform(size=500)
    >>> y = 2 * x + rng.normal(scale=0.1, size=500)  # the model predicts x
    >>> display = MeanReliabilityDisplay.from_predictions(y, x)
    >>> round(display.miscalibration, 2)
    0.32
    """

    def __init__(
        self,
        *,
        predicted: np.ndarray,
        recalibrated: np.ndarray,
        miscalibration: float | None = None,
        name: str | None = None,
    ) -> None:
        self.predicted = predicted
        self.recalibrated = recalibrated
        self.miscalibration = miscalibration
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
    ) -> MeanReliabilityDisplay:
        """Draw the diagram.

        Parameters
        ----------
        %(ax)s
        %(name_plot)s
        ref_line : bool, default=True
            Draw the diagonal over the range of the data.
        %(line_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : MeanReliabilityDisplay
            This Display, with ``ax_``, ``figure_`` and ``line_``.
        """
        self.ax_, self.figure_ = single_axes(ax)
        ax = self.ax_
        label = legend_label(self, name, "MCB", self.miscalibration, ".3g")
        style = merge_style_kwargs(
            {"linewidth": 1.8, "label": label}, line_kwargs, name="line_kwargs"
        )
        self.line_ = ax.plot(self.predicted, self.recalibrated, **style)[0]
        ax.plot(
            self.predicted,
            np.zeros_like(self.predicted),
            "|",
            color=self.line_.get_color(),
            alpha=0.3,
            transform=ax.get_xaxis_transform(),
            markersize=8,
        )
        if ref_line:
            self._diagonal(ax, ref_line_kwargs)
        ax.set_xlabel("Predicted mean")
        ax.set_ylabel("Recalibrated mean (isotonic fit of the outcomes)")
        axes_legend(ax)
        return self

    def _diagonal(self, ax, ref_line_kwargs):
        """The diagonal over the range of every curve on the axes."""
        low = min(self.predicted.min(), self.recalibrated.min())
        high = max(self.predicted.max(), self.recalibrated.max())
        for line in ax.get_lines():
            if line.get_label() == _DIAGONAL_LABEL:
                (old_low, old_high) = line.get_xdata()
                low, high = min(low, old_low), max(high, old_high)
                line.set_data([low, high], [low, high])
                return
        style = merge_style_kwargs(
            {
                "color": "0.3",
                "linestyle": "--",
                "linewidth": 1.0,
                "label": _DIAGONAL_LABEL,
            },
            ref_line_kwargs,
            name="ref_line_kwargs",
        )
        ax.plot([low, high], [low, high], **style)

    @classmethod
    @validate_params(
        {**_CONSTRAINTS, "y_true": ["array-like"], "y_pred": ["array-like"]},
        prefer_skip_nested_validation=True,
    )
    @fill_regression_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_pred: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        line_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> MeanReliabilityDisplay:
        """Draw the diagram of predicted means.

        Parameters
        ----------
        %(y_true)s
        y_pred : array-like of shape (n_samples,)
            The predicted means.
        %(sample_weight)s
        %(name)s
        %(ax)s
        ref_line : bool, default=True
            Draw the diagonal.
        %(line_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : MeanReliabilityDisplay
            The drawn Display.
        """
        view = mean_view(y_true, y_pred, sample_weight)  # validated and sorted once
        predicted, recalibrated = curve_of(view)
        terms = decomposition_of(view)
        display = cls(
            predicted=predicted,
            recalibrated=recalibrated,
            miscalibration=terms.miscalibration,
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
        sample_weight: ArrayLike | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        ref_line: bool = True,
        line_kwargs: dict[str, Any] | None = None,
        ref_line_kwargs: dict[str, Any] | None = None,
    ) -> MeanReliabilityDisplay:
        """Draw the diagram of a fitted regressor's ``predict``.

        Parameters
        ----------
        estimator : fitted regressor
            Its ``predict(X)`` gives the predicted means.
        X : array-like of shape (n_samples, n_features)
            The samples.
        %(y)s
        %(sample_weight)s
        %(name)s
        %(ax)s
        ref_line : bool, default=True
            Draw the diagonal.
        %(line_kwargs)s
        %(ref_line_kwargs)s

        Returns
        -------
        display : MeanReliabilityDisplay
            The drawn Display.
        """
        check_fitted_regressor(estimator, "MeanReliabilityDisplay")
        return cls.from_predictions(
            y,
            estimator.predict(X),
            sample_weight=sample_weight,
            name=estimator_name(estimator, name),
            ax=ax,
            ref_line=ref_line,
            line_kwargs=line_kwargs,
            ref_line_kwargs=ref_line_kwargs,
        )
