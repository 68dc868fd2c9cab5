"""What other tools compute under the same names, on the same data.

Prints, for the documentation's comparison page (``doc/comparison.rst``),
the values of skcal and of scikit-learn, netcal, torchmetrics, relplot and
uncertainty-calibration (Kumar et al.) when asked for "the ECE" or "the
smooth ECE" of the same predictions:

1. the top-label ECE (15 equal-width bins) of the shipped networks'
   float32 softmax outputs, as given and cast to float64;
2. predictions lying exactly on a bin edge: which bin each tool puts
   them in;
3. the SmoothECE of predictions with mass at exactly 0 and 1;
4. scikit-learn's ``calibration_curve``, which drops empty bins and
   returns no counts, against skcal's ``reliability_table``.

Tools that are not installed are skipped. Run as
``python benchmarks/compare_definitions.py`` (seconds).
"""

# SPDX-License-Identifier: BSD-3-Clause

import importlib
import warnings

import numpy as np

from skcal.datasets import (
    load_cifar10_lenet,
    load_cifar10_wideresnet,
    load_cifar100_wideresnet,
)
from skcal.metrics import expected_calibration_error, reliability_table, smooth_ece

N_BINS = 15


def _optional(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def top_label_tools():
    """``{tool: f(y, p, n_bins)}`` of the installed tools' top-label ECE."""
    tools = {
        "skcal": lambda y, p, b: expected_calibration_error(
            y, p, n_bins=b, labels=np.arange(p.shape[1])
        )
    }
    netcal = _optional("netcal.metrics")
    if netcal is not None:
        tools["netcal ECE"] = lambda y, p, b: float(netcal.ECE(b).measure(p, y))
    torch = _optional("torch")
    if torch is not None:
        from torchmetrics.functional.classification import (
            multiclass_calibration_error,
        )

        tools["torchmetrics"] = lambda y, p, b: float(
            multiclass_calibration_error(
                torch.from_numpy(p), torch.from_numpy(y), p.shape[1], n_bins=b
            )
        )
    kumar = _optional("calibration.utils")
    if kumar is not None:
        tools["uncertainty-calibration"] = lambda y, p, b: float(
            kumar.get_ece(p, y, num_bins=b)
        )
    return tools


def compare_top_label():
    print("1. Top-label ECE, 15 equal-width bins (float32 as shipped; float64 cast)")
    tools = top_label_tools()
    for loader in (
        load_cifar10_wideresnet,
        load_cifar10_lenet,
        load_cifar100_wideresnet,
    ):
        data = loader()
        y, p32 = data.target, data.probabilities
        p64 = p32.astype(np.float64)
        name = loader.__name__.removeprefix("load_")
        for tool, f in tools.items():
            a, b = f(y, p32, N_BINS), f(y, p64, N_BINS)
            print(f"   {name:20s} {tool:24s} {a:.10f}  {b:.10f}  {a - b:+.1e}")


def binary_tools():
    """``{tool: f(y, p, n_bins)}`` of the installed tools' binary ECE."""
    tools = {"skcal": lambda y, p, b: expected_calibration_error(y, p, n_bins=b)}
    netcal = _optional("netcal.metrics")
    if netcal is not None:
        tools["netcal ECE"] = lambda y, p, b: float(netcal.ECE(b).measure(p, y))
    torch = _optional("torch")
    if torch is not None:
        from torchmetrics.functional.classification import binary_calibration_error

        tools["torchmetrics"] = lambda y, p, b: float(
            binary_calibration_error(torch.from_numpy(p), torch.from_numpy(y), n_bins=b)
        )
    return tools


def compare_edges():
    print("2. Predictions on a bin edge: p = 0.2, 0.2, 0.3, 0.3, y = 1, 1, 0, 0,")
    print("   5 bins (0.55 if 0.2 closes the first bin, 0.25 if it opens the second)")
    y, p = np.array([1, 1, 0, 0]), np.array([0.2, 0.2, 0.3, 0.3])
    for tool, f in binary_tools().items():
        print(f"   {tool:24s} {f(y, p, 5):.4f}")
    from sklearn.calibration import calibration_curve

    _, means = calibration_curve(y, p, n_bins=5)
    print(f"   scikit-learn calibration_curve: bin means {means.tolist()}")


def compare_smooth():
    print("3. SmoothECE with mass at 0 and 1")
    rng = np.random.default_rng(0)
    p = np.concatenate([np.zeros(300), np.ones(300), rng.uniform(size=400)])
    y = (rng.uniform(size=p.shape[0]) < p).astype(int)
    print(f"   skcal smooth_ece: {smooth_ece(y, p):.5f}")
    relplot = _optional("relplot")
    if relplot is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print(f"   relplot smECE:    {relplot.smECE(p, y):.5f}")
    data = load_cifar10_wideresnet()
    p64 = data.probabilities.astype(np.float64)
    confidence = p64.max(axis=1)
    correct = (p64.argmax(axis=1) == data.target).astype(int)
    share = np.mean(confidence == 1.0)
    print(
        f"   WideResNet top label ({share:.1%} of confidences exactly 1): "
        f"skcal {smooth_ece(correct, confidence):.5f}",
        end="",
    )
    if relplot is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print(f", relplot {relplot.smECE(confidence, correct):.5f}")
    else:
        print()
    inner = p[(p > 0) & (p < 1)]
    y_inner = y[(p > 0) & (p < 1)]
    print(f"   without the end points: skcal {smooth_ece(y_inner, inner):.5f}", end="")
    if relplot is not None:
        print(f", relplot {relplot.smECE(inner, y_inner):.5f}")
    else:
        print()


def compare_curve():
    print("4. A reliability curve with empty bins (LeNet-5 top label, 15 bins)")
    data = load_cifar10_lenet()
    p = data.probabilities.astype(np.float64)
    correct = (p.argmax(axis=1) == data.target).astype(int)
    confidence = p.max(axis=1)
    from sklearn.calibration import calibration_curve

    _, pred = calibration_curve(correct, confidence, n_bins=N_BINS)
    table = reliability_table(correct, confidence, n_bins=N_BINS)
    print(
        f"   scikit-learn: {len(pred)} points; skcal: {len(table.count)} bins, "
        f"{int(np.sum(table.count == 0))} empty, counts "
        f"{table.count.astype(int).tolist()}"
    )


def main():
    compare_top_label()
    compare_edges()
    compare_smooth()
    compare_curve()


if __name__ == "__main__":
    main()
