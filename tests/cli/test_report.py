"""Tests of ``skcal report`` on good input (``skcal/_cli/_report.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import gzip

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import brier_score_loss, log_loss

from skcal.datasets import load_cifar10_lenet, load_cifar10_resnet110_top_label
from skcal.metrics import (
    cutoff_calibration_error,
    expected_calibration_error,
    kernel_calibration_error,
    smooth_ece,
    smooth_reliability_curve,
)
from tests.cli._helpers import (
    error_line,
    printed,
    printed_values,
    random_binary,
    random_multiclass,
    report_values,
    rows_of,
    run,
    write_rows,
)

REPORT_MEASURES = {
    "expected_calibration_error": expected_calibration_error,
    "smooth_ece": smooth_ece,
    "cutoff_calibration_error": cutoff_calibration_error,
    "brier_score_loss": brier_score_loss,
    "log_loss": log_loss,
}


def expected_binary(name, y, p):
    """A report measure computed directly on binary labels and probabilities."""
    if name == "log_loss":
        return log_loss(y, np.column_stack([1 - p, p]))
    return REPORT_MEASURES[name](y, p)


# ---------------------------------------------------------------------------
# Real model outputs
# ---------------------------------------------------------------------------


def test_report_top_label_csv(capsys, tmp_path):
    """Check the top-label report of a real CSV against the measures themselves."""
    frame = load_cifar10_resnet110_top_label(as_frame=True).frame
    # The upstream file's columns and text (float64 of the float32 values).
    frame = frame.rename(columns={"target": "true_label", "predicted": "pred_label"})
    frame["confidence"] = frame["confidence"].astype(np.float64)
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / "resnet110.csv"
    frame.to_csv(path, index=False)
    status, out, err = run(
        capsys,
        "report",
        path,
        "--y-true",
        "true_label",
        "--predicted",
        "pred_label",
        "--confidence",
        "confidence",
        "--n-bootstrap",
        "20",
        "--out",
        tmp_path,
    )
    assert status == 0, err
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    correct = (data[:, 0] == data[:, 1]).astype(int)
    confidence = data[:, 2]
    assert f"accuracy {correct.mean():.4f}" in out
    values = report_values(tmp_path / "resnet110-calibration.csv")
    assert list(values) == list(REPORT_MEASURES)
    for name in REPORT_MEASURES:
        value, low, high = values[name]
        assert_allclose(value, expected_binary(name, correct, confidence), rtol=1e-10)
        assert low < high
        assert printed(out, name) == float(f"{value:.4f}")


def test_report_multiclass_npz(capsys, tmp_path):
    """Check the report of a real multiclass NPZ, arrays named or found."""
    data = load_cifar10_lenet()
    path = tmp_path / "lenet.npz"
    np.savez(path, ground_truth=data.target, predictions=data.probabilities)
    y, p = data.target, data.probabilities.astype(np.float64)
    p /= p.sum(axis=1, keepdims=True)
    common = ["report", path, "--n-bootstrap", "5"]
    arrays = ["--y-true", "ground_truth", "--y-prob", "predictions"]
    status, named, err = run(capsys, *common, *arrays)
    assert status == 0, err
    assert err == ""  # no progress off a terminal, no warning
    assert "10 classes" in named
    for name, measure in REPORT_MEASURES.items():
        expected = measure(y, p, labels=np.arange(10))
        assert_allclose(printed(named, name), expected, atol=5.01e-5)
    status, found, _ = run(capsys, *common)
    assert status == 0
    assert found == named


# ---------------------------------------------------------------------------
# Small files written here
# ---------------------------------------------------------------------------


def test_report_binary_csv(capsys, tmp_path, global_random_seed):
    """Check a binary report, with 0/1 labels and with string labels."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng)
    numeric = write_rows(tmp_path / "numeric.csv", ["y", "p"], rows_of(y, p))
    words = np.where(y == 1, "sick", "well")
    text = write_rows(tmp_path / "text.csv", ["y", "p"], rows_of(words, p))
    common = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "10"]
    status, out, err = run(capsys, "report", numeric, *common, "--out", tmp_path)
    assert status == 0, err
    values = report_values(tmp_path / "numeric-calibration.csv")
    # Both diagrams of the predictions are written beside the table.
    for png in ("numeric-reliability.png", "numeric-calibration-sharpness.png"):
        assert (tmp_path / png).read_bytes().startswith(b"\x89PNG")
        assert f"Wrote {tmp_path / png}" in out
    for name in REPORT_MEASURES:
        assert_allclose(values[name][0], expected_binary(name, y, p), rtol=1e-12)
    options = ["--pos-label", "sick", "--out", tmp_path]
    assert run(capsys, "report", text, *common, *options)[0] == 0
    assert report_values(tmp_path / "text-calibration.csv") == values


