"""Time and peak memory of ``skcal report`` against reading with pandas alone.

For n = 10**6 and 10**7 binary predictions (p uniform, y ~ Bernoulli(p**1.2),
seeded), the data is written once to a CSV file and to a Parquet file in a
temporary folder. Each file is then measured by two whole processes:

- ``skcal``: ``python -m skcal report FILE --y-true y --y-prob p
  --n-bootstrap 0`` (the command line, as a user runs it);
- ``floor``: a process that only reads the file with pandas
  (``pandas.read_csv`` / ``pandas.read_parquet``) and calls the same five
  measures once on the columns (:data:`FLOOR`).

Every configuration runs ``--repeat`` times, interleaved, so that the noise
of a busy machine falls on both alike. The table gives the median wall time
and the median peak resident memory (``ru_maxrss`` of the child, from
``os.wait4``) of each, and their ratios; the target is a ratio of at most 2
in both. The last column checks that the values ``skcal`` printed (4
decimals) are the floor's.

Run as ``python benchmarks/bench_cli.py [--sizes 1e6 1e7] [--repeat 3]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = (
    "expected_calibration_error",
    "smooth_ece",
    "cutoff_calibration_error",
    "brier_score_loss",
    "log_loss",
)

# The floor: read the file with pandas, call each measure once, print them.
FLOOR = """
import sys
import pandas as pd
from skcal.discovery import all_measures

path = sys.argv[1]
frame = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
y, p = frame["y"].to_numpy(), frame["p"].to_numpy()
measures = {m.name: m for m in all_measures()}
for name in sys.argv[2:]:
    print(name, measures[name].function(y, p))
"""


def write_data(folder, n):
    """The seeded data of size ``n`` as CSV and Parquet; returns both paths."""
    import pandas as pd

    rng = np.random.default_rng(0)
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.2).astype(np.int64)
    frame = pd.DataFrame({"y": y, "p": p})
    csv_path = Path(folder) / f"predictions-{n}.csv"
    parquet_path = Path(folder) / f"predictions-{n}.parquet"
    frame.to_csv(csv_path, index=False)
    frame.to_parquet(parquet_path, index=False)
    return {"csv": csv_path, "parquet": parquet_path}


def commands(path):
    """The two command lines measured on ``path``."""
    return {
        "skcal": [
            sys.executable,
            "-m",
            "skcal",
            "report",
            str(path),
            "--y-true",
            "y",
            "--y-prob",
            "p",
            "--metrics",
            *MEASURES,
            "--n-bootstrap",
            "0",
        ],
        "floor": [sys.executable, "-c", FLOOR, str(path), *MEASURES],
    }


def run(command):
    """Wall seconds, peak RSS (bytes) and stdout of one process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode:
            raise RuntimeError(f"{command[:5]} failed: {err.read().decode()}")
        return seconds, usage.ru_maxrss * 1024, out.read().decode()


def values(output):
    """``{measure: value}`` from either process's output."""
    found = {}
    for name in MEASURES:
        match = re.search(rf"^{name}\s+([-0-9.e]+)", output, flags=re.MULTILINE)
        found[name] = float(match.group(1))
    return found


def agree(skcal_output, floor_output):
    """Whether skcal's printed values are the floor's, to the printed 4 decimals."""
    mine, reference = values(skcal_output), values(floor_output)
    return all(abs(mine[m] - reference[m]) <= 5.01e-5 for m in MEASURES)


def measure(paths, repeat):
    """``{(n, format, who): [(seconds, rss, output), ...]}``, runs interleaved."""
    results = {}
    for _ in range(repeat):
        for (n, fmt), path in paths.items():
            for who, command in commands(path).items():
                results.setdefault((n, fmt, who), []).append(run(command))
    return results


def table(results):
    """The medians and ratios, one line per size and format."""
    lines = [
        f"{'n':>10}  {'format':<7}  {'skcal s':>8}  {'floor s':>8}  {'ratio':>5}  "
        f"{'skcal MiB':>9}  {'floor MiB':>9}  {'ratio':>5}  values"
    ]
    for n, fmt in sorted({key[:2] for key in results}):
        mine, floor = results[n, fmt, "skcal"], results[n, fmt, "floor"]
        t_mine = statistics.median(r[0] for r in mine)
        t_floor = statistics.median(r[0] for r in floor)
        m_mine = statistics.median(r[1] for r in mine) / 2**20
        m_floor = statistics.median(r[1] for r in floor) / 2**20
        same = "equal" if agree(mine[0][2], floor[0][2]) else "DIFFER"
        lines.append(
            f"{n:>10,}  {fmt:<7}  {t_mine:>8.2f}  {t_floor:>8.2f}  "
            f"{t_mine / t_floor:>5.2f}  {m_mine:>9.0f}  {m_floor:>9.0f}  "
            f"{m_mine / m_floor:>5.2f}  {same}"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--formats", nargs="+", default=["csv", "parquet"], choices=["csv", "parquet"]
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for n in map(int, args.sizes):
            written = write_data(folder, n)
            paths.update({(n, fmt): written[fmt] for fmt in args.formats})
        print(
            f"skcal report (--n-bootstrap 0) against pandas' read + the measures; "
            f"median of {args.repeat} interleaved runs, wall time and peak RSS"
        )
        print(table(measure(paths, args.repeat)))


if __name__ == "__main__":
    main()
