"""Improvement of a proper score by a recalibration, with a paired standard
error (Gruber & Buettner)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
import re
from numbers import Real
from typing import Literal

import numpy as np
from scipy import stats
from sklearn.utils import Bunch

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._typing import ArrayLike, Label
from skcal._utils._scaling import drop_zero_weight
from skcal._validation import GROUPS_CONSTRAINT, check_calibration_inputs
from skcal.metrics._groups import accepts_groups
from skcal.metrics._proper import LOSSES, full_scores


def _check_inputs(name, y_true, y_prob, sample_weight, pos_label, labels):
    """`check_calibration_inputs`, with errors naming ``name`` for ``y_prob``."""
    try:
        return check_calibration_inputs(
            y_true, y_prob, sample_weight, pos_label, labels
        )
    except (TypeError, ValueError) as exc:
        message = re.sub(r"\by_prob\b", name, str(exc))
        if message == str(exc):
            raise
        raise type(exc)(message) from exc


def _same_problem(before, after):
    """Whether two validated inputs describe the same classes and outcomes."""
    return (
        before.binary == after.binary
        and before.pos_index == after.pos_index
        and len(before.classes) == len(after.classes)
        and all(
            a == b
            for a, b in zip(
                before.classes.tolist(), after.classes.tolist(), strict=True
            )
        )
        and np.array_equal(before.y_true, after.y_true)
    )


def _paired_mean(differences, sample_weight, confidence_level):
    """Weighted mean of paired differences, its standard error and t interval."""
    sample_weight, differences = drop_zero_weight(sample_weight, differences)
    n = differences.shape[0]
    if sample_weight is None:
        sample_weight = np.ones(n)
    total = sample_weight.sum()
    mean = float(np.dot(sample_weight, differences) / total)
    if n < 2 or not math.isfinite(mean):
        return mean, math.nan, (math.nan, math.nan), n
    # Linearisation (sandwich) variance of a weighted mean, with the
    # small-sample factor n / (n - 1); the usual s / sqrt(n) when unweighted.
    spread = sample_weight * (differences - mean) / total
    standard_error = math.sqrt(np.dot(spread, spread) * n / (n - 1))
    half_width = stats.t.ppf(0.5 + confidence_level / 2.0, n - 1) * standard_error
    return mean, standard_error, (mean - half_width, mean + half_width), n


@validate_params(
    {
        "y_true": ["array-like"],
        "y_prob_before": ["array-like"],
        **GROUPS_CONSTRAINT,
        "y_prob_after": ["array-like"],
        "sample_weight": ["array-like", None],
        "pos_label": ["hashable", None],
        "labels": ["array-like", None],
        "loss": [StrOptions(set(LOSSES))],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def recalibration_improvement(
    y_true: ArrayLike,
    y_prob_before: ArrayLike,
    y_prob_after: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    loss: Literal["brier", "log"] = "brier",
    confidence_level: float = 0.95,
) -> Bunch:
    r"""Improvement of a proper score by a recalibration, with its uncertainty.

    The mean score of the predictions before recalibration minus that after,
    on the same samples: positive means the recalibration helped. For a
    recalibration map that is injective (temperature scaling, Platt scaling
    with a non-zero slope, any strictly monotone map of a binary
    probability), this is exactly the decrease of the proper calibration
    error, estimated without bias (Gruber & Buettner, Proposition 4.5); for
    other maps (histogram binning, isotonic regression) it is a lower bound
    of that decrease, short by the sharpness the map loses. Being a mean of
    paired per-sample differences, it comes with a standard error and a
    confidence interval.

    Read more in the :ref:`User Guide <recalibration_improvement>`.

    Parameters
    ----------
    %(y_true)s
    y_prob_before : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities before recalibration: of the positive class
        (1-D, binary), or one column per class in the order of ``labels``
        (or of the sorted labels of ``y_true``), rows summing to 1.
    y_prob_after : array-like of shape (n_samples,) or (n_samples, n_classes)
        The recalibrated probabilities of the same samples, in the same
        format and class order as ``y_prob_before``.
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    loss : {"brier", "log"}, default="brier"
        The proper score of the whole predicted distribution: the Brier
        score as :func:`sklearn.metrics.brier_score_loss` computes it (of
        the positive class for a binary problem, summed over classes
        otherwise), or the log loss (natural logarithm, not clipped).
    confidence_level : float, default=0.95
        The coverage of the confidence interval, in (0, 1).

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With attributes:

        - ``improvement``: the weighted mean of ``score_before -
          score_after`` over the samples (float);
        - ``standard_error``: its standard error (NaN with fewer than two
          samples or an infinite score);
        - ``confidence_interval``: ``(low, high)``, the Student t interval;
        - ``score_before``, ``score_after``: the two mean scores;
        - ``n_samples``: the number of samples of positive weight;
        - ``loss``, ``confidence_level``: the options used.

    See Also
    --------
    calibration_decomposition : The calibration term whose change this
        estimates.

    Notes
    -----
    With per-sample scores :math:`S` of the predictions :math:`f(x_i)` before
    and :math:`h(f(x_i))` after recalibration, differences :math:`\delta_i =
    S(f(x_i), y_i) - S(h(f(x_i)), y_i)`, weights :math:`w_i` (the :math:`n`
    positive ones) and :math:`W = \sum_i w_i`:

    .. math::

        \hat\Delta = \frac{1}{W} \sum_i w_i \delta_i, \qquad
        \widehat{\mathrm{SE}}^2 = \frac{n}{n - 1} \sum_i
            \frac{w_i^2}{W^2} (\delta_i - \hat\Delta)^2,

    the linearisation (sandwich) variance of a weighted mean, which is the
    usual :math:`s^2 / n` without weights. The interval is :math:`\hat\Delta
    \pm t_{n-1} \widehat{\mathrm{SE}}`, with :math:`t_{n-1}` the quantile of
    Student's t distribution with :math:`n - 1` degrees of freedom. It
    describes the variability over test samples only: the recalibration is
    taken as fixed (fitted on other data). The standard error does not
    depend on the scale of the weights, and zero weights drop rows; integer
    weights therefore act as relative weights, not as repeated rows (which
    would shrink the standard error).

    By the decomposition of a proper score (see
    :func:`calibration_decomposition`), :math:`E[S(f)] - E[S(h \circ f)] =
    [\mathrm{CE}_S(f) - \mathrm{CE}_S(h \circ f)] - [\mathrm{SHARP}_S(f) -
    \mathrm{SHARP}_S(h \circ f)]`, where the second bracket is 0 for an
    injective :math:`h` and non-negative otherwise. The same holds exactly
    in-sample for the ``"exact"`` terms of :func:`calibration_decomposition`
    with ``reduction="full"``.

    With the log loss, a prediction giving probability 0 to the observed
    class scores :math:`+\infty`; the improvement is then infinite (or NaN
    when both predictions of a sample are infinite), with NaN standard error.

    References
    ----------
    .. [1] S. G. Gruber and F. Buettner, "Better Uncertainty Calibration via
       Proper Scores for Classification and Beyond", NeurIPS 2022,
       arXiv:2203.07835.

    Examples
    --------
    >>> from skcal.metrics import recalibration_improvement
    >>> y_true = [0, 1, 1, 1]
    >>> before = [0.5, 0.5, 0.5, 0.5]
    >>> after = [0.75, 0.75, 0.75, 0.75]

    Replacing the constant 0.5 by the event rate 0.75 lowers the Brier score
    from 0.25 to 0.1875:

    >>> result = recalibration_improvement(y_true, before, after)
    >>> result.improvement
    0.0625
    >>> result.score_before, result.score_after
    (0.25, 0.1875)
    """
    before = _check_inputs(
        "y_prob_before", y_true, y_prob_before, sample_weight, pos_label, labels
    )
    after = _check_inputs(
        "y_prob_after", y_true, y_prob_after, sample_weight, pos_label, labels
    )
    if not _same_problem(before, after):
        raise ValueError(
            "y_prob_before and y_prob_after describe different problems: "
            f"classes {before.classes.tolist()} (binary={before.binary}) and "
            f"{after.classes.tolist()} (binary={after.binary}). Pass both in the "
            "same format, with the same columns."
        )
    score_before = full_scores(before, loss)
    score_after = full_scores(after, loss)
    with np.errstate(invalid="ignore"):
        differences = score_before - score_after
    weight = before.sample_weight
    mean, standard_error, interval, n = _paired_mean(
        differences, weight, confidence_level
    )
    kept, score_before, score_after = drop_zero_weight(
        weight, score_before, score_after
    )
    return Bunch(
        improvement=mean,
        standard_error=standard_error,
        confidence_interval=interval,
        score_before=float(np.average(score_before, weights=kept)),
        score_after=float(np.average(score_after, weights=kept)),
        n_samples=n,
        loss=loss,
        confidence_level=confidence_level,
    )