def test_report_multiclass_csv(capsys, tmp_path, global_random_seed):
    """Check a multiclass report, with columns in class order or named classes."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_multiclass(rng)
    common = ["--y-true", "y", "--n-bootstrap", "0"]
    ordered = write_rows(
        tmp_path / "ordered.csv", ["y", "p0", "p1", "p2"], rows_of(y, p)
    )
    status, out, err = run(
        capsys, "report", ordered, *common, "--y-prob", "p0", "p1", "p2"
    )
    assert status == 0, err
    for name, measure in REPORT_MEASURES.items():
        expected = measure(y, p, labels=[0, 1, 2])
        assert_allclose(printed(out, name), expected, atol=5.01e-5)
    # The same data with the columns shuffled, each named after its class.
    order = rng.permutation(3)
    shuffled = write_rows(
        tmp_path / "shuffled.csv", ["y", *map(str, order)], rows_of(y, p[:, order])
    )
    columns = [str(k) for k in order]
    status, again, _ = run(capsys, "report", shuffled, *common, "--y-prob", *columns)
    assert status == 0
    assert again.splitlines()[1:] == out.splitlines()[1:]
    # ... or in any order, with --labels naming the class of each column.
    labels = ["--labels", *columns]
    renamed = ["--y-prob", "p0", "p1", "p2"]
    write_rows(ordered, ["y", "p0", "p1", "p2"], rows_of(y, p[:, order]))
    status, named, _ = run(capsys, "report", ordered, *common, *renamed, *labels)
    assert status == 0
    assert named.splitlines()[1:] == out.splitlines()[1:]


def test_report_rounded_rows(capsys, tmp_path, global_random_seed):
    """Check that rows summing to 1 up to their printed rounding are accepted."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_multiclass(rng, n=50, k=7)
    rows = rows_of(y, p, fmt="{:.3f}".format)
    rounded = np.array([row[1:] for row in rows], dtype=float)
    assert np.abs(rounded.sum(axis=1) - 1).max() > 1e-6
    path = write_rows(tmp_path / "rounded.csv", ["y", *"abcdefg"], rows)
    common = ["report", path, "--y-true", "y", "--y-prob", *"abcdefg"]
    status, out, err = run(capsys, *common, "--n-bootstrap", "0")
    assert status == 0, err
    assert err == ""
    renormalized = rounded / rounded.sum(axis=1, keepdims=True)
    expected = log_loss(y, renormalized, labels=np.arange(7))
    assert_allclose(printed(out, "log_loss"), expected, atol=5.01e-5)
    # A row off by more than its rounding (7 x 0.0005) is still an error.
    rows[3][1] = f"{float(rows[3][1]) + 0.01:.3f}"
    write_rows(path, ["y", *"abcdefg"], rows)
    line = error_line(capsys, *common, "--n-bootstrap", "0")
    assert line.startswith(f"skcal: error: {path}: y_prob has 1 row(s) that do not sum")


