"""Top-label recalibration keeps the classifier's predicted class (issue 12, item 6).

Every recalibrator with ``multiclass="top_label"`` gives the top class (the
first largest score) its calibrated confidence, clipped to ``[1/K, 1]``, and
shares the rest among the other classes in proportion, capped below it
(Le Coz et al., NeurIPS 2024, arXiv:2411.02988, top-versus-all).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from skcal.calibration import (
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
)
from skcal.calibration._base import top_label_proba
from tests.calibration._top_label import (
    assert_top_label_rows,
    calibrated_confidence,
)

TOP_LABEL = [
    HistogramBinningRecalibrator,
    IsotonicRecalibrator,
    ModifiedPlattRecalibrator,
    PlattRecalibrator,
]


# ---------------------------------------------------------------------------
# The issue's example
# ---------------------------------------------------------------------------


def test_issue_example_keeps_the_predicted_class():
    """Check the example of issue 12: a low confidence no longer moves the argmax."""
    scores = np.array([[0.4, 0.35, 0.25]] * 4 + [[0.9, 0.05, 0.05]] * 4)
    y = np.array([1, 1, 1, 2, 0, 0, 0, 0])
    recal = IsotonicRecalibrator(multiclass="top_label").fit(scores, y)
    assert_array_equal(recal.predict(scores), [0] * 8)
    proba = recal.predict_proba([[0.4, 0.35, 0.25], [0.9, 0.05, 0.05]])
    # The map gives 0 (no row of the low group is right), raised to 1/K; the
    # others' shares (0.39 and 0.28 in proportion) are capped below it.
    assert_allclose(proba[0], [1 / 3, 1 / 3, 1 / 3], rtol=1e-10)
    assert np.argmax(proba[0]) == 0
    assert proba[0, 0] > proba[0, 1:].max()
    assert_allclose(proba[1], [1.0, 0.0, 0.0], atol=1e-12)
    assert_allclose(proba.max(axis=1), [1 / 3, 1.0], rtol=1e-10)


def test_mid_confidence_shares_in_proportion_with_a_cap():
    """Check a confidence above 1/K: the largest other class is capped at c."""
    original = np.array([[0.5, 0.4, 0.05, 0.05], [0.3, 0.5, 0.2, 0.0]])
    proba = top_label_proba(original, np.array([0, 1]), np.array([0.35, 0.4]))
    # Row 0: 0.65 in proportion to (0.4, 0.05, 0.05) gives 0.52 > 0.35, so the
    # first takes the cap and the rest, 0.3, is shared equally by the others.
    assert_allclose(proba[0], [0.35, 0.35, 0.15, 0.15], rtol=1e-10)
    # Row 1: 0.6 in proportion to (0.3, 0.2, 0) is (0.36, 0.24, 0), capped to
    # 0.4 at most: (0.36, 0.24, 0) already fits.
    assert_allclose(proba[1], [0.36, 0.4, 0.24, 0.0], rtol=1e-10, atol=1e-15)
    assert_array_equal(np.argmax(proba, axis=1), [0, 1])


def test_zero_others_share_equally():
    """Check that others of probability 0 share what the capped ones leave."""
    original = np.array([[0.0, 0.1, 0.0, 0.9]])
    proba = top_label_proba(original, np.array([3]), np.array([0.26]))
    assert_allclose(proba[0], [0.24, 0.26, 0.24, 0.26], rtol=1e-10)
    assert np.argmax(proba[0]) == 3


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@st.composite
def score_matrices(draw):
    """``(y, scores, input)``: probabilities or logits, with ties half of the time."""
    n_classes = draw(st.integers(3, 6))
    n = draw(st.integers(2, 25))
    coarse = draw(st.booleans())
    values = (
        st.sampled_from([0.0, 1.0, 2.0, 3.0])
        if coarse
        else st.floats(0.0, 10.0, allow_nan=False, width=64)
    )
    raw = np.array(
        draw(st.lists(values, min_size=n * n_classes, max_size=n * n_classes))
    ).reshape(n, n_classes)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]  # a recalibrator needs two classes
    if draw(st.booleans()):
        return y, raw - 5.0, "logit"
    raw[raw.sum(axis=1) == 0, 0] = 1.0
    return y, raw / raw.sum(axis=1, keepdims=True), "probability"


@settings(max_examples=30)
@given(data=score_matrices())
def test_property_top_label_keeps_argmax(data):
    """Check every top-label recalibrator on random scores: argmax, sums, maximum."""
    y, scores, kind = data
    n_classes = scores.shape[1]
    top = np.argmax(scores, axis=1)
    for cls in TOP_LABEL:
        recal = cls(multiclass="top_label", input=kind, classes=np.arange(n_classes))
        recal.fit(scores, y)
        proba = recal.predict_proba(scores)
        assert_array_equal(recal.predict(scores), top)
        assert_array_equal(np.argmax(proba, axis=1), top)
        assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        assert proba.min() >= 0.0
        confidence = np.clip(calibrated_confidence(recal, scores), 1 / n_classes, 1)
        assert_allclose(proba.max(axis=1), confidence, rtol=1e-10)


@settings(max_examples=60)
@given(
    rows=st.lists(
        st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=5, max_size=5),
        min_size=1,
        max_size=8,
    ),
    confidence=st.lists(st.floats(0.0, 1.0), min_size=8, max_size=8),
)
def test_property_top_label_proba_is_water_filling(rows, confidence):
    """Check top_label_proba against water-filling by loops, ties and zeros included."""
    original = np.array(rows)
    original[original.sum(axis=1) == 0, -1] = 1.0
    original /= original.sum(axis=1, keepdims=True)
    confidence = np.array(confidence[: original.shape[0]])
    proba = top_label_proba(original, np.argmax(original, axis=1), confidence)
    assert_top_label_rows(original, proba, confidence)


# ---------------------------------------------------------------------------
# Real outputs
# ---------------------------------------------------------------------------


def test_real_predictions_unchanged(real_multiclass):
    """Check on every real multiclass file that predict is the scores' argmax."""
    labels, probs = real_multiclass
    probs = probs.astype(np.float64)
    probs /= probs.sum(axis=1, keepdims=True)
    classes = np.arange(probs.shape[1])
    fit, test = slice(0, None, 2), slice(1, None, 2)
    top = np.argmax(probs[test], axis=1)
    for cls in TOP_LABEL:
        recal = cls(multiclass="top_label", classes=classes).fit(
            probs[fit], labels[fit]
        )
        assert_array_equal(recal.predict(probs[test]), top)
        proba = recal.predict_proba(probs[test])
        assert_array_equal(np.argmax(proba, axis=1), top)
        assert_top_label_rows(
            probs[test][:200],
            proba[:200],
            calibrated_confidence(recal, probs[test])[:200],
        )
