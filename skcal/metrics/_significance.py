"""Classical tests of perfect calibration, each with a p-value.

Every test here has the null hypothesis of perfect calibration,
``P(y = 1 | p) = p`` for every prediction ``p``, and returns its statistic
and p-value in a :class:`~sklearn.utils.Bunch`:

* :func:`kolmogorov_smirnov_test` and :func:`kuiper_test`: the largest
  absolute value and the range of the cumulative residual along the sorted
  predictions (Arrieta-Ibarra et al., 2022), referred to the laws of the
  largest absolute value and of the range of a standard Brownian motion on
  [0, 1] (Tygert, 2021 and 2022);
* :func:`spiegelhalter_test`: the standardised difference between the Brier
  score and its expectation under the null (Spiegelhalter, 1986);
* :func:`hosmer_lemeshow_test`: Pearson's chi-square of observed and expected
  events in groups of predictions (Hosmer and Lemeshow, 1980).

One helper, :func:`_run_test`, applies a test to the binary views of a
reduction and combines the classes of ``"classwise"`` by Bonferroni's rule.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import functools
import math
from numbers import Integral
from typing import Literal

import numpy as np
from scipy.special import ndtr
from scipy.stats import chi2
from sklearn.utils import Bunch

from skcal._docstrings import fill_doc_from
from skcal._param_validation import Interval, validate_params
from skcal._reduction import REDUCTION_CONSTRAINTS, binary_views, resolve_reduction
from skcal._typing import ArrayLike, Label
from skcal._utils._bins import bin_sums, make_binning
from skcal._utils._cumulative import range_with_zero, residual_prefix_sums
from skcal._utils._scaling import effective_size
from skcal._utils._ties import Ties
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups

NULL_HYPOTHESIS = "perfect calibration: P(y = 1 | p) = p"

_TEST_CONSTRAINTS = {
    **DATA_CONSTRAINTS,
    **GROUPS_CONSTRAINT,
    "reduction": REDUCTION_CONSTRAINTS["reduction"],
}

# Terms summed in the series of the Brownian laws. Each series is used where
# it converges fastest: at the crossover points the 12th term is below 1e-25
# of the sum, and further from them it is smaller still.
_N_TERMS = 12

# Below this argument both laws give a p-value of 1 to double precision
# (their distribution functions are below exp(-120) there).
_NEGLIGIBLE = 0.1


# ---------------------------------------------------------------------------
# Laws of a standard Brownian motion on [0, 1]
# ---------------------------------------------------------------------------


def _evaluate(x, small, large, crossover):
    """``small(x)`` below ``crossover``, ``large(x)`` from it on, 1 below 0.1."""
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1)
    out = np.ones_like(flat)
    low = (flat >= _NEGLIGIBLE) & (flat < crossover)
    high = flat >= crossover
    out[low] = small(flat[low])
    out[high] = large(flat[high])
    out[np.isnan(flat)] = np.nan
    return float(out[0]) if x.ndim == 0 else out.reshape(x.shape)


def brownian_sup_sf(x):
    r"""Survival function of :math:`\sup_{0 \le t \le 1} |B_t|`.

    :math:`B` is a standard Brownian motion; this is the asymptotic law of
    the normalised Kolmogorov-Smirnov statistic of calibration. Below 1,
    one minus the series of Darling and Siegert (1953),

    .. math::

        P\Big(\sup_t |B_t| < x\Big) = \frac{4}{\pi} \sum_{k \ge 0}
        \frac{(-1)^k}{2k + 1} e^{-(2k + 1)^2 \pi^2 / (8 x^2)};

    from 1 on, the reflection series
    :math:`4 \sum_{k \ge 0} (-1)^k \bar\Phi((2k + 1) x)` with
    :math:`\bar\Phi` the standard normal survival function, which keeps
    full relative precision for tiny p-values.

    Parameters
    ----------
    x : float or ndarray
        Non-negative arguments (negative ones give 1).

    Returns
    -------
    sf : float or ndarray
        :math:`P(\sup_t |B_t| \ge x)`, of the shape of ``x``.
    """
    k = np.arange(_N_TERMS)[:, None]
    odd, sign = 2.0 * k + 1.0, (-1.0) ** k

    def small(x):
        cdf = np.sum(sign / odd * np.exp(-((odd * np.pi / x) ** 2) / 8.0), axis=0)
        return 1.0 - 4.0 / np.pi * cdf

    def large(x):
        return 4.0 * np.sum(sign * ndtr(-odd * x), axis=0)

    return _evaluate(x, small, large, 1.0)


def brownian_range_sf(x):
    r"""Survival function of the range :math:`\max_t B_t - \min_t B_t`.

    :math:`B` is a standard Brownian motion on [0, 1]; this is the
    asymptotic law of the normalised Kuiper statistic of calibration. Below
    1.5, one minus the series of the distribution function,

    .. math::

        P(R < x) = \sum_{k \ge 0} \Big(\frac{8}{x^2}
        + \frac{2}{(k + 1/2)^2 \pi^2}\Big) e^{-2 (k + 1/2)^2 \pi^2 / x^2};

    from 1.5 on, the integral of Feller's (1951) density
    :math:`8 \sum_{k \ge 1} (-1)^{k+1} k^2 \varphi(k x)`,

    .. math::

        P(R \ge x) = 8 \sum_{k \ge 1} (-1)^{k+1} k\, \bar\Phi(k x),

    with :math:`\varphi` and :math:`\bar\Phi` the standard normal density
    and survival function.

    Parameters
    ----------
    x : float or ndarray
        Non-negative arguments (negative ones give 1).

    Returns
    -------
    sf : float or ndarray
        :math:`P(R \ge x)`, of the shape of ``x``.
    """
    k = np.arange(_N_TERMS)[:, None]

    def small(x):
        half = (k + 0.5) * np.pi
        cdf = np.sum(
            (8.0 / x**2 + 2.0 / half**2) * np.exp(-2.0 * (half / x) ** 2), axis=0
        )
        return 1.0 - cdf

    def large(x):
        j = k + 1.0
        return 8.0 * np.sum((-1.0) ** k * j * ndtr(-j * x), axis=0)

    return _evaluate(x, small, large, 1.5)


# ---------------------------------------------------------------------------
# The tests of one binary view: (y, p, w) -> (statistic, p_value, extras)
# ---------------------------------------------------------------------------


def _cumulative_residuals(y, p, sample_weight):
    """The cumulative residuals at the ends of tie groups, and their null SD.

    Returns ``prefix`` (:func:`~skcal._utils._cumulative.residual_prefix_sums`,
    :math:`C_k` divided by the total weight) and
    :math:`\\sigma = \\sqrt{\\sum_i w_i^2 p_i (1 - p_i)} / W`.
    """
    ties = Ties(p, sample_weight)
    prefix = residual_prefix_sums(ties, y)
    variance = p * (1.0 - p)
    if sample_weight is not None:
        total = float(np.dot(sample_weight * sample_weight, variance))
    else:
        total = float(variance.sum())
    return prefix, math.sqrt(total) / ties.total_weight


def _standardized(value, scale):
    """``value / scale``; with ``scale == 0``, 0 if ``value`` is 0 else infinity.

    A zero scale means no randomness under the null hypothesis (predictions
    of 0 and 1): a zero ``value`` is then certain and any other impossible.
    """
    if scale > 0.0:
        return value / scale
    return 0.0 if value == 0.0 else math.inf


def _brownian_result(statistic, sigma, survival):
    """The statistic with its normalised value and p-value under ``survival``.

    With :math:`\\sigma = 0` (every prediction 0 or 1) the normalised
    statistic is 0 when the statistic is (p-value 1), infinite otherwise
    (p-value 0).
    """
    normalized = _standardized(statistic, sigma)
    extras = {"normalized_statistic": float(normalized), "sigma": float(sigma)}
    return float(statistic), float(survival(normalized)), extras


def _kolmogorov_smirnov_view(y, p, sample_weight):
    """Largest absolute cumulative residual, against ``sup |B|``."""
    prefix, sigma = _cumulative_residuals(y, p, sample_weight)
    statistic = max(float(prefix.max()), -float(prefix.min()), 0.0)
    return _brownian_result(statistic, sigma, brownian_sup_sf)


def _kuiper_view(y, p, sample_weight):
    """Range of the cumulative residual (the cutoff error), against the range."""
    prefix, sigma = _cumulative_residuals(y, p, sample_weight)
    statistic = float(range_with_zero(prefix))
    return _brownian_result(statistic, sigma, brownian_range_sf)


def _spiegelhalter_view(y, p, sample_weight):
    """Spiegelhalter's Z and its two-sided normal p-value."""
    slope = 1.0 - 2.0 * p
    terms = (y - p) * slope
    variance = slope * slope * p * (1.0 - p)
    if sample_weight is not None:
        terms *= sample_weight
        variance *= sample_weight * sample_weight
    numerator, spread = float(terms.sum()), math.sqrt(float(variance.sum()))
    # A zero spread means that every prediction is 0, 1/2 or 1: the numerator
    # then counts the wrong predictions of 0 and 1 (those of 1/2 add nothing).
    z = _standardized(numerator, spread)
    return z, float(2.0 * ndtr(-abs(z))), {}


