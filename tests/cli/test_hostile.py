"""Tests of ``skcal report`` on hostile input: one line, exit status 2.

Every case prints exactly one line on stderr, ``skcal: error: <file>...``,
nothing on stdout and no traceback (issue 11, item 6).
"""

# SPDX-License-Identifier: BSD-3-Clause

import bz2
import gzip
import io
import os
import subprocess
import sys
import time
import warnings
import zipfile

import numpy as np
import pytest

from tests.cli._helpers import error_line, printed, run

# ---------------------------------------------------------------------------
# CSV files with broken content: (content, options, expected part of the line)
# ---------------------------------------------------------------------------

BROKEN_CSV = {
    "empty_file": ("", ["--y-prob", "p"], "is empty (0 bytes)"),
    "blank_lines": ("\n\n  \n", ["--y-prob", "p"], "holds no text"),
    "header_only": ("y,p\n", ["--y-prob", "p"], "has a header row but no data rows"),
    "missing_column": ("y,q\n1,0.5\n", ["--y-prob", "p"], "has no column 'p'"),
    "duplicated_column": (
        "y,p,p\n1,0.5,0.2\n",
        ["--y-prob", "p"],
        "column 'p' appears 2 times",
    ),
    "text_probability": (
        "y,p\n1,0.5\n0,high\n",
        ["--y-prob", "p"],
        "column 'p', data row 2: 'high' is not a number",
    ),
    "above_one": (
        "y,p\n1,1.5\n0,0.2\n",
        ["--y-prob", "p"],
        "1 value(s) outside [0, 1]",
    ),
    "negative": ("y,p\n1,-0.1\n0,0.2\n", ["--y-prob", "p"], "outside [0, 1]"),
    "overflowing_number": ("y,p\n1,1e999\n0,0.2\n", ["--y-prob", "p"], "1 NaN or inf"),
    "nan": ("y,p\n1,nan\n0,0.2\n", ["--y-prob", "p"], "y_prob contains 1 NaN or inf"),
    "inf": ("y,p\n1,inf\n0,-inf\n", ["--y-prob", "p"], "y_prob contains 2 NaN or inf"),
    "empty_cell": ("y,p\n1,\n", ["--y-prob", "p"], "y_prob contains 1 NaN"),
    "ragged_row": ("y,p\n1,0.5\n0\n", ["--y-prob", "p"], "y_prob contains 1 NaN"),
    "nan_label": ("y,p\n,0.5\n1,0.2\n", ["--y-prob", "p"], "y_true contains 1 NaN"),
    "missing_text_label": (
        "y,p\nno,0.5\n,0.2\n",
        ["--y-prob", "p", "--pos-label", "no"],
        "y_true contains 1 missing value(s)",
    ),
    "not_summing_to_one": (
        "y,a,b\n0,0.5,0.6\n1,0.5,0.5\n",
        ["--y-prob", "a", "b"],
        "y_prob has 1 row(s) that do not sum to 1",
    ),
    "labels_need_pos_label": (
        "y,p\nno,0.5\nyes,0.6\n",
        ["--y-prob", "p"],
        "pos_label is not specified",
    ),
    "unknown_pos_label": (
        "y,p\nno,0.5\nyes,0.6\n",
        ["--y-prob", "p", "--pos-label", "maybe"],
        "pos_label='maybe' is not among the labels",
    ),
    "three_classes_one_column": (
        "y,p\n0,0.5\n1,0.6\n2,0.1\n",
        ["--y-prob", "p"],
        "y_true has 3 classes but y_prob is 1-D",
    ),
    "duplicated_labels": (
        "y,a,b\n0,0.5,0.5\n1,0.5,0.5\n",
        ["--y-prob", "a", "b", "--labels", "1", "1"],
        "labels contains 1 duplicated value(s)",
    ),
    "top_label_nan": (
        "y,hat,c\n1,1,0.9\n,0,0.6\n",
        ["--predicted", "hat", "--confidence", "c"],
        "y_true is whether 'hat' equals 'y', y_prob is 'c'): y_true contains 1 NaN",
    ),
    "csv_as_npz": ("y,p\n1,0.5\n", ["--y-prob", "p", "--format", "npz"], "not a zip"),
    "csv_as_parquet": (
        "y,p\n1,0.5\n",
        ["--y-prob", "p", "--format", "parquet"],
        "Parquet magic bytes not found",
    ),
    "huge_header_field": (
        "y," + "p" * 200_000 + "\n1,0.5\n",
        ["--y-prob", "p"],
        "field",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_CSV))
