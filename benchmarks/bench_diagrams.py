"""Time and peak memory of the smooth reliability diagram, and relplot's.

For n = 10**5 and 10**6 calibrated binary predictions (p uniform on [0, 1],
y ~ Bernoulli(p), seed 0), times ``ReliabilityDisplay`` of kind "smooth"
with 100 bootstrap replicates (``random_state=0``) and prints the median
time over ``--repeat`` runs and the peak memory of one run
(``tracemalloc``, which sees numpy's allocations), in MB and as a multiple
of the input arrays (16 bytes a row: int64 labels, float64 predictions).
Calibrated data are the slow case: the SmoothECE bandwidth, and with it
the smoothing grid of every replicate, shrinks with the calibration error
(about 0.003 at n = 10**6 here, against 0.05 for ``y ~ Bernoulli(p**1.2)``,
whose bootstrap is about eight times faster). Two rows per n:

- ``compute``: the arrays only (grid, curve, density, band, SmoothECE and
  its interval). The public constructors always draw, so this row calls the
  private ``ReliabilityDisplay._compute`` that ``from_predictions`` calls
  before ``plot``;
- ``draw``: ``ReliabilityDisplay.from_predictions`` on a new Agg figure,
  followed by ``figure.canvas.draw()`` (a full render, as a user pays it).

With relplot installed (``pip install relplot``), it also runs
``relplot.rel_diagram(f, y, num_bootstrap=100)`` (100 bootstrap curves,
and its default 100-resample interval of the smECE, as skcal's) with an
Agg render, at the n up to ``--relplot-max-n`` (default 10**5; at 10**6 it
takes about a minute and several GB), and prints the ratio
``relplot / skcal`` of the ``draw`` times.

The targets of issue 6: n = 10**6 with 100 replicates in under 5 s and
under 1 GB; the last lines say whether the ``draw`` row meets them.

Run as ``python benchmarks/bench_diagrams.py [--quick] [--repeat R]``;
``--quick`` uses n = 10**4 and 10**5 (relplot at 10**4).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import time
import tracemalloc
import warnings

import matplotlib
import numpy as np

from skcal.plotting import ReliabilityDisplay

N_BOOTSTRAP = 100
TARGET_SECONDS = 5.0
TARGET_BYTES = 10**9


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


def skcal_compute(y, p):
    """The arrays of the smooth diagram, without matplotlib."""
    return ReliabilityDisplay._compute(
        y,
        p,
        sample_weight=None,
        pos_label=None,
        labels=None,
        reduction="auto",
        kind="smooth",
        sigma="auto",
        n_points=201,
        n_bins=15,
        strategy="uniform",
        interval=None,
        n_bootstrap=N_BOOTSTRAP,
        confidence_level=0.95,
        random_state=0,
        name=None,
    )


def skcal_draw(y, p):
    """The public path: compute, draw on a new Agg figure and render it."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ReliabilityDisplay.from_predictions(
        y, p, n_bootstrap=N_BOOTSTRAP, random_state=0, ax=ax
    )
    fig.canvas.draw()
    plt.close(fig)


def relplot_draw(y, p):
    """relplot's smooth diagram with as many bootstrap curves, rendered with Agg."""
    import matplotlib.pyplot as plt
    import relplot

    # relplot resets matplotlib's rcParams and uses a deprecated pandas call.
    with matplotlib.rc_context(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig, _ = relplot.rel_diagram(p, y.astype(np.float64), num_bootstrap=N_BOOTSTRAP)
        fig.canvas.draw()
        plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10**4 and 10**5")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--relplot-max-n", type=int, default=None)
    args = parser.parse_args()
    matplotlib.use("Agg")
    sizes = [10**4, 10**5] if args.quick else [10**5, 10**6]
    relplot_max_n = args.relplot_max_n
    if relplot_max_n is None:
        relplot_max_n = sizes[0]
    try:
        import relplot  # noqa: F401
    except ImportError:
        relplot_max_n = 0
        print("relplot is not installed: no reference ratio")

    print(
        f"smooth reliability diagram, {N_BOOTSTRAP} bootstrap replicates, "
        f"median of {args.repeat} runs"
    )
    print(f"{'n':>10}  {'':22} {'time':>10}  {'peak memory':>11}  {'x input':>8}")
    results = {}
    for n in sizes:
        rng = np.random.default_rng(0)
        p = rng.uniform(size=n)
        y = (rng.uniform(size=n) < p).astype(np.int64)
        input_bytes = y.nbytes + p.nbytes
        rows = [("skcal compute", skcal_compute), ("skcal draw", skcal_draw)]
        if n <= relplot_max_n:
            rows.append(("relplot.rel_diagram", relplot_draw))
        for label, func in rows:
            seconds, peak = run(func, (y, p), args.repeat)
            results[n, label] = seconds, peak
            print(
                f"{n:>10,}  {label:22} {seconds:8.2f} s  {peak / 2**20:8.1f} MB  "
                f"{peak / input_bytes:7.1f}x"
            )
        if (n, "relplot.rel_diagram") in results:
            ratio = results[n, "relplot.rel_diagram"][0] / results[n, "skcal draw"][0]
            print(f"{n:>10,}  ratio relplot / skcal (draw): {ratio:.0f}")
    if (10**6, "skcal draw") in results:
        seconds, peak = results[10**6, "skcal draw"]
        verdict = (
            "met" if seconds < TARGET_SECONDS and peak < TARGET_BYTES else "MISSED"
        )
        print(
            f"target at n = 10**6 (< {TARGET_SECONDS:.0f} s, < 1 GB): {verdict} "
            f"({seconds:.2f} s, {peak / 2**20:.0f} MB)"
        )


if __name__ == "__main__":
    main()