def _hosmer_lemeshow_view(y, p, sample_weight, *, n_groups, in_sample, scale):
    """The Hosmer-Lemeshow chi-square over quantile groups of predictions.

    ``scale`` multiplies the validated weights back to the user's, which
    the statistic reads as frequencies.
    """
    binning = make_binning(p, sample_weight, n_groups, "quantile")
    sums = bin_sums(binning, y, p, sample_weight)
    size, expected, observed = (
        sums.weight * scale,
        sums.sum_p * scale,
        sums.sum_y * scale,
    )
    kept = size > 0
    size, expected, observed = size[kept], expected[kept], observed[kept]
    variance = expected * (1.0 - expected / size)
    used = variance > 0
    with np.errstate(over="ignore"):  # a tiny variance: infinite evidence
        gaps = (observed[used] - expected[used]) ** 2 / variance[used]
    statistic = float(np.sum(gaps))
    dof = int(np.count_nonzero(used)) - (2 if in_sample else 0)
    p_value = float(chi2.sf(statistic, dof)) if dof > 0 else math.nan
    extras = {
        "dof": dof,
        "observed": observed,
        "expected": expected,
        "size": size,
        "edges": np.r_[binning.edges[0], binning.edges[1:][kept]],
    }
    return statistic, p_value, extras


