"""Decomposition of a proper score into miscalibration, discrimination and
uncertainty (Murphy, Broecker, CORP)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Literal, NamedTuple

import numpy as np
from sklearn.utils import Bunch

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import binary_views, check_per_class, resolve_reduction
from skcal._typing import ArrayLike, Label
from skcal._utils._bins import bin_sums, make_binning
from skcal._utils._pava import IsotonicBlocks
from skcal._utils._scaling import drop_zero_weight
from skcal._utils._ties import Ties, sorted_outcome_keys, split_keys
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups
from skcal.metrics._proper import (
    LOSSES,
    binary_divergence,
    binary_entropy,
    binary_score,
    vector_divergence,
    vector_entropy,
    vector_score,
)

# "full": the whole predicted distribution; the others are binary views.
DECOMPOSITION_REDUCTIONS = ("auto", "full", "positive", "top_label", "classwise")
_TERMS = ("score", "miscalibration", "discrimination", "uncertainty")

# method="auto" groups identical predictions ("exact") when they hold at
# least this many rows each on average; exact grouping warns when more than
# this share of the rows are alone in their group.
_ROWS_PER_VALUE = 10
_ALONE_SHARE = 0.5

# Groups (or rows) per chunk of the binary terms: no array as long as the
# data beyond the sorted view itself.
_CHUNK = 1 << 16


class Grouped(NamedTuple):
    """Outcomes, predictions and weights of the rows of positive weight, and
    their groups of identical predictions (sorted once, for the method's
    choice and the terms)."""

    y: np.ndarray
    p: np.ndarray
    weight: np.ndarray | None
    groups: Ties


def _grouped(y, p, sample_weight):
    """The rows of positive weight, grouped; unweighted binary views sorted.

    The terms do not depend on the order of the rows, so an unweighted
    binary view is sorted with its outcomes by one sort of keys
    (:func:`~skcal._utils._ties.sorted_outcome_keys`), several times faster than
    an argsort, and its rows kept in that order.
    """
    sample_weight, y, p = drop_zero_weight(sample_weight, y, p)
    if sample_weight is not None or p.ndim != 1:
        return Grouped(y, p, sample_weight, Ties(p, sample_weight))
    p, y = split_keys(sorted_outcome_keys(p, y))
    return Grouped(y, p, None, Ties(p, presorted=True))


def _grouping(view):
    """``(distinct predictions, rows, rows alone in their group)``."""
    return view.groups.n_groups, view.p.shape[0], view.groups.n_alone


def _resolve_method(method, views, vector):
    """The method ``"auto"`` stands for; a warning when exact grouping overfits.

    ``views`` are the grouped binary views, or the grouped probability
    matrix when ``vector`` (which only ``"exact"`` decomposes).
    """
    groupings = [_grouping(view) for view in views]
    if method == "auto":
        few = all(g * _ROWS_PER_VALUE <= n for g, n, _ in groupings)
        method = "exact" if few or vector else "isotonic"
    if method == "exact":
        alone = max(groupings, key=lambda g: g[2] / max(g[1], 1))
        if alone[1] >= 2 * _ROWS_PER_VALUE and alone[2] > _ALONE_SHARE * alone[1]:
            fix = (
                'reduction="top_label" (or "classwise") with method="isotonic"'
                if vector
                else 'method="isotonic"'
            )
            warnings.warn(
                f"Exact grouping put {alone[2]} of {alone[1]} rows in groups of "
                "their own: each is recalibrated to its own outcome, so the "
                "miscalibration is most of the score and the discrimination "
                f"looks nearly perfect. Use {fix} for continuous predictions.",
                UserWarning,
                stacklevel=4,  # the user's call, past validate_params
            )
    return method


def _chunks(n):
    """Slices of ``_CHUNK`` positions covering ``range(n)``."""
    return (slice(start, min(start + _CHUNK, n)) for start in range(0, n, _CHUNK))


def _group_chunks(view):
    """A function giving ``(start, prediction, weight, event rate)`` of the
    groups, chunk by chunk, each time it is called.

    The groups of identical predictions in increasing order; the rows
    themselves when they are unweighted and distinct (no group arrays). The
    group arrays are computed once, for every pass.
    """
    y, p, sample_weight, groups = view
    if groups.distinct and sample_weight is None:

        def rows_as_groups():
            for rows in _chunks(p.shape[0]):
                rate = y[rows].astype(np.float64)
                yield rows.start, p[rows], np.ones(rate.shape[0]), rate

        return rows_as_groups
    values, weight = groups.values, groups.weight
    rate = groups.sum(y) / weight

    def group_arrays():
        for rows in _chunks(weight.shape[0]):
            yield rows.start, values[rows], weight[rows], rate[rows]

    return group_arrays


def _mean_score(y, p, sample_weight, loss):
    """The weighted mean of the rows' scores, a chunk of rows at a time."""
    total = 0.0
    for rows in _chunks(p.shape[0]):
        score = binary_score(y[rows], p[rows], loss)
        total += score.sum() if sample_weight is None else score @ sample_weight[rows]
    weight = p.shape[0] if sample_weight is None else sample_weight.sum()
    return total / weight