def test_report_bootstrap_is_seeded(capsys, tmp_path, global_random_seed):
    """Check that the intervals depend on --random-state and on it alone."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n=100)
    path = write_rows(tmp_path / "d.csv", ["y", "p"], rows_of(y, p))
    common = ["report", path, "--y-true", "y", "--y-prob", "p", "--n-bootstrap", "10"]
    first = run(capsys, *common, "--random-state", "1")[1]
    assert run(capsys, *common, "--random-state", "1")[1] == first
    assert run(capsys, *common, "--random-state", "2")[1] != first


def test_report_smooth_ece_interval_is_the_diagrams(
    capsys, tmp_path, global_random_seed, monkeypatch
):
    """Check that one set of resamples gives the SmoothECE row and the band.

    The table's SmoothECE value and interval are those of the smooth
    reliability curve the diagram draws, computed once with the report's
    seed, on the draws of the other measures' intervals (one call draws
    them all).
    """
    import skcal.metrics._interval as interval_module
    import skcal.metrics._smooth_ece as smooth_module

    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n=150)
    path = write_rows(tmp_path / "d.csv", ["y", "p"], rows_of(y, p))
    calls = []
    draw_replicates = smooth_module.draw_replicates
    for module in (interval_module, smooth_module):
        monkeypatch.setattr(
            module,
            "draw_replicates",
            lambda statistics, *a: (
                calls.append(len(statistics)) or draw_replicates(statistics, *a)
            ),
        )
    out = tmp_path / "out"
    common = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "20"]
    run(capsys, "report", path, *common, "--random-state", "3", "--out", out)
    assert calls == [5]  # the five default measures at once
    curve = smooth_reliability_curve(
        y, p, n_bootstrap=20, random_state=np.random.RandomState(3)
    )
    value, low, high = report_values(out / "d-calibration.csv")["smooth_ece"]
    assert value == curve.smooth_ece
    assert (low, high) == curve.smooth_ece_interval


def test_report_metrics_option(capsys, tmp_path, global_random_seed):
    """Check that --metrics reports any registered measure, in the order given."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n=200)
    path = write_rows(tmp_path / "d.csv", ["y", "p"], rows_of(y, p))
    metrics = ["kernel_calibration_error", "brier_score_loss"]
    status, out, err = run(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p",
        "--n-bootstrap", "0", "--metrics", *metrics,
    )  # fmt: skip
    assert status == 0, err
    assert list(printed_values(out)) == metrics
    expected = kernel_calibration_error(y, p)
    assert_allclose(printed(out, metrics[0]), expected, atol=5.01e-5)


def test_report_labels_with_one_column(capsys, tmp_path, global_random_seed):
    """Check that --labels with one probability column reaches the contract.

    Two labels and --pos-label make a binary problem of any labels; labels
    absent from --labels are rejected, not ignored.
    """
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n=100)
    words = np.where(y == 1, "sick", "well")
    path = write_rows(tmp_path / "d.csv", ["y", "p"], rows_of(words, p))
    common = ["report", path, "--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"]
    status, out, err = run(
        capsys, *common, "--labels", "well", "sick", "--pos-label", "sick"
    )
    assert status == 0, err
    assert_allclose(
        printed(out, "brier_score_loss"), brier_score_loss(y, p), atol=5.01e-5
    )
    line = error_line(capsys, *common, "--labels", "well", "ill", "--pos-label", "ill")
    assert f"{path}: y_true contains " in line
    line = error_line(capsys, *common, "--labels", "a", "b", "c")
    assert "labels has 3 classes but a 1-D y_prob" in line


# ---------------------------------------------------------------------------
# The same predictions in every format give the same report
# ---------------------------------------------------------------------------


