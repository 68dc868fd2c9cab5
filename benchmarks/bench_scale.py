"""Calibration of 1e9 predictions on a Dask LocalCluster, against one process.

Binary predictions are generated lazily, chunk by chunk with fixed seeds
(``p`` uniform, ``y ~ Bernoulli(p**1.2)``), on a ``LocalCluster`` of
``--workers`` worker processes of one thread each, and measured by
:func:`skcal.dask.expected_calibration_error` (15 bins; the labels given,
so no pass over ``y_true`` first). In the same run:

* the in-memory :func:`skcal.metrics.expected_calibration_error` on one
  chunk of the same generator (``--chunk`` rows, 1e7 by default), timed
  alone, which gives the throughput of one core;
* the measure's own throughput per core, two ways: rows per second of
  the workers' time in skcal's tasks (block summaries, merges and the
  final measure, from the cluster's task stream), and rows per second of
  the wall time left after subtracting the cluster's time to generate the
  chunks and sum them (no measure), per worker;
* each worker's peak resident memory (``ru_maxrss``).

With ``--classes K`` (10 by default), ``--n-multiclass`` rows (1e8) of
softmax outputs over K classes are measured too (top-label ECE), the same way.

Run as ``python benchmarks/bench_scale.py [--n 1e9] [--n-multiclass 1e8]``:
a few minutes on 2 cores.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import functools
import resource
import time

import dask
import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster, get_task_stream

from skcal import dask as skdask
from skcal.metrics import expected_calibration_error


def _binary_chunk(seed, n):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.2).astype(np.int8)
    return y, p


def _multiclass_chunk(seed, n, k):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)).astype(np.float32) * 2.0
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    # Labels drawn from the predicted probabilities: a calibrated model.
    u = rng.uniform(size=(n, 1)).astype(np.float32)
    y = (np.cumsum(probs, axis=1) < u).sum(axis=1).clip(0, k - 1)
    return y, probs


def _lazy(make, sizes, columns=None):
    """Dask arrays (y, p) of chunks made by ``make(seed, n)`` on the workers."""
    ys, ps = [], []
    for seed, n in enumerate(sizes):
        chunk = dask.delayed(make, pure=True)(seed, n)
        ys.append(da.from_delayed(chunk[0], (n,), dtype=np.int64))
        shape = (n,) if columns is None else (n, columns)
        dtype = np.float64 if columns is None else np.float32
        ps.append(da.from_delayed(chunk[1], shape, dtype=dtype))
    return da.concatenate(ys), da.concatenate(ps)


def _sizes(n, chunk):
    return [chunk] * (n // chunk) + ([n % chunk] if n % chunk else [])


def _peak_memory(client):
    """Each worker's peak resident memory, in GiB."""
    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return [kib / 2**20 for kib in peaks.values()]


# Key prefixes of the tasks that skcal.dask adds to the graph.
_SKCAL_TASKS = ("_block_summary", "_merged", "_ask")


def _task_seconds(records, prefixes):
    """Compute seconds of the task-stream records whose key starts with a prefix."""
    total = 0.0
    for record in records:
        key = record["key"] if isinstance(record["key"], str) else record["key"][0]
        if key.startswith(prefixes):
            total += sum(
                part["stop"] - part["start"]
                for part in record["startstops"]
                if part["action"] == "compute"
            )
    return total


def _run(client, label, make, n, chunk, labels, columns=None):
    y, p = _lazy(make, _sizes(n, chunk), columns)
    start = time.perf_counter()
    generated = (y.sum() + p[:, 0].sum() if columns else y.sum() + p.sum()).compute()
    baseline = time.perf_counter() - start
    with get_task_stream(client) as stream:
        start = time.perf_counter()
        value = skdask.expected_calibration_error(y, p, labels=labels)
        elapsed = time.perf_counter() - start
    in_tasks = _task_seconds(stream.data, _SKCAL_TASKS)
    if not in_tasks:
        raise RuntimeError(f"No task of {_SKCAL_TASKS} in the task stream.")
    y1, p1 = make(0, chunk)
    start = time.perf_counter()
    expected_calibration_error(y1, p1, labels=labels)
    alone = time.perf_counter() - start
    workers = len(client.scheduler_info()["workers"])
    in_memory = chunk / alone
    per_core = n / in_tasks
    by_wall = (n / max(elapsed - baseline, 1e-9)) / workers
    print(
        f"{label}: {n:.0e} rows in {elapsed:.1f} s on {workers} workers "
        f"(generating and summing alone: {baseline:.1f} s; checksum {generated:.3g})"
    )
    print(
        f"  ECE {value:.6f}; in memory at {chunk:.0e}: {in_memory / 1e6:.1f} M rows/s"
    )
    print(
        f"  measure's throughput per core, by task time ({in_tasks:.1f} s in "
        f"skcal's tasks): {per_core / 1e6:.1f} M rows/s "
        f"(ratio {in_memory / per_core:.2f})"
    )
    print(
        f"  measure's throughput per core, by wall time less generation: "
        f"{by_wall / 1e6:.1f} M rows/s (ratio {in_memory / by_wall:.2f})"
    )
    print(
        "  peak memory per worker: "
        + ", ".join(f"{g:.2f} GiB" for g in _peak_memory(client))
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e9)
    parser.add_argument("--chunk", type=float, default=1e7)
    parser.add_argument("--n-multiclass", type=float, default=1e8)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, dashboard_address=None,
            memory_limit="4GiB",
        ) as cluster,
        Client(cluster) as client,
    ):  # fmt: skip
        _run(client, "binary", _binary_chunk, int(args.n), int(args.chunk), [0, 1])
        if args.n_multiclass:
            chunk = int(args.chunk) // args.classes
            make = functools.partial(_multiclass_chunk, k=args.classes)
            _run(client, f"top-label, {args.classes} classes", make,
                 int(args.n_multiclass), chunk, list(range(args.classes)),
                 columns=args.classes)  # fmt: skip


if __name__ == "__main__":
    main()