def binary_terms(view, loss, method, uncertainty=None):
    """(score, miscalibration, discrimination, uncertainty) of one binary view.

    The recalibrated prediction of each group of identical predictions is its
    event rate (``"exact"``) or the isotonic fit of the event rates
    (``"isotonic"``, CORP). With recalibrated values ``c``, event rates ``r``
    and base rate ``ybar``, the terms are weighted means over the groups of
    ``d(p, r) - d(c, r)`` and ``d(ybar, r) - d(c, r)``, which equal the score
    differences of CORP because the score is affine in the outcome. The
    groups are read a chunk at a time (:func:`_group_chunks`), the isotonic
    fit held as its blocks (:class:`~skcal._utils._pava.IsotonicBlocks`).
    The differences hold for real outcomes too (the square of the outcome
    cancels), so with ``loss="brier"`` and the outcomes' variance as
    ``uncertainty`` (the entropy of a binary event otherwise) this is the
    decomposition of the squared error of a predicted mean.
    """
    y, p, sample_weight, _ = view
    chunks = _group_chunks(view)
    sums = np.zeros(2)  # the weight and the events
    for _, _, weight, rate in chunks():
        sums += weight.sum(), weight @ rate
    total = sums[0]
    base_rate = float(sums[1] / total)
    blocks = IsotonicBlocks() if method == "isotonic" else None
    mcb = dsc = residual = 0.0
    for _, values, weight, rate in chunks():
        mcb += weight @ binary_divergence(values, rate, loss)
        dsc += weight @ binary_divergence(base_rate, rate, loss)
        if blocks is not None:
            blocks.add(rate, weight)
    if blocks is not None:
        for start, _, weight, rate in chunks():
            recalibrated = blocks.fitted(start, start + rate.shape[0])
            residual += weight @ binary_divergence(recalibrated, rate, loss)
    score = _mean_score(y, p, sample_weight, loss)
    unc = binary_entropy(base_rate, loss) if uncertainty is None else uncertainty
    return np.array(
        [score, (mcb - residual) / total, (dsc - residual) / total, unc],
        dtype=np.float64,
    )


def binned_terms(weight, sum_y, score, loss):
    """(score, miscalibration, discrimination, uncertainty) of a binned view.

    Each bin's predictions are recalibrated to the bin's event rate: with
    bin weights ``W_m``, event rates ``r_m``, total ``W`` and base rate
    ``ybar``, the recalibrated score is ``sum_m W_m g(r_m) / W`` (the score
    is affine in the outcome) and the terms follow as for the other methods.
    ``score`` is the view's mean score.
    """
    total = weight.sum()
    kept = weight > 0
    rate = sum_y[kept] / weight[kept]
    recalibrated = np.dot(weight[kept], binary_entropy(rate, loss)) / total
    unc = float(binary_entropy(sum_y.sum() / total, loss))
    return np.array([score, score - recalibrated, unc - recalibrated, unc])


def _binned_view_terms(y, p, sample_weight, loss, n_bins):
    """:func:`binned_terms` of one binary view, with ``n_bins`` equal-width bins."""
    sample_weight, y, p = drop_zero_weight(sample_weight, y, p)
    sums = bin_sums(make_binning(p, None, n_bins, "uniform"), y, p, sample_weight)
    score = np.average(binary_score(y, p, loss), weights=sample_weight)
    return binned_terms(sums.weight, sums.sum_y, score, loss)


