"""skcal: measure and repair the calibration of probabilistic classifiers.

skcal provides calibration measures (:mod:`skcal.metrics`) that follow
scikit-learn's metric conventions and plug into its model-selection tools.
"""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.metrics import (
    binned_calibration_error,
    expected_calibration_error,
    reliability_table,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "__version__",
    "binned_calibration_error",
    "expected_calibration_error",
    "reliability_table",
]
