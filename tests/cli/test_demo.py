"""Tests of ``skcal demo`` (``skcal/_cli/_demo.py``)."""

# SPDX-License-Identifier: BSD-3-Clause

import io
import re
import sys

from numpy.testing import assert_allclose
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB

from skcal._cli._demo import _lesson
from skcal.discovery import all_recalibrators
from skcal.model_selection import cross_val_calibration
from tests.cli._helpers import error_line, read_csv, run

RECALIBRATORS = [name for name, _ in all_recalibrators()]


def test_demo_quick(capsys, tmp_path):
    """Check that the quick demo prints both tables and writes what it printed."""
    out_dir = tmp_path / "demo"
    status, out, err = run(capsys, "demo", "--quick", "--out", out_dir)
    assert status == 0, err
    assert "Traceback" not in err

    # Not on a terminal: no progress.
    assert err == ""

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

    # (3) The diagrams, named in the last lines.
    for name in ("reliability.png", "calibration-sharpness.png"):
        assert (out_dir / name).read_bytes()[:4] == b"\x89PNG"
        assert str(out_dir / name) in out.splitlines()[-1]

    # A second run refuses to overwrite the first, unless told to.
    line = error_line(capsys, "demo", "--quick", "--out", out_dir)
    assert line == (
        f"skcal: error: {out_dir / 'comparison.csv'} exists; pass --overwrite or "
        "choose another --out"
    )


def test_demo_output_folder_is_a_file(capsys, tmp_path):
    """Check that an output folder that cannot be created is a one-line error."""
    blocker = tmp_path / "taken"
    blocker.write_text("")
    line = error_line(capsys, "demo", "--quick", "--out", blocker / "demo")
    assert line.startswith(f"skcal: error: cannot create the output folder {blocker}")


def test_demo_too_many_folds(capsys, tmp_path):
    """Check that scikit-learn's refusal of --cv 600 is one line, stdout empty."""
    line = error_line(capsys, "demo", "--quick", "--cv", "600", "--out", tmp_path)
    assert re.fullmatch(r"skcal: error: demo: .*n_splits=600.*", line), line
    assert list(tmp_path.iterdir()) == []


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
    assert f"(ranked {ranks[mrr]} of {len(ranks)} by ECE)" in line
    everyone = dict.fromkeys(trap, mrr)
    assert "even a proper score picked" in _lesson(everyone, ranks)


class _Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True


def test_demo_progress_on_a_terminal(capsys, monkeypatch, tmp_path):
    """Check the progress lines on a terminal, and that --quiet silences them."""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    status, _, _ = run(capsys, "demo", "--quick", "--out", tmp_path / "a")
    assert status == 0
    err = terminal.getvalue()
    # One line per model, the grid search, then the files.
    total = len(RECALIBRATORS) + 3
    for i, name in enumerate(["GaussianNB", *RECALIBRATORS], start=1):
        assert f"[{i}/{total}] {name} ... " in err
    assert f"[{total - 1}/{total}] GridSearchCV over {len(RECALIBRATORS)} " in err
    assert f"[{total}/{total}] tables and diagrams ... " in err
    assert "Done in " in err
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    status, _, _ = run(capsys, "demo", "--quick", "--quiet", "--out", tmp_path / "b")
    assert status == 0
    assert quiet.getvalue() == ""


def test_demo_datasets_are_the_parsers_choices():
    """Check that the parser offers exactly the demo's data sets."""
    from skcal._cli._arguments import DATASETS as choices
    from skcal._cli._demo import DATASETS, NETWORKS

    assert list(choices) == [*DATASETS, *NETWORKS]


def test_demo_on_a_network(capsys, tmp_path):
    """Check the demo on a network's shipped probabilities (quick settings)."""
    status, out, err = run(
        capsys, "demo", "--quick", "--dataset", "cifar10_lenet", "--out", tmp_path
    )
    assert status == 0, err
    assert "scored by a LeNet-5 (skcal.datasets.load_cifar10_lenet" in out
    assert "none (LeNet-5)" in out
    assert 'GridSearchCV(Pipeline([("recalibrator", ...)])' in out
    assert (tmp_path / "comparison.csv").read_text().splitlines()[1].startswith("none,")
