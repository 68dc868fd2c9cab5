"""Files to columns: the one entry point of the readers.

:func:`read_columns` checks the path (a non-empty regular file), picks the
reader from ``--format`` or the extension, reads the requested columns only
and turns any failure of the readers into one :class:`InputError` naming
the file. Formats: CSV (``.csv``), TSV (``.tsv``, ``.tab``), both also
compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.zip``); Parquet
(``.parquet``, ``.pq``); NPZ (``.npz``) and NPY (``.npy``, see
:mod:`skcal._cli._numpy_files`). CSV, TSV and Parquet need pandas and
pyarrow (``pip install "skcal[cli]"``).
"""

# SPDX-License-Identifier: BSD-3-Clause

import csv
import lzma
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from skcal._cli._errors import InputError, one_line
from skcal._cli._numpy_files import array_shapes, read_npy, read_npz
from skcal._cli._reader_checks import (
    check_budget,
    check_regular_file,
    column_positions,
    import_pandas,
)
from skcal._cli._text import read_text

FORMAT_OF_SUFFIX = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".npz": "npz",
    ".npy": "npy",
}
COMPRESSION_OF_SUFFIX = {
    ".gz": "gzip",
    ".bz2": "bz2",
    ".xz": "xz",
    ".zst": "zstd",
    ".zip": "zip",
}
# Printed values (with a rounding to tolerate) come from these formats.
TEXT_FORMATS = {"csv": ",", "tsv": "\t"}

# What the readers raise on a bad file (besides InputError): pandas' and
# pyarrow's parser errors are ValueErrors, decompressors raise their own.
_READ_ERRORS = (
    OSError,
    ValueError,
    TypeError,
    EOFError,
    MemoryError,
    csv.Error,
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
)


class Source(NamedTuple):
    """A file to read and how.

    Attributes
    ----------
    path : pathlib.Path
        The file.
    format : {"csv", "tsv", "parquet", "npz", "npy"}
        Its format.
    compression : {"gzip", "bz2", "xz", "zstd", "zip"} or None
        How a CSV or TSV file is compressed.
    stem : str
        Its name without its extension (and that of its compression), for
        the names of output files.
    """

    path: Path
    format: str
    compression: str | None
    stem: str


def source(path, fmt=None):
    """Where and how to read ``path``: the format from ``fmt`` or the extension.

    Examples
    --------
    >>> source("runs/preds.csv.gz")[1:]
    ('csv', 'gzip', 'preds')
    >>> source("preds.txt", "tsv")[1:]
    ('tsv', None, 'preds')
    """
    path = Path(path)
    suffixes = [suffix.lower() for suffix in path.suffixes]
    compression = COMPRESSION_OF_SUFFIX.get(suffixes[-1]) if suffixes else None
    format_suffixes = suffixes[:-1] if compression else suffixes
    found = FORMAT_OF_SUFFIX.get(format_suffixes[-1]) if format_suffixes else None
    fmt = fmt or found
    if fmt is None:
        raise InputError(
            f"{path}: cannot tell the format from the extension; pass --format "
            "(csv, tsv, parquet, npz or npy)"
        )
    if compression and fmt not in TEXT_FORMATS:
        raise InputError(
            f"{path}: a compressed {fmt} file cannot be read; decompress it first"
        )
    stem = path.name
    for _ in range(1 + (compression is not None)):
        stem = stem[: len(stem) - len(Path(stem).suffix)]
    return Source(path, fmt, compression, stem or path.name)


@contextmanager
def _reading(path):
    """Any failure of a reader as one :class:`InputError` naming ``path``."""
    try:
        yield
    except InputError:
        raise
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text ({one_line(exc)})") from exc
    except MemoryError as exc:
        raise InputError(f"{path}: not enough memory to read it") from exc
    except OSError as exc:
        raise InputError(
            f"{path}: cannot read: {exc.strerror or one_line(exc)}"
        ) from exc
    except _READ_ERRORS as exc:
        raise InputError(f"{path}: {one_line(exc)}") from exc
    except Exception as exc:
        if not _is_reader_error(exc):
            raise
        raise InputError(f"{path}: {one_line(exc)}") from exc


def _is_reader_error(exc):
    """Whether ``exc`` is one of pyarrow's or zstandard's own errors.

    Those modules are imported only when a file needs them, so their error
    classes are recognised by module rather than imported here.
    """
    return type(exc).__module__.split(".")[0] in ("pyarrow", "zstandard")


def _read_parquet(path, names, max_bytes):
    """The requested columns of a Parquet file, each read on its own."""
    import_pandas("Parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as file:
        positions = column_positions(path, file.schema_arrow.names, names)
        _check_parquet_size(path, file.metadata, positions, max_bytes)
        columns = {}
        for name in positions:
            column = file.read(columns=[name]).column(0)
            if pa.types.is_dictionary(column.type):
                column = column.cast(column.type.value_type)
            columns[name] = column.to_numpy()
    return columns


def _check_parquet_size(path, metadata, names, max_bytes):
    """Refuse columns whose stored or decoded size exceeds ``--max-bytes``.

    The stored (uncompressed) sizes are summed over row groups; the decoded
    size is at least 8 bytes a value (dictionary-encoded data is small when
    stored and large when decoded).
    """
    wanted = set(names)
    stored = sum(
        group.column(j).total_uncompressed_size
        for group in map(metadata.row_group, range(metadata.num_row_groups))
        for j in range(group.num_columns)
        if group.column(j).path_in_schema.split(".")[0] in wanted
    )
    decoded = metadata.num_rows * 8 * len(wanted)
    check_budget(path, max(stored, decoded), max_bytes)


def read_columns(src, labels, numbers, max_bytes):
    """The requested columns of a file.

    Parameters
    ----------
    src : Source
        The file and its format (see :func:`source`).
    labels : list of str
        The columns of labels.
    numbers : list of str
        The columns of numbers (probabilities, confidences); in text files,
        a value that is not a number is an error naming its row.
    max_bytes : int
        The most bytes of data (decompressed) the file may hold.

    Returns
    -------
    columns : dict
        ``{name: ndarray}``, 1-D, or 2-D for an array of an NPZ file or a
        field with a shape in an NPY file.
    """
    size = check_regular_file(src.path)
    names = [*labels, *numbers]
    with _reading(src.path):
        if src.format in TEXT_FORMATS:
            if src.compression is None:
                check_budget(src.path, size, max_bytes)
            return read_text(
                src.path,
                labels,
                numbers,
                sep=TEXT_FORMATS[src.format],
                compression=src.compression,
                max_bytes=max_bytes,
                kind=src.format.upper(),
            )
        if src.format == "parquet":
            return _read_parquet(src.path, names, max_bytes)
        if src.format == "npz":
            return read_npz(src.path, names, max_bytes)
        return read_npy(src.path, names, max_bytes)


def guess_columns(src):
    """The only 1-D and the only 2-D array of an NPZ or NPY file.

    Returns
    -------
    y_true, y_prob : str
        Their names.
    """
    check_regular_file(src.path)
    with _reading(src.path):
        shapes = array_shapes(src.path, src.format)
    one = [name for name, shape in shapes.items() if len(shape) == 1]
    two = [name for name, shape in shapes.items() if len(shape) == 2]
    if len(one) == 1 and len(two) == 1:
        return one[0], two[0]
    shown = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
    raise InputError(
        f"{src.path}: name the labels and probabilities with --y-true and "
        f"--y-prob; its arrays are: {shown or 'none'}"
    )
