"""Tests of calibration_audit: groups and intersections tested and ranked."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from skcal.datasets import load_cifar10_lenet
from skcal.metrics import calibration_audit, expected_calibration_error, kuiper_test
from skcal.metrics._audit import adjusted_p_values


def _hidden_intersection(rng, n):
    """Calibrated predictions except on the old of the south."""
    y_prob = rng.uniform(size=n)
    region = rng.choice(["north", "south", "east"], size=n)
    age = rng.choice(["young", "old"], size=n)
    hidden = (region == "south") & (age == "old")
    y_true = rng.uniform(size=n) < np.where(hidden, y_prob**2, y_prob)
    return y_true, y_prob, {"region": region, "age": age}


def test_every_row_is_the_test_of_its_group(global_random_seed):
    """Check each row against kuiper_test and the ECE of the group's rows."""
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob, groups = _hidden_intersection(rng, 1500)
    audit = calibration_audit(y_true, y_prob, groups=groups, min_samples=1)
    table = audit.table
    # 3 regions + 2 ages + 6 intersections.
    assert len(table["group"]) == 11
    assert audit.n_skipped == 0
    for r, description in enumerate(table["group"]):
        rows = np.ones(len(y_true), dtype=bool)
        for condition in description.split(" & "):
            column, value = condition.split("=")
            rows &= groups[column] == value
        assert table["n_samples"][r] == rows.sum()
        assert table["depth"][r] == description.count("&") + 1
        expected = kuiper_test(y_true[rows], y_prob[rows])
        assert table["statistic"][r] == pytest.approx(expected.statistic, rel=1e-12)
        assert table["p_value"][r] == pytest.approx(expected.p_value, rel=1e-9)
        assert table["error"][r] == pytest.approx(
            expected_calibration_error(y_true[rows], y_prob[rows]), rel=1e-12
        )
    assert np.all(np.diff(table["normalized_statistic"]) <= 0)


def test_finds_the_hidden_intersection(global_random_seed):
    """Check that the miscalibrated intersection ranks first and is flagged.

    The two groups that contain it are flagged next, before any other.
    Whether a calibrated group is flagged as well is chance, which Holm's
    correction bounds over all of them (see
    test_family_wise_error_on_calibrated_data): with seed 36, region=north
    has p = 0.005, 0.04 once corrected, and is flagged at 0.05.
    """
    rng = np.random.RandomState(global_random_seed)
    y_true, y_prob, groups = _hidden_intersection(rng, 6000)
    audit = calibration_audit(y_true, y_prob, groups=groups)
    assert audit.flagged[0] == "region=south & age=old"
    assert set(audit.flagged[1:3]) == {"region=south", "age=old"}
    assert "region=south & age=old" in str(audit)


def test_finds_a_distorted_group_in_real_outputs():
    """Check the audit on a shipped model's outputs with a hidden bad group.

    LeNet's CIFAR-10 probabilities get two synthetic grouping columns; the
    rows of one intersection are made overconfident (probabilities raised to
    the power 3 and renormalised, a temperature of 1/3). Neither column
    alone ranks first: the intersection does.
    """
    data = load_cifar10_lenet()
    rng = np.random.RandomState(0)
    n = data.target.shape[0]
    site = rng.choice(["A", "B", "C", "D"], size=n)
    device = rng.choice(["phone", "tablet", "laptop"], size=n)
    proba = data.probabilities.astype(np.float64)
    hidden = (site == "C") & (device == "phone")
    sharp = proba[hidden] ** 3
    proba[hidden] = sharp / sharp.sum(axis=1, keepdims=True)
    audit = calibration_audit(
        data.target, proba, groups={"site": site, "device": device}
    )
    assert audit.flagged[0] == "site=C & device=phone"
    frame = audit.to_frame()
    assert frame["group"].iloc[0] == "site=C & device=phone"


