"""The ``skcal`` command line: ``skcal demo`` and ``skcal report``.

``skcal demo`` compares every recalibrator under cross-validation on a data
set that ships with scikit-learn; ``skcal report PREDICTIONS ...`` measures
the calibration of predictions saved in a CSV, TSV, Parquet, NPZ or NPY
file. Modules: ``_arguments`` (the options), ``_reading`` with ``_files``,
``_text`` and ``_numpy_files`` (files to columns), ``_inputs`` (columns to
validated predictions), ``_report``, ``_demo``, ``_diagrams`` (all
drawing), ``_output`` (tables, files, progress) and ``_main`` (the entry
point, :func:`main`).
"""

# SPDX-License-Identifier: BSD-3-Clause

from skcal._cli._main import main

__all__ = ["main"]
