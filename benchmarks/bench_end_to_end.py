"""What users wait for: the report, the demo and cross-validation with intervals.

Three measurements (issue 13, item 2):

- ``skcal report`` on an ``.npz`` file of n binary predictions (default
  10**6; p = expit(N(0.8, 1.5)), y ~ Bernoulli(p)) with the default
  intervals (1000 resamples) and ``--out`` (the diagrams), as a user runs
  it, on all processors and on one thread (``--n-jobs 1``): wall time and
  peak resident memory of the process (target: under 10 s at 10**6; at
  10**7 under 2 minutes and 2 GiB);
- ``python -m skcal demo`` at its defaults, after one warm-up run
  (target: under 7 s);
- :func:`skcal.model_selection.cross_val_calibration` of GaussianNB on
  ``make_classification(20000, 20)`` with the default intervals against the
  same call without (``n_bootstrap=0``), interleaved (target: at most 3x).

Medians of ``--repeat`` runs. Run as
``python benchmarks/bench_end_to_end.py [--n 1e6] [--repeat 3]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_cli import run
from scipy.special import expit


def _report(folder, n, repeat):
    rng = np.random.default_rng(0)
    p = expit(rng.normal(0.8, 1.5, size=n))
    y = (rng.random(n) < p).astype(np.uint8)
    path = folder / "predictions.npz"
    np.savez(path, y=y, p=p)
    base = [sys.executable, "-m", "skcal", "report", str(path), "--y-true", "y"]
    base += ["--y-prob", "p", "--out", str(folder / "out"), "--overwrite", "--quiet"]
    for label, extra in (("all processors", []), ("--n-jobs 1", ["--n-jobs", "1"])):
        runs = [run(base + extra)[:2] for _ in range(repeat)]
        seconds = statistics.median(r[0] for r in runs)
        peak = statistics.median(r[1] for r in runs)
        print(
            f"report, {n:,} rows, 1000 resamples, {label}: {seconds:.1f} s, "
            f"peak {peak / 2**30:.2f} GiB"
        )


def _demo(folder, repeat):
    command = [sys.executable, "-m", "skcal", "demo", "--quiet", "--overwrite"]
    command += ["--out", str(folder / "demo")]
    run(command)  # the first run compiles and caches
    seconds = statistics.median(run(command)[0] for _ in range(repeat))
    print(f"demo, defaults: {seconds:.1f} s")


def _cross_val(repeat):
    from sklearn.datasets import make_classification
    from sklearn.naive_bayes import GaussianNB

    from skcal.model_selection import cross_val_calibration

    X, y = make_classification(20000, 20, random_state=0)
    times = {0: [], 1000: []}
    for _ in range(repeat):
        for n_bootstrap, kept in times.items():
            start = time.perf_counter()
            cross_val_calibration(
                GaussianNB(), X, y, n_bootstrap=n_bootstrap, random_state=0
            )
            kept.append(time.perf_counter() - start)
    with_intervals = statistics.median(times[1000])
    without = statistics.median(times[0])
    print(
        f"cross_val_calibration, 20,000 rows: {with_intervals / without:.1f}x "
        f"({with_intervals:.2f} s with 1000 resamples, {without:.2f} s without)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        _report(folder, int(args.n), args.repeat)
        _demo(folder, args.repeat)
    _cross_val(max(args.repeat, 5))


if __name__ == "__main__":
    main()
