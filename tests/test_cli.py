"""Tests of the command line, ``python -m skcal`` (``skcal/_cli.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import csv
import re
import subprocess
import sys
import types

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB

import skcal
from skcal._cli import _lesson, _write_diagrams, main
from skcal.metrics import (
    cutoff_calibration_error,
    expected_calibration_error,
    smooth_ece,
)
from skcal.model_selection import CrossValCalibration, cross_val_calibration

REPORT_MEASURES = {
    "expected_calibration_error": expected_calibration_error,
    "smooth_ece": smooth_ece,
    "cutoff_calibration_error": cutoff_calibration_error,
    "brier_score_loss": brier_score_loss,
    "log_loss": log_loss,
}
RECALIBRATORS = [
    "IsotonicRecalibrator",
    "HistogramBinningRecalibrator",
    "PlattRecalibrator",
    "ModifiedPlattRecalibrator",
    "TemperatureRecalibrator",
    "MeanReplacementRecalibrator",
]


def run(capsys, *args):
    """``main(args)``, with its exit status, stdout and stderr."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def report_values(path):
    """``{measure: (value, ci_low, ci_high)}`` from a report's CSV file."""
    return {
        row["measure"]: tuple(float(row[k]) for k in ("value", "ci_low", "ci_high"))
        for row in read_csv(path)
    }


def printed(out, name):
    """The value a report printed for the measure ``name``."""
    (value,) = re.findall(rf"^{name} +([0-9.]+) ", out, flags=re.MULTILINE)
    return float(value)


