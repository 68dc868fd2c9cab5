"""The one kind of error the command line reports: :class:`InputError`.

A problem with the user's options or files becomes an :class:`InputError`
whose message names the file (when there is one) and the problem;
:func:`skcal._cli.main` prints it as one line, ``skcal: error: ...``, and
exits with status 2. Errors of other types are bugs and keep their
traceback.
"""

# SPDX-License-Identifier: BSD-3-Clause

from contextlib import contextmanager


class InputError(Exception):
    """A problem with the user's input or options, reported on one line."""


def one_line(exc):
    """The message of an exception on one line, or its type's name.

    Parameters
    ----------
    exc : BaseException
        The exception.

    Returns
    -------
    text : str

    Examples
    --------
    >>> one_line(ValueError("two\\n  lines"))
    'two lines'
    >>> one_line(MemoryError())
    'MemoryError'
    """
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


@contextmanager
def reported(prefix, errors=(ValueError, TypeError)):
    """Turn the ``errors`` raised inside the block into an :class:`InputError`.

    Parameters
    ----------
    prefix : str or None
        What the message is about, usually the file name: the message
        becomes ``"<prefix>: <the exception's message>"``.
    errors : tuple of type, default=(ValueError, TypeError)
        The exception types that mean bad input here (skcal's data checks and
        scikit-learn's raise ValueError or TypeError).

    Examples
    --------
    >>> try:
    ...     with reported("preds.csv"):
    ...         raise ValueError("y_prob contains 1 NaN or infinite value(s).")
    ... except InputError as exc:
    ...     print(exc)
    preds.csv: y_prob contains 1 NaN or infinite value(s).
    """
    try:
        yield
    except MemoryError as exc:
        where = f"{prefix}: " if prefix else ""
        raise InputError(f"{where}not enough memory for this input") from exc
    except errors as exc:
        where = f"{prefix}: " if prefix else ""
        raise InputError(f"{where}{one_line(exc)}") from exc
