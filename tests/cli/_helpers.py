"""Shared helpers of the command-line tests: running ``main``, writing files."""

# SPDX-License-Identifier: BSD-3-Clause

import csv
import re

import numpy as np

from skcal._cli import main


def run(capsys, *args):
    """``main(args)``, with its exit status, stdout and stderr."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def error_line(capsys, *args):
    """The one error line of a failing run, checked: status 2, stdout empty."""
    status, out, err = run(capsys, *args)
    assert status == 2, (out, err)
    assert out == ""
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("skcal: error: ")
    return line


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def report_values(path):
    """``{measure: (value, ci_low, ci_high)}`` from a report's CSV file."""
    return {
        row["measure"]: tuple(float(row[k]) for k in ("value", "ci_low", "ci_high"))
        for row in read_csv(path)
    }


def printed(out, name):
    """The value a report printed for the measure ``name``."""
    (value,) = re.findall(rf"^{name} +([0-9.]+) ", out, flags=re.MULTILINE)
    return float(value)


def printed_values(out):
    """``{measure: printed value}`` of every measure of a report."""
    found = re.findall(r"^([a-z_]+) +([0-9.]+) ", out, flags=re.MULTILINE)
    return {name: float(value) for name, value in found}


def write_rows(path, header, rows, delimiter=","):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def rows_of(labels, proba, fmt=lambda v: repr(float(v))):
    """CSV rows ``label, p_1, ..., p_k`` (``proba`` 1-D or 2-D)."""
    proba = np.asarray(proba).reshape(len(labels), -1)
    return [[label, *map(fmt, row)] for label, row in zip(labels, proba, strict=True)]


def random_binary(rng, n=300):
    p = rng.uniform(0.01, 0.99, size=n)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    return y, p


def random_multiclass(rng, n=300, k=3):
    p = rng.dirichlet(np.ones(k), size=n)
    y = np.array([rng.choice(k, p=row) for row in p])
    return y, p
