"""Isotonic recalibration (Zadrozny and Elkan, 2002)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from typing import Any, Literal, NamedTuple

import numpy as np
from sklearn.isotonic import IsotonicRegression

from skcal._docstrings import fill_doc
from skcal._param_validation import StrOptions
from skcal._typing import ArrayLike
from skcal._utils._scaling import normalized_weights, power_of_two_scale
from skcal.calibration._base import BinaryMapRecalibrator


class _ScaledIsotonic(NamedTuple):
    """A fitted isotonic regression of the scores divided by ``scale``."""

    regression: IsotonicRegression
    scale: float


@fill_doc
class IsotonicRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with the isotonic regression of the outcome on the score.

    The map :math:`h` is the non-decreasing function that minimises the
    weighted squared error :math:`\sum_i w_i (y_i - h(s_i))^2` of the binary
    outcomes :math:`y_i` given the scores :math:`s_i` (pool adjacent
    violators, computed by :class:`sklearn.isotonic.IsotonicRegression`). It
    is a piecewise empirical mean of the outcomes, so on its own calibration
    set its cutoff calibration error is exactly 0 (Rossellini et al., 2025,
    Lemma D.1).

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    %(multiclass)s
        With ``"top_label"`` the classifier's predicted class (the first
        largest score) is kept, as in the top-versus-all approach of Le Coz
        et al. (2024): it gets the map's output clipped to :math:`[1/K, 1]`
        (:math:`K` classes), and the other classes share the rest in
        proportion to their probabilities, capped just below it.
    interpolation : {"linear", "step"}, default="linear"
        Between the scores seen at fit, interpolate linearly between the
        fitted levels (scikit-learn's behaviour) or keep the level of the
        nearest score below (a step function, whose outputs take only the
        fitted levels).
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    calibrators_ : list of :class:`~sklearn.isotonic.IsotonicRegression`
        One fitted regression per map: one for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on. The maps read
        probabilities for probability scores and the raw values for logits.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    HistogramBinningRecalibrator : A piecewise-constant map with fixed bins.
    PlattRecalibrator : A logistic map of the log-odds.

    Notes
    -----
    Isotonic recalibration is consistent (Rossellini et al., 2025, Section
    5). Its outputs can be exactly 0 or 1, where the log loss is infinite. A
    binary problem fitted on ``decision_function`` values agrees with
    ``CalibratedClassifierCV(FrozenEstimator(clf), method="isotonic")``.

    References
    ----------
    .. [1] B. Zadrozny and C. Elkan, "Transforming classifier scores into
       accurate multiclass probability estimates", KDD 2002,
       doi:10.1145/775047.775151.
    .. [2] L. Rossellini, J. A. Soloff, R. F. Barber, Z. Ren and R. Willett,
       "Can a calibration metric be both testable and actionable?",
       COLT 2025, arXiv:2502.19851.
    .. [3] A. Le Coz, S. Herbin and F. Adjed, "Confidence calibration of
       classifiers with many classes", NeurIPS 2024, arXiv:2411.02988.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import IsotonicRecalibrator
    >>> scores = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> recal = IsotonicRecalibrator().fit(scores, y)
    >>> recal.predict_proba([0.1, 0.35, 0.9])[:, 1].round(3).tolist()
    [0.0, 0.5, 1.0]

    With ``multiclass="top_label"`` the predicted class is kept even when its
    calibrated confidence is low (here the map gives 0, raised to 1/3):

    >>> scores = np.array([[0.4, 0.35, 0.25]] * 4 + [[0.9, 0.05, 0.05]] * 4)
    >>> y = np.array([1, 1, 1, 2, 0, 0, 0, 0])
    >>> recal = IsotonicRecalibrator(multiclass="top_label").fit(scores, y)
    >>> recal.predict_proba([[0.4, 0.35, 0.25]]).round(3).tolist()
    [[0.333, 0.333, 0.333]]
    >>> recal.predict([[0.4, 0.35, 0.25]]).tolist()
    [0]
    """

    _parameter_constraints: dict = {
        **BinaryMapRecalibrator._parameter_constraints,
        "interpolation": [StrOptions({"linear", "step"})],
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        multiclass: Literal["ovr", "top_label"] = "ovr",
        interpolation: Literal["linear", "step"] = "linear",
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.multiclass = multiclass
        self.interpolation = interpolation
        self.input = input
        self.response_method = response_method
        self.classes = classes

    def _fit_map(self, x, y, sample_weight):
        # scikit-learn merges scores closer than 1e-15 (absolutely): an exact
        # power-of-two scale makes that relative, the same at every scale.
        scale = power_of_two_scale(x)
        # Sorted first: scikit-learn's own ordering of (score, outcome) by
        # np.lexsort is then nearly free, where on unsorted scores it takes
        # half the fit. The map is the same, but for the order in which the
        # weighted mean of a tie group is summed (a last-bit difference).
        order = np.argsort(x)
        weight = normalized_weights(sample_weight)
        regression = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
        regression.fit(
            x[order] / scale,
            y[order].astype(np.float64),
            sample_weight=None if weight is None else weight[order],
        )
        return _ScaledIsotonic(regression, scale)

    def _apply_map(self, fitted_map, x):
        regression, x = fitted_map.regression, x / fitted_map.scale
        if self.interpolation == "linear":
            return regression.predict(x)
        thresholds = regression.X_thresholds_
        index = np.searchsorted(thresholds, x, side="right") - 1
        return regression.y_thresholds_[np.clip(index, 0, thresholds.shape[0] - 1)]