def _write_every_format(folder, y, p, labels):
    """The same labels and probability columns in every format skcal reads."""
    import pandas as pd

    names = [f"p{j}" for j in range(p.shape[1])]
    frame = pd.DataFrame({"y": labels, **dict(zip(names, p.T, strict=True))})
    paths = {fmt: folder / f"preds.{fmt}" for fmt in ("csv", "tsv", "parquet", "npz")}
    frame.to_csv(paths["csv"], index=False)
    frame.to_csv(paths["tsv"], index=False, sep="\t")
    frame.to_parquet(paths["parquet"], index=False)
    np.savez(paths["npz"], y=labels, **dict(zip(names, p.T, strict=True)))
    records = np.rec.fromarrays([labels, *p.T], names=["y", *names])
    paths["npy"] = folder / "preds.npy"
    np.save(paths["npy"], records)
    paths["csv.gz"] = folder / "preds.csv.gz"
    paths["csv.gz"].write_bytes(gzip.compress(paths["csv"].read_bytes()))
    paths["tab.zip"] = folder / "preds.tab.zip"
    frame.to_csv(paths["tab.zip"], index=False, sep="\t", compression="zip")
    paths["csv.bz2"] = folder / "preds.csv.bz2"
    frame.to_csv(paths["csv.bz2"], index=False, compression="bz2")
    paths["csv.xz"] = folder / "preds.csv.xz"
    frame.to_csv(paths["csv.xz"], index=False, compression="xz")
    return paths, names


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kind", ["int", "str", "bytes"])
def test_report_round_trips(capsys, tmp_path, global_random_seed, n_classes, kind):
    """Check that CSV, TSV, Parquet, NPZ, NPY and compressed CSV agree."""
    pytest.importorskip("pyarrow")
    rng = np.random.RandomState(global_random_seed)
    y, p = random_multiclass(rng, n=120, k=n_classes)
    labels = {"int": y, "str": np.array([f"a{k}" for k in y])}.get(kind)
    if kind == "bytes":
        labels = np.array([f"c{k}".encode() for k in y])
    paths, names = _write_every_format(tmp_path, y, p, labels)
    first_label = {"int": "0", "str": "a0", "bytes": "c0"}[kind]
    options = ["--y-true", "y", "--y-prob", *names, "--n-bootstrap", "0"]
    if n_classes == 2:  # the second column is positive unless --pos-label says
        options += ["--pos-label", first_label]
    outputs = {}
    for fmt, path in paths.items():
        if kind == "bytes" and fmt not in ("npz", "npy"):
            continue  # only NumPy files store bytes
        status, out, err = run(capsys, "report", path, *options)
        assert status == 0, (fmt, err)
        outputs[fmt] = out.splitlines()[1:]
    assert len({tuple(lines) for lines in outputs.values()}) == 1, outputs
    if n_classes == 2:
        expected = brier_score_loss(y == 0, p[:, 0])
        (lines,) = {tuple(lines) for lines in outputs.values()}
        assert_allclose(
            printed("\n".join(lines), "brier_score_loss"), expected, atol=5.01e-5
        )


def test_report_positive_class_in_the_first_column(
    capsys, tmp_path, global_random_seed, monkeypatch
):
    """Check --pos-label naming the first of two columns (issue 11 review).

    The report described the event rate of the other class and drew its
    curve under the positive class's name.
    """
    import skcal._cli._report as report_module

    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng)
    words = np.where(y == 1, "sick", "well")
    rows = [
        [w, repr(float(1.0 - v)), repr(float(v))] for w, v in zip(words, p, strict=True)
    ]
    path = write_rows(tmp_path / "two.csv", ["y", "well", "sick"], rows)
    drawn = {}

    def record(panels, prefix, **options):
        drawn.update(panels)
        return []

    monkeypatch.setattr(report_module, "write_diagrams", record)
    common = ["report", path, "--y-true", "y", "--y-prob", "well", "sick"]
    status, out, err = run(
        capsys, *common, "--pos-label", "well", "--n-bootstrap", "0", "--out", tmp_path
    )
    assert status == 0, err
    assert "'well' is the probability of y == 'well'" in out
    assert f"event rate {np.mean(words == 'well'):.4f}" in out
    for name in REPORT_MEASURES:
        expected = expected_binary(name, (words == "well").astype(int), 1.0 - p)
        assert_allclose(printed(out, name), expected, atol=5.01e-5)
    ((y_true, y_prob, classes, _),) = drawn.values()
    assert classes.tolist() == ["sick", "well"]
    assert np.array_equal(y_true, words)
    assert_allclose(y_prob[:, 1], 1.0 - p, rtol=1e-12)


# ---------------------------------------------------------------------------
# The per-bin table, the definitions and --at
# ---------------------------------------------------------------------------


