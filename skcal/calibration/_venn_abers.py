"""Venn-Abers predictors (Vovk and Petej, 2014; Vovk, Petej and Fedorova, 2015)."""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from skcal._docstrings import fill_doc
from skcal._utils._scaling import drop_zero_weight, power_of_two_scale
from skcal._utils._ties import Ties
from skcal.calibration._base import BinaryMapRecalibrator, top_label_proba

# ---------------------------------------------------------------------------
# The geometry: isotonic regression as the slopes of the greatest convex
# minorant (lower convex hull) of the cumulative sum diagram.
#
# The k distinct calibration scores, in increasing order, form groups of total
# weight w_i and weighted label sum y_i. Their diagram is Q_0 = (0, 0) and
# Q_i = (W_i, Y_i), the cumulative sums. A test object of weight d and label 1
# placed after the first A groups (a score between groups A and A + 1) turns
# it into Q_0..Q_A followed by Q_A + (d, d), ..., Q_k + (d, d); the isotonic
# value of the test object is the slope of the hull over [W_A, W_A + d]: the
# lower common tangent ("bridge") of the hull of the prefix Q_0..Q_A and of
# the hull of the shifted suffix, which lie on either side of that interval.
#
# * The hulls of all prefixes form a tree (``parent``: the point below v on
#   the stack when v is pushed by the monotone-chain construction); the hull
#   of Q_0..Q_A is the path from A to the root 0. The hulls of all suffixes
#   form a tree likewise (``right_parent``, from the right), rooted at k.
# * Along the prefix path from A, the bridge's left end is the first vertex v
#   whose in-edge (slope e_v) is no steeper than the tangent from Q_v to the
#   shifted suffix, i.e. no point of the shifted suffix lies below the line
#   of that in-edge. For v on that path, Q_v..Q_A lie on or above the line
#   (it supports the hull of Q_0..Q_A), and so do they shifted by (d, d), as
#   e_v <= 1: the test is whether any point Q_b + (d, d), b > v, lies below
#   the line, a property of v alone (``bridge_end``), whatever A is. The left
#   end is then the nearest ancestor of A with that property (pointer
#   jumping), and the bridge its tangent to the shifted suffix hull (binary
#   lifting on the suffix tree): O(k log k) for all places at once.
# * With label 0 the suffix is shifted by (d, 0): reversing the order and
#   flipping the labels maps this problem to the one above (the fit of the
#   mirrored data is one minus the mirrored fit), with the two trees swapped.
#
# A test score equal to calibration score j joins its group. With label 1 that
# gives the same value as a score just below the group, with label 0 the same
# as a score just above it (the isotonic fit at the new point is a block mean
# whose block cannot end at a label-1 point without being all ones), so both
# tables have k + 1 entries, read by ``searchsorted`` left and right.
# ---------------------------------------------------------------------------

# The weight of the test object, relative to the calibration weights divided
# by a power of two, is capped here: beyond it the slopes are 1 to the last bit.
_MAX_EXPONENT = 1000


def _hull_tree(x, y):
    """Parents of the prefix lower hulls of points with increasing ``x``.

    The monotone-chain construction pushes the points from left to right,
    popping the top of the stack while the slope of its in-edge is at least
    that from it to the new point; the parent of a point is the top of the
    stack when it is pushed. Amortised O(n): each point is pushed and popped
    at most once. ``x`` must increase strictly.

    Returns
    -------
    parent : ndarray of int of shape (n_points,)
        The root 0 is its own parent.
    depth : int
        The number of edges of the longest path to the root.
    """
    xs, ys = x.tolist(), y.tolist()
    parent = [0] * len(xs)
    stack, in_slope = [0], [-math.inf]
    depth = 1
    for v in range(1, len(xs)):
        xv, yv = xs[v], ys[v]
        top = stack[-1]
        slope = (yv - ys[top]) / (xv - xs[top])
        while in_slope[-1] >= slope:
            stack.pop()
            in_slope.pop()
            top = stack[-1]
            slope = (yv - ys[top]) / (xv - xs[top])
        parent[v] = top
        stack.append(v)
        in_slope.append(slope)
        depth = max(depth, len(stack))
    return np.asarray(parent, dtype=np.intp), depth - 1


