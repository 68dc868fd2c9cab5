"""The options of ``skcal``, ``skcal demo`` and ``skcal report`` (argparse).

Every parse error is one line on stderr, ``skcal: error: ...``, with exit
status 2 (argparse's status for usage errors).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import math
import os
import re

from skcal._cli._output import format_bytes
from skcal._utils._bootstrap import N_BOOTSTRAP

PROG = "skcal"

# The measures of ``report`` unless --metrics says otherwise: three
# calibration errors and two proper scores.
REPORT_METRICS = (
    "expected_calibration_error",
    "smooth_ece",
    "cutoff_calibration_error",
    "brier_score_loss",
    "log_loss",
)
# The demo's data sets: scikit-learn's (GaussianNB on features), then the
# networks' outputs of skcal.datasets (the keys of the demo's tables).
DATASETS = ("breast_cancer", "digits", "cifar10_lenet", "cifar10_wideresnet")
FORMATS = ("csv", "tsv", "parquet", "npz", "npy")


class _Parser(argparse.ArgumentParser):
    """argparse, with every error (of a command too) on one line."""

    def error(self, message):
        """Exit with status 2 and the message on one line."""
        hint = f" (see '{self.prog} --help')"
        self.exit(2, f"{PROG}: error: {' '.join(message.split())}{hint}\n")


def integer(minimum, maximum=None):
    """An argparse type: an integer in ``[minimum, maximum]``.

    Examples
    --------
    >>> integer(2)("5")
    5
    """

    def parse(text):
        """The integer ``text`` names, within bounds."""
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{value} is more than {maximum}")
        return value

    parse.__name__ = "integer"
    return parse


def number(minimum, maximum, *, open_low=False):
    """An argparse type: a finite number in ``[minimum, maximum]``.

    ``open_low`` excludes ``minimum``.

    Examples
    --------
    >>> number(0.0, 1.0)("0.8")
    0.8
    """

    def parse(text):
        """The number ``text`` names, within bounds."""
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        below = value <= minimum if open_low else value < minimum
        if not math.isfinite(value) or below or value > maximum:
            side = "(" if open_low else "["
            raise argparse.ArgumentTypeError(
                f"{text} is not in {side}{minimum:g}, {maximum:g}]"
            )
        return value

    parse.__name__ = "number"
    return parse


_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def byte_size(text):
    """An argparse type: a number of bytes, with an optional unit K, M, G or T.

    Units are binary (``1K`` is 1024 bytes); ``KiB``, ``KB`` and ``k`` alike.

    Examples
    --------
    >>> byte_size("1000"), byte_size("1.5K"), byte_size("2GiB")
    (1000, 1536, 2147483648)
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if match is None or float(match.group(1)) * _UNITS[match.group(2)] < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a positive size in bytes (e.g. 500M, 4G)"
        )
    return int(float(match.group(1)) * _UNITS[match.group(2)])


byte_size.__name__ = "size"