# ---------------------------------------------------------------------------
# Reductions: one view, or every class with Bonferroni's combination
# ---------------------------------------------------------------------------


def _run_test(data, reduction, view_test, method):
    """Apply ``view_test`` under a reduction and gather the result.

    Parameters
    ----------
    data : CalibrationData
        Validated inputs.
    reduction : {"auto", "positive", "top_label", "classwise"}
        The reduction.
    view_test : callable
        ``view_test(y, p, sample_weight) -> (statistic, p_value, extras)``
        on one binary view, ``extras`` a dict of further fields.
    method : str
        The name of the test.

    Returns
    -------
    result : Bunch
        ``statistic``, ``p_value``, the extras, ``null_hypothesis``,
        ``method``, ``n_effective`` and ``per_class``. Under ``"classwise"``
        the p-value is Bonferroni's ``min(1, K min_k p_k)`` over the ``K``
        classes (NaN p-values ignored; NaN when all are), the statistic and
        extras are those of the class of the smallest p-value, and
        ``per_class`` holds every class's statistic and p-value.
    """
    reduction = resolve_reduction(data, reduction)
    results = [
        view_test(y, p, data.sample_weight) for y, p in binary_views(data, reduction)
    ]
    p_values = np.array([r[1] for r in results], dtype=np.float64)
    best, p_value, per_class = 0, float(p_values[0]), None
    if reduction == "classwise":
        finite = np.flatnonzero(~np.isnan(p_values))
        if finite.shape[0]:
            best = int(finite[np.argmin(p_values[finite])])
        p_value = float(np.minimum(1.0, len(results) * p_values[best]))
        per_class = Bunch(
            statistic=np.array([r[0] for r in results], dtype=np.float64),
            p_value=p_values,
        )
    statistic, _, extras = results[best]
    return Bunch(
        statistic=float(statistic),
        p_value=p_value,
        **extras,
        null_hypothesis=NULL_HYPOTHESIS,
        method=method,
        n_effective=effective_size(data.sample_weight, data.y_prob.shape[0]),
        per_class=per_class,
    )


