"""Calibration measures for probabilistic classifiers, and their scorers."""

# SPDX-License-Identifier: BSD-3-Clause

from skcal.metrics._audit import CalibrationAudit, calibration_audit
from skcal.metrics._binned import (
    binned_calibration_error,
    expected_calibration_error,
    reliability_table,
)
from skcal.metrics._cutoff import cutoff_calibration_error, cutoff_calibration_test
from skcal.metrics._decomposition import calibration_decomposition
from skcal.metrics._groups import GroupedResult
from skcal.metrics._improvement import recalibration_improvement
from skcal.metrics._interval import confidence_interval
from skcal.metrics._kernel import calibration_sharpness_curve, kernel_calibration_error
from skcal.metrics._logit_smoothed import logit_smoothed_ece
from skcal.metrics._scorer import (
    get_scorer,
    get_scorer_names,
    get_scorers,
    make_calibration_scorer,
)
from skcal.metrics._significance import (
    hosmer_lemeshow_test,
    kolmogorov_smirnov_test,
    kuiper_test,
    spiegelhalter_test,
)
from skcal.metrics._skce import (
    kernel_calibration_test,
    squared_kernel_calibration_error,
)
from skcal.metrics._smooth_calibration import smooth_calibration_error
from skcal.metrics._smooth_ece import smooth_ece, smooth_reliability_curve
from skcal.metrics._summary import CalibrationSummary

__all__ = [
    "CalibrationAudit",
    "CalibrationSummary",
    "GroupedResult",
    "binned_calibration_error",
    "calibration_audit",
    "calibration_decomposition",
    "calibration_sharpness_curve",
    "confidence_interval",
    "cutoff_calibration_error",
    "cutoff_calibration_test",
    "expected_calibration_error",
    "get_scorer",
    "get_scorer_names",
    "get_scorers",
    "hosmer_lemeshow_test",
    "kernel_calibration_error",
    "kernel_calibration_test",
    "kolmogorov_smirnov_test",
    "kuiper_test",
    "logit_smoothed_ece",
    "make_calibration_scorer",
    "recalibration_improvement",
    "reliability_table",
    "smooth_calibration_error",
    "smooth_ece",
    "smooth_reliability_curve",
    "spiegelhalter_test",
    "squared_kernel_calibration_error",
]
