"""Reference checks of top-label recalibration, shared by the recalibrator tests."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

from skcal._validation import check_scores


def reference_rest(others, confidence):
    """Water-filling by loops: cap every class over the cap, share again, repeat.

    ``1 - confidence`` is shared in proportion to ``others`` (equally when
    they are all 0), no share exceeding ``confidence``.
    """
    rest, free = 1.0 - confidence, list(range(len(others)))
    out = np.zeros(len(others))
    while free:
        total = sum(others[j] for j in free)
        if total == 0:
            out[free] = rest / len(free)
            return out
        over = [j for j in free if rest * (others[j] / total) > confidence]
        if not over:
            out[free] = [rest * (others[j] / total) for j in free]
            return out
        for j in over:
            out[j] = confidence
            free.remove(j)
            rest -= confidence
    return out


def calibrated_confidence(recal, scores):
    """The top-label map's output on ``scores``, before it is clipped."""
    checked = check_scores(scores, n_classes=len(recal.classes_), input=recal.input_)
    _, feature, _ = recal._top_features(checked)
    return recal._apply_map(recal.calibrators_[0], feature)


def assert_top_label_rows(original, proba, confidence):
    """Check top-label rows against their definition, row by row.

    The top class of ``original`` (first argmax) is the strict argmax of
    ``proba``, with ``confidence`` clipped to ``[1/K, 1]``; the other classes
    are the water-filling of the rest; rows sum to 1.
    """
    n_classes = original.shape[1]
    rows = np.arange(original.shape[0])
    top = np.argmax(original, axis=1)
    c = np.clip(confidence, 1.0 / n_classes, 1.0)
    assert_allclose(proba[rows, top], c, rtol=1e-10)
    assert_array_equal(np.argmax(proba, axis=1), top)
    assert_allclose(proba.max(axis=1), proba[rows, top], rtol=0)
    assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert proba.min() >= 0.0
    for i in rows:
        expected = reference_rest(np.delete(original[i], top[i]), c[i])
        assert_allclose(np.delete(proba[i], top[i]), expected, atol=1e-9)
