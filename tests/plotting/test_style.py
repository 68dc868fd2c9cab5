"""Tests of the style keywords' merge (skcal/plotting/_style.py), a private helper."""

# SPDX-License-Identifier: BSD-3-Clause

import pytest

from skcal.plotting._style import merge_style_kwargs


def test_merge_style_kwargs_resolves_aliases():
    """Check that user aliases override the defaults' full names."""
    defaults = {"color": "black", "linestyle": ":", "lw": 1.0}
    style = merge_style_kwargs(defaults, {"c": "red", "ls": "--", "alpha": 0.5})
    assert style == {"color": "red", "linestyle": "--", "linewidth": 1.0, "alpha": 0.5}
    assert merge_style_kwargs(defaults, None) == {
        "color": "black",
        "linestyle": ":",
        "linewidth": 1.0,
    }
    # The inputs are left untouched.
    assert defaults == {"color": "black", "linestyle": ":", "lw": 1.0}


def test_merge_style_kwargs_collection_plurals():
    """Check that the plural names of collections map to the same properties."""
    style = merge_style_kwargs({"linewidth": 4.0}, {"linewidths": 2.0, "colors": "r"})
    assert style == {"linewidth": 2.0, "color": "r"}


def test_merge_style_kwargs_errors():
    """Check that aliases given twice and non-dicts are rejected, naming the dict."""
    with pytest.raises(TypeError, match="both 'c' and 'color'"):
        merge_style_kwargs({}, {"c": "red", "color": "blue"})
    with pytest.raises(TypeError, match="both 'lw' and 'linewidths'"):
        merge_style_kwargs({}, {"lw": 1, "linewidths": 2})
    with pytest.raises(TypeError, match="line_kwargs must be a dict"):
        merge_style_kwargs({}, ["red"], name="line_kwargs")