# ---------------------------------------------------------------------------
# Public tests
# ---------------------------------------------------------------------------

# Docstring entries shared by the four tests (inserted by `_test_doc`).
_TEST_DOC = {
    "test_reduction": """\
reduction : {"auto", "positive", "top_label", "classwise"}, default="auto"
    How a multiclass problem is reduced to binary ones. ``"positive"``:
    the probability of ``pos_label`` against its indicator.
    ``"top_label"``: the largest probability (confidence) against the
    correctness of the argmax. ``"classwise"``: every one-vs-rest column
    is tested, and the p-values are combined by Bonferroni's rule (the
    null hypothesis is then that every column is calibrated). ``"auto"``
    is ``"positive"`` for binary problems (and when ``pos_label`` is
    given) and ``"top_label"`` otherwise. See :ref:`multiclass`.""",
    "test_fields": """\
- ``null_hypothesis``: ``"perfect calibration: P(y = 1 | p) = p"``;
- ``method``: the name of the test;
- ``n_effective``: the number of rows, or Kish's effective size
  :math:`(\\sum_i w_i)^2 / \\sum_i w_i^2` when weighted;
- ``per_class``: with ``reduction="classwise"``, a
  :class:`~sklearn.utils.Bunch` of arrays of shape ``(n_classes,)``,
  ``statistic`` and ``p_value`` of each class (then ``p_value`` above is
  Bonferroni's :math:`\\min(1, K \\min_k p_k)` over the :math:`K`
  classes, and the other fields are those of the class of the smallest
  p-value); None for the other reductions.""",
}


_test_doc = fill_doc_from(_TEST_DOC)


