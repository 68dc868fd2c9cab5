"""Vector scaling, matrix scaling and Dirichlet calibration: softmax of a linear map.

The three recalibrators map a classifier's scores to
``softmax(W x + b)``, with ``x`` the centred logits (vector and matrix
scaling, Guo et al., 2017) or the log-probabilities (Dirichlet calibration,
Kull et al., 2019), and ``W`` diagonal (vector scaling) or full. They share
one class, which holds the features, the penalties and the fit
(:func:`~skcal.calibration._linear_softmax.fit_linear_softmax`); they differ
only in the structure of ``W``, the features and the defaults.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
from scipy.special import log_softmax

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval
from skcal._typing import ArrayLike
from skcal._utils._scaling import power_of_two_scale
from skcal.calibration._base import BaseRecalibrator, score_log_probabilities
from skcal.calibration._linear_softmax import LinearSoftmax, fit_linear_softmax

_LARGEST = float(np.finfo(np.float64).max)


def centred_logits(scores):
    """Logits minus their row mean: what the softmax of a row depends on.

    A binary score ``s`` (a log-odds) gives ``(-s / 2, s / 2)``. The rows are
    divided by an exact power of two before their means are taken, so that
    logits near the largest float do not overflow.
    """
    logits = score_log_probabilities(scores)
    scale = power_of_two_scale(logits)
    z = logits / scale
    with np.errstate(over="ignore"):
        centred = (z - z.mean(axis=1, keepdims=True)) * scale
    return np.clip(centred, -_LARGEST, _LARGEST)


def log_probabilities(scores):
    """Logarithms of the probabilities: ``log_softmax`` of the logits.

    Probabilities give their logarithms (clipped at ``1e-12`` and
    renormalised); a binary score gives ``(log(1 - p), log p)``.
    """
    with np.errstate(over="ignore"):
        log_p = log_softmax(score_log_probabilities(scores), axis=1)
    return np.maximum(log_p, -_LARGEST)


class _LinearSoftmaxRecalibrator(BaseRecalibrator):
    """Base class: ``softmax(W x + b)`` on features ``x`` of the scores.

    Subclasses set ``_diagonal`` (the structure of ``W``) and ``_features``
    (a function of validated scores), and define ``__init__``.
    """

    _parameter_constraints: dict = {
        **BaseRecalibrator._parameter_constraints,
        "intercept_penalty": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    _diagonal = False
    _features = staticmethod(centred_logits)

    def _off_diagonal_penalty(self):
        return self.off_diagonal_penalty

    def _fit_scores(self, X, scores, y, sample_weight):
        fitted = fit_linear_softmax(
            self._features(scores),
            y,
            sample_weight,
            diagonal=self._diagonal,
            off_diagonal_penalty=self._off_diagonal_penalty(),
            intercept_penalty=self.intercept_penalty,
            max_iter=self.max_iter,
        )
        self.coef_ = fitted.coef
        self.intercept_ = fitted.intercept
        self.n_iter_ = fitted.n_iter

    def _predict_proba_scores(self, X, scores):
        fitted = LinearSoftmax(self.coef_, self.intercept_, self.n_iter_)
        return fitted(self._features(scores))


# The parameter of the full maps only.
_OFF_DIAGONAL_CONSTRAINT = {
    "off_diagonal_penalty": [Interval(Real, 0, None, closed="left")]
}


@fill_doc
class VectorScalingRecalibrator(_LinearSoftmaxRecalibrator):
    r"""Recalibrate with a slope and an intercept per class's logit (vector scaling).

    The calibrated probabilities are

    .. math::

        \mathrm{softmax}(v \odot \tilde z + b), \qquad
        \tilde z = z - \tfrac{1}{K} \textstyle\sum_k z_k,

    with :math:`z` the logits of :math:`K` classes, centred in each row, and
    one slope :math:`v_k` and one intercept :math:`b_k` per class (Guo et
    al., 2017). :math:`v` and :math:`b` minimise the weighted mean log loss
    on the calibration set, plus :math:`\frac{\mu}{K} \sum_k b_k^2` with
    :math:`\mu` = ``intercept_penalty``. Probabilities are turned into
    logits by their logarithm (clipped at :math:`10^{-12}`); a binary score
    :math:`s` is the pair of logits :math:`(0, s)`. With :math:`v = 1/T`
    and :math:`b = 0` the map is temperature scaling, so vector scaling
    fits the calibration set at least as well.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    intercept_penalty : float, default=0.0
        :math:`\mu \ge 0`, the weight of the penalty
        :math:`\frac{\mu}{K} \sum_k b_k^2` on the intercepts; 0 fits
        without penalty, as Guo et al. do.
    max_iter : int, default=1000
        The largest number of L-BFGS iterations; a
        :class:`~sklearn.exceptions.ConvergenceWarning` says when the fit
        stops there.
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    coef_ : ndarray of shape (n_classes,)
        The slopes :math:`v`, per unit of centred logit (of log-probability
        for probability inputs).
    intercept_ : ndarray of shape (n_classes,)
        The intercepts :math:`b`, which sum to 0 (adding a constant to all of
        them changes nothing).
    n_iter_ : int
        The number of L-BFGS iterations of the fit.
    input_ : {"probability", "logit"}
        The kind of scores seen at fit.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    TemperatureRecalibrator : One slope shared by all classes.
    MatrixScalingRecalibrator : A full matrix of slopes.
    DirichletRecalibrator : A full matrix on the log-probabilities.

    Notes
    -----
    The logits are centred because a softmax depends on them only up to a
    constant per row: the map is then a function of the probabilities that
    the logits give, and the fit is the same for a model's logits and for
    its probabilities (above :math:`10^{-12}`). On a binary problem the
    map is :math:`\sigma(\tfrac{v_0 + v_1}{2} s + b_1 - b_0)`, a logistic
    map of the log-odds :math:`s` fitted to the labels (Platt's map,
    without Platt's smoothed targets). Unlike temperature scaling, vector
    scaling may change the predicted class.

    The objective is minimised by preconditioned L-BFGS (see
    :class:`MatrixScalingRecalibrator`), from the better of the identity
    map and temperature scaling: the fitted objective is never above that
    of the uncalibrated scores. Each iteration costs :math:`O(n K)` for
    :math:`n` samples.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", ICML 2017, arXiv:1706.04599.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import VectorScalingRecalibrator
    >>> logits = np.array([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0],
    ...                    [4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0],
    ...                    [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]])
    >>> y = np.array([0, 1, 2, 1, 2, 0, 0, 2])
    >>> recal = VectorScalingRecalibrator().fit(logits, y)
    >>> recal.predict_proba([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]).round(2).tolist()
    [[0.67, 0.17, 0.17], [0.25, 0.5, 0.25]]

    Two of the three rows with the first logit large are of the first class,
    and one of the two with the second logit large is of the second.
    """

    def __init__(
        self,
        estimator: Any = None,
        *,
        intercept_penalty: float = 0.0,
        max_iter: int = 1000,
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.intercept_penalty = intercept_penalty
        self.max_iter = max_iter
        self.input = input
        self.response_method = response_method
        self.classes = classes

    _diagonal = True

    def _off_diagonal_penalty(self):
        return 0.0


@fill_doc
class MatrixScalingRecalibrator(_LinearSoftmaxRecalibrator):
    r"""Recalibrate with a linear map of the logits (matrix scaling).

    The calibrated probabilities are

    .. math::

        \mathrm{softmax}(W \tilde z + b), \qquad
        \tilde z = z - \tfrac{1}{K} \textstyle\sum_k z_k,

    with :math:`z` the logits of :math:`K` classes, centred in each row, a
    :math:`K \times K` matrix :math:`W` and intercepts :math:`b` (Guo et
    al., 2017). They minimise the weighted mean log loss on the calibration
    set plus Kull et al.'s off-diagonal and intercept penalties (ODIR),

    .. math::

        \frac{\lambda}{K (K - 1)} \sum_{j \ne k} W_{kj}^2
        + \frac{\mu}{K} \sum_k b_k^2,

    which shrink :math:`W` towards a diagonal matrix and :math:`b` towards
    0, leaving the diagonal free. Probabilities are turned into logits by
    their logarithm (clipped at :math:`10^{-12}`); a binary score :math:`s`
    is the pair of logits :math:`(0, s)`.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    off_diagonal_penalty : float, default=100.0
        :math:`\lambda \ge 0`, the weight of the penalty on the off-diagonal
        entries of :math:`W`. With ``intercept_penalty=0``, 0 is Guo et
        al.'s (unpenalised) matrix scaling.
    intercept_penalty : float, default=1.0
        :math:`\mu \ge 0`, the weight of the penalty on the intercepts.
    max_iter : int, default=1000
        The largest number of L-BFGS iterations; a
        :class:`~sklearn.exceptions.ConvergenceWarning` says when the fit
        stops there.
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    coef_ : ndarray of shape (n_classes, n_classes)
        The matrix :math:`W`, per unit of centred logit (of log-probability
        for probability inputs).
    intercept_ : ndarray of shape (n_classes,)
        The intercepts :math:`b`, which sum to 0.
    n_iter_ : int
        The number of L-BFGS iterations of the fit.
    input_ : {"probability", "logit"}
        The kind of scores seen at fit.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    VectorScalingRecalibrator : A diagonal :math:`W`.
    DirichletRecalibrator : The same map of the log-probabilities.
    TemperatureRecalibrator : :math:`W = I / T`, :math:`b = 0`.

    Notes
    -----
    :math:`W` and :math:`b` have :math:`K (K + 1)` entries, which overfit a
    small calibration set with many classes (Guo et al. found unpenalised
    matrix scaling poor on CIFAR-100); Kull et al. (2019) regularise matrix
    scaling of the logits with ODIR as they do Dirichlet calibration, and
    choose :math:`\lambda` and :math:`\mu` by cross-validation. Choose them
    the same way with :class:`~sklearn.model_selection.GridSearchCV` on a
    held-out set of scores (see :class:`DirichletRecalibrator`). The
    defaults :math:`\lambda = 100`, :math:`\mu = 1` gave the best or nearly
    the best held-out log loss on skcal's CIFAR-10 (500 to 5000
    calibration samples) and CIFAR-100 (5000) outputs; the intercept
    penalty mattered little.

    Centring the logits makes the map a function of the probabilities they
    give (a softmax depends on its logits only up to a constant per row):
    the fit is the same for a model's logits and for its probabilities,
    and for logits shifted by any constant per row. Since the centred logits
    sum to 0, adding a constant to a row of :math:`W` changes no
    prediction (nor does adding a vector to every row); the penalties
    select one such matrix, and without them ``coef_`` is one of them.
    With :math:`\lambda \to \infty` the map tends to vector scaling.

    The objective is minimised by L-BFGS (Liu and Nocedal, 1989),
    preconditioned by the diagonal blocks of its Hessian (one block of
    :math:`K + 1` parameters per class, computed at the start and again
    after 50 and 150 iterations), from the better of the identity map and
    temperature scaling: the fitted objective is never above that of the
    uncalibrated scores. Each iteration costs :math:`O(n K^2)` for
    :math:`n` samples, and each preconditioner :math:`O(n K^3)`; 100
    classes and :math:`10^5` samples take seconds to tens of seconds.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", ICML 2017, arXiv:1706.04599.
    .. [2] M. Kull, M. Perello-Nieto, M. Kängsepp, T. Silva Filho, H. Song
       and P. Flach, "Beyond temperature scaling: obtaining well-calibrated
       multiclass probabilities with Dirichlet calibration", NeurIPS 2019,
       arXiv:1910.12656.
    .. [3] D. C. Liu and J. Nocedal, "On the limited memory BFGS method for
       large scale optimization", Mathematical Programming 45, 1989,
       doi:10.1007/BF01589116.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import MatrixScalingRecalibrator
    >>> logits = np.array([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0],
    ...                    [4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0],
    ...                    [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]])
    >>> y = np.array([0, 1, 2, 1, 2, 0, 0, 2])
    >>> recal = MatrixScalingRecalibrator(off_diagonal_penalty=0.0,
    ...                                   intercept_penalty=0.0).fit(logits, y)
    >>> recal.predict_proba([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]).round(2).tolist()
    [[0.67, 0.33, 0.0], [0.0, 0.5, 0.5]]

    Without penalties, each of the three kinds of rows gets the frequencies
    of its labels. The penalties pull the map towards vector scaling:

    >>> recal = MatrixScalingRecalibrator().fit(logits, y)
    >>> recal.predict_proba([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]).round(2).tolist()
    [[0.65, 0.2, 0.15], [0.22, 0.54, 0.24]]
    """

    _parameter_constraints: dict = {
        **_LinearSoftmaxRecalibrator._parameter_constraints,
        **_OFF_DIAGONAL_CONSTRAINT,
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        off_diagonal_penalty: float = 100.0,
        intercept_penalty: float = 1.0,
        max_iter: int = 1000,
        input: Literal["auto", "logit", "probability"] = "auto",
        response_method: Literal["auto", "decision_function", "predict_proba"] = "auto",
        classes: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.off_diagonal_penalty = off_diagonal_penalty
        self.intercept_penalty = intercept_penalty
        self.max_iter = max_iter
        self.input = input
        self.response_method = response_method
        self.classes = classes


@fill_doc
class DirichletRecalibrator(MatrixScalingRecalibrator):
    r"""Recalibrate with a linear map of the log-probabilities (Dirichlet calibration).

    The calibrated probabilities are

    .. math::

        \mathrm{softmax}(W \ln p + b),

    with :math:`p` the predicted probabilities of :math:`K` classes, a
    :math:`K \times K` matrix :math:`W` and intercepts :math:`b` (Kull et
    al., 2019): the calibration map whose class-conditional distributions
    of :math:`p` are Dirichlet. :math:`W` and :math:`b` minimise the
    weighted mean log loss on the calibration set plus the off-diagonal
    and intercept penalties (ODIR)

    .. math::

        \frac{\lambda}{K (K - 1)} \sum_{j \ne k} W_{kj}^2
        + \frac{\mu}{K} \sum_k b_k^2,

    which shrink :math:`W` towards a diagonal matrix and :math:`b` towards
    0, leaving the diagonal free. Logits are turned into log-probabilities
    by ``log_softmax``; probabilities are clipped at :math:`10^{-12}`
    before their logarithm; a binary probability :math:`p` gives
    :math:`(\ln (1 - p), \ln p)`.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    off_diagonal_penalty : float, default=100.0
        :math:`\lambda \ge 0`, the weight of the penalty on the off-diagonal
        entries of :math:`W`.
    intercept_penalty : float, default=1.0
        :math:`\mu \ge 0`, the weight of the penalty on the intercepts.
        With both penalties 0, the fit is a multinomial logistic regression
        on :math:`\ln p`.
    max_iter : int, default=1000
        The largest number of L-BFGS iterations; a
        :class:`~sklearn.exceptions.ConvergenceWarning` says when the fit
        stops there.
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    coef_ : ndarray of shape (n_classes, n_classes)
        The matrix :math:`W`.
    intercept_ : ndarray of shape (n_classes,)
        The intercepts :math:`b`, which sum to 0.
    n_iter_ : int
        The number of L-BFGS iterations of the fit.
    input_ : {"probability", "logit"}
        The kind of scores seen at fit.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    MatrixScalingRecalibrator : The same map of the centred logits.
    VectorScalingRecalibrator : A diagonal map of the centred logits.
    TemperatureRecalibrator : :math:`W = I / T`, :math:`b = 0`.

    Notes
    -----
    On a binary problem the map is :math:`\sigma(a \ln p - c \ln (1 - p) +
    d)`, with :math:`a = W_{11} - W_{01}`, :math:`c = W_{00} - W_{10}`,
    :math:`d = b_1 - b_0`: beta calibration (Kull, Silva Filho and Flach,
    2017), as Kull et al. (2019) note. Unlike matrix scaling, the map also
    depends on :math:`\sum_k \ln p_k`, and so has :math:`K - 1` more
    effective parameters. Adding a vector to every row of :math:`W` changes
    no prediction; the penalties select one such matrix.

    Kull et al. choose :math:`\lambda` and :math:`\mu` by cross-validation.
    With :class:`~sklearn.model_selection.GridSearchCV`, fitted on a
    classifier's scores on a held-out calibration set (``X`` the scores,
    ``estimator=None``):

    .. code-block:: python

        grid = GridSearchCV(
            DirichletRecalibrator(),
            {"off_diagonal_penalty": [1, 10, 100, 1000],
             "intercept_penalty": [0.01, 1, 100]},
            scoring="neg_log_loss",
        ).fit(scores, y)

    The defaults :math:`\lambda = 100`, :math:`\mu = 1` gave the best or
    nearly the best held-out log loss on skcal's CIFAR-10 (500 to 5000
    calibration samples) and CIFAR-100 (5000) outputs; the intercept
    penalty mattered little. With few samples for :math:`K (K + 1)`
    parameters (100 classes and 2000 samples) every :math:`\lambda` up to
    1000 fitted worse than no recalibration on held-out data: check.

    The fit is that of :class:`MatrixScalingRecalibrator`, on the
    log-probabilities.

    References
    ----------
    .. [1] M. Kull, M. Perello-Nieto, M. Kängsepp, T. Silva Filho, H. Song
       and P. Flach, "Beyond temperature scaling: obtaining well-calibrated
       multiclass probabilities with Dirichlet calibration", NeurIPS 2019,
       arXiv:1910.12656.
    .. [2] M. Kull, T. Silva Filho and P. Flach, "Beta calibration: a
       well-founded and easily implemented improvement on logistic
       calibration for binary classifiers", AISTATS 2017,
       PMLR 54:623-631.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import DirichletRecalibrator
    >>> proba = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8],
    ...                   [0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8],
    ...                   [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]])
    >>> y = np.array([0, 1, 2, 1, 2, 0, 0, 2])
    >>> recal = DirichletRecalibrator().fit(proba, y)
    >>> recal.predict_proba([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1]]).round(2).tolist()
    [[0.64, 0.16, 0.2], [0.2, 0.59, 0.2]]
    """

    # The parameters, their constraints and the fit are matrix scaling's; only
    # the features differ.
    _features = staticmethod(log_probabilities)
