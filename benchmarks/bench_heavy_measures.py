"""Time and peak memory of the sorting measures against one argsort.

For n binary predictions (default 10**7; p = expit(N(0.8, 1.5)), all
distinct, y ~ Bernoulli(p), y as uint8), times
``kernel_calibration_error``, ``calibration_decomposition`` and
``cutoff_calibration_error`` against the floor every one of them pays:
``numpy.argsort(p)``. Runs are interleaved (``--repeat`` rounds of every
function) and the medians are compared, ratio first. The peak memory of one
more call of each is taken with :mod:`tracemalloc` (numpy reports its
buffers to it) and divided by the input's bytes (``y.nbytes + p.nbytes``).

Targets of issue 13: the kernel error within 5x of the argsort and under 3x
the input's bytes; the decomposition and the cutoff error within 1.5x and
under 2x.

Run as ``python benchmarks/bench_heavy_measures.py [--n 1e7] [--repeat 5]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import statistics
import time
import tracemalloc

import numpy as np
from scipy.special import expit

from skcal.metrics import (
    calibration_decomposition,
    cutoff_calibration_error,
    kernel_calibration_error,
)

FUNCTIONS = {
    "argsort (floor)": lambda y, p: np.argsort(p),
    "cutoff_calibration_error": cutoff_calibration_error,
    "calibration_decomposition": calibration_decomposition,
    "kernel_calibration_error": kernel_calibration_error,
}


def _data(n):
    rng = np.random.default_rng(0)
    p = expit(rng.normal(0.8, 1.5, size=n))
    y = (rng.random(n) < p).astype(np.uint8)
    return y, p


def _peak(function, y, p):
    """Bytes allocated at the peak of one call, beyond what was live before."""
    tracemalloc.start()
    try:
        function(y, p)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    y, p = _data(int(args.n))
    times = {name: [] for name in FUNCTIONS}
    for _ in range(args.repeat):
        for name, function in FUNCTIONS.items():
            start = time.perf_counter()
            function(y, p)
            times[name].append(time.perf_counter() - start)
    floor = statistics.median(times["argsort (floor)"])
    input_bytes = y.nbytes + p.nbytes
    print(
        f"n = {int(args.n):,}, input {input_bytes / 2**20:.0f} MiB, medians of "
        f"{args.repeat} interleaved runs"
    )
    print(
        f"{'measure':28} {'x argsort':>9} {'seconds':>8} {'x input':>8} {'peak MiB':>9}"
    )
    for name, function in FUNCTIONS.items():
        median = statistics.median(times[name])
        peak = _peak(function, y, p)
        print(
            f"{name:28} {median / floor:9.2f} {median:8.2f} "
            f"{peak / input_bytes:8.2f} {peak / 2**20:9.0f}"
        )


if __name__ == "__main__":
    main()
