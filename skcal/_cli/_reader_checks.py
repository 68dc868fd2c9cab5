"""What every reader shares: the file checks, column look-up, the byte budget.

A path is checked with :func:`os.stat` before it is opened, so that a FIFO,
a device or a folder is refused without blocking; an empty file is refused
too. Columns are looked up by name in the list a file declares, which also
finds duplicated names. :func:`check_budget` refuses data larger than
``--max-bytes`` before it is read or decompressed.
"""

# SPDX-License-Identifier: BSD-3-Clause

import os
import stat

from skcal._cli._errors import InputError
from skcal._cli._output import format_bytes

# How many names of a file's columns an error message lists.
N_NAMES_SHOWN = 20


def check_regular_file(path):
    """The size of ``path``, a non-empty regular file; else an error.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    size : int
        Its size in bytes.
    """
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(status.st_mode):
        raise InputError(f"{path} is a directory, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise InputError(
            f"{path} is not a regular file (a FIFO, socket or device); save the "
            "predictions to a file first"
        )
    if status.st_size == 0:
        raise InputError(f"{path} is empty (0 bytes)")
    return status.st_size


def shown_names(names):
    """Up to :data:`N_NAMES_SHOWN` names, for a message.

    Examples
    --------
    >>> shown_names(["y", "p"])
    "'y', 'p'"
    >>> shown_names([f"c{i}" for i in range(100)])[-30:]
    "'c18', 'c19', ... (100 in all)"
    """
    text = ", ".join(repr(name) for name in names[:N_NAMES_SHOWN])
    if len(names) > N_NAMES_SHOWN:
        text += f", ... ({len(names)} in all)"
    return text or "none"


def column_positions(path, available, names, what="column"):
    """The position of each requested name among the names a file declares.

    Parameters
    ----------
    path : pathlib.Path
        The file, for messages.
    available : list of str
        The names in the file, in order (duplicates included).
    names : list of str
        The names asked for.
    what : str, default="column"
        What a name is called in messages ("column", "array").

    Returns
    -------
    positions : dict
        ``{name: position}``.
    """
    # Built in C, the later (reversed: earlier) position of a name winning.
    positions = range(len(available) - 1, -1, -1)
    first = dict(zip(reversed(available), positions, strict=True))
    missing = [name for name in dict.fromkeys(names) if name not in first]
    if missing:
        absent = ", ".join(repr(name) for name in missing)
        raise InputError(
            f"{path} has no {what} {absent}; its {what}s are: {shown_names(available)}"
        )
    if len(first) < len(available):  # some name is repeated: which?
        for name in dict.fromkeys(names):
            count = available.count(name)
            if count > 1:
                raise InputError(
                    f"{path}: {what} {name!r} appears {count} times; rename the "
                    "duplicates"
                )
    return {name: first[name] for name in names}


def check_budget(path, n_bytes, max_bytes, what="holds"):
    """Refuse to read ``n_bytes`` of data beyond ``--max-bytes``.

    Parameters
    ----------
    path : pathlib.Path or str
        The file (or member), for the message.
    n_bytes : int
        The bytes the data takes (decompressed, decoded).
    max_bytes : int
        The limit.
    what : str, default="holds"
        The verb of the message, e.g. "decompresses to".
    """
    if n_bytes > max_bytes:
        raise InputError(
            f"{path} {what} {format_bytes(n_bytes)} of data, more than --max-bytes "
            f"{format_bytes(max_bytes)}; pass a larger --max-bytes if the file is "
            "genuine"
        )


def import_pandas(kind):
    """pandas and pyarrow, imported when a reader needs them.

    Parameters
    ----------
    kind : str
        The format, for the message (e.g. ``"CSV"``).

    Returns
    -------
    pandas : module
    """
    try:
        import pandas
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise InputError(
            f'reading {kind} needs pandas and pyarrow: pip install "skcal[cli]"'
        ) from exc
    return pandas