def default_max_bytes():
    """Half the physical memory (4 GiB where it cannot be found)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (AttributeError, ValueError, OSError):
        return 4 * 2**30


def build_parser():
    """The parser of ``skcal`` and its commands.

    Returns
    -------
    parser : argparse.ArgumentParser
        ``parse_args`` gives a namespace whose ``command`` is ``"demo"`` or
        ``"report"``.
    """
    from skcal import __version__

    parser = _Parser(
        prog=PROG,
        description=(
            "Measure and repair the calibration of probabilistic classifiers. "
            "Start with `skcal demo`."
        ),
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_demo(commands)
    _add_report(commands)
    return parser


def _add_demo(commands):
    """The ``demo`` command and its options."""
    demo = commands.add_parser(
        "demo",
        help="compare every recalibrator on a data set that ships with scikit-learn",
        description=(
            "Cross-validate GaussianNB alone and wrapped in every skcal "
            "recalibrator; print calibration errors and proper scores with "
            "bootstrap intervals, then the recalibrator a grid search picks by a "
            "proper score and by ECE alone. Writes CSV files and the reliability "
            "and calibration-sharpness diagrams to --out. No downloads; 10 to 20 "
            "seconds on 2 cores."
        ),
    )
    _add_out(demo, default="skcal-demo", what="the tables and diagrams")
    demo.add_argument(
        "--n-bootstrap",
        metavar="N",
        type=integer(0),
        help="bootstrap resamples per interval, 0 for none (default: "
        f"{N_BOOTSTRAP}; --quick: 10)",
    )
    demo.add_argument(
        "--cv",
        metavar="K",
        type=integer(2),
        help="cross-validation folds of the evaluation (default: 5; --quick: 3)",
    )
    demo.add_argument(
        "--dataset",
        choices=DATASETS,
        default="breast_cancer",
        help="breast_cancer (binary, default) or digits (10 classes, slower), "
        "GaussianNB on scikit-learn's data; or cifar10_lenet or "
        "cifar10_wideresnet, a network's shipped probabilities (10,000 rows, "
        "slowest)",
    )
    demo.add_argument(
        "--quick",
        action="store_true",
        help="tiny settings (3 folds, 10 resamples), for a smoke test",
    )
    _add_jobs(demo)
    _add_quiet(demo)


def jobs(text):
    """An argparse type: a number of threads, at least 1, or -1 for all processors.

    Examples
    --------
    >>> jobs("2"), jobs("-1")
    (2, -1)
    """
    value = integer(-1)(text)
    if value == 0:
        raise argparse.ArgumentTypeError("0 threads: give at least 1, or -1 for all")
    return value


def _add_jobs(command):
    """``--n-jobs``, shared by both commands."""
    command.add_argument(
        "--n-jobs",
        metavar="N",
        type=jobs,
        default=-1,
        help="threads drawing the bootstrap resamples (and fitting the demo's "
        "cross-validated models; its grid search runs on one), -1 for all "
        "processors (default: -1; the results do not depend on it)",
    )


def _add_quiet(command):
    """``--quiet``, shared by both commands."""
    command.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on the standard error stream (shown on a terminal only)",
    )


def _add_out(command, default, what):
    """``--out`` and ``--overwrite``, shared by both commands."""
    command.add_argument(
        "--out",
        metavar="DIR",
        default=default,
        help=f"write {what} to DIR, created if needed"
        + (f" (default: ./{default})" if default else ""),
    )
    command.add_argument(
        "--overwrite",
        action="store_true",
        help="replace files of an earlier run in --out (otherwise an error)",
    )


def _add_report(commands):
    """The ``report`` command and its options."""
    report = commands.add_parser(
        "report",
        help="measure the calibration of predictions saved in a file",
        description=(
            "Measure the calibration of saved predictions, without a model, with "
            "bootstrap intervals. Give the true labels (--y-true) and either the "
            "probabilities (--y-prob: one column for a binary problem, one per "
            "class otherwise, or the name of a 2-D NPZ array) or, for top-label "
            "predictions, the predicted label and its confidence (--predicted, "
            "--confidence). Reads CSV, TSV (also compressed: .gz, .bz2, .xz, "
            ".zst, .zip), Parquet, NPZ, and NPY files holding a structured array "
            "whose fields are the columns; only the named columns are loaded. "
            "Rows of several columns must sum to 1, up to the rounding of the "
            "printed values (CSV, TSV)."
        ),
    )
    report.add_argument(
        "predictions",
        metavar="PREDICTIONS",
        help="a .csv, .tsv, .parquet, .npz or .npy file (see --format)",
    )
    _add_columns(report)
    _add_report_options(report)


def _add_columns(report):
    """The options naming the columns and classes of ``report``."""
    report.add_argument(
        "--y-true", metavar="COL", help="column (or array) of the true labels"
    )
    report.add_argument(
        "--y-prob",
        metavar="COL",
        nargs="+",
        help="probability column(s): one for a binary problem (of --pos-label), "
        "one per class, or the name of a 2-D array (NPZ, NPY)",
    )
    report.add_argument(
        "--confidence",
        metavar="COL",
        help="top-label input: the confidence of the predicted label",
    )
    report.add_argument(
        "--predicted",
        metavar="COL",
        help="top-label input: the predicted label (an event when it equals --y-true)",
    )
    report.add_argument(
        "--groups",
        metavar="COL",
        help="column of group labels (a region, an age band, ...): also report "
        "each measure with its interval for every group, the worst group and, "
        "with --out, a reliability diagram with one panel per group",
    )
    report.add_argument(
        "--pos-label",
        metavar="L",
        help="binary input: the class whose probability --y-prob gives (default "
        "1 for labels in {0, 1} or {-1, 1}; for two columns, the second)",
    )
    report.add_argument(
        "--labels",
        metavar="L",
        nargs="+",
        help="the class of each --y-prob column (default: the column names when "
        "they are the labels, else the sorted labels); with one column, the "
        "two classes of the binary problem",
    )


def _add_report_options(report):
    """The other options of ``report``: format, measures, outputs, sizes."""
    from skcal.metrics._registry import MEASURES_BY_NAME

    report.add_argument(
        "--format",
        choices=FORMATS,
        help="file format (default: from the extension)",
    )
    report.add_argument(
        "--metrics",
        metavar="NAME",
        nargs="+",
        choices=sorted(MEASURES_BY_NAME),
        default=list(REPORT_METRICS),
        help=f"the measures to report, any of {', '.join(sorted(MEASURES_BY_NAME))} "
        f"(default: {' '.join(REPORT_METRICS)})",
    )
    _add_bins(report)
    _add_out(
        report,
        default=None,
        what="the measures as <name>-calibration.csv, the per-bin table as "
        "<name>-bins.csv and the diagrams as <name>-reliability.png, "
        "<name>-calibration-sharpness.png",
    )
    report.add_argument(
        "--n-bootstrap",
        metavar="N",
        type=integer(0),
        default=N_BOOTSTRAP,
        help="bootstrap resamples for the intervals, 0 for none (default: "
        f"{N_BOOTSTRAP})",
    )
    report.add_argument(
        "--random-state",
        metavar="SEED",
        type=integer(0, 2**32 - 1),
        default=0,
        help="seed of the bootstrap (default: 0)",
    )
    report.add_argument(
        "--max-bytes",
        metavar="SIZE",
        type=byte_size,
        default=default_max_bytes(),
        help="refuse to read more than SIZE bytes of data from the file, after "
        "decompression (a guard against compressed bombs; default: half the "
        f"memory, {format_bytes(default_max_bytes())})",
    )
    _add_stream(report)
    _add_jobs(report)
    _add_quiet(report)


def _add_stream(report):
    """The options of a streamed report (Parquet data larger than memory)."""
    report.add_argument(
        "--stream",
        action="store_true",
        help="read the Parquet data in batches through a mergeable summary, in "
        "constant memory (implied for a directory or a glob); no intervals, "
        "diagrams or --at",
    )
    report.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="stream in this process, or read and summarise the files on a Dask "
        "cluster (default: local)",
    )
    report.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: the address of the cluster's scheduler "
        "(default: Dask's active scheduler)",
    )
    report.add_argument(
        "--batch-rows",
        metavar="N",
        type=integer(1),
        default=1_000_000,
        help="rows read at once by a streamed report (default: 1000000)",
    )


def _add_bins(report):
    """The per-bin table's options and ``--at``."""
    from skcal._utils._bins import STRATEGIES

    report.add_argument(
        "--n-bins",
        metavar="N",
        type=integer(1, 10_000),
        default=15,
        help="bins of the table, the binned diagram and the binned measures "
        "(default: 15)",
    )
    report.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="uniform",
        help="bins of equal width (uniform) or equal count (quantile) "
        "(default: uniform)",
    )
    report.add_argument(
        "--at",
        metavar="P",
        nargs="+",
        type=number(0.0, 1.0),
        default=[],
        help="say what happened among the predictions near each probability P",
    )
    report.add_argument(
        "--near",
        metavar="W",
        type=number(0.0, 0.5, open_low=True),
        default=0.05,
        help="with --at: the predictions within W of P (default: 0.05)",
    )


def parse_arguments(argv=None):
    """Parse the command line; on an error or --help, the exit status.

    Returns
    -------
    args : argparse.Namespace or int
        The options, or the status to exit with.
    """
    parser = build_parser()
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error
        if exc.code is None:
            return 0
        return exc.code if isinstance(exc.code, int) else 2
