"""Logit-smoothed expected calibration error (LS-ECE).

The ECE of a predictor whose logit is perturbed by independent noise
(Chidambaram, Lee, McSwiggen and Rezchikov, ICML 2024). On the empirical
measure it is a one-dimensional integral of a Nadaraya-Watson residual in
logit space, evaluated here deterministically (the default) or by the
authors' Monte-Carlo estimator.
"""

# SPDX-License-Identifier: BSD-3-Clause

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Literal

import numpy as np
from scipy.special import expit, logit
from sklearn.utils import check_random_state

from skcal._docstrings import fill_doc
from skcal._param_validation import Interval, StrOptions, validate_params
from skcal._reduction import REDUCTION_CONSTRAINTS, reduce_measure
from skcal._typing import ArrayLike, Label, RandomStateLike
from skcal._utils._kernel_sums import GaussianSums
from skcal._utils._scaling import drop_zero_weight
from skcal._validation import (
    DATA_CONSTRAINTS,
    GROUPS_CONSTRAINT,
    check_calibration_inputs,
)
from skcal.metrics._groups import accepts_groups

# Logits are clipped to [-logit(1 - _EPS), logit(1 - _EPS)], i.e. probabilities
# to [_EPS, 1 - _EPS] (the tolerance of the authors' code), so that 0 and 1 have
# finite logits. Clipping the logits keeps the two ends exactly symmetric.
_EPS = 1e-6
_MAX_LOGIT = -float(logit(_EPS))
# Integration cells: blocks of width sigma centred on integers, up to this
# radius (in blocks) from the data; the neglected Gaussian mass of a point is
# P(|Z| > 8.5) < 2e-17.
_RADIUS = 9
# Gauss-Legendre nodes per integration cell.
_N_NODES = 8
# Above this |u| (logit units) the sigmoid is 0 or 1 to within 5e-18.
_SIGMOID_RANGE = 40
# Rows of data, and evaluation points, handled per chunk.
_DATA_CHUNK = 1 << 18
_EVAL_CHUNK = 1 << 14
# Iterations of the bracketing root finder (it stops earlier when converged).
_ROOT_ITERATIONS = 60
_ROOT_TOL = 1e-11
_SQRT_2PI = math.sqrt(2.0 * math.pi)
# Accepted noise scales: below 1e-10 the logits' own rounding (about 1e-15)
# is no longer small against sigma; above 1e10 the value is 1/2 to 1e-10.
_MIN_SIGMA = 1e-10
_MAX_SIGMA = 1e10


def _logits(p):
    """Logits of probabilities, clipped to [-_MAX_LOGIT, _MAX_LOGIT]."""
    return np.clip(logit(p), -_MAX_LOGIT, _MAX_LOGIT)


def _positive(y, p, w):
    """Drop rows of zero weight; unit weights when unweighted.

    The contract scaled the largest weight to 1, which keeps the kernel sums
    (and the sign tests on their products) away from under- and overflow.
    """
    if w is None:
        return y, p, np.ones(p.shape[0])
    w, y, p = drop_zero_weight(w, y, p)
    return y, p, w


# ---------------------------------------------------------------------------
# Gaussian sums  a_c(v) = sum_{i: y_i = c} w_i exp(-(v - v_i)^2 / 2),  v = u / sigma
# ---------------------------------------------------------------------------


class _ClassSums:
    """The Gaussian sums of the positives and of the negatives, in logit space.

    The logits are taken in units of ``sigma`` (``v = h / sigma``); the sums
    come from the shared engine (:class:`skcal._utils._kernel_sums.
    GaussianSums`). ``blocks`` are the integers nearest to the data, the
    centres of the integration cells.
    """

    def __init__(self, p, y, w, sigma):
        self.sigma = sigma
        v = _logits(p) / sigma
        self.blocks = np.unique(np.rint(v).astype(np.int64))
        self.sums = GaussianSums(v, np.column_stack([w * y, w * (1.0 - y)]))

    def __call__(self, v):
        """The sums ``(a1, a0)`` at the points ``v`` (any shape)."""
        a = self.sums(v)
        return a[..., 0], a[..., 1]

    def residual(self, j, tau):
        """``a1 (1 - rho(u)) - a0 rho(u)`` at ``u = sigma (j[:, None] + tau)``."""
        v = j[:, None] + tau
        a1, a0 = self(v)
        u = self.sigma * v
        return a1 * expit(-u) - a0 * expit(u)