def test_broken_csv(capsys, tmp_path, case):
    """Check that a malformed CSV file gets one line naming it and the problem."""
    content, options, match = BROKEN_CSV[case]
    path = tmp_path / f"{case}.csv"
    path.write_text(content)
    line = error_line(capsys, "report", path, "--y-true", "y", *options)
    assert line.startswith(f"skcal: error: {path}")
    assert match in line, line


def test_extreme_numbers_are_numbers(capsys, tmp_path):
    """Check that 0e400 and 1e-400 read as 0, as any float parser reads them."""
    path = tmp_path / "zeros.csv"
    path.write_text("y,p\n1,0.5\n0,0e400\n0,1e-400\n")
    same = tmp_path / "same.csv"
    same.write_text("y,p\n1,0.5\n0,0\n0,0\n")
    options = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"]
    status, out, err = run(capsys, "report", path, *options)
    assert status == 0, err
    assert (
        out.splitlines()[1:]
        == run(capsys, "report", same, *options)[1].splitlines()[1:]
    )


def test_binary_garbage(capsys, tmp_path, global_random_seed):
    """Check that random bytes, read as any format, get one line."""
    garbage = np.random.RandomState(global_random_seed).bytes(5000)
    for name in (
        "g.csv",
        "g.tsv",
        "g.parquet",
        "g.npz",
        "g.npy",
        "g.csv.gz",
        "g.csv.xz",
    ):
        path = tmp_path / name
        path.write_bytes(garbage)
        line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
        assert line.startswith(f"skcal: error: {path}")


def test_latin1_text(capsys, tmp_path):
    """Check that a CSV file that is not UTF-8 says so."""
    path = tmp_path / "latin.csv"
    path.write_bytes("y,p\nété,0.5\n".encode("latin-1"))
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path} is not UTF-8 text")


# ---------------------------------------------------------------------------
# Paths that are not regular, readable files
# ---------------------------------------------------------------------------


def test_missing_file(capsys, tmp_path):
    path = tmp_path / "missing.csv"
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line == f"skcal: error: {path}: no such file"
    below_a_file = tmp_path / "missing.csv" / "x.csv"
    path.write_text("y,p\n")
    line = error_line(capsys, "report", below_a_file, "--y-true", "y", "--y-prob", "p")
    assert line == f"skcal: error: {below_a_file}: no such file"


def test_directory(capsys, tmp_path):
    path = tmp_path / "folder.csv"
    path.mkdir()
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line == (
        f"skcal: error: {path} is a directory with no .parquet file (a directory "
        "is read as a Parquet dataset)"
    )


def test_symlink_loop(capsys, tmp_path):
    path = tmp_path / "loop.csv"
    path.symlink_to(path)
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path}: cannot read: ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_blocking(tmp_path):
    """Check that a FIFO is refused before it is opened (which would block)."""
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skcal",
            "report",
            str(path),
            "--y-true",
            "y",
            "--y-prob",
            "p",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.perf_counter() - start < 60
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"skcal: error: {path} is not a regular file (a FIFO, socket or device); "
        "save the predictions to a file first"
    ]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root reads every file",
)
def test_unreadable_file(capsys, tmp_path):
    path = tmp_path / "secret.csv"
    path.write_text("y,p\n1,0.5\n")
    path.chmod(0)
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line == f"skcal: error: {path}: cannot read: Permission denied"


def test_unreadable_file_message(capsys, tmp_path, monkeypatch):
    """Check the message of a refused open (simulated: root can read anything)."""
    import skcal._cli._text

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(skcal._cli._text, "open", refuse, raising=False)
    path = tmp_path / "secret.csv"
    path.write_text("y,p\n1,0.5\n")
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line == f"skcal: error: {path}: cannot read: Permission denied"


def test_unknown_extension(capsys, tmp_path):
    path = tmp_path / "preds.txt"
    path.write_text("y,p\n1,0.5\n")
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path}: cannot tell the format")
    assert "--format" in line


# ---------------------------------------------------------------------------
# Size: a million columns, compressed bombs
# ---------------------------------------------------------------------------


