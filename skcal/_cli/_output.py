"""What the command line writes: aligned tables, CSV files, progress lines.

Output files are never overwritten silently: :func:`prepare_outputs` refuses
existing targets before any work is done (unless ``--overwrite``), and
:func:`open_output` creates each file exclusively, so a file that appeared
meanwhile is refused too.
"""

# SPDX-License-Identifier: BSD-3-Clause

import csv
import math
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from skcal._cli._errors import InputError


def format_interval(value, low=math.nan, high=math.nan, digits=3):
    """``value [low, high]``, or the value alone when the interval is undefined.

    Examples
    --------
    >>> format_interval(0.25, 0.2, 0.3)
    '0.250 [0.200, 0.300]'
    >>> format_interval(0.25)
    '0.250'
    """
    text = f"{value:.{digits}f}"
    if math.isfinite(low) and math.isfinite(high):
        text += f" [{low:.{digits}f}, {high:.{digits}f}]"
    return text


def format_bytes(n_bytes):
    """A byte count in binary units.

    Examples
    --------
    >>> format_bytes(1000), format_bytes(3 * 2**30)
    ('1000 bytes', '3.0 GiB')
    """
    for unit, power in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n_bytes >= 2**power:
            return f"{n_bytes / 2**power:.1f} {unit}"
    return f"{n_bytes} bytes"


def prepare_outputs(folder, paths, overwrite):
    """Create ``folder`` and refuse any of ``paths`` that already exists.

    Parameters
    ----------
    folder : pathlib.Path
        The output folder, created with its parents if needed.
    paths : list of pathlib.Path
        The files that will be written; their names must differ.
    overwrite : bool
        Whether existing files may be replaced.
    """
    if len({path.resolve() for path in paths}) != len(paths):
        raise InputError(f"two output files of this run share a name: {paths}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or exc
        raise InputError(f"cannot create the output folder {folder}: {reason}") from exc
    if not overwrite:
        for path in paths:
            if path.exists():
                raise InputError(
                    f"{path} exists; pass --overwrite or choose another --out"
                )


@contextmanager
def open_output(path, overwrite, binary=False):
    """Open an output file for writing; without ``overwrite``, only a new one.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    overwrite : bool
        Whether an existing file may be replaced.
    binary : bool, default=False
        Binary mode (for images); otherwise UTF-8 text for the csv module.

    Yields
    ------
    file : file object
    """
    mode = ("w" if overwrite else "x") + ("b" if binary else "")
    text = {} if binary else {"newline": "", "encoding": "utf-8"}
    try:
        with open(path, mode, **text) as file:
            yield file
    except FileExistsError as exc:
        raise InputError(
            f"{path} exists; pass --overwrite or choose another --out"
        ) from exc
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def write_csv(path, header, rows, overwrite):
    """Write a CSV file of a header row and data rows (see :func:`open_output`)."""
    with open_output(Path(path), overwrite) as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows(rows)


def verbosity(args):
    """The ``verbose`` of the library's calls: ``"auto"``, or False with --quiet."""
    return False if args.quiet else "auto"


@contextmanager
def step(index, total, label, verbose="auto", stream=None):
    """Report ``[i/n] label ... 1.2 s`` on stderr around a slow step.

    With ``verbose="auto"``, only on a terminal: the label shows while the
    step runs, is erased if it fails, and gets its time when it is done.
    With ``verbose=True`` elsewhere, the line is written once the step is
    done (so that a failure leaves only the error line); with False,
    nothing.
    """
    stream = sys.stderr if stream is None else stream
    live = stream.isatty()
    if not (verbose is True or (verbose == "auto" and live)):
        yield
        return
    text = f"[{index}/{total}] {label} ..."
    if live:
        stream.write(text)
        stream.flush()
    start = time.perf_counter()
    try:
        yield
    except BaseException:
        if live:
            stream.write("\r\x1b[K")
            stream.flush()
        raise
    elapsed = f" {time.perf_counter() - start:.1f} s\n"
    stream.write(elapsed if live else text + elapsed)
    stream.flush()