def _target_cells(blocks, sigma):
    """Integration cells ``(j, lower, upper)`` covering every block near the data.

    Cells are the blocks within ``_RADIUS`` of an occupied block; when
    ``sigma > 1`` they are also split at the integers of ``u`` in
    ``[-_SIGMOID_RANGE, _SIGMOID_RANGE]`` so that no cell is wider than 1 in
    logit units where the sigmoid varies.
    """
    # Union of the ranges [b - R, b + R] over the sorted occupied blocks.
    starts = blocks - _RADIUS
    ends = blocks + _RADIUS
    new_run = np.r_[True, starts[1:] > ends[:-1] + 1]
    run_start = starts[new_run]
    run_end = np.maximum.reduceat(ends, np.flatnonzero(new_run))
    lengths = run_end - run_start + 1
    offsets = np.arange(lengths.sum()) - np.repeat(
        np.cumsum(lengths) - lengths, lengths
    )
    j = np.repeat(run_start, lengths) + offsets
    lower = np.full(j.shape[0], -0.5)
    upper = np.full(j.shape[0], 0.5)
    if sigma <= 1:
        return j, lower, upper
    v = np.arange(-_SIGMOID_RANGE, _SIGMOID_RANGE + 1) / sigma
    j_split = np.rint(v)
    tau_split = v - j_split
    j_split = j_split.astype(np.int64)
    pos = np.minimum(np.searchsorted(j, j_split), j.shape[0] - 1)
    inside = (j[pos] == j_split) & (np.abs(tau_split) < 0.5)
    all_j = np.r_[j, j, j_split[inside]]
    all_tau = np.r_[lower, upper, tau_split[inside]]
    order = np.lexsort((all_tau, all_j))
    all_j, all_tau = all_j[order], all_tau[order]
    cell = (all_j[1:] == all_j[:-1]) & (all_tau[1:] > all_tau[:-1])
    return all_j[:-1][cell], all_tau[:-1][cell], all_tau[1:][cell]


def _find_roots(func, j, a, b, fa, fb):
    """Roots of ``func(j, .)`` in brackets ``[a, b]`` with ``fa * fb < 0``.

    Vectorised Illinois (modified regula falsi) iterations.
    """
    a, b, fa, fb = a.copy(), b.copy(), fa.copy(), fb.copy()
    root = 0.5 * (a + b)
    active = np.arange(a.shape[0])
    for _ in range(_ROOT_ITERATIONS):
        if active.shape[0] == 0:
            break
        aa, bb, ffa, ffb = a[active], b[active], fa[active], fb[active]
        c = bb - ffb * (bb - aa) / (ffb - ffa)
        c = np.clip(c, np.minimum(aa, bb), np.maximum(aa, bb))
        fc = func(j[active], c[:, None])[:, 0]
        root[active] = c
        crossed = fc * ffb < 0
        # The newest point replaces b; a becomes the old b if the sign changed,
        # otherwise a stays and its value is halved (the Illinois step).
        a[active] = np.where(crossed, bb, aa)
        fa[active] = np.where(crossed, ffb, 0.5 * ffa)
        b[active] = c
        fb[active] = fc
        done = (fc == 0) | (np.abs(bb - aa) < _ROOT_TOL) | (np.abs(c - bb) < _ROOT_TOL)
        active = active[~done]
    return root


def _gauss_legendre(func, j, lower, upper, nodes, weights):
    """Gauss-Legendre integrals of ``func(j, .)`` over ``[lower, upper]``."""
    half = 0.5 * (upper - lower)
    mid = 0.5 * (upper + lower)
    tau = mid[:, None] + half[:, None] * nodes
    return half * (func(j, tau) @ weights)


