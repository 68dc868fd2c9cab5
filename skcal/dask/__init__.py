"""Calibration measures of Dask arrays and DataFrames, by mergeable summaries.

Dask is imported when a function is called, not with this module; install
it with ``pip install skcal[dask]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.dask._measures import expected_calibration_error, smooth_ece, summarize

__all__ = ["expected_calibration_error", "smooth_ece", "summarize"]
