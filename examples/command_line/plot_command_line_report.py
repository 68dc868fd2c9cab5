"""
==============================
The command-line report
==============================

Predictions are often saved long before anyone asks whether they are
calibrated. ``skcal report`` answers from the file alone: here, the
top-label log of a ResNet-110 on CIFAR-10 (only the predicted class and its
confidence were kept), written to a CSV file and reported on as a user
would from a shell.
"""

# SPDX-License-Identifier: BSD-3-Clause

# %%
# A file of predictions
# ---------------------
#
# :func:`~skcal.datasets.load_cifar10_resnet110_top_label` gives the log;
# we write it as a CSV, the way such logs usually arrive.
import tempfile
from pathlib import Path

from skcal.datasets import load_cifar10_resnet110_top_label

folder = Path(tempfile.mkdtemp())
log = load_cifar10_resnet110_top_label(as_frame=True).frame
log["confidence"] = log["confidence"].astype("float64")
log.to_csv(folder / "resnet110.csv", index=False)
print(log.head())

# %%
# The report
# ----------
#
# The command reads only the three named columns, checks them with the same
# contract as the Python functions, and prints each measure with its 95%
# interval (200 resamples here; 1000 by default), the per-bin table and,
# for ``--at 0.9``, what happened near a confidence of 0.9. From a shell it
# is::
#
#     skcal report resnet110.csv --y-true target --predicted predicted \
#         --confidence confidence --at 0.9 --out report/
import subprocess
import sys

command = [
    sys.executable, "-m", "skcal", "report", str(folder / "resnet110.csv"),
    "--y-true", "target", "--predicted", "predicted", "--confidence", "confidence",
    "--at", "0.9", "--n-bootstrap", "200", "--out", str(folder / "report"),
]  # fmt: skip
result = subprocess.run(command, capture_output=True, text=True, check=True)
print(result.stdout)

# %%
# The network is right 93.6% of the time but claims 98.3% on average: every
# calibration error is about 0.047, and the interval excludes 0. Near a
# confidence of 0.9 it is right only 65% of the time.

# %%
# The diagrams it wrote
# ---------------------
#
# ``--out`` writes the tables as CSV and two diagrams. The reliability
# diagram puts the smooth curve beside the binned one with its counts:
import matplotlib.pyplot as plt

image = plt.imread(folder / "report" / "resnet110-reliability.png")
fig, ax = plt.subplots(figsize=(10, 4.5))
ax.imshow(image)
ax.set_axis_off()
fig.tight_layout()

# %%
# Almost all confidences are above 0.99, where the line is thick; below
# them the curve lies under the diagonal with a wide band, because few
# predictions live there.
#
# Errors in the input get one line, not a traceback, and the exit status 2:
bad = [*command[:5], "--y-true", "target", "--y-prob", "confidence"]
result = subprocess.run(bad, capture_output=True, text=True, check=False)
print(result.returncode, result.stderr.strip())