def _tangency_brackets(func, j, x, f):
    """Brackets of the root pairs hidden between samples of the same sign.

    An interior local minimum of ``|f|`` without a sign change whose
    parabolic interpolant crosses zero may hide two roots; when ``func`` at
    the parabola's vertex has the other sign, the vertex splits them into
    two brackets.

    Returns
    -------
    brackets : list of tuple of ndarray
        None or two ``(rows, a, b, fa, fb)``: the rows, and the ends of the
        brackets and the values there.
    """
    left, centre, right = f[:, :-2], f[:, 1:-1], f[:, 2:]
    candidate = (
        (left * centre > 0)
        & (centre * right > 0)
        & (np.abs(centre) < np.abs(left))
        & (np.abs(centre) <= np.abs(right))
    )
    rows, cols = np.nonzero(candidate)
    if not rows.shape[0]:
        return []
    x0, x1, x2 = x[rows, cols], x[rows, cols + 1], x[rows, cols + 2]
    f0, f1, f2 = f[rows, cols], f[rows, cols + 1], f[rows, cols + 2]
    # Cells can be tiny where they are split (sigma > 1): the divided
    # differences may overflow, which only discards the candidate.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d01 = (f1 - f0) / (x1 - x0)
        d12 = (f2 - f1) / (x2 - x1)
        curv = (d12 - d01) / (x2 - x0)
        xv = 0.5 * (x0 + x1) - d01 / (2.0 * curv)
        # Value of the interpolating parabola at its vertex.
        fv_pred = f0 + d01 * (xv - x0) + curv * (xv - x0) * (xv - x1)
    maybe = np.isfinite(curv) & (curv != 0) & (xv > x0) & (xv < x2)
    maybe &= fv_pred * f1 < 0
    if not maybe.any():
        return []
    rows, x0, x2, f0, f2, f1, xv = (
        arr[maybe] for arr in (rows, x0, x2, f0, f2, f1, xv)
    )
    fv = func(j[rows], xv[:, None])[:, 0]
    real = fv * f1 < 0
    rows, x0, x2, f0, f2, xv, fv = (arr[real] for arr in (rows, x0, x2, f0, f2, xv, fv))
    return [(rows, x0, xv, f0, fv), (rows, xv, x2, fv, f2)]


def _integrate_abs(func, j, lower, upper, nodes, weights):
    """``int |func(j, tau)| dtau`` over each cell, split at sign changes.

    The integrand is sampled at the cell ends and the Gauss-Legendre nodes.
    Sign changes between consecutive samples, and near-tangencies (a local
    minimum of ``|f|`` whose parabolic interpolant crosses zero), give
    brackets for the roots; the cell is then integrated piecewise between
    the roots, each piece by Gauss-Legendre.
    """
    m = j.shape[0]
    half = 0.5 * (upper - lower)
    mid = 0.5 * (upper + lower)
    x = np.column_stack([lower, mid[:, None] + half[:, None] * nodes, upper])
    f = func(j, x)
    rows, cols = np.nonzero(f[:, :-1] * f[:, 1:] < 0)  # sign changes
    brackets = [
        (rows, x[rows, cols], x[rows, cols + 1], f[rows, cols], f[rows, cols + 1])
    ]
    brackets += _tangency_brackets(func, j, x, f)
    br_row, br_a, br_b, br_fa, br_fb = (
        np.concatenate(b) for b in zip(*brackets, strict=True)
    )
    split = np.zeros(m, dtype=bool)
    split[br_row] = True
    whole = ~split
    total = np.abs(half[whole] * (f[whole, 1:-1] @ weights)).sum()
    if br_row.shape[0] == 0:
        return total
    roots = _find_roots(func, j[br_row], br_a, br_b, br_fa, br_fb)
    # Pieces between consecutive boundaries (cell ends and roots) of each row.
    (split_rows,) = np.nonzero(split)
    b_row = np.r_[split_rows, br_row, split_rows]
    b_tau = np.r_[lower[split_rows], roots, upper[split_rows]]
    order = np.lexsort((b_tau, b_row))
    b_row, b_tau = b_row[order], b_tau[order]
    piece = b_row[1:] == b_row[:-1]
    pieces = _gauss_legendre(
        func, j[b_row[:-1][piece]], b_tau[:-1][piece], b_tau[1:][piece], nodes, weights
    )
    return total + np.abs(pieces).sum()


