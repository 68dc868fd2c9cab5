"""Histogram binning: the event rate of the bin of each prediction."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral
from typing import Any, Literal, NamedTuple

import numpy as np

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions
from skcal._typing import ArrayLike
from skcal._utils._bins import Binning, bin_sums, make_binning
from skcal._utils._scaling import normalized_weights, power_of_two_scale
from skcal.calibration._base import BinaryMapRecalibrator


class _BinnedMap(NamedTuple):
    """Bins and the probability each one predicts."""

    binning: Binning
    values: np.ndarray
    weight: np.ndarray

    def __call__(self, p):
        return self.values[self.binning.assign(p)]


def fit_bins(p, y, sample_weight, n_bins, strategy):
    """Bins of ``p`` and their event rates (the bin's midpoint when it is empty).

    The bins are those of :func:`skcal.metrics.reliability_table` for the same
    ``n_bins`` and ``strategy``: both call the one binning module.
    """
    scale = 1.0 if sample_weight is None else power_of_two_scale(sample_weight)
    sample_weight = normalized_weights(sample_weight)
    binning = make_binning(p, sample_weight, n_bins, strategy)
    sums = bin_sums(binning, y, p, sample_weight)
    midpoints = 0.5 * (binning.edges[:-1] + binning.edges[1:])
    values = np.divide(
        sums.sum_y, sums.weight, out=midpoints.copy(), where=sums.weight > 0
    )
    with np.errstate(over="ignore"):
        return _BinnedMap(binning, values, sums.weight * scale)


@fill_doc
class HistogramBinningRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with the event rate of the bin each prediction falls in.

    The probabilities are cut into bins on [0, 1], and each bin predicts the
    (weighted) mean outcome of the calibration samples in it:

    .. math::

        h(p) = \frac{\sum_{i : p_i \in B(p)} w_i y_i}{\sum_{i : p_i \in B(p)} w_i},

    with :math:`B(p)` the bin of :math:`p`. A bin without calibration samples
    predicts its midpoint. The bins are those of
    :func:`skcal.metrics.reliability_table` and the binned calibration errors
    (the same code computes them): on its own calibration set the result has
    a binned calibration error of 0 with these bins.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    n_bins : int or "cube_root", default=15
        Number of bins; ``"cube_root"`` is the smallest integer at least
        :math:`n^{1/3}` (with :math:`n` the samples of positive weight).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins with edges :math:`j / n_{\mathrm{bins}}`, or bins of
        equal (weighted) mass whose edges are quantiles of the calibration
        predictions.
    %(multiclass)s
        One-vs-rest is netcal's behaviour; top-label is the top-label
        binning of Gupta and Ramdas (2022).
        With ``"top_label"`` the classifier's predicted class (the first
        largest score) is kept, as in the top-versus-all approach of Le Coz
        et al. (2024): it gets the map's output clipped to :math:`[1/K, 1]`
        (:math:`K` classes), and the other classes share the rest in
        proportion to their probabilities, capped just below it.
    %(input)s
        Logits are binned after the logistic (binary) or softmax function.
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    bin_edges_ : list of ndarray of shape (n_bins + 1,)
        The edges of each map's bins (one map for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``).
    bin_values_ : list of ndarray of shape (n_bins,)
        The probability each bin predicts.
    bin_weights_ : list of ndarray of shape (n_bins,)
        The calibration weight (count when unweighted) of each bin.
    calibrators_ : list of callables
        The fitted maps, from probability to probability.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    IsotonicRecalibrator : Bins chosen by the data under a monotonicity
        constraint.
    skcal.metrics.reliability_table : The same bins, as a table.

    Notes
    -----
    The output takes at most ``n_bins`` values per map. It is not monotone
    in general, and one-vs-rest binning then renormalising can change the
    predicted class and give exact zeros, hence an infinite log loss
    (Chidambaram and Ge, 2024).

    References
    ----------
    .. [1] B. Zadrozny and C. Elkan, "Obtaining calibrated probability
       estimates from decision trees and naive Bayesian classifiers",
       ICML 2001.
    .. [2] C. Gupta and A. Ramdas, "Top-label calibration and multiclass-to-
       binary reductions", ICLR 2022, arXiv:2107.08353.
    .. [3] M. Chidambaram and R. Ge, "Reassessing how to compare and improve
       the calibration of machine learning models", arXiv:2406.04068.
    .. [4] A. Le Coz, S. Herbin and F. Adjed, "Confidence calibration of
       classifiers with many classes", NeurIPS 2024, arXiv:2411.02988.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import HistogramBinningRecalibrator
    >>> p = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> recal = HistogramBinningRecalibrator(n_bins=2).fit(p, y)
    >>> recal.bin_values_[0].tolist()
    [0.25, 0.75]
    >>> recal.predict_proba([0.05, 0.95])[:, 1].tolist()
    [0.25, 0.75]
    """

    _parameter_constraints: dict = {
        **BinaryMapRecalibrator._parameter_constraints,
        "n_bins": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"cube_root"}),
        ],
        "strategy": [StrOptions({"uniform", "quantile"})],
    }

    _feature = "probability"

    def __init__(
        self,
        estimator: Any = None,
        *,
        n_bins: int | Literal["cube_root"] = 15,
        strategy: Literal["quantile", "uniform"] = "uniform",
        multiclass: Literal["ovr", "top_label"] = "ovr",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_bins = n_bins
        self.strategy = strategy
        self.multiclass = multiclass
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_map(self, x, y, sample_weight):
        return fit_bins(x, y, sample_weight, self.n_bins, self.strategy)

    def _apply_map(self, fitted_map, x):
        return fitted_map(x)

    def _fit_scores(self, X, scores, y, sample_weight):
        super()._fit_scores(X, scores, y, sample_weight)
        self.bin_edges_ = [m.binning.edges for m in self.calibrators_]
        self.bin_values_ = [m.values for m in self.calibrators_]
        self.bin_weights_ = [m.weight for m in self.calibrators_]