def _jump_tables(parent, depth):
    """Binary lifting: ``tables[j][v]`` is the ``2**j``-th ancestor of ``v``."""
    tables = [parent]
    for _ in range(1, max(int(depth).bit_length(), 1)):
        tables.append(tables[-1][tables[-1]])
    return tables


def _first_on_path(tables, start, holds):
    """First vertex on the path from ``start`` to the root where ``holds`` is true.

    ``holds(vertices)`` is evaluated elementwise (one query per entry of
    ``start``); along each path it must be false then true, and true at the
    root.
    """
    current = start
    found = holds(current)
    for table in reversed(tables):
        ahead = table[current]
        current = np.where(~found & ~holds(ahead), ahead, current)
    return np.where(found, current, tables[0][current])


def _nearest_marked_ancestor(parent, marked):
    """The nearest ancestor-or-self of every vertex that is marked (root marked)."""
    jump = np.where(marked, np.arange(parent.shape[0]), parent)
    while True:
        further = jump[jump]
        if np.array_equal(further, jump):
            return jump
        jump = further


def _upper_values(W, Y, parent, right_tables, d):
    """Isotonic value of a test object of label 1 after each number of groups.

    ``W``, ``Y`` is the diagram (``k + 1`` points), ``parent`` its prefix-hull
    tree, ``right_tables`` the jump tables of its suffix-hull tree and ``d``
    the test object's weight. Entry ``A`` is for a score after the first ``A``
    groups.
    """
    k = W.shape[0] - 1
    right_parent = right_tables[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        in_slope = (Y - Y[parent]) / (W - W[parent])
        out_slope = (Y[right_parent] - Y) / (W[right_parent] - W)
    in_slope[0], out_slope[k] = -np.inf, np.inf

    def slope_to_shifted(left, right):
        return (Y[right] - Y[left] + d) / (W[right] - W[left] + d)

    # bridge_end[v]: no shifted point of index > v is below v's in-edge line.
    # The lowest one across that direction is where the suffix hull from v + 1
    # has its first out-edge at least as steep.
    inner = np.arange(1, k)
    lowest = _first_on_path(
        right_tables, inner + 1, lambda u: out_slope[u] >= in_slope[inner]
    )
    bridge_end = np.ones(k + 1, dtype=bool)
    bridge_end[inner] = slope_to_shifted(inner, lowest) >= in_slope[inner]
    left = _nearest_marked_ancestor(parent, bridge_end)
    positions = np.arange(k + 1)
    right = _first_on_path(
        right_tables,
        positions,
        lambda u: out_slope[u] >= slope_to_shifted(left, u),
    )
    return slope_to_shifted(left, right)


def venn_abers_tables(group_weight, group_positive, test_weight):
    """The isotonic values ``p0`` and ``p1`` of a test object after each group.

    Parameters
    ----------
    group_weight : ndarray of shape (k,)
        Positive total weights of the distinct calibration scores, in
        increasing order of score.
    group_positive : ndarray of shape (k,)
        Their weighted sums of positive labels.
    test_weight : float
        The weight of the test object, in the units of ``group_weight``.

    Returns
    -------
    p0, p1 : ndarray of shape (k + 1,)
        Entry ``A``: the value at the test object of the isotonic regression
        of the calibration set and the test object with label 0 (``p0``) or
        1 (``p1``), for a score after the first ``A`` groups.
    """
    k = group_weight.shape[0]
    W = np.concatenate([[0.0], np.cumsum(group_weight)])
    Y = np.concatenate([[0.0], np.cumsum(group_positive)])
    parent, depth = _hull_tree(W, Y)
    # The suffix hulls are the prefix hulls of the points mirrored in x.
    mirrored, right_depth = _hull_tree(-W[::-1], Y[::-1])
    right_parent = k - mirrored[::-1]
    p1 = _upper_values(
        W, Y, parent, _jump_tables(right_parent, right_depth), test_weight
    )
    # Label 0: reverse the groups and flip the labels; the mirrored diagram's
    # prefix tree is the suffix tree read backwards, and the other way round.
    Wm = np.concatenate([[0.0], np.cumsum(group_weight[::-1])])
    Ym = np.concatenate([[0.0], np.cumsum((group_weight - group_positive)[::-1])])
    upper = _upper_values(
        Wm, Ym, mirrored, _jump_tables(k - parent[::-1], depth), test_weight
    )
    p0 = 1.0 - upper[::-1]
    return np.clip(p0, 0.0, 1.0), np.clip(p1, 0.0, 1.0)


def _merge_vanishing_groups(scores, weight, positive):
    """Merge groups whose weight leaves a running sum unchanged into a neighbour.

    The diagrams need strictly increasing cumulative weights, from the left
    (label 1) and from the right (label 0). float64 sums cannot hold weights
    spanning more than 2**52: a group lighter than the rounding of such a
    sum is merged into the group before it (after it, for the first), and
    the tables are those of the merged groups.
    """
    while True:
        forward = np.cumsum(weight)
        backward = np.cumsum(weight[::-1])[::-1]
        vanishing = np.zeros(weight.shape[0], dtype=bool)
        vanishing[1:] = forward[1:] == forward[:-1]
        vanishing[:-1] |= backward[:-1] == backward[1:]
        if not vanishing.any():
            return scores, weight, positive
        kept = ~vanishing
        target = np.maximum(np.cumsum(kept) - 1, 0)
        n_kept = int(kept.sum())
        scores = scores[kept]
        weight = np.bincount(target, weights=weight, minlength=n_kept)
        positive = np.bincount(target, weights=positive, minlength=n_kept)


class VennAbersMap(NamedTuple):
    """A fitted inductive Venn-Abers predictor of one binary problem.

    ``scores`` are the distinct calibration scores, in increasing order;
    ``p0[A]`` and ``p1[A]`` are the isotonic values of a test object placed
    after the first ``A`` of them, with label 0 and 1.
    """

    scores: np.ndarray
    p0: np.ndarray
    p1: np.ndarray

    def interval(self, x):
        """The pair ``(p0, p1)`` of each score of ``x``, as an ``(n, 2)`` array.

        A score equal to a calibration score joins its group: with label 1 it
        is valued as a score just below the group, with label 0 as one just
        above it (the same values, see the module's comments).
        """
        p0 = self.p0[np.searchsorted(self.scores, x, side="right")]
        p1 = self.p1[np.searchsorted(self.scores, x, side="left")]
        # p0 <= p1 holds exactly; the two tables may differ in the last bit.
        return np.column_stack([np.minimum(p0, p1), p1])


def merged_probability(p0, p1):
    """``p1 / (1 - p0 + p1)``: the probability of minimax log loss in ``[p0, p1]``."""
    return p1 / (1.0 - p0 + p1)


def cross_venn_abers(p0, p1):
    r"""Combine the pairs of several folds: :math:`G(p_1) / (G(1 - p_0) + G(p_1))`.

    :math:`G` is the geometric mean over the folds (axis 0): the log-loss rule
    of cross Venn-Abers predictors (Vovk, Petej and Fedorova, 2015). Where
    both means are 0 (a fold sure of 0 and another sure of 1) it gives 1/2.
    """
    with np.errstate(divide="ignore"):
        g1 = np.exp(np.mean(np.log(p1), axis=0))
        g0 = np.exp(np.mean(np.log1p(-p0), axis=0))
    total = g0 + g1
    return np.divide(g1, total, out=np.full_like(total, 0.5), where=total > 0)


@fill_doc
class VennAbersRecalibrator(BinaryMapRecalibrator):
    r"""Recalibrate with the inductive Venn-Abers predictor (IVAP).

    For a test score :math:`s`, the isotonic regression is fitted twice to the
    calibration set augmented with the test object, once with each label:
    :math:`p_0` is its value at :math:`s` with the label 0, :math:`p_1` with
    the label 1 (:math:`p_0 \le p_1`). One of the two is the value the true
    label gives, and that one is perfectly calibrated: with exchangeable
    data, :math:`\mathbb{E}[Y \mid p_Y] = p_Y` (Vovk and Petej, 2014). The
    pair is merged into the probability of least worst-case log loss,

    .. math:: p = \frac{p_1}{1 - p_0 + p_1} \in [p_0, p_1].

    :meth:`predict_proba` gives :math:`p`, :meth:`predict_interval` the pair.
    Calibration weights count as repetitions of their samples and the test
    object has weight 1. A test score equal to a calibration score joins that
    score's group.

    Read more in the :ref:`User Guide <recalibrators>`.

    Parameters
    ----------
    %(estimator)s
    %(multiclass)s
        With ``"ovr"`` each class gets its own pair, and the merged
        probabilities are renormalised.
    %(input)s
    %(response_method)s
    %(classes)s

    Attributes
    ----------
    %(classes_)s
    calibrators_ : list of VennAbersMap
        One fitted predictor per map (one for a binary problem or
        ``"top_label"``, one per class for ``"ovr"``): a named tuple of the
        distinct calibration scores ``scores`` (``k`` of them, increasing)
        and the tables ``p0`` and ``p1`` (``k + 1`` entries) of the values
        of a test score after the first ``A`` calibration scores.
    input_ : {"probability", "logit"}
        The kind of scores the maps were fitted on. The maps read
        probabilities for probability scores and the raw values for logits;
        only their order matters.
    %(n_features_in_)s
    %(feature_names_in_)s

    See Also
    --------
    IsotonicRecalibrator : The isotonic regression of the calibration set alone.
    RecalibratedClassifierCV : Fits one predictor per fold; with this
        recalibrator, the folds are combined as cross Venn-Abers predictors.

    Notes
    -----
    **Validity.** With the true label inserted, :math:`p_Y` is the isotonic
    fit at one of :math:`n + 1` exchangeable points, and the isotonic fit is
    calibrated in sample, so :math:`\mathbb{E}[(Y - p_Y)\, g(p_Y)] = 0` for
    every function :math:`g`. The merged :math:`p` has no such guarantee,
    but lies in :math:`[p_0, p_1]`, whose width shrinks as the calibration
    set grows (Vovk, Petej and Fedorova, 2015).

    **Computation.** Both values depend only on where :math:`s` falls among
    the :math:`k` distinct calibration scores, so ``fit`` tabulates them for
    the :math:`k + 1` places and prediction is a binary search. The isotonic
    value of the test object is the slope, over its own segment, of the
    greatest convex minorant of the cumulative sum diagram (Barlow et al.,
    1972): the lower common tangent of the hulls of the diagram before and
    (shifted by the test object) after it. All prefix and suffix hulls are
    built in one monotone-chain pass each; the tangents are found for every
    place at once, in :math:`O(k \log k)` time in all, and the tables agree
    with a refit of the isotonic regression for each place. The outputs are
    step functions of the score, with steps at the calibration scores: a
    score that equals one of them only up to rounding (a classifier's
    decision values computed in batches of another size) may fall on either
    side of a step.

    **Weights.** Integer weights equal repeated samples; the test object
    weighs 1 in the same units, so the predictor depends on the scale of
    the weights (very small weights make the interval :math:`[0, 1]` and
    :math:`p = 1/2`). The packages ``venn-abers`` and MAPIE take no weights.
    The diagram's running sums are float64: a calibration score whose weight
    is below their rounding (weights spanning more than :math:`2^{52}`) is
    merged into its neighbour.

    **Cross Venn-Abers.** In :class:`RecalibratedClassifierCV` with
    ``ensemble=True`` the folds' pairs are combined as cross Venn-Abers
    predictors do, :math:`p = G(p_1) / (G(1 - p_0) + G(p_1))` with
    :math:`G` the geometric mean over the folds, rather than by averaging
    probabilities: per class with ``"ovr"``, then renormalised; with
    ``"top_label"``, for the top class where all the folds' classifiers
    predict the same class (elsewhere the folds' rows are averaged).

    References
    ----------
    .. [1] V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014,
       arXiv:1211.0025.
    .. [2] V. Vovk, I. Petej and V. Fedorova, "Large-scale probabilistic
       predictors with and without guarantees of validity", NeurIPS 2015,
       arXiv:1511.00213.
    .. [3] R. E. Barlow, D. J. Bartholomew, J. M. Bremner and H. D. Brunk,
       "Statistical inference under order restrictions", Wiley, 1972.

    Examples
    --------
    >>> import numpy as np
    >>> from skcal.calibration import VennAbersRecalibrator
    >>> scores = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> recal = VennAbersRecalibrator().fit(scores, y)
    >>> recal.predict_interval([0.05, 0.3, 0.5, 0.95]).round(3).tolist()
    [[0.0, 0.333], [0.333, 0.6], [0.333, 0.667], [0.667, 1.0]]
    >>> recal.predict_proba([0.05, 0.3, 0.5, 0.95])[:, 1].round(3).tolist()
    [0.25, 0.474, 0.5, 0.75]

    A score of 0.5 and the label 1 pool with the next two calibration
    samples, (1, 1, 0), to 2/3; with the label 0, the test sample and the
    two before it, (1, 0, 0), pool to 1/3.
    """

    _parameter_constraints: dict = {**BinaryMapRecalibrator._parameter_constraints}

    _feature = "natural"

    def _fit_map(self, x, y, sample_weight):
        sample_weight, x, y = drop_zero_weight(sample_weight, x, y)
        weight, test_weight = None, 1.0
        if sample_weight is not None:
            # Divided by a power of two (exactly), the largest weight is in
            # [1, 2) and the test object's weight is the inverse power.
            scale = power_of_two_scale(sample_weight)
            weight = sample_weight / scale
            exponent = min(1 - math.frexp(scale)[1], _MAX_EXPONENT)
            test_weight = math.ldexp(1.0, exponent)
        ties = Ties(x, weight)
        scores, group_weight, group_positive = _merge_vanishing_groups(
            ties.values, ties.weight, ties.sum(y)
        )
        p0, p1 = venn_abers_tables(group_weight, group_positive, test_weight)
        return VennAbersMap(scores, p0, p1)

    def _apply_map(self, fitted_map, x):
        pair = fitted_map.interval(x)
        return merged_probability(pair[:, 0], pair[:, 1])

    def predict_interval(self, X):
        """The Venn-Abers pair ``(p0, p1)``: the isotonic fits with each label.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples,)
            Scores (``estimator=None``) or samples for the wrapped classifier.

        Returns
        -------
        interval : ndarray of shape (n_samples, 2) or (n_samples, n_classes, 2)
            ``p0`` then ``p1``, with ``p0 <= p1``. Binary problem: for the
            positive class (``classes_[1]``), shape ``(n_samples, 2)``.
            Multiclass with ``"ovr"``: one pair per class (class against the
            rest), before the renormalisation that :meth:`predict_proba`
            applies, shape ``(n_samples, n_classes, 2)``. With
            ``"top_label"``: for the event that the top class (the largest
            score) is right, before the clipping to ``[1/K, 1]``, shape
            ``(n_samples, 2)``.
        """
        scores = self._scores(X)
        if scores.values.ndim == 1:
            return self.calibrators_[0].interval(self._features(scores))
        if self.multiclass == "ovr":
            features = self._features(scores)
            pairs = [
                m.interval(features[:, k]) for k, m in enumerate(self.calibrators_)
            ]
            return np.stack(pairs, axis=1)
        _, feature, _ = self._top_features(scores)
        return self.calibrators_[0].interval(feature)

    @classmethod
    def _ensemble_proba(cls, recalibrators, X):
        """Cross Venn-Abers: the folds' pairs combined by :func:`cross_venn_abers`."""
        first = recalibrators[0]
        pairs = np.stack([r.predict_interval(X) for r in recalibrators])
        p = cross_venn_abers(pairs[..., 0], pairs[..., 1])
        if p.ndim == 2:
            total = p.sum(axis=1, keepdims=True)
            uniform = np.full_like(p, 1.0 / p.shape[1])
            return np.divide(p, total, out=uniform, where=total > 0)
        if first.classes_.shape[0] == 2:
            return np.column_stack([1.0 - p, p])
        views = [r._top_features(r._scores(X)) for r in recalibrators]
        tops = [top for top, _, _ in views]
        originals = [original for _, _, original in views]
        rows = [
            top_label_proba(original, top, merged_probability(*pair.T))
            for original, top, pair in zip(originals, tops, pairs, strict=True)
        ]
        agree = np.all(np.asarray(tops) == tops[0], axis=0)
        combined = top_label_proba(np.mean(originals, axis=0), tops[0], p)
        return np.where(agree[:, None], combined, np.mean(rows, axis=0))