@validate_params(_TEST_CONSTRAINTS, prefer_skip_nested_validation=True)
@accepts_groups
@_test_doc
def kolmogorov_smirnov_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Kolmogorov-Smirnov test of perfect calibration on cumulative residuals.

    The residuals ``y - p`` are summed along the predictions in increasing
    order. Under perfect calibration this cumulative sum wanders around 0
    like a random walk; the statistic is its largest distance from 0, and
    the p-value comes from the law of the largest absolute value of a
    standard Brownian motion on [0, 1] (Arrieta-Ibarra et al., 2022;
    Tygert, 2021). Unlike binned tests it needs no bins and no other
    tuning parameter.

    Read more in the :ref:`User Guide <calibration_tests>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    %(test_reduction)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields:

        - ``statistic``: the largest absolute cumulative residual
          :math:`\max_k |C_k|`, in probability units (the ECCE-MAD of
          Arrieta-Ibarra et al.);
        - ``p_value``: the probability that :math:`\sup_t |B_t|` reaches
          ``normalized_statistic``, for a standard Brownian motion
          :math:`B` on [0, 1];
        - ``normalized_statistic``: ``statistic / sigma``;
        - ``sigma``: the standard deviation of the total residual
          :math:`C_m` under perfect calibration;
        %(test_fields)s

    See Also
    --------
    kuiper_test : The range of the same cumulative residual.
    spiegelhalter_test : A test of the Brier score.
    hosmer_lemeshow_test : The chi-square test over groups of predictions.
    cutoff_calibration_error : The same cumulative residual as a measure.

    Notes
    -----
    Let :math:`u_1 < \dots < u_m` be the distinct predictions, :math:`w_i`
    the weights (all 1 when unweighted) and :math:`W = \sum_i w_i`. The
    cumulative residual at the end of the :math:`k`-th group of equal
    predictions is

    .. math::

        C_k = \frac{1}{W} \sum_{i:\, p_i \le u_k} w_i (y_i - p_i),
        \qquad C_0 = 0,

    and the test compares :math:`\max_k |C_k|` with

    .. math::

        \sigma = \frac{1}{W} \sqrt{\sum_i w_i^2\, p_i (1 - p_i)},

    the standard deviation of :math:`C_m` when every :math:`y_i` is drawn
    from :math:`p_i`. Under that null hypothesis :math:`C_k / \sigma` is a
    martingale whose variance grows from 0 to 1; by the functional central
    limit theorem it approaches a standard Brownian motion :math:`B` run
    at those variances, so that the p-value is
    :math:`P(\sup_{0 \le t \le 1} |B_t| \ge \max_k |C_k| / \sigma)`
    ([2]_, [3]_). It is evaluated by the series of Darling and Siegert
    [4]_ for the distribution function below 1, and by the reflection
    series :math:`4 \sum_{j \ge 0} (-1)^j \bar\Phi((2j + 1) x)` at
    :math:`x \ge 1` (:math:`\bar\Phi` the standard normal survival
    function), which keeps full relative precision for tiny p-values
    (MAPIE's ``1 - cdf`` is accurate to about 1e-11 only). This is the law
    of Brownian *motion*, not that of the Brownian bridge of the classical
    Kolmogorov-Smirnov test of a distribution: the total residual is not
    pinned to 0. As the maximum is taken over finitely many times, the
    p-value is slightly conservative at finite sample sizes.

    The cumulative sum is read only at the ends of groups of equal
    predictions, so that the order of tied rows never matters; MAPIE and
    the code of [1]_ break ties by adding a tiny random jitter to the
    predictions, or by row order, instead. Where all predictions are 0 or
    1, :math:`\sigma = 0`: the p-value is then 1 when every outcome agrees
    with its prediction, else 0 (``normalized_statistic`` 0 or infinity).

    Weights are read as sampling (importance) weights, so that scaling
    them changes nothing; a row of integer weight :math:`w` gives the
    same statistic as :math:`w` copies of the row, but a smaller p-value
    than one row and a larger one than :math:`w` independent rows.

    References
    ----------
    .. [1] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu,
       "Metrics of calibration for probabilistic predictions", JMLR
       23(351), 2022, arXiv:2205.09680.
    .. [2] M. Tygert, "Cumulative deviation of a subpopulation from the
       full population", Journal of Big Data 8, 2021, arXiv:2008.01779.
    .. [3] M. Tygert, "Calibration of P-values for calibration and for
       deviation of a subpopulation from the full population", 2022,
       arXiv:2202.00100.
    .. [4] D. A. Darling and A. J. F. Siegert, "The first passage problem
       for a continuous Markov process", Annals of Mathematical Statistics
       24(4), 1953.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.metrics import kolmogorov_smirnov_test
    >>> rng = np.random.RandomState(1)
    >>> y_prob = rng.uniform(size=1000)
    >>> y_true = rng.uniform(size=1000) < y_prob
    >>> result = kolmogorov_smirnov_test(y_true, y_prob)
    >>> round(result.statistic, 4), round(result.p_value, 4)
    (0.0147, 0.5111)

    Events drawn with probability :math:`p^2` instead of :math:`p` are
    detected:

    >>> y_true = rng.uniform(size=1000) < y_prob**2
    >>> result = kolmogorov_smirnov_test(y_true, y_prob)
    >>> round(result.statistic, 4), bool(result.p_value < 1e-10)
    (0.1545, True)
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    return _run_test(data, reduction, _kolmogorov_smirnov_view, "Kolmogorov-Smirnov")


@validate_params(_TEST_CONSTRAINTS, prefer_skip_nested_validation=True)
@accepts_groups
@_test_doc
def kuiper_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Kuiper test of perfect calibration on cumulative residuals.

    The residuals ``y - p`` are summed along the predictions in increasing
    order, and the statistic is the range (largest minus smallest value)
    of this cumulative sum: the largest mean residual over an interval of
    predictions, which is the cutoff calibration error of
    :func:`cutoff_calibration_error`. The p-value comes from the law of
    the range of a standard Brownian motion on [0, 1] (Arrieta-Ibarra et
    al., 2022; Tygert, 2021). Unlike :func:`kolmogorov_smirnov_test` it
    does not depend on where the sum starts, so that miscalibration among
    high predictions counts as much as among low ones.

    Read more in the :ref:`User Guide <calibration_tests>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    %(test_reduction)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields:

        - ``statistic``: the range :math:`\max_k C_k - \min_k C_k` of the
          cumulative residual, in probability units (the ECCE-R of
          Arrieta-Ibarra et al., and the cutoff calibration error);
        - ``p_value``: the probability that the range of a standard
          Brownian motion on [0, 1] reaches ``normalized_statistic``;
        - ``normalized_statistic``: ``statistic / sigma``;
        - ``sigma``: the standard deviation of the total residual
          :math:`C_m` under perfect calibration;
        %(test_fields)s

    See Also
    --------
    kolmogorov_smirnov_test : The largest absolute value of the same sum.
    cutoff_calibration_error : The statistic, as a measure.
    cutoff_calibration_test : Certify that this statistic is small.
    spiegelhalter_test : A test of the Brier score.
    hosmer_lemeshow_test : The chi-square test over groups of predictions.

    Notes
    -----
    With the cumulative residuals :math:`C_0 = 0, C_1, \dots, C_m` at the
    ends of the groups of equal predictions and their null standard
    deviation :math:`\sigma` (see :func:`kolmogorov_smirnov_test`), the
    statistic and p-value are

    .. math::

        K = \max_{0 \le k \le m} C_k - \min_{0 \le k \le m} C_k, \qquad
        P\big(\max_t B_t - \min_t B_t \ge K / \sigma\big),

    with the law of the range of Feller (1951) ([2]_, [3]_): below 1.5
    one minus the theta series of its distribution function, and from 1.5
    on the survival function
    :math:`8 \sum_{j \ge 1} (-1)^{j+1} j\, \bar\Phi(j x)` integrated
    from Feller's density, which keeps full relative precision for tiny
    p-values. :math:`K` is
    :math:`\sup_I |\frac{1}{W} \sum_i w_i (y_i - p_i) \mathbf{1}\{p_i \in
    I\}|` over the intervals :math:`I`, the statistic
    :func:`cutoff_calibration_error` computes; it lies between the
    Kolmogorov-Smirnov statistic and twice it. :math:`C_0 = 0` is part of
    the range, as in [1]_; MAPIE leaves it out, which makes a smaller
    statistic when every :math:`C_k` has the same sign. Ties, weights and
    :math:`\sigma = 0` are handled as in :func:`kolmogorov_smirnov_test`:
    the sum is read at the ends of tie groups (MAPIE and [1]_'s code break
    ties by jitter or row order instead), and the p-value is 1 or 0 when
    every prediction is 0 or 1.

    References
    ----------
    .. [1] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu,
       "Metrics of calibration for probabilistic predictions", JMLR
       23(351), 2022, arXiv:2205.09680.
    .. [2] M. Tygert, "Cumulative deviation of a subpopulation from the
       full population", Journal of Big Data 8, 2021, arXiv:2008.01779.
    .. [3] W. Feller, "The asymptotic distribution of the range of sums of
       independent random variables", Annals of Mathematical Statistics
       22(3), 1951, doi:10.1214/aoms/1177729589.

    Examples
    --------
    >>> from skcal.metrics import kuiper_test
    >>> y_true = [0, 1, 0, 1, 1, 1]
    >>> y_prob = [0.2, 0.2, 0.5, 0.5, 0.8, 0.8]

    The cumulative residual is 0, 0.6 / 6, 0.6 / 6 and 1.0 / 6; its range
    is 1 / 6:

    >>> result = kuiper_test(y_true, y_prob)
    >>> round(result.statistic, 4), round(result.p_value, 4)
    (0.1667, 0.9642)
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    return _run_test(data, reduction, _kuiper_view, "Kuiper")


