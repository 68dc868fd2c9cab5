"""Brute-force reference implementations of the binned measures.

Written independently of ``skcal._utils._bins``: bins are found by an
explicit loop over bins and comparisons with the edges, quantiles by walking
the cumulative weight, and reductions by loops over samples.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np


def ref_n_bins(n_bins, n_samples):
    if n_bins != "cube_root":
        return n_bins
    k = 1
    while k**3 < n_samples:
        k += 1
    return k


def ref_edges(p, w, n_bins, strategy):
    positive = [(float(pi), float(wi)) for pi, wi in zip(p, w, strict=True) if wi > 0]
    n_bins = ref_n_bins(n_bins, len(positive))
    if strategy == "uniform":
        return [k / n_bins for k in range(n_bins + 1)]
    positive.sort()
    total = 0.0
    cumulative = []
    for _, wi in positive:
        total += wi
        cumulative.append(total)
    inner = []
    for j in range(1, n_bins):
        target = total * j / n_bins
        for (pi, _), c in zip(positive, cumulative, strict=True):
            if c >= target:
                inner.append(pi)
                break
        else:
            inner.append(positive[-1][0])
    return sorted(set([0.0, *inner, 1.0]))


def ref_table(y, p, w, n_bins, strategy):
    """Per-bin (weight, count, sum_w2, mean_p, mean_y), empty bins kept."""
    edges = ref_edges(p, w, n_bins, strategy)
    rows = []
    for j in range(len(edges) - 1):
        lo, hi = edges[j], edges[j + 1]
        inside = [
            i
            for i in range(len(p))
            if (p[i] > lo or (j == 0 and p[i] >= lo)) and p[i] <= hi
        ]
        weight = sum(w[i] for i in inside)
        count = sum(1 for i in inside if w[i] > 0)
        sum_w2 = sum(w[i] ** 2 for i in inside)
        if weight > 0:
            mean_p = sum(w[i] * p[i] for i in inside) / weight
            mean_y = sum(w[i] * y[i] for i in inside) / weight
        else:
            mean_p = mean_y = math.nan
        rows.append((weight, count, sum_w2, mean_p, mean_y))
    return edges, rows


def ref_binned_error(
    y, p, w, *, n_bins=15, strategy="uniform", norm="l1", debias=False
):
    y = [float(v) for v in y]
    p = [float(v) for v in p]
    w = [1.0] * len(p) if w is None else [float(v) for v in w]
    _, rows = ref_table(y, p, w, n_bins, strategy)
    total = sum(r[0] for r in rows)
    l1 = l2 = 0.0
    biggest = 0.0
    for weight, count, sum_w2, mean_p, mean_y in rows:
        if weight <= 0:
            continue
        gap = mean_p - mean_y
        l1 += weight / total * abs(gap)
        biggest = max(biggest, abs(gap))
        if debias:
            if count >= 2:
                n_eff = weight**2 / sum_w2
                l2 += weight / total * (gap**2 - mean_y * (1 - mean_y) / (n_eff - 1))
        else:
            l2 += weight / total * gap**2
    if norm == "l1":
        return l1
    if norm == "max":
        return biggest
    return math.sqrt(max(l2, 0.0))


def ref_views(y_true, y_prob, reduction, pos_label=1):
    """Binary (y, p) pairs of a reduction, by loops; y_true holds 0..K-1."""
    y_prob = np.asarray(y_prob, dtype=np.float64)
    if y_prob.ndim == 1:
        y_prob = np.column_stack([1 - y_prob, y_prob])
    n, k = y_prob.shape
    if reduction == "positive":
        return [([int(y_true[i] == pos_label) for i in range(n)], y_prob[:, pos_label])]
    if reduction == "top_label":
        ys, ps = [], []
        for i in range(n):
            best = 0
            for c in range(1, k):
                if y_prob[i, c] > y_prob[i, best]:
                    best = c
            ys.append(int(best == y_true[i]))
            ps.append(y_prob[i, best])
        return [(ys, ps)]
    return [([int(y_true[i] == c) for i in range(n)], y_prob[:, c]) for c in range(k)]


def plugin_ece(y, p, w=None):
    """ECE of the empirical distribution: one bin per distinct prediction."""
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    w = np.ones_like(p) if w is None else np.asarray(w, dtype=np.float64)
    total = sum(abs((w * (y - p))[p == value].sum()) for value in np.unique(p).tolist())
    return total / w.sum()


def random_binary(rng, n, ties=False):
    """Labels drawn from p ** 1.4 (miscalibrated); ``ties`` rounds p to 1-2 digits."""
    p = rng.uniform(size=n)
    if ties:
        p = np.round(p, rng.randint(1, 3))
    y = (rng.uniform(size=n) < p**1.4).astype(int)
    return y, p


def random_multiclass(rng, n, k):
    """Softmax of Gaussian logits, labels drawn from the probabilities."""
    logits = rng.normal(scale=2.0, size=(n, k))
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in prob])
    return y, prob


def random_weights(rng, n):
    """Uniform weights in [0, 3], 15% of them zero (never the first)."""
    w = rng.uniform(0, 3, size=n)
    w[rng.uniform(size=n) < 0.15] = 0.0
    w[0] = 1.0
    return w