def write_rows(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def rows_of(labels, proba, fmt=lambda v: repr(float(v))):
    """CSV rows ``label, p_1, ..., p_k`` (``proba`` 1-D or 2-D)."""
    proba = np.asarray(proba).reshape(len(labels), -1)
    return [[label, *map(fmt, row)] for label, row in zip(labels, proba, strict=True)]


def random_binary(rng, n=300):
    p = rng.uniform(0.01, 0.99, size=n)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    return y, p


def random_multiclass(rng, n=300, k=3):
    p = rng.dirichlet(np.ones(k), size=n)
    y = np.array([rng.choice(k, p=row) for row in p])
    return y, p


# ---------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------


def test_version_in_a_subprocess(tmp_path):
    """Check that `python -m skcal --version` prints skcal's version."""
    done = subprocess.run(
        [sys.executable, "-m", "skcal", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"skcal {skcal.__version__}"


@pytest.mark.parametrize("command", [[], ["demo"], ["report"]], ids=str)
def test_help(capsys, command):
    """Check that --help of skcal and of each command prints its usage."""
    status, out, _ = run(capsys, *command, "--help")
    assert status == 0
    assert out.startswith(f"usage: skcal {' '.join(command)}".rstrip())
    for option in {"demo": ["--quick", "--n-bootstrap"], "report": ["--y-prob"]}.get(
        "".join(command), ["demo", "report"]
    ):
        assert option in out


@pytest.mark.parametrize(
    "args, match",
    [
        ([], "required: COMMAND"),
        (["demo", "--cv", "1"], "1 is less than 2"),
        (["report"], "required: PREDICTIONS"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors(capsys, args, match):
    """Check that a usage error exits with status 2 and argparse's message."""
    status, out, err = run(capsys, *args)
    assert status == 2
    assert out == ""
    assert err.strip().splitlines()[-1].startswith("skcal: error:")
    assert match in err


# ---------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------


def test_demo_quick(capsys, tmp_path):
    """Check that the quick demo prints both tables and writes what it printed."""
    out_dir = tmp_path / "demo"
    status, out, err = run(capsys, "demo", "--quick", "--out", out_dir)
    assert status == 0, err
    assert "Traceback" not in err

    # Progress: one line per model, the grid search and (if drawn) the diagrams.
    total = int(re.search(r"\[1/(\d+)\]", err).group(1))
    for i, name in enumerate(["GaussianNB", *RECALIBRATORS], start=1):
        assert f"[{i}/{total}] {name} ... " in err
    assert f"[8/{total}] GridSearchCV" in err

    # (1) The comparison table, one row per model, and its CSV file.
    for name in ["none (GaussianNB)", "Isotonic", "HistogramBinning", "Temperature"]:
        assert f"\n{name} " in out
    table = read_csv(out_dir / "comparison.csv")
    assert [row["recalibrator"] for row in table] == ["none", *RECALIBRATORS]
    X, y = load_breast_cancer(return_X_y=True)
    expected = cross_val_calibration(
        GaussianNB(),
        X,
        y,
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
        n_bootstrap=0,
    )
    for measure in ("expected_calibration_error", "brier_score_loss", "log_loss"):
        assert_allclose(float(table[0][measure]), expected.value[measure], rtol=1e-12)
    for row in table:
        low, high = (float(row[f"log_loss_ci_{s}"]) for s in ("low", "high"))
        assert 0 < low < high

    # (2) The grid search: the printed choices are the CSV's rank-1 rows.
    grid = read_csv(out_dir / "grid_search.csv")
    assert [row["recalibrator"] for row in grid] == RECALIBRATORS
    chosen = {
        scorer: next(
            row["recalibrator"] for row in grid if row[f"rank_test_{scorer}"] == "1"
        )
        for scorer in ("neg_log_loss", "neg_expected_calibration_error")
    }
    assert f"Chosen by log loss: {chosen['neg_log_loss']};" in out
    assert f"by ECE alone: {chosen['neg_expected_calibration_error']}." in out
    assert "\nLesson: " in out
    # (3) Reliability diagrams once skcal.plotting exists, a note until then.
    try:
        from skcal.plotting import ReliabilityDisplay  # noqa: F401
    except ImportError:
        assert total == 8
        assert "(no reliability diagrams" in out
        assert not (out_dir / "reliability_diagrams.png").exists()
    else:
        assert "[9/9] reliability diagrams ... " in err
        assert (out_dir / "reliability_diagrams.png").read_bytes()[:4] == b"\x89PNG"


def test_demo_output_folder_is_a_file(capsys, tmp_path):
    """Check that an output folder that cannot be created is a one-line error."""
    blocker = tmp_path / "taken"
    blocker.write_text("")
    status, out, err = run(capsys, "demo", "--quick", "--out", blocker / "demo")
    assert status == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("skcal: error: cannot create the output folder")


def test_lesson_follows_the_choices():
    """Check that the lesson line states what the grid search chose."""
    mrr = "MeanReplacementRecalibrator"
    ranks = {name: i for i, name in enumerate(RECALIBRATORS, start=1)}
    trap = {
        "neg_log_loss": "TemperatureRecalibrator",
        "neg_brier_score": "TemperatureRecalibrator",
        "neg_expected_calibration_error": mrr,
    }
    assert "ECE alone picked the mean-replacement baseline" in _lesson(trap, ranks)
    no_trap = {**trap, "neg_expected_calibration_error": "IsotonicRecalibrator"}
    line = _lesson(no_trap, ranks)
    assert "ECE alone picked IsotonicRecalibrator" in line
    assert "(ranked 6 of 6 by ECE)" in line
    everyone = dict.fromkeys(trap, mrr)
    assert "even a proper score picked" in _lesson(everyone, ranks)


def _result(rng, n_classes):
    y_prob = rng.dirichlet(np.ones(n_classes), size=40)
    return CrossValCalibration(
        y_true=rng.randint(n_classes, size=40),
        y_prob=y_prob,
        classes=np.arange(n_classes),
        n_bootstrap=1000,
    )


def test_write_diagrams_without_plotting(global_random_seed, monkeypatch, tmp_path):
    """Check that no diagram is written while skcal.plotting cannot be imported."""
    monkeypatch.setitem(sys.modules, "skcal.plotting", None)
    rng = np.random.RandomState(global_random_seed)
    assert _write_diagrams({"GaussianNB": _result(rng, 2)}, tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_write_diagrams_hook(global_random_seed, monkeypatch, tmp_path):
    """Check that the hook draws each model with ReliabilityDisplay into one PNG."""
    calls = []

    class ReliabilityDisplay:
        @classmethod
        def from_predictions(cls, y_true, y_prob, *, n_bootstrap=100, ax=None, **kw):
            calls.append((y_true, y_prob, {**kw, "n_bootstrap": n_bootstrap}))
            ax.plot([0, 1], [0, 1])

    monkeypatch.setitem(
        sys.modules,
        "skcal.plotting",
        types.SimpleNamespace(ReliabilityDisplay=ReliabilityDisplay),
    )
    rng = np.random.RandomState(global_random_seed)
    results = {"binary": _result(rng, 2), "multiclass": _result(rng, 4)}
    (path,) = _write_diagrams(results, tmp_path)
    assert path.read_bytes().startswith(b"\x89PNG")
    (y_bin, p_bin, kw_bin), (y_multi, p_multi, kw_multi) = calls
    assert_array_equal(y_bin, results["binary"].y_true)
    assert_array_equal(p_bin, results["binary"].y_prob[:, 1])
    assert kw_bin == {"pos_label": 1, "n_bootstrap": 100}
    assert_array_equal(p_multi, results["multiclass"].y_prob)
    assert_array_equal(kw_multi.pop("labels"), np.arange(4))
    assert kw_multi == {"n_bootstrap": 100}


# ---------------------------------------------------------------------------
# report on real model outputs
# ---------------------------------------------------------------------------


def test_report_top_label_csv(capsys, tmp_path, shared_data_dir):
    """Check the top-label report of a real CSV against the measures themselves."""
    path = shared_data_dir / "hollance-resnet110-c10-toplabel.csv"
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
    values = report_values(tmp_path / "hollance-resnet110-c10-toplabel-calibration.csv")
    assert list(values) == list(REPORT_MEASURES)
    for name, measure in REPORT_MEASURES.items():
        if name == "log_loss":
            expected = log_loss(correct, np.column_stack([1 - confidence, confidence]))
        else:
            expected = measure(correct, confidence)
        value, low, high = values[name]
        assert_allclose(value, expected, rtol=1e-10)
        assert low < high
        assert printed(out, name) == float(f"{value:.4f}")


def test_report_multiclass_npz(capsys, shared_data_dir):
    """Check the report of a real multiclass NPZ, arrays named or found."""
    path = shared_data_dir / "netcal-lenet-5-cifar-10.npz"
    with np.load(path) as data:
        y = data["ground_truth"]
        p = data["predictions"].astype(np.float64)
    p /= p.sum(axis=1, keepdims=True)
    status, named, err = run(
        capsys,
        "report",
        path,
        "--y-true",
        "ground_truth",
        "--y-prob",
        "predictions",
        "--n-bootstrap",
        "5",
    )
    assert status == 0, err
    assert "10 classes" in named
    labels = np.arange(10)
    for name, measure in REPORT_MEASURES.items():
        expected = measure(y, p, labels=labels)
        assert_allclose(printed(named, name), expected, atol=5.01e-5)
    status, found, _ = run(capsys, "report", path, "--n-bootstrap", "5")
    assert status == 0
    assert found == named


# ---------------------------------------------------------------------------
# report on small files written here
# ---------------------------------------------------------------------------


def test_report_binary_csv(capsys, tmp_path, global_random_seed):
    """Check a binary report, with 0/1 labels and with string labels."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng)
    numeric = write_rows(tmp_path / "numeric.csv", ["y", "p"], rows_of(y, p))
    words = np.where(y == 1, "sick", "well")
    text = write_rows(tmp_path / "text.csv", ["y", "p"], rows_of(words, p))
    common = ["--y-true", "y", "--y-prob", "p", "--n-bootstrap", "10"]
    assert run(capsys, "report", numeric, *common, "--out", tmp_path)[0] == 0
    values = report_values(tmp_path / "numeric-calibration.csv")
    # Both diagrams of the predictions are written beside the table.
    for png in ("reliability_diagrams.png", "calibration_sharpness_diagrams.png"):
        assert (tmp_path / png).read_bytes().startswith(b"\x89PNG")
    for name, measure in REPORT_MEASURES.items():
        if name == "log_loss":
            expected = log_loss(y, np.column_stack([1 - p, p]))
        else:
            expected = measure(y, p)
        assert_allclose(values[name][0], expected, rtol=1e-12)
    options = ["--pos-label", "sick", "--out", tmp_path]
    assert run(capsys, "report", text, *common, *options)[0] == 0
    assert report_values(tmp_path / "text-calibration.csv") == values


def test_report_multiclass_csv(capsys, tmp_path, global_random_seed):
    """Check a multiclass report, with columns in class order or named classes."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_multiclass(rng)
    common = ["--y-true", "y", "--n-bootstrap", "0"]
    ordered = write_rows(
        tmp_path / "ordered.csv",
        ["y", "p0", "p1", "p2"],
        rows_of(y, p),
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
        tmp_path / "shuffled.csv",
        ["y", *map(str, order)],
        rows_of(y, p[:, order]),
    )
    columns = [str(k) for k in order]
    status, again, _ = run(capsys, "report", shuffled, *common, "--y-prob", *columns)
    assert status == 0
    assert again.splitlines()[1:] == out.splitlines()[1:]


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
    renormalized = rounded / rounded.sum(axis=1, keepdims=True)
    expected = log_loss(y, renormalized, labels=np.arange(7))
    assert_allclose(printed(out, "log_loss"), expected, atol=5.01e-5)
    # A row off by more than its rounding is still an error.
    rows[3][1] = f"{float(rows[3][1]) + 0.01:.3f}"
    write_rows(path, ["y", *"abcdefg"], rows)
    status, _, err = run(capsys, *common, "--n-bootstrap", "0")
    assert status == 2
    assert "line 5: the probabilities of the 7 classes sum to" in err


def test_report_bootstrap_is_seeded(capsys, tmp_path, global_random_seed):
    """Check that the intervals depend on --random-state and on it alone."""
    rng = np.random.RandomState(global_random_seed)
    y, p = random_binary(rng, n=100)
    path = write_rows(tmp_path / "d.csv", ["y", "p"], rows_of(y, p))
    common = ["report", path, "--y-true", "y", "--y-prob", "p", "--n-bootstrap", "10"]
    first = run(capsys, *common, "--random-state", "1")[1]
    assert run(capsys, *common, "--random-state", "1")[1] == first
    assert run(capsys, *common, "--random-state", "2")[1] != first


# ---------------------------------------------------------------------------
# report on broken input: one line on stderr, exit status 2, no traceback
# ---------------------------------------------------------------------------

BROKEN = {
    "missing_column": ("y,q\n1,0.5\n", ["--y-prob", "p"], "no column 'p'"),
    "text_probability": ("y,p\n1,0.5\n0,high\n", ["--y-prob", "p"], "line 3"),
    "above_one": ("y,p\n1,1.5\n0,0.2\n", ["--y-prob", "p"], r"1\.5 is outside"),
    "negative": ("y,p\n1,-0.1\n0,0.2\n", ["--y-prob", "p"], "outside"),
    "empty_file": ("", ["--y-prob", "p"], "is empty"),
    "header_only": ("y,p\n", ["--y-prob", "p"], "no data rows"),
    "empty_cell": ("y,p\n1,\n", ["--y-prob", "p"], "empty"),
    "ragged_row": ("y,p\n1,0.5\n0\n", ["--y-prob", "p"], "1 field"),
    "not_summing_to_one": (
        "y,a,b\n0,0.5,0.6\n1,0.5,0.5\n",
        ["--y-prob", "a", "b"],
        "sum to 1.1",
    ),
    "labels_need_pos_label": ("y,p\nno,0.5\nyes,0.6\n", ["--y-prob", "p"], "pos-label"),
    "unknown_pos_label": (
        "y,p\nno,0.5\nyes,0.6\n",
        ["--y-prob", "p", "--pos-label", "maybe"],
        "not one of the labels",
    ),
    "three_classes_one_column": (
        "y,p\n0,0.5\n1,0.6\n2,0.1\n",
        ["--y-prob", "p"],
        "3 classes",
    ),
    "no_probabilities": ("y,p\n1,0.5\n", [], "--y-prob"),
    "csv_as_npz": ("y,p\n1,0.5\n", ["--y-prob", "p", "--format", "npz"], "npz"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_report_broken_file(capsys, tmp_path, case):
    """Check that a malformed file gets a one-line error and exit status 2."""
    content, options, match = BROKEN[case]
    path = tmp_path / f"{case}.csv"
    path.write_text(content)
    status, out, err = run(capsys, "report", path, "--y-true", "y", *options)
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("skcal: error:")
    assert re.search(match, line), line


@pytest.mark.parametrize(
    "name, options, match",
    [
        ("missing.csv", ["--y-prob", "p"], "no such file"),
        ("folder", ["--y-prob", "p"], "folder"),
        ("arrays.npz", ["--y-prob", "nope"], "no array 'nope'"),
        ("arrays.npz", ["--y-prob", "short"], "different lengths"),
        ("arrays.npz", ["--y-prob", "p", "--format", "csv"], "not a UTF-8"),
    ],
)
def test_report_broken_path(capsys, tmp_path, name, options, match):
    """Check the one-line errors for a missing file, a folder and bad NPZ arrays."""
    (tmp_path / "folder").mkdir()
    np.savez(
        tmp_path / "arrays.npz",
        y=np.array([0, 1, 1]),
        p=np.array([0.2, 0.7, 0.9]),
        short=np.array([0.5, 0.5]),
    )
    status, out, err = run(capsys, "report", tmp_path / name, "--y-true", "y", *options)
    assert status == 2
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("skcal: error:")
    assert match in line