def test_a_million_columns(capsys, tmp_path):
    """Check that 10**6 columns are read when the named ones exist, else refused."""
    n_columns = 10**6
    path = tmp_path / "wide.csv"
    with open(path, "w") as f:
        f.write("y," + ",".join(f"c{i}" for i in range(1, n_columns)) + "\n")
        for label, value in (("1", "0.75"), ("0", "0.25"), ("1", "0.5")):
            f.write(label + ("," + value) * (n_columns - 1) + "\n")
    options = ["--y-true", "y", "--n-bootstrap", "0", "--metrics", "brier_score_loss"]
    start = time.perf_counter()
    status, out, err = run(capsys, "report", path, *options, "--y-prob", "c999999")
    assert status == 0, err
    assert time.perf_counter() - start < 30
    assert printed(out, "brier_score_loss") == 0.125  # (1/16 + 1/16 + 1/4) / 3
    line = error_line(capsys, "report", path, *options, "--y-prob", "nope")
    assert line.startswith(f"skcal: error: {path} has no column 'nope'; its columns")
    assert line.endswith("'c18', 'c19', ... (1000000 in all)")


def test_gzip_bomb(capsys, tmp_path):
    """Check that a CSV decompressing beyond --max-bytes is refused midway."""
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(b"y,p\n" + b"1,0.5\n" * 200_000))
    options = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"]
    assert run(capsys, "report", path, *options)[0] == 0
    line = error_line(capsys, "report", path, *options, "--max-bytes", "100K")
    assert line == (
        f"skcal: error: {path} decompresses to more than --max-bytes 100.0 KiB; "
        "pass a larger --max-bytes if the file is genuine"
    )


def test_zip_bomb_declared(capsys, tmp_path):
    """Check that a zipped CSV declaring a size beyond --max-bytes is refused."""
    path = tmp_path / "bomb.csv.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.csv", b"y,p\n" + b"1,0.5\n" * 200_000)
    line = error_line(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--max-bytes", "1M"
    )
    assert line.startswith(
        f"skcal: error: {path} decompresses to 1.1 MiB of data, more"
    )


def test_plain_file_beyond_the_budget(capsys, tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("y,p\n" + "1,0.5\n" * 1000)
    line = error_line(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--max-bytes", "1K"
    )
    assert line.startswith(f"skcal: error: {path} holds 5.9 KiB of data, more than")


_BROKEN_COMPRESSION = [
    ("two.csv.zip", None, "holds 2 files"),
    ("not.csv.gz", b"y,p\n1,0.5\n", "Not a gzipped file"),
    ("cut.csv.gz", gzip.compress(b"y,p\n" + b"1,0.5\n" * 1000)[:-40], "ended"),
    ("cut.csv.bz2", bz2.compress(b"y,p\n" + b"1,0.5\n" * 1000)[:-40], "ended"),
    ("preds.parquet.gz", gzip.compress(b"PAR1"), "compressed parquet"),
]


# Named by file: a gzip stream holds its time of writing, and test names must
# be the same in every process that collects them (pytest-xdist).
@pytest.mark.parametrize(
    "name, content, match",
    [pytest.param(*case, id=case[0]) for case in _BROKEN_COMPRESSION],
)
def test_broken_compression(capsys, tmp_path, name, content, match):
    path = tmp_path / name
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("a.csv", "y,p\n1,0.5\n")
            archive.writestr("b.csv", "y,p\n1,0.5\n")
    else:
        path.write_bytes(content)
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path}")
    assert match in line, line


