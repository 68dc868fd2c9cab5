"""Row selection for every kind of input the estimators accept."""

# SPDX-License-Identifier: BSD-3-Clause


def take_rows(a, indices):
    """Rows ``indices`` of an array, data frame, sparse matrix or list."""
    if hasattr(a, "iloc"):
        return a.iloc[indices]
    if hasattr(a, "tocsr"):  # any scipy sparse format; CSR supports row indexing
        return a.tocsr()[indices]
    if hasattr(a, "shape"):
        return a[indices]
    return [a[i] for i in indices]
