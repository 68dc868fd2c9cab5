"""Calibration of a predictive distribution through its probability integral
transform (PIT): the values, their distance from uniform, and a test."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from scipy.special import ndtr
from scipy.stats import kstwo, kstwobign
from sklearn.utils import Bunch

from skcal._docstrings import REGRESSION_DOC, fill_doc_from
from skcal._param_validation import StrOptions, validate_params
from skcal._typing import ArrayLike
from skcal._utils._scaling import effective_size, normalized_weights
from skcal.regression._scores import standardized_errors
from skcal.regression._validation import GAUSSIAN_CONSTRAINTS, check_gaussian_inputs

NULL_HYPOTHESIS = "the PIT values are uniform on [0, 1]"


@validate_params(
    {"y_true": ["array-like"], "y_mean": ["array-like"], "y_std": ["array-like"]},
    prefer_skip_nested_validation=True,
)
@fill_doc_from(REGRESSION_DOC)
def pit_values(y_true: ArrayLike, y_mean: ArrayLike, y_std: ArrayLike) -> np.ndarray:
    r"""Probability integral transform of outcomes under Gaussian predictions.

    The PIT of an outcome :math:`y` under a predictive distribution
    function :math:`F` is :math:`F(y)`; here
    :math:`\Phi((y - \mu) / \sigma)`. A predictive distribution is
    probabilistically calibrated when its PIT is uniform on [0, 1]:
    a U-shaped histogram of the values shows over-confident (too narrow)
    predictions, a hump under-confident ones, and a slope a biased mean
    (Gneiting, Balabdaoui and Raftery, 2007).

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s

    Returns
    -------
    pit : ndarray of shape (n_samples,)
        The PIT values, in [0, 1].

    See Also
    --------
    pit_calibration_error : The distance of their distribution from uniform.
    pit_uniformity_test : A test of their uniformity.
    skcal.plotting.PITHistogramDisplay : Their histogram.

    Examples
    --------
    >>> from skcal.regression import pit_values
    >>> pit_values([0.0, 1.0], [0.0, 0.0], [1.0, 1.0]).round(4).tolist()
    [0.5, 0.8413]
    """
    return pit_of(check_gaussian_inputs(y_true, y_mean, y_std))


def pit_of(data):
    """The PIT values of validated Gaussian predictions."""
    return ndtr(standardized_errors(data))


def _ecdf_steps(u, sample_weight):
    """The sorted values and the empirical distribution function after each.

    Returns ``(left, right, level)``: the ECDF is ``level[i]`` on
    ``[left[i], right[i])``, covering [0, 1] (with 0 before the first value
    and 1 after the last). The order of tied values does not matter: their
    steps have zero width, and their partial levels lie between the levels
    before and after the tie, which bound every distance.
    """
    if sample_weight is None:
        values = np.sort(u)
        level = np.arange(1, values.shape[0] + 1) / values.shape[0]
    else:
        order = np.argsort(u)
        values = u[order]
        weight = normalized_weights(sample_weight)[order]
        cumulative = np.cumsum(weight)
        level = cumulative / cumulative[-1]
    left = np.concatenate([[0.0], values])
    right = np.concatenate([values, [1.0]])
    return left, right, np.concatenate([[0.0], level])


def uniform_distance(u, sample_weight, norm):
    """The L1, L2 or sup (``norm``) distance of the ECDF of ``u`` from the identity.

    On a step ``[a, b)`` of level ``c``, :math:`\\int_a^b |t - c|\\,dt =
    g(b) - g(a)` with :math:`g(t) = (t - c)|t - c| / 2`, and
    :math:`\\int_a^b (t - c)^2 dt = ((b - c)^3 - (a - c)^3) / 3`; the
    supremum over the closed step is at one of its ends.
    """
    left, right, level = _ecdf_steps(u, sample_weight)
    a, b = left - level, right - level
    if norm == "l1":
        return float(np.sum(b * np.abs(b) - a * np.abs(a)) / 2.0)
    if norm == "l2":  # products, not b**3: numpy's float power is 30x slower
        return math.sqrt(max(float(np.sum(b * b * b - a * a * a) / 3.0), 0.0))
    return float(max(np.abs(a).max(), np.abs(b).max()))


@validate_params(
    {**GAUSSIAN_CONSTRAINTS, "norm": [StrOptions({"l1", "l2", "max"})]},
    prefer_skip_nested_validation=True,
)
@fill_doc_from(REGRESSION_DOC)
def pit_calibration_error(
    y_true: ArrayLike,
    y_mean: ArrayLike,
    y_std: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    norm: Literal["l1", "l2", "max"] = "l1",
) -> float:
    r"""Distance of the PIT's distribution from uniform.

    With :math:`\hat G` the (weighted) empirical distribution function of
    the PIT values :math:`u_i = \Phi((y_i - \mu_i)/\sigma_i)`, the error is

    .. math::

        \int_0^1 |\hat G(t) - t|\, dt \;(\text{l1}), \qquad
        \Big(\int_0^1 (\hat G(t) - t)^2 dt\Big)^{1/2} \;(\text{l2}), \qquad
        \sup_t |\hat G(t) - t| \;(\text{max}),

    computed exactly from the sorted values in :math:`O(n \log n)`. The L1
    distance is the Wasserstein-1 distance between the PIT's distribution
    and the uniform, the average over levels :math:`t` of the gap between
    the nominal and the observed coverage of the predicted
    :math:`t`-quantiles; the sup distance is the Kolmogorov-Smirnov
    statistic of :func:`pit_uniformity_test`. It is 0 only when the
    predictions are probabilistically calibrated (Gneiting, Balabdaoui and
    Raftery, 2007) and, like every calibration error, it ignores sharpness:
    the marginal distribution of the target, predicted for every sample,
    has a uniform PIT. Its estimate is biased upward at small samples: the
    L1 distance of :math:`n` uniform values is about
    :math:`\sqrt{\pi/32}/\sqrt{n} \approx 0.31/\sqrt{n}` on average.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s
    %(sample_weight)s
    norm : {"l1", "l2", "max"}, default="l1"
        The distance.

    Returns
    -------
    error : float
        In [0, 1]; 0 for a perfectly uniform PIT.

    See Also
    --------
    pit_values : The PIT values.
    pit_uniformity_test : Whether the distance is more than chance.
    quantile_calibration_error : The same idea at a few levels.

    References
    ----------
    .. [1] T. Gneiting, F. Balabdaoui and A. E. Raftery, "Probabilistic
       forecasts, calibration and sharpness", Journal of the Royal
       Statistical Society B 69(2), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.regression import pit_calibration_error
    >>> rng = np.random.RandomState(0)
    >>> y = rng.normal(size=2000)
    >>> mean = np.zeros(2000)
    >>> round(pit_calibration_error(y, mean, np.ones(2000)), 3)  # calibrated
    0.007
    >>> round(pit_calibration_error(y, mean, np.full(2000, 0.5)), 3)  # too narrow
    0.097
    """
    data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
    return uniform_distance(pit_of(data), data.sample_weight, norm)


@validate_params(GAUSSIAN_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc_from(REGRESSION_DOC)
def pit_uniformity_test(
    y_true: ArrayLike,
    y_mean: ArrayLike,
    y_std: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> Bunch:
    r"""Kolmogorov-Smirnov test that the PIT values are uniform.

    The statistic is :math:`D = \sup_t |\hat G(t) - t|`, the largest gap
    between the (weighted) empirical distribution function of the PIT
    values and the uniform one (:func:`pit_calibration_error` with
    ``norm="max"``). Unweighted, the p-value is that of the exact law of
    :math:`D` for :math:`n` independent uniform values (as
    :func:`scipy.stats.kstest` computes it). Weighted, it is Stephens'
    approximation :math:`P(K \ge D(\sqrt m + 0.12 + 0.11/\sqrt m))` with
    :math:`K` Kolmogorov's limit law and :math:`m` Kish's effective sample
    size :math:`(\sum w)^2 / \sum w^2`.

    The values must be independent under the null hypothesis: the PIT of
    test data, not of the data the model was fitted on.

    Read more in the :ref:`User Guide <regression>`.

    Parameters
    ----------
    %(y_true)s
    %(y_mean)s
    %(y_std)s
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights, read as sampling weights.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With the fields ``statistic`` (:math:`D`), ``p_value``,
        ``n_effective`` (the sample size the p-value assumes),
        ``method`` and ``null_hypothesis``.

    See Also
    --------
    pit_calibration_error : The distance as a measure.

    References
    ----------
    .. [1] M. A. Stephens, "Use of the Kolmogorov-Smirnov, Cramer-von Mises
       and related statistics without extensive tables", Journal of the
       Royal Statistical Society B 32(1), 1970.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.regression import pit_uniformity_test
    >>> rng = np.random.RandomState(0)
    >>> y = rng.normal(size=500)
    >>> result = pit_uniformity_test(y, np.zeros(500), np.ones(500))
    >>> round(result.p_value, 2)
    0.77
    >>> bool(pit_uniformity_test(y, np.zeros(500), np.full(500, 0.5)).p_value < 1e-6)
    True
    """
    data = check_gaussian_inputs(y_true, y_mean, y_std, sample_weight)
    u = pit_of(data)
    statistic = uniform_distance(u, data.sample_weight, "max")
    n = u.shape[0]
    if data.sample_weight is None:
        p_value = float(kstwo.sf(statistic, n))
        n_effective = float(n)
    else:
        n_effective = float(effective_size(data.sample_weight, n))
        root = math.sqrt(n_effective)
        p_value = float(kstwobign.sf(statistic * (root + 0.12 + 0.11 / root)))
    return Bunch(
        statistic=statistic,
        p_value=min(max(p_value, 0.0), 1.0),
        n_effective=n_effective,
        method="Kolmogorov-Smirnov",
        null_hypothesis=NULL_HYPOTHESIS,
    )
