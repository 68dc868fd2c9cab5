"""NumPy files: ``.npz`` archives of arrays, ``.npy`` files of records.

Nothing is unpickled. An NPZ file is opened as the zip archive it is; only
the requested members are read, each after its ``.npy`` header has been
checked (no object dtype; shape times item size within ``--max-bytes``).
An NPY file must hold a 1-D structured array, one record per sample, whose
field names are the columns (``np.save(path, np.rec.fromarrays([y, p],
names="y,p"))``); a field may have a shape, e.g. ``("p", "f8", (10,))`` for
ten probability columns. Only the requested fields are copied out of the
memory-mapped file. Byte strings are decoded as UTF-8, so that they compare
with the labels typed on the command line.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import zipfile
from collections import defaultdict

import numpy as np

from skcal._cli._errors import InputError, reported
from skcal._cli._reader_checks import check_budget, column_positions


def _header(file):
    """``(shape, fortran_order, dtype)`` from the header of a ``.npy`` stream.

    Versions 2.0 and 3.0 share a layout (3.0 has UTF-8 field names, read
    here as Latin-1).
    """
    version = np.lib.format.read_magic(file)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(file)
    return np.lib.format.read_array_header_2_0(file)


def _check_dtype(where, dtype):
    """Refuse a dtype holding Python objects (they would need unpickling)."""
    if dtype.hasobject:
        raise InputError(
            f"{where} has dtype {dtype}, whose Python objects would have to be "
            "unpickled; skcal never unpickles: save numbers or strings"
        )


def _decoded(array):
    """Byte strings as text; anything else unchanged."""
    if array.dtype.kind == "S":
        return np.char.decode(array, "utf-8")
    return array


def _members(archive):
    """``{array name: [ZipInfo, ...]}`` of the ``.npy`` members of an archive."""
    members = defaultdict(list)
    for info in archive.infolist():
        if info.filename.endswith(".npy"):
            members[info.filename.removesuffix(".npy")].append(info)
    return members


def _check_names(path, archive, members, names):
    """Refuse names that are not one ``.npy`` member of the archive."""
    for name in names:
        if name not in members and name in archive.namelist():
            raise InputError(
                f"{path}: member {name!r} is not a .npy array; an NPZ file holds "
                "arrays saved by numpy.savez"
            )
    available = [name for name, infos in members.items() for _ in infos]
    column_positions(path, available, names, what="array")


def _read_member(path, archive, info, name, max_bytes):
    """One ``.npy`` member: its header checked, then the array read."""
    where = f"{path}, array {name!r}"
    with reported(where):
        with archive.open(info) as file:
            shape, _, dtype = _header(file)
        _check_dtype(where, dtype)
        check_budget(where, math.prod(shape) * dtype.itemsize, max_bytes)
        with archive.open(info) as file:
            return _decoded(np.lib.format.read_array(file, allow_pickle=False))


def read_npz(path, names, max_bytes):
    """The requested arrays of an ``.npz`` file.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    names : list of str
        The arrays to read (member ``<name>.npy``).
    max_bytes : int
        The largest array, in bytes, that may be read.

    Returns
    -------
    arrays : dict
        ``{name: ndarray}``.
    """
    with zipfile.ZipFile(path) as archive:
        members = _members(archive)
        _check_names(path, archive, members, names)
        return {
            name: _read_member(path, archive, members[name][0], name, max_bytes)
            for name in dict.fromkeys(names)
        }


def _records(path):
    """The shape and dtype of an ``.npy`` file of records; else an error."""
    with open(path, "rb") as file:
        shape, _, dtype = _header(file)
    if dtype.names is None or len(shape) != 1:
        raise InputError(
            f"{path} holds an array of shape {shape} and dtype {dtype}; skcal reads "
            ".npy files of a 1-D structured array whose fields are the columns "
            "(or use .npz for separate arrays)"
        )
    _check_dtype(path, dtype)
    return shape, dtype


def read_npy(path, names, max_bytes):
    """The requested fields of an ``.npy`` file of records.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    names : list of str
        The fields to read.
    max_bytes : int
        The most bytes the fields may take.

    Returns
    -------
    arrays : dict
        ``{name: ndarray}``, of shape ``(n,)`` or ``(n, *field shape)``.
    """
    shape, dtype = _records(path)
    column_positions(path, list(dtype.names), names, what="field")
    names = list(dict.fromkeys(names))
    n_bytes = shape[0] * sum(dtype[name].itemsize for name in names)
    check_budget(path, n_bytes, max_bytes)
    records = np.load(path, mmap_mode="r", allow_pickle=False)
    return {name: _decoded(np.array(records[name])) for name in names}


def array_shapes(path, fmt):
    """``{name: shape}`` of the arrays (NPZ) or fields (NPY) of a file.

    Only headers are read. An array of an NPZ file whose name is repeated is
    listed once.
    """
    if fmt == "npy":
        shape, dtype = _records(path)
        return {name: shape + dtype[name].shape for name in dtype.names}
    shapes = {}
    with zipfile.ZipFile(path) as archive:
        for name, infos in _members(archive).items():
            with reported(f"{path}, array {name!r}"), archive.open(infos[0]) as file:
                shapes[name] = _header(file)[0]
    return shapes
