"""CSV and TSV files, plain or compressed, read by pandas.

The header row is read first (with :mod:`csv`, which keeps duplicated names
as they are), the requested columns are found in it by position, and
:func:`pandas.read_csv` converts those columns only (a row shorter than the
header has empty cells, read as missing values; fields beyond the header's
are ignored). A compressed file is decompressed as a stream that stops at
``--max-bytes``, so a compressed bomb is refused after reading the budget,
never inflated whole.
"""

# SPDX-License-Identifier: BSD-3-Clause

import bz2
import csv
import gzip
import io
import lzma
import warnings
import zipfile
from contextlib import ExitStack

import numpy as np

from skcal._cli._errors import InputError
from skcal._cli._output import format_bytes
from skcal._cli._reader_checks import check_budget, column_positions, import_pandas

_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}


class _Limited(io.RawIOBase):
    """A binary stream that refuses to yield more than ``limit`` bytes."""

    def __init__(self, raw, limit, path):
        """Wrap the binary stream ``raw``; ``path`` names it in the message."""
        self._raw, self._limit, self._path = raw, limit, path
        self._total = 0

    def readable(self):
        """Whether the stream can be read (always)."""
        return True

    def readinto(self, buffer):
        """Read into ``buffer``; an error once the budget is exceeded."""
        n_read = self._raw.readinto(buffer)
        self._total += n_read
        if self._total > self._limit:
            raise InputError(
                f"{self._path} decompresses to more than --max-bytes "
                f"{format_bytes(self._limit)}; pass a larger --max-bytes if the "
                "file is genuine"
            )
        return n_read


def _zip_member(path, archive, max_bytes):
    """The one file of a ``.zip`` archive, opened, its declared size checked."""
    members = [info for info in archive.infolist() if not info.is_dir()]
    if len(members) != 1:
        raise InputError(
            f"{path} holds {len(members)} files; a compressed CSV or TSV file holds "
            "exactly one"
        )
    check_budget(path, members[0].file_size, max_bytes, "decompresses to")
    return archive.open(members[0])


def _decompressed(path, compression, max_bytes, stack):
    """The decompressed bytes of ``path``, a stream within the byte budget."""
    if compression == "zip":
        archive = stack.enter_context(zipfile.ZipFile(path))
        raw = _zip_member(path, archive, max_bytes)
    elif compression == "zstd":
        try:
            import zstandard
        except ImportError as exc:
            raise InputError(
                f"{path}: reading .zst files needs the zstandard package: "
                "pip install zstandard"
            ) from exc
        file = stack.enter_context(open(path, "rb"))  # noqa: SIM115 (closed by stack)
        raw = zstandard.ZstdDecompressor().stream_reader(file)
    else:
        raw = _OPENERS[compression](path, "rb")
    stack.enter_context(raw)
    return stack.enter_context(
        io.BufferedReader(_Limited(raw, max_bytes, path), buffer_size=2**20)
    )


def read_header(path, sep, compression, max_bytes):
    """The column names of the first non-blank row, stripped of spaces.

    Returns
    -------
    names : list of str
        Duplicates included, in file order.
    n_lines : int
        The lines up to and including the header row.
    """
    with ExitStack() as stack:
        if compression is None:
            binary = stack.enter_context(open(path, "rb"))
        else:
            binary = _decompressed(path, compression, max_bytes, stack)
        text = stack.enter_context(
            io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
        )
        reader = csv.reader(text, delimiter=sep)
        for row in reader:
            if any(field.strip() for field in row):  # pandas skips blank lines
                return [field.strip() for field in row], reader.line_num
    raise InputError(f"{path} holds no text: expected a header row naming the columns")


def _frame(pandas, path, header, positions, sep, compression, max_bytes):
    """The columns at ``positions``, parsed by pandas' C reader.

    The header row is skipped: the columns are named by their positions,
    which spares pandas the names of every column of a wide file.
    """
    names, n_lines = header
    with ExitStack() as stack, warnings.catch_warnings():
        # Columns of mixed types are turned into text below.
        warnings.simplefilter("ignore", pandas.errors.DtypeWarning)
        source = path
        if compression is not None:
            source = _decompressed(path, compression, max_bytes, stack)
        return pandas.read_csv(
            source,
            sep=sep,
            header=None,
            skiprows=n_lines,
            names=range(len(names)),
            usecols=positions,
            engine="c",
            encoding="utf-8",
        )


def _labels(series):
    """A label column: numbers or bools as they are, anything else as text."""
    if series.dtype == object:  # numbers and text mixed: all text
        series = series.astype(str)
    return series.to_numpy()


def _numbers(pandas, path, name, series):
    """A column of numbers as floats; the first value that is not one, an error."""
    if series.dtype.kind in "biuf":
        return series.to_numpy()
    values = pandas.to_numeric(series, errors="coerce")
    wrong = (values.isna() & series.notna()).to_numpy()
    if wrong.any():
        row = int(wrong.argmax())
        text = str(series.iloc[row])
        text = text if len(text) <= 40 else text[:37] + "..."
        raise InputError(
            f"{path}: column {name!r}, data row {row + 1}: {text!r} is not a number"
        )
    return values.to_numpy(dtype=np.float64)


def read_text(path, labels, numbers, *, sep, compression, max_bytes, kind):
    """The requested columns of a CSV or TSV file.

    Parameters
    ----------
    path : pathlib.Path
        The file, checked to be a regular file within the byte budget.
    labels, numbers : list of str
        The names of the label columns and of the columns of numbers.
    sep : str
        The field separator.
    compression : {"gzip", "bz2", "xz", "zstd", "zip"} or None
        How the file is compressed.
    max_bytes : int
        The byte budget of the decompressed text.
    kind : str
        The format's name for messages (``"CSV"``, ``"TSV"``).

    Returns
    -------
    columns : dict
        ``{name: 1-D ndarray}``: labels as pandas parsed them (integers,
        floats with NaN for empty cells, bools, or objects holding text), and
        the numbers as floats.
    """
    pandas = import_pandas(kind)
    header = read_header(path, sep, compression, max_bytes)
    positions = column_positions(path, header[0], [*labels, *numbers])
    used = sorted(set(positions.values()))
    frame = _frame(pandas, path, header, used, sep, compression, max_bytes)
    if frame.shape[0] == 0:
        raise InputError(f"{path} has a header row but no data rows")
    columns = {}
    for name, position in positions.items():
        series = frame[position]
        if name in numbers:
            columns[name] = _numbers(pandas, path, name, series)
        else:
            columns[name] = _labels(series)
    return columns