def _vector_terms(view, loss):
    """The exact decomposition of a multiclass score, grouping identical rows."""
    y_index, P, sample_weight, groups = view
    n_groups, n_classes = groups.values.shape
    counts = np.bincount(
        groups.inverse * n_classes + y_index,
        weights=sample_weight,
        minlength=n_groups * n_classes,
    ).reshape(n_groups, n_classes)
    total = groups.weight.sum()
    rate = counts / groups.weight[:, None]
    base_rate = counts.sum(axis=0, keepdims=True) / total
    score = np.average(vector_score(y_index, P, loss), weights=sample_weight)
    mcb = np.dot(groups.weight, vector_divergence(groups.values, rate, loss))
    dsc = np.dot(groups.weight, vector_divergence(base_rate, rate, loss))
    unc = vector_entropy(base_rate, loss)[0]
    return np.array([score, mcb / total, dsc / total, unc], dtype=np.float64)


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "loss": [StrOptions(set(LOSSES))],
        "method": [StrOptions({"auto", "exact", "isotonic", "binned"})],
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "reduction": [StrOptions(set(DECOMPOSITION_REDUCTIONS))],
        "return_per_class": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def calibration_decomposition(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    loss: Literal["brier", "log"] = "brier",
    method: Literal["auto", "binned", "exact", "isotonic"] = "auto",
    n_bins: int = 15,
    reduction: Literal["auto", "classwise", "full", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
) -> Bunch:
    r"""Split a proper score into miscalibration, discrimination and uncertainty.

    The mean Brier score or log loss of the predictions is written as
    ``score = miscalibration - discrimination + uncertainty``. The
    miscalibration term is the part of the score that recalibrating the
    predictions in-sample would remove (the proper calibration error of
    Gruber & Buettner); the discrimination (resolution, sharpness) term is
    what the recalibrated predictions gain over always predicting the base
    rate; the uncertainty term is the score of the base rate itself. With
    ``method="exact"`` identical predictions form the groups (Murphy's and
    Broecker's decomposition); with ``method="isotonic"`` the recalibration is
    the isotonic regression of the outcomes on the predictions (CORP, binary
    only). The identity holds exactly, up to rounding, in both cases.

    Read more in the :ref:`User Guide <decomposition>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    loss : {"brier", "log"}, default="brier"
        The proper score: the Brier score, as
        :func:`sklearn.metrics.brier_score_loss` (a sum over classes for
        three or more classes; see Notes), or the log loss (natural
        logarithm).
    method : {"auto", "exact", "isotonic", "binned"}, default="auto"
        How the predictions are recalibrated in-sample. ``"auto"``:
        ``"exact"`` when the predictions take few values (at least 10 rows
        per distinct prediction on average, in every view), as binned or
        rounded forecasts do, and ``"isotonic"`` otherwise; the whole
        probability vector of a multiclass problem (``reduction="full"``)
        is always grouped exactly. ``"exact"``: each
        distinct prediction (each distinct row of ``y_prob`` with
        ``reduction="full"``) is replaced by the observed class frequencies
        among its samples. ``"isotonic"``: the outcome of a binary view is
        regressed on its prediction by isotonic regression (pool adjacent
        violators, identical predictions pooled); this needs a binary view,
        or a binary problem with ``reduction="full"``. Exact grouping warns
        when more than half of the rows are alone in their group.
        ``"binned"``: the predictions of each of ``n_bins`` equal-width bins
        are replaced by the bin's event rate (histogram binning); a binary
        view too. It is the decomposition a
        :class:`CalibrationSummary` computes without the rows.
    n_bins : int, default=15
        Number of equal-width bins of ``method="binned"``.
    reduction : {"auto", "full", "positive", "top_label", "classwise"}, default="auto"
        What is decomposed. ``"full"``: the score of the whole predicted
        distribution (the probability vector of each row; ``(1 - p, p)`` for
        a 1-D binary ``y_prob``). ``"positive"``, ``"top_label"`` and
        ``"classwise"``: the one-dimensional score of a binary view, as in
        the other measures (the probability of ``pos_label``, the
        confidence against the correctness of the argmax, or every
        one-vs-rest column averaged over classes). ``"auto"`` is ``"full"``,
        or ``"positive"`` on a multiclass problem when ``pos_label`` is
        given.
    %(return_per_class)s

    Returns
    -------
    decomposition : :class:`~sklearn.utils.Bunch`
        With attributes:

        - ``score``: the mean score of the predictions;
        - ``miscalibration``: the calibration term (MCB), non-negative
          except with ``"binned"`` (see Notes);
        - ``discrimination``: the resolution term (DSC), non-negative;
        - ``uncertainty``: the score of the base rate (UNC);
        - ``loss``, ``method``: the options used (``method`` resolved);
        - ``reduction``: the resolved reduction.

        The four terms are floats, or arrays of shape (n_classes,) with
        ``return_per_class=True``. ``score == miscalibration -
        discrimination + uncertainty`` up to rounding. They are ``inf`` when
        the log loss meets a prediction that gives probability 0 to an
        observed outcome.

    See Also
    --------
    recalibration_improvement : Score difference before and after a
        recalibration, with a standard error.
    kernel_calibration_error : A smoothed estimate of the calibration term
        of a binary view.

    Notes
    -----
    Let :math:`S` be the score (lower is better), :math:`d(P, Q)` its
    divergence (the excess expected score of the prediction :math:`P` when
    outcomes follow :math:`Q`) and :math:`g(Q)` its generalized entropy (the
    expected score of :math:`Q` when outcomes follow :math:`Q`):

    - Brier: :math:`S(P, k) = \sum_j (P_j - 1\{j = k\})^2`,
      :math:`d(P, Q) = \|P - Q\|^2`, :math:`g(Q) = 1 - \|Q\|^2`;
    - log: :math:`S(P, k) = -\log P_k`, :math:`d(P, Q) = \mathrm{KL}(Q \|
      P)`, :math:`g(Q)` the Shannon entropy.

    For a binary view the score is that of the event alone, :math:`(p -
    y)^2` or the binary log loss. With weights :math:`w_i`, :math:`W =
    \sum_i w_i`, base rate :math:`\bar y = \sum_i w_i y_i / W`, the
    in-sample recalibration :math:`c_i` of prediction :math:`p_i` (the
    weighted class frequencies of the samples that share :math:`p_i` for
    ``"exact"``; the isotonic fit for ``"isotonic"``), and :math:`\bar S(x)
    = \sum_i w_i S(x_i, y_i) / W`:

    .. math::

        \mathrm{MCB} = \bar S(p) - \bar S(c), \quad
        \mathrm{DSC} = \bar S(\bar y) - \bar S(c), \quad
        \mathrm{UNC} = \bar S(\bar y) = g(\bar y),

    so that :math:`\bar S(p) = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC}`.
    For ``"exact"``, :math:`\mathrm{MCB} = \sum_i w_i\, d(p_i, c_i) / W` and
    :math:`\mathrm{DSC} = \sum_i w_i\, d(\bar y, c_i) / W`: the plug-in
    estimates of the proper calibration error :math:`E[d(f(X),
    P_{Y|f(X)})]` and of the sharpness :math:`E[d(P_Y, P_{Y|f(X)})]` of
    Gruber & Buettner (Lemma 4.1). Chidambaram & Ge's *sharpness gap* is
    :math:`\mathrm{UNC} - \mathrm{DSC} = \bar S(p) - \mathrm{MCB}`. Both
    terms are non-negative for ``"isotonic"`` too, whose miscalibration is at
    most that of ``"exact"``. With ``"binned"``, :math:`c_i` is the event
    rate of the bin of :math:`p_i`; a constant per bin can score better than
    predictions that vary within the bin, so the miscalibration may be
    slightly negative (by at most the within-bin spread of the predictions).

    *One Brier score.* The score is always
    :func:`sklearn.metrics.brier_score_loss` of what is decomposed: with
    ``reduction="full"``, of ``y_true`` and ``y_prob`` (the positive class's
    :math:`(p - y)^2` for a binary problem; the sum over classes, in [0, 2],
    for three or more classes, which is what scikit-learn computes there);
    with a binary view, of the view's event and probability (for
    ``"top_label"``, the correctness of the argmax and the confidence). The
    sum over the two classes of a binary problem, twice the score here, is
    ``brier_score_loss(..., scale_by_half=False)``. The log loss of a binary
    problem is the same under ``"full"`` and ``"positive"``.

    *Log loss.* Predictions are used as given, not clipped (unlike
    :func:`sklearn.metrics.log_loss`): a probability of 0 on an observed
    outcome gives an infinite score and miscalibration; :math:`0 \log 0 =
    0`. Rows of ``y_prob`` are not renormalised, so a row whose sum exceeds
    1 within the accepted tolerance can make the miscalibration negative by
    that tolerance.

    *Grouping.* ``"exact"`` suits predictions that take few distinct values
    (binned, rounded or recalibrated by a step function); on continuous
    predictions it overfits, and ``"isotonic"`` is the stable choice for a
    binary view. For continuous softmax outputs, decompose a binary view
    (``reduction="top_label"``).

    Sample weights are frequencies: integer weights give the same result
    as repeated rows, zero weights drop rows.

    References
    ----------
    .. [1] S. G. Gruber and F. Buettner, "Better Uncertainty Calibration via
       Proper Scores for Classification and Beyond", NeurIPS 2022,
       arXiv:2203.07835.
    .. [2] M. Chidambaram and R. Ge, "Reassessing How to Compare and Improve
       the Calibration of Machine Learning Models", arXiv:2406.04068.
    .. [3] J. Broecker, "Reliability, sufficiency, and the decomposition of
       proper scores", Q. J. R. Meteorol. Soc. 135, 2009,
       doi:10.1002/qj.456.
    .. [4] T. Dimitriadis, T. Gneiting and A. I. Jordan, "Stable reliability
       diagrams for probabilistic classifiers", PNAS 118(8), 2021,
       doi:10.1073/pnas.2016191118.

    Examples
    --------
    >>> from skcal.metrics import calibration_decomposition
    >>> y_true = [0, 1, 1, 1]
    >>> y_prob = [0.25, 0.25, 0.5, 0.5]

    The predictions 0.25 and 0.5 come true half of the time and always; the
    base rate is 0.75. With the Brier score of the positive class, as
    :func:`sklearn.metrics.brier_score_loss`:

    >>> result = calibration_decomposition(y_true, y_prob, reduction="positive")
    >>> result.score, result.miscalibration, result.discrimination
    (0.28125, 0.15625, 0.0625)
    >>> result.uncertainty
    0.1875

    The default decomposes the same score, scikit-learn's:

    >>> calibration_decomposition(y_true, y_prob).score
    0.28125

    Continuous predictions are recalibrated by isotonic regression (CORP);
    grouped exactly, every row would be its own group. Rounded to one
    decimal, they take few values and are grouped exactly:

    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> p = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < p**2).astype(int)
    >>> result = calibration_decomposition(y, p)
    >>> result.method, round(result.miscalibration, 3), round(result.score, 3)
    ('isotonic', 0.038, 0.17)
    >>> calibration_decomposition(y, np.round(p, 1)).method
    'exact'
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    if reduction == "auto":
        multiclass_view = not data.binary and data.pos_index is not None
        reduction = "positive" if multiclass_view else "full"
    check_per_class(reduction, return_per_class)
    vector = reduction == "full" and not data.binary
    if vector:
        views = [(data.y_true, data.y_prob)]
    elif reduction == "full":
        views = [(data.y_true.view(np.uint8), data.y_prob)]
    else:
        reduction = resolve_reduction(data, reduction)
        views = list(binary_views(data, reduction))
    if method == "binned":
        if vector:
            raise ValueError(_needs_binary_view(method, len(data.classes)))
        per_view = np.array(
            [
                _binned_view_terms(y, p, data.sample_weight, loss, n_bins)
                for y, p in views
            ]
        )
        return decomposition_result(per_view, return_per_class, loss, method, reduction)
    views = [_grouped(y, p, data.sample_weight) for y, p in views]
    method = _resolve_method(method, views, vector)
    if vector:
        if method == "isotonic":
            raise ValueError(_needs_binary_view(method, len(data.classes)))
        per_view = _vector_terms(views[0], loss)[None, :]
    else:
        per_view = np.array([binary_terms(view, loss, method) for view in views])
    return decomposition_result(per_view, return_per_class, loss, method, reduction)


def _needs_binary_view(method, n_classes):
    """The message refusing a one-probability method on a probability vector."""
    return (
        f'method="{method}" recalibrates one probability, but y_prob has '
        f"{n_classes} columns: use a binary view (reduction="
        '"top_label", "classwise" or "positive"), or method="exact" to '
        "decompose the whole probability vector."
    )


def decomposition_result(per_view, return_per_class, loss, method, reduction):
    """The result Bunch of per-view terms (rows of score, MCB, DSC, UNC)."""
    if return_per_class:
        values = {name: per_view[:, j].copy() for j, name in enumerate(_TERMS)}
    else:
        values = {name: float(per_view[:, j].mean()) for j, name in enumerate(_TERMS)}
    return Bunch(**values, loss=loss, method=method, reduction=reduction)