def test_report_per_bin_table(capsys, tmp_path, global_random_seed):
    """Check the printed and written per-bin table against reliability_table.

    --n-bins and --strategy reach the table and the binned measure.
    """
    from skcal.metrics import reliability_table
    from tests.cli._helpers import read_csv

    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng)
    path = write_rows(tmp_path / "preds.csv", ["y", "p"], rows_of(y, p))
    options = ["--n-bins", "6", "--strategy", "quantile", "--n-bootstrap", "0"]
    status, out, err = run(
        capsys,
        "report",
        path,
        "--y-true",
        "y",
        "--y-prob",
        "p",
        *options,
        "--out",
        tmp_path,
    )
    assert status == 0, err
    table = reliability_table(y, p, n_bins=6, strategy="quantile")
    rows = read_csv(tmp_path / "preds-bins.csv")
    assert len(rows) == 6
    for j, row in enumerate(rows):
        assert int(row["count"]) == table.count[j]
        for column, expected in [
            ("bin_low", table.bin_lower),
            ("bin_high", table.bin_upper),
            ("mean_prediction", table.mean_predicted),
            ("observed_rate", table.event_rate),
            ("ci_low", table.interval_low),
            ("ci_high", table.interval_high),
        ]:
            assert float(row[column]) == pytest.approx(expected[j], rel=1e-12)
        printed_row = f"({table.bin_lower[j]:.3f}, {table.bin_upper[j]:.3f}]  "
        assert printed_row in out
    assert "Per bin (6 equal-count bins of the predicted probability; observed " in out
    assert "how often y was 1" in out
    ece = expected_calibration_error(y, p, n_bins=6, strategy="quantile")
    assert printed(out, "expected_calibration_error") == pytest.approx(ece, abs=5e-5)


def test_report_says_what_each_measure_is(capsys, tmp_path, global_random_seed):
    """Check the definitions: bins of the ECE, bandwidth of the SmoothECE."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_multiclass(rng)
    path = tmp_path / "preds.npz"
    np.savez(path, y=y, p=p)
    status, out, err = run(
        capsys, "report", path, "--y-true", "y", "--y-prob", "p", "--n-bootstrap", "0"
    )
    assert status == 0, err
    definitions = out.split("What the measures are:")[1].split("Per bin")[0]
    lines = dict(
        line.strip().split(": ", 1) for line in definitions.strip().splitlines()
    )
    assert list(lines) == list(REPORT_MEASURES)
    assert (
        "15 equal-width bins of the confidence" in lines["expected_calibration_error"]
    )
    confidence = p.max(axis=1)
    correct = (p.argmax(axis=1) == y).astype(int)
    _, sigma = smooth_ece(correct, confidence, return_sigma=True)
    assert f"bandwidth {sigma:.3f}" in lines["smooth_ece"]
    assert "summed over the classes" in lines["brier_score_loss"]
    assert "how often the most probable class was the true one" in out


def test_report_at_a_probability(capsys, tmp_path):
    """Check --at: the rows near the value, their rate and Wilson interval, in words."""
    from skcal.metrics import reliability_table

    p = np.r_[np.full(40, 0.78), np.full(60, 0.83), np.full(50, 0.2)]
    y = np.r_[np.ones(20), np.zeros(20), np.ones(30), np.zeros(30), np.zeros(50)]
    path = write_rows(tmp_path / "preds.csv", ["y", "p"], rows_of(y.astype(int), p))
    status, out, err = run(
        capsys,
        "report",
        path,
        "--y-true",
        "y",
        "--y-prob",
        "p",
        "--n-bootstrap",
        "0",
        "--at",
        "0.8",
        "0.5",
        "--near",
        "0.05",
    )
    assert status == 0, err
    near = reliability_table(y[:100], p[:100], n_bins=1)
    low, high = 100 * near.interval_low[0], 100 * near.interval_high[0]
    assert (
        f"At 0.8: 100 predictions lie within 0.05 of it (mean {0.81:.3f}); y was 1 "
        f"for 50 of them, 50.0% (95% interval {low:.1f}% to {high:.1f}%), less "
        "often than predicted: the predictions are too high there."
    ) in out
    assert "At 0.5: no prediction lies within 0.05 of it." in out