@validate_params(_TEST_CONSTRAINTS, prefer_skip_nested_validation=True)
@accepts_groups
@_test_doc
def spiegelhalter_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Spiegelhalter z-test of perfect calibration.

    Under perfect calibration the Brier score has a known expectation and
    variance given the predictions; the statistic is the standardised
    difference between the observed Brier score and that expectation
    (Spiegelhalter, 1986), and the p-value is two-sided normal. A positive
    statistic means more squared error than calibrated predictions would
    make (typically overconfidence), a negative one less (typically
    underconfidence).

    Read more in the :ref:`User Guide <calibration_tests>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    %(test_reduction)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields:

        - ``statistic``: :math:`Z`, signed;
        - ``p_value``: the two-sided normal p-value
          :math:`2 \bar\Phi(|Z|)`;
        %(test_fields)s

    See Also
    --------
    kolmogorov_smirnov_test : A test on the cumulative residual.
    hosmer_lemeshow_test : The chi-square test over groups of predictions.
    calibration_decomposition : The Brier score split into calibration and
        sharpness.

    Notes
    -----
    For :math:`y_i \in \{0, 1\}`,
    :math:`(y_i - p_i)^2 - p_i (1 - p_i) = (y_i - p_i)(1 - 2 p_i)`, whose
    mean is 0 and variance :math:`(1 - 2 p_i)^2 p_i (1 - p_i)` when
    :math:`y_i` is drawn from :math:`p_i`. With weights :math:`w_i`,

    .. math::

        Z = \frac{\sum_i w_i (y_i - p_i)(1 - 2 p_i)}
        {\sqrt{\sum_i w_i^2 (1 - 2 p_i)^2 p_i (1 - p_i)}}

    is approximately standard normal under perfect calibration. The test
    looks at one direction of miscalibration only: predictions of 1/2
    carry no weight, and errors of opposite signs on either side of 1/2
    can cancel, so a miscalibrated model may pass it. Where every
    prediction is 0, 1/2 or 1 the denominator is 0: then :math:`Z = 0` and
    the p-value is 1 when every prediction of 0 or 1 is right (the test
    has no information), and :math:`Z = +\infty` with p-value 0 when one
    is wrong. Weights are sampling weights, as in
    :func:`kolmogorov_smirnov_test`. MAPIE's ``spiegelhalter_p_value`` is
    one-sided, :math:`1 - \Phi(Z)`, so that it rejects overconfidence only.

    References
    ----------
    .. [1] D. J. Spiegelhalter, "Probabilistic prediction in patient
       management and clinical trials", Statistics in Medicine 5(5),
       1986, doi:10.1002/sim.4780050506.

    Examples
    --------
    >>> from skcal.metrics import spiegelhalter_test
    >>> y_true = [0, 1, 0, 1, 1, 0, 1, 1]
    >>> y_prob = [0.1, 0.9, 0.2, 0.8, 0.7, 0.3, 0.6, 0.6]
    >>> result = spiegelhalter_test(y_true, y_prob)
    >>> round(result.statistic, 4), round(result.p_value, 4)
    (-1.4213, 0.1552)
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    return _run_test(data, reduction, _spiegelhalter_view, "Spiegelhalter")


@validate_params(
    {
        **_TEST_CONSTRAINTS,
        "n_groups": [Interval(Integral, 1, None, closed="left")],
        "in_sample": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@_test_doc
def hosmer_lemeshow_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_groups: int = 10,
    in_sample: bool = False,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
) -> Bunch:
    r"""Hosmer-Lemeshow chi-square test of perfect calibration.

    The rows are split into ``n_groups`` groups of equal weight by
    quantiles of the prediction ("deciles of risk" by default), and
    Pearson's chi-square compares the observed number of events of each
    group with the expected number, the sum of its predictions (Hosmer and
    Lemeshow, 1980). The classical goodness-of-fit test of logistic
    regression; known to be fragile (see Notes).

    Read more in the :ref:`User Guide <calibration_tests>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    n_groups : int, default=10
        The number of groups of predictions. Identical predictions share a
        group, so there may be fewer (see Notes).
    in_sample : bool, default=False
        Whether the model was fitted on these rows (a logistic regression
        with an intercept, in the original setting): the chi-square law
        then has ``n_groups - 2`` degrees of freedom instead of
        ``n_groups``, the latter being right for predictions on new data
        (external validation). Needs ``n_groups >= 3``.
    %(test_reduction)s

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields:

        - ``statistic``: :math:`H`;
        - ``p_value``: :math:`P(\chi^2_{\mathrm{dof}} \ge H)`; NaN when
          ``dof <= 0``;
        - ``dof``: the degrees of freedom, the number of groups counted in
          :math:`H`, less 2 when ``in_sample``;
        - ``observed``, ``expected``, ``size``: ndarrays of shape
          ``(n_nonempty_groups,)``, the (weighted) number of events, sum of
          predictions and number of rows of each non-empty group;
        - ``edges``: ndarray of shape ``(n_nonempty_groups + 1,)``; group
          :math:`g` holds the predictions in
          ``(edges[g], edges[g + 1]]`` (the first one also
          ``edges[0] = 0``);
        %(test_fields)s

    See Also
    --------
    reliability_table : The same groups (``strategy="quantile"``) as a
        table of mean predictions and event rates.
    kolmogorov_smirnov_test : A test without groups.
    spiegelhalter_test : A test of the Brier score.

    Notes
    -----
    With groups :math:`g = 1, \dots, G` and weights :math:`w_i`, let
    :math:`N_g = \sum_{i \in g} w_i`, :math:`O_g = \sum_{i \in g} w_i y_i`
    and :math:`E_g = \sum_{i \in g} w_i p_i`. The statistic is

    .. math::

        H = \sum_g \frac{(O_g - E_g)^2}{E_g (1 - E_g / N_g)},

    Pearson's chi-square of the :math:`2 \times G` table of events and
    non-events, referred to a chi-square law with :math:`G` degrees of
    freedom (external validation) or :math:`G - 2` (``in_sample``, as
    Hosmer and Lemeshow showed by simulation for a fitted logistic
    regression). The groups are the quantile bins of
    :func:`reliability_table`: the inner edges are weighted quantiles of
    the predictions, and identical predictions always share a group.
    Empty groups, and groups with :math:`E_g (1 - E_g / N_g) = 0` (all
    their predictions 0, or all 1), are left out of the sum and of the
    degrees of freedom, so a wrong certain prediction goes unnoticed here.

    Known weaknesses: the p-value depends on the number of groups and on
    how ties at group edges are split, so that software packages disagree
    on the same data ([2]_, [3]_); the power is low at small sample sizes;
    at very large ones, any miscalibration, however slight, is rejected
    (as with every test of perfect calibration); and the chi-square law
    holds for counts, so the weights are read as frequencies: integer
    weights give the result of repeated rows, and scaling the weights by
    :math:`c` scales :math:`H` by :math:`c`. Use unit-scale weights, or
    another test, for sampling weights.

    References
    ----------
    .. [1] D. W. Hosmer and S. Lemeshow, "Goodness of fit tests for the
       multiple logistic regression model", Communications in Statistics -
       Theory and Methods 9(10), 1980, doi:10.1080/03610928008827941.
    .. [2] D. W. Hosmer, T. Hosmer, S. le Cessie and S. Lemeshow, "A
       comparison of goodness-of-fit tests for the logistic regression
       model", Statistics in Medicine 16(9), 1997.
    .. [3] G. Bertolini, R. D'Amico, D. Nardi, A. Tinazzi and G. Apolone,
       "One model, several results: the paradox of the Hosmer-Lemeshow
       goodness-of-fit test for the logistic regression model", Journal of
       Epidemiology and Biostatistics 5(4), 2000.

    Examples
    --------
    >>> from skcal.metrics import hosmer_lemeshow_test
    >>> y_true = [0, 0, 1, 0, 1, 0, 1, 1]
    >>> y_prob = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    >>> result = hosmer_lemeshow_test(y_true, y_prob, n_groups=2)
    >>> result.observed.tolist(), result.expected.tolist(), result.dof
    ([1.0, 3.0], [1.0, 2.6], 2)
    >>> round(result.statistic, 4), round(result.p_value, 4)
    (0.1758, 0.9158)
    """
    if in_sample and n_groups < 3:
        raise ValueError(
            f"in_sample=True needs n_groups >= 3 (the chi-square law has "
            f"n_groups - 2 degrees of freedom); got n_groups={n_groups}."
        )
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    view_test = functools.partial(
        _hosmer_lemeshow_view,
        n_groups=n_groups,
        in_sample=in_sample,
        scale=data.weight_scale,
    )
    return _run_test(data, reduction, view_test, "Hosmer-Lemeshow")
