"""``skcal report --stream``: Parquet data larger than memory, through a summary.

The rows are read in batches (pyarrow's datasets: a file, a directory of
files or a glob) and added to a :class:`~skcal.metrics.CalibrationSummary`,
so that memory holds one batch and the summary whatever the number of rows;
with ``--engine dask`` the files are read and summarised by the workers of
a Dask cluster (:func:`skcal.dask.summarize`). The measures, the per-bin
table and the CSV outputs come from the summary; bootstrap intervals,
diagrams and ``--at`` need the rows and are not part of a streamed report.
"""

# SPDX-License-Identifier: BSD-3-Clause

import glob
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from skcal._cli._errors import InputError, reported
from skcal._cli._inputs import label_like
from skcal._cli._output import prepare_outputs, write_csv
from skcal._cli._reading import import_pandas
from skcal._utils._table import format_table
from skcal.metrics import CalibrationSummary

# The measures of a streamed report: methods of the summary of the same name.
_MEASURES = (
    "expected_calibration_error",
    "binned_calibration_error",
    "smooth_ece",
    "cutoff_calibration_error",
    "smooth_calibration_error",
    "brier_score_loss",
    "log_loss",
)
_BINNED = ("expected_calibration_error", "binned_calibration_error")


def is_streamed(args):
    """Whether the report streams: asked for, or a directory or glob given."""
    path = args.predictions
    return (
        args.stream
        or args.engine == "dask"
        or Path(path).is_dir()
        or glob.has_magic(path)
    )


def _files(pattern):
    """The Parquet files of a file, a directory or a glob."""
    path = Path(pattern)
    if path.is_dir():
        files = sorted(str(p) for p in path.rglob("*.parquet"))
        if not files:
            raise InputError(
                f"{pattern} is a directory with no .parquet file (a directory is "
                "read as a Parquet dataset)"
            )
    elif glob.has_magic(pattern):
        files = sorted(glob.glob(pattern, recursive=True))
    else:
        files = [pattern] if path.is_file() else []
    if not files:
        raise InputError(f"{pattern}: no Parquet file found")
    return files


def _stem(pattern):
    """The name of the outputs: a file's stem, a directory's name, or for a
    glob the name of the folder above its first wildcard.

    Examples
    --------
    >>> _stem("logs/2026-11-*.parquet"), _stem("runs/day.parquet"), _stem("logs/")
    ('logs', 'day', 'logs')
    """
    parts = Path(pattern).parts
    wild = next((i for i, part in enumerate(parts) if glob.has_magic(part)), None)
    if wild is None:
        return Path(pattern).stem or "predictions"
    return Path(*parts[:wild]).name if wild else "predictions"


def _check_request(args):
    """Refuse what a streamed report cannot do, and the columns it reads."""
    if args.predicted is not None or args.confidence is not None:
        raise InputError(
            "a streamed report takes --y-true and --y-prob; for top-label input, "
            "write the correctness of the predicted label and its confidence as "
            "two columns"
        )
    if args.y_true is None or not args.y_prob:
        raise InputError("a streamed report needs --y-true and --y-prob")
    if args.at:
        raise InputError("--at needs the rows; it is not part of a streamed report")
    if args.groups is not None:
        raise InputError("--groups needs the rows; it is not part of a streamed report")
    unknown = [m for m in args.metrics if m not in _MEASURES]
    if unknown:
        raise InputError(
            f"{', '.join(unknown)} cannot be computed from a summary; a streamed "
            f"report computes {', '.join(_MEASURES)}"
        )
    if args.format not in (None, "parquet"):
        raise InputError("a streamed report reads Parquet files only")


def _summary_options(args, first_labels):
    """The summary's configuration, with the labels typed as in the data."""
    labels = args.labels
    if labels is None and len(args.y_prob) > 1:
        names = [label_like(name, first_labels) for name in args.y_prob]
        if set(names) >= set(first_labels.tolist()):
            labels = args.y_prob
    return {
        "labels": None
        if labels is None
        else [label_like(text, first_labels) for text in labels],
        "pos_label": None
        if args.pos_label is None
        else label_like(args.pos_label, first_labels),
        "eps": 1e-3 if "smooth_ece" in args.metrics else None,
        "scores": bool({"brier_score_loss", "log_loss"} & set(args.metrics)),
    }


