"""Tests of the readers (``skcal/_cli/_reading.py``, ``_text.py``, ``_files.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skcal._cli._errors import InputError
from skcal._cli._reader_checks import column_positions
from skcal._cli._reading import read_columns, source


@pytest.mark.parametrize(
    "name, fmt, expected",
    [
        ("preds.csv", None, ("csv", None, "preds")),
        ("preds.CSV", None, ("csv", None, "preds")),
        ("a.b.tsv", None, ("tsv", None, "a.b")),
        ("preds.tab.bz2", None, ("tsv", "bz2", "preds")),
        ("preds.csv.zst", None, ("csv", "zstd", "preds")),
        ("preds.pq", None, ("parquet", None, "preds")),
        ("preds.npy", None, ("npy", None, "preds")),
        ("preds.txt", "csv", ("csv", None, "preds")),
        ("preds.zip", "tsv", ("tsv", "zip", "preds")),
        ("preds", "npz", ("npz", None, "preds")),
    ],
)
def test_source(name, fmt, expected):
    assert source(f"folder/{name}", fmt)[1:] == expected


@pytest.mark.parametrize(
    "name, match",
    [("preds", "cannot tell the format"), ("preds.npz.gz", "compressed npz")],
)
def test_source_refused(name, match):
    with pytest.raises(InputError, match=match):
        source(name)


def test_column_positions():
    names = ["y", "a", "b", "a"]
    assert column_positions("f.csv", names, ["b", "y"]) == {"b": 2, "y": 0}
    with pytest.raises(InputError, match="column 'a' appears 2 times"):
        column_positions("f.csv", names, ["y", "a"])
    with pytest.raises(InputError, match=r"has no array 'c', 'd'; its arrays are: 'y'"):
        column_positions("f.npz", names, ["c", "d", "y"], what="array")


def _read(path, labels=("y",), numbers=("p",), fmt=None):
    return read_columns(source(path, fmt), list(labels), list(numbers), 2**30)


@pytest.mark.parametrize(
    "text",
    [
        "\ufeffy,p\n1,0.5\n0,0.25\n",  # a byte-order mark
        "\n\n  \ny,p\n1,0.5\n0,0.25\n",  # blank lines first
        '"y","p"\r\n1,0.5\r\n0,0.25\r\n',  # quoted names, CRLF
        " y , p \n1,0.5\n0,0.25\n",  # spaces around names
        "y,p,x\n1,0.5,a\n\n0,0.25,b\n",  # a blank line inside, an unused column
        "x,y,p\n1,1,0.5\n2,0,0.25,9\n",  # a row longer than the header (ignored)
    ],
    ids=["bom", "blank_lines", "quoted_crlf", "spaces", "blank_row", "long_row"],
)
def test_csv_quirks(tmp_path, text):
    """Check that CSV variants pandas reads give the same columns."""
    path = tmp_path / "preds.csv"
    path.write_bytes(text.encode())
    columns = _read(path)
    assert_array_equal(columns["y"], [1, 0])
    assert_array_equal(columns["p"], [0.5, 0.25])


def test_labels_of_mixed_types_become_text(tmp_path):
    """Check that a label column of numbers, then text, is read as text.

    pandas parses a long file in chunks, which may give a mix of ints and
    strings; the labels must compare, so they all become text.
    """
    n = 300_000
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n" + "1,0.5\n" * n + "x,0.5\n" * n)
    y = _read(path)["y"]
    assert {type(v) for v in y[[0, -1]]} == {str}
    assert y[0] == "1" and y[-1] == "x"


def test_only_requested_columns_are_converted(tmp_path):
    """Check that an unused column of text does not disturb the numbers."""
    path = tmp_path / "preds.tsv"
    path.write_text("y\tnote\tp\n1\tfine\t0.5\n0\t\t0.25\n")
    assert set(_read(path)) == {"y", "p"}


def test_npz_bytes_labels_are_text(tmp_path):
    path = tmp_path / "preds.npz"
    np.savez(path, y=np.array([b"yes", b"no"]), p=np.array([0.5, 0.25]))
    assert _read(path)["y"].tolist() == ["yes", "no"]


def test_npy_field_with_a_shape(tmp_path):
    """Check that a field of shape (k,) of an NPY file is a 2-D column."""
    dtype = [("y", "i8"), ("p", "f8", (3,))]
    records = np.zeros(4, dtype=dtype)
    records["p"] = 1 / 3
    path = tmp_path / "preds.npy"
    np.save(path, records)
    columns = _read(path)
    assert columns["p"].shape == (4, 3)
    assert type(columns["p"]) is np.ndarray