def test_zstd_without_zstandard(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    path = tmp_path / "preds.csv.zst"
    path.write_bytes(b"(\xb5/\xfd")
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line == (
        f"skcal: error: {path}: reading .zst files needs the zstandard package: "
        "pip install zstandard"
    )


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_without_pandas(capsys, tmp_path, monkeypatch, fmt):
    """Check that reading CSV or Parquet without the cli extra says what to install."""
    monkeypatch.setitem(sys.modules, "pandas", None)
    path = tmp_path / f"preds.{fmt}"
    path.write_text("y,p\n1,0.5\n")
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    kind = {"csv": "CSV", "parquet": "Parquet"}[fmt]
    assert line == (
        f"skcal: error: reading {kind} needs pandas and pyarrow: "
        'pip install "skcal[cli]"'
    )


def test_npz_without_pandas(tmp_path):
    """Check that NPZ files need numpy only (pandas and pyarrow fail to import)."""
    path = tmp_path / "preds.npz"
    np.savez(path, y=Y, p=P)
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pandas', 'pyarrow'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from skcal._cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    options = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"]
    done = subprocess.run(
        [sys.executable, "-c", script, "report", str(path), *options],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "3 samples" in done.stdout
    csv_path = tmp_path / "preds.csv"
    csv_path.write_text("y,p\n1,0.5\n")
    done = subprocess.run(
        [sys.executable, "-c", script, "report", str(csv_path), *options],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        'skcal: error: reading CSV needs pandas and pyarrow: pip install "skcal[cli]"\n'
    )


# ---------------------------------------------------------------------------
# NumPy files: nothing unpickled, only the requested arrays read
# ---------------------------------------------------------------------------


def npy_bytes(array=None, header=None, data=b""):
    """A ``.npy`` file's bytes: of ``array``, or of a hand-written header."""
    buffer = io.BytesIO()
    if array is not None:
        np.save(buffer, array, allow_pickle=True)
    else:
        np.lib.format.write_array_header_1_0(buffer, header)
        buffer.write(data)
    return buffer.getvalue()


def write_npz(path, members):
    """An NPZ (zip) file of ``{member name: bytes or array}``, in order."""
    with zipfile.ZipFile(path, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a duplicated name
        for name, content in members:
            is_array = isinstance(content, np.ndarray)
            archive.writestr(name, npy_bytes(content) if is_array else content)
    return path


Y = np.array([0, 1, 1])
P = np.array([0.2, 0.7, 0.9])
HUGE = {"descr": "<f8", "fortran_order": False, "shape": (10**12,)}

BROKEN_NPZ = {
    "not_npy_member": ([("y.npy", Y), ("p", b"hello")], "member 'p' is not a .npy"),
    "garbage_member": (
        [("y.npy", Y), ("p.npy", b"hello, world")],
        "array 'p': the magic string is not correct",
    ),
    "object_member": (
        [("y.npy", Y), ("p.npy", np.array([{"a": 1}, None, 3], dtype=object))],
        "array 'p' has dtype object, whose Python objects would have to be unpickled",
    ),
    "huge_header": (
        [("y.npy", Y), ("p.npy", npy_bytes(header=HUGE, data=b"\0" * 24))],
        "array 'p' holds 7.3 TiB of data, more than --max-bytes",
    ),
    "truncated_member": (
        [("y.npy", Y), ("p.npy", npy_bytes(P)[:-8])],
        "array 'p': EOF",
    ),
    "duplicated_member": (
        [("y.npy", Y), ("p.npy", P), ("p.npy", P)],
        "array 'p' appears 2 times",
    ),
    "missing_array": ([("y.npy", Y), ("q.npy", P)], "has no array 'p'; its arrays"),
    "different_lengths": (
        [("y.npy", Y), ("p.npy", P[:2])],
        "y_true and y_prob have inconsistent numbers of samples: 3 and 2",
    ),
    "labels_in_2d": (
        [("y.npy", np.ones((3, 2))), ("p.npy", P)],
        "y_true must be 1-D",
    ),
    "text_probabilities": (
        [("y.npy", Y), ("p.npy", np.array(["a", "b", "c"]))],
        "y_prob must hold real numbers",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_NPZ))
def test_broken_npz(capsys, tmp_path, case):
    members, match = BROKEN_NPZ[case]
    path = write_npz(tmp_path / f"{case}.npz", members)
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path}")
    assert match in line, line


def test_npz_unused_members_are_not_read(capsys, tmp_path):
    """Check that a bomb, a pickle and junk beside the arrays asked for do no harm."""
    path = write_npz(
        tmp_path / "preds.npz",
        [
            ("y.npy", Y),
            ("p.npy", P),
            ("huge.npy", npy_bytes(header=HUGE)),
            ("pickle.npy", np.array([None], dtype=object)),
            ("junk", b"\0\1\2"),
        ],
    )
    options = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"]
    status, out, err = run(capsys, "report", path, *options)
    assert status == 0, err
    assert "3 samples" in out


def test_npz_compressed_bomb(capsys, tmp_path):
    path = tmp_path / "bomb.npz"
    np.savez_compressed(path, y=np.zeros(10**6, dtype=int), p=np.zeros(10**6))
    assert path.stat().st_size < 100_000
    line = error_line(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--max-bytes", "1M"
    )
    assert line.startswith(
        f"skcal: error: {path}, array 'y' holds 7.6 MiB of data, more than --max-bytes"
    )


def test_npz_arrays_not_found(capsys, tmp_path):
    """Check that unnamed arrays must be one 1-D and one 2-D array."""
    path = tmp_path / "two.npz"
    np.savez(path, a=Y, b=P)
    line = error_line(capsys, "report", path)
    assert line == (
        f"skcal: error: {path}: name the labels and probabilities with --y-true "
        "and --y-prob; its arrays are: a (3,), b (3,)"
    )


@pytest.mark.parametrize(
    "array, match",
    [
        (np.array([[0.2, 0.8], [0.5, 0.5]]), "holds an array of shape (2, 2)"),
        (
            np.rec.fromarrays([Y, np.array([1, None, "a"], dtype=object)], names="y,p"),
            "never unpickles",
        ),
        (np.rec.fromarrays([Y, P], names="y,q"), "has no field 'p'; its fields"),
    ],
    ids=["plain_array", "object_field", "missing_field"],
)
def test_broken_npy(capsys, tmp_path, array, match):
    path = tmp_path / "preds.npy"
    np.save(path, array, allow_pickle=True)
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path}")
    assert match in line, line


def test_truncated_npy(capsys, tmp_path):
    path = tmp_path / "preds.npy"
    np.save(path, np.rec.fromarrays([Y, P], names="y,p"))
    path.write_bytes(path.read_bytes()[:-10])
    line = error_line(capsys, "report", path, "--y-true", "y", "--y-prob", "p")
    assert line.startswith(f"skcal: error: {path}: ")


# ---------------------------------------------------------------------------
# Parquet files
# ---------------------------------------------------------------------------


def test_broken_parquet(capsys, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "preds.parquet"
    options = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"]
    pq.write_table(pa.table({"y": Y, "q": P}), path)
    line = error_line(capsys, "report", path, *options)
    assert line == f"skcal: error: {path} has no column 'p'; its columns are: 'y', 'q'"
    pq.write_table(pa.Table.from_arrays([Y, P, P], names=["y", "p", "p"]), path)
    line = error_line(capsys, "report", path, *options)
    assert (
        line
        == f"skcal: error: {path}: column 'p' appears 2 times; rename the duplicates"
    )
    pq.write_table(pa.table({"y": Y, "p": ["0.2", "0.7", "0.9"]}), path)
    line = error_line(capsys, "report", path, *options)
    assert line.startswith(f"skcal: error: {path}: y_prob must hold real numbers")
    pq.write_table(pa.table({"y": np.zeros(10**5, int), "p": np.zeros(10**5)}), path)
    line = error_line(capsys, "report", path, *options, "--max-bytes", "100K")
    assert line.startswith(f"skcal: error: {path} holds 1.5 MiB of data, more than")
    path.write_bytes(path.read_bytes()[:-100])
    line = error_line(capsys, "report", path, *options)
    assert line.startswith(f"skcal: error: {path}: ")


# ---------------------------------------------------------------------------
# Options that do not fit, output files that exist
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, line",
    [
        (["--y-prob", "p"], "name the column of true labels with --y-true"),
        (["--y-true", "y"], "name the probability column(s) with --y-prob"),
        (
            ["--y-true", "y", "--y-prob", "p", "--confidence", "p", "--predicted", "y"],
            "use either --y-prob or --confidence with --predicted, not both",
        ),
        (
            ["--y-true", "y", "--confidence", "p"],
            "--confidence and --predicted go together",
        ),
        (
            [
                "--y-true",
                "y",
                "--confidence",
                "p",
                "--predicted",
                "y",
                "--pos-label",
                "1",
            ],
            "--pos-label and --labels do not apply to top-label input",
        ),
    ],
)
def test_options_that_do_not_fit(capsys, tmp_path, options, line):
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n1,0.5\n")
    assert error_line(capsys, "report", path, *options).startswith(
        f"skcal: error: {line}"
    )


def test_output_files_are_not_overwritten(capsys, tmp_path):
    """Check that an existing output is refused unless --overwrite, before any work."""
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n1,0.5\n0,0.2\n")
    out = tmp_path / "out"
    options = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0", "--out", out]
    assert run(capsys, "report", path, *options)[0] == 0
    table = out / "preds-calibration.csv"
    before = table.read_bytes()
    line = error_line(capsys, "report", path, *options)
    assert (
        line
        == f"skcal: error: {table} exists; pass --overwrite or choose another --out"
    )
    (out / "preds-calibration.csv").unlink()
    line = error_line(capsys, "report", path, *options)
    assert line.endswith(
        "preds-bins.csv exists; pass --overwrite or choose another --out"
    )
    (out / "preds-bins.csv").unlink()
    line = error_line(capsys, "report", path, *options)
    assert line.endswith(
        "preds-reliability.png exists; pass --overwrite or choose another --out"
    )
    assert not table.exists()  # nothing written before the refusal
    status, _, err = run(capsys, "report", path, *options, "--overwrite")
    assert status == 0, err
    assert table.read_bytes() == before


def test_output_folder_is_a_file(capsys, tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n1,0.5\n0,0.2\n")
    blocker = tmp_path / "taken"
    blocker.write_text("")
    line = error_line(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--out", blocker / "x"
    )
    assert line.startswith(
        f"skcal: error: cannot create the output folder {blocker / 'x'}"
    )
