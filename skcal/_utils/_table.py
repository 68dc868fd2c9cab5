"""Aligned text tables, for the command line and the results' ``print``."""

# SPDX-License-Identifier: BSD-3-Clause


def format_table(header, rows):
    """Align a table: the first column to the left, the others to the right.

    Parameters
    ----------
    header : list of str
        The column titles.
    rows : list of list of str
        The cells.

    Returns
    -------
    table : str
        The lines of the table, without trailing spaces.

    Examples
    --------
    >>> rows = [["ECE", "0.0123"], ["log loss", "0.5"]]
    >>> print(format_table(["measure", "value"], rows))
    measure    value
    ECE       0.0123
    log loss     0.5
    """
    columns = list(zip(header, *rows, strict=True))
    widths = [max(len(str(cell)) for cell in column) for column in columns]
    lines = []
    for row in [header, *rows]:
        cells = [
            f"{cell:<{width}}" if i == 0 else f"{cell:>{width}}"
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
