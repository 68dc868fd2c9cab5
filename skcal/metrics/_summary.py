"""A mergeable calibration summary: batches in, measures out, rows never kept."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import copy
import math
from numbers import Integral, Real
from typing import Literal, NamedTuple

import numpy as np
from sklearn.utils import Bunch

from skcal._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from skcal._reduction import (
    binary_views,
    check_per_class,
    mean_or_per_class,
    resolve_reduction,
)
from skcal._typing import ArrayLike, Label
from skcal._utils._bins import resolve_n_bins
from skcal._utils._grid import CHANNELS, linear_binning
from skcal._utils._totals import cell_totals
from skcal._validation import check_calibration_inputs
from skcal.metrics._binned import _error_of_sums, table_of_sums
from skcal.metrics._decomposition import binned_terms, decomposition_result
from skcal.metrics._proper import LOSSES, full_scores
from skcal.metrics._smooth_ece import (
    _SIGMA_MIN,
    _bandwidth,
    _n_intervals,
    _ReflectedGaussianSmoother,
    smooth_curve,
)
from skcal.metrics._summary_measures import (
    bin_starts,
    bin_sums_of_cells,
    cutoff_of_cells,
    positive_total,
    residual_parts,
    smooth_error_of_cells,
    view_scalars,
)

# Divisible by every number of bins from 1 to 10 and by 12, 14, 15, 16, 18,
# 20, 24, 25, 28, 30, 32, 35, 40, 50, 60, 64, 100...: 2**6 * 3**2 * 5**2 * 7.
DEFAULT_N_CELLS = 100_800

_N_BINS = [Interval(Integral, 1, None, closed="left"), StrOptions({"cube_root"})]
_STRATEGY = [StrOptions({"uniform", "quantile"})]
_SIGMA = [StrOptions({"auto"}), Interval(Real, _SIGMA_MIN, None, closed="left")]


class _State(NamedTuple):
    """What a summary holds once it has seen rows (see :mod:`skcal._utils._totals`).

    Weight totals are in units of ``2**exponent`` of the user's weights.
    """

    classes: np.ndarray
    binary: bool
    pos_index: int | None
    reduction: str
    cells: np.ndarray
    kernel: np.ndarray | None
    scalars: np.ndarray
    full: np.ndarray
    n_samples: int
    exponent: int


def _same_classes(a, b):
    """Whether two class arrays are the same labels in the same order."""
    return a.shape == b.shape and all(x == y for x, y in zip(a, b, strict=True))


class CalibrationSummary:
    r"""Mergeable totals of predictions and outcomes, from which measures follow.

    A summary is updated with batches of ``(y_true, y_prob, sample_weight)``,
    validated as every measure validates its inputs, and keeps only totals
    whose size does not depend on the number of rows: per-cell sums on a
    grid of ``n_cells`` equal-width cells of [0, 1], the linear binning of
    the SmoothECE's grid, and a few scalars, for each binary view of the
    reduction. Two summaries of the same configuration merge into the
    summary of all their rows, so a summary can be built by shards (on a
    cluster, in a stream of files, in an evaluation loop) and asked for the
    measures at the end.

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    labels : array-like of shape (n_classes,), default=None
        The classes in the order of the columns of ``y_prob``. When None,
        the first batch fixes them as the measures would (the sorted labels
        of its ``y_true``), and later batches must agree. Pass them when a
        batch may miss a class.
    pos_label : int, float, bool, str or other hashable label, default=None
        The positive class, as for the measures.
    reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
        The binary views kept (see :ref:`multiclass`): ``"auto"`` is
        ``"positive"`` for a binary problem (or with ``pos_label``) and
        ``"top_label"`` otherwise. ``"classwise"`` keeps one view per class,
        so the memory grows with the number of classes.
    n_cells : int, default=100_800
        Cells of the grid of per-cell sums. Uniform bins must divide it (the
        default is divisible by every number of bins up to 10, and by 12,
        14, 15, 16, 20, 25, 30...); the cutoff and smooth calibration errors
        are computed on its cell boundaries and centres, within the bounds
        their methods state.
    eps : float or None, default=1e-3
        The tolerance of the SmoothECE, which sets its grid as in
        :func:`smooth_ece` (about ``128 / eps`` nodes); None keeps no such
        grid (then :meth:`smooth_ece` and :meth:`smooth_reliability_curve`
        are unavailable, and updates are faster).
    scores : bool, default=True
        Keep the sums of the Brier score and of the log loss (of the whole
        distribution and of each view), for :meth:`brier_score_loss`,
        :meth:`log_loss` and :meth:`calibration_decomposition`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes, in column order (``[negative, positive]`` for a 1-D
        ``y_prob``).
    reduction_ : str
        The resolved reduction.
    n_samples_ : int
        The number of rows seen, zero weights included.

    See Also
    --------
    expected_calibration_error, smooth_ece, cutoff_calibration_error :
        The in-memory measures, which a summary reproduces.

    Notes
    -----
    Memory: ``6 n_cells`` floats per view, plus ``3 (M + 1)`` for the
    SmoothECE grid of :math:`M` intervals (:math:`M = 128\,000` at
    ``eps=1e-3``): about 7.9 MB per view with the defaults. Merging adds
    totals (and takes the minimum and maximum of the prediction ranges), so
    the result does not depend on how the rows were split, up to the
    rounding of the sums. What each measure computes exactly, and the bound
    of each approximation, is stated in its method.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import CalibrationSummary, expected_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=1000)
    >>> y = (rng.uniform(size=1000) < p).astype(int)
    >>> first = CalibrationSummary().update(y[:600], p[:600])
    >>> second = CalibrationSummary().update(y[600:], p[600:])
    >>> summary = first.merge(second)
    >>> summary.n_samples_
    1000
    >>> bool(np.isclose(summary.expected_calibration_error(),
    ...                 expected_calibration_error(y, p), rtol=1e-12))
    True
    """

    _parameter_constraints: dict = {
        "labels": ["array-like", None],
        "pos_label": ["hashable", None],
        "reduction": [StrOptions({"auto", "positive", "top_label", "classwise"})],
        "n_cells": [Interval(Integral, 1, None, closed="left")],
        "eps": [Interval(Real, _SIGMA_MIN, 1, closed="left"), None],
        "scores": ["boolean"],
    }

    def __init__(
        self,
        *,
        labels: ArrayLike | None = None,
        pos_label: Label | None = None,
        reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
        n_cells: int = DEFAULT_N_CELLS,
        eps: float | None = 1e-3,
        scores: bool = True,
    ) -> None:
        validate_parameter_constraints(
            self._parameter_constraints,
            {
                "labels": labels,
                "pos_label": pos_label,
                "reduction": reduction,
                "n_cells": n_cells,
                "eps": eps,
                "scores": scores,
            },
            caller_name=type(self).__name__,
        )
        self.labels = labels
        self.pos_label = pos_label
        self.reduction = reduction
        self.n_cells = int(n_cells)
        self.eps = None if eps is None else float(eps)
        self.scores = bool(scores)
        self._state: _State | None = None

    def __repr__(self) -> str:
        seen = "empty" if self._state is None else f"n_samples_={self.n_samples_}"
        return (
            f"CalibrationSummary(reduction={self.reduction!r}, "
            f"n_cells={self.n_cells}, eps={self.eps}, scores={self.scores}; {seen})"
        )

    # ------------------------------------------------------------------
    # Batches and merges
    # ------------------------------------------------------------------

    def update(
        self,
        y_true: ArrayLike,
        y_prob: ArrayLike,
        sample_weight: ArrayLike | None = None,
    ) -> CalibrationSummary:
        """Add a batch of rows.

        The batch is validated as the measures validate their inputs (with
        the classes of the earlier batches). An empty batch, or one whose
        weights are all zero, adds nothing.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities, as for the measures.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        self : CalibrationSummary
            The summary, updated.
        """
        data = self._validated(y_true, y_prob, sample_weight)
        if data is not None:
            self._state = _combined(self._state, self._batch_state(data))
        return self

    def merge(self, other: CalibrationSummary) -> CalibrationSummary:
        """The summary of the rows of both summaries (neither is modified).

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        other : CalibrationSummary
            A summary of the same configuration (``labels``, ``pos_label``,
            ``reduction``, ``n_cells``, ``eps`` and ``scores``).

        Returns
        -------
        merged : CalibrationSummary
            A new summary; ``self`` and ``other`` are unchanged.
        """
        if not isinstance(other, CalibrationSummary):
            raise TypeError(
                f"Can only merge a CalibrationSummary, got {type(other).__name__}."
            )
        mine, theirs = self._configuration(), other._configuration()
        different = [k for k in mine if not _same_setting(mine[k], theirs[k])]
        if different:
            detail = "; ".join(f"{k}={mine[k]!r} and {theirs[k]!r}" for k in different)
            raise ValueError(
                f"Cannot merge summaries of different configurations: {detail}."
            )
        merged = copy.copy(self)
        merged._state = _combined(self._state, other._state)
        return merged

    def _configuration(self):
        labels = None if self.labels is None else list(np.asarray(self.labels))
        return {
            "labels": labels,
            "pos_label": self.pos_label,
            "reduction": self.reduction,
            "n_cells": self.n_cells,
            "eps": self.eps,
            "scores": self.scores,
        }

    def _validated(self, y_true, y_prob, sample_weight):
        """The batch's CalibrationData, or None when it adds nothing."""
        if _length(y_true) == 0 and _length(y_prob) == 0:
            return None
        labels, pos_label = self.labels, self.pos_label
        if self._state is not None and None not in self._state.classes.tolist():
            labels = self._state.classes
            if self._state.binary and pos_label is None:
                pos_label = labels[self._state.pos_index]
        if _all_zero(sample_weight):
            check_calibration_inputs(y_true, y_prob, None, pos_label, labels)
            return None
        return check_calibration_inputs(
            y_true, y_prob, sample_weight, pos_label, labels
        )

    def _batch_state(self, data):
        """The totals of one validated batch."""
        reduction = resolve_reduction(data, self.reduction)
        views = list(binary_views(data, reduction))
        w = data.sample_weight
        kernel = None
        if self.eps is not None:
            n_intervals = _n_intervals(self.eps)
            kernel = np.stack(
                [linear_binning(p, y, w, n_intervals, CHANNELS) for y, p in views]
            )
        scalars = np.stack([view_scalars(y, p, w, self.scores) for y, p in views])
        full = np.zeros(2)
        if self.scores and data.binary and reduction == "positive":
            full[:] = scalars[0, :2]  # the view is the whole distribution
        elif self.scores:
            full[:] = [positive_total(full_scores(data, loss), w) for loss in LOSSES]
        return _State(
            classes=data.classes,
            binary=data.binary,
            pos_index=data.pos_index,
            reduction=reduction,
            cells=np.stack([cell_totals(y, p, w, self.n_cells) for y, p in views]),
            kernel=kernel,
            scalars=scalars,
            full=full,
            n_samples=int(data.y_true.shape[0]),
            exponent=math.frexp(data.weight_scale)[1] - 1,
        )

    # ------------------------------------------------------------------
    # Measures
    # ------------------------------------------------------------------

    @property
    def classes_(self) -> np.ndarray:
        return self._seen().classes

    @property
    def reduction_(self) -> str:
        return self._seen().reduction

    @property
    def n_samples_(self) -> int:
        return self._seen().n_samples

    def _seen(self):
        if self._state is None:
            raise ValueError(
                "This CalibrationSummary has seen no row of positive weight: call "
                "update(y_true, y_prob) with some rows first."
            )
        return self._state

    def _reduce(self, values, return_per_class):
        """The mean over views, or the per-class vector (``"classwise"``)."""
        check_per_class(self._seen().reduction, return_per_class)
        return mean_or_per_class(values, return_per_class)

    def _one_view(self, what):
        """The cells, kernel and scalars of the single view of a summary."""
        state = self._seen()
        if state.cells.shape[0] != 1:
            raise ValueError(
                f"{what} describes one binary view, but this summary keeps the "
                f"{state.cells.shape[0]} classwise views: build one with "
                'reduction="top_label" or "positive" (and pos_label=...).'
            )
        return state

    def _bins(self, cells, n_bins, strategy):
        n_rows = int(cells[5].sum())
        return bin_starts(cells[0], resolve_n_bins(n_bins, n_rows), strategy)

    @validate_params(
        {
            "n_bins": _N_BINS,
            "strategy": _STRATEGY,
            "norm": [StrOptions({"l1", "l2", "max"})],
            "debias": ["boolean"],
            "return_per_class": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def binned_calibration_error(
        self,
        *,
        n_bins: int | Literal["cube_root"] = 15,
        strategy: Literal["quantile", "uniform"] = "uniform",
        norm: Literal["l1", "l2", "max"] = "l1",
        debias: bool = False,
        return_per_class: bool = False,
    ) -> float | np.ndarray:
        """The binned calibration error of :func:`binned_calibration_error`.

        Uniform bins are unions of cells (``n_bins`` must divide
        ``n_cells``): the value equals the in-memory function's up to the
        rounding of the sums. Quantile bins end at cell boundaries: each
        inner edge is the upper boundary of the cell where the cumulative
        weight reaches its level, so the share of the weight below it is
        within the largest cell's share of the in-memory edge's (the rank
        error), and the bins converge to the in-memory ones as cells shrink.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        n_bins : int or "cube_root", default=15
            Number of bins.
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width or equal-mass bins.
        norm : {"l1", "l2", "max"}, default="l1"
            How the per-bin gaps are combined.
        debias : bool, default=False
            Kumar et al.'s debiased L2 error (``norm="l2"`` only).
        return_per_class : bool, default=False
            The per-class values of a classwise summary.

        Returns
        -------
        error : float or ndarray of shape (n_classes,)
            The error over the views (the per-class values with
            ``return_per_class=True``).
        """
        if debias and norm != "l2":
            raise ValueError(
                f'debias=True is only defined for norm="l2", got norm={norm!r}.'
            )
        values = []
        for cells in self._seen().cells:
            starts, _ = self._bins(cells, n_bins, strategy)
            values.append(
                _error_of_sums(bin_sums_of_cells(cells, starts), norm, debias)
            )
        return self._reduce(values, return_per_class)

    @validate_params(
        {"n_bins": _N_BINS, "strategy": _STRATEGY, "return_per_class": ["boolean"]},
        prefer_skip_nested_validation=True,
    )
    def expected_calibration_error(
        self,
        *,
        n_bins: int | Literal["cube_root"] = 15,
        strategy: Literal["quantile", "uniform"] = "uniform",
        return_per_class: bool = False,
    ) -> float | np.ndarray:
        """The ECE: :meth:`binned_calibration_error` with ``norm="l1"``.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        n_bins : int or "cube_root", default=15
            Number of bins (uniform bins must divide ``n_cells``).
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width or equal-mass bins.
        return_per_class : bool, default=False
            The per-class values of a classwise summary.

        Returns
        -------
        ece : float or ndarray of shape (n_classes,)
            The ECE over the views (the per-class values with
            ``return_per_class=True``).
        """
        return self.binned_calibration_error(
            n_bins=n_bins, strategy=strategy, return_per_class=return_per_class
        )

    @validate_params(
        {
            "n_bins": _N_BINS,
            "strategy": _STRATEGY,
            "interval": [StrOptions({"wilson"}), None],
            "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        },
        prefer_skip_nested_validation=True,
    )
    def reliability_table(
        self,
        *,
        n_bins: int | Literal["cube_root"] = 15,
        strategy: Literal["quantile", "uniform"] = "uniform",
        interval: Literal["wilson"] | None = "wilson",
        confidence_level: float = 0.95,
    ) -> Bunch:
        """The per-bin table of :func:`reliability_table`, from the cells.

        Equal to the in-memory table with uniform bins (up to rounding);
        quantile bins as in :meth:`binned_calibration_error`. Bootstrap
        intervals need the rows: only Wilson intervals are available.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        n_bins : int or "cube_root", default=15
            Number of bins.
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width or equal-mass bins.
        interval : {"wilson"} or None, default="wilson"
            Wilson score intervals of the event rates, or none.
        confidence_level : float, default=0.95
            Level of the intervals.

        Returns
        -------
        table : :class:`~sklearn.utils.Bunch`
            As :func:`reliability_table` returns it.
        """
        state = self._one_view("A reliability table")
        cells = state.cells[0]
        starts, edges = self._bins(cells, n_bins, strategy)
        sums = bin_sums_of_cells(cells, starts)
        return table_of_sums(
            edges, sums, 2.0**state.exponent, interval, confidence_level
        )

    def _smoother(self, view):
        """The SmoothECE smoother of a view's kernel grid."""
        state = self._seen()
        if state.kernel is None:
            raise ValueError(
                "This summary keeps no SmoothECE grid (eps=None): build it with "
                "eps=1e-3 (the default) to ask for the SmoothECE."
            )
        masses = state.kernel[view]
        cells = state.cells[view]
        # The residual's grids are sized by its total, as in memory.
        residual_total = float(sum(part.sum() for part in residual_parts(cells)))
        return _ReflectedGaussianSmoother(
            masses,
            masses.shape[-1] - 1,
            float(cells[0].sum()),
            CHANNELS,
            residual_total=residual_total,
        )

    @validate_params(
        {
            "sigma": _SIGMA,
            "return_per_class": ["boolean"],
            "return_sigma": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def smooth_ece(
        self,
        *,
        sigma: Literal["auto"] | float = "auto",
        return_per_class: bool = False,
        return_sigma: bool = False,
    ) -> float | np.ndarray | tuple[float | np.ndarray, float | np.ndarray]:
        r"""The SmoothECE of :func:`smooth_ece`, from the summary's grid.

        The grid is the in-memory function's for the summary's ``eps``, and
        the residual's coarser grids are sized by the same mean absolute
        residual :math:`\bar r` (from the cells' sums), so with
        ``sigma="auto"`` the value equals ``smooth_ece(..., eps=eps)`` up to
        the rounding of the sums. At a given bandwidth :math:`\sigma`, the
        in-memory function smooths the residual on a grid of
        :math:`M_\sigma \ge 128 \sqrt{\bar r} / \sigma` intervals, and
        the summary on one of at least :math:`\min(M, 128 \sqrt{\bar r} /
        \sigma)`, :math:`M` the intervals of its grid; a result on a grid of
        :math:`G` intervals is within :math:`0.242\, \bar r / (G \sigma)^2`
        of the exact smECE (see :ref:`smooth_ece`), which bounds their
        difference.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        sigma : "auto" or float, default="auto"
            The bandwidth, or the fixed point.
        return_per_class : bool, default=False
            The per-class values of a classwise summary.
        return_sigma : bool, default=False
            Also return the bandwidth used.

        Returns
        -------
        smooth_ece : float or ndarray of shape (n_classes,)
            The SmoothECE over the views (the per-class values with
            ``return_per_class=True``).
        sigma : float or ndarray of shape (n_classes,)
            The bandwidth used; only with ``return_sigma=True``.
        """
        results = [
            _bandwidth(self._smoother(view), sigma, self.eps)
            for view in range(self._seen().cells.shape[0])
        ]
        value = self._reduce([r[1] for r in results], return_per_class)
        if not return_sigma:
            return value
        sigmas = np.array([r[0] for r in results])
        return value, (sigmas if return_per_class else float(sigmas.mean()))

    @validate_params(
        {"sigma": _SIGMA, "n_points": [Interval(Integral, 2, None, closed="left")]},
        prefer_skip_nested_validation=True,
    )
    def smooth_reliability_curve(
        self, *, sigma: Literal["auto"] | float = "auto", n_points: int = 201
    ) -> Bunch:
        """The curve of :func:`smooth_reliability_curve`, without a band.

        Computed as :meth:`smooth_ece` is, so equal to the in-memory curve
        for ``sigma="auto"`` up to rounding. A bootstrap band needs the
        rows: ``band_low``, ``band_high`` and ``smooth_ece_interval`` are
        None.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        sigma : "auto" or float, default="auto"
            The bandwidth, or the SmoothECE fixed point.
        n_points : int, default=201
            Number of equally spaced points on [0, 1].

        Returns
        -------
        curve : :class:`~sklearn.utils.Bunch`
            As :func:`smooth_reliability_curve` returns it.
        """
        state = self._one_view("A smooth reliability curve")
        cells, (_, _, p_min, p_max) = state.cells[0], state.scalars[0]
        return smooth_curve(
            self._smoother(0),
            sigma=sigma,
            eps=self.eps,
            n_points=n_points,
            n_rows=float(cells[0].sum() ** 2 / cells[4].sum()),
            prediction_range=(float(p_min), float(p_max)),
        )

    def _bounded(self, function, return_per_class, return_bound):
        pairs = np.array([function(cells) for cells in self._seen().cells])
        value = self._reduce(pairs[:, 0], return_per_class)
        if not return_bound:
            return value
        return value, self._reduce(pairs[:, 1], return_per_class)

    @validate_params(
        {"return_per_class": ["boolean"], "return_bound": ["boolean"]},
        prefer_skip_nested_validation=True,
    )
    def cutoff_calibration_error(
        self, *, return_per_class: bool = False, return_bound: bool = False
    ) -> float | np.ndarray | tuple[float | np.ndarray, float | np.ndarray]:
        r"""The cutoff calibration error over intervals that are unions of cells.

        A lower bound of :func:`cutoff_calibration_error`: with
        :math:`P_c` and :math:`N_c` the weighted sums of the positive and
        negative parts of :math:`y - p` in cell :math:`c`,

        .. math::

            0 \le \mathrm{CCE} - \mathrm{CCE}_{\mathrm{cells}}
            \le \frac{\max_c P_c + \max_c N_c}{W},

        which shrinks with the cells' mass (about :math:`2 / n_{\mathrm{cells}}`
        for predictions spread evenly, but as large as a cell's residuals when
        the predictions crowd into one cell).

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        return_per_class : bool, default=False
            The per-class values of a classwise summary.
        return_bound : bool, default=False
            Also return the bound (the mean of the per-view bounds, which
            bounds the error of the mean).

        Returns
        -------
        error : float or ndarray of shape (n_classes,)
            The error over the views (the per-class values with
            ``return_per_class=True``).
        bound : float or ndarray of shape (n_classes,)
            The bound on the distance to the in-memory value; only with
            ``return_bound=True``.
        """
        return self._bounded(cutoff_of_cells, return_per_class, return_bound)

    @validate_params(
        {"return_per_class": ["boolean"], "return_bound": ["boolean"]},
        prefer_skip_nested_validation=True,
    )
    def smooth_calibration_error(
        self, *, return_per_class: bool = False, return_bound: bool = False
    ) -> float | np.ndarray | tuple[float | np.ndarray, float | np.ndarray]:
        r"""The smooth calibration error with predictions at their cell centres.

        Equal to :func:`smooth_calibration_error` with ``method="grid"`` and
        ``n_grid=n_cells`` (up to rounding), and within

        .. math::

            \frac{1}{2 n_{\mathrm{cells}}} \frac{1}{W} \sum_i w_i |y_i - p_i|

        of the exact value.

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        return_per_class : bool, default=False
            The per-class values of a classwise summary.
        return_bound : bool, default=False
            Also return the bound on the distance to the exact value.

        Returns
        -------
        error : float or ndarray of shape (n_classes,)
            The error over the views (the per-class values with
            ``return_per_class=True``).
        bound : float or ndarray of shape (n_classes,)
            The bound on the distance to the in-memory value; only with
            ``return_bound=True``.
        """
        return self._bounded(smooth_error_of_cells, return_per_class, return_bound)

    def _scores(self):
        state = self._seen()
        if not self.scores:
            raise ValueError(
                "This summary keeps no score sums (scores=False): build it with "
                "scores=True to ask for the Brier score, the log loss or the "
                "decomposition."
            )
        return state

    def brier_score_loss(self) -> float:
        """The Brier score of the whole predicted distribution.

        As :func:`sklearn.metrics.brier_score_loss` (the positive class's
        ``(p - y)**2`` for a binary problem, the sum over classes otherwise),
        up to the rounding of the sums.

        Read more in the :ref:`User Guide <scale>`.

        Returns
        -------
        score : float
            The weighted mean score.
        """
        state = self._scores()
        return float(state.full[0] / state.cells[0, 0].sum())

    def log_loss(self) -> float:
        """The log loss of the whole predicted distribution (natural logarithm).

        As :func:`sklearn.metrics.log_loss`, except that probabilities are
        not clipped: a zero probability on an observed class gives ``inf``.

        Read more in the :ref:`User Guide <scale>`.

        Returns
        -------
        score : float
            The weighted mean score.
        """
        state = self._scores()
        return float(state.full[1] / state.cells[0, 0].sum())

    @validate_params(
        {
            "loss": [StrOptions(set(LOSSES))],
            "n_bins": [Interval(Integral, 1, None, closed="left")],
            "return_per_class": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def calibration_decomposition(
        self,
        *,
        loss: Literal["brier", "log"] = "brier",
        n_bins: int = 15,
        return_per_class: bool = False,
    ) -> Bunch:
        """The binned decomposition of each view's score.

        Equal to :func:`calibration_decomposition` with ``method="binned"``
        and the summary's reduction, up to the rounding of the sums
        (``n_bins`` must divide ``n_cells``).

        Read more in the :ref:`User Guide <scale>`.

        Parameters
        ----------
        loss : {"brier", "log"}, default="brier"
            The proper score.
        n_bins : int, default=15
            Number of equal-width bins.
        return_per_class : bool, default=False
            The per-class terms of a classwise summary.

        Returns
        -------
        decomposition : :class:`~sklearn.utils.Bunch`
            As :func:`calibration_decomposition` returns it.
        """
        state = self._scores()
        column = LOSSES.index(loss)
        per_view = []
        for cells, scalars in zip(state.cells, state.scalars, strict=True):
            starts, _ = bin_starts(cells[0], n_bins, "uniform")
            sums = bin_sums_of_cells(cells, starts)
            score = scalars[column] / cells[0].sum()
            per_view.append(binned_terms(sums.weight, sums.sum_y, score, loss))
        check_per_class(state.reduction, return_per_class)
        return decomposition_result(
            np.array(per_view), return_per_class, loss, "binned", state.reduction
        )


def _length(x):
    """The number of rows of an array-like (0 for an empty one)."""
    shape = np.shape(x)
    return shape[0] if shape else 1


def _all_zero(sample_weight):
    """Whether weights are given and all exactly zero (no NaN, no negative)."""
    if sample_weight is None:
        return False
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        return False  # validation says what is wrong
    return w.size > 0 and not np.any(w)


def _same_setting(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _joint_classes(a, b):
    """The classes of two states, or an error when they differ.

    A binary problem seen with one class of string labels has no negative
    class yet (None): the other state's fills it in.
    """
    if _same_classes(a.classes, b.classes):
        return a.classes
    if a.binary and b.binary and a.classes[1] == b.classes[1]:
        if a.classes[0] is None:
            return b.classes
        if b.classes[0] is None:
            return a.classes
    raise ValueError(
        f"Cannot combine rows of classes {a.classes.tolist()} with rows of classes "
        f"{b.classes.tolist()}: pass labels=... to fix the classes of every batch."
    )


def _rescaled(state, exponent):
    """The state with its weight totals in units of ``2**exponent`` (exact)."""
    if state.exponent == exponent:
        return state
    factor = 2.0 ** (state.exponent - exponent)
    cells = state.cells.copy()
    cells[:, :4] *= factor  # weights and weighted sums
    cells[:, 4] *= factor * factor  # squared weights; row counts stay
    scalars = state.scalars.copy()
    scalars[:, :2] *= factor  # score sums; the prediction range stays
    return state._replace(
        cells=cells,
        kernel=None if state.kernel is None else state.kernel * factor,
        scalars=scalars,
        full=state.full * factor,
        exponent=exponent,
    )


def _combined(a, b):
    """The state of the rows of two states (either may be None)."""
    if a is None or b is None:
        return b if a is None else a
    classes = _joint_classes(a, b)
    if a.reduction != b.reduction:
        raise ValueError(
            f"Cannot combine the {a.reduction!r} views of one batch with the "
            f"{b.reduction!r} views of another; set reduction=... explicitly."
        )
    exponent = max(a.exponent, b.exponent)
    a, b = _rescaled(a, exponent), _rescaled(b, exponent)
    scalars = a.scalars + b.scalars
    scalars[:, 2] = np.minimum(a.scalars[:, 2], b.scalars[:, 2])
    scalars[:, 3] = np.maximum(a.scalars[:, 3], b.scalars[:, 3])
    return a._replace(
        classes=classes,
        cells=a.cells + b.cells,
        kernel=None if a.kernel is None else a.kernel + b.kernel,
        scalars=scalars,
        full=a.full + b.full,
        n_samples=a.n_samples + b.n_samples,
    )
