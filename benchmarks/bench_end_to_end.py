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

Each is also run with 200 resamples (``--also 200``; ``--also 0`` for none),
the default when the issue set its targets: the default has since become
1000 resamples, each with a calibrated draw for a calibration error's lower
end, about ten times the work of the bootstrap the targets were set for.

Medians of ``--repeat`` runs. Run as
``python benchmarks/bench_end_to_end.py [--n 1e6] [--repeat 3] [--also 200]``.
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

from skcal._utils._bootstrap import N_BOOTSTRAP


def _resamples(n_bootstrap):
    """The words and options of a number of resamples (None: the default)."""
    if n_bootstrap is None:
        return f"{N_BOOTSTRAP} resamples", []
    return f"{n_bootstrap} resamples", ["--n-bootstrap", str(n_bootstrap)]


def _report(folder, n, repeat, also):
    rng = np.random.default_rng(0)
    p = expit(rng.normal(0.8, 1.5, size=n))
    y = (rng.random(n) < p).astype(np.uint8)
    path = folder / "predictions.npz"
    np.savez(path, y=y, p=p)
    base = [sys.executable, "-m", "skcal", "report", str(path), "--y-true", "y"]
    base += ["--y-prob", "p", "--out", str(folder / "out"), "--overwrite", "--quiet"]
    settings = [("all processors", None, []), ("--n-jobs 1", None, ["--n-jobs", "1"])]
    settings += [("all processors", also, [])] if also else []
    for label, n_bootstrap, extra in settings:
        words, options = _resamples(n_bootstrap)
        runs = [run(base + options + extra)[:2] for _ in range(repeat)]
        seconds = statistics.median(r[0] for r in runs)
        peak = statistics.median(r[1] for r in runs)
        print(
            f"report, {n:,} rows, {words}, {label}: {seconds:.1f} s, "
            f"peak {peak / 2**30:.2f} GiB"
        )


def _demo(folder, repeat, also):
    command = [sys.executable, "-m", "skcal", "demo", "--quiet", "--overwrite"]
    command += ["--out", str(folder / "demo")]
    run(command)  # the first run compiles and caches
    for n_bootstrap in [None] + ([also] if also else []):
        words, options = _resamples(n_bootstrap)
        seconds = statistics.median(run(command + options)[0] for _ in range(repeat))
        print(f"demo, {words}: {seconds:.1f} s")


def _cross_val(repeat, also):
    from sklearn.datasets import make_classification
    from sklearn.naive_bayes import GaussianNB

    from skcal.model_selection import cross_val_calibration

    X, y = make_classification(20000, 20, random_state=0)
    times = {n_bootstrap: [] for n_bootstrap in (0, N_BOOTSTRAP, also)}
    for _ in range(repeat):
        for n_bootstrap, kept in times.items():
            start = time.perf_counter()
            cross_val_calibration(
                GaussianNB(), X, y, n_bootstrap=n_bootstrap, random_state=0
            )
            kept.append(time.perf_counter() - start)
    without = statistics.median(times.pop(0))
    for n_bootstrap, kept in times.items():
        with_intervals = statistics.median(kept)
        print(
            f"cross_val_calibration, 20,000 rows, {n_bootstrap} resamples: "
            f"{with_intervals / without:.1f}x ({with_intervals:.2f} s, "
            f"{without:.2f} s without intervals)"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--also",
        type=int,
        default=200,
        help="another number of resamples to time (0 for none; default: 200)",
    )
    args = parser.parse_args()
    if args.also < 0:
        parser.error("--also must be 0 or more")
    if args.also == N_BOOTSTRAP:
        args.also = 0  # the default is timed anyway
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        _report(folder, int(args.n), args.repeat, args.also)
        _demo(folder, args.repeat, args.also)
    _cross_val(max(args.repeat, 5), args.also)


if __name__ == "__main__":
    main()
