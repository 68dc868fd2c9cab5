"""Time and peak memory of every calibration measure, and SmoothECE vs relplot.

For n in 10**4 .. 10**7 binary predictions (p uniform, y ~ Bernoulli(p**1.2)),
prints each measure's median time over a few runs and its peak memory
(``tracemalloc``, which sees numpy's allocations) as a multiple of the
input arrays (16 bytes a row: int64 labels and float64 probabilities).
The time per row should stay flat or grow like log n, and the memory ratio
stay bounded, if a measure is O(n log n) time and O(n) memory.

With relplot installed (``pip install relplot``), it also times
``relplot.smECE`` on the same data and prints the ratio
``relplot / skcal.smooth_ece``; relplot is skipped above ``--relplot-max-n``
(default 10**6; at 10**7 it takes minutes).

Run as ``python benchmarks/bench_measures.py [--max-n N] [--repeat R]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time
import tracemalloc

import numpy as np

from skcal import metrics


def measures():
    """The measures to time, as name -> callable(y, p)."""
    return {
        "expected_calibration_error": metrics.expected_calibration_error,
        "smooth_ece": metrics.smooth_ece,
        "logit_smoothed_ece": metrics.logit_smoothed_ece,
        "cutoff_calibration_error": metrics.cutoff_calibration_error,
        "smooth_calibration_error": metrics.smooth_calibration_error,
        "calibration_decomposition": metrics.calibration_decomposition,
        "kernel_calibration_error": metrics.kernel_calibration_error,
        "recalibration_improvement": lambda y, p: metrics.recalibration_improvement(
            y, p, np.clip(p * 0.9 + 0.05, 0, 1)
        ),
    }


def run(func, arguments, repeat):
    """Median seconds of ``func(*arguments)`` and the peak traced bytes of one run."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(*arguments)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    func(*arguments)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return float(np.median(times)), peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--relplot-max-n", type=int, default=10**6)
    parser.add_argument("--only", nargs="*", help="names of measures to run")
    args = parser.parse_args()
    try:
        import relplot
    except ImportError:
        relplot = None

    table = measures()
    names = args.only or list(table)
    n = 10**4
    while n <= args.max_n:
        rng = np.random.default_rng(0)
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p**1.2).astype(np.int64)
        input_bytes = y.nbytes + p.nbytes
        print(f"n = {n:,}")
        for name in names:
            seconds, peak = run(table[name], (y, p), args.repeat)
            print(
                f"  {name:28s} {seconds * 1e3:10.1f} ms  "
                f"{seconds / n * 1e9:8.1f} ns/row  "
                f"peak {peak / input_bytes:5.2f}x input"
            )
        if relplot is not None and n <= args.relplot_max_n and "smooth_ece" in names:
            mine, _ = run(metrics.smooth_ece, (y, p), args.repeat)
            theirs, peak = run(relplot.smECE, (p, y.astype(float)), 1)
            print(
                f"  relplot.smECE                {theirs * 1e3:10.1f} ms  "
                f"peak {peak / input_bytes:5.2f}x input; ratio relplot / skcal "
                f"{theirs / mine:.1f}"
            )
        n *= 10


if __name__ == "__main__":
    main()
