"""Time the binned ECE against one bincount pass and calibration_curve.

On ``n`` binary predictions (default 10**7), prints the median time of
:func:`skcal.metrics.expected_calibration_error` (15 uniform bins) divided by

* the median time of a single ``np.bincount`` pass over the same data (the
  bin indices precomputed, the predictions as weights): the cost of touching
  every row once, which no binned measure can avoid;
* the median time of :func:`sklearn.calibration.calibration_curve` with the
  same bins (which returns the per-bin means, but no error);
* the median time of the textbook numpy ECE (``searchsorted`` on
  ``linspace`` edges and three ``bincount`` passes), whose value is printed
  beside skcal's;
* with ``--kumar``, the time of ``calibration.get_ece`` (Kumar et al.'s
  package, installed by the ``test`` extra) on the first 10**6 predictions.

Targets: within 3x of one bincount pass, and faster than calibration_curve.
Run as ``python benchmarks/bench_binned.py [--n N] [--repeat R]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time

import numpy as np
from sklearn.calibration import calibration_curve

from skcal.metrics import binned_calibration_error, expected_calibration_error


def median_time(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def textbook_ece(y, p, n_bins):
    """The usual numpy ECE: linspace edges, searchsorted, bincount."""
    ids = np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], p)
    count = np.bincount(ids, minlength=n_bins)
    gap = np.bincount(ids, p, n_bins) - np.bincount(ids, y, n_bins)
    return float(np.abs(gap[count > 0]).sum() / len(p))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--kumar", action="store_true")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    p = rng.uniform(size=args.n)
    y = (rng.uniform(size=args.n) < p**1.2).astype(np.int64)
    w = rng.uniform(size=args.n)
    n_bins = 15
    bin_ids = np.minimum((p * n_bins).astype(np.intp), n_bins - 1)

    t_bincount = median_time(
        lambda: np.bincount(bin_ids, weights=p, minlength=n_bins), args.repeat
    )
    t_ece = median_time(lambda: expected_calibration_error(y, p), args.repeat)
    t_curve = median_time(lambda: calibration_curve(y, p, n_bins=n_bins), args.repeat)
    t_textbook = median_time(lambda: textbook_ece(y, p, n_bins), args.repeat)
    t_weighted = median_time(
        lambda: expected_calibration_error(y, p, sample_weight=w), args.repeat
    )
    t_quantile = median_time(
        lambda: expected_calibration_error(y, p, strategy="quantile"), 3
    )
    t_debiased = median_time(
        lambda: binned_calibration_error(y, p, norm="l2", debias=True), args.repeat
    )

    print(f"n = {args.n:,} binary predictions, {n_bins} bins, median of {args.repeat}")
    ece, reference = expected_calibration_error(y, p), textbook_ece(y, p, n_bins)
    print(f"  ECE: skcal {ece:.12f}, textbook numpy {reference:.12f}")
    print(f"  np.bincount pass                 {t_bincount * 1e3:9.1f} ms")
    print(f"  expected_calibration_error       {t_ece * 1e3:9.1f} ms")
    print(f"  calibration_curve (scikit-learn) {t_curve * 1e3:9.1f} ms")
    print(f"  textbook numpy ECE               {t_textbook * 1e3:9.1f} ms")
    print(f"  ECE, sample_weight               {t_weighted * 1e3:9.1f} ms")
    print(
        f"  ECE, strategy='quantile'         {t_quantile * 1e3:9.1f} ms (median of 3)"
    )
    print(f"  debiased L2 error                {t_debiased * 1e3:9.1f} ms")
    print(f"ratio ECE / bincount pass:         {t_ece / t_bincount:.2f} (target <= 3)")
    print(f"ratio ECE / calibration_curve:     {t_ece / t_curve:.3f} (target < 1)")
    print(f"ratio ECE / textbook numpy ECE:    {t_ece / t_textbook:.3f}")
    if args.kumar:
        from calibration import get_ece

        m = min(args.n, 10**6)
        t_mine = median_time(lambda: expected_calibration_error(y[:m], p[:m]), 3)
        t_kumar = median_time(lambda: get_ece(p[:m], y[:m], num_bins=n_bins), 3)
        print(
            f"n = {m:,}: calibration.get_ece {t_kumar * 1e3:.1f} ms, skcal "
            f"{t_mine * 1e3:.1f} ms, ratio skcal / Kumar {t_mine / t_kumar:.4f}"
        )


if __name__ == "__main__":
    main()