def _local_summary(args, files):
    """Read the files batch by batch into one summary."""
    import_pandas("Parquet")
    import pyarrow.dataset as ds

    dataset = ds.dataset(files, format="parquet")
    columns = [args.y_true, *args.y_prob]
    missing = [c for c in columns if c not in dataset.schema.names]
    if missing:
        raise InputError(f"{args.predictions}: no column {', '.join(missing)}")
    summary = None
    for batch in dataset.to_batches(columns=columns, batch_size=args.batch_rows):
        if batch.num_rows == 0:
            continue
        arrays = [
            batch.column(j).to_numpy(zero_copy_only=False) for j in range(len(columns))
        ]
        y_prob = arrays[1] if len(arrays) == 2 else np.column_stack(arrays[1:])
        if summary is None:
            summary = CalibrationSummary(**_summary_options(args, np.unique(arrays[0])))
        summary.update(arrays[0], y_prob)
    if summary is None:
        raise InputError(f"{args.predictions}: no rows")
    return summary


def _dask_summary(args, files):
    """Read and summarise the files on the Dask cluster at ``--scheduler``."""
    try:
        import dask.dataframe as dd
        from dask.distributed import Client
    except ImportError as exc:
        raise InputError("--engine dask needs Dask: pip install skcal[dask]") from exc
    from skcal.dask import summarize

    with Client(args.scheduler) if args.scheduler else nullcontext():
        frame = dd.read_parquet(files, columns=[args.y_true, *args.y_prob])
        head = np.unique(frame[args.y_true].head(1000, npartitions=-1).to_numpy())
        options = _summary_options(args, head)
        y_prob = frame[args.y_prob[0]] if len(args.y_prob) == 1 else frame[args.y_prob]
        return summarize(frame[args.y_true], y_prob, **options)


def _values(summary, args):
    """``{name: value}`` of the measures, and the bounds of the grid ones."""
    values, notes = {}, []
    for name in dict.fromkeys(args.metrics):
        method = getattr(summary, name)
        if name in _BINNED:
            values[name] = method(n_bins=args.n_bins, strategy=args.strategy)
        elif name in ("cutoff_calibration_error", "smooth_calibration_error"):
            values[name], bound = method(return_bound=True)
            notes.append(f"{name}: on the summary's cells, within {bound:.2g}")
        else:
            values[name] = method()
    return values, notes


def _write_outputs(outputs, values, table, overwrite):
    """The measures and the per-bin table as CSV files."""
    rows = [[name, repr(value)] for name, value in values.items()]
    write_csv(outputs[0], ["measure", "value"], rows, overwrite)
    header = [
        "bin_lower",
        "bin_upper",
        "count",
        "weight",
        "mean_predicted",
        "event_rate",
        "interval_low",
        "interval_high",
    ]
    rows = [
        [repr(table[key][j].item()) for key in header]
        for j in range(table.count.shape[0])
    ]
    write_csv(outputs[1], header, rows, overwrite)


def _printed(args, n_files, summary, values, notes, table):
    """The lines of a streamed report."""
    rows = [[name, f"{value:.4f}"] for name, value in values.items()]
    columns = (table.bin_lower, table.bin_upper, table.count)
    columns += (table.mean_predicted, table.event_rate)
    bins = [
        [f"({low:.3f}, {high:.3f}]", f"{count}", f"{mean:.4f}", f"{rate:.4f}"]
        for low, high, count, mean, rate in zip(*columns, strict=True)
        if count > 0
    ]
    return [
        f"skcal report (streamed, {n_files} file(s), engine {args.engine}): "
        f"{summary.n_samples_} samples, classes {summary.classes_.tolist()}, "
        f"{summary.reduction_} view",
        format_table(["measure", "value"], rows),
        "(no intervals: a streamed report keeps totals, not the rows a bootstrap "
        "resamples)",
        *notes,
        "",
        f"Per bin ({args.n_bins} {args.strategy} bins):",
        format_table(["bin", "count", "mean predicted", "observed rate"], bins),
    ]


def run_streamed_report(args):
    """Run a streamed ``skcal report`` (see the module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``skcal report``.

    Returns
    -------
    status : int
        0; bad input raises :class:`~skcal._cli._errors.InputError`.
    """
    _check_request(args)
    files = _files(args.predictions)
    stem = _stem(args.predictions)
    outputs = None
    if args.out is not None:
        folder = Path(args.out)
        outputs = folder / f"{stem}-calibration.csv", folder / f"{stem}-bins.csv"
        prepare_outputs(folder, list(outputs), args.overwrite)
    with reported(args.predictions):
        read = _dask_summary if args.engine == "dask" else _local_summary
        summary = read(args, files)
        values, notes = _values(summary, args)
        table = summary.reliability_table(n_bins=args.n_bins, strategy=args.strategy)
    if outputs is not None:
        _write_outputs(outputs, values, table, args.overwrite)
    lines = _printed(args, len(files), summary, values, notes, table)
    lines += [] if outputs is None else [f"Wrote {path}" for path in outputs]
    print("\n".join(lines))
    return 0