def _gaussian_quadrature(y, p, w, sigma):
    """LS-ECE with Gaussian noise, by deterministic quadrature."""
    y, p, w = _positive(y, p, w)
    sums = _ClassSums(p, y, w, sigma)
    j, lower, upper = _target_cells(sums.blocks, sigma)
    nodes, weights = np.polynomial.legendre.leggauss(_N_NODES)
    per_chunk = max(1, _EVAL_CHUNK // (_N_NODES + 2))
    total = 0.0
    for start in range(0, j.shape[0], per_chunk):
        stop = start + per_chunk
        total += _integrate_abs(
            sums.residual,
            j[start:stop],
            lower[start:stop],
            upper[start:stop],
            nodes,
            weights,
        )
    return float(total / (w.sum() * _SQRT_2PI))


# ---------------------------------------------------------------------------
# Uniform noise: piecewise-constant sums, integrated in closed form
# ---------------------------------------------------------------------------


def _sigmoid_integrals(lo, hi):
    """``int rho`` and ``int (1 - rho)`` over ``[lo, hi]``, without cancellation.

    With ``F(x) = log(1 + e^x)``, ``int rho = F(hi) - F(lo)``, which equals
    ``log1p(rho(lo) expm1(hi - lo))``; the second form keeps its relative
    precision on short intervals, the first is used on long ones.
    """
    grow = np.expm1(np.minimum(hi - lo, 30.0))
    rho = np.log1p(expit(lo) * grow)
    one_minus = np.log1p(expit(-hi) * grow)
    (long,) = np.nonzero(hi - lo >= 30.0)
    if long.shape[0]:
        lo, hi = lo[long], hi[long]
        tail_lo = np.log1p(np.exp(-np.abs(lo)))
        tail_hi = np.log1p(np.exp(-np.abs(hi)))
        rho[long] = np.maximum(hi, 0) - np.maximum(lo, 0) + tail_hi - tail_lo
        one_minus[long] = np.maximum(-lo, 0) - np.maximum(-hi, 0) + tail_lo - tail_hi
    return rho, one_minus


def _uniform_exact(y, p, w, sigma):
    """LS-ECE with uniform noise on [-sigma/2, sigma/2], in closed form.

    The sums of the positives and negatives within ``sigma / 2`` of ``u`` are
    constant between consecutive points ``h_i -+ sigma / 2``; on such an
    interval ``[l, r]`` the integrand ``|a1 (1 - rho) - a0 rho|`` changes sign
    once, at ``log(a1 / a0)``, and integrates with the antiderivative
    ``log(1 + e^u)`` of the sigmoid.
    """
    y, p, w = _positive(y, p, w)
    order = np.argsort(p)
    h = _logits(p[order])
    cum1 = np.r_[0.0, np.cumsum((w * y)[order])]
    cum = np.r_[0.0, np.cumsum(w[order])]
    n = h.shape[0]
    # Merge the window starts h - sigma/2 and ends h + sigma/2, both sorted.
    half = 0.5 * sigma
    at_start = np.arange(n) + np.searchsorted(h + half, h - half, side="left")
    is_start = np.zeros(2 * n, dtype=bool)
    is_start[at_start] = True
    where = np.empty(2 * n)
    where[at_start] = h - half
    where[~is_start] = h + half
    del at_start
    # After the k-th event the windows of the sorted rows [ended, started) are
    # open, so the sums are differences of prefix sums.
    started = np.cumsum(is_start)
    del is_start
    total = 0.0
    for first in range(0, 2 * n - 1, _DATA_CHUNK):
        k = np.arange(first, min(first + _DATA_CHUNK, 2 * n - 1))
        lo, hi = where[k], where[k + 1]
        s_k = started[k]
        e_k = k + 1 - s_k
        keep = (hi > lo) & (s_k > e_k)
        lo, hi, s_k, e_k = lo[keep], hi[keep], s_k[keep], e_k[keep]
        a1 = np.maximum(cum1[s_k] - cum1[e_k], 0.0)
        a0 = np.maximum(cum[s_k] - cum[e_k] - a1, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            crossing = np.log(a1) - np.log(a0)
        # Where both sums vanish (weights below rounding) any split will do.
        mid = np.clip(np.nan_to_num(crossing), lo, hi)
        for left, right in ((lo, mid), (mid, hi)):
            rho, one_minus = _sigmoid_integrals(left, right)
            total += np.abs(a1 * one_minus - a0 * rho).sum()
    return float(total / (sigma * cum[-1]))


# ---------------------------------------------------------------------------
# Monte Carlo: the authors' estimator
# ---------------------------------------------------------------------------


def _exact_nadaraya_watson(v_target, v, y, w):
    """Gaussian Nadaraya-Watson means at a few targets, in log space."""
    out = np.empty(v_target.shape[0])
    log_w = np.log(w)
    for i, target in enumerate(v_target):
        log_k = log_w - 0.5 * (target - v) ** 2
        k = np.exp(log_k - log_k.max())
        out[i] = np.dot(k, y) / k.sum()
    return out


def _uniform_window_sums(sorted_h, wy, ww, lo, hi):
    """Sums of ``wy`` and ``ww`` (in the order of ``sorted_h``) over ``[lo, hi]``."""
    left = np.searchsorted(sorted_h, lo, side="left")
    right = np.searchsorted(sorted_h, hi, side="right")
    cum1 = np.r_[0.0, np.cumsum(wy)]
    cum = np.r_[0.0, np.cumsum(ww)]
    a1 = cum1[right] - cum1[left]
    b = cum[right] - cum[left]
    # Prefix-sum differences lose relative precision on windows that hold a
    # tiny share of the total weight: sum those windows directly.
    (fix,) = np.nonzero(b <= 1e-9 * cum[-1])
    if fix.shape[0]:
        bounds = np.column_stack([left[fix], right[fix]]).ravel()
        a1[fix] = np.add.reduceat(np.r_[wy, 0.0], bounds)[::2]
        b[fix] = np.add.reduceat(np.r_[ww, 0.0], bounds)[::2]
    return a1, b


def _monte_carlo(y, p, w, sigma, noise, n_samples, rng):
    """The authors' sampling estimator of LS-ECE (errata fixed).

    Draws ``n_samples`` rows ``I`` with probability proportional to their
    weight and noise ``xi``, and averages ``|m(u) - rho(u)|`` over
    ``u = h_I + xi``, where ``m`` is the Nadaraya-Watson mean of the labels
    with the noise density as kernel, over all rows (``I`` included).
    """
    y, p, w = _positive(y, p, w)
    h = _logits(p)
    cum_w = np.cumsum(w)
    index = np.searchsorted(cum_w, rng.random(n_samples) * cum_w[-1], side="right")
    index = np.minimum(index, h.shape[0] - 1)
    if noise == "gaussian":
        u = h[index] + sigma * rng.standard_normal(n_samples)
        sums = _ClassSums(p, y, w, sigma)
        gap = np.empty(n_samples)
        for start in range(0, n_samples, _EVAL_CHUNK):
            v = u[start : start + _EVAL_CHUNK] / sigma
            a1, a0 = sums(v)
            b = a1 + a0
            (far,) = np.nonzero(b <= 0)
            mean = np.divide(a1, b, out=np.zeros_like(b), where=b > 0)
            if far.shape[0]:
                # Beyond the truncation radius of every block (|xi| > ~8.5 sigma).
                mean[far] = _exact_nadaraya_watson(v[far], h / sigma, y, w)
            gap[start : start + _EVAL_CHUNK] = np.abs(
                mean - expit(u[start : start + _EVAL_CHUNK])
            )
        return float(gap.mean())
    u = h[index] + sigma * (rng.random(n_samples) - 0.5)
    order = np.argsort(h)
    # The drawn row lies in its own window; keep it there despite rounding.
    lo = np.minimum(u - 0.5 * sigma, h[index])
    hi = np.maximum(u + 0.5 * sigma, h[index])
    a1, b = _uniform_window_sums(h[order], (w * y)[order], w[order], lo, hi)
    return float(np.abs(a1 / b - expit(u)).mean())


def logit_smoothed_core(*, sigma, noise, method, n_samples, random_state):
    """The LS-ECE of one binary view, ``measure(y, p, w)``.

    With ``method="monte_carlo"`` the views share one random number
    generator, seeded once.
    """
    rng = check_random_state(random_state) if method == "monte_carlo" else None

    def measure(y, p, w):
        if method == "monte_carlo":
            return _monte_carlo(y, p, w, sigma, noise, n_samples, rng)
        if noise == "gaussian":
            return _gaussian_quadrature(y, p, w, sigma)
        return _uniform_exact(y, p, w, sigma)

    return measure


@validate_params(
    {
        **DATA_CONSTRAINTS,
        **GROUPS_CONSTRAINT,
        "sigma": [Interval(Real, _MIN_SIGMA, _MAX_SIGMA, closed="both")],
        "noise": [StrOptions({"gaussian", "uniform"})],
        "method": [StrOptions({"quadrature", "monte_carlo"})],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        **REDUCTION_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
@accepts_groups
@fill_doc
def logit_smoothed_ece(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: Label | None = None,
    labels: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    sigma: float = 0.1,
    noise: Literal["gaussian", "uniform"] = "gaussian",
    method: Literal["monte_carlo", "quadrature"] = "quadrature",
    n_samples: int = 10_000,
    random_state: RandomStateLike = None,
    reduction: Literal["auto", "classwise", "positive", "top_label"] = "auto",
    return_per_class: bool = False,
) -> float | np.ndarray:
    r"""Logit-smoothed expected calibration error (LS-ECE).

    The expected calibration error of the predictor after independent noise
    of scale ``sigma`` is added to its logit. Unlike the ECE, which can jump
    when predictions are moved by an arbitrarily small amount, the smoothed
    error is a continuous function of the predictions, and it needs no bins:
    ``sigma`` plays the role of a bin width (``sigma = 1 / n_bins`` is the
    correspondence used by Chidambaram et al.). The default evaluates the
    plug-in estimator by deterministic quadrature; ``method="monte_carlo"``
    is the authors' sampling estimator.

    Read more in the :ref:`User Guide <logit_smoothed_ece>`.

    Parameters
    ----------
    %(y_true)s
    %(y_prob)s
    %(sample_weight)s
    %(pos_label)s
    %(labels)s
    %(groups)s
    sigma : float, default=0.1
        Scale of the noise added to the logits, in logit units, in
        ``[1e-10, 1e10]``; it acts as the bandwidth of a kernel regression
        in logit space, and ``1 / sigma`` as a number of bins. The estimate
        converges to the ECE of a predictor with continuous scores when
        ``sigma`` tends to 0 while ``n * sigma`` grows, for ``n`` samples.
    noise : {"gaussian", "uniform"}, default="gaussian"
        Distribution of the noise: ``"gaussian"`` is :math:`N(0, \sigma^2)`
        (the paper's main choice); ``"uniform"`` is uniform on
        :math:`[-\sigma/2, \sigma/2]` (the paper's appendix), whose kernel
        is its own density :math:`\sigma^{-1} 1\{|x| \le \sigma/2\}`.
    method : {"quadrature", "monte_carlo"}, default="quadrature"
        ``"quadrature"`` evaluates the estimator's integral deterministically
        (see Notes). ``"monte_carlo"`` averages over ``n_samples`` random
        draws of a sample and its noise, as in the authors' code; its value
        is random, with a standard error below ``0.5 / sqrt(n_samples)``.
    n_samples : int, default=10_000
        Number of Monte-Carlo draws. Ignored unless
        ``method="monte_carlo"``.
    random_state : int, RandomState instance or None, default=None
        Source of the Monte-Carlo draws. Pass an int for reproducible output
        across multiple function calls. Ignored unless
        ``method="monte_carlo"``.
    %(reduction)s
    %(return_per_class)s

    Returns
    -------
    ls_ece : float or ndarray of shape (n_classes,)
        The logit-smoothed ECE, in [0, 1]; the per-class values when
        ``return_per_class=True``.

    See Also
    --------
    expected_calibration_error : The binned ECE.

    Notes
    -----
    With :math:`\rho` the sigmoid, logits
    :math:`h_i = \rho^{-1}(\mathrm{clip}(p_i, 10^{-6}, 1 - 10^{-6}))`, labels
    :math:`y_i \in \{0, 1\}`, weights :math:`w_i` of sum :math:`W` and
    :math:`K_\sigma` the noise density, the population quantity is

    .. math::

        \mathrm{LS\text{-}ECE}_\sigma = \mathbb{E}\,\big|\mathbb{E}[Y \mid
        h(X) + \xi] - \rho(h(X) + \xi)\big|,

    and its plug-in estimate on the weighted sample is

    .. math::

        \widehat{\mathrm{LS\text{-}ECE}}_\sigma = \frac{1}{W} \int_{\mathbb{R}}
        \Big|\sum_i w_i K_\sigma(u - h_i)\,\big(y_i - \rho(u)\big)\Big|\,du
        = \frac{1}{W} \sum_i w_i\,\mathbb{E}_\xi\big|\hat m(h_i + \xi) -
        \rho(h_i + \xi)\big|,

    where :math:`\hat m(u) = \sum_i w_i K_\sigma(u - h_i) y_i / \sum_i w_i
    K_\sigma(u - h_i)` is the Nadaraya-Watson regression of the labels on
    the logits with the noise density as kernel. Its error is
    :math:`O(1/\sqrt{n\sigma})` (Theorem 5.3 of [1]_), and it tends to the
    ECE when :math:`\sigma \to 0` with :math:`n\sigma \to \infty`; a
    perfectly calibrated predictor has a positive value, of order
    :math:`\sigma`. ``method="quadrature"`` evaluates the integral by
    Gauss-Legendre rules split at the sign changes of the integrand
    (Gaussian noise) or in closed form (uniform noise); the User Guide
    gives the details, its accuracy and cost, and how the Monte-Carlo
    estimator differs from the authors' code.

    References
    ----------
    .. [1] M. Chidambaram, H. Lee, C. McSwiggen and S. Rezchikov, "How Flawed
       Is ECE? An Analysis via Logit Smoothing", ICML 2024, arXiv:2402.10046.

    Examples
    --------
    >>> from skcal.metrics import logit_smoothed_ece

    One sample predicted at 1/2: the noisy prediction is above or below 1/2
    with equal probability, and its mean distance to the label is 1/2.

    >>> round(logit_smoothed_ece([1], [0.5]), 12)
    0.5

    Two samples predicted at 1/2, one of each class: the predictor is
    calibrated, yet smoothing leaves an error of about
    :math:`\sigma\,\mathbb{E}|Z| / 4 \approx 0.02` for ``sigma=0.1``.

    >>> round(logit_smoothed_ece([0, 1], [0.5, 0.5]), 4)
    0.0199
    >>> value = logit_smoothed_ece(
    ...     [0, 1], [0.5, 0.5], method="monte_carlo", random_state=0
    ... )
    >>> round(value, 2)
    0.02
    """
    data = check_calibration_inputs(y_true, y_prob, sample_weight, pos_label, labels)
    measure = logit_smoothed_core(
        sigma=sigma,
        noise=noise,
        method=method,
        n_samples=n_samples,
        random_state=random_state,
    )
    return reduce_measure(data, reduction, measure, return_per_class=return_per_class)
