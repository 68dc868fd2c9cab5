"""Top-label ECE on (n, K) probability matrices against a textbook computation.

For 1e6 x 10 and 1e5 x 1000 softmax matrices, float64 and float32, times
:func:`skcal.metrics.expected_calibration_error` (validation included) and a
textbook top-label ECE written with numpy (row max, argmax, 15 equal-width
bins by ``bincount``) in interleaved pairs, and prints, ratio first, the
median times of ``--repeat`` pairs, skcal's peak of traced memory divided by
the input's bytes (``tracemalloc``), and the difference of the two values.
When torchmetrics is installed, its ``multiclass_calibration_error`` on the
CPU (15 bins, L1; with its input checks, as skcal's, and without) joins each
round, and the ratios of skcal's median to its medians are printed too;
``--torch-threads`` sets torch's intra-op threads (default: torch's own,
all cores; skcal's measure runs on one thread). ``--classwise`` times the
classwise ECE instead, against a textbook one (one transposed copy, then a
``bincount`` per class; torchmetrics has no classwise ECE).

Run as ``python benchmarks/bench_top_label_speed.py [--repeat R]`` (a minute).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time
import tracemalloc

import numpy as np

from skcal.metrics import expected_calibration_error

try:
    import torch
    from torchmetrics.functional.classification import multiclass_calibration_error
except ImportError:  # torchmetrics is optional here
    torch = None

N_BINS = 15


def textbook(y, p):
    """Top-label ECE: confidence, correctness, equal-width bins."""
    confidence = p.max(axis=1)
    correct = p.argmax(axis=1) == y
    bins = np.minimum((confidence * N_BINS).astype(np.intp), N_BINS - 1)
    sum_p = np.bincount(bins, weights=confidence, minlength=N_BINS)
    sum_y = np.bincount(bins, weights=correct, minlength=N_BINS)
    return float(np.abs(sum_p - sum_y).sum() / y.shape[0])


def textbook_classwise(y, p):
    """Classwise ECE: each column against its indicator, equal-width bins."""
    columns = np.ascontiguousarray(p.T)
    total = 0.0
    for k, column in enumerate(columns):
        bins = np.minimum((column * N_BINS).astype(np.intp), N_BINS - 1)
        sum_p = np.bincount(bins, weights=column, minlength=N_BINS)
        sum_y = np.bincount(bins, weights=y == k, minlength=N_BINS)
        total += np.abs(sum_p - sum_y).sum()
    return float(total / (y.shape[0] * p.shape[1]))


def _torchmetrics(y, p, validate_args):
    """torchmetrics' top-label ECE of the same arrays (no copy into torch)."""
    return multiclass_calibration_error(
        torch.from_numpy(p),
        torch.from_numpy(y),
        num_classes=p.shape[1],
        n_bins=N_BINS,
        norm="l1",
        validate_args=validate_args,
    )


def _seconds(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--torch-threads", type=int, default=None)
    parser.add_argument("--classwise", action="store_true")
    args = parser.parse_args()
    if torch is not None and args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    if torch is not None:
        print(f"torch threads: {torch.get_num_threads()}")
    rng = np.random.default_rng(0)
    reduction = "classwise" if args.classwise else "top_label"

    def ours_of(y, p):
        return expected_calibration_error(y, p, reduction=reduction)

    contenders = {"textbook": textbook_classwise if args.classwise else textbook}
    if torch is not None and not args.classwise:
        contenders["tm checked"] = lambda y, p: _torchmetrics(y, p, True)
        contenders["tm bare"] = lambda y, p: _torchmetrics(y, p, False)
    print(
        f"{'ratio':>6s} {'n x K':>12s} {'dtype':>8s} {'skcal ms':>9s} "
        + "".join(f"{name + ' ms':>14s}" for name in contenders)
        + f" {'peak/input':>10s} {'difference':>10s}"
        + "".join(f"{'/' + name:>12s}" for name in list(contenders)[1:])
    )
    for n, k in [(1_000_000, 10), (100_000, 1000)]:
        logits = 2.0 * rng.normal(size=(n, k))
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        del logits
        y = rng.integers(0, k, size=n)
        for dtype in (np.float64, np.float32):
            q = p.astype(dtype)
            rounds = [
                [_seconds(lambda q=q, y=y: ours_of(y, q))]
                + [_seconds(lambda f=f, q=q, y=y: f(y, q)) for f in contenders.values()]
                for _ in range(args.repeat)
            ]
            ours, *theirs = np.median(rounds, axis=0)
            tracemalloc.start()
            value = ours_of(y, q)
            difference = value - contenders["textbook"](y, q)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(
                f"{ours / theirs[0]:6.2f} {f'{n}x{k}':>12s} "
                f"{np.dtype(dtype).name:>8s} {1000 * ours:9.1f} "
                + "".join(f"{1000 * t:14.1f}" for t in theirs)
                + f" {peak / q.nbytes:10.2f} {difference:10.1e}"
                + "".join(f"{ours / t:12.2f}" for t in theirs[1:]),
                flush=True,
            )


if __name__ == "__main__":
    main()
