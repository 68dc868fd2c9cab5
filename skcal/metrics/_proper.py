"""Proper scores, their divergences and generalized entropies, written once.

The measures built on proper scoring rules (:func:`calibration_decomposition`,
:func:`kernel_calibration_error`, :func:`recalibration_improvement`) take
their per-sample scores, divergences and entropies from this module, for two
losses (lower is better):

* ``"brier"``: on a probability vector ``P`` and a class ``k``,
  ``S(P, k) = sum_j (P_j - 1{j = k})**2``, the sum over classes (Gruber &
  Buettner; Chidambaram & Ge), as :func:`sklearn.metrics.brier_score_loss`
  scores three or more classes. Its divergence is ``d(P, Q) = ||P - Q||**2``
  and its entropy ``g(Q) = 1 - ||Q||**2 = sum_j Q_j (1 - Q_j)``.
* ``"log"``: ``S(P, k) = -log P_k``, with divergence ``d(P, Q) = KL(Q || P)``
  and entropy the Shannon entropy ``H(Q)`` (natural logarithm).

The divergence follows Gruber & Buettner's order: ``d(P, Q)`` is the excess
expected score of the prediction ``P`` when the outcome has distribution
``Q``, so that ``E_{Y ~ Q} S(P, Y) = d(P, Q) + g(Q)``.

Each function exists for probability vectors (rows of a matrix) and for a
binary event given by one probability ``p`` (a 1-D array). On the binary side
the score is the one-dimensional score of the event: ``(p - y)**2`` for
Brier and the binary log loss. The score of a whole binary prediction
(:func:`full_scores`) is that of its positive class, as scikit-learn scores
a binary problem: the log loss of the vector ``(1 - p, p)``, and half its
Brier score (the sum over the two classes, ``2 (p - y)**2``, which
``brier_score_loss(..., scale_by_half=False)`` and the authors' code of
Chidambaram & Ge report).

Probability 0 on an outcome that occurs scores ``+inf`` under the log loss;
``0 * log 0`` is 0. Nothing is clipped.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from scipy.special import entr, rel_entr

LOSSES = ("brier", "log")


# ---------------------------------------------------------------------------
# Binary event: p = P(event), q = the event's true (or empirical) probability
# ---------------------------------------------------------------------------


def binary_score(y, p, loss):
    """Per-sample score of predicting ``p`` for an event with outcome ``y``.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Outcomes in {0, 1} (any numeric or boolean dtype).
    p : ndarray of shape (n_samples,)
        Predicted probabilities of the event.
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    score : ndarray of shape (n_samples,)
        ``(p - y)**2``, or ``-log p`` if ``y = 1`` and ``-log(1 - p)`` if
        ``y = 0``.
    """
    if loss == "log":
        # One logarithm per row, of the probability given to the outcome (the
        # divergence from a 0/1 outcome would take two).
        score = np.where(y, p, 1.0 - np.asarray(p, dtype=np.float64))
        with np.errstate(divide="ignore"):
            np.log(score, out=score)
        return np.subtract(0.0, score, out=score)  # 0, not -0, for log 1
    y = np.asarray(y, dtype=np.float64)
    return binary_divergence(p, y, loss)


def binary_divergence(p, q, loss):
    """Divergence of the prediction ``p`` from the event probability ``q``.

    Parameters
    ----------
    p, q : ndarray
        Probabilities in [0, 1] (broadcast together).
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    divergence : ndarray
        ``(p - q)**2`` for Brier; the binary Kullback-Leibler divergence
        ``q log(q / p) + (1 - q) log((1 - q) / (1 - p))`` for log.
    """
    if loss == "brier":
        return np.square(np.subtract(p, q))
    if loss == "log":
        p = np.asarray(p, dtype=np.float64)
        q = np.asarray(q, dtype=np.float64)
        return rel_entr(q, p) + rel_entr(1.0 - q, 1.0 - p)
    raise ValueError(f"Unknown loss {loss!r}.")


def binary_entropy(q, loss):
    """Generalized entropy (expected score of the truth) of an event.

    Parameters
    ----------
    q : ndarray
        Event probabilities in [0, 1].
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    entropy : ndarray
        ``q (1 - q)`` for Brier; ``-q log q - (1 - q) log(1 - q)`` for log.
    """
    q = np.asarray(q, dtype=np.float64)
    if loss == "brier":
        return q * (1.0 - q)
    if loss == "log":
        return entr(q) + entr(1.0 - q)
    raise ValueError(f"Unknown loss {loss!r}.")


# ---------------------------------------------------------------------------
# Probability vectors: rows of (n, K) matrices
# ---------------------------------------------------------------------------


def vector_score(y_index, P, loss):
    """Per-sample score of the probability vectors ``P`` for classes ``y_index``.

    Parameters
    ----------
    y_index : ndarray of shape (n_samples,)
        Integer class of each row, in ``[0, n_classes)``.
    P : ndarray of shape (n_samples, n_classes)
        Predicted probability vectors.
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    score : ndarray of shape (n_samples,)
        ``sum_j (P_j - 1{j = y})**2`` or ``-log P_y``.
    """
    rows = np.arange(P.shape[0])
    if loss == "brier":
        residual = np.array(P, dtype=np.float64)
        residual[rows, y_index] -= 1.0
        return np.einsum("ij,ij->i", residual, residual)
    if loss == "log":
        with np.errstate(divide="ignore"):
            return -np.log(P[rows, y_index].astype(np.float64))
    raise ValueError(f"Unknown loss {loss!r}.")


def vector_divergence(P, Q, loss):
    """Row-wise divergence of the predictions ``P`` from the distributions ``Q``.

    Parameters
    ----------
    P, Q : ndarray of shape (n_rows, n_classes)
        Predicted and true (or empirical) probability vectors; ``Q`` may
        have a single row, broadcast against ``P``.
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    divergence : ndarray of shape (n_rows,)
        ``||P - Q||**2`` or ``KL(Q || P) = sum_j Q_j log(Q_j / P_j)``.
    """
    if loss == "brier":
        return np.square(np.subtract(P, Q)).sum(axis=1)
    if loss == "log":
        P, Q = np.broadcast_arrays(P, Q)
        return rel_entr(Q, P).sum(axis=1)
    raise ValueError(f"Unknown loss {loss!r}.")


def vector_entropy(Q, loss):
    """Row-wise generalized entropy of probability vectors.

    Parameters
    ----------
    Q : ndarray of shape (n_rows, n_classes)
        Probability vectors (rows summing to 1).
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    entropy : ndarray of shape (n_rows,)
        ``1 - ||Q||**2``, computed as ``sum_j Q_j (1 - Q_j)``, or the
        Shannon entropy ``-sum_j Q_j log Q_j``.
    """
    Q = np.asarray(Q, dtype=np.float64)
    if loss == "brier":
        return (Q * (1.0 - Q)).sum(axis=1)
    if loss == "log":
        return entr(Q).sum(axis=1)
    raise ValueError(f"Unknown loss {loss!r}.")


# ---------------------------------------------------------------------------
# Validated data
# ---------------------------------------------------------------------------


def full_scores(data, loss):
    """Per-sample score of the whole predicted distribution.

    Parameters
    ----------
    data : CalibrationData
        Validated inputs (see :func:`skcal._validation.check_calibration_inputs`).
    loss : {"brier", "log"}
        The score.

    Returns
    -------
    score : ndarray of shape (n_samples,)
        The score of the probability vector of each row, whose weighted mean
        is :func:`sklearn.metrics.brier_score_loss` or
        :func:`~sklearn.metrics.log_loss` (unclipped): for a binary problem
        the score of the positive class, ``(p - y)**2`` for Brier.
    """
    if data.binary:
        return binary_score(data.y_true, data.y_prob, loss)
    return vector_score(data.y_true, data.y_prob, loss)
