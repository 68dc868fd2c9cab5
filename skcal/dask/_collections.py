"""Blocks of Dask collections, and the classes the whole data define."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from skcal._validation import check_calibration_inputs


def _is_frame(x):
    """Whether ``x`` is a Dask DataFrame or Series."""
    return hasattr(x, "npartitions") and hasattr(x, "divisions")


def _is_array(x):
    """Whether ``x`` is a Dask array."""
    return hasattr(x, "chunks") and hasattr(x, "to_delayed") and not _is_frame(x)


def _as_array(x):
    """A Dask array of a collection (frames get their partition lengths)."""
    if _is_frame(x):
        return x.to_dask_array(lengths=True)
    if _is_array(x):
        return x
    raise TypeError(
        f"Expected a Dask array, DataFrame or Series, got {type(x).__name__}: "
        "use the skcal.metrics functions for data in memory."
    )


def blocks(y_true, y_prob, sample_weight):
    """Aligned delayed blocks ``(y_true, y_prob, sample_weight)`` of the rows.

    Collections of the same kind keep their partitions (frames must have
    as many partitions, arrays are rechunked to ``y_prob``'s rows, whose
    columns go in one block); mixed kinds are turned into arrays.

    Returns
    -------
    blocks : list of tuples of dask.delayed.Delayed
        ``sample_weight`` is None in every block when not given.
    """
    given = [c for c in (y_true, y_prob, sample_weight) if c is not None]
    if all(_is_frame(c) for c in given):
        counts = {c.npartitions for c in given}
        if len(counts) > 1:
            raise ValueError(
                f"y_true, y_prob and sample_weight have {sorted(counts)} partitions: "
                "take them from one DataFrame, or repartition them alike."
            )
        parts = [c.to_delayed(optimize_graph=False) for c in given]
    else:
        arrays = [_as_array(c) for c in given]
        prob = arrays[1]
        if prob.ndim == 2:
            prob = prob.rechunk({1: -1})
        rows = prob.chunks[0]
        arrays = [a.rechunk({0: rows}) for a in (arrays[0], *arrays[2:])]
        # Optimised one by one, the graphs of y_true and y_prob would each fuse
        # the tasks that make a block of both: made twice.
        parts = [arrays[0], prob, *arrays[1:]]
        parts = [a.to_delayed(optimize_graph=False).ravel() for a in parts]
    if sample_weight is None:
        parts.append([None] * len(parts[0]))
    return list(zip(*parts, strict=True))


def classes_of(y_true, y_prob, pos_label, labels):
    """The classes and positive label that the whole data define.

    The distinct labels of ``y_true`` are computed (one pass over it),
    then validated with a row of probabilities per label, so that every
    block is read with the classes the in-memory measures would infer.

    Returns
    -------
    labels : ndarray or None
        The classes in column order (None when a binary problem of string
        labels has only its positive class).
    pos_label : label or None
        The positive class of a binary problem.
    """
    if labels is not None:
        return labels, pos_label
    if _is_frame(y_true):
        distinct = np.asarray(y_true.unique().compute())
    else:
        import dask.array as da

        distinct = np.asarray(da.unique(_as_array(y_true)).compute())
    n_columns = y_prob.shape[1] if len(y_prob.shape) == 2 else None
    if n_columns is None:
        dummy = np.full(distinct.shape[0], 0.5)
    else:
        dummy = np.full((distinct.shape[0], n_columns), 1.0 / n_columns)
    data = check_calibration_inputs(distinct, dummy, None, pos_label, None)
    classes = data.classes
    if data.binary:
        pos_label = classes[data.pos_index]
    if None in classes.tolist():
        return None, pos_label
    return classes, pos_label
