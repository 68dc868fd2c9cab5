"""The entry point: parse the options, run the command, report bad input.

A problem with the input (:class:`~skcal._cli._errors.InputError`) is one
line on stderr, ``skcal: error: ...``, with exit status 2 and nothing on
stdout. Warnings raised while a command runs are held back: after a
success each distinct one is printed as ``skcal: warning: ...``; after an
error they are dropped, so that the error line is the only one.
"""

# SPDX-License-Identifier: BSD-3-Clause

import sys
import warnings

from skcal._cli._arguments import PROG, parse_arguments
from skcal._cli._errors import InputError, one_line


def _run(args):
    """The command's exit status, and the warnings it raised."""
    from skcal._cli._demo import run_demo
    from skcal._cli._report import run_report

    command = run_demo if args.command == "demo" else run_report
    with warnings.catch_warnings(record=True) as caught:
        status = command(args)
    return status, caught


def main(argv=None):
    """Run the ``skcal`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments; None reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success, 2 for a usage error or bad input.
    """
    args = parse_arguments(argv)
    if isinstance(args, int):
        return args
    try:
        status, caught = _run(args)
    except InputError as exc:
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    shown = dict.fromkeys(
        f"{w.category.__name__}: {one_line(w.message)}" for w in caught
    )
    for text in shown:
        print(f"{PROG}: warning: {text}", file=sys.stderr)
    return status