def test_family_wise_error_on_calibrated_data():
    """Check Holm's correction: few calibrated audits flag any group.

    300 audits of calibrated data, 11 overlapping groups each; the rate of
    audits with a flag is at most alpha within Monte-Carlo error (the
    asymptotic p-values of groups of 100 to 400 rows are slightly
    conservative).
    """
    rng = np.random.RandomState(0)
    alpha, n_audits = 0.1, 300
    flagged = 0
    for _ in range(n_audits):
        y_prob = rng.uniform(0.05, 0.95, size=1200)
        y_true = rng.uniform(size=1200) < y_prob
        groups = {
            "a": rng.choice(["x", "y", "z"], size=1200),
            "b": rng.choice(["u", "v"], size=1200),
        }
        audit = calibration_audit(y_true, y_prob, groups=groups, alpha=alpha)
        flagged += bool(audit.flagged)
    rate = flagged / n_audits
    assert rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_audits)


def _holm_reference(p):
    """Holm's adjusted p-values by their definition: a max over the steps."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    for rank, i in enumerate(order):
        adjusted[i] = min(1.0, max((m - k) * p[order[k]] for k in range(rank + 1)))
    return adjusted


def test_corrections_against_references(global_random_seed):
    """Check Holm against its definition, Bonferroni and BH against scipy."""
    rng = np.random.RandomState(global_random_seed)
    p = rng.uniform(size=25) ** 3
    np.testing.assert_allclose(adjusted_p_values(p, "holm"), _holm_reference(p))
    np.testing.assert_allclose(
        adjusted_p_values(p, "bonferroni"), np.minimum(1.0, 25 * p)
    )
    np.testing.assert_allclose(
        adjusted_p_values(p, "fdr_bh"), false_discovery_control(p)
    )
    np.testing.assert_array_equal(adjusted_p_values(p, None), p)


def test_inputs_of_groups():
    """Check a DataFrame, a dict, a 2-D array and one column as groups."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    y_true, y_prob, groups = _hidden_intersection(rng, 800)
    frame = pd.DataFrame(groups)
    by_frame = calibration_audit(y_true, y_prob, groups=frame)
    by_dict = calibration_audit(y_true, y_prob, groups=groups)
    np.testing.assert_array_equal(by_frame.table["group"], by_dict.table["group"])
    by_array = calibration_audit(
        y_true, y_prob, groups=np.column_stack([groups["region"], groups["age"]])
    )
    assert set(by_array.table["group"]) >= {"x0=south", "x1=old"}
    one = calibration_audit(y_true, y_prob, groups=groups["region"])
    assert sorted(one.table["group"]) == [
        "group=east",
        "group=north",
        "group=south",
    ]


def test_small_and_weightless_groups_are_skipped():
    """Check that groups under min_samples or of zero weight are not tested."""
    rng = np.random.RandomState(0)
    y_true, y_prob, groups = _hidden_intersection(rng, 600)
    weight = np.where(groups["region"] == "east", 0.0, 1.0)
    audit = calibration_audit(
        y_true,
        y_prob,
        groups={"region": groups["region"]},
        sample_weight=weight,
        min_samples=1,
    )
    assert sorted(audit.table["group"]) == ["region=north", "region=south"]
    assert audit.n_skipped == 1
    audit = calibration_audit(y_true, y_prob, groups=groups, min_samples=10_000)
    assert len(audit.table["group"]) == 0
    assert audit.n_skipped == 11
    assert audit.flagged == []


@pytest.mark.parametrize(
    "groups, message",
    [
        ({}, "groups has no column"),
        ({"a": [0, 1, None, 1]}, r"groups contains 1 missing value"),
        ({"a": [0, 1, 1]}, "groups has 3 entries but there are 4 samples"),
    ],
)
def test_bad_groups_rejected(groups, message):
    """Check that bad grouping columns are refused with the contract's words."""
    with pytest.raises(ValueError, match=message):
        calibration_audit([0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4], groups=groups)
