"""Numerical machinery shared by measures, recalibrators and Displays.

Each piece lives here once: scaling of weights and scores (``_scaling``), groups of
tied predictions and cumulative residuals (``_ties``, ``_cumulative``), bins
(``_bins``), linear binning onto a grid (``_grid``), kernel sums
(``_kernel_sums``), isotonic regression a chunk at a time (``_pava``),
bootstrap resampling and intervals (``_bootstrap``) and
row selection (``_indexing``). Nothing here validates input: callers pass
arrays that went through :mod:`skcal._validation`.
"""

# SPDX-License-Identifier: BSD-3-Clause
